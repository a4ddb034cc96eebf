"""A bootstrap test's report from its plan and chunks (a thin wrapper)."""

from hiddenbn.experiments.blrt import write_report
from hiddenbn.util.joblog import job_log

with job_log(snakemake.log[0]):  # noqa: F821 (provided by Snakemake)
    write_report(snakemake.input.plan, snakemake.input.chunks,  # noqa: F821
                 snakemake.output.json, snakemake.output.text)  # noqa: F821
