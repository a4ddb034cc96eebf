# Shared set-up: config validation and job seeds.
from snakemake.utils import validate

from hiddenbn import seeding
from hiddenbn.errors import HiddenbnError
from hiddenbn.experiments import chickering_heckerman1996 as ch96


validate(config, schema="../schemas/config.schema.yaml")
RESULTS = config["results_dir"]
LOGS = f"{RESULTS}/logs"
try:
    ch96.check_config(config["chickering_heckerman1996"])
except HiddenbnError as err:
    raise WorkflowError(str(err)) from None


def job_seed(*key):
    """The seed of the job identified by ``key`` (paper, stage, wildcards): see hiddenbn.seeding."""
    return seeding.job_seed(config["seed"], *key)


# --- Chickering & Heckerman (1996), paper 003 ---
CH96 = config["chickering_heckerman1996"]
CH96_DIR = f"{RESULTS}/chickering_heckerman1996"


def ch96_model_spec(model):
    m = CH96["models"][model]
    return ch96.naive_bayes_spec(m["hidden_states"], m["features"])


def ch96_replicates():
    return range(1, CH96["replicates"] + 1)


def ch96_replicate_files(experiment):
    """Data sets of one experiment; ``experiment`` may be a wildcard pattern."""
    return [f"{CH96_DIR}/data/{experiment}/rep{r}.csv" for r in ch96_replicates()]


def chickering_heckerman1996_outputs():
    return [f for e in CH96["experiments"] for f in ch96_replicate_files(e)]


# --- Heckerman & Meek (1997), paper 001 ---
HM97 = config.get("heckerman_meek1997", {})
HM97_DIR = f"{RESULTS}/heckerman_meek1997"


def hm97_jacobian_points():
    """Random points of the EBNC Jacobian-rank check (the dimension section's setting)."""
    return config.get("dimension", {}).get("points", 3)


def heckerman_meek1997_outputs():
    """Figure 1, Figure 2 and the EBNC dimension table, when the config asks for Figure 2."""
    if "figure2" not in HM97:
        return []
    return [
        *multiext(f"{HM97_DIR}/figures/figure1", ".png", ".pdf"),
        *multiext(f"{HM97_DIR}/figures/figure2", ".png", ".pdf"),
        *multiext(f"{HM97_DIR}/tables/ebnc_dimensions", ".csv", ".md"),
    ]
