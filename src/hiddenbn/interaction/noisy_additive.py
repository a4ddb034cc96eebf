"""Poisson and Gaussian noisy-additive interaction (NAI) models (paper 004 Sec. 3.2).

The effect is the sum of the mechanisms, ``E = sum_i X_i``, each mechanism having its own
parameters per configuration ``j_i`` of its causes. Rows of all mechanisms are stacked
(:meth:`~hiddenbn.models.interaction.InteractionModel.mechanism_offsets`), so the parameters are one
vector of rates (Poisson) or of means and variances (Gaussian).

Poisson NAI: ``X_i | j_i ~ Poisson(lambda_i)``, so ``E | c ~ Poisson(Lambda)``,
``Lambda = sum_i lambda_i`` (Sec. 3.2). Given ``E = e`` only ``X_i <= e`` is possible, so the
mechanism posterior is a finite table (the paper's bounded clique potentials):
``p(X_i = k | c, e) = Poisson(k; lambda_i) P(sum_{l != i} X_l = e - k) / Poisson(e; Lambda)``,
computed by :func:`poisson_mechanism_posterior` by convolving the other mechanisms' pmfs
truncated at ``e``. It is the Binomial(``e``, ``lambda_i / Lambda``) distribution, so the E step
needs only its mean ``E(X_i | c, e) = e lambda_i / Lambda``.

Gaussian NAI: ``X_i | j_i ~ N(mu_i, s_i)``, so ``E | c ~ N(M, S)`` with ``M = sum mu_i``,
``S = sum s_i``; the mechanism posterior is Gaussian with mean ``mu_i + (s_i / S)(e - M)`` and
variance ``s_i (1 - s_i / S)``.

In both families the E step is linear (Poisson) or quadratic (Gaussian) in ``e``, so the data
enter through the per-cause-configuration summaries ``n, sum e, sum e^2``
(:class:`EffectSummary`), and the cost follows the number of distinct cause patterns.

EM M steps are the conjugate-prior modes (paper 004 Sec. 4.1; ML is the flat-prior case):

* Poisson, Gamma(``a``, ``b``) prior on each rate: ``lambda = (S + a - 1) / (n + b)`` where
  ``S`` is the expected sum of the mechanism over the ``n`` cases using that row; ML is
  ``a = 1, b = 0``.
* Gaussian, normal-inverse-gamma prior ``NIG(m0, k0, a0, b0)`` on ``(mu, s)``: the joint mode
  ``mu = (k0 m0 + S1) / (k0 + n)``, ``s = b_n / (a0 + n/2 + 3/2)`` with
  ``b_n = b0 + (S2 + k0 m0^2 - (k0 + n) mu^2) / 2``; ML is ``k0 = b0 = 0, a0 = -3/2``.

Each family is an EM engine (:class:`PoissonEngine`, :class:`GaussianEngine`; see
:class:`hiddenbn.learning.engine.EMEngine`) fitted by the shared restart and convergence driver
:func:`hiddenbn.learning.em.fit_engine`.

The completed-data marginal likelihoods (:func:`poisson_completed_log_marginal`,
:func:`gaussian_completed_log_marginal`) are the conjugate integrals at the expected sufficient
statistics, as the Cheeseman-Stutz score of Eq. 6 needs. The Poisson base measure
``-sum log x!`` of the completed data is left out of both ``log p(D'|S)`` and ``log p(D'|theta)``:
it is the same in both and cancels in Eq. 6.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.special import gammaln, xlogy

from hiddenbn.data import MISSING, DataFile
from hiddenbn.errors import DataError, ParameterError, option
from hiddenbn.learning.em import fit_engine
from hiddenbn.learning.engine import Statistics
from hiddenbn.models.interaction import InteractionModel, fit_cause_tables, load_interaction
from hiddenbn.models.priors import bd_log_marginal, check_alpha, complete_log_likelihood
from hiddenbn.scores.approximations import bic_log_evidence, cheeseman_stutz
from hiddenbn.util import seeding
from hiddenbn.util.defaults import ACCELERATION

#: Priors of the completed-data marginal likelihood in the NAI scores: Gamma(shape, rate) for a
#: Poisson rate, normal-inverse-gamma (mean, kappa, shape, scale) for a Gaussian mechanism.
DEFAULT_PRIORS = {"poisson": (1.0, 1.0), "gaussian": (0.0, 1.0, 1.0, 1.0)}


@dataclass(frozen=True)
class EffectSummary:
    """The data of an additive model grouped by distinct cause pattern.

    ``causes`` (m, n_causes) int; ``counts``, ``total`` (sum of e), ``squares`` (sum of e^2)
    and ``log_factorials`` (sum of log e!, Poisson only) per pattern, shape (m,).
    """

    causes: np.ndarray
    counts: np.ndarray
    total: np.ndarray
    squares: np.ndarray
    log_factorials: np.ndarray

    @property
    def n_cases(self) -> int:
        return int(round(self.counts.sum()))


def summarise(causes, effect, weights=None) -> EffectSummary:
    """Group cases (rows of ``causes``, values of ``effect``, optional case weights)."""
    causes = np.asarray(causes, dtype=np.int64)
    effect = np.asarray(effect, dtype=float)
    weights = np.ones(effect.size) if weights is None else np.asarray(weights, dtype=float)
    if causes.ndim != 2 or causes.shape[0] != effect.size or weights.shape != effect.shape:
        raise DataError(f"causes ({causes.shape}), effect ({effect.shape}) and weights "
                        f"({weights.shape}) must describe the same cases")
    if np.any(np.isnan(effect)) or np.any(causes == MISSING):
        raise DataError("noisy-additive models are fitted from complete cases only and the data "
                        f"have missing cells; use {option('--missing', 'drop')}")
    if not np.all(np.isfinite(effect)):
        raise DataError("the effect has an infinite value")
    patterns, inverse = np.unique(causes, axis=0, return_inverse=True)
    inverse = inverse.ravel()

    def add(values):
        return np.bincount(inverse, weights=weights * values, minlength=patterns.shape[0])

    with np.errstate(invalid="ignore"):
        log_factorials = (gammaln(effect + 1) if np.all(effect >= 0)
                          else np.full(effect.size, np.nan))
    return EffectSummary(patterns, add(np.ones(effect.size)), add(effect), add(effect**2),
                         add(log_factorials))


# --- mechanism posteriors ---------------------------------------------------------------------
def poisson_pmf(rate: float, upto: int) -> np.ndarray:
    """``Poisson(k; rate)`` for ``k = 0..upto``."""
    k = np.arange(upto + 1)
    with np.errstate(divide="ignore"):
        return np.exp(xlogy(k, rate) - rate - gammaln(k + 1))


def poisson_mechanism_posterior(rates, effect: int) -> np.ndarray:
    """``p(X_i = k | c, E = e)`` for ``k = 0..e`` and every mechanism, shape ``(m, e + 1)``.

    ``rates`` are the mechanisms' rates at the case's cause configuration. The other
    mechanisms' sum is bounded by ``e``, so it is the convolution of their pmfs truncated at
    ``e`` (paper 004 Sec. 3.2: clique potentials formed once the effect is known).
    """
    rates = np.asarray(rates, dtype=float)
    e = int(effect)
    pmfs = [poisson_pmf(rate, e) for rate in rates]
    posterior = np.zeros((rates.size, e + 1))
    for i in range(rates.size):
        others = np.zeros(e + 1)
        others[0] = 1.0
        for l, pmf in enumerate(pmfs):
            if l != i:
                others = np.convolve(others, pmf)[:e + 1]
        joint = pmfs[i] * others[::-1]  # X_i = k and the others sum to e - k
        posterior[i] = joint / joint.sum()
    return posterior


def gaussian_mechanism_posterior(means, variances, effect: float):
    """Mean and variance of ``X_i | c, E = e`` for every mechanism (see the module docstring)."""
    means, variances = np.asarray(means, float), np.asarray(variances, float)
    share = variances / variances.sum()
    return means + share * (effect - means.sum()), variances * (1.0 - share)


# --- parameters and fits -------------------------------------------------------------------
@dataclass
class AdditiveFit:
    """A fitted NAI model.

    ``rates`` (Poisson) or ``means`` and ``variances`` (Gaussian) are stacked per mechanism row;
    ``expected`` holds the expected sufficient statistics of the mechanism rows at the returned
    parameters: ``n`` (cases using the row), ``s1`` (sum of X), ``s2`` (sum of X^2, Gaussian).
    ``log_likelihood`` includes the causes' tables and, for Poisson, ``-sum log e!``;
    ``schedule`` and ``acceleration`` are those of :func:`hiddenbn.learning.em.fit_engine`;
    ``final_log_posteriors`` the final g (of the mechanisms) of every start run to the end
    (:attr:`hiddenbn.learning.engine.EMResult.final_log_posteriors`).
    """

    model: InteractionModel
    cause_tables: list
    cause_counts: list
    means: np.ndarray
    variances: np.ndarray | None
    expected: dict
    log_likelihood: float
    log_prior: float
    n_cases: int
    iterations: int
    converged: bool
    restarts: int
    prior: tuple | None
    alpha: float
    schedule: str = "best-of-n"
    acceleration: str = ACCELERATION
    final_log_posteriors: list = field(default_factory=list)


def _poisson_moments(model, rates, summary):
    rows = model.mechanism_rows(summary.causes)
    return rows, rates[rows].sum(axis=1)


def poisson_log_likelihood(model: InteractionModel, rates, summary: EffectSummary) -> float:
    """``sum_cases log Poisson(e; Lambda_c)`` (the effect part of the observed likelihood)."""
    _, total_rate = _poisson_moments(model, np.asarray(rates, float), summary)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = xlogy(summary.total, total_rate) - summary.counts * total_rate
    return float(terms.sum() - summary.log_factorials.sum())


def poisson_statistics(model, rates, summary):
    rows, total_rate = _poisson_moments(model, rates, summary)
    size = rates.size
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.where(total_rate[:, None] > 0, rates[rows] / total_rate[:, None], 0.0)
    n = np.bincount(rows.ravel(), weights=np.repeat(summary.counts, rows.shape[1]), minlength=size)
    s1 = np.bincount(rows.ravel(), weights=(share * summary.total[:, None]).ravel(), minlength=size)
    return {"n": n, "s1": s1}


def gaussian_log_likelihood(model: InteractionModel, means, variances,
                            summary: EffectSummary) -> float:
    """``sum_cases log N(e; M_c, S_c)`` (the effect part of the observed likelihood)."""
    rows = model.mechanism_rows(summary.causes)
    m, s = np.asarray(means)[rows].sum(axis=1), np.asarray(variances)[rows].sum(axis=1)
    residual = summary.squares - 2 * m * summary.total + summary.counts * m**2
    return float(np.sum(-0.5 * summary.counts * np.log(2 * np.pi * s) - residual / (2 * s)))


def gaussian_statistics(model, means, variances, summary):
    rows = model.mechanism_rows(summary.causes)
    mu, var = means[rows], variances[rows]
    m, s = mu.sum(axis=1, keepdims=True), var.sum(axis=1, keepdims=True)
    share = var / s
    n, t, q = summary.counts[:, None], summary.total[:, None], summary.squares[:, None]
    centred = t - n * m  # sum of (e - M)
    centred_squares = q - 2 * m * t + n * m**2  # sum of (e - M)^2
    first = n * mu + share * centred
    second = (n * var * (1 - share) + n * mu**2 + 2 * mu * share * centred
              + share**2 * centred_squares)
    size = means.size

    def add(values):
        return np.bincount(rows.ravel(), weights=values.ravel(), minlength=size)

    return {"n": add(np.broadcast_to(n, rows.shape)), "s1": add(first), "s2": add(second)}


def _poisson_prior(prior):
    return (1.0, 0.0) if prior is None else tuple(float(v) for v in prior)


def _gaussian_prior(prior):
    return (0.0, 0.0, -1.5, 0.0) if prior is None else tuple(float(v) for v in prior)


def _check_prior(family, prior):
    if prior is None:
        return
    if family == "poisson" and not (len(prior) == 2 and prior[0] >= 1 and prior[1] > 0):
        raise ParameterError(f"a Poisson NAI prior is Gamma(shape >= 1, rate > 0), got {prior}")
    if family == "gaussian" and not (len(prior) == 4 and prior[1] > 0 and prior[2] > 0
                                     and prior[3] > 0):
        raise ParameterError("a Gaussian NAI prior is normal-inverse-gamma (mean, kappa > 0, "
                             f"shape > 0, scale > 0), got {prior}")


def _poisson_m_step(statistics, previous, prior):
    a, b = _poisson_prior(prior)
    denominator = statistics["n"] + b
    with np.errstate(divide="ignore", invalid="ignore"):
        rates = np.maximum(statistics["s1"] + a - 1.0, 0.0) / denominator
    return np.where(denominator > 0, rates, previous)


def _gaussian_m_step(statistics, previous, prior):
    m0, k0, a0, b0 = _gaussian_prior(prior)
    n, s1, s2 = statistics["n"], statistics["s1"], statistics["s2"]
    used = n > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = (k0 * m0 + s1) / (k0 + n)
        scale = b0 + 0.5 * (s2 + k0 * m0**2 - (k0 + n) * mean**2)
        variance = np.maximum(scale, 0.0) / (a0 + 0.5 * n + 1.5)
    return np.where(used, mean, previous[0]), np.where(used, variance, previous[1])


def poisson_log_prior(rates, prior) -> float:
    """``log p(lambda)`` under independent Gamma(a, b) rates; 0 for ML (``prior=None``)."""
    if prior is None:
        return 0.0
    a, b = prior
    return float(np.sum(a * np.log(b) - gammaln(a) + xlogy(a - 1.0, rates) - b * rates))


def gaussian_log_prior(means, variances, prior) -> float:
    """``log p(mu, s)`` under independent NIG(m0, k0, a0, b0) rows; 0 for ML."""
    if prior is None:
        return 0.0
    m0, k0, a0, b0 = prior
    return float(np.sum(a0 * np.log(b0) - gammaln(a0) + 0.5 * np.log(k0 / (2 * np.pi))
                        - (a0 + 1.5) * np.log(variances)
                        - (b0 + 0.5 * k0 * (means - m0)**2) / variances))


def _random_start(model, summary, rng):
    size = int(model.mechanism_offsets()[-1])
    cases = summary.counts.sum()
    mean = summary.total.sum() / cases
    variance = max(summary.squares.sum() / cases - mean**2, 1e-12)
    means = mean / model.n_mechanisms * rng.uniform(0.5, 1.5, size)
    if model.family == "poisson":
        return np.maximum(means, 1e-3 * max(mean, 1e-12) + 1e-12)
    return means, variance / model.n_mechanisms * rng.uniform(0.5, 1.5, size)


class _AdditiveEngine:
    """What the two NAI engines share: the model, the grouped data, the prior, the restarts."""

    def __init__(self, model: InteractionModel, summary: EffectSummary, prior):
        self.model, self.summary, self.prior = model, summary, prior

    def random_state(self, rng):
        """Each row's mean (and variance): the effect's, split evenly over the mechanisms,
        times a uniform draw in [0.5, 1.5]."""
        return _random_start(self.model, self.summary, rng)


class PoissonEngine(_AdditiveEngine):
    """EM engine (:class:`hiddenbn.learning.engine.EMEngine`) of a Poisson NAI model: the state is
    the vector of stacked rates; ``expected`` holds ``n`` and ``s1`` per row."""

    def e_step(self, state) -> Statistics:
        return Statistics(poisson_statistics(self.model, state, self.summary),
                          poisson_log_likelihood(self.model, state, self.summary))

    def m_step(self, statistics: Statistics, state):
        return _poisson_m_step(statistics.expected, state, self.prior)

    def log_prior(self, state) -> float:
        return poisson_log_prior(state, self.prior)

    def to_vector(self, state) -> np.ndarray:
        return np.array(state, dtype=float)

    def from_vector(self, vector, like):
        """The rates of ``vector``; ``None`` where a rate is negative."""
        return vector if np.all(vector >= 0) else None


class GaussianEngine(_AdditiveEngine):
    """EM engine (:class:`hiddenbn.learning.engine.EMEngine`) of a Gaussian NAI model: the state is
    ``(means, variances)`` stacked per row; ``expected`` holds ``n``, ``s1`` and ``s2``."""

    def e_step(self, state) -> Statistics:
        return Statistics(gaussian_statistics(self.model, *state, self.summary),
                          gaussian_log_likelihood(self.model, *state, self.summary))

    def m_step(self, statistics: Statistics, state):
        return _gaussian_m_step(statistics.expected, state, self.prior)

    def log_prior(self, state) -> float:
        return gaussian_log_prior(*state, self.prior)

    def to_vector(self, state) -> np.ndarray:
        return np.concatenate(state)

    def from_vector(self, vector, like):
        """``(means, variances)`` of ``vector``; ``None`` where a variance is not positive."""
        means, variances = np.split(vector, 2)
        return (means, variances) if np.all(variances > 0) else None


def fit_additive(model, summary: EffectSummary, rng: np.random.Generator, prior=None,
                 restarts: int = 4, max_iterations: int = 20000, tolerance: float = 1e-10,
                 alpha: float = 1.0, convergence: str = "relative", schedule: str = "best-of-n",
                 run_all_iterations: bool = False,
                 acceleration: str = ACCELERATION) -> AdditiveFit:
    """MAP (or, with ``prior=None``, ML) parameters of a Poisson or Gaussian NAI model by EM.

    ``prior`` is ``(a, b)`` (Gamma) for Poisson and ``(m0, k0, a0, b0)`` (NIG) for Gaussian;
    ``alpha`` is the Dirichlet parameter of the causes' tables. A Gaussian model's likelihood
    has no maximum when the cases of one configuration of the mechanisms' rows have a single
    effect value (one case, or equal values): its variance goes to 0 as the likelihood grows
    without bound, so such data are refused (:func:`require_spread`) rather than fitted to a
    variance of 0 and a log-likelihood of NaN. Each of ``restarts`` random
    restarts runs until ``|g_t - g_{t-1}| <= tolerance |g_{t-1}|`` (``convergence="absolute"``:
    ``<= tolerance``); the largest g wins (:func:`hiddenbn.learning.em.fit_engine` with
    ``schedule``, ``run_all_iterations`` and ``acceleration``).
    """
    model = load_interaction(model)
    if model.family not in ("poisson", "gaussian"):
        raise ParameterError(f"fit_additive fits Poisson or Gaussian NAI models, not "
                             f"{model.family}")
    _check_prior(model.family, prior)
    check_alpha(alpha)
    poisson = model.family == "poisson"
    if poisson and (np.any(summary.total < 0) or not np.all(np.isfinite(summary.log_factorials))):
        raise DataError("a Poisson effect must be a non-negative whole number")
    if not poisson and prior is None:  # a proper prior keeps every variance above 0
        require_spread(model, summary)
    engine = (PoissonEngine if poisson else GaussianEngine)(model, summary, prior)
    result = fit_engine(engine, rng, restarts, max_iterations, tolerance, schedule,
                        run_all_iterations, convergence=convergence, acceleration=acceleration)
    state, statistics = result.run.state, result.run.statistics
    cause_tables, cause_counts = fit_cause_tables(model, summary.causes, summary.counts, alpha)
    means, variances = (state, None) if poisson else state
    return AdditiveFit(model=model, cause_tables=cause_tables, cause_counts=cause_counts,
                       means=means, variances=variances, expected=statistics.expected,
                       log_likelihood=statistics.log_likelihood
                       + complete_log_likelihood(cause_tables, cause_counts),
                       log_prior=engine.log_prior(state), n_cases=summary.n_cases,
                       iterations=result.iterations, converged=result.converged,
                       restarts=restarts, prior=prior, alpha=float(alpha), schedule=schedule,
                       acceleration=acceleration,
                       final_log_posteriors=result.final_log_posteriors)


def require_spread(model: InteractionModel, summary: EffectSummary) -> None:
    """Refuse Gaussian NAI data whose ML fit does not exist: cases that share every mechanism
    row (one configuration of each mechanism's causes) and give the effect a single value.

    Those rows' variances can all go to 0 while every other configuration keeps a row of its
    own to carry its spread, so the likelihood grows without bound (the degenerate case of a
    Gaussian mixture). Two or more distinct values in every such group avoid it.
    """
    rows = model.mechanism_rows(summary.causes)
    groups, first, inverse = np.unique(rows, axis=0, return_index=True, return_inverse=True)
    inverse = inverse.ravel()
    n, total, squares = (np.bincount(inverse, weights=values, minlength=groups.shape[0])
                         for values in (summary.counts, summary.total, summary.squares))
    # sum (e - mean)^2, 0 up to rounding for one value (relative to sum e^2)
    spread = squares - total**2 / n
    flat = np.flatnonzero(spread <= 1e-9 * np.maximum(squares, np.finfo(float).tiny))
    if flat.size:
        group = int(flat[0])
        causes = summary.causes[first[group]]
        where = ", ".join(f"{name} = {state}" for name, state in zip(model.cause_names, causes))
        cases = "case" if n[group] == 1 else "cases"
        gives = "gives" if n[group] == 1 else "give"
        raise DataError(f"the {n[group]:g} {cases} with {where or 'no causes'} {gives} the effect "
                        f"{model.effect_name!r} a single value, so the Gaussian likelihood has "
                        "no maximum (their variance goes to 0); give every configuration of "
                        "the causes that occurs two or more different effect values, or use "
                        "fewer mechanisms")


# --- dimensions and scores ------------------------------------------------------------------
def additive_dimension(model: InteractionModel) -> int:
    """Effective dimension of an NAI model (paper 000 Sec. 4: rank of the Jacobian).

    ``E | c`` depends on the parameters only through ``Lambda = A lambda`` (Poisson) or
    ``(A mu, A s)`` (Gaussian) with ``A`` the
    :meth:`~hiddenbn.models.interaction.InteractionModel.incidence` matrix, and a Poisson or normal
    family is identifiable from its mean (and variance), so the rank of the Jacobian is
    ``rank A`` per moment, plus the causes' free parameters.
    """
    moments = 1 if model.family == "poisson" else 2
    return moments * int(np.linalg.matrix_rank(model.incidence())) + model.cause_dimension


def standard_additive_dimension(model: InteractionModel) -> int:
    """Number of free parameters: one rate (or a mean and a variance) per mechanism row."""
    moments = 1 if model.family == "poisson" else 2
    return moments * int(model.mechanism_offsets()[-1]) + model.cause_dimension


def poisson_completed_log_marginal(n, s1, prior) -> float:
    """``log p(D'|S)`` of the mechanism rows: Gamma(a, b)-Poisson at ``n`` cases, sum ``s1``.

    Without ``-sum log x!`` (see the module docstring).
    """
    a, b = prior
    return float(np.sum(a * np.log(b) - gammaln(a) + gammaln(a + s1) - (a + s1) * np.log(b + n)))


def gaussian_completed_log_marginal(n, s1, s2, prior) -> float:
    """``log p(D'|S)`` of the mechanism rows under NIG(m0, k0, a0, b0) priors."""
    m0, k0, a0, b0 = prior
    kn, an = k0 + n, a0 + 0.5 * n
    mean = (k0 * m0 + s1) / kn
    bn = b0 + 0.5 * (s2 + k0 * m0**2 - kn * mean**2)
    return float(np.sum(-0.5 * n * np.log(2 * np.pi) + gammaln(an) - gammaln(a0)
                        + a0 * np.log(b0) - an * np.log(bn) + 0.5 * np.log(k0 / kn)))


def completed_log_likelihood(fit: AdditiveFit) -> float:
    """``log p(D'|theta)`` of the completed data (mechanism rows and causes)."""
    n, s1 = fit.expected["n"], fit.expected["s1"]
    causes = complete_log_likelihood(fit.cause_tables, fit.cause_counts)
    if fit.model.family == "poisson":
        return causes + float(np.sum(xlogy(s1, fit.means) - n * fit.means))
    s2, mu, var = fit.expected["s2"], fit.means, fit.variances
    used = n > 0
    return causes + float(np.sum((-0.5 * n * np.log(2 * np.pi * var)
                                  - (s2 - 2 * mu * s1 + n * mu**2) / (2 * var))[used]))


def completed_log_marginal(fit: AdditiveFit, prior) -> float:
    """``log p(D'|S)`` of the completed data: mechanism rows and the causes' BD marginal."""
    causes = bd_log_marginal(fit.model.cause_network(), fit.cause_counts, fit.alpha)
    if fit.model.family == "poisson":
        return causes + poisson_completed_log_marginal(fit.expected["n"], fit.expected["s1"],
                                                       prior)
    return causes + gaussian_completed_log_marginal(fit.expected["n"], fit.expected["s1"],
                                                    fit.expected["s2"], prior)


def adjusted_cheeseman_stutz(fit: AdditiveFit, prior, dimension: int | None = None) -> float:
    """Paper 004 Eq. 6 for an NAI fit: ``d'`` the parameter count, ``d`` the effective one."""
    d = additive_dimension(fit.model) if dimension is None else dimension
    return cheeseman_stutz(completed_log_marginal(fit, prior), completed_log_likelihood(fit),
                           fit.log_likelihood, fit.n_cases,
                           standard_additive_dimension(fit.model), d)


def sample_additive(model: InteractionModel, cause_tables, means, variances, n_cases: int,
                    rng: np.random.Generator):
    """Forward-sample ``n_cases`` cases: causes from their tables, then every mechanism, summed.

    Returns ``(causes, effect)``; ``variances`` is ignored (``None``) for Poisson models.
    """
    causes = np.column_stack([rng.choice(len(t[0]), size=n_cases, p=t[0]) for t in cause_tables])
    rows = model.mechanism_rows(causes)
    means = np.asarray(means, dtype=float)
    if model.family == "poisson":
        mechanisms = rng.poisson(means[rows])
    else:
        mechanisms = rng.normal(means[rows], np.sqrt(np.asarray(variances, dtype=float)[rows]))
    return causes, mechanisms.sum(axis=1)


def additive_summary(model: InteractionModel, data_file: DataFile) -> EffectSummary:
    """The cases of an NAI model's data file (or DataFrame), read by
    :func:`hiddenbn.data.read_data` with the effect as numbers (``numeric``), grouped by the
    pattern of the causes. The causes' columns and states are checked as every model's are
    (:meth:`hiddenbn.data.Dataset.for_network`); a Poisson effect that is not a count is
    refused, naming its column and first row."""
    dataset = data_file.dataset
    dataset.for_network(model.cause_network())
    effect = model.effect_name
    if effect not in dataset.names:
        raise DataError(f"the data has no column {effect!r}, the effect of the model; columns "
                        f"are {', '.join(dataset.names)}")
    column = dataset.names.index(effect)
    values = np.array([float(label) for label in dataset.categories[column]] + [np.nan])
    if model.family == "poisson":
        counts = (values >= 0) & (np.mod(values, 1) == 0)
        bad = np.flatnonzero(~counts[:-1])  # the last value stands for a missing cell
        if bad.size:
            rows = data_file.every_case.patterns[data_file.row_patterns, column]
            row = int(np.flatnonzero(np.isin(rows, bad))[0]) + 1
            raise DataError(f"{data_file.source}, row {row}, column {effect!r}: "
                            f"{values[rows[row - 1]]:g} is not a count; the effect of a Poisson "
                            "model is a whole number of 0 or more")
    causes = dataset.patterns[:, [dataset.names.index(name) for name in model.cause_names]]
    return summarise(causes, values[dataset.patterns[:, column]], dataset.counts)


def noisy_additive_outcome(model: InteractionModel, summary: EffectSummary, seed: int,
                           alpha: float, restarts: int, **em_options) -> dict:
    """Fit the Poisson or Gaussian NAI ``model`` to ``summary`` (:func:`additive_summary`;
    ``em_options`` as :func:`fit_additive` takes them) and score it: BIC with ``ds``, BIC+ with
    ``de`` and the adjusted Cheeseman-Stutz score of paper 004 Eq. 6 under
    :data:`DEFAULT_PRIORS`.

    Returns ``{"fit": AdditiveFit, "n_cases", "ds", "de", "prior", "scores"}``, the scores
    ``loglik``, ``bic_log_evidence``, ``bic_plus_log_evidence`` and ``cs_plus``.
    """
    rng = seeding.rng(seed, "em", model.family, model.mechanism_names)
    fit = fit_additive(model, summary, rng, restarts=restarts, alpha=alpha, **em_options)
    ds, de = standard_additive_dimension(model), additive_dimension(model)
    prior = DEFAULT_PRIORS[model.family]
    return {"fit": fit, "n_cases": summary.n_cases, "ds": ds, "de": de, "prior": prior,
            "scores": {"loglik": fit.log_likelihood,
                       "bic_log_evidence": bic_log_evidence(fit.log_likelihood, ds, fit.n_cases),
                       "bic_plus_log_evidence": bic_log_evidence(fit.log_likelihood, de,
                                                                 fit.n_cases),
                       "cs_plus": adjusted_cheeseman_stutz(fit, prior, de)}}
