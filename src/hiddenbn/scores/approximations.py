"""Approximations of the log marginal likelihood ``log p(D | S)`` (paper 003 Secs. 2-3).

All scores take the data as pattern counts and a fit at the MAP (or ML) parameters, as paper
003 Sec. 3 evaluates them. ``N`` is the number of cases, ``ds`` the standard dimension
(number of free parameters) and ``de`` the effective dimension (paper 000 Sec. 4, paper 002
Sec. 2.4), computed elsewhere and passed in.

* :func:`bic_log_evidence` -- Eq. 9: ``log p(D|theta) - d/2 log N``; BIC with ``d = ds``, BIC+
  (paper 002 Sec. 2.3) with ``d = de``. This is BIC on the scale of ``log p(D | S)``, larger is
  better, named apart from the ``BIC = -2 log p(D|theta) + d log N`` of the latent class
  output (:func:`hiddenbn.scores.lca_statistics.information_criteria`), which is ``-2`` times it.
* :func:`draper` -- Eq. 10: BIC ``+ d/2 log(2 pi)``.
* MLED (Eq. 12) -- Eq. 5 (Cooper-Herskovits, :func:`hiddenbn.models.priors.bd_log_marginal`,
  the exact marginal likelihood of complete data under Dirichlet priors) at the expected counts.
* :func:`cheeseman_stutz` -- Eq. 13 with ``d'`` and ``d``; paper 003 takes ``d' = d = ds``
  (CS); CS+ (paper 002 Sec. 2.3, paper 000 Sec. 6) takes ``d' = ds`` and ``d = de``.
* :func:`laplace` -- Eq. 8 with the exact negative Hessian ``A`` of
  ``g = log p(D|theta) + log p(theta)`` in the free parameters (:func:`negative_hessian`) and
  the Dirichlet log density in the same coordinates
  (:func:`hiddenbn.models.priors.dirichlet_log_density`).

The exact marginal likelihood itself (Eq. 4 summed over every completion of the hidden values)
is :func:`hiddenbn.scores.exact.exact_log_evidence`.

Missing cells (:data:`hiddenbn.data.MISSING`, missing at random) are unobserved values like
the hidden ones, so every equation keeps its form with ``D`` the observed cells:
``log p(D | theta) = sum_p c_p log p(x_p,obs | theta)`` (each missing cell summed out); the
expected counts ``E(N_ijk)`` of the fit are those of the data completed in the hidden nodes
*and* the missing cells (Eq. 11, :mod:`hiddenbn.inference.enumeration`), so MLED (Eq. 12) is
Eq. 5 at them and Cheeseman-Stutz (Eq. 13) takes ``D'`` = that completion, ``log p(D' | theta)
= sum_ijk E(N_ijk) log theta_ijk`` (:func:`hiddenbn.models.priors.complete_log_likelihood`) from
the same counts; BIC, BIC+ and Draper change only through ``log p(D | theta)`` (``N`` stays the
number of cases); Laplace (Eq. 8) uses the Hessian of the observed-data log-likelihood, in which
a missing cell is one more summed-out value (:func:`negative_hessian`).

Free parameters are the CPT entries without the last entry of each row, node by node, row by
row (:func:`hiddenbn.models.network.free_parameters`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from scipy.linalg import LinAlgError, cho_factor, eigvalsh
from scipy.sparse import csr_matrix
from scipy.special import logsumexp

from hiddenbn.data import MISSING, Dataset
from hiddenbn.inference.enumeration import (ENUMERATION_CHUNK_CELLS, MAX_HIDDEN_CONFIGURATIONS,
                                            hidden_configuration_count, is_latent_class,
                                            posterior_chunks, state_offsets)
from hiddenbn.models.network import Network, check_parameters
from hiddenbn.models.priors import bd_log_marginal, complete_log_likelihood
from hiddenbn.util.limits import approximately

#: Largest dense block (rows x free parameters) built at once by the enumeration Hessian.
HESSIAN_CHUNK_CELLS = 1 << 24
#: Largest number of free parameters for which :func:`score_fit` builds the dense Hessian.
LAPLACE_MAX_DIMENSION = 8000


# --- the scores ------------------------------------------------------------------------------
def bic_log_evidence(log_likelihood: float, dimension: int, n_cases: int) -> float:
    """Paper 003 Eq. 9: ``log p(D | theta) - d/2 log N`` (BIC with ds, BIC+ with de)."""
    return log_likelihood - 0.5 * dimension * np.log(n_cases)


def draper(log_likelihood: float, dimension: int, n_cases: int) -> float:
    """Paper 003 Eq. 10: ``log p(D | theta) - d/2 log N + d/2 log(2 pi)``."""
    return (bic_log_evidence(log_likelihood, dimension, n_cases)
            + 0.5 * dimension * np.log(2 * np.pi))


def cheeseman_stutz(mled: float, complete_log_lik: float, log_likelihood: float, n_cases: int,
                    d_prime: int, d: int) -> float:
    """Paper 003 Eq. 13.

    ``log p(D'|S) - log p(D'|theta) + d'/2 log N + log p(D|theta) - d/2 log N`` with
    ``mled = log p(D'|S)`` and ``complete_log_lik = log p(D'|theta)``. CS: ``d' = d = ds``;
    CS+ (paper 002): ``d' = ds, d = de``, i.e. CS ``+ (ds - de)/2 log N``.
    """
    return (mled - complete_log_lik + log_likelihood
            + 0.5 * (d_prime - d) * np.log(n_cases))


@dataclass(frozen=True)
class Laplace:
    """Paper 003 Eq. 8 and what it rests on.

    ``value`` is NaN when the negative Hessian is not positive definite (then
    ``smallest_eigenvalue`` says how far it is) or the MAP is on the boundary; never patched.
    """

    value: float
    log_determinant: float
    positive_definite: bool
    smallest_eigenvalue: float
    dimension: int


def laplace(log_likelihood: float, log_prior: float, negative_hessian_matrix) -> Laplace:
    """Paper 003 Eq. 8: ``g(theta) + d/2 log(2 pi) - 1/2 log |A|`` at the MAP."""
    a = np.asarray(negative_hessian_matrix, dtype=float)
    d = a.shape[0]
    if not np.all(np.isfinite(a)):
        return Laplace(float("nan"), float("nan"), False, float("nan"), d)
    try:
        factor, _ = cho_factor(a, lower=True, check_finite=False)
    except LinAlgError:
        smallest = float(eigvalsh(a, subset_by_index=[0, 0])[0])
        return Laplace(float("nan"), float("nan"), False, smallest, d)
    log_det = 2.0 * float(np.sum(np.log(np.diag(factor))))
    value = log_likelihood + log_prior + 0.5 * d * np.log(2 * np.pi) - 0.5 * log_det
    return Laplace(float(value), log_det, True, float("nan"), d)


# --- the negative Hessian --------------------------------------------------------------------
#: A probability below this is at the boundary for the Hessian: its entries hold ``1 / theta^2``,
#: which overflows below the square root of the smallest normal float. SQUAREM reaches such
#: values: it extrapolates a probability that falls towards 0 geometrically (to 3.5e-323 on the
#: data of a hierarchical latent class tree), where the Louis Hessian's clamped E steps then
#: find patterns of probability zero.
BOUNDARY_PROBABILITY = float(np.sqrt(np.finfo(float).tiny))


def parameter_starts(network: Network) -> np.ndarray:
    """Index of each node's first free parameter (deterministic nodes have none)."""
    sizes = [network.node_parameter_count(i) for i in range(network.n_nodes)]
    return np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)


