# Chickering & Heckerman (1996), paper 003: naive-Bayes models with a hidden root.
# models -> data sets -> (dimensions of the test models) -> one fit job per data set, scoring
# every test model -> tables, figures and comparison.md. The reality check of Sec. 5 is one job.
from hiddenbn.experiments import chickering_heckerman1996
from hiddenbn.scores.approximations import TIMING_MIN_SECONDS

CHICKERING_HECKERMAN1996 = config["chickering_heckerman1996"]
CHICKERING_HECKERMAN1996_DIR = results_folder("chickering_heckerman1996")
# Values, not functions, so that this file holds rules alone (snakemake --lint); each is keyed
# by what the rules look up.
# Draws 2.. of the generating models of the config's generating_draws are entries beside the
# config's experiments and models (chickering_heckerman1996.generating_draws), run by the same
# rules; draw 1 is the config's entry, its files and seeds unchanged.
(
    CHICKERING_HECKERMAN1996_DRAWN_EXPERIMENTS,
    _chickering_heckerman1996_drawn_models,
) = chickering_heckerman1996.generating_draws(CHICKERING_HECKERMAN1996)
_chickering_heckerman1996_experiments = {
    **CHICKERING_HECKERMAN1996["experiments"],
    **CHICKERING_HECKERMAN1996_DRAWN_EXPERIMENTS,
}
_chickering_heckerman1996_models = {
    **CHICKERING_HECKERMAN1996["models"],
    **_chickering_heckerman1996_drawn_models,
}
# experiment -> the name of its generating model, the model (hidden states, features) and its
# parameter file
CHICKERING_HECKERMAN1996_MODEL_NAME = {
    e: v["model"] for e, v in _chickering_heckerman1996_experiments.items()
}
CHICKERING_HECKERMAN1996_MODEL = {
    e: _chickering_heckerman1996_models[m] for e, m in CHICKERING_HECKERMAN1996_MODEL_NAME.items()
}
CHICKERING_HECKERMAN1996_MODEL_FILE = {
    e: f"{CHICKERING_HECKERMAN1996_DIR}/models/{m}.json"
    for e, m in CHICKERING_HECKERMAN1996_MODEL_NAME.items()
}
# model name -> its shorthand spec, and the seed of its parameters (draws 2.. that of draw 1's
# key with the draw number appended)
CHICKERING_HECKERMAN1996_MODEL_SPEC = {
    m: chickering_heckerman1996.naive_bayes_spec(v["hidden_states"], v["features"])
    for m, v in _chickering_heckerman1996_models.items()
}
CHICKERING_HECKERMAN1996_MODEL_SEED = {
    m: job_seed(
        *chickering_heckerman1996.draw_seed_key(
            "chickering_heckerman1996", "model", v.get("drawn_from", m), draw=v.get("draw", 1)
        )
    )
    for m, v in _chickering_heckerman1996_models.items()
}
# experiment -> the hidden states of its test models
CHICKERING_HECKERMAN1996_TEST_STATES = {
    e: list(range(v["test_states"]["min"], v["test_states"]["max"] + 1))
    for e, v in _chickering_heckerman1996_experiments.items()
}
# features -> every test state count fitted with that many features, and their dimension table
CHICKERING_HECKERMAN1996_STATES_FOR_FEATURES = {
    n: sorted(
        {
            c
            for e in _chickering_heckerman1996_experiments
            if CHICKERING_HECKERMAN1996_MODEL[e]["features"] == n
            for c in CHICKERING_HECKERMAN1996_TEST_STATES[e]
        }
    )
    for n in sorted({m["features"] for m in CHICKERING_HECKERMAN1996_MODEL.values()})
}
CHICKERING_HECKERMAN1996_DIMENSION_FILE = {
    n: f"{CHICKERING_HECKERMAN1996_DIR}/dimensions/n{n}.csv"
    for n in CHICKERING_HECKERMAN1996_STATES_FOR_FEATURES
}
CHICKERING_HECKERMAN1996_REPLICATES = range(1, CHICKERING_HECKERMAN1996["replicates"] + 1)
# experiment -> one seed per data set, keyed by (model, N, replicate): experiments sharing both
# share their data
CHICKERING_HECKERMAN1996_DATA_SEEDS = {
    e: [
        job_seed(
            *chickering_heckerman1996.draw_seed_key(
                "chickering_heckerman1996",
                "data",
                _chickering_heckerman1996_models[v["model"]].get("drawn_from", v["model"]),
                v["cases"],
                r,
                draw=v.get("draw", 1),
            )
        )
        for r in CHICKERING_HECKERMAN1996_REPLICATES
    ]
    for e, v in _chickering_heckerman1996_experiments.items()
}
# the fits of the config's experiments (Table 1, the figures, the claims) and of the further
# generating draws (comparison.md's section on them alone)
CHICKERING_HECKERMAN1996_FIT_FILES, CHICKERING_HECKERMAN1996_DRAW_FIT_FILES = (
    [
        f"{CHICKERING_HECKERMAN1996_DIR}/fits/{e}/rep{r}.csv"
        for e in experiments
        for r in CHICKERING_HECKERMAN1996_REPLICATES
    ]
    for experiments in (
        CHICKERING_HECKERMAN1996["experiments"],
        CHICKERING_HECKERMAN1996_DRAWN_EXPERIMENTS,
    )
)
# experiment -> the experiment whose fits it takes (same model, N and test models: the same data
# sets); the fit rule runs for the first of each such group, the others relabel its fits
CHICKERING_HECKERMAN1996_FITTED_AS = chickering_heckerman1996.fitted_as(
    _chickering_heckerman1996_experiments
)
CHICKERING_HECKERMAN1996_FITTED = sorted(set(CHICKERING_HECKERMAN1996_FITTED_AS.values()))
CHICKERING_HECKERMAN1996_SHARING = sorted(
    e for e, shared in CHICKERING_HECKERMAN1996_FITTED_AS.items() if shared != e
)
# Sec. 3's prior checks: experiments refitted at other priors and at ML (prior_alpha 1), each
# data set from its main fit's seed (the fitted experiment's), so only the prior differs
CHICKERING_HECKERMAN1996_PRIOR = CHICKERING_HECKERMAN1996.get(
    "prior_sensitivity", {"prior_alphas": [], "experiments": []}
)
CHICKERING_HECKERMAN1996_PRIOR_FILES = [
    f"{CHICKERING_HECKERMAN1996_DIR}/prior_sensitivity/{e}.csv"
    for e in CHICKERING_HECKERMAN1996_PRIOR["experiments"]
]
# The prior and EM protocol of the fits (the gold standard scores these fits, and fits its own
# small data sets the same way).
CHICKERING_HECKERMAN1996_FIT_SETTINGS = {
    "prior_alpha": CHICKERING_HECKERMAN1996["prior_alpha"],
    "em": CHICKERING_HECKERMAN1996["em"],
}
# Figures 1-3 as the config asks for them: one data set, and mean ± s.d. over data sets, under
# the paper's EM protocol and (``_search``) under the annealed search.
CHICKERING_HECKERMAN1996_FIGURES = [
    path
    for figure in CHICKERING_HECKERMAN1996["figures"]
    for suffix, protocol in (("", "paper's EM"), ("_search", "annealed search"))
    for kind, what in (("", "one data set"), ("_mean", "mean ± s.d. over data sets"))
    for path in in_report(
        multiext(f"{CHICKERING_HECKERMAN1996_DIR}/figures/{figure}{suffix}{kind}", ".png", ".pdf"),
        "chickering_heckerman1996",
        figure,
        f"{figure.replace('figure', 'Figure ')}, {what}, {protocol}",
    )
]

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
    benchmark:
        f"{LOGS}/benchmarks/chickering_heckerman1996_generate_model/{{model}}.tsv"
    conda:
        "../envs/hiddenbn.yaml"
    params:
        spec=lambda w: CHICKERING_HECKERMAN1996_MODEL_SPEC[w.model],
        seed=lambda w: CHICKERING_HECKERMAN1996_MODEL_SEED[w.model],
        generating_alpha=CHICKERING_HECKERMAN1996["generating_alpha"],
    shell:
        "hiddenbn params '{params.spec}' --seed {params.seed}"
        " --generating-alpha {params.generating_alpha} -o {output} 2> {log}"


