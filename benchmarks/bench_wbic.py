"""WBIC: its cost beside Laplace's, and its distance from the exact evidence.

Run with ``python -m benchmarks wbic``. Two parts:

1. **Cost.** On a latent class model (the packed kernel), a wider one, and a hierarchical latent
   class tree (message passing): one EM fit (:func:`hiddenbn.learning.em.fit`, seed fixed),
   then the seconds of Laplace's score (the exact Hessian, :func:`hiddenbn.scores.approximations.
   score_fit`'s timing) and of WBIC at the command line's settings (4 chains of 1000 draws
   after 500 warm-up iterations, :func:`hiddenbn.scores.wbic.wbic`), their ratio, WBIC's
   Monte-Carlo standard error, split-R-hat and effective draws per second, and both values
   beside BIC's.
2. **Against the exact evidence.** ``2:2,2,2`` data (N = 10, 20, 40; one data set, nested)
   scored by the models of 1, 2 and 3 classes: WBIC, BIC and Laplace (alpha = 1.01, so that the
   MAP is inside and the Hessian defined) less the exact ``log p(D | S)``
   (:func:`hiddenbn.scores.exact.exact_log_evidence`), where the exact sum finishes within its
   budget. Watanabe's WBIC differs from ``log p(D | S)`` by ``O_p(sqrt(log N))``; Friel et al.
   (2017) report an upward bias at small N. The table shows what it is here.

JIT compilation is excluded: a first tiny run loads every kernel.
"""

import time

import numpy as np

from hiddenbn.data import Dataset
from hiddenbn.data.sampling import sample_dataset
from hiddenbn.errors import HiddenbnError
from hiddenbn.learning.em import fit
from hiddenbn.models.network import latent_class, random_parameters
from hiddenbn.models.spec import parse_spec
from hiddenbn.scores.approximations import score_fit
from hiddenbn.scores.exact import exact_log_evidence
from hiddenbn.scores.wbic import wbic_of_fit

#: (name, network, cases) of the cost part.
COST_MODELS = (("latent class 3:2x8", latent_class(3, [2] * 8), 500),
               ("latent class 4:3x12", latent_class(4, [3] * 12), 2000),
               ("tree 2(3(2,2,2),3(2,2,2))", parse_spec("2(3(2,2,2),3(2,2,2))"), 500))
#: Prior of the fits: just above 1, so that Laplace's Hessian exists at the MAP.
ALPHA = 1.01
#: The exact sum's budget in the second part (the benchmark skips what needs more).
EXACT_STATES = 1 << 18


def _warm_up():
    network = latent_class(2, [2, 2])
    rng = np.random.default_rng(0)
    data = sample_dataset(network, random_parameters(network, rng), 20, rng)
    result = fit(network, data, rng, ALPHA)
    wbic_of_fit(result, data, rng, draws=4)
    tree = COST_MODELS[2][1]
    data = sample_dataset(tree, random_parameters(tree, rng), 20, rng)
    wbic_of_fit(fit(tree, data, rng, ALPHA), data, rng, draws=4)


def cost_section() -> list:
    lines = ["cost: Laplace (exact Hessian) and WBIC (4 chains x (500 + 1000), 8 leapfrog steps "
             "on average) after one EM fit; values beside BIC"]
    for name, network, cases in COST_MODELS:
        rng = np.random.default_rng(2026)
        data = sample_dataset(network, random_parameters(network, rng, 2.0), cases, rng)
        result = fit(network, data, np.random.default_rng(1), ALPHA)
        timings = {}
        scores = score_fit(result, data, timings=timings)
        start = time.perf_counter()
        estimate = wbic_of_fit(result, data, np.random.default_rng(2))
        seconds = time.perf_counter() - start
        lines.append(
            f"  {name}, N = {cases}, d = {network.standard_dimension}: Laplace "
            f"{timings['laplace']:.3f} s, WBIC {seconds:.1f} s ({seconds / timings['laplace']:.0f}"
            f"x); {estimate.effective_sample_size / seconds:.0f} effective draws/s, split-R-hat "
            f"{estimate.rhat:.3f}, {estimate.divergences} divergences")
        lines.append(f"    bic_log_evidence {scores['bic_log_evidence']:.2f}, laplace "
                     f"{scores['laplace']:.2f}, wbic_log_evidence "
                     f"{estimate.wbic_log_evidence:.2f} +- {estimate.standard_error:.2f}")
    return lines


def bias_section() -> list:
    truth = latent_class(2, [2, 2, 2])
    cpts = [np.array([[0.6, 0.4]]), np.array([[0.85, 0.15], [0.2, 0.8]]),
            np.array([[0.8, 0.2], [0.25, 0.75]]), np.array([[0.9, 0.1], [0.3, 0.7]])]
    rows = sample_dataset(truth, cpts, 40, np.random.default_rng(1)).rows()
    rows = np.random.default_rng(9).permutation(rows)
    lines = ["against the exact evidence: 2:2,2,2 data (2-class truth), score - exact log p(D|S) "
             f"(alpha = {ALPHA})",
             f"  {'k':>2} {'N':>3} {'exact':>9} {'WBIC':>15} {'BIC':>7} {'Laplace':>8}"]
    for classes in (1, 2, 3):
        network = latent_class(classes, [2, 2, 2])
        for n in (10, 20, 40):
            data = Dataset.from_rows(truth.observed_names, rows[:n], (2, 2, 2))
            try:
                exact = exact_log_evidence(network, data, ALPHA, EXACT_STATES).log_evidence
            except HiddenbnError:
                lines.append(f"  {classes:>2} {n:>3} beyond the exact sum's budget")
                continue
            result = fit(network, data, np.random.default_rng(1), ALPHA)
            scores = score_fit(result, data)
            estimate = wbic_of_fit(result, data, np.random.default_rng(2))
            lines.append(f"  {classes:>2} {n:>3} {exact:9.3f} "
                         f"{estimate.wbic_log_evidence - exact:+8.3f} +- "
                         f"{estimate.standard_error:.3f} "
                         f"{scores['bic_log_evidence'] - exact:+7.3f} "
                         f"{scores['laplace'] - exact:+8.3f}")
    return lines


def run() -> list:
    start = time.perf_counter()
    _warm_up()
    return ([f"compile/cache load {time.perf_counter() - start:.1f} s (excluded)"]
            + cost_section() + bias_section())
