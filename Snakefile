# hiddenbn: reproduce the papers' figures and tables from synthetic models.
# Rules live in workflow/rules/, one file per paper or stage; the science lives in the hiddenbn
# library, which the rules call through its command line.
import os
import tempfile

from snakemake.utils import min_version

min_version("9.0")


# numba caches its compiled kernels beside the package's sources. In a SLURM job, cache them on
# the compute node instead (set before common.smk imports numba; script and shell jobs inherit
# it), so that jobs on many nodes do not compile into and read from the same files on a shared
# file system at once; the cost is one compile per node and kind of job (2-4 s each here). A
# NUMBA_CACHE_DIR set by the user, e.g. a shared cache warmed beforehand, wins.
if "SLURM_JOB_ID" in os.environ:
    os.environ.setdefault(
        "NUMBA_CACHE_DIR", os.path.join(tempfile.gettempdir(), f"hiddenbn-numba-{os.getuid()}")
    )


# The global description of `snakemake --report` (figures and tables are flagged in the rules).
report: "workflow/report/workflow.rst"


# A config given with --configfile replaces the default one instead of being merged into it,
# so a smaller study (config/quick.yaml, or a user's own) never inherits the papers' experiments.
if not workflow.overwrite_configfiles:

    configfile: "config/config.yaml"


include: "workflow/rules/common.smk"


# A paper's rules are read only when the config has its section, so a config of user studies
# alone (config/studies_example.yaml) needs none of the papers' settings.
if "chickering_heckerman1996" in config:

    include: "workflow/rules/chickering_heckerman1996.smk"


if "heckerman_meek1997" in config:

    include: "workflow/rules/heckerman_meek1997.smk"


if "dimension" in config:

    include: "workflow/rules/dimension.smk"


if "meek_heckerman1997" in config:

    include: "workflow/rules/meek_heckerman1997.smk"


if "gold_standard" in config:

    include: "workflow/rules/gold_standard.smk"


if "kocka_zhang2002" in config:

    include: "workflow/rules/kocka_zhang2002.smk"


include: "workflow/rules/studies.smk"
include: "workflow/rules/reproduction.smk"


rule all:
    default_target: True
    input:
        chickering_heckerman1996_outputs(),
        heckerman_meek1997_outputs(),
        dimension_outputs(),
        meek_heckerman1997_outputs(),
        gold_standard_outputs(),
        kocka_zhang2002_outputs(),
        studies_outputs(),
        reproduction_outputs(),
