"""Three-step latent class regression: the measurement model, modal assignment, then the
covariate model corrected for the classification error (Vermunt 2010; Bakk, Tekle & Vermunt
2013).

The one-step estimator (:mod:`hiddenbn.regression.one_step`) fits the items and the covariate
model together, so adding a covariate can move the classes. The three-step estimator keeps
them as the items alone define them:

1. **Measurement model.** The latent class model of the items alone, by the project's search
   (:func:`measurement_model`; :func:`hiddenbn.learning.selection.search`).
2. **Classification.** Each case is assigned to its modal class ``w_i = argmax_s P(x = s |
   y_i)``, and the classification error matrix ``D[s, t] = P(w = t | x = s)`` is estimated
   from the posteriors (:func:`classify`).
3. **Covariate model.** The multinomial logit ``pi_s(z) = P(x = s | z)`` (class 1 the
   reference) of the assigned classes, with the assignment's error corrected by BCH or ML
   (:func:`covariate_step`); or uncorrected (``"naive"``), which Bakk et al. show biased
   toward zero, kept for comparison.

The standard errors of step 3 treat steps 1 and 2 as fixed (the measurement model and ``D``
known), as Vermunt (2010) and Bakk et al. (2013) do by default: they leave out step 1's
uncertainty, which Bakk, Oberski & Vermunt (2014) add, and which matters most when the classes
are poorly separated.

Examples
--------
>>> import numpy as np
>>> from hiddenbn.data.covariate_sampling import bakk_tekle_vermunt_model
>>> model = bakk_tekle_vermunt_model(0.9)
>>> sample = model.sample(2000, np.random.default_rng(1))
>>> rows = sample.frame[list(model.item_names)].to_numpy()
>>> estimate = three_step(rows, model.item_names, [2] * 6, sample.design, 3, "ml")
>>> estimate.method, estimate.coefficients.shape, estimate.standard_errors.shape
('ml', (2, 3), (2, 3))
"""

from __future__ import annotations

import dataclasses

import numpy as np
from scipy.special import logsumexp

from hiddenbn.data import Dataset
from hiddenbn.errors import HiddenbnError
from hiddenbn.inference.latent_class import class_log_joint, class_posteriors, modal_class
from hiddenbn.learning import selection
from hiddenbn.regression.multinomial_logit import (SEPARATION_PROBABILITY, SeparationError,
                                                   class_probabilities, coefficients_from_free,
                                                   fit_multinomial_logit,
                                                   log_likelihood_gradient,
                                                   log_likelihood_hessian)
from hiddenbn.util.defaults import PRIOR_ALPHA, THREE_STEP_CORRECTIONS

#: The corrections of step 3 (``--three-step``); ``"naive"``, the uncorrected estimate, is the
#: library's only, for comparison.
CORRECTIONS = THREE_STEP_CORRECTIONS
METHODS = CORRECTIONS + ("naive",)
#: The ML step 3 stops when a Newton step's predicted increase of the log-likelihood (half the
#: Newton decrement) is below this.
ML_TOLERANCE = 1e-10
#: Iterations of the ML step 3 at most (each a Newton or an EM step).
ML_MAX_ITERATIONS = 1000
#: The reciprocal condition number of ``D`` below which BCH's weights, from ``D``'s inverse,
#: are refused: the classes are then too poorly separated to undo the assignment's error.
BCH_MIN_RECIPROCAL_CONDITION = 1e-8


@dataclasses.dataclass(frozen=True)
class Classification:
    """Step 2: the modal assignment and its classification error.

    Attributes
    ----------
    posteriors : ndarray, shape (n, K)
        ``P(x_i = s | y_i)`` under the measurement model.
    assigned : ndarray of int, shape (n,)
        The modal class ``w_i`` of each case (0 for class 1).
    error_matrix : ndarray, shape (K, K)
        ``D[s, t] = P(w = t | x = s)``; each row sums to 1.
    counts : ndarray, shape (n,)
        How many cases each row stands for (ones for one row per case).
    """

    posteriors: np.ndarray
    assigned: np.ndarray
    error_matrix: np.ndarray
    counts: np.ndarray

    @property
    def n_classes(self) -> int:
        return self.error_matrix.shape[0]


