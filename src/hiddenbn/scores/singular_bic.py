"""The singular BIC (sBIC) of Drton & Plummer (2017) for the latent class models of 1..K classes.

BIC charges every model ``d/2 log N``, the rate at which the marginal likelihood of a regular
model falls with ``N``. A latent class model with more classes than the data's source is
singular there, and its marginal likelihood falls at the rate of a *learning coefficient*
(real log canonical threshold) ``lambda <= d/2``, with a multiplicity ``m`` (Watanabe 2009):

    log p(Y | M_i) = log p(Y | theta_hat_i) - lambda_ij log N + (m_ij - 1) log log N + O_p(1),

where ``lambda_ij, m_ij`` belong to model ``M_i`` *when the data come from its submodel*
``M_j`` (``j <= i`` in the poset of models). The truth is unknown, so Drton & Plummer (2017)
average over it with the sBIC's own posterior of the submodels: with

    L(M_i, M_j) = p(Y | theta_hat_i) N^(-lambda_ij) (log N)^(m_ij - 1)

and a prior ``p(M_j)`` on the models, the sBIC of ``M_i`` is ``log L'(M_i)``, where the
``L'(M_i) > 0`` solve the equation system (their definition of sBIC)

    L'(M_i) = sum_{j <= i} L(M_i, M_j) L'(M_j) p(M_j)  /  sum_{j <= i} L'(M_j) p(M_j).

For a model with no proper submodel it gives ``L'(M_1) = L(M_1, M_1)``: BIC with ``lambda_11``.
Solved in topological order, each ``L'(M_i)`` is the positive root of the quadratic

    p_i x^2 + b_i x + c_i = 0,   b_i = sum_{j < i} L'(M_j) p_j - L(M_i, M_i) p_i,
                                 c_i = -sum_{j < i} L(M_i, M_j) L'(M_j) p_j  (< 0),

which has exactly one (``c_i < 0``): :func:`sbic_log_evidence` (as the ``sBIC`` R package
computes it, Lucaweihs/sBIC). The likelihoods are far beyond the range of floats, so the root is
computed from the logarithms alone (:func:`_log_positive_root`). The models here form a chain
(``M_j`` is a submodel of ``M_i`` for every ``j < i``) with a uniform prior, the package's:
the equations are homogeneous in the ``p_j``, so their scale does not matter.

**Latent class models** (Drton & Plummer 2017, Sec. 6.3). ``M_i`` has ``i`` classes over items
of ``r_1, ..., r_n`` states; one class has ``d_1 = sum_l (r_l - 1)`` parameters. Its learning
coefficients are not known exactly; under a Dirichlet(``phi``) prior on the class weights the
paper bounds them (its Eqs. 6.15 and 6.19, as the package's vignette cites them) by

    lambda_ij <= 1/2 min{ j d_1 + j - 1 + (i - j) phi,   i d_1 + j - 1 }
               = 1/2 { j d_1 + j - 1 + (i - j) min(phi, d_1) },          m_ij = 1:

the ``j`` classes of the truth cost their ``j d_1 + j - 1`` parameters, and each of the
``i - j`` others either ``phi / 2`` (its weight held near 0 by the prior) or ``d_1 / 2`` (its
own item parameters), whichever is less. sBIC takes the bound for the coefficient
(:func:`latent_class_learning_coefficients`, the package's ``learnCoef``); ``lambda_ii =
(i d_1 + i - 1) / 2`` is BIC's ``ds / 2``. The package's default prior parameter is ``phi =
(d_1 + 1) / 2`` (:func:`default_phi`), the tuning its documentation sets. The package takes
items of equal states, ``d_1 = n (r - 1)``; the bound is the mixture bound of Sec. 6.3 with
components of ``d_1`` parameters, which is ``sum_l (r_l - 1)`` for items of any states.

No bound is known for other networks with hidden nodes (hierarchical latent class models,
networks with several hidden nodes): they get no sBIC here.

References: M. Drton and M. Plummer (2017), A Bayesian information criterion for singular
models, J. R. Statist. Soc. B 79: 323-380; S. Watanabe (2009), Algebraic Geometry and
Statistical Learning Theory, Cambridge University Press; L. Weihs and M. Plummer, the R package
sBIC (``R/sBIC-Function.R``, ``R/LCAs.R``, ``R/MixtureModels.R``).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import logsumexp

from hiddenbn.errors import ParameterError

#: What ``select`` and ``fit`` say of a model family without a learning-coefficient bound.
NO_BOUND_NOTE = ("no sBIC: learning-coefficient bounds are known for latent class models "
                 "(Drton & Plummer 2017, Sec. 6.3), none for this network")


def one_class_dimension(item_states) -> int:
    """``d_1 = sum_l (r_l - 1)``: the free parameters of the 1-class model (independent items)."""
    return int(sum(int(r) - 1 for r in item_states))


def default_phi(item_states) -> float:
    """The ``sBIC`` package's prior parameter ``phi = (d_1 + 1) / 2`` (``d_1``: the 1-class
    model's dimension, :func:`one_class_dimension`); 4.5 for 8 binary items."""
    return (one_class_dimension(item_states) + 1) / 2


