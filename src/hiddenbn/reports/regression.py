"""The report of ``hiddenbn fit --covariates``: one-step latent class regression.

:func:`regression_report` gathers, as one strict-JSON report, what an analyst reads from a fit
of :func:`hiddenbn.regression.one_step.fit_one_step`: the logit coefficients of class
membership with standard errors from the observed information of the full model (items and
coefficients together), z, p and odds ratios, each categorical covariate's reference level;
the item-response probabilities and the class sizes the fit implies; every score with ``d``
counting the coefficients; predicted class probabilities at chosen covariate values; and the
notes (the rows dropped for a missing covariate). :func:`format_regression_text` is its text,
:func:`write_regression_posteriors` the posterior of every data row as CSV, and
:func:`probability_curve` what the plot of the class probabilities draws.
:func:`regression_selection` and :func:`format_regression_selection` are ``hiddenbn select
--covariates``'s report and text: every score per number of classes.

Classes are numbered from 1 as in every output of the latent class analysis
(:mod:`hiddenbn.reports.lca`); class 1 is the reference of the logit.
"""

from __future__ import annotations

import numpy as np
from scipy.stats import norm

from hiddenbn.data import MISSING
from hiddenbn.errors import HiddenbnError, excerpt, first_named, for_caller, option
from hiddenbn.learning.selection import (CRITERIA, replication,
                                         replication_note, stopped_by_cap)
from hiddenbn.inference.latent_class import modal_class
from hiddenbn.regression.one_step import (coefficient_table, observed_information,
                                          one_step_scores)
from hiddenbn.reports.fit import describe_acceleration, replication_line
from hiddenbn.scores.lca_statistics import FIT_STATISTICS_ORIENTATION, finite_or_none
from hiddenbn.util.files import atomic_output

#: What the standard errors of the coefficients are, as every report says.
STANDARD_ERRORS = ("observed information of the full model (the coefficients and the item "
                   "probabilities together), inverted")
#: What the standard errors of a three-step estimate are, per correction.
THREE_STEP_STANDARD_ERRORS = {
    "bch": "sandwich (robust) estimator of the BCH-weighted logit, the measurement model and "
           "the classification error fixed",
    "ml": "observed information of step 3's likelihood, inverted, the measurement model and "
          "the classification error fixed",
    "naive": "observed information of the logit of the assigned classes, inverted, as if they "
             "were the true ones"}
#: Points along the covariate of the plot of the predicted class probabilities.
CURVE_POINTS = 200
#: The scores of a regression fit, in display order.
REGRESSION_SCORE_NAMES = ("loglik", "bic_log_evidence", "draper", "icl_log_evidence",
                          "laplace")
#: The sign convention of :data:`REGRESSION_SCORE_NAMES`, as every regression report states it
#: (naming only the scores it prints).
REGRESSION_SCORES_ORIENTATION = (
    "approximations of the log marginal likelihood log p(D | model) (loglik: the "
    "log-likelihood): larger is better; bic_log_evidence is -BIC/2, draper -BIC/2 + d/2 "
    "log 2 pi, icl_log_evidence -ICL/2 (BIC less the entropy of the hidden classes), laplace "
    "Laplace's approximation")
#: What the ``d`` of a one-step and of a three-step report counts.
ONE_STEP_PARAMETERS = "the coefficients and the item probabilities"
THREE_STEP_PARAMETERS = ("the measurement model's class sizes and item probabilities, whose "
                         "scores these are (the coefficients are fitted after it, with it fixed)")


def _numbers(array) -> list:
    return [[finite_or_none(float(v)) for v in row] for row in np.asarray(array)]


