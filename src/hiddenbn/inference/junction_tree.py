"""Exact E step on any discrete network by junction-tree (Hugin) propagation.

Enumeration (:func:`hiddenbn.inference.enumeration.enumeration_statistics`) pays for every joint
state of the hidden nodes, and message passing (:mod:`hiddenbn.inference.message_passing`) needs a
tree. A junction tree handles any discrete network at a cost that follows its largest cliques
instead:

* **Structure** (:class:`JunctionTree`, cached per network). The moral graph (every node joined
  to its parents, the parents of a node married) is triangulated by greedy elimination: next
  the node whose elimination adds the fewest edges (min-fill), ties to the smallest weight (the
  product of the state counts of the node and its remaining neighbours), then to the lowest
  index. The maximal sets {node, remaining neighbours} are the cliques, numbered in
  elimination order; the junction tree is a maximum spanning tree over separator sizes
  (Kruskal, ties to the lexicographically first clique pair; parts of a disconnected network
  are joined by empty separators), rooted at clique 0. Every node's family (its parents and
  itself) is assigned to the clique with the fewest states that contains it (ties to the lowest
  index); its CPT, or the 0/1 table of a deterministic ``max``/``sum`` node
  (:func:`~hiddenbn.models.network.node_tables`), and, for an observed node, its evidence enter that
  clique's potential.
* **Evidence.** Observed nodes stay in the cliques; a pattern enters as one indicator vector
  per observed node (all ones for a missing cell, :data:`~hiddenbn.data.MISSING`, which sums the
  node out, so its family posterior and expected counts are those of the data completed in it,
  as enumeration gives).
* **Propagation** (Hugin), per pattern, over one buffer holding every clique's potential (its
  tables' product times its evidence) in C order over its members. Collect (leaves to root): a
  clique sends its marginal on the separator to its parent clique, which multiplies it in.
  Distribute (root to leaves): a child multiplies in the ratio of the parent's final separator
  marginal to the message it sent up (``0 / 0 = 0``: a zero message makes the parent's
  marginal zero there too). Each clique then holds ``p(X_C, x_p)`` up to a factor per
  pattern, and a family's posterior is its clique's belief, normalised and summed down to the
  family.
* **Underflow.** Every message and, after each product, every clique potential is rescaled per
  pattern to a maximum of one (many observed variables make ``p(x_p)`` underflow otherwise);
  the collect pass adds up the logs of the scales, which with the root's total give
  ``log p(x_p)``. A pattern of probability zero (only zeros in the tables can cause that) is a
  one-line :class:`~hiddenbn.errors.DataError`. CPT rows need not sum to one (a caller clamping
  ``X_a = s`` zeroes the other columns of its table: the log-likelihood is then
  ``log p(x, X_a = s)`` and the counts those of that joint); exact zeros give zero counts, no
  ``log 0`` warnings and no NaN.

Patterns go in blocks whose size follows the network alone (:data:`BLOCK_CELLS` over the sum of
the clique sizes; it bounds the per-pattern beliefs that the posteriors hold), on
:func:`hiddenbn.util.threads.map_blocks` (one BLAS thread, partial sums added in block order), so
results are the same to the last bit for any number of threads.

**numba, not numpy.** Both were written and measured. The numpy version held a block's
potentials as ``(patterns, *states)`` arrays and did every clique operation as one broadcast
call; with cliques of 8-54 states its inner loops are 2-3 elements long and it spent ~6 ns per
clique-state operation, 2.5x the numba kernels' (W with 2 ternary parents and 20 children:
169 against 70 ms; ladder of 18: 209 against 81 ms; equal only on the 2048-state noisy-max
clique). The kernels (:func:`_propagate`, next to its callers) walk one pattern at a time over
flat index maps (a clique state's separator cell), keep all cliques in one buffer of
:attr:`JunctionTree.total_states` cells, and accumulate the count-weighted beliefs; they are
``cache=True, nogil=True``, without ``fastmath``, and run on the fixed blocks above.

Measured here (one thread, 10^4 cases sampled from random parameters, one E step, best of 3;
the machine is shared, so compare the columns of a row, not rows of runs):

===========================================  ========  ========  =============  ===========
network                                      patterns   largest  junction tree  enumeration
===========================================  ========  ========  =============  ===========
W: 2 ternary hidden parents, 20 binary kids      8365    18 st.          70 ms        27 ms
W: 3 ternary hidden parents, 20 binary kids      8887    54 st.         133 ms        59 ms
noisy-max, 10 binary causes                       383  2048 st.          38 ms       115 ms
noisy-max, 12 binary causes                       941  8192 st.         486 ms       741 ms
ladder of 8 binary hidden nodes, 14 kids         5094     8 st.          12 ms       235 ms
ladder of 18 binary hidden nodes, 34 kids       10000     8 st.          56 ms      refused
HLC 4(4(3,3,3,3),4(3,3,3,3),4(3,3,3,3))          9128    16 st.          30 ms       267 ms
paper 002 HLC 5(3(2,2),3(2,2),2)                   32    15 st.         0.2 ms       0.4 ms
===========================================  ========  ========  =============  ===========

Enumeration wins when the hidden nodes have few joint states (the W's 9 or 27) and many
observed nodes share them: it does one vectorised pass per configuration, where every
observed child is a clique of its own here. The noisy-max network's cliques are bad for a
junction tree: the effect's parents (all the mechanisms) are married, so one clique holds every
mechanism and the effect, twice enumeration's hidden configurations; the kernels still win by
1.5-3x. The causal-independence decomposition of ``max`` (a chain of pairwise maxima) would cut
that clique down; it is not done here. :func:`prefers_junction_tree` turns these measurements
into the engine choice.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numba
import numpy as np

from hiddenbn.errors import DataError, HiddenbnError
from hiddenbn.inference.enumeration import MAX_HIDDEN_CONFIGURATIONS, hidden_configuration_count
from hiddenbn.models.network import Network, node_tables
from hiddenbn.util.limits import approximately
from hiddenbn.util.threads import block_starts, map_blocks

#: Most joint states of one clique (:func:`junction_tree_statistics` refuses larger ones).
MAX_CLIQUE_STATES = 1 << 20
#: Pattern-by-clique-state cells held per block of patterns (bounds the memory of a block).
BLOCK_CELLS = 1 << 21
#: Below this many pattern-by-clique-state cells per E step the blocks run on one thread.
PARALLEL_MIN_CELLS = 1 << 22
#: :func:`prefers_junction_tree`: the junction tree's time per unit of
#: :func:`junction_tree_cost` over enumeration's per unit of :func:`enumeration_cost` (measured
#: 1.4-2.4 ns against 7-16 ns on the networks of the module docstring), and the factor by which
#: the junction tree must be predicted cheaper before it replaces enumeration (1: the predicted
#: faster one; the prediction erred toward enumeration on every network measured).
CLIQUE_STATE_COST = 0.25
#: How much cheaper the junction tree must be predicted to be (see above).
JUNCTION_TREE_MARGIN = 1.0


# --- structure ----------------------------------------------------------------------------
@dataclass(frozen=True)
class JunctionTree:
    """A junction tree of a discrete network (see the module docstring for how it is built).

    Attributes
    ----------
    network : Network
        The network.
    cliques : tuple of tuple of int
        Members of each clique, in increasing node order (the axes of its potential).
    parent : tuple of int
        The parent clique of each clique in the rooted tree, -1 for the root (clique 0).
    separators : tuple of tuple of int
        Each clique's members shared with its parent clique (empty for the root).
    order : tuple of int
        Cliques root first, each after its parent (breadth first); collect runs it backwards.
    family_clique : tuple of int
        The clique that holds each node's family (its table and, when observed, its evidence).
    elimination_order : tuple of int
        The nodes in the order the triangulation eliminated them.
    """

    network: Network
    cliques: tuple[tuple[int, ...], ...]
    parent: tuple[int, ...]
    separators: tuple[tuple[int, ...], ...]
    order: tuple[int, ...]
    family_clique: tuple[int, ...]
    elimination_order: tuple[int, ...]

    @property
    def n_cliques(self) -> int:
        return len(self.cliques)

    @property
    def clique_states(self) -> tuple[int, ...]:
        """Joint states of each clique: the product of its members' state counts."""
        cards = self.network.cardinalities
        return tuple(math.prod(int(cards[v]) for v in clique) for clique in self.cliques)

    @property
    def largest_clique(self) -> int:
        """Index of the clique with the most states (the first of equals)."""
        states = self.clique_states
        return states.index(max(states))

    @property
    def largest_clique_size(self) -> int:
        """Number of nodes of the largest clique (by nodes)."""
        return max(len(clique) for clique in self.cliques)

    @property
    def total_states(self) -> int:
        """Sum of the clique states: the cells of one pattern's potentials."""
        return sum(self.clique_states)

    def describe(self) -> str:
        """A one-line summary, e.g. ``5 cliques, largest 3 nodes / 12 states``."""
        largest = self.largest_clique
        return (f"{self.n_cliques} clique{'s' if self.n_cliques != 1 else ''}, largest "
                f"{len(self.cliques[largest])} nodes / {self.clique_states[largest]} states")

    def check_size(self) -> None:
        """Raise a one-line :class:`~hiddenbn.errors.HiddenbnError` when a clique has more than
        :data:`MAX_CLIQUE_STATES` joint states."""
        largest = self.largest_clique
        states = self.clique_states[largest]
        if states > MAX_CLIQUE_STATES:
            names = ", ".join(self.network.names[v] for v in self.cliques[largest])
            raise HiddenbnError(
                f"the junction tree's largest clique ({names}) has {approximately(states)} "
                f"joint states; exact inference handles at most {MAX_CLIQUE_STATES}; use a "
                "model with fewer or smaller hidden parents (fewer states, fewer parents per "
                "node)")