rule chickering_heckerman1996_sample_data:
    input:
        lambda w: CHICKERING_HECKERMAN1996_MODEL_FILE[w.experiment],
    output:
        [
            f"{CHICKERING_HECKERMAN1996_DIR}/data/{{experiment}}/rep{r}.csv"
            for r in CHICKERING_HECKERMAN1996_REPLICATES
        ],
    log:
        f"{LOGS}/chickering_heckerman1996/sample_data/{{experiment}}.log",
    benchmark:
        f"{LOGS}/benchmarks/chickering_heckerman1996_sample_data/{{experiment}}.tsv"
    conda:
        "../envs/hiddenbn.yaml"
    params:
        spec=lambda w: CHICKERING_HECKERMAN1996_MODEL_SPEC[
            CHICKERING_HECKERMAN1996_MODEL_NAME[w.experiment]
        ],
        cases=lambda w: _chickering_heckerman1996_experiments[w.experiment]["cases"],
        seeds=lambda w: CHICKERING_HECKERMAN1996_DATA_SEEDS[w.experiment],
    script:
        "../scripts/chickering_heckerman1996/sample_data.py"


rule chickering_heckerman1996_dimensions:
    output:
        f"{CHICKERING_HECKERMAN1996_DIR}/dimensions/n{{features}}.csv",
    log:
        f"{LOGS}/chickering_heckerman1996/dimensions/n{{features}}.log",
    benchmark:
        f"{LOGS}/benchmarks/chickering_heckerman1996_dimensions/n{{features}}.tsv"
    conda:
        "../envs/hiddenbn.yaml"
    params:
        features=lambda w: int(w.features),
        states=lambda w: CHICKERING_HECKERMAN1996_STATES_FOR_FEATURES[int(w.features)],
        points=CHICKERING_HECKERMAN1996["jacobian_points"],
        seed=lambda w: job_seed("chickering_heckerman1996", "dimension", int(w.features)),
    script:
        "../scripts/chickering_heckerman1996/dimensions.py"


