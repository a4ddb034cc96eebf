# User studies (issue 10): the config's `studies:` section (config/studies_example.yaml
# documents it). One job per (study, generator, N) runs every replicate: generating parameters,
# data, the candidate fits and what each score selects; then one summary job per study writes
# its tables, figure and summary.md.
rule study_run:
    input:
        study_inputs,
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
        seeds=study_seeds,
    script:
        "../scripts/study_run.py"


# One rule per study: which tables and figures a study writes depends on its metrics.
for _study in STUDIES:

    rule:
        name:
            f"study_summary_{_study}"
        input:
            fits=study_run_files(_study, "fits"),
            selections=study_run_files(_study, "selections"),
        output:
            study_summary_files(_study),
        log:
            f"{LOGS}/studies/{_study}/summary.log",
        conda:
            "../envs/hiddenbn.yaml"
        params:
            name=_study,
            study=STUDIES[_study],
        script:
            "../scripts/study_summary.py"
