# Heckerman & Meek (1997), paper 001: EBNC dimensions (Figure 2 rebuilt, with a table beside
# the paper's printed values) and Figure 1, all from hiddenbn.experiments.heckerman_meek1997.
rule hm97_dimensions:
    output:
        table=in_report(
            multiext(f"{HM97_DIR}/tables/ebnc_dimensions", ".csv", ".md"),
            "paper001_ebnc_dimensions",
            "001",
            "Secs. 4 and 6, EBNC dimensions",
        ),
        figure=in_report(
            multiext(f"{HM97_DIR}/figures/figure2", ".png", ".pdf"),
            "paper001_figure2",
            "001",
            "Figure 2",
        ),
        verdicts=f"{HM97_DIR}/verdicts.csv",
    log:
        f"{LOGS}/heckerman_meek1997/dimensions.log",
    conda:
        "../envs/hiddenbn.yaml"
    params:
        section=HM97.get("figure2"),
        seed=job_seed("heckerman_meek1997", "dimensions"),
        points=hm97_jacobian_points(),
    script:
        "../scripts/hm97_dimensions.py"


rule hm97_figure1:
    output:
        in_report(
            multiext(f"{HM97_DIR}/figures/figure1", ".png", ".pdf"),
            "paper001_figure1",
            "001",
            "Figure 1",
        ),
    log:
        f"{LOGS}/heckerman_meek1997/figure1.log",
    conda:
        "../envs/hiddenbn.yaml"
    params:
        inputs=HM97.get("figure2", {}).get("naive_bayes_inputs"),
    script:
        "../scripts/hm97_figure1.py"


# The learning study paper 001 asks for (issue 8): one batched job per case and training size
# (every replicate), then tables, learning curves and findings.md.
rule hm97_study_case:
    output:
        learners=f"{HM97_DIR}/study/{{case}}_n{{size}}_learners.csv",
        selections=f"{HM97_DIR}/study/{{case}}_n{{size}}_selections.csv",
    log:
        f"{LOGS}/heckerman_meek1997/study_{{case}}_n{{size}}.log",
    wildcard_constraints:
        case="|".join(HM97_STUDY_CASES),
        size=r"\d+",
    conda:
        "../envs/hiddenbn.yaml"
    params:
        section=HM97,
        size=lambda wildcards: int(wildcards.size),
        seed=hm97_study_seed,
    script:
        "../scripts/hm97_study_case.py"


rule hm97_study_summary:
    input:
        learners=hm97_study_files("learners"),
        selections=hm97_study_files("selections"),
    output:
        curves=in_report(
            f"{HM97_DIR}/tables/study_learning_curves.csv",
            "paper001_study_learning_curves",
            "001",
            "learning study, held-out log-loss and accuracy",
        ),
        selection=in_report(
            f"{HM97_DIR}/tables/study_selection.csv",
            "paper001_study_selection",
            "001",
            "learning study, what the selection recovers",
        ),
        findings=f"{HM97_DIR}/findings.md",
        figure=in_report(
            multiext(f"{HM97_DIR}/figures/learning_curves", ".png", ".pdf"),
            "paper001_learning_curves",
            "001",
            "learning study, learning curves",
        ),
    log:
        f"{LOGS}/heckerman_meek1997/study_summary.log",
    conda:
        "../envs/hiddenbn.yaml"
    script:
        "../scripts/hm97_study_summary.py"