def prior_negative_hessian(network: Network, cpts, alpha: float) -> np.ndarray:
    """``-d^2 log p(theta)``: per row ``(alpha - 1)(diag(1/theta_s^2) + 1/theta_last^2)``."""
    d = network.standard_dimension
    result = np.zeros((d, d))
    if alpha == 1.0:  # a flat prior: no curvature (and 0 / 0 where an ML probability is 0)
        return result
    for start, table in zip(parameter_starts(network), cpts):
        if table is None:
            continue
        q, r = table.shape
        block = start + (r - 1) * np.arange(q)[:, None] + np.arange(r - 1)  # (q, r - 1)
        result[block[:, :, None], block[:, None, :]] = ((alpha - 1.0) / table[:, -1:, None] ** 2)
        result[block, block] += (alpha - 1.0) / table[:, :-1] ** 2
    return result


def _score_vectors(network: Network, cpts, indices, starts) -> np.ndarray:
    """``v[(p, h)] = d log p(x_p, h | theta) / d theta`` in free coordinates, one row per pair.

    A CPT entry ``theta_ijk`` enters ``p(x, h)`` once; with ``theta_{ij,last} = 1 - sum_s
    theta_ijs`` its derivative along free parameter ``s`` of row ``j`` is ``[k = s] -
    [k = last]``, divided by the entry's value.
    """
    pairs = indices[0].size
    v = np.zeros((pairs, network.standard_dimension))
    rows = np.arange(pairs)
    for i, table in enumerate(cpts):
        if table is None:
            continue
        r = table.shape[1]
        flat = indices[i].ravel()
        j, k = np.divmod(flat, r)
        inverse = 1.0 / table.ravel()[flat]
        base = starts[i] + j * (r - 1)
        interior = k < r - 1
        v[rows[interior], base[interior] + k[interior]] = inverse[interior]
        last = ~interior
        v[rows[last][:, None], base[last][:, None] + np.arange(r - 1)] = -inverse[last][:, None]
    return v


