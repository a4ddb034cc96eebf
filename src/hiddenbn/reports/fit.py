"""The reports of ``hiddenbn fit`` and ``hiddenbn select``: JSON-ready dicts and their text.

:func:`fit_report` reports a fitted network (with the latent class analysis of a latent class
model, :mod:`hiddenbn.reports.lca`), :func:`additive_fit_report` a Poisson or Gaussian
noisy-additive model; :func:`format_fit_report` is the text of either. :func:`format_selection`
is the text of :func:`hiddenbn.learning.selection.select_latent_class`'s result, to which
``select`` adds :func:`data_summary`. :mod:`hiddenbn.commands` builds them, for the command
line and the Python API alike (:mod:`hiddenbn.reports.results`).
"""

from __future__ import annotations

import json

from hiddenbn.data import MISSING, Dataset
from hiddenbn.inference.enumeration import is_latent_class
from hiddenbn.learning.em import REPLICATION_TOLERANCE
from hiddenbn.learning.selection import (CRITERIA, SCORES_ORIENTATION, SELECTION_SCORE_NAMES,
                                         laplace_notes, one_model_sbic_note, replication,
                                         replication_note, stopped_by_cap)
from hiddenbn.models.interaction import InteractionModel
from hiddenbn.reports.lca import format_lca_text, lca_report
from hiddenbn.scores import singular_bic
from hiddenbn.scores.lca_statistics import FIT_STATISTICS_ORIENTATION
from hiddenbn.util import limits


def fit_report(outcome: dict, data: Dataset, notes=()) -> dict:
    """The report of ``hiddenbn fit`` for a network (JSON-ready): of an outcome of
    :func:`~hiddenbn.learning.selection.fit_and_score` (or
    :func:`~hiddenbn.interaction.noisy_max.noisy_max_outcome`), its fit, convergence, scores and
    parameters, with the states of each column (code ``s`` is ``states[column][s]``) and
    ``notes``; for a latent class model also the latent class analysis (``lca``:
    :func:`hiddenbn.reports.lca.lca_report`)."""
    result = outcome["fit"]
    network = result.network
    report = {
        "model": network.to_dict(), **data_summary(data),
        "alpha": result.alpha, "ds": outcome["ds"], "de": outcome["de"],
        "em": {"engine": result.engine, "restarts": result.restarts,
               "schedule": result.schedule, "acceleration": result.acceleration,
               "iterations": result.iterations, "converged": result.converged,
               "log_likelihood": result.log_likelihood, "log_prior": result.log_prior,
               "log_posterior": result.log_posterior, **replication(result),
               "final_log_posteriors": result.final_log_posteriors},
        "scores": {**outcome["scores"], "sbic_log_evidence": None},
        "scores_orientation": SCORES_ORIENTATION,
        "notes": list(notes) + ([outcome["note"]] if outcome["note"] else [])
        + [one_model_sbic_note() if is_latent_class(network) else singular_bic.NO_BOUND_NOTE]
        + ([] if result.converged else [stopped_by_cap(result)])
        + list(filter(None, [replication_note(result)]))
        + laplace_notes(outcome["scores"], outcome["ds"])
        + (outcome["wbic"]["notes"] if "wbic" in outcome else []),
        "parameters": {network.names[i]: t.tolist() for i, t in enumerate(result.cpts)
                       if t is not None},
        **({"wbic": outcome["wbic"]} if "wbic" in outcome else {}),
    }
    if is_latent_class(network):
        report["lca"] = lca_report(result, data, outcome["de"], data.states())
    return report


def additive_fit_report(model: InteractionModel, outcome: dict, notes=()) -> dict:
    """The report of ``hiddenbn fit`` for a Poisson or Gaussian NAI ``model`` (JSON-ready): its
    fit and scores (an outcome of
    :func:`~hiddenbn.interaction.noisy_additive.noisy_additive_outcome`), its parameters and
    ``notes`` (how the data were read)."""
    fit = outcome["fit"]
    parameters = {"causes": {n: t[0].tolist() for n, t in zip(model.cause_names, fit.cause_tables)}}
    offsets = model.mechanism_offsets()
    for i, name in enumerate(model.mechanism_names):
        rows = slice(offsets[i], offsets[i + 1])
        parameters[name] = ({"rate": fit.means[rows].tolist()} if fit.variances is None else
                            {"mean": fit.means[rows].tolist(),
                             "variance": fit.variances[rows].tolist()})
    return {"family": model.family, "n_cases": outcome["n_cases"], "ds": outcome["ds"],
            "de": outcome["de"],
            "em": {"restarts": fit.restarts, "schedule": fit.schedule,
                   "acceleration": fit.acceleration,
                   "iterations": fit.iterations, "converged": bool(fit.converged),
                   "log_likelihood": fit.log_likelihood, **replication(fit),
                   "final_log_posteriors": fit.final_log_posteriors},
            "scores": outcome["scores"], "scores_orientation": SCORES_ORIENTATION,
            "prior_of_cs": list(outcome["prior"]), "parameters": parameters,
            "notes": list(notes) + list(filter(None, [replication_note(fit)]))}


