"""User-defined simulation studies: paper 002's protocol on any models, from the config.

A study (one entry of the config's ``studies:`` section) names generating models
(any spec :func:`hiddenbn.models.spec.parse_spec` accepts), how their parameters are drawn (a
fresh Dirichlet(``generating_alpha``) draw per replicate, or a fixed parameter file), sample
sizes, replicates, one family of candidate models, the scores that select from it (names from
:data:`hiddenbn.learning.selection.SELECTION_SCORE_NAMES`) and the metrics to report
(:data:`METRICS`).

Families (``family.type``):

``latent_class``
    the latent class models with ``hidden_states.min..max`` hidden states over the generator's
    observed variables (paper 002 Sec. 5, paper 003 Sec. 3); every candidate is fitted and each
    score selects its best, ties going to the fewest parameters. This family alone takes
    ``sbic_log_evidence``, and only from ``hidden_states.min: 1``: sBIC weighs each model
    against all its submodels, so it is computed over the chain ``1..max``
    (:func:`hiddenbn.scores.singular_bic.chain_sbic`, the ``sBIC`` package's default phi);
``hill_climb``
    paper 002 Sec. 6: keeping an HLC structure (the generator's own, or ``structure``), each
    score climbs from all hidden nodes binary by adding one state at a time
    (:func:`hiddenbn.learning.hlc.hill_climb`); the climbs share their fits;
``models``
    a named list of candidate models over the generator's observed variables.

A generator of a latent class spec may draw ``covariates`` that predict its class
(:data:`COVARIATE_KINDS`; :func:`regression_model`): each case's covariates, then its class from
a multinomial logit of them with true coefficients drawn per replicate, then its items. Every
candidate of the ``latent_class`` family then has the covariates in its class membership and is
fitted by one-step latent class regression (:func:`hiddenbn.regression.one_step.fit_one_step`),
so the scores (:data:`COVARIATE_SCORES`, ``d`` counting the coefficients) select the number of
classes with the covariates in the model, and the KL is the conditional one,
``E_x KL(p(O | x) || p^(O | x))`` over the data set's covariates
(:func:`conditional_kl_bits`).

Replicate ``r`` of a generator draws its parameters from ``parameter_seed(r)`` (the same for
every N, so the curves against N are paired as in paper 002) and its data set of N cases from
``data_seed(N, r)``, with the streams ``hiddenbn params`` and ``hiddenbn sample`` use, so
``hiddenbn params SPEC --seed P --generating-alpha A`` and
``hiddenbn sample SPEC --params FILE --n N --seed D`` regenerate them (each job's log prints P
and D). Candidates are fitted by EM with
random restarts and scored by :func:`hiddenbn.learning.selection.fit_and_score`; the KL of a
candidate to the truth is exact, in bits, over the observed states
(:func:`hiddenbn.learning.hlc.kl_bits`).
"""

from __future__ import annotations

import math
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from hiddenbn.data.sampling import sample_dataset
from hiddenbn.dimension.effective import effective_dimension_or_reason, is_hlc, is_regular_hlc
from hiddenbn.errors import HiddenbnError
from hiddenbn.learning.hlc import (all_binary, hidden_cardinalities, hill_climb, kl_bits,
                                   with_hidden_cardinalities)
from hiddenbn.learning.selection import SELECTION_SCORE_NAMES, fit_and_score
from hiddenbn.models.network import (MAX_DENSE_STATES, Network, latent_class, load_parameters,
                                     observed_distribution, random_parameters)
from hiddenbn.models.spec import is_spec_file, parse_spec
from hiddenbn.scores.singular_bic import chain_sbic
from hiddenbn.reports import plots
from hiddenbn.util import limits, seeding
from hiddenbn.util.defaults import EBNC_PRIOR_SD, SCHEDULE, WBIC_DRAWS
from hiddenbn.util.files import atomic_output, atomic_write_text
from hiddenbn.util.markdown import general_cell, pipe_table

FAMILIES = ("latent_class", "hill_climb", "models")
#: The keys each family takes besides ``type`` (and whether it needs them).
FAMILY_KEYS = {"latent_class": {"hidden_states": True}, "hill_climb": {"structure": False},
               "models": {"models": True}}
#: ``kl``: KL(true || selected) in bits (needs the observed distribution, so a dense array over
#: the observed states; with covariates the conditional KL, :func:`conditional_kl_bits`);
#: ``selected``: which model each score selects and how often;
#: ``time``: seconds of EM and scoring per replicate.
METRICS = ("kl", "selected", "time")
#: Scores that need the effective dimension.
PLUS_SCORES = ("bic_plus_log_evidence", "cs_plus")
#: EM settings of a study that gives none: MAP with paper 003's prior (1 + 0.01), paper 002's
#: restarts and convergence threshold, plain EM steps, and the restart schedule of
#: ``hiddenbn fit``.
DEFAULT_EM = {"prior_alpha": 1.01, "restarts": 8, "schedule": SCHEDULE, "tolerance": 1e-6,
              "convergence": "relative", "max_iterations": 1000, "acceleration": "none"}
#: Dirichlet parameter of the generating CPT rows when a generator gives neither
#: ``generating_alpha`` nor ``parameters`` (the uniform Dirichlet of papers 002 and 003).
DEFAULT_ALPHA = 1.0
#: The kinds of covariate a generator draws (:mod:`hiddenbn.data.covariate_sampling`), each
#: with its keys (and whether it needs them): Normal(``mean``, ``sd``), whole numbers uniform on
#: ``low..high``, or ``levels`` drawn with ``probabilities`` (default: equal).
COVARIATE_KINDS = {"normal": {"mean": False, "sd": False},
                   "uniform_integer": {"low": True, "high": True},
                   "categorical": {"levels": True, "probabilities": False}}
#: The scores of a latent class regression (:func:`hiddenbn.regression.one_step.one_step_scores`,
#: with ``d`` counting the logit coefficients): what a study with covariates selects by.
COVARIATE_SCORES = ("loglik", "bic_log_evidence", "draper", "icl_log_evidence", "laplace")
#: Why each other score of :data:`~hiddenbn.learning.selection.SELECTION_SCORE_NAMES` does not
#: apply to a latent class regression (summary.md of a study with covariates says so): not
#: defined for it, or defined but not implemented (:data:`COVARIATE_UNIMPLEMENTED`).
COVARIATE_MISSING = {
    "sbic_log_evidence": "it weighs each model against its submodels by their learning "
                         "coefficients, known for latent class models without covariates only",
    "bic_plus_log_evidence": "its effective dimension, the generic rank of the Jacobian of the "
                             "item parameters and logit coefficients to p(O | x) over the "
                             "data's covariate patterns, is not computed",
    "cs_plus": "it is CS with d = de, and CS is not defined here (its de would be BIC+'s)",
    "mled": "it is the complete-data marginal likelihood under Dirichlet priors (paper 003 "
            "Eq. 5), which has no closed form once the class is a logit of the covariates",
    "cs": "it is built on MLED's complete-data marginal likelihood, which has no closed form "
          "once the class is a logit of the covariates",
    "wbic_log_evidence": "it is defined for any likelihood and prior, but its sampler draws "
                         "the parameters of a latent class model without covariates",
}
#: The scores of :data:`COVARIATE_MISSING` that are defined for a latent class regression but
#: not implemented for it.
COVARIATE_UNIMPLEMENTED = ("bic_plus_log_evidence", "wbic_log_evidence")
#: The standard deviation of the normal distribution a generator with covariates draws its
#: true logit coefficients from (intercepts and slopes, classes 2..K against class 1), when it
#: gives none: odds ratios of e^-1..e per standard deviation of a normal covariate are common.
DEFAULT_COEFFICIENT_SD = 1.0
#: Cases of the untimed replicate a job runs first (:func:`run_job`): it compiles or loads
#: numba's kernels, which otherwise add seconds to the first timed fit.
WARM_UP_CASES = 100
#: Replicates below which summary.md gives a mean without its standard error (the ``n`` column
#: beside it says how many there are): two values give no estimate of the spread.
MIN_SE_REPLICATES = 3
#: Characters of a generator's spec in a figure's panel title.
TITLE_WIDTH = 40
#: The figure panels: column of the selections and axis label, by metric.
PANELS = {"kl": plots.KL_PANEL, "selected": ("hidden_states", "selected hidden states")}


