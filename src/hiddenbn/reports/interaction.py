"""Fit and dimension reports of causal interaction models, for ``hiddenbn fit`` and ``dim``.

A spec in the interaction form (:mod:`hiddenbn.models.interaction`, a YAML/JSON file or dict with an
``interaction`` key) selects these reports. Noisy-max models are discrete networks, so they get
the same reports as any network (:mod:`hiddenbn.learning.selection`,
:mod:`hiddenbn.dimension.effective`), fitted by the NMI EM of :mod:`hiddenbn.interaction.noisy_max`
(:func:`noisy_max_outcome`). Poisson and Gaussian NAI models are fitted by
:func:`hiddenbn.interaction.noisy_additive.fit_additive` (ML) to the data as
:func:`additive_summary` reads it and scored with BIC (``ds``), BIC+ (``de``) and the adjusted
Cheeseman-Stutz score of paper 004 Eq. 6 under the weak priors below.
"""

from __future__ import annotations

import json

import numpy as np

from hiddenbn.data import DataFile, Dataset
from hiddenbn.dimension import effective as dimension
from hiddenbn.errors import DataError
from hiddenbn.interaction.noisy_additive import (EffectSummary, additive_dimension,
                                                 adjusted_cheeseman_stutz, fit_additive,
                                                 standard_additive_dimension, summarise)
from hiddenbn.interaction.noisy_max import fit_noisy_max
from hiddenbn.learning import selection
from hiddenbn.models.interaction import (InteractionModel, interaction_document,
                                         interaction_from_dict)
from hiddenbn.scores.approximations import bic_log_evidence
from hiddenbn.util import seeding

#: Priors of the completed-data marginal likelihood in the NAI scores: Gamma(shape, rate) for a
#: Poisson rate, normal-inverse-gamma (mean, kappa, shape, scale) for a Gaussian mechanism.
DEFAULT_PRIORS = {"poisson": (1.0, 1.0), "gaussian": (0.0, 1.0, 1.0, 1.0)}


def interaction_spec(spec) -> InteractionModel | None:
    """The interaction model if ``spec`` (a dict or a YAML/JSON file) is in the interaction
    form, else None (the spec is then an ordinary network spec)."""
    document = interaction_document(spec)
    return None if document is None else interaction_from_dict(document)


def dimension_report(model: InteractionModel, points: int = 5, seed: int = 0) -> dict:
    """``ds`` and ``de`` of an interaction model (the dimension engine for noisy-max)."""
    if model.family == "noisy-max":
        return dimension.dimension_report(model.network(), points, seed)
    return {"family": model.family, "ds": standard_additive_dimension(model),
            "de": additive_dimension(model),
            "method": "rank of the cause-configuration x mechanism-row incidence matrix, per "
                      "moment (mean; and variance for Gaussian), plus the causes' tables",
            "warnings": []}


def format_dimension_report(report: dict) -> str:
    return (f"{report['family']} NAI model: ds {report['ds']}, de {report['de']} "
            f"({report['method']})")


def additive_summary(model: InteractionModel, data_file: DataFile) -> EffectSummary:
    """The cases of an NAI model's data file (or DataFrame), read by
    :func:`hiddenbn.data.read_data` with the effect as numbers (``numeric``), grouped by the
    pattern of the causes. The causes' columns and states are checked as every model's are
    (:meth:`hiddenbn.data.Dataset.for_network`); a Poisson effect that is not a count is
    refused, naming its column and first row."""
    dataset = data_file.dataset
    dataset.for_network(model.cause_network())
    effect = model.effect_name
    if effect not in dataset.names:
        raise DataError(f"the data has no column {effect!r}, the effect of the model; columns "
                        f"are {', '.join(dataset.names)}")
    column = dataset.names.index(effect)
    values = np.array([float(label) for label in dataset.categories[column]] + [np.nan])
    if model.family == "poisson":
        counts = (values >= 0) & (np.mod(values, 1) == 0)
        bad = np.flatnonzero(~counts[:-1])  # the last value stands for a missing cell
        if bad.size:
            rows = data_file.every_case.patterns[data_file.row_patterns, column]
            row = int(np.flatnonzero(np.isin(rows, bad))[0]) + 1
            raise DataError(f"{data_file.source}, row {row}, column {effect!r}: "
                            f"{values[rows[row - 1]]:g} is not a count; the effect of a Poisson "
                            "model is a whole number of 0 or more")
    causes = dataset.patterns[:, [dataset.names.index(name) for name in model.cause_names]]
    return summarise(causes, values[dataset.patterns[:, column]], dataset.counts)


