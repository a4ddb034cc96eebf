# Shared set-up: config validation and job seeds.
from pathlib import Path

import yaml

from hiddenbn import seeding, workflow_config
from hiddenbn.experiments import chickering_heckerman1996 as ch96
from hiddenbn.experiments import heckerman_meek1997 as hm97
from hiddenbn.experiments import kocka_zhang2002 as kz02
from hiddenbn.experiments import reproduction
from hiddenbn.experiments import studies as user_studies

# Relative file names in a study (spec and parameter files) are read from the folder of the
# config file (the last one given), so a study and its files can live anywhere.
STUDIES_BASE = (
    Path(workflow.configfiles[-1]).resolve().parent if workflow.configfiles else Path.cwd()
)
CONFIG_SCHEMA = yaml.safe_load(Path(workflow.basedir, "schemas", "config.schema.yaml").read_text())
# Every problem of the config on one line, before any job (schema defaults filled in); the user
# studies come back normalised, as their rules read them.
with workflow_config.exit_on_config_error():
    STUDIES = workflow_config.check_config(config, CONFIG_SCHEMA, STUDIES_BASE)
RESULTS = config["results_dir"]
LOGS = f"{RESULTS}/logs"


def job_seed(*key):
    """The seed of the job identified by ``key`` (paper, stage, wildcards): see hiddenbn.seeding."""
    return seeding.job_seed(config["seed"], *key)


# --- Chickering & Heckerman (1996), paper 003 ---
CH96 = config.get("chickering_heckerman1996")
CH96_DIR = f"{RESULTS}/chickering_heckerman1996"


def ch96_model(experiment):
    return CH96["models"][CH96["experiments"][experiment]["model"]]


def ch96_model_spec(model):
    m = CH96["models"][model]
    return ch96.naive_bayes_spec(m["hidden_states"], m["features"])


def ch96_test_states(experiment):
    states = CH96["experiments"][experiment]["test_states"]
    return list(range(states["min"], states["max"] + 1))


def ch96_states_for_features(features):
    """Every test state count fitted with ``features`` features (one dimension table each)."""
    return sorted(
        {
            c
            for e in CH96["experiments"]
            if ch96_model(e)["features"] == features
            for c in ch96_test_states(e)
        }
    )


def ch96_replicates():
    return range(1, CH96["replicates"] + 1)


def ch96_replicate_files(experiment):
    """Data sets of one experiment; ``experiment`` may be a wildcard pattern."""
    return [f"{CH96_DIR}/data/{experiment}/rep{r}.csv" for r in ch96_replicates()]


def ch96_data_seeds(experiment):
    """Seeds keyed by (model, N, replicate): experiments sharing both share their data."""
    e = CH96["experiments"][experiment]
    return [
        job_seed("chickering_heckerman1996", "data", e["model"], e["cases"], r)
        for r in ch96_replicates()
    ]


def ch96_fit_files():
    return [
        f"{CH96_DIR}/fits/{e}/rep{r}.csv" for e in CH96["experiments"] for r in ch96_replicates()
    ]


def ch96_figure_files():
    """Figures 1-3 as the config asks for them: one data set, and mean ± s.d. over data sets,
    under the paper's EM protocol and (``_search``) under the annealed search."""
    files = []
    for figure in CH96["figures"]:
        label = figure.replace("figure", "Figure ")
        for suffix, protocol in (("", "paper's EM"), ("_search", "annealed search")):
            files += in_report(
                multiext(f"{CH96_DIR}/figures/{figure}{suffix}", ".png", ".pdf"),
                f"paper003_{figure}",
                "003",
                f"{label}, one data set, {protocol}",
            )
            files += in_report(
                multiext(f"{CH96_DIR}/figures/{figure}{suffix}_mean", ".png", ".pdf"),
                f"paper003_{figure}",
                "003",
                f"{label}, mean ± s.d. over data sets, {protocol}",
            )
    return files


def ch96_dimension_files():
    features = sorted({ch96_model(e)["features"] for e in CH96["experiments"]})
    return [f"{CH96_DIR}/dimensions/n{n}.csv" for n in features]


def chickering_heckerman1996_outputs():
    return [] if CH96 is None else [f"{CH96_DIR}/comparison.md"]