# --- configuration ---------------------------------------------------------------------------
def check_config(studies: dict, base_dir) -> dict:
    """Check every study and return them normalised (defaults filled, file names absolute).

    ``studies`` has passed the config schema (config.schema.yaml beside this module: keys and
    types); this checks the rest. ``base_dir`` is the folder relative file names (spec and
    parameter files) are read from: the pipeline passes the folder of the config file. Raises
    :class:`~hiddenbn.errors.HiddenbnError` naming the first problem, its key and the fix.
    """
    return {name: check_study(name, study, base_dir) for name, study in studies.items()}


def check_study(name: str, study: dict, base_dir) -> dict:
    """One study of :func:`check_config`: returns a normalised copy."""
    where = f"config studies.{name}"
    base_dir = Path(base_dir)
    scores = list(study["scores"])
    for score in scores:
        if score not in SELECTION_SCORE_NAMES:
            raise HiddenbnError(f"{where}.scores: unknown score {score!r}; use any of "
                                f"{', '.join(SELECTION_SCORE_NAMES)}")
    metrics = list(study.get("metrics", METRICS))
    for metric in metrics:
        if metric not in METRICS:
            raise HiddenbnError(f"{where}.metrics: unknown metric {metric!r}; use any of "
                                f"{', '.join(METRICS)}")
    generators = {g: _check_generator(f"{where}.generators.{g}", entry, base_dir, "kl" in metrics)
                  for g, entry in study["generators"].items()}
    family = _check_family(f"{where}.family", study["family"], base_dir)
    if "sbic_log_evidence" in scores and not (family["type"] == "latent_class"
                                              and family["hidden_states"]["min"] == 1):
        raise HiddenbnError(f"{where}.scores: sbic_log_evidence weighs each model against all "
                            "its submodels, so it needs the latent class models of 1..K "
                            "classes; give family {type: latent_class, hidden_states: {min: 1, "
                            "max: K}}, or drop sbic_log_evidence")
    for g, generator in generators.items():
        _check_family_fits(f"{where}.family", family, g, parse_spec(generator["spec"]))
    with_covariates = [g for g, generator in generators.items() if "covariates" in generator]
    if with_covariates:
        _check_covariate_study(where, with_covariates[0], family, scores)
    return {"description": study.get("description", ""), "generators": generators,
            "sample_sizes": sorted(set(study["sample_sizes"])),
            "replicates": study["replicates"], "missing_rate": study.get("missing_rate", 0.0),
            "family": family, "scores": scores,
            "metrics": [m for m in METRICS if m in metrics],
            "em": {**DEFAULT_EM, **study.get("em", {})}}


def _resolve(spec, base_dir: Path):
    """A spec with a relative file name made absolute; shorthands and mappings unchanged."""
    if is_spec_file(spec) and not Path(spec).is_absolute():
        return str(base_dir / spec)
    return spec


def _parse(where: str, spec) -> Network:
    """The network of ``spec``, or one error naming the config key; discrete networks only."""
    try:
        network = parse_spec(spec)
    except HiddenbnError as err:
        raise HiddenbnError(f"{where}: {err}") from None
    if network.kind != "discrete":
        raise HiddenbnError(f"{where}: a {network.kind} network; studies sample and fit discrete "
                            "networks (remove 'type' or write type: discrete)")
    return network


def _check_generator(where: str, entry: dict, base_dir: Path, with_kl: bool) -> dict:
    spec = _resolve(entry["spec"], base_dir)
    network = _parse(f"{where}.spec", spec)
    try:  # its parameters and its samples are built: their size is checked before any job
        limits.check_network(network, "the generator")
    except HiddenbnError as err:
        raise HiddenbnError(f"{where}.spec: {err}") from None
    if "generating_alpha" in entry and "parameters" in entry:
        raise HiddenbnError(f"{where}: give generating_alpha (fresh random parameters per "
                            "replicate) or parameters (a parameter file), not both")
    parameters = entry.get("parameters")
    if parameters is not None:
        parameters = str(base_dir / parameters)
        _check_parameter_file(f"{where}.parameters", parameters, network)
    if with_kl:
        states = math.prod(network.observed_cardinalities)
        if states > MAX_DENSE_STATES:
            raise HiddenbnError(f"{where}.spec: the observed variables have {states:.3g} joint "
                                f"states, more than the {MAX_DENSE_STATES} the exact KL can "
                                "hold; remove kl from the study's metrics")
    checked = {"spec": spec, "generating_alpha": entry.get("generating_alpha", DEFAULT_ALPHA)
               if parameters is None
               else None, "parameters": parameters}
    if "coefficient_sd" in entry and "covariates" not in entry:
        raise HiddenbnError(f"{where}.coefficient_sd: the logit coefficients are those of "
                            "covariates, and the generator has none; give covariates or drop "
                            "coefficient_sd")
    if "covariates" in entry:  # (only then: the other studies' parameters stay as they were)
        checked["covariates"] = _check_covariates(f"{where}.covariates", entry["covariates"],
                                                  network)
        checked["coefficient_sd"] = entry.get("coefficient_sd", DEFAULT_COEFFICIENT_SD)
    return checked


def _check_covariates(where: str, covariates: dict, network: Network) -> dict:
    """The covariates of a generator, each ``{type, ...}`` with its defaults filled in; the
    generator must be a latent class model, whose class membership they predict."""
    hidden = network.hidden_indices
    if hidden.size != 1 or network != latent_class(
            network.cardinalities[hidden[0]], network.observed_cardinalities,
            network.observed_names, network.names[hidden[0]]):
        raise HiddenbnError(f"{where}: covariates predict the class of a latent class model, "
                            "and the spec is not one; give a latent class spec such as "
                            "'3:2,2,2,2', or drop the covariates")
    checked = {}
    for name, covariate in covariates.items():
        key = f"{where}.{name}"
        if name in network.observed_names:
            raise HiddenbnError(f"{key}: {name!r} is also an item of the spec; give the "
                                "covariate another name")
        kind = _check_kind(key, covariate, COVARIATE_KINDS, lambda kind: (
            "kind of covariate" if kind is None else f"a {kind} covariate"))
        if kind == "normal":
            checked[name] = {"type": kind, "mean": covariate.get("mean", 0.0),
                             "sd": covariate.get("sd", 1.0)}
        elif kind == "uniform_integer":
            if covariate["low"] >= covariate["high"]:
                raise HiddenbnError(f"{key}: low {covariate['low']} is not below high "
                                    f"{covariate['high']}, so the covariate would be constant; "
                                    "give low < high")
            checked[name] = {"type": kind, "low": covariate["low"], "high": covariate["high"]}
        else:
            levels = [str(level) for level in covariate["levels"]]
            if len(set(levels)) != len(levels):
                raise HiddenbnError(f"{key}.levels: a level is listed twice; list each once")
            probabilities = covariate.get("probabilities")
            if probabilities is not None and (len(probabilities) != len(levels)
                                              or abs(sum(probabilities) - 1.0) > 1e-9):
                raise HiddenbnError(f"{key}.probabilities: need one probability per level "
                                    f"({len(levels)}), adding up to 1; got {probabilities}")
            checked[name] = {"type": kind, "levels": levels, "probabilities": probabilities}
    return checked