@dataclasses.dataclass(frozen=True)
class ThreeStepEstimate:
    """Step 3: the covariate model's coefficients and their standard errors.

    Attributes
    ----------
    method : str
        ``"bch"``, ``"ml"`` or ``"naive"``.
    coefficients : ndarray, shape (p, K)
        The logit coefficients, a row per design column, a column per class; column 0
        (class 1, the reference) is zero.
    covariance : ndarray, shape (p (K - 1), p (K - 1))
        The covariance of the free coefficients, class 2's p coefficients then class 3's ...
        (:func:`~hiddenbn.regression.multinomial_logit.free_coefficients`), with steps 1 and 2
        fixed.
    standard_errors : ndarray, shape (p, K)
        The square roots of the covariance's diagonal in the shape of ``coefficients``
        (column 0 zero).
    log_likelihood : float or None
        Step 3's maximised log-likelihood (ML: of the assigned classes given the covariates;
        naive: of the assigned classes as if they were the true ones); None for BCH, whose
        weighted objective is no likelihood.
    iterations : int
        The iterations of step 3's maximisation (0 for BCH and naive, which are one weighted
        logit fit).
    classification : Classification
        Step 2, which step 3 corrected for.
    """

    method: str
    coefficients: np.ndarray
    covariance: np.ndarray
    standard_errors: np.ndarray
    log_likelihood: float | None
    iterations: int
    classification: Classification


@dataclasses.dataclass(frozen=True)
class ThreeStepFit:
    """A three-step latent class regression of grouped cases (:func:`fit_three_step`): step 1's
    measurement model and step 3's estimate, answering as
    :class:`hiddenbn.regression.one_step.OneStepFit` does where a report reads them.

    Attributes
    ----------
    measurement : hiddenbn.learning.em.Fit
        Step 1: the latent class model of the items (its ``network``, ``cpts``, search).
    estimate : ThreeStepEstimate
        Steps 2 and 3.
    covariate_names : tuple of str
        The design's column names, the first ``"(intercept)"``.
    patterns, design, counts : ndarray
        The fitted rows: items, covariate rows, how many cases each stands for.
    """

    measurement: object
    estimate: ThreeStepEstimate
    covariate_names: tuple
    patterns: np.ndarray
    design: np.ndarray
    counts: np.ndarray

    @property
    def method(self) -> str:
        return self.estimate.method

    @property
    def coefficients(self) -> np.ndarray:
        return self.estimate.coefficients

    @property
    def network(self):
        return self.measurement.network

    @property
    def cpts(self) -> list:
        return self.measurement.cpts

    @property
    def n_cases(self) -> int:
        return int(round(float(self.counts.sum())))

    @property
    def log_likelihood(self) -> float:
        """Step 1's: the log-likelihood of the items under the measurement model."""
        return self.measurement.log_likelihood

    @property
    def log_posterior(self) -> float:
        return self.measurement.log_posterior

    @property
    def converged(self) -> bool:
        """Whether step 1's EM converged (step 3 refuses to end unconverged)."""
        return self.measurement.converged

    @property
    def replicated(self) -> bool:
        """Whether more than one of step 1's searches reached its best fit."""
        return self.measurement.replicated

    def class_probabilities(self, design) -> np.ndarray:
        """``pi_s(z)`` of each covariate row of ``design``, shape ``(rows, K)``: step 3's
        predicted class probabilities."""
        return class_probabilities(np.atleast_2d(np.asarray(design, dtype=float)),
                                   self.coefficients)

    def posterior(self, patterns=None, design=None) -> np.ndarray:
        """``p(s | y, z)`` of each row of ``patterns`` with its covariate row ``design``
        (default: the fitted rows), shape ``(m, K)``: ``pi_s(z) prod_j p(y_j | s)`` (step 3's
        class probabilities, step 1's item tables) normalised."""
        patterns = self.patterns if patterns is None else np.asarray(patterns)
        design = self.design if design is None else np.asarray(design, dtype=float)
        with np.errstate(divide="ignore"):
            log_joint = (class_log_joint(self.cpts, patterns) - np.log(self.cpts[0][0])
                         + np.log(self.class_probabilities(design)))
        return np.exp(log_joint - logsumexp(log_joint, axis=1, keepdims=True))


