"""WBIC, the widely applicable Bayesian information criterion (Watanabe 2013), by sampling.

Watanabe (2013, JMLR 14, Eq. 20 and Theorem 4) defines

    WBIC = E_beta[ -log p(D | theta) ],   beta = 1 / log N,

the mean of the negative log-likelihood under the *tempered posterior*
``p_beta(theta | D) ∝ p(D | theta)^beta p(theta)``. For regular and singular models alike
``WBIC = -log p(D | S) + O_p(sqrt(log N))``: its leading terms are ``N L_N(theta_0) + lambda log
N`` with ``lambda`` the real log canonical threshold, which is ``d/2`` only for a regular
model. On the scale of the other scores (:mod:`hiddenbn.scores.approximations`, larger is
better) it is reported as ``wbic_log_evidence = -WBIC = E_beta[log p(D | theta)]``, beside
``bic_log_evidence = log p(D | theta_hat) - d/2 log N``.

The tempered posterior (:func:`wbic`)
    The parameters are the CPT rows under independent symmetric Dirichlet(``alpha``) priors
    (paper 003 Eq. 3), the fit's. At ``beta != 1`` the completed-data conjugacy that a
    data-augmentation Gibbs sampler rests on is gone (``p(D | theta)^beta`` is not a sum over
    completions of products of CPT entries), so the sampler is Hamiltonian Monte Carlo
    (Neal 2011) on a softmax parameterisation: each row ``theta_ij = softmax(eta_ij)`` with
    the last entry of ``eta_ij`` fixed at 0 (additive log-ratios; with all ``r_i`` entries free
    the row's total would be a direction the likelihood does not see, along which a diagonal
    metric mixes slowly). The Dirichlet density in these coordinates is ``prod_k
    theta_ijk^alpha`` (the Jacobian of the softmax is ``prod_k theta_ijk``), so the log target
    is

        beta log p(D | theta) + alpha sum_ijk log theta_ijk   (+ a constant),

    and its gradient comes from one E step (paper 003 Eq. 11): by Fisher's identity
    ``d log p(D | theta) / d eta_ijk = E(N_ijk) - theta_ijk E(N_ij)`` with the expected counts
    ``E(N_ijk)`` of the exact E-step kernels (:func:`hiddenbn.inference.exact.expected_statistics`,
    or the latent class kernel :func:`hiddenbn.inference.enumeration.latent_class_statistics`),
    which give ``log p(D | theta)`` in the same pass; the prior adds ``alpha (1 - r_i
    theta_ijk)``. Missing cells are summed out there, so WBIC is of the observed cells.
Tuning (warm-up only)
    Every chain tunes its step size by dual averaging towards an acceptance rate of
    :data:`TARGET_ACCEPTANCE` (Hoffman & Gelman 2014, Alg. 5) and a diagonal inverse metric
    from the variance of the coordinates over doubling windows (Stan's schedule: a first
    buffer of 15%, windows, a last buffer of 10%). After the warm-up both are fixed, so the
    draws are those of one Markov kernel that leaves the tempered posterior invariant; the step
    size is jittered by +-:data:`STEP_JITTER` and the number of leapfrog steps drawn per
    trajectory (Neal 2011, Sec. 5.4.2.2).
Chains and diagnostics
    The first chain starts at the EM fit, the others at draws from the prior (dispersed
    points: each row from Dirichlet(alpha)). The estimate is the mean of ``log p(D | theta)``
    over every chain's draws after the warm-up; its Monte-Carlo standard error is ``sd /
    sqrt(ESS)`` with ESS of the split chains (Vehtari et al. 2021, Eqs. 10-11, Geyer's initial
    monotone sequence), and convergence is judged by the rank-normalised split-R-hat of the
    log-likelihood trace (Vehtari et al. 2021, Sec. 4.2: the larger of the bulk and folded
    versions). :attr:`WBIC.notes` says when R-hat exceeds :data:`RHAT_LIMIT`, the ESS is below
    :data:`MIN_ESS_PER_CHAIN` per chain, or trajectories diverged.

Bias
    WBIC is an asymptotic statement: Friel, McKeone, Oates & Pettitt (2017) show that at small
    N it can be far from ``log p(D | S)``, and that its error does not vanish with more draws.
    ``python -m benchmarks wbic`` and ``tests/test_wbic.py`` put it beside the exact evidence
    (:func:`hiddenbn.scores.exact.exact_log_evidence`). Measured there (``2:2,2,2`` data from 2
    classes, alpha 1.01; ``wbic_log_evidence - log p(D | S)`` at N = 10, 20, 40): 1 class
    +0.71, +0.42, +0.20; 2 classes +0.31, -0.48, -2.90; 3 classes +0.23, -0.56 (each +-0.04 to
    0.12 of Monte-Carlo error; an independent random-walk sampler agrees on the 2-class N = 40
    value). Above the evidence at N = 10, as Friel et al. found at small N, then below it by
    up to a few nats; BIC was off by up to 8 nats and Laplace by up to 4 on the same cases.

Randomness comes from the caller's ``numpy.random.Generator``, spawned into one stream per
chain; the E-step kernels do not depend on the thread count, so a seed fixes the result.

References: S. Watanabe (2013), A widely applicable Bayesian information criterion, JMLR 14:
867-897. N. Friel, J. P. McKeone, C. J. Oates, A. N. Pettitt (2017), Investigation of the
widely applicable Bayesian information criterion, Stat. Comput. 27: 833-844. A. Vehtari, A.
Gelman, D. Simpson, B. Carpenter, P.-C. Bürkner (2021), Rank-normalization, folding, and
localization: an improved R-hat, Bayesian Analysis 16: 667-718. M. D. Hoffman, A. Gelman
(2014), The No-U-Turn sampler, JMLR 15: 1593-1623. R. M. Neal (2011), MCMC using Hamiltonian
dynamics, Handbook of MCMC, ch. 5.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import ndtri
from scipy.stats import rankdata

from hiddenbn.data import Dataset
from hiddenbn.errors import DataError, ParameterError, for_caller, option
from hiddenbn.inference import exact as exact_inference
from hiddenbn.inference.enumeration import (is_latent_class, latent_class_design,
                                            latent_class_statistics, prefers_design, state_groups,
                                            state_offsets)
from hiddenbn.models.network import Network, check_parameters
from hiddenbn.scores.approximations import BOUNDARY_PROBABILITY
from hiddenbn.util import limits
from hiddenbn.util.defaults import WBIC_DRAWS as DRAWS

#: Chains of :func:`wbic` by default (its draws per chain, DRAWS, are the command line's
#: default, from :mod:`hiddenbn.util.defaults`; the warm-up is half as long).
CHAINS = 4
#: Leapfrog steps per trajectory by default: with the metric adapted the posterior's scale is
#: about 1 along each coordinate and the tuned step about 0.2-0.5, so a trajectory crosses it.
LEAPFROG_STEPS = 8
#: The acceptance rate the step size is tuned to (Hoffman & Gelman 2014; Stan's default).
TARGET_ACCEPTANCE = 0.8
#: Each trajectory's step is the tuned one times a uniform draw in ``1 +- STEP_JITTER``.
STEP_JITTER = 0.1
#: A trajectory whose energy grows by more than this diverged (Stan's threshold): rejected, and
#: counted.
DIVERGENCE_ENERGY = 1000.0
#: Convergence is in doubt above this split-R-hat (Vehtari et al. 2021, Sec. 4.2).
RHAT_LIMIT = 1.01
#: Too few effective draws below this many per chain (Vehtari et al. 2021 ask for 400 in all
#: with 4 chains): the standard error itself is then unreliable.
MIN_ESS_PER_CHAIN = 100
# Dual averaging (Hoffman & Gelman 2014, Alg. 5; their and Stan's values).
_GAMMA, _T0, _KAPPA = 0.05, 10.0, 0.75
# Stan's warm-up windows: the first and last buffers and the first metric window, as fractions
# of a short warm-up, and in iterations for a long one.
_INITIAL_BUFFER, _TERMINAL_BUFFER, _BASE_WINDOW = 75, 50, 25


# --- the parameters: CPT rows as softmax coordinates -----------------------------------------
class SoftmaxRows:
    """The CPT entries of a network as one flat vector ordered by row length (rows of ``r``
    entries together, in network order within), so that each row length's rows are one
    contiguous ``(rows, r)`` block and a softmax over every row is a few array operations.

    Its attribute ``order`` maps it to the entries in network order (node by node, row by row,
    entry by entry: the layout of the parameter files): ``in_network_order[order] = flat``.
    """

    def __init__(self, network: Network):
        self.nodes = [i for i in range(network.n_nodes) if not network.is_deterministic(i)]
        self.shapes = [(network.n_parent_configurations(i), network.cardinalities[i])
                       for i in self.nodes]
        self.n_nodes = network.n_nodes
        starts = np.cumsum([0] + [q * r for q, r in self.shapes])
        self.size = int(starts[-1])
        by_length = {}  # row length -> the network-order index of each such row's entries
        for start, (q, r) in zip(starts, self.shapes):
            by_length.setdefault(r, []).append(start + np.arange(q * r))
        self.order = np.concatenate([np.concatenate(parts) for parts in by_length.values()])
        ends = np.cumsum([sum(part.size for part in parts) for parts in by_length.values()])
        self.blocks = [(slice(end - sum(p.size for p in parts), end), r)
                       for end, (r, parts) in zip(ends, by_length.items())]
        self.row_lengths = np.concatenate([np.full(block.stop - block.start, r)
                                           for block, r in self.blocks])
        #: Every entry but the last of its row: the coordinates of :class:`TemperedPosterior`.
        self.free = np.ones(self.size, dtype=bool)
        for block, r in self.blocks:
            self.free[block].reshape(-1, r)[:, -1] = False

    def log_softmax(self, eta: np.ndarray) -> np.ndarray:
        """``log softmax`` of every row of ``eta`` (shifted by the row's largest value, so
        it neither overflows nor loses the small entries)."""
        logs = np.empty_like(eta)
        for block, r in self.blocks:
            values = eta[block].reshape(-1, r)
            shifted = values - values.max(axis=1, keepdims=True)
            logs[block].reshape(-1, r)[...] = shifted - np.log(
                np.exp(shifted).sum(axis=1, keepdims=True))
        return logs

    def row_totals(self, flat: np.ndarray) -> np.ndarray:
        """Each entry's row sum."""
        totals = np.empty_like(flat)
        for block, r in self.blocks:
            totals[block].reshape(-1, r)[...] = flat[block].reshape(-1, r).sum(axis=1,
                                                                               keepdims=True)
        return totals

    def tables(self, flat: np.ndarray) -> list:
        """``flat`` as CPTs in network order (``None`` for deterministic nodes)."""
        in_network_order = np.empty_like(flat)
        in_network_order[self.order] = flat
        tables, start = [None] * self.n_nodes, 0
        for node, (q, r) in zip(self.nodes, self.shapes):
            tables[node] = in_network_order[start:start + q * r].reshape(q, r)
            start += q * r
        return tables

    def flat(self, tables) -> np.ndarray:
        """The CPTs ``tables`` (network order) as one vector (:meth:`tables`' inverse)."""
        return np.concatenate([np.asarray(tables[node], dtype=float).ravel()
                               for node in self.nodes])[self.order]


