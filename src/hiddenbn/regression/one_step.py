"""One-step latent class regression: covariates that predict the class, fitted with the items.

The model (Dayton & Macready 1988; Bandeen-Roche, Miglioretti, Zeger & Rathouz 1997; poLCA's
``formula = cbind(items) ~ covariates``) is, for case ``i`` with items ``x_i`` and covariate
row ``z_i`` (its first entry 1, :func:`hiddenbn.regression.covariates.covariate_design`),

    p(x_i | z_i) = sum_h pi_h(z_i) prod_{j observed} theta_{j, x_ij, h},
    pi_h(z) = exp(z . beta_h) / sum_c exp(z . beta_c),   beta_1 = 0:

the item tables ``theta`` of the latent class model (a missing cell summed out, missing at
random, as :mod:`hiddenbn.inference.latent_class` does) and a class prior that is the
multinomial logit of the covariates, class 1 the reference
(:mod:`hiddenbn.regression.multinomial_logit`). With the constant alone (``z = 1``) it is the
latent class model, ``pi_h = exp(beta_h0) / sum_c exp(beta_c0)``.

:class:`OneStepEngine` is its EM (an :class:`~hiddenbn.learning.engine.EMEngine`, driven by
:func:`hiddenbn.learning.em.fit_engine` with SQUAREM): the E step gives each case its posterior
under its own prior ``pi(z_i)``; the M step updates the item tables in closed form (the update
below paper 003 Eq. 11, MAP under Dirichlet(alpha) rows, ML for alpha = 1) and takes one Newton
step for ``beta`` on the expected complete-data log-likelihood ``Q(beta) = sum_i sum_h w_ih log
pi_h(z_i)``, halved until ``Q`` does not fall: a generalised EM (Dempster, Laird & Rubin 1977,
Sec. 3), so ``g`` never decreases. Cases with the same item pattern and covariate row are one
group, counted.

:func:`fit_one_step` searches as ``hiddenbn fit`` does: its first start is the measurement
model's best fit by the project's search (:func:`hiddenbn.learning.selection.search`, the
annealed starts and split-and-merge moves by default), its class weights as intercepts and every
slope 0; the other starts draw the item tables from the uniform Dirichlet and the intercepts
from the class weights of a uniform Dirichlet draw. Every start runs to convergence, and the fit
counts how many reach its best ``g`` within
:data:`~hiddenbn.learning.em.REPLICATION_TOLERANCE` nats.

:func:`observed_information` is the negative Hessian of the observed-data log-likelihood in
every free parameter at once (the coefficients and the item tables' free entries), from which
:func:`coefficient_table` takes the standard errors of the coefficients (Louis 1982: the
expected complete-data Hessian plus the covariance of the complete-data scores, per case).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.special import gammaln, xlogy
from scipy.stats import norm

from hiddenbn.data import MISSING, Dataset
from hiddenbn.errors import DataError, ParameterError
from hiddenbn.inference.enumeration import state_offsets
from hiddenbn.inference.latent_class import CHUNK_PATTERNS
from hiddenbn.learning import em, selection
from hiddenbn.learning.engine import Statistics
from hiddenbn.models.network import Network, check_parameters, random_parameters
from hiddenbn.models.priors import check_alpha, map_update
from hiddenbn.regression.multinomial_logit import (Standardisation, class_probabilities,
                                                    coefficients_from_free,
                                                    log_class_probabilities,
                                                    log_likelihood_gradient,
                                                    log_likelihood_hessian,
                                                    weighted_log_likelihood)
from hiddenbn.scores.approximations import BOUNDARY_PROBABILITY, laplace
from hiddenbn.util import seeding
from hiddenbn.util.defaults import ACCELERATION, PRIOR_ALPHA, SCHEDULE
from hiddenbn.util.threads import one_blas_thread

#: Halvings of the Newton step of the coefficients before the M step keeps them as they were.
NEWTON_HALVINGS = 30
#: Rows of cases whose per-case score vectors are built at once in :func:`observed_information`
#: (bounds its memory: rows x classes x free parameters floats).
INFORMATION_CHUNK_CELLS = 1 << 22


@dataclass(frozen=True)
class RegressionCases:
    """The cases of a latent class regression, grouped: each distinct (item pattern, covariate
    row) once, with its count.

    Attributes
    ----------
    patterns : int ndarray, shape (m, n)
        Item states ``0..r_j - 1`` or :data:`~hiddenbn.data.MISSING`.
    design : float ndarray, shape (m, p)
        Covariate rows, the first entry 1.
    counts : float ndarray, shape (m,)
        How many cases have each row.
    cards : tuple of int
        The items' numbers of states.
    """

    patterns: np.ndarray
    design: np.ndarray
    counts: np.ndarray
    cards: tuple

    @classmethod
    def grouped(cls, patterns, design, cards, counts=None) -> "RegressionCases":
        """The cases ``patterns`` (one row per case or pattern) with their covariate rows
        ``design`` and ``counts`` (default 1 each), identical rows merged."""
        patterns = np.asarray(patterns, dtype=np.int64)
        design = np.asarray(design, dtype=float)
        counts = (np.ones(patterns.shape[0]) if counts is None
                  else np.asarray(counts, dtype=float))
        if patterns.ndim != 2 or design.ndim != 2 or design.shape[0] != patterns.shape[0] \
                or counts.shape != (patterns.shape[0],):
            raise DataError(f"expected one covariate row and one count per case: "
                            f"{patterns.shape[0]} cases, {design.shape[0]} covariate rows, "
                            f"{counts.size} counts")
        cards = tuple(int(r) for r in cards)
        if patterns.shape[1] != len(cards):
            raise DataError(f"expected {len(cards)} item columns, got {patterns.shape[1]}")
        keep = counts > 0
        keys = np.hstack([patterns[keep].astype(float), design[keep]])
        unique, inverse = np.unique(keys, axis=0, return_inverse=True)
        merged = np.bincount(inverse.ravel(), weights=counts[keep], minlength=unique.shape[0])
        n = patterns.shape[1]
        return cls(unique[:, :n].astype(np.int64), np.ascontiguousarray(unique[:, n:]),
                   merged, cards)

    @property
    def n_cases(self) -> int:
        """The number of cases (the counts added up)."""
        return int(round(float(self.counts.sum())))


def _log_class_prior(design, coefficients) -> np.ndarray:
    """``log pi_h(z_i)``, shape ``(m, k)``, on one BLAS thread (the same bits on any number
    of cores)."""
    with one_blas_thread():
        return log_class_probabilities(design, coefficients)


def _observed_counts(engine, weighted) -> np.ndarray:
    """``sum_i weighted_ih [x_ij = x]`` in the stacked layout, shape ``(sum r_j + n, k)``: the
    observed cells' expected counts, then per item the class mass of the cases missing it
    (``weighted``: each row's count times its posterior)."""
    cells = engine.cell_rows.ravel()
    n = engine.cards.size
    counts = np.empty((engine.size + n, weighted.shape[1]))
    for h in range(weighted.shape[1]):
        # bincount adds in order: the same bits on any number of threads
        counts[:, h] = np.bincount(cells, weights=np.repeat(weighted[:, h], n),
                                   minlength=engine.size + n)
    return counts


class OneStepEngine:
    """E and M steps of one-step latent class regression (the module docstring).

    The state is ``(coefficients, table)``: ``coefficients`` of shape ``(p, k)``, column 0
    zeros (class 1 the reference), of the standardised design (:attr:`design`,
    :class:`~hiddenbn.regression.multinomial_logit.Standardisation`: the Newton steps and the
    information do not depend on a covariate's units or origin, and a far outlier does not
    overflow), and the items' tables stacked as the latent class engine
    stacks them, ``table[offsets[j] + x, h] = p(X_j = x | H = h)``, shape ``(sum r_j, k)``.
    The E step's statistics are ``(w, table_counts)``: each row's counts times its posterior
    ``(m, k)``, and ``E(N_{j,x,h})`` with the missing cells completed from their classes.

    Parameters
    ----------
    network : Network
        The latent class model of the items (its class weights are not used: the
        coefficients take their place).
    cases : RegressionCases
    alpha : float
        Dirichlet(alpha) prior of every item row (1: ML).
    standardisation : Standardisation, optional
        Of the design (default: that of ``cases``, their counts weighing the rows); a fit's,
        to evaluate it on other rows.
    """

    name = "latent class regression"

    def __init__(self, network: Network, cases: RegressionCases, alpha: float = PRIOR_ALPHA,
                 standardisation: Standardisation | None = None):
        check_alpha(alpha)
        self.network, self.cases, self.alpha = network, cases, float(alpha)
        self.standardisation = (Standardisation.of(cases.design, cases.counts)
                                if standardisation is None else standardisation)
        self.design = self.standardisation.design(cases.design)
        self.classes = network.cardinalities[0]
        self.cards = np.asarray(cases.cards, dtype=np.int64)
        self.offsets = state_offsets(self.cards)
        size, n = int(self.cards.sum()), self.cards.size
        # each cell's row of the stacked tables; a missing cell of item j the row size + j,
        # whose log probability is 0 (summed out) and whose count is the class mass missing j
        self.cell_rows = cases.patterns + self.offsets
        missing = cases.patterns == MISSING
        self.cell_rows[missing] = (size + np.arange(n))[np.nonzero(missing)[1]]
        self.size = size

    # --- states ---------------------------------------------------------------------------
    def from_parameters(self, coefficients, cpts) -> tuple:
        """The state of ``coefficients`` (``(p, k)`` of the design's columns, column 0 zeros)
        and the items' tables (``cpts`` of the network; its class weights are ignored)."""
        table = np.ascontiguousarray(np.vstack([np.asarray(t, dtype=float).T
                                                for t in cpts[1:]]))
        return self.standardisation.to_standard(coefficients), table

    def from_class_weights(self, cpts) -> tuple:
        """The state of the latent class parameters ``cpts``: intercepts ``log(p(h) /
        p(1))``, every slope 0 (the same fit of the items as the latent class model)."""
        weights = np.asarray(cpts[0][0], dtype=float)
        coefficients = np.zeros((self.cases.design.shape[1], self.classes))
        with np.errstate(divide="ignore"):
            # an empty class has weight 0; a large negative intercept keeps it nearly empty
            coefficients[0] = np.maximum(np.log(weights) - np.log(weights[0]), -30.0)
        return self.from_parameters(coefficients, cpts)

    def random_state(self, rng):
        return self.from_class_weights(random_parameters(self.network, rng, 1.0))

    def to_cpts(self, state) -> list:
        """The items' tables in network order, after a ``(1, k)`` table of the class sizes
        the fit implies (the mean of ``pi(z_i)`` over the cases)."""
        coefficients, table = state
        prior = np.exp(_log_class_prior(self.design, coefficients))
        sizes = (self.cases.counts @ prior) / self.cases.counts.sum()
        return [sizes[None, :]] + [table[o:o + r].T.copy()
                                   for o, r in zip(self.offsets, self.cards)]

    def to_vector(self, state) -> np.ndarray:
        return np.concatenate([state[0][:, 1:].ravel(), state[1].ravel()])

    def from_vector(self, vector, like):
        coefficients, table = like
        split = coefficients.shape[0] * (coefficients.shape[1] - 1)
        if not np.all(vector[split:] >= 0):
            return None
        new = np.zeros(coefficients.shape)
        new[:, 1:] = vector[:split].reshape(coefficients.shape[0], -1)
        return new, vector[split:].reshape(table.shape)

    # --- E and M steps ----------------------------------------------------------------------
    def log_joint(self, state) -> np.ndarray:
        """``log pi_h(z_i) + sum_{j observed} log theta_{j, x_ij, h}``, shape ``(m, k)``."""
        coefficients, table = state
        with np.errstate(divide="ignore"):  # an ML zero: log -inf, weight 0
            log_table = np.vstack([np.log(table), np.zeros((self.cards.size, self.classes))])
        joint = _log_class_prior(self.design, coefficients)
        for start in range(0, joint.shape[0], CHUNK_PATTERNS):
            stop = start + CHUNK_PATTERNS
            joint[start:stop] += log_table[self.cell_rows[start:stop]].sum(axis=1)
        return joint

    def posterior(self, state) -> tuple[np.ndarray, np.ndarray]:
        """``(p(h | x_i, z_i) (m, k), log p(x_i | z_i) (m,))``."""
        joint = self.log_joint(state)
        # logsumexp by hand: scipy's checks cost more than the sum on small data
        top = joint.max(axis=1, keepdims=True)
        with np.errstate(invalid="ignore", divide="ignore"):
            shifted = np.exp(joint - top)
            total = shifted.sum(axis=1, keepdims=True)
            return shifted / total, (top + np.log(total))[:, 0]

    def e_step(self, state) -> Statistics:
        posterior, marginal = self.posterior(state)
        counts = self.cases.counts
        weighted = counts[:, None] * posterior
        table_counts = _observed_counts(self, weighted)
        missing_mass = table_counts[self.size:]
        completed = table_counts[:self.size] + state[1] * np.repeat(missing_mass, self.cards,
                                                                    axis=0)
        # pairwise summation: the same bits on any number of threads
        log_likelihood = float(np.sum(counts * marginal))
        return Statistics((weighted, completed), log_likelihood)

    def m_step(self, statistics: Statistics, state):
        weighted, table_counts = statistics.expected
        coefficients, table = state
        new_table = np.empty(table.shape)
        for o, r in zip(self.offsets, self.cards):
            block = table_counts[o:o + r]
            new_table[o:o + r] = map_update(block, block.sum(axis=0, keepdims=True), r,
                                            table[o:o + r], self.alpha)
        return self.newton_step(weighted, coefficients), new_table

    def newton_step(self, weighted, coefficients) -> np.ndarray:
        """One Newton step of ``Q(beta) = sum_i sum_h w_ih log pi_h(z_i)`` from
        ``coefficients``, halved until ``Q`` does not fall (else ``coefficients`` as they
        are): the logit part of the generalised M step."""
        design = self.design
        if self.classes == 1:  # one class: no coefficient to fit
            return coefficients
        with one_blas_thread():
            before = weighted_log_likelihood(design, weighted, coefficients)
            score = log_likelihood_gradient(design, weighted, coefficients)
            curvature = log_likelihood_hessian(design, weighted, coefficients)
            try:
                direction = np.linalg.solve(-curvature, score)
            except np.linalg.LinAlgError:  # a flat direction (an empty class): no step
                return coefficients
            step = coefficients_from_free(direction, design.shape[1])
            length = 1.0
            for _ in range(NEWTON_HALVINGS):
                trial = coefficients + length * step
                if weighted_log_likelihood(design, weighted, trial) >= before:
                    return trial
                length /= 2
        return coefficients

    def log_prior(self, state) -> float:
        """``(alpha - 1) sum log theta``: the Dirichlet prior of the item rows less its
        normaliser (the coefficients have a flat prior: their fit is ML)."""
        if self.alpha == 1.0:
            return 0.0
        return float((self.alpha - 1.0) * np.log(state[1]).sum())


@dataclass
class OneStepFit:
    """A fitted one-step latent class regression.

    Attributes
    ----------
    network : Network
        The latent class model of the items.
    covariate_names : tuple of str
        The names of the design's columns, the first ``"(intercept)"``.
    coefficients : ndarray, shape (p, k)
        ``beta``, column 0 zeros (class 1 the reference).
    cpts : list
        The item tables in network order, after the class sizes the fit implies (the mean of
        ``pi(z_i)`` over the cases).
    cases : RegressionCases
        The cases it was fitted to.
    alpha, log_likelihood, log_prior : float
        The Dirichlet prior of the item rows, ``log p(x | z, theta, beta)`` and the prior part
        of ``g``.
    iterations, converged, restarts, schedule, acceleration, trace, final_log_posteriors
        As :class:`hiddenbn.learning.em.Fit` has them: ``schedule`` is the measurement model's
        search (its best fit the first start) and ``final_log_posteriors`` the final ``g`` of
        every start.
    measurement : hiddenbn.learning.em.Fit or None
        The measurement model's fit (None when EM started from given parameters).
    """

    network: Network
    covariate_names: tuple
    coefficients: np.ndarray
    cpts: list
    cases: RegressionCases
    alpha: float
    log_likelihood: float
    log_prior: float
    iterations: int
    converged: bool
    restarts: int
    schedule: str
    acceleration: str
    trace: list = field(default_factory=list)
    final_log_posteriors: list = field(default_factory=list)
    measurement: em.Fit | None = None
    engine: OneStepEngine | None = field(default=None, repr=False)

    @property
    def log_posterior(self) -> float:
        """g = the log-likelihood + the log prior of the item rows."""
        return self.log_likelihood + self.log_prior

    @property
    def n_cases(self) -> int:
        """The number of cases fitted (rows dropped for a missing covariate left out)."""
        return self.cases.n_cases

    @property
    def state(self) -> tuple:
        """The fit as its engine's state, ``(coefficients, stacked item tables)``."""
        return self.engine.from_parameters(self.coefficients, self.cpts)

    @property
    def n_parameters(self) -> int:
        """The free parameters: ``p (k - 1)`` coefficients and ``k sum (r_j - 1)`` item
        probabilities (the ``d`` of every score)."""
        p, k = self.coefficients.shape
        return p * (k - 1) + k * int(sum(r - 1 for r in self.cases.cards))

    @property
    def best_found(self) -> int:
        """How many starts ended within
        :data:`~hiddenbn.learning.em.REPLICATION_TOLERANCE` of the best g."""
        return em.best_found(self.final_log_posteriors)

    @property
    def replicated(self) -> bool:
        """Whether more than one start reached the best g."""
        return self.best_found > 1

    def posterior(self, patterns=None, design=None) -> np.ndarray:
        """``p(h | x, z)`` of each row of ``patterns`` (default: the fitted cases' rows) with
        its covariate row ``design``, shape ``(m, k)``."""
        if patterns is None:
            return self.engine.posterior(self.state)[0]
        cases = RegressionCases(np.asarray(patterns, dtype=np.int64),
                                np.asarray(design, dtype=float),
                                np.ones(len(patterns)), self.cases.cards)
        return OneStepEngine(self.network, cases, self.alpha,
                             self.engine.standardisation).posterior(self.state)[0]

    def class_probabilities(self, design) -> np.ndarray:
        """``pi_h(z)`` of each covariate row of ``design`` (its first entry 1), shape
        ``(rows, k)``: the predicted class probabilities."""
        return class_probabilities(np.atleast_2d(np.asarray(design, dtype=float)),
                                   self.coefficients)


def _starts(engine: OneStepEngine, first):
    """``draw`` of :func:`hiddenbn.learning.em.fit_engine`: the state ``first``, then random
    states."""
    given = [first]

    def draw(rng):
        return given.pop() if given else engine.random_state(rng)

    return draw


def fit_one_step(network: Network, cases: RegressionCases, covariate_names=None, *,
                 seed: int = 0, alpha: float = PRIOR_ALPHA, restarts: int | None = None,
                 schedule: str = SCHEDULE, initial=None,
                 max_iterations: int = em.OPTIMUM.max_iterations,
                 tolerance: float = em.OPTIMUM.tolerance,
                 convergence: str = em.OPTIMUM.convergence,
                 run_all_iterations: bool = em.OPTIMUM.run_all_iterations,
                 acceleration: str = ACCELERATION, **search_options) -> OneStepFit:
    """One-step latent class regression by ML (MAP for the item rows when ``alpha > 1``).

    Parameters
    ----------
    network : Network
        The latent class model of the items (:func:`hiddenbn.models.network.latent_class`),
        whose children are the columns of ``cases.patterns``.
    cases : RegressionCases
        The items, covariate rows and counts (:meth:`RegressionCases.grouped`).
    covariate_names : sequence of str, optional
        The names of the design's columns (default ``(intercept)``, ``z1``, ...).
    seed : int
        Seeds the measurement model's search (as ``hiddenbn fit`` does) and the random starts.
    alpha : float
        Dirichlet(alpha) prior of every item row (1, the default: ML).
    restarts : int, optional
        The starts: the measurement model's best fit and ``restarts - 1`` random ones
        (default: the schedule's, :data:`~hiddenbn.util.defaults.RESTARTS`); the measurement
        model's search takes ``restarts`` starts of its own.
    schedule : str
        The measurement model's search (:func:`hiddenbn.learning.em.fit`).
    initial : tuple, optional
        ``(coefficients (p, k), cpts)``: EM once from these parameters (the oracle, from the
        generating ones) instead of the search.
    max_iterations, tolerance, convergence, run_all_iterations, acceleration
        EM's stopping rule and acceleration (:func:`hiddenbn.learning.em.fit_engine`), for the
        measurement model too.
    **search_options
        Further options of the measurement model's search (``sweeps``).

    Returns
    -------
    OneStepFit

    Examples
    --------
    >>> import numpy as np
    >>> from hiddenbn.models.network import latent_class
    >>> rng = np.random.default_rng(0)
    >>> z = rng.integers(0, 2, 400)
    >>> h = (rng.random(400) < np.where(z == 1, 0.8, 0.3)).astype(int)
    >>> x = (rng.random((400, 4)) < np.where(h == 1, 0.85, 0.15)[:, None]).astype(int)
    >>> cases = RegressionCases.grouped(x, np.column_stack([np.ones(400), z]), [2] * 4)
    >>> result = fit_one_step(latent_class(2, [2] * 4), cases, ["(intercept)", "z"])
    >>> result.converged, result.coefficients.shape
    (True, (2, 2))
    """
    p = cases.design.shape[1]
    names = (("(intercept)",) + tuple(f"z{c}" for c in range(1, p))
             if covariate_names is None else tuple(covariate_names))
    if len(names) != p:
        raise ParameterError(f"{len(names)} covariate names for {p} design columns")
    if not cases.counts.sum() > 0:
        raise DataError("the data set has no cases; EM needs at least one")
    engine = OneStepEngine(network, cases, alpha)
    stopping = {"max_iterations": max_iterations, "tolerance": tolerance,
                "convergence": convergence, "run_all_iterations": run_all_iterations,
                "acceleration": acceleration}
    measurement = None
    if initial is not None:
        coefficients, cpts = initial
        start = engine.from_parameters(_checked_coefficients(coefficients, p, network),
                                       check_parameters(network, cpts))
        result = em.fit_engine(engine, seeding.rng(seed, "one-step"), 1, max_iterations,
                               tolerance, draw=lambda rng: start, convergence=convergence,
                               run_all_iterations=run_all_iterations,
                               acceleration=acceleration)
        restarts, schedule = 1, "single"
    else:
        items = Dataset.from_rows(network.observed_names, cases.patterns, cases.cards,
                                  cases.counts)
        measurement = selection.search(network, items, seed, alpha, restarts,
                                       schedule=schedule, **stopping, **search_options)
        restarts = measurement.restarts
        result = em.fit_engine(engine, seeding.rng(seed, "one-step", network.to_dict()),
                               restarts, max_iterations, tolerance,
                               draw=_starts(engine, engine.from_class_weights(measurement.cpts)),
                               convergence=convergence, run_all_iterations=run_all_iterations,
                               acceleration=acceleration)
    run = result.run
    return OneStepFit(network=network, covariate_names=names,
                      coefficients=engine.standardisation.from_standard(run.state[0]),
                      cpts=engine.to_cpts(run.state), cases=cases, alpha=engine.alpha,
                      log_likelihood=run.statistics.log_likelihood,
                      log_prior=engine.log_prior(run.state), iterations=result.iterations,
                      converged=result.converged, restarts=restarts, schedule=schedule,
                      acceleration=result.acceleration, trace=result.trace,
                      final_log_posteriors=result.final_log_posteriors,
                      measurement=measurement, engine=engine)


def _checked_coefficients(coefficients, p: int, network: Network) -> np.ndarray:
    """``coefficients`` as a ``(p, k)`` array with a zero first column, else one line."""
    k = network.cardinalities[0]
    array = np.asarray(coefficients, dtype=float)
    if array.shape != (p, k) or not np.all(np.isfinite(array)) or np.any(array[:, 0] != 0):
        raise ParameterError(f"the coefficients must be a ({p}, {k}) array of finite numbers "
                             "whose first column (class 1, the reference) is zeros")
    return array


# --- the observed information ---------------------------------------------------------------
@dataclass(frozen=True)
class Information:
    """The negative Hessian of the observed-data log-likelihood at a fit, in the free
    parameters: the coefficients ``beta*[:, c]`` of the standardised design
    (:attr:`OneStepEngine.design`) of classes ``c = 2..k`` (class-major, then the design's
    columns), then the free entries of every item row (item, class, state without the
    last) that is off the boundary.

    Attributes
    ----------
    matrix : ndarray, shape (d, d)
    n_coefficients : int
        The first ``n_coefficients`` coordinates are the coefficients.
    jacobian : ndarray, shape (n_coefficients, n_coefficients)
        ``d beta / d beta*``, by the engine's standardisation's
        :meth:`~hiddenbn.regression.multinomial_logit.Standardisation.free_jacobian`: a
        covariance ``C*`` of the standardised coefficients is ``J C* J'`` of the design's.
    fixed_rows : list of (item, class)
        Item rows with a probability at 0 (within
        :data:`~hiddenbn.scores.approximations.BOUNDARY_PROBABILITY`): held fixed, their
        coordinates left out (the log-likelihood has no second derivative there).
    """

    matrix: np.ndarray
    n_coefficients: int
    fixed_rows: list
    jacobian: np.ndarray


def _item_blocks(table, offsets, cards, classes):
    """The item rows off the boundary, ``[(item, class, first coordinate)]`` (each row's
    ``r_j - 1`` free entries from its first coordinate on, after the coefficients), the fixed
    ``(item, class)`` rows and the number of item coordinates."""
    blocks, fixed, count = [], [], 0
    for j, (o, r) in enumerate(zip(offsets, cards)):
        for h in range(classes):
            if table[o:o + r, h].min() < BOUNDARY_PROBABILITY:
                fixed.append((j, h))
                continue
            blocks.append((j, h, count))
            count += r - 1
    return blocks, fixed, count


def _add_item_curvature(matrix, engine, table, n_beta: int, counts) -> None:
    """Add, in place, the negative second derivatives of ``sum counts log theta`` in the free
    entries of every item row off the boundary: ``counts_s / theta_s^2`` on the diagonal and
    ``counts_last / theta_last^2`` over the row's block (``counts`` in the stacked layout)."""
    blocks, _, _ = _item_blocks(table, engine.offsets, engine.cards, engine.classes)
    for j, h, first in blocks:
        o, r = engine.offsets[j], engine.cards[j]
        span = slice(n_beta + first, n_beta + first + r - 1)
        matrix[span, span] += counts[o + r - 1, h] / table[o + r - 1, h] ** 2
        matrix[span, span] += np.diag(counts[o:o + r - 1, h] / table[o:o + r - 1, h] ** 2)


def observed_information(engine: OneStepEngine, state) -> Information:
    """The negative Hessian of ``log p(x | z)`` at ``state``, over the coefficients and the
    item tables together (:class:`Information`).

    Per case, ``d^2 log p(x_i) = sum_h w_ih (H_ih + s_ih s_ih^T) - g_i g_i^T`` with ``s_ih``
    and ``H_ih`` the gradient and Hessian of ``log p(x_i, h)`` and ``g_i = sum_h w_ih s_ih``
    (Louis 1982). In the coefficients ``s_ih = z_i (delta_hc - pi_c(z_i))`` and ``H`` is the
    multinomial logit's; in an item's free entry ``theta_s`` (the last entry ``1 - sum``)
    ``s = [x = s] / theta_s - [x = last] / theta_last`` for the case's class and observed item,
    and ``H = -[x = s] [s = t] / theta_s^2 - [x = last] / theta_last^2``. Products run on one
    BLAS thread (the same bits on any number of cores).
    """
    coefficients, table = state
    cases, classes = engine.cases, engine.classes
    design, counts = engine.design, cases.counts
    n_beta = design.shape[1] * (classes - 1)
    blocks, fixed, n_items = _item_blocks(table, engine.offsets, engine.cards, classes)
    d = n_beta + n_items
    posterior, _ = engine.posterior(state)
    prior = np.exp(_log_class_prior(design, coefficients))
    matrix = np.zeros((d, d))
    chunk = max(1, INFORMATION_CHUNK_CELLS // max(1, classes * d))
    with one_blas_thread():
        # the logit's own Hessian, the same for every class (sum_h w_ih = 1)
        if n_beta:
            matrix[:n_beta, :n_beta] = -log_likelihood_hessian(design, counts[:, None] * prior,
                                                               coefficients)
        for start in range(0, design.shape[0], chunk):
            rows = slice(start, start + chunk)
            z, pi, w, c = design[rows], prior[rows], posterior[rows], counts[rows]
            m = z.shape[0]
            scores = np.zeros((classes, m, d))
            for h in range(classes):
                indicator = np.zeros((m, classes))
                indicator[:, h] = 1.0
                scores[h, :, :n_beta] = ((indicator - pi)[:, 1:, None]
                                         * z[:, None, :]).reshape(m, n_beta)
            for j, h, first in blocks:
                o, r = engine.offsets[j], engine.cards[j]
                states = cases.patterns[rows, j]
                one_hot = (states[:, None] == np.arange(r)).astype(float)
                scores[h, :, n_beta + first:n_beta + first + r - 1] = (
                    one_hot[:, :-1] / table[o:o + r - 1, h]
                    - one_hot[:, -1:] / table[o + r - 1, h])
            mean = np.einsum("ih,hid->id", w, scores)
            for h in range(classes):
                weighted = scores[h] * np.sqrt(c * w[:, h])[:, None]
                matrix -= weighted.T @ weighted
            root = mean * np.sqrt(c)[:, None]
            matrix += root.T @ root
    _add_item_curvature(matrix, engine, table, n_beta,
                        _observed_counts(engine, counts[:, None] * posterior))
    return Information(matrix, n_beta, fixed, engine.standardisation.free_jacobian(classes))


# --- what analysts read ---------------------------------------------------------------------
@dataclass(frozen=True)
class Coefficients:
    """The coefficients with their standard errors from the observed information of the full
    model (:func:`observed_information`), each array of shape ``(p, k - 1)``: row ``j`` the
    design's column ``j``, column ``c`` class ``c + 2`` against class 1.

    ``z = estimate / standard_error``, ``p`` its two-sided normal p value and ``odds_ratio =
    exp(estimate)``: the factor by which a unit more of the covariate (a level against the
    reference) multiplies the odds of the class against class 1. The standard errors are NaN
    where the information is not positive definite.
    """

    estimate: np.ndarray
    standard_error: np.ndarray
    z: np.ndarray
    p: np.ndarray
    odds_ratio: np.ndarray
    positive_definite: bool


def coefficient_table(fit: OneStepFit, information: Information) -> Coefficients:
    """:class:`Coefficients` of ``fit`` from its ``information``."""
    p = fit.coefficients.shape[0]
    n_beta = information.n_coefficients
    try:
        with one_blas_thread():  # the same bits on any number of cores
            np.linalg.cholesky(information.matrix)
            standard = np.linalg.inv(information.matrix)[:n_beta, :n_beta]
            with np.errstate(over="ignore", invalid="ignore"):  # a far outlier's 1/s^2
                variance = np.einsum("ij,jk,ik->i", information.jacobian, standard,
                                     information.jacobian)
        positive_definite = bool(np.all(variance > 0))
    except np.linalg.LinAlgError:
        variance, positive_definite = np.full(n_beta, np.nan), False
    error = coefficients_from_free(np.sqrt(np.where(variance > 0, variance, np.nan)), p)[:, 1:]
    estimate = fit.coefficients[:, 1:]
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        z = estimate / error
        odds = np.exp(estimate)
    return Coefficients(estimate, error, z, 2 * norm.sf(np.abs(z)), odds, positive_definite)


def log_prior_density(fit: OneStepFit, prior_sd: float) -> float:
    """``log p(theta, beta*)`` at the fit for the prior of its Laplace score: a symmetric
    Dirichlet(alpha) density on every item row (in its free entries; alpha = 1 is the uniform
    density, ``log (r - 1)!``) and a normal prior on the coefficients of the standardised
    design (each covariate column centred at its median and divided by its standard deviation:
    :class:`~hiddenbn.regression.multinomial_logit.Standardisation`), so that the prior, and
    the score, do not depend on a covariate's units or origin (Gelman et al. 2008).

    The normal prior treats the classes alike: per design column ``j``, the contrasts against
    class 1, ``delta_j = (beta*_j2, ..., beta*_jk)``, are normal with mean 0 and covariance
    ``prior_sd^2 (I + 11') / 2`` (the contrasts of ``k`` independent ``N(0, prior_sd^2 / 2)``
    class coefficients), independently over ``j``. Every contrast of two classes then has the
    standard deviation ``prior_sd``, and the density is the same whichever class is the
    reference, so the score does not depend on the classes' labels; for two classes it is
    ``N(0, prior_sd^2)`` on each coefficient."""
    alpha, k = fit.alpha, fit.coefficients.shape[1]
    cards = np.asarray(fit.cases.cards, dtype=float)
    dirichlet = k * float(np.sum(gammaln(cards * alpha) - cards * gammaln(alpha)))
    dirichlet += sum(float(xlogy(alpha - 1.0, table).sum()) for table in fit.cpts[1:])
    contrasts = fit.state[0][:, 1:]  # (p, k - 1)
    p = contrasts.shape[0]
    # (I + 11')^-1 = I - 11' / k, det(I + 11') = k
    quadratic = float(np.sum(contrasts ** 2) - np.sum(contrasts.sum(axis=1) ** 2) / k)
    normal = (-quadratic / prior_sd ** 2
              - 0.5 * ((k - 1) * p * np.log(np.pi * prior_sd ** 2) + p * np.log(k)))
    return dirichlet + normal


def one_step_scores(fit: OneStepFit, information: Information, prior_sd: float) -> tuple:
    """Every score of ``fit`` with ``d`` = :attr:`OneStepFit.n_parameters`, and the notes that
    explain a missing one.

    Returns ``(scores, fit_statistics, classification, notes)``: ``scores`` on the scale of
    ``log p(D | model)``, larger is better (``loglik``, ``bic_log_evidence`` = -BIC/2,
    ``draper`` = -BIC/2 + d/2 log 2 pi (paper 003 Eq. 10: Laplace's approximation without the
    prior density and the per-case information, which stay bounded as N grows with the
    covariates drawn independently, as the log-likelihood's d/2 log N assumes for BIC),
    ``icl_log_evidence`` = -BIC/2 less the classification entropy, ``laplace``: paper 003 Eq. 8
    at the ML fit (not the posterior mode) under the prior of :func:`log_prior_density`, with
    the negative Hessian of the log-likelihood plus log prior over every free parameter, the
    coefficients those of the standardised design (where the prior sits, so the score does not
    depend on a covariate's units or origin); None where an item probability is
    at 0, where the log-likelihood has no second derivative); ``fit_statistics``: AIC, BIC,
    SABIC and CAIC as ``-2 log L + penalty``, smaller is better
    (:func:`hiddenbn.scores.lca_statistics.information_criteria`); ``classification``: the
    entropy of the posteriors and its R^2.
    """
    from hiddenbn.scores.approximations import bic_log_evidence, draper
    from hiddenbn.scores.integrated_completed_likelihood import icl_log_evidence
    from hiddenbn.scores.lca_statistics import (classification_entropy, entropy_r2,
                                                information_criteria)

    d, n = fit.n_parameters, fit.n_cases
    log_likelihood = fit.log_likelihood
    bic = bic_log_evidence(log_likelihood, d, n)
    entropy = classification_entropy(fit.posterior(), fit.cases.counts)
    scores = {"loglik": log_likelihood, "bic_log_evidence": float(bic),
              "draper": float(draper(log_likelihood, d, n)),
              "icl_log_evidence": float(icl_log_evidence(bic, entropy)), "laplace": None}
    notes = []
    if information.fixed_rows:
        notes.append("no Laplace score: an item probability is at 0 (as ML fits often have), "
                     "where the log-likelihood has no second derivative; a prior alpha above 1 "
                     "keeps the fit inside")
    else:
        negative_hessian = _with_prior_curvature(fit, information, prior_sd)
        with one_blas_thread():
            result = laplace(log_likelihood, log_prior_density(fit, prior_sd), negative_hessian)
        if result.positive_definite:
            scores["laplace"] = result.value
        else:
            notes.append("no Laplace score: the negative Hessian is not positive definite here "
                         "(a direction the data do not identify)")
    statistics = {"log_likelihood": log_likelihood, "n_parameters": d,
                  **information_criteria(log_likelihood, d, n)}
    classes = fit.coefficients.shape[1]
    classification = {"entropy": entropy, "entropy_r2": entropy_r2(entropy, n, classes)}
    return scores, statistics, classification, notes


def _with_prior_curvature(fit: OneStepFit, information: Information, prior_sd: float):
    """The negative Hessian of log-likelihood + log prior (:func:`log_prior_density`): the
    information plus the normal prior's precision ``2 (I - 11' / k) (x) I_p / prior_sd^2`` on
    the coefficients (class-major, as the information orders them) and, for ``alpha > 1``,
    the Dirichlet's ``(alpha - 1) / theta^2`` terms of every item row."""
    matrix = information.matrix.copy()
    n_beta = information.n_coefficients
    p, k = fit.coefficients.shape
    precision = 2.0 * (np.eye(k - 1) - 1.0 / k) / prior_sd ** 2
    matrix[:n_beta, :n_beta] += np.kron(precision, np.eye(p))
    if fit.alpha != 1.0:
        table = fit.state[1]
        _add_item_curvature(matrix, fit.engine, table, n_beta,
                            np.full(table.shape, fit.alpha - 1.0))
    return matrix