def _check_covariate_study(where: str, generator: str, family: dict, scores) -> None:
    """A study whose generator ``generator`` draws covariates selects the number of classes
    of latent class regressions: its family is latent_class and its scores those defined with
    covariates."""
    if family["type"] != "latent_class":
        raise HiddenbnError(f"{where}.family: generator {generator} draws covariates, which "
                            "predict the class of latent class regressions; give family "
                            "{type: latent_class, hidden_states: {min: 1, max: K}}")
    other = [score for score in scores if score not in COVARIATE_SCORES]
    if other:
        raise HiddenbnError(f"{where}.scores: {other[0]} is not defined for a latent class "
                            f"regression (generator {generator} draws covariates); use any of "
                            f"{', '.join(COVARIATE_SCORES)}")


def _check_parameter_file(where: str, path: str, network: Network) -> None:
    """The file must load for ``network`` (and, if it names its network, name this one)."""
    try:
        load_parameters(path, network)
    except HiddenbnError as err:
        raise HiddenbnError(f"{where}: {err}; write one with hiddenbn params SPEC -o FILE") \
            from None


def _check_kind(where: str, entry: dict, kinds: dict, named) -> str:
    """The ``type`` of a config entry whose keys depend on it (``kinds``: type -> {key:
    required}), refused in one line naming the key where the type is unknown, a key is not
    one of its type's or a required one is missing; ``named(type)`` names the entry in a
    message (``named(None)``: its kind of type)."""
    kind = entry["type"]
    if kind not in kinds:
        raise HiddenbnError(f"{where}.type: unknown {named(None)} {kind!r}; use one of "
                            f"{', '.join(kinds)}")
    keys = kinds[kind]
    for key in sorted(set(entry) - {"type"} - set(keys)):
        raise HiddenbnError(f"{where}.{key}: not a setting of {named(kind)}; it takes "
                            f"{', '.join(keys)}")
    for key, required in keys.items():
        if required and key not in entry:
            raise HiddenbnError(f"{where}: {named(kind)} needs {key}")
    return kind


def _check_family(where: str, family: dict, base_dir: Path) -> dict:
    kind = _check_kind(where, family, FAMILY_KEYS,
                       lambda kind: "family" if kind is None else f"family {kind}")
    out = {"type": kind}
    if kind == "latent_class":
        states = family["hidden_states"]
        if states["min"] > states["max"]:
            raise HiddenbnError(f"{where}.hidden_states: min {states['min']} exceeds max "
                                f"{states['max']}")
        out["hidden_states"] = dict(states)
    elif kind == "hill_climb":
        if "structure" in family:
            out["structure"] = _resolve(family["structure"], base_dir)
            _check_climbable(f"{where}.structure", _parse(f"{where}.structure",
                                                          out["structure"]))
    else:
        out["models"] = {}
        for label, spec in family["models"].items():
            out["models"][label] = _resolve(spec, base_dir)
            _parse(f"{where}.models.{label}", out["models"][label])
    return out


def _check_climbable(where: str, structure: Network) -> None:
    if not is_hlc(structure):
        raise HiddenbnError(f"{where}: the hill-climb needs a hierarchical latent class model (a "
                            "tree whose observed nodes are its leaves), e.g. "
                            "'5(3(2,2),3(2,2),2)'")
    if not is_regular_hlc(all_binary(structure)):
        raise HiddenbnError(f"{where}: the climb starts with every hidden node binary, which is "
                            "not a regular model here (a binary hidden node with two "
                            "neighbours, one of them hidden, can be removed); give every hidden "
                            "node with a hidden neighbour at least three neighbours")


def _observed(network: Network) -> dict:
    return dict(zip(network.observed_names, network.observed_cardinalities))


def _observed_text(network: Network) -> str:
    return ", ".join(f"{n} ({r} states)" for n, r in _observed(network).items())


def _check_family_fits(where: str, family: dict, generator: str, network: Network) -> None:
    """Every candidate must model the generator's observed variables, no more, no fewer."""
    if family["type"] == "latent_class":
        return  # built over the generator's observed variables
    if family["type"] == "hill_climb":
        structures = {"structure": family.get("structure")}
        if structures["structure"] is None:
            _check_climbable(f"{where} (type hill_climb, generator {generator})", network)
            return
    else:
        structures = {f"models.{label}": spec for label, spec in family["models"].items()}
    for key, spec in structures.items():
        candidate = parse_spec(spec)
        if _observed(candidate) != _observed(network):
            raise HiddenbnError(f"{where}.{key}: its observed variables "
                                f"{_observed_text(candidate)} "
                                f"differ from generator {generator}'s "
                                f"{_observed_text(network)}; a candidate must model the same "
                                "observed variables (names and state counts)")


def generator_files(study: dict, generator: str) -> list[str]:
    """The files a generator and the study's family read (inputs of the study's jobs)."""
    entry, family = study["generators"][generator], study["family"]
    specs = [entry["spec"], family.get("structure"), *family.get("models", {}).values()]
    return [str(s) for s in specs if s is not None and is_spec_file(s)] + \
        ([entry["parameters"]] if entry["parameters"] else [])


def summary_files(study: dict) -> list[str]:
    """What the summary of ``study`` writes, relative to its folder: summary.md, the tables of
    every candidate and every selection, the summary by (generator, N, score), the selection
    frequencies (metric ``selected``), the run times (``time``) and the figure (``kl`` or
    ``selected``)."""
    files = ["summary.md", "tables/fits.csv", "tables/selections.csv", "tables/summary.csv"]
    if "selected" in study["metrics"]:
        files.append("tables/frequency.csv")
    if "time" in study["metrics"]:
        files.append("tables/time.csv")
    if _panels(study):
        files += ["figures/selection.png", "figures/selection.pdf"]
    return files


# --- one job: a generator at one sample size, every replicate --------------------------------
def generating_parameters(network: Network, generator: dict, parameter_seed: int) -> list:
    """The generator's parameter file, or CPT rows from Dirichlet(generating_alpha) as
    ``hiddenbn params --seed parameter_seed --generating-alpha A`` draws them."""
    if generator["parameters"] is not None:
        return load_parameters(generator["parameters"], network)
    return random_parameters(network, seeding.rng(parameter_seed, "parameters"),
                             generator["generating_alpha"])


def _hidden_text(network: Network) -> str:
    return ",".join(f"{network.names[i]}={network.cardinalities[i]}"
                    for i in network.hidden_indices)


def fixed_candidates(family: dict, generator: Network) -> dict:
    """The candidates of a ``latent_class`` or ``models`` family: label -> network.

    Latent class candidates are labelled by their shorthand (``3:2,2,2``), take the
    generator's observed variables and, for their hidden node, the name of the generator's
    first hidden node (so the true model compares equal to the generator).
    """
    if family["type"] == "models":
        return {label: parse_spec(spec) for label, spec in family["models"].items()}
    hidden = (generator.names[generator.hidden_indices[0]] if generator.hidden_indices.size
              else "H")
    states = family["hidden_states"]
    cards = generator.observed_cardinalities
    return {f"{k}:" + ",".join(map(str, cards)):
            latent_class(k, cards, generator.observed_names, hidden)
            for k in range(states["min"], states["max"] + 1)}


def climb_start(family: dict, generator: Network) -> Network:
    """The all-binary start of the ``hill_climb`` family."""
    structure = generator if family.get("structure") is None else parse_spec(family["structure"])
    return all_binary(structure)


