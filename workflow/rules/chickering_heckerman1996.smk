# Chickering & Heckerman (1996), paper 003: naive-Bayes models with a hidden root.
# models -> data sets -> (dimensions of the test models) -> one fit job per data set, scoring
# every test model -> tables, figures and comparison.md. The reality check of Sec. 5 is one job.
from hiddenbn.experiments import chickering_heckerman1996

CHICKERING_HECKERMAN1996 = config["chickering_heckerman1996"]
CHICKERING_HECKERMAN1996_DIR = results_folder("chickering_heckerman1996")


def chickering_heckerman1996_model(experiment):
    """The generating model (hidden states, features) of ``experiment``."""
    section = CHICKERING_HECKERMAN1996
    return section["models"][section["experiments"][experiment]["model"]]


def chickering_heckerman1996_fit_settings():
    """The prior and EM protocol of paper 003's fits (the gold standard scores its fits and
    fits its own small data sets the same way)."""
    return {
        "prior_alpha": CHICKERING_HECKERMAN1996["prior_alpha"],
        "em": CHICKERING_HECKERMAN1996["em"],
    }


def chickering_heckerman1996_model_file(experiment):
    """The generating model's parameter file of ``experiment``."""
    model = CHICKERING_HECKERMAN1996["experiments"][experiment]["model"]
    return f"{CHICKERING_HECKERMAN1996_DIR}/models/{model}.json"


def chickering_heckerman1996_model_spec(model):
    m = CHICKERING_HECKERMAN1996["models"][model]
    return chickering_heckerman1996.naive_bayes_spec(m["hidden_states"], m["features"])


def chickering_heckerman1996_test_states(experiment):
    states = CHICKERING_HECKERMAN1996["experiments"][experiment]["test_states"]
    return list(range(states["min"], states["max"] + 1))


def chickering_heckerman1996_states_for_features(features):
    """Every test state count fitted with ``features`` features (one dimension table each)."""
    return sorted(
        {
            c
            for e in CHICKERING_HECKERMAN1996["experiments"]
            if chickering_heckerman1996_model(e)["features"] == features
            for c in chickering_heckerman1996_test_states(e)
        }
    )


def chickering_heckerman1996_replicates():
    return range(1, CHICKERING_HECKERMAN1996["replicates"] + 1)


def chickering_heckerman1996_data_files(experiment):
    """Data sets of one experiment; ``experiment`` may be a wildcard pattern."""
    return [
        f"{CHICKERING_HECKERMAN1996_DIR}/data/{experiment}/rep{r}.csv"
        for r in chickering_heckerman1996_replicates()
    ]


def chickering_heckerman1996_data_seeds(experiment):
    """Seeds keyed by (model, N, replicate): experiments sharing both share their data."""
    e = CHICKERING_HECKERMAN1996["experiments"][experiment]
    return [
        job_seed("chickering_heckerman1996", "data", e["model"], e["cases"], r)
        for r in chickering_heckerman1996_replicates()
    ]


def chickering_heckerman1996_fit_files():
    return [
        f"{CHICKERING_HECKERMAN1996_DIR}/fits/{e}/rep{r}.csv"
        for e in CHICKERING_HECKERMAN1996["experiments"]
        for r in chickering_heckerman1996_replicates()
    ]


def chickering_heckerman1996_figure_files():
    """Figures 1-3 as the config asks for them: one data set, and mean ± s.d. over data sets,
    under the paper's EM protocol and (``_search``) under the annealed search."""
    files = []
    for figure in CHICKERING_HECKERMAN1996["figures"]:
        label = figure.replace("figure", "Figure ")
        for suffix, protocol in (("", "paper's EM"), ("_search", "annealed search")):
            for kind, what in (("", "one data set"), ("_mean", "mean ± s.d. over data sets")):
                files += in_report(
                    multiext(
                        f"{CHICKERING_HECKERMAN1996_DIR}/figures/{figure}{suffix}{kind}",
                        ".png",
                        ".pdf",
                    ),
                    "chickering_heckerman1996",
                    figure,
                    f"{label}, {what}, {protocol}",
                )
    return files


def chickering_heckerman1996_dimension_file(features):
    """The dimension table of the test models with ``features`` features."""
    return f"{CHICKERING_HECKERMAN1996_DIR}/dimensions/n{features}.csv"


def chickering_heckerman1996_dimension_files():
    experiments = CHICKERING_HECKERMAN1996["experiments"]
    features = {chickering_heckerman1996_model(e)["features"] for e in experiments}
    return [chickering_heckerman1996_dimension_file(n) for n in sorted(features)]


FINAL_OUTPUTS.append(f"{CHICKERING_HECKERMAN1996_DIR}/comparison.md")
reproduce(
    "chickering_heckerman1996",
    f"{CHICKERING_HECKERMAN1996_DIR}/comparison.md",
    f"{CHICKERING_HECKERMAN1996_DIR}/verdicts.csv",
)


rule chickering_heckerman1996_generate_model:
    output:
        f"{CHICKERING_HECKERMAN1996_DIR}/models/{{model}}.json",
    log:
        f"{LOGS}/chickering_heckerman1996/generate_model/{{model}}.log",
    conda:
        "../envs/hiddenbn.yaml"
    params:
        spec=lambda w: chickering_heckerman1996_model_spec(w.model),
        seed=lambda w: job_seed("chickering_heckerman1996", "model", w.model),
        alpha=CHICKERING_HECKERMAN1996["generating_alpha"],
    shell:
        "hiddenbn params '{params.spec}' --seed {params.seed} --alpha {params.alpha}"
        " -o {output} 2> {log}"


