"""Tables, figures and findings.md of the gold-standard experiments (thin wrapper)."""

from pathlib import Path

from hiddenbn.experiments.gold_standard import (latent_class_bounds,
                                                rusakov_geiger_coefficients, write_report)
from hiddenbn.util.joblog import job_log

with job_log(snakemake.log[0]):  # noqa: F821 (provided by Snakemake)
    inputs, params = snakemake.input, snakemake.params  # noqa: F821
    write_report(inputs.exact, inputs.paper, inputs.slopes,
                 Path(snakemake.output.findings).parent,  # noqa: F821
                 params.large_c, inputs.doubled,
                 rusakov_geiger_coefficients(params.slope_settings, params.prior_alpha),
                 latent_class_bounds(params.slope_settings, params.prior_alpha),
                 params.sbic_phi_fractions, params.fits_prior_alpha)
