# Bootstrap likelihood-ratio tests of k - 1 against k classes (`hiddenbn select --blrt B`) as
# jobs: the config's `blrt:` section (config/README.md), one test per key. A plan job fits the
# models the tests compare, one job per chunk refits its range of the B replicates (on a
# cluster, one SLURM job each: a large B spreads over as many as `chunks`), and a combine job
# applies the sequential stopping rule to all of them in order, writing the report `select
# --blrt B --json` gives as its `blrt` for the same data, options and seed, to the bit
# (hiddenbn.experiments.blrt says what stopping early does across jobs).
from hiddenbn.experiments import blrt as bootstrap_tests

BLRT_DIR = f"{RESULTS}/blrt"
# the tests normalised (common.smk has checked the section, data files included)
BLRT_TESTS = bootstrap_tests.tests(config.get("blrt", {}), STUDIES_BASE)
# each test's chunk files (values, not functions: snakemake --lint)
BLRT_CHUNKS = {
    name: [f"{BLRT_DIR}/{name}/chunks/{chunk}.json" for chunk in range(test["chunks"])]
    for name, test in BLRT_TESTS.items()
}
FINAL_OUTPUTS.extend(
    path
    for name in BLRT_TESTS
    for path in (f"{BLRT_DIR}/{name}/blrt.json", f"{BLRT_DIR}/{name}/blrt.txt")
)


rule blrt_plan:
    input:
        # the data file and its dictionary, if it has one
        lambda w: [
            BLRT_TESTS[w.test][key] for key in ("data", "dictionary") if BLRT_TESTS[w.test][key]
        ],
    output:
        f"{BLRT_DIR}/{{test}}/plan.json",
    log:
        f"{LOGS}/blrt/{{test}}/plan.log",
    benchmark:
        f"{LOGS}/benchmarks/blrt_plan/{{test}}.tsv"
    wildcard_constraints:
        test=r"[A-Za-z0-9_]+",
    conda:
        "../envs/hiddenbn.yaml"
    threads: 1
    params:
        test=lambda w: BLRT_TESTS[w.test],
    script:
        "../scripts/blrt/plan.py"


rule blrt_replicates:
    input:
        f"{BLRT_DIR}/{{test}}/plan.json",
    output:
        f"{BLRT_DIR}/{{test}}/chunks/{{chunk}}.json",
    log:
        f"{LOGS}/blrt/{{test}}/chunk{{chunk}}.log",
    benchmark:
        f"{LOGS}/benchmarks/blrt_replicates/{{test}}/{{chunk}}.tsv"
    wildcard_constraints:
        test=r"[A-Za-z0-9_]+",
        chunk=r"\d+",
    conda:
        "../envs/hiddenbn.yaml"
    threads: 1
    params:
        chunks=lambda w: BLRT_TESTS[w.test]["chunks"],
    script:
        "../scripts/blrt/replicates.py"


rule blrt_combine:
    input:
        plan=f"{BLRT_DIR}/{{test}}/plan.json",
        chunks=lambda w: BLRT_CHUNKS[w.test],
    output:
        json=f"{BLRT_DIR}/{{test}}/blrt.json",
        text=f"{BLRT_DIR}/{{test}}/blrt.txt",
    log:
        f"{LOGS}/blrt/{{test}}/combine.log",
    benchmark:
        f"{LOGS}/benchmarks/blrt_combine/{{test}}.tsv"
    wildcard_constraints:
        test=r"[A-Za-z0-9_]+",
    conda:
        "../envs/hiddenbn.yaml"
    threads: 1
    script:
        "../scripts/blrt/combine.py"