def regression_report(fit, design, categories, prior_sd: float, predictions=(),
                      notes=()) -> dict:
    """Everything an analyst reads from a one-step latent class regression, as strict JSON.

    Parameters
    ----------
    fit : hiddenbn.regression.one_step.OneStepFit
    design : hiddenbn.regression.covariates.CovariateDesign
        The covariates (names, reference levels, rows dropped).
    categories : dict
        ``{item: [label, ...]}``: each item's states.
    prior_sd : float
        The standard deviation of the normal prior on every coefficient, for Laplace.
    predictions : sequence of (dict, ndarray)
        ``(covariate values, design row)`` at which to predict the class probabilities.
    notes : sequence of str
        How the data were read.

    Returns
    -------
    dict
        ``model``, ``n_cases``, ``dropped_rows``, ``missing_cells`` (each counted as often
        as its case occurs; the command adds ``dropped_cases``, the dropped rows' counts),
        ``em``, ``coefficients`` (one entry per class 2..k and design column), ``references``,
        ``classes`` (the mean predicted probability of each class), ``items``, ``predictions``,
        ``scores``, ``fit_statistics``, ``classification``, ``notes``.
    """
    information = observed_information(fit.engine, fit.state)
    table = coefficient_table(fit, information)
    scores, statistics, classification, score_notes = one_step_scores(fit, information, prior_sd)
    k = fit.coefficients.shape[1]
    modal = np.bincount(modal_class(fit.posterior()), weights=fit.cases.counts, minlength=k)
    all_notes = list(notes) + list(design.notes)
    if information.fixed_rows:
        items = fit.network.observed_names
        j, h = information.fixed_rows[0]
        all_notes.append(
            f"{len(information.fixed_rows)} item row(s) have a probability at 0 (the first: "
            f"{items[j]!r} in class {h + 1}) and are held fixed in the standard errors, as "
            "Mplus fixes parameters at a bound")
    if not table.positive_definite:
        all_notes.append("no standard errors: the observed information is not positive "
                         "definite (a direction the data do not identify)")
    em = _em_section(fit, fit.engine.name, all_notes)
    all_notes += score_notes
    model = {"estimator": "one-step ML", "alpha": fit.alpha,
             "estimate": "ML" if fit.alpha == 1.0 else "MAP items, ML coefficients",
             "n_parameters": fit.n_parameters, "n_parameters_count": ONE_STEP_PARAMETERS,
             "prior_sd": prior_sd}
    report = _report(fit, design, categories, predictions, model, em,
                     (table.estimate, table.standard_error), STANDARD_ERRORS,
                     fit.cpts[0][0], modal, (scores, statistics, classification), all_notes)
    report["missing_cells"] = int(((fit.cases.patterns == MISSING)
                                   * fit.cases.counts[:, None]).sum())
    return report


def three_step_report(fit, design, categories, predictions=(), notes=()) -> dict:
    """Everything an analyst reads from a three-step latent class regression
    (:func:`hiddenbn.regression.three_step.fit_three_step`), as strict JSON: the keys of
    :func:`regression_report`, ``model.estimator`` naming the correction, ``em`` step 1's
    search, and ``step3`` (the correction, its iterations and log-likelihood, and the
    classification error matrix ``D[s][t] = P(assigned t | class s)``). The scores are the
    measurement model's (step 1), whose ``d`` counts the item probabilities and class sizes:
    the coefficients are fitted afterwards, with the items fixed.

    Parameters
    ----------
    fit : hiddenbn.regression.three_step.ThreeStepFit
    design, categories, predictions, notes
        As for :func:`regression_report`.

    Returns
    -------
    dict
    """
    from hiddenbn.data import Dataset
    from hiddenbn.learning.selection import scored
    from hiddenbn.scores.lca_statistics import (classification_entropy, entropy_r2,
                                                information_criteria)

    measurement, estimate = fit.measurement, fit.estimate
    classification = estimate.classification
    k = fit.coefficients.shape[1]
    items = Dataset.from_rows(fit.network.observed_names, fit.patterns,
                              fit.network.cardinalities[1:], fit.counts)
    outcome = scored(measurement, items, with_effective_dimension=False)
    scores = {name: finite_or_none(outcome["scores"].get(name))
              for name in REGRESSION_SCORE_NAMES}
    d = fit.network.standard_dimension
    statistics = {"log_likelihood": measurement.log_likelihood, "n_parameters": d,
                  **information_criteria(measurement.log_likelihood, d, fit.n_cases)}
    entropy = classification_entropy(classification.posteriors, fit.counts)
    all_notes = list(notes) + list(design.notes)
    em = _em_section(measurement, measurement.engine, all_notes)
    all_notes.append(for_caller("the scores are the measurement model's (step 1, d counts its "
                                "item probabilities and class sizes); the one-step fit "
                                f"(without {option('--three-step')}) gives those of the model "
                                "with the covariates"))
    if scores["laplace"] is None:  # why, without the effective dimension this skips
        all_notes += [part for part in (outcome["note"] or "").split("; ")
                      if part and not part.startswith("effective dimension skipped")]
    method = estimate.method.upper()
    model = {"estimator": f"three-step {method}", "alpha": measurement.alpha,
             "estimate": "ML" if measurement.alpha == 1.0 else "MAP items, ML coefficients",
             "n_parameters": d, "n_parameters_count": THREE_STEP_PARAMETERS,
             "prior_sd": None}
    report = _report(fit, design, categories, predictions, model, em,
                     (fit.coefficients[:, 1:], estimate.standard_errors[:, 1:]),
                     THREE_STEP_STANDARD_ERRORS[estimate.method],
                     (fit.counts @ fit.class_probabilities(fit.design)) / fit.counts.sum(),
                     np.bincount(classification.assigned, weights=fit.counts, minlength=k),
                     (scores, statistics, {"entropy": entropy,
                                           "entropy_r2": entropy_r2(entropy, fit.n_cases, k)}),
                     all_notes)
    report["step3"] = {"method": estimate.method, "iterations": estimate.iterations,
                       "log_likelihood": estimate.log_likelihood,
                       "classification_error": _numbers(classification.error_matrix)}
    return report


