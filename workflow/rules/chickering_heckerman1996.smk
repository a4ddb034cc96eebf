# Chickering & Heckerman (1996), paper 003: naive-Bayes models with a hidden root.
rule ch96_generate_model:
    output:
        f"{CH96_DIR}/models/{{model}}.json",
    params:
        spec=lambda w: ch96_model_spec(w.model),
        seed=lambda w: job_seed("chickering_heckerman1996", "model", w.model),
        alpha=CH96["generating_alpha"],
    log:
        f"{LOGS}/chickering_heckerman1996/generate_model/{{model}}.log",
    conda:
        "../envs/hiddenbn.yaml"
    shell:
        "hiddenbn params '{params.spec}' --seed {params.seed} --alpha {params.alpha}"
        " -o {output} 2> {log}"


rule ch96_sample_data:
    input:
        lambda w: f"{CH96_DIR}/models/{CH96['experiments'][w.experiment]['model']}.json",
    output:
        ch96_replicate_files("{experiment}"),
    params:
        spec=lambda w: ch96_model_spec(CH96["experiments"][w.experiment]["model"]),
        cases=lambda w: CH96["experiments"][w.experiment]["cases"],
        seeds=lambda w: [
            job_seed("chickering_heckerman1996", "data", w.experiment, replicate)
            for replicate in ch96_replicates()
        ],
    log:
        f"{LOGS}/chickering_heckerman1996/sample_data/{{experiment}}.log",
    conda:
        "../envs/hiddenbn.yaml"
    script:
        "../scripts/sample_data_sets.py"
