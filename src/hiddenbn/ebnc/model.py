"""Embedded Bayesian-network classifiers (EBNCs): inference, dimension and a non-redundant basis.

An EBNC (Heckerman & Meek 1997, paper 001 Sec. 2) is the local distribution ``p(y | x)`` of a
node ``Y`` obtained from an *embedded network*: a fully observed discrete Bayesian network over
``Y`` and its inputs ``X`` (every other node of that network), in which the inputs need not be
parents of ``Y``. Paper 001 Eq. 4 writes its posterior log odds as a sum of terms, one per
*family*: ``Y``'s own table and the table of each child of ``Y``,

    lambda_k(x) = kappa(y^k | pa_y) + sum_{C child of Y} kappa(x_C | pa_C^k),

each term depending on ``k`` and on the inputs in the family's *scope* (``Pa_Y`` for ``Y``;
``C`` and its parents other than ``Y`` for a child ``C``). Only the Markov blanket of ``Y`` (the
union of the scopes) enters, so every matrix below is built over blanket configurations.

The dimension ``d`` of the EBNC is computed by the paper's two constructions, which always
agree, and checked against the non-linear map they linearise:

* ``"exact"`` and ``"svd"`` -- Sec. 4 (proof of Theorem 1): the rank of the linear map
  ``kappa -> lambda``, by elimination over prime fields or by floating SVD with its gap;
* ``"decomposition"`` -- Sec. 6 (Eqs. 12-19): ``d = sum_i rank(d psi_i / d eta_i)`` over the
  inputs turned on one at a time, which also yields the non-redundant basis ``phi`` (Eq. 19) as
  indicator features: an EBNC is a softmax regression on these features (end of Sec. 6);
* ``"jacobian"`` and ``"jacobian-svd"`` -- the generic rank of the Jacobian of the non-linear
  map ``theta -> lambda`` at random parameters (over a prime field, and by SVD). It equals the
  constructions' rank when the image of ``theta -> kappa`` is open, as Theorem 1's proof
  assumes; that holds for a binary ``Y`` but can fail for a non-binary one, and then the EBNC is
  a curved subset of its span (:func:`ebnc_dimension`, Notes).

States are numbered from 0 and state 0 is the reference state (the paper's ``y^1``, ``x_i^1``).
Because the ``kappa`` (and ``eta``) of class ``k`` enter only ``lambda_k``, and all classes see
the same scopes, the linear maps are block diagonal with ``r_Y - 1`` identical blocks; the
constructions work on one block and multiply its rank by ``r_Y - 1``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from hiddenbn.dimension.rank import CLEAR_GAP_DECADES, modular_echelon, modular_rank, numerical_rank
from hiddenbn.errors import DataError, HiddenbnError, SpecError
from hiddenbn.models.network import Network, check_parameters, random_parameters

METHODS = ("decomposition", "exact", "svd", "jacobian", "jacobian-svd")

#: Two primes below 2**31 (products of residues fit int64). The rank of an integer matrix over
#: GF(p) never exceeds its rank over the rationals and equals it unless p divides every maximal
#: non-zero minor, so the larger of the two ranks is the rational rank except with negligible
#: chance; a set of columns independent mod p is independent over the rationals.
PRIMES = (2_147_483_647, 2_147_483_629)

#: Largest number of Markov-blanket configurations for which the Sec. 4 matrix and the
#: Jacobian are built densely (they have one row per configuration and class).
MAX_BLANKET_CONFIGURATIONS = 2**16

#: Largest elimination work (rows x columns x min(rows, columns)) of the dense checks (Sec. 4
#: matrix and Jacobian) that :func:`ebnc_dimensions` runs; beyond it they are skipped. About
#: a second of modular elimination here; the Sec. 6 decomposition is not limited by it.
MAX_DENSE_WORK = 2**26

#: Largest Sec. 6 block ``d psi_i / d eta_i`` (entries) that is built (int64: 128 MiB).
MAX_BLOCK_ENTRIES = 2**24


@dataclass(frozen=True)
class Family:
    """One term of paper 001 Eq. 4: the table of ``node`` (``Y`` or a child of ``Y``).

    ``scope`` lists, in network order, the inputs the term depends on: the parents of ``Y`` for
    ``Y``'s table, and ``C`` with its parents other than ``Y`` for a child ``C``.
    """

    node: int
    scope: tuple[int, ...]


@dataclass(frozen=True)
class EmbeddedClassifier:
    """The structure of the EBNC of node ``target`` obtained from ``network``."""

    network: Network
    target: int
    families: tuple[Family, ...]

    @property
    def n_classes(self) -> int:
        return self.network.cardinalities[self.target]

    @property
    def inputs(self) -> tuple[int, ...]:
        """All nodes other than the target, in network order: the columns of a configuration."""
        return tuple(i for i in range(self.network.n_nodes) if i != self.target)

    @property
    def input_names(self) -> tuple[str, ...]:
        return tuple(self.network.names[i] for i in self.inputs)

    @property
    def blanket(self) -> tuple[int, ...]:
        """The Markov blanket of the target (the union of the scopes), in network order."""
        return tuple(sorted({v for family in self.families for v in family.scope}))


def embedded_classifier(network: Network, target) -> EmbeddedClassifier:
    """The EBNC of node ``target`` (a name or an index) of a fully observed discrete network.

    Raises :class:`~hiddenbn.errors.SpecError` for a hidden or deterministic node, a
    non-discrete network or an unknown target: an EBNC is defined from a complete Bayesian
    network over ``Y`` and ``X`` (paper 001 Sec. 2).
    """
    if network.kind != "discrete":
        raise SpecError(f"an EBNC needs a discrete embedded network; this one has type "
                        f"{network.kind!r}")
    if any(network.hidden):
        name = network.names[int(network.hidden_indices[0])]
        raise SpecError(f"node {name!r} is hidden; the embedded network of an EBNC has only "
                        "observed nodes (remove 'hidden' from the spec)")
    for i in range(network.n_nodes):
        if network.is_deterministic(i):
            raise SpecError(f"node {network.names[i]!r} is deterministic; EBNCs need stochastic "
                            "tables (remove 'function' from the spec)")
    if isinstance(target, (int, np.integer)):
        if not 0 <= target < network.n_nodes:
            raise SpecError(f"node index {target} is out of range 0..{network.n_nodes - 1}")
        y = int(target)
    else:
        y = network.index(str(target))
    families = [Family(y, tuple(network.parents[y]))]
    for child in network.children(y):
        others = tuple(p for p in network.parents[child] if p != y)
        families.append(Family(child, tuple(sorted(others + (child,)))))
    return EmbeddedClassifier(network, y, tuple(families))


# --- inference (Eqs. 3 and 4) ----------------------------------------------------------------
def _as_configurations(classifier: EmbeddedClassifier, configurations) -> np.ndarray:
    """Check an ``(m, len(inputs))`` array of input states and return it as int64."""
    configurations = np.asarray(configurations)
    n_inputs = len(classifier.inputs)
    if configurations.ndim != 2 or configurations.shape[1] != n_inputs:
        raise DataError(f"input configurations must have shape (m, {n_inputs}) with columns "
                        f"{', '.join(classifier.input_names)}; got shape {configurations.shape}")
    if not np.issubdtype(configurations.dtype, np.integer):
        raise DataError("input configurations must be whole-number states")
    cards = np.array([classifier.network.cardinalities[i] for i in classifier.inputs])
    bad = np.flatnonzero(((configurations < 0) | (configurations >= cards)).any(axis=0))
    if bad.size:
        column = bad[0]
        raise DataError(f"input {classifier.input_names[column]!r} has states outside "
                        f"0..{cards[column] - 1}")
    return configurations.astype(np.int64)


def _full_assignments(classifier: EmbeddedClassifier, configurations: np.ndarray) -> np.ndarray:
    """One row per configuration with a column per node; the target's column is left 0."""
    full = np.zeros((configurations.shape[0], classifier.network.n_nodes), dtype=np.int64)
    full[:, list(classifier.inputs)] = configurations
    return full


