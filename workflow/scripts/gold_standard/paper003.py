"""SMC gold standard for the test models of one paper-003 data set (thin wrapper)."""

from hiddenbn.experiments.gold_standard import paper_cell
from hiddenbn.util.files import atomic_output
from hiddenbn.util.joblog import job_log
from hiddenbn.util.threads import use_threads

# numba kernels on the rule's threads, BLAS on one: results independent of the cores
use_threads(snakemake.threads)  # noqa: F821 (provided by Snakemake)
with job_log(snakemake.log[0]):  # noqa: F821
    params = snakemake.params  # noqa: F821
    table = paper_cell(snakemake.input.data, snakemake.input.fits, params.features,  # noqa: F821
                       params.prior_alpha, params.smc, params.seed, params.generating_states,
                       params.part, params.parts, params.tempering,
                       snakemake.input.model)  # noqa: F821
    with atomic_output(snakemake.output[0]) as temporary:  # noqa: F821
        table.to_csv(temporary, index=False)
