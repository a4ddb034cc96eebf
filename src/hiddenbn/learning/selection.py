"""Model selection: fit a family of models to one data set and compare every score.

:func:`fit_and_score` fits one network by EM (:func:`hiddenbn.learning.em.fit`, by default from
annealed starts) and evaluates every score of :mod:`hiddenbn.scores.approximations`;
:func:`select_latent_class` does it for the latent class models ``k:r1,...,rn`` (paper 002 Sec. 2.2,
paper 003 Sec. 3) over a range of ``k`` and reports which ``k`` each score selects. Both report how
many of EM's independent searches reached the best fit (:func:`replication_note` says when only one
did).
"""

from __future__ import annotations

import math

from hiddenbn.data import MISSING, Dataset
from hiddenbn.dimension.effective import effective_dimension_or_reason
from hiddenbn.errors import DataError, HiddenbnError, excerpt
from hiddenbn.inference.enumeration import (MAX_HIDDEN_CONFIGURATIONS, hidden_configuration_count,
                                            is_latent_class)
from hiddenbn.learning.em import REPLICATION_TOLERANCE, best_found, fit, run_em
from hiddenbn.models.network import Network, latent_class
from hiddenbn.scores import singular_bic
from hiddenbn.scores.approximations import LAPLACE_MAX_DIMENSION, hessian_refusal, score_fit
from hiddenbn.scores.integrated_completed_likelihood import hidden_entropy, icl_log_evidence
from hiddenbn.scores.lca_statistics import FIT_STATISTICS_ORIENTATION, model_comparison
from hiddenbn.scores.wbic import wbic_of_fit
from hiddenbn.util import limits, seeding
from hiddenbn.util.defaults import PRIOR_ALPHA, SCHEDULE

#: Scores reported for every model, in display order (BIC+/CS+ only when de is known).
SCORE_NAMES = ("loglik", "bic_log_evidence", "icl_log_evidence", "bic_plus_log_evidence",
               "draper", "mled", "cs", "cs_plus", "laplace", "wbic_log_evidence")
#: The scores of ``select`` and ``fit``, in display order: every model's and sBIC, which is a
#: fixed point over the models of 1..K classes (:mod:`hiddenbn.scores.singular_bic`).
SELECTION_SCORE_NAMES = SCORE_NAMES[:2] + ("sbic_log_evidence",) + SCORE_NAMES[2:]
#: The sign convention of the scores, as every report states it.
SCORES_ORIENTATION = ("approximations of the log marginal likelihood log p(D | model) (loglik: "
                      "the log-likelihood): larger is better; bic_log_evidence is -BIC/2, "
                      "icl_log_evidence -ICL/2 (BIC less the entropy of the hidden classes), "
                      "wbic_log_evidence -WBIC")
#: Why ``fit`` gives a latent class model no sBIC.
ONE_MODEL_SBIC_NOTE = ("no sBIC for one model: it weighs a model against all its submodels "
                       "(Drton & Plummer 2017); 'hiddenbn select --classes 1..K' gives it for "
                       "the models of 1..K classes")
#: The information criteria of the latent class output
#: (:func:`hiddenbn.scores.lca_statistics.model_comparison`) that ``select`` also selects by, the
#: smallest value winning.
CRITERIA = ("aic", "bic", "sabic", "caic")


def fit_and_score(network: Network, data: Dataset, seed: int, alpha: float = PRIOR_ALPHA,
                  restarts: int | None = None, with_effective_dimension: bool = True,
                  with_laplace: bool = True, initial=None, wbic_draws: int | None = None,
                  **em_options) -> dict:
    """Fit ``network`` by :func:`search` and compute every score (Laplace, whose exact
    Hessian costs the most, only ``with_laplace``; WBIC, which samples, only given
    ``wbic_draws``, the draws per chain of :func:`hiddenbn.scores.wbic.wbic`, seeded by
    ``seed`` and the network).

    Returns ``{"fit": Fit, "scores": dict, "ds": int, "de": int or None, "note": str or None}``
    and, with ``wbic_draws``, ``"wbic"``: :meth:`hiddenbn.scores.wbic.WBIC.to_dict`.
    """
    result = search(network, data, seed, alpha, restarts, initial, **em_options)
    outcome = scored(result, data, with_effective_dimension, with_laplace)
    if wbic_draws is not None:
        add_wbic(outcome, data, seeding.rng(seed, "wbic", network.to_dict()), wbic_draws)
    outcome["note"] = "; ".join(filter(None, [outcome["note"],
                                              _random_starts_note(result, em_options)])) or None
    return outcome


