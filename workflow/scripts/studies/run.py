"""Every replicate of one (study, generator, N): data, candidate fits, selections (thin
wrapper)."""

from hiddenbn.experiments.studies import run_job
from hiddenbn.util.files import atomic_output
from hiddenbn.util.joblog import job_log
from hiddenbn.util.threads import use_threads

# numba kernels on the rule's threads, BLAS on one: results independent of the cores
use_threads(snakemake.threads)  # noqa: F821 (provided by Snakemake)
with job_log(snakemake.log[0]):  # noqa: F821
    fits, selections = run_job(snakemake.params.study, snakemake.wildcards.generator,  # noqa: F821
                               int(snakemake.wildcards.cases), snakemake.params.seeds)  # noqa: F821
    for frame, path in ((fits, snakemake.output.fits),  # noqa: F821
                        (selections, snakemake.output.selections)):  # noqa: F821
        with atomic_output(path) as temporary:
            frame.to_csv(temporary, index=False)
