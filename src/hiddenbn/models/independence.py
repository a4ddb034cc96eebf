"""Conditional independencies of a fully observed discrete network: those its structure encodes
(d-separation) and those a parameter point adds beyond them.

A structure ``m`` is a perfect map of a distribution when the distribution's conditional
independencies are exactly those ``m`` d-separates. Paper 001 reads its model hypothesis that
way: "by definition of hypothesis m, we exclude values of theta that correspond to
independencies not encoded in m" (Sec. 4, proof of Theorem 1). :func:`unencoded_independencies`
checks that premise at a parameter point: every statement ``A _||_ B | S`` over the network's
nodes is tested by its conditional mutual information in the point's joint distribution.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np

from hiddenbn.errors import SpecError
from hiddenbn.models.network import Network, observed_distribution

#: Conditional mutual information (nats) at or below this is an independence that holds: the
#: information of an exact independence is a sum of ``p log(1 + round-off)`` terms, below 1e-15.
#: A dependence along a long path of a Dirichlet(1) draw can carry as little as 1e-11 nats (the
#: information is quadratic in the effects it multiplies), so the cut sits near round-off.
INDEPENDENCE_TOLERANCE = 1e-13
#: Nodes beyond which the 2^(n - 2) conditioning sets of each pair are too many to enumerate.
MAX_NODES = 12


@dataclass(frozen=True)
class Statement:
    """``A _||_ B | given`` (node indices), whether the structure d-separates it, and the
    conditional mutual information (nats) of a parameter point's joint distribution."""

    a: int
    b: int
    given: tuple[int, ...]
    separated: bool
    information: float

    def text(self, network: Network) -> str:
        """The statement in node names, e.g. ``X4 _||_ Y | X3``."""
        names = network.names
        given = f" | {', '.join(names[i] for i in self.given)}" if self.given else ""
        return f"{names[self.a]} _||_ {names[self.b]}{given}"


def ancestral_set(network: Network, nodes) -> set[int]:
    """``nodes`` and all their ancestors."""
    found, stack = set(), list(nodes)
    while stack:
        node = stack.pop()
        if node not in found:
            found.add(node)
            stack.extend(network.parents[node])
    return found


def d_separated(network: Network, a: int, b: int, given=()) -> bool:
    """Whether ``given`` d-separates nodes ``a`` and ``b`` in the structure of ``network``.

    By the moral ancestral graph (Lauritzen et al. 1990): ``a`` and ``b`` are d-separated by
    ``S`` iff ``S`` separates them in the moralised graph of the ancestral set of
    ``{a, b} | S``.
    """
    given = set(given)
    relevant = ancestral_set(network, {a, b} | given)
    neighbours = {node: set() for node in relevant}
    for node in relevant:
        family = [*network.parents[node], node]
        for u, v in combinations(family, 2):  # parent-child arcs and married parents
            neighbours[u].add(v)
            neighbours[v].add(u)
    reached, stack = {a}, [a]
    while stack:
        for neighbour in neighbours[stack.pop()] - given - reached:
            reached.add(neighbour)
            stack.append(neighbour)
    return b not in reached


def conditional_mutual_information(joint: np.ndarray, a: int, b: int, given=()) -> float:
    """``I(A; B | S)`` in nats of the joint distribution ``joint`` (one axis per node)."""
    others = tuple(axis for axis in range(joint.ndim) if axis not in (a, b, *given))
    marginal = np.moveaxis(joint.sum(axis=others, keepdims=True), [a, b], [0, 1])
    with_a, with_b = marginal.sum(axis=1, keepdims=True), marginal.sum(axis=0, keepdims=True)
    conditioning = marginal.sum(axis=(0, 1), keepdims=True)
    positive = marginal > 0  # where it is, so are its margins: the logarithm is finite
    denominator = np.broadcast_to(with_a * with_b, marginal.shape)[positive]
    ratio = (marginal * conditioning)[positive] / denominator
    return float(np.sum(marginal[positive] * np.log(ratio)))


def independence_statements(network: Network, cpts) -> list[Statement]:
    """Every statement ``A _||_ B | S`` (each pair, each set ``S`` of the other nodes) with its
    d-separation and its conditional mutual information at the parameter point ``cpts``.

    Raises :class:`~hiddenbn.errors.SpecError` for a network with hidden nodes (the statements
    are about the full joint distribution) or more than :data:`MAX_NODES` nodes.
    """
    if any(network.hidden):
        raise SpecError("the independencies of a parameter point are read from the joint "
                        "distribution of every node; remove 'hidden' from the spec")
    if network.n_nodes > MAX_NODES:
        raise SpecError(f"the network has {network.n_nodes} nodes; enumerating every "
                        f"conditional independence is limited to {MAX_NODES}")
    joint = observed_distribution(network, cpts)
    statements = []
    for a, b in combinations(range(network.n_nodes), 2):
        rest = [v for v in range(network.n_nodes) if v not in (a, b)]
        for size in range(len(rest) + 1):
            for given in combinations(rest, size):
                statements.append(Statement(
                    a, b, given, d_separated(network, a, b, given),
                    conditional_mutual_information(joint, a, b, given)))
    return statements


def unencoded_independencies(network: Network, cpts,
                             tolerance: float = INDEPENDENCE_TOLERANCE) -> list[Statement]:
    """The independencies that hold at ``cpts`` (information at most ``tolerance``) although
    the structure does not d-separate them: empty when the structure is a perfect map of the
    point's distribution (the premise of paper 001's Theorem 1)."""
    return [s for s in independence_statements(network, cpts)
            if not s.separated and s.information <= tolerance]
