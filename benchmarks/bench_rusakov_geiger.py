"""Rusakov & Geiger's coefficients of ``log N``, computed: exact evidence and tempered sampling.

Run with ``python -m benchmarks rusakov_geiger``. For naive Bayes with a binary hidden root and
``n`` binary features under the uniform prior, let ``K(w)`` be the Kullback-Leibler divergence
from a true distribution ``q`` to the model at parameters ``w`` and ``Z(N) = int exp(-N K(w))
dw``. Then ``F(N) = -log Z(N)`` is ``log p(D | theta_ML) - log p(D)`` for data whose counts are
``N q(x)`` (``q`` is in the model, so the fit reproduces it), and its local slope on ``log N`` is
``N E_N[K]``, the mean of ``N K`` under the posterior tempered to ``exp(-N K)``:
``d F / d log N = N E_N[K]``. Two independent computations of it:

1. **Exact** (small N): ``F(N)`` by the sum over completions
   (:func:`hiddenbn.scores.exact.exact_log_evidence`) at counts ``N q(x)``, slopes between
   successive N.
2. **Parallel tempering** (N up to 10^6): random-walk Metropolis on ``[0, 1]^(2n + 1)`` at a
   geometric ladder of ``N``, neighbours swapped, replicas for the standard error.

Both must agree where they overlap; the tempered slopes level off at Watanabe's learning
coefficient, which :func:`hiddenbn.experiments.gold_standard.rusakov_geiger_coefficient` gives
for each type of truth. The table prints, per ``n`` and type, the coefficient, the exact and
tempered slopes at small N and the tempered slope at ``N = 10^4 .. 10^6`` (a few CPU-minutes).
Measured (2026-11-28, 8 replicas, a loaded 2-core machine): at ``N >= 10^4`` the tempered
slope was 1.994, 2.496 and 3.497 for n = 3 (no effect, two features, every feature; coefficients
2, 2.5, 3.5) and 2.518, 3.501, 4.506 and 4.503 for n = 4 (no effect, two, three, every feature;
2.5, 3.5, 4.5, 4.5), each ± 0.005 or less; between 32 and 96 cases (n = 3) the exact and the
tempered slopes agreed within 0.06 (1.758 and 1.767, 2.624 and 2.680, 2.296 and 2.273, ...).
"""

import itertools
import math

import numpy as np

from hiddenbn.data import Dataset
from hiddenbn.experiments.gold_standard import rusakov_geiger_coefficient
from hiddenbn.models.spec import parse_spec
from hiddenbn.scores.exact import exact_log_evidence

#: Acceptance rate the proposal scales are tuned to during the first third of the iterations.
TARGET_ACCEPTANCE = 0.25


def patterns(features: int) -> np.ndarray:
    """Every binary pattern of ``features`` values, in lexicographic order."""
    return np.array(list(itertools.product([0, 1], repeat=features)))


def naive_bayes_distribution(weight: float, first, second) -> np.ndarray:
    """``q(x) = w prod_j a_j^x_j (1 - a_j)^(1 - x_j) + (1 - w) prod_j b_j^x_j ...``: the
    distribution of naive Bayes with a binary root over :func:`patterns`; ``first`` (``a``) and
    ``second`` (``b``) give each feature's probability of 1 in the root's two states."""
    x = patterns(len(first))
    a, b = np.asarray(first, float), np.asarray(second, float)
    return (weight * np.prod(np.where(x == 1, a, 1 - a), axis=1)
            + (1 - weight) * np.prod(np.where(x == 1, b, 1 - b), axis=1))


def divergence(q: np.ndarray, parameters: np.ndarray) -> np.ndarray:
    """``K(w) = sum_x q(x) log(q(x) / p(x | w))`` for each row ``w = (weight, a, b)`` of
    ``parameters``."""
    features = (parameters.shape[1] - 1) // 2
    x = patterns(features)
    weight, a, b = (parameters[:, :1], parameters[:, 1:features + 1],
                    parameters[:, features + 1:])
    log_a = x @ np.log(a).T + (1 - x) @ np.log1p(-a).T
    log_b = x @ np.log(b).T + (1 - x) @ np.log1p(-b).T
    p = weight.T * np.exp(log_a) + (1 - weight.T) * np.exp(log_b)
    kept = q > 0
    return q[kept] @ np.log(q[kept]) - q[kept] @ np.log(p[kept])