def fit_three_step(network, patterns, design, counts, method: str = "bch",
                   covariate_names=None, *, seed: int = 0, alpha: float = PRIOR_ALPHA,
                   restarts: int | None = None, **em_options) -> ThreeStepFit:
    """Three-step latent class regression of grouped cases, as ``hiddenbn fit --covariates
    A,B --three-step bch|ml`` runs it.

    Parameters
    ----------
    network : Network
        The latent class model of the items (:func:`hiddenbn.models.network.latent_class`).
    patterns : int array, shape (m, J)
        The items of each row, in the network's order (``MISSING`` where missing).
    design : ndarray, shape (m, p)
        The covariate row of each row, the first entry 1.
    counts : ndarray, shape (m,)
        How many cases each row stands for.
    method : {"bch", "ml", "naive"}
        Step 3's correction (:func:`covariate_step`).
    covariate_names : sequence of str, optional
        The design's column names (default ``(intercept)``, ``z1``, ...).
    seed, alpha, restarts, em_options
        Step 1's search, as ``hiddenbn fit`` runs it
        (:func:`hiddenbn.learning.selection.search`).

    Returns
    -------
    ThreeStepFit
    """
    design = np.asarray(design, dtype=float)
    counts = np.asarray(counts, dtype=float)
    names = (("(intercept)",) + tuple(f"z{c}" for c in range(1, design.shape[1]))
             if covariate_names is None else tuple(covariate_names))
    items = Dataset.from_rows(network.observed_names, np.asarray(patterns),
                              network.cardinalities[1:], counts)
    measurement = selection.search(network, items, seed, alpha, restarts, **em_options)
    posteriors, _ = class_posteriors(measurement.network, measurement.cpts, patterns)
    estimate = covariate_step(design, classify(posteriors, counts), method, names=names)
    return ThreeStepFit(measurement, estimate, names, np.asarray(patterns), design, counts)


def measurement_model(rows, names, cardinalities, n_classes: int, seed: int = 0,
                      alpha: float = PRIOR_ALPHA, restarts: int | None = None, **em_options):
    """Step 1: the latent class model of the items alone, fitted as ``hiddenbn fit --classes
    K`` fits it (:func:`hiddenbn.learning.selection.search`; ``em_options`` as there).

    Parameters
    ----------
    rows : int array, shape (n, J)
        The items of each case, states ``0..r_j - 1`` or :data:`hiddenbn.data.MISSING`.
    names, cardinalities : sequence
        The items' names and numbers of states.
    n_classes : int
        K.

    Returns
    -------
    hiddenbn.learning.em.Fit
    """
    dataset = Dataset.from_rows(tuple(names), np.asarray(rows), tuple(cardinalities))
    network = selection.latent_class_network(dataset, n_classes)
    return selection.search(network, dataset, seed, alpha, restarts, **em_options)


def classify(posteriors, counts=None) -> Classification:
    """Step 2: modal assignment and its classification error matrix.

    Each case goes to its modal class ``w_i = argmax_s P(x = s | y_i)``, and

        D[s, t] = P(w = t | x = s)
                = sum_i P(x = s | y_i) [w_i = t] / sum_i P(x = s | y_i),

    the estimate of Vermunt (2010) for modal assignment (Bakk, Tekle & Vermunt 2013 write it
    ``P(W = t | X = s) = (1/N) sum_i P(X = s | y_i) P(W = t | y_i) / P(X = s)`` with ``P(W =
    t | y_i)`` one for the modal class).

    Parameters
    ----------
    posteriors : ndarray, shape (n, K)
        ``P(x = s | y_i)``, rows summing to 1.
    counts : ndarray, shape (n,), optional
        How many cases each row stands for (rows of identical cases grouped); default one
        each. The sums above, and step 3's, count each row that many times.

    Returns
    -------
    Classification
    """
    posteriors = np.asarray(posteriors, dtype=float)
    counts = (np.ones(posteriors.shape[0]) if counts is None
              else np.asarray(counts, dtype=float))
    if counts.shape != posteriors.shape[:1] or not (counts >= 0).all():
        raise HiddenbnError(f"expected a count of at least 0 for each of the "
                            f"{posteriors.shape[0]} rows, got {counts.size} counts")
    assigned = modal_class(posteriors)
    n_classes = posteriors.shape[1]
    totals = counts @ posteriors
    if (totals <= 0).any():
        raise HiddenbnError(f"class {int(np.argmin(totals)) + 1} has no case with posterior "
                            "weight; fit the measurement model with fewer classes")
    assigned_indicator = np.eye(n_classes)[assigned]
    error_matrix = (counts[:, None] * posteriors).T @ assigned_indicator / totals[:, None]
    return Classification(posteriors, assigned, error_matrix, counts)


