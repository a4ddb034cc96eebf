"""Paper 001: the EBNC dimension table (CSV + Markdown), Figures 1 and 2, comparison.md and
verdicts.csv (a thin wrapper)."""

from pathlib import Path

from hiddenbn.experiments.heckerman_meek1997 import write_dimension_results
from hiddenbn.util.joblog import job_log
from hiddenbn.util.threads import use_threads

# numba kernels on the rule's threads, BLAS on one: results independent of the cores
use_threads(snakemake.threads)  # noqa: F821 (provided by Snakemake)
with job_log(snakemake.log[0]):  # noqa: F821 (provided by Snakemake)
    write_dimension_results(
        snakemake.params.section,  # noqa: F821
        snakemake.params.seed,  # noqa: F821
        snakemake.params.points,  # noqa: F821
        snakemake.input.printed,  # noqa: F821
        Path(snakemake.output.report).parent,  # noqa: F821
        snakemake.params.theorem2,  # noqa: F821
    )