# --- Heckerman & Meek (1997), paper 001 ---
HM97 = config.get("heckerman_meek1997", {})
HM97_DIR = f"{RESULTS}/heckerman_meek1997"


def hm97_jacobian_points():
    """Random points of the EBNC Jacobian-rank check (the dimension section's setting)."""
    return config.get("dimension", {}).get("points", 3)


HM97_STUDY_CASES = hm97.STUDY_CASES


def hm97_study_seed(wildcards):
    """Seed of one case of the paper 001 learning study (shared by its training sizes)."""
    return job_seed("heckerman_meek1997", "study", wildcards.case)


def hm97_study_files(kind):
    """The per-(case, training size) outputs of the learning study: learners or selections."""
    return [
        f"{HM97_DIR}/study/{case}_n{size}_{kind}.csv"
        for case in HM97_STUDY_CASES
        for size in HM97.get("training_sizes", [])
    ]


def heckerman_meek1997_outputs():
    """Figure 1, Figure 2 and the EBNC dimension table when the config asks for Figure 2; the
    learning study's tables, curves and findings.md when it has a study section."""
    outputs = []
    if "figure2" in HM97:
        outputs += [
            *multiext(f"{HM97_DIR}/figures/figure1", ".png", ".pdf"),
            *multiext(f"{HM97_DIR}/figures/figure2", ".png", ".pdf"),
            *multiext(f"{HM97_DIR}/tables/ebnc_dimensions", ".csv", ".md"),
        ]
    if "study" in HM97:
        outputs += [
            f"{HM97_DIR}/tables/study_learning_curves.csv",
            f"{HM97_DIR}/tables/study_selection.csv",
            f"{HM97_DIR}/findings.md",
            *multiext(f"{HM97_DIR}/figures/learning_curves", ".png", ".pdf"),
        ]
    return outputs


# --- Dimension results of papers 000, 002 and 004 (hiddenbn.experiments.dimension) ---
DIM = config.get("dimension")
DIM_DIR = f"{RESULTS}/dimension"
DIM_PAPERS = ("geiger_heckerman_meek1996", "kocka_zhang2002", "meek_heckerman1997")
# paper numbers (reproduction.PAPERS): report categories, REPRODUCTION.md sections
DIM_PAPER_KEYS = dict(zip(DIM_PAPERS, ("000", "002", "004")))


def dimension_tables(paper, items):
    """CSV and Markdown of each table of ``paper``; ``items`` maps a table's name to what it is
    in the paper (its label in the report, whose caption is paper<key>_<name>.rst)."""
    key = DIM_PAPER_KEYS[paper]
    return [
        path
        for name, item in items.items()
        for path in in_report(
            multiext(f"{DIM_DIR}/{paper}/tables/{name}", ".csv", ".md"),
            f"paper{key}_{name}",
            key,
            item,
        )
    ]


def dimension_figures(paper, items):
    """PNG and PDF of each figure of ``paper``; ``items`` as for :func:`dimension_tables`."""
    key = DIM_PAPER_KEYS[paper]
    return [
        path
        for name, item in items.items()
        for path in in_report(
            multiext(f"{DIM_DIR}/{paper}/figures/{name}", ".png", ".pdf"),
            f"paper{key}_{name}",
            key,
            item,
        )
    ]


def dimension_outputs():
    """Each paper's comparison.md (its rule makes the tables and figures beside it)."""
    if DIM is None:
        return []
    return [f"{DIM_DIR}/{paper}/comparison.md" for paper in DIM_PAPERS]


# --- Meek & Heckerman (1997), paper 004: the causal-interaction simulation study ---
MH97 = config.get("meek_heckerman1997")
MH97_DIR = f"{RESULTS}/meek_heckerman1997"


# the generating and candidate models F1..F5 (mechanism cause sets)
MH97_STRUCTURES = DIM["causal_interaction_models"] if MH97 is not None else {}


def mh97_generators():
    return list(MH97_STRUCTURES)


def mh97_seeds(generator):
    """One seed per data set of ``generator``: data set 0 is the paper's, 1.. the replicates."""
    return [
        job_seed("meek_heckerman1997", "data", generator, replicate)
        for replicate in range(MH97["replicates"] + 1)
    ]


def meek_heckerman1997_outputs():
    if MH97 is None:
        return []
    return [f"{MH97_DIR}/comparison.md"]


