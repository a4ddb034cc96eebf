"""Exact marginal likelihood against every approximation on one small data set (thin wrapper)."""

import sys

import numba

from hiddenbn.experiments.gold_standard import exact_cell
from hiddenbn.files import atomic_output

# its EM and SMC kernels run in parallel: on as many threads as the rule has
numba.set_num_threads(snakemake.threads)  # noqa: F821 (provided by Snakemake)
with open(snakemake.log[0], "w") as sys.stderr:  # noqa: F821
    params = snakemake.params  # noqa: F821
    table = exact_cell(params.section, params.em, params.prior_alpha, params.smc, params.seed)
    table.insert(0, "replicate", int(snakemake.wildcards.replicate))  # noqa: F821
    with atomic_output(snakemake.output[0]) as temporary:  # noqa: F821
        table.to_csv(temporary, index=False)