def _row_index(network: Network, node: int, assignments: np.ndarray) -> np.ndarray:
    """The CPT row (parent configuration, C order) of ``node`` under each assignment."""
    parents = list(network.parents[node])
    if not parents:
        return np.zeros(assignments.shape[0], dtype=np.int64)
    cards = [network.cardinalities[p] for p in parents]
    return np.ravel_multi_index(tuple(assignments[:, parents].T), cards)


def _family_cells(classifier: EmbeddedClassifier, family: Family, assignments, k):
    """The (row, state) cell of ``family.node``'s table used by class ``k`` in Eq. 4."""
    network = classifier.network
    with_class = assignments.copy()
    with_class[:, classifier.target] = k
    rows = _row_index(network, family.node, with_class)
    states = with_class[:, family.node]
    return rows, states


def log_odds(network: Network, cpts, target, configurations) -> np.ndarray:
    """Posterior log odds ``lambda_k(x)`` of ``y^k`` against ``y^1`` (paper 001 Eqs. 2 and 4).

    Parameters
    ----------
    network : Network
        The embedded network (fully observed, discrete).
    cpts : list of arrays
        Its parameters; only the tables of the target and its children are used.
    target : str or int
    configurations : int array (m, n - 1)
        States of the inputs, columns in network order without the target
        (:attr:`EmbeddedClassifier.input_names`).

    Returns
    -------
    array (m, r_Y - 1)
        Column ``k - 1`` is the log odds of state ``k`` (0-based; the paper's ``y^(k+1)``)
        against state 0: the sum over families of ``log theta(cell with Y = k) - log
        theta(cell with Y = 0)`` (Eq. 4). A zero probability in a used cell gives an infinite
        log odds.
    """
    classifier = embedded_classifier(network, target)
    cpts = check_parameters(network, cpts)
    assignments = _full_assignments(classifier, _as_configurations(classifier, configurations))
    result = np.zeros((assignments.shape[0], classifier.n_classes - 1))
    with np.errstate(divide="ignore"):
        logs = [np.log(table) for table in cpts]
    for family in classifier.families:
        reference = logs[family.node][_family_cells(classifier, family, assignments, 0)]
        for k in range(1, classifier.n_classes):
            result[:, k - 1] += logs[family.node][_family_cells(classifier, family, assignments, k)]
            result[:, k - 1] -= reference
    return result


