"""Paper 004 Sec. 5 for one generating model: sample, fit F1..F5, score (a thin wrapper)."""

from hiddenbn.experiments.meek_heckerman1997 import run_generator
from hiddenbn.util.joblog import job_log
from hiddenbn.util.threads import use_threads

# numba kernels on the rule's threads, BLAS on one: results independent of the cores
use_threads(snakemake.threads)  # noqa: F821 (provided by Snakemake)
with job_log(snakemake.log[0]):  # noqa: F821 (provided by Snakemake)
    run_generator(
        snakemake.params.section,  # noqa: F821
        snakemake.params.structures,  # noqa: F821
        snakemake.wildcards.generator,  # noqa: F821
        snakemake.params.seeds,  # noqa: F821
        snakemake.input.table1,  # noqa: F821
        snakemake.output.scores,  # noqa: F821
        snakemake.output.data,  # noqa: F821
        snakemake.params.random_seeds,  # noqa: F821
    )
