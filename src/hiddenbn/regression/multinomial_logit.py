"""The class-membership model: a multinomial logit with class 1 as the reference.

With the design matrix ``X`` (n x p, :mod:`hiddenbn.regression.covariates`) and coefficients
``B`` (p x K, column 0 zeros), row ``i`` belongs to class ``k`` with probability

    pi_k(x_i) = exp(x_i B_k) / sum_m exp(x_i B_m)

(Vermunt 2010, eq. 2; Bakk, Tekle & Vermunt 2013, eq. 1). :func:`fit_multinomial_logit`
maximises the weighted log-likelihood

    l(B) = sum_i sum_k w_ik log pi_k(x_i)

over the free coefficients, for weights that are EM posteriors (the M step of one-step latent
class regression), hard assignments (modal assignment, or a plain multinomial logit), or the
BCH weights of three-step estimation, which may be negative. The free coefficients are ordered
class 2's p coefficients, then class 3's, and so on (:func:`free_coefficients`); the gradient
and the Hessian (:func:`log_likelihood_gradient`, :func:`log_likelihood_hessian`) use that
order. Row ``i``'s share of the Hessian is ``-W_i x_i x_i' (x) (diag pi - pi pi')`` with
``W_i = sum_k w_ik``: concave where every ``W_i >= 0`` (BCH weights sum to 1 per row), however
the single weights' signs.

**Coordinates.** :func:`fit_multinomial_logit` runs Newton's method on the standardised design
(:class:`Standardisation`: each column but the intercept centred at its median and divided by
its standard deviation) and maps the estimate, the gradient, the Hessian and the covariance
back exactly, so that a covariate's units and origin change only its own coefficients, and
not the conditioning of the steps.

**Separation.** When the classes are (quasi-)completely separated in the sense of Albert &
Anderson (1984), the likelihood increases without bound or to a supremum it never attains, as
some coefficient runs to infinity; no maximum likelihood estimate exists. It is checked exactly
by linear programming (the recession-direction check of Konis 2007, written for the weighted
multinomial logit): a direction ``D`` of the coefficients along which no row's term of ``l``
decreases and some row's fitted probabilities move. :func:`fit_multinomial_logit` runs it when
the Newton iterations show its signs (no convergence, or a fitted probability below
:data:`SEPARATION_PROBABILITY`), and raises a :class:`SeparationError` naming the
covariate and the class whose coefficient diverges most.

References: Albert, A. & Anderson, J. A. (1984), On the existence of maximum likelihood
estimates in logistic regression models, *Biometrika* 71, 1-10. Konis, K. (2007), *Linear
programming algorithms for detecting separated data in binary logistic regression models*,
DPhil thesis, University of Oxford.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from hiddenbn.errors import DataError

#: A fitted probability below this is read as a sign of separation (a coefficient on its way
#: to infinity drives some row's probabilities to 0 and 1), and the exact check is run.
SEPARATION_PROBABILITY = 1e-8
#: Step halvings tried before a Newton step is given up as not increasing the likelihood.
MAX_HALVINGS = 40


class SeparationError(DataError):
    """The class memberships are separated by the covariates: a coefficient runs to infinity,
    so the multinomial logit has no maximum likelihood estimate."""


@dataclass(frozen=True)
class MultinomialLogitFit:
    """A fitted multinomial logit.

    Attributes
    ----------
    coefficients : ndarray, shape (p, K)
        ``B``: column ``k`` the coefficients of class ``k + 1`` against class 1 (column 0
        zeros).
    log_likelihood : float
        The weighted log-likelihood ``l(B)`` at the estimate.
    gradient : ndarray, shape (p (K - 1),)
        Its gradient in the free coefficients (:func:`log_likelihood_gradient`): near zero
        at convergence.
    hessian : ndarray, shape (p (K - 1), p (K - 1))
        Its Hessian in the free coefficients (:func:`log_likelihood_hessian`).
    covariance : ndarray, shape (p (K - 1), p (K - 1))
        ``(-hessian)^-1``, the covariance of the free coefficients (class 2's p coefficients,
        then class 3's, ...) when the weights are the data's classes (hard assignments); NaN
        where ``-hessian`` is not positive definite. (Latent class regression corrects it
        for the classes being estimated.)
    iterations : int
        Newton iterations taken.
    converged : bool
        Whether the Newton decrement fell below the tolerance within the iterations allowed.
    """

    coefficients: np.ndarray
    log_likelihood: float
    gradient: np.ndarray
    hessian: np.ndarray
    covariance: np.ndarray
    iterations: int
    converged: bool

    @property
    def standard_errors(self) -> np.ndarray:
        """The standard errors of the free coefficients, shape (p, K - 1): column ``k`` is
        class ``k + 2``'s."""
        return coefficients_from_free(np.sqrt(np.diag(self.covariance)),
                                      self.coefficients.shape[0])[:, 1:]


@dataclass(frozen=True)
class Standardisation:
    """The standardised design: every column but the first (the intercept) centred at its
    median (the lower one of an even count) and divided by its sample standard deviation
    (n - 1), over the rows counted by ``counts``. Every column, a dummy too: the design alone
    defines it, and a dummy's coefficient is then per standard deviation of the level's share.
    The median, not the mean, because a far outlier would move the mean so far that the other
    rows' differences are lost to rounding once it is subtracted.

    ``X = X* M`` with ``X*`` the standardised design and ``M`` upper triangular (``M[0, 0] =
    1``, ``M[0, j] = c_j``, ``M[j, j] = s_j``), so ``X B = X* B*`` for ``B* = M B``: the same
    model in other coordinates. Fitting in them makes Newton's method and the information
    independent of a covariate's units and origin, keeps a far outlier from overflowing, and
    is where the normal prior of the Laplace score sits (Gelman, Jakulin, Pittau & Su 2008,
    Sec. 2; rstanarm's ``autoscale``). A constant column (there is none in a checked design)
    is left as it is.

    Attributes
    ----------
    centres, scales : ndarray, shape (p,)
        ``c_j`` and ``s_j`` (0 and 1 for the intercept).
    """

    centres: np.ndarray
    scales: np.ndarray

    @classmethod
    def of(cls, matrix, counts=None) -> "Standardisation":
        """The standardisation of ``matrix`` (n x p, first column ones), its rows counted
        ``counts`` times (default once)."""
        matrix = np.asarray(matrix, dtype=float)
        counts = np.ones(matrix.shape[0]) if counts is None else np.asarray(counts, float)
        total = counts.sum()
        order = np.argsort(matrix, axis=0, kind="stable")
        below = np.cumsum(counts[order], axis=0) >= total / 2
        centres = np.take_along_axis(matrix, order, axis=0)[below.argmax(axis=0),
                                                            np.arange(matrix.shape[1])]
        spread = matrix - centres
        # scaled by the largest deviation first: a far outlier's square would overflow
        largest = np.abs(spread).max(axis=0)
        ratio = np.divide(spread, largest, out=np.zeros_like(spread), where=largest > 0)
        ratio -= counts @ ratio / total  # deviations from the mean
        scales = largest * np.sqrt(counts @ ratio ** 2 / max(total - 1.0, 1.0))
        constant = ~(scales > 0)
        constant[0] = True
        return cls(np.where(constant, 0.0, centres), np.where(constant, 1.0, scales))

    def design(self, matrix) -> np.ndarray:
        """``X*``: the rows of ``matrix`` standardised."""
        return (np.asarray(matrix, dtype=float) - self.centres) / self.scales

    def to_standard(self, coefficients) -> np.ndarray:
        """``B* = M B`` (p x K)."""
        coefficients = np.asarray(coefficients, dtype=float)
        standard = coefficients * self.scales[:, None]
        standard[0] = coefficients[0] + self.centres @ coefficients
        return standard

    def from_standard(self, standard) -> np.ndarray:
        """``B = M^-1 B*`` (p x K)."""
        coefficients = np.asarray(standard, dtype=float) / self.scales[:, None]
        coefficients[0] = standard[0] - self.centres[1:] @ coefficients[1:]
        return coefficients

    def free_jacobian(self, n_classes: int) -> np.ndarray:
        """``d free(B) / d free(B*)``: ``M^-1`` once per free class, block diagonal in the
        order of :func:`free_coefficients`. A covariance in the standardised coordinates
        ``C*`` is ``J C* J'`` in the design's."""
        inverse = np.diag(1.0 / self.scales)
        inverse[0, 1:] = -self.centres[1:] / self.scales[1:]
        return np.kron(np.eye(n_classes - 1), inverse)

    def free_map(self, n_classes: int) -> np.ndarray:
        """``d free(B*) / d free(B)``: ``M`` once per free class, block diagonal. A Hessian in
        the standardised coordinates ``H*`` is ``A' H* A`` in the design's."""
        forward = np.diag(self.scales)
        forward[0, 1:] = self.centres[1:]
        return np.kron(np.eye(n_classes - 1), forward)


def class_probabilities(matrix, coefficients) -> np.ndarray:
    """``pi_k(x_i)``: the softmax of ``matrix @ coefficients`` per row, computed after
    subtracting each row's largest linear predictor (no overflow).

    Parameters
    ----------
    matrix : array_like, shape (n, p)
        The design matrix (first column ones).
    coefficients : array_like, shape (p, K)
        ``B``, column 0 zeros.

    Returns
    -------
    ndarray, shape (n, K)
        Each row sums to 1.
    """
    return np.exp(log_class_probabilities(matrix, coefficients))


def log_class_probabilities(matrix, coefficients) -> np.ndarray:
    """``log pi_k(x_i)``, shape (n, K), without overflow or underflow to ``-inf``."""
    predictor = np.asarray(matrix, dtype=float) @ np.asarray(coefficients, dtype=float)
    shifted = predictor - predictor.max(axis=1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))