def _em_section(fit, engine: str, notes: list) -> dict:
    """The ``em`` entry of a report: ``fit``'s search (a one-step fit's, or a three-step
    fit's step 1), and the notes of a capped or unreplicated search added to ``notes``."""
    if not fit.converged:
        notes.append(stopped_by_cap(fit))
    replicated = replication(fit)
    if replicated["searches"] > 1 and replication_note(fit):
        notes.append(replication_note(fit))
    return {"engine": engine, "restarts": fit.restarts, "schedule": fit.schedule,
            "acceleration": fit.acceleration, "iterations": fit.iterations,
            "converged": fit.converged, "log_likelihood": fit.log_likelihood,
            "log_prior": fit.log_prior, "log_posterior": fit.log_posterior,
            **replicated, "final_log_posteriors": list(fit.final_log_posteriors)}


def _report(fit, design, categories, predictions, model, em, coefficients, standard_errors,
            sizes, modal, scored, notes) -> dict:
    """The report's dict from its parts, shared by the one-step and three-step reports:
    ``coefficients`` is ``(estimate, standard error)``, each ``(p, k - 1)``; ``sizes`` the
    class sizes, ``modal`` the cases each class has modally; ``scored`` ``(scores, fit
    statistics, classification)``."""
    estimate, error = coefficients
    k = fit.coefficients.shape[1]
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        z = estimate / error
        odds = np.exp(estimate)
    p_values = 2 * norm.sf(np.abs(z))
    rows = [{"class": c + 2, "covariate": name, "estimate": float(estimate[j, c]),
             "standard_error": finite_or_none(float(error[j, c])),
             "z": finite_or_none(float(z[j, c])), "p": finite_or_none(float(p_values[j, c])),
             "odds_ratio": finite_or_none(float(odds[j, c]))}
            for c in range(k - 1) for j, name in enumerate(fit.covariate_names)]
    scores, statistics, classification = scored
    return {
        "model": {"family": "latent class regression", "classes": int(k),
                  "items": list(fit.network.observed_names),
                  "covariates": list(design.covariates), "design": list(fit.covariate_names),
                  **model},
        "n_cases": fit.n_cases, "dropped_rows": int(design.dropped),
        "em": em,
        "coefficients": rows,
        "references": {name: design.references[name] for name in design.covariates
                       if name in design.references},
        "standard_errors": standard_errors,
        "classes": [{"class": h + 1, "size": float(sizes[h]),
                     "modal_cases": int(round(modal[h]))} for h in range(k)],
        "items": {name: {"categories": list(categories[name]),
                         "probabilities": _numbers(fit.cpts[j + 1])}
                  for j, name in enumerate(fit.network.observed_names)},
        "predictions": [{"at": dict(values),
                         "probabilities": [float(v) for v in fit.class_probabilities(row)[0]]}
                        for values, row in predictions],
        "scores": scores, "scores_orientation": REGRESSION_SCORES_ORIENTATION,
        "fit_statistics": statistics, "classification": classification,
        "notes": notes,
    }


