"""Learning EBNCs from complete data: ``phi``, Laplace, BIC and selection (paper 001 Sec. 5).

By Sec. 6 an EBNC is a softmax regression on the indicator features of its non-redundant basis
(:func:`hiddenbn.ebnc.model.ebnc_basis`): ``lambda_k(x) = sum_f phi_{f,k} f(x)`` and ``p(y | x)`` by
the softmax of Eq. 3. The log-likelihood is concave in ``phi``, so the ML and MAP values are
found by Newton's method with the analytic gradient and Hessian (:func:`fit_phi`).

Scores of the local distribution of ``Y`` (Sec. 5):

* Laplace (Eq. 8) needs a proper prior (Theorem 2). We use independent normals
  ``phi_{f,k} ~ N(0, prior_sd^2)`` (:data:`DEFAULT_PRIOR_SD`): every ``phi`` is a log-odds
  contrast, and a standard deviation of 2 lets a single feature move a probability from 0.5 to
  about 0.02 or 0.98 at one standard deviation while keeping the MAP finite when the training
  data separate the classes. ``A`` is the negative Hessian of the log posterior at the MAP
  (the Laplace integrand); it differs from Eq. 8's likelihood Hessian by the prior precision,
  an ``O(1/N)`` relative change.
* BIC (Eq. 9): ``log L(phi_ML) - d/2 log N`` with the EBNC's dimension ``d``. For a binary
  class the paper's constructions give it (the EBNC fills the span of its log odds); for a
  non-binary class the true ``d`` is the Jacobian rank, which can be below the number of basis
  parameters (:func:`hiddenbn.ebnc.model.ebnc_dimension`, Notes), and :func:`ebnc_model_dimension`
  returns it. Both scores fit ``phi`` over the whole span: for such a curved EBNC the fitted
  model is the span's softmax regression, a superset of the EBNC.

The trivial EBNC (a full table for ``Y`` given its inputs) is scored exactly by the BD metric
(paper 003 Eq. 5, :func:`full_table_log_marginal`); a network of EBNCs is scored as the sum of
its nodes' local scores (Theorem 2: the likelihood and the Hessian factor by node).

Model and feature selection (end of Sec. 5): :func:`select_embedded_network` hill-climbs over
embedded networks on ``Y`` and the candidate inputs (add, delete or reverse one arc, from the
empty and from the naive-Bayes network); the inputs of the selected EBNC (the Markov blanket of
``Y``) are the selected features.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from itertools import permutations

import numpy as np
from scipy.linalg import LinAlgError, cho_factor, cho_solve

from hiddenbn.data import Dataset
from hiddenbn.ebnc import model as ebnc
from hiddenbn.errors import DataError, HiddenbnError, option
from hiddenbn.models.network import Network
from hiddenbn.models.priors import bd_node_term
from hiddenbn.models.spec import parse_spec
from hiddenbn.scores.approximations import bic_log_evidence, laplace
from hiddenbn.util import limits
from hiddenbn.util.defaults import EBNC_PRIOR_SD as DEFAULT_PRIOR_SD, EBNC_SCORES as SCORES

# DEFAULT_PRIOR_SD, the standard deviation of the normal prior on every ``phi`` (see the module
# docstring), and SCORES come from hiddenbn.util.defaults, where the command line reads them.

#: The sign convention of the scores, as the reports state it.
SCORES_ORIENTATION = ("laplace and bic_log_evidence approximate the log marginal likelihood of "
                      "the target's column given the inputs: larger is better; bic_log_evidence "
                      "is -BIC/2")
#: Newton stops when the largest gradient entry of the objective is below this (per case).
GRADIENT_TOLERANCE = 1e-9


# --- the softmax regression on the basis ----------------------------------------------------
@dataclass(frozen=True)
class ClassData:
    """Distinct input patterns of one EBNC as design rows, their classes and counts.

    ``design`` is ``(m, n_features)``, ``targets`` the class (0-based) of each row, ``counts``
    how many cases have that (pattern, class); cost follows ``m``, never the number of cases.
    """

    design: np.ndarray
    targets: np.ndarray
    counts: np.ndarray
    n_classes: int

    @property
    def n_cases(self) -> float:
        return float(self.counts.sum())


def _class_probabilities(phi: np.ndarray, design: np.ndarray) -> np.ndarray:
    """``p(y | x)`` (Eq. 3) for every row, reference class first."""
    return ebnc.class_probabilities(design @ phi)


def log_likelihood(phi, data: ClassData) -> float:
    """``sum_cases log p(y | x, phi)`` (the ``L_i`` of paper 001 Eq. 8, in logs)."""
    logits = np.hstack([np.zeros((data.design.shape[0], 1)), data.design @ phi])
    top = logits.max(axis=1)  # numpy log-sum-exp: scipy's costs a millisecond a call
    normalizer = top + np.log(np.exp(logits - top[:, None]).sum(axis=1))
    picked = logits[np.arange(logits.shape[0]), data.targets] - normalizer
    return float(data.counts @ picked)


def gradient(phi, data: ClassData) -> np.ndarray:
    """``d log L / d phi``, shape ``(n_features, r_Y - 1)``: ``X^T W (onehot - p)`` per class."""
    probabilities = _class_probabilities(phi, data.design)
    residual = -probabilities[:, 1:]
    rows = np.flatnonzero(data.targets > 0)
    residual[rows, data.targets[rows] - 1] += 1.0
    return data.design.T @ (data.counts[:, None] * residual)


def hessian(phi, data: ClassData) -> np.ndarray:
    """``d^2 log L / d phi^2`` over ``phi.ravel()`` (C order: feature-major, then class).

    ``-sum_cases x x^T (x) (diag(p) - p p^T)`` over the non-reference classes.
    """
    p = _class_probabilities(phi, data.design)[:, 1:]
    weighted = data.design * data.counts[:, None]
    covariance = -p[:, :, None] * p[:, None, :]
    classes = p.shape[1]
    covariance[:, np.arange(classes), np.arange(classes)] += p
    n_features = data.design.shape[1]
    block = np.empty((n_features, classes, n_features, classes))
    for k in range(classes):  # one matrix product per class pair: numpy's einsum would not
        for l in range(classes):  # use BLAS, 20 times slower at 1000 features
            block[:, k, :, l] = weighted.T @ (data.design * covariance[:, k, l, None])
    return -block.reshape(phi.size, phi.size)


@dataclass(frozen=True)
class PhiFit:
    """ML (``prior_sd`` None) or MAP estimate of ``phi`` and the quantities Eq. 8 needs."""

    phi: np.ndarray
    log_likelihood: float
    log_prior: float
    negative_hessian: np.ndarray  # of the log posterior (of the likelihood for ML)
    iterations: int
    converged: bool


def log_prior_density(phi, prior_sd: float) -> float:
    """``log p(phi)`` of independent ``N(0, prior_sd^2)`` entries."""
    return float(-0.5 * phi.size * np.log(2 * np.pi * prior_sd**2)
                 - 0.5 * np.sum(phi**2) / prior_sd**2)


def fit_phi(data: ClassData, prior_sd: float | None = DEFAULT_PRIOR_SD,
            max_iterations: int = 100) -> PhiFit:
    """Maximise the log-likelihood (plus the normal log prior) over ``phi`` by Newton's method.

    Each Newton step solves with the negative Hessian (a small ridge is added only if it is not
    positive definite, as for ML when the classes are separated or a feature is never on) and is
    halved until the objective does not decrease. For ML with separated classes the maximum is
    at infinity: the iteration then stops at ``max_iterations`` with ``converged`` False and a
    log-likelihood within rounding of its supremum.
    """
    n_features = data.design.shape[1]
    phi = np.zeros((n_features, data.n_classes - 1))
    precision = 0.0 if prior_sd is None else 1.0 / prior_sd**2

    def objective(values):
        return log_likelihood(values, data) - 0.5 * precision * np.sum(values**2)

    current = objective(phi)
    scale = max(data.n_cases, 1.0)
    converged = False
    for iteration in range(1, max_iterations + 1):
        step_gradient = (gradient(phi, data) - precision * phi).ravel()
        if np.max(np.abs(step_gradient)) < GRADIENT_TOLERANCE * scale:
            converged = True
            break
        negative = -hessian(phi, data) + precision * np.eye(phi.size)
        step = _newton_step(negative, step_gradient).reshape(phi.shape)
        length = 1.0
        while length > 1e-10:
            trial = phi + length * step
            value = objective(trial)
            if value >= current - 1e-12 * abs(current):
                break
            length /= 2
        else:
            break
        phi, current = trial, value
    negative = -hessian(phi, data) + precision * np.eye(phi.size)
    log_prior = 0.0 if prior_sd is None else log_prior_density(phi, prior_sd)
    return PhiFit(phi, log_likelihood(phi, data), log_prior, negative, iteration, converged)


def _newton_step(negative_hessian: np.ndarray, grad: np.ndarray) -> np.ndarray:
    """Solve ``A step = grad`` by Cholesky, with a growing ridge when ``A`` is singular."""
    ridge = 0.0
    scale = max(float(np.max(np.abs(np.diag(negative_hessian)))), 1.0)
    while True:
        try:
            return cho_solve(cho_factor(negative_hessian + ridge * np.eye(grad.size)), grad)
        except LinAlgError:
            ridge = max(ridge * 10, 1e-10 * scale)


def predict(phi, design) -> np.ndarray:
    """``p(y | x)`` for design rows (Eq. 3), shape ``(m, r_Y)``."""
    return _class_probabilities(np.asarray(phi), np.asarray(design, dtype=float))


# --- data for an embedded network ------------------------------------------------------------
def class_data(basis: ebnc.EbncBasis, data: Dataset) -> ClassData:
    """The distinct (input pattern, class) pairs of ``data`` as design rows of ``basis``."""
    network = basis.classifier.network
    restricted = data.for_network(network)
    names = list(restricted.names)
    target = names.index(network.names[basis.classifier.target])
    inputs = [names.index(name) for name in basis.classifier.input_names]
    return ClassData(basis.design_matrix(restricted.patterns[:, inputs]),
                     restricted.patterns[:, target].astype(np.int64),
                     restricted.counts.astype(float), basis.classifier.n_classes)


def ebnc_model_dimension(network: Network, target, rng=None, basis=None) -> int:
    """The dimension ``d`` of the EBNC: the basis size for a binary class (Theorem 1), else the
    Jacobian rank of :func:`hiddenbn.ebnc.model.ebnc_dimensions` (the basis may overstate it).
    ``basis`` is :func:`hiddenbn.ebnc.model.ebnc_basis` of the same EBNC, if already built."""
    basis = ebnc.ebnc_basis(network, target) if basis is None else basis
    if basis.classifier.n_classes == 2:
        return basis.dimension
    return ebnc.ebnc_dimensions(network, target, rng).d


@dataclass(frozen=True)
class EbncScore:
    """Laplace (Eq. 8) and BIC (Eq. 9) of one EBNC on one data set, with its fits."""

    laplace: float
    bic_log_evidence: float
    d: int
    basis_size: int
    map_fit: PhiFit
    ml_fit: PhiFit
    features: tuple[str, ...]
    inputs: tuple[str, ...]

    def value(self, score: str) -> float:
        return self.laplace if score == "laplace" else self.bic_log_evidence


def score_ebnc(network: Network, target, data: Dataset, prior_sd: float = DEFAULT_PRIOR_SD,
               dimension: int | None = None) -> EbncScore:
    """Laplace and BIC of the EBNC of ``target`` in the embedded ``network`` on complete data.

    ``dimension`` (default :func:`ebnc_model_dimension`) is the ``d`` of BIC.
    """
    basis = ebnc.ebnc_basis(network, target)
    classifier = basis.classifier
    blanket = ", ".join(network.names[v] for v in classifier.blanket) or "no input"
    limits.require_at_most(basis.dimension * (classifier.n_classes - 1),
                           limits.MAX_EBNC_PARAMETERS,
                           f"the number of parameters of the EBNC of "
                           f"{network.names[classifier.target]!r} on {blanket}",
                           "use inputs with fewer states, or fewer of them in one family")
    rows = class_data(basis, data)
    if rows.n_cases <= 0:
        raise DataError("the data set has no cases; an EBNC needs at least one")
    d = ebnc_model_dimension(network, target, basis=basis) if dimension is None else dimension
    map_fit = fit_phi(rows, prior_sd)
    ml_fit = fit_phi(rows, None)
    approximation = laplace(map_fit.log_likelihood, map_fit.log_prior, map_fit.negative_hessian)
    names = network.names
    return EbncScore(
        laplace=approximation.value,
        bic_log_evidence=float(bic_log_evidence(ml_fit.log_likelihood, d,
                                                int(round(rows.n_cases)))),
        d=d, basis_size=basis.dimension, map_fit=map_fit, ml_fit=ml_fit,
        features=tuple(basis.feature_names()),
        inputs=tuple(names[v] for v in basis.classifier.blanket))


# --- the trivial EBNC, scored exactly ---------------------------------------------------------
def full_table_counts(data: Dataset, target: str, inputs, cardinalities: dict) -> np.ndarray:
    """``N_jk``: cases with inputs in configuration ``j`` (C order) and ``target = k``."""
    columns = [data.names.index(name) for name in inputs]
    rows = (np.ravel_multi_index(tuple(data.patterns[:, columns].T.astype(np.int64)),
                                 [cardinalities[name] for name in inputs])
            if columns else np.zeros(data.n_patterns, dtype=np.int64))
    q = int(np.prod([cardinalities[name] for name in inputs], dtype=np.int64))
    r = cardinalities[target]
    counts = np.zeros((q, r))
    np.add.at(counts, (rows, data.patterns[:, data.names.index(target)]), data.counts)
    return counts


def full_table_log_marginal(data: Dataset, target: str, inputs, cardinalities: dict,
                            alpha: float = 1.0) -> float:
    """Exact BD ``log p(y-column | x-columns)`` of a full table (paper 003 Eq. 5, one family)."""
    return float(bd_node_term(full_table_counts(data, target, inputs, cardinalities), alpha))


def full_table_predict(train: Dataset, target: str, inputs, cardinalities: dict,
                       configurations, alpha: float = 1.0) -> np.ndarray:
    """The BD posterior predictive ``(N_jk + alpha) / (N_j + r alpha)`` at input configurations
    (columns in the order of ``inputs``)."""
    counts = full_table_counts(train, target, inputs, cardinalities) + alpha
    table = counts / counts.sum(axis=1, keepdims=True)
    configurations = np.asarray(configurations, dtype=np.int64)
    rows = (np.ravel_multi_index(tuple(configurations.T), [cardinalities[n] for n in inputs])
            if len(inputs) else np.zeros(configurations.shape[0], dtype=np.int64))
    return table[rows]


def network_of_ebncs_score(local_models: dict, data: Dataset, score: str = "laplace",
                           prior_sd: float = DEFAULT_PRIOR_SD, alpha: float = 1.0) -> float:
    """Score of a network whose every local distribution is an EBNC (Theorem 2, Eqs. 8-9).

    ``local_models`` maps each node name to either an embedded :class:`Network` (its EBNC,
    scored by ``score``) or a tuple of parent names (the trivial EBNC: a full table, scored
    exactly by BD with Dirichlet ``alpha``). The likelihood and Hessian factor by node, so the
    score is the sum of the local scores (with a prior that factors by node).
    """
    if score not in SCORES:
        raise HiddenbnError(f"unknown EBNC score {score!r}; use one of {', '.join(SCORES)}")
    cardinalities = dict(zip(data.names, (data.patterns.max(axis=0) + 1).tolist()))
    total = 0.0
    for node, model in local_models.items():
        if isinstance(model, Network):
            cardinalities.update(zip(model.names, model.cardinalities))
            total += score_ebnc(model, node, data, prior_sd).value(score)
        else:
            total += full_table_log_marginal(data, node, tuple(model), cardinalities, alpha)
    return total


# --- model and feature selection (end of Sec. 5) ---------------------------------------------
def embedded_network(parents: dict, cardinalities: dict) -> Network:
    """A discrete network from ``{name: parent names}`` (any order; must be acyclic), whose
    tables fit :func:`hiddenbn.util.limits.check_network` (selection fits them)."""
    network = parse_spec({"nodes": {name: {"states": int(cardinalities[name]),
                                           "parents": list(parents[name])}
                                    for name in parents}})
    limits.check_network(network)
    return network


def _is_acyclic(parents: dict) -> bool:
    state = {}

    def visit(node):
        if state.get(node) == 1:
            return False
        if state.get(node) == 2:
            return True
        state[node] = 1
        if not all(visit(p) for p in parents[node]):
            return False
        state[node] = 2
        return True

    return all(visit(node) for node in parents)


def _family_key(network: Network, target: str) -> tuple:
    """The EBNC depends only on the families of ``target`` and its children (Eq. 4)."""
    classifier = ebnc.embedded_classifier(network, target)
    names = network.names
    return tuple(sorted((names[f.node], tuple(sorted(names[v] for v in f.scope)))
                        for f in classifier.families))


@dataclass
class Selection:
    """The result of :func:`select_embedded_network`."""

    parents: dict
    score: EbncScore
    value: float
    steps: int
    visited: dict = field(default_factory=dict)  # family key -> (network, EbncScore)

    @property
    def inputs(self) -> tuple[str, ...]:
        return self.score.inputs


def select_embedded_network(data: Dataset, target: str, inputs, score: str = "laplace",
                            prior_sd: float = DEFAULT_PRIOR_SD, max_parents: int = 3,
                            cache: dict | None = None, progress=None) -> Selection:
    """Greedy search over embedded networks on ``target`` and ``inputs`` (paper 001 Sec. 5).

    Two ascents, one from the empty network (no input used) and one from the naive-Bayes
    network on every input (``target`` a parent of each, within ``max_parents``: children with
    more parents than that are impossible, so it always is), each applying the best single-arc
    addition, deletion or reversal (acyclic, at most ``max_parents`` parents) while ``score``
    improves; the better end point is selected. Networks with the same families of ``target``
    and its children define the same EBNC and are scored once (``cache``, shared between calls
    on the same data, maps that key to the network and its :class:`EbncScore`). The selected
    features are the inputs of the final EBNC. ``progress``, if given, is called with the
    number of networks scored after each new one.
    """
    if score not in SCORES:
        raise HiddenbnError(f"unknown EBNC score {score!r}; use one of {', '.join(SCORES)}")
    inputs = list(inputs)
    names = [target] + inputs
    missing = [name for name in names if name not in data.names]
    if missing:
        raise DataError(f"the data has no column {missing[0]!r}; columns are "
                        f"{', '.join(data.names)}")
    maxima = data.patterns.max(axis=0) + 1
    cardinalities = {name: max(2, int(maxima[data.names.index(name)])) for name in names}
    _require_searchable(target, inputs, cardinalities, max_parents)
    cache = {} if cache is None else cache

    def evaluate(parents):
        network = embedded_network(parents, cardinalities)
        key = _family_key(network, target)
        if key not in cache:
            cache[key] = (network, score_ebnc(network, target, data, prior_sd))
            if progress is not None:
                progress(len(cache))
        return cache[key][1]

    # The moves of learning.structure_search.greedy_search, but an EBNC's scores do not
    # decompose over families: every neighbour is scored whole (cached by its EBNC), and ties,
    # common since networks with one EBNC score alike, go to the last neighbour in
    # _neighbours' order (max over (value, index)); one driver would change the selections.
    def ascend(parents):
        best, steps = evaluate(parents), 0
        while True:
            candidates = _neighbours(parents, names, max_parents)
            scored = [(evaluate(c).value(score), i) for i, c in enumerate(candidates)]
            value, index = max(scored, default=(-np.inf, -1))
            if not value > best.value(score) + 1e-9:
                return parents, best, steps
            parents, best = candidates[index], evaluate(candidates[index])
            steps += 1

    empty = {name: () for name in names}
    naive_bayes = dict(empty, **{name: (target,) for name in inputs})
    ends = [ascend(start) for start in (empty, naive_bayes)]
    parents, best, _ = max(ends, key=lambda end: end[1].value(score))
    return Selection(parents, best, best.value(score), sum(end[2] for end in ends), cache)


def _ebnc_parameters(target: str, parents, cardinalities: dict) -> int:
    """Parameters of the EBNC of ``target`` whose one family is ``target`` on ``parents``: a
    free function of their configurations per class beyond the first."""
    return math.prod(cardinalities[name] for name in parents) * (cardinalities[target] - 1)


def _require_searchable(target: str, inputs, cardinalities: dict, max_parents: int) -> None:
    """Refuse, before any fit, a search that will fit an EBNC of more than
    :data:`~hiddenbn.util.limits.MAX_EBNC_PARAMETERS` parameters: the naive-Bayes start, or
    ``target`` with the ``max_parents`` inputs of most states as parents, which the search may
    reach (each fit would take minutes; :func:`score_ebnc` checks every other network)."""
    widest = sorted(inputs, key=lambda name: -cardinalities[name])[:max_parents]
    naive_bayes = (1 + sum(cardinalities[name] - 1 for name in inputs)) * (
        cardinalities[target] - 1)
    if naive_bayes > limits.MAX_EBNC_PARAMETERS:
        raise HiddenbnError(
            f"the naive-Bayes EBNC of {target!r} on its {len(inputs)} inputs, where the search "
            f"starts, has {naive_bayes} parameters, above the limit of "
            f"{limits.MAX_EBNC_PARAMETERS}; choose fewer inputs with {option('--inputs')}, or "
            "inputs with fewer states")
    largest = _ebnc_parameters(target, widest, cardinalities)
    if largest > limits.MAX_EBNC_PARAMETERS:
        allowed = [k for k in range(1, max_parents)
                   if _ebnc_parameters(target, widest[:k], cardinalities)
                   <= limits.MAX_EBNC_PARAMETERS]
        fix = f"give {option('--max-parents', allowed[-1])}, or " if allowed else ""
        states = " x ".join(str(cardinalities[name]) for name in widest)
        contrasts = cardinalities[target] - 1
        raise HiddenbnError(
            f"the search may fit the EBNC of {target!r} on parents {', '.join(widest)}: "
            f"{largest} parameters ({states} parent states x {contrasts} "
            f"class{'es' if contrasts > 1 else ''} beyond the first), above the limit of "
            f"{limits.MAX_EBNC_PARAMETERS}; {fix}leave inputs with many states out of "
            f"{option('--inputs')}")


def _neighbours(parents: dict, names, max_parents: int) -> list[dict]:
    """Every acyclic network one arc addition, deletion or reversal away."""
    candidates = []
    for a, b in permutations(names, 2):
        if a in parents[b]:
            deleted = dict(parents, **{b: tuple(p for p in parents[b] if p != a)})
            candidates.append(deleted)
            if len(parents[a]) < max_parents:
                reversed_ = dict(deleted, **{a: parents[a] + (b,)})
                if _is_acyclic(reversed_):
                    candidates.append(reversed_)
        elif b not in parents[a] and len(parents[b]) < max_parents:
            added = dict(parents, **{b: parents[b] + (a,)})
            if _is_acyclic(added):
                candidates.append(added)
    return candidates




def require_two_classes(data: Dataset, target: str) -> None:
    """Refuse a target with one class in the data: every classifier fits it perfectly (the ML
    phi runs off to infinity), and there is nothing to select."""
    if target not in data.names:
        return  # the callers name the missing column
    classes = np.unique(data.patterns[data.counts > 0, data.names.index(target)])
    if classes.size < 2:
        label = data.labels(data.names.index(target))[int(classes[0])]
        raise DataError(f"{option('--target', shown=repr(target))} has one class in the data "
                        f"({label}); a classifier needs cases of at least two classes")


