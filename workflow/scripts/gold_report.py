"""Tables, figures and findings.md of the gold-standard experiments (thin wrapper)."""

import sys
from pathlib import Path

from hiddenbn.experiments.gold_standard import write_report

with open(snakemake.log[0], "w") as sys.stderr:  # noqa: F821 (provided by Snakemake)
    inputs = snakemake.input  # noqa: F821
    write_report(inputs.exact, inputs.paper, inputs.slopes,
                 Path(snakemake.output.findings).parent)  # noqa: F821