def _shown(value, form: str) -> str:
    """``value`` in ``form``, or "-" where it is missing, right-aligned in the form's width
    so that a table's columns stay aligned."""
    if value is not None:
        return format(value, form)
    width = form.split(".")[0]
    return format("-", f">{width}")


def _estimation_lines(report: dict) -> list:
    """How the fit was found: one-step EM, or three-step's step 1 and step 3."""
    em = report["em"]
    starts = f"{em['restarts']} start{'s' if em['restarts'] != 1 else ''}"
    stopped = (("converged" if em["converged"] else "NOT converged")
               + f" after {em['iterations']} final iterations")
    acceleration = describe_acceleration(em["acceleration"])
    if "step3" not in report:
        return [f"EM: {starts} (the measurement model's best fit by {em['schedule']}, then "
                f"random; {acceleration}), {stopped}",
                f"log-likelihood {em['log_likelihood']:.6f}"]
    step3 = report["step3"]
    error = "; ".join(f"class {s + 1}: " + " ".join(f"{p:.4f}" for p in row)
                      for s, row in enumerate(step3["classification_error"]))
    likelihood = ("" if step3["log_likelihood"] is None
                  else f", log-likelihood {step3['log_likelihood']:.6f}")
    return [f"step 1, the measurement model (the items alone): EM, {starts} by "
            f"{em['schedule']} ({acceleration}), {stopped}; log-likelihood "
            f"{em['log_likelihood']:.6f}",
            f"step 2, modal assignment: P(assigned class | class) {error}",
            f"step 3, the covariates' logit of the assigned classes, corrected by "
            f"{step3['method'].upper()}" + (f" in {step3['iterations']} iterations"
                                            if step3["iterations"] else "") + likelihood]


def _dropped(report: dict) -> str:
    """The data line's account of the rows dropped for a missing covariate (and of their
    cases, where a count column makes them more)."""
    rows, cases = report["dropped_rows"], report.get("dropped_cases", report["dropped_rows"])
    if not rows:
        return ""
    counted = f", {cases} cases," if cases != rows else ""
    return (f" ({rows} row{'s' if rows > 1 else ''}{counted} dropped for a missing "
            "covariate)")


def format_regression_text(report: dict) -> str:
    """The text ``hiddenbn fit --covariates`` prints of :func:`regression_report` or
    :func:`three_step_report`."""
    model, em = report["model"], report["em"]
    classes = f"{model['classes']} class{'es' if model['classes'] > 1 else ''}"
    lines = [f"latent class regression: {classes}, items "
             f"{', '.join(model['items'])}; covariates {', '.join(model['covariates'])}",
             f"data: {report['n_cases']} cases"
             + _dropped(report)
             + (f", {report['missing_cells']} missing item cells (summed out)"
                if report.get("missing_cells") else "")
             + f"; {model['n_parameters']} free parameters, {model['n_parameters_count']} "
               f"({model['estimate']})",
             *_estimation_lines(report), replication_line(em), ""]
    lines.append(f"class membership: multinomial logit, class 1 the reference, estimated "
                 f"{model['estimator']}; standard errors from the {report['standard_errors']}")
    references = report["references"]
    if references:
        lines.append("reference levels: " + ", ".join(f"{name} = {level}"
                                                      for name, level in references.items()))
    if not report["coefficients"]:
        lines.append("  no coefficients: with one class the covariates predict nothing")
    width = max((len(c["covariate"]) for c in report["coefficients"]), default=0)
    header = (f"  {'covariate':<{width}} {'estimate':>10} {'s.e.':>9} {'z':>8} {'p':>9} "
              f"{'odds ratio':>11}")
    for c in sorted({row["class"] for row in report["coefficients"]}):
        lines += [f"class {c} vs class 1:", header]
        for row in (r for r in report["coefficients"] if r["class"] == c):
            lines.append(f"  {row['covariate']:<{width}} {row['estimate']:>10.4f} "
                         f"{_shown(row['standard_error'], '9.4f')} {_shown(row['z'], '8.3f')} "
                         f"{_shown(row['p'], '9.3g')} {_shown(row['odds_ratio'], '11.4g')}")
    lines.append("")
    lines.append("class sizes (mean predicted probability): " + ", ".join(
        f"class {c['class']} {c['size']:.4f}" for c in report["classes"]))
    for prediction in report["predictions"]:
        at = ", ".join(f"{name}={value}" for name, value in prediction["at"].items())
        lines.append(f"predicted at {at}: " + ", ".join(
            f"class {h + 1} {p:.4f}" for h, p in enumerate(prediction["probabilities"])))
    lines.append("item-response probabilities, p(category | class):")
    for name, item in report["items"].items():
        lines.append(f"  {name} ({', '.join(item['categories'])})")
        lines += [f"    class {h + 1}: " + " ".join(_shown(p, ".4f") for p in row)
                  for h, row in enumerate(item["probabilities"])]
    lines.append("")
    lines.append(f"scores, {report['scores_orientation']}:")
    scores = report["scores"]
    width = max(map(len, REGRESSION_SCORE_NAMES))
    lines += [f"  {name:<{width}} {_shown(scores[name], '.6f')}"
              for name in REGRESSION_SCORE_NAMES]
    statistics = report["fit_statistics"]
    lines.append(f"fit statistics, {FIT_STATISTICS_ORIENTATION}: "
                 + ", ".join(f"{name.upper()} {statistics[name]:.4f}"
                             for name in ("aic", "bic", "sabic", "caic")))
    classification = report["classification"]
    lines.append(f"classification: entropy {classification['entropy']:.4f}, entropy R^2 "
                 f"{_shown(classification['entropy_r2'], '.4f')}")
    lines += [f"note: {note}" for note in report["notes"]]
    return "\n".join(lines)