def class_probabilities(log_odds_values) -> np.ndarray:
    """``p(y^k | x)`` from the log odds against ``y^1`` by the softmax of paper 001 Eq. 3.

    ``log_odds_values`` has shape ``(m, r_Y - 1)``; the result ``(m, r_Y)`` puts the reference
    class first. Computed stably (the largest exponent is subtracted first).
    """
    values = np.asarray(log_odds_values, dtype=float)
    full = np.hstack([np.zeros((values.shape[0], 1)), values])
    full -= full.max(axis=1, keepdims=True)
    weights = np.exp(full)
    return weights / weights.sum(axis=1, keepdims=True)


# --- exact rank over GF(p) -----------------------------------------------------------------
def exact_rank(matrix) -> tuple[int, np.ndarray]:
    """Rank of an integer matrix and indices of independent columns forming a column basis.

    Eliminates over the two :data:`PRIMES` (:func:`hiddenbn.dimension.rank.modular_echelon`) and
    keeps the larger rank (see there).
    """
    matrix = np.asarray(matrix, dtype=np.int64)
    return max((modular_echelon([matrix], matrix.shape[1], prime) for prime in PRIMES),
               key=lambda echelon: echelon[0])


def svd_rank(matrix) -> tuple[int, float]:
    """Numerical rank by SVD and the singular-value gap in decades (:mod:`hiddenbn.dimension.rank`).

    The matrix is small enough to decompose whole, which is faster than the streamed QR of
    :func:`hiddenbn.dimension.rank.singular_values`; the rank cut and the gap are the project's.
    """
    matrix = np.asarray(matrix, dtype=float)
    if matrix.size == 0:
        return 0, float("inf")
    return numerical_rank(np.linalg.svd(matrix, compute_uv=False))


# --- Sec. 4: the linear map kappa -> lambda ---------------------------------------------------
def _configurations(cards) -> np.ndarray:
    """All joint states of variables with state counts ``cards``, C order, shape (q, len)."""
    cards = list(cards)
    if not cards:
        return np.zeros((1, 0), dtype=np.int64)
    return np.indices(cards, dtype=np.int64).reshape(len(cards), -1).T


def blanket_configuration_count(classifier: EmbeddedClassifier) -> float:
    """Number of joint states of the target's Markov blanket (a float: it may be huge)."""
    return float(np.prod([classifier.network.cardinalities[v] for v in classifier.blanket],
                         dtype=np.float64))


def dense_check_work(classifier: EmbeddedClassifier, rows: float) -> float:
    """Elimination work ``rows x columns x min(rows, columns)`` of the larger dense check
    built on ``rows`` blanket configurations."""
    network = classifier.network
    kappa_columns = sum(float(np.prod([network.cardinalities[v] for v in family.scope]))
                        for family in classifier.families)
    jacobian_rows = rows * (classifier.n_classes - 1)
    jacobian_columns = sum(float(network.n_parent_configurations(family.node)
                                 * network.cardinalities[family.node])
                           for family in classifier.families)
    return max(rows * kappa_columns * min(rows, kappa_columns),
               jacobian_rows * jacobian_columns * min(jacobian_rows, jacobian_columns))


