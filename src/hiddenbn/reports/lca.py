"""The latent class analysis report: what users of poLCA, StepMix and Mplus read from a fit.

For a fitted latent class model, :func:`lca_report` gathers, as one strict-JSON report, the
class sizes and item-response probabilities with their standard errors, classification quality
and fit statistics (computed by :mod:`hiddenbn.scores.lca_statistics`); :func:`format_lca_text`
is its text form, in the layout of poLCA's print (Linzer & Lewis 2011, JSS 42(10));
:func:`write_posteriors` writes each case's class posteriors and modal class as CSV.

Classes are numbered from 1 in every output a user reads (JSON, text, CSV, figures), as poLCA
and Mplus number them.
"""

from __future__ import annotations

import io

import numpy as np

from hiddenbn.data import Dataset
from hiddenbn.inference.latent_class import modal_class, require_latent_class
from hiddenbn.models.network import check_parameters
from hiddenbn.scores.lca_statistics import (average_posteriors, finite_or_none, item_categories,
                                            model_comparison, standard_errors)
from hiddenbn.util.files import atomic_output
from hiddenbn.util.limits import shown

#: Rows of the posterior CSV formatted at once (bounds the memory of a 10^6-row file).
CSV_CHUNK_ROWS = 1 << 16


def _numbers(array) -> list:
    return [[finite_or_none(v) for v in row] for row in np.asarray(array)]


def lca_report(fit, data: Dataset, de: int | None = None, labels=None) -> dict:
    """Everything an LCA user reads from a fit, as strict JSON (no NaN or infinity).

    Parameters
    ----------
    fit : hiddenbn.learning.em.Fit
        A fit of a latent class model (ML with ``alpha = 1``; MAP otherwise, with a note).
    data : Dataset
        The data of the fit; missing cells are summed out.
    de : int, optional
        The effective dimension (``fit_and_score(...)["de"]``): gives ``df_effective``.
    labels : dict, optional
        Item name -> category labels (:func:`~hiddenbn.scores.lca_statistics.item_categories`).

    Returns
    -------
    dict
        ``model``: ``classes`` (k), ``items`` (names), ``n_cases``, ``n_patterns``, ``alpha``,
        ``estimate`` ("ML"/"MAP"), ``ds``, ``de``.
        ``classes``: per class ``{"class": h (from 1), "size": p(h), "size_se",
        "expected_cases": N p(h), "modal_cases"}``.
        ``items``: per item ``{"categories": [labels], "probabilities": [[p(x | h) per
        category] per class], "standard_errors": same layout}``.
        ``standard_errors``: what the standard errors are
        (:func:`~hiddenbn.scores.lca_statistics.standard_errors`).
        ``classification``: ``entropy``, ``entropy_r2``
        (:func:`~hiddenbn.scores.lca_statistics.model_comparison`), ``modal_class_counts`` (per
        class), ``average_posterior_by_modal_class``
        (:func:`~hiddenbn.scores.lca_statistics.average_posteriors`).
        ``fit_statistics``: :func:`~hiddenbn.scores.lca_statistics.model_comparison`'s.
        ``notes``: why each None is None, and what to beware of.
    """
    network = fit.network
    require_latent_class(network)
    cpts = check_parameters(network, fit.cpts)
    data = data.for_network(network)
    categories = item_categories(network, labels)
    k, ds, n_cases = network.cardinalities[0], network.standard_dimension, data.n_cases
    comparison, posterior = model_comparison(fit, data, de)
    errors = standard_errors(network, cpts, data.patterns, data.counts, fit.alpha, categories)
    modal = modal_class(posterior)
    modal_counts = [int(c) for c in np.bincount(modal, weights=data.counts, minlength=k)]
    sizes = cpts[0][0]
    return {
        "model": {"classes": int(k), "items": list(network.observed_names),
                  "n_cases": n_cases, "n_patterns": data.n_patterns, "alpha": float(fit.alpha),
                  "estimate": "ML" if fit.alpha == 1.0 else "MAP", "ds": ds,
                  "de": None if de is None else int(de)},
        "classes": [{"class": h + 1, "size": float(sizes[h]),
                     "size_se": finite_or_none(errors.tables[0][0, h]),
                     "expected_cases": float(n_cases * sizes[h]),
                     "modal_cases": modal_counts[h]} for h in range(k)],
        "items": {name: {"categories": categories[j], "probabilities": _numbers(cpts[j + 1]),
                         "standard_errors": _numbers(errors.tables[j + 1])}
                  for j, name in enumerate(network.observed_names)},
        "standard_errors": errors.method,
        "classification": {**comparison["classification"], "modal_class_counts": modal_counts,
                           "average_posterior_by_modal_class":
                               average_posteriors(posterior, modal, data.counts)},
        "fit_statistics": comparison["fit_statistics"],
        "notes": comparison["notes"] + errors.notes,
    }


def _estimate(value, error) -> str:
    """``0.4213 (0.0231)``; a missing standard error shows as ``(-)``."""
    return f"{value:.4f} ({'-' if error is None else f'{error:.4f}'})"


def _statistic(report: dict, name: str, label: str) -> str:
    stats = report["fit_statistics"]
    if stats[name] is None:
        return f"{label} -"

    def p(value):
        return "-" if value is None else f"{value:.4g}"

    text = f"{label} {stats[name]:.4f} (df {shown(stats['df'])}, p {p(stats[name + '_p'])}"
    if stats["df_effective"] is not None and stats["df_effective"] != stats["df"]:
        text += (f"; df from de {shown(stats['df_effective'])}, "
                 f"p {p(stats[name + '_p_effective'])}")
    return text + ")"


