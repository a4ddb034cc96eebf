"""The cost of each score beside Laplace's, on the same fits.

Run with ``python -m benchmarks scores`` (two to four minutes on two cores). One data set (N =
1000 cases of 8 ternary items from a 3-class latent class model, CPT rows drawn from
Dirichlet(2)), the latent class models of 1..4 classes fitted once each by ``select``'s search
(:func:`hiddenbn.learning.selection.search`: 8 annealed starts and split-and-merge moves, seed
fixed) under ``alpha = 1.01``, so that every MAP is inside and Laplace's Hessian exists. On
these fits, the seconds of each score beyond EM, and their ratio to Laplace's (the exact
negative Hessian and its Cholesky factor, as :func:`hiddenbn.scores.approximations.score_fit`
times it) on the same fit:

- **ICL**: the entropy of the class posteriors (one E step,
  :func:`hiddenbn.scores.integrated_completed_likelihood.hidden_entropy`) and BIC less it;
- **sBIC** over 1..4: the learning-coefficient bounds and the fixed point over the chain
  (:func:`hiddenbn.scores.singular_bic.chain_sbic`), once for the four models (its ratio is to
  the four Laplace scores together);
- **WBIC** at the command line's settings (4 chains of 1000 draws after 500 warm-up
  iterations, :func:`hiddenbn.scores.wbic.wbic_of_fit`), on the 3-class fit (a minute or so;
  ``python -m benchmarks wbic`` times it on more models);
- **the BLRT** of k - 1 against k classes: one replicate (a data set drawn from the k - 1 fit,
  refitted under both models by the same search, :func:`hiddenbn.learning.blrt.run_replicate`
  without the oracle's extra searches), the mean of :data:`REPLICATES_TIMED` replicates, and a
  test that takes all of B = 99 replicates (a p-value at or below 0.05 does; a larger one stops
  sooner, :mod:`hiddenbn.learning.blrt`) on one core: 99 times the replicate. Its ratio is to
  the Laplace score of the k class fit.

The EM fit's own seconds are shown beside them. Everything runs on one thread (numba and
BLAS): a parallel kernel waits for its slowest thread, and on a shared machine that made the
same Laplace score take from 1.4 to 72 ms. JIT compilation is excluded: a first tiny run loads
every kernel.
"""

from __future__ import annotations

import time

import numba
import numpy as np

from hiddenbn.data.sampling import sample_dataset
from hiddenbn.learning import blrt
from hiddenbn.learning.selection import latent_class_network, search
from hiddenbn.models.network import latent_class, random_parameters
from hiddenbn.scores.approximations import score_fit, timed
from hiddenbn.scores.integrated_completed_likelihood import hidden_entropy, icl_log_evidence
from hiddenbn.scores.singular_bic import chain_sbic
from hiddenbn.scores.wbic import wbic_of_fit
from hiddenbn.util.threads import one_blas_thread

#: The generating model, its cases, and the models fitted.
TRUTH, CASES, CLASSES = latent_class(3, [3] * 8), 1000, (1, 2, 3, 4)
#: Prior of the fits: just above 1, so that Laplace's Hessian exists at the MAP.
ALPHA = 1.01
#: Replicates of each test timed, and the B of a test that uses them all.
REPLICATES_TIMED, TYPICAL_B = 3, 99
#: The model WBIC is timed on.
WBIC_CLASSES = 3
#: The shortest a repeated measurement adds up to (the fastest call is taken).
MIN_SECONDS = 1.0


def _warm_up() -> None:
    network = latent_class(2, [2, 2, 2])
    rng = np.random.default_rng(0)
    data = sample_dataset(network, random_parameters(network, rng), 30, rng)
    fits = {k: search(latent_class_network(data, k), data, 0, ALPHA) for k in (1, 2)}
    score_fit(fits[2], data)
    hidden_entropy(network, fits[2].cpts, data)
    wbic_of_fit(fits[2], data, rng, draws=4)
    plan = blrt.plan_tests(data, [1, 2], 0, 1, ALPHA, fits=fits, oracle_checks=0)
    blrt.run_replicate(plan, 2, 0)


def run() -> list:
    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        with one_blas_thread():
            return _measure()
    finally:  # the benchmarks after this one keep their threads
        numba.set_num_threads(threads)


def _measure() -> list:
    start = time.perf_counter()
    _warm_up()
    lines = [f"compile/cache load {time.perf_counter() - start:.1f} s (excluded)"]
    rng = np.random.default_rng(2026)
    data = sample_dataset(TRUTH, random_parameters(TRUTH, rng, 2.0), CASES, rng)
    fits, fit_seconds, laplace, icl = {}, {}, {}, {}
    for k in CLASSES:
        begin = time.perf_counter()
        fits[k] = search(latent_class_network(data, k), data, 0, ALPHA)
        fit_seconds[k] = time.perf_counter() - begin
        timings = {}
        scores = score_fit(fits[k], data, timings=timings, min_seconds=MIN_SECONDS)
        laplace[k] = timings["laplace"]
        (entropy, _), seconds = timed(hidden_entropy, fits[k].network, fits[k].cpts, data,
                                      min_seconds=MIN_SECONDS)
        icl[k] = seconds + timed(icl_log_evidence, scores["bic_log_evidence"], entropy)[1]
    item_states = [3] * 8
    _, sbic_seconds = timed(chain_sbic, list(CLASSES), [fits[k].log_likelihood for k in CLASSES],
                            item_states, CASES, min_seconds=MIN_SECONDS)

    lines.append(f"latent class models of 1..4 classes, 8 ternary items, N = {CASES} (3-class "
                 f"truth), alpha = {ALPHA}, one thread; seconds beyond EM, x = times "
                 "Laplace's on the same fit")
    lines.append(f"  {'k':>2} {'d':>4} {'EM fit':>8} {'Laplace':>9} {'ICL':>18} "
                 f"{'BLRT replicate':>20} {'BLRT, B = 99':>20}")
    plan = blrt.plan_tests(data, list(CLASSES), 0, REPLICATES_TIMED, ALPHA, fits=fits,
                           oracle_checks=0)
    for k in CLASSES:
        row = (f"  {k:>2} {fits[k].network.standard_dimension:>4} {fit_seconds[k]:>7.2f}s "
               f"{laplace[k]:>8.4f}s {icl[k]:>8.5f}s ({icl[k] / laplace[k]:>5.2f}x)")
        if k > 1:
            begin = time.perf_counter()
            blrt.run_replicates(plan, k, 0, REPLICATES_TIMED)
            replicate = (time.perf_counter() - begin) / REPLICATES_TIMED
            row += (f" {replicate:>7.2f}s ({replicate / laplace[k]:>6.0f}x) "
                    f"{TYPICAL_B * replicate / 60:>6.1f}min "
                    f"({TYPICAL_B * replicate / laplace[k]:>6.0f}x)")
        lines.append(row)
    total = sum(laplace.values())
    lines.append(f"  sBIC over 1..4: {sbic_seconds * 1e3:.3f} ms for the four models "
                 f"({sbic_seconds / total:.4f}x their Laplace scores, {total:.3f} s)")
    begin = time.perf_counter()
    estimate = wbic_of_fit(fits[WBIC_CLASSES], data, np.random.default_rng(1))
    seconds = time.perf_counter() - begin
    lines.append(f"  WBIC, k = {WBIC_CLASSES} (4 chains x (500 + 1000)): {seconds:.1f} s "
                 f"({seconds / laplace[WBIC_CLASSES]:.0f}x Laplace), split-R-hat "
                 f"{estimate.rhat:.3f}")
    return lines
