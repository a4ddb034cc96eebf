"""One chunk of a bootstrap test's replicates (a thin wrapper)."""

from hiddenbn.experiments.blrt import write_chunk
from hiddenbn.util.joblog import job_log
from hiddenbn.util.threads import use_threads

# numba kernels on the rule's threads, BLAS on one: results independent of the cores
use_threads(snakemake.threads)  # noqa: F821 (provided by Snakemake)
with job_log(snakemake.log[0]):  # noqa: F821
    write_chunk(snakemake.input.plan, snakemake.params.chunks,  # noqa: F821
                int(snakemake.wildcards.chunk), snakemake.output[0],  # noqa: F821
                snakemake.input.wave[0] if snakemake.input.wave else None)  # noqa: F821