def moral_graph(network: Network) -> list[set]:
    """Neighbour sets of the moral graph: every node joined to its parents, parents married."""
    neighbours: list[set] = [set() for _ in range(network.n_nodes)]
    for i, parents in enumerate(network.parents):
        family = (*parents, i)
        for a in family:
            neighbours[a].update(b for b in family if b != a)
    return neighbours


def _eliminate(network: Network) -> tuple[list, list]:
    """Greedy triangulation: ``(elimination order, the clique each elimination forms)``."""
    neighbours = moral_graph(network)
    cards = network.cardinalities
    remaining = set(range(network.n_nodes))
    order, formed = [], []

    def key(v):
        around = sorted(neighbours[v])
        fill = sum(1 for t, a in enumerate(around) for b in around[t + 1:]
                   if b not in neighbours[a])
        return fill, math.prod(int(cards[u]) for u in around) * int(cards[v]), v

    while remaining:
        v = min(remaining, key=key)
        around = neighbours[v]
        for a in around:
            neighbours[a].update(around - {a})
            neighbours[a].discard(v)
        order.append(v)
        formed.append(frozenset(around | {v}))
        remaining.discard(v)
        neighbours[v] = set()
    return order, formed


def _spanning_tree(cliques: list) -> list[list[int]]:
    """Adjacency of a maximum spanning tree of the cliques weighted by separator size
    (Kruskal; ties to the lexicographically first pair)."""
    count = len(cliques)
    edges = sorted((-len(cliques[a] & cliques[b]), a, b)
                   for a in range(count) for b in range(a + 1, count))
    root = list(range(count))

    def find(a):
        while root[a] != a:
            root[a] = root[root[a]]
            a = root[a]
        return a

    adjacent: list[list[int]] = [[] for _ in range(count)]
    joined = 0
    for _, a, b in edges:
        if joined == count - 1:
            break
        ra, rb = find(a), find(b)
        if ra != rb:
            root[max(ra, rb)] = min(ra, rb)
            adjacent[a].append(b)
            adjacent[b].append(a)
            joined += 1
    return [sorted(a) for a in adjacent]


