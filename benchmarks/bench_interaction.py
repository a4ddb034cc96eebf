"""NMI EM (NoisyMaxEngine: a numba E step with closed-form mechanism posteriors, driven by
hiddenbn.learning.em.fit_engine) against the general enumeration EM.

Both fit model F4 of paper 004 (three pairwise mechanisms, binary) to the same 1600 cases from
the same starting tables, for a fixed number of plain EM iterations (a tolerance of 0 stops
only where g stops changing), in the same process: the baseline is
:func:`hiddenbn.learning.em.run_em`, which enumerates the hidden mechanism states with the effect's
0/1 table. The report gives EM iterations per second and the ratio.
"""

import time

import numpy as np

from benchmarks import best_time
from hiddenbn.data.sampling import sample_dataset
from hiddenbn.interaction.noisy_max import NoisyMaxEngine, stacked_tables
from hiddenbn.learning.em import fit_engine, run_em
from hiddenbn.models.interaction import noisy_max_model
from hiddenbn.models.network import random_parameters


def run():
    model = noisy_max_model([[1, 2], [1, 3], [2, 3]])
    network = model.network()
    rng = np.random.default_rng(0)
    cpts = random_parameters(network, rng)
    data = sample_dataset(network, random_parameters(network, rng), 1600, rng)
    iterations = 200
    engine, start_table = NoisyMaxEngine(model, data, 1.0), stacked_tables(model, cpts)

    def nmi(steps):
        return fit_engine(engine, None, 1, steps, 0.0, draw=lambda _: start_table,
                          acceleration="none")

    start = time.perf_counter()
    nmi(1)
    compile_seconds = time.perf_counter() - start
    kernel = best_time(lambda: nmi(iterations))
    baseline = best_time(lambda: run_em(network, data, cpts, alpha=1.0,
                                        max_iterations=iterations, tolerance=0.0,
                                        acceleration="none"))
    return [
        f"model F4 (3 mechanisms, 12 mechanism rows), 1600 cases in {data.n_patterns} patterns, "
        f"{iterations} EM iterations, one thread",
        f"JIT compile or cache load (excluded below): {compile_seconds:.2f} s",
        f"NMI engine (closed-form mechanism posteriors): {iterations / kernel:,.0f} iterations/s",
        f"general enumeration EM (hiddenbn.learning.em.run_em):  "
        f"{iterations / baseline:,.0f} iterations/s",
        f"ratio NMI engine / enumeration EM: {baseline / kernel:.0f}x",
    ]