def bch_weights(classification: Classification) -> np.ndarray:
    """BCH's case weights, shape ``(n, K)``: ``w_is = (D^-1)[w_i, s]``.

    Since ``P(w = t | z) = sum_s pi_s(z) D[s, t]``, the distribution of the true class is
    ``pi(z)' = P(w | z)' D^-1``; weighting the indicator of the assigned class by ``D^-1``
    undoes the assignment's error in expectation (Bolck, Croon & Hagenaars 2004; Vermunt 2010).
    Each case's weights sum to 1 (``D``'s rows do, hence ``D^-1``'s); some are negative.
    """
    matrix = classification.error_matrix
    if 1.0 / np.linalg.cond(matrix) < BCH_MIN_RECIPROCAL_CONDITION:
        raise HiddenbnError("the classification error matrix is singular (the classes are "
                            "too poorly separated to undo the assignment's error by its "
                            "inverse); use the ML correction, or fewer classes")
    return np.linalg.inv(matrix)[classification.assigned]


def covariate_step(design, classification: Classification, method: str = "bch", *,
                   start=None, names=None) -> ThreeStepEstimate:
    """Step 3: the multinomial logit of the class on the covariates, corrected for the
    classification error of step 2.

    ``pi_s(z_i) = exp(z_i' beta_s) / sum_l exp(z_i' beta_l)``, ``beta_1 = 0``. With ``w_i``
    the assigned class and ``D`` the error matrix (:func:`classify`):

    * ``"naive"``: maximise ``sum_i log pi_{w_i}(z_i)``, the assigned class taken for the
      true one; biased toward zero (Bolck, Croon & Hagenaars 2004). Standard errors from the
      observed information.
    * ``"bch"``: maximise ``sum_i sum_s d*_{w_i s} log pi_s(z_i)`` with ``d*`` the elements of
      ``D^-1`` (:func:`bch_weights`; Vermunt 2010, after Bolck, Croon & Hagenaars 2004).
      Standard errors by the sandwich (robust) estimator ``A^-1 B A^-1``, ``A`` the negative
      Hessian, ``B = sum_i g_i g_i'`` of the cases' gradients ``g_i``: the weights are no
      counts of cases, so ``A^-1`` alone is not the covariance.
    * ``"ml"``: maximise ``sum_i log sum_s pi_s(z_i) D[s, w_i]``, the likelihood of the
      assigned classes with ``D`` fixed (Vermunt 2010; Bakk, Tekle & Vermunt 2013), by
      safeguarded Newton steps on it (an EM step, whose M step is the weighted logit of the
      posteriors ``q_is ~ pi_s(z_i) D[s, w_i]``, where a Newton step does not increase it).
      Standard errors from the observed information, by Louis's (1982) identity
      ``I = sum_i (C(pi_i) - C(q_i)) (x) z_i z_i'`` with ``C(v) = diag(v) - v v'`` over the
      classes but the first (:func:`score_covariance`).

    Parameters
    ----------
    design : ndarray, shape (n, p)
        The design matrix (a first column of ones), one row per case of ``classification``.
    classification : Classification
        Step 2.
    method : {"bch", "ml", "naive"}
    start : ndarray, shape (p, K), optional
        Where the ML maximisation starts (default: the naive estimate).
    names : sequence of str, optional
        The design's column names, for the message of a separation.

    Returns
    -------
    ThreeStepEstimate
    """
    if method not in METHODS:
        raise HiddenbnError(f"unknown three-step correction {method!r}; choose one of "
                            f"{', '.join(CORRECTIONS)}")
    if classification.n_classes < 2:
        raise HiddenbnError("the covariates predict which of the classes a case is in, and "
                            "the model has one class; give 2 classes or more")
    design = np.asarray(design, dtype=float)
    if design.ndim != 2 or design.shape[0] != classification.assigned.size:
        raise HiddenbnError(f"the design matrix has {design.shape[0]} rows and the "
                            f"classification {classification.assigned.size} cases; give one "
                            "design row per case")
    counts = classification.counts[:, None]
    assigned_indicator = np.eye(classification.n_classes)[classification.assigned]
    if method == "naive":
        return _weighted_estimate(design, assigned_indicator, classification, method, names)
    if method == "bch":
        return _weighted_estimate(design, bch_weights(classification), classification, method,
                                  names)
    if start is None:
        try:
            start = fit_multinomial_logit(design, counts * assigned_indicator).coefficients
        except SeparationError:  # the assigned classes separated, the true ones perhaps not
            start = np.zeros((design.shape[1], classification.n_classes))
    return _ml_estimate(design, classification, np.asarray(start, dtype=float), names)


