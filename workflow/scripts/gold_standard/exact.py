"""Exact marginal likelihood against every approximation on one small data set (thin wrapper)."""

from hiddenbn.experiments.gold_standard import exact_cell
from hiddenbn.util.files import atomic_output
from hiddenbn.util.joblog import job_log
from hiddenbn.util.threads import use_threads

# numba kernels on the rule's threads, BLAS on one: results independent of the cores
use_threads(snakemake.threads)  # noqa: F821 (provided by Snakemake)
with job_log(snakemake.log[0]):  # noqa: F821
    params = snakemake.params  # noqa: F821
    table = exact_cell(params.section, params.em, params.prior_alpha, params.smc, params.seed)
    table.insert(0, "replicate", int(snakemake.wildcards.replicate))  # noqa: F821
    with atomic_output(snakemake.output[0]) as temporary:  # noqa: F821
        table.to_csv(temporary, index=False)