def check_configurations(classifier: EmbeddedClassifier, rng: np.random.Generator,
                         rows: int) -> np.ndarray:
    """Blanket configurations for the dense checks: all of them, or ``rows`` random ones.

    A subset of configurations gives a lower bound on each rank (a submatrix of rows); when it
    reaches the Sec. 6 span dimension, which bounds every rank from above, the rank is exact.
    The all-reference configuration is always included.
    """
    cards = [classifier.network.cardinalities[v] for v in classifier.blanket]
    if blanket_configuration_count(classifier) <= rows:
        return _configurations(cards)
    sample = np.column_stack([rng.integers(0, r, size=rows) for r in cards]).astype(np.int64)
    sample[0] = 0
    return sample


def _blanket_configurations(classifier: EmbeddedClassifier) -> np.ndarray:
    cards = [classifier.network.cardinalities[v] for v in classifier.blanket]
    count = blanket_configuration_count(classifier)
    if count > MAX_BLANKET_CONFIGURATIONS:
        raise HiddenbnError(
            f"the Markov blanket of {classifier.network.names[classifier.target]!r} has "
            f"{count:.3g} configurations, more than the {MAX_BLANKET_CONFIGURATIONS} the Sec. 4 "
            "matrix and the Jacobian are built for; use method='decomposition'")
    return _configurations(cards)


def _indicator_matrix(row_configurations, row_variables, column_groups, cards) -> np.ndarray:
    """0/1 matrix with a row per configuration and a column block per variable group.

    Entry ``(a, (g, b))`` is 1 when configuration ``a`` restricted to group ``g`` is ``b``:
    the matrix of the linear map from functions of each group's variables to their sum.
    """
    position = {v: j for j, v in enumerate(row_variables)}
    sizes = [int(np.prod([cards[v] for v in group], dtype=np.int64)) for group in column_groups]
    matrix = np.zeros((row_configurations.shape[0], sum(sizes)), dtype=np.int64)
    offset = 0
    rows = np.arange(row_configurations.shape[0])
    for group, size in zip(column_groups, sizes):
        if group:
            columns = np.ravel_multi_index(
                tuple(row_configurations[:, [position[v] for v in group]].T),
                [cards[v] for v in group])
        else:
            columns = np.zeros(rows.size, dtype=np.int64)
        matrix[rows, offset + columns] = 1
        offset += size
    return matrix


def kappa_lambda_matrix(classifier: EmbeddedClassifier, configurations=None) -> np.ndarray:
    """One class's block of the Jacobian ``d lambda / d kappa`` of paper 001 Eq. 7.

    Rows are Markov-blanket configurations (C order over :attr:`~EmbeddedClassifier.blanket`),
    columns the ``kappa`` of each family over its scope configurations: entry 1 where the
    family's term of Eq. 7 for that row is that ``kappa``.
    """
    if configurations is None:
        configurations = _blanket_configurations(classifier)
    return _indicator_matrix(configurations, classifier.blanket,
                             [family.scope for family in classifier.families],
                             classifier.network.cardinalities)


# --- Sec. 6: the eta -> psi decomposition ----------------------------------------------------
@dataclass(frozen=True)
class EtaPsiBlock:
    """The map ``eta_i -> psi_i`` of paper 001 Eq. 12 for input ``node``, one class and state.

    ``psi_i(a)`` multiplies ``I(x_i = s) I(a)`` for each configuration ``a`` of ``predecessors``
    (the inputs before ``node`` that share a family with it). Each family containing ``node``
    contributes an ``eta_i`` that is a free function of ``groups[j]`` (its scope before
    ``node``; later inputs sit at their reference state). ``matrix`` is ``d psi_i / d eta_i``.
    """

    node: int
    predecessors: tuple[int, ...]
    groups: tuple[tuple[int, ...], ...]
    matrix: np.ndarray

    def column_feature(self, column: int, state: int, cards) -> tuple:
        """The indicator feature of ``eta`` column ``column`` for state ``state`` of ``node``."""
        for group in self.groups:
            size = int(np.prod([cards[v] for v in group], dtype=np.int64))
            if column < size:
                values = np.unravel_index(column, [cards[v] for v in group]) if group else ()
                return tuple(sorted([(v, int(x)) for v, x in zip(group, values)]
                                    + [(self.node, state)]))
            column -= size
        raise IndexError("column out of range")


