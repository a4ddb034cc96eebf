# Kočka & Zhang (2002), paper 002. Its dimension results (Table 1, the HLC decomposition of Sec.
# 4, Figures 1-3) are one job. Secs. 5-6, does the dimension correction (BIC+, CS+) help: one job
# per generating distribution and LC generator (its parametrisations, sample sizes and test
# models), one job per generating distribution and HLC sample size (every parametrisation, the
# hill-climbs), then the verdicts under every reconstruction choice (sensitivity), then tables,
# figures, comparison.md of the main run.
from hiddenbn.experiments import kocka_zhang2002

KOCKA_ZHANG2002 = config["kocka_zhang2002"]
KOCKA_ZHANG2002_DIR = results_folder("kocka_zhang2002")
KOCKA_ZHANG2002_MAIN = kocka_zhang2002.main_distribution(KOCKA_ZHANG2002)


# Values, not functions, so that this file holds rules alone (snakemake --lint).
KOCKA_ZHANG2002_LC_FILES = {
    d: [
        f"{KOCKA_ZHANG2002_DIR}/lc/{d}/{g}.csv"
        for g in kocka_zhang2002.lc_generators(KOCKA_ZHANG2002, d)
    ]
    for d in KOCKA_ZHANG2002["generating_distributions"]
}
KOCKA_ZHANG2002_HLC_FILES = {
    d: [
        f"{KOCKA_ZHANG2002_DIR}/hlc/{d}/n{n}.csv"
        for n in KOCKA_ZHANG2002["hierarchical"]["sample_sizes"]
    ]
    for d in KOCKA_ZHANG2002["generating_distributions"]
}
KOCKA_ZHANG2002_SEEDS = {
    (stage, d): job_seed(*kocka_zhang2002.seed_key(KOCKA_ZHANG2002, stage, d))
    for stage in ("lc", "hlc")
    for d in KOCKA_ZHANG2002["generating_distributions"]
}
KOCKA_ZHANG2002_FIGURES = report_files(
    "kocka_zhang2002",
    f"{KOCKA_ZHANG2002_DIR}/figures",
    {
        "figure4": "Figure 4",
        "figure4_supplementary": "Figure 4, the other generators",
        **(
            {"figure5": "Figure 5"}
            if KOCKA_ZHANG2002["latent_class"]["deterministic_children"] > 0
            else {}
        ),
    },
    (".png", ".pdf"),
)

FINAL_OUTPUTS.extend(
    [f"{KOCKA_ZHANG2002_DIR}/dimension/comparison.md", f"{KOCKA_ZHANG2002_DIR}/comparison.md"]
)
reproduce(
    "kocka_zhang2002",
    f"{KOCKA_ZHANG2002_DIR}/dimension/comparison.md",
    f"{KOCKA_ZHANG2002_DIR}/dimension/verdicts.csv",
)
reproduce(
    "kocka_zhang2002",
    f"{KOCKA_ZHANG2002_DIR}/comparison.md",
    f"{KOCKA_ZHANG2002_DIR}/verdicts.csv",
)


rule kocka_zhang2002_dimension:
    input:
        printed=printed_numbers("kocka_zhang2002", "dimensions.yaml"),
    output:
        report=f"{KOCKA_ZHANG2002_DIR}/dimension/comparison.md",
        verdicts=f"{KOCKA_ZHANG2002_DIR}/dimension/verdicts.csv",
        tables=report_files(
            "kocka_zhang2002",
            f"{KOCKA_ZHANG2002_DIR}/dimension/tables",
            {
                "table1": "Table 1",
                "hlc_decomposition": "Sec. 4, HLC decomposition",
                "tightness": "Sec. 3, where db overestimates de",
                "theorem5": "Sec. 4, Cor. 4.1 on random HLC models",
                "rank_repeats": "Sec. 2.4, ranks at repeated random points",
            },
            (".csv", ".md"),
        ),
        figures=report_files(
            "kocka_zhang2002",
            f"{KOCKA_ZHANG2002_DIR}/dimension/figures",
            {"structures": "Figures 1-3"},
            (".png", ".pdf"),
        ),
    log:
        f"{LOGS}/kocka_zhang2002/dimension.log",
    benchmark:
        f"{LOGS}/benchmarks/kocka_zhang2002_dimension/dimension.tsv"
    conda:
        "../envs/hiddenbn.yaml"
    params:
        paper="kocka_zhang2002",
        section=KOCKA_ZHANG2002,
        # the seed key of the earlier layout (a "dimension" section), so the points are the same
        seed=job_seed("dimension", "kocka_zhang2002"),
    script:
        "../scripts/dimension.py"


