# Gold standard for the marginal likelihood (issue 9): exact values on small data, the SMC
# estimate on paper 003's data sets and fits, and the slope of log p(D|theta_ML) - log p(D)
# against log N; one job per (experiment, data set), then one report job. The paper-003 part
# scores paper 003's data sets and fits, which it takes, with the prior and EM protocol that
# made them, from paper 003's rule file (chickering_heckerman1996_* below), never from its
# config section; that rule file is included first (hiddenbn.experiments.papers).
GOLD_STANDARD = config["gold_standard"]
GOLD_STANDARD_DIR = results_folder("gold_standard")


def gold_standard_exact_files():
    replicates = GOLD_STANDARD["exact"]["replicates"]
    return [f"{GOLD_STANDARD_DIR}/exact/rep{r}.csv" for r in range(1, replicates + 1)]


def gold_standard_parts(experiment):
    """Jobs per data set: ``paper003.large_c.parts`` for the large-c experiments (whose SMC
    would otherwise make one job of 20 minutes), one for the others."""
    large = GOLD_STANDARD["paper003"].get("large_c") or {"experiments": []}
    return large.get("parts", 1) if experiment in large["experiments"] else 1


def gold_standard_paper003_files():
    """The paper-003 data sets scored against the gold standard, each in its parts:
    ``paper003``'s experiments, and those of ``paper003.large_c`` with their own replicates."""
    section = GOLD_STANDARD["paper003"]
    groups = [section, section.get("large_c") or {"experiments": []}]
    return [
        f"{GOLD_STANDARD_DIR}/paper003/{e}/rep{r}_part{p}.csv"
        for group in groups
        for e in group["experiments"]
        for r in range(1, group.get("replicates", 0) + 1)
        for p in range(1, gold_standard_parts(e) + 1)
    ]


def gold_standard_slope_files():
    slope = GOLD_STANDARD["slope"]
    return [
        f"{GOLD_STANDARD_DIR}/slopes/{s}/rep{r}.csv"
        for s in slope["settings"]
        for r in range(1, slope["replicates"] + 1)
    ]


def gold_standard_report_files():
    """The tables and figures of the gold-standard report; a part without data sets (no paper
    003 or slope replicates) has none."""

    def tables(items):
        return report_files("gold_standard", f"{GOLD_STANDARD_DIR}/tables", items, (".csv",))

    def figure(name, item):
        return in_report(
            multiext(f"{GOLD_STANDARD_DIR}/figures/{name}", ".png", ".pdf"),
            "gold_standard",
            f"figure_{name}",
            item,
        )

    files = tables(
        {
            "exact": "exact log p(D|S) on small data sets",
            "paper003": "paper 003's data sets: every score and the SMC value",
            "slopes": "every fit of the slope experiment",
        }
    )
    if gold_standard_paper003_files():
        files += tables(
            {
                "paper003_errors": "score − gold per test model",
                "paper003_delta_c": "Δc against the gold standard and Laplace",
                "paper003_table1": "paper 003's Table 1 with the gold standard as yardstick",
                "paper003_shapes": "shape of each curve against the gold standard's",
            }
        )
        files += figure("paper003_errors", "score − gold against hidden states")
        files += figure("paper003_shapes", "each curve minus its maximum, gold standard among them")
    if gold_standard_slope_files():
        files += tables(
            {
                "slope_fits": "fitted slopes beside ds/2 and de/2",
                "cs_plus": "CS+ against CS",
            }
        )
        files += figure("slopes", "log p(D|θ_ML) − log p(D) against log N")
    return files


FINAL_OUTPUTS.append(f"{GOLD_STANDARD_DIR}/findings.md")
reproduce("gold_standard", f"{GOLD_STANDARD_DIR}/findings.md", f"{GOLD_STANDARD_DIR}/verdicts.csv")


rule gold_standard_exact:
    output:
        f"{GOLD_STANDARD_DIR}/exact/rep{{replicate}}.csv",
    log:
        f"{LOGS}/gold_standard/exact/rep{{replicate}}.log",
    conda:
        "../envs/hiddenbn.yaml"
    threads: 1
    params:
        section=GOLD_STANDARD.get("exact"),
        em=chickering_heckerman1996_fit_settings()["em"],
        prior_alpha=chickering_heckerman1996_fit_settings()["prior_alpha"],
        smc=GOLD_STANDARD.get("smc"),
        seed=lambda w: job_seed("gold_standard", "exact", int(w.replicate)),
    script:
        "../scripts/gold_standard/exact.py"


rule gold_standard_paper003:
    input:
        data=f"{CHICKERING_HECKERMAN1996_DIR}/data/{{experiment}}/rep{{replicate}}.csv",
        fits=f"{CHICKERING_HECKERMAN1996_DIR}/fits/{{experiment}}/rep{{replicate}}.csv",
    output:
        f"{GOLD_STANDARD_DIR}/paper003/{{experiment}}/rep{{replicate}}_part{{part}}.csv",
    log:
        f"{LOGS}/gold_standard/paper003/{{experiment}}_rep{{replicate}}_part{{part}}.log",
    conda:
        "../envs/hiddenbn.yaml"
    threads: 1
    params:
        features=lambda w: chickering_heckerman1996_model(w.experiment)["features"],
        generating_states=lambda w: chickering_heckerman1996_model(w.experiment)["hidden_states"],
        prior_alpha=chickering_heckerman1996_fit_settings()["prior_alpha"],
        smc=GOLD_STANDARD.get("smc"),
        seed=lambda w: job_seed("gold_standard", "paper003", w.experiment, int(w.replicate)),
        part=lambda w: int(w.part),
        parts=lambda w: gold_standard_parts(w.experiment),
    script:
        "../scripts/gold_standard/paper003.py"


rule gold_standard_slope:
    output:
        f"{GOLD_STANDARD_DIR}/slopes/{{setting}}/rep{{replicate}}.csv",
    log:
        f"{LOGS}/gold_standard/slopes/{{setting}}_rep{{replicate}}.log",
    conda:
        "../envs/hiddenbn.yaml"
    threads: 1
    params:
        setting=lambda w: GOLD_STANDARD["slope"]["settings"][w.setting],
        sizes=lambda w: GOLD_STANDARD["slope"]["sample_sizes"],
        prior_alpha=lambda w: GOLD_STANDARD["prior_alpha"],
        em=lambda w: GOLD_STANDARD["slope"]["em"],
        smc=GOLD_STANDARD.get("smc"),
        points=lambda w: GOLD_STANDARD["slope"]["jacobian_points"],
        seed=lambda w: job_seed("gold_standard", "slope", w.setting, int(w.replicate)),
    script:
        "../scripts/gold_standard/slope.py"


rule gold_standard_report:
    input:
        exact=gold_standard_exact_files(),
        paper=gold_standard_paper003_files(),
        slopes=gold_standard_slope_files(),
    output:
        findings=f"{GOLD_STANDARD_DIR}/findings.md",
        verdicts=f"{GOLD_STANDARD_DIR}/verdicts.csv",
        files=gold_standard_report_files(),
    log:
        f"{LOGS}/gold_standard/report.log",
    conda:
        "../envs/hiddenbn.yaml"
    script:
        "../scripts/gold_standard/report.py"
