"""An experiment's fits taken from the experiment with the same data sets (thin wrapper)."""

from hiddenbn.experiments.chickering_heckerman1996 import relabel_fits
from hiddenbn.util.joblog import job_log

with job_log(snakemake.log[0]):  # noqa: F821 (provided by Snakemake)
    relabel_fits(snakemake.input[0], snakemake.wildcards.experiment,  # noqa: F821
                 snakemake.output[0])  # noqa: F821