def three_step(rows, names, cardinalities, design, n_classes: int, method: str = "bch", *,
               seed: int = 0, **em_options) -> ThreeStepEstimate:
    """The three steps in one call: :func:`measurement_model` of the items ``rows``,
    :func:`classify` by its posteriors, :func:`covariate_step` with ``design`` (one row per
    row of ``rows``) and ``method``; ``seed`` and ``em_options`` go to step 1."""
    fit = measurement_model(rows, names, cardinalities, n_classes, seed, **em_options)
    posteriors, _ = class_posteriors(fit.network, fit.cpts, np.asarray(rows))
    return covariate_step(design, classify(posteriors), method)


# --- the pieces ------------------------------------------------------------------------------
def _weighted_estimate(design, weights, classification, method, names) -> ThreeStepEstimate:
    """The naive or BCH estimate: one weighted logit fit, with its standard errors."""
    counts = classification.counts
    fit = fit_multinomial_logit(design, counts[:, None] * weights, names=names)
    if method == "naive":
        return _estimate(method, fit.coefficients, fit.covariance, fit.log_likelihood, 0,
                         classification)
    # the weights sum to 1 per case, so -H is the unweighted logit's information: the bread
    scores = case_scores(design, weights, class_probabilities(design, fit.coefficients))
    covariance = fit.covariance @ (scores.T @ (counts[:, None] * scores)) @ fit.covariance
    return _estimate(method, fit.coefficients, covariance, None, 0, classification)


def _ml_estimate(design, classification, coefficients, names) -> ThreeStepEstimate:
    """The ML estimate from ``coefficients``; see :func:`covariate_step`."""
    log_error = np.log(np.maximum(classification.error_matrix, np.finfo(float).tiny))
    log_emission = log_error[:, classification.assigned].T  # (n, K): log D[s, w_i]
    counts = classification.counts
    value, posteriors = _ml_terms(design, log_emission, counts, coefficients)
    for iterations in range(1, ML_MAX_ITERATIONS + 1):
        # the gradient of the ML objective is that of the logit weighted by the posteriors
        gradient = log_likelihood_gradient(design, counts[:, None] * posteriors, coefficients)
        step = _newton_step(_ml_information(design, posteriors, counts, coefficients),
                            gradient)
        if step is not None:
            if gradient @ step / 2 < ML_TOLERANCE:
                break
            candidate = coefficients + coefficients_from_free(step, design.shape[1])
            terms = _ml_terms(design, log_emission, counts, candidate)
            if terms[0] > value:
                coefficients, (value, posteriors) = candidate, terms
                continue
        # EM's step, which never decreases the log-likelihood
        candidate = fit_multinomial_logit(design, counts[:, None] * posteriors,
                                          start=coefficients).coefficients
        terms = _ml_terms(design, log_emission, counts, candidate)
        gain = terms[0] - value
        coefficients, (value, posteriors) = candidate, terms
        if gain <= ML_TOLERANCE:
            break
    else:
        raise HiddenbnError(f"the ML step 3 did not converge in {ML_MAX_ITERATIONS} "
                            "iterations; try the BCH correction")
    if class_probabilities(design, coefficients).min() < SEPARATION_PROBABILITY:
        # the posteriors of the diverging classes have fallen to 0 in the separated rows, so
        # the logit weighted by them names the covariate and the class as the others do
        fit_multinomial_logit(design, counts[:, None] * posteriors, start=coefficients,
                              names=names)
        raise SeparationError("the ML step 3's coefficients run to infinity (the covariates "
                              "separate the classes); use fewer covariates or merge levels")
    information = _ml_information(design, posteriors, counts, coefficients)
    try:
        np.linalg.cholesky(information)
    except np.linalg.LinAlgError:
        raise HiddenbnError("the ML step 3's information matrix is singular at its maximum "
                            "(a coefficient is not identified by the assigned classes); "
                            "use fewer covariates or classes") from None
    return _estimate("ml", coefficients, np.linalg.inv(information), value, iterations,
                     classification)


