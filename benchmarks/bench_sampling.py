"""Forward-sampling throughput (target: >= 1e7 node-draws per second on one core).

Baseline: a vectorised NumPy forward sampler (inverse CDF per node, all rows at once), run in
the same process on the same model; the report gives node-draws per second and the ratio.
"""

import time

import numpy as np

from benchmarks import best_time
from hiddenbn.data.sampling import forward_sample, forward_sample_kernel, pack_network
from hiddenbn.models.network import latent_class, random_parameters


def numpy_forward_sample(network, cpts, n_cases, rng):
    """Reference sampler in plain NumPy: one inverse-CDF lookup per node for all rows."""
    values = np.empty((n_cases, network.n_nodes), dtype=np.int64)
    for i in range(network.n_nodes):
        row = np.zeros(n_cases, dtype=np.int64)
        for p in network.parents[i]:
            row = row * network.cardinalities[p] + values[:, p]
        cdf = np.cumsum(cpts[i], axis=1)
        u = rng.random(n_cases)
        values[:, i] = np.minimum((u[:, None] >= cdf[row]).sum(axis=1), cpts[i].shape[1] - 1)
    return values[:, network.observed_indices]


def run():
    network = latent_class(32, [2] * 64)
    cpts = random_parameters(network, np.random.default_rng(0))
    n_cases = 1_000_000
    draws = n_cases * network.n_nodes

    start = time.perf_counter()
    forward_sample(network, cpts, 10, np.random.default_rng(1))
    compile_seconds = time.perf_counter() - start

    flat = pack_network(network, cpts)
    uniforms = np.random.default_rng(2).random((n_cases, network.n_nodes))
    out = np.empty((n_cases, network.n_nodes), dtype=np.int32)
    kernel = best_time(lambda: forward_sample_kernel(*flat, uniforms, out))
    total = best_time(lambda: forward_sample(network, cpts, n_cases, np.random.default_rng(3)))
    baseline = best_time(lambda: numpy_forward_sample(network, cpts, n_cases,
                                                      np.random.default_rng(4)), repeats=1)
    return [
        f"model 32:2x64 (65 nodes), {n_cases:,} cases = {draws:.2e} node-draws, one thread",
        f"JIT compile or cache load (excluded below): {compile_seconds:.2f} s",
        f"numba kernel alone:        {draws / kernel:.3e} node-draws/s",
        f"forward_sample (uniforms + kernel + copy): {draws / total:.3e} node-draws/s",
        f"NumPy baseline:            {draws / baseline:.3e} node-draws/s",
        f"ratio forward_sample / NumPy baseline: {baseline / total:.1f}x",
    ]
