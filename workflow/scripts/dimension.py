"""One paper's dimension results (tables, figures, comparison.md): a thin wrapper around the
paper module's ``write_dimension_results`` (hiddenbn.experiments.papers names the module and
writes the protocol down: WritesDimensionResults)."""

from pathlib import Path

from hiddenbn.experiments.papers import paper
from hiddenbn.util.joblog import job_log
from hiddenbn.util.threads import use_threads

# numba kernels on the rule's threads, BLAS on one: results independent of the cores
use_threads(snakemake.threads)  # noqa: F821 (provided by Snakemake)
with job_log(snakemake.log[0]):  # noqa: F821 (provided by Snakemake)
    # DimensionWarnings land in the log
    paper(snakemake.params.paper).experiment().write_dimension_results(  # noqa: F821
        snakemake.params.section,  # noqa: F821
        snakemake.params.seed,  # noqa: F821
        snakemake.input.printed,  # noqa: F821
        Path(snakemake.output.report).parent,  # noqa: F821
    )
