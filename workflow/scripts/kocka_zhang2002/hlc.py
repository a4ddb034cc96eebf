"""Hill-climb the HLC cardinalities with every score at one sample size of paper 002 (thin
wrapper)."""

from hiddenbn.experiments.kocka_zhang2002 import hlc_experiment
from hiddenbn.util.files import atomic_output
from hiddenbn.util.joblog import job_log
from hiddenbn.util.threads import use_threads

# numba kernels on the rule's threads, BLAS on one: results independent of the cores
use_threads(snakemake.threads)  # noqa: F821 (provided by Snakemake)
with job_log(snakemake.log[0]):  # noqa: F821
    params = snakemake.params  # noqa: F821
    table = hlc_experiment(int(snakemake.wildcards.cases),  # noqa: F821
                           params.section, params.seed,
                           params.section["jacobian_points"],
                           snakemake.wildcards.distribution)  # noqa: F821
    with atomic_output(snakemake.output[0]) as temporary:  # noqa: F821
        table.to_csv(temporary, index=False)
