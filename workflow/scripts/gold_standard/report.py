"""Tables, figures and findings.md of the gold-standard experiments (thin wrapper)."""

from pathlib import Path

from hiddenbn.experiments.gold_standard import write_report
from hiddenbn.util.joblog import job_log

with job_log(snakemake.log[0]):  # noqa: F821 (provided by Snakemake)
    inputs = snakemake.input  # noqa: F821
    write_report(inputs.exact, inputs.paper, inputs.slopes,
                 Path(snakemake.output.findings).parent,  # noqa: F821
                 snakemake.params.large_c, inputs.doubled)  # noqa: F821