def noisy_max_outcome(model: InteractionModel, data: Dataset, seed: int, alpha: float,
                      restarts: int, with_effective_dimension: bool = True, initial=None,
                      wbic_draws: int | None = None, **em_options) -> dict:
    """Fit a noisy-max ``model`` to ``data`` (bound to :meth:`InteractionModel.network`) by
    its mechanisms' EM (from ``initial``, the network's CPTs, if given; ``em_options`` as
    :func:`hiddenbn.interaction.noisy_max.fit_noisy_max` takes them) and score it as any network's
    fit (:func:`hiddenbn.learning.selection.scored`; with ``wbic_draws``, WBIC too:
    :func:`hiddenbn.learning.selection.add_wbic`)."""
    rng = seeding.rng(seed, "em", model.family, model.mechanism_names)
    fit = fit_noisy_max(model, data, rng, alpha=alpha, restarts=restarts, initial=initial,
                        **em_options)
    outcome = selection.scored(fit, data, with_effective_dimension)
    if wbic_draws is not None:
        selection.add_wbic(outcome, data, seeding.rng(seed, "wbic", model.family,
                                                      model.mechanism_names), wbic_draws)
    return outcome


def fit_report(model: InteractionModel, summary: EffectSummary, seed: int, alpha: float,
               restarts: int, notes=(), **em_options) -> dict:
    """Fit the Poisson or Gaussian NAI ``model`` to ``summary`` (:func:`additive_summary`;
    ``em_options`` as :func:`hiddenbn.interaction.noisy_additive.fit_additive` takes them) and
    report the fit, its scores and ``notes`` (how the data were read; JSON-ready)."""
    rng = seeding.rng(seed, "em", model.family, model.mechanism_names)
    fit = fit_additive(model, summary, rng, restarts=restarts, alpha=alpha, **em_options)
    ds, de = standard_additive_dimension(model), additive_dimension(model)
    prior = DEFAULT_PRIORS[model.family]
    parameters = {"causes": {n: t[0].tolist() for n, t in zip(model.cause_names, fit.cause_tables)}}
    offsets = model.mechanism_offsets()
    for i, name in enumerate(model.mechanism_names):
        rows = slice(offsets[i], offsets[i + 1])
        parameters[name] = ({"rate": fit.means[rows].tolist()} if fit.variances is None else
                            {"mean": fit.means[rows].tolist(),
                             "variance": fit.variances[rows].tolist()})
    return {"family": model.family, "n_cases": summary.n_cases, "ds": ds, "de": de,
            "em": {"restarts": fit.restarts, "schedule": fit.schedule,
                   "acceleration": fit.acceleration,
                   "iterations": fit.iterations, "converged": bool(fit.converged),
                   "log_likelihood": fit.log_likelihood, **selection.replication(fit),
                   "final_log_posteriors": fit.final_log_posteriors},
            "scores": {"loglik": fit.log_likelihood,
                       "bic_log_evidence": bic_log_evidence(fit.log_likelihood, ds, fit.n_cases),
                       "bic_plus_log_evidence": bic_log_evidence(fit.log_likelihood, de,
                                                                 fit.n_cases),
                       "cs_plus": adjusted_cheeseman_stutz(fit, prior, de)},
            "scores_orientation": selection.SCORES_ORIENTATION, "prior_of_cs": list(prior),
            "parameters": parameters,
            "notes": list(notes) + list(filter(None, [selection.replication_note(fit)]))}


def format_fit_report(report: dict) -> str:
    """Text form of :func:`fit_report` (a noisy-max fit is reported as any network's)."""
    em = report["em"]
    lines = [f"{report['family']} NAI model, {report['n_cases']} cases; ds {report['ds']}, "
             f"de {report['de']}",
             f"EM (ML): {em['restarts']} restarts ({em['schedule']}, "
             f"{selection.describe_acceleration(em['acceleration'])}), "
             + ("converged" if em["converged"] else "NOT converged")
             + f" after {em['iterations']} iterations; log-likelihood {em['log_likelihood']:.6f}",
             selection.replication_line(em),
             f"scores, {report['scores_orientation']}:"]
    width = max(map(len, report["scores"]))
    lines += [f"  {name:<{width}} {value:.6f}" for name, value in report["scores"].items()]
    lines.append("parameters (per configuration of each mechanism's causes, C order):")
    lines += [f"  {name}: {json.dumps(value)}" for name, value in report["parameters"].items()]
    lines += [f"note: {note}" for note in report["notes"]]
    return "\n".join(lines)