def true_model(study: dict, generator: str) -> str | None:
    """The label of the candidate equal to the generator, or None if the family lacks it."""
    network = parse_spec(study["generators"][generator]["spec"])
    family = study["family"]
    if family["type"] == "hill_climb":
        start = climb_start(family, network)
        same = with_hidden_cardinalities(start, hidden_cardinalities(network))
        return _hidden_text(same) if same == network and is_regular_hlc(network) else None
    return next((label for label, candidate in fixed_candidates(family, network).items()
                 if candidate == network), None)


def _observed_in_order(network: Network, cpts, names) -> np.ndarray:
    """The observed distribution of ``network`` with its axes in the order of ``names``."""
    joint = observed_distribution(network, cpts)
    return np.transpose(joint, [network.observed_names.index(n) for n in names])


class _Candidates:
    """Fits and scores the candidates of one data set, each once (climbs share them)."""

    def __init__(self, study: dict, generator: Network, data, data_seed: int, truth):
        self.study, self.generator, self.data = study, generator, data
        self.data_seed, self.truth = data_seed, truth
        self.rows: dict[str, dict] = {}

    def __call__(self, label: str, network: Network) -> dict:
        if label not in self.rows:
            self.rows[label] = self._fit(label, network)
        return self.rows[label]

    def _fit(self, label: str, network: Network) -> dict:
        em, scores = self.study["em"], self.study["scores"]
        with_de = any(s in PLUS_SCORES for s in scores)
        if with_de:  # de is a property of the model, cached: keep it out of the timing
            effective_dimension_or_reason(network)
        start = time.perf_counter()
        outcome = fit_and_score(network, self.data, self.data_seed, em["prior_alpha"],
                                em["restarts"], with_de, "laplace" in scores,
                                max_iterations=em["max_iterations"], tolerance=em["tolerance"],
                                convergence=em["convergence"], schedule=em["schedule"],
                                acceleration=em["acceleration"],
                                wbic_draws=WBIC_DRAWS if "wbic_log_evidence" in scores else None)
        seconds = time.perf_counter() - start
        result, values = outcome["fit"], outcome["scores"]
        notes = [outcome["note"]] if with_de and outcome["note"] else []
        if "laplace" in scores and not values.get("laplace_positive_definite", False):
            notes.append("no Laplace score: the negative Hessian is not positive definite"
                         if "laplace" in values else "no Laplace score: too many parameters")
        row = {"model": label, "hidden_states": int(sum(network.cardinalities[i]
                                                        for i in network.hidden_indices)),
               "ds": outcome["ds"], "de": outcome["de"], "converged": result.converged,
               "iterations": result.iterations, "fit_seconds": seconds,
               "loglik": result.log_likelihood,
               **{s: float(values.get(s, math.nan)) for s in scores if s != "loglik"}}
        if "wbic" in outcome:  # WBIC is a Monte-Carlo estimate: its error decides its choice
            row["wbic_se"] = outcome["wbic"]["standard_error"]
            row["wbic_rhat"] = outcome["wbic"]["rhat"]
        if self.truth is not None:
            row["kl_bits"] = kl_bits(self.truth, _observed_in_order(
                network, result.cpts, self.generator.observed_names))
        row["is_true"] = network == self.generator
        row["note"] = "; ".join(notes)
        print(f"  {label}: loglik {result.log_likelihood:.2f}, {seconds:.2f} s", file=sys.stderr,
              flush=True)
        return row


def _score_value(row: dict, score: str) -> float:
    """The score as the selection compares it: a missing score is never chosen."""
    value = row[score]
    return -math.inf if math.isnan(value) else value


def _selection_row(score: str, row: dict | None, with_kl: bool, path: str | None = None) -> dict:
    keys = ("model", "hidden_states", "ds") + (("kl_bits",) if with_kl else ()) + ("is_true",)
    chosen = {k: (row[k] if row is not None else math.nan) for k in keys}
    if row is None:
        chosen["model"] = "(no candidate has this score)"
    return {"score": score, **chosen, **({} if path is None else {"path": path})}


def run_replicate(study: dict, generator: str, cases: int, parameter_seed: int,
                  data_seed: int) -> tuple[list, list]:
    """Sample one data set and let every score select from the family.

    Returns the rows of every candidate fitted and one selection row per score.
    """
    entry = study["generators"][generator]
    network = parse_spec(entry["spec"])
    cpts = generating_parameters(network, entry, parameter_seed)
    if "covariates" in entry:
        rows = regression_candidates(study, entry, network, cpts, cases, parameter_seed,
                                     data_seed)
        return rows, [_best(rows, score, "kl" in study["metrics"])
                      for score in study["scores"]]
    data = sample_dataset(network, cpts, cases, seeding.rng(data_seed, "data"),
                          study["missing_rate"])
    truth = observed_distribution(network, cpts) if "kl" in study["metrics"] else None
    candidates = _Candidates(study, network, data, data_seed, truth)
    family, scores = study["family"], study["scores"]
    selections = []
    if family["type"] == "hill_climb":
        start = climb_start(family, network)

        def evaluate(cardinalities):
            net = with_hidden_cardinalities(start, cardinalities)
            row = candidates(_hidden_text(net), net)
            return {s: _score_value(row, s) for s in scores}

        for score in scores:
            _, path = hill_climb(start, evaluate, score)
            labels = [_hidden_text(with_hidden_cardinalities(start, c)) for c in path]
            selections.append(_selection_row(score, candidates.rows[labels[-1]],
                                             truth is not None, " > ".join(labels)))
    else:
        rows = [candidates(label, net) for label, net in fixed_candidates(family, network).items()]
        if "sbic_log_evidence" in scores:  # check_study: the candidates are 1..max classes
            values = chain_sbic([r["hidden_states"] for r in rows], [r["loglik"] for r in rows],
                                network.observed_cardinalities, data.n_cases)
            for row, value in zip(rows, values):
                row["sbic_log_evidence"] = float(value)
        selections = [_best(rows, score, truth is not None) for score in scores]
    return list(candidates.rows.values()), selections


def _best(rows: list, score: str, with_kl: bool) -> dict:
    """The selection row of the candidate ``rows`` that ``score`` selects: ties go to the
    fewest parameters, then to the first listed; a candidate without the score is never
    chosen."""
    scored = [r for r in rows if not math.isnan(r[score])]
    best = max(scored, key=lambda r: (r[score], -r["ds"])) if scored else None
    return _selection_row(score, best, with_kl)


def regression_model(network: Network, entry: dict, cpts, parameter_seed: int):
    """The latent class regression a generator with covariates draws from: the covariates of
    its entry, the item probabilities of its latent class spec (``cpts``), and logit
    coefficients (intercepts and slopes of classes 2..K against class 1) drawn from
    Normal(0, ``coefficient_sd``^2) by the stream ``(parameter_seed, "coefficients")``, which
    leaves the item probabilities as the spec's parameter seed draws them.

    Returns
    -------
    hiddenbn.data.covariate_sampling.LatentClassRegressionModel
    """
    from hiddenbn.data.covariate_sampling import (CategoricalCovariate,
                                                  LatentClassRegressionModel, NormalCovariate,
                                                  UniformIntegerCovariate)

    covariates = []
    for name, covariate in entry["covariates"].items():
        if covariate["type"] == "normal":
            covariates.append(NormalCovariate(name, covariate["mean"], covariate["sd"]))
        elif covariate["type"] == "uniform_integer":
            covariates.append(UniformIntegerCovariate(name, covariate["low"], covariate["high"]))
        else:
            probabilities = covariate["probabilities"]
            covariates.append(CategoricalCovariate(
                name, tuple(covariate["levels"]),
                None if probabilities is None else tuple(probabilities)))
    classes = network.cardinalities[network.hidden_indices[0]]
    columns = 1 + sum(len(c.levels) - 1 if isinstance(c, CategoricalCovariate) else 1
                      for c in covariates)
    coefficients = np.zeros((columns, classes))
    coefficients[:, 1:] = seeding.rng(parameter_seed, "coefficients").normal(
        0.0, entry["coefficient_sd"], (columns, classes - 1))
    return LatentClassRegressionModel(tuple(covariates), coefficients,
                                      tuple(cpts[i] for i in network.observed_indices),
                                      network.observed_names)