def eta_psi_blocks(classifier: EmbeddedClassifier) -> list[EtaPsiBlock]:
    """The blocks ``d psi_i / d eta_i`` of paper 001 Eqs. 12 and 18, inputs in network order.

    Inputs are turned on in network order (the order the paper recommends); inputs outside the
    Markov blanket have no block.
    """
    cards = classifier.network.cardinalities
    blocks = []
    for node in classifier.blanket:
        groups = tuple(tuple(v for v in family.scope if v < node)
                       for family in classifier.families if node in family.scope)
        predecessors = tuple(sorted({v for group in groups for v in group}))
        rows = float(np.prod([cards[v] for v in predecessors], dtype=np.float64))
        columns = sum(float(np.prod([cards[v] for v in group], dtype=np.float64))
                      for group in groups)
        if rows * columns > MAX_BLOCK_ENTRIES:
            raise HiddenbnError(
                f"the Sec. 6 block of input {classifier.network.names[node]!r} is a "
                f"{rows:.3g} x {columns:.3g} matrix, more than {MAX_BLOCK_ENTRIES} entries (the "
                "construction is exponential in the inputs a family shares, paper 001 Sec. 6); "
                "use an embedded network with smaller families")
        matrix = _indicator_matrix(_configurations([cards[v] for v in predecessors]),
                                   predecessors, groups, cards)
        blocks.append(EtaPsiBlock(node, predecessors, groups, matrix))
    return blocks


@dataclass(frozen=True)
class EbncBasis:
    """The non-redundant parameters ``phi`` of an EBNC as indicator features (Eq. 19).

    ``lambda(x) = design_matrix(x) @ phi`` with ``phi`` of shape ``(n_features, r_Y - 1)``: every
    class has the same features, so ``d = n_features * (r_Y - 1)``. A feature is a tuple of
    ``(node, state)`` pairs and is 1 when every listed node is in its state (the empty tuple is
    the constant ``eta_0``). ``block_ranks`` maps each blanket input's name to the rank of its
    block ``d psi_i / d eta_i`` for one class (the terms of Eq. 18 after ``eta_0``).
    """

    classifier: EmbeddedClassifier
    features: tuple[tuple[tuple[int, int], ...], ...]
    block_ranks: dict

    @property
    def n_features(self) -> int:
        return len(self.features)

    @property
    def dimension(self) -> int:
        return self.n_features * (self.classifier.n_classes - 1)

    def feature_names(self) -> list[str]:
        """Readable names such as ``'X1=1 & X4=0'``; the constant is ``'1'``."""
        names = self.classifier.network.names
        return [" & ".join(f"{names[v]}={s}" for v, s in feature) or "1"
                for feature in self.features]

    def design_matrix(self, configurations) -> np.ndarray:
        """The 0/1 feature matrix ``(m, n_features)`` of input configurations.

        ``configurations`` has one column per input in network order without the target
        (:attr:`EmbeddedClassifier.input_names`); e.g. ``Dataset.for_network`` columns with the
        target's column removed.
        """
        configurations = _as_configurations(self.classifier, configurations)
        column = {v: j for j, v in enumerate(self.classifier.inputs)}
        design = np.ones((configurations.shape[0], self.n_features))
        for f, feature in enumerate(self.features):
            for v, s in feature:
                design[:, f] *= configurations[:, column[v]] == s
        return design


def ebnc_basis(network: Network, target) -> EbncBasis:
    """The Sec. 6 basis ``phi`` (paper 001 Eq. 19) of the EBNC of ``target`` in ``network``.

    For each input ``X_i`` in the Markov blanket, a basis of the image of ``eta_i -> psi_i`` is
    taken as the independent (pivot) columns of ``d psi_i / d eta_i`` found by exact elimination
    (:func:`exact_rank`); column ``(j, b)`` becomes the features ``I(x_i = s) I(x_group = b)``
    for each non-reference state ``s`` of ``X_i``. With the constant ``eta_0`` these features
    are a basis of the span of the log odds (Eq. 18), the same for every class.
    """
    classifier = embedded_classifier(network, target)
    cards = network.cardinalities
    features: list[tuple] = [()]
    ranks = {}
    for block in eta_psi_blocks(classifier):
        rank, pivots = exact_rank(block.matrix)
        ranks[network.names[block.node]] = rank * (cards[block.node] - 1)
        for state in range(1, cards[block.node]):
            features.extend(block.column_feature(int(c), state, cards) for c in pivots)
    return EbncBasis(classifier, tuple(features), ranks)