# --- gold standard for the marginal likelihood (issue 9) ---
GOLD = config.get("gold_standard")
GOLD_DIR = f"{RESULTS}/gold_standard"


def gold_exact_files():
    return [f"{GOLD_DIR}/exact/rep{r}.csv" for r in range(1, GOLD["exact"]["replicates"] + 1)]


def gold_parts(experiment):
    """Jobs per data set: ``paper003.large_c.parts`` for the large-c experiments (whose SMC
    would otherwise make one job of 20 minutes), one for the others."""
    large = GOLD["paper003"].get("large_c") or {"experiments": []}
    return large.get("parts", 1) if experiment in large["experiments"] else 1


def gold_paper_files():
    """The paper-003 data sets scored against the gold standard, each in its parts:
    ``paper003``'s experiments, and those of ``paper003.large_c`` with their own replicates."""
    groups = [GOLD["paper003"], GOLD["paper003"].get("large_c") or {"experiments": []}]
    return [
        f"{GOLD_DIR}/paper003/{e}/rep{r}_part{p}.csv"
        for group in groups
        for e in group["experiments"]
        for r in range(1, group.get("replicates", 0) + 1)
        for p in range(1, gold_parts(e) + 1)
    ]


def gold_slope_files():
    return [
        f"{GOLD_DIR}/slopes/{s}/rep{r}.csv"
        for s in GOLD["slope"]["settings"]
        for r in range(1, GOLD["slope"]["replicates"] + 1)
    ]


def gold_report_files():
    """The tables and figures of the gold-standard report; a part without data sets (no paper
    003 or slope replicates) has none."""

    def table(name, item):
        return in_report(
            f"{GOLD_DIR}/tables/{name}.csv", f"gold_standard_{name}", "gold_standard", item
        )

    def figure(name, item):
        return in_report(
            multiext(f"{GOLD_DIR}/figures/{name}", ".png", ".pdf"),
            f"gold_standard_figure_{name}",
            "gold_standard",
            item,
        )

    files = [
        table("exact", "exact log p(D|S) on small data sets"),
        table("paper003", "paper 003's data sets: every score and the SMC value"),
        table("slopes", "every fit of the slope experiment"),
    ]
    if gold_paper_files():
        files += [
            table("paper003_errors", "score − gold per test model"),
            table("paper003_delta_c", "Δc against the gold standard and Laplace"),
            table("paper003_table1", "paper 003's Table 1 with the gold standard as yardstick"),
            table("paper003_shapes", "shape of each curve against the gold standard's"),
            *figure("paper003_errors", "score − gold against hidden states"),
            *figure("paper003_shapes", "each curve minus its maximum, gold standard among them"),
        ]
    if gold_slope_files():
        files += [
            table("slope_fits", "fitted slopes beside ds/2 and de/2"),
            table("cs_plus", "CS+ against CS"),
            *figure("slopes", "log p(D|θ_ML) − log p(D) against log N"),
        ]
    return files


def gold_standard_outputs():
    return [] if GOLD is None else [f"{GOLD_DIR}/findings.md"]


# --- Kočka & Zhang (2002), paper 002: LC and HLC experiments (Figures 4-5, Table 2) ---
KZ02 = config.get("kocka_zhang2002")
KZ02_DIR = f"{RESULTS}/kocka_zhang2002"
# Jacobian-rank points for de of the test models (the dimension section's setting)
KZ02_POINTS = config.get("dimension", {}).get("points", 5)


def kz02_lc_files():
    return [f"{KZ02_DIR}/lc/{g}.csv" for g in kz02.lc_generators(KZ02)]


def kz02_hlc_files():
    return [f"{KZ02_DIR}/hlc/n{n}.csv" for n in KZ02["hierarchical"]["sample_sizes"]]


def kz02_figure_files():
    items = {"figure4": "Figure 4", "figure4_supplementary": "Figure 4, the other generators"}
    if KZ02["latent_class"]["deterministic_children"] > 0:
        items["figure5"] = "Figure 5"
    return [
        path
        for name, item in items.items()
        for path in in_report(
            multiext(f"{KZ02_DIR}/figures/{name}", ".png", ".pdf"), f"paper002_{name}", "002", item
        )
    ]