#: Cells (cases x observed states) of one block of :func:`conditional_kl_bits`.
KL_CHUNK_CELLS = 1 << 22


def conditional_kl_bits(true_classes, true_items, fitted_classes, fitted_items) -> float:
    """``E_x KL(p(O | x) || p^(O | x))`` in bits: per case, the KL from the true distribution of
    the items given its covariates to the fitted one, averaged over the cases (their
    covariates as sampled), exact over the items' joint states.

    Parameters
    ----------
    true_classes, fitted_classes : ndarray, shape (n, K) and (n, K')
        Each case's class probabilities ``pi(x)`` under the truth and under the fit (the
        numbers of classes may differ).
    true_items, fitted_items : sequence of ndarray
        One ``(K, r_j)`` (``(K', r_j)``) table per item, ``P(O_j = r | class)``, the items in
        one order.

    Returns
    -------
    float
        The mean KL; infinite where the fit gives 0 to a state the truth gives mass.
    """
    def joint(tables):  # (classes, states): the items' joint distribution within each class
        result = np.ones((np.asarray(tables[0]).shape[0], 1))
        for table in tables:
            result = (result[:, :, None] * np.asarray(table)[:, None, :]).reshape(
                len(result), -1)
        return result

    true_joint, fitted_joint = joint(true_items), joint(fitted_items)
    step = max(1, KL_CHUNK_CELLS // true_joint.shape[1])
    total = 0.0
    for start in range(0, len(true_classes), step):
        p = true_classes[start:start + step] @ true_joint
        q = fitted_classes[start:start + step] @ fitted_joint
        support = p > 0
        if np.any(q[support] <= 0):
            return math.inf
        total += float(np.sum(p[support] * np.log2(p[support] / q[support])))
    return total / len(true_classes)


def regression_candidates(study: dict, entry: dict, network: Network, cpts, cases: int,
                          parameter_seed: int, data_seed: int) -> list:
    """Sample one data set with covariates and fit every latent class candidate of the family
    with the covariates in its class membership (one-step latent class regression, as
    ``hiddenbn fit --covariates``): the rows of every candidate, with its scores."""
    from hiddenbn.data.dataset import MISSING
    from hiddenbn.regression.covariates import covariate_design
    from hiddenbn.regression.one_step import RegressionCases

    model = regression_model(network, entry, cpts, parameter_seed)
    sample = model.sample(cases, seeding.rng(data_seed, "data"), study["missing_rate"])
    design = covariate_design(sample.frame, list(entry["covariates"]),
                              items=network.observed_names)
    items = sample.frame[list(network.observed_names)]
    patterns = items.astype("Int64").fillna(MISSING).to_numpy(dtype=np.int64)
    data = RegressionCases.grouped(patterns[design.kept], design.matrix,
                                   network.observed_cardinalities)
    # the true p(O | x) of each case: its class probabilities and the item tables
    truth = ((model.class_probabilities(sample.design[design.kept]), model.item_tables,
              design.matrix) if "kl" in study["metrics"] else None)
    return [_fit_regression(study, label, candidate, data, design.names, data_seed, network,
                            truth)
            for label, candidate in fixed_candidates(study["family"], network).items()]


def _fit_regression(study: dict, label: str, candidate: Network, data, names, data_seed: int,
                    generator: Network, truth=None) -> dict:
    """One candidate's row: its one-step fit and its scores (with ``d`` counting the logit
    coefficients), as :class:`_Candidates` gives a candidate without covariates; with
    ``truth`` (the true class probabilities of each case, the true item tables and the cases'
    design rows) also its :func:`conditional_kl_bits`."""
    from hiddenbn.regression.one_step import fit_one_step, observed_information, one_step_scores

    em, scores = study["em"], study["scores"]
    start = time.perf_counter()
    fit = fit_one_step(candidate, data, names, seed=data_seed, alpha=em["prior_alpha"],
                       restarts=em["restarts"], schedule=em["schedule"],
                       max_iterations=em["max_iterations"], tolerance=em["tolerance"],
                       convergence=em["convergence"], acceleration=em["acceleration"])
    # Laplace's normal prior on the coefficients: that of hiddenbn fit --covariates
    values, _, _, notes = one_step_scores(fit, observed_information(fit.engine, fit.state),
                                          EBNC_PRIOR_SD)
    seconds = time.perf_counter() - start
    hidden = candidate.hidden_indices[0]
    print(f"  {label}: loglik {fit.log_likelihood:.2f}, {seconds:.2f} s", file=sys.stderr,
          flush=True)
    kl = {} if truth is None else {"kl_bits": conditional_kl_bits(
        truth[0], truth[1], fit.class_probabilities(truth[2]),
        [fit.cpts[i] for i in candidate.observed_indices])}
    return {"model": label, "hidden_states": int(candidate.cardinalities[hidden]),
            "ds": fit.n_parameters, "de": None, "converged": fit.converged,
            "iterations": fit.iterations, "fit_seconds": seconds,
            "loglik": fit.log_likelihood,
            **{s: math.nan if values[s] is None else float(values[s])
               for s in scores if s != "loglik"},
            **kl, "is_true": candidate == generator, "note": "; ".join(notes)}


def run_job(study: dict, generator: str, cases: int, seeds) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Every replicate of one (generator, N): ``seeds`` holds ``(parameter_seed, data_seed)``
    per replicate. Returns the tables of candidates and of selections, both keyed by
    generator, cases and replicate.

    A replicate on :data:`WARM_UP_CASES` cases (or ``cases``, if fewer) with one EM restart
    runs first, untimed and discarded: the first fit of a process compiles or loads numba's
    kernels, seconds that belong to no method (8 s of a 1-class fit that took 0.1 s later)."""
    warm_up = {**study, "em": {**study["em"], "restarts": 1}}
    print(f"warm-up (untimed, discarded): {min(cases, WARM_UP_CASES)} cases", file=sys.stderr,
          flush=True)
    run_replicate(warm_up, generator, min(cases, WARM_UP_CASES), *seeds[0])
    fits, selections = [], []
    for replicate, (parameter_seed, data_seed) in enumerate(seeds, start=1):
        print(f"replicate {replicate}: parameter seed {parameter_seed}, data seed {data_seed}",
              file=sys.stderr, flush=True)
        rows, chosen = run_replicate(study, generator, cases, parameter_seed, data_seed)
        key = {"generator": generator, "cases": cases, "replicate": replicate}
        fits += [{**key, **row} for row in rows]
        selections += [{**key, **row} for row in chosen]
    return pd.DataFrame(fits), pd.DataFrame(selections)


# --- the summary of a study -------------------------------------------------------------------
#: The KL panel of a study with covariates: the conditional KL (:func:`conditional_kl_bits`).
CONDITIONAL_KL_PANEL = ("kl_bits", "conditional KL(true ‖ selected) [bits]")


def _with_covariates(study: dict) -> bool:
    return any("covariates" in entry for entry in study["generators"].values())


def _panel(study: dict, metric: str) -> tuple:
    """The panel of ``metric``: with covariates the KL is the conditional one."""
    return CONDITIONAL_KL_PANEL if metric == "kl" and _with_covariates(study) else PANELS[metric]


def _panels(study: dict) -> list:
    return [_panel(study, m) for m in ("kl", "selected") if m in study["metrics"]]


def summary_table(selections: pd.DataFrame, study: dict) -> pd.DataFrame:
    """Per generator, N and score: mean and standard error of the selected model's KL (metric
    ``kl``) and hidden states, and the share of replicates that selected the true model
    (``selected``)."""
    keys = ["generator", "cases", "score"]
    values = [v for m, v in (("kl", "kl_bits"), ("selected", "hidden_states"))
              if m in study["metrics"]]
    table = selections.groupby(keys, sort=True).size().rename("replicates").reset_index()
    for value in values:
        part = plots.mean_and_error(selections, keys, value).drop(columns="n")
        table = table.merge(part.rename(columns={"mean": f"{value}_mean", "se": f"{value}_se"}),
                            on=keys)
    if "selected" in study["metrics"]:
        recovered = selections.assign(is_true=selections.is_true == True)  # noqa: E712 (NaN)
        table = table.merge(recovered.groupby(keys).is_true.mean().rename("recovered")
                            .reset_index(), on=keys)
    return table


def frequency_table(selections: pd.DataFrame) -> pd.DataFrame:
    """How often each score selected each model, per generator and N (most frequent first)."""
    keys = ["generator", "cases", "score"]
    counts = selections.groupby(keys + ["model"]).size().rename("count").reset_index()
    counts["share"] = counts["count"] / counts.groupby(keys)["count"].transform("sum")
    return counts.sort_values(keys + ["count", "model"], ascending=[True] * 3 + [False, True],
                              ignore_index=True)


def time_table(fits: pd.DataFrame) -> pd.DataFrame:
    """Seconds of EM and scoring per replicate (every candidate the family fitted) and the
    number of candidates fitted, mean and standard error per generator and N."""
    keys = ["generator", "cases"]
    per_replicate = fits.groupby(keys + ["replicate"]).agg(
        fit_seconds=("fit_seconds", "sum"), models=("model", "size")).reset_index()
    seconds = plots.mean_and_error(per_replicate, keys, "fit_seconds")
    models = per_replicate.groupby(keys).models.mean().rename("models_fitted").reset_index()
    # measured times end in _seconds, which tests/run_outputs.py leaves out of a comparison
    return seconds.rename(columns={"mean": "mean_fit_seconds", "se": "se_fit_seconds",
                                   "n": "replicates"}).merge(models, on=keys)


def _spec_text(spec) -> str:
    return "an inline model" if isinstance(spec, dict) else (
        Path(spec).name if is_spec_file(spec) else str(spec))


def _short(text: str, width: int = TITLE_WIDTH) -> str:
    """``text`` cut to ``width`` characters with an ellipsis: a panel title of a figure stays
    within its panel (summary.md gives the whole spec)."""
    return text if len(text) <= width else text[:width - 1].rstrip(", ") + "…"


def _generator_text(study: dict, generator: str) -> str:
    entry = study["generators"][generator]
    how = (f"parameters from {Path(entry['parameters']).name}" if entry["parameters"]
           else f"Dirichlet({entry['generating_alpha']:g}) parameters per replicate")
    if "covariates" in entry:
        how += (", the class a multinomial logit of the covariates " + ", ".join(
            f"{name} ({covariate['type'].replace('_', ' ')})"
            for name, covariate in entry["covariates"].items()) +
            f" with coefficients drawn from Normal(0, {entry['coefficient_sd']:g}^2) per "
            "replicate; every candidate has the covariates in its class membership (one-step "
            "latent class regression)")
    return f"{_spec_text(entry['spec'])}, {how}"


def _family_text(family: dict) -> str:
    if family["type"] == "latent_class":
        states = family["hidden_states"]
        return f"latent class models with {states['min']}..{states['max']} hidden states"
    if family["type"] == "hill_climb":
        structure = family.get("structure")
        return ("hill-climb on the hidden cardinalities of " +
                ("the generator's structure" if structure is None else _spec_text(structure)) +
                ", from every hidden node binary (paper 002 Sec. 6)")
    return "the models " + ", ".join(family["models"])


def _mean_se(mean: float, se: float, n: int, digits: str = ".3g") -> str:
    """``mean ± se``, the mean alone from fewer than :data:`MIN_SE_REPLICATES` values."""
    if pd.isna(mean):
        return ""
    return f"{mean:{digits}}" + (f" ± {se:{digits}}" if n >= MIN_SE_REPLICATES else "")


def most_often(frequency: pd.DataFrame) -> str:
    """The model selected most often in ``frequency`` (the rows of one generator, N and score
    of :func:`frequency_table`) and its share; every model tied for the top share, so that a
    tie is not broken by the order of the rows."""
    top = frequency[frequency["count"] == frequency["count"].max()]
    return (" / ".join(top.model) + f" ({top.share.iloc[0]:.0%}"
            + (" each)" if len(top) > 1 else ")"))


def unscored_candidates(fits: pd.DataFrame, scores) -> pd.DataFrame:
    """Per score, generator, N and candidate without a value of the score on some data sets:
    on how many (``missing``, of ``data_sets``). The score chose without that candidate there
    (a missing score is never selected)."""
    columns = ["score", "generator", "cases", "model", "missing", "data_sets"]
    data_sets = fits.groupby(["generator", "cases"]).replicate.nunique()
    rows = []
    for score in scores:
        if score == "loglik" or score not in fits:
            continue
        missing = fits[fits[score].isna()].sort_values(["generator", "cases", "ds", "model"])
        for (generator, cases, model), group in missing.groupby(
                ["generator", "cases", "model"], sort=False):
            rows.append([score, generator, cases, model, group.replicate.nunique(),
                         data_sets[(generator, cases)]])
    return pd.DataFrame(rows, columns=columns)


def _unscored_text(unscored: pd.DataFrame) -> list[str]:
    """The lines of summary.md's notes that name, per score, the candidates it chose without."""
    lines = []
    for score, group in unscored.groupby("score", sort=False):
        places = [f"{g}, N = {n}: " + ", ".join(
            f"{r.model} ({r.missing} of {r.data_sets} data sets)" for r in part.itertuples())
            for (g, n), part in group.groupby(["generator", "cases"], sort=False)]
        lines.append(f"- {_display(score)} has no value for these candidates, so it "
                     "chose among the others on those data sets: " + "; ".join(places) + ".")
    return lines