# --- the non-linear check: Jacobian of theta -> lambda ----------------------------------------
def log_odds_jacobian(classifier: EmbeddedClassifier, cpts, configurations=None) -> np.ndarray:
    """Jacobian of ``lambda`` (blanket configurations x classes 2..r_Y) w.r.t. row logits.

    Each CPT row of the target and of its children is written ``theta = softmax(beta)``, so
    ``d log theta(c) / d beta(c') = [c = c'] - theta(c')``; the image of the map is the same as
    with the free parameterisation, hence so is its generic rank. Rows are class-major:
    ``(k - 2) * q + configuration``. The entries are polynomials in ``theta`` with integer
    coefficients, so integer ``cpts`` (residues mod a prime) give the Jacobian over that field
    up to a final reduction mod the prime.
    """
    network = classifier.network
    blanket_states = (_blanket_configurations(classifier) if configurations is None
                      else configurations)
    column = {v: j for j, v in enumerate(classifier.inputs)}
    configurations = np.zeros((blanket_states.shape[0], len(classifier.inputs)), dtype=np.int64)
    configurations[:, [column[v] for v in classifier.blanket]] = blanket_states
    assignments = _full_assignments(classifier, configurations)
    q = assignments.shape[0]
    offsets, width = {}, 0
    for family in classifier.families:
        offsets[family.node] = width
        width += network.n_parent_configurations(family.node) * network.cardinalities[family.node]
    dtype = np.result_type(*[cpts[family.node] for family in classifier.families])
    jacobian = np.zeros(((classifier.n_classes - 1) * q, width), dtype=dtype)
    rows = np.arange(q)

    def add(output_rows, family, k, sign):
        table = cpts[family.node]
        r = network.cardinalities[family.node]
        cpt_rows, states = _family_cells(classifier, family, assignments, k)
        block = -table[cpt_rows]
        block[rows, states] += 1
        columns = offsets[family.node] + cpt_rows[:, None] * r + np.arange(r)[None, :]
        np.add.at(jacobian, (output_rows[:, None], columns), sign * block)

    for k in range(1, classifier.n_classes):
        output_rows = (k - 1) * q + rows
        for family in classifier.families:
            add(output_rows, family, k, 1)
            add(output_rows, family, 0, -1)
    return jacobian


def _random_residue_tables(network: Network, rng: np.random.Generator, prime: int) -> list:
    """CPTs with uniform random entries in GF(prime), each row summing to 1 mod prime."""
    tables = []
    for i in range(network.n_nodes):
        q, r = network.n_parent_configurations(i), network.cardinalities[i]
        head = rng.integers(0, prime, size=(q, r - 1), dtype=np.int64)
        tables.append(np.hstack([head, np.mod(1 - head.sum(axis=1, keepdims=True), prime)]))
    return tables


# Not hiddenbn.dimension.effective.jacobian_rank, though both rank a Jacobian at random points:
# that one ranks the map from the parameters to the observed distribution (paper 000's effective
# dimension), both exactly and by SVD at every point, stopping once both reach their bound; this
# one ranks the map to the log odds of the class (paper 001), one way per call (ebnc_dimension
# compares the two), over all points. Their draws differ too (Dirichlet(2) points and every
# deterministic table there, Dirichlet(1) CPTs here), so one driver would change both outputs.
def log_odds_jacobian_rank(classifier: EmbeddedClassifier, rng: np.random.Generator,
                           points: int = 3, exact: bool = True,
                           configurations=None) -> tuple[int, float | None]:
    """Generic rank of :func:`log_odds_jacobian`: the largest rank over ``points`` draws.

    ``configurations`` (blanket configurations, default all) selects the rows.

    ``exact``: parameters are random residues mod the first of :data:`PRIMES` and the rank is
    taken over that field (Schwartz-Zippel: a non-zero minor of degree at most ``d`` vanishes at
    a random point with probability at most ``d / p``; a field rank never exceeds the generic
    rank over the rationals). Otherwise parameters are Dirichlet(1) draws and the rank is the
    SVD rank; the smallest singular-value gap among the draws that reached it is returned.
    """
    best, best_gap = -1, float("inf")
    for _ in range(points):
        if exact:
            tables = _random_residue_tables(classifier.network, rng, PRIMES[0])
            jacobian = np.mod(log_odds_jacobian(classifier, tables, configurations), PRIMES[0])
            rank = modular_rank([jacobian], jacobian.shape[1], PRIMES[0])
            gap = None
        else:
            cpts = random_parameters(classifier.network, rng)
            rank, gap = svd_rank(log_odds_jacobian(classifier, cpts, configurations))
        if rank > best:
            best, best_gap = int(rank), gap
        elif rank == best and gap is not None:
            best_gap = min(best_gap, gap)
    return best, (best_gap if not exact else None)