def free_coefficients(coefficients) -> np.ndarray:
    """The free coefficients of ``B`` (p x K) as one vector: class 2's p coefficients, then
    class 3's, ... (the order of the gradient, the Hessian and the covariance)."""
    return np.asarray(coefficients, dtype=float)[:, 1:].T.ravel()


def coefficients_from_free(free, n_columns: int) -> np.ndarray:
    """``B`` (p x K, column 0 zeros) from the free coefficients (:func:`free_coefficients`)."""
    free = np.asarray(free, dtype=float).reshape(-1, n_columns).T
    return np.column_stack([np.zeros(n_columns), free])


def weighted_log_likelihood(matrix, weights, coefficients) -> float:
    """``l(B) = sum_i sum_k w_ik log pi_k(x_i)``.

    Parameters
    ----------
    matrix : array_like, shape (n, p)
        The design matrix (first column ones).
    weights : array_like, shape (n, K)
        ``w_ik`` (:func:`fit_multinomial_logit`).
    coefficients : array_like, shape (p, K)
        ``B``, column 0 zeros.

    Returns
    -------
    float
    """
    return float(np.sum(np.asarray(weights, dtype=float)
                        * log_class_probabilities(matrix, coefficients)))


def log_likelihood_gradient(matrix, weights, coefficients) -> np.ndarray:
    """The gradient of :func:`weighted_log_likelihood` in the free coefficients:
    ``sum_i x_i (w_ik - W_i pi_ik)`` for classes ``k = 2..K``, as one vector in the order of
    :func:`free_coefficients`.

    Parameters
    ----------
    matrix, weights, coefficients
        As :func:`weighted_log_likelihood`.

    Returns
    -------
    ndarray, shape (p (K - 1),)
    """
    matrix, weights = np.asarray(matrix, dtype=float), np.asarray(weights, dtype=float)
    residual = weights - weights.sum(axis=1, keepdims=True) * class_probabilities(
        matrix, coefficients)
    return free_coefficients(matrix.T @ residual)