def check_phi(phi: float) -> float:
    """``phi`` as a float, refused unless finite and positive (a Dirichlet parameter)."""
    if not (isinstance(phi, (int, float, np.floating, np.integer))
            and math.isfinite(phi) and phi > 0):
        raise ParameterError(f"the sBIC prior parameter phi must be a finite number above 0, "
                             f"got {phi!r}; give e.g. phi = 4 for 8 binary items, or leave it "
                             "out for the package's default (d_1 + 1) / 2")
    return float(phi)


def latent_class_learning_coefficients(classes: int, item_states, phi: float) -> np.ndarray:
    """The bounds ``lambda_ij`` of Drton & Plummer (2017, Sec. 6.3, Eqs. 6.15 and 6.19) for the
    latent class models of ``1..classes`` classes over items of ``item_states`` states.

    Returns a ``(classes, classes)`` array: entry ``[i - 1, j - 1]`` is
    ``1/2 min{j d_1 + j - 1 + (i - j) phi, i d_1 + j - 1}`` for ``j <= i`` and NaN above the
    diagonal (``M_i`` is no submodel of ``M_j`` for ``j < i``). Their multiplicities are 1.
    """
    phi = check_phi(phi)
    d1 = one_class_dimension(item_states)
    i = np.arange(1, classes + 1, dtype=float)[:, None]
    j = np.arange(1, classes + 1, dtype=float)[None, :]
    bound = 0.5 * np.minimum(j * d1 + j - 1 + (i - j) * phi, i * d1 + j - 1)
    return np.where(j <= i, bound, np.nan)


def _log_difference(log_a: float, log_b: float) -> tuple[float, float]:
    """``(sign, log|a - b|)`` of ``a - b`` from ``log a`` and ``log b``."""
    if log_a == log_b:
        return 0.0, -math.inf
    sign = 1.0 if log_a > log_b else -1.0
    high, low = max(log_a, log_b), min(log_a, log_b)
    return sign, high + math.log1p(-math.exp(low - high))


def _log_positive_root(log_p: float, sign_b: float, log_abs_b: float, log_minus_c: float):
    """``log x`` of the positive root of ``p x^2 + b x + c`` (``p > 0``, ``c < 0``), given in
    logs: ``x = (-b + sqrt(b^2 - 4 p c)) / (2 p)``, written as ``-2c / (b + sqrt(...))``
    where ``b > 0`` so that neither form subtracts two close numbers."""
    log_root = 0.5 * np.logaddexp(2 * log_abs_b, math.log(4) + log_p + log_minus_c)
    if sign_b > 0:
        return math.log(2) + log_minus_c - np.logaddexp(log_abs_b, log_root)
    return np.logaddexp(log_abs_b, log_root) - math.log(2) - log_p


