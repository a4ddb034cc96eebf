"""Sample every replicate data set of one experiment (a thin wrapper over the library)."""

from hiddenbn.experiments.chickering_heckerman1996 import write_data_sets
from hiddenbn.util.joblog import job_log
from hiddenbn.util.threads import use_threads

# numba kernels on the rule's threads, BLAS on one: results independent of the cores
use_threads(snakemake.threads)  # noqa: F821 (provided by Snakemake)
with job_log(snakemake.log[0]):  # noqa: F821 (provided by Snakemake)
    write_data_sets(
        snakemake.params.spec,  # noqa: F821
        snakemake.input[0],  # noqa: F821
        snakemake.params.cases,  # noqa: F821
        snakemake.params.seeds,  # noqa: F821
        snakemake.output,  # noqa: F821
    )
