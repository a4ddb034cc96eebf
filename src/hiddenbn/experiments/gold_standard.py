"""A gold standard for the marginal likelihood, and the questions the papers left open.

Three experiments, each a set of plain functions called by thin Snakemake scripts:

Exact (small data)
    Paper 003's journal setting: naive-Bayes data sets of ``N = 10`` cases from a model with
    two hidden states and 64 binary features. Every test model ``k:2,...,2`` is fitted by paper
    003's EM protocol, scored by :func:`hiddenbn.scores.approximations.score_fit` and
    compared with the exact ``log p(D | S)`` (:mod:`hiddenbn.scores.exact`); the SMC estimate is
    shown beside it as a check of the estimator.
Paper 003's settings
    The data sets and fits of the paper-003 pipeline (same EM, same prior ``alpha = 1.01``)
    are scored against the SMC estimate (:mod:`hiddenbn.scores.smc`) with its standard error: the
    error of each approximation in ``log p(D | S)`` and ``Delta c`` against the gold-standard
    choice, the comparison the paper "could not make" (Sec. 3).
Slopes (paper 000 Sec. 4, paper 002 Sec. 2.3)
    For a model with ``de < ds`` and generic true parameters, ``log p(D | theta_ML) - log p(D)``
    should grow as ``(de / 2) log N`` if paper 000's argument holds, ``(ds / 2) log N`` if the
    standard count is right. Nested data sets (the first ``N`` cases of one sample) for each N;
    the slope is fitted per replicate by least squares on ``log N``. A model with more hidden
    states than the truth is included: singular learning theory (Watanabe) predicts a slope
    (the learning coefficient) below ``de / 2``. For naive Bayes with a binary hidden root and
    three or more binary features, Rusakov & Geiger (2005) give that coefficient exactly, by
    the truth's type (:func:`rusakov_geiger_coefficient`): a third prediction where it
    applies; for a latent class model with more classes than the truth, Drton & Plummer's
    upper bound (:func:`latent_class_bound`, sBIC's). ``log p(D | theta_ML)`` is the ML fit
    (:func:`ml_fit`), beside paper 003's EM protocol whose shortfall grows with N
    (:func:`em_shortfall`). The same fits answer whether CS+ is closer to the gold standard
    than CS (paper 002).
"""

from __future__ import annotations

import itertools
import re
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.stats import norm
from scipy import stats

from hiddenbn.data import Dataset, read_csv
from hiddenbn.data.sampling import forward_sample
from hiddenbn.dimension.effective import effective_dimension, effective_dimension_or_reason
from hiddenbn.errors import HiddenbnError
from hiddenbn.experiments import chickering_heckerman1996
from hiddenbn.experiments.comparison import (posterior_weight_distance,
                                             posterior_weight_distances, shape_distance,
                                             signed_rank_p_value, smallest_p_value)
from hiddenbn.experiments.reproduction import CLAIM_VERDICTS, verdict_row, write_verdicts
from hiddenbn.inference.enumeration import is_latent_class, posterior_chunks
from hiddenbn.learning.em import fit, run_em
from hiddenbn.models.network import Network, load_parameters, random_parameters
from hiddenbn.models.spec import parse_spec
from hiddenbn.reports import plots
from hiddenbn.scores.approximations import bic_log_evidence, score_fit
from hiddenbn.scores.exact import exact_log_evidence
from hiddenbn.scores.integrated_completed_likelihood import hidden_entropy, icl_log_evidence
from hiddenbn.scores.singular_bic import (chain_sbic, default_phi,
                                          latent_class_learning_coefficients)
from hiddenbn.scores.smc import (FEW_RUNS, nested_smc_log_evidence, pooled, smc_log_evidence,
                                 tempered_smc_log_evidence)
from hiddenbn.scores.wbic import wbic_of_fit
from hiddenbn.util import seeding
from hiddenbn.util.files import atomic_output, atomic_write_text
from hiddenbn.util.markdown import general_cell, pipe_table

import matplotlib.pyplot as plt  # noqa: E402 (after hiddenbn.reports.plots selects the Agg backend)
from matplotlib.ticker import MaxNLocator  # noqa: E402

#: The approximations compared with the gold standard, and their labels: paper 003's and
#: paper 002's, then the scores the field uses today (:data:`TODAYS_SCORES`).
SCORES = {"laplace": "Laplace", "cs": "CS", "cs_plus": "CS+", "mled": "MLED",
          "draper": "Draper", "bic_log_evidence": "BIC", "bic_plus_log_evidence": "BIC+",
          "icl_log_evidence": "ICL", "sbic_log_evidence": "sBIC", "wbic_log_evidence": "WBIC"}
#: ICL (Biernacki, Celeux & Govaert 2000), sBIC (Drton & Plummer 2017) and WBIC (Watanabe
#: 2013). Paper 003's assumption that Laplace is the most accurate is judged among the papers'
#: own scores (the others): sBIC is missing where the test models are no chain 1..K, and WBIC
#: outside the exact experiment, so a ranking over all would drop those data sets.
TODAYS_SCORES = ("icl_log_evidence", "sbic_log_evidence", "wbic_log_evidence")
#: The papers' own scores: :data:`SCORES` less :data:`TODAYS_SCORES`.
PAPERS_SCORES = tuple(score for score in SCORES if score not in TODAYS_SCORES)
#: Paper 002's scores and the scores they correct: equal wherever ``de = ds``.
PLUS_OF = {"cs_plus": "cs", "bic_plus_log_evidence": "bic_log_evidence"}
#: Share of its runs that an estimate must rest on (effective runs) for the runs to agree: half:
#: then the spread of the runs measures the estimate's error, not how far the other runs fell).
AGREEING_SHARE = 0.5
#: Standard errors of the difference by which twice the particles move an estimate of a
#: converged gold standard no more than by chance: the project's noise line. Its two-sided
#: rate is shared out over an experiment's re-estimated values (:func:`doubled_particles`).
DOUBLING_NOISE_SE = 2.0
#: Standard errors within which a fitted slope is consistent with a predicted one.
VERDICT_SE = 2.0
#: Significance level of a paired test behind a claim about today's scores.
CLAIM_LEVEL = 0.05


#: The column of sBIC at a prior parameter ``phi`` other than the ``sBIC`` package's default
#: (``sbic_log_evidence``'s): ``sbic_phi_1.01_log_evidence`` (:func:`sbic_score`), or at a
#: fraction of that default, ``sbic_phi_0.5x_log_evidence`` (:func:`sbic_fraction_score`).
SBIC_VARIANT = re.compile(r"sbic_phi_(.+)_log_evidence")
#: How a fraction of the package's default phi reads in a label: "0.5 (d₁ + 1)/2".
DEFAULT_PHI_TEXT = "(d₁ + 1)/2"


def sbic_score(phi: float) -> str:
    """The column of sBIC at the prior parameter ``phi`` (:data:`SBIC_VARIANT`)."""
    return f"sbic_phi_{phi:g}_log_evidence"


def sbic_fraction_score(fraction: float) -> str:
    """The column of sBIC at ``fraction`` times the ``sBIC`` package's default phi
    (:func:`hiddenbn.scores.singular_bic.default_phi`; :data:`SBIC_VARIANT`)."""
    return f"sbic_phi_{fraction:g}x_log_evidence"


def sbic_variant(column) -> tuple[float, bool] | None:
    """What the sBIC column ``column`` (:data:`SBIC_VARIANT`) is computed at: ``(phi, False)``
    at the prior parameter phi (:func:`sbic_score`), ``(fraction, True)`` at a fraction of the
    package's default (:func:`sbic_fraction_score`); None for any other column."""
    match = SBIC_VARIANT.fullmatch(str(column))
    if match is None:
        return None
    fraction = match[1].endswith("x")
    return float(match[1].removesuffix("x")), fraction


def sbic_variants(frame: pd.DataFrame) -> list[str]:
    """The columns of ``frame`` that hold sBIC at a further phi (:func:`sbic_variant`)."""
    return [column for column in frame if sbic_variant(column) is not None]


def score_labels(frame: pd.DataFrame) -> dict:
    """Every score ``frame`` has a column for, with its label: those of :data:`SCORES`, and
    after sBIC (the package's default phi) sBIC at each further phi, "sBIC φ = 1.01" or
    "sBIC φ = 0.5 (d₁ + 1)/2" (:func:`sbic_variant`)."""
    variants = {}
    for column in sbic_variants(frame):
        value, fraction = sbic_variant(column)
        variants[column] = (f"{SCORES['sbic_log_evidence']} φ = {value:g}"
                            + (f" {DEFAULT_PHI_TEXT}" if fraction else ""))
    labels = {}
    for score, label in SCORES.items():
        if score in frame:
            labels[score] = label
        if score == "sbic_log_evidence":
            labels |= variants
    return labels


def distinct_scores(frame: pd.DataFrame, among=None, variants: bool = False) -> dict:
    """The scores of :data:`SCORES` that ``frame`` tells apart, with their labels: CS+ (BIC+)
    equals CS (BIC) wherever ``de = ds`` (paper 002's correction ``(ds - de)/2 log N`` is
    zero); where it does in every row the two are one score, labelled "CS = CS+". A score
    missing from every row (WBIC outside the exact experiment) is left out; ``among`` (default
    all of :data:`SCORES`) limits the scores; ``variants`` adds sBIC at the further phi of
    :func:`score_labels` (tables show them; figures do not draw them)."""
    labels = {score: label for score, label in score_labels(frame).items()
              if (among is None or score in among) and (variants or score in SCORES)
              and frame[score].notna().any()}
    for plus, base in PLUS_OF.items():
        if plus in labels and base in labels and np.array_equal(
                frame[plus].to_numpy(float), frame[base].to_numpy(float), equal_nan=True):
            del labels[plus]
            labels[base] = f"{SCORES[base]} = {SCORES[plus]}"
    return labels


def present_scores(frame: pd.DataFrame) -> list:
    """The scores that ``frame`` has a column for (:func:`score_labels`)."""
    return list(score_labels(frame))


# --- configuration ---------------------------------------------------------------------------
def check_config(section: dict, paper003_section: dict | None) -> None:
    """Check what the JSON schema cannot: the paper-003 parts name experiments of
    ``paper003_section`` (the config's chickering_heckerman1996 section, whose data sets and EM
    settings they use) and ask for no more replicates than it has, the doubled-particles data
    sets are among the large-c ones; the slope settings' truth and model are specs.

    Raises :class:`~hiddenbn.errors.HiddenbnError` naming the offending key.
    """
    if paper003_section is None:
        raise HiddenbnError("config gold_standard needs the chickering_heckerman1996 section: it "
                            "scores that paper's data sets with its EM settings")
    paper003 = section["paper003"]
    for key, part in (("paper003", paper003), ("paper003.large_c", paper003.get("large_c"))):
        if part is None:
            continue
        for experiment in part["experiments"]:
            if experiment not in paper003_section["experiments"]:
                raise HiddenbnError(
                    f"config gold_standard.{key}.experiments: unknown experiment {experiment!r}; "
                    "use names under chickering_heckerman1996.experiments "
                    f"({', '.join(paper003_section['experiments'])})")
        if part["replicates"] > paper003_section["replicates"]:
            raise HiddenbnError(
                f"config gold_standard.{key}.replicates: {part['replicates']} exceeds "
                f"chickering_heckerman1996.replicates ({paper003_section['replicates']})")
    wbic_draws = section.get("exact", {}).get("wbic_draws", 0)
    if 0 < wbic_draws < 4:
        raise HiddenbnError(f"config gold_standard.exact.wbic_draws: {wbic_draws} draws per "
                            "chain are too few "
                            "(each chain is split in two for R-hat); give at least 4, or 0 "
                            "for no WBIC")
    large_c = paper003.get("large_c") or {}
    if large_c.get("doubled_particles_replicates", 0) > large_c.get("replicates", 0):
        raise HiddenbnError(
            "config gold_standard.paper003.large_c.doubled_particles_replicates: "
            f"{large_c['doubled_particles_replicates']} exceeds large_c.replicates "
            f"({large_c.get('replicates', 0)}); the doubled estimates repeat those data sets")
    for name, setting in section["slope"]["settings"].items():
        for role in ("truth", "model"):
            try:
                parse_spec(setting[role])
            except HiddenbnError as err:
                raise HiddenbnError(f"config gold_standard.slope.settings.{name}.{role}: {err}") \
                    from None