def add_wbic(outcome: dict, data: Dataset, rng, draws: int) -> None:
    """Add WBIC (:func:`hiddenbn.scores.wbic.wbic_of_fit`, ``draws`` per chain from ``rng``)
    to the ``outcome`` of :func:`scored`: the score, and its diagnostics under ``"wbic"``."""
    estimate = wbic_of_fit(outcome["fit"], data, rng, draws=draws)
    outcome["scores"]["wbic_log_evidence"] = estimate.wbic_log_evidence
    outcome["wbic"] = estimate.to_dict()


def search(network: Network, data: Dataset, seed: int, alpha: float = PRIOR_ALPHA,
           restarts: int | None = None, initial=None, **em_options):
    """Fit ``network`` by EM as ``hiddenbn fit`` does: ``restarts`` starts of the restart
    schedule (by default the schedule's number), seeded by ``seed`` and the network; or one
    start from the CPTs ``initial``. ``em_options`` go to :func:`hiddenbn.learning.em.fit`
    (with ``initial``: the final phase's ``max_iterations``, ``tolerance``, ``convergence``,
    ``run_all_iterations`` and ``acceleration`` to :func:`~hiddenbn.learning.em.run_em`).

    Returns the :class:`hiddenbn.learning.em.Fit`.
    """
    if initial is None:
        return fit(network, data, seeding.rng(seed, "em", network.to_dict()), alpha=alpha,
                   restarts=restarts, **em_options)
    final_phase = {key: em_options[key] for key in
                   ("max_iterations", "tolerance", "convergence", "run_all_iterations",
                    "acceleration")
                   if key in em_options}
    return run_em(network, data, initial, alpha, **final_phase)


def _random_starts_note(result, em_options: dict) -> str | None:
    """Why a fit asked for annealed starts had random ones (:func:`hiddenbn.learning.em.fit`)."""
    if em_options.get("schedule", SCHEDULE) != "annealing" or result.schedule != "best-of-n":
        return None
    return ("EM started at random points, each run to convergence (best-of-n): the annealed "
            f"starts score every joint state of the hidden nodes, at most "
            f"{MAX_HIDDEN_CONFIGURATIONS}, and this model has "
            f"{limits.approximately(hidden_configuration_count(result.network))}")


def scored(fit, data: Dataset, with_effective_dimension: bool = True,
           with_laplace: bool = True) -> dict:
    """Every score of the fit ``fit`` (a :class:`hiddenbn.learning.em.Fit`, by any engine) of
    ``data``, as :func:`fit_and_score` returns them."""
    network = fit.network
    de, note = (effective_dimension_or_reason(network) if with_effective_dimension
                else (None, "effective dimension skipped: no BIC+ or CS+"))
    refusal = hessian_refusal(network) if with_laplace else None
    if refusal:
        with_laplace = False
        note = "; ".join(filter(None, [note, refusal]))
    scores = score_fit(fit, data, de, with_laplace)
    entropy, no_entropy = hidden_entropy(network, fit.cpts, data,
                                         (fit.expected_counts, fit.log_likelihood))
    if entropy is None:
        note = "; ".join(filter(None, [note, no_entropy]))
    else:
        scores["icl_log_evidence"] = icl_log_evidence(scores["bic_log_evidence"], entropy)
    return {"fit": fit, "scores": scores, "ds": network.standard_dimension, "de": de,
            "note": note}


