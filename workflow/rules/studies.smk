# User studies: the config's `studies:` section (config/studies_example.yaml
# documents it). One job per (study, generator, N) runs every replicate: generating parameters,
# data, the candidate fits and what each score selects; then one summary job per study writes
# its tables, figure and summary.md.
from hiddenbn.experiments import studies as user_studies

STUDIES_DIR = f"{RESULTS}/studies"


# The per-(generator, N) tables of each study, ``fits`` or ``selections`` (values, not
# functions, so that this file holds rules alone: snakemake --lint).
STUDIES_RUN_FILES = {
    (study, kind): [
        f"{STUDIES_DIR}/{study}/runs/{generator}/n{cases}_{kind}.csv"
        for generator in section["generators"]
        for cases in section["sample_sizes"]
    ]
    for study, section in STUDIES.items()
    for kind in ("fits", "selections")
}
FINAL_OUTPUTS.extend(f"{STUDIES_DIR}/{study}/summary.md" for study in STUDIES)


rule studies_run:
    input:
        # the spec and parameter files of the generator
        lambda w: user_studies.generator_files(STUDIES[w.study], w.generator),
    output:
        fits=f"{STUDIES_DIR}/{{study}}/runs/{{generator}}/n{{cases}}_fits.csv",
        selections=f"{STUDIES_DIR}/{{study}}/runs/{{generator}}/n{{cases}}_selections.csv",
    log:
        f"{LOGS}/studies/{{study}}/{{generator}}_n{{cases}}.log",
    benchmark:
        f"{LOGS}/benchmarks/studies_run/{{study}}/{{generator}}_n{{cases}}.tsv"
    wildcard_constraints:
        study=r"[A-Za-z0-9_]+",
        generator=r"[A-Za-z0-9_]+",
        cases=r"\d+",
    conda:
        "../envs/hiddenbn.yaml"
    threads: 1
    params:
        study=lambda wildcards: STUDIES[wildcards.study],
        # (parameter seed, data seed) per replicate; the parameter seed leaves out N, so every
        # sample size of a replicate shares its generating parameters
        seeds=lambda w: [
            (
                job_seed("studies", w.study, w.generator, "parameters", r),
                job_seed("studies", w.study, w.generator, int(w.cases), r),
            )
            for r in range(1, STUDIES[w.study]["replicates"] + 1)
        ],
    script:
        "../scripts/studies/run.py"


# One rule per study: which tables and figures a study writes depends on its metrics.
for _study in STUDIES:

    rule:
        name:
            f"studies_summary_{_study}"
        input:
            fits=STUDIES_RUN_FILES[_study, "fits"],
            selections=STUDIES_RUN_FILES[_study, "selections"],
        output:
            # everything the summary writes, summary.md first
            [
                f"{STUDIES_DIR}/{_study}/{name}"
                for name in user_studies.summary_files(STUDIES[_study])
            ],
        log:
            f"{LOGS}/studies/{_study}/summary.log",
        benchmark:
            f"{LOGS}/benchmarks/studies_summary/{_study}.tsv"
        conda:
            "../envs/hiddenbn.yaml"
        params:
            name=_study,
            study=STUDIES[_study],
        script:
            "../scripts/studies/summary.py"