def log_likelihood_hessian(matrix, weights, coefficients) -> np.ndarray:
    """The Hessian of :func:`weighted_log_likelihood` in the free coefficients,
    ``-sum_i W_i (diag pi_i - pi_i pi_i') (x) x_i x_i'`` over classes ``2..K``, in the order of
    :func:`free_coefficients` (block ``(k, m)``: classes ``k + 2`` and ``m + 2``). Its negative
    is the observed information of ``B`` where the weights are known classes. The parameters
    are those of :func:`weighted_log_likelihood`.

    Returns
    -------
    ndarray, shape (p (K - 1), p (K - 1))
    """
    matrix, weights = np.asarray(matrix, dtype=float), np.asarray(weights, dtype=float)
    probabilities = class_probabilities(matrix, coefficients)[:, 1:]
    total = weights.sum(axis=1)
    n_columns, n_free = matrix.shape[1], probabilities.shape[1]
    hessian = np.empty((n_free * n_columns,) * 2)
    for k in range(n_free):
        for m in range(k, n_free):
            share = total * probabilities[:, k] * ((k == m) - probabilities[:, m])
            block = -(matrix.T * share) @ matrix
            hessian[k * n_columns:(k + 1) * n_columns, m * n_columns:(m + 1) * n_columns] = block
            hessian[m * n_columns:(m + 1) * n_columns, k * n_columns:(k + 1) * n_columns] = block.T
    return hessian


