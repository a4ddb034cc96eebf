# Chickering & Heckerman (1996), paper 003: naive-Bayes models with a hidden root.
# models -> data sets -> (dimensions of the test models) -> one fit job per data set, scoring
# every test model -> tables, figures and comparison.md. The reality check of Sec. 5 is one job.
rule ch96_generate_model:
    output:
        f"{CH96_DIR}/models/{{model}}.json",
    log:
        f"{LOGS}/chickering_heckerman1996/generate_model/{{model}}.log",
    conda:
        "../envs/hiddenbn.yaml"
    params:
        spec=lambda w: ch96_model_spec(w.model),
        seed=lambda w: job_seed("chickering_heckerman1996", "model", w.model),
        alpha=CH96["generating_alpha"],
    shell:
        "hiddenbn params '{params.spec}' --seed {params.seed} --alpha {params.alpha}"
        " -o {output} 2> {log}"


rule ch96_sample_data:
    input:
        lambda w: f"{CH96_DIR}/models/{CH96['experiments'][w.experiment]['model']}.json",
    output:
        ch96_replicate_files("{experiment}"),
    log:
        f"{LOGS}/chickering_heckerman1996/sample_data/{{experiment}}.log",
    conda:
        "../envs/hiddenbn.yaml"
    params:
        spec=lambda w: ch96_model_spec(CH96["experiments"][w.experiment]["model"]),
        cases=lambda w: CH96["experiments"][w.experiment]["cases"],
        seeds=lambda w: ch96_data_seeds(w.experiment),
    script:
        "../scripts/sample_data_sets.py"


rule ch96_dimensions:
    output:
        f"{CH96_DIR}/dimensions/n{{features}}.csv",
    log:
        f"{LOGS}/chickering_heckerman1996/dimensions/n{{features}}.log",
    conda:
        "../envs/hiddenbn.yaml"
    params:
        features=lambda w: int(w.features),
        states=lambda w: ch96_states_for_features(int(w.features)),
        points=CH96["dimension_points"],
        seed=lambda w: job_seed("chickering_heckerman1996", "dimension", int(w.features)),
    script:
        "../scripts/ch96_dimensions.py"


rule ch96_fit:
    input:
        data=f"{CH96_DIR}/data/{{experiment}}/rep{{replicate}}.csv",
        dimensions=lambda w: f"{CH96_DIR}/dimensions/n{ch96_model(w.experiment)['features']}.csv",
        truth=lambda w: f"{CH96_DIR}/models/{CH96['experiments'][w.experiment]['model']}.json",
    output:
        f"{CH96_DIR}/fits/{{experiment}}/rep{{replicate}}.csv",
    log:
        f"{LOGS}/chickering_heckerman1996/fit/{{experiment}}_rep{{replicate}}.log",
    conda:
        "../envs/hiddenbn.yaml"
    threads: 1
    params:
        features=lambda w: ch96_model(w.experiment)["features"],
        states=lambda w: ch96_test_states(w.experiment),
        seed=lambda w: job_seed("chickering_heckerman1996", "fit", w.experiment, int(w.replicate)),
        truth_states=lambda w: ch96_model(w.experiment)["hidden_states"],
        prior_alpha=CH96["prior_alpha"],
        em=CH96["em"],
        search=CH96["search"],
    script:
        "../scripts/ch96_fit.py"


rule ch96_reality_check:
    output:
        f"{CH96_DIR}/reality_check.csv",
    log:
        f"{LOGS}/chickering_heckerman1996/reality_check.log",
    conda:
        "../envs/hiddenbn.yaml"
    params:
        section=CH96["reality_check"],
        prior_alpha=CH96["prior_alpha"],
        em=CH96["em"],
        seed=job_seed("chickering_heckerman1996", "reality_check"),
    script:
        "../scripts/ch96_reality_check.py"


rule ch96_report:
    input:
        fits=ch96_fit_files(),
        dimensions=ch96_dimension_files(),
        reality=f"{CH96_DIR}/reality_check.csv",
        printed_table1=workflow.source_path(
            "../resources/chickering_heckerman1996/paper_table1.csv"
        ),
        printed_table2=workflow.source_path(
            "../resources/chickering_heckerman1996/paper_table2.csv"
        ),
        printed_reality=workflow.source_path(
            "../resources/chickering_heckerman1996/paper_reality_check.csv"
        ),
    output:
        comparison=f"{CH96_DIR}/comparison.md",
        verdicts=f"{CH96_DIR}/verdicts.csv",
        table1=in_report(f"{CH96_DIR}/tables/table1.csv", "paper003_table1", "003", "Table 1"),
        table1_search=in_report(
            f"{CH96_DIR}/tables/table1_search.csv",
            "paper003_table1",
            "003",
            "Table 1, annealed search",
        ),
        table2=in_report(f"{CH96_DIR}/tables/table2.csv", "paper003_table2", "003", "Table 2"),
        tables=[
            in_report(f"{CH96_DIR}/tables/{name}.csv", f"paper003_{name}", "003", item)
            for name, item in (
                ("reality_check", "Sec. 5, reality check"),
                ("selection_errors", "Table 1 per data set"),
                ("selection_errors_search", "Table 1 per data set, annealed search"),
                ("search", "EM: the paper's protocol against the annealed search"),
                ("fits", "every fit and score"),
            )
        ],
        figures=ch96_figure_files(),
    log:
        f"{LOGS}/chickering_heckerman1996/report.log",
    conda:
        "../envs/hiddenbn.yaml"
    params:
        section=CH96,
    script:
        "../scripts/ch96_report.py"
