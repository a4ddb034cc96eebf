"""Digests of every floating-point kernel's output on fixed inputs, for tests/test_determinism.py.

Run as a script (``python tests/determinism_probe.py THREADS``), it prints one JSON object
mapping a computation to the SHA-256 of its output bytes. The test runs it in fresh processes
under different conditions (a cold and a warm numba cache, 1 and 2 numba and BLAS threads) and
requires identical digests: results must not depend on how or where a job ran.

The E steps run first, under whatever BLAS threads the environment sets (the library's own
guarantee); then the probe sets up its threads as a workflow job does
(:func:`hiddenbn.util.threads.use_threads`) and runs an EM fit with its scores and an SMC estimate.

The inputs are big enough for the parallel paths of the kernels
(:data:`hiddenbn.inference.enumeration.PARALLEL_MIN_CELLS`, several blocks of the message-passing
and junction-tree kernels) and for BLAS to use its threads.
"""

from __future__ import annotations

import hashlib
import json
import sys

import numpy as np

from hiddenbn.data.sampling import sample_dataset
from hiddenbn.inference import enumeration as inference
from hiddenbn.inference.junction_tree import junction_tree_statistics
from hiddenbn.inference.message_passing import tree_statistics
from hiddenbn.learning.em import fit, run_em
from hiddenbn.models.network import latent_class, random_parameters
from hiddenbn.models.spec import parse_spec
from hiddenbn.scores.approximations import score_fit
from hiddenbn.scores.smc import smc_log_evidence
from hiddenbn.util.threads import use_threads


def digest(*arrays) -> str:
    hasher = hashlib.sha256()
    for array in arrays:
        hasher.update(np.ascontiguousarray(array, dtype=np.float64).tobytes())
    return hasher.hexdigest()


def latent_class_inputs(cardinalities, hidden_states: int, cases: int, seed: int):
    network = latent_class(hidden_states, cardinalities)
    rng = np.random.default_rng(seed)
    cpts = random_parameters(network, rng, 1.0)
    data = sample_dataset(network, cpts, cases, rng)
    offsets = inference.state_offsets(cardinalities)
    table = np.vstack([t.T for t in cpts[1:]])
    return network, data, cpts[0][0], table, offsets


def e_step_digests() -> dict:
    out = {}
    # binary: the BLAS design path (subtract maxima, exp, normalise rows) and the group pass
    cards = np.full(30, 2)
    _, data, weights, table, offsets = latent_class_inputs(cards, 8, 4000, 1)
    design = inference.latent_class_design(data.patterns, cards)
    out["e_step_design"] = digest(*inference.latent_class_statistics(
        data.patterns, data.counts, weights, table, offsets, design))
    _, data, weights, table, offsets = latent_class_inputs(cards, 8, 40000, 1)
    out["e_step_groups"] = digest(*inference.latent_class_statistics(
        data.patterns, data.counts, weights, table, offsets))
    # many states: the group pass, a variable or two per group
    cards = np.full(30, 6)
    _, data, weights, table, offsets = latent_class_inputs(cards, 8, 40000, 2)
    out["e_step_groups_of_many_states"] = digest(*inference.latent_class_statistics(
        data.patterns, data.counts, weights, table, offsets))
    # a tree past enumeration: the message-passing kernel, several blocks of patterns
    network = parse_spec("3(" + ",".join(["3(2,2,2)"] * 6) + ",2,2)")
    rng = np.random.default_rng(7)
    cpts = random_parameters(network, rng, 1.0)
    data = sample_dataset(network, cpts, 12000, rng, missing_rate=0.1).for_network(network)
    expected, log_likelihood = tree_statistics(network, cpts, data.patterns, data.counts)
    out["e_step_tree"] = digest(log_likelihood, *expected)
    # a ladder of hidden nodes (two hidden parents per child): the junction-tree kernels
    nodes = {f"H{k}": {"states": 2, "hidden": True, **({"parents": [f"H{k - 1}"]} if k else {})}
             for k in range(12)}
    nodes |= {f"X{k}_{c}": {"states": 2, "parents": [f"H{k}", f"H{k + 1}"]}
              for k in range(11) for c in range(2)}
    network = parse_spec({"nodes": nodes})
    cpts = random_parameters(network, rng, 1.0)
    data = sample_dataset(network, cpts, 30000, rng, missing_rate=0.1).for_network(network)
    expected, log_likelihood = junction_tree_statistics(network, cpts, data.patterns,
                                                        data.counts)
    out["e_step_junction_tree"] = digest(log_likelihood, *expected)
    return out


def em_digests() -> dict:
    """A paper-002-sized LC fit and its scores: the path of the kocka_zhang2002_lc job (plain
    EM); the same fit accelerated, as ``hiddenbn fit`` runs it; and SQUAREM cycles on a tree
    whose E step runs in several blocks."""
    network, data, *_ = latent_class_inputs(np.full(4, 2), 3, 500, 3)
    test = latent_class(4, [2, 2, 2, 2])
    out = {}
    for acceleration in ("none", "squarem"):
        result = fit(test, data, np.random.default_rng(4), alpha=1.0, restarts=4,
                     max_iterations=300, tolerance=1e-5, schedule="halving",
                     acceleration=acceleration)
        out[f"em_fit_{acceleration}"] = digest(result.log_likelihood, *result.cpts)
    scores = score_fit(result, data, 15, with_laplace=True)
    out["scores"] = digest(*[scores[key] for key in sorted(scores)
                             if isinstance(scores[key], float)])
    network = parse_spec("3(" + ",".join(["3(2,2,2)"] * 6) + ",2,2)")
    rng = np.random.default_rng(8)
    data = sample_dataset(network, random_parameters(network, rng, 1.0), 12000, rng,
                          missing_rate=0.1)
    result = run_em(network, data, random_parameters(network, rng, 1.0), max_iterations=24,
                    tolerance=0.0, acceleration="squarem")
    out["em_squarem_tree"] = digest(result.trace, *result.cpts)
    return out


def smc_digests() -> dict:
    network, data, *_ = latent_class_inputs(np.full(6, 3), 3, 60, 5)
    estimate = smc_log_evidence(latent_class(3, [3] * 6), data, np.random.default_rng(6),
                                runs=4, particles=32, moves=1)
    return {"smc": digest(estimate.run_estimates)}


def main(threads: int) -> None:
    digests = e_step_digests()
    use_threads(threads)
    digests |= {**em_digests(), **smc_digests()}
    print(json.dumps(digests, sort_keys=True))


if __name__ == "__main__":
    main(int(sys.argv[1]))