def _covariate_text(study: dict) -> list[str]:
    """The paragraph of summary.md on a study with covariates: the scores not defined for a
    latent class regression, those defined but not implemented for it, and which KL it
    reports."""
    if not _with_covariates(study):
        return []
    missing = [s for s in SELECTION_SCORE_NAMES if s not in COVARIATE_SCORES]

    def reasons(scores):
        return "; ".join(f"{_display(score)}: {COVARIATE_MISSING[score]}" for score in scores)

    return ["With covariates every candidate is a latent class regression, fitted in one step, "
            f"and only {', '.join(map(_display, COVARIATE_SCORES))} are computed for it (`d` "
            "counting the logit coefficients). Not defined for it: " + reasons(
                [s for s in missing if s not in COVARIATE_UNIMPLEMENTED])
            + ". Defined but not implemented: " + reasons(
                [s for s in missing if s in COVARIATE_UNIMPLEMENTED])
            + "." + (" With covariates the items' distribution differs from case to case, so "
                     "the KL is the conditional one, E_x KL(p(O | x) ‖ p̂(O | x)): per case, "
                     "the KL in bits from the true distribution of the items O given its "
                     "covariates x to the selected model's, exact over the items' states, "
                     "averaged over the data set's cases." if "kl" in study["metrics"] else ""),
            ""]


