# Gold standard for the marginal likelihood: exact values on small data, the SMC
# estimate on paper 003's data sets and fits, and the slope of log p(D|theta_ML) - log p(D)
# against log N; one job per (experiment, data set), then one report job. The paper-003 part
# scores paper 003's data sets and fits, which it takes, with the prior and EM protocol that
# made them, from paper 003's rule file (CHICKERING_HECKERMAN1996_* below), never from its
# config section; that rule file is included first (hiddenbn.experiments.papers).
GOLD_STANDARD = config["gold_standard"]
GOLD_STANDARD_DIR = results_folder("gold_standard")


# Values, not functions, so that this file holds rules alone (snakemake --lint).
GOLD_STANDARD_EXACT_FILES = [
    f"{GOLD_STANDARD_DIR}/exact/rep{r}.csv"
    for r in range(1, GOLD_STANDARD["exact"]["replicates"] + 1)
]
# Jobs per data set of each experiment: ``paper003.large_c.parts`` for the large-c experiments
# (whose SMC would otherwise make one job of 20 minutes), one for the others.
_gold_standard_large_c = GOLD_STANDARD["paper003"].get("large_c") or {"experiments": []}
GOLD_STANDARD_PARTS = {
    e: _gold_standard_large_c.get("parts", 1) if e in _gold_standard_large_c["experiments"] else 1
    for e in GOLD_STANDARD["paper003"]["experiments"] + _gold_standard_large_c["experiments"]
}
# The SMC settings of each experiment: ``paper003.large_c.particles`` (if given) replaces the
# particles of the SMC over the cases at the large-c experiments.
GOLD_STANDARD_SMC = {
    e: (
        {**GOLD_STANDARD["smc"], "particles": _gold_standard_large_c["particles"]}
        if e in _gold_standard_large_c["experiments"] and "particles" in _gold_standard_large_c
        else GOLD_STANDARD["smc"]
    )
    for e in GOLD_STANDARD_PARTS
}
# paper 003's report points its explanations to these experiments' gold standard
RESCORED_EXPERIMENTS["chickering_heckerman1996"] = GOLD_STANDARD["paper003"]["experiments"] + (
    _gold_standard_large_c["experiments"]
)
# The large-c data sets estimated again with twice the particles of both samplers, from
# independent seeds (``paper003.large_c.doubled_particles_replicates``): has the gold standard
# converged where it decides the large-c claims?
GOLD_STANDARD_DOUBLED_SMC = {
    e: {**smc, "particles": 2 * smc["particles"]} for e, smc in GOLD_STANDARD_SMC.items()
}
GOLD_STANDARD_DOUBLED_TEMPERING = (
    {**GOLD_STANDARD["tempering"], "particles": 2 * GOLD_STANDARD["tempering"]["particles"]}
    if GOLD_STANDARD.get("tempering")
    else None
)
GOLD_STANDARD_DOUBLED_FILES = [
    f"{GOLD_STANDARD_DIR}/paper003_doubled/{e}/rep{r}_part{p}.csv"
    for e in _gold_standard_large_c["experiments"]
    for r in range(1, _gold_standard_large_c.get("doubled_particles_replicates", 0) + 1)
    for p in range(1, GOLD_STANDARD_PARTS[e] + 1)
]
# The paper-003 data sets scored against the gold standard, each in its parts: ``paper003``'s
# experiments, and those of ``paper003.large_c`` with their own replicates.
GOLD_STANDARD_PAPER003_FILES = [
    f"{GOLD_STANDARD_DIR}/paper003/{e}/rep{r}_part{p}.csv"
    for group in (GOLD_STANDARD["paper003"], _gold_standard_large_c)
    for e in group["experiments"]
    for r in range(1, group.get("replicates", 0) + 1)
    for p in range(1, GOLD_STANDARD_PARTS[e] + 1)
]
GOLD_STANDARD_SLOPE_FILES = [
    f"{GOLD_STANDARD_DIR}/slopes/{s}/rep{r}.csv"
    for s in GOLD_STANDARD["slope"]["settings"]
    for r in range(1, GOLD_STANDARD["slope"]["replicates"] + 1)
]
# The tables and figures of the report; a part without data sets (no paper 003 or slope
# replicates) has none.
_gold_standard_tables = {
    "exact": "exact log p(D|S) on small data sets",
    "paper003": "paper 003's data sets: every score and the SMC value",
    "slopes": "every fit of the slope experiment",
}
_gold_standard_figures = {}
if GOLD_STANDARD_PAPER003_FILES:
    _gold_standard_tables |= {
        "paper003_errors": "score − gold per test model",
        "paper003_delta_c": "Δc against the gold standard and Laplace",
        "paper003_table1": "paper 003's Table 1 with the gold standard as yardstick",
        "paper003_shapes": "shape of each curve against the gold standard's",
    }
    _gold_standard_figures |= {
        "paper003_errors": "score − gold against hidden states",
        "paper003_shapes": "each curve minus its maximum, gold standard among them",
    }
