# results/REPRODUCTION.md: every per-paper comparison (comparison.md / findings.md) and its
# verdicts.csv, for the paper sections the config runs, assembled into one document
# (hiddenbn.experiments.reproduction), then the config's studies; one quick job after every
# report job.
REPRODUCTION = [section for section in REPRODUCTION_SECTIONS.values() if section["documents"]]
# the config's studies, after the papers: each summary.md in full and its figures linked
REPRODUCTION_STUDIES = [
    {
        "name": study,
        "summary": f"{STUDIES_DIR}/{study}/summary.md",
        "figures": [
            f"{STUDIES_DIR}/{study}/{name}"
            for name in user_studies.summary_files(section)
            if name.endswith(".png")
        ],
    }
    for study, section in STUDIES.items()
]
if REPRODUCTION:
    FINAL_OUTPUTS.append(f"{RESULTS}/REPRODUCTION.md")


rule reproduction:
    input:
        [path for section in REPRODUCTION for path in section["documents"] + section["verdicts"]],
        [path for study in REPRODUCTION_STUDIES for path in [study["summary"], *study["figures"]]],
    output:
        report(
            f"{RESULTS}/REPRODUCTION.md",
            caption="../report/reproduction.rst",
            category="All papers",
            labels={"item": "every comparison, verdicts and known disagreements"},
        ),
    log:
        f"{LOGS}/reproduction.log",
    benchmark:
        f"{LOGS}/benchmarks/reproduction/reproduction.tsv"
    conda:
        "../envs/hiddenbn.yaml"
    params:
        sections=REPRODUCTION,
        studies=REPRODUCTION_STUDIES,
        # sizes too small to judge (config/quick.yaml): said at the top, disagreements unjudged
        quick_sizes=config["quick_sizes"],
    script:
        "../scripts/reproduction.py"