def latent_class_network(data: Dataset, hidden_states: int, columns=None) -> Network:
    """The latent class model over the data's ``columns`` (default: all): a hidden root and one
    child per column.

    Each child gets the states of its column (its categories, else its largest state + 1),
    at least 2; the hidden node is named ``H1``, as in the shorthand ``k:r1,...,rn`` (with
    underscores added if a column already has that name), so that a parameter file of either
    fits both.
    """
    if not data.n_patterns:
        raise DataError("the data set has no cases")
    columns = data.names if columns is None else tuple(columns)
    cards = data.cardinalities
    return latent_class(hidden_states, [max(2, cards[data.names.index(c)]) for c in columns],
                        columns)


def select_latent_class(data: Dataset, states, seed: int, alpha: float = PRIOR_ALPHA,
                        restarts: int | None = None, with_effective_dimension: bool = True,
                        sbic_phi: float | None = None, wbic_draws: int | None = None,
                        fits: dict | None = None,
                        **em_options) -> dict:
    """Fit the latent class model for every ``k`` in ``states``; which ``k`` each score and
    each information criterion picks. A dict given as ``fits`` gets each ``k``'s
    :class:`~hiddenbn.learning.em.Fit` (the bootstrap test of :mod:`hiddenbn.learning.blrt`
    starts from them).

    ``em_options`` (``max_iterations``, ``tolerance``, ``schedule``) go to
    :func:`hiddenbn.learning.em.fit`; ``wbic_draws`` adds WBIC (:func:`fit_and_score`), each
    model's row then holds its diagnostics under ``"wbic"``. Returns ``{"models": [{"states",
    "ds", "de", "converged", "iterations", "replicated", "best_found", "searches", <scores>,
    "fit_statistics", "classification"}], "selected": {score or criterion: k},
    "scores_orientation": str, "sbic_phi": float or None, "notes": [str]}``: the
    scores are those of :func:`scored` (larger is better) and ``sbic_log_evidence``, the sBIC
    of Drton & Plummer (2017) over the models of ``1..K`` classes with the prior parameter
    ``sbic_phi`` (default the ``sBIC`` package's,
    :func:`hiddenbn.scores.singular_bic.default_phi`), None unless ``states`` are ``1..K``;
    ``fit_statistics`` (AIC, BIC, SABIC, CAIC, G^2, ...; smaller is better) and
    ``classification`` (entropy) are those of
    :func:`hiddenbn.scores.lca_statistics.model_comparison`, as ``fit`` reports them. A score that
    is NaN or None for some model (a Laplace Hessian that is not positive definite) selects
    among the others.
    """
    if sbic_phi is not None:
        singular_bic.check_phi(sbic_phi)
    models, notes, comparison_notes = [], [], {}
    for k in states:
        outcome = fit_and_score(latent_class_network(data, k), data, seed, alpha, restarts,
                                with_effective_dimension, wbic_draws=wbic_draws, **em_options)
        result = outcome["fit"]
        if fits is not None:
            fits[int(k)] = result
        row = {"states": int(k), "ds": outcome["ds"], "de": outcome["de"],
               "converged": result.converged, "iterations": result.iterations,
               **replication(result)}
        row.update(outcome["scores"])
        comparison, _ = model_comparison(outcome["fit"], data, outcome["de"])
        row.update(fit_statistics=comparison["fit_statistics"],
                   classification=comparison["classification"])
        if "wbic" in outcome:
            row["wbic"] = outcome["wbic"]
            notes += [f"k = {k}: {note}" for note in outcome["wbic"]["notes"]]
        models.append(row)
        if outcome["note"] and outcome["note"] not in notes:
            notes.append(outcome["note"])
        if not result.converged:
            notes.append(f"k = {k}: {stopped_by_cap(result)}")
        if replication_note(result):
            notes.append(f"k = {k}: {replication_note(result)}")
        notes += [f"k = {k}: {note}" for note in _laplace_notes(row, row["ds"])]
        for note in comparison["notes"]:
            comparison_notes.setdefault(note, []).append(k)
    # a note of every model (a MAP fit) once, the others with their k
    notes += [note if len(ks) == len(models) else f"k = {', '.join(map(str, ks))}: {note}"
              for note, ks in comparison_notes.items()]
    item_states = latent_class_network(data, 1).cardinalities[1:]
    phi, sbic_note = _with_sbic(models, item_states, data.n_cases, sbic_phi)
    notes.append(sbic_note)
    selected = {}
    for name in SELECTION_SCORE_NAMES:
        candidates = [m for m in models if m.get(name) is not None and not math.isnan(m[name])]
        if candidates:
            selected[name] = max(candidates, key=lambda m: m[name])["states"]
    for name in CRITERIA:
        selected[name] = min(models, key=lambda m: m["fit_statistics"][name])["states"]
    return {"models": models, "selected": selected, "scores_orientation": SCORES_ORIENTATION,
            "sbic_phi": phi, "notes": notes}