class ObservedLikelihood:
    """``log p(D | theta)`` of the observed cells and the expected counts ``E(N_ijk)`` (paper
    003 Eq. 11), from one exact E step, at CPT entries laid out as :class:`SoftmaxRows`.

    The latent class model takes its packed kernel, every other network the exact method of
    :func:`hiddenbn.inference.exact.statistics_function`.
    """

    def __init__(self, network: Network, data: Dataset, layout: SoftmaxRows):
        self.network, self.layout = network, layout
        self.patterns, self.counts = data.patterns, data.counts.astype(float)
        self.statistics = None if is_latent_class(network) else \
            exact_inference.statistics_function(network)
        if self.statistics is not None:
            return
        classes = network.cardinalities[0]
        cards = np.asarray(network.cardinalities[1:], dtype=np.int64)
        self.offsets = state_offsets(cards)
        self.groups = state_groups(self.patterns, cards, classes)
        self.design = (latent_class_design(self.patterns, cards)
                       if prefers_design(self.patterns, cards, classes) else None)
        # the packed state is p(H) (k entries), then the table whose row offsets[j] + x,
        # column h holds entry (h, x) of child j's CPT: each entry's place in it
        packed = np.concatenate([np.arange(classes)] + [
            classes + ((offset + np.arange(r))[None, :] * classes
                       + np.arange(classes)[:, None]).ravel()
            for offset, r in zip(self.offsets, cards)])
        self.packed_index = packed[layout.order]
        self.classes, self.table_shape = classes, (int(cards.sum()), classes)

    def __call__(self, theta: np.ndarray) -> tuple[float, np.ndarray]:
        """``(log p(D | theta), E(N_ijk | theta))`` with ``theta`` and the counts flat."""
        if self.statistics is not None:
            expected, log_likelihood = self.statistics(self.network, self.layout.tables(theta),
                                                       self.patterns, self.counts)
            return float(log_likelihood), self.layout.flat(expected)
        packed = np.empty_like(theta)
        packed[self.packed_index] = theta
        class_counts, table_counts, log_likelihood = latent_class_statistics(
            self.patterns, self.counts, packed[:self.classes],
            packed[self.classes:].reshape(self.table_shape), self.offsets, self.design,
            self.groups)
        expected = np.concatenate([class_counts, table_counts.ravel()])[self.packed_index]
        return float(log_likelihood), expected


