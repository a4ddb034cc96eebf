"""Tables, figure and summary.md of one user study (thin wrapper)."""

from pathlib import Path

import pandas as pd

from hiddenbn.experiments.studies import write_summary
from hiddenbn.util.joblog import job_log

with job_log(snakemake.log[0]):  # noqa: F821 (provided by Snakemake)
    write_summary(
        snakemake.params.name,  # noqa: F821
        snakemake.params.study,  # noqa: F821
        pd.concat([pd.read_csv(f) for f in snakemake.input.fits], ignore_index=True),  # noqa: F821
        pd.concat([pd.read_csv(f) for f in snakemake.input.selections],  # noqa: F821
                  ignore_index=True),
        Path(snakemake.output[0]).parent,  # noqa: F821
    )