# --- the dimension -----------------------------------------------------------------------------
@dataclass(frozen=True)
class EbncDimension:
    """The dimension ``d`` of an EBNC by one method, with the SVD gap where one applies."""

    node: str
    d: int
    method: str
    gap: float | None = None


def ebnc_dimension(network: Network, target, method: str = "decomposition",
                   rng: np.random.Generator | None = None, points: int = 3,
                   configurations=None) -> EbncDimension:
    """The dimension of the EBNC of ``target`` (paper 001 Secs. 4 and 6) by one method.

    Parameters
    ----------
    method : {"decomposition", "exact", "svd", "jacobian", "jacobian-svd"}
        ``"decomposition"``: Eq. 18, ``1 + sum_i rank(d psi_i / d eta_i)`` per class (exact
        elimination). ``"exact"``/``"svd"``: rank of the Sec. 4 map ``kappa -> lambda``
        (Eq. 7) over prime fields / by SVD. ``"jacobian"``/``"jacobian-svd"``: generic rank of
        the non-linear map ``theta -> lambda`` at ``points`` random points drawn from ``rng``,
        over a prime field / by SVD (:func:`log_odds_jacobian_rank`).
    configurations : int array (q, len(blanket)), optional
        Blanket configurations on which the Sec. 4 matrix and the Jacobian are built (default
        all); a subset gives lower bounds (:func:`check_configurations`).

    Notes
    -----
    The first three give the dimension of the linear span of the log odds, which is the
    dimension of the EBNC when the image of ``theta -> kappa`` is open, as the proof of
    Theorem 1 assumes. That holds for a binary ``Y`` but not always otherwise: a 4-state ``Y``
    with one binary parent and one binary child that has another binary parent has 14
    parameters but a 15-dimensional span. The Jacobian rank is the dimension of the EBNC in
    every case; :func:`ebnc_dimensions` reports both.
    """
    classifier = embedded_classifier(network, target)
    name = network.names[classifier.target]
    classes = classifier.n_classes - 1
    if method == "decomposition":
        return EbncDimension(name, ebnc_basis(network, target).dimension, method)
    if method in ("exact", "svd"):
        matrix = kappa_lambda_matrix(classifier, configurations)
        if method == "exact":
            return EbncDimension(name, exact_rank(matrix)[0] * classes, method)
        rank, gap = svd_rank(matrix)
        return EbncDimension(name, rank * classes, method, gap)
    if method in ("jacobian", "jacobian-svd"):
        rng = rng if rng is not None else np.random.default_rng(0)
        rank, gap = log_odds_jacobian_rank(classifier, rng, points,
                                           exact=method == "jacobian",
                                           configurations=configurations)
        return EbncDimension(name, rank, method, gap)
    raise HiddenbnError(f"unknown EBNC dimension method {method!r}; use one of "
                        f"{', '.join(METHODS)}")


