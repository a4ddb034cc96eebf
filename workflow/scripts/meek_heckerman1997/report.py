"""Paper 004: Table 1, Figure 5 (two dimension variants), replicates, drawings, comparison.md."""

from pathlib import Path

from hiddenbn.experiments.meek_heckerman1997 import write_report
from hiddenbn.util.joblog import job_log

with job_log(snakemake.log[0]):  # noqa: F821 (provided by Snakemake)
    write_report(
        snakemake.params.section,  # noqa: F821
        snakemake.params.structures,  # noqa: F821
        snakemake.input.table1,  # noqa: F821
        snakemake.input.alternatives,  # noqa: F821
        snakemake.input.scores,  # noqa: F821
        Path(snakemake.output.report).parent,  # noqa: F821
        snakemake.params.seed,  # noqa: F821
    )