class TemperedPosterior:
    """The tempered posterior in additive log-ratio coordinates (the module docstring): ``z``
    holds ``eta_ijk = log(theta_ijk / theta_ij,last)`` for every entry but the last of each
    row, and ``log pi(z) = beta log p(D | theta) + alpha sum_ijk log theta_ijk``."""

    def __init__(self, likelihood: ObservedLikelihood, alpha: float, beta: float):
        self.likelihood, self.layout = likelihood, likelihood.layout
        self.alpha, self.beta = alpha, beta

    def probabilities(self, z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``theta`` (flat, as :class:`SoftmaxRows`) and its logs at ``z``."""
        eta = np.zeros(self.layout.size)
        eta[self.layout.free] = z
        log_theta = self.layout.log_softmax(eta)
        return np.exp(log_theta), log_theta

    def __call__(self, z: np.ndarray) -> tuple[float, np.ndarray, float]:
        """``(log pi(z), its gradient, log p(D | theta))``; ``-inf`` (a trajectory there is
        rejected) where a probability is below
        :data:`~hiddenbn.scores.approximations.BOUNDARY_PROBABILITY`: the target is cut off
        where the prior puts mass below about ``10^(-154 alpha)``, before a probability
        underflows to 0 (where the message-passing kernel divides by a pattern's zero
        probability)."""
        theta, log_theta = self.probabilities(z)
        if theta.min() < BOUNDARY_PROBABILITY:  # message passing would divide by a 0
            return -np.inf, np.zeros_like(z), -np.inf
        log_likelihood, expected = self.likelihood(theta)
        free = self.layout.free
        # d/dz_k: beta (E(N_k) - theta_k E(N_j)) + alpha (1 - r theta_k)
        gradient = (self.beta * (expected - theta * self.layout.row_totals(expected))[free]
                    + self.alpha * (1.0 - (self.layout.row_lengths * theta)[free]))
        log_target = self.beta * log_likelihood + self.alpha * log_theta.sum()
        return float(log_target), gradient, log_likelihood

    def coordinates(self, theta: np.ndarray) -> np.ndarray:
        """``z`` of the probabilities ``theta`` (kept off 0, where ``z`` would be
        infinite)."""
        log_theta = np.log(np.maximum(theta, np.finfo(float).eps))
        last = np.empty_like(log_theta)
        for block, r in self.layout.blocks:
            last[block].reshape(-1, r)[...] = log_theta[block].reshape(-1, r)[:, -1:]
        return (log_theta - last)[self.layout.free]


# --- Hamiltonian Monte Carlo -----------------------------------------------------------------
@dataclass
class _Point:
    z: np.ndarray
    log_target: float
    gradient: np.ndarray
    log_likelihood: float


def _evaluate(target: TemperedPosterior, z: np.ndarray) -> _Point:
    return _Point(z, *target(z))


def _trajectory(target, start: _Point, momentum, step, steps, inverse_metric):
    """Leapfrog from ``start`` (Neal 2011, Eqs. 5.18-5.20); the end point and its energy
    change ``H(end) - H(start)`` (``inf`` for a point where the target is not finite)."""
    energy = -start.log_target + 0.5 * float(np.sum(inverse_metric * momentum ** 2))
    point, p = start, momentum + 0.5 * step * start.gradient
    for leap in range(steps):
        point = _evaluate(target, point.z + step * inverse_metric * p)
        if not np.isfinite(point.log_target):
            return point, np.inf
        p = p + (step if leap < steps - 1 else 0.5 * step) * point.gradient
    change = -point.log_target + 0.5 * float(np.sum(inverse_metric * p ** 2)) - energy
    return point, (change if np.isfinite(change) else np.inf)


def _transition(target, point, step, steps, inverse_metric, rng):
    """One HMC transition: ``(next point, acceptance probability, diverged)``. The trajectory
    takes a uniform number of leapfrog steps in ``1..2 steps - 1`` (mean ``steps``) of the
    step size jittered by +-:data:`STEP_JITTER`: a fixed length would be a multiple of half a
    period of some direction of a near-Gaussian posterior, which sends ``z`` to about ``-z``
    there and leaves the log-likelihood, even in ``z``, where it was."""
    momentum = rng.standard_normal(point.z.size) / np.sqrt(inverse_metric)
    jittered = step * (1.0 + STEP_JITTER * (2.0 * rng.random() - 1.0))
    length = int(rng.integers(1, 2 * steps)) if steps > 1 else 1
    proposal, change = _trajectory(target, point, momentum, jittered, length, inverse_metric)
    acceptance = float(np.exp(min(0.0, -change)))
    moved = rng.random() < acceptance
    return (proposal if moved else point), acceptance, change > DIVERGENCE_ENERGY


def _initial_step(target, point, inverse_metric, rng) -> float:
    """A first step size: doubled or halved until one leapfrog step's acceptance crosses 1/2
    (Hoffman & Gelman 2014, Alg. 4)."""
    step = 1.0
    momentum = rng.standard_normal(point.z.size) / np.sqrt(inverse_metric)
    _, change = _trajectory(target, point, momentum, step, 1, inverse_metric)
    direction = 1.0 if -change > np.log(0.5) else -1.0
    for _ in range(60):
        step *= 2.0 ** direction
        _, change = _trajectory(target, point, momentum, step, 1, inverse_metric)
        if direction * (-change) <= direction * np.log(0.5):
            break
    return step


class _DualAveraging:
    """The step-size tuning of Hoffman & Gelman (2014), Alg. 5."""

    def __init__(self, step: float):
        self.mu, self.log_step, self.log_average = np.log(10.0 * step), np.log(step), 0.0
        self.error, self.count = 0.0, 0

    def update(self, acceptance: float) -> float:
        self.count += 1
        t = self.count
        self.error += ((TARGET_ACCEPTANCE - acceptance) - self.error) / (t + _T0)
        self.log_step = self.mu - np.sqrt(t) / _GAMMA * self.error
        weight = t ** -_KAPPA
        self.log_average = weight * self.log_step + (1.0 - weight) * self.log_average
        return float(np.exp(self.log_step))

    @property
    def final(self) -> float:
        return float(np.exp(self.log_average))


def metric_windows(warmup: int) -> list:
    """The warm-up's metric windows as ``(first, last)`` iterations (1-based, inclusive), after
    Stan: a first buffer, windows doubling from :data:`_BASE_WINDOW`, the last stretched to a
    final buffer; for a warm-up shorter than the three, buffers of 15% and 10% around one
    window. None below 20 iterations."""
    initial, terminal, window = _INITIAL_BUFFER, _TERMINAL_BUFFER, _BASE_WINDOW
    if warmup < 20:
        return []
    if initial + terminal + window > warmup:
        initial, terminal = int(0.15 * warmup), int(0.1 * warmup)
        window = warmup - initial - terminal
    windows, start, end_of_windows = [], initial, warmup - terminal
    while start < end_of_windows:
        end = start + window
        if end + 2 * window > end_of_windows:  # the next window would not fit: stretch this
            end = end_of_windows
        windows.append((start + 1, end))
        start, window = end, 2 * window
    return windows


@dataclass(frozen=True)
class Chain:
    """One chain's draws of ``log p(D | theta)`` and how it ran."""

    log_likelihoods: np.ndarray
    step_size: float
    acceptance_rate: float
    divergences: int


def run_chain(target: TemperedPosterior, z: np.ndarray, rng: np.random.Generator,
              warmup: int, draws: int, steps: int) -> Chain:
    """Warm up (step size and diagonal metric, :func:`metric_windows`) from the coordinates
    ``z``, then ``draws`` transitions of the fixed kernel, recording ``log p(D | theta)`` after
    each."""
    point = _evaluate(target, z)
    inverse_metric = np.ones(z.size)
    step = _initial_step(target, point, inverse_metric, rng)
    tuning = _DualAveraging(step)
    windows, samples = metric_windows(warmup), []
    for iteration in range(1, warmup + 1):
        point, acceptance, _ = _transition(target, point, step, steps, inverse_metric, rng)
        step = tuning.update(acceptance)
        if any(first <= iteration <= last for first, last in windows):
            samples.append(point.z)
        if any(iteration == last for _, last in windows):
            n = len(samples)
            # Stan's regularisation of a short window's variance towards 1e-3
            inverse_metric = (n / (n + 5.0)) * np.var(samples, axis=0) + 1e-3 * (5.0 / (n + 5.0))
            samples = []
            step = _initial_step(target, point, inverse_metric, rng)
            tuning = _DualAveraging(step)
    step = tuning.final if warmup else step
    trace, accepted, divergences = np.empty(draws), 0.0, 0
    for draw in range(draws):
        point, acceptance, diverged = _transition(target, point, step, steps, inverse_metric,
                                                  rng)
        trace[draw] = point.log_likelihood
        accepted += acceptance
        divergences += diverged
    return Chain(trace, step, accepted / max(draws, 1), divergences)


# --- convergence diagnostics (Vehtari et al. 2021) -------------------------------------------
def split_chains(traces) -> np.ndarray:
    """Each chain's first and last halves as two chains (the middle draw of an odd length
    dropped): ``(m, n)`` draws become ``(2m, n // 2)``."""
    traces = np.atleast_2d(np.asarray(traces, dtype=float))
    half = traces.shape[1] // 2
    return np.vstack([traces[:, :half], traces[:, traces.shape[1] - half:]])


def _normal_scores(traces: np.ndarray) -> np.ndarray:
    """Rank-normalisation (Vehtari et al. 2021, Eq. 14): the normal quantile of each draw's
    fractional rank ``(r - 3/8) / (S + 1/4)`` among all ``S`` draws (ties: average ranks)."""
    ranks = rankdata(traces, method="average").reshape(traces.shape)
    return ndtri((ranks - 0.375) / (traces.size + 0.25))


def _potential_scale_reduction(traces: np.ndarray) -> float:
    """Gelman & Rubin's R-hat of chains ``(m, n)`` (Vehtari et al. 2021, Eqs. 1-4)."""
    n = traces.shape[1]
    between = n * np.var(traces.mean(axis=1), ddof=1)
    within = np.mean(np.var(traces, axis=1, ddof=1))
    if within == 0.0:  # every chain stuck: apart if they differ
        return float("inf") if between > 0.0 else float("nan")
    return float(np.sqrt((between / within + n - 1) / n))


def split_rhat(traces) -> float:
    """The rank-normalised split-R-hat of chains ``(m, n)``: the larger of the bulk R-hat (of
    the normal scores) and the tail R-hat (of the normal scores of the draws folded about
    their median), both on split chains (Vehtari et al. 2021, Sec. 4.2). NaN for a constant
    trace."""
    traces = np.atleast_2d(np.asarray(traces, dtype=float))
    if traces.shape[1] < 4 or np.ptp(traces) == 0:
        return float("nan")
    folded = np.abs(traces - np.median(traces))
    return max(_potential_scale_reduction(_normal_scores(split_chains(traces))),
               _potential_scale_reduction(_normal_scores(split_chains(folded))))


def _autocovariances(traces: np.ndarray) -> np.ndarray:
    """Each chain's autocovariance at lags ``0..n-1`` (divided by n), by FFT."""
    n = traces.shape[1]
    centred = traces - traces.mean(axis=1, keepdims=True)
    size = 1 << int(np.ceil(np.log2(2 * n)))
    spectrum = np.fft.rfft(centred, n=size, axis=1)
    return np.fft.irfft(spectrum * np.conj(spectrum), n=size, axis=1)[:, :n] / n


def effective_sample_size(traces) -> float:
    """The effective sample size of the mean of chains ``(m, n)``, split (Vehtari et al. 2021,
    Eqs. 10-11): ``m n / tau`` with ``tau = -1 + 2 sum_t rho_t`` over the autocorrelations
    combined across chains, truncated by Geyer's initial positive sequence and made monotone
    (Stan's estimator). A constant trace counts every draw."""
    traces = split_chains(traces)
    m, n = traces.shape
    if n < 4:
        return float("nan")
    if np.ptp(traces) == 0:
        return float(traces.size)
    covariances = _autocovariances(traces)
    mean_variance = covariances[:, 0].mean() * n / (n - 1.0)
    pooled = mean_variance * (n - 1.0) / n + np.var(traces.mean(axis=1), ddof=1)
    rho = np.zeros(n)
    rho[0] = even = 1.0
    rho[1] = odd = 1.0 - (mean_variance - covariances[:, 1].mean()) / pooled
    t = 1
    while t < n - 3 and even + odd > 0.0:  # the initial positive sequence of pairs
        even = 1.0 - (mean_variance - covariances[:, t + 1].mean()) / pooled
        odd = 1.0 - (mean_variance - covariances[:, t + 2].mean()) / pooled
        if even + odd >= 0.0:
            rho[t + 1], rho[t + 2] = even, odd
        t += 2
    last = t - 2
    if even > 0.0:
        rho[last + 1] = even
    t = 1
    while t <= last - 2:  # the initial monotone sequence
        if rho[t + 1] + rho[t + 2] > rho[t - 1] + rho[t]:
            rho[t + 1] = rho[t + 2] = 0.5 * (rho[t - 1] + rho[t])
        t += 2
    tau = -1.0 + 2.0 * rho[:last + 1].sum() + rho[last + 1:last + 2].sum()
    return float(m * n / max(tau, 1.0 / np.log10(m * n)))


# --- WBIC ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class WBIC:
    """The WBIC estimate on the log-evidence scale and how far to trust it.

    ``wbic_log_evidence`` is ``-WBIC = E_beta[log p(D | theta)]`` (larger is better, as
    ``bic_log_evidence``), the mean over all chains' draws; ``standard_error`` its Monte-Carlo
    standard error ``sd / sqrt(effective_sample_size)``; ``rhat`` the rank-normalised
    split-R-hat of the log-likelihood traces (:func:`split_rhat`).
    """

    wbic_log_evidence: float
    standard_error: float
    rhat: float
    effective_sample_size: float
    inverse_temperature: float
    chains: int
    warmup: int
    draws: int
    leapfrog_steps: int
    step_sizes: tuple
    acceptance_rate: float
    divergences: int
    chain_means: tuple

    @property
    def notes(self) -> list:
        """What makes the estimate doubtful, each with what to do; empty when nothing does.
        Each names an option as the code that reads them was called
        (:func:`~hiddenbn.errors.for_caller`)."""
        notes = []
        if not self.rhat <= RHAT_LIMIT:
            notes.append(f"WBIC's chains disagree (split-R-hat {self.rhat:.3f} > {RHAT_LIMIT}: "
                         "they sit in different modes or have not mixed), so its standard error "
                         f"understates its error; give more draws ({option('--wbic-draws')})")
        if not self.effective_sample_size >= MIN_ESS_PER_CHAIN * self.chains:
            notes.append(f"WBIC rests on {self.effective_sample_size:.0f} effective draws, "
                         f"fewer than {MIN_ESS_PER_CHAIN} per chain, so its standard error is "
                         f"itself uncertain; give more draws ({option('--wbic-draws')})")
        if self.divergences:
            notes.append(f"{self.divergences} of WBIC's {self.chains * self.draws} trajectories "
                         "diverged (the step was too long for a region of high curvature), so "
                         "the draws may miss part of the tempered posterior")
        return [for_caller(note) for note in notes]

    def to_dict(self) -> dict:
        """JSON-ready, with the notes."""
        return {"wbic_log_evidence": self.wbic_log_evidence,
                "standard_error": self.standard_error, "rhat": self.rhat,
                "effective_sample_size": self.effective_sample_size,
                "inverse_temperature": self.inverse_temperature, "chains": self.chains,
                "warmup": self.warmup, "draws": self.draws,
                "leapfrog_steps": self.leapfrog_steps, "step_sizes": list(self.step_sizes),
                "acceptance_rate": self.acceptance_rate, "divergences": self.divergences,
                "chain_means": list(self.chain_means), "notes": self.notes}


def wbic_temperature(n_cases: int) -> float:
    """Watanabe's inverse temperature ``beta = 1 / log N`` (2013, Theorem 4)."""
    if not n_cases >= 2:
        raise DataError(f"WBIC's inverse temperature 1 / log N needs at least 2 cases, got "
                        f"{n_cases}; give more data")
    return 1.0 / float(np.log(n_cases))


def wbic(network: Network, data: Dataset, cpts, rng: np.random.Generator, alpha: float = 1.0,
         chains: int = CHAINS, draws: int = DRAWS, warmup: int | None = None,
         leapfrog_steps: int = LEAPFROG_STEPS,
         inverse_temperature: float | None = None) -> WBIC:
    """WBIC (Watanabe 2013, Eq. 20) by Hamiltonian Monte Carlo on the tempered posterior.

    Parameters
    ----------
    network : Network
        A discrete network (hidden and deterministic nodes allowed).
    data : Dataset
        Pattern counts over its observed nodes (missing cells summed out).
    cpts : list
        Where the first chain starts: an EM fit's CPTs (:attr:`hiddenbn.learning.em.Fit.cpts`).
        The other chains start at draws from the prior.
    rng : numpy.random.Generator
        Spawned into one stream per chain.
    alpha : float
        The symmetric Dirichlet prior of every CPT row (paper 003 Eq. 3), the fit's.
    chains, draws : int
        Chains (at least 2, for R-hat) and kept draws per chain (at least 4, for the split
        chains).
    warmup : int, optional
        Warm-up iterations per chain (tuning, then discarded); by default half of ``draws``.
    leapfrog_steps : int
        Leapfrog steps per trajectory.
    inverse_temperature : float, optional
        ``beta``; by default Watanabe's ``1 / log N`` (:func:`wbic_temperature`). WBIC is
        defined at that value only; another gives ``E_beta[log p(D | theta)]`` at it (``beta =
        1``: the posterior mean of the log-likelihood).

    Returns
    -------
    WBIC
        The estimate ``-WBIC = E_beta[log p(D | theta)]``, its Monte-Carlo standard error and
        the diagnostics.
    """
    limits.check_dirichlet_alpha(alpha, ParameterError)
    for value, least, what in ((chains, 2, "chains (R-hat compares them)"),
                               (draws, 4, "draws per chain (each chain is split in two)"),
                               (leapfrog_steps, 1, "leapfrog steps")):
        limits.require_whole_number(value, least, f"WBIC's {what}", ParameterError)
    warmup = draws // 2 if warmup is None else warmup
    limits.require_whole_number(warmup, 0, "WBIC's warm-up iterations", ParameterError)
    data = data.for_network(network)
    beta = (wbic_temperature(data.n_cases) if inverse_temperature is None
            else float(inverse_temperature))
    if not 0.0 < beta < np.inf:
        raise ParameterError(f"the inverse temperature must be positive and finite, got {beta}")
    layout = SoftmaxRows(network)
    target = TemperedPosterior(ObservedLikelihood(network, data, layout), float(alpha), beta)
    start = layout.flat(check_parameters(network, cpts))
    results = []
    for chain, stream in enumerate(rng.spawn(chains)):
        theta = start if chain == 0 else _prior_draw(layout, stream, alpha)
        results.append(run_chain(target, target.coordinates(theta), stream, warmup, draws,
                                 leapfrog_steps))
    traces = np.vstack([result.log_likelihoods for result in results])
    ess = effective_sample_size(traces)
    return WBIC(wbic_log_evidence=float(traces.mean()),
                standard_error=float(traces.std(ddof=1) / np.sqrt(ess)),
                rhat=split_rhat(traces), effective_sample_size=ess,
                inverse_temperature=beta, chains=chains, warmup=warmup, draws=draws,
                leapfrog_steps=leapfrog_steps,
                step_sizes=tuple(result.step_size for result in results),
                acceptance_rate=float(np.mean([result.acceptance_rate for result in results])),
                divergences=int(sum(result.divergences for result in results)),
                chain_means=tuple(float(t.mean()) for t in traces))


def _prior_draw(layout: SoftmaxRows, rng: np.random.Generator, alpha: float) -> np.ndarray:
    """Every CPT row drawn from Dirichlet(``alpha``), flat: a dispersed start."""
    theta = rng.gamma(alpha, size=layout.size)
    return theta / layout.row_totals(theta)


def wbic_of_fit(fit, data: Dataset, rng: np.random.Generator, **options) -> WBIC:
    """:func:`wbic` of an EM fit (:class:`hiddenbn.learning.em.Fit`): its network, prior and
    CPTs as the first chain's start."""
    return wbic(fit.network, data, fit.cpts, rng, fit.alpha, **options)
