"""SMC gold standard for the test models of one paper-003 data set (thin wrapper)."""

import sys

import numba

from hiddenbn.experiments.gold_standard import paper_cell
from hiddenbn.files import atomic_output

# the SMC kernel runs in parallel: on as many threads as the rule has
numba.set_num_threads(snakemake.threads)  # noqa: F821 (provided by Snakemake)
with open(snakemake.log[0], "w") as sys.stderr:  # noqa: F821
    params = snakemake.params  # noqa: F821
    table = paper_cell(snakemake.input.data, snakemake.input.fits, params.features,  # noqa: F821
                       params.prior_alpha, params.smc, params.seed)
    with atomic_output(snakemake.output[0]) as temporary:  # noqa: F821
        table.to_csv(temporary, index=False)
