"""Fit and score every test model on one data set of paper 003 (thin wrapper)."""

from hiddenbn.experiments.chickering_heckerman1996 import fit_test_models, read_effective_dimensions
from hiddenbn.util.files import atomic_output
from hiddenbn.util.joblog import job_log
from hiddenbn.util.threads import use_threads

# numba kernels on the rule's threads, BLAS on one: results independent of the cores
use_threads(snakemake.threads)  # noqa: F821 (provided by Snakemake)
with job_log(snakemake.log[0]):  # noqa: F821
    params = snakemake.params  # noqa: F821
    table = fit_test_models(snakemake.input.data,  # noqa: F821
                            params.features, params.states, params.seed, params.prior_alpha,
                            params.em, params.search,
                            read_effective_dimensions(snakemake.input.dimensions),  # noqa: F821
                            snakemake.input.truth, params.truth_states,  # noqa: F821
                            params.timing_seconds)
    table.insert(0, "experiment", snakemake.wildcards.experiment)  # noqa: F821
    table.insert(1, "replicate", int(snakemake.wildcards.replicate))  # noqa: F821
    with atomic_output(snakemake.output[0]) as temporary:  # noqa: F821
        table.to_csv(temporary, index=False)
