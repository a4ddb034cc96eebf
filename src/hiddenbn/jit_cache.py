"""Compile every numba kernel of hiddenbn ahead of time into numba's cache, and time it.

Every kernel is ``@numba.njit(cache=True)``: the first process that calls it compiles it
(seconds) and writes the machine code to numba's cache (``NUMBA_CACHE_DIR``, else
``__pycache__`` beside the sources); later processes load it (a fraction of a second). A
workflow job calls only some kernels, so on a fresh machine each kind of job pays for its own.
:func:`warm` calls each group of kernels once on tiny inputs, so a cache can be filled before
the jobs start, e.g. a shared one for a cluster::

    export NUMBA_CACHE_DIR=/cluster/scratch/hiddenbn-numba
    python -m hiddenbn.jit_cache
    snakemake --workflow-profile workflow/profiles/slurm

(the Snakefile keeps a ``NUMBA_CACHE_DIR`` that is set; hiddenbn adds a folder per version of
its sources, see :mod:`hiddenbn`, so an update never runs a kernel compiled from the old ones;
the first start of new sources deletes the folders of others unused for
``hiddenbn.UNUSED_KERNEL_FOLDER_DAYS`` days).
Sharing is safe: numba keys each entry on the kernel's file, its signature and the CPU it was
compiled for, so a node with another CPU compiles and adds its own entry, and entries are
written to a temporary file and renamed.
Run on a cold cache, :func:`warm` gives the first-run compile time of each group
(``python -m benchmarks numba`` prints it, cold and warm).
"""

from __future__ import annotations

import sys
import time


def _groups():
    """``(name, call)`` per group of kernels, each call tiny but through the kernels' real
    entry points (so the signatures compiled are the ones the jobs use)."""
    import numpy as np

    from hiddenbn.data import sampling
    from hiddenbn.dimension import effective as dimension
    from hiddenbn.inference import junction_tree, message_passing
    from hiddenbn.interaction.noisy_max import fit_noisy_max
    from hiddenbn.learning import em
    from hiddenbn.models.interaction import noisy_max_model
    from hiddenbn.models.network import latent_class, random_parameters
    from hiddenbn.models.spec import parse_spec
    from hiddenbn.scores import smc

    rng = np.random.default_rng(0)

    def data_of(network, cases=60, missing_rate=0.0):
        cpts = random_parameters(network, rng)
        return cpts, sampling.sample_dataset(network, cpts, cases, rng, missing_rate)

    binary = latent_class(2, [2] * 4)
    # the latent class E step's two paths: BLAS on the design (wide) and the group pass
    wide, many_states = latent_class(8, [2] * 40), latent_class(8, [6] * 8)
    tree = parse_spec("2(2(2,2),2,2)")
    ladder = parse_spec({"nodes": {
        "H0": {"states": 2, "hidden": True}, "H1": {"states": 2, "hidden": True,
                                                    "parents": ["H0"]},
        "X0": {"states": 2, "parents": ["H0", "H1"]}, "X1": {"states": 2, "parents": ["H1"]}}})
    noisy_max = noisy_max_model([[1], [2]])

    def fit(network, schedule="halving", missing_rate=0.0, cases=60):
        _, data = data_of(network, cases, missing_rate)
        # 4 final iterations: room for a SQUAREM cycle's jump
        # (hiddenbn.learning.engine.SQUAREM_MOST_STEPS)
        em.fit(network, data, rng, restarts=2, max_iterations=4, schedule=schedule)

    def parallel_latent_class_e_step():
        # 70,000 cases of 8 six-state variables, 32 classes: past PARALLEL_MIN_CELLS of the
        # group pass, whose blocks then run on numba's threads (a kernel of its own)
        network = latent_class(32, [6] * 8)
        cpts, data = data_of(network, cases=70_000)
        engine = em.make_engine(network, data, 1.0)
        engine.e_step(engine.from_cpts(cpts))

    def junction_tree_group():
        cpts, data = data_of(ladder)
        data = data.for_network(ladder)
        junction_tree.junction_tree_statistics(ladder, cpts, data.patterns, data.counts)
        junction_tree.junction_tree_family_posteriors(ladder, cpts, data.patterns)

    def tree_group():
        cpts, data = data_of(tree)
        data = data.for_network(tree)
        message_passing.tree_statistics(tree, cpts, data.patterns, data.counts)
        message_passing.tree_family_posteriors(tree, cpts, data.patterns)

    return [
        ("sampling", lambda: data_of(binary)),
        ("latent class EM (group pass, BLAS design path, missing cells)",
         lambda: (fit(binary), fit(binary, missing_rate=0.2), fit(wide, cases=600),
                  fit(many_states, cases=600), fit(many_states, missing_rate=0.2, cases=600),
                  parallel_latent_class_e_step())),
        ("message passing (trees)", tree_group),
        ("junction tree", junction_tree_group),
        ("noisy-max EM", lambda: fit_noisy_max(noisy_max, data_of(noisy_max.network())[1], rng,
                                               restarts=1, max_iterations=3)),
        # three classes: split-and-merge leaves fewer alone
        ("annealed starts and split-and-merge", lambda: (fit(latent_class(3, [2] * 4),
                                                             "annealing"),
                                                         fit(tree, "annealing"))),
        ("SMC evidence", lambda: smc.smc_log_evidence(binary, data_of(binary)[1], rng, runs=2,
                                                      particles=8)),
        ("Jacobian and rank (effective dimension)",
         lambda: dimension.dimension_report(parse_spec("3(2(2,2),2,2)"), points=1)),
    ]


def warm() -> list[tuple[str, float]]:
    """Call every group of kernels once; returns ``(group, seconds)`` in order (on a cold cache
    the compile time, on a warm one the cache load)."""
    timings = []
    for name, call in _groups():
        start = time.perf_counter()
        call()
        timings.append((name, time.perf_counter() - start))
    return timings


def main() -> None:
    start = time.perf_counter()
    for name, seconds in warm():
        print(f"{seconds:6.2f} s  {name}", flush=True)
    print(f"{time.perf_counter() - start:6.2f} s  all kernels", file=sys.stderr)


if __name__ == "__main__":
    main()
