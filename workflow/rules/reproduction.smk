# results/REPRODUCTION.md: every per-paper comparison (comparison.md / findings.md) and its
# verdicts.csv, for the paper sections the config runs, assembled into one document
# (hiddenbn.experiments.reproduction); one quick job after every report job.
rule reproduction:
    input:
        reproduction_inputs(),
    output:
        report(
            f"{RESULTS}/REPRODUCTION.md",
            caption="../report/reproduction.rst",
            category="All papers",
            labels={"item": "every comparison, verdicts and known disagreements"},
        ),
    log:
        f"{LOGS}/reproduction.log",
    conda:
        "../envs/hiddenbn.yaml"
    params:
        sections=reproduction_sections(),
    script:
        "../scripts/reproduction.py"