def data_summary(data: Dataset) -> dict:
    """What a report says of its data: cases, distinct patterns, missing cells (each counted
    as often as its case occurs) and the states of each column."""
    missing = (data.patterns == MISSING) * data.counts[:, None]
    return {"n_cases": data.n_cases, "n_patterns": data.n_patterns,
            "missing_cells": int(missing.sum()), "states": data.states()}


def _data_line(report: dict) -> str:
    missing = (f", {report['missing_cells']} missing cells (summed out)"
               if report["missing_cells"] else "")
    return f"data: {report['n_cases']} cases in {report['n_patterns']} distinct patterns{missing}"


def format_fit_report(report: dict) -> str:
    """The text ``hiddenbn fit`` prints: of :func:`fit_report`, or of
    :func:`additive_fit_report` (a report with a ``family``)."""
    if "family" in report:
        return _format_additive_fit_report(report)
    em = report["em"]
    de = "unknown" if report["de"] is None else report["de"]
    lines = [f"{_data_line(report)}; ds {report['ds']}, de {de}, Dirichlet alpha {report['alpha']}",
             _states_line(report["states"]),
             f"EM: {em['restarts']} restart{'s' if em['restarts'] != 1 else ''} "
             f"({em['schedule']}, {describe_acceleration(em['acceleration'])}, exact inference "
             f"by {em['engine']}), "
             + (f"converged after {em['iterations']} final iterations" if em["converged"] else
                f"NOT converged after {em['iterations']} final iterations"),
             f"log-likelihood {em['log_likelihood']:.6f}, "
             f"log posterior g {em['log_posterior']:.6f}",
             replication_line(em),
             f"scores, {SCORES_ORIENTATION}:"]
    names = [name for name in SELECTION_SCORE_NAMES if name in report["scores"]]
    width = max(map(len, names), default=0)
    lines += [f"  {name:<{width}} {_shown(report['scores'][name], '.6f')}" for name in names]
    if "wbic" in report:
        lines.append(f"  {'':<{width}} {wbic_line(report['wbic'])}")
    lines += [f"note: {note}" for note in report["notes"]]
    if "lca" in report:  # the latent class analysis shows the parameters with their labels
        return "\n".join(lines + ["", format_lca_text(report["lca"])])
    lines.append("parameters (one row per parent configuration, first parent most significant):")
    for name, rows in report["parameters"].items():
        lines += [f"  {name}[{j}] " + " ".join(f"{p:.6f}" for p in row)
                  for j, row in enumerate(rows)]
    return "\n".join(lines)


def _format_additive_fit_report(report: dict) -> str:
    """The text of :func:`additive_fit_report`."""
    em = report["em"]
    lines = [f"{report['family']} NAI model, {report['n_cases']} cases; ds {report['ds']}, "
             f"de {report['de']}",
             f"EM (ML): {em['restarts']} restarts ({em['schedule']}, "
             f"{describe_acceleration(em['acceleration'])}), "
             + ("converged" if em["converged"] else "NOT converged")
             + f" after {em['iterations']} iterations; log-likelihood {em['log_likelihood']:.6f}",
             replication_line(em),
             f"scores, {report['scores_orientation']}:"]
    width = max(map(len, report["scores"]))
    lines += [f"  {name:<{width}} {value:.6f}" for name, value in report["scores"].items()]
    lines.append("parameters (per configuration of each mechanism's causes, C order):")
    lines += [f"  {name}: {json.dumps(value)}" for name, value in report["parameters"].items()]
    lines += [f"note: {note}" for note in report["notes"]]
    return "\n".join(lines)