@functools.lru_cache(maxsize=32)
def junction_tree(network: Network) -> JunctionTree:
    """The :class:`JunctionTree` of a discrete network (cached: networks are immutable)."""
    if network.kind != "discrete":
        raise HiddenbnError(f"junction trees are built for discrete networks; this network has "
                            f"type {network.kind!r}")
    elimination, formed = _eliminate(network)
    cliques = []
    for t, clique in enumerate(formed):  # keep the maximal ones, the first of equals
        if not any(clique < other or (clique == other and s < t)
                   for s, other in enumerate(formed) if s != t):
            cliques.append(clique)
    adjacent = _spanning_tree(cliques)
    parent = [-1] * len(cliques)
    order, seen = [0], {0}
    for c in order:  # grows while it is walked: breadth first from the root
        for d in adjacent[c]:
            if d not in seen:
                seen.add(d)
                parent[d] = c
                order.append(d)
    states = [math.prod(int(network.cardinalities[v]) for v in clique) for clique in cliques]
    family_clique = []
    for i in range(network.n_nodes):
        family = {*network.parents[i], i}
        family_clique.append(min((states[c], c) for c, clique in enumerate(cliques)
                                 if family <= clique)[1])
    return JunctionTree(
        network=network,
        cliques=tuple(tuple(sorted(clique)) for clique in cliques),
        parent=tuple(parent),
        separators=tuple(() if parent[c] < 0 else tuple(sorted(cliques[c] & cliques[parent[c]]))
                         for c in range(len(cliques))),
        order=tuple(order),
        family_clique=tuple(family_clique),
        elimination_order=tuple(elimination),
    )


