"""results/REPRODUCTION.md from every paper's comparison and verdicts.csv (a thin wrapper)."""

import sys

from hiddenbn.experiments.reproduction import write_reproduction

with open(snakemake.log[0], "w") as sys.stderr:  # noqa: F821 (provided by Snakemake)
    write_reproduction(snakemake.params.sections, snakemake.output[0])  # noqa: F821