def write_regression_posteriors(path, posterior, kept, reasons) -> None:
    """Write each data row's class posteriors and modal class as CSV, atomically.

    Columns ``row, p_class1, ..., p_classk, modal_class, dropped``: ``row`` numbers the data
    rows from 1 in input order; ``posterior`` has one row per kept data row (``kept``, a mask
    over every data row); a dropped row has empty probabilities and says why in ``dropped``
    (``reasons``, one per data row), the others leave it empty.
    """
    k = posterior.shape[1]
    modal = modal_class(posterior) + 1
    header = ",".join(["row"] + [f"p_class{h + 1}" for h in range(k)] + ["modal_class",
                                                                          "dropped"])
    with atomic_output(path) as temporary, open(temporary, "w") as handle:
        handle.write(header + "\n")
        position = 0
        for row, (keep, reason) in enumerate(zip(np.asarray(kept, dtype=bool).tolist(),
                                                 reasons), 1):
            if keep:
                values = ",".join(f"{p:.6g}" for p in posterior[position])
                handle.write(f"{row},{values},{modal[position]},\n")
                position += 1
            else:
                handle.write(f"{row}," + "," * (k + 1) + f"{reason}\n")


def probability_curve(fit, design, covariate: str) -> dict:
    """The predicted class probabilities along the numeric ``covariate``, from its smallest to
    its largest value in the rows used (``CURVE_POINTS`` points), the other covariates at
    their means (numeric) or reference levels (categorical): what
    :func:`hiddenbn.reports.plots.class_probability_figure` draws."""
    if covariate not in design.covariates:
        raise HiddenbnError(f"{option('--plot-covariate', shown=excerpt(covariate))} is not a "
                            f"covariate of the model; name one of {first_named(design.covariates)}")
    if covariate in design.levels:
        raise HiddenbnError(f"{option('--plot-covariate', shown=repr(covariate))} is "
                            "categorical, and the plot draws the class probabilities along a "
                            f"numeric covariate; name a numeric one ({option('--predict-at')} "
                            "gives the probabilities at each level)")
    column = design.names.index(covariate)
    values = np.linspace(design.matrix[:, column].min(), design.matrix[:, column].max(),
                         CURVE_POINTS)
    held = {name: (design.references[name] if name in design.levels else
                   float(np.round(design.matrix[:, design.names.index(name)].mean(), 4)))
            for name in design.covariates if name != covariate}
    rows = np.repeat(design.rows([{covariate: float(values[0]), **held}]), CURVE_POINTS,
                     axis=0)
    rows[:, column] = values
    return {"covariate": covariate, "values": values.tolist(),
            "probabilities": fit.class_probabilities(rows).tolist(), "held": held}