def fit_multinomial_logit(matrix, weights, *, start=None, tolerance: float = 1e-10,
                          max_iterations: int = 100, names=None) -> MultinomialLogitFit:
    """Maximise the weighted log-likelihood by Newton's method (iteratively reweighted least
    squares) with step halving.

    Each step solves ``(-H) s = g`` (gradient ``g``, Hessian ``H``); where ``-H`` is not
    positive definite (negative weights can make it so), a multiple of the identity is added
    until it is (Levenberg's damping), so the step still goes uphill. A step that does not
    increase ``l`` is halved, up to :data:`MAX_HALVINGS` times. The iterations stop when the
    Newton decrement ``g' s / 2`` (the increase of ``l`` the quadratic model still expects) is
    below ``tolerance`` times ``max(1, |l|)``.

    Parameters
    ----------
    matrix : array_like, shape (n, p)
        The design matrix (full column rank:
        :func:`~hiddenbn.regression.covariates.covariate_design` checks it).
    weights : array_like, shape (n, K)
        ``w_ik``: posteriors, hard assignments (0/1, or counts), or BCH weights (which may be
        negative; each row's sum should be at least 0).
    start : array_like, shape (p, K), optional
        Starting coefficients (column 0 is ignored: class 1 is the reference); default zeros.
    tolerance : float
        Of the Newton decrement, relative to ``max(1, |l|)``.
    max_iterations : int
        Newton iterations at most (:attr:`MultinomialLogitFit.converged` says whether they
        sufficed).
    names : sequence of str, optional
        The columns' names (:attr:`~hiddenbn.regression.covariates.CovariateDesign.names`),
        for the message of a separation.

    Returns
    -------
    MultinomialLogitFit

    Raises
    ------
    SeparationError
        When the fit diverges and a direction of separation is found (module docstring).

    Examples
    --------
    Two classes along one covariate ``x`` (as a binary logistic regression):

    >>> x = np.array([0.0, 1, 1, 2, 2, 3, 3, 4])
    >>> classes = np.array([0, 0, 1, 0, 1, 0, 1, 1])
    >>> fit = fit_multinomial_logit(np.column_stack([np.ones(8), x]), np.eye(2)[classes])
    >>> fit.converged, fit.coefficients[:, 1].round(3).tolist()
    (True, [-1.513, 0.756])
    >>> fit.standard_errors.round(3).tolist()  # (intercept), x; class 2
    [[1.596], [0.698]]
    """
    matrix, weights = np.asarray(matrix, dtype=float), np.asarray(weights, dtype=float)
    if matrix.ndim != 2 or weights.ndim != 2 or matrix.shape[0] != weights.shape[0] \
            or weights.shape[1] < 2:
        raise DataError(f"need a design matrix (n x p) and weights (n x K, K >= 2) with as many "
                        f"rows, got shapes {matrix.shape} and {weights.shape}")
    if not (np.isfinite(matrix).all() and np.isfinite(weights).all()):
        raise DataError("the design matrix or the weights have a value that is not finite; "
                        "give finite numbers")
    n_columns, n_classes = matrix.shape[1], weights.shape[1]
    # Newton runs on the standardised design (its conditioning independent of the covariates'
    # units and origin); the estimate and its derivatives are mapped back exactly
    standardisation = Standardisation.of(matrix)
    standard = standardisation.design(matrix)
    coefficients = np.zeros((n_columns, n_classes))
    if start is not None:
        coefficients[:, 1:] = standardisation.to_standard(np.asarray(start, dtype=float))[:, 1:]
    log_likelihood = weighted_log_likelihood(standard, weights, coefficients)
    converged, iterations = False, 0
    while iterations < max_iterations:
        gradient = log_likelihood_gradient(standard, weights, coefficients)
        step = _ascent_direction(log_likelihood_hessian(standard, weights, coefficients),
                                 gradient)
        if gradient @ step / 2 <= tolerance * max(1.0, abs(log_likelihood)):
            converged = True
            break
        iterations += 1
        step = coefficients_from_free(step, n_columns)
        for _ in range(MAX_HALVINGS):
            candidate = coefficients + step
            value = weighted_log_likelihood(standard, weights, candidate)
            if value >= log_likelihood:
                break
            step = step / 2
        else:  # no step uphill: at a maximum up to rounding, or stuck
            break
        coefficients, log_likelihood = candidate, value
    probabilities = class_probabilities(standard, coefficients)
    if not converged or probabilities.min() < SEPARATION_PROBABILITY:
        _refuse_separation(standard, weights, names)
    hessian = log_likelihood_hessian(standard, weights, coefficients)
    try:
        np.linalg.cholesky(-hessian)
        covariance = np.linalg.inv(-hessian)
    except np.linalg.LinAlgError:
        covariance = np.full_like(hessian, np.nan)
    forward, backward = (standardisation.free_map(n_classes),
                         standardisation.free_jacobian(n_classes))
    with np.errstate(over="ignore", invalid="ignore"):  # a far outlier's curvature: inf
        return MultinomialLogitFit(
            standardisation.from_standard(coefficients), log_likelihood,
            forward.T @ log_likelihood_gradient(standard, weights, coefficients),
            forward.T @ hessian @ forward, backward @ covariance @ backward.T, iterations,
            converged)


