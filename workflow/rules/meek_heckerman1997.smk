# Meek & Heckerman (1997), paper 004. Table 1 (our dimensions of the noisy-max models F1..F5
# beside the printed ones) and Figure 4 are one job. Sec. 5, posteriors over F1..F5 on initial
# segments of data sampled from each of them: one job per generating model (its paper data set,
# every replicate and every data set with random parameters: ~1 s of EM per data set), then one
# report job.
MEEK_HECKERMAN1997 = config["meek_heckerman1997"]
MEEK_HECKERMAN1997_DIR = results_folder("meek_heckerman1997")
MEEK_HECKERMAN1997_TABLE1 = f"{MEEK_HECKERMAN1997_DIR}/dimension/tables/table1.csv"
MEEK_HECKERMAN1997_ALTERNATIVES = (
    f"{MEEK_HECKERMAN1997_DIR}/dimension/tables/nine_parameter_structures.csv"
)


# One seed per data set of each generating model: data set 0 is the paper's, 1.. the replicates;
# and one per data set with random parameters (values, not functions, so that this file holds
# rules alone: snakemake --lint).
MEEK_HECKERMAN1997_SEEDS = {
    generator: [
        job_seed("meek_heckerman1997", "data", generator, replicate)
        for replicate in range(MEEK_HECKERMAN1997["replicates"] + 1)
    ]
    for generator in MEEK_HECKERMAN1997["models"]
}
MEEK_HECKERMAN1997_RANDOM_SEEDS = {
    generator: [
        job_seed("meek_heckerman1997", "random", generator, replicate)
        for replicate in range(1, MEEK_HECKERMAN1997["random_parametrisations"] + 1)
    ]
    for generator in MEEK_HECKERMAN1997["models"]
}
# The report's figures: figure5_random only when data sets with random parameters are run.
MEEK_HECKERMAN1997_FIGURES = {
    "figure5": "Figure 5",
    "figure5_replicates": "Figure 5 over independent data sets",
    **(
        {"figure5_random": "Figure 5 with parameters chosen at random"}
        if MEEK_HECKERMAN1997["random_parametrisations"]
        else {}
    ),
    "models": "Figures 1, 2 and 4",
}


FINAL_OUTPUTS.extend(
    [f"{MEEK_HECKERMAN1997_DIR}/dimension/comparison.md", f"{MEEK_HECKERMAN1997_DIR}/comparison.md"]
)
reproduce(
    "meek_heckerman1997",
    f"{MEEK_HECKERMAN1997_DIR}/dimension/comparison.md",
    f"{MEEK_HECKERMAN1997_DIR}/dimension/verdicts.csv",
)
reproduce(
    "meek_heckerman1997",
    f"{MEEK_HECKERMAN1997_DIR}/comparison.md",
    f"{MEEK_HECKERMAN1997_DIR}/verdicts.csv",
)


rule meek_heckerman1997_dimension:
    input:
        printed=printed_numbers("meek_heckerman1997", "dimensions.yaml"),
    output:
        report=f"{MEEK_HECKERMAN1997_DIR}/dimension/comparison.md",
        verdicts=f"{MEEK_HECKERMAN1997_DIR}/dimension/verdicts.csv",
        tables=report_files(
            "meek_heckerman1997",
            f"{MEEK_HECKERMAN1997_DIR}/dimension/tables",
            {
                "table1": "Table 1",
                "nine_parameter_structures": "every 9-parameter structure",
            },
            (".csv", ".md"),
        ),
        figures=report_files(
            "meek_heckerman1997",
            f"{MEEK_HECKERMAN1997_DIR}/dimension/figures",
            {"structures": "Figure 4"},
            (".png", ".pdf"),
        ),
    log:
        f"{LOGS}/meek_heckerman1997/dimension.log",
    benchmark:
        f"{LOGS}/benchmarks/meek_heckerman1997_dimension/dimension.tsv"
    conda:
        "../envs/hiddenbn.yaml"
    params:
        paper="meek_heckerman1997",
        section=MEEK_HECKERMAN1997,
        # the seed key of the earlier layout (a "dimension" section), so the points are the same
        seed=job_seed("dimension", "meek_heckerman1997"),
    script:
        "../scripts/dimension.py"


rule meek_heckerman1997_study:
    input:
        table1=MEEK_HECKERMAN1997_TABLE1,
    output:
        scores=in_report(
            f"{MEEK_HECKERMAN1997_DIR}/tables/scores_{{generator}}.csv",
            "meek_heckerman1997",
            "scores",
            "Sec. 5, every fit, generating model {generator}",
        ),
        data=f"{MEEK_HECKERMAN1997_DIR}/data/{{generator}}.csv",
    log:
        f"{LOGS}/meek_heckerman1997/study/{{generator}}.log",
    benchmark:
        f"{LOGS}/benchmarks/meek_heckerman1997_study/{{generator}}.tsv"
    conda:
        "../envs/hiddenbn.yaml"
    params:
        section=MEEK_HECKERMAN1997,
        structures=MEEK_HECKERMAN1997["models"],
        seeds=lambda w: MEEK_HECKERMAN1997_SEEDS[w.generator],
        random_seeds=lambda w: MEEK_HECKERMAN1997_RANDOM_SEEDS[w.generator],
    script:
        "../scripts/meek_heckerman1997/study.py"


rule meek_heckerman1997_report:
    input:
        table1=MEEK_HECKERMAN1997_TABLE1,
        alternatives=MEEK_HECKERMAN1997_ALTERNATIVES,
        scores=expand(
            f"{MEEK_HECKERMAN1997_DIR}/tables/scores_{{generator}}.csv",
            generator=list(MEEK_HECKERMAN1997["models"]),
        ),
    output:
        report=f"{MEEK_HECKERMAN1997_DIR}/comparison.md",
        verdicts=f"{MEEK_HECKERMAN1997_DIR}/verdicts.csv",
        # table1 copies the dimension rule's Table 1, which is the one in the report
        table1=multiext(f"{MEEK_HECKERMAN1997_DIR}/tables/table1", ".csv", ".md"),
        tables=report_files(
            "meek_heckerman1997",
            f"{MEEK_HECKERMAN1997_DIR}/tables",
            {
                "state_dimensions": "Sec. 5, F1 and F2 with more cause and effect states",
                "cs_alpha_sensitivity": "Sec. 5, the posterior claims under each CS alpha",
            },
            (".csv", ".md"),
        ),
        summary=in_report(
            f"{MEEK_HECKERMAN1997_DIR}/tables/replicate_summary.csv",
            "meek_heckerman1997",
            "replicate_summary",
            "Figure 5 over independent data sets",
        ),
        figures=report_files(
            "meek_heckerman1997",
            f"{MEEK_HECKERMAN1997_DIR}/figures",
            MEEK_HECKERMAN1997_FIGURES,
            (".png", ".pdf"),
        ),
    log:
        f"{LOGS}/meek_heckerman1997/report.log",
    benchmark:
        f"{LOGS}/benchmarks/meek_heckerman1997_report/report.tsv"
    conda:
        "../envs/hiddenbn.yaml"
    params:
        section=MEEK_HECKERMAN1997,
        structures=MEEK_HECKERMAN1997["models"],
        # the random parameters of the Sec. 3.1 checks (noisy-or tables, E step)
        seed=job_seed("meek_heckerman1997", "report"),
    script:
        "../scripts/meek_heckerman1997/report.py"
