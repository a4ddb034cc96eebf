"""Noisy-max interaction (NMI) models: mechanism posteriors and EM (paper 004 Secs. 3.1, 4.1).

Mechanism ``X_i`` takes states ``0..r-1`` with ``theta_i(k) = p(X_i = k | pa_i = j_i)`` and
the effect is ``E = max_i X_i``. With ``F_i(e) = p(X_i <= e | c) = sum_{k <= e} theta_i(k)``
the combination function gives (Sec. 3.1)

    p(E <= e | c) = prod_i F_i(e),   p(E = e | c) = prod_i F_i(e) - prod_i F_i(e - 1).

The mechanism posteriors (the printed formula is garbled; derived here): given ``E = e``,
``X_i = k`` requires every other mechanism to be at most ``e``, and some mechanism to equal
``e``. So, with ``F_{-i}(e) = prod_{l != i} F_l(e)``,

    p(X_i = k | c, e) = 0                                               for k > e,
                      = theta_i(k) [F_{-i}(e) - F_{-i}(e - 1)] / p(E = e | c)   for k < e,
                      = theta_i(e) F_{-i}(e) / p(E = e | c)                      for k = e,

(``F(-1) = 0``). The expected counts of Eq. 4 are ``E(N_ijk) = sum_cases [j = j_i]
p(X_i = k | c, e)`` and the M step is the Dirichlet MAP update below Eq. 4 (ML for
``alpha = 1``). The observed causes are roots whose tables are fitted from their counts.

The mechanisms are fitted by :class:`NoisyMaxEngine` through the shared restart and
convergence driver :func:`hiddenbn.learning.em.fit_engine`: its E step is one small numba kernel
over the distinct (causes, effect) patterns, called once per iteration; random starts are drawn from
a ``numpy.random.Generator`` outside it. A fit is returned as a :class:`hiddenbn.learning.em.Fit`,
so every score of :mod:`hiddenbn.scores.approximations` applies (the adjusted Cheeseman-Stutz score
of paper 004 Eq. 6 is its ``cs_plus``).
"""

from __future__ import annotations

import numba
import numpy as np

from hiddenbn.data import Dataset
from hiddenbn.learning.em import Fit, fit_engine
from hiddenbn.learning.engine import Statistics
from hiddenbn.learning.selection import add_wbic, scored
from hiddenbn.models.interaction import InteractionModel, fit_cause_tables, load_interaction
from hiddenbn.models.priors import check_alpha, complete_log_likelihood, dirichlet_log_density
from hiddenbn.util import seeding
from hiddenbn.util.defaults import ACCELERATION


@numba.njit(cache=True)
def _mechanism_posterior(table, rows, e, out):
    """Fill ``out[i, k] = p(X_i = k | c, E = e)`` for one case; return ``p(E = e | c)``."""
    m, r = out.shape
    upto = np.empty(m)
    below = np.empty(m)
    for i in range(m):
        cumulative = 0.0
        for k in range(e):
            cumulative += table[rows[i], k]
        below[i] = cumulative
        upto[i] = cumulative + table[rows[i], e]
    all_upto = 1.0
    all_below = 1.0
    for i in range(m):
        all_upto *= upto[i]
        all_below *= below[i]
    likelihood = all_upto - all_below
    out[:, :] = 0.0
    if likelihood <= 0.0:
        return 0.0
    for i in range(m):
        others_upto = 1.0
        others_below = 1.0
        for l in range(m):  # products without i: no division, so zero factors are safe
            if l != i:
                others_upto *= upto[l]
                others_below *= below[l]
        for k in range(e):
            out[i, k] = table[rows[i], k] * (others_upto - others_below) / likelihood
        out[i, e] = table[rows[i], e] * others_upto / likelihood
    return likelihood


@numba.njit(cache=True)
def _expected_counts(table, rows, effect, counts, expected):
    """E step: fill ``expected`` (stacked mechanism tables) and return ``log p(e | c)`` summed."""
    expected[:, :] = 0.0
    posterior = np.empty((rows.shape[1], table.shape[1]))
    log_likelihood = 0.0
    for p in range(rows.shape[0]):
        likelihood = _mechanism_posterior(table, rows[p], effect[p], posterior)
        if likelihood <= 0.0:
            return -np.inf
        log_likelihood += counts[p] * np.log(likelihood)
        for i in range(rows.shape[1]):
            for k in range(table.shape[1]):
                expected[rows[p, i], k] += counts[p] * posterior[i, k]
    return log_likelihood