if GOLD_STANDARD_DOUBLED_FILES:
    _gold_standard_tables["doubled_particles"] = "large-c estimates with twice the particles"
if GOLD_STANDARD_SLOPE_FILES:
    _gold_standard_tables |= {
        "slope_fits": "fitted slopes, ds/2, de/2, our Rusakov-Geiger value, Drton-Plummer bound",
        "cs_plus": "CS+ against CS",
    }
    _gold_standard_figures["slopes"] = "log p(D|θ_ML) − log p(D) against log N"
GOLD_STANDARD_REPORT_FILES = report_files(
    "gold_standard", f"{GOLD_STANDARD_DIR}/tables", _gold_standard_tables, (".csv",)
) + [
    path
    for name, item in _gold_standard_figures.items()
    for path in in_report(
        multiext(f"{GOLD_STANDARD_DIR}/figures/{name}", ".png", ".pdf"),
        "gold_standard",
        f"figure_{name}",
        item,
    )
]

FINAL_OUTPUTS.append(f"{GOLD_STANDARD_DIR}/findings.md")
reproduce("gold_standard", f"{GOLD_STANDARD_DIR}/findings.md", f"{GOLD_STANDARD_DIR}/verdicts.csv")


rule gold_standard_exact:
    output:
        f"{GOLD_STANDARD_DIR}/exact/rep{{replicate}}.csv",
    log:
        f"{LOGS}/gold_standard/exact/rep{{replicate}}.log",
    benchmark:
        f"{LOGS}/benchmarks/gold_standard_exact/rep{{replicate}}.tsv"
    conda:
        "../envs/hiddenbn.yaml"
    threads: 1
    params:
        section=GOLD_STANDARD.get("exact"),
        em=CHICKERING_HECKERMAN1996_FIT_SETTINGS["em"],
        prior_alpha=CHICKERING_HECKERMAN1996_FIT_SETTINGS["prior_alpha"],
        smc=GOLD_STANDARD.get("smc"),
        seed=lambda w: job_seed("gold_standard", "exact", int(w.replicate)),
    script:
        "../scripts/gold_standard/exact.py"


