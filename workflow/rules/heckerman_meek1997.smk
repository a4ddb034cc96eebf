# Heckerman & Meek (1997), paper 001: EBNC dimensions (Figure 2 rebuilt, with a table beside
# the paper's printed values), Figure 1 and comparison.md when the section has `figure2`; the
# learning study the paper asks for when it has `study`. All from
# hiddenbn.experiments.heckerman_meek1997.
from hiddenbn.experiments import heckerman_meek1997

HECKERMAN_MEEK1997 = config["heckerman_meek1997"]
HECKERMAN_MEEK1997_DIR = results_folder("heckerman_meek1997")


# The per-(case, training size) outputs of the learning study: learners or selections (values,
# not functions, so that this file holds rules alone: snakemake --lint).
HECKERMAN_MEEK1997_STUDY_FILES = {
    kind: [
        f"{HECKERMAN_MEEK1997_DIR}/study/{case}_n{size}_{kind}.csv"
        for case in heckerman_meek1997.STUDY_CASES
        for size in HECKERMAN_MEEK1997.get("training_sizes", [])
    ]
    for kind in ("learners", "selections")
}


if "figure2" in HECKERMAN_MEEK1997:
    FINAL_OUTPUTS.append(f"{HECKERMAN_MEEK1997_DIR}/comparison.md")
    reproduce(
        "heckerman_meek1997",
        f"{HECKERMAN_MEEK1997_DIR}/comparison.md",
        f"{HECKERMAN_MEEK1997_DIR}/verdicts.csv",
    )
if "study" in HECKERMAN_MEEK1997:
    FINAL_OUTPUTS.extend(
        [
            f"{HECKERMAN_MEEK1997_DIR}/tables/study_learning_curves.csv",
            f"{HECKERMAN_MEEK1997_DIR}/tables/study_selection.csv",
            f"{HECKERMAN_MEEK1997_DIR}/findings.md",
            *multiext(f"{HECKERMAN_MEEK1997_DIR}/figures/learning_curves", ".png", ".pdf"),
        ]
    )
    reproduce("heckerman_meek1997", f"{HECKERMAN_MEEK1997_DIR}/findings.md")


rule heckerman_meek1997_dimensions:
    input:
        printed=printed_numbers("heckerman_meek1997", "dimensions.yaml"),
    output:
        report=f"{HECKERMAN_MEEK1997_DIR}/comparison.md",
        table=report_files(
            "heckerman_meek1997",
            f"{HECKERMAN_MEEK1997_DIR}/tables",
            {"ebnc_dimensions": "Secs. 4 and 6, EBNC dimensions"},
            (".csv", ".md"),
        ),
        theorem2=in_report(
            f"{HECKERMAN_MEEK1997_DIR}/tables/theorem2.csv",
            "heckerman_meek1997",
            "theorem2",
            "Theorem 2, Laplace and BIC against the exact marginal likelihood",
        ),
        figures=report_files(
            "heckerman_meek1997",
            f"{HECKERMAN_MEEK1997_DIR}/figures",
            {"figure1": "Figure 1", "figure2": "Figure 2"},
            (".png", ".pdf"),
        ),
        verdicts=f"{HECKERMAN_MEEK1997_DIR}/verdicts.csv",
    log:
        f"{LOGS}/heckerman_meek1997/dimensions.log",
    benchmark:
        f"{LOGS}/benchmarks/heckerman_meek1997_dimensions/dimensions.tsv"
    conda:
        "../envs/hiddenbn.yaml"
    params:
        section=HECKERMAN_MEEK1997.get("figure2"),
        seed=job_seed("heckerman_meek1997", "dimensions"),
        points=HECKERMAN_MEEK1997["jacobian_points"],
        theorem2=HECKERMAN_MEEK1997.get("theorem2"),
    script:
        "../scripts/heckerman_meek1997/dimensions.py"


# The learning study paper 001 asks for: one batched job per case and training size
# (every replicate), then tables, learning curves and findings.md.
rule heckerman_meek1997_study_case:
    output:
        learners=f"{HECKERMAN_MEEK1997_DIR}/study/{{case}}_n{{size}}_learners.csv",
        selections=f"{HECKERMAN_MEEK1997_DIR}/study/{{case}}_n{{size}}_selections.csv",
    log:
        f"{LOGS}/heckerman_meek1997/study_{{case}}_n{{size}}.log",
    benchmark:
        f"{LOGS}/benchmarks/heckerman_meek1997_study_case/study_{{case}}_n{{size}}.tsv"
    wildcard_constraints:
        case="|".join(heckerman_meek1997.STUDY_CASES),
        size=r"\d+",
    conda:
        "../envs/hiddenbn.yaml"
    params:
        section=HECKERMAN_MEEK1997,
        size=lambda wildcards: int(wildcards.size),
        # one seed per case, shared by its training sizes
        seed=lambda wildcards: job_seed("heckerman_meek1997", "study", wildcards.case),
    script:
        "../scripts/heckerman_meek1997/study_case.py"


rule heckerman_meek1997_study_summary:
    input:
        learners=HECKERMAN_MEEK1997_STUDY_FILES["learners"],
        selections=HECKERMAN_MEEK1997_STUDY_FILES["selections"],
    output:
        curves=in_report(
            f"{HECKERMAN_MEEK1997_DIR}/tables/study_learning_curves.csv",
            "heckerman_meek1997",
            "study_learning_curves",
            "learning study, held-out log-loss and accuracy",
        ),
        selection=in_report(
            f"{HECKERMAN_MEEK1997_DIR}/tables/study_selection.csv",
            "heckerman_meek1997",
            "study_selection",
            "learning study, what the selection recovers",
        ),
        findings=f"{HECKERMAN_MEEK1997_DIR}/findings.md",
        figure=report_files(
            "heckerman_meek1997",
            f"{HECKERMAN_MEEK1997_DIR}/figures",
            {"learning_curves": "learning study, learning curves"},
            (".png", ".pdf"),
        ),
    log:
        f"{LOGS}/heckerman_meek1997/study_summary.log",
    benchmark:
        f"{LOGS}/benchmarks/heckerman_meek1997_study_summary/study_summary.tsv"
    conda:
        "../envs/hiddenbn.yaml"
    script:
        "../scripts/heckerman_meek1997/study_summary.py"
