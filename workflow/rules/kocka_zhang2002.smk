# Kočka & Zhang (2002), paper 002. Its dimension results (Table 1, the HLC decomposition of Sec.
# 4, Figures 1-3) are one job. Secs. 5-6, does the dimension correction (BIC+, CS+) help: one job
# per LC generator (its parametrisations, sample sizes and test models), one job per HLC sample
# size (every parametrisation, four hill-climbs), then tables, figures, comparison.md.
from hiddenbn.experiments import kocka_zhang2002

KOCKA_ZHANG2002 = config["kocka_zhang2002"]
KOCKA_ZHANG2002_DIR = results_folder("kocka_zhang2002")


# Values, not functions, so that this file holds rules alone (snakemake --lint).
KOCKA_ZHANG2002_LC_FILES = [
    f"{KOCKA_ZHANG2002_DIR}/lc/{g}.csv" for g in kocka_zhang2002.lc_generators(KOCKA_ZHANG2002)
]
KOCKA_ZHANG2002_HLC_FILES = [
    f"{KOCKA_ZHANG2002_DIR}/hlc/n{n}.csv" for n in KOCKA_ZHANG2002["hierarchical"]["sample_sizes"]
]
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
            {"table1": "Table 1", "hlc_decomposition": "Sec. 4, HLC decomposition"},
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
        f"{KOCKA_ZHANG2002_DIR}/lc/{{generator}}.csv",
    log:
        f"{LOGS}/kocka_zhang2002/lc/{{generator}}.log",
    benchmark:
        f"{LOGS}/benchmarks/kocka_zhang2002_lc/{{generator}}.tsv"
    conda:
        "../envs/hiddenbn.yaml"
    threads: 1
    params:
        section=KOCKA_ZHANG2002,
        seed=job_seed("kocka_zhang2002", "lc"),
    script:
        "../scripts/kocka_zhang2002/lc.py"


rule kocka_zhang2002_hlc:
    output:
        f"{KOCKA_ZHANG2002_DIR}/hlc/n{{cases}}.csv",
    log:
        f"{LOGS}/kocka_zhang2002/hlc/n{{cases}}.log",
    benchmark:
        f"{LOGS}/benchmarks/kocka_zhang2002_hlc/n{{cases}}.tsv"
    conda:
        "../envs/hiddenbn.yaml"
    threads: 1
    params:
        section=KOCKA_ZHANG2002,
        seed=job_seed("kocka_zhang2002", "hlc"),
    script:
        "../scripts/kocka_zhang2002/hlc.py"


rule kocka_zhang2002_report:
    input:
        lc=KOCKA_ZHANG2002_LC_FILES,
        hlc=KOCKA_ZHANG2002_HLC_FILES,
        printed_table2=printed_numbers("kocka_zhang2002", "paper_table2.csv"),
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
