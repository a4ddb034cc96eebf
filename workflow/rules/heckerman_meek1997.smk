# Heckerman & Meek (1997), paper 001: EBNC dimensions (Figure 2 rebuilt, with a table beside
# the paper's printed values) and Figure 1, all from hiddenbn.experiments.heckerman_meek1997.
rule hm97_dimensions:
    output:
        table=multiext(f"{HM97_DIR}/tables/ebnc_dimensions", ".csv", ".md"),
        figure=multiext(f"{HM97_DIR}/figures/figure2", ".png", ".pdf"),
    params:
        section=HM97.get("figure2"),
        seed=job_seed("heckerman_meek1997", "dimensions"),
        points=hm97_jacobian_points(),
    log:
        f"{LOGS}/heckerman_meek1997/dimensions.log",
    conda:
        "../envs/hiddenbn.yaml"
    script:
        "../scripts/hm97_dimensions.py"


rule hm97_figure1:
    output:
        multiext(f"{HM97_DIR}/figures/figure1", ".png", ".pdf"),
    params:
        inputs=HM97.get("figure2", {}).get("naive_bayes_inputs"),
    log:
        f"{LOGS}/heckerman_meek1997/figure1.log",
    conda:
        "../envs/hiddenbn.yaml"
    script:
        "../scripts/hm97_figure1.py"


# The learning study paper 001 asks for (issue 8): one batched job per case and training size
# (every replicate), then tables, learning curves and findings.md.
rule hm97_study_case:
    output:
        learners=f"{HM97_DIR}/study/{{case}}_n{{size}}_learners.csv",
        selections=f"{HM97_DIR}/study/{{case}}_n{{size}}_selections.csv",
    params:
        section=HM97,
        size=lambda wildcards: int(wildcards.size),
        seed=hm97_study_seed,
    wildcard_constraints:
        case="|".join(HM97_STUDY_CASES),
        size=r"\d+",
    log:
        f"{LOGS}/heckerman_meek1997/study_{{case}}_n{{size}}.log",
    conda:
        "../envs/hiddenbn.yaml"
    script:
        "../scripts/hm97_study_case.py"


rule hm97_study_summary:
    input:
        learners=hm97_study_files("learners"),
        selections=hm97_study_files("selections"),
    output:
        curves=f"{HM97_DIR}/tables/study_learning_curves.csv",
        selection=f"{HM97_DIR}/tables/study_selection.csv",
        findings=f"{HM97_DIR}/findings.md",
        figure=multiext(f"{HM97_DIR}/figures/learning_curves", ".png", ".pdf"),
    log:
        f"{LOGS}/heckerman_meek1997/study_summary.log",
    conda:
        "../envs/hiddenbn.yaml"
    script:
        "../scripts/hm97_study_summary.py"