def _zero_node_blocks(matrix, starts):
    """Zero the diagonal block of every node: a CPT row enters each monomial linearly."""
    for start, stop in zip(starts[:-1], starts[1:]):
        matrix[start:stop, start:stop] = 0.0


def likelihood_hessian_by_enumeration(network: Network, cpts, data: Dataset) -> np.ndarray:
    """``d^2 log p(D | theta)`` for any discrete network, by enumerating hidden states.

    With ``w_ph = p(h | x_p)`` and the score vectors ``v_ph`` of :func:`_score_vectors`,
    ``d^2 log p(x_p) = sum_h w_ph (v v^T - node blocks of v v^T) - g_p g_p^T`` where
    ``g_p = sum_h w_ph v_ph`` (the polynomial p(x_p, h) is linear in each CPT row). The
    missing cells of a pattern are enumerated with its hidden nodes
    (:func:`~hiddenbn.inference.enumeration.posterior_chunks`): ``h`` runs over their joint states,
    ``p(x_p) = sum_h p(x_p, h)`` is the likelihood of the observed cells, and each term is
    still a monomial with one entry per CPT, so the formula holds as it is.
    """
    starts = parameter_starts(network)
    d = network.standard_dimension
    counts = data.counts.astype(float)
    hessian = np.zeros((d, d))
    # the score vectors of a chunk are (pattern, configuration) pairs x d: bound their memory
    chunk_cells = min(ENUMERATION_CHUNK_CELLS, HESSIAN_CHUNK_CELLS // max(1, d))
    for rows, indices, weights, _ in posterior_chunks(network, cpts, data.patterns, chunk_cells):
        chunk_counts = counts[rows]
        keep = (weights > 0).ravel()  # impossible configurations carry no derivative
        v = _score_vectors(network, cpts, [index.ravel()[keep] for index in indices], starts)
        mass = (weights * chunk_counts[:, None]).ravel()[keep]
        second = v.T @ (mass[:, None] * v)
        _zero_node_blocks(second, starts)
        owner = np.repeat(np.arange(weights.shape[0]), weights.shape[1])[keep]
        gradients = np.zeros((weights.shape[0], d))
        np.add.at(gradients, owner, weights.ravel()[keep][:, None] * v)
        hessian += second - gradients.T @ (chunk_counts[:, None] * gradients)
    return hessian


def likelihood_hessian_latent_class(network: Network, cpts, data: Dataset) -> np.ndarray:
    """``d^2 log p(D | theta)`` of the latent class model in closed form, pattern-wise (BLAS).

    The same formula as :func:`likelihood_hessian_by_enumeration`, organised by hidden state
    h: the score vector of ``(x_p, h)`` touches only ``p(H)`` and the rows ``h`` of the
    children's CPTs, whose part is ``U_h[p] = Z[p] / theta_{j h}(x_pj)`` with
    ``Z[p, (j, s)] = [x_pj = s] - [x_pj = r_j - 1]``. Cost ``O(m d^2)`` for the outer products
    of the pattern gradients plus ``O(k m D^2)`` with ``D = sum_j (r_j - 1)``. A missing cell
    (summed out: its factor ``sum_x theta_{j,x,h}`` is 1 for every theta) has a zero block in
    ``Z`` and the factor 1 in ``p(x_p, h)``.
    """
    weights_h = cpts[0][0]
    k = weights_h.size
    cards = np.asarray(network.cardinalities[1:], dtype=np.int64)
    free = cards - 1
    n, d = cards.size, network.standard_dimension
    patterns, counts = data.patterns, data.counts.astype(float)
    m = patterns.shape[0]
    table = np.vstack([t.T for t in cpts[1:]])  # (sum r_j, k)
    observed = patterns != MISSING
    # (m, n) row of each observed value; a missing cell reads row 0 of its variable, then
    # its factor is set to 1
    rows = state_offsets(cards)[None, :] + np.where(observed, patterns, 0)
    with np.errstate(divide="ignore"):
        log_factors = np.log(table)[rows]
    log_factors[~observed] = 0.0
    log_joint = np.log(weights_h)[None, :] + log_factors.sum(axis=1)
    posterior = np.exp(log_joint - logsumexp(log_joint, axis=1, keepdims=True))
    free_offsets = state_offsets(free)
    variable_of_column = np.repeat(np.arange(n), free)
    state_of_column = np.arange(free.sum()) - free_offsets[variable_of_column]
    x = patterns[:, variable_of_column]
    design = ((x == state_of_column).astype(float)
              - (x == (cards - 1)[variable_of_column]).astype(float))  # Z, shape (m, D)
    gradients = np.zeros((m, d))
    gradients[:, :k - 1] = posterior[:, :k - 1] / weights_h[:k - 1] - \
        (posterior[:, k - 1] / weights_h[k - 1])[:, None]
    hessian = np.zeros((d, d))
    column_base = (k - 1) + k * free_offsets[variable_of_column] + state_of_column
    same_variable = variable_of_column[:, None] == variable_of_column[None, :]
    for h in range(k):
        u = design / table[rows, h][:, variable_of_column]  # U_h, shape (m, D)
        mass = counts * posterior[:, h]
        columns = column_base + h * free[variable_of_column]
        second = u.T @ (mass[:, None] * u)
        second[same_variable] = 0.0
        hessian[np.ix_(columns, columns)] += second
        cross = (mass @ u) / weights_h[h]
        if h < k - 1:
            hessian[h, columns] += cross
            hessian[columns, h] += cross
        else:
            hessian[:k - 1, columns] -= cross
            hessian[columns, :k - 1] -= cross[:, None]
        gradients[:, columns] = posterior[:, h:h + 1] * u
    hessian -= gradients.T @ (counts[:, None] * gradients)
    return hessian


def _score_matrix(network: Network, cpts):
    """The sparse ``(C, d)`` matrix ``D`` whose row for entry ``(i, j, k)`` of the stochastic
    CPTs (node by node, row by row, ``C = sum_i q_i r_i``) is that entry's score vector
    ``d log theta_ijk / d theta`` in the free coordinates (:func:`_score_vectors`), and the
    offset of each node's entries in ``C`` (``None`` for deterministic nodes)."""
    starts = parameter_starts(network)
    rows, columns, values, offsets, position = [], [], [], [], 0
    for i, table in enumerate(cpts):
        if table is None:
            offsets.append(None)
            continue
        q, r = table.shape
        entry = position + np.arange(q * r).reshape(q, r)
        base = starts[i] + (r - 1) * np.arange(q)[:, None]
        rows.append(entry[:, :-1].ravel())
        columns.append((base + np.arange(r - 1)).ravel())
        values.append((1.0 / table[:, :-1]).ravel())
        rows.append(np.repeat(entry[:, -1], r - 1))
        columns.append((base + np.arange(r - 1)).ravel())
        values.append(np.repeat(-1.0 / table[:, -1], r - 1))
        offsets.append(position)
        position += q * r
    matrix = csr_matrix((np.concatenate(values), (np.concatenate(rows), np.concatenate(columns))),
                        shape=(position, network.standard_dimension))
    return matrix, offsets


def _clamped(network: Network, cpts, family: tuple, configuration: tuple) -> list:
    """``cpts`` with every column but the state in ``configuration`` zeroed for each node of
    ``family``: the joint then carries the indicator of ``X_family = configuration``."""
    clamped = list(cpts)
    for node, state in zip(family, configuration):
        table = np.zeros_like(cpts[node])
        table[:, state] = cpts[node][:, state]
        clamped[node] = table
    return clamped


def likelihood_hessian_by_louis(network: Network, cpts, data: Dataset) -> np.ndarray:
    """``d^2 log p(D | theta)`` by Louis' identity, from family posteriors alone.

    The formula of :func:`likelihood_hessian_by_enumeration`, ``d^2 log p(x_p) =
    E(v v^T | x_p) - node blocks - g_p g_p^T``, with the complete-data score ``v = sum_i
    D[fam_i]`` (a row of :func:`_score_matrix` per family's configuration) written through
    families (Louis 1982: observed information = complete information - missing
    information)::

        sum_p c_p d^2 log p(x_p) = D^T (P - F^T diag(c) F) D,

    where ``F[p, (i, c)] = p(fam_i = c | x_p)`` (:func:`hiddenbn.inference.exact.family_posteriors`)
    gives ``g_p = D^T F[p]``, and ``P[(i, c), (i', c')] = sum_p c_p p(fam_i = c, fam_i' = c' |
    x_p)`` for ``i != i'`` (zero for ``i = i'``: the node blocks) are pairwise family
    posteriors. A row of ``P`` is the expected counts (paper 003 Eq. 11) of the data weighted
    by ``c_p p(fam_i = c | x_p)`` under the joint clamped to ``fam_i = c`` (:func:`_clamped`,
    which zeroes the other columns of the family's CPTs), so it costs one exact E step
    (message passing or junction tree, :mod:`hiddenbn.inference.exact`) over the patterns
    where that configuration is possible; patterns where every member of the family is
    observed need none (conditioning on observed values changes nothing: the row is
    ``c_p p(fam_i = c | x_p) F[p]``). The cost is ``sum_i q_i r_i`` E steps instead of
    enumerating the joint hidden states, and the result equals enumeration's to rounding.
    A deterministic node among a family's unobserved members cannot be clamped through a CPT;
    such a network keeps :func:`likelihood_hessian_by_enumeration`.
    """
    from hiddenbn.inference import exact as exact_inference
    score_matrix, offsets = _score_matrix(network, cpts)
    n_entries, d = score_matrix.shape
    statistics = exact_inference.statistics_function(network)
    counts = data.counts.astype(float)
    observed_column = np.full(network.n_nodes, -1)
    observed_column[network.observed_indices] = np.arange(network.observed_indices.size)
    pairwise = np.zeros((n_entries, n_entries))  # P, built row by row
    hessian = np.zeros((d, d))
    step = max(1, HESSIAN_CHUNK_CELLS // max(1, n_entries + d))
    for start in range(0, data.n_patterns, step):
        patterns = data.patterns[start:start + step]
        chunk_counts = counts[start:start + step]
        posteriors, _ = exact_inference.family_posteriors(network, cpts, patterns)
        flat = np.hstack([posteriors[i].reshape(patterns.shape[0], -1)
                          for i in range(network.n_nodes) if offsets[i] is not None])
        gradients = np.asarray((score_matrix.T @ flat.T).T)  # g_p, (m, d)
        hessian -= gradients.T @ (chunk_counts[:, None] * gradients)
        for i, offset in enumerate(offsets):
            if offset is None:
                continue
            family = (*network.parents[i], i)
            known = np.ones(patterns.shape[0], dtype=bool)
            for member in family:
                known &= (observed_column[member] >= 0) & (
                    patterns[:, max(observed_column[member], 0)] != MISSING)
            size = posteriors[i].shape[1] * posteriors[i].shape[2]
            block = slice(offset, offset + size)
            pairwise[block] += (chunk_counts[known, None] * flat[known, block]).T @ flat[known]
            for entry in range(size):
                weights = chunk_counts * flat[:, offset + entry]
                row = pairwise[offset + entry]
                unknown = ~known & (weights > 0)
                if unknown.any():
                    configuration = _family_configuration(network, family, entry)
                    expected, _ = statistics(network, _clamped(network, cpts, family,
                                                               configuration),
                                             patterns[unknown], weights[unknown])
                    row += np.concatenate([expected[n].ravel() for n in range(network.n_nodes)
                                           if offsets[n] is not None])
            pairwise[block, block] = 0.0  # the node block
    hessian += np.asarray(score_matrix.T @ (score_matrix.T @ pairwise.T).T)
    return 0.5 * (hessian + hessian.T)


def _family_configuration(network: Network, family: tuple, entry: int) -> tuple:
    """The states of ``family`` (parents in order, then the node) at flat CPT entry
    ``entry = j r_i + k`` (parent configurations in C order)."""
    return tuple(int(s) for s in np.unravel_index(
        entry, [network.cardinalities[member] for member in family]))


def _by_louis(network: Network) -> bool:
    """Whether :func:`negative_hessian` takes Louis' identity: the network is not enumerated
    (:func:`hiddenbn.inference.exact.method`) and no deterministic node is the parent of a
    stochastic one (it could not be clamped)."""
    from hiddenbn.inference import exact as exact_inference
    return (exact_inference.method(network) != exact_inference.ENUMERATION
            and not any(network.is_deterministic(parent) for i in range(network.n_nodes)
                        if not network.is_deterministic(i) for parent in network.parents[i]))


def hessian_refusal(network: Network) -> str | None:
    """Why :func:`negative_hessian` cannot be computed for ``network`` (it would enumerate
    more joint hidden states than
    :data:`~hiddenbn.inference.enumeration.MAX_HIDDEN_CONFIGURATIONS`), or None. Only networks with
    a deterministic parent of a stochastic node past that size; trees and junction trees take Louis'
    identity."""
    if is_latent_class(network) or _by_louis(network):
        return None
    configurations = hidden_configuration_count(network)
    if configurations <= MAX_HIDDEN_CONFIGURATIONS:
        return None
    return (f"no Laplace score: its exact Hessian enumerates the {approximately(configurations)} "
            f"joint states of the hidden nodes (a deterministic node is the parent of a "
            f"stochastic one, which Louis' identity cannot clamp), more than "
            f"{MAX_HIDDEN_CONFIGURATIONS}")


def negative_hessian(network: Network, data: Dataset, cpts, alpha: float) -> np.ndarray:
    """``A = -d^2 g(theta)``, ``g = log p(D | theta) + log p(theta)``, in the free parameters.

    Exact (analytic) at the given parameters (paper 003 Eq. 7); the latent class model uses a
    closed form organised by hidden state, networks that :mod:`hiddenbn.inference.exact`
    enumerates enumerate hidden configurations, trees and junction trees use Louis' identity
    with pairwise family posteriors (:func:`likelihood_hessian_by_louis`).
    """
    cpts = check_parameters(network, cpts)
    data = data.for_network(network)
    if any(t is not None and np.any(t < BOUNDARY_PROBABILITY) for t in cpts):
        d = network.standard_dimension
        return np.full((d, d), np.nan)  # boundary: the Laplace approximation does not apply
    if is_latent_class(network):  # a sum over patterns: chunks bound the gradient matrix
        step = max(1, HESSIAN_CHUNK_CELLS // max(1, network.standard_dimension))
        likelihood = sum(likelihood_hessian_latent_class(
            network, cpts, Dataset(data.names, data.patterns[start:start + step],
                                   data.counts[start:start + step]))
            for start in range(0, data.n_patterns, step))
    elif _by_louis(network):
        likelihood = likelihood_hessian_by_louis(network, cpts, data)
    else:
        likelihood = likelihood_hessian_by_enumeration(network, cpts, data)
    return prior_negative_hessian(network, cpts, alpha) - likelihood


# --- every score of a fit --------------------------------------------------------------------
#: A step of a fit whose time is reported (paper 003 Table 2) and that takes less than this is
#: called again until the calls add up to it, and timed by the fastest call, as ``timeit``
#: does: one call of a millisecond is mostly timer and cache noise, which made the scaling of
#: such steps with d (Table 2's exponents) change from run to run.
TIMING_MIN_SECONDS = 0.005


def timed(function, *args, min_seconds: float = 0.0):
    """``function(*args)`` and the seconds one call takes: the fastest of repeated calls that
    add up to at least ``min_seconds`` (one call when that is 0). ``function`` must have no
    side effects."""
    start = time.perf_counter()
    value = function(*args)
    fastest = total = time.perf_counter() - start
    while total < min_seconds:
        start = time.perf_counter()
        function(*args)
        seconds = time.perf_counter() - start
        fastest, total = min(fastest, seconds), total + seconds
    return value, fastest


def laplace_of_fit(fit, data: Dataset) -> Laplace:
    """Eq. 8 at the fit, with the exact negative Hessian (the costly part); none at a
    probability of 0 (an ML fit on the boundary, where the Gaussian approximation does not
    apply)."""
    if any(table is not None and not table.all() for table in fit.cpts):
        d = fit.network.standard_dimension
        return Laplace(float("nan"), float("nan"), False, float("nan"), d)
    return laplace(fit.log_likelihood, fit.log_prior,
                   negative_hessian(fit.network, data, fit.cpts, fit.alpha))


def score_fit(fit, data: Dataset, effective_dimension: int | None = None,
              with_laplace: bool = True, timings: dict | None = None,
              min_seconds: float = TIMING_MIN_SECONDS) -> dict:
    """Every score of paper 003 (and BIC+/CS+ of paper 002 when ``de`` is given) for a fit.

    Parameters
    ----------
    fit : hiddenbn.learning.em.Fit
        MAP or ML parameters and the expected counts there.
    data : Dataset
        The data of the fit (for the Laplace Hessian).
    effective_dimension : int, optional
        ``de``; without it there is no BIC+ or CS+.
    with_laplace : bool
        Models with more than :data:`LAPLACE_MAX_DIMENSION` parameters get no Laplace score
        all the same (the dense Hessian would not fit in memory).
    timings : dict, optional
        Filled with the seconds each score took beyond EM, by score name (paper 003 Table 2;
        a step shorter than :data:`TIMING_MIN_SECONDS` is timed by the fastest of repeated
        calls):
        each counts the terms it needs, shared ones included (CS and CS+: MLED's Eq. 5 and
        ``log p(D'|theta)``; Laplace: the negative Hessian). BIC and Draper take
        ``log p(D|theta)`` from the fit, so they cost next to nothing here.
    min_seconds : float
        With ``timings``: a step is called again until its calls add up to this, and timed
        by the fastest call (:func:`timed`).

    Returns
    -------
    dict
        Floats by score name, and ``laplace_positive_definite``: whether Eq. 8 applied.

    Examples
    --------
    >>> import hiddenbn
    >>> result = hiddenbn.fit(hiddenbn.sample("2:2,2,2,2", n=300, seed=6), classes=2)
    >>> scores = score_fit(result.fit, result.data, result.de)
    >>> bool(scores["bic_log_evidence"] == result.scores["bic_log_evidence"])
    True
    >>> round(float(scores["bic_log_evidence"] - scores["loglik"]), 3)  # -ds log(N) / 2
    -25.667
    """
    network, n_cases, log_likelihood = fit.network, fit.n_cases, fit.log_likelihood
    ds = network.standard_dimension
    seconds = {}
    min_seconds = 0.0 if timings is None else min_seconds

    def step(function, *args):
        return timed(function, *args, min_seconds=min_seconds)

    mled, seconds["mled"] = step(bd_log_marginal, network, fit.expected_counts, fit.alpha)
    complete, complete_seconds = step(complete_log_likelihood, fit.cpts, fit.expected_counts)
    result = {"loglik": log_likelihood}
    result["bic_log_evidence"], seconds["bic_log_evidence"] = step(
        bic_log_evidence, log_likelihood, ds, n_cases)
    result["draper"], seconds["draper"] = step(draper, log_likelihood, ds, n_cases)
    result["mled"] = mled
    result["cs"], seconds["cs"] = step(cheeseman_stutz, mled, complete, log_likelihood,
                                       n_cases, ds, ds)
    seconds["cs"] += seconds["mled"] + complete_seconds
    if effective_dimension is not None:
        result["bic_plus_log_evidence"], seconds["bic_plus_log_evidence"] = step(
            bic_log_evidence, log_likelihood, effective_dimension, n_cases)
        result["cs_plus"], seconds["cs_plus"] = step(cheeseman_stutz, mled, complete,
                                                     log_likelihood, n_cases, ds,
                                                     effective_dimension)
        seconds["cs_plus"] += seconds["mled"] + complete_seconds
    if with_laplace and ds <= LAPLACE_MAX_DIMENSION:
        approximation, seconds["laplace"] = step(laplace_of_fit, fit, data)
        result["laplace"] = approximation.value
        result["laplace_positive_definite"] = approximation.positive_definite
    if timings is not None:
        timings.update(seconds)
    return result