def regression_selection(reports: dict, separated=None) -> dict:
    """The report of ``hiddenbn select --covariates``: of the :func:`regression_report` of
    each number of classes (``{k: report}``), one row per model with its scores and
    information criteria, and the number of classes each selects (the largest score, the
    smallest criterion; a score that is None for some model selects among the others).

    ``separated`` (``{k: message}``) names the numbers of classes whose covariates separate the
    classes: they have no maximum likelihood estimate, so their rows have ``separated`` true and
    no scores, a note gives the message, and no score selects them."""
    separated = separated or {}
    rows = {}
    for k, report in reports.items():
        em = report["em"]
        rows[int(k)] = {"states": int(k), "separated": False,
                        "n_parameters": report["model"]["n_parameters"],
                        "converged": em["converged"], "iterations": em["iterations"],
                        "replicated": em["replicated"], "best_found": em["best_found"],
                        "searches": em["searches"], **report["scores"],
                        "fit_statistics": report["fit_statistics"],
                        "classification": report["classification"]}
    fitted = list(rows.values())
    blank = {key: None for key in fitted[0] if key not in ("states", "separated")}
    for k in separated:
        rows[int(k)] = {"states": int(k), "separated": True, **blank}
    models = [rows[k] for k in sorted(rows)]
    selected = {}
    for name in REGRESSION_SCORE_NAMES:
        candidates = [m for m in fitted if m[name] is not None]
        if candidates:
            selected[name] = max(candidates, key=lambda m: m[name])["states"]
    for name in CRITERIA:
        selected[name] = min(fitted, key=lambda m: m["fit_statistics"][name])["states"]
    first = next(iter(reports.values()))
    per_model = {}
    for k, report in reports.items():
        for note in report["notes"]:
            per_model.setdefault(note, []).append(k)
    notes = [note if len(ks) == len(models) else f"k = {', '.join(map(str, ks))}: {note}"
             for note, ks in per_model.items()]
    notes += [f"k = {k}: {message} (no scores; not selected)"
              for k, message in sorted(separated.items())]
    return {"covariates": first["model"]["covariates"], "design": first["model"]["design"],
            "n_cases": first["n_cases"], "dropped_rows": first["dropped_rows"],
            "dropped_cases": first["dropped_cases"],
            "models": models, "selected": selected,
            "scores_orientation": REGRESSION_SCORES_ORIENTATION,
            "fit_statistics_orientation": FIT_STATISTICS_ORIENTATION, "notes": notes}


def format_regression_selection(report: dict) -> str:
    """The text ``hiddenbn select --covariates`` prints of :func:`regression_selection`."""
    lines = [f"latent class regressions on {', '.join(report['covariates'])} (design "
             f"columns {', '.join(report['design'])}): {report['n_cases']} cases"
             + _dropped(report),
             f"fit statistics: {report['fit_statistics_orientation']}",
             f"{'k':>3} {'d':>5} {'log-lik':>12} "
             + " ".join(f"{name.upper():>12}" for name in CRITERIA) + f" {'entropy R^2':>11}"]
    for m in report["models"]:
        if m["separated"]:
            lines.append(f"{m['states']:>3} separated: no maximum likelihood estimate (see note)")
            continue
        statistics = m["fit_statistics"]
        lines.append(f"{m['states']:>3} {m['n_parameters']:>5} {m['loglik']:>12.3f} "
                     + " ".join(f"{statistics[name]:>12.3f}" for name in CRITERIA)
                     + f" {_shown(m['classification']['entropy_r2'], '.3f'):>11}")
    names = REGRESSION_SCORE_NAMES
    lines += [f"scores: {report['scores_orientation']}",
              f"{'k':>3} {'conv':>5} {'found':>7} " + " ".join(f"{n:>16}" for n in names)]
    for m in report["models"]:
        if m["separated"]:
            lines.append(f"{m['states']:>3} separated: no scores")
            continue
        found = f"{m['best_found']}/{m['searches']}"
        lines.append(f"{m['states']:>3} {'yes' if m['converged'] else 'no':>5} {found:>7} "
                     + " ".join(f"{_shown(m[n], '.3f'):>16}" for n in names))
    lines.append("found: how many of EM's starts reached the model's best log-likelihood")
    lines.append("selected k: " + ", ".join(f"{n} {k}" for n, k in report["selected"].items()))
    lines += [f"note: {note}" for note in report["notes"]]
    return "\n".join(lines)
