"""Paper 001 learning study: tables, learning curves and findings.md (a thin wrapper)."""

import sys
from pathlib import Path

from hiddenbn.experiments.heckerman_meek1997 import write_study_outputs

with open(snakemake.log[0], "w") as log:  # noqa: F821 (provided by Snakemake)
    sys.stderr = log
    write_study_outputs(
        snakemake.input.learners,  # noqa: F821
        snakemake.input.selections,  # noqa: F821
        snakemake.output.curves,  # noqa: F821
        snakemake.output.selection,  # noqa: F821
        snakemake.output.findings,  # noqa: F821
        Path(snakemake.output.figure[0]).with_suffix(""),  # noqa: F821
    )
