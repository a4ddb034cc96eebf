"""Fit and dimension reports of causal interaction models, for ``hiddenbn fit`` and ``dim``.

A spec in the interaction form (:mod:`hiddenbn.interaction`, a YAML/JSON file or dict with an
``interaction`` key) selects these reports. Noisy-max models are discrete networks, so they get
the same reports as any network (:mod:`hiddenbn.selection`, :mod:`hiddenbn.dimension`), fitted
by the NMI EM of :mod:`hiddenbn.noisy_max`. Poisson and Gaussian NAI models are fitted by
:func:`hiddenbn.noisy_additive.fit_additive` (ML) and scored with BIC (``ds``), BIC+ (``de``)
and the adjusted Cheeseman-Stutz score of paper 004 Eq. 6 under the weak priors below.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from hiddenbn import dimension, limits, seeding, selection
from hiddenbn.data import COUNT_COLUMN, read_csv
from hiddenbn.errors import DataError
from hiddenbn.interaction import InteractionModel, interaction_document, interaction_from_dict
from hiddenbn.noisy_additive import (additive_dimension, adjusted_cheeseman_stutz, fit_additive,
                                     standard_additive_dimension, summarise)
from hiddenbn.noisy_max import fit_noisy_max
from hiddenbn.scores import bic, score_fit
from hiddenbn.textfiles import open_text

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


def read_additive_csv(path, model: InteractionModel):
    """Causes (integer states) and effect (numbers) of an NAI data file; optional ``count``."""
    try:
        with open_text(path, DataError, "data file", limits.DATA_BYTES_PER_TEXT_BYTE) as handle:
            table = pd.read_csv(handle)
    except (pd.errors.ParserError, pd.errors.EmptyDataError) as err:
        raise DataError(f"cannot read data file {path}: {str(err).splitlines()[0]}; write a CSV "
                        "with a header of the causes and the effect") from None
    missing = [n for n in model.observed_names if n not in table.columns]
    if missing:
        raise DataError(f"data file {path} has no column {missing[0]!r}; the model needs "
                        f"{', '.join(model.observed_names)}")
    causes = table[list(model.cause_names)]
    if not all(pd.api.types.is_integer_dtype(t) for t in causes.dtypes):
        raise DataError(f"data file {path}: cause columns must hold whole numbers (states)")
    for name, r in zip(model.cause_names, model.cause_states):
        if causes[name].min() < 0 or causes[name].max() >= r:
            raise DataError(f"data file {path}: cause {name!r} has a state outside 0..{r - 1}")
    if not pd.api.types.is_numeric_dtype(table[model.effect_name]):
        raise DataError(f"data file {path}: the effect {model.effect_name!r} must be numeric")
    weights = None
    if COUNT_COLUMN in table.columns:
        counts = table[COUNT_COLUMN]
        if not (pd.api.types.is_numeric_dtype(counts) and np.all(np.isfinite(counts))
                and np.all(counts >= 0)):
            raise DataError(f"data file {path}: the count column must hold numbers of 0 or more")
        weights = counts.to_numpy(float)
    return summarise(causes.to_numpy(), table[model.effect_name].to_numpy(float), weights)


def fit_report(model: InteractionModel, data_path, seed: int, alpha: float, restarts: int) -> dict:
    """Fit ``model`` to the data file and report the fit and its scores (JSON-ready)."""
    rng = seeding.rng(seed, "em", model.family, model.mechanism_names)
    if model.family == "noisy-max":
        data = read_csv(data_path).for_network(model.network())
        fit = fit_noisy_max(model, data, rng, alpha=alpha, restarts=restarts)
        # a network too large to rank gets no BIC+ or CS+, and the reason why not
        de, note = dimension.effective_dimension_or_reason(model.network())
        outcome = {"fit": fit, "scores": score_fit(fit, data, de),
                   "ds": fit.network.standard_dimension, "de": de, "note": note}
        return selection.fit_report(outcome, data)
    summary = read_additive_csv(data_path, model)
    fit = fit_additive(model, summary, rng, restarts=restarts, alpha=alpha)
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
            "em": {"restarts": fit.restarts, "iterations": fit.iterations,
                   "converged": bool(fit.converged), "log_likelihood": fit.log_likelihood},
            "scores": {"loglik": fit.log_likelihood,
                       "bic": bic(fit.log_likelihood, ds, fit.n_cases),
                       "bic_plus": bic(fit.log_likelihood, de, fit.n_cases),
                       "cs_plus": adjusted_cheeseman_stutz(fit, prior, de)},
            "prior_of_cs": list(prior), "parameters": parameters}


def format_fit_report(report: dict) -> str:
    """Text form of :func:`fit_report` (noisy-max reports use the network format)."""
    if "family" not in report:
        return selection.format_fit_report(report)
    em = report["em"]
    lines = [f"{report['family']} NAI model, {report['n_cases']} cases; ds {report['ds']}, "
             f"de {report['de']}",
             f"EM (ML): {em['restarts']} restarts, "
             + ("converged" if em["converged"] else "NOT converged")
             + f" after {em['iterations']} iterations; log-likelihood {em['log_likelihood']:.6f}",
             "scores (approximate log marginal likelihood):"]
    lines += [f"  {name:<8} {value:.6f}" for name, value in report["scores"].items()]
    lines.append("parameters (per configuration of each mechanism's causes, C order):")
    lines += [f"  {name}: {json.dumps(value)}" for name, value in report["parameters"].items()]
    return "\n".join(lines)
