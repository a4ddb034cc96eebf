"""Sec. 3's prior checks of paper 003: one experiment refitted at other priors and at ML (thin
wrapper)."""

from hiddenbn.experiments.chickering_heckerman1996 import fit_prior_variants
from hiddenbn.util.files import atomic_output
from hiddenbn.util.joblog import job_log
from hiddenbn.util.threads import use_threads

# numba kernels on the rule's threads, BLAS on one: results independent of the cores
use_threads(snakemake.threads)  # noqa: F821 (provided by Snakemake)
with job_log(snakemake.log[0]):  # noqa: F821
    params = snakemake.params  # noqa: F821
    table = fit_prior_variants(snakemake.input, params.features, params.states,  # noqa: F821
                               params.seeds, params.prior_alpha, params.prior_alphas, params.em)
    table.insert(0, "experiment", snakemake.wildcards.experiment)  # noqa: F821
    with atomic_output(snakemake.output[0]) as temporary:  # noqa: F821
        table.to_csv(temporary, index=False)
