"""Effective dimensions of paper 003's test models (thin wrapper over the library)."""

from hiddenbn.experiments.chickering_heckerman1996 import dimensions_of_test_models
from hiddenbn.util.joblog import job_log
from hiddenbn.util.threads import use_threads

# numba kernels on the rule's threads, BLAS on one: results independent of the cores
use_threads(snakemake.threads)  # noqa: F821 (provided by Snakemake)
with job_log(snakemake.log[0]):  # noqa: F821 (provided by Snakemake)
    table = dimensions_of_test_models(
        snakemake.params.features,  # noqa: F821
        snakemake.params.states,  # noqa: F821
        snakemake.params.points,  # noqa: F821
        snakemake.params.seed,  # noqa: F821
    )
    table.to_csv(snakemake.output[0], index=False)  # noqa: F821
