"""Paper 001: Figure 1, (a) Y given X1..Xn and (b) the embedded naive-Bayes network."""

from pathlib import Path

from hiddenbn.experiments.heckerman_meek1997 import draw_figure1
from hiddenbn.joblog import job_log

with job_log(snakemake.log[0]):  # noqa: F821 (provided by Snakemake)
    draw_figure1(snakemake.params.inputs, Path(snakemake.output[0]).with_suffix(""))  # noqa: F821