rule chickering_heckerman1996_sample_data:
    input:
        lambda w: chickering_heckerman1996_model_file(w.experiment),
    output:
        chickering_heckerman1996_data_files("{experiment}"),
    log:
        f"{LOGS}/chickering_heckerman1996/sample_data/{{experiment}}.log",
    conda:
        "../envs/hiddenbn.yaml"
    params:
        spec=lambda w: chickering_heckerman1996_model_spec(
            CHICKERING_HECKERMAN1996["experiments"][w.experiment]["model"]
        ),
        cases=lambda w: CHICKERING_HECKERMAN1996["experiments"][w.experiment]["cases"],
        seeds=lambda w: chickering_heckerman1996_data_seeds(w.experiment),
    script:
        "../scripts/chickering_heckerman1996/sample_data.py"


rule chickering_heckerman1996_dimensions:
    output:
        f"{CHICKERING_HECKERMAN1996_DIR}/dimensions/n{{features}}.csv",
    log:
        f"{LOGS}/chickering_heckerman1996/dimensions/n{{features}}.log",
    conda:
        "../envs/hiddenbn.yaml"
    params:
        features=lambda w: int(w.features),
        states=lambda w: chickering_heckerman1996_states_for_features(int(w.features)),
        points=CHICKERING_HECKERMAN1996["jacobian_points"],
        seed=lambda w: job_seed("chickering_heckerman1996", "dimension", int(w.features)),
    script:
        "../scripts/chickering_heckerman1996/dimensions.py"


rule chickering_heckerman1996_fit:
    input:
        data=f"{CHICKERING_HECKERMAN1996_DIR}/data/{{experiment}}/rep{{replicate}}.csv",
        dimensions=lambda w: chickering_heckerman1996_dimension_file(
            chickering_heckerman1996_model(w.experiment)["features"]
        ),
        truth=lambda w: chickering_heckerman1996_model_file(w.experiment),
    output:
        f"{CHICKERING_HECKERMAN1996_DIR}/fits/{{experiment}}/rep{{replicate}}.csv",
    log:
        f"{LOGS}/chickering_heckerman1996/fit/{{experiment}}_rep{{replicate}}.log",
    conda:
        "../envs/hiddenbn.yaml"
    threads: 1
    params:
        features=lambda w: chickering_heckerman1996_model(w.experiment)["features"],
        states=lambda w: chickering_heckerman1996_test_states(w.experiment),
        seed=lambda w: job_seed("chickering_heckerman1996", "fit", w.experiment, int(w.replicate)),
        truth_states=lambda w: chickering_heckerman1996_model(w.experiment)["hidden_states"],
        prior_alpha=CHICKERING_HECKERMAN1996["prior_alpha"],
        em=CHICKERING_HECKERMAN1996["em"],
        search=CHICKERING_HECKERMAN1996["search"],
    script:
        "../scripts/chickering_heckerman1996/fit.py"


rule chickering_heckerman1996_reality_check:
    output:
        f"{CHICKERING_HECKERMAN1996_DIR}/reality_check.csv",
    log:
        f"{LOGS}/chickering_heckerman1996/reality_check.log",
    conda:
        "../envs/hiddenbn.yaml"
    params:
        section=CHICKERING_HECKERMAN1996["reality_check"],
        prior_alpha=CHICKERING_HECKERMAN1996["prior_alpha"],
        em=CHICKERING_HECKERMAN1996["em"],
        seed=job_seed("chickering_heckerman1996", "reality_check"),
    script:
        "../scripts/chickering_heckerman1996/reality_check.py"


rule chickering_heckerman1996_report:
    input:
        fits=chickering_heckerman1996_fit_files(),
        dimensions=chickering_heckerman1996_dimension_files(),
        reality=f"{CHICKERING_HECKERMAN1996_DIR}/reality_check.csv",
        printed_table1=printed_numbers("chickering_heckerman1996", "paper_table1.csv"),
        printed_table2=printed_numbers("chickering_heckerman1996", "paper_table2.csv"),
        printed_reality=printed_numbers("chickering_heckerman1996", "paper_reality_check.csv"),
    output:
        comparison=f"{CHICKERING_HECKERMAN1996_DIR}/comparison.md",
        verdicts=f"{CHICKERING_HECKERMAN1996_DIR}/verdicts.csv",
        tables=[
            in_report(
                f"{CHICKERING_HECKERMAN1996_DIR}/tables/{name}.csv",
                "chickering_heckerman1996",
                caption,
                item,
            )
            for name, caption, item in (
                ("table1", "table1", "Table 1"),
                ("table1_search", "table1", "Table 1, annealed search"),
                ("table2", "table2", "Table 2"),
                ("reality_check", "reality_check", "Sec. 5, reality check"),
                ("selection_errors", "selection_errors", "Table 1 per data set"),
                (
                    "selection_errors_search",
                    "selection_errors_search",
                    "Table 1 per data set, annealed search",
                ),
                ("search", "search", "EM: the paper's protocol against the annealed search"),
                ("fits", "fits", "every fit and score"),
            )
        ],
        figures=chickering_heckerman1996_figure_files(),
    log:
        f"{LOGS}/chickering_heckerman1996/report.log",
    conda:
        "../envs/hiddenbn.yaml"
    params:
        section=CHICKERING_HECKERMAN1996,
    script:
        "../scripts/chickering_heckerman1996/report.py"
