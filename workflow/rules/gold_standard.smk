# Gold standard for the marginal likelihood (issue 9): exact values on small data, the SMC
# estimate on paper 003's data sets and fits, and the slope of log p(D|theta_ML) - log p(D)
# against log N; one job per (experiment, data set), then one report job.
rule gold_exact:
    output:
        f"{GOLD_DIR}/exact/rep{{replicate}}.csv",
    log:
        f"{LOGS}/gold_standard/exact/rep{{replicate}}.log",
    conda:
        "../envs/hiddenbn.yaml"
    threads: 1
    params:
        section=GOLD.get("exact"),
        em=CH96["em"],
        prior_alpha=CH96["prior_alpha"],
        smc=GOLD.get("smc"),
        seed=lambda w: job_seed("gold_standard", "exact", int(w.replicate)),
    script:
        "../scripts/gold_exact.py"


rule gold_paper003:
    input:
        data=f"{CH96_DIR}/data/{{experiment}}/rep{{replicate}}.csv",
        fits=f"{CH96_DIR}/fits/{{experiment}}/rep{{replicate}}.csv",
    output:
        f"{GOLD_DIR}/paper003/{{experiment}}/rep{{replicate}}_part{{part}}.csv",
    log:
        f"{LOGS}/gold_standard/paper003/{{experiment}}_rep{{replicate}}_part{{part}}.log",
    conda:
        "../envs/hiddenbn.yaml"
    threads: 1
    params:
        features=lambda w: ch96_model(w.experiment)["features"],
        generating_states=lambda w: ch96_model(w.experiment)["hidden_states"],
        prior_alpha=CH96["prior_alpha"],
        smc=GOLD.get("smc"),
        seed=lambda w: job_seed("gold_standard", "paper003", w.experiment, int(w.replicate)),
        part=lambda w: int(w.part),
        parts=lambda w: gold_parts(w.experiment),
    script:
        "../scripts/gold_paper003.py"


rule gold_slope:
    output:
        f"{GOLD_DIR}/slopes/{{setting}}/rep{{replicate}}.csv",
    log:
        f"{LOGS}/gold_standard/slopes/{{setting}}_rep{{replicate}}.log",
    conda:
        "../envs/hiddenbn.yaml"
    threads: 1
    params:
        setting=lambda w: GOLD["slope"]["settings"][w.setting],
        sizes=lambda w: GOLD["slope"]["sample_sizes"],
        prior_alpha=lambda w: GOLD["prior_alpha"],
        em=lambda w: GOLD["slope"]["em"],
        smc=GOLD.get("smc"),
        points=lambda w: GOLD["slope"]["dimension_points"],
        seed=lambda w: job_seed("gold_standard", "slope", w.setting, int(w.replicate)),
    script:
        "../scripts/gold_slope.py"


rule gold_report:
    input:
        exact=gold_exact_files(),
        paper=gold_paper_files(),
        slopes=gold_slope_files(),
    output:
        findings=f"{GOLD_DIR}/findings.md",
        verdicts=f"{GOLD_DIR}/verdicts.csv",
        files=gold_report_files(),
    log:
        f"{LOGS}/gold_standard/report.log",
    conda:
        "../envs/hiddenbn.yaml"
    script:
        "../scripts/gold_report.py"
