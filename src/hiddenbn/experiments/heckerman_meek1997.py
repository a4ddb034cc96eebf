"""Heckerman & Meek (1997), paper 001: the dimension results (Figures 1 and 2, Secs. 4 and 6).

Figure 2 ("Some Bayesian networks and their EBNC dimensions") was lost; only its Section 6
panel is certain (FIGURES.md). It is rebuilt as panels from the networks the text discusses:
the Section 6 network, the naive-Bayes EBNC (Eq. 6), the Markov chain conditioned on ``Y``
(end of Sec. 6), the Section 6 structure with non-binary nodes and a trivial (full-table) EBNC,
with sizes and state counts from the config (reconstructed). One panel is ours: the smallest
kind of network we found whose EBNC is a curved subset of its span, where the paper's
constructions overstate the dimension (see :func:`hiddenbn.ebnc.ebnc_dimension`).

Every dimension is computed (:func:`hiddenbn.ebnc.ebnc_dimensions`); the paper's printed values
appear only in the "paper says" column, from :data:`PRINTED`.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from hiddenbn import ebnc, plots, seeding
from hiddenbn.files import atomic_output
from hiddenbn.models import Network
from hiddenbn.spec import parse_spec

SECTION_6_PARENTS = {"X1": [], "X2": [], "X3": [], "Y": ["X1", "X2"], "X4": ["X1", "X3", "Y"],
                     "X5": ["X2", "X3", "Y"]}

#: What paper 001 prints about each panel: (text, where, value for a panel's size n or None).
#: Used only for the "paper says" column of the table, never as an expected value.
PRINTED = {
    "section6": ("d = 1 + 1 + 2 + 3 + 4 + 4 = 15", "Sec. 6, after Eq. 18", lambda n: 15),
    "naive_bayes": ("phi_0..phi_n: n + 1", "Sec. 4, Eq. 6", lambda n: n + 1),
    "markov_chain": ("d = 1 + 1 + 2(n - 1) = 2n", "Sec. 6, last example", lambda n: 2 * n),
    "full_table": ("2^n for binary Y and X", "Sec. 2", lambda n: 2**n),
}


@dataclass(frozen=True)
class Panel:
    """One network of Figure 2: its EBNC is the local distribution of ``target``."""

    name: str
    title: str
    network: Network
    target: str
    size: int | None  # the n of the paper's formula, where it has one
    reconstructed: bool


def section6_network(states: dict | None = None) -> Network:
    """The Section 6 network (Eq. 10): Y <- X1, X2; X4 <- X1, X3, Y; X5 <- X2, X3, Y."""
    states = states or {}
    return parse_spec({"nodes": {name: {"states": int(states.get(name, 2)), "parents": parents}
                                 for name, parents in SECTION_6_PARENTS.items()}})


def naive_bayes_network(n: int) -> Network:
    """Figure 1b: binary Y with binary children X1..Xn (the naive-Bayes EBNC of Eq. 5)."""
    nodes = {"Y": {"states": 2}}
    nodes.update({f"X{i}": {"states": 2, "parents": ["Y"]} for i in range(1, n + 1)})
    return parse_spec({"nodes": nodes})


def markov_chain_network(n: int) -> Network:
    """Binary Y a parent of every X_i, and X1 -> X2 -> ... -> Xn (end of Sec. 6)."""
    nodes = {"Y": {"states": 2}}
    for i in range(1, n + 1):
        nodes[f"X{i}"] = {"states": 2, "parents": ["Y"] + ([f"X{i - 1}"] if i > 1 else [])}
    return parse_spec({"nodes": nodes})


def full_table_network(n: int) -> Network:
    """Figure 1a: binary Y with binary parents X1..Xn, the trivial EBNC (Sec. 2)."""
    nodes = {f"X{i}": {"states": 2} for i in range(1, n + 1)}
    nodes["Y"] = {"states": 2, "parents": list(nodes)}
    return parse_spec({"nodes": nodes})


def curved_network() -> Network:
    """4-state Y with a binary parent X1 and a binary child X4 that also has a parent X3.

    The tables of Y and X4 have 2 * 3 + 4 * 2 * 1 = 14 free parameters while the scopes {X1}
    and {X3, X4} span 3 * 5 = 15 log-odds dimensions, so the EBNC cannot fill its span.
    """
    return parse_spec({"nodes": {"X1": {"states": 2}, "X3": {"states": 2},
                                 "Y": {"states": 4, "parents": ["X1"]},
                                 "X4": {"states": 2, "parents": ["X3", "Y"]}}})


def figure2_panels(section: dict) -> list[Panel]:
    """The panels of Figure 2 from the config section ``heckerman_meek1997.figure2``."""
    n_bayes, n_chain, n_full = (section["naive_bayes_inputs"], section["markov_chain_inputs"],
                                section["full_table_inputs"])
    return [
        Panel("section6", "Section 6 network", section6_network(), "Y", None, False),
        Panel("naive_bayes", f"naive Bayes, n = {n_bayes}", naive_bayes_network(n_bayes), "Y",
              n_bayes, True),
        Panel("markov_chain", f"Markov chain given Y, n = {n_chain}",
              markov_chain_network(n_chain), "Y", n_chain, True),
        Panel("non_binary", "Section 6, non-binary", section6_network(section["non_binary_states"]),
              "Y", None, True),
        Panel("full_table", f"trivial EBNC, n = {n_full}", full_table_network(n_full), "Y",
              n_full, True),
        Panel("curved", "curved (not in the paper)", curved_network(), "Y", None, False),
    ]


def _equation_18_terms(network: Network, target: str) -> str:
    """Our Eq. 18 sum: ``eta_0``'s rank then each input's block rank, for all classes."""
    basis = ebnc.ebnc_basis(network, target)
    classes = basis.classifier.n_classes - 1
    ranks = [classes] + [rank * classes for rank in basis.block_ranks.values()]
    return " + ".join(str(r) for r in ranks)


#: SVD gaps (decades) at or above this are written as this value: beyond it the dropped singular
#: value is round-off, whose digits change with the BLAS thread count.
GAP_CAP_DECADES = 8.0


def _reproducible_gap(gap) -> float:
    """The gap rounded to 0.1 decade and capped at :data:`GAP_CAP_DECADES` (None: no check)."""
    if gap is None:
        return float("nan")
    return GAP_CAP_DECADES if gap >= GAP_CAP_DECADES else round(gap, 1)


def dimension_rows(panels: list[Panel], seed: int, points: int) -> list[dict]:
    """One table row per panel: every construction, the standard counts and the paper's value."""
    rows = []
    for panel in panels:
        rng = seeding.rng(seed, panel.name)
        summary = ebnc.ebnc_dimensions(panel.network, panel.target, rng, points)
        classifier = ebnc.embedded_classifier(panel.network, panel.target)
        inputs = [panel.network.cardinalities[i] for i in classifier.inputs]  # state counts
        printed = PRINTED.get(panel.name)
        paper_value = printed[2](panel.size) if printed else None
        notes = []
        if panel.reconstructed:
            notes.append("reconstructed panel (FIGURES.md)")
        if paper_value is not None and paper_value != summary.d:
            notes.append(f"differs from the paper's {paper_value}")
        notes += summary.warnings()
        rows.append({
            "panel": panel.name,
            "title": panel.title,
            "target": panel.target,
            "class_states": classifier.n_classes,
            "input_states": " ".join(f"{panel.network.names[i]}:{panel.network.cardinalities[i]}"
                                     for i in classifier.inputs),
            "embedded_parameters": panel.network.standard_dimension,
            "full_table": int(np.prod(inputs, dtype=np.int64)) * (classifier.n_classes - 1),
            "d": summary.d,
            "basis_size": summary.basis_size,
            "d_sec6_decomposition": summary.by_method["decomposition"],
            "d_sec4_exact": summary.by_method["exact"],
            "d_sec4_svd": summary.by_method["svd"],
            "d_jacobian_exact": summary.by_method["jacobian"],
            "d_jacobian_svd": summary.by_method["jacobian-svd"],
            "jacobian_svd_gap_decades": _reproducible_gap(summary.svd_gaps.get("jacobian-svd")),
            "eq18_terms": _equation_18_terms(panel.network, panel.target),
            "paper_says": printed[0] if printed else "",
            "paper_where": printed[1] if printed else "",
            "paper_value": "" if paper_value is None else paper_value,
            "agrees": "" if paper_value is None else ("yes" if paper_value == summary.d else "no"),
            "note": "; ".join(notes),
        })
    return rows