# --- propagation --------------------------------------------------------------------------
@dataclass(frozen=True)
class _Plan:
    """Per clique its members' state counts; per node the axes of its clique's ``(patterns,
    *states)`` belief summed out and the transpose to ``(patterns, *parents, node)``."""

    shapes: tuple
    family_axes: tuple


@functools.lru_cache(maxsize=32)
def _plan(network: Network) -> _Plan:
    tree = junction_tree(network)
    shapes = tuple(tuple(int(network.cardinalities[v]) for v in clique)
                   for clique in tree.cliques)
    family_axes = []
    for i in range(network.n_nodes):
        clique = tree.cliques[tree.family_clique[i]]
        family = (*network.parents[i], i)
        kept = sorted(family, key=clique.index)
        family_axes.append((tuple(1 + a for a, v in enumerate(clique) if v not in family),
                            (0, *(1 + kept.index(v) for v in family))))
    return _Plan(shapes, tuple(family_axes))


def clique_potentials(network: Network, cpts) -> list:
    """Each clique's product of the tables assigned to it (CPTs, 0/1 tables of deterministic
    nodes), shaped by its members' states; ones for a clique that holds no family."""
    tree = junction_tree(network)
    cards = network.cardinalities
    operands: list[list] = [[] for _ in range(tree.n_cliques)]
    for i, table in enumerate(node_tables(network, cpts)):
        c = tree.family_clique[i]
        family = (*network.parents[i], i)
        operands[c] += [np.asarray(table, dtype=np.float64).reshape(
            [int(cards[v]) for v in family]), [tree.cliques[c].index(v) for v in family]]
    return [np.einsum(*operands[c], list(range(len(clique)))) if operands[c]
            else np.ones([int(cards[v]) for v in clique])
            for c, clique in enumerate(tree.cliques)]


# --- numba layout ---------------------------------------------------------------------------
@dataclass(frozen=True)
class _Layout:
    """Flat index maps of a junction tree for the numba kernels (cached per network). The
    cliques' potentials of one pattern lie end to end in a buffer of ``total_states`` cells,
    each clique's in C order over its members; separator messages likewise."""

    clique_start: np.ndarray  # (n_cliques + 1,) offsets of the cliques in the buffer
    parent: np.ndarray  # (n_cliques,) parent clique, -1 for the root
    collect: np.ndarray  # non-root cliques, children before parents
    separator_start: np.ndarray  # (n_cliques + 1,) offsets of the separators (root: empty)
    up_map: np.ndarray  # (total_states,) a clique state's cell in its own separator
    down_start: np.ndarray  # (n_cliques + 1,) offsets into down_map
    down_map: np.ndarray  # per non-root clique, per parent state: the separator cell
    evidence_clique: np.ndarray  # per observed node: the clique its evidence enters
    evidence_column: np.ndarray  # per observed node: its column in the patterns
    evidence_start: np.ndarray  # offsets into evidence_state
    evidence_state: np.ndarray  # per observed node, per state of its clique: the node's state


def _states_of(shape) -> np.ndarray:
    """``(len(shape), prod(shape))``: each member's state at every cell (C order)."""
    return np.indices(shape).reshape(len(shape), -1) if shape else np.zeros((0, 1), np.int64)


