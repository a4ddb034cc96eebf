"""Marginal likelihood: SMC speed and accuracy (against a target), and the reach of exact sums.

1. SMC on the naive-Bayes model of paper 003 with n = 32 binary features, c = 4 hidden states
   and N = 400 cases (target: standard error below 0.5 nats in under a minute on 2 cores).
   Baseline in the same run: plain importance sampling from the prior (``mean_s p(D |
   theta_s)``, ``theta_s`` drawn from the Dirichlet prior, likelihoods by the latent-class
   E-step kernel) given the same wall time; its standard error is from the same number of
   independent runs.
2. Samplers where paper 003's gold standard spends its time: n = 64 binary features, N = 400
   cases from a model with c = 32 hidden states, test models with 12 and 24 states (fewer
   than the data's clusters) and 32; 8 runs each of: the SMC over the cases with P and 2P
   particles, with split-merge moves added (Jain & Neal 2004; Dahl's sequential allocation,
   :func:`hiddenbn.inference.collapsed.reallocate`), and tempering with P/2 and P particles
   (:func:`hiddenbn.scores.smc.tempered_smc_log_evidence`). Printed: the estimate, the spread of
   the runs' log estimates, the effective number of runs, CPU seconds, and the ratio of each
   CPU time to the first row's. A sampler that misses mass shows as a lower estimate with
   runs that agree no better.
3. Exact enumeration: time and peak table size on growing data sets, against the peer
   brute-force sum of the test suite (``tests/reference.py``: no merging of equal statistics, no
   label symmetry) where that finishes.
"""

import sys
import time
from pathlib import Path

import numba
import numpy as np
from scipy.special import logsumexp

from hiddenbn.data.sampling import sample_dataset
from hiddenbn.errors import HiddenbnError
from hiddenbn.inference.enumeration import latent_class_statistics, state_offsets
from hiddenbn.models.network import latent_class, random_parameters
from hiddenbn.scores.exact import exact_log_evidence
from hiddenbn.scores.smc import smc_log_evidence, tempered_smc_log_evidence

# the peer is the test suite's brute-force sum over completions (not part of the library)
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from reference import exact_log_marginal_likelihood  # noqa: E402


def prior_importance_sampling(network, data, rng, seconds, runs):
    """``runs`` independent prior-sampling estimates sharing ``seconds`` of wall time."""
    cards = np.asarray(network.cardinalities[1:])
    offsets = state_offsets(cards)
    estimates = []
    for _ in range(runs):
        log_likelihoods = []
        stop = time.perf_counter() + seconds / runs
        while time.perf_counter() < stop:
            cpts = random_parameters(network, rng, 1.0)
            table = np.ascontiguousarray(np.vstack([t.T for t in cpts[1:]]))
            log_likelihoods.append(latent_class_statistics(data.patterns, data.counts,
                                                           cpts[0][0], table, offsets)[2])
        estimates.append(logsumexp(log_likelihoods) - np.log(len(log_likelihoods)))
    estimates = np.array(estimates)
    return logsumexp(estimates) - np.log(runs), estimates.std(ddof=1) / np.sqrt(runs)


def smc_section():
    rng = np.random.default_rng(2026)
    network = latent_class(4, [2] * 32)
    data = sample_dataset(network, random_parameters(network, rng), 400, rng)
    start = time.perf_counter()
    smc_log_evidence(network, data, np.random.default_rng(0), runs=2, particles=2)
    compile_seconds = time.perf_counter() - start
    lines = [f"SMC, naive Bayes n=32 c=4 N=400 ({data.n_patterns} patterns), "
             f"{numba.get_num_threads()} threads; compile/cache load {compile_seconds:.1f} s "
             "(excluded)"]
    seconds = None
    for particles in (32, 64, 128):
        start = time.perf_counter()
        result = smc_log_evidence(network, data, np.random.default_rng(1), runs=8,
                                  particles=particles)
        seconds = time.perf_counter() - start
        lines.append(f"  8 runs x {particles:3d} particles: log p(D) = {result.log_evidence:.2f}"
                     f" +- {result.standard_error:.2f} in {seconds:.1f} s")
    baseline, baseline_se = prior_importance_sampling(network, data, np.random.default_rng(3),
                                                      seconds, runs=8)
    lines.append(f"  baseline, prior importance sampling, same {seconds:.1f} s: "
                 f"{baseline:.2f} +- {baseline_se:.2f}")
    return lines


#: Particles per run of the SMC over the cases in :func:`samplers_section` (P).
SAMPLER_PARTICLES = 64
#: Split-merge moves per particle after each resampling in :func:`samplers_section`.
SAMPLER_SPLIT_MERGE = 5


def samplers_section():
    rng = np.random.default_rng(2027)
    generating = latent_class(32, [2] * 64)
    data = sample_dataset(generating, random_parameters(generating, rng), 400, rng)
    p = SAMPLER_PARTICLES
    samplers = [
        (f"cases, {p} particles", smc_log_evidence, {"particles": p}),
        (f"cases, {2 * p} particles", smc_log_evidence, {"particles": 2 * p}),
        (f"cases, {p} particles + {SAMPLER_SPLIT_MERGE} split-merge", smc_log_evidence,
         {"particles": p, "split_merge": SAMPLER_SPLIT_MERGE}),
        (f"tempering, {p // 2} particles", tempered_smc_log_evidence, {"particles": p // 2}),
        (f"tempering, {p} particles", tempered_smc_log_evidence, {"particles": p}),
    ]
    lines = ["Samplers on naive Bayes n=64 N=400 data from c=32 "
             f"({numba.get_num_threads()} threads), 8 runs each"]
    for states in (12, 24, 32):
        network = latent_class(states, [2] * 64)
        first = None
        for name, sampler, settings in samplers:
            start = time.process_time()
            result = sampler(network, data, np.random.default_rng(states), runs=8, **settings)
            seconds = time.process_time() - start
            first = first or seconds
            lines.append(f"  {states:2d} states, {name:38s}: log p(D) = "
                         f"{result.log_evidence:9.1f}, runs' spread "
                         f"{result.run_estimates.std(ddof=1):5.1f} nats, "
                         f"{result.effective_runs:.1f} effective runs, {seconds:5.1f} s CPU "
                         f"({seconds / first:.1f}x)")
    return lines


def exact_section():
    lines = ["exact enumeration: model, N, distinct patterns, peak table, time (peer time)"]
    cases = [(2, 64, 10), (2, 64, 16), (2, 4, 12), (2, 4, 40), (3, 4, 12), (3, 4, 20),
             (4, 32, 8)]
    for k, n, cases_n in cases:
        rng = np.random.default_rng(k * 100 + n + cases_n)
        network = latent_class(k, [2] * n)
        data = sample_dataset(network, random_parameters(network, rng), cases_n, rng)
        start = time.perf_counter()
        result = exact_log_evidence(network, data, 1.0)
        seconds = time.perf_counter() - start
        start = time.perf_counter()
        try:
            peer = exact_log_marginal_likelihood(network, data, 1.0)
            peer_text = (f"{time.perf_counter() - start:.2f} s, "
                         f"|diff| {abs(peer - result.log_evidence):.1e}")
        except HiddenbnError:
            peer_text = "refused (too many completions)"
        lines.append(f"  {k}:2x{n} N={cases_n}: {data.n_patterns} patterns, "
                     f"{result.peak_states} states, {seconds:.2f} s ({peer_text})")
    return lines


def run():
    return smc_section() + samplers_section() + exact_section()