@dataclass(frozen=True)
class EbncSummary:
    """Every construction of :func:`ebnc_dimension` for one node, and whether they agree.

    ``d`` is the dimension of the EBNC (the exact Jacobian rank); ``basis_size`` the number of
    Sec. 6 parameters ``phi`` (the dimension of the span of the log odds).
    """

    node: str
    d: int
    basis_size: int
    by_method: dict
    svd_gaps: dict
    skipped: tuple = ()
    sampled_rows: int | None = None

    @property
    def linear_constructions_agree(self) -> bool:
        """Sec. 4 (exact and SVD) and Sec. 6 give the same rank (those that were computed)."""
        return len({self.by_method[m] for m in ("decomposition", "exact", "svd")
                    if m in self.by_method}) == 1

    @property
    def jacobian_ranks_agree(self) -> bool:
        return self.by_method.get("jacobian") == self.by_method.get("jacobian-svd")

    @property
    def span_is_model(self) -> bool:
        """The EBNC fills its span (Theorem 1's linear manifold): ``d == basis_size``."""
        return self.d == self.basis_size

    def warnings(self) -> list[str]:
        """One line per disagreement between constructions, empty when all agree."""
        lines = []
        if self.skipped:
            lines.append(f"EBNC {self.node}: the Markov blanket is too large for the dense "
                         f"checks ({', '.join(self.skipped)} skipped), so d is the Sec. 6 span "
                         "dimension: exact for a binary class, an upper bound otherwise")
        if self.sampled_rows is not None and min(self.by_method.values()) < self.basis_size:
            lines.append(f"EBNC {self.node}: the checks ran on {self.sampled_rows} random blanket "
                         f"configurations and reached only {min(self.by_method.values())} of the "
                         f"span's {self.basis_size}: inconclusive lower bounds (d is between "
                         f"{self.d} and {self.basis_size})")
            return lines
        if not self.linear_constructions_agree:
            lines.append(f"EBNC {self.node}: the Sec. 4 and Sec. 6 ranks disagree "
                         f"({self.by_method}); this is a bug, please report it")
        if not self.jacobian_ranks_agree:
            lines.append(f"EBNC {self.node}: the exact Jacobian rank "
                         f"{self.by_method['jacobian']} and its SVD rank "
                         f"{self.by_method['jacobian-svd']} disagree (gap "
                         f"{self.svd_gaps['jacobian-svd']:.1f} decades); trust the exact rank")
        for method, gap in self.svd_gaps.items():
            if gap < CLEAR_GAP_DECADES:
                lines.append(f"EBNC {self.node}: the {method} rank cut has a singular-value gap "
                             f"of only {gap:.1f} decades; trust the exact rank")
        if not self.span_is_model:
            lines.append(f"EBNC {self.node}: dimension {self.d} is below the {self.basis_size} "
                         "of the span of its log odds (the image of theta -> kappa is not open, "
                         "as paper 001's Theorem 1 assumes); the EBNC is a curved subset of the "
                         "softmax regression on its basis")
        return lines


def ebnc_dimensions(network: Network, target, rng: np.random.Generator | None = None,
                    points: int = 3) -> EbncSummary:
    """The dimension of the EBNC of ``target`` by every method of :func:`ebnc_dimension`."""
    rng = rng if rng is not None else np.random.default_rng(0)
    classifier = embedded_classifier(network, target)
    basis = ebnc_basis(network, target)
    count = blanket_configuration_count(classifier)
    rows = min(count, float(max(64, 4 * basis.n_features)))
    dense = (rows <= MAX_BLANKET_CONFIGURATIONS
             and dense_check_work(classifier, rows) <= MAX_DENSE_WORK)
    results = {"decomposition": EbncDimension(basis.classifier.network.names[classifier.target],
                                              basis.dimension, "decomposition")}
    configurations = check_configurations(classifier, rng, int(rows)) if dense else None
    for method in METHODS[1:] if dense else ():
        results[method] = ebnc_dimension(network, target, method, rng, points, configurations)
    return EbncSummary(
        node=results["decomposition"].node,
        d=results["jacobian"].d if dense else basis.dimension,
        basis_size=basis.dimension,
        by_method={method: result.d for method, result in results.items()},
        svd_gaps={method: result.gap for method, result in results.items()
                  if result.gap is not None},
        skipped=tuple(m for m in METHODS if m not in results),
        sampled_rows=int(rows) if dense and rows < count else None)


def ebnc_report(network: Network, target, rng: np.random.Generator | None = None,
                points: int = 3) -> dict:
    """A JSON-ready summary of the EBNC of ``target``: dimension, every method, the basis.

    Keys: ``node``, ``d`` (the exact Jacobian rank), ``method``, ``basis_size`` (the number of
    ``phi``: features times ``r_Y - 1``), ``features`` (readable names, shared by every class),
    ``by_method``, ``svd_gaps`` (None when the matrix has full rank) and ``warnings``.
    """
    summary = ebnc_dimensions(network, target, rng, points)
    basis = ebnc_basis(network, target)
    return {
        "node": summary.node,
        "d": summary.d,
        "method": "jacobian",
        "basis_size": basis.dimension,
        "classes": basis.classifier.n_classes,
        "features": basis.feature_names(),
        "by_method": summary.by_method,
        "svd_gaps": {m: (g if np.isfinite(g) else None) for m, g in summary.svd_gaps.items()},
        "warnings": summary.warnings(),
    }


