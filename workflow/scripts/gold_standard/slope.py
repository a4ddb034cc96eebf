"""One replicate of a slope setting: ML fits, scores and gold standard for every N (thin
wrapper)."""

from hiddenbn.experiments.gold_standard import slope_cell
from hiddenbn.util.files import atomic_output
from hiddenbn.util.joblog import job_log
from hiddenbn.util.threads import use_threads

# numba kernels on the rule's threads, BLAS on one: results independent of the cores
use_threads(snakemake.threads)  # noqa: F821 (provided by Snakemake)
with job_log(snakemake.log[0]):  # noqa: F821
    params = snakemake.params  # noqa: F821
    table = slope_cell(params.setting, params.sizes, params.prior_alpha, params.em,
                       params.ml_em, params.smc, params.points, params.seed)
    table.insert(0, "setting", snakemake.wildcards.setting)  # noqa: F821
    table.insert(1, "replicate", int(snakemake.wildcards.replicate))  # noqa: F821
    with atomic_output(snakemake.output[0]) as temporary:  # noqa: F821
        table.to_csv(temporary, index=False)
