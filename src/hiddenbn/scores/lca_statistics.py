"""Latent class analysis statistics: what users of poLCA, StepMix and Mplus read from a fit.

For a fitted latent class model (a hidden root ``H`` with ``k`` classes and observed children
``X_1..X_n``, :func:`hiddenbn.models.network.latent_class`) this module computes, from each
case's posterior class membership ``w_ph = p(H = h | x_p)``
(:func:`hiddenbn.inference.latent_class.class_posteriors`),

* standard errors of every probability, class sizes and item-response probabilities alike
  (:func:`standard_errors`);
* classification quality: the entropy of the posteriors and the entropy R^2 (Mplus's
  "entropy"; :func:`classification_entropy`, :func:`entropy_r2`);
* AIC, BIC, the likelihood-ratio G^2 and Pearson's X^2 with their degrees of freedom
  (:func:`information_criteria`, :func:`goodness_of_fit`);
* what ``fit`` and ``select`` compare between models (:func:`model_comparison`).

The report that gathers them is :func:`hiddenbn.reports.lca.lca_report`. Arrays returned by the
functions are indexed from 0 (class ``h`` of an output is row ``h - 1`` of the CPTs).

Missing cells (:data:`hiddenbn.data.MISSING`) are summed out (missing at random): an item
that is not observed contributes the factor ``sum_x p(x | h) = 1`` to ``p(x_p, h)``.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from scipy.linalg import LinAlgError, cho_factor, cho_solve
from scipy.special import logsumexp, xlogy
from scipy.stats import chi2

from hiddenbn.data import MISSING, Dataset
from hiddenbn.errors import first_named
from hiddenbn.inference.latent_class import class_log_joint, class_posteriors, require_latent_class
from hiddenbn.models.network import Network, check_parameters
from hiddenbn.util.limits import shown

#: A probability below this is at the boundary of the parameter space: it is held fixed and
#: gets no standard error. Mplus fixes an item threshold beyond logit +-15 (p ~ 3e-7) likewise.
BOUNDARY_PROBABILITY = 1e-7
#: An eigenvalue of the Jacobi-scaled identifiability matrix (unit diagonal,
#: :func:`identifiability_matrix`) at most this is zero: the model is not identifiable along
#: its eigenvector. Exact null directions come out near 1e-15.
NULL_EIGENVALUE = 1e-9
#: A probability whose gradient has more than this relative part in that null space is not
#: identifiable (its standard error would be arbitrary).
NULL_LOADING = 1e-6
#: Cells per class and item state that :func:`identifying_cells` adds to the data's patterns.
CELLS_PER_STATE = 2
#: Most free parameters whose standard errors are computed: three dense d x d matrices and an
#: eigen-decomposition, ~20 s at d = 2000 on two cores and eight times that at 4000.
MAX_SE_DIMENSION = 4000
#: Pattern x free-parameter cells of one block of the information matrix's gradients.
INFORMATION_CHUNK_CELLS = 1 << 24
#: Tables with at most this many cells are enumerated to count the cells with small expected
#: counts; larger ones get a bound instead (G^2 and X^2 never need the enumeration).
MAX_ENUMERATED_CELLS = 10**6
#: The chi-square approximation wants expected counts of at least 5 in all but 20% of the
#: cells (Cochran's rule).
SMALL_EXPECTED_COUNT = 5.0
SMALL_EXPECTED_FRACTION = 0.2
#: Largest number a float holds: a df above it has p-value 1 (:func:`_p_value`).
LARGEST_FLOAT = sys.float_info.max
#: The sign convention of the information criteria, as every report states it.
FIT_STATISTICS_ORIENTATION = ("AIC, BIC, SABIC and CAIC are -2 log L + penalty: smaller is "
                              "better (the score bic_log_evidence is -BIC/2, larger is better)")
#: Boundary or non-identified parameters named in a note before "and N more".
NAMED_IN_NOTE = 12


# --- standard errors ------------------------------------------------------------------------
@dataclass(frozen=True)
class Coordinates:
    """Free coordinates of the parameters around a fit, and the entries held fixed.

    Every probability of the model is an *entry*, numbered as in ``np.concatenate([t.ravel()
    for t in cpts])`` (``p(H)`` first, then each item's ``(k, r_j)`` table row by row). In each
    CPT row the largest entry is the *reference*: it is ``1 -`` the sum of the others, and
    every other entry not at the boundary is a free coordinate. (The project's free parameters,
    :func:`hiddenbn.models.network.free_parameters`, drop the last entry instead; at the boundary
    that entry can be 0, where log-likelihood derivatives in those coordinates blow up. Standard
    errors of the probabilities do not depend on the choice.)

    Attributes
    ----------
    entry, reference : int arrays, shape (d,)
        The entry each coordinate is, and its row's reference entry (which moves by minus the
        coordinate). Coordinates are in entry order, so each row's are contiguous.
    fixed : bool array, shape (D,)
        Entries below :data:`BOUNDARY_PROBABILITY`, held at their value, and the reference of a
        row whose other entries are all fixed.
    undetermined : bool array, shape (D,)
        Item-response entries of an empty class (size at the boundary): the data say nothing
        about them.
    """

    entry: np.ndarray
    reference: np.ndarray
    fixed: np.ndarray
    undetermined: np.ndarray


def free_coordinates(cpts) -> Coordinates:
    """The :class:`Coordinates` of a latent class model's parameters ``cpts``."""
    empty_class = cpts[0][0] < BOUNDARY_PROBABILITY
    entries, references, fixed, undetermined = [], [], [], []
    start = 0
    for node, table in enumerate(cpts):
        q, r = table.shape
        index = start + np.arange(q * r).reshape(q, r)
        reference = np.repeat(index[np.arange(q), table.argmax(axis=1)][:, None], r, axis=1)
        row_undetermined = np.repeat((empty_class if node else np.zeros(q, bool))[:, None], r,
                                     axis=1)
        at_boundary = (table < BOUNDARY_PROBABILITY) & ~row_undetermined
        free = ~at_boundary & ~row_undetermined & (index != reference)
        # a row whose other entries are all fixed fixes its reference too (1 - their sum)
        pinned = at_boundary.any(axis=1) & ~free.any(axis=1)
        at_boundary[pinned] |= index[pinned] == reference[pinned]
        entries.append(index[free])
        references.append(reference[free])
        fixed.append(at_boundary.ravel())
        undetermined.append(row_undetermined.ravel())
        start += q * r
    return Coordinates(np.concatenate(entries), np.concatenate(references),
                       np.concatenate(fixed), np.concatenate(undetermined))