def level_with_best(means: pd.Series, errors: pd.Series | None, lowest: bool) -> list:
    """The scores (the index of ``means``) whose mean is the best (lowest or highest) or within
    one combined standard error of it, ``|m_s - m_best| <= sqrt(se_s^2 + se_best^2)``, best
    first: a mean over a few replicates does not single out one score when others are level
    with it. A missing error counts as 0, so exact ties are always listed together."""
    means = means.dropna()
    errors = (pd.Series(0.0, index=means.index) if errors is None
              else errors.reindex(means.index).fillna(0.0))
    best = means.idxmin() if lowest else means.idxmax()
    gap = (means - means[best]).abs()
    level = gap <= np.sqrt(errors ** 2 + errors[best] ** 2)
    order = means[level].sort_values(ascending=lowest, kind="stable")
    return list(order.index)


def estimated_errors(rows: pd.DataFrame, column: str) -> pd.Series | None:
    """The standard errors ``<column>_se`` of ``rows`` (of :func:`summary_table`, indexed by
    score), or None where a row has fewer than :data:`MIN_SE_REPLICATES` replicates: there the
    tables give no standard error, and a judgement names only exact ties."""
    if "replicates" in rows and (rows.replicates < MIN_SE_REPLICATES).any():
        return None
    return rows.get(f"{column}_se")


def lowest_kl(summary: pd.DataFrame) -> list:
    """Per N, ``(N, scores, lowest mean)``: the scores whose mean KL is the lowest or level with
    it (:func:`level_with_best`, with :func:`estimated_errors`), so that none is singled out by
    its order or by a difference smaller than the replicates' spread."""
    result = []
    for n, group in summary.groupby("cases", sort=True):
        indexed = group.sort_values("score").set_index("score")
        scores = level_with_best(indexed.kl_bits_mean, estimated_errors(indexed, "kl_bits"),
                                 lowest=True)
        result.append((n, scores, indexed.kl_bits_mean[scores[0]]))
    return result


#: Combined Monte-Carlo standard errors within which WBIC's choice is not decided by its draws.
WBIC_CLOSE_SE = 2.0


def wbic_close_calls(fits: pd.DataFrame, selections: pd.DataFrame) -> pd.DataFrame:
    """Per generator and N, on how many data sets WBIC's chosen candidate lies within
    :data:`WBIC_CLOSE_SE` combined Monte-Carlo standard errors of the next candidate by WBIC
    (``close``, of ``data_sets``): there more draws could change the choice. Empty without
    WBIC's standard errors in ``fits``."""
    if "wbic_se" not in fits or "wbic_log_evidence" not in fits:
        return pd.DataFrame(columns=["generator", "cases", "close", "data_sets"])
    keys = ["generator", "cases", "replicate"]
    chosen = selections[selections.score == "wbic_log_evidence"].set_index(keys).model
    rows = []
    for key, group in fits.dropna(subset=["wbic_log_evidence"]).groupby(keys, sort=True):
        if key not in chosen.index or len(group) < 2:
            continue
        best = group[group.model == chosen[key]].iloc[0]
        others = group[group.model != chosen[key]]
        runner_up = others.loc[others.wbic_log_evidence.idxmax()]
        margin = best.wbic_log_evidence - runner_up.wbic_log_evidence
        rows.append({"generator": key[0], "cases": key[1],
                     "close": bool(margin <= WBIC_CLOSE_SE * math.hypot(best.wbic_se,
                                                                       runner_up.wbic_se))})
    if not rows:
        return pd.DataFrame(columns=["generator", "cases", "close", "data_sets"])
    return (pd.DataFrame(rows).groupby(["generator", "cases"], sort=True)
            .agg(close=("close", "sum"), data_sets=("close", "size")).reset_index())


def _generator_section(name: str, study: dict, summary: pd.DataFrame,
                       frequency: pd.DataFrame, wbic_close: pd.DataFrame | None = None
                       ) -> list[str]:
    """The lines of summary.md about one generator: what each score selected at each N."""
    truth = true_model(study, name)
    metrics = study["metrics"]
    lines = [f"## Generator {name}: {_generator_text(study, name)}", "",
             (f"The true model, {truth}, is in the family." if truth is not None else
              "The true model is not in the family: the best a score can do is the candidate "
              "closest to it.")]
    rows = []
    for r in summary[summary.generator == name].itertuples(index=False):
        row = {"N": r.cases, "score": _display(r.score), "n": r.replicates}
        if "selected" in metrics:
            row["selected most often (share)"] = most_often(frequency[
                (frequency.generator == name) & (frequency.cases == r.cases)
                & (frequency.score == r.score)])
            row["selected hidden states"] = _mean_se(r.hidden_states_mean, r.hidden_states_se,
                                                     r.replicates)
            if truth is not None:
                row["true model selected"] = f"{r.recovered:.0%}"
        if "kl" in metrics:
            row[_panel(study, "kl")[1].replace(" [bits]", ", bits")] = _mean_se(
                r.kl_bits_mean, r.kl_bits_se, r.replicates)
        rows.append(row)
    lines += ["", f"n: data sets; means ± standard error over them (the mean alone where n < "
              f"{MIN_SE_REPLICATES}).", "", pipe_table(pd.DataFrame(rows), general_cell), ""]
    close = (wbic_close[(wbic_close.generator == name) & (wbic_close.close > 0)]
             if wbic_close is not None else pd.DataFrame())
    if not close.empty:
        lines += ["WBIC is a Monte-Carlo estimate: its choice lay within "
                  f"{WBIC_CLOSE_SE:g} combined standard errors of the next candidate's WBIC "
                  "(`wbic_se` in `tables/fits.csv`), so that more draws could change it, on "
                  + "; ".join(f"{r.close} of {r.data_sets} data sets at N = {r.cases}"
                              for r in close.itertuples()) + ".", ""]
    if "kl" in metrics:
        few = (summary[summary.generator == name].replicates < MIN_SE_REPLICATES).any()
        lines += ["Lowest mean KL, with the scores "
                  + ("equal to it (no standard error where n < "
                     f"{MIN_SE_REPLICATES})" if few else
                     "within one combined standard error of it") + ": "
                  + "; ".join(f"N = {n}: {_display(scores[0])} ({lowest:.3g} bits)"
                              + (f", level with {', '.join(map(_display, scores[1:]))}"
                                 if scores[1:] else "")
                              for n, scores, lowest in lowest_kl(summary[summary.generator
                                                                          == name])) + ".", ""]
    return lines


def coinciding_scores(selections: pd.DataFrame, generator: str) -> list[list[str]]:
    """Groups of two or more scores that selected the same model on every data set of
    ``generator``: their lines in figures/selection.png lie on top of each other."""
    subset = selections[selections.generator == generator]
    choices = subset.pivot_table(index=["cases", "replicate"], columns="score", values="model",
                                 aggfunc="first")
    return plots.coinciding_lines({score: choices[score] for score in choices.columns})


def _display(score: str) -> str:
    """A score's name in the figures' legend (:data:`hiddenbn.reports.plots.SCORE_STYLES`)."""
    return plots.score_style(score)["label"]


def _and(names: list) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return " and ".join([", ".join(names[:-1]), names[-1]] if names[1:] else names)


def _span(values: pd.Series) -> str:
    """The range of ``values`` to 3 significant digits, one number when they round alike."""
    low, high = f"{values.min():.3g}", f"{values.max():.3g}"
    return low if low == high else f"{low}–{high}"


