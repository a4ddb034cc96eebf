"""Sec. 5 reality check of paper 003 (thin wrapper)."""

from hiddenbn.experiments.chickering_heckerman1996 import reality_check
from hiddenbn.util.files import atomic_output
from hiddenbn.util.joblog import job_log
from hiddenbn.util.threads import use_threads

# numba kernels on the rule's threads, BLAS on one: results independent of the cores
use_threads(snakemake.threads)  # noqa: F821 (provided by Snakemake)
with job_log(snakemake.log[0]):  # noqa: F821
    params = snakemake.params  # noqa: F821
    table = reality_check(params.section, params.prior_alpha, params.em, params.seed,
                          range(params.section["test_states"]["min"],
                                params.section["test_states"]["max"] + 1))
    with atomic_output(snakemake.output[0]) as temporary:  # noqa: F821
        table.to_csv(temporary, index=False)