def _entry_positions(cpts, entries):
    """``(node, row, state)`` of each entry number."""
    sizes = np.array([t.size for t in cpts])
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    node = np.searchsorted(starts, entries, side="right") - 1
    widths = np.array([t.shape[1] for t in cpts])[node]
    row, state = np.divmod(entries - starts[node], widths)
    return node, row, state


@dataclass(frozen=True)
class _Geometry:
    """Per free coordinate: its node, state and reference state, and the two probabilities;
    the class-size coordinates, and each class's item coordinates."""

    node: np.ndarray
    state: np.ndarray
    reference_state: np.ndarray
    value: np.ndarray
    reference_value: np.ndarray
    sizes: np.ndarray
    classes: list


def _geometry(cpts, coordinates: Coordinates) -> _Geometry:
    values = np.concatenate([t.ravel() for t in cpts])
    node, row, state = _entry_positions(cpts, coordinates.entry)
    _, _, reference_state = _entry_positions(cpts, coordinates.reference)
    return _Geometry(node, state, reference_state, values[coordinates.entry],
                     values[coordinates.reference], np.flatnonzero(node == 0),
                     [np.flatnonzero((node > 0) & (row == h)) for h in range(cpts[0].size)])


def _gradient_block(network: Network, cpts, geometry: _Geometry, block):
    """``(posterior, U, gradients)`` of a block of patterns; ``gradients[p]`` is the gradient of
    ``log p(x_p)`` in the free coordinates and ``U[h]`` the matrix ``U_h`` of
    :func:`information_matrix`."""
    posterior, _ = class_posteriors(network, cpts, block)
    g = geometry
    gradients = np.zeros((block.shape[0], g.node.size))
    gradients[:, g.sizes] = (posterior[:, g.state[g.sizes]] / g.value[g.sizes]
                             - posterior[:, g.reference_state[g.sizes]]
                             / g.reference_value[g.sizes])
    u_matrices = []
    for h, columns in enumerate(g.classes):
        x = block[:, g.node[columns] - 1]
        u = ((x == g.state[columns]) / g.value[columns]
             - (x == g.reference_state[columns]) / g.reference_value[columns])
        gradients[:, columns] = posterior[:, h:h + 1] * u
        u_matrices.append(u)
    return posterior, u_matrices, gradients