def figure_trends(summary: pd.DataFrame, generator: str, panels) -> str:
    """What figures/selection.png shows for ``generator``, from the means of ``summary`` (one row
    per generator, N and score, with ``<column>_mean`` per panel column): per panel, the range
    over the scores at the smallest and the largest N, how many scores' means fall or rise
    between them, and the scores lowest (KL) or highest (hidden states) at the largest N, those
    equal to it and those within one combined standard error of it (none where n <
    :data:`MIN_SE_REPLICATES`, :func:`estimated_errors`)."""
    subset = summary[summary.generator == generator]
    sizes = sorted(subset.cases.unique())
    first, last = (subset[subset.cases == n].set_index("score") for n in (sizes[0], sizes[-1]))
    parts = []
    for column, label in panels:
        # a score with no value (e.g. no KL where no fit scored) draws no point: left out
        start, end = first[f"{column}_mean"].dropna(), last[f"{column}_mean"].dropna()
        if end.empty:
            parts.append(f"no mean {label} at N = {sizes[-1]:,}")
            continue
        lowest = column == plots.KL_PANEL[0]
        level = level_with_best(end, estimated_errors(last, column), lowest)
        equal = [s for s in level if end[s] == end[level[0]]]
        within = [s for s in level if s not in equal]
        leaders = (f"{'lowest' if lowest else 'highest'} at N = {sizes[-1]:,}: "
                   + _and([_display(s) for s in equal])
                   + (f", equal at {end[level[0]]:.3g}" if equal[1:] else "") + (
                       f", level within one combined standard error with "
                       f"{', '.join(_display(s) for s in within)}" if within else ""))
        if len(sizes) == 1:
            parts.append(f"the mean {label} {_span(end)} over the scores ({leaders})")
            continue
        change = (end - start.reindex(end.index)).dropna()
        falls, rises = int((change < 0).sum()), int((change > 0).sum())
        direction = ("falls for every score" if falls == len(change) else
                     "rises for every score" if rises == len(change) else
                     f"falls for {falls} and rises for {rises} of the {len(change)} scores")
        parts.append(f"the mean {label} {direction} from N = {sizes[0]:,} to {sizes[-1]:,} "
                     f"(over the scores {_span(start)} at {sizes[0]:,}, {_span(end)} at "
                     f"{sizes[-1]:,}; {leaders})")
    return "; ".join(parts)


def _figure_section(study: dict, summary: pd.DataFrame, selections: pd.DataFrame) -> list[str]:
    """The lines of summary.md about figures/selection.png: what it draws, what it shows per
    generator (:func:`figure_trends`), and which scores' lines hide each other."""
    panels = _panels(study)
    lines = ["## Figure: `figures/selection.png`", "",
             f"One row of panels per generator: the {' and '.join(l for _, l in panels)} of the "
             "model each score selected, against N (log scale), mean ± one standard error over "
             "the replicates" + (
                 f" (with {study['replicates']} per point, a bar is no estimate of the spread)"
                 if study["replicates"] < MIN_SE_REPLICATES else "") +
             ", one colour and marker per score (the same across the project), named in the "
             "legend as in the tables: " + ", ".join(map(_display, study["scores"])) + "."]
    for generator in study["generators"]:
        groups = coinciding_scores(selections, generator)
        trends = figure_trends(summary, generator, panels)
        lines.append(f"* {generator}: {trends[0].upper() + trends[1:]}. " + (
            "; ".join(", ".join(_display(s) for s in group) + " selected the same model on "
                      "every data set, so their lines coincide (an entry of the legend says so) "
                      "and only their markers tell them apart" for group in groups)
            if groups else "Every score's line is its own") + ".")
    return lines + [""]


def summary_markdown(name: str, study: dict, summary: pd.DataFrame, frequency, times,
                     notes: pd.Series, selections: pd.DataFrame | None = None,
                     wbic_close: pd.DataFrame | None = None,
                     unscored: pd.DataFrame | None = None) -> str:
    """summary.md: the design of the study and, per generator, what each score selected;
    ``unscored`` (:func:`unscored_candidates`) names the candidates a score chose without."""
    em = study["em"]
    lines = [f"# Study {name}", ""]
    if study["description"]:
        lines += [study["description"].strip(), ""]
    lines += [
        f"Family: {_family_text(study['family'])}. Scores: "
        f"{', '.join(f'{_display(s)} ({s})' for s in study['scores'])}. "
        f"Sample sizes: {', '.join(map(str, study['sample_sizes']))}; "
        f"{study['replicates']} replicates each. EM: Dirichlet prior "
        f"{em['prior_alpha']:g}, {em['restarts']} restarts ({em['schedule']}), "
        f"{em['convergence']} tolerance {em['tolerance']:g}, at most {em['max_iterations']} "
        "iterations" + ("" if em["acceleration"] == "none" else f", {em['acceleration']}") + ". "
        + (f"{study['missing_rate']:.0%} of the cells blanked at random (MCAR). "
           if study["missing_rate"] else "") +
        ("A climb stops when no one-state increase raises its score." if
         study["family"]["type"] == "hill_climb" else
         "Ties go to the candidate with fewer parameters."), "",
        "Generated by `hiddenbn.experiments.studies`. Every candidate fitted: `tables/fits.csv`; "
        "every selection: `tables/selections.csv`; means by generator, N and score: "
        "`tables/summary.csv`" +
        (", selection frequencies: `tables/frequency.csv`" if frequency is not None else "") +
        (", run times: `tables/time.csv`" if times is not None else "") +
        (". Figure: `figures/selection.png`." if _panels(study) else "."), ""]
    lines += _covariate_text(study)
    for generator in study["generators"]:
        lines += _generator_section(generator, study, summary,
                                    frequency if frequency is not None else pd.DataFrame(),
                                    wbic_close)
    if _panels(study) and selections is not None:
        lines += _figure_section(study, summary, selections)
    if times is not None:
        shown = times.assign(fit_seconds=[
            _mean_se(m, s, n) for m, s, n in zip(times.mean_fit_seconds, times.se_fit_seconds,
                                                 times.replicates)], n=times.replicates)
        lines += ["## Time", "",
                  "Seconds of EM and scoring per replicate (every candidate fitted; effective "
                  f"dimensions excluded), mean ± standard error over the n replicates (the mean "
                  f"alone where n < {MIN_SE_REPLICATES}). Each job first fits an untimed "
                  f"replicate of {WARM_UP_CASES} cases, so that no time counts the compiling or "
                  "loading of numba's kernels.", "",
                  pipe_table(shown[["generator", "cases", "n", "fit_seconds", "models_fitted"]],
                             general_cell), ""]
    unscored_lines = _unscored_text(unscored) if unscored is not None else []
    if len(notes) or unscored_lines:
        lines += ["## Notes", "", *[f"- {note} ({count} fits)" for note, count in notes.items()],
                  *unscored_lines, ""]
    return "\n".join(lines)


def write_summary(name: str, study: dict, fits: pd.DataFrame, selections: pd.DataFrame,
                  outdir) -> None:
    """Every file of :func:`summary_files` under ``outdir`` from the jobs' tables."""
    outdir = Path(outdir)
    fits = fits.sort_values(["generator", "cases", "replicate"], kind="stable")
    selections = selections.sort_values(["generator", "cases", "replicate"], kind="stable")
    summary = summary_table(selections, study)
    tables = {"fits": fits, "selections": selections, "summary": summary}
    frequency = times = None
    if "selected" in study["metrics"]:
        tables["frequency"] = frequency = frequency_table(selections)
    if "time" in study["metrics"]:
        tables["time"] = times = time_table(fits)
    for table, frame in tables.items():
        with atomic_output(outdir / "tables" / f"{table}.csv") as temporary:
            frame.to_csv(temporary, index=False)
    panels = _panels(study)
    if panels:
        titles = {g: f"{g} ({_short(_spec_text(e['spec']))})"
                  for g, e in study["generators"].items()}
        plots.selection_figure(selections, list(study["generators"]), study["scores"],
                               outdir / "figures" / "selection",
                               f"Study {name}: the selected model", titles, panels)
    notes = fits.note.fillna("")
    notes = notes[notes != ""].str.split("; ").explode().value_counts()
    text = summary_markdown(name, study, summary, frequency, times, notes, selections,
                            wbic_close_calls(fits, selections),
                            unscored_candidates(fits, study["scores"]))
    atomic_write_text(outdir / "summary.md", text)
