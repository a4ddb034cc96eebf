"""Paper 001 learning study: tables, learning curves and findings.md (a thin wrapper)."""

from pathlib import Path

from hiddenbn.experiments.heckerman_meek1997 import write_study_report
from hiddenbn.util.joblog import job_log

with job_log(snakemake.log[0]):  # noqa: F821 (provided by Snakemake)
    write_study_report(
        snakemake.input.learners,  # noqa: F821
        snakemake.input.selections,  # noqa: F821
        snakemake.output.curves,  # noqa: F821
        snakemake.output.selection,  # noqa: F821
        snakemake.output.findings,  # noqa: F821
        Path(snakemake.output.figure[0]).with_suffix(""),  # noqa: F821
    )