def _ascent_direction(hessian: np.ndarray, gradient: np.ndarray) -> np.ndarray:
    """The Newton step ``(-H)^-1 g``, damped by ``lambda I`` until ``-H + lambda I`` is positive
    definite."""
    information = -hessian
    scale = max(float(np.max(np.abs(np.diag(information)))), 1e-300)
    damping = 0.0
    while True:
        try:
            factor = np.linalg.cholesky(information + damping * np.eye(len(gradient)))
            break
        except np.linalg.LinAlgError:
            damping = max(damping * 10, 1e-10 * scale)
    return np.linalg.solve(factor.T, np.linalg.solve(factor, gradient))


def separating_direction(matrix, weights) -> np.ndarray | None:
    """A direction of separation ``D`` (p x K, column 0 zeros), or None where there is none.

    ``D`` is a direction of recession of :func:`weighted_log_likelihood` in the sense of
    Albert & Anderson (1984): along ``B + t D`` the log-likelihood's slope as ``t`` grows,
    ``sum_i slope_i`` with ``slope_i = sum_k w_ik e_ik - W_i max_m e_im`` and ``e_i = x_i D``,
    is not negative, and some row's fitted probabilities move (``e_i`` not constant). It is
    found by the linear program: maximise ``sum_i sum_m (u_i - e_im) + sum_i slope_i`` over
    ``D`` and ``u`` with ``e_im <= u_i <= e_im + 1`` and ``sum_i slope_i >= 0`` (``slope_i``
    written with ``u_i`` for the maximum, which it is at the optimum where ``W_i > 0``). For
    non-negative weights no row's slope is positive, so every weighted class of a row must
    attain the row's maximum, and a solution with a positive objective is exactly
    (quasi-)complete separation (Konis 2007, ch. 4, for K = 2). Weights with negative entries
    (BCH's) can also make the slope positive: the log-likelihood then grows without bound.

    A weight below :data:`SEPARATION_PROBABILITY` times its row's total counts as 0: EM
    posteriors of a separated class fall to such values as its coefficient diverges, but are
    never exactly 0.
    """
    from scipy import sparse
    from scipy.optimize import linprog

    matrix, weights = np.asarray(matrix, dtype=float), np.asarray(weights, dtype=float)
    weights = np.where(np.abs(weights) < SEPARATION_PROBABILITY
                       * np.abs(weights.sum(axis=1, keepdims=True)), 0.0, weights)
    (n_rows, n_columns), n_classes = matrix.shape, weights.shape[1]
    n_free = n_columns * (n_classes - 1)
    predictor = [sparse.csr_matrix((n_rows, n_free))] + [
        sparse.hstack([sparse.csr_matrix((n_rows, n_columns * k)), sparse.csr_matrix(matrix),
                       sparse.csr_matrix((n_rows, n_columns * (n_classes - 2 - k)))]).tocsr()
        for k in range(n_classes - 1)]  # e_k = predictor[k] @ d
    identity = sparse.identity(n_rows, format="csr")
    below = sparse.vstack([sparse.hstack([e, -identity]) for e in predictor])  # e - u <= 0
    gap = sparse.vstack([sparse.hstack([-e, identity]) for e in predictor])  # u - e <= 1
    # sum_i slope_i = slope @ (d, u)
    slope = np.concatenate([sum(weights[:, k] @ e for k, e in enumerate(predictor)),
                            -weights.sum(axis=1)])
    gaps = np.concatenate([-sum(np.asarray(e.sum(axis=0)).ravel() for e in predictor),
                           np.full(n_rows, float(n_classes))])
    result = linprog(-(gaps + slope), A_ub=sparse.vstack([below, gap, -slope[None, :]]).tocsc(),
                     b_ub=np.concatenate([np.zeros(n_rows * n_classes),
                                          np.ones(n_rows * n_classes), [0.0]]),
                     bounds=(None, None), method="highs")
    if result.status != 0 or -result.fun <= 1e-7 * max(1, n_rows):
        return None
    return coefficients_from_free(result.x[:n_free], n_columns)


def _refuse_separation(matrix: np.ndarray, weights: np.ndarray, names) -> None:
    """Raise a :class:`SeparationError` naming the covariate and the class whose coefficient
    diverges most along a direction of separation (each coefficient scaled by its column's
    root mean square, so units do not matter), if there is one."""
    direction = separating_direction(matrix, weights)
    if direction is None:
        return
    names = [f"column {j + 1}" for j in range(matrix.shape[1])] if names is None else names
    size = np.abs(direction) * np.sqrt(np.mean(matrix ** 2, axis=0))[:, None]
    covariates = size.copy()
    covariates[~np.any(matrix != matrix[:1], axis=0)] = 0  # the intercept names no covariate
    if covariates.max() > 1e-6 * size.max():
        size = covariates
    j, k = np.unravel_index(np.argmax(size), size.shape)
    raise SeparationError(f"the covariates separate the classes: the coefficient of "
                          f"{names[j]!r} for class {k + 1} runs to infinity (its fitted "
                          "probabilities go to 0 or 1), so there is no maximum likelihood "
                          "estimate; leave the covariate out, merge its levels, or fit fewer "
                          "classes")