def tempered_slopes(q: np.ndarray, sizes, replicas: int = 4, iterations: int = 30000,
                    seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """``N E_N[K]`` at each of ``sizes`` (an increasing ladder of N) by parallel tempering under
    the uniform prior: mean and standard error over ``replicas`` independent ladders, each
    ``iterations`` sweeps long, the first third tuning the proposals and discarded."""
    rng = np.random.default_rng(seed)
    sizes = np.asarray(sizes, float)
    rungs, dimension = sizes.size, 1 + 2 * int(round(math.log2(q.size)))
    inverse_temperature = np.tile(sizes, replicas)
    chains = inverse_temperature.size
    state = rng.uniform(0.05, 0.95, (chains, dimension))
    value = divergence(q, state)
    scale = np.minimum(0.3, 1 / np.sqrt(inverse_temperature))
    accepted, total, kept = np.zeros(chains), np.zeros(chains), 0
    tuning = iterations // 3
    ladder = np.arange(chains).reshape(replicas, rungs)
    for sweep in range(iterations):
        proposal = 1 - np.abs(1 - np.abs(state + scale[:, None] * rng.normal(size=state.shape)))
        proposal = np.clip(proposal, 1e-12, 1 - 1e-12)  # reflected into the unit cube
        proposed = divergence(q, proposal)
        accept = np.log(rng.uniform(size=chains)) < -inverse_temperature * (proposed - value)
        state[accept], value[accept] = proposal[accept], proposed[accept]
        accepted += accept
        lower = ladder[:, sweep % 2:rungs - 1:2].ravel()  # even, then odd neighbour pairs
        upper = lower + 1
        swap = np.log(rng.uniform(size=lower.size)) < (
            (inverse_temperature[lower] - inverse_temperature[upper])
            * (value[lower] - value[upper]))
        first, second = lower[swap], upper[swap]
        state[first], state[second] = state[second], state[first].copy()
        value[first], value[second] = value[second], value[first].copy()
        if sweep < tuning and sweep % 200 == 199:
            scale *= np.exp(accepted / 200 - TARGET_ACCEPTANCE)
            accepted[:] = 0
        elif sweep >= tuning:
            total += inverse_temperature * value
            kept += 1
    slopes = (total / kept).reshape(replicas, rungs)
    return slopes.mean(axis=0), slopes.std(axis=0, ddof=1) / math.sqrt(replicas)


def exact_penalty(q: np.ndarray, cases: int) -> float:
    """``log p(D | theta_ML) - log p(D)`` exactly, for the model ``2:2,...,2`` and data with
    counts ``cases * q(x)`` (integers), whose fit reproduces ``q``."""
    features = int(round(math.log2(q.size)))
    counts = cases * q
    if not np.allclose(counts, np.round(counts)):
        raise ValueError(f"{cases} cases do not give integer counts of q")
    counts = np.round(counts).astype(int)
    model = parse_spec(f"2:{','.join(['2'] * features)}")
    data = Dataset.from_rows(model.observed_names, np.repeat(patterns(features), counts, axis=0),
                             model.observed_cardinalities)
    kept = counts > 0
    fitted = float(counts[kept] @ np.log(counts[kept] / cases))
    return fitted - exact_log_evidence(model, data, 1.0).log_evidence


def truth_spec(features: int, dependent: int) -> dict:
    """The spec of a truth whose binary root (two states when ``dependent`` > 0, one when it has
    no effect) is the parent of the first ``dependent`` of ``features`` binary features."""
    nodes = {"H1": {"states": 2 if dependent else 1, "hidden": True}}
    for j in range(1, features + 1):
        nodes[f"X{j}"] = {"states": 2, **({"parents": ["H1"]} if j <= dependent or
                                          not dependent else {})}
    return {"nodes": nodes}


#: (n, type, features depending on the root, its distribution q); q's probabilities are
#: multiples of 1/32 or 1/18 so that small N give integer counts (the exact part).
CASES = (
    (3, "no effect", 0, naive_bayes_distribution(1.0, [1 / 2, 1 / 4, 3 / 4], [1 / 2] * 3)),
    (3, "two features", 2, naive_bayes_distribution(0.5, [3 / 4, 3 / 4, 1 / 2],
                                                    [1 / 4, 1 / 4, 1 / 2])),
    (3, "every feature", 3, naive_bayes_distribution(0.5, [2 / 3] * 3, [1 / 3] * 3)),
    (4, "no effect", 0, naive_bayes_distribution(1.0, [1 / 2, 1 / 4, 3 / 4, 1 / 3], [1 / 2] * 4)),
    (4, "two features", 2, naive_bayes_distribution(0.5, [3 / 4, 3 / 4, 1 / 2, 1 / 3],
                                                    [1 / 4, 1 / 4, 1 / 2, 1 / 3])),
    (4, "three features", 3, naive_bayes_distribution(0.5, [2 / 3] * 3 + [1 / 3],
                                                      [1 / 3] * 3 + [1 / 3])),
    (4, "every feature", 4, naive_bayes_distribution(0.5, [2 / 3] * 3 + [3 / 4],
                                                     [1 / 3] * 3 + [1 / 5])),
)
#: Sample sizes of the exact part (n = 3; 36 and 72 for the 1/18 case).
EXACT_SIZES = {"no effect": (32, 64, 96), "two features": (32, 64, 96),
               "every feature": (36, 72)}
#: The tempering ladder: 49 sizes from 1 to 10^6; the asymptotic end is N >= 10^4.
LADDER = np.geomspace(1, 1e6, 49)
ASYMPTOTIC_FROM = 1e4


def run() -> list:
    lines = ["n, type: Rusakov-Geiger's coefficient; exact slopes of -log Z between successive N "
             "(n = 3) beside the tempered N E_N[K] there; tempered slope at N = 1e4..1e6 "
             "(mean over the ladder's sizes, ± SE over 8 replicas)"]
    for features, kind, dependent, q in CASES:
        coefficient, _ = rusakov_geiger_coefficient(
            parse_spec(truth_spec(features, dependent)),
            parse_spec(f"2:{','.join(['2'] * features)}"), 1.0)
        means, errors = tempered_slopes(q, LADDER, replicas=8)
        line = f"  n = {features}, {kind}: coefficient {coefficient:g}"
        if features == 3:
            sizes = EXACT_SIZES[kind]
            penalties = [exact_penalty(q, n) for n in sizes]
            for (low, high), (f_low, f_high) in zip(zip(sizes, sizes[1:]),
                                                    zip(penalties, penalties[1:])):
                between = (LADDER >= low) & (LADDER <= high)
                line += (f"; N {low}-{high} exact {(f_high - f_low) / math.log(high / low):.3f}, "
                         f"tempered {means[between].mean():.3f}")
        end = LADDER >= ASYMPTOTIC_FROM
        line += (f"; tempered N >= 1e4 {means[end].mean():.3f} ± "
                 f"{math.sqrt((errors[end] ** 2).sum()) / end.sum():.3f}")
        lines.append(line)
    return lines