def write_csv_rows(path, rows: list[dict]) -> None:
    with atomic_output(path) as temporary, open(temporary, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


MARKDOWN_COLUMNS = [("title", "network"), ("class_states", "r_Y"), ("input_states", "input states"),
                    ("embedded_parameters", "embedded net params"), ("full_table", "full table"),
                    ("d_sec6_decomposition", "Sec. 6"), ("d_sec4_exact", "Sec. 4 exact"),
                    ("d_sec4_svd", "Sec. 4 SVD"), ("d_jacobian_exact", "Jacobian exact"),
                    ("d_jacobian_svd", "Jacobian SVD"), ("d", "**d (ours)**"),
                    ("eq18_terms", "Eq. 18 terms"), ("paper_says", "paper says"),
                    ("paper_value", "paper's d"), ("agrees", "agrees")]


def dimension_markdown(rows: list[dict], panels: list[Panel]) -> str:
    """The table as Markdown, with notes and each panel's basis phi (the softmax features)."""
    lines = [
        "# Paper 001 (Heckerman & Meek 1997): EBNC dimensions (Figure 2 rebuilt)",
        "",
        "d is the dimension of the EBNC of Y: the generic rank of the Jacobian of "
        "theta -> lambda (exact over GF(p) at random points, checked by SVD). The Sec. 4 "
        "(kappa -> lambda, Gaussian elimination) and Sec. 6 (eta -> psi, Eq. 18) columns are "
        "the paper's constructions: the dimension of the span of the log odds, which is the "
        "number of basis parameters phi. 'full table' is the trivial EBNC on the same inputs; "
        "'embedded net params' counts every table of the embedded network. The paper's values "
        "come from its text (the figure is lost) and are never used in the computation.",
        "",
        "| " + " | ".join(header for _, header in MARKDOWN_COLUMNS) + " |",
        "|" + "---|" * len(MARKDOWN_COLUMNS),
    ]
    for row in rows:
        lines.append("| " + " | ".join(str(row[key]) for key, _ in MARKDOWN_COLUMNS) + " |")
    lines += ["", "## Notes", ""]
    for row in rows:
        if row["note"]:
            lines.append(f"- **{row['title']}**: {row['note']}.")
    lines += ["", "## Non-redundant bases phi (Sec. 6, Eq. 19)", "",
              "lambda_k(x) = sum_f phi_{f,k} f(x) for each class k = 2..r_Y, with the features:",
              ""]
    for panel in panels:
        basis = ebnc.ebnc_basis(panel.network, panel.target)
        lines.append(f"- **{panel.title}** ({basis.n_features} features): "
                     + ", ".join(f"`{name}`" for name in basis.feature_names()))
    return "\n".join(lines) + "\n"


def draw_figure2(panels: list[Panel], rows: list[dict], path) -> None:
    """Figure 2 rebuilt: each network with its EBNC dimension (PNG + PDF)."""
    titled = []
    for letter, (panel, row) in zip("abcdefghij", zip(panels, rows, strict=True)):
        star = "*" if panel.reconstructed else ""
        span = "" if row["d"] == row["basis_size"] else f" (span {row['basis_size']})"
        titled.append((f"({letter}) {panel.title}{star}\nd = {row['d']}{span}", panel.network))
    with plots.network_panels(titled, path, columns=3) as (figure, _):
        figure.text(0.01, 0.0, "The number in a node is its number of states; d is the EBNC "
                    "dimension of Y. * reconstructed panel (the original figure is lost).",
                    fontsize=7)


def draw_figure1(n: int, path) -> None:
    """Figure 1: (a) Y with parents X1..Xn; (b) the naive-Bayes network embedded in (a)."""
    panels = [(f"(a) Y given X1..X{n}", full_table_network(n)),
              (f"(b) naive Bayes embedded in (a)", naive_bayes_network(n))]
    with plots.network_panels(panels, path, columns=2):
        pass


def write_dimension_outputs(section: dict, seed: int, points: int, table_csv, table_md,
                            figure2) -> None:
    """The dimension table (CSV + Markdown) and Figure 2 of paper 001."""
    panels = figure2_panels(section)
    rows = dimension_rows(panels, seed, points)
    write_csv_rows(table_csv, rows)
    with atomic_output(table_md) as temporary:
        Path(temporary).write_text(dimension_markdown(rows, panels))
    draw_figure2(panels, rows, figure2)