rule chickering_heckerman1996_fit:
    input:
        data=f"{CHICKERING_HECKERMAN1996_DIR}/data/{{experiment}}/rep{{replicate}}.csv",
        dimensions=lambda w: CHICKERING_HECKERMAN1996_DIMENSION_FILE[
            CHICKERING_HECKERMAN1996_MODEL[w.experiment]["features"]
        ],
        truth=lambda w: CHICKERING_HECKERMAN1996_MODEL_FILE[w.experiment],
    output:
        f"{CHICKERING_HECKERMAN1996_DIR}/fits/{{experiment}}/rep{{replicate}}.csv",
    log:
        f"{LOGS}/chickering_heckerman1996/fit/{{experiment}}_rep{{replicate}}.log",
    benchmark:
        f"{LOGS}/benchmarks/chickering_heckerman1996_fit/{{experiment}}_rep{{replicate}}.tsv"
    wildcard_constraints:
        experiment="|".join(CHICKERING_HECKERMAN1996_FITTED),
    conda:
        "../envs/hiddenbn.yaml"
    threads: 1
    params:
        features=lambda w: CHICKERING_HECKERMAN1996_MODEL[w.experiment]["features"],
        states=lambda w: CHICKERING_HECKERMAN1996_TEST_STATES[w.experiment],
        seed=lambda w: job_seed(
            *chickering_heckerman1996.draw_seed_key(
                "chickering_heckerman1996",
                "fit",
                _chickering_heckerman1996_experiments[w.experiment].get(
                    "drawn_from", w.experiment
                ),
                int(w.replicate),
                draw=_chickering_heckerman1996_experiments[w.experiment].get("draw", 1),
            )
        ),
        truth_states=lambda w: CHICKERING_HECKERMAN1996_MODEL[w.experiment]["hidden_states"],
        prior_alpha=CHICKERING_HECKERMAN1996["prior_alpha"],
        em=CHICKERING_HECKERMAN1996["em"],
        search=CHICKERING_HECKERMAN1996["search"],
        # Table 2's data set times each score by the fastest of repeated calls (see the config)
        timing_seconds=lambda w: (
            CHICKERING_HECKERMAN1996["timing"]["min_seconds"]
            if (w.experiment, int(w.replicate))
            == (
                CHICKERING_HECKERMAN1996["timing"]["experiment"],
                CHICKERING_HECKERMAN1996["timing"]["replicate"],
            )
            else TIMING_MIN_SECONDS
        ),
    script:
        "../scripts/chickering_heckerman1996/fit.py"


rule chickering_heckerman1996_shared_fits:
    input:
        lambda w: f"{CHICKERING_HECKERMAN1996_DIR}/fits/"
        f"{CHICKERING_HECKERMAN1996_FITTED_AS[w.experiment]}/rep{w.replicate}.csv",
    output:
        f"{CHICKERING_HECKERMAN1996_DIR}/fits/{{experiment}}/rep{{replicate}}.csv",
    log:
        f"{LOGS}/chickering_heckerman1996/shared_fits/{{experiment}}_rep{{replicate}}.log",
    benchmark:
        (
            f"{LOGS}/benchmarks/chickering_heckerman1996_shared_fits/"
            f"{{experiment}}_rep{{replicate}}.tsv"
        )
    wildcard_constraints:
        experiment="|".join(CHICKERING_HECKERMAN1996_SHARING),
    conda:
        "../envs/hiddenbn.yaml"
    script:
        "../scripts/chickering_heckerman1996/shared_fits.py"