def kocka_zhang2002_outputs():
    return [] if KZ02 is None else [f"{KZ02_DIR}/comparison.md"]


# --- User studies (issue 10): the `studies:` section (hiddenbn.experiments.studies) ---
STUDIES_DIR = f"{RESULTS}/studies"


def study_inputs(wildcards):
    """The spec and parameter files one (study, generator) job reads."""
    return user_studies.generator_files(STUDIES[wildcards.study], wildcards.generator)


def study_seeds(wildcards):
    """(parameter seed, data seed) per replicate of one (study, generator, N) job; the parameter
    seed leaves out N, so every sample size of a replicate shares its generating parameters."""
    key = ("studies", wildcards.study, wildcards.generator)
    return [
        (job_seed(*key, "parameters", r), job_seed(*key, int(wildcards.cases), r))
        for r in range(1, STUDIES[wildcards.study]["replicates"] + 1)
    ]


def study_run_files(study, kind):
    """The per-(generator, N) tables of one study: ``fits`` or ``selections``."""
    section = STUDIES[study]
    return [
        f"{STUDIES_DIR}/{study}/runs/{generator}/n{cases}_{kind}.csv"
        for generator in section["generators"]
        for cases in section["sample_sizes"]
    ]


def study_summary_files(study):
    """Everything a study's summary writes; summary.md first."""
    return [f"{STUDIES_DIR}/{study}/{name}" for name in user_studies.summary_files(STUDIES[study])]


def studies_outputs():
    return [f"{STUDIES_DIR}/{study}/summary.md" for study in STUDIES]


# --- the Snakemake report (snakemake --report) and REPRODUCTION.md ---
def in_report(paths, caption, paper, item):
    """``paths`` (one path or a list) with the PNG figures and CSV tables among them flagged for
    the report: captioned by workflow/report/<caption>.rst, under ``paper``'s category (a key of
    hiddenbn.experiments.reproduction.PAPERS), labelled ``item``. PDF and Markdown copies stay
    unflagged, so the report shows each figure and table once."""
    kinds = {".png": "Figures", ".csv": "Tables"}

    def flagged(path):
        kind = kinds.get(Path(path).suffix)
        if kind is None:
            return path
        return report(
            path,
            caption=f"../report/{caption}.rst",
            category=reproduction.paper_label(paper),
            subcategory=kind,
            labels={"item": item},
        )

    return flagged(paths) if isinstance(paths, str) else [flagged(p) for p in paths]


def reproduction_sections():
    """What REPRODUCTION.md collects, paper by paper, from the sections the config runs: each
    paper's comparison (or findings) documents and the verdicts.csv written beside them."""
    sections = {key: {"paper": key, "documents": [], "verdicts": []} for key in reproduction.PAPERS}

    def add(key, document, verdicts=None):
        sections[key]["documents"].append(document)
        if verdicts is not None:
            sections[key]["verdicts"].append(verdicts)

    if DIM is not None:
        for paper, key in DIM_PAPER_KEYS.items():
            add(key, f"{DIM_DIR}/{paper}/comparison.md", f"{DIM_DIR}/{paper}/verdicts.csv")
    if "figure2" in HM97:
        add("001", f"{HM97_DIR}/tables/ebnc_dimensions.md", f"{HM97_DIR}/verdicts.csv")
    if "study" in HM97:
        add("001", f"{HM97_DIR}/findings.md")
    if KZ02 is not None:
        add("002", f"{KZ02_DIR}/comparison.md", f"{KZ02_DIR}/verdicts.csv")
    if CH96 is not None:
        add("003", f"{CH96_DIR}/comparison.md", f"{CH96_DIR}/verdicts.csv")
    if MH97 is not None:
        add("004", f"{MH97_DIR}/comparison.md", f"{MH97_DIR}/verdicts.csv")
    if GOLD is not None:
        add("gold_standard", f"{GOLD_DIR}/findings.md", f"{GOLD_DIR}/verdicts.csv")
    return [section for section in sections.values() if section["documents"]]


def reproduction_inputs():
    return [
        path
        for section in reproduction_sections()
        for path in section["documents"] + section["verdicts"]
    ]


def reproduction_outputs():
    return [f"{RESULTS}/REPRODUCTION.md"] if reproduction_sections() else []
