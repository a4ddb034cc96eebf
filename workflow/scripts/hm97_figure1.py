"""Paper 001: Figure 1, (a) Y given X1..Xn and (b) the embedded naive-Bayes network."""

import sys
from pathlib import Path

from hiddenbn.experiments.heckerman_meek1997 import draw_figure1

with open(snakemake.log[0], "w") as log:  # noqa: F821 (provided by Snakemake)
    sys.stderr = log
    draw_figure1(snakemake.params.inputs, Path(snakemake.output[0]).with_suffix(""))  # noqa: F821