def gold_standard(network: Network, data: Dataset, seed: int, alpha: float, smc: dict,
                  tempering: dict | None = None):
    """The SMC estimate of ``log p(D | S)`` as the columns ``gold``, ``gold_se``,
    ``gold_effective_runs`` (how many runs carry the estimate:
    :attr:`hiddenbn.scores.smc.MonteCarloEvidence.effective_runs`), ``gold_runs``,
    ``gold_particles`` and ``gold_sampler``: over the cases (``smc``'s runs, particles and sweeps;
    :func:`hiddenbn.scores.smc.smc_log_evidence`), or given ``tempering`` (its particles and sweeps)
    half of ``smc``'s runs over the cases and half by tempering
    (:func:`hiddenbn.scores.smc.tempered_smc_log_evidence`), pooled
    (:func:`hiddenbn.scores.smc.pooled`): where the data's clusters outnumber the hidden states each
    sampler misses modes the other finds, 10-60 nats' worth on paper 003's c = 16 data (``python -m
    benchmarks evidence``); ``gold_seconds``, the CPU time it took."""
    start = time.process_time()
    if tempering is None:
        result = smc_log_evidence(network, data, np.random.default_rng(seed), alpha,
                                  runs=smc["runs"], particles=smc["particles"],
                                  moves=smc.get("moves", 1))
    else:
        over_cases, by_tempering = np.random.default_rng(seed).spawn(2)
        runs = max(smc["runs"] // 2, 2)  # the runs shared between the samplers
        result = pooled([
            smc_log_evidence(network, data, over_cases, alpha, runs=runs,
                             particles=smc["particles"], moves=smc.get("moves", 1)),
            tempered_smc_log_evidence(network, data, by_tempering, alpha, runs=runs,
                                      particles=tempering["particles"],
                                      moves=tempering.get("moves", 1))])
    return {**_gold_columns(result, "cases and tempering" if tempering else "cases"),
            "gold_seconds": time.process_time() - start}


def _gold_columns(result, sampler: str) -> dict:
    return {"gold": result.log_evidence, "gold_se": result.standard_error,
            "gold_effective_runs": result.effective_runs, "gold_runs": result.runs,
            "gold_particles": result.particles, "gold_sampler": sampler}


def nested_gold_standard(network: Network, data: list, seed: int, alpha: float, smc: dict):
    """:func:`gold_standard` of each of nested data sets (prefixes of one sample, smallest
    first), from one SMC pass over the largest
    (:func:`hiddenbn.scores.smc.nested_smc_log_evidence`)."""
    results = nested_smc_log_evidence(network, data, np.random.default_rng(seed), alpha,
                                      runs=smc["runs"], particles=smc["particles"],
                                      moves=smc.get("moves", 1))
    return [_gold_columns(result, "cases") for result in results]


def _with_plus_scores(row: dict, n_cases: int) -> dict:
    """BIC+ from the fit's log-likelihood and ``de``; CS+ is the paper-003 pipeline's cs_de."""
    row["bic_plus_log_evidence"] = bic_log_evidence(row["log_likelihood"], row["de"], n_cases)
    row["cs_plus"] = row.get("cs_de", np.nan)
    return row


# --- exact (small data) ----------------------------------------------------------------------
def exact_cell(section: dict, em: dict, prior_alpha: float, smc: dict, seed: int) -> pd.DataFrame:
    """One replicate of the exact experiment: every test model's scores, exact and SMC values.

    ICL is the fit's (:func:`hiddenbn.scores.integrated_completed_likelihood.icl_log_evidence`);
    with ``section["wbic_draws"]`` (draws per chain) WBIC
    (:func:`hiddenbn.scores.wbic.wbic_of_fit`) and its Monte-Carlo standard error, split-R-hat,
    effective draws and CPU seconds (:data:`WBIC_COLUMNS`). sBIC needs every test model's fit
    and is added by :func:`with_sbic` in the report."""
    generating = chickering_heckerman1996.naive_bayes_spec(section["hidden_states"],
                                                           section["features"])
    truth = parse_spec(generating)
    rng = seeding.rng(seed, "data")
    cpts = random_parameters(truth, rng, 1.0)
    data = Dataset.from_rows(truth.observed_names,
                             forward_sample(truth, cpts, section["cases"], rng),
                             truth.observed_cardinalities)
    rows = []
    for k in range(section["test_states"]["min"], section["test_states"]["max"] + 1):
        network = parse_spec(chickering_heckerman1996.naive_bayes_spec(k, section["features"]))
        # de missing (too large to rank): BIC+ and CS+ are missing too
        de = (network.standard_dimension if k == 1
              else effective_dimension_or_reason(network, 3, seed)[0])
        result = fit(network, data, seeding.rng(seed, "em", k), prior_alpha, em["restarts"],
                     em["max_iterations"], em["tolerance"], "halving",
                     run_all_iterations=em["run_all_iterations"], convergence="relative",
                     acceleration="none")
        scores = score_fit(result, data, de)
        scores["icl_log_evidence"] = icl_log_evidence(
            scores["bic_log_evidence"], hidden_entropy(network, result.cpts, data)[0])
        if section.get("wbic_draws"):
            start = time.process_time()
            estimate = wbic_of_fit(result, data, seeding.rng(seed, "wbic", k),
                                   draws=section["wbic_draws"])
            scores |= {"wbic_log_evidence": estimate.wbic_log_evidence,
                       "wbic_se": estimate.standard_error, "wbic_rhat": estimate.rhat,
                       "wbic_ess": estimate.effective_sample_size,
                       "wbic_seconds": time.process_time() - start}
        exact = exact_log_evidence(network, data, prior_alpha)
        gold = gold_standard(network, data, seeding.job_seed(seed, "smc", k), prior_alpha, smc)
        rows.append({"hidden_states": k, "d": network.standard_dimension,
                     "log_likelihood": result.log_likelihood,
                     "log_posterior": result.log_posterior, "converged": result.converged,
                     "iterations": result.iterations, "de": np.nan if de is None else float(de),
                     "laplace_positive_definite": scores.get("laplace_positive_definite", False),
                     **{score: scores.get(score, np.nan) for score in SCORES
                        if score in PAPERS_SCORES or score in scores},
                     **{column: scores[column] for column in WBIC_COLUMNS if column in scores},
                     "features": section["features"], "cases": data.n_cases,
                     "exact": exact.log_evidence,
                     "exact_states": exact.peak_states, **gold})
    return pd.DataFrame(rows)


#: WBIC's diagnostics beside its value in the exact experiment's table: Monte-Carlo standard
#: error, split-R-hat, effective draws, CPU seconds.
WBIC_COLUMNS = ("wbic_se", "wbic_rhat", "wbic_ess", "wbic_seconds")


def one_class_log_likelihood(data: Dataset, features: int, alpha: float) -> float:
    """``log p(D | theta)`` of the latent class model with one class over ``features`` binary
    items at its MAP under Dirichlet(``alpha``) rows, as the other test models are fitted:
    the items are independent, so the mode is closed-form, ``theta_jk = (n_jk + alpha - 1) /
    (N + r_j (alpha - 1))`` (no EM)."""
    data = data.for_network(parse_spec(chickering_heckerman1996.naive_bayes_spec(1, features)))
    total = 0.0
    for column in range(features):
        counts = np.bincount(data.patterns[:, column], weights=data.counts, minlength=2)
        theta = (counts + alpha - 1) / (counts.sum() + counts.size * (alpha - 1))
        total += float(counts[counts > 0] @ np.log(theta[counts > 0]))
    return total


def with_sbic(frame: pd.DataFrame, keys, phis=(), fractions=()) -> pd.DataFrame:
    """``frame`` with ``sbic_log_evidence``, the sBIC of each group's (``keys``) test models
    (:func:`hiddenbn.scores.singular_bic.chain_sbic`) at the ``sBIC`` package's default
    phi, at each of ``phis`` (columns :func:`sbic_score`) and at each of ``fractions`` of
    that default, which scales with the group's items (columns :func:`sbic_fraction_score`).
    sBIC needs the whole chain of latent class models ``1..K``: a group whose test models
    start at 2 takes the one-class model's log-likelihood from ``one_class_log_likelihood``
    (closed-form, :func:`one_class_log_likelihood`); one that starts higher, or skips a model,
    gets none (NaN)."""
    frame = frame.copy()
    # the phi of each column, given the items: None is the package's default
    columns = ({"sbic_log_evidence": lambda items: None}
               | {sbic_score(phi): lambda items, phi=phi: phi for phi in phis}
               | {sbic_fraction_score(f): lambda items, f=f: f * default_phi(items)
                  for f in fractions})
    for column in columns:
        frame[column] = np.nan
    for _, group in frame.groupby(keys):
        group = group.sort_values("hidden_states")
        states = list(group["hidden_states"])
        log_likelihoods = list(group["log_likelihood"])
        if states[0] == 2 and "one_class_log_likelihood" in group:
            states.insert(0, 1)
            log_likelihoods.insert(0, group["one_class_log_likelihood"].iloc[0])
        items = [2] * int(group["features"].iloc[0])
        if not np.all(np.isfinite(log_likelihoods)):
            continue
        for column, phi in columns.items():
            values = chain_sbic(states, log_likelihoods, items, int(group["cases"].iloc[0]),
                                phi(items))
            if values is not None:
                frame.loc[group.index, column] = values[len(values) - len(group):]
    return frame


# --- paper 003's settings --------------------------------------------------------------------
def paper_cell(data_file, fits_file, features: int, prior_alpha: float, smc: dict,
               seed: int, generating_states: int | None = None, part: int = 1,
               parts: int = 1, tempering: dict | None = None,
               model_file=None) -> pd.DataFrame:
    """The paper-003 pipeline's fits of one data set (every protocol), with the SMC gold
    standard added: one estimate per test model, shared by its fits (log p(D | S) does not
    depend on the fit). Test models with fewer hidden states than ``generating_states`` are
    estimated over the cases and by tempering when ``tempering`` is given
    (:func:`gold_standard`: there the runs of either sampler end tens of nats apart), the
    others over the cases; the choice spends the effort where it is needed and changes nothing
    that is estimated. With ``parts > 1`` only every ``parts``-th test model from the
    ``part``-th (interleaved, so the parts cost alike); each estimate's seed depends on its
    test model alone, so the split does not change a result. ``model_file`` (the generating
    parameters) adds ``generating_entropy``, the posterior entropy of the hidden class summed
    over the cases under them.

    ICL is added from the fit's scores: ``icl_log_evidence = BIC - E`` with ``E``, the
    classification entropy, equal to ``CS - MLED`` (paper 003 Eqs. 12-13 with ``d' = d``:
    ``log p(D | theta) - log p(D' | theta)``;
    :mod:`hiddenbn.scores.integrated_completed_likelihood`);
    ``one_class_log_likelihood`` (:func:`one_class_log_likelihood`) lets :func:`with_sbic`
    complete the chain 1..K."""
    data = read_csv(data_file, base=0)  # codes 0..r-1, as sampled
    fits = pd.read_csv(fits_file)
    test_models = np.sort(fits["hidden_states"].unique())
    fits = fits[fits["hidden_states"].isin(test_models[part - 1::parts])]
    generating_entropy = (np.nan if model_file is None or generating_states is None else
                          class_entropy(data, generating_states, features, model_file))
    one_class = one_class_log_likelihood(data, features, prior_alpha)
    gold = {}
    rows = []
    for row in fits.to_dict("records"):
        states = int(row["hidden_states"])
        if states not in gold:
            network = parse_spec(chickering_heckerman1996.naive_bayes_spec(states, features))
            tempered = (tempering is not None and generating_states is not None
                        and states < generating_states)
            gold[states] = gold_standard(network, data, seeding.job_seed(seed, states),
                                         prior_alpha, smc, tempering if tempered else None)
        row = _with_plus_scores(row, data.n_cases)
        row["icl_log_evidence"] = (row.get("bic_log_evidence", np.nan)
                                   - (row.get("cs", np.nan) - row.get("mled", np.nan)))
        row["one_class_log_likelihood"] = one_class
        row.update(gold[states])
        row.update(features=features, cases=data.n_cases,
                   generating_states=generating_states, generating_entropy=generating_entropy)
        rows.append(row)
    return pd.DataFrame(rows)


def class_entropy(data: Dataset, states: int, features: int, model_file) -> float:
    """``sum_l H[p(h | x_l)]`` (nats) under the naive-Bayes parameters in ``model_file``:
    how much the classes of that model overlap on ``data``."""
    network = parse_spec(chickering_heckerman1996.naive_bayes_spec(states, features))
    cpts = load_parameters(model_file, network)
    data = data.for_network(network)
    total = 0.0
    for rows, _, weights, _ in posterior_chunks(network, cpts, data.patterns):
        with np.errstate(divide="ignore", invalid="ignore"):
            entropy = -np.where(weights > 0, weights * np.log(weights), 0.0).sum(axis=1)
        total += float(entropy @ data.counts[rows])
    return total


# --- slopes ----------------------------------------------------------------------------------
def slope_cell(setting: dict, sizes, prior_alpha: float, em: dict, ml_em: dict, smc: dict,
               points: int, seed: int) -> pd.DataFrame:
    """One replicate of a slope setting: for each N, the ML fit, BIC/CS (+) and the gold standard.

    ``setting`` has ``truth`` and ``model`` specs and optionally its own ``sample_sizes`` (which
    replace ``sizes``: the gold standard of a model with many hidden configurations costs more
    per case); the truth's parameters are drawn from the uniform Dirichlet (generic) and one
    sample of ``max(sizes)`` cases is cut into prefixes, whose gold standards come from one SMC
    pass over the whole sample (:func:`nested_gold_standard`).

    The slope needs ``log p(D | theta_ML)`` itself: EM stopped by a relative tolerance stops
    short by more nats the larger N (``|g|`` grows with N), which would flatten the slope. So
    the fit at ``em`` (paper 003's halving schedule; column ``em_log_likelihood``) is set
    beside the ML fit (``log_likelihood``, scored): the best of every one of ``em``'s restarts
    run to ``ml_em``'s tolerance and, where the model is the truth's structure, EM from the
    true parameters (column ``ml_start``: ``restarts`` or ``truth``); ``ml_gain`` is what the
    ML fit gained over the fit at ``em``.
    """
    sizes = setting.get("sample_sizes", sizes)
    truth, model = parse_spec(setting["truth"]), parse_spec(setting["model"])
    rng = seeding.rng(seed, "data")
    cpts = random_parameters(truth, rng, 1.0)
    sample = forward_sample(truth, cpts, max(sizes), rng)
    de = effective_dimension(model, points=points, seed=seed)
    sizes = sorted(sizes)
    prefixes = [Dataset.from_rows(truth.observed_names, sample[:n], truth.observed_cardinalities)
                for n in sizes]
    # one SMC pass over the whole sample estimates every prefix's log p(D)
    golds = nested_gold_standard(model, prefixes, seeding.job_seed(seed, "smc"), prior_alpha, smc)
    rows = []
    for n, data, gold in zip(sizes, prefixes, golds):
        loose = fit(model, data, seeding.rng(seed, "em", n), prior_alpha,
                    em["restarts"], em["max_iterations"], em["tolerance"], "halving",
                    convergence="relative", acceleration="none")
        result, start = ml_fit(model, data, seeding.rng(seed, "em", n), prior_alpha,
                               em["restarts"], ml_em,
                               cpts if truth == model else None)
        scores = score_fit(result, data, de, with_laplace=False)
        rows.append({"cases": n, "ds": model.standard_dimension, "de": de,
                     "log_likelihood": result.log_likelihood, "converged": result.converged,
                     "em_log_likelihood": loose.log_likelihood,
                     "ml_gain": result.log_likelihood - loose.log_likelihood, "ml_start": start,
                     **gold,
                     **{name: scores[name] for name in ("bic_log_evidence",
                                                       "bic_plus_log_evidence", "cs", "cs_plus",
                                                       "mled", "draper")}})
    return pd.DataFrame(rows)


def ml_fit(model: Network, data: Dataset, rng, prior_alpha: float, restarts: int, ml_em: dict,
           truth_cpts=None):
    """The ML fit the slope experiment scores, and which start gave it: ``restarts`` random
    starts each run to ``ml_em``'s relative ``tolerance`` (or its ``max_iterations``) and the
    best kept, and, given ``truth_cpts`` (the true parameters, in ``model``'s layout), EM from
    them to the same tolerance, where the mode near the truth may lie outside the restarts'
    reach. Returns ``(fit, "restarts" or "truth")``."""
    # no paper's protocol but the mode itself, which SQUAREM reaches in fewer iterations
    best = fit(model, data, rng, prior_alpha, restarts, ml_em["max_iterations"],
               ml_em["tolerance"], "best-of-n", convergence="relative", acceleration="squarem")
    if truth_cpts is None:
        return best, "restarts"
    from_truth = run_em(model, data, truth_cpts, prior_alpha, ml_em["max_iterations"],
                        ml_em["tolerance"], convergence="relative", acceleration="squarem")
    if from_truth.log_likelihood > best.log_likelihood:
        return from_truth, "truth"
    return best, "restarts"


def _slope(group: pd.DataFrame) -> float:
    x = np.log(group["cases"].to_numpy(float))
    y = (group["log_likelihood"] - group["gold"]).to_numpy(float)
    return float(np.polyfit(x, y, 1)[0])


def fitted_slopes(slopes: pd.DataFrame, rusakov_geiger: dict | None = None,
                  bounds: dict | None = None) -> pd.DataFrame:
    """Least-squares slope of ``log p(D | theta_ML) - log p(D)`` on ``log N`` per replicate,
    over all sizes and over the larger half of them (the asymptotic end), with mean and
    standard error over replicates per setting, beside ``ds / 2`` and ``de / 2``, and, when
    ``rusakov_geiger`` maps settings to :func:`rusakov_geiger_coefficients`' pairs, beside
    Rusakov & Geiger's coefficient (column ``rusakov_geiger``, empty where it does not apply),
    and when ``bounds`` maps them to :func:`latent_class_bounds`' pairs, beside Drton &
    Plummer's upper bound (column ``latent_class_bound``)."""
    upper = {}
    for setting, group in slopes.groupby("setting"):
        sizes = np.sort(group["cases"].unique())
        upper[setting] = sizes[len(sizes) // 2:] if len(sizes) >= 4 else sizes
    per_replicate = []
    for (setting, replicate), group in slopes.groupby(["setting", "replicate"]):
        per_replicate.append({"setting": setting, "replicate": replicate,
                              "slope": _slope(group),
                              "slope_upper": _slope(group[group["cases"].isin(upper[setting])])})
    per_replicate = pd.DataFrame(per_replicate)
    rows = []
    for setting, group in per_replicate.groupby("setting"):
        first = slopes[slopes["setting"] == setting].iloc[0]
        count = len(group)
        row = {"setting": setting, "replicates": count}
        for column in ("slope", "slope_upper"):
            row[column] = group[column].mean()
            row[f"{column}_se"] = (group[column].std(ddof=1) / np.sqrt(count) if count > 1
                                   else np.nan)
        row.update({"upper_from_N": int(upper[setting][0]), "ds_half": first["ds"] / 2,
                    "de_half": first["de"] / 2})
        for column, values in (("rusakov_geiger", rusakov_geiger),
                               ("latent_class_bound", bounds)):
            if values is not None:
                value, _ = values.get(setting, (None, ""))
                row[column] = np.nan if value is None else value
        rows.append(row)
    return pd.DataFrame(rows)


def slope_tolerance(replicates: int | None = None) -> tuple[float, str]:
    """Standard errors within which a slope is consistent with a prediction, and how to say
    so: with ``replicates`` (the SE is their spread, on ``replicates - 1`` degrees of
    freedom) Student's t quantile at 97.5%, which at two or three replicates is far wider than
    the normal 2; without, :data:`VERDICT_SE`."""
    if replicates is None or replicates < 2:
        return VERDICT_SE, f"{VERDICT_SE:g} SE"
    multiplier = float(stats.t.ppf(0.975, replicates - 1))
    return multiplier, f"{multiplier:.2f} SE, t with {replicates - 1} df"


def consistent_slope(slope: float, se: float, predicted: float,
                     replicates: int | None = None) -> bool:
    """Whether a measured slope is within :func:`slope_tolerance` standard errors of a
    prediction."""
    return abs(slope - predicted) <= slope_tolerance(replicates)[0] * se


def slope_verdict(slope: float, se: float, ds_half: float, de_half: float,
                  replicates: int | None = None) -> str:
    """Which predicted slope a measured one is consistent with (:func:`slope_tolerance`)."""
    words = slope_tolerance(replicates)[1]
    consistent = [name for name, value in (("de/2", de_half), ("ds/2", ds_half))
                  if consistent_slope(slope, se, value, replicates)]
    if consistent:
        return "consistent with " + " and ".join(consistent) + f" ({words})"
    side = "below" if slope < min(de_half, ds_half) else (
        "above" if slope > max(de_half, ds_half) else "between")
    return f"{side} both de/2 and ds/2 by more than {words}"


def rusakov_geiger_verdict(slope: float, se: float, coefficient: float,
                           replicates: int | None = None) -> str:
    """Whether a measured slope is consistent with our coefficient after Rusakov & Geiger
    (:func:`rusakov_geiger_coefficient`, "our R-G coefficient"), by the rule of
    :func:`slope_verdict`."""
    words = slope_tolerance(replicates)[1]
    if consistent_slope(slope, se, coefficient, replicates):
        return f"consistent with our R-G coefficient {coefficient:g} ({words})"
    side = "below" if slope < coefficient else "above"
    return f"{side} our R-G coefficient {coefficient:g} by more than {words}"


def not_binary_naive_bayes(network: Network) -> str | None:
    """Why ``network`` is not naive Bayes with one binary hidden root whose children are its
    binary observed nodes, each with that root as its only parent; None when it is."""
    hidden = network.hidden_indices
    if network.kind != "discrete" or len(hidden) != 1:
        return f"it has {len(hidden)} hidden nodes" if network.kind == "discrete" \
            else f"it is {network.kind}"
    root = int(hidden[0])
    if network.parents[root] or network.cardinalities[root] != 2:
        return f"its hidden node has {network.cardinalities[root]} states" \
            if not network.parents[root] else "its hidden node has parents"
    if any(network.parents[i] != (root,) or network.cardinalities[i] != 2
           or network.functions[i] is not None for i in network.observed_indices):
        return "its observed nodes are not binary children of the hidden root alone"
    return None


def rusakov_geiger_coefficient(truth: Network, model: Network,
                               prior_alpha: float) -> tuple[float | None, str]:
    """Our coefficient of ``log N`` in ``log p(D | theta_ML) - log p(D)`` for data from
    ``truth`` fitted by ``model``, after Rusakov & Geiger, or None and why it does not apply.

    Rusakov & Geiger (2005, JMLR 6, Theorem 4, as we read it) give ``log p(D | M)`` to
    ``O(1)`` for naive Bayes with a binary hidden root and ``n >= 3`` binary features, by the
    type of the true distribution; the paper's text is not among those this project has, so
    the values below are ours, computed as described, and not checked against its statement.
    The types a slope setting can draw (its truth's parameters come from the uniform
    Dirichlet, so they are generic within the truth's structure), with the uniform prior
    (``prior_alpha = 1``):

    * three or more features depend on the root (a regular point): ``(2n + 1) / 2 = ds / 2``;
    * exactly two features depend on it (a singular point; the others are independent):
      ``(2n - 1) / 2``;
    * the root has no effect (at most one feature depends on it, so the features are
      independent; a model with more hidden states than the truth): ``(n + 1) / 2``.

    The values were not copied from the paper (whose statement for ``n >= 3`` we could not
    read) but computed: the slope of ``-log Z(N)``, ``Z(N) = int exp(-N K(w)) dw`` with ``K``
    the Kullback-Leibler divergence from the truth, is ``N E_N[K]`` under the tempered
    posterior, which parallel tempering estimates to ``N = 10^6``; it meets the exact evidence
    (:func:`hiddenbn.scores.exact.exact_log_evidence`, at data with counts ``N p(x)``) at
    ``N <= 160`` and levels off at these values for ``n = 3`` and ``4`` (three and four of four
    features both give 4.5; ``benchmarks/bench_rusakov_geiger.py``, a small version in
    ``tests/test_rusakov_geiger.py``). They are Watanabe's learning coefficients at these
    truths: the root with no effect is the over-fitted case, where an empty class costs ``1/2``
    (the uniform prior on its weight) beside the ``n / 2`` of the features' margins. Two
    features depending on the root approach theirs from above: at ``n = 4`` the local slope
    rises to 4.2 near ``N = 200`` before it falls to 3.5 (by ``N = 10^4``).

    Not covered: other models (more hidden states, features with more states, other
    structures), ``n < 3``, other priors (a Dirichlet prior that vanishes or diverges where a
    class empties changes the root-without-effect value), and truths outside the model (more
    hidden states, dependence among the features other than through the root).

    Returns
    -------
    tuple
        ``(coefficient, type of the truth)`` or ``(None, why it does not apply)``.
    """
    reason = not_binary_naive_bayes(model)
    n = len(model.observed_indices)
    if reason is not None or n < 3:
        return None, f"the model is not binary naive Bayes: {reason}" if reason \
            else f"the model has {n} features, not 3 or more"
    if set(truth.observed_names) != set(model.observed_names):
        return None, "the truth's observed nodes are not the model's"
    if prior_alpha != 1.0:
        return None, f"the prior is not uniform (prior_alpha = {prior_alpha:g})"
    observed = truth.observed_indices
    if truth.kind != "discrete" or any(function is not None for function in truth.functions) \
            or any(truth.cardinalities[i] != 2 or not all(truth.hidden[p] for p in truth.parents[i])
                   for i in observed):
        return None, "the truth's binary features do not depend on hidden nodes alone"
    varying = {i for i in truth.hidden_indices if truth.cardinalities[i] > 1}
    dependent = [i for i in observed if varying & set(truth.parents[i])]
    if len(dependent) <= 1:
        return (n + 1) / 2, "the hidden root has no effect (independent features)"
    root = min(varying)
    if varying != {root} or truth.cardinalities[root] != 2 or truth.parents[root]:
        return None, "the truth is of no type checked here"
    if len(dependent) == 2:
        # the benchmark's ideal truth nears it from above: a slope below it agrees less than
        # a verdict of "consistent" suggests
        return (2 * n - 1) / 2, "exactly two features depend on the hidden root; at an ideal " \
                                "truth the slope at finite N lies above it (our benchmark)"
    return (2 * n + 1) / 2, f"{len(dependent)} of {n} features depend on the hidden root " \
                            "(a regular point)"


def rusakov_geiger_coefficients(settings: dict, prior_alpha: float) -> dict:
    """:func:`rusakov_geiger_coefficient` of each slope setting (``gold_standard.slope.settings``),
    by name."""
    return {name: rusakov_geiger_coefficient(parse_spec(setting["truth"]),
                                             parse_spec(setting["model"]), prior_alpha)
            for name, setting in settings.items()}


def latent_class_bound(truth: Network, model: Network,
                       prior_alpha: float) -> tuple[float | None, str]:
    """Drton & Plummer's (2017, Sec. 6.3) upper bound on the coefficient of ``log N`` in
    ``log p(D | theta_ML) - log p(D)`` (the learning coefficient) for data from a latent class
    model of ``j`` classes fitted by one of ``i > j`` classes over the same items, or None and
    why it does not apply.

    The bound is :func:`hiddenbn.scores.singular_bic.latent_class_learning_coefficients`'
    ``lambda_ij`` at ``phi = prior_alpha``: the symmetric Dirichlet prior of every CPT row is
    ``Dirichlet(phi)`` on the class weights, the prior the bound is stated for. That is not
    the phi of sBIC in this experiment (:func:`with_sbic`: the sBIC package's
    :func:`~hiddenbn.scores.singular_bic.default_phi`, ``(d_1 + 1) / 2``), whose bound the
    note gives beside it. Each of the ``i - j`` surplus classes costs at most
    ``min(phi, d_1) / 2`` beside the truth's ``j d_1 + j - 1`` parameters, so the bound lies
    below ``ds / 2``; where our coefficient after Rusakov & Geiger is known too (one class
    fitted by two, binary items) the two agree
    (``(n + 1) / 2`` at ``phi = 1``). ``j`` is the truth's number of classes: its parameters
    are generic (uniform Dirichlet), so no fewer classes give the same distribution.

    Returns
    -------
    tuple
        ``(bound, what it bounds)`` or ``(None, why it does not apply)``.
    """
    if not (is_latent_class(truth) and is_latent_class(model)):
        return None, "the truth or the model is not a latent class model"
    if (truth.observed_names, truth.observed_cardinalities) != \
            (model.observed_names, model.observed_cardinalities):
        return None, "the truth's items are not the model's"
    classes, true_classes = model.cardinalities[0], truth.cardinalities[0]
    if true_classes >= classes:
        return None, f"the truth has {true_classes} classes, not fewer than the model's {classes}"
    bounds = latent_class_learning_coefficients(classes, model.observed_cardinalities,
                                                prior_alpha)
    phi = default_phi(model.observed_cardinalities)
    at_default = latent_class_learning_coefficients(classes, model.observed_cardinalities, phi)
    return (float(bounds[classes - 1, true_classes - 1]),
            f"{classes} classes fitted to a truth of {true_classes}: an upper bound; "
            f"{at_default[classes - 1, true_classes - 1]:g} at the sBIC package's phi = "
            f"{phi:g}")


def latent_class_bounds(settings: dict, prior_alpha: float) -> dict:
    """:func:`latent_class_bound` of each slope setting (``gold_standard.slope.settings``), by
    name."""
    return {name: latent_class_bound(parse_spec(setting["truth"]),
                                     parse_spec(setting["model"]), prior_alpha)
            for name, setting in settings.items()}


def bound_verdict(slope: float, se: float, bound: float, replicates: int | None = None) -> str:
    """Whether a measured slope respects an upper bound on its coefficient: at or below it, or
    above it by more than :func:`slope_tolerance` standard errors (the bound fails)."""
    tolerance, words = slope_tolerance(replicates)
    if slope <= bound + tolerance * se:
        return f"at or below Drton-Plummer's bound {bound:g} ({words})"
    return f"above Drton-Plummer's bound {bound:g} by more than {words}"


# --- selection and accuracy ------------------------------------------------------------------
#: Combined standard errors within which a test model's gold-standard estimate counts as level
#: with the best one: the gold standard's choice is the set of those models
#: (:func:`gold_set`), not its maximum alone. Where its curve is a plateau (large c) the
#: maximum of noisy estimates is not a choice the estimates can make.
GOLD_SET_SE = 2.0


def gold_set(gold, gold_se, set_se: float = GOLD_SET_SE) -> np.ndarray:
    """Which test models (a boolean mask over ``gold``) the gold standard chooses: those whose
    estimate lies within ``set_se`` (:data:`GOLD_SET_SE`) combined standard errors
    (``hypot(se_best, se_k)``) of the largest, the largest included."""
    gold, gold_se = np.asarray(gold, float), np.asarray(gold_se, float)
    best = np.nanargmax(gold)
    chosen = gold[best] - gold <= set_se * np.hypot(gold_se[best], gold_se)
    chosen[best] = True  # even without a standard error (NaN) the maximum is chosen
    return chosen


def delta_to_set(chosen: int, members) -> int:
    """``Delta c`` of a choice against a set of test models: 0 inside it, else the choice minus
    the nearest member (the smaller one where two are as near)."""
    members = np.sort(np.asarray(members, int))
    if chosen in members:
        return 0
    return int(chosen - members[np.argmin(np.abs(members - chosen))])


def state_set_text(states) -> str:
    """Hidden-state counts as runs: ``13..16, 18``."""
    states = sorted(int(k) for k in states)
    runs, start = [], 0
    for i in range(1, len(states) + 1):
        if i == len(states) or states[i] != states[i - 1] + 1:
            runs.append(str(states[start]) if i - 1 == start
                        else f"{states[start]}..{states[i - 1]}")
            start = i
    return ", ".join(runs)


def selection_errors(frame: pd.DataFrame, keys, set_se: float = GOLD_SET_SE) -> pd.DataFrame:
    """``Delta c`` of each score, one row per data set: against the gold standard's choice,
    the set of test models within ``set_se`` (:data:`GOLD_SET_SE`) combined standard errors of
    its maximum (:func:`gold_set`; :func:`delta_to_set`: 0 for a choice inside the set, else
    the distance to its nearest member, signed), and against Laplace's choice (paper 003's
    yardstick).

    ``gold_states`` is the gold maximum, ``gold_set`` the set (:func:`state_set_text`),
    ``gold_set_size`` its size and ``gold_se`` the standard error at the maximum;
    ``gold_margin_se`` is the gap between the best and second-best gold values in units of
    their combined standard error (below :data:`GOLD_SET_SE` the set has more than one model),
    and ``gold_few_runs`` says whether either of the two rests on fewer than
    :data:`hiddenbn.scores.smc.FEW_RUNS` effective runs (then that error is not the estimate's
    own)."""
    rows = []
    for key, group in frame.groupby(keys):
        group = group.sort_values("hidden_states")
        states = group["hidden_states"].to_numpy()
        best = group["gold"].to_numpy().argsort()[::-1]
        members = states[gold_set(group["gold"], group["gold_se"], set_se)]
        row = dict(zip(keys, key if isinstance(key, tuple) else (key,)))
        row |= {"gold_states": states[best[0]], "gold_set": state_set_text(members),
                "gold_set_size": len(members), "gold_se": group["gold_se"].iloc[best[0]]}
        if best.size > 1:
            gap = group["gold"].iloc[best[0]] - group["gold"].iloc[best[1]]
            se = np.hypot(group["gold_se"].iloc[best[0]], group["gold_se"].iloc[best[1]])
            row["gold_margin_se"] = gap / se if se > 0 else np.inf
            if "gold_effective_runs" in group:
                row["gold_few_runs"] = bool(
                    (group["gold_effective_runs"].iloc[best[:2]] < FEW_RUNS).any())
        for score in present_scores(group):
            values = group[score].to_numpy(float)
            # Laplace is NaN where the Hessian is not positive definite (those models are
            # skipped, as in paper 003); another score with a gap (de unknown) is not compared
            if np.all(np.isnan(values)) or (score != "laplace" and np.any(np.isnan(values))):
                continue
            row[f"{score}_vs_gold"] = delta_to_set(states[np.nanargmax(values)], members)
            if score != "laplace" and "laplace" in group and not np.all(
                    np.isnan(group["laplace"])):
                row[f"{score}_vs_laplace"] = (states[np.nanargmax(values)]
                                              - states[np.nanargmax(group["laplace"])])
        rows.append(row)
    return pd.DataFrame(rows)


def score_errors(frame: pd.DataFrame, keys) -> pd.DataFrame:
    """Mean and sd over data sets of ``score - gold`` (nats) per test model, and the mean
    gold standard error, for every score."""
    errors = frame.copy()
    scores = present_scores(frame)
    for score in scores:
        errors[score] = errors[score] - errors["gold"]
    aggregated = errors.groupby(keys)[[*scores, "gold_se"]].agg(["mean", "std"])
    aggregated.columns = [f"{a}_{b}" for a, b in aggregated.columns]
    return aggregated.reset_index()


def cs_plus_comparison(slopes: pd.DataFrame) -> pd.DataFrame:
    """Per setting and N: mean ``|CS - gold|`` and ``|CS+ - gold|`` (and BIC, BIC+), and how often
    CS+ is the closer one."""
    frame = slopes.copy()
    for score in ("cs", "cs_plus", "bic_log_evidence", "bic_plus_log_evidence"):
        frame[f"abs_{score}"] = (frame[score] - frame["gold"]).abs()
    frame["cs_plus_closer"] = frame["abs_cs_plus"] < frame["abs_cs"]
    return (frame.groupby(["setting", "cases"])
            [["abs_cs", "abs_cs_plus", "abs_bic_log_evidence", "abs_bic_plus_log_evidence",
              "cs_plus_closer", "gold_se"]]
            .mean().reset_index())


# --- paper 003's claims with the gold standard as the yardstick -------------------------------
def table1_against_gold(paper: pd.DataFrame, set_se: float = GOLD_SET_SE) -> pd.DataFrame:
    """Paper 003's Table 1 with the gold standard in Laplace's place: per experiment, mean and
    s.d. over data sets of Δc = states a score selects against the gold standard's set of
    models (:func:`selection_errors`, the set at ``set_se`` combined standard errors), for CS,
    MLED, Draper, BIC, Laplace itself and CS+, BIC+ (the form of
    :func:`hiddenbn.experiments.chickering_heckerman1996.table1`, so its claim checks apply)."""
    selection = selection_errors(paper, ["experiment", "replicate"], set_se)
    rows = []
    for experiment, group in selection.groupby("experiment", sort=False):
        first = paper[paper.experiment == experiment].iloc[0]
        row = {"experiment": experiment, "n": int(first["features"]),
               "c": int(first["generating_states"]), "N": int(first["cases"]),
               "data_sets": len(group)}
        for score in (*chickering_heckerman1996.TABLE1_SCORES, "laplace", *PLUS_OF):
            values = group.get(f"{score}_vs_gold", pd.Series(dtype=float)).dropna()
            row[f"{score}_mean"] = values.mean() if len(values) else np.nan
            row[f"{score}_sd"] = values.std(ddof=1) if len(values) > 1 else 0.0
        rows.append(row)
    return pd.DataFrame(rows)


def per_data_set_errors(paper: pd.DataFrame, set_se: float = GOLD_SET_SE) -> pd.DataFrame:
    """Δc against the gold standard per data set (:func:`selection_errors`, the gold set at
    ``set_se`` combined standard errors), in the form
    :func:`hiddenbn.experiments.chickering_heckerman1996.selection_errors` gives it (a column
    per score of its Table 1): its claim checks pair over these data sets, every score being
    chosen on the same ones."""
    selection = selection_errors(paper, ["experiment", "replicate"], set_se)
    scores = [s for s in chickering_heckerman1996.TABLE1_SCORES if f"{s}_vs_gold" in selection]
    return selection[["experiment", "replicate", *(f"{s}_vs_gold" for s in scores)]].rename(
        columns={f"{s}_vs_gold": s for s in scores})


#: What every verdict against the gold standard is judged on.
GOLD_TERMS = ("judged against the marginal likelihood itself (SMC, see the data sets and standard "
              "errors in findings.md), not against Laplace or our search; a score chooses the "
              "gold standard's model when its choice lies within "
              f"{GOLD_SET_SE:g} combined standard errors of the gold maximum")


def unconverged_experiments(doubled: pd.DataFrame | None) -> dict[str, str]:
    """The experiments of ``doubled`` (:func:`doubled_particles`) where findings.md calls the
    gold standard not converged, each with the rules by which: "the runs' agreement" (an
    estimate rests on fewer than :data:`AGREEING_SHARE` of its runs, :func:`runs_agree`) and
    "the doubling" (twice the particles change it beyond chance, :func:`doubling_failures`)."""
    if doubled is None or doubled.empty:
        return {}
    doubling = doubling_failures(doubled)
    failed = {}
    for experiment, cell in doubled.groupby("experiment"):
        rules = [rule for rule, fails in (("the runs' agreement", not runs_agree(cell).all()),
                                          ("the doubling", experiment in doubling)) if fails]
        if rules:
            failed[experiment] = " and ".join(rules)
    return failed


def _unconverged_text(unconverged: dict) -> str:
    """``a, b, where findings.md calls the gold standard not converged (a by ...; b by ...)``
    for :func:`unconverged_experiments`' answer."""
    return (f"{', '.join(unconverged)}, where findings.md calls the gold standard not "
            "converged (" + "; ".join(f"{experiment} by {rules}"
                                      for experiment, rules in unconverged.items()) + ")")


def delta_c_ranges(paper: pd.DataFrame, experiments, scores) -> str:
    """The range over data sets of each of ``scores``' ``Delta c`` (:func:`selection_errors`) in
    each of ``experiments``: ``e: CS −2 to 0, Draper −3; f: ...``."""
    selection = selection_errors(paper[paper["experiment"].isin(experiments)],
                                 ["experiment", "replicate"])
    labels = {score: label for score, label in distinct_scores(paper, scores).items()
              if f"{score}_vs_gold" in selection}

    def states(delta) -> str:
        return f"{int(delta)}".replace("-", "−")

    return "; ".join(f"{experiment}: " + ", ".join(
        f"{label} {states(cell[f'{score}_vs_gold'].min())}"
        + (f" to {states(cell[f'{score}_vs_gold'].max())}"
           if cell[f"{score}_vs_gold"].max() > cell[f"{score}_vs_gold"].min() else "")
        for score, label in labels.items()) for experiment, cell in
        selection.groupby("experiment"))


#: The item of :func:`paper003_verdict_rows`' row on Laplace as the yardstick.
LAPLACE_ITEM = "Laplace is the most accurate approximation (paper 003's assumption, Sec. 3)"
#: What each claim of :func:`paper003_verdict_rows` reads of the choices against the gold set,
#: by its check (the Laplace row by its item): a verdict resting on experiments where the gold
#: standard has not converged says so, since only where and how far a choice lies from the
#: set depends on where the set lies, not which of two choices below it lies lower.
CLAIM_READS = {
    chickering_heckerman1996.claim_bic_least_accurate:
        "how far each score chooses from the gold set (median |Δc|) and on which side BIC does",
    chickering_heckerman1996.claim_draper_cs_most_accurate:
        "which of two scores chooses nearer the gold set, pair by pair",
    chickering_heckerman1996.claim_bias_directions:
        "on which side of the gold set each score chooses, beyond noise, and whether Draper "
        "chooses below CS and MLED",
    chickering_heckerman1996.claim_draper_beats_cs_for_large_c:
        "whether Draper chooses nearer the gold set than CS",
    chickering_heckerman1996.claim_cs_mled_almost_same:
        "how far apart CS and MLED choose and which chooses nearer the gold set",
    LAPLACE_ITEM:
        "how far each score chooses from the gold set (median |Δc|), beside the curves' "
        "shapes, which no gold set enters",
}


def yardstick_explanation(verdict: str, verdict_without: str | None, unconverged: dict,
                          deltas: str = "", reads: str = "") -> str:
    """What a verdict against the gold standard can claim: :data:`GOLD_TERMS`, and whether it
    rests on the ``unconverged`` experiments (:func:`unconverged_experiments`):
    ``verdict_without`` is the verdict without them (None: nothing is left to judge). A verdict
    that changes without them rests on their data, which ``deltas`` gives
    (:func:`delta_c_ranges` of the scores the claim compares), with what the claim ``reads``
    of them (:data:`CLAIM_READS`) and what of that depends on where the gold set lies there:
    which of two choices below the set lies lower does not, how far below it they lie does."""
    if not unconverged:
        return "" if verdict == "supported" else GOLD_TERMS
    if verdict_without == verdict:
        return (("" if verdict == "supported" else GOLD_TERMS + "; ")
                + f"the same verdict without {_unconverged_text(unconverged)}")
    return (f"{verdict} against the gold standard; without {_unconverged_text(unconverged)}, "
            + (f"it is {verdict_without}" if verdict_without else "nothing is left to judge")
            + ": the verdict rests on those experiments' data, where the scores the claim "
            f"compares choose Δc {deltas}. The claim reads there {reads}; of two choices both "
            "below the gold set, which lies lower does not depend on where the set lies, how "
            "far below it they lie (and whether beyond noise) does. "
            + GOLD_TERMS[0].upper() + GOLD_TERMS[1:])


#: The gold-set thresholds (combined standard errors, :func:`gold_set`) besides
#: :data:`GOLD_SET_SE` at which every verdict on paper 003's claims is judged again: the paper
#: gives none.
ROBUSTNESS_SET_SE = (1.0, 3.0)


def with_doubled_estimates(paper: pd.DataFrame, doubled: pd.DataFrame) -> pd.DataFrame:
    """``paper`` with every gold-standard estimate that ``doubled`` (:func:`doubled_particles`)
    made again with twice the particles replaced by that one (estimate, standard error, runs)."""
    keys = ["experiment", "replicate", "hidden_states"]
    again = paper.merge(doubled[keys + [f"{c}_doubled" for c in ESTIMATE_COLUMNS]], on=keys,
                        how="left")
    for column in ESTIMATE_COLUMNS:
        again[column] = again.pop(f"{column}_doubled").fillna(again[column])
    return again


def paper003_claim_verdicts(paper: pd.DataFrame, set_se: float = GOLD_SET_SE) -> dict:
    """The verdict (``supported``, ...) on each of paper 003's claims that
    :func:`paper003_verdict_rows` judges, by item, on ``paper`` with the gold set at ``set_se``
    combined standard errors; None for a claim its experiments cannot decide (none left)."""
    if paper.empty:
        return {}
    table, errors = table1_against_gold(paper, set_se), per_data_set_errors(paper, set_se)
    verdicts = {claim: result[0] if (result := check(table, errors)) else None
                for claim, check in chickering_heckerman1996.TABLE1_CLAIMS}
    judged = _laplace_claim(paper, set_se)
    verdicts[LAPLACE_ITEM] = judged[0]["median"][0] if judged else None
    return verdicts


def _robustness_text(verdict: str, by_se: dict, others: dict) -> str:
    """What a verdict is judged again (:func:`paper003_claim_verdicts`): ``by_se`` with the gold
    set at other thresholds (threshold: verdict), ``others`` under other choices (what they
    are: verdict), for its evidence."""
    same = [f"{se:g}" for se, other in by_se.items() if other == verdict]
    kept = ([f"with the gold set at {' and '.join(same)} combined SE instead of "
             f"{GOLD_SET_SE:g}"] if same else []) + [
        label for label, other in others.items() if other == verdict]
    changed = [f"{CLAIM_VERDICTS[other] if other else 'nothing to judge'} {label}"
               for label, other in [*((f"with the gold set at {se:g} combined SE", other)
                                      for se, other in by_se.items()), *others.items()]
               if other != verdict]
    parts = ([f"the same verdict {', '.join(kept[:-1]) + ' and ' if len(kept) > 1 else ''}"
              f"{kept[-1]}"] if kept else []) + changed
    return f" Judged again: {'; '.join(parts)}." if parts else ""


def laplace_most_accurate(selection: dict, shapes: dict) -> tuple[str, list[str]]:
    """Paper 003's assumption that Laplace is the most accurate approximation (Sec. 3), by a
    stated rule on two measures, each keyed by score label with Laplace's label ``Laplace``:
    ``selection`` (a summary of ``|mean Delta c|`` over the distinct experiments,
    :data:`DELTA_C_SUMMARIES`) and ``shapes`` (shape distance, :func:`shape_ranking`).
    Supported when Laplace is strictly the smallest on both; not supported when another
    approximation is at least as small on both (those are returned); partly supported
    otherwise."""
    laplace = SCORES["laplace"]
    others = [label for label in {**selection, **shapes} if label != laplace]
    alone = all(measure[label] > measure[laplace] for measure in (selection, shapes)
                for label in others if label in measure)
    rivals = [label for label in others if label in selection and label in shapes
              and selection[label] <= selection[laplace] and shapes[label] <= shapes[laplace]]
    return ("supported" if alone else "not supported" if rivals else "partly supported"), rivals


#: How :func:`_laplace_claim` summarises ``|mean Delta c|`` over the distinct experiments, the
#: first deciding its verdict: the claim does not say, and the median hides a miss in one
#: experiment where most are 0, which the mean (section 5's measure) shows.
DELTA_C_SUMMARIES = {"median": np.nanmedian, "mean": np.nanmean}


def _laplace_claim(paper: pd.DataFrame, set_se: float = GOLD_SET_SE):
    """:func:`laplace_most_accurate` on ``paper`` under each of :data:`DELTA_C_SUMMARIES`:
    ``({summary: (verdict, rivals, values)}, shape ranking, data sets)``, the measures keyed by
    the labels of :func:`distinct_scores` (CS+ folded into CS where equal); the gold set at
    ``set_se`` combined standard errors (:func:`gold_set`)."""
    labels = distinct_scores(paper, PAPERS_SCORES)
    distinct = chickering_heckerman1996.distinct_experiments(
        table1_against_gold(paper, set_se))
    shapes, data_sets, _ = shape_ranking(paper, among=PAPERS_SCORES)
    judged = {}
    for name, summary in DELTA_C_SUMMARIES.items():
        values = {label: float(summary(np.abs(distinct[f"{score}_mean"])))
                  for score, label in labels.items()
                  if f"{score}_mean" in distinct and distinct[f"{score}_mean"].notna().any()}
        if SCORES["laplace"] not in values:  # Laplace is never folded: its label is its own
            return None
        judged[name] = (*laplace_most_accurate(values, dict(shapes)), values)
    return judged, shapes, data_sets


def _chooses_gold_text(paper: pd.DataFrame, labels) -> str:
    """How many data sets each of ``labels`` chooses the gold standard's model in
    (:func:`agreement_table`), each with the same over the data sets where the gold standard
    decides its choice (:func:`_decided_count_text`)."""
    table = agreement_table(paper, ["experiment", "replicate"]).set_index("score")
    judged = _judged_data_sets(paper)
    return ", ".join(f"{label} {table.loc[label, 'chooses_gold_count']} of "
                     f"{table.loc[label, 'data_sets']}" + _decided_count_text(judged, label)
                     for label in labels if label in table.index)


def _decided_count_text(judged: pd.DataFrame | None, label: str) -> str:
    """`` (18 of 18 where the gold standard decides its choice)``: how many data sets the score
    ``label`` chooses the gold standard's model in, over those where the gold standard decides
    its choice (``judged``: :func:`_judged_data_sets`, section 5's line); empty where it
    decides every one of them or cannot tell (``judged`` None)."""
    if judged is None:
        return ""
    judged = judged.set_index("score")
    if label not in judged.index or not judged.loc[label, "left_out"]:
        return ""
    return (f" ({judged.loc[label, 'chooses_gold_count']} of {judged.loc[label, 'data_sets']} "
            "where the gold standard decides its choice)")


def gold_choices(paper: pd.DataFrame, protocol: bool = False) -> str:
    """The choices every verdict against the gold standard rests on: its choice (the set of
    :func:`gold_set`; the evidence judges again at :data:`ROBUSTNESS_SET_SE`), the data sets
    scored and the fits (``protocol``: the evidence judges again on the paper's EM protocol's)."""
    replicates = sorted(paper["replicate"].unique())
    return (f"the gold standard's choice: the test models within {GOLD_SET_SE:g} combined "
            "standard errors of its maximum (findings.md section 2 gives each data set's set; "
            f"the evidence judges again at {' and '.join(f'{se:g}' for se in ROBUSTNESS_SET_SE)}"
            f"); data sets {state_set_text(replicates)} of each experiment "
            "(`gold_standard.paper003.replicates`); the fits of the search ("
            + ("the evidence judges again on those of paper 003's EM protocol, which its report "
               "sets beside them" if protocol else
               "paper 003's report sets its EM protocol beside them") + ")")


def paper003_verdict_rows(paper: pd.DataFrame, doubled: pd.DataFrame | None = None,
                          paper_protocol: pd.DataFrame | None = None) -> list[dict]:
    """Paper 003's claims about Table 1 judged with the gold standard as the yardstick (the
    same check functions as against Laplace; the gold choice is :func:`gold_set`), and the
    paper's own assumption that Laplace is the most accurate
    (:func:`laplace_most_accurate`): where a claim fails against Laplace, this says whether the
    claim or the yardstick is at fault. ``paper`` holds the search's fits; each verdict's
    evidence gives it again (:func:`paper003_claim_verdicts`) under the choices the paper
    leaves open: the gold set at :data:`ROBUSTNESS_SET_SE` combined standard errors, the fits
    of the paper's EM protocol (``paper_protocol``, if given) and, with ``doubled``
    (:func:`doubled_particles`), the estimates made again with twice the particles
    (:func:`with_doubled_estimates`). ``doubled`` also adds to each verdict's evidence how far
    twice the particles move the large-c estimates, and each verdict is judged again without
    the experiments findings.md calls not converged (:func:`unconverged_experiments`): a
    verdict that changes is stated as resting on their data, with what of it depends on where
    the gold set lies there (:func:`yardstick_explanation`)."""
    if not {"features", "generating_states", "cases"} <= set(paper):
        return []
    unconverged = unconverged_experiments(doubled)
    rest = paper[~paper["experiment"].isin(list(unconverged))]
    without = paper003_claim_verdicts(rest) if unconverged else {}
    by_se = {se: paper003_claim_verdicts(paper, se) for se in ROBUSTNESS_SET_SE}
    variants, protocol = {}, paper_protocol is not None and not paper_protocol.empty
    if protocol:
        variants["on the fits of paper 003's EM protocol"] = paper003_claim_verdicts(
            paper_protocol)
    if doubled is not None and not doubled.empty:
        redone = doubled.drop_duplicates(["experiment", "replicate"])
        variants["with the estimates made with twice the particles in " + ", ".join(
            f"{r.experiment} {int(r.replicate)}" for r in redone.itertuples())] = \
            paper003_claim_verdicts(with_doubled_estimates(paper, doubled))

    def judged_again(item: str, verdict: str) -> str:
        return _robustness_text(verdict, {se: v.get(item) for se, v in by_se.items()},
                                {label: v.get(item) for label, v in variants.items()})

    def explanation(item: str, verdict: str, scores, reads: str) -> str:
        changed = unconverged and without.get(item) != verdict
        return yardstick_explanation(verdict, without.get(item), unconverged,
                                     delta_c_ranges(paper, list(unconverged), scores)
                                     if changed else "", reads)

    table, errors = table1_against_gold(paper), per_data_set_errors(paper)
    where = "Paper 003's claims, Δc against the gold standard instead of Laplace"
    few = _undecided_note(paper) + _doubling_note(doubled)
    choices = gold_choices(paper, protocol)
    rows = []
    for claim, check in chickering_heckerman1996.TABLE1_CLAIMS:
        result = check(table, errors)
        if result is None:
            continue
        verdict, evidence = result
        thresholds = [chickering_heckerman1996.THRESHOLD_CHOICES[key] for key in
                      chickering_heckerman1996.TABLE1_CLAIM_THRESHOLDS.get(check, ())]
        rows.append(verdict_row(
            where, claim, "", evidence + judged_again(claim, verdict) + few,
            CLAIM_VERDICTS[verdict],
            explanation(claim, verdict, chickering_heckerman1996.TABLE1_CLAIM_INPUTS[check][0],
                        CLAIM_READS[check]),
            choices="; ".join([choices, chickering_heckerman1996.NOISE_CHOICE, *thresholds])))
    judged = _laplace_claim(paper)
    if judged is None:
        return rows
    by_summary, shapes, data_sets = judged
    verdict, rivals, medians = by_summary["median"]
    rule = ("rule: reproduced when Laplace alone is the closest by both median |Δc| and curve "
            "shape, not reproduced when another approximation is at least as close by both, "
            "partly otherwise")
    others = [f"by the mean |Δc| instead (section 5's measure; the claim does not say which) it "
              f"is {CLAIM_VERDICTS[other]}"
              + (f" ({', '.join(other_rivals)} at least as close by both)" if other_rivals
                 else "")
              for name, (other, other_rivals, _) in by_summary.items()
              if name != "median" and other != verdict]
    chosen = {label for label, _ in shapes}
    rows.append(verdict_row(
        where, LAPLACE_ITEM, "",
        "; ".join(f"{name} |Δc| against the gold standard over the distinct experiments: "
                  + ", ".join(f"{label} {v:.2f}"
                              for label, v in sorted(values.items(), key=lambda x: x[1]))
                  for name, (_, _, values) in by_summary.items())
        + "; data sets where each chooses the gold standard's model: "
        + _chooses_gold_text(paper, [label for label in medians if label in chosen])
        + f"; curve shape (mean distance to the gold standard's over {data_sets} data sets, "
        "nats): " + _listing(shapes) + "." + judged_again(LAPLACE_ITEM, verdict) + few
        + _few_runs_shape_note(paper, SCORES["laplace"]),
        CLAIM_VERDICTS[verdict],
        "; ".join(part for part in (
            rule + (f"; {', '.join(rivals)} at least as close by both, so Table 1's yardstick "
                    "is no better than it" if rivals else ""), *others,
            explanation(LAPLACE_ITEM, verdict, PAPERS_SCORES, CLAIM_READS[LAPLACE_ITEM]))
            if part),
        choices=f"{choices}; how |Δc| is summarised over the experiments: median (the "
                "verdict) or mean (in the explanation where it differs)"))
    return rows


#: Runs' spreads (the standard deviation of their log Z_r) by which a score's choice must lie
#: below the nearest member of the gold set for its Delta c to hold whatever the error of an
#: estimate on few runs: that estimate is the best run's, and the runs ended about one spread
#: apart, so the error is of that order; twice it leaves room for an error at either end.
FAR_GAP_SPREADS = 2.0


def choice_reliability(paper: pd.DataFrame, among=PAPERS_SCORES) -> pd.DataFrame:
    """Each score's choice in each data set against the gold standard's estimates that decide
    its ``Delta c``: the one at its choice and the one at the nearest member of the gold set
    (:func:`gold_set`, :func:`delta_to_set`). One row per data set and score of ``among``
    (labels of :func:`distinct_scores`, sBIC at every phi where ``among`` is None), with
    ``gap`` (nats the nearest member lies above the choice, 0 inside the set), ``few_runs``
    (either estimate rests on fewer than :data:`hiddenbn.scores.smc.FEW_RUNS` effective runs),
    ``spread`` (the larger of the two estimates' spreads of the runs, ``gold_se`` times the
    square root of ``gold_runs``), ``holds`` (a choice outside the set by more than
    :data:`FAR_GAP_SPREADS` spreads: its ``Delta c`` stands whatever the error of an estimate
    on few runs), ``agree`` (both estimates rest on at least :data:`AGREEING_SHARE` of their
    runs, :func:`runs_agree`: their standard errors are their errors) and ``decided`` (either:
    the gold standard decides the choice)."""
    rows = []
    labels = distinct_scores(paper, among, variants=True)
    for (experiment, replicate), group in paper.groupby(["experiment", "replicate"]):
        group = group.sort_values("hidden_states").set_index("hidden_states")
        members = group.index.to_numpy()[gold_set(group["gold"], group["gold_se"])]
        spread = group["gold_se"] * np.sqrt(group["gold_runs"])
        agree = runs_agree(group)
        for score, label in labels.items():
            if group[score].isna().all():
                continue
            choice = int(group[score].idxmax())
            nearest = choice - delta_to_set(choice, members)
            gap = float(group.loc[nearest, "gold"] - group.loc[choice, "gold"])
            widest = float(spread[[choice, nearest]].max())
            rows.append({"experiment": experiment, "replicate": replicate, "score": label,
                         "choice": choice, "nearest": nearest, "gap": gap,
                         "few_runs": bool((group.loc[[choice, nearest], "gold_effective_runs"]
                                           < FEW_RUNS).any()),
                         "spread": widest, "holds": gap > FAR_GAP_SPREADS * widest,
                         "agree": bool(agree[[choice, nearest]].all())})
    reliability = pd.DataFrame(rows)
    if not reliability.empty:
        reliability["decided"] = reliability["holds"] | reliability["agree"]
    return reliability


def _undecided_note(paper: pd.DataFrame) -> str:
    """The choices of paper 003's scores that the gold standard cannot decide
    (:func:`choice_reliability`, not ``decided``: the line section 5 uses too), by score and
    data set, for a verdict's evidence; empty when it decides every one."""
    if not {"gold_effective_runs", "gold_runs"} <= set(paper):
        return ""
    reliability = choice_reliability(paper)
    undecided = reliability[~reliability["decided"]]
    if undecided.empty:
        return ""
    data_sets = undecided.groupby(["experiment", "replicate"]).ngroups
    experiments = ", ".join(sorted(set(undecided["experiment"])))
    listed = "; ".join(
        f"{label} " + ", ".join(f"{experiment} {state_set_text(part['replicate'])}"
                                for experiment, part in cell.groupby("experiment"))
        for label, cell in undecided.groupby("score", sort=False))
    return (f" In {data_sets} of {reliability.groupby(['experiment', 'replicate']).ngroups} "
            f"data sets ({experiments}) the gold standard cannot decide some score's choice: "
            "the estimate at the choice or at the nearest member of the gold set rests on fewer "
            f"than {AGREEING_SHARE:.0%} of its runs (they ended apart, so its standard error "
            "measures how far they fell, not its error), and the choice is not outside the set "
            f"by more than {FAR_GAP_SPREADS:g} spreads of the runs (the SD of their log Z, "
            f"SE × √runs). Not decided: {listed}. Verdicts that rest on these choices are not "
            "decided by the gold standard there.")


def _doubling_note(doubled: pd.DataFrame | None) -> str:
    """Where and why twice the particles change the gold standard beyond chance
    (:func:`doubling_failures`), for a verdict's evidence; empty when none is checked or
    nothing changes that far."""
    failures = doubling_failures(doubled)
    if not failures:
        return ""
    return (" Twice the particles change the gold standard beyond chance in "
            + "; ".join(f"{experiment} ({'; '.join(reasons)})"
                        for experiment, reasons in failures.items())
            + ": it has not converged there (findings.md).")


def _few_runs_shape_note(paper: pd.DataFrame, laplace: str) -> str:
    """The shape ranking's dependence on estimates with fewer than
    :data:`hiddenbn.scores.smc.FEW_RUNS` effective runs, for a verdict's evidence."""
    if "gold_effective_runs" not in paper or not (paper["gold_effective_runs"] < FEW_RUNS).any():
        return ""
    sure, _, models = shape_ranking(paper, FEW_RUNS, PAPERS_SCORES)
    return (f" {int((paper['gold_effective_runs'] < FEW_RUNS).sum())} of {len(paper)} "
            f"estimates rest on fewer than {FEW_RUNS:g} effective runs; on the {models} test "
            f"models of the others Laplace ranks {_rank_of(sure, laplace)} of {len(sure)} by "
            "shape.")


# --- figures and findings --------------------------------------------------------------------
def _experiment_title(cell: pd.DataFrame) -> str:
    """``n = 64, c = 32, N = 400`` for a paper-003 experiment (its name where the columns are
    missing)."""
    if {"features", "generating_states", "cases"} <= set(cell):
        row = cell.iloc[0]
        return (f"n = {int(row['features'])}, c = {int(row['generating_states'])}, "
                f"N = {int(row['cases'])}")
    return str(cell["experiment"].iloc[0])


def _panel_grid(count: int, columns: int = 4):
    rows = -(-count // columns)
    width = min(count, columns)
    figure, axes = plt.subplots(rows, width, figsize=(3.3 * width + 1.4, 3.0 * rows),
                                squeeze=False)
    for ax in axes.ravel()[count:]:
        ax.set_visible(False)
    return figure, axes.ravel()[:count]


def _shared_legend(figure, axes, order=None) -> None:
    """The one legend of a panel grid, each label of every panel once (not every panel draws
    every line), sorted by the key ``order`` if given: in the grid's first empty slot where its
    last row is short, else right of the last panel. Beside a panel inside the grid it would
    widen every gap between the columns (tight layout spaces them alike)."""
    legend = {}
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            legend.setdefault(label, handle)
    labels = sorted(legend, key=order) if order else list(legend)
    handles = [legend[label] for label in labels]
    spare = [ax for ax in figure.axes if not ax.get_visible()]
    if spare:
        spare[0].set_visible(True)
        spare[0].axis("off")
        spare[0].legend(handles, labels, loc="upper left", fontsize="small")
    else:
        axes[-1].legend(handles, labels, loc="upper left", bbox_to_anchor=(1.02, 1.0),
                        fontsize="small")


def _panel_order(paper: pd.DataFrame) -> list:
    """Experiments in the order of paper 003's figures: by generating c, then n, then N."""
    first = paper.groupby("experiment").first()
    keys = [column for column in ("generating_states", "features", "cases") if column in first]
    return list(first.sort_values(keys).index) if keys else sorted(first.index)


#: The panels of :func:`figure_paper_curves` are linear within this many nats of zero and
#: logarithmic beyond: at large c BIC and ICL fall thousands of nats below the gold standard,
#: and on a linear axis the scores within a few nats of it would lie on one line.
LINEAR_NATS = 10.0
#: How the figures' texts describe that axis.
AXIS_TEXT = (f"the y-axis is linear within ± {LINEAR_NATS:g} nats and logarithmic beyond, so "
             "that misses of a few nats and of thousands show in one panel")


def figure_paper_curves(paper: pd.DataFrame, path, shapes: bool = False) -> None:
    """One panel per paper-003 experiment (first data set), at most four in a row, each
    distinct score once (:func:`distinct_scores`: CS+ drawn as CS where they are equal) in the
    project's styles. Levels (``shapes=False``): each score minus the gold standard, with the
    gold standard's ±2 SE band around zero. Shapes: each curve minus its own maximum, the gold
    standard's (black, ±2 SE) among them: model averaging and selection see only the shape
    (paper 003 Sec. 4)."""
    experiments = _panel_order(paper)
    scores = distinct_scores(paper)
    with plots.style():
        figure, axes = _panel_grid(len(experiments))
        for ax, experiment in zip(axes, experiments):
            cell = paper[paper["experiment"] == experiment]
            cell = cell[cell["replicate"] == cell["replicate"].min()]
            cell = cell.sort_values("hidden_states")
            gold = cell["gold"] - (cell["gold"].max() if shapes else cell["gold"])
            for score, label in scores.items():
                if cell[score].notna().any():
                    values = cell[score] - (cell[score].max() if shapes else cell["gold"])
                    ax.plot(cell["hidden_states"], values,
                            **{**plots.score_style(score, 3), "label": label})
            # an estimate on few runs is the best run's: its SE is no error bar, so it gets
            # a hollow marker and no band
            few = (cell["gold_effective_runs"] < FEW_RUNS).to_numpy() \
                if "gold_effective_runs" in cell else np.zeros(len(cell), bool)
            style = plots.score_style("gold", 4)
            if shapes:
                ax.plot(cell["hidden_states"], gold,
                        **{**style, "markevery": list(np.flatnonzero(~few))})
            if few.any():
                ax.plot(cell["hidden_states"][few], gold[few],
                        **{**style, "linestyle": "none", "markerfacecolor": "white",
                           "label": f"gold standard on < {FEW_RUNS:g} effective runs "
                                    "(no band)"})
            ax.fill_between(cell["hidden_states"], gold - 2 * cell["gold_se"],
                            gold + 2 * cell["gold_se"], where=~few, color="#999999",
                            alpha=0.4, lw=0, label="gold standard ± 2 SE")
            if "generating_states" in cell:
                ax.axvline(cell["generating_states"].iloc[0], color="#777777", ls=":", lw=1.0,
                           label="generating c")
            ax.set_title(_experiment_title(cell))
            ax.set_xlabel("hidden states of the test model")
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
            ax.set_yscale("symlog", linthresh=LINEAR_NATS)
        axes[0].set_ylabel("curve − its maximum (nats)" if shapes
                           else "score − log p(D|S) (nats)")
        _shared_legend(figure, axes)  # sBIC has no curve where the test models start above 1
        # (the figure text says so)
        figure.suptitle("Paper 003's data sets: " + (
            "shape of each curve against the gold standard's" if shapes else
            "each approximation minus the gold standard log p(D|S)") + " (one data set each)")
        figure.tight_layout(rect=(0, 0, 1, 1 - 0.3 / figure.get_figheight()))
        plots.save_figure(figure, path)


def _closest_per_experiment(distances: pd.DataFrame, scores: dict, digits: int) -> str:
    """Per experiment (rows of :func:`shape_errors` by experiment) the scores (``scores``:
    column -> label) with the smallest distance as printed to ``digits`` decimals: those tied
    there named together, or the others ("all but ...") where they are fewer."""
    parts = []
    for experiment, row in distances.set_index("experiment")[list(scores)].round(digits) \
            .iterrows():
        row = row.dropna()
        best = [scores[s] for s in row.index[row == row.min()]]
        rest = [scores[s] for s in row.index[row != row.min()]]
        parts.append(f"{experiment} " + ("every score" if not rest else " and ".join(best)
                                         if len(best) <= len(rest)
                                         else "all but " + " and ".join(rest)))
    return ", ".join(parts)


def shape_errors(frame: pd.DataFrame, keys, distance=shape_distance) -> pd.DataFrame:
    """Per group (e.g. experiment): the mean over data sets of ``distance`` between each score's
    curve over the test models and the gold standard's, for every score; by default
    :func:`~hiddenbn.experiments.comparison.shape_distance` (nats), how far each curve's shape
    departs from the gold standard's.
    A score undefined at some test models (Laplace where its Hessian is not positive definite)
    is measured over the others."""
    rows = []
    for key, group in frame.groupby(keys):
        row = dict(zip(keys, key if isinstance(key, tuple) else (key,)))
        for score in present_scores(group):
            distances = [distance(curve[score], curve["gold"]) for _, curve in
                         group.dropna(subset=[score]).groupby("replicate")]
            row[score] = float(np.mean(distances)) if distances else np.nan
        rows.append(row)
    return pd.DataFrame(rows)


def weight_errors(frame: pd.DataFrame, keys) -> pd.DataFrame:
    """:func:`shape_errors` by the total-variation distance between each score's posterior
    weights over the test models and the gold standard's
    (:func:`~hiddenbn.experiments.comparison.posterior_weight_distance`, 0..1, equal prior on
    the test models): what model averaging uses."""
    return shape_errors(frame, keys, posterior_weight_distance)


#: Looks of the reference lines of :func:`figure_slopes` (black: no score's colour). The
#: Drton-Plummer bound is a wide pale band under the others: where it equals our R-G
#: coefficient (no_effect, both 2.5) the two lines coincide and both stay visible.
SLOPE_LINES = {"ds_half": ("ds/2", {"ls": "--"}), "de_half": ("de/2", {"ls": ":"}),
               "rusakov_geiger": ("R-G (ours, by tempering)", {"ls": "-."}),
               "latent_class_bound": ("Drton-Plummer bound",
                                      {"ls": "-", "lw": 5.0, "alpha": 0.25, "zorder": 1})}
#: Shades and markers of a slope setting's replicates (grey: no score's colour), one look per
#: data set up to six (the settings' replicates), each marker its own.
REPLICATE_LOOKS = (("#222222", "o"), ("#555555", "s"), ("#888888", "^"), ("#222222", "D"),
                   ("#555555", "v"), ("#888888", "P"))


def figure_slopes(slopes: pd.DataFrame, table: pd.DataFrame, path) -> None:
    """``log p(D|theta_ML) - log p(D)`` against ``log N``, one panel per setting (three to a
    row), one line per data set (labelled, ± 2 gold standard errors) and black lines of slope
    ds/2 (dashed), de/2 (dotted) and, where ``table`` has them, our coefficient after Rusakov &
    Geiger (dash-dotted; :func:`rusakov_geiger_coefficient`) and Drton & Plummer's bound (a
    wide pale band) through the mean at the smallest N (:data:`SLOPE_LINES`); each title gives
    the slope fitted over all N and over the larger half of N, both of which the verdicts
    read."""
    settings = sorted(slopes["setting"].unique())
    with plots.style():
        figure, axes = _panel_grid(len(settings), columns=3)
        figure.set_size_inches(4.3 * min(len(settings), 3) + 1.6,
                               3.6 * -(-len(settings) // 3))
        for ax, setting in zip(axes, settings):
            cell = slopes[slopes["setting"] == setting]
            for (replicate, group), (shade, marker) in zip(cell.groupby("replicate"),
                                                           itertools.cycle(REPLICATE_LOOKS)):
                group = group.sort_values("cases")
                ax.errorbar(np.log(group["cases"]), group["log_likelihood"] - group["gold"],
                            yerr=2 * group["gold_se"], marker=marker, ms=4, lw=0.9,
                            color=shade, label=f"data set {replicate}")
            row = table[table["setting"] == setting].iloc[0]
            x = np.log(np.sort(cell["cases"].unique()))
            y0 = (cell["log_likelihood"] - cell["gold"]).groupby(cell["cases"]).mean().iloc[0]
            for column, (label, look) in SLOPE_LINES.items():
                if pd.notna(row.get(column)):  # RG's and DP's only where they apply
                    ax.plot(x, y0 + row[column] * (x - x[0]), label=f"slope {label}",
                            **{"color": "black", "lw": 1.2, **look})
            coefficient = "".join(f", {short} = {row[column]:g}" for column, short in
                                  (("rusakov_geiger", "RG (ours)"),
                                   ("latent_class_bound", "DP"))
                                  if pd.notna(row.get(column)))
            ax.set_title(f"{setting}: ds/2 = {row['ds_half']:g}, de/2 = {row['de_half']:g}"
                         f"{coefficient}\nfitted slope {row['slope']:.2f} ± "
                         f"{row['slope_se']:.2f}; N ≥ {row['upper_from_N']}: "
                         f"{row['slope_upper']:.2f} ± {row['slope_upper_se']:.2f}",
                         fontsize="small")
            ax.set_xlabel("log N")
        for ax in axes[::3]:
            ax.set_ylabel("log p(D|θ_ML) − log p(D) (nats)")
        # the predicted slopes (Rusakov-Geiger's not in every panel), then the data sets in
        # their order
        _shared_legend(figure, axes, order=lambda label: (
            (1, int(label.removeprefix("data set "))) if label.startswith("data set ")
            else (0, 0)))
        figure.suptitle("The penalty log p(D|θ_ML) − log p(D) against log N, beside slopes "
                        "ds/2 and de/2 (paper 000 Sec. 4)"
                        + (" and our coefficient after Rusakov-Geiger (RG)"
                           if "rusakov_geiger" in table else "")
                        + (" or Drton-Plummer's bound (DP)" if "latent_class_bound" in table
                           else ""))
        figure.tight_layout(rect=(0, 0, 1, 1 - 0.35 / figure.get_figheight()))
        plots.save_figure(figure, path)


def _markdown(frame: pd.DataFrame, digits: int = 2) -> str:
    shown = frame.copy()
    for column in shown.columns:
        if pd.api.types.is_float_dtype(shown[column]):
            shown[column] = shown[column].map(lambda v: "" if pd.isna(v) else f"{v:.{digits}f}")
    return pipe_table(shown)


def _ranking(frame: pd.DataFrame, among=None,
             variants: bool = False) -> list[tuple[str, float]]:
    """Distinct scores (:func:`distinct_scores`, with ``among`` and ``variants``) ordered by
    mean absolute error against the gold standard (nats), over the test models where Laplace
    exists (its Hessian is positive definite); BIC+/CS+ are left out where ``de`` could not be
    computed rather than ranked on a subset."""
    frame = frame[np.isfinite(frame["laplace"])]
    errors = {label: float((frame[score] - frame["gold"]).abs().mean())
              for score, label in distinct_scores(frame, among, variants).items()
              if frame[score].notna().all()}
    return sorted(errors.items(), key=lambda item: item[1])


def shape_ranking(frame: pd.DataFrame, min_effective_runs: float = 0.0, among=None,
                  distance=shape_distance):
    """Distinct scores ordered by how far their curves' shapes lie from the gold standard's,
    and what that rests on.

    Per data set (experiment, replicate) the test models where every distinct score is
    defined (Laplace's Hessian positive definite) and the gold standard rests on at least
    ``min_effective_runs`` effective runs; there each curve minus its maximum against the gold
    standard's minus its maximum, ``mean_k |(s_k - max s) - (g_k - max g)|`` (nats,
    :func:`~hiddenbn.experiments.comparison.shape_distance`, or another ``distance`` of the two
    curves:
    :func:`~hiddenbn.experiments.comparison.posterior_weight_distance`); the mean over data
    sets. Only the shape matters for selection and model averaging (paper 003 Sec. 4).
    ``among`` limits the scores (:func:`distinct_scores`). Returns ``([(label, distance),
    ...] best first, data sets, test models)``.
    """
    scores = distinct_scores(frame, among)
    kept = frame[frame[list(scores)].notna().all(axis=1)]
    if "gold_effective_runs" in kept:
        kept = kept[kept["gold_effective_runs"] >= min_effective_runs]
    distances = {label: [] for label in scores.values()}
    data_sets = 0
    for _, curve in kept.groupby(["experiment", "replicate"]):
        if len(curve) < 2:
            continue
        data_sets += 1
        for score, label in scores.items():
            distances[label].append(distance(curve[score], curve["gold"]))
    ranking = sorted(((label, float(np.mean(values))) for label, values in distances.items()
                      if values), key=lambda item: item[1])
    return ranking, data_sets, len(kept)


def _listing(ranking) -> str:
    """``label value`` pairs of a ranking, one decimal."""
    return ", ".join(f"{label} {value:.1f}" for label, value in ranking)


def _rank_of(ranking, label: str) -> int | None:
    labels = [name for name, _ in ranking]
    return labels.index(label) + 1 if label in labels else None


def _selection_record(paper: pd.DataFrame, label: str) -> str:
    """How often the score ``label`` chooses the gold standard's model, for the headline: over
    every data set where it is defined, and, beside the scores that choose it more often or as
    often, over the data sets where every score is defined (:func:`common_data_sets`; a share
    over other data sets than another score's would compare the data sets, not the scores);
    empty where the score has no selection."""
    keys = ["experiment", "replicate"]
    table = agreement_table(paper, keys).set_index("score")
    if label not in table.index:
        return ""
    record = (f", by selection it chooses the gold standard's model in "
              f"{table.loc[label, 'chooses_gold_count']} of {table.loc[label, 'data_sets']} "
              "data sets")
    on_common = common_data_sets(paper, keys)
    common = agreement_table(on_common, keys).set_index("score")
    if common.empty or label not in common.index:
        return record + _decided_count_text(_judged_data_sets(paper), label)
    if common["data_sets"].max() < table.loc[label, "data_sets"]:
        record += (f"; on the {common.loc[label, 'data_sets']} where every score is defined, "
                   f"{common.loc[label, 'chooses_gold_count']} of "
                   f"{common.loc[label, 'data_sets']}"
                   + _decided_count_text(_judged_data_sets(on_common), label))
    else:
        record += _decided_count_text(_judged_data_sets(paper), label)
    share = common.loc[label, "chooses_gold"]
    ahead = common[common["chooses_gold"] > share].index.tolist()
    level = [other for other in common[common["chooses_gold"] == share].index if other != label]
    return (record + ", " + (f"less often than {', '.join(ahead)}" if ahead
                             else "the most of any score")
            + (f"{'; as often' if ahead else ', with'} {', '.join(level)}" if level else ""))


def _weights_record(paper: pd.DataFrame, label: str) -> str:
    """Where the score ``label`` lies by the posterior weights it gives the test models
    (:func:`closest_in_shape` by :func:`weight_errors` over paper 003's scores, a difference
    material by :func:`_material_text`): the closest, within noise of the closest, or farther;
    a rank would count differences within the gold standard's noise."""
    closest, _ = closest_in_shape(paper, ["experiment", "replicate"], weight_errors,
                                  PAPERS_SCORES, MATERIAL_WEIGHT_DISTANCE)
    if not closest:
        return "undefined"
    best = closest[0][0]
    if label == best:
        return "the closest"
    level = label in [name for name, *_ in closest[1:]]
    return ("within noise of the closest" if level else "farther than the closest") + \
        f" ({best}; a difference in total variation {_material_text()})"


def _headline_lines(paper: pd.DataFrame, large_c) -> list[str]:
    """Paper 003's assumption that Laplace is the most accurate, judged by curve shape over
    the distinct scores and by how often it chooses the gold standard's model
    (:func:`_selection_record`: what paper 003's Table 1 uses it for), with the evidence and
    how the shape rank depends on the large-c experiments and on the estimates that rest on
    few runs."""
    ranking, data_sets, models = shape_ranking(paper, among=PAPERS_SCORES)
    if not ranking:
        return []
    weights = shape_ranking(paper, among=PAPERS_SCORES, distance=posterior_weight_distance)[0]
    laplace = next(label for label in distinct_scores(paper, PAPERS_SCORES).values()
                   if label.startswith(SCORES["laplace"]))
    folded = [label for label in distinct_scores(paper, PAPERS_SCORES).values()
              if " = " in label]
    same = f": {', '.join(folded)} in every row, de = ds" if folded else ""
    lines = [f"* **Paper 003 assumed Laplace is the most accurate approximation; by the shape "
             f"of its curve it ranks {_rank_of(ranking, laplace)} of {len(ranking)}, by the "
             f"posterior weights it gives the test models {_weights_record(paper, laplace)}"
             f"{_selection_record(paper, laplace)}** "
             f"(distinct scores{same}). Evidence: mean over {data_sets} data sets of the mean "
             f"distance, over the {models} test models where every score is defined (section "
             "5's table takes each score over every test model where it is defined, so its "
             "values differ slightly), between "
             "each curve minus its maximum and the gold standard's minus its maximum (nats; "
             "only the shape matters for selection and averaging, paper 003 Sec. 4, but this "
             "distance weighs the far test models most): " + _listing(ranking)
             + "; the total-variation distance between the posterior weights each gives the "
             "test models and the gold standard's (0 to 1, equal prior on the test models: what "
             "model averaging uses): " + ", ".join(f"{label} {value:.2f}"
                                                  for label, value in weights) + "."]
    variants = []
    large = [e for e in large_c if e in set(paper["experiment"])]
    if large:
        rest = shape_ranking(paper[~paper["experiment"].isin(large)], among=PAPERS_SCORES)
        if rest[0]:
            variants.append(f"without the large-c experiments ({', '.join(large)}; "
                            f"{data_sets - rest[1]} data sets) Laplace ranks "
                            f"{_rank_of(rest[0], laplace)} of {len(rest[0])} "
                            f"({_listing(rest[0])})")
    if "gold_effective_runs" in paper:
        sure = shape_ranking(paper, FEW_RUNS, PAPERS_SCORES)
        if sure[0]:
            variants.append(f"on the {sure[2]} test models whose gold standard rests on at "
                            f"least {FEW_RUNS:g} effective runs it ranks "
                            f"{_rank_of(sure[0], laplace)} of {len(sure[0])} "
                            f"({_listing(sure[0])})")
    if variants:
        lines.append("  * How it depends on the data: " + "; ".join(variants) + ".")
    level = _ranking(paper, PAPERS_SCORES)
    lines.append(f"  * By absolute level instead (mean |score − gold|, which paper 003 says "
                 f"does not matter) Laplace ranks {_rank_of(level, laplace)} of {len(level)}: "
                 + _listing(level) + ".")
    return lines


def _fits_line(paper: pd.DataFrame) -> str:
    """Which fits and data sets section 2 scores, and which rows of paper 003's Table 1
    comparison its Δc against Laplace corresponds to."""
    replicates = sorted(int(r) for r in paper["replicate"].unique())
    return ("Every approximation is evaluated at the fit of the annealed search "
            "(`hiddenbn.learning.annealing`; protocol `search` of the paper-003 pipeline), the "
            "best mode we find, on data sets " + state_set_text(replicates) + " of each "
            "experiment (`gold_standard.paper003.replicates`, `large_c.replicates`). Its Δc "
            "against Laplace is therefore the table \"Table 1 (the annealed search)\" of "
            "`chickering_heckerman1996/comparison.md` on these data sets only; that table "
            "averages over all of an experiment's data sets and its companion under the paper's "
            "EM protocol over other fits, so their means differ from the ones below. Paper "
            "003's own report sets the paper's EM protocol beside the search.")


def range_edge_lines(frame: pd.DataFrame) -> list[str]:
    """Where a score (:func:`distinct_scores`, sBIC's variants among them) selects the lowest
    or highest test model at which it is defined, counted over the data sets of ``frame``
    (:func:`hiddenbn.experiments.chickering_heckerman1996.range_edges`, per experiment): such
    a choice is censored, a wider range could only move it further out, so its Δc is a lower
    bound. The lowest edge counts only above one hidden state, below which no model lies. A
    bullet, or nothing where no score selects an edge."""
    experiments = ([cell for _, cell in frame.groupby("experiment")] if "experiment" in frame
                   else [frame])
    parts = []
    for score, label in distinct_scores(frame, variants=True).items():
        edges = pd.concat([chickering_heckerman1996.range_edges(cell, score)
                           for cell in experiments], ignore_index=True)
        for side, word in (("high", "highest"), ("low", "lowest")):
            hits = int((edges[side] & ((side == "high") | (edges["lowest"] > 1))).sum())
            if hits:
                parts.append(f"{label} the {word} in {hits} of {len(edges)} data sets")
    if not parts:
        return []
    return ["* Choices at an edge of the test models (the lowest or highest at which the score "
            "is defined): " + ", ".join(parts) + ". Such a choice is censored: a wider range "
            "could only move it further out, so its Δc is a lower bound.", ""]


def _gold_set_summary(selection: pd.DataFrame) -> pd.DataFrame:
    """Per experiment, the gold standard's choice (:func:`gold_set`) in each data set and the
    standard error of its maximum: how sharply the yardstick of the Δc table chooses."""
    rows = []
    for experiment, group in selection.groupby("experiment"):
        rows.append({"experiment": experiment,
                     "gold set per data set": "; ".join(group["gold_set"]),
                     "gold SE at its maximum": ", ".join(f"{se:.1f}" for se in group["gold_se"])})
    return pd.DataFrame(rows)


def set_holes(paper: pd.DataFrame) -> pd.DataFrame:
    """The data sets whose gold set (:func:`gold_set`) has holes: test models out of it between
    members. One row per such data set with ``gold_set`` (:func:`state_set_text`), ``holes``
    (the models out) and ``beyond`` (the members a hole parts from the maximum, each with its
    effective runs and runs): a member there is in on a wide standard error, which on an
    estimate carried by few of its runs measures how far they fell, not its error."""
    rows = []
    for (experiment, replicate), group in paper.groupby(["experiment", "replicate"]):
        group = group.drop_duplicates("hidden_states").sort_values("hidden_states")
        states = group["hidden_states"].to_numpy()
        inside = gold_set(group["gold"], group["gold_se"])
        members = states[inside]
        holes = [int(k) for k in states[~inside] if members.min() < k < members.max()]
        if not holes:
            continue
        best = int(states[np.nanargmax(group["gold"].to_numpy(float))])
        runs = group.set_index("hidden_states")
        beyond = [int(k) for k in members
                  if any(min(k, best) < hole < max(k, best) for hole in holes)]
        rows.append({"experiment": experiment, "replicate": replicate,
                     "gold_set": state_set_text(members), "holes": state_set_text(holes),
                     "beyond": ", ".join(
                         f"{k} on {runs.loc[k, 'gold_effective_runs']:.1f} of "
                         f"{runs.loc[k, 'gold_runs']:g}" if {"gold_effective_runs", "gold_runs"}
                         <= set(runs) else str(k) for k in beyond)})
    return pd.DataFrame(rows)


def _set_holes_line(paper: pd.DataFrame) -> list[str]:
    """Section 2's sentence on the gold sets with holes (:func:`set_holes`); none without."""
    holes = set_holes(paper)
    if holes.empty:
        return []
    return [f"* The set has holes in {len(holes)} data set{'s' * (len(holes) > 1)}: "
            + "; ".join(f"{r.experiment} {int(r.replicate)} ({r.gold_set}: {r.holes} out, "
                        f"beyond it {r.beyond} effective runs)" for r in holes.itertuples())
            + ". A member beyond a hole is in on a wide standard error. Where an estimate "
            f"rests on fewer than {AGREEING_SHARE:.0%} of its runs, that error is how far the "
            "runs fell, not the estimate's own, and it sets the edge of the set that each "
            "Δc is measured to. Section 5 and the verdicts count a Δc measured to such a "
            f"member as decided only where it exceeds {FAR_GAP_SPREADS:g} spreads of the runs "
            "(`choice_reliability`).", ""]


def _delta_c_lines(paper: pd.DataFrame, scores: dict) -> list[str]:
    """The Δc tables of section 2: against the gold standard's set of models, with the set and
    the standard error of its maximum beside them (and the sets with holes,
    :func:`set_holes`), and against Laplace."""
    selection = selection_errors(paper, ["experiment", "replicate"])
    uncertain = int((selection.get("gold_margin_se", pd.Series(dtype=float)) < GOLD_SET_SE)
                    .sum())
    wide = selection[selection["gold_set_size"] > 1]
    return ["* Delta c against the gold-standard choice (mean ± sd over data sets). The gold "
            "standard's choice is the set of test models whose estimate lies within "
            f"{GOLD_SET_SE:g} combined standard errors of its maximum, not the maximum alone: "
            "where its curve is flat the maximum of noisy estimates is no choice. A score's "
            "choice inside the set counts as Δc = 0, outside it as its distance to the "
            "nearest member; the set of each data set and the standard error at the maximum "
            "are beside the table (`tables/paper003_delta_c.csv`):", "",
            _markdown(_selection_summary(selection, "_vs_gold", scores)
                      .merge(_gold_set_summary(selection), on="experiment")), "",
            "* Delta c against Laplace (paper 003's Table 1 yardstick), same data sets:", "",
            _markdown(_selection_summary(selection, "_vs_laplace", scores)), "",
            f"* In {uncertain} of {len(selection)} data sets the best and second-best test "
            f"models are within {GOLD_SET_SE:g} standard errors of each other by the gold "
            f"standard; the set has more than one model in {len(wide)} ("
            + (", ".join(f"{experiment} {count}" for experiment, count in
                         wide.groupby("experiment").size().items()) or "none") + ")."
            + (f" In {int(selection['gold_few_runs'].sum())} data sets the estimate of the best "
               f"or the second-best rests on fewer than {FEW_RUNS:g} effective runs."
               if "gold_few_runs" in selection else ""), "", *_set_holes_line(paper)]


def _selection_summary(selection: pd.DataFrame, suffix: str,
                       labels: dict | None = None) -> pd.DataFrame:
    """Mean ± sd over data sets of each score's Δc column (``suffix``), labelled by ``labels``
    (default :data:`SCORES`; a score missing from it is left out)."""
    labels = SCORES if labels is None else labels
    columns = [c for c in selection.columns
               if c.endswith(suffix) and c.removesuffix(suffix) in labels]
    rows = []
    for experiment, group in selection.groupby("experiment"):
        row = {"experiment": experiment, "data sets": len(group)}
        for column in columns:
            label = labels[column.removesuffix(suffix)]
            values = group[column].dropna()
            if values.empty:
                continue
            row[label] = (f"{values.mean():+.1f} ± {values.std(ddof=1):.1f}"
                          if len(values) > 1 else f"{values.mean():+.1f}")
        rows.append(row)
    return pd.DataFrame(rows).fillna("")


def regular_controls(table: pd.DataFrame) -> pd.DataFrame:
    """The rows of :func:`fitted_slopes`' table that are regular controls: ``de = ds`` and no
    singular truth (:func:`singular_truths`)."""
    return table[(table["ds_half"] == table["de_half"]) & ~singular_truths(table)]


def control_scale(table: pd.DataFrame) -> tuple[float, float]:
    """The regular controls' (:func:`regular_controls`) mean ``slope / (d/2)`` and its standard
    error from their slopes' standard errors."""
    controls = regular_controls(table)
    ratios_se = controls["slope_se"] / controls["ds_half"]
    return (float((controls["slope"] / controls["ds_half"]).mean()),
            float(np.sqrt((ratios_se ** 2).sum()) / len(controls)))


def scaled_comparison(table: pd.DataFrame) -> pd.DataFrame:
    """Each setting with ``de < ds`` (and no singular truth) against de/2 and ds/2 scaled by
    how far the regular controls fall short of their own d/2 over the same sizes, with the
    controls' uncertainty carried into the comparison.

    The scale is the mean of the controls' ``slope / (d/2)``, its standard error from their
    slopes' (``scale_se``). The slope is closer to the scaled de/2 than to the scaled ds/2
    exactly where it lies below their midpoint ``scale (de + ds) / 4``; ``closer`` says so
    (or ds/2) only where the slope's distance from the midpoint exceeds :data:`VERDICT_SE`
    combined standard errors (the slope's and the midpoint's, through the scale), and "cannot
    tell" otherwise; ``consistent_with_closer`` whether the slope is also within
    :data:`VERDICT_SE` combined SE of that scaled prediction (of de/2 where it cannot tell).
    ``told_apart`` is what the comparison can tell (:func:`_scaled_verdict`): "closer" alone
    cannot fail for a slope below both (it is then below their midpoint too). Empty without
    a control."""
    if regular_controls(table).empty:
        return pd.DataFrame()
    scale, scale_se = control_scale(table)
    rows = []
    for row in table[(table["de_half"] < table["ds_half"]) & ~singular_truths(table)].itertuples():
        midpoint = (row.de_half + row.ds_half) / 2
        difference = row.slope - scale * midpoint
        combined = float(np.hypot(row.slope_se, scale_se * midpoint))
        closer = ("de/2" if difference < -VERDICT_SE * combined else
                  "ds/2" if difference > VERDICT_SE * combined else "cannot tell")
        nearer = scale * (row.de_half if closer != "ds/2" else row.ds_half)
        nearer_se = float(np.hypot(row.slope_se, scale_se * nearer / scale))
        rows.append({"setting": row.setting, "slope": row.slope, "slope_se": row.slope_se,
                     "scale": scale, "scale_se": scale_se,
                     "scaled_de_half": scale * row.de_half,
                     "scaled_de_half_se": scale_se * row.de_half,
                     "scaled_ds_half": scale * row.ds_half,
                     "scaled_ds_half_se": scale_se * row.ds_half,
                     "midpoint_difference": difference, "combined_se": combined,
                     "closer": closer,
                     "consistent_with_closer": abs(row.slope - nearer) <= VERDICT_SE * nearer_se,
                     "told_apart": _scaled_verdict(row.slope, row.slope_se, scale, scale_se,
                                                   row.de_half, row.ds_half, closer)})
    return pd.DataFrame(rows)


def _scaled_verdict(slope: float, slope_se: float, scale: float, scale_se: float,
                    de_half: float, ds_half: float, closer: str) -> str:
    """What one slope tells of the scaled de/2 and ds/2 (``de_half < ds_half`` times
    ``scale``; ``closer`` the midpoint test's verdict): "de/2" or "ds/2" where it is closer to
    that one, within :data:`VERDICT_SE` combined SE of it and not of the other (then it tells
    them apart); "below both", "above both" or "between them" where it is consistent with
    neither; "cannot tell" otherwise."""
    consistent = {name: abs(slope - scale * half)
                  <= VERDICT_SE * float(np.hypot(slope_se, scale_se * half))
                  for name, half in (("de/2", de_half), ("ds/2", ds_half))}
    if consistent.get(closer) and not all(consistent.values()):
        return closer
    if any(consistent.values()):
        return "cannot tell"
    return ("below both" if slope < scale * de_half else
            "above both" if slope > scale * ds_half else "between them")


#: The verdicts of :func:`_scaled_verdict` that tell de/2 from ds/2.
TOLD_APART = ("de/2", "ds/2")


def _told_apart_text(comparison: pd.DataFrame) -> str:
    """In how many settings the scaled comparison tells de/2 from ds/2 (:data:`TOLD_APART`),
    and where the others lie, e.g. "1 of 4 settings (w_structure: de/2); below both in 3
    (autoclass, hlc, hlc_paper002)"."""
    told = comparison[comparison["told_apart"].isin(TOLD_APART)]
    text = (f"{len(told)} of {len(comparison)} settings"
            + (f" ({', '.join(f'{r.setting}: {r.told_apart}' for r in told.itertuples())})"
               if len(told) else ""))
    for verdict, cell in comparison[~comparison["told_apart"].isin(TOLD_APART)].groupby(
            "told_apart", sort=False):
        text += f"; {verdict} in {len(cell)} ({', '.join(cell['setting'])})"
    return text


def _control_lines(table: pd.DataFrame) -> list[str]:
    """Compare the slopes with de/2 and ds/2 after scaling both by how far a regular model
    (de = ds, the control) falls short of its own d/2 over the same sizes
    (:func:`scaled_comparison`)."""
    controls = regular_controls(table)
    if controls.empty:
        return []
    scale, scale_se = control_scale(table)
    comparison = scaled_comparison(table)
    lines = ["", f"* Regular control{'s' if len(controls) > 1 else ''} "
             f"({', '.join(controls['setting'])}, de = ds): the fitted slope is "
             f"{scale:.2f} ± {scale_se:.2f} of d/2 over these N, so the asymptotic "
             "(d/2) log N has not been reached at these sample sizes even without "
             "hidden-variable singularities (true parameters drawn from the uniform Dirichlet "
             "are often close to 0 or 1, and a direction contributes its 1/2 log N only once N "
             "times its probability is large)."]
    if comparison.empty:
        return lines
    lines[-1] += (" Scaling both predictions by the same factor (a heuristic: it assumes the "
                  "shortfall carries over between models), with the factor's standard error "
                  "carried into the comparison; \"closer\" only where the slope is more than "
                  f"{VERDICT_SE:g} combined SE from the midpoint of the scaled predictions:")
    for row in comparison.itertuples():
        verdict = (f"closer to {row.closer}" if row.closer != "cannot tell" else
                   "cannot tell de/2 from ds/2")
        if row.told_apart in ("below both", "above both"):
            verdict = (f"{row.told_apart} by more than {VERDICT_SE:g} combined SE, so "
                       f"\"closer to {row.closer}\" tells nothing" if row.closer != "cannot tell"
                       else f"{row.told_apart} by more than {VERDICT_SE:g} combined SE")
        elif row.closer != "cannot tell":
            nearer = row.scaled_de_half if row.closer == "de/2" else row.scaled_ds_half
            side = "below" if row.slope < nearer else "above"
            verdict += (", and consistent with it" if row.consistent_with_closer else
                        f", though {side} it by more than {VERDICT_SE:g} combined SE")
        lines.append(f"  * {row.setting}: slope {row.slope:.2f} ± {row.slope_se:.2f} against "
                     f"scaled de/2 = {row.scaled_de_half:.2f} ± {row.scaled_de_half_se:.2f} and "
                     f"ds/2 = {row.scaled_ds_half:.2f} ± {row.scaled_ds_half_se:.2f}; "
                     f"{row.midpoint_difference:+.2f} from their midpoint (combined SE "
                     f"{row.combined_se:.2f}): {verdict}.")
    lines.append("  * The scaled comparison tells de/2 from ds/2 (the slope closer to one "
                 f"scaled prediction, within {VERDICT_SE:g} combined SE of it and not of the "
                 "other) in " + _told_apart_text(comparison) + ". A slope below both is closer "
                 "to de/2 whatever it is, so there \"closer\" tells nothing.")
    return lines


def runs_agree(estimates: pd.DataFrame) -> pd.Series:
    """Whether each estimate rests on at least :data:`AGREEING_SHARE` of its runs (effective
    runs against runs): then the runs' spread measures its error."""
    return estimates["gold_effective_runs"] >= AGREEING_SHARE * estimates["gold_runs"]


def _run_agreement_lines(paper: pd.DataFrame, large_c=()) -> list[str]:
    """How many gold-standard estimates rest on fewer than :data:`hiddenbn.scores.smc.FEW_RUNS`
    effective runs, for test models with fewer hidden states than the generating model and the
    others, and how many in the large-c experiments carry at least half their runs."""
    if "gold_effective_runs" not in paper:
        return []
    few = paper["gold_effective_runs"] < FEW_RUNS
    fewer_states = paper["hidden_states"] < paper["generating_states"]
    counts = [f"{int(few[group].sum())} of {int(group.sum())} {label}"
              for group, label in ((fewer_states, "with fewer hidden states than the "
                                    "generating model"),
                                   (~fewer_states, "with as many or more"))]
    lines = [f"* Agreement of the SMC runs: {int(few.sum())} of {len(paper)} estimates rest on "
             f"fewer than {FEW_RUNS:g} effective runs ({'; '.join(counts)}). There the runs "
             "ended in different modes, the estimate is the best run's, and its standard error "
             "measures how far the other runs fell, not its own error (`python -m benchmarks "
             "evidence` measures the samplers)."]
    if "gold_runs" in paper:
        for experiment in [e for e in large_c if e in set(paper["experiment"])]:
            cell = paper[(paper["experiment"] == experiment) & paper["gold_runs"].notna()]
            if cell.empty:
                continue
            half = runs_agree(cell)
            data_sets = cell["replicate"].nunique()
            lines.append(f"  * {experiment} ({data_sets} data set{'s' * (data_sets > 1)}): "
                         f"{int(half.sum())} of {len(cell)} estimates rest on at least half "
                         f"their runs; fewer at " + (", ".join(
                             f"{int(k)}" for k in sorted(cell.loc[~half, "hidden_states"]
                                                         .unique())) or "none")
                         + " hidden states.")
    return lines


#: The columns of one gold-standard estimate that :func:`doubled_particles` sets beside the
#: same estimated again with twice the particles.
ESTIMATE_COLUMNS = ["gold", "gold_se", "gold_effective_runs", "gold_runs"]


def doubled_particles(paper: pd.DataFrame, doubled: pd.DataFrame) -> pd.DataFrame:
    """Each gold-standard estimate beside its estimate with twice the particles (independent
    seeds): one row per (experiment, data set, test model) of ``doubled``, with ``shift``
    (doubled minus the original, nats), ``shift_se`` (the shift in the original's standard
    errors), ``shift_combined_se`` (in the standard error of the difference), ``testable``
    (both estimates rest on at least :data:`hiddenbn.scores.smc.FEW_RUNS` effective runs:
    elsewhere an estimate is the best run's and its standard error measures how far the other
    runs fell, not its error, so no shift can be judged against it), ``doubling_threshold``
    (:func:`doubling_threshold` over the experiment's testable rows; NaN where none is),
    ``detectable_shift`` (the smallest shift in nats beyond it, at a testable estimate),
    ``moved`` (a testable estimate with ``|shift_combined_se|`` beyond the threshold: more than
    chance moves a converged estimate), ``systematic_p`` (the two-sided signed-rank p-value of
    the shifts of all the experiment's estimates,
    :func:`hiddenbn.experiments.comparison.signed_rank_p_value`),
    ``systematic`` (``systematic_p`` below :func:`doubling_false_alarm_rate` of one estimate:
    the estimates shift together, which a log-SMC estimate, biased low, does upwards until it
    has converged) and ``delta_c_moved`` (the doubled estimates change some score's ``Delta c``
    in the data set: :func:`doubled_choices`)."""
    keys = ["experiment", "replicate", "hidden_states"]
    table = paper.drop_duplicates(keys)[keys + ESTIMATE_COLUMNS].merge(
        doubled.drop_duplicates(keys)[keys + ESTIMATE_COLUMNS], on=keys,
        suffixes=("", "_doubled"))
    table["shift"] = table["gold_doubled"] - table["gold"]
    table["shift_se"] = table["shift"] / table["gold_se"].where(table["gold_se"] > 0)
    difference_se = np.hypot(table["gold_se"], table["gold_se_doubled"])
    table["shift_combined_se"] = table["shift"] / difference_se
    table["testable"] = ((table["gold_effective_runs"] >= FEW_RUNS)
                         & (table["gold_effective_runs_doubled"] >= FEW_RUNS))
    testable = table.groupby("experiment")["testable"].transform("sum").to_numpy()
    table["doubling_threshold"] = np.where(testable > 0,
                                           doubling_threshold(np.maximum(testable, 1)), np.nan)
    table["detectable_shift"] = (table["doubling_threshold"] * difference_se).where(
        table["testable"])
    table["moved"] = table["testable"] & (table["shift_combined_se"].abs()
                                          > table["doubling_threshold"])
    table["systematic_p"] = table.groupby("experiment")["shift"].transform(signed_rank_p_value)
    table["systematic"] = table["systematic_p"] < float(doubling_false_alarm_rate(1))
    choices = doubled_choices(paper, table)
    changed = choices[choices["delta"] != choices["delta_doubled"]]
    changed = set(zip(changed["experiment"], changed["replicate"]))
    table["delta_c_moved"] = [key in changed
                              for key in zip(table["experiment"], table["replicate"])]
    return table


def doubled_data_sets(paper: pd.DataFrame, table: pd.DataFrame) -> tuple:
    """The data sets of ``table`` (:func:`doubled_particles`) as ``paper`` has them, and the
    same with the estimates made with twice the particles in place of the originals
    (:func:`with_doubled_estimates`)."""
    original = paper.merge(table[["experiment", "replicate"]].drop_duplicates())
    return original, with_doubled_estimates(original, table)


def doubled_choices(paper: pd.DataFrame, table: pd.DataFrame) -> pd.DataFrame:
    """Each score's ``Delta c`` in each data set of ``table`` (:func:`doubled_particles`) on
    the original estimates and on the doubled ones (:func:`with_doubled_estimates`): the rows
    of :func:`choice_reliability` on the originals with ``nearest_doubled`` (the nearest member
    of the gold set on the doubled estimates), ``delta`` and ``delta_doubled``
    (:func:`delta_to_set`); empty where ``paper`` has no score."""
    keys = ["experiment", "replicate", "score"]
    if not distinct_scores(paper, PAPERS_SCORES):
        return pd.DataFrame(columns=[*keys, "choice", "nearest", "nearest_doubled", "delta",
                                     "delta_doubled"])
    original, again = doubled_data_sets(paper, table)
    choices, doubled = choice_reliability(original), choice_reliability(again)
    choices = choices.merge(doubled[keys + ["nearest"]], on=keys, suffixes=("", "_doubled"))
    return choices.assign(delta=choices["choice"] - choices["nearest"],
                          delta_doubled=choices["choice"] - choices["nearest_doubled"])


def doubling_failures(table: pd.DataFrame | None) -> dict:
    """Why twice the particles call each experiment of ``table`` (:func:`doubled_particles`)
    unconverged: the experiment -> the rules it fails (a testable estimate moved beyond chance,
    a systematic shift of its estimates, or a ``Delta c`` the doubled gold set changes); the
    experiments that fail none are left out."""
    failures = {}
    if table is None or table.empty:
        return failures
    for experiment, cell in table.groupby("experiment"):
        reasons = []
        if cell["moved"].any():
            reasons.append(f"{int(cell['moved'].sum())} of {int(cell['testable'].sum())} "
                           "testable estimates move by more than "
                           f"{cell['doubling_threshold'].iloc[0]:.2f} SE of the difference")
        if cell["systematic"].iloc[0]:
            reasons.append(f"its estimates {_shift_direction(cell['shift'])} together, "
                           f"signed-rank p = {cell['systematic_p'].iloc[0]:.2g}")
        if cell["delta_c_moved"].any():
            reasons.append("the gold set moves and with it a score's Δc")
        if reasons:
            failures[experiment] = reasons
    return failures


def _shift_direction(shifts) -> str:
    """"rise" or "fall", by the sign of the mean of ``shifts``."""
    return "rise" if np.mean(shifts) > 0 else "fall"


def doubling_threshold(estimates):
    """The standard errors of the difference beyond which twice the particles move one of an
    experiment's ``estimates`` testable re-estimated values (a count, or an array of counts)
    beyond chance: the two-sided rate of :data:`DOUBLING_NOISE_SE` shared out over them
    (Bonferroni), so that a converged gold standard, whose shifts are standard normal on this
    scale, is called unconverged in at most that rate of experiments
    (:func:`doubling_false_alarm_rate` per estimate)."""
    return norm.isf(doubling_false_alarm_rate(estimates) / 2)


def doubling_false_alarm_rate(estimates):
    """The chance that :func:`doubling_threshold` calls one of ``estimates`` (a count, or an
    array of counts) shifts of a converged estimate a move: the two-sided rate of
    :data:`DOUBLING_NOISE_SE` over ``estimates``."""
    return 2 * norm.sf(DOUBLING_NOISE_SE) / np.asarray(estimates, dtype=float)


def _doubled_particles_lines(table: pd.DataFrame, paper: pd.DataFrame) -> list[str]:
    """Whether the large-c gold standard has converged: its runs agree (at least
    :data:`AGREEING_SHARE` of them effective) and twice the particles (``table``,
    :func:`doubled_particles`, of the data sets of ``paper``) change nothing beyond chance:
    no testable estimate moves beyond :func:`doubling_threshold`, the estimates do not shift
    together, and no score's ``Delta c`` changes with the gold set (:func:`doubled_choices`);
    beside each ``Delta c``, the smallest shift the doubling could call a move at the estimates
    that decide it."""
    if table.empty:
        return []
    chance = float(doubling_false_alarm_rate(1))
    lines = ["### Has the gold standard converged at large c?", "",
             "Every estimate of the data sets below was made again with twice the particles of "
             "both samplers, from independent seeds (`tables/doubled_particles.csv`). A "
             f"converged estimate rests on at least {AGREEING_SHARE:.0%} of its runs, and twice "
             "the particles change nothing beyond chance, by three rules. (1) Each estimate: "
             f"only where both rest on at least {FEW_RUNS:g} effective runs (elsewhere the "
             "estimate is the best run's and its standard error measures how far the other "
             "runs fell, not its error, so no shift can be judged against it: not testable by "
             f"doubling). By chance a shift lies beyond {DOUBLING_NOISE_SE:g} standard errors "
             f"of the difference in {chance:.1%} of estimates, so an estimate has moved only "
             f"beyond the threshold that shares that {chance:.1%} out over its experiment's "
             "testable estimates (Bonferroni). (2) All the experiment's estimates: a two-sided "
             f"signed-rank test of their shifts at {chance:.1%}. A log-SMC estimate is biased "
             "low, so estimates that still rise with the particles have not converged (a fall "
             "says the runs' modes disagree). (3) The gold set on the doubled estimates: where a "
             "score's Δc changes, the gold standard does not decide that Δc at these particles "
             "(at the set's edge chance alone can do that; this rule makes no allowance for "
             f"it). An experiment whose estimates have all converged fails (1) or (2) in at "
             f"most {chance:.1%} of runs each. An experiment that fails any of the three has "
             "not converged in the particles, and every verdict is judged again without it "
             "(`verdicts.csv`). Beside each Δc: the "
             "estimates that decide it (the score's choice and the nearest member of the gold "
             "set), the nats between them, and the smallest shift rule (1) calls a move at "
             "each.", ""]
    choices = doubled_choices(paper, table)
    keys = ["experiment", "replicate"]
    sets = [selection_errors(frame, keys).set_index(keys)["gold_set"]
            for frame in doubled_data_sets(paper, table)]
    for (experiment, replicate), cell in table.groupby(["experiment", "replicate"]):
        agree = runs_agree(cell)
        testable = cell[cell["testable"]]
        shifts = table.loc[table["experiment"] == experiment, "shift"]
        p_value = float(cell["systematic_p"].iloc[0])
        text = (f"* {experiment}, data set {int(replicate)}: {int(agree.sum())} of {len(cell)} "
                f"estimates rest on at least half their runs. (1) {len(testable)} of "
                f"{len(cell)} are testable by doubling, {len(cell) - len(testable)} not")
        if testable.empty:
            text += "."
        else:
            threshold = float(cell["doubling_threshold"].iloc[0])
            worst = testable.loc[testable["shift_combined_se"].abs().idxmax()]
            text += (f"; twice the particles move {int(cell['moved'].sum())} of them beyond "
                     f"chance (by more than {threshold:.2f} SE of the difference, which a "
                     f"converged estimate crosses with chance {2 * norm.sf(threshold):.2%}), "
                     f"{int((testable['shift_combined_se'].abs() > DOUBLING_NOISE_SE).sum())} "
                     f"by more than {DOUBLING_NOISE_SE:g} SE, where chance alone gives "
                     f"{chance * len(testable):.1f}; the largest in standard errors "
                     f"{worst['shift']:+.1f} nats ({worst['shift_combined_se']:+.2f} SE of the "
                     f"difference), at {int(worst['hidden_states'])} hidden states.")
        text += (f" (2) The shifts of {experiment}'s {len(shifts)} estimates: mean "
                 f"{shifts.mean():+.1f} ± {shifts.std(ddof=1) / np.sqrt(len(shifts)):.1f} nats, "
                 f"{int((shifts > 0).sum())} of {len(shifts)} up, signed-rank p = {p_value:.2g}: "
                 + (f"the estimates still {_shift_direction(shifts)} with the particles."
                    if cell["systematic"].iloc[0] else "no systematic shift."))
        mine = choices[(choices["experiment"] == experiment)
                       & (choices["replicate"] == replicate)]
        if not mine.empty:
            before, after = (data_set[(experiment, replicate)] for data_set in sets)
            text += (f" (3) Gold set {before} → {after} with twice the particles; Δc"
                     + ("" if cell["delta_c_moved"].iloc[0] else ", none changed:") + " "
                     + ", ".join(f"{r.score} {r.delta:+d}"
                                 + (f" → {r.delta_doubled:+d}" if r.delta_doubled != r.delta
                                    else "")
                                 for r in mine.itertuples())
                     + ". Decided at " + _decided_at_text(mine, cell) + ".")
        failed = [rule for rule, fails in (
            ("the runs' agreement", not agree.all()), ("the doubling", cell["moved"].any()),
            ("the systematic shift", cell["systematic"].iloc[0]),
            ("the gold set", cell["delta_c_moved"].iloc[0])) if fails]
        text += (" Converged by every rule." if not failed else
                 " Not converged by " + ", ".join(failed[:-1])
                 + (" and " if len(failed) > 1 else "") + failed[-1]
                 + ": the verdicts on paper 003's claims are judged again without it "
                 "(`verdicts.csv`).")
        lines.append(text)
    return lines + [""]


def _decided_at_text(choices: pd.DataFrame, cell: pd.DataFrame) -> str:
    """The estimates that decide each score's ``Delta c`` (``choices``, rows of
    :func:`doubled_choices` for one data set): the choice and the nearest member of the gold
    set, the nats between them, and the smallest shift the doubling calls a move at each
    (``cell``, :func:`doubled_particles`'s rows of the data set), for findings.md."""
    detectable = cell.set_index("hidden_states")["detectable_shift"]

    def at(states) -> str:
        values = [detectable.get(k, np.nan) for k in states]
        if not np.isfinite(values).any():
            return ("neither" if len(states) > 1 else "not") + " testable by doubling"
        return ", ".join(f"{value:.1f} nats at {k}" if np.isfinite(value)
                         else f"not testable at {k}" for k, value in zip(states, values))

    parts = []
    for (choice, nearest), group in choices.groupby(["choice", "nearest"], sort=False):
        scores = ", ".join(group["score"])
        parts.append(f"{scores}: {choice}, inside the set ({at([choice])})" if choice == nearest
                     else f"{scores}: {choice} and {nearest}, {group['gap'].iloc[0]:.1f} nats "
                          f"apart ({at([choice, nearest])})")
    return "; ".join(parts)


def _sampler_lines(paper: pd.DataFrame) -> list[str]:
    """How the estimates were made: runs, particles and samplers, and their CPU time (in a
    ``_seconds`` column, the one place a measured time may differ between two runs)."""
    if "gold_sampler" not in paper:
        return []
    estimates = paper.drop_duplicates(["experiment", "replicate", "hidden_states"])
    if "gold_seconds" not in estimates:
        estimates = estimates.assign(gold_seconds=np.nan)
    samplers = (estimates.groupby(["gold_sampler", "gold_runs", "gold_particles"])
                .agg(estimates=("gold_seconds", "size"), cpu_seconds=("gold_seconds", "sum"))
                .reset_index())
    samplers = samplers.rename(columns={"gold_sampler": "sampler", "gold_runs": "runs",
                                        "gold_particles": "particles per run over the cases"})
    return ["* Estimates: the SMC over the cases where the test model has as many hidden states "
            "as the generating one or more; half the runs by tempering (population annealing) "
            "where it has fewer, where the runs over the cases alone end tens of nats apart "
            "(`hiddenbn.scores.smc`).", "",
            pipe_table(samplers, general_cell), ""]


def _first_data_sets(paper: pd.DataFrame) -> pd.DataFrame:
    """The rows the figures draw: each experiment's first data set."""
    first = paper.groupby("experiment")["replicate"].transform("min")
    return paper[paper["replicate"] == first]


def level_unresolved(frame: pd.DataFrame, scores) -> pd.Series:
    """Per row (test model): whether the gold standard's ± 2 SE band reaches a level at which
    another of ``scores`` would be the closest to it (the midpoint between the closest score
    and that one), so that the estimate cannot tell which score is closest in level there."""
    values = frame[list(scores)].to_numpy(float)
    gold = frame["gold"].to_numpy(float)[:, None]
    errors = np.abs(values - gold)
    unresolved = np.zeros(len(frame), bool)
    defined = ~np.all(np.isnan(errors), axis=1)
    rows = np.flatnonzero(defined)
    closest = values[rows, np.nanargmin(errors[rows], axis=1)][:, None]
    with np.errstate(invalid="ignore"):  # a score undefined there crosses nothing
        reach = np.abs(gold[rows] - (closest + values[rows]) / 2) \
            < 2 * frame["gold_se"].to_numpy(float)[rows, None]
    # the closest score's own midpoint is itself: it never decides
    reach &= values[rows] != closest
    unresolved[rows] = reach.any(axis=1)
    return pd.Series(unresolved, index=frame.index)


def _drawn_by_every_score(drawn: pd.DataFrame, scores) -> pd.DataFrame:
    """The rows of ``drawn`` where every score of ``scores`` with a point anywhere in it has
    one, so that a figure's counts and means compare the scores on the same points (as
    :func:`common_data_sets` does for section 5's data sets)."""
    present = [score for score in scores if drawn[score].notna().any()]
    return drawn[drawn[present].notna().all(axis=1)]


def _errors_figure_lines(paper: pd.DataFrame) -> list[str]:
    """The section of ``figures/paper003_errors.png``: each score minus the gold standard,
    counted from the points it draws; the mean |score − gold| over the points where every
    score is drawn (:func:`_drawn_by_every_score`), each score's over all its points beside."""
    drawn = _first_data_sets(paper)
    scores = distinct_scores(paper)
    below = {label: (int((drawn[s] < drawn["gold"]).sum()), int(drawn[s].notna().sum()))
             for s, label in scores.items()}
    # the means over the points where every score is drawn: sBIC has none in the large-c
    # panels, where the others miss by thousands of nats, and a mean over its own points alone
    # would rank the panels, not the scores
    shared = _drawn_by_every_score(drawn, scores)
    level = {label: float((shared[s] - shared["gold"]).abs().mean())
             for s, label in scores.items()}
    own = {label: (float((drawn[s] - drawn["gold"]).abs().mean()), int(drawn[s].notna().sum()))
           for s, label in scores.items()}
    best = min(level, key=level.get)
    panels = drawn.groupby("experiment")
    growth = []  # does |error| grow from a panel's smallest test model to its largest?
    for _, cell in panels:
        cell = cell.sort_values("hidden_states")
        for score in scores:
            error = (cell[score] - cell["gold"]).abs().dropna()
            if len(error) > 1:
                growth.append(error.iloc[-1] > error.iloc[0])
    # a point whose gold band reaches a level where another score would be closest decides
    # nothing about which score is closest
    resolved = drawn[~level_unresolved(drawn, scores)]
    closest = resolved.groupby("experiment").apply(lambda cell: scores[min(
        scores, key=lambda s: np.nanmean(np.abs(cell[s] - cell["gold"]))
        if cell[s].notna().any() else np.inf)], include_groups=False).value_counts()
    left_out = [f"{_experiment_title(cell)} at {state_set_text(cell['hidden_states'])} "
                f"(gold SE up to {cell['gold_se'].max():.1f} nats)"
                for _, cell in drawn[level_unresolved(drawn, scores)].groupby("experiment")]
    return ["### Figure `figures/paper003_errors.png`", "",
            "Each approximation minus the gold standard against the test model's hidden "
            f"states, the first data set of each of the {panels.ngroups} experiments (grey: ± 2 "
            f"standard errors of the gold standard; dotted: the generating c; {AXIS_TEXT}). "
            + _figure_gold_note(drawn, scores), "",
            "* Points below the gold standard (score < log p(D|S)): " + ", ".join(
                f"{label} {b} of {n}" for label, (b, n) in below.items()) + ".",
            "* Mean |score − gold| over the "
            + (f"{len(shared)} points where every score is drawn (nats; in brackets, over "
               "all the points the score draws): " if len(shared) < len(drawn)
               else "points drawn (nats): ") + ", ".join(
                f"{label} {value:.1f}" + (f" ({own[label][0]:.1f} over {own[label][1]})"
                                          if own[label][1] > len(shared) else "")
                for label, value in sorted(level.items(), key=lambda x: x[1])) + ".",
            "* Closest in level per panel, over the points where the gold standard's ± 2 SE "
            "band cannot change which score is closest to it: " + ", ".join(
                f"{label} in {count}" for label, count in closest.items())
            + (f" of {closest.sum()} panels; left out, where it can: "
               + "; ".join(left_out) if left_out else "") + ".",
            f"* |score − gold| is larger at a panel's largest test model than at its smallest "
            f"for {sum(growth)} of {len(growth)} (panel, score) pairs.",
            "* Verdict: no approximation follows the level of log p(D|S); closest "
            + _level_verdict(best, level[best], closest)
            + (", and the errors grow with the hidden states." if
               sum(growth) > len(growth) / 2 else "."), ""]


def _figure_gold_note(drawn: pd.DataFrame, scores: dict) -> str:
    """What the paper-003 figures draw apart, from the points ``drawn``
    (:func:`_first_data_sets`): the gold estimates on fewer than
    :data:`hiddenbn.scores.smc.FEW_RUNS` effective runs (hollow, no band) and the panels
    without sBIC (among ``scores``), which is not defined where the test models do not start
    at 1."""
    few = drawn[drawn["gold_effective_runs"] < FEW_RUNS] \
        if "gold_effective_runs" in drawn else drawn.iloc[:0]
    note = (f"Hollow gold markers, without a band: the {len(few)} of {len(drawn)} estimates "
            f"that rest on fewer than {FEW_RUNS:g} effective runs ("
            + ", ".join(f"{_experiment_title(cell)} at {state_set_text(cell['hidden_states'])}"
                        for _, cell in few.groupby("experiment"))
            + "); there the standard error measures how far the other runs fell, not the "
            "estimate's error." if len(few) else "")
    if "sbic_log_evidence" in scores:
        missing = [_experiment_title(cell) for _, cell in drawn.groupby("experiment")
                   if cell["sbic_log_evidence"].isna().all()]
        if missing:
            note += ((" " if note else "") + "sBIC is not defined where the test models do "
                     f"not start at 1, so it has no curve at {'; '.join(missing)}.")
    return note


def _level_verdict(best: str, mean: float, panels: pd.Series) -> str:
    """Which score is closest in level, by both readings of :func:`_errors_figure_lines`:
    ``best`` by the mean |score − gold| over the points (``mean`` nats; the largest test
    models, where every error is in the hundreds, weigh most) and the scores closest in the
    most panels (``panels``: per score, the panels where it is closest)."""
    if panels.empty:
        return f"on average {best} ({mean:.1f} nats)"
    top = panels[panels == panels.max()]
    counted = f"{int(panels.max())} of {int(panels.sum())}" + (" each" if len(top) > 1 else "")
    if list(top.index) == [best]:
        return f"{best}, on average ({mean:.1f} nats) and in the most panels ({counted})"
    return (f"on average {best} ({mean:.1f} nats), in the most panels "
            f"{' and '.join(top.index)} ({counted})")


def _shapes_figure_lines(paper: pd.DataFrame) -> list[str]:
    """The section of ``figures/paper003_shapes.png``: each curve minus its maximum, the
    panels where each score peaks with the gold standard and where each is closest in shape,
    counted over the panels where every score has a curve (each score's count over all its
    panels beside: sBIC has none in the large-c panels), and MLED's dips explained."""
    drawn = _first_data_sets(paper)
    scores = distinct_scores(paper)
    panels = list(drawn.groupby("experiment"))
    shared = set(_drawn_by_every_score(drawn, scores)["experiment"])
    peaks, closest = {label: [] for label in scores.values()}, {}
    for experiment, cell in panels:
        chosen = set(cell.loc[gold_set(cell["gold"], cell["gold_se"]), "hidden_states"])
        distance = {}
        for score, label in scores.items():
            curve = cell.dropna(subset=[score])
            if curve.empty:
                continue
            peaks[label].append((experiment, curve.loc[curve[score].idxmax(), "hidden_states"]
                                 in chosen))
            distance[label] = float(np.mean(np.abs(
                (curve[score] - curve[score].max())
                - (curve["gold"] - cell["gold"].max()))))
        closest[experiment] = min(distance, key=distance.get)
    wins = pd.Series([label for experiment, label in closest.items() if experiment in shared],
                     dtype=object).value_counts()
    others = {experiment: label for experiment, label in closest.items()
              if experiment not in shared}

    def peaked(label: str) -> str:
        on_shared = sum(inside for experiment, inside in peaks[label] if experiment in shared)
        mine = sum(inside for _, inside in peaks[label])
        return (f"{label} {on_shared} of {len(shared)}" + (
            f" ({mine} of {len(peaks[label])})" if len(peaks[label]) > len(shared) else ""))

    apart = len(shared) < len(panels)
    verdict = (f"{wins.index[0]} is closest in shape in {int(wins.iloc[0])} of {len(shared)}"
               + (" panels where every score has a curve" if apart else " panels")
               + (f", Laplace in {int(wins.get('Laplace', 0))}"
                  if wins.index[0] != "Laplace" else "")
               if not wins.empty else "no panel has every score's curve")
    if others:
        verdict += (f"; in the other {len(others)} ({', '.join(others)}) "
                    + ", ".join(f"{label} in {count}" for label, count in
                                pd.Series(others).value_counts().items()))
    return ["### Figure `figures/paper003_shapes.png`", "",
            "Each curve minus its own maximum against the test model's hidden states, the "
            "gold standard's in black (± 2 standard errors in grey), first data set of each "
            "experiment: only the shape matters for selection and averaging (paper 003 Sec. "
            "4), and of it only the test models near the maximum (section 5 weighs them by "
            f"their posterior weights; {AXIS_TEXT}). " + _figure_gold_note(drawn, scores), "",
            "* Panels where the score's maximum is among the gold standard's choice (within "
            f"{GOLD_SET_SE:g} combined SE of its maximum)"
            + (f", of the {len(shared)} where every score has a curve (in brackets, of all "
               "the panels where the score has one)" if apart else "") + ": "
            + ", ".join(peaked(label) for label in peaks) + ".",
            "* Closest in shape per panel: " + ", ".join(
                f"{experiment} {label}" for experiment, label in closest.items()) + ".",
            f"* Verdict: {verdict}."] + _mled_entropy_lines(paper) + [""]


def _mled_entropy_lines(paper: pd.DataFrame) -> list[str]:
    """Why MLED's curve dips where the others peak: ``MLED = CS - sum_l H[p(h | x_l)]``
    (paper 003 Eqs. 12-13 with ``d' = d``: ``log p(D | theta) - log p(D' | theta)`` is the
    entropy of the hidden class's posterior summed over the cases), so MLED pays for a fit's
    soft classification. For the panel where that entropy varies most over the test models
    (first data sets, as drawn): the entropy at each test model, beside that of the generating
    parameters, and where it peaks in the experiment's other data sets."""
    if not {"mled", "cs"} <= set(paper):
        return []
    paper = paper.assign(entropy=paper["cs"] - paper["mled"])
    drawn = _first_data_sets(paper)
    spread = drawn.groupby("experiment")["entropy"].agg(lambda h: h.max() - h.min())
    if spread.empty or not np.isfinite(spread.max()):
        return []
    worst = spread.idxmax()
    cell = drawn[drawn["experiment"] == worst].sort_values("hidden_states")
    mled_shape = cell["mled"] - cell["mled"].max()
    dip = cell.loc[cell["entropy"].idxmax()]
    line = (f"* MLED's dip: MLED = CS − Σ_l H[p(h | x_l, θ)] (Eqs. 12-13 with d′ = d: log "
            "p(D|θ) − log p(D′|θ) is the posterior entropy of the hidden class summed over "
            "the cases), so MLED pays for a soft classification. Its curve parts most from CS's in "
            f"panel {_experiment_title(cell)}, where that entropy (nats) is, by test model, "
            + ", ".join(f"{int(k)}: {h:.0f}" for k, h in zip(cell["hidden_states"],
                                                            cell["entropy"]))
            + f"; at {int(dip['hidden_states'])} hidden states, where it peaks, MLED lies "
            f"{-mled_shape[dip.name]:.0f} nats below its maximum while the gold standard's "
            f"maximum is at {int(cell.loc[cell['gold'].idxmax(), 'hidden_states'])}")
    if "generating_entropy" in cell and np.isfinite(cell["generating_entropy"].iloc[0]):
        generating = cell["generating_entropy"].iloc[0]
        line += (f"; the generating parameters give {generating:.0f} nats "
                 f"({generating / cell['cases'].iloc[0]:.2f} per case): the generating classes "
                 "overlap")
    others = paper[(paper["experiment"] == worst) & (paper["replicate"] != cell["replicate"]
                                                     .iloc[0])]
    peaks = [f"{int(group.loc[group['entropy'].idxmax(), 'hidden_states'])} in data set "
             f"{replicate}" for replicate, group in others.groupby("replicate")]
    return [line + ". The dip follows how soft each fit's classification is, not the "
            "marginal likelihood; CS adds the entropy back, which is why CS and the gold "
            "standard do not dip." + (" In the experiment's other data sets the entropy "
                                      "peaks at " + ", ".join(peaks) + " hidden states."
                                      if peaks else "")]


def _sbic_variants_note(frame: pd.DataFrame) -> str:
    """What "sBIC φ = x" means, for the first table of a section that shows it."""
    if not sbic_variants(frame):
        return ""
    return (f"; sBIC is at the sBIC package's prior parameter φ = {DEFAULT_PHI_TEXT}, sBIC "
            f"φ = x at φ = x and sBIC φ = f {DEFAULT_PHI_TEXT} at the fraction f of the "
            "package's φ (section 5)")


def findings(exact: pd.DataFrame, paper: pd.DataFrame, slopes: pd.DataFrame,
             large_c=(), doubled: pd.DataFrame | None = None,
             rusakov_geiger: dict | None = None, bounds: dict | None = None,
             fits_prior_alpha: float | None = None) -> str:
    """``findings.md``: what the gold standard says, in plain words and numbers, with a section
    for each figure; ``large_c``: the experiments of ``gold_standard.paper003.large_c``;
    ``doubled``: :func:`doubled_particles`'s table, if any; ``rusakov_geiger`` and ``bounds``:
    the slope settings' :func:`rusakov_geiger_coefficients` and :func:`latent_class_bounds`,
    if known; ``fits_prior_alpha``: the Dirichlet parameter of the exact and paper-003 fits,
    one of the phi at which sBIC is computed (:func:`write_report`)."""
    lines = ["# Gold standard for the marginal likelihood: findings", "",
             "Generated by `hiddenbn.experiments.gold_standard.findings` from the tables in "
             "`tables/`. The gold standard is the SMC estimate of log p(D|S) "
             "(`hiddenbn.scores.smc`; ± its standard error from independent runs), and the exact "
             "sum over completions (`hiddenbn.scores.exact`) where that is feasible.", ""]
    if not exact.empty:
        # one hidden state: nothing is sampled and the SE is rounding noise, so no z-score
        z = (exact["gold"] - exact["exact"]) / exact["gold_se"].where(exact["gold_se"] > 1e-9)
        lines += ["## 1. Small data sets, exact values (paper 003's journal setting)", "",
                  f"{exact['replicate'].nunique()} data sets of N = {int(exact['cases'].iloc[0])}"
                  f" cases; test models with {exact['hidden_states'].min()} to "
                  f"{exact['hidden_states'].max()} hidden states.", "",
                  f"* The SMC estimator against the exact value: largest |error| "
                  f"{(exact['gold'] - exact['exact']).abs().max():.3f} nats, largest |error| / SE "
                  f"{np.nanmax(np.abs(z)):.1f} over the {int(z.notna().sum())} of "
                  f"{len(exact)} (data set, model) pairs with something sampled (with one "
                  "hidden state the estimate is exact and its SE rounding noise); the largest SE "
                  f"here is {exact['gold_se'].max():.2g} nats. This checks the sampler on "
                  "small cases only; section 2 says on how many agreeing runs the estimates on "
                  "paper 003's settings rest.",
                  "* Mean error of each approximation against the exact log p(D|S) (nats), by "
                  "test model" + _sbic_variants_note(exact) + ":", ""]
        against_exact = exact.assign(gold=exact["exact"], gold_se=0.0)
        table = score_errors(against_exact, ["hidden_states"])
        present = score_labels(exact)
        lines += [_markdown(table[["hidden_states", *[f"{s}_mean" for s in present]]]
                            .rename(columns={f"{s}_mean": label
                                             for s, label in present.items()})), ""]
        ranking = _ranking(against_exact, variants=True)
        lines += ["* Ranked by mean |error|: " + ", ".join(f"{label} ({value:.1f})"
                                                          for label, value in ranking) + ".",
                  ""]
        selection = selection_errors(against_exact.assign(experiment="exact"),
                                     ["experiment", "replicate"])
        lines += ["* Delta c against the exact choice (mean ± sd over data sets):", "",
                  _markdown(_selection_summary(selection, "_vs_gold", present)), ""]
        lines += range_edge_lines(exact) + _exact_wbic_sbic_lines(exact)
    if not paper.empty:
        lines += ["## 2. Paper 003's settings against the SMC gold standard", "",
                  _fits_line(paper), ""] + _sampler_lines(paper)
        scores = distinct_scores(paper, variants=True)
        lines += _headline_lines(paper, large_c) + [""]
        by_states = score_errors(paper, ["hidden_states"])
        lines += ["* Mean error (score - gold, nats) by the test model's hidden states, all "
                  "experiments pooled; gold SE is the mean SMC standard error. log k! is the "
                  "mass of the k! label-permuted copies of a mode, which a one-mode "
                  "approximation misses when the modes are separated"
                  + _sbic_variants_note(paper) + ":", "",
                  _markdown(by_states[["hidden_states", *[f"{s}_mean" for s in scores],
                                       "gold_se_mean"]]
                            .assign(log_k_factorial=[float(np.sum(np.log(np.arange(1, k + 1))))
                                                     for k in by_states["hidden_states"]])
                            .rename(columns={f"{s}_mean": label for s, label in scores.items()}
                                    | {"gold_se_mean": "gold SE"})), ""]
        lines += _run_agreement_lines(paper, large_c) + [""]
        lines += _doubled_particles_lines(
            doubled if doubled is not None else pd.DataFrame(), paper)
        shapes = shape_errors(paper, ["experiment"])
        weights = weight_errors(paper, ["experiment"])
        data_sets = int(paper.groupby("experiment")["replicate"].nunique().max())
        lines += ["* Shape: distance of each curve minus its maximum from the gold standard's "
                  "curve minus its maximum (nats, mean over data sets and test models). Only "
                  "the shape matters for model averaging and selection (paper 003 Sec. 4), but "
                  "this distance weighs every test model alike, so the test models far below "
                  "the maximum, which neither uses, weigh most: it describes the curves:", "",
                  _markdown(shapes[["experiment", *scores]].rename(columns=scores)), "",
                  "* Posterior weights: the total-variation distance between the weights each "
                  "score gives the test models, exp(score − its maximum) normalised (equal prior "
                  "on the test models), and the gold standard's (0: the same weights, 1: on "
                  "different models; mean over data sets): what model averaging uses:", "",
                  _markdown(weights[["experiment", *scores]].rename(columns=scores)), "",
                  "* Closest per experiment, in shape: " + _closest_per_experiment(
                      shapes, scores, 1) + "; in the posterior weights: "
                  + _closest_per_experiment(weights, scores, 2) + "."
                  + (f" With at most {data_sets} data sets an experiment is too few for a "
                     f"paired signed-rank test to tell two scores apart at {CLAIM_LEVEL:g}: "
                     "the smallest mean, not a verdict; section 5 tests over all data sets."
                     if smallest_p_value(data_sets) >= CLAIM_LEVEL else ""), ""]
        lines += _delta_c_lines(paper, scores)
        lines += range_edge_lines(paper)
        lines += _errors_figure_lines(paper) + _shapes_figure_lines(paper)
    if not slopes.empty:
        table = fitted_slopes(slopes, rusakov_geiger, bounds)
        singular = set(table.loc[singular_truths(table), "setting"])
        sizes = slopes.groupby("setting")["cases"].unique()
        lines += ["## 3. The penalty: slope of log p(D|theta_ML) - log p(D) against log N", "",
                  "Sample sizes: " + "; ".join(f"{setting} {', '.join(map(str, sorted(n)))}"
                                               for setting, n in sizes.items())
                  + ". Nested data sets per replicate; slope fitted per replicate, mean ± SE "
                  "over replicates; a slope is consistent with a prediction within Student's t "
                  "quantile (97.5%, replicates - 1 df) of its SE, since the SE of a few "
                  "replicates' spread is itself uncertain.", "",
                  _markdown(table.rename(columns={"rusakov_geiger": "rusakov_geiger (ours)"})),
                  ""]
        for row in table.itertuples():
            halves = row.ds_half, row.de_half, getattr(row, "replicates", None)
            lines.append(f"* {row.setting} (ds/2 = {row.ds_half:g}, de/2 = {row.de_half:g}): "
                         f"slope over all N {row.slope:.2f} ± {row.slope_se:.2f}, "
                         f"{slope_verdict(row.slope, row.slope_se, *halves)}"
                         f"; for N >= {row.upper_from_N} {row.slope_upper:.2f} ± "
                         f"{row.slope_upper_se:.2f}, "
                         f"{slope_verdict(row.slope_upper, row.slope_upper_se, *halves)}"
                         + (" (a singular truth: judged against its learning coefficient below, "
                            "not counted between de/2 and ds/2)." if row.setting in singular
                            else "."))
        lines += _em_shortfall_lines(slopes)
        if rusakov_geiger is not None:
            lines += _rusakov_geiger_lines(table, rusakov_geiger)
        if bounds is not None:
            lines += _latent_class_bound_lines(table, bounds)
        lines += _control_lines(table)
        lines += [""] + _slopes_figure_lines(table)
        lines += ["## 4. CS+ against CS (paper 002)", "",
                  _markdown(cs_plus_comparison(slopes)), ""]
        lines += cs_plus_lines(slopes)
    lines += _score_choice_lines(exact, paper, large_c, fits_prior_alpha)
    return "\n".join(lines) + "\n"


def automatic_comparison(closer: pd.Series, above: pd.Series, score: str, base: str,
                         units: str, construction: str) -> str:
    """How often ``score`` is closer to the gold standard than ``base`` (``closer``, one boolean
    per unit: a fit, a data set), split where that is automatic, not evidence: ``score`` lies
    above ``base`` by construction (``construction`` says why), so wherever it is still below
    the gold standard (not ``above``) it is closer by construction. Only where it overshoots
    the gold standard (``above``) can the comparison fail; the text ends without a full stop,
    for the caller to say what the count there means."""
    return (f"{score} is closer to the gold standard than {base} in {int(closer.sum())} of "
            f"{len(closer)} {units}. In the {int((~above).sum())} where {score} is still below "
            f"the gold standard this is automatic, not evidence: {construction}. The comparison "
            f"can fail only where {score} overshoots the gold standard: there, in "
            f"{int(above.sum())} {units}, {score} is closer in {int(closer[above].sum())}")


def cs_plus_lines(slopes: pd.DataFrame) -> list[str]:
    """Whether CS+ is closer to the gold standard than CS where ``de < ds`` (elsewhere they are
    equal), split where the comparison is automatic (:func:`automatic_comparison`): CS+ = CS +
    (ds − de)/2 log N lies above CS."""
    frame = slopes[slopes["de"] < slopes["ds"]]
    if frame.empty:
        return ["* No setting has de < ds: CS+ equals CS everywhere."]
    closer = (frame["cs_plus"] - frame["gold"]).abs() < (frame["cs"] - frame["gold"]).abs()
    above = frame["cs_plus"] > frame["gold"]
    lines = ["* Where de < ds (all such settings, all N), " + automatic_comparison(
        closer, above, "CS+", "CS", "fits", "CS+ = CS + (ds − de)/2 log N lies above CS, so it "
        "is closer by construction")
        + (" (no such fit: the level comparison says nothing here; section 3's slopes do)."
           if not above.any() else ".")]
    for setting, group in frame.groupby("setting"):
        over = above[group.index]
        lines.append(f"  * {setting}: CS+ closer in {int(closer[group.index].sum())} of "
                     f"{len(group)}; above the gold standard in {int(over.sum())}, closer there "
                     f"in {int(closer[group.index][over].sum())}.")
    return lines + [""]


def em_shortfall(slopes: pd.DataFrame) -> pd.DataFrame:
    """How much of the slope EM at the slope experiment's ``em`` tolerance would have lost: per
    setting, the slope from the fits at ``em`` (``em_log_likelihood``) and from the ML fits
    (``log_likelihood``; :func:`slope_cell`), the difference per replicate (mean ± SE over
    replicates, paired on the same data), and the median and largest ``ml_gain`` at each
    setting's largest N. Empty where the slopes have no ``em_log_likelihood``."""
    if "em_log_likelihood" not in slopes:
        return pd.DataFrame()
    loose = fitted_slopes(slopes.assign(log_likelihood=slopes["em_log_likelihood"]))
    rows = []
    for setting, group in slopes.groupby("setting"):
        change = [_slope(replicate) - _slope(replicate.assign(
            log_likelihood=replicate["em_log_likelihood"]))
            for _, replicate in group.groupby("replicate")]
        largest = group[group["cases"] == group["cases"].max()]
        rows.append({"setting": setting,
                     "em_slope": float(loose.loc[loose["setting"] == setting, "slope"].iloc[0]),
                     "slope_change": float(np.mean(change)),
                     "slope_change_se": (float(np.std(change, ddof=1) / np.sqrt(len(change)))
                                         if len(change) > 1 else np.nan),
                     "largest_N": int(largest["cases"].iloc[0]),
                     "ml_gain_median": float(largest["ml_gain"].median()),
                     "ml_gain_max": float(largest["ml_gain"].max())})
    return pd.DataFrame(rows)


def _em_shortfall_lines(slopes: pd.DataFrame) -> list[str]:
    """The section on EM's shortfall: the ML fit's gain per N and what it does to the slope."""
    shortfall = em_shortfall(slopes)
    if shortfall.empty:
        return []
    gains = (slopes.groupby(["setting", "cases"])["ml_gain"].agg(["median", "max"])
             .unstack("cases"))
    per_n = pd.DataFrame({"setting": gains.index} | {
        f"N={n}": [f"{median:.2f} ({largest:.2f})" if pd.notna(median) else ""
                   for median, largest in
                   zip(gains[("median", n)], gains[("max", n)])]
        for n in sorted(slopes["cases"].unique())})
    flattened = [row.setting for row in shortfall.itertuples()
                 if row.slope_change > VERDICT_SE * row.slope_change_se]
    lines = ["", "EM's shortfall: `log p(D|theta_ML)` is the ML fit (each of `em`'s restarts "
             "run to `ml_em`'s tolerance, and EM from the true parameters where the model is "
             "the truth's structure). What it gained over the fit at `em`'s tolerance, median "
             "(largest) over replicates, nats:", "", pipe_table(per_n), "",
             _markdown(shortfall), "",
             "* The slope from the ML fits against the slope from the fits at `em` (paired per "
             "data set): raised by more than 2 SE in "
             f"{len(flattened)} of {len(shortfall)} settings"
             + (f" ({', '.join(flattened)}): there EM's shortfall, growing with N, flattened "
                "the slope, and the ML slope above is the one judged." if flattened else
                ": EM's shortfall is not what puts the slopes below de/2 and ds/2.")]
    return lines


def _latent_class_bound_lines(table: pd.DataFrame, bounds: dict) -> list[str]:
    """Each setting's slopes against Drton & Plummer's upper bound where it applies."""
    applies = [row for row in table.itertuples()
               if bounds.get(row.setting, (None, ""))[0] is not None]
    if not applies:
        return []
    lines = ["", "Drton & Plummer (2017, Sec. 6.3) bound the learning coefficient of a latent "
             "class model with more classes than the truth (`latent_class_bound`), here at phi "
             "= the prior's Dirichlet parameter (phi is the Dirichlet parameter of the class "
             "weights' prior in the bound as the sBIC package's vignette cites it, Eqs. 6.15 "
             "and 6.19; our reading, the paper's text is not at hand). That is not "
             "the phi of sBIC in sections 1, 2 and 5: there it runs at the sBIC package's phi = "
             "(d1 + 1)/2, and each setting's line gives the bound there too, so these lines "
             "check the bound, not sBIC's coefficients. An upper bound, so a slope below "
             "it does not contradict it:"]
    for row in applies:
        bound, note = bounds[row.setting]
        replicates = getattr(row, "replicates", None)
        whole = bound_verdict(row.slope, row.slope_se, bound, replicates)
        upper = bound_verdict(row.slope_upper, row.slope_upper_se, bound, replicates)
        lines.append(f"  * {row.setting} ({note}): {bound:g}; over all N {whole}, for N >= "
                     f"{row.upper_from_N} {upper}.")
    return lines


def _rusakov_geiger_check(slope: float, se: float, coefficient: float, others,
                          replicates: int | None) -> str:
    """One slope against our coefficient (:func:`rusakov_geiger_verdict`), with the smallest
    difference the check detects (:func:`slope_tolerance` times the SE) and, where the slope
    is consistent with it, which of the ``others`` (the coefficients of the other types) it is
    consistent with too: there the check cannot tell the types apart."""
    tolerance = slope_tolerance(replicates)[0] * se
    alike = sorted({value for value in others if value != coefficient
                    and consistent_slope(slope, se, value, replicates)}) \
        if consistent_slope(slope, se, coefficient, replicates) else []
    return (f"{slope:.2f} ± {se:.2f}, {rusakov_geiger_verdict(slope, se, coefficient, replicates)}"
            f", detecting a difference of {tolerance:.2f} or more"
            + (f"; consistent with {' and '.join(f'{v:g}' for v in alike)} too (another type's "
               "coefficient): it cannot tell them apart" if alike else ""))


def _rusakov_geiger_lines(table: pd.DataFrame, rusakov_geiger: dict) -> list[str]:
    """Each setting's slopes against our coefficient after Rusakov & Geiger where it applies
    (:func:`_rusakov_geiger_check`), why it does not elsewhere, and each slope over all N
    against the coefficient scaled by the regular controls' shortfall (:func:`control_scale`),
    by the rule of :func:`scaled_comparison`, except the controls' own."""
    lines = ["", "The coefficient of log N for naive Bayes with a binary hidden root and 3 or more "
             "binary features, by the truth's type: ours (`rusakov_geiger_coefficient`; column "
             "`rusakov_geiger`), computed by tempered sampling to N = 10^6 and checked against "
             "the exact evidence at small N, after Rusakov & Geiger (2005, JMLR 6, Thm. 4) as "
             "we read it. That paper's text is not among those we have, so the values are not "
             "checked against its statement. Each check detects a difference from the "
             "coefficient of its tolerance (Student's t quantile times the SE) or more:"]
    coefficients = [value for value, _ in rusakov_geiger.values() if value is not None]
    applies = []
    for row in table.itertuples():
        coefficient, note = rusakov_geiger.get(row.setting, (None, "its specs were not given"))
        if coefficient is None:
            lines.append(f"  * {row.setting}: does not apply ({note}).")
            continue
        applies.append((row, coefficient))
        replicates = getattr(row, "replicates", None)
        whole = _rusakov_geiger_check(row.slope, row.slope_se, coefficient, coefficients,
                                      replicates)
        upper = _rusakov_geiger_check(row.slope_upper, row.slope_upper_se, coefficient,
                                      coefficients, replicates)
        lines.append(f"  * {row.setting} ({note}): {coefficient:g}; over all N {whole}; for N >= "
                     f"{row.upper_from_N} {upper}.")
    controls = set(regular_controls(table)["setting"])
    if controls and applies:
        # the coefficients are asymptotic; the control shows how far these N are from that
        scale, scale_se = control_scale(table)
        checks = []
        for row, coefficient in applies:
            if row.setting in controls:
                checks.append(f"{row.setting} is a control itself")
                continue
            scaled, scaled_se = scale * coefficient, scale_se * coefficient
            combined = float(np.hypot(row.slope_se, scaled_se))
            side = ("consistent with it" if abs(row.slope - scaled) <= VERDICT_SE * combined
                    else f"{'above' if row.slope > scaled else 'below'} it by more than "
                    f"{VERDICT_SE:g} combined SE")
            if side == "consistent with it" and consistent_slope(
                    row.slope, row.slope_se, coefficient, getattr(row, "replicates", None)):
                side += (f", and with the unscaled {coefficient:g} too (above): these slopes "
                         "do not tell the heuristic's scaling from none")
            checks.append(f"{row.setting} {scaled:.2f} ± {scaled_se:.2f}, slope "
                          f"{row.slope:.2f} ± {row.slope_se:.2f}: {side}")
        lines.append(f"  * At these N the regular control's slope is {scale:.2f} ± {scale_se:.2f} "
                     "of its own d/2 (true parameters drawn near 0 or 1, below). These settings "
                     "draw their truths alike, so the same shortfall would apply to the "
                     "directions they share with a regular model, but not to the singular part, "
                     "whose own approach at finite N our tempering benchmark puts above the "
                     "coefficient where two features depend on the root "
                     "(`rusakov_geiger_coefficient`): a heuristic, not a prediction. Scaled by "
                     f"it, as in the scaled comparison below (within {VERDICT_SE:g} combined "
                     "SE): " + "; ".join(checks) + ".")
    return lines


def singular_truths(table: pd.DataFrame) -> pd.Series:
    """The settings (rows of :func:`fitted_slopes`' table) whose truth is a singular point of
    the model by Rusakov & Geiger (their coefficient below ``ds / 2``) or by Drton & Plummer's
    bound (a model with more classes than the truth, its bound below ``ds / 2``): no regular
    control even where ``de = ds``, and expected below both ds/2 and de/2."""
    singular = pd.Series(False, index=table.index)
    for column in ("rusakov_geiger", "latent_class_bound"):
        if column in table:
            singular |= table[column] < table["ds_half"]
    return singular


def singular_verdict(row) -> tuple[bool, str]:
    """A singular truth's slope for the larger half of N (a row of :func:`fitted_slopes`'
    table) against Rusakov & Geiger's exact coefficient where it applies, else against Drton &
    Plummer's upper bound: whether it agrees (consistent with the coefficient, or not above the
    bound by more than :data:`VERDICT_SE` SE) and the verdict's words."""
    if pd.notna(getattr(row, "rusakov_geiger", np.nan)):
        verdict = rusakov_geiger_verdict(row.slope_upper, row.slope_upper_se, row.rusakov_geiger,
                                         getattr(row, "replicates", None))
        return verdict.startswith("consistent"), verdict
    verdict = bound_verdict(row.slope_upper, row.slope_upper_se, row.latent_class_bound,
                                getattr(row, "replicates", None))
    return verdict.startswith("at or below"), verdict


def _slope_tally(table: pd.DataFrame, column: str) -> tuple[list, dict, str]:
    """One fit (``column``: ``slope`` over all N or ``slope_upper`` over the larger half) of
    each setting against ds/2 and de/2 (:func:`slope_verdict`): the settings below both, those
    consistent with one or both (by name, which), and the tolerance in words
    (:func:`slope_tolerance`, from the replicates)."""
    below, agree, words = [], {}, set()
    for row in table.itertuples():
        replicates = getattr(row, "replicates", None)
        slope, se = getattr(row, column), getattr(row, f"{column}_se")
        words.add(slope_tolerance(replicates)[1])
        if slope_verdict(slope, se, row.ds_half, row.de_half, replicates).startswith("below"):
            below.append(row.setting)
        named = [name for name, value in (("de/2", row.de_half), ("ds/2", row.ds_half))
                 if consistent_slope(slope, se, value, replicates)]
        if named:
            agree[row.setting] = " and ".join(named)
    return below, agree, " or ".join(sorted(words))


def _slopes_figure_lines(table: pd.DataFrame) -> list[str]:
    """The section of ``figures/slopes.png``: which predicted slope each setting's fitted one
    is consistent with, counted over all N and over the larger half of N (the asymptotic end;
    :func:`_slope_tally`), singular truths against our coefficient after Rusakov & Geiger or
    Drton & Plummer's bound."""
    full, singular = table, table[singular_truths(table)]
    table = table[~singular_truths(table)]
    fits = {"over all N": _slope_tally(table, "slope"),
            "for the larger half of N": _slope_tally(table, "slope_upper")}
    comparison = scaled_comparison(full)
    scaled = ("nor can the scaled comparison above, within its uncertainty" if comparison.empty
              else f"the scaled comparison above does in {_told_apart_text(comparison)}")
    lines = ["### Figure `figures/slopes.png`", "",
             "log p(D|θ_ML) − log p(D) against log N per setting, one grey line per data set "
             "(its own shade and marker; ± 2 gold standard errors), with black lines of slope "
             "ds/2 (dashed) and de/2 (dotted) through the mean at the smallest N.", ""]
    for fit, (below, agree, words) in fits.items():
        lines.append(f"* {fit[0].upper()}{fit[1:]}: fitted slope below both ds/2 and de/2 by "
                     f"more than {words}: {len(below)} of {len(table)} settings "
                     f"({', '.join(below) or 'none'}); consistent with one or both: "
                     + (", ".join(f"{setting} ({names})" for setting, names in agree.items())
                        or "none") + ".")
    # a slope consistent with de/2 alone, where de < ds, tells the two apart by itself
    alone = sorted({f"{setting} ({names}, {fit})" for fit, (_, agree, _) in fits.items()
                    for setting, names in agree.items()
                    if " and " not in names and setting in set(table.loc[
                        table["de_half"] < table["ds_half"], "setting"])})
    (below_all, _, _), (below_upper, agree_upper, _) = fits.values()
    mostly = [len(below) > len(table) / 2 for below in (below_all, below_upper)]
    lines.append(
        "* Verdict: " + ("over all N the penalty grows more slowly than either asymptotic slope "
                         f"in most settings ({len(below_all)} of {len(table)})" if mostly[0]
                         else "over all N the fitted slopes follow the asymptotic predictions "
                         "named above")
        + "; for the larger half of N it is "
        + (f"still below both in most ({len(below_upper)} of {len(table)})" if mostly[1]
           else f"below both in {len(below_upper)} of {len(table)}")
        + (f", and consistent with one or both in {len(agree_upper)} "
           f"({', '.join(agree_upper)})" if agree_upper else "")
        + ". The figure tells de/2 from ds/2 directly only where a slope is consistent with "
        f"one alone: {', '.join(alone) or 'nowhere'}; {scaled}.")
    lines.append("")
    if not singular.empty:
        lines[2] = lines[2].removesuffix(".") + " and, where they apply, of our coefficient " \
            "after Rusakov & Geiger (dash-dotted; RG in the title) or Drton & Plummer's upper " \
            "bound (DP in the title)."
        verdicts = {row.setting: singular_verdict(row) for row in singular.itertuples()}
        agree = [setting for setting, (agrees, _) in verdicts.items() if agrees]
        lines.insert(-1, "* Singular truths (our R-G coefficient or Drton & "
                         "Plummer's bound below ds/2, not counted above): the slope for the "
                         f"larger half of N agrees with it in {len(agree)} of {len(singular)} "
                         f"({', '.join(agree) or 'none'}): "
                         + "; ".join(f"{setting} {words}"
                                     for setting, (_, words) in verdicts.items()) + ".")
    return lines


# --- today's scores: sBIC, WBIC, ICL ----------------------------------------------------------
#: WBIC's error against the exact value is beyond its Monte-Carlo error (a bias) above this
#: many standard errors.
BIAS_SE = 2.0


def _exact_wbic_sbic_lines(exact: pd.DataFrame) -> list[str]:
    """WBIC and sBIC against the exact ``log p(D | S)``: WBIC's error by test model with its
    Monte-Carlo standard error, R-hat and cost, and how often the error exceeds
    :data:`BIAS_SE` standard errors (a bias, not noise: Friel et al. 2017); sBIC's error beside
    BIC's, which it equals at one class (``lambda_11 = d_1 / 2``)."""
    lines = ["### WBIC and sBIC against the exact evidence", "",
             "WBIC samples a tempered posterior per fit (`hiddenbn.scores.wbic`), so it is "
             "computed here only, not at paper 003's settings: there it would cost seconds to "
             "tens of seconds per fit over hundreds of fits, the fits keep no parameters to "
             "start its chains from, and at test models with more classes than the data's "
             "its chains end in different modes (split-R-hat far above 1.01), so its value "
             "would not be trustworthy.", ""]
    if "wbic_log_evidence" in exact and exact["wbic_log_evidence"].notna().any():
        frame = exact.dropna(subset=["wbic_log_evidence"])
        error = frame["wbic_log_evidence"] - frame["exact"]
        biased = error.abs() > BIAS_SE * frame["wbic_se"]
        by_states = (frame.assign(error=error).groupby("hidden_states")
                     .agg(wbic_minus_exact=("error", "mean"), sd=("error", "std"),
                          mc_se=("wbic_se", "mean"), largest_rhat=("wbic_rhat", "max"),
                          cpu_seconds=("wbic_seconds", "mean")).reset_index())
        lines += [f"* WBIC ({int(frame['wbic_ess'].notna().sum())} fits; its sampler's draws "
                  "per chain are `gold_standard.exact.wbic_draws`) minus the exact log p(D|S), "
                  "mean and sd over data sets, with the mean Monte-Carlo SE, the largest "
                  "split-R-hat and the mean CPU seconds per fit:", "", _markdown(by_states), "",
                  f"* WBIC's error exceeds {BIAS_SE:g} of its Monte-Carlo SEs in "
                  f"{int(biased.sum())} of {len(frame)} fits (mean error {error.mean():+.2f} "
                  f"nats, mean |error| {error.abs().mean():.2f}): "
                  + ("a bias, which more draws do not remove (Friel et al. 2017 found it at "
                     "small N)." if biased.sum() > len(frame) / 2 else
                     "mostly within its Monte-Carlo error."), ""]
    else:
        lines += ["* No WBIC: `gold_standard.exact.wbic_draws` is not set.", ""]
    if "sbic_log_evidence" in exact and exact["sbic_log_evidence"].notna().any():
        frame = exact[exact["hidden_states"] > 1].dropna(subset=["sbic_log_evidence"])
        sbic = (frame["sbic_log_evidence"] - frame["exact"]).abs()
        bic = (frame["bic_log_evidence"] - frame["exact"]).abs()
        lines += [f"* sBIC (test models 1..{int(exact['hidden_states'].max())}, the sBIC "
                  "package's phi) against BIC at more than one class, where they differ: mean "
                  f"|error| {sbic.mean():.2f} against {bic.mean():.2f} nats; sBIC closer in "
                  f"{int((sbic < bic).sum())} of {len(frame)} fits.", ""]
    else:
        lines += ["* No sBIC: the test models are not the chain of 1..K classes it needs.", ""]
    return lines


def agreement_table(frame: pd.DataFrame, keys) -> pd.DataFrame:
    """Per distinct score (rows, labels of :func:`distinct_scores` with the sBIC variants): over
    the data sets (``keys``) where it is defined at every test model (Laplace: at one or more,
    as :func:`selection_errors` takes it), how often it chooses the gold standard's model
    (``chooses_gold``, a share, and ``chooses_gold_count``, the data sets: a model of
    :func:`gold_set`, Delta c = 0 in :func:`selection_errors`), the same over the
    ``one_model_data_sets`` whose gold set holds a single model (``chooses_gold_one_model``:
    there a choice passes only on that model, not anywhere inside a wide set), its mean
    ``|Delta c|``, its shape distance (:func:`shape_errors`, mean over data sets) and its
    posterior-weight distance (``weight_distance``, :func:`weight_errors`), and the shares
    where it chooses fewer (``chooses_fewer``) or more (``chooses_more``) hidden states than
    that model."""
    selection = selection_errors(frame, keys)
    shapes, weights = shape_errors(frame, keys), weight_errors(frame, keys)
    one_model = selection["gold_set_size"] == 1
    rows = []
    for score, label in distinct_scores(frame, variants=True).items():
        delta = selection.get(f"{score}_vs_gold", pd.Series(dtype=float)).dropna()
        if delta.empty:
            continue
        sharp = delta[one_model[delta.index]]
        rows.append({"score": label, "data_sets": len(delta),
                     "chooses_gold": float((delta == 0).mean()),
                     "chooses_gold_count": int((delta == 0).sum()),
                     "one_model_data_sets": len(sharp),
                     "chooses_gold_one_model": float((sharp == 0).mean()) if len(sharp)
                     else np.nan,
                     "chooses_fewer": float((delta < 0).mean()),
                     "chooses_more": float((delta > 0).mean()),
                     "mean_abs_delta_c": float(delta.abs().mean()),
                     "shape_distance": float(shapes[score].mean()),
                     "weight_distance": float(weights[score].mean())})
    return pd.DataFrame(rows)


#: The smallest difference in total-variation distance (:func:`weight_errors`) between two
#: scores' posterior weights and the gold standard's that :func:`closest_in_shape` counts as one
#: score closer: moving the gold standard's log p(D|S) at one test model by delta nats moves its
#: weight w by about w (1 - w) delta, so the total variation by up to delta/4; at the smallest
#: standard error of the gold standard at its maximum here (0.1 nats) that is 0.025, so a
#: difference below 0.01 is within what the gold standard's own noise makes: a tie. Where its
#: standard errors run to nats or tens of nats, larger differences are ties too: a difference is
#: material only where it exceeds this and its sign also survives redraws of the gold
#: standard's curve within its standard errors (:func:`weight_signs_hold`).
MATERIAL_WEIGHT_DISTANCE = 0.01
#: Redraws of the gold standard's curve by which :func:`weight_signs_hold` judges a sign: the
#: share of them that keeps it is then known to about 0.015 near the 1 - CLAIM_LEVEL it must
#: reach (binomial SE sqrt(0.95 * 0.05 / 200)), and a report's ~100 data sets of ~10 scores
#: and up to ~40 test models are redrawn in well under a second.
GOLD_REDRAWS = 200
#: Seed of those redraws: fixed, so that a report written again from the same tables says the
#: same.
GOLD_REDRAW_SEED = 2017


def weight_signs_hold(frame: pd.DataFrame, keys, draws: int = GOLD_REDRAWS,
                      seed: int = GOLD_REDRAW_SEED) -> pd.DataFrame:
    """Whether the sign of each paired difference of :func:`weight_errors` survives the gold
    standard's own noise.

    The gold standard's curve of each data set is redrawn ``draws`` times as
    ``gold + gold_se * z`` (``z`` independent standard normal, one per test model), every
    score's total-variation distance is computed again against each redraw (averaged over a
    group's data sets as :func:`weight_errors` does), and the sign of ``score``'s distance minus
    ``other``'s holds where at least ``1 - CLAIM_LEVEL`` of the redraws keep the sign it has
    against the gold standard's own curve; a difference of 0, or an undefined one, holds none.
    Where the gold standard's noise turns the sign, its weights, and with them which score is
    closer, are not known, however large the difference.

    Parameters
    ----------
    frame : pandas.DataFrame
        Curves over the test models with ``gold`` and ``gold_se`` (0 for an exact yardstick,
        whose signs then always hold).
    keys : list of str
        The columns of a group, as for :func:`weight_errors`.
    draws : int
        Redraws of the gold standard's curve.
    seed : int
        Their seed. Every data set is redrawn with the same ``z`` (its test models' share of
        them), so that its verdict does not depend on which other data sets ``frame`` holds
        (those where every score is defined, or all).

    Returns
    -------
    pandas.DataFrame
        One row per group, in :func:`weight_errors`' order and index; one boolean column per
        ordered pair ``(score, other)`` of :func:`present_scores`.
    """
    scores = present_scores(frame)
    # drawn test model by test model, so that a data set's z are the same however many rows
    # the frame has
    z = np.random.default_rng(seed).standard_normal((len(frame), draws)).T
    distances = []
    for _, group in frame.groupby(keys):
        per_data_set = []
        for _, curve in group.groupby("replicate"):
            # the gold standard's own curve first, then its redraws
            noise = np.vstack([np.zeros(len(curve)), z[:, :len(curve)]])
            yardsticks = curve["gold"].to_numpy(float) + curve["gold_se"].to_numpy(float) * noise
            per_data_set.append([posterior_weight_distances(curve[score], yardsticks)
                                 for score in scores])
        per_data_set = np.array(per_data_set)
        # the mean over the data sets where the score is defined, as weight_errors takes it
        defined = np.isfinite(per_data_set).sum(axis=0)
        distances.append(np.nansum(per_data_set, axis=0) / np.where(defined, defined, np.nan))
    signs = np.sign(np.array(distances)[:, :, None, :] - np.array(distances)[:, None, :, :])
    kept = (signs[..., 1:] == signs[..., :1]).mean(axis=-1)
    holds = (signs[..., 0] != 0) & (kept >= 1 - CLAIM_LEVEL)
    return pd.DataFrame(holds.reshape(len(distances), -1),
                        columns=pd.MultiIndex.from_product([scores, scores]))


def material_differences(differences: pd.Series, tie: float, holds=True) -> pd.Series:
    """Paired ``differences`` with those of at most ``tie``, and those whose sign does not hold
    (``holds`` False; for the posterior weights, :func:`weight_signs_hold`), set to 0 (a tie,
    which a signed-rank test leaves out:
    :func:`~hiddenbn.experiments.comparison.signed_rank_p_value`); undefined pairs stay NaN."""
    return differences.where((differences.abs() > tie) & holds, 0.0).where(differences.notna())


def _material_text(tie: float = MATERIAL_WEIGHT_DISTANCE,
                   yardstick: str = "the gold standard's") -> str:
    """The rule of a material difference in the posterior weights (:func:`weight_signs_hold`,
    :func:`material_differences`), in words."""
    return (f"material only where it exceeds {tie:g} and keeps its sign in at least "
            f"{1 - CLAIM_LEVEL:.0%} of {GOLD_REDRAWS} redraws of {yardstick} curve within its "
            "standard errors")


def closest_in_shape(frame: pd.DataFrame, keys, errors=shape_errors, among=None,
                     tie: float = 0.0) -> tuple[list[tuple[str, float, float, int, int]], int]:
    """The scores (:func:`distinct_scores` among ``among``, sBIC at every phi) whose curves lie
    closest to the yardstick's by ``errors``, in shape (:func:`shape_errors`) or in the
    posterior weights they give the test models (:func:`weight_errors`, what model averaging
    uses): the one with the smallest mean distance over the data sets (``keys``), then every
    score that a two-sided Wilcoxon signed-rank test paired over the data sets where both are
    defined does not tell from it at :data:`CLAIM_LEVEL` (a smaller mean alone would let noise
    pick one). A paired difference of at most ``tie`` is a tie and left out of the test; by
    :func:`weight_errors` with a ``tie`` (:data:`MATERIAL_WEIGHT_DISTANCE`), so is one whose
    sign does not survive the gold standard's own noise (:func:`weight_signs_hold`). Returns
    ``([(label, mean distance, p-value, pairs, material pairs), ...], data sets)``, the best
    first with p NaN, then by mean distance; ``pairs``: the data sets where both are defined;
    ``material pairs``: those whose difference is not a tie."""
    shapes = errors(frame, keys)
    scores = {score: label for score, label in
              distinct_scores(frame, among, variants=True).items()
              if shapes[score].notna().any()}
    if not scores:
        return [], len(shapes)
    best = min(scores, key=lambda score: shapes[score].mean())
    closest = [(scores[best], float(shapes[best].mean()), np.nan, int(shapes[best].count()),
                int(shapes[best].count()))]
    signs = weight_signs_hold(frame, keys) if errors is weight_errors and tie else None
    for score, label in scores.items():
        differences = shapes[score] - shapes[best]
        material = material_differences(differences, tie,
                                         True if signs is None else signs[(score, best)])
        p_value = signed_rank_p_value(material)
        if score != best and p_value >= CLAIM_LEVEL:
            closest.append((label, float(shapes[score].mean()), p_value,
                            int(differences.count()), int((material.abs() > 0).sum())))
    # those within noise of the best by their mean distance, as a reader compares them
    return closest[:1] + sorted(closest[1:], key=lambda entry: entry[1]), len(shapes)


def _closest_text(closest: list, data_sets: int, unit: str = " nats", digits: int = 1,
                  tie: float = 0.0) -> str:
    """:func:`closest_in_shape` (with ``tie``) in words: the closest score and those within
    noise of it, the distances to ``digits`` decimals (the best one with ``unit``), and where
    ``tie`` (by :func:`weight_errors`: :func:`_material_text`) makes ties, how many pairs are
    material, and whether they are too few for the test to reach :data:`CLAIM_LEVEL`."""
    (best, distance, *_), *level = closest
    text = f"{best} ({distance:.{digits}f}{unit})"
    smallest = smallest_p_value(data_sets)
    if smallest >= CLAIM_LEVEL:
        return text + (f"; {data_sets} data sets are too few for a two-sided signed-rank test to "
                       f"tell any two scores apart at {CLAIM_LEVEL:g} (its smallest p is "
                       f"{smallest:.2g})")
    paired = (f"paired over the {data_sets} data sets" + (
        ", a difference " + _material_text(tie, "the yardstick's") + ", the rest ties"
        if tie else ""))

    def material(count: int) -> str:
        if not tie:
            return ""
        return (f", {count} material pairs" + (
            f": too few for the test to reach {CLAIM_LEVEL:g}"
            if smallest_p_value(count) >= CLAIM_LEVEL else ""))

    if level:
        return text + (f", and within noise of it (two-sided signed-rank test {paired}, "
                       f"p ≥ {CLAIM_LEVEL:g}): " + ", ".join(
                           f"{label} ({value:.{digits}f}, p = {p:.2g}"
                           + (f" over the {pairs} where both are defined"
                              if pairs < data_sets else "") + material(count) + ")"
                           for label, value, p, pairs, count in level))
    return text + (", every other score farther (two-sided signed-rank "
                   + (f"test {paired}, " if tie else "") + f"p < {CLAIM_LEVEL:g})")


#: The share of BIC's shape distance from the gold standard that sBIC's correction must remove
#: for :func:`sbic_shape_claim` to hold: "most of it". Closer than BIC at all is automatic
#: wherever sBIC stays below the gold standard, so the claim is judged by how much closer.
GAP_CLOSED = 0.5
#: The shares at which :func:`sbic_shape_claim` judges the shape again, to say over which
#: thresholds its verdict stands: 0 to 100% in steps of 1%.
GAP_CLOSED_SCAN = np.round(np.linspace(0.0, 1.0, 101), 2)


def _one_sided_verdict(differences) -> tuple[bool | None, float]:
    """``(holds, p)`` for paired ``differences`` that the claim says are below 0: True when a
    one-sided Wilcoxon signed-rank test says so at :data:`CLAIM_LEVEL` (a mean alone would let
    one data set decide), None (undecided) when they are below 0 on average but not
    significantly, False otherwise; p is 1 where every difference is 0."""
    differences = np.asarray(differences, float)
    p_value = signed_rank_p_value(differences, alternative="less")
    return (True if p_value < CLAIM_LEVEL else (None if differences.mean() < 0 else False),
            p_value)


def _verdict_word(holds: bool | None) -> str:
    return {True: "holds", False: "does not hold"}.get(holds, "undecided")


def sbic_shape_claim(paper: pd.DataFrame):
    """Drton & Plummer (2017): sBIC's learning coefficients make its curve fall past the true
    model as the marginal likelihood does, not at BIC's ``d/2 log N``. Judged on the data sets
    where sBIC is defined: ``(holds, evidence, note)``, or None without sBIC.

    sBIC = BIC + a correction that is 0 at one class and grows with the classes, so wherever
    it stays below the gold standard it lies between BIC and the gold standard and is closer
    than BIC by construction (:func:`automatic_comparison`, ``note``): that comparison is no
    evidence. The claim is judged instead by two paired tests over the data sets
    (:func:`_one_sided_verdict`), and holds when both do:

    * in shape, whether the correction removes most (:data:`GAP_CLOSED`) of BIC's shape
      distance (:func:`shape_errors`) from the gold standard: sBIC's distance below
      ``1 - GAP_CLOSED`` times BIC's. It fails where the correction is too small and where it
      overshoots the gold standard by as much as it should have closed. The evidence gives the
      thresholds (:data:`GAP_CLOSED_SCAN`) over which this verdict stands;
    * in the posterior weights over the test models (:func:`weight_errors`), what model
      averaging uses and what the shape distance, dominated by the test models far below the
      maximum, does not see: sBIC's distance below BIC's, a difference material only where it
      exceeds :data:`MATERIAL_WEIGHT_DISTANCE` and its sign survives the gold standard's own
      noise (:func:`weight_signs_hold`; the rest ties, as section 5 ranks the weights). It
      fails where sBIC's correction moves its maximum away from the gold standard's.

    ``note`` also judges sBIC at each further phi (:data:`SBIC_VARIANT`) both ways, beside how
    often it chooses the gold standard's model (:func:`selection_errors`): a correction that
    overshoots selects badly and can still pass the shape test."""
    if "sbic_log_evidence" not in paper or paper["sbic_log_evidence"].isna().all():
        return None
    frame = paper.dropna(subset=["sbic_log_evidence"])
    keys = ["experiment", "replicate"]
    shapes, weights = shape_errors(frame, keys), weight_errors(frame, keys)
    signs = weight_signs_hold(frame, keys)
    sbic, bic = shapes["sbic_log_evidence"], shapes["bic_log_evidence"]
    correction = frame["sbic_log_evidence"] - frame["bic_log_evidence"]
    overshoots = frame["sbic_log_evidence"] > frame["gold"]
    above = (overshoots | (correction < 0)).groupby(
        [frame[key] for key in keys]).any()
    above = above.reindex(pd.MultiIndex.from_frame(shapes[keys])).to_numpy()
    note = automatic_comparison(
        pd.Series((sbic < bic).to_numpy()), pd.Series(above), "sBIC", "BIC", "data sets",
        f"sBIC = BIC + a correction that is at least 0 (at {int((correction >= 0).sum())} of "
        f"{len(frame)} test models) and grows with the hidden states, so below the gold "
        "standard its curve lies between BIC's and the gold standard's, pulled toward it") + (
        " (no such data set: being closer than BIC says nothing about the claim)."
        if not above.any() else ".") + (
        f" sBIC lies above the gold standard at {int(overshoots.sum())} of {len(frame)} test "
        "models.")

    def in_shape(score, share=GAP_CLOSED):
        return _one_sided_verdict(shapes[score] - (1 - share) * bic)

    def material(score):
        return material_differences(weights[score] - weights["bic_log_evidence"],
                                    MATERIAL_WEIGHT_DISTANCE, signs[(score, "bic_log_evidence")])

    def in_weights(score):
        return _one_sided_verdict(material(score))

    shape_holds, shape_p = in_shape("sbic_log_evidence")
    scan = {share: in_shape("sbic_log_evidence", share)[0] for share in GAP_CLOSED_SCAN}
    # the run of thresholds around GAP_CLOSED with its verdict
    run = [share for share in GAP_CLOSED_SCAN if all(
        scan[other] == shape_holds for other in GAP_CLOSED_SCAN
        if min(share, GAP_CLOSED) <= other <= max(share, GAP_CLOSED))]
    weight_holds, weight_p = in_weights("sbic_log_evidence")
    holds = (False if False in (shape_holds, weight_holds)
             else True if shape_holds and weight_holds else None)
    closed = 1 - sbic / bic.where(bic > 0)
    removes = (sbic - (1 - GAP_CLOSED) * bic) < 0
    evidence = (
        f"in shape: mean shape distance to the gold standard over {len(shapes)} data sets: "
        f"sBIC {sbic.mean():.1f}, BIC {bic.mean():.1f} nats; sBIC's correction removes "
        f"{closed.mean():.0%} of BIC's distance on average (1 − sBIC/BIC per data set), more "
        f"than {GAP_CLOSED:.0%} in {int(removes.sum())} of {len(shapes)}, one-sided "
        f"signed-rank p = {shape_p:.2g}: {_verdict_word(shape_holds)}, and so for every "
        f"threshold from {min(run):.0%} to {max(run):.0%} (steps of 1%). In the posterior "
        f"weights over the test models (total-variation distance to the gold standard's, mean "
        f"over the data sets): sBIC {weights['sbic_log_evidence'].mean():.2f}, BIC "
        f"{weights['bic_log_evidence'].mean():.2f}; a difference is {_material_text()} (the "
        f"rest are ties): material in {int((material('sbic_log_evidence').abs() > 0).sum())} of "
        f"{len(weights)}, sBIC closer in {int((material('sbic_log_evidence') < 0).sum())} of "
        f"them, one-sided signed-rank p = {weight_p:.2g}: {_verdict_word(weight_holds)}")
    variants = [column for column in sbic_variants(frame) if frame[column].notna().any()]
    if variants:
        labels, chosen = score_labels(frame), selection_errors(frame, keys)
        picks = {score: int((chosen[f"{score}_vs_gold"] == 0).sum())
                 for score in [*variants, "bic_log_evidence"]}
        # the variants the shape test passes and the weight test does not, though they choose
        # the gold standard's model less often than BIC
        missed = [labels[score] for score in variants if in_shape(score)[0]
                  and not in_weights(score)[0] and picks[score] < picks["bic_log_evidence"]]
        note += " At the further φ (the verdict is the package's φ's): " + "; ".join(
            f"{labels[score]} removes {(1 - shapes[score] / bic.where(bic > 0)).mean():.0%} of "
            f"BIC's shape distance ({_verdict_word(in_shape(score)[0])} in shape), its weights "
            f"lie at {weights[score].mean():.2f} against BIC's "
            f"{weights['bic_log_evidence'].mean():.2f} ({_verdict_word(in_weights(score)[0])} "
            f"in the weights), and it chooses the gold standard's model in {picks[score]} of "
            f"{len(chosen)} data sets" for score in variants) + "." + (
            f" The shape test passes {' and '.join(missed)}, which choose the gold standard's "
            f"model less often than BIC (in {picks['bic_log_evidence']}); the weight test, "
            "which sees the test models near the maximum, does not." if missed else "")
    return holds, evidence, note


def wbic_level_claim(exact: pd.DataFrame):
    """Watanabe (2013): WBIC estimates ``log p(D | S)`` in singular models, where BIC does not.
    On the exact experiment: ``(holds, evidence, note)``, or None without WBIC.

    Judged on the test models with a hidden variable (two or more hidden states: singular),
    the only ones the claim is about; the one-class model has no hidden variable and is
    regular, where BIC is right too as N grows, so it is left out of the verdict and shown in
    ``note``. Per data set the mean over its singular test models of ``|WBIC − exact|
    − |BIC − exact|``; holds True when it is below 0 by a one-sided Wilcoxon signed-rank test
    paired over the data sets at :data:`CLAIM_LEVEL` (as :func:`sbic_shape_claim`), None (not
    decided) when below 0 on average but not significantly, False otherwise. The evidence
    gives both per test model (BIC's error grows with the parameters while WBIC's need not, so
    the pooled mean leans on the largest models) and WBIC's signed error, which is a bias where
    it exceeds :data:`BIAS_SE` Monte-Carlo SEs. ``note`` also says that the claim is
    asymptotic in N: on the exact experiment's few cases this is how both behave on small
    data, not a test of the claim."""
    if "wbic_log_evidence" not in exact or exact["wbic_log_evidence"].isna().all():
        return None
    frame = exact.dropna(subset=["wbic_log_evidence"])
    wbic_error = frame["wbic_log_evidence"] - frame["exact"]
    errors = frame.assign(wbic=wbic_error.abs(),
                          bic=(frame["bic_log_evidence"] - frame["exact"]).abs())
    by_states = errors.groupby("hidden_states")[["wbic", "bic"]].mean()
    singular = errors[errors["hidden_states"] > 1]
    if singular.empty:
        return None
    by_singular = by_states.loc[by_states.index > 1]
    closer = by_singular.index[by_singular["wbic"] < by_singular["bic"]]
    differences = (singular["wbic"] - singular["bic"]).groupby(singular["replicate"]).mean()
    holds, p_value = _one_sided_verdict(differences)
    evidence = ("mean |score − exact| per singular test model, WBIC against BIC: " + "; ".join(
        f"{k} hidden states {row.wbic:.1f} against {row.bic:.1f}"
        for k, row in by_singular.iterrows()) + " nats; WBIC closer at "
        + (", ".join(str(k) for k in closer) if len(closer) else "none") + f" of them, in "
        f"{int((singular['wbic'] < singular['bic']).sum())} of {len(singular)} (data set, test "
        f"model) pairs; over its singular test models WBIC closer in "
        f"{int((differences < 0).sum())} of {len(differences)} data sets, one-sided "
        f"signed-rank p = {p_value:.2g}")
    if "wbic_se" in frame:
        biased = wbic_error.abs() > BIAS_SE * frame["wbic_se"]
        evidence += (f". WBIC's own error is {wbic_error.min():+.1f} to {wbic_error.max():+.1f} "
                     f"nats, beyond {BIAS_SE:g} of its Monte-Carlo SEs in {int(biased.sum())} "
                     f"of {len(frame)} fits: a bias, not noise")
    note = ""
    if 1 in by_states.index:
        one = by_states.loc[1]
        note = (f"Left out: 1 hidden state, {one['wbic']:.1f} against {one['bic']:.1f} nats (no "
                "hidden variable: a regular model, where BIC is right too as N grows; the claim "
                "is about singular ones).")
    if {"cases", "d"} <= set(frame):
        note += ((" " if note else "") + f"With {int(frame['cases'].max())} cases and "
                 f"{int(frame['d'].min())} to {int(frame['d'].max())} parameters this is far "
                 "from the large N Watanabe's result is about: the verdict says how both "
                 "behave on small data, not whether his claim holds.")
    return holds, evidence, note


def _laplace_gaps(frame: pd.DataFrame, keys) -> list[str]:
    """The data sets (``keys``) where Laplace is undefined (its Hessian not positive definite)
    at some test models but not all, with those test models: there it chooses among, and its
    shape is measured over, the others, as paper 003 skips them."""
    if "laplace" not in frame:
        return []
    gaps = []
    for key, group in frame.groupby(keys):
        missing = group["laplace"].isna()
        if missing.any() and not missing.all():
            key = key if isinstance(key, tuple) else (key,)
            where = " ".join(str(k) for k, name in zip(key, keys) if name != "replicate")
            gaps.append(f"{where} data set {key[list(keys).index('replicate')]} at "
                        + state_set_text(group.loc[missing, "hidden_states"]))
    return gaps


def common_data_sets(frame: pd.DataFrame, keys) -> pd.DataFrame:
    """The rows of ``frame`` in the data sets (``keys``) where every score of
    :func:`agreement_table` chooses a model (sBIC has none where the test models are no chain
    1..K), so that shares over them compare the scores on the same data."""
    selection = selection_errors(frame, keys)
    columns = [f"{score}_vs_gold" for score in distinct_scores(frame, variants=True)
               if f"{score}_vs_gold" in selection]
    kept = selection.loc[selection[columns].notna().all(axis=1), list(keys)]
    return frame.merge(kept, on=list(keys))


def _score_choice_lines(exact: pd.DataFrame, paper: pd.DataFrame, large_c=(),
                        fits_prior_alpha: float | None = None) -> list[str]:
    """"Which score to use", from the tables: per score how often it chooses the gold
    standard's model, its mean |Δc| and its shape distance, on the exact experiment and on
    paper 003's settings, the scores closest in shape (:func:`closest_in_shape`), sBIC at its
    several phi (``fits_prior_alpha``: the fits' Dirichlet parameter, one of them), and the
    two claims from the literature (:func:`sbic_shape_claim`, :func:`wbic_level_claim`)
    checked."""
    keys = ["experiment", "replicate"]
    parts = []
    if not exact.empty:
        parts.append(("the exact small cases (the yardstick: the exact log p(D|S))",
                      exact.assign(gold=exact["exact"], gold_se=0.0, experiment="exact")))
    if not paper.empty:
        parts.append(("paper 003's settings (the yardstick: the SMC gold standard)", paper))
    if not parts:
        return []
    gaps = [gap for _, frame in parts for gap in _laplace_gaps(frame, keys)]
    lines = ["## 5. Which score to use", "",
             "Per score, over the data sets where it is defined at every test model: the share "
             "where it chooses the yardstick's model (for the SMC gold standard, a model of its "
             f"set within {GOLD_SET_SE:g} combined SE of its maximum, section 2), the same over "
             "the data sets whose set holds one model, its mean "
             "|Δc| against that choice (hidden states), the "
             "mean distance of its curve's shape from the yardstick's (nats; every test model "
             "weighs alike, so those far below the maximum, with errors of hundreds of nats, "
             "weigh most: a description of the curves) and the total-variation distance between "
             "the posterior weights it gives the test models and the yardstick's (0 to 1, equal "
             "prior on the test models: what model averaging uses), both over every test model "
             "where the score is defined (section 2's headline takes every score over the test "
             "models where all are, so its values differ slightly). "
             + (f"Laplace is the exception: where its Hessian is not positive definite it is "
                "undefined, and, as in paper 003, it chooses among the other test models and "
                "its shape and weights are measured over them (" + "; ".join(gaps) + "). "
                if gaps else "")
             + "sBIC needs the test models 1..K: paper 003's start at 2, and "
             "the one-class model's log-likelihood is closed-form, so they get it; "
             + (f"{', '.join(large_c)} start higher and get none; " if large_c else "")
             + "WBIC is computed on the exact small cases only (section 1 says why). sBIC is "
             "the sBIC package's, at its prior parameter φ = (d₁ + 1)/2 (d₁: the parameters of "
             "one class)"
             + ("; sBIC φ = x is sBIC at φ = x: "
                + (f"at the fits' Dirichlet parameter {fits_prior_alpha:g} (the prior of the "
                   "fits and of the gold standard) and " if fits_prior_alpha is not None else "")
                + f"at the fractions `gold_standard.sbic_phi_fractions` of {DEFAULT_PHI_TEXT}"
                if any(sbic_variants(frame) for _, frame in parts) else "") + ".", ""]
    recommendation = []
    for where, frame in parts:
        table = agreement_table(frame, keys)
        if table.empty:
            continue
        closest = _closest_text(*closest_in_shape(frame, keys))
        # the means over the data sets where every score is defined: the large-c ones, where
        # sBIC is not, put every other score's weights near 1 from the gold standard's
        common = common_data_sets(frame, keys)
        averaging = _closest_text(
            *closest_in_shape(common, keys, weight_errors, tie=MATERIAL_WEIGHT_DISTANCE), "", 2,
            MATERIAL_WEIGHT_DISTANCE)
        # shares over other data sets than another score's compare the data sets: the scores
        # are compared where all are defined, and on the large-c experiments apart, where the
        # scores miss most and sBIC is not defined
        on_common = (agreement_table(common, keys) if len(common[keys].drop_duplicates())
                     < len(frame[keys].drop_duplicates()) else None)
        judged = table if on_common is None or on_common.empty else on_common
        most = judged[judged["chooses_gold"] == judged["chooses_gold"].max()]
        in_large = frame[frame["experiment"].isin(large_c)]
        large = None
        # which choices the gold standard decides needs its runs: the SMC estimates' only
        runs = {"gold_runs", "gold_effective_runs"} <= set(frame)
        if not in_large.empty:
            large = (f"the large-c experiments ({', '.join(sorted(set(in_large['experiment'])))}"
                     f", c ≥ {int(in_large['generating_states'].min())})"
                     if "generating_states" in in_large else "the large-c experiments",
                     agreement_table(in_large, keys),
                     choice_reliability(in_large, None) if runs else None)
        can_judge = _judged_data_sets(common if on_common is not None else frame)
        lines += [f"### On {where}", ""]
        if where.startswith("the exact"):
            lines += [f"N = {int(exact['cases'].max())} cases against {int(exact['d'].min())} "
                      f"to {int(exact['d'].max())} parameters: far from the large N every "
                      "approximation here is derived for, so this ranking says how they fail "
                      "on tiny data; the recommendation rests on paper 003's settings below.",
                      ""] if {"cases", "d"} <= set(exact) else []
        lines += [_markdown(table.drop(columns="chooses_gold_count")), ""]
        if judged is not table:
            lines += [f"On the {int(judged['data_sets'].max())} data sets where every score "
                      "chooses a model:", "", _markdown(judged.drop(columns="chooses_gold_count")),
                      ""]
        if large is not None:
            lines += [f"On {large[0]}, {int(large[1]['data_sets'].max())} data sets:", "",
                      _markdown(large[1].drop(columns="chooses_gold_count")), ""]
        lines += ["* Most often the yardstick's model"
                  + (" on the data sets where every score chooses a model"
                     if judged is not table else "") + ": " + ", ".join(
                      f"{row.score} ({row.chooses_gold:.0%} of {row.data_sets} data sets)"
                      for row in most.itertuples())
                  + f"; closest for model averaging (posterior weights): {averaging}; closest "
                  f"in shape: {closest}.", ""]
        lines += range_edge_lines(frame)
        if frame is paper:
            recommendation = _recommendation_lines(table, closest, on_common, averaging, large,
                                                   can_judge)
            recommendation[-1:-1] = _sbic_phi_lines(table, paper, fits_prior_alpha)
    lines += recommendation
    small = (f"at N = {int(exact['cases'].max())}: "
             if not exact.empty and "cases" in exact else "")
    for claim, result, scope in (
            ("sBIC's curve is closer in shape to the gold standard's than BIC's (Drton & Plummer "
             f"2017), judged by whether its correction removes most (more than {GAP_CLOSED:.0%}) "
             "of BIC's distance and by whether its posterior weights over the test models lie "
             "closer to the gold standard's than BIC's", sbic_shape_claim(paper), ""),
            ("WBIC is closer to the exact log p(D|S) than BIC in singular models (Watanabe 2013)",
             wbic_level_claim(exact), small)):
        if result is not None:
            verdict = {True: "holds", False: "does not hold"}.get(
                result[0], f"not decided at {CLAIM_LEVEL:.0%}")
            lines.append(f"* Claim: {claim}: **{scope}{verdict}** "
                         f"({result[1]}).")
            if result[2]:
                lines.append(f"  * {result[2]}")
    return lines + [""]


#: Share of the data sets on which a score that chooses fewer (or more) hidden states than the
#: yardstick's model is said to do so in the recommendation.
BIASED_SHARE = 0.25


def _judged_data_sets(frame: pd.DataFrame) -> pd.DataFrame | None:
    """Per score (label), over the data sets of ``frame`` where the gold standard decides that
    score's choice (:func:`choice_reliability`, ``decided``): ``data_sets``, ``chooses_gold``
    (the share whose choice lies in the gold set), ``chooses_gold_count`` (their number) and
    ``left_out`` (the others, "fig2_c8 1..3"); None where it decides every choice. Elsewhere
    the score's ``Delta c`` rests on an estimate on fewer than :data:`AGREEING_SHARE` of its
    runs, whose runs ended apart, and the choice is not beyond their spread: there a share
    would count a choice the gold standard cannot judge. Each score is judged on its own data
    sets, so that one score's undecided choice does not hide another's decided miss. None too
    where ``frame`` does not record the runs (``gold_runs``, ``gold_effective_runs``): only the
    SMC estimates have them."""
    if not {"gold_effective_runs", "gold_runs"} <= set(frame):
        return None
    reliability = choice_reliability(frame, None)
    if reliability.empty or reliability["decided"].all():
        return None
    rows = []
    for label, cell in reliability.groupby("score", sort=False):
        decided, undecided = cell[cell["decided"]], cell[~cell["decided"]]
        rows.append({"score": label, "data_sets": len(decided),
                     "chooses_gold": float((decided["gap"] == 0).mean()) if len(decided)
                     else np.nan,
                     "chooses_gold_count": int((decided["gap"] == 0).sum()),
                     "left_out": ", ".join(
                         f"{experiment} {state_set_text(part['replicate'])}"
                         for experiment, part in undecided.groupby("experiment"))})
    return pd.DataFrame(rows)


def _recommendation_lines(table: pd.DataFrame, closest: str,
                          common: pd.DataFrame | None = None, averaging: str = "",
                          large: tuple[str, pd.DataFrame, pd.DataFrame | None] | None = None,
                          judged: pd.DataFrame | None = None) -> list[str]:
    """"Which score to use" for choosing the number of hidden states, from the
    :func:`agreement_table` on paper 003's settings: the scores that choose the gold standard's
    model as often as the best one, give or take one data set (ranked by how often, then by how
    far they miss), the same over the data sets whose gold set holds one model, those closest
    for model averaging (``averaging``, by the posterior weights) and in shape (``closest``;
    both :func:`_closest_text`), those that choose fewer or more hidden
    states on more than :data:`BIASED_SHARE` of the data sets. Where the scores are not
    defined on the same data sets (``common``: the :func:`agreement_table` over those where all
    are, :func:`common_data_sets`), the scores are ranked there, since a share over other data
    sets would compare the data sets, and the shares over every data set where each is defined
    are given beside, with the scores missing from some. The scores that choose fewer or more
    hidden states are named on the data sets they are ranked on and, apart, on the large-c
    experiments (``large``: their description, :func:`agreement_table` and
    :func:`choice_reliability` or None), where every score may miss: a share pooled over both
    would be crossed by those alone; beside each count there, how many choices lie beyond the
    gold standard's runs' spread (``holds``). ``judged`` (:func:`_judged_data_sets`) gives
    beside each share the score's share over the data sets where the gold standard decides its
    choice, and names the others."""
    ranked_on = table if common is None or common.empty else common
    ranked = ranked_on.sort_values(["chooses_gold", "mean_abs_delta_c"], ascending=[False, True])
    first = ranked.iloc[0]
    level = ranked[ranked["chooses_gold"] >= first["chooses_gold"] - 1 / first["data_sets"]]
    decides = judged.set_index("score") if judged is not None else None

    def on_judged(score: str) -> str:
        """The share over the data sets where the gold standard can judge the score's choice,
        or nothing."""
        if decides is None or score not in decides.index:
            return ""
        row = decides.loc[score]
        return (f"{row['chooses_gold']:.0%} of {row['data_sets']}" if row["data_sets"]
                else "none judged")

    lines = ["### Recommendation", "",
             "* To choose the number of hidden states"
             + (f", on the {first.data_sets} data sets where every score chooses a model"
                if ranked_on is common else "")
             + (" (after the semicolon or in brackets: over the data sets where the gold "
                "standard can judge the score's choice, below)" if decides is not None else "")
             + ": " + ", ".join(
                 f"{row.score} ({row.chooses_gold:.0%} of {row.data_sets} data sets, mean "
                 f"|Δc| {row.mean_abs_delta_c:.2f}"
                 + (f"; {on_judged(row.score)}" if on_judged(row.score) else "") + ")"
                 for row in level.itertuples())
             + ": as often as the best, give or take one data set. The others by how often "
             "they choose the gold standard's model: " + (", ".join(
                 f"{row.score} {row.chooses_gold:.0%}"
                 + (f" ({on_judged(row.score)})" if on_judged(row.score) else "")
                 for row in ranked.iloc[len(level):].itertuples()) or "none") + "."]
    if decides is not None:
        left_out = decides[decides["left_out"] != ""]
        lines.append(
            f"* The gold standard can judge a score's choice where the estimates that decide "
            "its Δc (at the choice and at the nearest model of the gold set) rest on at least "
            f"{AGREEING_SHARE:.0%} of their runs (section 2's criterion of agreeing runs), or "
            f"the choice lies outside the set by more than {FAR_GAP_SPREADS:g} spreads of the "
            f"runs, whatever the estimates' error: of the {first.data_sets} data sets, "
            + ", ".join(f"{score} {int(row['data_sets'])}" for score, row in decides.iterrows())
            + ". Left out, where the score's choice rests on an estimate on fewer than half "
            "its runs (the others ended apart) and does not lie beyond their spread: "
            + "; ".join(f"{score} {row['left_out']}" for score, row in left_out.iterrows())
            + ".")
    if ranked_on is common:
        missing = table[table["data_sets"] < table["data_sets"].max()]["score"].tolist()
        lines.append("* Over every data set where each score is defined: " + ", ".join(
            f"{row.score} {row.chooses_gold:.0%} of {row.data_sets}" for row in table.sort_values(
                ["chooses_gold", "mean_abs_delta_c"], ascending=[False, True]).itertuples())
            + (f". {', '.join(missing)} {'is' if len(missing) == 1 else 'are'} not defined on "
               f"the other {int(table['data_sets'].max() - common['data_sets'].max())} data "
               "sets, whose test models do not start at 1 hidden state (sBIC needs them from "
               "1): there "
               + ("it says" if len(missing) == 1 else "they say") + " nothing" if missing
               else "") + ".")
    if "one_model_data_sets" in table and (table["one_model_data_sets"]
                                           < table["data_sets"]).any():
        groups = ranked.groupby(["chooses_gold_one_model", "one_model_data_sets"],
                                sort=False)["score"].agg(", ".join)
        lines.append(f"* On the {int(table['one_model_data_sets'].max())} data sets whose gold "
                     "set holds one model, where a choice passes only on that model (on the "
                     f"other {int(table['data_sets'].max() - table['one_model_data_sets'].max())}"
                     " any choice inside a wider set passes, section 2): " + "; ".join(
                         f"{share:.0%} of {count}: {scores}" for (share, count), scores in
                         groups.sort_index(ascending=False).items()) + ".")
    if averaging:
        lines.append("* Closest for model averaging, by the total-variation distance between "
                     "the posterior weights over the test models and the gold standard's (0 to "
                     f"1; over the data sets where every score is defined): {averaging}.")
    lines.append("* Closest in shape (the curves minus their maxima, every test model alike, so "
                 f"the far ones weigh most; a description of the curves): {closest}.")
    for column, words in (("chooses_fewer", "fewer"), ("chooses_more", "more")):
        biased = ranked[ranked[column] > BIASED_SHARE].sort_values(column, ascending=False)
        if not biased.empty:
            lines.append(f"* Choose {words} hidden states than the gold standard on more than "
                         f"{BIASED_SHARE:.0%} of the data sets"
                         + (" where every score chooses a model" if ranked_on is common else "")
                         + ": " + ", ".join(f"{row.score} ({getattr(row, column):.0%})"
                                            for row in biased.itertuples()) + ".")
    if large is not None and not large[1].empty:
        where, on_large, reliability = large

        def beyond(score: str, sign: int) -> str:
            """How many of the score's misses by ``sign`` hold whatever the gold error."""
            if reliability is None or reliability.empty:
                return ""
            mine = reliability[reliability["score"] == score]
            far = mine["holds"] & (np.sign(mine["choice"] - mine["nearest"]) == sign)
            return f" ({int(far.sum())} beyond the runs' spread)"

        lines.append(f"* On {where}: " + "; ".join(
            f"choose {words} hidden states than the gold standard: " + (", ".join(
                f"{row.score} {round(getattr(row, column) * row.data_sets)} of {row.data_sets}"
                + beyond(row.score, sign)
                for row in on_large.sort_values(column, ascending=False).itertuples()
                if getattr(row, column) > 0) or "none")
            for column, words, sign in (("chooses_fewer", "fewer", -1),
                                        ("chooses_more", "more", 1)))
            + " (section 2 gives the Δc)." + (
                " Beyond the runs' spread: outside the gold set by more than "
                f"{FAR_GAP_SPREADS:g} spreads of the gold standard's runs (SE × √runs), so "
                "that the miss holds whatever the gold standard's error; the others it cannot "
                "judge." if reliability is not None and not reliability.empty else ""))
    return lines + [""]


def _sbic_phi_lines(table: pd.DataFrame, paper: pd.DataFrame,
                    fits_prior_alpha: float | None) -> list[str]:
    """For which prior parameter phi sBIC's record (:func:`agreement_table`, rows "sBIC" and
    "sBIC φ = x", whose columns :func:`sbic_variant` reads in ``paper``) holds: the ``sBIC``
    package's default ``(d_1 + 1)/2``, ranging over the experiments' items here, a tuning;
    Drton & Plummer's bound is stated for the Dirichlet(phi) prior on the class weights, which
    for these fits is ``fits_prior_alpha``; a fraction of the default
    (:func:`sbic_fraction_score`) is given with its range over the experiments."""
    label = SCORES["sbic_log_evidence"]
    rows = table[table["score"].str.startswith(label)]
    variants = rows[rows["score"] != label]
    if variants.empty or label not in set(rows["score"]):
        return []
    default = rows[rows["score"] == label].iloc[0]
    phis = sorted({default_phi([2] * int(n)) for n in paper["features"].dropna().unique()})
    labels = score_labels(paper)
    variant_of = {labels[column]: sbic_variant(column) for column in sbic_variants(paper)}

    def record(row) -> str:
        text = (f"{row.chooses_gold:.0%} (more hidden states in {row.chooses_more:.0%}; "
                f"shape distance {row.shape_distance:.1f} nats)")
        if row.score == label:
            return (f"at the sBIC package's φ = {DEFAULT_PHI_TEXT} ({_range_text(phis)} here; "
                    "the package's default, its documentation's tuning) in " + text)
        value, fraction = variant_of[row.score]
        if not fraction and value == fits_prior_alpha:
            return (f"at the fits' own prior φ = {value:g} (the class weights' Dirichlet "
                    "parameter, which φ is in Drton & Plummer's bound as the sBIC package's "
                    "vignette cites it) in " + text)
        phi = (f"{value:g} {DEFAULT_PHI_TEXT} ({_range_text([value * p for p in phis])} here)"
               if fraction else f"{value:g}")  # a fraction of the default: its range here
        return f"at φ = {phi} in " + text

    def order(row) -> tuple:
        """Fixed φ first, then the fractions of the default (itself the fraction 1) rising,
        so that the record reads as φ grows and shows whether the default sits on a plateau."""
        value, fraction = (1.0, True) if row.score == label else variant_of[row.score]
        return (fraction, value)

    return ["* sBIC by its prior parameter φ, how often it chooses the gold standard's model "
            f"(over {default.data_sets} data sets; where sBIC is named above, it is at the "
            "package's φ, and what is said of it holds there only): "
            + "; ".join(record(row) for row in sorted(rows.itertuples(), key=order)) + "."]


def _range_text(values) -> str:
    """The smallest and largest of ``values``: "4.5 to 32.5", or one value."""
    low, high = min(values), max(values)
    return f"{low:g}" if low == high else f"{low:g} to {high:g}"


def _read_all(files) -> pd.DataFrame:
    frames = [pd.read_csv(f) for f in files]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def write_report(exact_files, paper_files, slope_files, out_dir, large_c=(),
                 doubled_files=(), rusakov_geiger: dict | None = None,
                 bounds: dict | None = None, sbic_phi_fractions=(),
                 fits_prior_alpha: float | None = None) -> None:
    """Tables (CSV), figures (PNG + PDF) and ``findings.md`` under ``out_dir``; ``large_c``
    names the experiments of ``gold_standard.paper003.large_c``, ``doubled_files`` the
    estimates of some of their data sets made again with twice the particles,
    ``rusakov_geiger`` and ``bounds`` the slope settings' :func:`rusakov_geiger_coefficients`
    and :func:`latent_class_bounds`. sBIC is computed at the ``sBIC`` package's default phi
    ``(d_1 + 1)/2``, at ``fits_prior_alpha`` (the Dirichlet parameter of the fits, the prior
    Drton & Plummer's bound is stated for) and at each of ``sbic_phi_fractions``
    (``gold_standard.sbic_phi_fractions``) times the default, which scales with the items as
    the default does."""
    out = Path(out_dir)
    (out / "tables").mkdir(parents=True, exist_ok=True)
    (out / "figures").mkdir(parents=True, exist_ok=True)
    exact, paper, slopes = (_read_all(exact_files), _read_all(paper_files),
                            _read_all(slope_files))
    phis = [] if fits_prior_alpha is None else [fits_prior_alpha]
    if not exact.empty:
        exact = with_sbic(exact, ["replicate"], phis, sbic_phi_fractions)
    if not paper.empty:  # a data set's parts back in test-model order
        paper = paper.sort_values(["experiment", "replicate", "hidden_states"], kind="stable",
                                  ignore_index=True)
        paper = with_sbic(paper, [key for key in ("experiment", "replicate", "protocol")
                                  if key in paper], phis, sbic_phi_fractions)

    def save(frame, name):
        with atomic_output(out / "tables" / name) as temporary:
            frame.to_csv(temporary, index=False)

    save(exact, "exact.csv")
    save(paper, "paper003.csv")
    save(slopes, "slopes.csv")
    paper_protocol = None
    if "protocol" in paper:
        # the approximations at the best mode we find; paper 003's report sets its EM protocol
        # beside the search, and the verdicts are judged again on its fits
        paper_protocol = paper[paper["protocol"] == "paper"]
        paper = paper[paper["protocol"] == "search"]
    doubled = _read_all(doubled_files)
    if not doubled.empty:
        doubled = doubled_particles(paper, doubled)
        save(doubled, "doubled_particles.csv")
    write_verdicts(paper003_verdict_rows(paper, doubled, paper_protocol)
                   if not paper.empty else [], out / "verdicts.csv")
    if not paper.empty:
        save(table1_against_gold(paper), "paper003_table1.csv")
        save(score_errors(paper, ["experiment", "hidden_states"]), "paper003_errors.csv")
        save(selection_errors(paper, ["experiment", "replicate"]), "paper003_delta_c.csv")
        save(shape_errors(paper, ["experiment"]), "paper003_shapes.csv")
        figure_paper_curves(paper, out / "figures" / "paper003_errors")
        figure_paper_curves(paper, out / "figures" / "paper003_shapes", shapes=True)
    if not slopes.empty:
        table = fitted_slopes(slopes, rusakov_geiger, bounds)
        save(table, "slope_fits.csv")
        save(cs_plus_comparison(slopes), "cs_plus.csv")
        figure_slopes(slopes, table, out / "figures" / "slopes")
    atomic_write_text(out / "findings.md",
                      findings(exact, paper, slopes, large_c, doubled, rusakov_geiger, bounds,
                               fits_prior_alpha))
