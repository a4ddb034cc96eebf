"""The report of ``hiddenbn evidence``: the marginal likelihood log p(D | S) of a model.

:func:`evidence_report` gathers the value (exact,
:func:`hiddenbn.scores.exact.exact_log_evidence`, or a Monte Carlo estimate with its standard
error, :func:`hiddenbn.scores.smc.smc_log_evidence`) with the data it is of;
:func:`format_evidence_report` is the text the command prints.
"""

from __future__ import annotations

from hiddenbn.errors import for_caller, option


def evidence_report(model: str, method: str, prior_alpha: float, data, notes, result) -> dict:
    """The report (JSON-ready) of the marginal likelihood ``result`` of ``model`` (as the user
    named it) on ``data`` (a :class:`~hiddenbn.data.Dataset`), by ``method`` ("exact" or "mc").

    ``result`` is an :class:`~hiddenbn.scores.exact.ExactEvidence` (exact) or a
    :class:`~hiddenbn.scores.smc.MonteCarloEvidence`; ``notes`` say how the data were read.
    """
    report = {"model": model, "method": method, "prior_alpha": prior_alpha,
              "cases": data.n_cases, "patterns": data.n_patterns,
              "states": data.states(), "notes": list(notes)}
    if method == "exact":
        report.update(log_evidence=result.log_evidence, standard_error=0.0,
                      peak_states=result.peak_states)
    else:
        report.update(log_evidence=result.log_evidence, standard_error=result.standard_error,
                      runs=result.runs, particles=result.particles,
                      effective_runs=result.effective_runs,
                      different_modes=result.ended_in_different_modes,
                      run_estimates=result.run_estimates.tolist())
    return report


def format_evidence_report(report: dict) -> str:
    """The text ``hiddenbn evidence`` prints of :func:`evidence_report`, its options named as
    the caller wrote them (:func:`~hiddenbn.errors.for_caller`)."""
    error = "" if report["method"] == "exact" else f" +- {report['standard_error']:.3f}"
    lines = [f"log p(D | {report['model']}) = {report['log_evidence']:.4f}{error} "
             f"({report['method']}, N = {report['cases']}, {report['patterns']} patterns)"]
    lines += [f"note: {note}" for note in report["notes"]]
    if report.get("different_modes"):
        lines.append(for_caller(f"note: the estimate rests on {report['effective_runs']:.1f} "
                                f"of {report['runs']} runs, which ended in different modes, "
                                "so the +- is not its error; rerun with other seeds "
                                f"({option('--seed')}) and more particles "
                                f"({option('--particles')}) to see how far it moves"))
    return "\n".join(lines)