@numba.njit(cache=True)
def _prior_kernel(table, alpha):
    """``sum (alpha - 1) log theta`` (zero for alpha = 1, also where theta = 0)."""
    if alpha == 1.0:
        return 0.0
    total = 0.0
    for value in table.ravel():
        total += (alpha - 1.0) * np.log(value)
    return total


@numba.njit(cache=True)
def _map_rows(table, expected, alpha):
    """The MAP M step below paper 004 Eq. 4 on the stacked mechanism tables; a new table.

    Written out rather than :func:`hiddenbn.models.priors.map_update`: this is the arithmetic the
    fits have always used (``(E + alpha) - 1`` and a sequential row sum), so they stay
    bit-identical.
    """
    updated = table.copy()
    r = table.shape[1]
    for row in range(table.shape[0]):
        denominator = expected[row].sum() + r * (alpha - 1.0)
        if denominator > 0.0:  # an unused row keeps its value (any value maximises)
            for k in range(r):
                updated[row, k] = (expected[row, k] + alpha - 1.0) / denominator
    return updated


def _case_arrays(model: InteractionModel, data: Dataset):
    data = data.for_network(model.network())
    causes = data.patterns[:, :model.n_causes]
    effect = np.ascontiguousarray(data.patterns[:, model.n_causes], dtype=np.int64)
    return data, causes, effect


def mechanism_posteriors(model, table, causes, effect):
    """``p(X_i = k | c, e)`` for each case, by the closed form of the module docstring.

    Parameters
    ----------
    model : InteractionModel
        A noisy-max model.
    table : ndarray, shape (sum_i q_i, r)
        The mechanisms' tables stacked (rows of mechanism ``i`` start at its offset, see
        :meth:`~hiddenbn.models.interaction.InteractionModel.mechanism_offsets`).
    causes : int ndarray, shape (cases, n_causes)
    effect : int ndarray, shape (cases,)

    Returns
    -------
    posterior : ndarray, shape (cases, n_mechanisms, r)
    likelihood : ndarray, shape (cases,)
        ``p(E = e | c)``.
    """
    table = np.ascontiguousarray(table, dtype=float)
    rows = model.mechanism_rows(causes)
    effect = np.asarray(effect, dtype=np.int64)
    posterior = np.zeros((rows.shape[0], model.n_mechanisms, table.shape[1]))
    likelihood = np.array([_mechanism_posterior(table, rows[p], effect[p], posterior[p])
                           for p in range(rows.shape[0])])
    return posterior, likelihood


def stacked_tables(model: InteractionModel, cpts) -> np.ndarray:
    """The mechanisms' CPTs (network order: causes, mechanisms, effect) stacked row-wise."""
    return np.vstack(cpts[model.n_causes:model.n_causes + model.n_mechanisms])


class NoisyMaxEngine:
    """EM engine (:class:`hiddenbn.learning.engine.EMEngine`) of the mechanisms of an NMI model.

    The state is the stacked mechanism table, shape ``(sum_i q_i, r)`` (see
    :func:`stacked_tables`); g is ``log p(e | c, theta) + sum (alpha - 1) log theta`` over the
    mechanisms, the part of the log posterior that EM changes (the causes' tables are fitted
    in closed form by :func:`fit_noisy_max`). Its E step reads every cause and the effect of
    each case, so data with missing cells are refused.
    """

    def __init__(self, model: InteractionModel, data: Dataset, alpha: float):
        check_alpha(alpha)
        self.model, self.alpha = model, float(alpha)
        self.data, self.causes, self.effect = _case_arrays(model, data)
        self.data.require_complete("a noisy-max fit")
        self.counts = self.data.counts.astype(np.float64)
        self.rows = model.mechanism_rows(self.causes)
        self.shape = (int(model.mechanism_offsets()[-1]), model.effect_states)

    def random_state(self, rng):
        """Every mechanism row from the uniform Dirichlet."""
        return rng.dirichlet(np.ones(self.shape[1]), size=self.shape[0])

    def e_step(self, state) -> Statistics:
        """Expected counts ``E(N_ijk)`` of paper 004 Eq. 4 (stacked) and ``log p(e | c)``."""
        expected = np.empty(self.shape)
        log_likelihood = _expected_counts(state, self.rows, self.effect, self.counts, expected)
        return Statistics(expected, log_likelihood)

    def m_step(self, statistics: Statistics, state):
        return _map_rows(state, statistics.expected, self.alpha)

    def log_prior(self, state) -> float:
        return _prior_kernel(state, self.alpha)

    def to_vector(self, state) -> np.ndarray:
        return state.ravel().copy()

    def from_vector(self, vector, like):
        """The stacked table of ``vector``; ``None`` where a probability is negative."""
        return vector.reshape(like.shape) if np.all(vector >= 0) else None


