# hiddenbn: reproduce the papers' figures and tables from synthetic models.
# Rules live in workflow/rules/, one file per paper or stage; the science lives in the hiddenbn
# library, which the rules call through its command line.
from snakemake.utils import min_version

min_version("9.0")


configfile: "config/config.yaml"


include: "workflow/rules/common.smk"
include: "workflow/rules/chickering_heckerman1996.smk"


rule all:
    input:
        chickering_heckerman1996_outputs(),
    default_target: True