@functools.lru_cache(maxsize=32)
def _layout(network: Network) -> _Layout:
    tree = junction_tree(network)
    cards = network.cardinalities
    states = tree.clique_states
    clique_start = np.concatenate([[0], np.cumsum(states)]).astype(np.int64)
    cells = [_states_of(tuple(int(cards[v]) for v in clique)) for clique in tree.cliques]

    def separator_cell(c, clique_of):
        """For every state of clique ``clique_of``, the cell of clique ``c``'s separator."""
        members = tree.cliques[clique_of]
        index = np.zeros(cells[clique_of].shape[1], dtype=np.int64)
        for v in tree.separators[c]:
            index = index * int(cards[v]) + cells[clique_of][members.index(v)]
        return index

    separator_sizes = [math.prod(int(cards[v]) for v in tree.separators[c]) if tree.parent[c] >= 0
                       else 0 for c in range(tree.n_cliques)]
    up_map = np.concatenate([separator_cell(c, c) for c in range(tree.n_cliques)])
    down = [separator_cell(c, tree.parent[c]) if tree.parent[c] >= 0 else np.zeros(0, np.int64)
            for c in range(tree.n_cliques)]
    observed = [int(v) for v in network.observed_indices]
    evidence_clique = [tree.family_clique[v] for v in observed]
    evidence_state = [cells[c][tree.cliques[c].index(v)] for c, v in zip(evidence_clique,
                                                                           observed)]
    as_int = functools.partial(np.asarray, dtype=np.int64)
    return _Layout(
        clique_start=clique_start, parent=as_int(tree.parent),
        collect=as_int(tree.order[1:][::-1]),
        separator_start=as_int(np.concatenate([[0], np.cumsum(separator_sizes)])),
        up_map=as_int(up_map),
        down_start=as_int(np.concatenate([[0], np.cumsum([d.size for d in down])])),
        down_map=as_int(np.concatenate(down)),
        evidence_clique=as_int(evidence_clique),
        evidence_column=as_int(np.arange(len(observed))),
        evidence_start=as_int(np.concatenate([[0], np.cumsum([e.size for e in evidence_state])])),
        evidence_state=as_int(np.concatenate(evidence_state) if evidence_state else []),
    )


@numba.njit(cache=True, nogil=True)
def _rescale_cells(buffer, start, stop):
    """Divide ``buffer[start:stop]`` by its maximum and return the maximum (zeros stay)."""
    top = 0.0
    for s in range(start, stop):
        if buffer[s] > top:
            top = buffer[s]
    if top > 0.0 and top != 1.0:
        for s in range(start, stop):
            buffer[s] /= top
    return top


@numba.njit(cache=True, nogil=True)
def _propagate(pattern, buffer, message, ratio, potential, clique_start, parent, collect,
               separator_start, up_map, down_start, down_map, evidence_clique,
               evidence_column, evidence_start, evidence_state):
    """Hugin propagation of one pattern in ``buffer`` (every clique's potential end to end);
    returns ``log p(x)``, ``-inf`` for a pattern of probability zero (``buffer`` is then
    left after the collect pass). ``message`` holds the separators, ``ratio`` is scratch."""
    buffer[:] = potential
    for e in range(evidence_clique.size):
        x = pattern[evidence_column[e]]
        if x < 0:  # a missing cell: the node is summed out
            continue
        c = evidence_clique[e]
        start = clique_start[c]
        for s in range(clique_start[c + 1] - start):
            if evidence_state[evidence_start[e] + s] != x:
                buffer[start + s] = 0.0
    log_scale = 0.0
    for t in range(collect.size):  # children before parents
        c = collect[t]
        top = _rescale_cells(buffer, clique_start[c], clique_start[c + 1])
        if top == 0.0:
            return -np.inf
        log_scale += np.log(top)
        low, high = separator_start[c], separator_start[c + 1]
        message[low:high] = 0.0
        for s in range(clique_start[c], clique_start[c + 1]):
            message[low + up_map[s]] += buffer[s]
        log_scale += np.log(_rescale_cells(message, low, high))
        a = parent[c]
        start, offset = clique_start[a], down_start[c]
        top = 0.0
        for s in range(clique_start[a + 1] - start):
            buffer[start + s] *= message[low + down_map[offset + s]]
            if buffer[start + s] > top:
                top = buffer[start + s]
        if top == 0.0:
            return -np.inf
        if top != 1.0:  # rescaled after every product: many messages must not underflow
            for s in range(start, clique_start[a + 1]):
                buffer[s] /= top
            log_scale += np.log(top)
    root = 0 if collect.size == 0 else parent[collect[collect.size - 1]]
    top = _rescale_cells(buffer, clique_start[root], clique_start[root + 1])
    if top == 0.0:
        return -np.inf
    total = 0.0
    for s in range(clique_start[root], clique_start[root + 1]):
        total += buffer[s]
    log_marginal = log_scale + np.log(top) + np.log(total)
    for t in range(collect.size - 1, -1, -1):  # parents before children
        c = collect[t]
        a = parent[c]
        low, high = separator_start[c], separator_start[c + 1]
        ratio[low:high] = 0.0
        start, offset = clique_start[a], down_start[c]
        for s in range(clique_start[a + 1] - start):
            ratio[low + down_map[offset + s]] += buffer[start + s]
        for k in range(low, high):  # the parent's belief holds the message: 0 / 0 = 0
            ratio[k] = ratio[k] / message[k] if message[k] > 0.0 else 0.0
        _rescale_cells(ratio, low, high)
        for s in range(clique_start[c], clique_start[c + 1]):
            buffer[s] *= ratio[low + up_map[s]]
    return log_marginal


