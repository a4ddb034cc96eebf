# Meek & Heckerman (1997), paper 004 Sec. 5: posteriors over the NMI models F1..F5 on initial
# segments of data sampled from each of them (hiddenbn.experiments.meek_heckerman1997). One job
# per generating model (its paper data set and every replicate: ~1 s of EM per data set), then
# one report job. Table 1 (our dimensions beside the printed ones) comes from the dimension rule.
rule mh97_study:
    input:
        table1=f"{DIM_DIR}/meek_heckerman1997/tables/table1.csv",
    output:
        scores=in_report(
            f"{MH97_DIR}/tables/scores_{{generator}}.csv",
            "paper004_scores",
            "004",
            "Sec. 5, every fit, generating model {generator}",
        ),
        data=f"{MH97_DIR}/data/{{generator}}.csv",
    log:
        f"{LOGS}/meek_heckerman1997/study/{{generator}}.log",
    conda:
        "../envs/hiddenbn.yaml"
    params:
        section=MH97,
        structures=MH97_STRUCTURES,
        seeds=lambda w: mh97_seeds(w.generator),
    script:
        "../scripts/meek_heckerman1997_study.py"


rule mh97_report:
    input:
        table1=f"{DIM_DIR}/meek_heckerman1997/tables/table1.csv",
        scores=expand(f"{MH97_DIR}/tables/scores_{{generator}}.csv", generator=mh97_generators()),
    output:
        report=f"{MH97_DIR}/comparison.md",
        verdicts=f"{MH97_DIR}/verdicts.csv",
        # table1 copies the dimension rule's Table 1, which is the one in the report
        table1=multiext(f"{MH97_DIR}/tables/table1", ".csv", ".md"),
        effects=in_report(
            multiext(f"{MH97_DIR}/tables/effect_state_dimensions", ".csv", ".md"),
            "paper004_effect_state_dimensions",
            "004",
            "Sec. 5, F1 and F2 with more effect states",
        ),
        summary=in_report(
            f"{MH97_DIR}/tables/replicate_summary.csv",
            "paper004_replicate_summary",
            "004",
            "Figure 5 over independent data sets",
        ),
        figures=[
            path
            for name, item in (
                ("figure5", "Figure 5"),
                ("figure5_replicates", "Figure 5 over independent data sets"),
                ("models", "Figures 1, 2 and 4"),
            )
            for path in in_report(
                multiext(f"{MH97_DIR}/figures/{name}", ".png", ".pdf"),
                f"paper004_{name}",
                "004",
                item,
            )
        ],
    log:
        f"{LOGS}/meek_heckerman1997/report.log",
    conda:
        "../envs/hiddenbn.yaml"
    params:
        section=MH97,
        structures=MH97_STRUCTURES,
    script:
        "../scripts/meek_heckerman1997_report.py"
