# User studies (issue 10): the config's `studies:` section (config/studies_example.yaml
# documents it). One job per (study, generator, N) runs every replicate: generating parameters,
# data, the candidate fits and what each score selects; then one summary job per study writes
# its tables, figure and summary.md.
from hiddenbn.experiments import studies as user_studies

STUDIES_DIR = f"{RESULTS}/studies"


def studies_inputs(wildcards):
    """The spec and parameter files one (study, generator) job reads."""
    return user_studies.generator_files(STUDIES[wildcards.study], wildcards.generator)


def studies_seeds(wildcards):
    """(parameter seed, data seed) per replicate of one (study, generator, N) job; the parameter
    seed leaves out N, so every sample size of a replicate shares its generating parameters."""
    key = ("studies", wildcards.study, wildcards.generator)
    return [
        (job_seed(*key, "parameters", r), job_seed(*key, int(wildcards.cases), r))
        for r in range(1, STUDIES[wildcards.study]["replicates"] + 1)
    ]


def studies_run_files(study, kind):
    """The per-(generator, N) tables of one study: ``fits`` or ``selections``."""
    section = STUDIES[study]
    return [
        f"{STUDIES_DIR}/{study}/runs/{generator}/n{cases}_{kind}.csv"
        for generator in section["generators"]
        for cases in section["sample_sizes"]
    ]


def studies_summary_files(study):
    """Everything a study's summary writes; summary.md first."""
    return [f"{STUDIES_DIR}/{study}/{name}" for name in user_studies.summary_files(STUDIES[study])]


FINAL_OUTPUTS.extend(f"{STUDIES_DIR}/{study}/summary.md" for study in STUDIES)


rule studies_run:
    input:
        studies_inputs,
    output:
        fits=f"{STUDIES_DIR}/{{study}}/runs/{{generator}}/n{{cases}}_fits.csv",
        selections=f"{STUDIES_DIR}/{{study}}/runs/{{generator}}/n{{cases}}_selections.csv",
    log:
        f"{LOGS}/studies/{{study}}/{{generator}}_n{{cases}}.log",
    wildcard_constraints:
        study=r"[A-Za-z0-9_]+",
        generator=r"[A-Za-z0-9_]+",
        cases=r"\d+",
    conda:
        "../envs/hiddenbn.yaml"
    threads: 1
    params:
        study=lambda wildcards: STUDIES[wildcards.study],
        seeds=studies_seeds,
    script:
        "../scripts/studies/run.py"


# One rule per study: which tables and figures a study writes depends on its metrics.
for _study in STUDIES:

    rule:
        name:
            f"studies_summary_{_study}"
        input:
            fits=studies_run_files(_study, "fits"),
            selections=studies_run_files(_study, "selections"),
        output:
            studies_summary_files(_study),
        log:
            f"{LOGS}/studies/{_study}/summary.log",
        conda:
            "../envs/hiddenbn.yaml"
        params:
            name=_study,
            study=STUDIES[_study],
        script:
            "../scripts/studies/summary.py"