@numba.njit(cache=True, nogil=True)
def _normalise_cliques(buffer, clique_start, used, weight, out):
    """``out[cells of c] += weight * buffer[cells of c] / sum(buffer[cells of c])`` for every
    clique ``c`` in ``used``."""
    for u in range(used.size):
        c = used[u]
        total = 0.0
        for s in range(clique_start[c], clique_start[c + 1]):
            total += buffer[s]
        scale = weight / total
        for s in range(clique_start[c], clique_start[c + 1]):
            out[s] += scale * buffer[s]


@numba.njit(cache=True, nogil=True)
def _beliefs_kernel(patterns, potential, used, beliefs, log_marginal, clique_start, parent,
                    collect, separator_start, up_map, down_start, down_map, evidence_clique,
                    evidence_column, evidence_start, evidence_state):
    """Per pattern: the normalised beliefs of the ``used`` cliques into ``beliefs[p]`` and
    ``log p(x_p)``; returns the first pattern of probability zero, or -1."""
    buffer = np.empty(potential.size)
    message = np.empty(separator_start[-1])
    ratio = np.empty(separator_start[-1])
    for p in range(patterns.shape[0]):
        log_marginal[p] = _propagate(
            patterns[p], buffer, message, ratio, potential, clique_start, parent, collect,
            separator_start, up_map, down_start, down_map, evidence_clique, evidence_column,
            evidence_start, evidence_state)
        if log_marginal[p] == -np.inf:
            return p
        _normalise_cliques(buffer, clique_start, used, 1.0, beliefs[p])
    return -1


@numba.njit(cache=True, nogil=True)
def _statistics_kernel(patterns, counts, potential, used, totals, clique_start, parent,
                       collect, separator_start, up_map, down_start, down_map, evidence_clique,
                       evidence_column, evidence_start, evidence_state):
    """``totals[cells of c] += counts_p p(X_C | x_p)`` for the ``used`` cliques; returns
    ``(sum_p counts_p log p(x_p), first pattern of probability zero or -1)``."""
    buffer = np.empty(potential.size)
    message = np.empty(separator_start[-1])
    ratio = np.empty(separator_start[-1])
    log_likelihood = 0.0
    for p in range(patterns.shape[0]):
        log_marginal = _propagate(
            patterns[p], buffer, message, ratio, potential, clique_start, parent, collect,
            separator_start, up_map, down_start, down_map, evidence_clique, evidence_column,
            evidence_start, evidence_state)
        if log_marginal == -np.inf:
            return log_likelihood, p
        log_likelihood += counts[p] * log_marginal
        _normalise_cliques(buffer, clique_start, used, counts[p], totals)
    return log_likelihood, -1


def _layout_arrays(layout: _Layout) -> tuple:
    return (layout.clique_start, layout.parent, layout.collect, layout.separator_start,
            layout.up_map, layout.down_start, layout.down_map, layout.evidence_clique,
            layout.evidence_column, layout.evidence_start, layout.evidence_state)


def _family_posterior(plan: _Plan, belief: np.ndarray, i: int, q: int, r: int) -> np.ndarray:
    """Node ``i``'s family marginal ``(patterns, q_i, r_i)`` from its clique's belief
    ``(patterns, *clique states)`` (normalised or not)."""
    summed, transpose = plan.family_axes[i]
    family = belief.sum(axis=summed) if summed else belief
    return family.transpose(transpose).reshape(belief.shape[0], q, r)