rule kocka_zhang2002_lc:
    output:
        f"{KOCKA_ZHANG2002_DIR}/lc/{{distribution}}/{{generator}}.csv",
    log:
        f"{LOGS}/kocka_zhang2002/lc/{{distribution}}/{{generator}}.log",
    benchmark:
        f"{LOGS}/benchmarks/kocka_zhang2002_lc/{{distribution}}/{{generator}}.tsv"
    wildcard_constraints:
        distribution="[A-Za-z0-9_]+",
        generator="k[0-9]+(det)?",
    conda:
        "../envs/hiddenbn.yaml"
    threads: 1
    params:
        section=kocka_zhang2002.experiment_section(KOCKA_ZHANG2002, "lc"),
        seed=lambda w: KOCKA_ZHANG2002_SEEDS["lc", w.distribution],
    script:
        "../scripts/kocka_zhang2002/lc.py"


rule kocka_zhang2002_hlc:
    output:
        f"{KOCKA_ZHANG2002_DIR}/hlc/{{distribution}}/n{{cases}}.csv",
    log:
        f"{LOGS}/kocka_zhang2002/hlc/{{distribution}}/n{{cases}}.log",
    benchmark:
        f"{LOGS}/benchmarks/kocka_zhang2002_hlc/{{distribution}}/n{{cases}}.tsv"
    wildcard_constraints:
        distribution="[A-Za-z0-9_]+",
        cases="[0-9]+",
    conda:
        "../envs/hiddenbn.yaml"
    threads: 1
    params:
        section=kocka_zhang2002.experiment_section(KOCKA_ZHANG2002, "hlc"),
        seed=lambda w: KOCKA_ZHANG2002_SEEDS["hlc", w.distribution],
    script:
        "../scripts/kocka_zhang2002/hlc.py"


rule kocka_zhang2002_sensitivity:
    input:
        lc=[f for files in KOCKA_ZHANG2002_LC_FILES.values() for f in files],
        hlc=[f for files in KOCKA_ZHANG2002_HLC_FILES.values() for f in files],
        printed_table2=printed_numbers("kocka_zhang2002", "paper_table2.csv"),
        printed_sec6=printed_numbers("kocka_zhang2002", "experiments.yaml"),
    output:
        tables=report_files(
            "kocka_zhang2002",
            f"{KOCKA_ZHANG2002_DIR}/tables",
            {
                "sensitivity": "Verdicts under each reconstruction choice",
                "table2_sensitivity": "Table 2 and its KL floor under each choice",
            },
            (".csv",),
        ),
    log:
        f"{LOGS}/kocka_zhang2002/sensitivity.log",
    benchmark:
        f"{LOGS}/benchmarks/kocka_zhang2002_sensitivity/sensitivity.tsv"
    conda:
        "../envs/hiddenbn.yaml"
    params:
        section=KOCKA_ZHANG2002,
    script:
        "../scripts/kocka_zhang2002/sensitivity.py"


rule kocka_zhang2002_report:
    input:
        lc=KOCKA_ZHANG2002_LC_FILES[KOCKA_ZHANG2002_MAIN],
        hlc=KOCKA_ZHANG2002_HLC_FILES[KOCKA_ZHANG2002_MAIN],
        printed_table2=printed_numbers("kocka_zhang2002", "paper_table2.csv"),
        printed_sec6=printed_numbers("kocka_zhang2002", "experiments.yaml"),
        sensitivity=f"{KOCKA_ZHANG2002_DIR}/tables/sensitivity.csv",
        table2_sensitivity=f"{KOCKA_ZHANG2002_DIR}/tables/table2_sensitivity.csv",
    output:
        comparison=f"{KOCKA_ZHANG2002_DIR}/comparison.md",
        verdicts=f"{KOCKA_ZHANG2002_DIR}/verdicts.csv",
        tables=report_files(
            "kocka_zhang2002",
            f"{KOCKA_ZHANG2002_DIR}/tables",
            {
                "table2": "Table 2",
                "lc_summary": "Figures 4-5, the plotted means",
                "lc_selections": "Figures 4-5, every selection",
                "hlc_frequent_models": "Sec. 6, most frequent HLC models",
            },
            (".csv",),
        ),
        figures=KOCKA_ZHANG2002_FIGURES,
    log:
        f"{LOGS}/kocka_zhang2002/report.log",
    benchmark:
        f"{LOGS}/benchmarks/kocka_zhang2002_report/report.tsv"
    conda:
        "../envs/hiddenbn.yaml"
    params:
        section=KOCKA_ZHANG2002,
    script:
        "../scripts/kocka_zhang2002/report.py"