def format_lca_text(report: dict) -> str:
    """The report as text in the layout of poLCA's print: class sizes, then one table per item
    (classes as rows, categories as columns, standard errors in parentheses), classification
    quality and fit statistics, then the notes."""
    model, stats = report["model"], report["fit_statistics"]
    classification = report["classification"]
    width = max(16, *(len(c) + 2 for item in report["items"].values()
                      for c in item["categories"]))
    lines = [f"latent class model: {model['classes']} classes, {len(model['items'])} items, "
             f"{model['n_cases']} cases ({model['estimate']}, Dirichlet alpha {model['alpha']:g})",
             "", "class sizes (standard error), expected and modal cases:"]
    lines += [f"  class {c['class']:<3} {_estimate(c['size'], c['size_se'])}  "
              f"{c['expected_cases']:10.1f} {c['modal_cases']:10d}" for c in report["classes"]]
    lines += ["", "item-response probabilities by class (rows) and category (columns), standard "
                  "errors in parentheses:"]
    for name, item in report["items"].items():
        lines.append(f"{name}")
        lines.append(" " * 11 + "".join(f" {c:>{width}}" for c in item["categories"]))
        for h, (row, errors) in enumerate(zip(item["probabilities"], item["standard_errors"])):
            lines.append(f"  class {h + 1:<3}"
                         + "".join(f" {_estimate(p, e):>{width}}" for p, e in zip(row, errors)))
    r2 = classification["entropy_r2"]
    lines += ["", f"classification: entropy {classification['entropy']:.4f}, entropy R^2 "
                  f"{'-' if r2 is None else f'{r2:.4f}'}; modal class counts "
                  + " / ".join(str(c) for c in classification["modal_class_counts"]),
              f"log-likelihood {stats['log_likelihood']:.4f}, {stats['n_parameters']} parameters "
              f"(de {'-' if model['de'] is None else model['de']})",
              f"AIC {stats['aic']:.4f}  BIC {stats['bic']:.4f}  SABIC {stats['sabic']:.4f}  "
              f"CAIC {stats['caic']:.4f}  (-2 log L + penalty: smaller is better)",
              _statistic(report, "g2", "G^2") + ", " + _statistic(report, "chi2", "Pearson X^2"),
              f"  {shown(stats['n_cells'])} cells, {stats['n_observed_cells']} observed, "
              f"{stats['n_complete_cases']} complete cases",
              f"standard errors: {report['standard_errors']}"]
    lines += [f"note: {note}" for note in report["notes"]]
    return "\n".join(lines)


def write_posteriors(path, posterior, modal, row_pattern=None, hidden=None) -> None:
    """Write each case's class posteriors and modal class as CSV, atomically.

    Columns ``row, p_class1, ..., p_classk, modal_class``: ``row`` numbers the input's data
    rows from 1 in input order, classes are numbered from 1 (the modal class of a tie is the
    first). ``posterior`` and ``modal`` are per pattern
    (:func:`~hiddenbn.inference.latent_class.pattern_posteriors`); the ``row_pattern`` map (one
    pattern index per input row) expands them to one line per row, without it there is one line per
    pattern. For a network with several hidden nodes, ``hidden`` maps each node's name to its ``(m,
    r)`` posterior (``posterior`` and ``modal`` are then ignored): columns ``p_NODE_1, ...,
    p_NODE_r, modal_NODE`` per node, states numbered from 1.

    The data's own columns are not repeated: joining on ``row`` recovers them (R's ``cbind``,
    pandas' ``concat``), the data file stays the one source of its values and labels, and the
    file stays small for 10^6 rows. Each pattern is formatted once and rows are written in blocks
    of :data:`CSV_CHUNK_ROWS`; a failed write leaves no file.
    """
    if hidden is None:
        blocks = [("p_class", "modal_class", np.asarray(posterior, dtype=float),
                   np.asarray(modal))]
    else:
        blocks = [(f"p_{name}_", f"modal_{name}", np.asarray(values, dtype=float),
                   modal_class(np.asarray(values, dtype=float)))
                  for name, values in hidden.items()]
    columns = np.column_stack([part for _, _, values, modal_states in blocks
                               for part in (values, modal_states + 1)])
    index = np.arange(columns.shape[0]) if row_pattern is None else np.asarray(row_pattern)
    # each pattern is formatted once: many rows share a pattern, and formatting costs the most
    formatted = io.StringIO()
    np.savetxt(formatted, columns, delimiter=",",
               fmt=[f for _, _, values, _ in blocks for f in ["%.6g"] * values.shape[1] + ["%d"]])
    lines = formatted.getvalue().splitlines()
    header = ",".join(["row"] + [name for prefix, modal_name, values, _ in blocks
                                 for name in [f"{prefix}{h + 1}" for h in range(values.shape[1])]
                                 + [modal_name]])
    with atomic_output(path) as temporary, open(temporary, "w") as handle:
        handle.write(header + "\n")
        for start in range(0, index.size, CSV_CHUNK_ROWS):
            rows = index[start:start + CSV_CHUNK_ROWS].tolist()
            handle.write("".join(f"{number},{lines[p]}\n"
                                 for number, p in enumerate(rows, start + 1)))
