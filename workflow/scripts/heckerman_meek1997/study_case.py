"""Paper 001 learning study: every replicate of one case and training size (a thin wrapper)."""

from hiddenbn.experiments.heckerman_meek1997 import run_study_case
from hiddenbn.util.joblog import job_log
from hiddenbn.util.threads import use_threads

# numba kernels on the rule's threads, BLAS on one: results independent of the cores
use_threads(snakemake.threads)  # noqa: F821 (provided by Snakemake)
with job_log(snakemake.log[0]):  # noqa: F821 (provided by Snakemake)
    run_study_case(
        snakemake.wildcards.case,  # noqa: F821
        snakemake.params.size,  # noqa: F821
        snakemake.params.section,  # noqa: F821
        snakemake.params.seed,  # noqa: F821
        snakemake.output.learners,  # noqa: F821
        snakemake.output.selections,  # noqa: F821
    )