def wbic_line(wbic: dict) -> str:
    """How the text reports qualify wbic_log_evidence (:meth:`hiddenbn.scores.wbic.WBIC.to_dict`):
    its Monte-Carlo error and convergence."""
    return (f"(wbic_log_evidence +- {_shown(wbic['standard_error'], '.3f')} Monte-Carlo "
            f"standard error; split-R-hat {_shown(wbic['rhat'], '.3f')}, "
            f"{_shown(wbic['effective_sample_size'], '.0f')} effective draws of "
            f"{wbic['chains']} chains x {wbic['draws']}, beta = 1/log N = "
            f"{wbic['inverse_temperature']:.4f})")


def describe_acceleration(acceleration: str) -> str:
    """How a text report names the acceleration of EM's final phase."""
    return "plain EM" if acceleration == "none" else f"{acceleration} acceleration"


def replication_line(em: dict) -> str:
    """The text report's line of :func:`replication` (in ``em``)."""
    if em["searches"] == 1:
        return "replication: not checked (one start run to convergence)"
    return (f"replication: the best g reached by {em['best_found']} of {em['searches']} starts "
            f"(within {REPLICATION_TOLERANCE} nats)"
            + ("" if em["replicated"] else ", NOT replicated"))


def _states_line(states: dict) -> str:
    return "states of each column, in the order of the parameters: " + "; ".join(
        f"{name} ({', '.join(map(_label_shown, labels))})" for name, labels in states.items())


def _label_shown(label: str) -> str:
    """A label as the states line shows it: quoted where it is empty or holds the line's own
    punctuation (``x, 1`` would read as two states)."""
    return repr(label) if not label or any(mark in label for mark in ",;()'") else label


def format_selection(result: dict) -> str:
    """The text of :func:`~hiddenbn.learning.selection.select_latent_class`: a table of the
    information criteria and one of the scores, one row per model, each under its sign
    convention; then the choices."""
    models = result["models"]
    lines = ([_data_line(result)] if "n_cases" in result else [])
    lines += [f"fit statistics: {FIT_STATISTICS_ORIENTATION}",
              f"{'k':>3} {'ds':>6} {'log-lik':>12} " + " ".join(
                  f"{name.upper():>12}" for name in CRITERIA)
              + f" {'entropy R^2':>11} {'G^2':>12} {'df':>8} {'p':>8}"]
    for m in models:
        statistics, r2 = m["fit_statistics"], m["classification"]["entropy_r2"]
        lines.append(f"{m['states']:>3} {m['ds']:>6} {statistics['log_likelihood']:>12.3f} "
                     + " ".join(f"{statistics[name]:>12.3f}" for name in CRITERIA)
                     + f" {_shown(r2, '.3f'):>11} {_shown(statistics['g2'], '.3f'):>12} "
                     f"{limits.shown(statistics['df']):>8} {_shown(statistics['g2_p'], '.3g'):>8}")
    names = [n for n in SELECTION_SCORE_NAMES if any(n in m for m in models)]
    lines += [f"scores: {SCORES_ORIENTATION}",
              f"{'k':>3} {'ds':>6} {'de':>6} {'conv':>5} {'found':>7} "
              + " ".join(f"{n:>{max(12, len(n))}}" for n in names)]
    for m in models:
        de, converged = "?" if m["de"] is None else str(m["de"]), "yes" if m["converged"] else "no"
        found = f"{m['best_found']}/{m['searches']}"
        lines.append(f"{m['states']:>3} {m['ds']:>6} {de:>6} {converged:>5} {found:>7} "
                     + " ".join(f"{_shown(m.get(n), '.3f'):>{max(12, len(n))}}" for n in names))
    lines.append(f"found: how many of EM's starts reached the model's best log posterior (within "
                 f"{REPLICATION_TOLERANCE} nats)")
    lines += [f"k = {m['states']}: {wbic_line(m['wbic'])}" for m in models if "wbic" in m]
    lines.append("selected k: " + ", ".join(f"{n} {k}" for n, k in result["selected"].items()))
    if "states" in result:
        lines.append(_states_line(result["states"]))
    lines += [f"note: {note}" for note in result["notes"]]
    return "\n".join(lines)


def _shown(value, form: str) -> str:
    """``value`` in ``form``, or ``-`` where it is undefined (None, or NaN: a score a note
    explains, such as Laplace's without a positive definite Hessian), as in the JSON (null)."""
    return "-" if value is None or value != value else format(value, form)
