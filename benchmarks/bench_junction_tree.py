"""Exact inference on networks that are not trees: the junction tree against enumeration.

Run with ``python -m benchmarks junction_tree``. One E step (expected counts and the
log-likelihood, paper 003 Eq. 11) of
:func:`hiddenbn.inference.junction_tree.junction_tree_statistics` against
:func:`hiddenbn.inference.enumeration.enumeration_statistics` on the same data and parameters, on
one numba thread (the ratio is what :func:`hiddenbn.inference.junction_tree.prefers_junction_tree`
turns into the engine choice), after a warm-up call, so numba's compile time is never timed. The
networks: W structures (hidden parents shared by every observed child), a noisy-max effect with its
hidden mechanisms (one clique holds them all) and ladders (each observed child has two neighbouring
hidden parents on a chain), where enumeration stops at 16 binary hidden nodes.
"""

import os

import numba
import numpy as np

from benchmarks.bench_em import best_time
from hiddenbn.data.sampling import sample_dataset
from hiddenbn.inference import junction_tree as jt
from hiddenbn.inference.enumeration import (MAX_HIDDEN_CONFIGURATIONS, enumeration_statistics,
                                            hidden_configuration_count)
from hiddenbn.models.network import random_parameters
from hiddenbn.models.spec import parse_spec

CASES = 10_000


def w_structure(hidden: int, states: int, children: int):
    """``hidden`` hidden parents of ``states`` states, every one a parent of each binary child."""
    nodes = {f"H{k}": {"states": states, "hidden": True} for k in range(hidden)}
    nodes.update({f"X{k}": {"states": 2, "parents": [f"H{h}" for h in range(hidden)]}
                  for k in range(children)})
    return parse_spec({"nodes": nodes})


def noisy_max(causes: int):
    """Binary observed causes, a hidden mechanism each, their max the observed effect."""
    nodes = {f"C{k}": {"states": 2} for k in range(causes)}
    nodes.update({f"M{k}": {"states": 2, "parents": [f"C{k}"], "hidden": True}
                  for k in range(causes)})
    nodes["E"] = {"function": "max", "parents": [f"M{k}" for k in range(causes)]}
    return parse_spec({"nodes": nodes})


def ladder(hidden: int):
    """A chain of binary hidden nodes; two binary children under each neighbouring pair."""
    nodes = {}
    for k in range(hidden):
        nodes[f"H{k}"] = {"states": 2, "hidden": True, **({"parents": [f"H{k - 1}"]} if k else {})}
    for k in range(hidden - 1):
        for c in range(2):
            nodes[f"X{k}_{c}"] = {"states": 2, "parents": [f"H{k}", f"H{k + 1}"]}
    return parse_spec({"nodes": nodes})


NETWORKS = {"W, 2 ternary hidden parents, 20 children": w_structure(2, 3, 20),
            "W, 3 ternary hidden parents, 20 children": w_structure(3, 3, 20),
            "noisy-max, 10 binary causes": noisy_max(10),
            "ladder of 8 binary hidden nodes": ladder(8),
            "ladder of 18 binary hidden nodes": ladder(18)}


def run():
    lines = [f"machine: {os.cpu_count()} CPUs, one numba thread, load average "
             f"{os.getloadavg()[0]:.1f} at start (other work inflates every time)"]
    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        for name, network in NETWORKS.items():
            rng = np.random.default_rng(1)
            cpts = random_parameters(network, rng)
            data = sample_dataset(network, cpts, CASES, rng).for_network(network)
            jt.junction_tree_statistics(network, cpts, data.patterns[:5], data.counts[:5])
            ours = best_time(lambda: jt.junction_tree_statistics(network, cpts, data.patterns,
                                                                 data.counts))[0]
            if hidden_configuration_count(network) <= MAX_HIDDEN_CONFIGURATIONS:
                theirs = best_time(lambda: enumeration_statistics(network, cpts, data.patterns,
                                                                  data.counts))[0]
                baseline = f"enumeration {theirs * 1e3:.1f} ms ({theirs / ours:.2f}x)"
            else:
                baseline = "enumeration refused"
            chosen = "junction tree" if jt.prefers_junction_tree(network) else "enumeration"
            lines.append(f"E step, {name}, N = {CASES:,} ({data.n_patterns:,} patterns; "
                         f"{jt.junction_tree(network).describe()}): junction tree "
                         f"{ours * 1e3:.1f} ms, {baseline}; engine chosen: {chosen}")
    finally:
        numba.set_num_threads(threads)
    lines.append(f"load average {os.getloadavg()[0]:.1f} at the end")
    return lines