def _with_sbic(models: list, item_states, n_cases: int, phi: float | None) -> tuple:
    """Set each model's ``sbic_log_evidence`` (None unless the models are those of 1..K
    classes, in order); the prior parameter phi it took (or None) and the note that says so."""
    if [m["states"] for m in models] != list(range(1, len(models) + 1)):
        for m in models:
            m["sbic_log_evidence"] = None
        return None, ("no sBIC: it weighs each model against all its submodels (Drton & "
                      "Plummer 2017), so it needs the models of 1..K classes; give --classes "
                      "1..K")
    chosen = singular_bic.default_phi(item_states) if phi is None else phi
    values = singular_bic.latent_class_sbic([m["loglik"] for m in models], item_states,
                                            n_cases, chosen)
    for m, value in zip(models, values):
        m["sbic_log_evidence"] = float(value)
    return chosen, (f"sbic_log_evidence: the singular BIC of Drton & Plummer (2017) with their "
                    f"learning-coefficient bounds for latent class models at prior parameter "
                    f"phi = {chosen:g}"
                    + (" (the sBIC package's default, (d_1 + 1) / 2 for a 1-class model of "
                       "d_1 parameters)" if phi is None else ""))


def _laplace_notes(scores: dict, ds: int) -> list:
    """Why a fit has no Laplace score (JSON gives it as null), if it has none and the reason
    is not already in the fit's note."""
    if "laplace" not in scores:
        return [f"no Laplace score: more than {LAPLACE_MAX_DIMENSION} parameters, too many for "
                "the dense Hessian"] if ds > LAPLACE_MAX_DIMENSION else []
    if not scores["laplace_positive_definite"]:
        return ["no Laplace score: the negative Hessian is not positive definite here (a "
                "probability at 0, as ML fits often have, or a direction the data do not "
                "identify); a prior alpha above 1 keeps the fit inside"]
    return []


def replication(fit) -> dict:
    """How many of the independent searches of a fit (any fit with ``final_log_posteriors``,
    the final g of each EM start run to the end) reached its best g, within
    :data:`~hiddenbn.learning.em.REPLICATION_TOLERANCE` nats (JSON-ready)."""
    found = best_found(fit.final_log_posteriors)
    return {"replicated": found > 1, "best_found": found,
            "searches": len(fit.final_log_posteriors)}


def replication_note(fit) -> str | None:
    """The note of a fit whose best g only one search reached, and what to do; ``None`` for a
    replicated fit or one start chosen by the user (``--init``)."""
    counted = replication(fit)
    if counted["replicated"] or fit.schedule == "single":
        return None
    if counted["searches"] == 1:
        return ("the halving schedule runs one start to convergence, so it cannot tell whether "
                "other starts reach the same fit; the other schedules (--schedule) run every "
                "start to convergence and count those that reach the best")
    starts = counted["searches"]
    return (f"the best fit was found by 1 of {starts} starts (no other ended within "
            f"{REPLICATION_TOLERANCE} nats of its log posterior), so a better one may exist; "
            f"rerun with more --restarts (e.g. --restarts {4 * starts}) and see whether the best "
            "recurs")


def stopped_by_cap(fit) -> str:
    """The note of a fit that the iteration cap stopped before the stopping rule was met."""
    return (f"EM stopped at the cap of {fit.iterations} final iterations before its stopping "
            "rule was met: the estimates may be short of the optimum; raise --max-iterations")


