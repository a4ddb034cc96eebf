"""The text of the bootstrap likelihood-ratio tests of ``select --blrt``
(:mod:`hiddenbn.learning.blrt`), printed below the table of the scores."""

from __future__ import annotations


def format_blrt(report: dict) -> str:
    """The text of a report of :func:`hiddenbn.learning.blrt.report`: one line per test, the
    refit check and the notes."""
    lines = [f"bootstrap likelihood-ratio tests of k - 1 against k classes (at most "
             f"{report['replicates']} replicates each; stopped once p > {report['level']} was "
             f"certain, Besag & Clifford 1991):",
             f"{'k':>3} {'LR':>12} {'p':>8} {'MC s.e.':>8} {'replicates':>10} "
             f"{'stopped early':>13}"]
    for test in report["tests"]:
        lines.append(f"{test['states']:>3} {test['statistic']:>12.3f} {test['p_value']:>8.4f} "
                     f"{test['monte_carlo_se']:>8.4f} {test['replicates']:>10} "
                     f"{'yes' if test['stopped_early'] else 'no':>13}")
    check = report["refit_check"]
    lines.append(f"refits at the oracle: {check['reached']} of {check['checked']} checked "
                 f"(within {check['tolerance']} nats)")
    if report["missing_cells"]:
        lines.append(f"missing cells: {report['missing_cells']}")
    lines += [f"note: {note}" for note in report["notes"]]
    return "\n".join(lines)
