"""results/REPRODUCTION.md from every paper's comparison and verdicts.csv (a thin wrapper)."""

from hiddenbn.experiments.reproduction import write_reproduction
from hiddenbn.util.joblog import job_log

with job_log(snakemake.log[0]):  # noqa: F821 (provided by Snakemake)
    write_reproduction(
        snakemake.params.sections,  # noqa: F821
        snakemake.output[0],  # noqa: F821
        snakemake.params.quick_sizes,  # noqa: F821
        snakemake.params.studies,  # noqa: F821
    )