# paper003: the gold standard of a paper-003 data set; paper003_doubled: the same with twice
# the particles, from its own seeds
rule gold_standard_paper003:
    input:
        data=f"{CHICKERING_HECKERMAN1996_DIR}/data/{{experiment}}/rep{{replicate}}.csv",
        fits=f"{CHICKERING_HECKERMAN1996_DIR}/fits/{{experiment}}/rep{{replicate}}.csv",
        model=lambda w: CHICKERING_HECKERMAN1996_MODEL_FILE[w.experiment],
    output:
        f"{GOLD_STANDARD_DIR}/{{estimates}}/{{experiment}}/rep{{replicate}}_part{{part}}.csv",
    log:
        f"{LOGS}/gold_standard/{{estimates}}/{{experiment}}_rep{{replicate}}_part{{part}}.log",
    benchmark:
        (
            f"{LOGS}/benchmarks/gold_standard_{{estimates}}/"
            f"{{experiment}}_rep{{replicate}}_part{{part}}.tsv"
        )
    wildcard_constraints:
        estimates="paper003|paper003_doubled",
    conda:
        "../envs/hiddenbn.yaml"
    threads: 1
    params:
        features=lambda w: CHICKERING_HECKERMAN1996_MODEL[w.experiment]["features"],
        generating_states=lambda w: CHICKERING_HECKERMAN1996_MODEL[w.experiment]["hidden_states"],
        prior_alpha=CHICKERING_HECKERMAN1996_FIT_SETTINGS["prior_alpha"],
        smc=lambda w: (
            GOLD_STANDARD_DOUBLED_SMC if w.estimates == "paper003_doubled" else GOLD_STANDARD_SMC
        )[w.experiment],
        tempering=lambda w: (
            GOLD_STANDARD_DOUBLED_TEMPERING
            if w.estimates == "paper003_doubled"
            else GOLD_STANDARD.get("tempering")
        ),
        seed=lambda w: job_seed("gold_standard", w.estimates, w.experiment, int(w.replicate)),
        part=lambda w: int(w.part),
        parts=lambda w: GOLD_STANDARD_PARTS[w.experiment],
    script:
        "../scripts/gold_standard/paper003.py"


rule gold_standard_slope:
    output:
        f"{GOLD_STANDARD_DIR}/slopes/{{setting}}/rep{{replicate}}.csv",
    log:
        f"{LOGS}/gold_standard/slopes/{{setting}}_rep{{replicate}}.log",
    benchmark:
        f"{LOGS}/benchmarks/gold_standard_slope/{{setting}}_rep{{replicate}}.tsv"
    conda:
        "../envs/hiddenbn.yaml"
    threads: 1
    params:
        setting=lambda w: GOLD_STANDARD["slope"]["settings"][w.setting],
        sizes=lambda w: GOLD_STANDARD["slope"]["sample_sizes"],
        prior_alpha=lambda w: GOLD_STANDARD["prior_alpha"],
        em=lambda w: GOLD_STANDARD["slope"]["em"],
        ml_em=lambda w: GOLD_STANDARD["slope"]["ml_em"],
        smc=GOLD_STANDARD.get("smc"),
        points=lambda w: GOLD_STANDARD["slope"]["jacobian_points"],
        seed=lambda w: job_seed("gold_standard", "slope", w.setting, int(w.replicate)),
    script:
        "../scripts/gold_standard/slope.py"


rule gold_standard_report:
    input:
        exact=GOLD_STANDARD_EXACT_FILES,
        paper=GOLD_STANDARD_PAPER003_FILES,
        slopes=GOLD_STANDARD_SLOPE_FILES,
        doubled=GOLD_STANDARD_DOUBLED_FILES,
    output:
        findings=f"{GOLD_STANDARD_DIR}/findings.md",
        verdicts=f"{GOLD_STANDARD_DIR}/verdicts.csv",
        files=GOLD_STANDARD_REPORT_FILES,
    log:
        f"{LOGS}/gold_standard/report.log",
    benchmark:
        f"{LOGS}/benchmarks/gold_standard_report/report.tsv"
    conda:
        "../envs/hiddenbn.yaml"
    params:
        large_c=_gold_standard_large_c["experiments"],
        # the slope settings' specs and prior give Rusakov & Geiger's coefficients
        slope_settings=GOLD_STANDARD["slope"]["settings"],
        prior_alpha=GOLD_STANDARD["prior_alpha"],
        # sBIC at these fractions of the package's phi and at the prior of the fits it scores;
        # the report's alone, so that a change remakes no estimate
        sbic_phi_fractions=GOLD_STANDARD["sbic_phi_fractions"],
        fits_prior_alpha=CHICKERING_HECKERMAN1996_FIT_SETTINGS["prior_alpha"],
    script:
        "../scripts/gold_standard/report.py"