def sbic_log_evidence(log_likelihoods, learning_coefficients, n_cases: int,
                      multiplicities=None) -> np.ndarray:
    """sBIC, ``log L'(M_i)``, of a chain of models, each a submodel of the next, with a
    uniform prior (the equation system and quadratic of the module's docstring).

    Parameters
    ----------
    log_likelihoods : sequence of float, length K
        ``log p(Y | theta_hat_i)``, the maximised log-likelihood of each model.
    learning_coefficients : array, shape (K, K)
        ``lambda_ij`` for ``j <= i`` (row ``i - 1``, column ``j - 1``); the entries above the
        diagonal are not read.
    n_cases : int
        ``N``, the number of cases.
    multiplicities : array, shape (K, K), optional
        ``m_ij`` (at least 1); 1 everywhere by default, as for latent class models.

    Returns
    -------
    ndarray, shape (K,)
        The sBIC of each model on the scale of ``log p(Y | M_i)`` (larger is better), as
        ``bic_log_evidence`` is. Where every ``lambda_ij = d_i / 2`` and ``m_ij = 1`` it is
        BIC's ``log p(Y | theta_hat_i) - d_i/2 log N``.
    """
    log_likelihoods = np.asarray(log_likelihoods, dtype=float)
    size = log_likelihoods.size
    lam = np.asarray(learning_coefficients, dtype=float)
    m = np.ones((size, size)) if multiplicities is None else np.asarray(multiplicities, float)
    if lam.shape != (size, size) or m.shape != (size, size):
        raise ParameterError(f"sBIC of {size} models needs {size} x {size} learning "
                             f"coefficients and multiplicities, got {lam.shape} and {m.shape}")
    if not n_cases >= 1:
        raise ParameterError(f"sBIC needs at least one case, got N = {n_cases}")
    log_n = math.log(n_cases)
    log_l = log_likelihoods[:, None] - lam * log_n  # log L(M_i, M_j)
    # (m - 1) log log N only where m != 1: at N = 1, log log N is -inf
    repeated = m != 1
    log_l[repeated] += (m[repeated] - 1) * (math.log(log_n) if log_n > 0 else -math.inf)
    log_sbic = np.empty(size)
    for i in range(size):
        if i == 0:
            log_sbic[i] = log_l[0, 0]
            continue
        earlier = log_sbic[:i]  # log L'(M_j) p_j with p_j = 1
        sign_b, log_abs_b = _log_difference(float(logsumexp(earlier)), float(log_l[i, i]))
        log_minus_c = float(logsumexp(log_l[i, :i] + earlier))
        log_sbic[i] = _log_positive_root(0.0, sign_b, log_abs_b, log_minus_c)
    return log_sbic


def latent_class_sbic(log_likelihoods, item_states, n_cases: int,
                      phi: float | None = None) -> np.ndarray:
    """sBIC of the latent class models of ``1..K`` classes (``K = len(log_likelihoods)``) over
    items of ``item_states`` states, with the bounds of
    :func:`latent_class_learning_coefficients` at ``phi`` (default :func:`default_phi`)."""
    phi = default_phi(item_states) if phi is None else phi
    coefficients = latent_class_learning_coefficients(len(log_likelihoods), item_states, phi)
    return sbic_log_evidence(log_likelihoods, coefficients, n_cases)


def chain_sbic(states, log_likelihoods, item_states, n_cases: int,
               phi: float | None = None) -> np.ndarray | None:
    """:func:`latent_class_sbic` of the latent class models of ``states`` classes, or None
    unless they are the whole chain ``1..K`` in order: sBIC weighs each model against all its
    submodels (the module's equation system), so a chain that starts above 1 or skips a model
    has none.

    Parameters
    ----------
    states : sequence of int
        The number of classes of each model, in the order of ``log_likelihoods``.
    log_likelihoods, item_states, n_cases, phi
        As :func:`latent_class_sbic` takes them.
    """
    if [int(k) for k in states] != list(range(1, len(states) + 1)):
        return None
    return latent_class_sbic(log_likelihoods, item_states, n_cases, phi)
