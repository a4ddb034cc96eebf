# Bootstrap likelihood-ratio tests of k - 1 against k classes (`hiddenbn select --blrt B`) as
# jobs: the config's `blrt:` section (config/README.md), one test per key. A plan job fits the
# models the tests compare, one job per chunk refits its range of the B replicates (on a
# cluster, one SLURM job each: a large B spreads over as many as `chunks`), and a combine job
# applies the sequential stopping rule to all of them in order, writing the report `select
# --blrt B --json` gives as its `blrt` for the same data, options and seed, to the bit
# (hiddenbn.experiments.blrt says what stopping early does across jobs). With chunks_per_wave
# below chunks, the chunks run in waves: a checkpoint after each lists the tests still
# undecided, the next wave runs only those, and no wave runs once all are decided.
from hiddenbn.experiments import blrt as bootstrap_tests

BLRT_DIR = f"{RESULTS}/blrt"
# the tests normalised (common.smk has checked the section, data files included)
BLRT_TESTS = bootstrap_tests.tests(config.get("blrt", {}), STUDIES_BASE)
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
        plan=f"{BLRT_DIR}/{{test}}/plan.json",
        # after the first wave: which tests the waves before left undecided
        wave=lambda w: [
            f"{BLRT_DIR}/{w.test}/waves/{wave - 1}.json"
            for wave in [bootstrap_tests.wave_of(BLRT_TESTS[w.test], int(w.chunk))]
            if wave > 0
        ],
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


checkpoint blrt_wave:
    input:
        plan=f"{BLRT_DIR}/{{test}}/plan.json",
        # every chunk up to the wave's last
        chunks=lambda w: [
            f"{BLRT_DIR}/{w.test}/chunks/{chunk}.json"
            for chunk in range(
                min(
                    BLRT_TESTS[w.test]["chunks"],
                    (int(w.wave) + 1) * BLRT_TESTS[w.test]["chunks_per_wave"],
                )
            )
        ],
    output:
        f"{BLRT_DIR}/{{test}}/waves/{{wave}}.json",
    log:
        f"{LOGS}/blrt/{{test}}/wave{{wave}}.log",
    benchmark:
        f"{LOGS}/benchmarks/blrt_wave/{{test}}/{{wave}}.tsv"
    wildcard_constraints:
        test=r"[A-Za-z0-9_]+",
        wave=r"\d+",
    conda:
        "../envs/hiddenbn.yaml"
    threads: 1
    script:
        "../scripts/blrt/wave.py"


rule blrt_combine:
    input:
        plan=f"{BLRT_DIR}/{{test}}/plan.json",
        # wave by wave, up to the first that leaves no test undecided
        chunks=lambda w: bootstrap_tests.chunks_to_combine(
            BLRT_TESTS[w.test],
            f"{BLRT_DIR}/{w.test}",
            lambda wave: checkpoints.blrt_wave.get(test=w.test, wave=wave).output[0],
        ),
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
