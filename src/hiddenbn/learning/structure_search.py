"""Greedy structure search over DAGs without hidden variables, scored by the exact BD score.

This is the comparison model of paper 003 Sec. 5 ("the BD scoring function with a uniform prior
over the parameters in conjunction with a greedy search algorithm (in directed-graph space)
initialized with an empty graph", after Heckerman, Geiger & Chickering 1995). The score of a
DAG is the Cooper-Herskovits marginal likelihood (paper 003 Eq. 5), a sum of one term per
family, so each step re-scores only the families an operator changes.
"""

from __future__ import annotations

import itertools

import numpy as np

from hiddenbn.data import Dataset
from hiddenbn.errors import DataError
from hiddenbn.models.network import Network
from hiddenbn.models.priors import bd_log_marginal
from hiddenbn.scores.exact import complete_data_counts


class FamilyScores:
    """Cached BD terms ``log p(D_family | S)`` of one child given a parent set."""

    def __init__(self, data: Dataset, cardinalities, alpha: float):
        self.data, self.cardinalities, self.alpha = data, tuple(cardinalities), alpha
        self.cache: dict[tuple[int, frozenset], float] = {}

    def __call__(self, child: int, parents: frozenset) -> float:
        key = (child, parents)
        if key not in self.cache:
            order = sorted(parents) + [child]
            names = tuple(self.data.names[i] for i in order)
            family = Network(names=names,
                             cardinalities=tuple(self.cardinalities[i] for i in order),
                             parents=tuple(() for _ in parents) + (tuple(range(len(parents))),),
                             hidden=(False,) * len(order), functions=(None,) * len(order))
            counts = complete_data_counts(family, self.data)
            # only the child's term belongs to this family: zero counts make the parents'
            # terms of Eq. 5 vanish
            silent = [np.zeros((1, family.cardinalities[k])) for k in range(len(parents))]
            self.cache[key] = bd_log_marginal(family, silent + [counts[-1]], self.alpha)
        return self.cache[key]


def _creates_cycle(parents: list[set], child: int, new_parent: int) -> bool:
    """Whether adding ``new_parent -> child`` closes a directed cycle (child reaches new_parent)."""
    stack, seen = [new_parent], set()
    while stack:
        node = stack.pop()
        if node == child:
            return True
        if node not in seen:
            seen.add(node)
            stack.extend(parents[node])
    return False


def greedy_search(data: Dataset, alpha: float = 1.0, cardinalities=None,
                  max_parents: int | None = None) -> tuple[Network, float]:
    """Hill-climb from the empty graph with arc additions, deletions and reversals.

    Every step applies the operator with the largest increase of the BD log marginal likelihood
    (uniform Dirichlet(``alpha``) parameter priors); the search stops when none increases it.
    The result is a local optimum: from the empty graph a v-structure ``A -> C <- B`` can end
    up with an extra covering arc between ``A`` and ``B``.
    Returns the network (all nodes observed, named as the data columns) and its log score.
    """
    n = len(data.names)
    if cardinalities is None:
        cardinalities = data.patterns.max(axis=0) + 1
    cardinalities = [max(int(r), 2) for r in cardinalities]
    if len(cardinalities) != n:
        raise DataError(f"{len(cardinalities)} state counts for {n} data columns")
    # The same steepest ascent as ebnc.fitting.select_embedded_network's (the same arc moves)
    # and learning.hlc.hill_climb's, but not one driver: the BD score decomposes, so a move is
    # scored by the change of the one or two families it touches, never by the whole network;
    # ties go to the first move in (parent, child) order, and a gain must pass 1e-9.
    family = FamilyScores(data, cardinalities, alpha)
    parents: list[set] = [set() for _ in range(n)]
    local = [family(i, frozenset()) for i in range(n)]
    while True:
        best_gain, best_move = 1e-9, None
        for a, b in itertools.permutations(range(n), 2):
            if a in parents[b]:  # delete a -> b, or reverse it to b -> a
                gain = family(b, frozenset(parents[b] - {a})) - local[b]
                if gain > best_gain:
                    best_gain, best_move = gain, ("delete", a, b)
                if max_parents is None or len(parents[a]) < max_parents:
                    parents[b].discard(a)
                    acyclic = not _creates_cycle(parents, a, b)
                    parents[b].add(a)
                    if acyclic:
                        gain = (family(b, frozenset(parents[b] - {a})) - local[b]
                                + family(a, frozenset(parents[a] | {b})) - local[a])
                        if gain > best_gain:
                            best_gain, best_move = gain, ("reverse", a, b)
            elif (b not in parents[a] and (max_parents is None or len(parents[b]) < max_parents)
                  and not _creates_cycle(parents, b, a)):
                gain = family(b, frozenset(parents[b] | {a})) - local[b]
                if gain > best_gain:
                    best_gain, best_move = gain, ("add", a, b)
        if best_move is None:
            break
        move, a, b = best_move
        if move == "add":
            parents[b].add(a)
        else:
            parents[b].discard(a)
            if move == "reverse":
                parents[a].add(b)
        for node in (a, b):
            local[node] = family(node, frozenset(parents[node]))
    return _as_network(data.names, cardinalities, parents), float(sum(local))


def _as_network(names, cardinalities, parents) -> Network:
    """The learned DAG as a :class:`Network` in a topological order."""
    order, placed = [], set()
    while len(order) < len(names):
        ready = next(i for i in range(len(names)) if i not in placed and parents[i] <= placed)
        order.append(ready)
        placed.add(ready)
    position = {node: k for k, node in enumerate(order)}
    return Network(names=tuple(names[i] for i in order),
                   cardinalities=tuple(cardinalities[i] for i in order),
                   parents=tuple(tuple(sorted(position[p] for p in parents[i])) for i in order),
                   hidden=(False,) * len(order), functions=(None,) * len(order))