def parse_classes(text: str) -> list:
    """``"1..8"``, ``"2,3,5"`` or ``"4"`` as a sorted list of distinct numbers of classes.

    A range is counted before it is built (``len`` of a range stops at 2**63): at most
    :data:`~hiddenbn.util.limits.MAX_MODELS` counts.
    """
    shown = excerpt(text)
    try:
        if ".." in text:
            low, high = (int(part) for part in text.split(".."))
            values = range(low, high + 1)
        else:
            values = [int(part) for part in text.split(",")]
    except ValueError:
        raise HiddenbnError(f"--classes {shown}: write a range such as 1..8 or a list such as "
                            "2,3,5") from None
    count = max(0, values.stop - values.start) if isinstance(values, range) else len(values)
    limits.require_at_most(count, limits.MAX_MODELS,
                           f"--classes {shown}: the number of models to fit",
                           "give fewer numbers of classes, e.g. 1..8")
    if not values or min(values) < 1:
        raise HiddenbnError(f"--classes {shown}: need at least one number of classes, each "
                            ">= 1; write a range such as 1..8 or a list such as 2,3,5")
    return sorted(set(values))


def fit_report(outcome: dict, data: Dataset, notes=()) -> dict:
    """A JSON-ready summary of :func:`fit_and_score`: fit, convergence, scores and parameters,
    with the states of each column (code ``s`` is ``states[column][s]``) and ``notes``."""
    result = outcome["fit"]
    network = result.network
    return {
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
        + [ONE_MODEL_SBIC_NOTE if is_latent_class(network) else singular_bic.NO_BOUND_NOTE]
        + ([] if result.converged else [stopped_by_cap(result)])
        + list(filter(None, [replication_note(result)]))
        + _laplace_notes(outcome["scores"], outcome["ds"])
        + (outcome["wbic"]["notes"] if "wbic" in outcome else []),
        "parameters": {network.names[i]: t.tolist() for i, t in enumerate(result.cpts)
                       if t is not None},
        **({"wbic": outcome["wbic"]} if "wbic" in outcome else {}),
    }


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
    """The text form of :func:`fit_report`."""
    em = report["em"]
    de = "unknown" if report["de"] is None else report["de"]
    lines = [f"{_data_line(report)}; ds {report['ds']}, de {de}, Dirichlet alpha {report['alpha']}",
             _states_line(report["states"]),
             f"EM: {em['restarts']} restart{'s' if em['restarts'] != 1 else ''} "
             f"({em['schedule']}, {describe_acceleration(em['acceleration'])}, exact inference "
             f"by {em['engine']}), "
             + (f"converged after {em['iterations']} final iterations" if em["converged"] else
                f"NOT converged after {em['iterations']} final iterations"),
             f"log-likelihood {em['log_likelihood']:.6f}, log posterior g {em['log_posterior']:.6f}",
             replication_line(em),
             f"scores, {SCORES_ORIENTATION}:"]
    names = [name for name in SELECTION_SCORE_NAMES if name in report["scores"]]
    width = max(map(len, names), default=0)
    lines += [f"  {name:<{width}} {_shown(report['scores'][name], '.6f')}" for name in names]
    if "wbic" in report:
        lines.append(f"  {'':<{width}} {wbic_line(report['wbic'])}")
    lines += [f"note: {note}" for note in report["notes"]]
    if "lca" in report:  # the latent class analysis shows the parameters with their labels
        from hiddenbn.reports.lca import format_lca_text

        return "\n".join(lines + ["", format_lca_text(report["lca"])])
    lines.append("parameters (one row per parent configuration, first parent most significant):")
    for name, rows in report["parameters"].items():
        lines += [f"  {name}[{j}] " + " ".join(f"{p:.6f}" for p in row)
                  for j, row in enumerate(rows)]
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
    """The text of :func:`select_latent_class`: a table of the information criteria and one of
    the scores, one row per model, each under its sign convention; then the choices."""
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
