"""Paper 004: Table 1, Figure 5 (two dimension variants), replicates, drawings, comparison.md."""

import sys
from pathlib import Path

from hiddenbn.experiments.meek_heckerman1997 import write_report

with open(snakemake.log[0], "w") as log:  # noqa: F821 (provided by Snakemake)
    sys.stderr = log
    write_report(
        snakemake.params.section,  # noqa: F821
        snakemake.params.structures,  # noqa: F821
        snakemake.input.table1,  # noqa: F821
        snakemake.input.scores,  # noqa: F821
        Path(snakemake.output.report).parent,  # noqa: F821
    )