rule chickering_heckerman1996_reality_check:
    output:
        f"{CHICKERING_HECKERMAN1996_DIR}/reality_check.csv",
    log:
        f"{LOGS}/chickering_heckerman1996/reality_check.log",
    benchmark:
        f"{LOGS}/benchmarks/chickering_heckerman1996_reality_check/reality_check.tsv"
    conda:
        "../envs/hiddenbn.yaml"
    params:
        section=CHICKERING_HECKERMAN1996["reality_check"],
        prior_alpha=CHICKERING_HECKERMAN1996["prior_alpha"],
        em=CHICKERING_HECKERMAN1996["em"],
        seed=job_seed("chickering_heckerman1996", "reality_check"),
    script:
        "../scripts/chickering_heckerman1996/reality_check.py"


rule chickering_heckerman1996_prior_sensitivity:
    input:
        lambda w: [
            f"{CHICKERING_HECKERMAN1996_DIR}/data/{w.experiment}/rep{r}.csv"
            for r in CHICKERING_HECKERMAN1996_REPLICATES
        ],
    output:
        f"{CHICKERING_HECKERMAN1996_DIR}/prior_sensitivity/{{experiment}}.csv",
    log:
        f"{LOGS}/chickering_heckerman1996/prior_sensitivity/{{experiment}}.log",
    benchmark:
        f"{LOGS}/benchmarks/chickering_heckerman1996_prior_sensitivity/{{experiment}}.tsv"
    conda:
        "../envs/hiddenbn.yaml"
    threads: 1
    params:
        features=lambda w: CHICKERING_HECKERMAN1996_MODEL[w.experiment]["features"],
        states=lambda w: CHICKERING_HECKERMAN1996_TEST_STATES[w.experiment],
        seeds=lambda w: [
            job_seed(
                "chickering_heckerman1996",
                "fit",
                CHICKERING_HECKERMAN1996_FITTED_AS[w.experiment],
                r,
            )
            for r in CHICKERING_HECKERMAN1996_REPLICATES
        ],
        prior_alpha=CHICKERING_HECKERMAN1996["prior_alpha"],
        prior_alphas=CHICKERING_HECKERMAN1996_PRIOR["prior_alphas"],
        em=CHICKERING_HECKERMAN1996["em"],
    script:
        "../scripts/chickering_heckerman1996/prior_sensitivity.py"


rule chickering_heckerman1996_report:
    input:
        fits=CHICKERING_HECKERMAN1996_FIT_FILES,
        draws=CHICKERING_HECKERMAN1996_DRAW_FIT_FILES,
        dimensions=list(CHICKERING_HECKERMAN1996_DIMENSION_FILE.values()),
        reality=f"{CHICKERING_HECKERMAN1996_DIR}/reality_check.csv",
        prior=CHICKERING_HECKERMAN1996_PRIOR_FILES,
        printed_table1=printed_numbers("chickering_heckerman1996", "paper_table1.csv"),
        printed_table2=printed_numbers("chickering_heckerman1996", "paper_table2.csv"),
        printed_reality=printed_numbers("chickering_heckerman1996", "paper_reality_check.csv"),
        printed_section3=printed_numbers("chickering_heckerman1996", "paper_section3.csv"),
        printed_figures=printed_numbers("chickering_heckerman1996", "paper_figures.csv"),
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
                *(
                    [("prior_sensitivity", "prior_sensitivity", "Sec. 3, refits at other priors")]
                    if CHICKERING_HECKERMAN1996_PRIOR_FILES
                    else []
                ),
                ("table1", "table1", "Table 1"),
                ("table1_search", "table1", "Table 1, annealed search"),
                *(
                    [("table1_draws", "table1_draws", "Table 1 under other generating draws")]
                    if CHICKERING_HECKERMAN1996_DRAW_FIT_FILES
                    else []
                ),
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
        figures=CHICKERING_HECKERMAN1996_FIGURES,
    log:
        f"{LOGS}/chickering_heckerman1996/report.log",
    benchmark:
        f"{LOGS}/benchmarks/chickering_heckerman1996_report/report.tsv"
    conda:
        "../envs/hiddenbn.yaml"
    params:
        section=CHICKERING_HECKERMAN1996,
        # the experiments this run's gold standard scores (None: no gold standard), which the
        # explanations point to
        gold_experiments=lambda w: RESCORED_EXPERIMENTS.get("chickering_heckerman1996"),
    script:
        "../scripts/chickering_heckerman1996/report.py"
