# Meek & Heckerman (1997), paper 004 Sec. 5: posteriors over the NMI models F1..F5 on initial
# segments of data sampled from each of them (hiddenbn.experiments.meek_heckerman1997). One job
# per generating model (its paper data set and every replicate: ~1 s of EM per data set), then
# one report job. Table 1 (our dimensions beside the printed ones) comes from the dimension rule.
rule mh97_study:
    input:
        table1=f"{DIM_DIR}/meek_heckerman1997/tables/table1.csv",
    output:
        scores=f"{MH97_DIR}/tables/scores_{{generator}}.csv",
        data=f"{MH97_DIR}/data/{{generator}}.csv",
    params:
        section=MH97,
        structures=MH97_STRUCTURES,
        seeds=lambda w: mh97_seeds(w.generator),
    log:
        f"{LOGS}/meek_heckerman1997/study/{{generator}}.log",
    conda:
        "../envs/hiddenbn.yaml"
    script:
        "../scripts/meek_heckerman1997_study.py"


rule mh97_report:
    input:
        table1=f"{DIM_DIR}/meek_heckerman1997/tables/table1.csv",
        scores=expand(f"{MH97_DIR}/tables/scores_{{generator}}.csv", generator=mh97_generators()),
    output:
        report=f"{MH97_DIR}/comparison.md",
        tables=[
            f"{MH97_DIR}/tables/{name}{ext}"
            for name in ("table1", "effect_state_dimensions")
            for ext in (".csv", ".md")
        ],
        summary=f"{MH97_DIR}/tables/replicate_summary.csv",
        figures=[
            f"{MH97_DIR}/figures/{name}{ext}"
            for name in ("figure5", "figure5_replicates", "models")
            for ext in (".png", ".pdf")
        ],
    params:
        section=MH97,
        structures=MH97_STRUCTURES,
    log:
        f"{LOGS}/meek_heckerman1997/report.log",
    conda:
        "../envs/hiddenbn.yaml"
    script:
        "../scripts/meek_heckerman1997_report.py"