def _blocks(patterns, d: int):
    """Slices of at most :data:`INFORMATION_CHUNK_CELLS` / d patterns."""
    step = max(1, INFORMATION_CHUNK_CELLS // max(1, d))
    return [slice(start, start + step) for start in range(0, patterns.shape[0], step)]


def information_matrix(network: Network, cpts, patterns, counts, alpha: float,
                       coordinates: Coordinates) -> np.ndarray:
    """``A = -d^2 g`` in the free ``coordinates``, ``g = log p(D | theta) + log p(theta)``.

    The latent class closed form of :func:`hiddenbn.scores.approximations.negative_hessian`, with a
    reference entry per row, fixed boundary entries and missing cells. With ``w_ph = p(h | x_p)``,
    the gradient of ``log p(x_p)`` along an item coordinate ``(j, h, a)`` with reference state ``c``
    is ``w_ph U_h[p, (j, a)]``, ``U_h[p, (j, a)] = [x_pj = a] / theta_jha - [x_pj = c] / theta_jhc``
    (0 when ``x_pj`` is missing), and along a class-size coordinate ``a`` with reference ``c`` it is
    ``w_pa / pi_a - w_pc / pi_c``. Since ``p(x_p)`` is linear in each CPT row,

        d^2 log p(D) = sum_p n_p [sum_h w_ph (U_h U_h^T without same-item blocks, plus the
                       class-size cross terms) - grad_p grad_p^T].

    Only entries above the boundary are divided by, so zeros elsewhere are harmless. The
    Dirichlet(``alpha``) prior adds ``(alpha - 1)([f = g] / theta_f^2 + [same row] /
    theta_ref^2)``; ``alpha = 1`` (ML) makes ``A`` the observed information.
    """
    geometry = _geometry(cpts, coordinates)
    weights = cpts[0][0]
    d = geometry.node.size
    sizes = geometry.sizes
    counts = np.asarray(counts, dtype=float)
    hessian = np.zeros((d, d))
    for rows in _blocks(patterns, d):
        posterior, u_matrices, gradients = _gradient_block(network, cpts, geometry,
                                                           patterns[rows])
        for h, (columns, u) in enumerate(zip(geometry.classes, u_matrices)):
            mass = counts[rows] * posterior[:, h]
            second = u.T @ (mass[:, None] * u)
            item = geometry.node[columns]
            second[item[:, None] == item[None, :]] = 0.0  # p(x, h) is linear in an item's row
            hessian[np.ix_(columns, columns)] += second
            # d p(h) / d(size coordinate a) is [h = a] - [h = reference of a]
            size_jacobian = ((geometry.state[sizes] == h).astype(float)
                             - (geometry.reference_state[sizes] == h))
            cross = np.outer(size_jacobian, (mass @ u) / weights[h])
            hessian[np.ix_(sizes, columns)] += cross
            hessian[np.ix_(columns, sizes)] += cross.T
        hessian -= gradients.T @ (counts[rows, None] * gradients)
    negative = -hessian
    if alpha != 1.0:
        negative[np.diag_indices(d)] += (alpha - 1.0) / geometry.value ** 2
        # each row's coordinates are contiguous: its reference entry couples them in a block
        reference = coordinates.reference
        starts = np.flatnonzero(np.r_[True, reference[1:] != reference[:-1]])
        for start, stop in zip(starts, np.r_[starts[1:], d]):
            negative[start:stop, start:stop] += ((alpha - 1.0)
                                                 / geometry.reference_value[start] ** 2)
    return negative


def identifying_cells(cpts) -> np.ndarray:
    """Cells that reach the rank of the latent class model's Jacobian at ``cpts``: for each
    class ``h``, item ``j`` and state ``s``, :data:`CELLS_PER_STATE` cells with ``x_j = s`` and
    the other items drawn from ``p(x | h)`` (with a fixed seed, so that reports are
    reproducible); every cell of a table that has no more cells than that.

    An item coordinate ``(j, h, s)`` moves ``p(x)`` only through ``p(x, h)``, in cells where
    ``x_j`` is ``s`` or its row's reference state and where class ``h`` gives the other items
    positive probability. Uniform cells miss that support when a class has many zeros (and a
    small class's coordinates would look unidentifiable); these cells lie in it by design.
    """
    weights, tables = cpts[0][0], cpts[1:]
    cards = [t.shape[1] for t in tables]
    per_class = CELLS_PER_STATE * sum(cards)
    if math.prod(cards) <= per_class * weights.size:
        return np.indices(cards).reshape(len(cards), -1).T
    rng = np.random.default_rng(0)
    blocks = []
    for h in range(weights.size):
        uniforms = rng.random((per_class, len(cards)))
        cells = np.column_stack([np.minimum(np.searchsorted(np.cumsum(t[h]), uniforms[:, j]),
                                            t.shape[1] - 1) for j, t in enumerate(tables)])
        rows = np.arange(per_class)
        owner = np.repeat(np.arange(len(cards)), CELLS_PER_STATE * np.array(cards))
        state = np.concatenate([np.repeat(np.arange(r), CELLS_PER_STATE) for r in cards])
        cells[rows, owner] = state
        blocks.append(cells)
    return np.vstack(blocks)


def identifiability_matrix(network: Network, cpts, patterns,
                           coordinates: Coordinates) -> np.ndarray:
    """``K = sum_x grad log p(x) grad log p(x)^T`` over the data's patterns and
    :func:`identifying_cells`, in the free ``coordinates``.

    A direction ``v`` along which no cell probability changes (``grad p(x) . v = 0`` for every
    cell ``x``) is one along which the model is not identifiable, and ``K v = 0`` for it, exactly
    and at any parameters; ``A`` of :func:`information_matrix` is only as singular there as EM
    is converged (its second-derivative term carries the remaining gradient). The extra cells
    keep the data's sparsity from adding null directions of its own.
    """
    geometry = _geometry(cpts, coordinates)
    d = geometry.node.size
    every = np.vstack([np.asarray(patterns), identifying_cells(cpts)])
    # a cell of probability zero has a zero gradient in the coordinates (each of its terms
    # holds a fixed zero), so it adds nothing; log p would be -inf there
    every = every[np.isfinite(logsumexp(class_log_joint(cpts, every), axis=1))]
    gram = np.zeros((d, d))
    for rows in _blocks(every, d):
        gradients = _gradient_block(network, cpts, geometry, every[rows])[2]
        gram += gradients.T @ gradients
    return gram


@dataclass(frozen=True)
class StandardErrors:
    """Standard errors of every probability of a latent class model.

    ``tables`` has the shapes of the CPTs, with NaN where there is no standard error (an entry
    fixed at the boundary, of an empty class, or not identifiable; ``notes`` say which and
    why); ``method`` says what the covariance is.
    """

    tables: list
    method: str
    notes: list


def item_categories(network: Network, labels=None) -> list:
    """The category labels of each item: ``labels[name][x]`` where given, else ``str(x)``.

    ``labels`` maps item names to sequences of state labels (state code = index), e.g.
    ``dict(zip(data.names, data.categories))``; items or states it lacks keep their codes.
    """
    labels = labels or {}
    result = []
    for name, r in zip(network.observed_names, network.observed_cardinalities):
        given = list(labels.get(name, ()))
        result.append([str(given[x]) if x < len(given) else str(x) for x in range(r)])
    return result


def _entry_names(network: Network, cpts, categories, entries) -> str:
    """``"class 2: X3 = 1; size of class 4; ..."``, at most :data:`NAMED_IN_NOTE` of them."""
    node, row, state = _entry_positions(cpts, np.asarray(entries, dtype=np.int64))
    names = [f"size of class {x + 1}" if i == 0 else
             f"class {h + 1}: {network.names[i]} = {categories[i - 1][x]}"
             for i, h, x in zip(node, row, state)]
    return first_named(names, NAMED_IN_NOTE, "; ")


def _covariance_method(alpha: float) -> str:
    if alpha == 1.0:
        return ("inverse of the observed information (the negative Hessian of the "
                "log-likelihood) at the ML estimate; the dependent probability of each row "
                "(1 - the others) by the delta method")
    return (f"inverse of the negative Hessian of the log posterior (log-likelihood plus the "
            f"Dirichlet({alpha:g}) log prior) at the MAP estimate, the covariance of the "
            "Laplace approximation of the posterior; the dependent probability of each row "
            "(1 - the others) by the delta method")


def _null_space(gram):
    """``(scale, range_basis, null_basis)`` of ``S = diag(scale) K diag(scale)`` (unit
    diagonal): orthonormal eigenvectors of eigenvalues above and at most
    :data:`NULL_EIGENVALUE`. Scaling first keeps the units of the coordinates out of the test (a
    probability near 0 moves log-probabilities ~1/p faster than the others)."""
    diagonal = np.diag(gram)
    scale = 1.0 / np.sqrt(np.where(diagonal > 0, diagonal, 1.0))
    eigenvalues, vectors = np.linalg.eigh(gram * scale[:, None] * scale[None, :])
    null = eigenvalues <= NULL_EIGENVALUE
    return scale, vectors[:, ~null], vectors[:, null]


def _covariance(a, scale, basis):
    """``D Q (Q^T D A D Q)^-1 Q^T D``: the inverse of ``A`` on the identifiable directions
    ``D Q`` (``D = diag(scale)``), the model's local parameters transverse to its fibres; None
    when ``A`` is not positive definite there (not a maximum), with the smallest eigenvalue of
    the restricted matrix scaled to a unit diagonal."""
    if not basis.shape[1]:  # nothing is identifiable: every entry gets its own note
        return np.zeros_like(a), None
    restricted = basis.T @ (a * scale[:, None] * scale[None, :]) @ basis
    try:
        factor = cho_factor(restricted, lower=True)
    except LinAlgError:
        diagonal = np.abs(np.diag(restricted))
        unit = 1.0 / np.sqrt(np.where(diagonal > 0, diagonal, 1.0))
        return None, float(np.linalg.eigvalsh(restricted * unit[:, None] * unit[None, :])[0])
    inverse = cho_solve(factor, np.eye(restricted.shape[0]))
    return scale[:, None] * (basis @ inverse @ basis.T) * scale[None, :], None


def _delta_method(coordinates: Coordinates, covariance, scale, null_basis, n_entries: int):
    """Variance of every entry, and the entries that are not identifiable.

    A free coordinate's variance is its diagonal entry of ``covariance``; a row's reference
    entry, ``1 -`` the sum of its coordinates, has variance ``1^T Sigma_row 1`` (the delta
    method, exact: the map is linear). A linear function ``g^T theta`` is identifiable when ``g``
    has no part along the null space: ``|N^T D g| <= NULL_LOADING |D g|`` for the orthonormal
    null basis ``N`` of the scaled matrix.
    """
    reference = coordinates.reference
    starts = np.flatnonzero(np.r_[True, reference[1:] != reference[:-1]])
    variance = np.full(n_entries, np.nan)
    variance[coordinates.entry] = np.diag(covariance)
    row_sums = np.add.reduceat(np.add.reduceat(covariance, starts, axis=0), starts, axis=1)
    variance[reference[starts]] = np.diag(row_sums)
    free_loading = np.linalg.norm(null_basis, axis=1)
    reference_loading = (np.linalg.norm(np.add.reduceat(scale[:, None] * null_basis, starts,
                                                        axis=0), axis=1)
                         / np.sqrt(np.add.reduceat(scale ** 2, starts)))
    unidentified = np.concatenate([coordinates.entry[free_loading > NULL_LOADING],
                                   reference[starts][reference_loading > NULL_LOADING]])
    variance[unidentified] = np.nan
    return np.maximum(variance, 0.0), np.sort(unidentified)


def standard_errors(network: Network, cpts, patterns, counts, alpha: float,
                    categories=None) -> StandardErrors:
    """Standard errors of every probability, class sizes and item responses alike.

    The covariance of the free coordinates (:class:`Coordinates`) is the inverse of ``A`` of
    :func:`information_matrix` on the identifiable directions (:func:`_covariance`): at
    ``alpha = 1`` the inverse observed information at the ML estimate, the classical ML
    standard errors (poLCA's empirical information and Mplus's MLR sandwich are built from the
    same scores and Hessian and agree with them when the model holds); at ``alpha > 1`` the
    covariance of the Laplace approximation of the posterior at the MAP. Each probability's
    standard error follows by the delta method, the dependent entry of each row included
    (:func:`_delta_method`).

    What has none, with a note naming it: entries at the boundary (below
    :data:`BOUNDARY_PROBABILITY`; held fixed, the others' standard errors are conditional on
    them, as in Mplus); the item responses of an empty class; entries that move along a
    direction in which the model is not identifiable (:func:`identifiability_matrix`);
    everything when ``A`` is not positive definite on the identifiable directions (not a local
    maximum) or there are more than :data:`MAX_SE_DIMENSION` coordinates. An entry alone in its
    row (a one-state variable, the size of the only class) has standard error 0.
    """
    require_latent_class(network)
    cpts = check_parameters(network, cpts)
    categories = categories or item_categories(network)
    coordinates = free_coordinates(cpts)
    values = np.concatenate([t.ravel() for t in cpts])
    notes = []
    empty = np.flatnonzero(cpts[0][0] < BOUNDARY_PROBABILITY)
    if empty.size:
        notes.append(f"empty class{'es' if empty.size > 1 else ''} "
                     f"{first_named([h + 1 for h in empty], NAMED_IN_NOTE)} (size below "
                     f"{BOUNDARY_PROBABILITY:g}): the data say nothing about "
                     f"{'their' if empty.size > 1 else 'its'} item-response probabilities; no "
                     "standard errors for them")
    boundary = np.flatnonzero(coordinates.fixed & (values < BOUNDARY_PROBABILITY))
    boundary = boundary[boundary >= cpts[0].size]  # an empty class has its own note
    if boundary.size:
        notes.append(f"at the boundary (probability below {BOUNDARY_PROBABILITY:g}), held fixed "
                     "with no standard error, as Mplus does, together with the rest of a row "
                     "that has nothing else free; the other standard errors are conditional on "
                     f"them: {_entry_names(network, cpts, categories, boundary)}")
    variance = np.full(values.size, np.nan)
    widths = np.concatenate([np.full(t.size, t.shape[1]) for t in cpts])
    variance[widths == 1] = 0.0
    d = coordinates.entry.size
    if d > MAX_SE_DIMENSION:
        notes.append(f"no standard errors: {d} free parameters, more than the "
                     f"{MAX_SE_DIMENSION} whose information matrix is built")
    elif d:
        patterns = np.asarray(patterns)
        scale, basis, null_basis = _null_space(
            identifiability_matrix(network, cpts, patterns, coordinates))
        a = information_matrix(network, cpts, patterns, counts, alpha, coordinates)
        covariance, smallest = _covariance(a, scale, basis)
        if covariance is None:
            notes.append(f"the negative Hessian is not positive definite ({smallest:.3g} is its "
                         "smallest eigenvalue scaled to a unit diagonal): the fit is not a local "
                         "maximum (EM stopped at a saddle point or before converging); no "
                         "standard errors")
        else:
            found, unidentified = _delta_method(coordinates, covariance, scale, null_basis,
                                                values.size)
            keep = ~np.isnan(found)
            variance[keep] = found[keep]
            if unidentified.size:
                nullity = null_basis.shape[1]
                notes.append(f"the model is not identifiable along {nullity} direction"
                             f"{'s' if nullity > 1 else ''} of its parameters (no cell "
                             "probability changes along them), so these have no standard "
                             "error: " + _entry_names(network, cpts, categories, unidentified))
    sizes = np.cumsum([t.size for t in cpts])[:-1]
    tables = [part.reshape(t.shape) for part, t in zip(np.split(np.sqrt(variance), sizes), cpts)]
    return StandardErrors(tables, _covariance_method(alpha), notes)


# --- classification quality ------------------------------------------------------------------
def classification_entropy(posterior, counts) -> float:
    """``E = -sum_i sum_h w_ih log w_ih`` over the cases (pattern ``p`` counts ``n_p`` times).

    0 when every case is classified with certainty; ``N log k`` when every posterior is
    uniform.
    """
    posterior = np.asarray(posterior, dtype=float)
    return float(-(np.asarray(counts, dtype=float) @ xlogy(posterior, posterior).sum(axis=1)))


def entropy_r2(entropy: float, n_cases: int, n_classes: int) -> float | None:
    """Relative entropy ``1 - E / (N log k)``: 1 for a perfect classification, 0 for none.

    Mplus prints it as "Entropy" (Ramaswamy et al. 1993); it is the entropy R^2 by which the
    three-step approaches of Bolck, Croon & Hagenaars (2004) and Vermunt (2010) judge the
    modal assignment. Undefined (None) for one class or no cases: ``N log k = 0``.
    """
    if n_classes < 2 or n_cases < 1:
        return None
    return 1.0 - entropy / (n_cases * math.log(n_classes))


def average_posteriors(posterior, modal, counts) -> list:
    """Mplus's "average latent class probabilities for most likely class membership": row
    ``g`` is the mean posterior of the cases whose modal class is ``g`` (None if it has none)."""
    posterior = np.asarray(posterior, dtype=float)
    counts = np.asarray(counts, dtype=float)
    rows = []
    for g in range(posterior.shape[1]):
        members = modal == g
        total = counts[members].sum()
        rows.append(None if total == 0 else
                    (counts[members] @ posterior[members] / total).tolist())
    return rows


# --- fit statistics --------------------------------------------------------------------------
def information_criteria(log_likelihood: float, n_parameters: int, n_cases: int) -> dict:
    """AIC, BIC, sample-size-adjusted BIC and consistent AIC in the deviance orientation of
    poLCA and Mplus: ``-2 log L + penalty``, smaller is better.

    ``AIC = -2LL + 2d``; ``BIC = -2LL + d log N``; ``SABIC = -2LL + d log((N + 2) / 24)``
    (Sclove 1987); ``CAIC = -2LL + d (log N + 1)`` (Bozdogan 1987). hiddenbn's own score
    :func:`hiddenbn.scores.approximations.bic_log_evidence` is ``LL - d/2 log N = -BIC / 2``, larger
    is better.
    """
    deviance = -2.0 * log_likelihood
    log_n = math.log(n_cases)
    return {"aic": deviance + 2.0 * n_parameters, "bic": deviance + n_parameters * log_n,
            "sabic": deviance + n_parameters * math.log((n_cases + 2) / 24.0),
            "caic": deviance + n_parameters * (log_n + 1.0)}


def _p_value(statistic, df):
    """``P(chi2_df > statistic)``; df can exceed any C integer (``5^40`` cells), hence float.

    A df beyond the range of floats (more than ~1000 binary items) cannot enter scipy; when the
    statistic is at most ``df / 2`` the p-value is 1 to within ``8 / df`` (Chebyshev: the
    chi-square's variance is ``2 df``), far below float precision, and otherwise None.
    """
    if statistic is None or df is None or df <= 0:
        return None
    if df > LARGEST_FLOAT:
        return 1.0 if statistic <= df // 2 else None
    return finite_or_none(chi2.sf(statistic, float(df)))


def _small_expected_fraction(network, cpts, n_complete: int, cells: int) -> tuple[float, bool]:
    """Fraction of the cells with expected count below 5, and whether it is exact.

    Exact by enumeration up to :data:`MAX_ENUMERATED_CELLS` cells; beyond, a lower bound: the
    expected counts sum to ``N``, so at most ``N / 5`` cells reach 5.
    """
    if cells > MAX_ENUMERATED_CELLS:
        # exact rational arithmetic: 2^1024 cells and more overflow a float
        bound = 1 - Fraction(n_complete) / (Fraction(SMALL_EXPECTED_COUNT) * cells)
        return float(max(Fraction(0), bound)), False
    table = np.indices(network.observed_cardinalities).reshape(network.n_nodes - 1, -1).T
    # a cell of probability zero (a boundary fit) has E = 0: small, and no error here
    log_p = logsumexp(class_log_joint(cpts, table), axis=1)
    return float(np.mean(n_complete * np.exp(log_p) < SMALL_EXPECTED_COUNT)), True


def goodness_of_fit(network: Network, cpts, patterns, counts, ds: int,
                    de: int | None = None) -> tuple[dict, list]:
    """G^2 and Pearson's X^2 over the full table of the items, their df and p-values.

    With ``O`` the observed and ``E = N p(x)`` the expected count of each of the ``C = prod_j
    r_j`` cells (Agresti, Categorical Data Analysis):

        G^2 = 2 sum_cells O log(O / E)        (a cell with O = 0 adds 0),
        X^2 = sum_cells (O - E)^2 / E         (a cell with O = 0 adds E).

    Neither needs the table enumerated: G^2 is a sum over the observed patterns, and since the
    expected counts of all cells sum to ``N``, the unobserved cells add ``sum E = N (1 -
    sum_observed p(x))`` to X^2, so ``X^2 = sum_observed (O - E)^2 / E + N (1 - sum_observed
    p(x))``. Degrees of freedom ``C - 1 - ds`` and, with the effective dimension, ``C - 1 - de``
    (the right ones when ``de < ds``: a model that is not identifiable has fewer parameters
    than ``ds`` counts). Only complete cases (no missing cell) enter, as in poLCA; ``N`` is their
    number. ``patterns`` are distinct, as in a :class:`~hiddenbn.data.Dataset`.

    Returns the statistics (None where undefined) and notes saying why.
    """
    patterns = np.asarray(patterns)
    counts = np.asarray(counts)
    complete = ~(patterns == MISSING).any(axis=1) & (counts > 0)
    observed, o = patterns[complete], counts[complete].astype(float)
    n_complete = int(counts[complete].sum())
    n_incomplete = int(counts.sum()) - n_complete
    cells = math.prod(network.observed_cardinalities)
    result = {"g2": None, "chi2": None, "df": cells - 1 - ds,
              "df_effective": None if de is None else cells - 1 - de,
              "n_cells": cells, "n_observed_cells": int(observed.shape[0]),
              "n_complete_cases": n_complete, "cells_expected_below_5": None,
              "cells_expected_below_5_is_lower_bound": None}
    notes = []
    if n_incomplete:
        notes.append(f"G^2 and X^2 use the {n_complete} complete cases only ({n_incomplete} "
                     "with a missing cell left out), as poLCA does")
    if de is None:
        notes.append("effective dimension unknown: no df_effective")
    elif de < ds:
        notes.append(f"de = {de} < ds = {ds}: the model is not identifiable and ds over-counts "
                     "its parameters; df_effective (from de) is the right df")
    if n_complete == 0:
        notes.append("no complete case: no G^2 or X^2")
    else:
        _, log_p = class_posteriors(network, cpts, observed)
        expected = n_complete * np.exp(log_p)
        result["g2"] = float(2.0 * np.sum(o * (np.log(o) - np.log(n_complete) - log_p)))
        unobserved_mass = max(0.0, 1.0 - math.fsum(np.exp(log_p)))
        with np.errstate(divide="ignore", over="ignore"):
            chi2_statistic = float(np.sum((o - expected) ** 2 / expected)
                                   + n_complete * unobserved_mass)
        if math.isfinite(chi2_statistic):
            result["chi2"] = chi2_statistic
        else:
            notes.append("an observed pattern's expected count is below 1e-300 (the table is "
                         "that large): X^2 exceeds the range of floats, no X^2; use G^2")
        fraction, exact = _small_expected_fraction(network, cpts, n_complete, cells)
        result["cells_expected_below_5"] = fraction
        result["cells_expected_below_5_is_lower_bound"] = not exact
        if fraction > SMALL_EXPECTED_FRACTION:
            share = (f"{100 * fraction:.0f}%" if exact else
                     "nearly all" if fraction > 0.99 else f"at least {100 * fraction:.0f}%")
            notes.append(f"{share} of the {shown(cells)} cells have an expected count below 5 (the "
                         "chi-square approximation wants at most 20%): the p-values of G^2 and "
                         "X^2 are unreliable; compare models by BIC, or bootstrap G^2")
    for suffix, df in (("", result["df"]), ("_effective", result["df_effective"])):
        result["g2_p" + suffix] = _p_value(result["g2"], df)
        result["chi2_p" + suffix] = _p_value(result["chi2"], df)
    for name in ("df", "df_effective"):
        if result[name] is not None and result[name] <= 0:
            notes.append(f"{name} = {result[name]}: the model has as many parameters as the "
                         "table has free cells, or more; no p-value from it")
    return result, notes


def finite_or_none(value):
    """A float for strict JSON: ``None`` for NaN and infinities (and for ``None``)."""
    return float(value) if value is not None and np.isfinite(value) else None


def model_comparison(fit, data: Dataset, de: int | None = None) -> tuple[dict, np.ndarray]:
    """What latent class users compare between models fitted to one data set, as ``fit`` and
    ``select`` both report it.

    Parameters
    ----------
    fit : hiddenbn.learning.em.Fit
        A fit of a latent class model.
    data : Dataset
        The data of the fit, over the model's items (``data.for_network``).
    de : int, optional
        The effective dimension: gives ``df_effective``.

    Returns
    -------
    comparison : dict
        ``fit_statistics``: ``orientation`` (:data:`FIT_STATISTICS_ORIENTATION`),
        ``log_likelihood``, ``n_parameters`` (ds), ``aic``, ``bic``, ``sabic``, ``caic``
        (:func:`information_criteria`), then :func:`goodness_of_fit`'s ``g2``, ``chi2``,
        ``df``, ``df_effective``, ``g2_p``, ``chi2_p``, ``g2_p_effective``,
        ``chi2_p_effective``, ``n_cells``, ``n_observed_cells``, ``n_complete_cases``,
        ``cells_expected_below_5``, ``cells_expected_below_5_is_lower_bound``.
        ``classification``: ``entropy`` and ``entropy_r2``.
        ``notes``: why each None is None, and what to beware of.
    posterior : ndarray, shape (m, k)
        Each pattern's class posteriors (:func:`class_posteriors`).
    """
    network = fit.network
    cpts = check_parameters(network, fit.cpts)
    k, ds, n_cases = network.cardinalities[0], network.standard_dimension, data.n_cases
    posterior, log_marginal = class_posteriors(network, cpts, data.patterns)
    log_likelihood = float(data.counts @ log_marginal)
    entropy = classification_entropy(posterior, data.counts)
    r2 = entropy_r2(entropy, n_cases, k)
    notes = []
    if fit.alpha != 1.0:
        notes.append(f"the fit is MAP (Dirichlet alpha {fit.alpha:g}), not ML: AIC, BIC, G^2 "
                     "and X^2 assume ML; fit with alpha 1 for the textbook statistics")
    if not math.isclose(log_likelihood, fit.log_likelihood, rel_tol=1e-8, abs_tol=1e-6):
        notes.append(f"the log-likelihood of the data at the fitted parameters, "
                     f"{log_likelihood:.6f}, differs from the fit's {fit.log_likelihood:.6f}: "
                     "these are not the data that were fitted (or the fit did not sum out "
                     "missing cells exactly)")
    if r2 is None:
        notes.append("entropy R^2 undefined for one class (N log k = 0)")
    statistics, fit_notes = goodness_of_fit(network, cpts, data.patterns, data.counts, ds, de)
    return {"fit_statistics": {"orientation": FIT_STATISTICS_ORIENTATION,
                               "log_likelihood": log_likelihood, "n_parameters": ds,
                               **information_criteria(log_likelihood, ds, n_cases),
                               **statistics},
            "classification": {"entropy": entropy, "entropy_r2": r2},
            "notes": notes + fit_notes}, posterior


