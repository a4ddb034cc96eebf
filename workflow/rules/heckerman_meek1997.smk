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