def _ml_terms(design, log_emission, counts, coefficients):
    """``(log-likelihood, posteriors q)`` of the ML step 3 at ``coefficients``."""
    with np.errstate(divide="ignore"):
        log_joint = np.log(class_probabilities(design, coefficients)) + log_emission
    log_marginal = logsumexp(log_joint, axis=1)
    return float(counts @ log_marginal), np.exp(log_joint - log_marginal[:, None])


def _ml_information(design, posteriors, counts, coefficients) -> np.ndarray:
    """The observed information of the ML step 3 by Louis's (1982) identity: the complete
    data's, ``-H`` of the logit (the same for any weights summing to 1 per case), less the
    covariance of the complete data's score under the posteriors (:func:`score_covariance`)."""
    return (-log_likelihood_hessian(design, counts[:, None] * posteriors, coefficients)
            - score_covariance(design, posteriors, counts))


def _newton_step(information, gradient):
    """``information^-1 gradient``, or None where the information is not positive definite
    (away from the maximum, where EM's step is taken instead)."""
    try:
        factor = np.linalg.cholesky(information)
    except np.linalg.LinAlgError:
        return None
    return np.linalg.solve(factor.T, np.linalg.solve(factor, gradient))


def score_covariance(design, posteriors, counts) -> np.ndarray:
    """``sum_i c_i (diag q_i - q_i q_i') (x) z_i z_i'`` over the classes but the first, in the
    order of :func:`~hiddenbn.regression.multinomial_logit.free_coefficients`: the covariance
    of the complete-data score ``(e_x - pi_i) (x) z_i`` of a multinomial logit when case
    ``i``'s class ``x`` has the distribution ``q_i``, row ``i`` standing for ``c_i`` cases."""
    free = np.asarray(posteriors)[:, 1:]
    spread = np.einsum("ik,km->ikm", free, np.eye(free.shape[1])) \
        - np.einsum("ik,im->ikm", free, free)
    p, k = design.shape[1], free.shape[1]
    return np.einsum("i,ikm,ij,il->kjml", counts, spread, design, design).reshape(p * k, p * k)


def case_scores(design, weights, probabilities) -> np.ndarray:
    """Each case's gradient of ``sum_s w_is log pi_s(z_i)`` in the free coefficients (the
    order of :func:`~hiddenbn.regression.multinomial_logit.free_coefficients`), shape ``(n,
    p (K - 1))``: ``(w_is - pi_is) z_i`` for weights summing to 1."""
    residual = (np.asarray(weights) - probabilities)[:, 1:]
    return np.einsum("ik,ij->ikj", residual, design).reshape(design.shape[0], -1)


def _estimate(method, coefficients, covariance, log_likelihood, iterations,
              classification) -> ThreeStepEstimate:
    standard_errors = coefficients_from_free(np.sqrt(np.diag(covariance)),
                                             coefficients.shape[0])
    return ThreeStepEstimate(method, coefficients, covariance, standard_errors,
                             log_likelihood, iterations, classification)
