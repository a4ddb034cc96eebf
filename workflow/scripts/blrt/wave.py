"""Which tests are undecided after a wave of chunks (a thin wrapper)."""

from hiddenbn.experiments.blrt import write_wave
from hiddenbn.util.joblog import job_log

with job_log(snakemake.log[0]):  # noqa: F821 (provided by Snakemake)
    write_wave(snakemake.input.plan, snakemake.input.chunks, snakemake.output[0])  # noqa: F821