def _prepare(network: Network, cpts, patterns):
    """Everything a propagation needs: ``(tree, plan, layout, flat potentials, family
    cliques, patterns as int64)``."""
    tree = junction_tree(network)
    tree.check_size()
    patterns = np.asarray(patterns)
    if patterns.ndim != 2 or patterns.shape[1] != network.observed_indices.size:
        raise DataError(f"patterns have shape {patterns.shape}; expected (m, "
                        f"{network.observed_indices.size}), one column per observed node")
    potential = np.concatenate([p.ravel() for p in clique_potentials(network, cpts)])
    used = np.asarray(sorted(set(tree.family_clique)), dtype=np.int64)
    return (tree, _plan(network), _layout(network), potential, used,
            np.ascontiguousarray(patterns, dtype=np.int64))


def _blocks(tree: JunctionTree, n_patterns: int):
    """Fixed blocks of patterns (their size follows the network alone) and whether to run
    them on threads."""
    total = tree.total_states
    return (block_starts(n_patterns, max(1, BLOCK_CELLS // total)),
            n_patterns * total >= PARALLEL_MIN_CELLS)


def _impossible(patterns: np.ndarray, row: int) -> DataError:
    return DataError(f"observed pattern {patterns[row].tolist()} has probability zero under "
                     "the model (zeros in its tables rule it out)")


def _families(network, tree, plan, layout, beliefs) -> list:
    """Every node's family marginal ``(rows, q_i, r_i)`` from ``beliefs`` (rows, all clique
    cells end to end)."""
    out = []
    for i in range(network.n_nodes):
        c = tree.family_clique[i]
        belief = beliefs[:, layout.clique_start[c]:layout.clique_start[c + 1]]
        out.append(_family_posterior(plan, belief.reshape(-1, *plan.shapes[c]), i,
                                     network.n_parent_configurations(i),
                                     int(network.cardinalities[i])))
    return out


def junction_tree_family_posteriors(network: Network, cpts, patterns: np.ndarray):
    """Posterior of every family given every pattern, by junction-tree propagation.

    Parameters
    ----------
    network : Network
        A discrete network.
    cpts : list
        One nonnegative ``(q_i, r_i)`` table per node (rows need not sum to one), ``None`` for
        deterministic nodes.
    patterns : int ndarray, shape (m, n_observed)
        Observed patterns (columns = observed nodes in network order, cells possibly
        :data:`~hiddenbn.data.MISSING`).

    Returns
    -------
    posteriors : list of ndarray
        ``posteriors[i][p, j, k] = p(X_pa(i) = j, X_i = k | x_p)``, shape ``(m, q_i, r_i)``, for
        every node: an observed node's family has its observed value fixed (its other columns
        zero), or summed over when its cell is missing.
    log_marginal : ndarray, shape (m,)
        ``log p(x_p)``, of the observed part of each pattern.

    Raises :class:`~hiddenbn.errors.DataError` if a pattern has probability zero, and a
    one-line :class:`~hiddenbn.errors.HiddenbnError` if a clique has more than
    :data:`MAX_CLIQUE_STATES` states.
    """
    tree, plan, layout, potential, used, patterns64 = _prepare(network, cpts, patterns)
    arrays = _layout_arrays(layout)

    def block(start, stop):
        beliefs = np.zeros((stop - start, potential.size))
        log_marginal = np.empty(stop - start)
        bad = _beliefs_kernel(patterns64[start:stop], potential, used, beliefs, log_marginal,
                              *arrays)
        if bad >= 0:
            raise _impossible(patterns64, start + bad)
        return _families(network, tree, plan, layout, beliefs), log_marginal

    starts, parallel = _blocks(tree, patterns64.shape[0])
    if not starts:
        return _families(network, tree, plan, layout, np.zeros((0, potential.size))), \
            np.zeros(0)
    parts = map_blocks(block, starts, parallel=parallel)
    return ([np.concatenate([part[0][i] for part in parts]) for i in range(network.n_nodes)],
            np.concatenate([part[1] for part in parts]))


def junction_tree_statistics(network: Network, cpts, patterns: np.ndarray, counts: np.ndarray):
    """Expected counts (paper 003 Eq. 11) and log-likelihood by junction-tree propagation.

    The contract of :func:`hiddenbn.inference.enumeration.enumeration_statistics` for any discrete
    network whose cliques fit (:data:`MAX_CLIQUE_STATES`), at a cost that follows the cliques'
    states, not the joint states of the hidden nodes. It is the count-weighted sum of
    :func:`junction_tree_family_posteriors` (the same propagation), taken per clique (``sum_p c_p
    p(X_C | x_p)``, accumulated pattern by pattern) and summed down to each family at the end.

    Parameters
    ----------
    network : Network
        A discrete network.
    cpts : list
        One nonnegative ``(q_i, r_i)`` table per node (rows need not sum to one: a clamped
        table gives the clamped joint's counts and ``log p(x, clamp)``), ``None`` for
        deterministic nodes.
    patterns, counts : ndarray
        Observed patterns (columns = observed nodes in network order, cells possibly
        :data:`~hiddenbn.data.MISSING`) and their counts.

    Returns
    -------
    expected : list of ndarray
        ``E(N_ijk)`` as a ``(q_i, r_i)`` array per node (deterministic nodes included), the
        hidden nodes and missing cells completed.
    log_likelihood : float
        ``sum_p counts_p log p(x_p)`` (of the observed part of each pattern).

    Raises :class:`~hiddenbn.errors.DataError` if a pattern has probability zero, and a
    one-line :class:`~hiddenbn.errors.HiddenbnError` if a clique has more than
    :data:`MAX_CLIQUE_STATES` states.
    """
    tree, plan, layout, potential, used, patterns64 = _prepare(network, cpts, patterns)
    arrays = _layout_arrays(layout)
    counts = np.asarray(counts, dtype=np.float64)

    def block(start, stop):
        totals = np.zeros(potential.size)
        log_likelihood, bad = _statistics_kernel(patterns64[start:stop], counts[start:stop],
                                                 potential, used, totals, *arrays)
        if bad >= 0:
            raise _impossible(patterns64, start + bad)
        return totals, log_likelihood

    starts, parallel = _blocks(tree, patterns64.shape[0])
    totals = np.zeros(potential.size)
    log_likelihood = 0.0
    for part, block_log_likelihood in map_blocks(block, starts, parallel=parallel):
        totals += part  # in block order: the same bits on any number of threads
        log_likelihood += block_log_likelihood
    expected = _families(network, tree, plan, layout, totals[None, :])
    return [table[0] for table in expected], float(log_likelihood)


# --- choosing the engine ------------------------------------------------------------------
def junction_tree_cost(network: Network) -> int:
    """Estimated work per pattern of the junction tree, in clique-state operations: each
    clique's states times the passes over them (set-up, evidence, its children's messages in
    and rescaling, its message up, the distribute product and the counts)."""
    tree = junction_tree(network)
    children = [tree.parent.count(c) for c in range(tree.n_cliques)]
    evidence = [0] * tree.n_cliques
    for v in network.observed_indices:
        evidence[tree.family_clique[v]] += 1
    return sum(states * (6 + 3 * children[c] + evidence[c])
               for c, states in enumerate(tree.clique_states))


def enumeration_cost(network: Network) -> int:
    """Estimated work per pattern of enumeration: hidden configurations times nodes."""
    return hidden_configuration_count(network) * network.n_nodes


def prefers_junction_tree(network: Network) -> bool:
    """True when the junction tree is the better exact engine for ``network``.

    Always True when enumeration refuses the network (more than
    :data:`~hiddenbn.inference.enumeration.MAX_HIDDEN_CONFIGURATIONS` joint hidden states; the
    junction tree may then still refuse a clique beyond :data:`MAX_CLIQUE_STATES`). Otherwise True
    when enumeration's estimated cost (:func:`enumeration_cost`) exceeds
    :data:`JUNCTION_TREE_MARGIN` times the junction tree's (:func:`junction_tree_cost` times
    :data:`CLIQUE_STATE_COST`), i.e. ``4 H n > junction_tree_cost``: the one predicted faster. Per
    unit the measured times were 1.4-2.4 ns (junction tree) and 7-16 ns (enumeration), and the
    prediction erred toward enumeration on every network measured (``python -m benchmarks
    junction_tree``: W's predicted 0.22x, measured 0.4x; noisy-max with 10 causes predicted 1.2x,
    measured 2.7x; ladder of 8 predicted 21x, measured 22x). It picks the junction tree for the
    ladders, noisy-max networks with many causes and the wide HLC of the module docstring, and keeps
    enumeration for the W's, the papers' small networks and latent class models.
    """
    if hidden_configuration_count(network) > MAX_HIDDEN_CONFIGURATIONS:
        return True
    return bool(enumeration_cost(network)
                > JUNCTION_TREE_MARGIN * CLIQUE_STATE_COST * junction_tree_cost(network))