def fit_noisy_max(model, data: Dataset, rng: np.random.Generator, alpha: float = 1.0,
                  restarts: int = 16, max_iterations: int = 1000, tolerance: float = 1e-9,
                  convergence: str = "relative", schedule: str = "best-of-n",
                  run_all_iterations: bool = False, initial=None,
                  acceleration: str = ACCELERATION) -> Fit:
    """MAP (ML for ``alpha = 1``) parameters of an NMI model by EM with random restarts.

    Every start draws each mechanism row from the uniform Dirichlet and runs EM until
    ``|g_t - g_{t-1}| <= tolerance |g_{t-1}|`` (``convergence="absolute"``: ``<= tolerance``)
    with g the mechanisms' part of ``log p(D | theta) + log p(theta)`` (paper 004 Eq. 3,
    :class:`NoisyMaxEngine`); the start with the largest g wins
    (:func:`hiddenbn.learning.em.fit_engine` with ``schedule``, ``run_all_iterations`` and
    ``acceleration``). With ``initial`` (the network's CPTs, as
    :func:`hiddenbn.models.network.load_parameters` reads them) EM starts once, from its mechanism
    tables. Returns a :class:`hiddenbn.learning.em.Fit` over :meth:`InteractionModel.network` with
    expected counts at the returned parameters. Data with missing cells are refused
    (:class:`NoisyMaxEngine`).
    """
    model = load_interaction(model)
    engine = NoisyMaxEngine(model, data, alpha)
    if initial is not None:
        start = stacked_tables(model, initial)
        restarts, schedule = 1, "single"
    result = fit_engine(engine, rng, restarts, max_iterations, tolerance,
                        "best-of-n" if initial is not None else schedule, run_all_iterations,
                        None if initial is None else lambda rng: start.copy(), convergence,
                        acceleration)
    cause_tables, cause_counts = fit_cause_tables(model, engine.causes, engine.counts,
                                                  engine.alpha)
    offsets = model.mechanism_offsets()

    def network_order(causes, stacked):
        return causes + [stacked[a:b] for a, b in zip(offsets[:-1], offsets[1:])] + [None]

    cpts = network_order(cause_tables, result.run.state)
    network = model.network()
    cause_log_likelihood = complete_log_likelihood(cause_tables, cause_counts)
    return Fit(network=network, cpts=cpts, alpha=engine.alpha,
               log_likelihood=cause_log_likelihood + result.run.statistics.log_likelihood,
               log_prior=dirichlet_log_density(network, cpts, engine.alpha),
               expected_counts=network_order(cause_counts, result.run.statistics.expected),
               n_cases=engine.data.n_cases, iterations=result.iterations,
               converged=result.converged, restarts=restarts, schedule=schedule,
               acceleration=acceleration, engine="noisy-max mechanisms",
               final_log_posteriors=result.final_log_posteriors)


def effect_distribution(model: InteractionModel, cpts) -> np.ndarray:
    """``p(E = e | c)`` for every cause configuration, shape ``(prod r_c, r)`` (Sec. 3.1)."""
    table = stacked_tables(model, cpts)
    rows = model.mechanism_rows(model.cause_configurations())
    upto = np.cumsum(table, axis=1)[rows].prod(axis=1)  # p(E <= e | c)
    return np.diff(upto, axis=1, prepend=0.0)


def noisy_max_outcome(model: InteractionModel, data: Dataset, seed: int, alpha: float,
                      restarts: int, with_effective_dimension: bool = True, initial=None,
                      wbic_draws: int | None = None, **em_options) -> dict:
    """Fit a noisy-max ``model`` to ``data`` (bound to
    :meth:`~hiddenbn.models.interaction.InteractionModel.network`) by its mechanisms' EM (from
    ``initial``, the network's CPTs, if given; ``em_options`` as :func:`fit_noisy_max` takes them)
    and score it as any network's fit (:func:`hiddenbn.learning.selection.scored`; with
    ``wbic_draws``, WBIC too: :func:`hiddenbn.learning.selection.add_wbic`)."""
    rng = seeding.rng(seed, "em", model.family, model.mechanism_names)
    fit = fit_noisy_max(model, data, rng, alpha=alpha, restarts=restarts, initial=initial,
                        **em_options)
    outcome = scored(fit, data, with_effective_dimension)
    if wbic_draws is not None:
        add_wbic(outcome, data, seeding.rng(seed, "wbic", model.family,
                                                      model.mechanism_names), wbic_draws)
    return outcome
