"""Heckerman & Meek (1997), paper 001: the dimension results (Figures 1 and 2, Secs. 4 and 6).

Figure 2 ("Some Bayesian networks and their EBNC dimensions") was lost; only its Section 6
panel is certain (docs/RECONSTRUCTIONS.md). It is rebuilt as panels from the networks the text
discusses:
the Section 6 network, the naive-Bayes EBNC (Eq. 6), the Markov chain conditioned on ``Y``
(end of Sec. 6), the Section 6 structure with non-binary nodes and a trivial (full-table) EBNC,
with sizes and state counts from the config (reconstructed). One panel is ours: the smallest
kind of network we found whose EBNC is a curved subset of its span, where the paper's
constructions overstate the dimension (see :func:`hiddenbn.ebnc.ebnc_dimension`).

Every dimension is computed (:func:`hiddenbn.ebnc.ebnc_dimensions`); the paper's printed values
appear only in the "paper says" column, read from
``workflow/resources/heckerman_meek1997/dimensions.yaml`` (:func:`read_printed_dimensions`).
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.stats import spearmanr

from hiddenbn import ebnc, ebnc_fit, plots, seeding
from hiddenbn.errors import HiddenbnError
from hiddenbn.experiments.comparison import formula_value, markdown, read_printed
from hiddenbn.experiments.reproduction import compared, verdict_row, write_verdicts
from hiddenbn.files import atomic_output, atomic_write_text
from hiddenbn.models import Network, random_parameters
from hiddenbn.sampling import sample_dataset
from hiddenbn.spec import parse_spec

SECTION_6_PARENTS = {"X1": [], "X2": [], "X3": [], "Y": ["X1", "X2"], "X4": ["X1", "X3", "Y"],
                     "X5": ["X2", "X3", "Y"]}


@dataclass(frozen=True)
class Panel:
    """One network of Figure 2: its EBNC is the local distribution of ``target``."""

    name: str
    title: str
    network: Network
    target: str
    size: int | None  # the n of the paper's formula, where it has one
    reconstructed: bool


@dataclass(frozen=True)
class PrintedDimension:
    """What the paper prints about the EBNC dimension of a Figure 2 panel: its words, where
    they are printed, and the value as an integer formula in the panel's size n (``"2 ** n"``).

    Used only for the "paper says" column of the table, never as an expected value.
    """

    text: str
    where: str
    formula: str

    def value(self, n: int | None) -> int:
        """The printed value for a panel of size ``n`` (None: the panel has no size)."""
        return formula_value(self.formula, n)


def read_printed_dimensions(printed: dict) -> dict[str, PrintedDimension]:
    """Panel name -> what the paper prints about it, from ``printed`` (the mapping of
    ``workflow/resources/heckerman_meek1997/dimensions.yaml``)."""
    return {name: PrintedDimension(entry["text"], entry["where"], str(entry["value"]))
            for name, entry in printed["panels"].items()}


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


def dimension_rows(panels: list[Panel], printed: dict[str, PrintedDimension], seed: int,
                   points: int) -> list[dict]:
    """One table row per panel: every construction, the standard counts and the paper's value
    (``printed``, from :func:`read_printed_dimensions`)."""
    rows = []
    for panel in panels:
        rng = seeding.rng(seed, panel.name)
        summary = ebnc.ebnc_dimensions(panel.network, panel.target, rng, points)
        classifier = ebnc.embedded_classifier(panel.network, panel.target)
        inputs = [panel.network.cardinalities[i] for i in classifier.inputs]  # state counts
        paper = printed.get(panel.name)
        paper_value = paper.value(panel.size) if paper else None
        notes = []
        if panel.reconstructed:
            notes.append("reconstructed panel (docs/RECONSTRUCTIONS.md)")
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
            "paper_says": paper.text if paper else "",
            "paper_where": paper.where if paper else "",
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
        figure.text(0.01, -0.02, "The number in a node is its number of states; d is the EBNC "
                    "dimension of Y. * reconstructed panel (the original figure is lost).",
                    fontsize=7, va="top")


def figure1_panels(n: int) -> list[tuple[str, Network]]:
    """Figure 1: (a) Y with parents X1..Xn; (b) the naive-Bayes network embedded in (a)."""
    return [(f"(a) Y given X1..X{n}", full_table_network(n)),
            ("(b) naive Bayes embedded in (a)", naive_bayes_network(n))]


def draw_figure1(n: int, path) -> None:
    """Figure 1 (PNG + PDF): the panels of :func:`figure1_panels`."""
    with plots.network_panels(figure1_panels(n), path, columns=2):
        pass


# --- verdicts: printed numbers and the claims of Secs. 2, 4 and 6 -----------------------------
#: The reconstruction choice a verdict on a reconstructed panel rests on.
PANEL_CHOICE = ("the panel's network and size n, reconstructed from the text "
                "(docs/RECONSTRUCTIONS.md; other n: the printed formula's row for n in "
                "FORMULA_SIZES)")
#: The sizes n at which each printed formula is checked beyond the panel's own n: the formulas
#: are claimed for every n, and a network of up to 6 binary inputs is ranked in a second.
FORMULA_SIZES = range(2, 7)
#: The panel networks of a printed formula in n, by panel name.
FORMULA_NETWORKS = {"naive_bayes": naive_bayes_network, "markov_chain": markov_chain_network,
                    "full_table": full_table_network}


def formula_rows(printed: dict[str, PrintedDimension], seed: int, points: int) -> list[dict]:
    """Each printed formula in n (naive Bayes, Markov chain, trivial EBNC) against our EBNC
    dimension of its network at every n of :data:`FORMULA_SIZES`: reproduced when all agree."""
    rows = []
    for name, build in FORMULA_NETWORKS.items():
        entry = printed[name]
        ours = {n: ebnc.ebnc_dimensions(build(n), "Y", seeding.rng(seed, name, n), points).d
                for n in FORMULA_SIZES}
        wrong = [n for n, d in ours.items() if d != entry.value(n)]
        rows.append(verdict_row(
            entry.where, f"{entry.text}, for every n ({name.replace('_', ' ')} networks)", "",
            "; ".join(f"n = {n}: {d} (printed {entry.value(n)})" for n, d in ours.items()),
            "not reproduced" if wrong else "reproduced",
            f"computed: the dimension differs from the formula at n = "
            f"{', '.join(map(str, wrong))}" if wrong else "",
            choices=f"the network the text describes (docs/RECONSTRUCTIONS.md), at n = "
            f"{FORMULA_SIZES.start}..{FORMULA_SIZES.stop - 1}"))
    return rows


def dimension_verdicts(rows: list[dict], panels: list[Panel]) -> list[dict]:
    """Each panel with a printed dimension beside ours, for ``verdicts.csv``."""
    return [compared(row["paper_where"], f"EBNC dimension of Y, {row['title']}"
                     + (" (reconstructed panel)" if panel.reconstructed else "")
                     + f": {row['paper_says']}", row["paper_value"], row["d"],
                     _lambda_reason(panel, row) if row["d"] != row["basis_size"] else "",
                     choices=PANEL_CHOICE if panel.reconstructed else "")
            for panel, row in zip(panels, rows, strict=True) if row["paper_value"] != ""]


def lambda_parameters(network: Network, target: str) -> int:
    """The free parameters of the tables that enter the log odds of ``target`` (Eq. 7): its own
    table and its children's."""
    y = network.index(target)
    return sum(int(np.prod([network.cardinalities[p] for p in network.parents[i]], dtype=np.int64))
               * (network.cardinalities[i] - 1) for i in (y, *network.children(y)))


def _lambda_reason(panel: Panel, row: dict) -> str:
    """Why a panel's EBNC dimension is below the span of its log odds, computed."""
    count = lambda_parameters(panel.network, panel.target)
    return (f"computed: the Jacobian of theta -> lambda has rank {row['d']} at random points, "
            f"below the span {row['basis_size']} of the log odds that the Sec. 4 and Sec. 6 "
            f"constructions give; the tables entering lambda (Eq. 7) have {count} free "
            "parameters" + (f", fewer than {row['basis_size']}, so the EBNC cannot fill its "
                            "span" if count < row["basis_size"] else ""))


def theorem1_row(rows: list[dict], panels: list[Panel]) -> dict:
    """Theorem 1: the EBNC is a linear manifold, so its dimension is the span of its log odds
    (what Secs. 4 and 6 compute). Reproduced when every panel agrees; partly when only panels
    without a printed dimension disagree; not reproduced when a panel with one does."""
    failed = [(panel, row) for panel, row in zip(panels, rows, strict=True)
              if row["d"] != row["basis_size"]]
    in_paper = [panel.name for panel, row in failed if row["paper_value"] != ""]
    verdict = ("reproduced" if not failed else "not reproduced" if in_paper
               else "partly reproduced")
    return verdict_row(
        "Sec. 4 (Theorem 1)", "the image of theta -> lambda is a linear manifold: the EBNC "
        "dimension equals the span of its log odds", "",
        "d = span on " + (", ".join(p.title for p, r in zip(panels, rows)
                                    if r["d"] == r["basis_size"]) or "no panel")
        + ("; d < span on " + ", ".join(p.title for p, _ in failed) if failed else ""),
        verdict, "; ".join(f"{panel.title}: {_lambda_reason(panel, row)}"
                           for panel, row in failed),
        choices="the panels of Figure 2 (reconstructed, docs/RECONSTRUCTIONS.md; the curved "
        "panel is ours)")


def section6_rows(rows: list[dict], printed: dict) -> list[dict]:
    """Sec. 6 on its network: Eq. 18's terms as printed, and the same d by Sec. 4's method."""
    row = next(r for r in rows if r["panel"] == "section6")
    terms = printed["section6_terms"]
    ours = [int(t) for t in row["eq18_terms"].split(" + ")]
    same = int(row["d_sec6_decomposition"]) == int(row["d_sec4_exact"]) == int(row["d"])
    return [compared(terms["where"], "Eq. 18's terms for the Section 6 network: "
                     + terms["text"], " + ".join(map(str, terms["terms"])),
                     " + ".join(map(str, ours)),
                     "" if ours == terms["terms"] else "the ranks of the blocks differ"),
            verdict_row(terms["where"], "Sec. 6's decomposition and Sec. 4's method give the same "
                        "dimension for the Section 6 network", "",
                        f"Sec. 6 {row['d_sec6_decomposition']}, Sec. 4 {row['d_sec4_exact']}, "
                        f"Jacobian rank {row['d']}", "reproduced" if same else "not reproduced",
                        "" if same else "our two constructions give different numbers")]


def figure1_row(n: int, printed: dict) -> dict:
    """Sec. 2: the naive-Bayes network of Figure 1b has the printed number of parameters."""
    entry = printed["naive_bayes_parameters"]
    network = figure1_panels(n)[1][1]
    return compared(entry["where"], f"parameters of the naive-Bayes network of Figure 1b, n = {n}: "
                    + entry["text"], formula_value(entry["value"], n),
                    network.standard_dimension, "our network's parameter count differs",
                    choices="n, the number of inputs drawn (config heckerman_meek1997.figure2."
                    "naive_bayes_inputs)")


def figure_sections(rows: list[dict], panels: list[Panel], n: int, printed: dict) -> list[str]:
    """The figure sections of ``comparison.md``: what the paper's figure shows, what ours shows
    (counted from what was drawn) and a verdict."""
    (title_a, full), (title_b, naive) = figure1_panels(n)
    figure1 = figure1_row(n, printed)
    certain = next(r for r in rows if r["panel"] == "section6")
    rebuilt = [r for p, r in zip(panels, rows) if p.reconstructed]
    agreeing = [r["title"] for r in rebuilt if r["agrees"] == "yes"]
    differing = [r["title"] for r in rebuilt if r["agrees"] == "no"]
    drawn = pd.DataFrame([{"panel": f"({letter}) {p.title}", "reconstructed": p.reconstructed,
                           "nodes": p.network.n_nodes,
                           "arcs": sum(len(a) for a in p.network.parents),
                           "d": r["d"], "span": r["basis_size"],
                           "paper's d": r["paper_value"]}
                          for letter, p, r in zip("abcdefghij", panels, rows)])
    return [
        "## Figures", "",
        "### Figure 1: an EBNC (`figures/figure1.png`)", "",
        "- **The paper's figure** (Sec. 2; lost, known from its caption and text): (a) a node "
        "Y with parents X1..Xn; (b) the naive-Bayes network Y -> X1..Xn whose p(y | x) is "
        "embedded as Y's local distribution in (a); with binary nodes (a) needs 2^n parameters "
        "and (b) “" + printed["naive_bayes_parameters"]["text"] + "”.",
        f"- **Ours** (n = {n}): {title_a}: {full.n_nodes} nodes, "
        f"{sum(len(p) for p in full.parents)} arcs into Y, "
        f"{full.standard_dimension - n} parameters in Y's table; {title_b}: "
        f"{naive.n_nodes} nodes, {sum(len(p) for p in naive.parents)} arcs out of Y, "
        f"{naive.standard_dimension} parameters.",
        f"- **Verdict: {figure1['verdict']}**: the structures are the text's, and (b) has "
        f"{figure1['ours']} parameters against the printed {figure1['paper']}. The drawing is "
        "ours (the figure is lost).", "",
        "### Figure 2: some Bayesian networks and their EBNC dimensions (`figures/figure2.png`)",
        "",
        "- **The paper's figure** (Sec. 4; lost): several networks with the dimension of Y's "
        "EBNC, the number of states written in each node. Only the Section 6 network is known "
        "(all binary, d = 15, Sec. 6); the text also gives the naive-Bayes EBNC (n + 1), the "
        "Markov chain given Y (2n) and the trivial EBNC (2^n).",
        "- **Ours**: the Section 6 network, four panels reconstructed from the text and one "
        "of ours (curved), each titled with d, and with the span of the log odds where it "
        "differs; counted from the networks drawn:", "",
        markdown(drawn), "",
        "- **Verdict:** the one certain panel is **"
        + ("reproduced" if certain["agrees"] == "yes" else "not reproduced")
        + f"** (d = {certain['d']}); the reconstructed panels with a printed formula agree for "
        + ("; ".join(agreeing) or "none") + (f" and differ for {'; '.join(differing)}"
                                             if differing else "")
        + ". Panels, sizes and state counts beyond the Section 6 network are our "
        "reconstruction, so the figure as a whole cannot be compared.", ""]


def comparison_markdown(rows: list[dict], panels: list[Panel], n: int, printed: dict,
                        claims: list[dict]) -> str:
    """``comparison.md``: the dimension table, the ``claims`` judged (verdict rows), and a
    section per figure."""
    claims = pd.DataFrame(claims)
    return "\n".join([
        "# Heckerman & Meek (1997), paper 001: EBNC dimensions compared with the paper", "",
        "Every EBNC dimension is computed three ways (Sec. 4's Gaussian elimination, Sec. 6's "
        "decomposition, and the Jacobian rank of theta -> lambda); the paper's values come from "
        "its text and are never used in the computation. The full table, with every "
        "construction and the non-redundant bases phi, is `tables/ebnc_dimensions.md`:", "",
        markdown(pd.DataFrame(rows)[[key for key, _ in MARKDOWN_COLUMNS]].rename(
            columns=dict(MARKDOWN_COLUMNS))), "",
        "## Claims", "",
        markdown(claims[["where", "item", "paper", "ours", "verdict", "explanation"]]), "",
        *figure_sections(rows, panels, n, printed),
    ]) + "\n"


def write_dimension_results(section: dict, seed: int, points: int, printed, directory) -> None:
    """Paper 001's dimension results under ``directory`` (the Snakemake rule
    ``heckerman_meek1997_dimensions``): ``tables/ebnc_dimensions`` (CSV + Markdown), Figures 1
    and 2 (``figures/``, PNG + PDF), ``comparison.md`` and ``verdicts.csv`` with the printed
    numbers of the YAML file ``printed`` beside ours."""
    directory = Path(directory)
    paper = read_printed(printed)
    panels = figure2_panels(section)
    rows = dimension_rows(panels, read_printed_dimensions(paper), seed, points)
    write_csv_rows(directory / "tables" / "ebnc_dimensions.csv", rows)
    atomic_write_text(directory / "tables" / "ebnc_dimensions.md", dimension_markdown(rows, panels))
    n = section["naive_bayes_inputs"]
    draw_figure1(n, directory / "figures" / "figure1")
    draw_figure2(panels, rows, directory / "figures" / "figure2")
    claims = (section6_rows(rows, paper) + formula_rows(read_printed_dimensions(paper), seed, points)
              + [figure1_row(n, paper), theorem1_row(rows, panels)])
    atomic_write_text(directory / "comparison.md",
                      comparison_markdown(rows, panels, n, paper, claims))
    write_verdicts(dimension_verdicts(rows, panels) + claims, directory / "verdicts.csv")


# --- the learning study the paper asks for (Sec. 1: "Experiments are needed ...") -----------
#: The true local distribution of Y in each synthetic study.
STUDY_CASES = ("ebnc", "full_table", "noisy_or")
CASE_LABELS = {"ebnc": "(a) EBNC of the Section 6 network", "full_table": "(b) full table",
               "noisy_or": "(c) noisy-or"}
#: Learners compared on held-out data; every discriminative one predicts with its MAP phi.
LEARNERS = ("ebnc_laplace", "ebnc_bic", "true_structure", "full_table", "naive_bayes",
            "logistic")
LEARNER_LABELS = {"ebnc_laplace": "EBNC selected by Laplace", "ebnc_bic": "EBNC selected by BIC",
                  "true_structure": "EBNC of the true structure (oracle)",
                  "full_table": "full table (BD predictive)",
                  "naive_bayes": "naive Bayes (generative)",
                  "logistic": "logistic regression (all inputs)"}
#: The look of each learner's curves: the score's own colour and marker (hiddenbn.plots) where a
#: score selects the EBNC, a colour of the non-score palette otherwise; the oracle is dashed.
LEARNER_STYLES = {
    "ebnc_laplace": {**plots.score_style("laplace", 3), "linestyle": "-"},
    "ebnc_bic": {**plots.score_style("bic", 3), "linestyle": "-"},
    "true_structure": {"color": plots.PALETTE[3], "marker": "s", "markersize": 3,
                       "linestyle": "--"},
    "full_table": {"color": plots.PALETTE[1], "marker": "D", "markersize": 3, "linestyle": "-"},
    "naive_bayes": {"color": plots.PALETTE[2], "marker": "^", "markersize": 3, "linestyle": "-"},
    "logistic": {"color": plots.PALETTE[0], "marker": "P", "markersize": 3, "linestyle": "-"},
}
#: Inputs that matter in each case (the rest are irrelevant noise inputs).
RELEVANT_INPUTS = {"ebnc": 5, "full_table": 3, "noisy_or": 4}


def study_network(case: str, n_inputs: int) -> Network:
    """The generating network over Y and X1..Xn (binary) of a study case.

    (a) the Section 6 network; (b) Y with parents X1..X3 and a full table; (c) Y with parents
    X1..X4 and a noisy-or table. Inputs beyond the relevant ones are independent roots.
    """
    relevant = RELEVANT_INPUTS[case]
    if n_inputs < relevant:
        raise HiddenbnError(f"study case {case!r} needs at least {relevant} inputs; raise "
                            "heckerman_meek1997.study.inputs")
    if case == "ebnc":
        parents = dict(SECTION_6_PARENTS)
    else:
        parents = {f"X{i}": [] for i in range(1, relevant + 1)}
        parents["Y"] = list(parents)
    parents.update({f"X{i}": [] for i in range(relevant + 1, n_inputs + 1)})
    return parse_spec({"nodes": {name: {"states": 2, "parents": p}
                                 for name, p in parents.items()}})


def noisy_or_table(rng: np.random.Generator, n_causes: int) -> np.ndarray:
    """``p(Y | X1..Xn)`` of a noisy-or: leak 0.05, link probabilities uniform on (0.5, 0.9)."""
    links = rng.uniform(0.5, 0.9, n_causes)
    configurations = np.indices((2,) * n_causes).reshape(n_causes, -1).T
    off = 0.95 * np.prod(np.where(configurations == 1, 1 - links, 1.0), axis=1)
    return np.column_stack([off, 1 - off])


def study_parameters(case: str, network: Network, rng: np.random.Generator) -> list:
    """Uniform-Dirichlet tables; case (c) replaces Y's table by a noisy-or."""
    cpts = random_parameters(network, rng, 1.0)
    if case == "noisy_or":
        y = network.index("Y")
        cpts[y] = noisy_or_table(rng, len(network.parents[y]))
    return cpts


def _prediction_columns(data, names) -> np.ndarray:
    return data.patterns[:, [data.names.index(name) for name in names]].astype(np.int64)


def ebnc_predict(network: Network, phi, test) -> np.ndarray:
    """``p(Y | x)`` of the EBNC of ``Y`` in ``network`` at the test patterns."""
    basis = ebnc.ebnc_basis(network, "Y")
    return ebnc_fit.predict(phi, basis.design_matrix(
        _prediction_columns(test, basis.classifier.input_names)))


def true_conditional(network: Network, cpts, test) -> np.ndarray:
    """The generating ``p(Y | x)`` at the test patterns (Eq. 4 holds for any embedded network)."""
    names = ebnc.embedded_classifier(network, "Y").input_names
    return ebnc.class_probabilities(ebnc.log_odds(network, cpts, "Y",
                                                  _prediction_columns(test, names)))


def naive_bayes_predict(train, test, inputs, cards) -> np.ndarray:
    """Generative naive Bayes with Dirichlet(1) predictive tables (the BD posterior mean)."""
    classes = cards["Y"]
    log_joint = np.log(ebnc_fit.full_table_predict(train, "Y", (), cards,
                                                   np.zeros((1, 0))))[0][None, :]
    log_joint = np.repeat(log_joint, test.n_patterns, axis=0)
    for name in inputs:
        given_class = ebnc_fit.full_table_predict(train, name, ("Y",), cards,
                                                  np.arange(classes)[:, None])
        states = _prediction_columns(test, [name])[:, 0]
        log_joint += np.log(given_class[:, states]).T
    return ebnc.class_probabilities(log_joint[:, 1:] - log_joint[:, :1])


def held_out(probabilities, test) -> tuple[float, float]:
    """Mean log-loss (nats per case) and accuracy of ``p(Y | x)`` on the test patterns."""
    y = _prediction_columns(test, ["Y"])[:, 0]
    weights = test.counts / test.counts.sum()
    picked = probabilities[np.arange(len(y)), y]
    loss = -float(weights @ np.log(picked))
    correct = np.argmax(probabilities, axis=1) == y
    return loss, float(weights @ correct)


def same_ebnc(first: Network, second: Network, inputs) -> bool:
    """Whether two embedded networks define the same EBNC of Y: equal spans of log odds."""
    configurations = np.indices((2,) * len(inputs)).reshape(len(inputs), -1).T

    def design(network):
        basis = ebnc.ebnc_basis(network, "Y")
        order = [list(inputs).index(name) for name in basis.classifier.input_names]
        return basis.design_matrix(configurations[:, order])

    a, b = design(first), design(second)
    rank = np.linalg.matrix_rank
    return rank(a) == rank(b) == rank(np.hstack([a, b]))


def study_replicate(case: str, size: int, replicate: int, section: dict, seed: int):
    """One data set of the study: every learner's held-out scores and both selections."""
    study = section["study"]
    n_inputs = study["inputs"]
    # the truth depends on the replicate only, so that each curve follows one truth over N
    network = study_network(case, n_inputs)
    cpts = study_parameters(case, network, seeding.rng(seed, case, "truth", replicate))
    rng = seeding.rng(seed, case, size, replicate)
    train = sample_dataset(network, cpts, size, rng)
    test = sample_dataset(network, cpts, section["test_cases"], rng)
    inputs = [f"X{i}" for i in range(1, n_inputs + 1)]
    cards = {name: 2 for name in ["Y"] + inputs}
    cache: dict = {}
    selections = {score: ebnc_fit.select_embedded_network(
        train, "Y", inputs, score, study["prior_sd"], study["max_parents"], cache)
        for score in ebnc_fit.SCORES}
    truth = ebnc_fit.score_ebnc(network, "Y", train, study["prior_sd"])
    logistic = naive_bayes_network_on(inputs)
    predictions = {
        "truth": true_conditional(network, cpts, test),
        "ebnc_laplace": ebnc_predict(cache_network(selections["laplace"]),
                                     selections["laplace"].score.map_fit.phi, test),
        "ebnc_bic": ebnc_predict(cache_network(selections["bic"]),
                                 selections["bic"].score.map_fit.phi, test),
        "true_structure": ebnc_predict(network, truth.map_fit.phi, test),
        "full_table": ebnc_fit.full_table_predict(train, "Y", inputs, cards,
                                                  _prediction_columns(test, inputs)),
        "naive_bayes": naive_bayes_predict(train, test, inputs, cards),
        "logistic": ebnc_predict(logistic, ebnc_fit.score_ebnc(
            logistic, "Y", train, study["prior_sd"]).map_fit.phi, test),
    }
    learner_rows = []
    for learner in ("truth",) + LEARNERS:
        loss, accuracy = held_out(predictions[learner], test)
        learner_rows.append({"case": case, "n": size, "replicate": replicate,
                             "learner": learner, "log_loss": loss, "accuracy": accuracy})
    # held-out log-likelihood of every model either search scored, for rank agreement
    held = {key: -held_out(ebnc_predict(net, s.map_fit.phi, test), test)[0]
            for key, (net, s) in cache.items()}
    true_inputs = {f"X{i}" for i in range(1, RELEVANT_INPUTS[case] + 1)}
    selection_rows = []
    for score, selection in selections.items():
        values = [s.value(score) for _, s in cache.values()]
        rho = spearmanr(values, list(held.values())).statistic if len(values) > 2 else np.nan
        best_held = max(held.values())
        selection_rows.append({
            "case": case, "n": size, "replicate": replicate, "score": score,
            "inputs": " ".join(selection.inputs),
            "inputs_recovered": set(selection.inputs) == true_inputs,
            "network_recovered": (same_ebnc(cache_network(selection), network, inputs)
                                  if case != "noisy_or" else np.nan),
            "d": selection.score.d, "true_d": truth.d,
            # the true structure outscores the selection: the greedy search stopped short
            "search_missed_truth": truth.value(score) > selection.value + 1e-9,
            "held_out_regret": best_held - held[_selection_key(selection)],
            "spearman_score_vs_held_out": rho, "models_scored": len(cache)})
    return learner_rows, selection_rows


def naive_bayes_network_on(inputs) -> Network:
    """Y -> every input: its EBNC is logistic regression on the input indicators (Eq. 6)."""
    return parse_spec({"nodes": {"Y": {"states": 2}} | {
        name: {"states": 2, "parents": ["Y"]} for name in inputs}})


def _selection_key(selection) -> tuple:
    return next(key for key, (_, s) in selection.visited.items() if s is selection.score)


def cache_network(selection) -> Network:
    """The embedded network of a selection (the one its score was computed on)."""
    return selection.visited[_selection_key(selection)][0]


def run_study_case(case: str, size: int, section: dict, seed: int, learners_csv,
                   selections_csv) -> None:
    """Every replicate of one study case at one training size (one batched job); ``seed`` is
    the case's, so each replicate's truth is the same at every size."""
    learner_rows, selection_rows = [], []
    for replicate in range(section["replicates"]):
        learners, selections = study_replicate(case, size, replicate, section, seed)
        learner_rows += learners
        selection_rows += selections
    write_csv_rows(learners_csv, learner_rows)
    write_csv_rows(selections_csv, selection_rows)


# --- summaries of the study ------------------------------------------------------------------
def learning_curve_table(learners: pd.DataFrame) -> pd.DataFrame:
    """Mean, s.d. and count of held-out log-loss and accuracy per case, size and learner."""
    grouped = learners.groupby(["case", "n", "learner"])
    table = grouped[["log_loss", "accuracy"]].agg(["mean", "std"])
    table.columns = [f"{metric}_{stat}" for metric, stat in table.columns]
    table["replicates"] = grouped.size()
    return table.reset_index()


def selection_table(selections: pd.DataFrame) -> pd.DataFrame:
    """Per case, size and score: how often the true inputs / embedded network were recovered,
    the mean selected dimension, the held-out regret and the score-vs-held-out rank agreement."""
    grouped = selections.groupby(["case", "n", "score"])
    table = grouped.agg(inputs_recovered=("inputs_recovered", "mean"),
                        network_recovered=("network_recovered", "mean"),
                        mean_d=("d", "mean"), true_d=("true_d", "first"),
                        search_missed_truth=("search_missed_truth", "mean"),
                        mean_held_out_regret=("held_out_regret", "mean"),
                        mean_spearman=("spearman_score_vs_held_out", "mean"),
                        replicates=("replicate", "count"))
    return table.reset_index()


def with_excess_log_loss(learners: pd.DataFrame) -> pd.DataFrame:
    """Adds ``excess_log_loss``: a learner's held-out log-loss minus the true distribution's
    on the same test set (the KL divergence from the truth, estimated on the test cases)."""
    truth = learners[learners.learner == "truth"].set_index(["case", "n", "replicate"]).log_loss
    reference = truth.reindex(pd.MultiIndex.from_frame(learners[["case", "n", "replicate"]]))
    return learners.assign(excess_log_loss=learners.log_loss.to_numpy() - reference.to_numpy())


def draw_learning_curves(learners: pd.DataFrame, path) -> None:
    """Held-out excess log-loss (over the true distribution's) and accuracy against training
    size, mean ± s.d. over replicates; the truth's accuracy is the dotted line."""
    import matplotlib.pyplot as plt

    learners = with_excess_log_loss(learners)
    cases = [case for case in STUDY_CASES if case in set(learners.case)]
    with plots.style():
        figure, axes = plt.subplots(2, len(cases), figsize=(3.4 * len(cases), 5.6),
                                    squeeze=False)
        for column, case in enumerate(cases):
            cell = learners[learners.case == case]
            truth = cell[cell.learner == "truth"].groupby("n").accuracy.mean()
            axes[1][column].plot(truth.index, truth, color="black", linestyle=":",
                                 label="true distribution")
            for learner in LEARNERS:
                summary = (cell[cell.learner == learner].groupby("n")
                           [["excess_log_loss", "accuracy"]].agg(["mean", "std"]))
                look = {**LEARNER_STYLES[learner], "label": LEARNER_LABELS[learner]}
                for row, metric in enumerate(("excess_log_loss", "accuracy")):
                    ax = axes[row][column]
                    mean, sd = summary[(metric, "mean")], summary[(metric, "std")].fillna(0)
                    ax.plot(summary.index, mean, **look)
                    ax.fill_between(summary.index, mean - sd, mean + sd, color=look["color"],
                                    alpha=0.12, linewidth=0)
            axes[0][column].set_title(CASE_LABELS[case])
            for row in range(2):
                axes[row][column].set_xscale("log")
                axes[row][column].set_xticks(sorted(set(cell.n)), labels=sorted(set(cell.n)))
                axes[row][column].minorticks_off()
                axes[row][column].set_xlabel("training cases N")
        axes[0][0].set_ylabel("held-out log-loss − truth's (nats/case)")
        axes[1][0].set_ylabel("held-out accuracy")
        # one legend for every panel, below them, so that no curve is hidden under it
        handles, labels = axes[1][0].get_legend_handles_labels()
        figure.legend(handles, labels, loc="lower center", ncol=4, bbox_to_anchor=(0.5, 0.0))
        figure.tight_layout(rect=(0, 0.6 / figure.get_figheight(), 1, 1))
        plots.save_figure(figure, path)


def _mean_by(frame: pd.DataFrame, column: str, keys) -> dict:
    return frame.groupby(keys)[column].mean().to_dict()


def study_findings(learners: pd.DataFrame, selections: pd.DataFrame) -> str:
    """``findings.md``: what the study shows, every statement computed from the results."""
    largest, smallest = learners.n.max(), learners.n.min()
    loss = _mean_by(learners, "log_loss", ["case", "n", "learner"])
    lines = ["# Paper 001 (Heckerman & Meek 1997): do EBNCs help in practice?", "",
             "Paper 001 ends: \"Experiments are needed to determine whether the models presented "
             "in this paper are useful in practice.\" This study learns the local distribution "
             "of a binary Y from binary inputs (some irrelevant) where the truth is (a) an EBNC "
             "of the Section 6 network, (b) a full table on three inputs, (c) a noisy-or of four "
             "inputs. EBNCs are selected by greedy search over embedded networks scored by "
             "Laplace (Eq. 8, normal prior on phi) or BIC (Eq. 9, d = the EBNC dimension), and "
             "compared on held-out data with the full table, generative naive Bayes and "
             "logistic regression on all inputs. Every statement below is computed from "
             "`tables/study_learning_curves.csv` and `tables/study_selection.csv`.", "",
             "## In short", ""]
    sizes = sorted(set(learners.n))
    cases = [c for c in STUDY_CASES if c in set(learners.case)]
    for case in cases:
        wins = {other: sum(loss[(case, n, "ebnc_laplace")] < loss[(case, n, other)]
                           for n in sizes)
                for other in ("full_table", "naive_bayes", "logistic")}
        lines.append(f"- {CASE_LABELS[case]}: the Laplace-selected EBNC has a lower mean "
                     f"held-out log-loss than the full table at {wins['full_table']}, than "
                     f"naive Bayes at {wins['naive_bayes']} and than logistic regression at "
                     f"{wins['logistic']} of {len(sizes)} training sizes.")
    lines += ["", "## Held-out log-loss", ""]
    for case in cases:
        for n in (smallest, largest):
            ranked = sorted(LEARNERS, key=lambda learner: loss[(case, n, learner)])
            best = [learner for learner in ranked if learner != "true_structure"][0]
            lines.append(
                f"- {CASE_LABELS[case]}, N = {n}: best learner without the oracle is "
                f"**{LEARNER_LABELS[best]}** ({loss[(case, n, best)]:.4f} nats); EBNC (Laplace) "
                f"{loss[(case, n, 'ebnc_laplace')]:.4f}, full table "
                f"{loss[(case, n, 'full_table')]:.4f}, naive Bayes "
                f"{loss[(case, n, 'naive_bayes')]:.4f}, logistic "
                f"{loss[(case, n, 'logistic')]:.4f}, oracle "
                f"{loss[(case, n, 'true_structure')]:.4f}, true distribution "
                f"{loss[(case, n, 'truth')]:.4f}.")
    wins = learners.pivot_table(index=["case", "n", "replicate"], columns="learner",
                                values="log_loss")
    ebnc_best = (wins["ebnc_laplace"] <= wins[["full_table", "naive_bayes", "logistic"]]
                 .min(axis=1))
    lines += ["", f"Over all data sets, the Laplace-selected EBNC has the lowest held-out "
              f"log-loss of the non-oracle baselines (full table, naive Bayes, logistic) in "
              f"{ebnc_best.mean():.0%} of {len(ebnc_best)} data sets.", "",
              "## Selection: inputs and embedded network", ""]
    table = selection_table(selections)
    for _, row in table[table.n.isin([smallest, largest])].iterrows():
        network = ("" if np.isnan(row.network_recovered) else
                   f", same EBNC as the truth {row.network_recovered:.0%}")
        lines.append(f"- {CASE_LABELS[row.case]}, N = {row.n}, {row.score}: true inputs "
                     f"selected {row.inputs_recovered:.0%}{network}; mean selected d "
                     f"{row.mean_d:.1f} (true structure {row.true_d}); the true structure "
                     f"scores higher than the selection (a search failure) in "
                     f"{row.search_missed_truth:.0%}.")
    regret = _mean_by(selections, "held_out_regret", ["score"])
    rho = _mean_by(selections, "spearman_score_vs_held_out", ["score"])
    better = (selections.pivot_table(index=["case", "n", "replicate"], columns="score",
                                     values="held_out_regret"))
    laplace_better = (better["laplace"] < better["bic"]).mean()
    bic_better = (better["bic"] < better["laplace"]).mean()
    lines += ["", "## Laplace against BIC", "",
              f"- Rank agreement (Spearman) between each score and the held-out log-likelihood "
              f"over every embedded network the searches scored, mean over data sets: Laplace "
              f"{rho['laplace']:.2f}, BIC {rho['bic']:.2f}.",
              f"- Held-out regret of the selected model (best scored model's held-out "
              f"log-likelihood minus the selected one's, nats per test case, mean): Laplace "
              f"{regret['laplace']:.2f}, BIC {regret['bic']:.2f}; Laplace's choice is better "
              f"in {laplace_better:.0%} of data sets, BIC's in {bic_better:.0%}.", "",
              "## Caveats", "",
              "- Predictions of every discriminative learner use the MAP phi under the same "
              "normal prior (plain ML diverges when small training sets separate the classes); "
              "'logistic regression' is therefore mildly regularised.",
              "- BIC's d is the size of the basis (the span of the log odds), which Theorem 1 "
              "says is the EBNC dimension. Every class here is binary, and no binary-class panel "
              "of Figure 2 has a Jacobian rank below its span (`comparison.md`); that this holds "
              "for every embedded network the searches score is an assumption, not checked per "
              "network (a 4-state class can fall below its span).",
              "- Greedy search (from the empty and from the naive-Bayes network) finds local "
              "optima; 'same EBNC' compares spans of the log odds, so Markov-equivalent "
              "embedded networks count as recovered.", "", *learning_curve_section(learners)]
    return "\n".join(lines) + "\n"


def learning_curve_section(learners: pd.DataFrame) -> list[str]:
    """The figure section of ``findings.md`` for ``figures/learning_curves.png``: what the
    curves show, computed from the same data (there is no figure of the paper's to compare)."""
    excess = with_excess_log_loss(learners)
    mean = excess.groupby(["case", "n", "learner"]).excess_log_loss.mean()
    sizes = sorted(set(excess.n))
    lines = ["## Figure: learning curves (`figures/learning_curves.png`)", "",
             "- **The paper's figure**: none; the paper runs no experiment (\"Experiments are "
             "needed to determine whether the models presented in this paper are useful in "
             "practice\").",
             f"- **Ours**: per case (columns), the held-out log-loss above the true "
             f"distribution's (top) and the held-out accuracy (bottom) of each learner against "
             f"the training size N = {', '.join(map(str, sizes))}, mean ± s.d. over "
             f"{excess.replicate.nunique()} data sets. Read from the plotted means:"]
    for case in [c for c in STUDY_CASES if c in set(excess.case)]:
        at = {n: {learner: mean[(case, n, learner)] for learner in LEARNERS} for n in sizes}
        best = min((learner for learner in LEARNERS if learner != "true_structure"),
                   key=lambda learner: at[sizes[-1]][learner])
        falls = [LEARNER_LABELS[learner] for learner in ("ebnc_laplace", "ebnc_bic")
                 if at[sizes[-1]][learner] < at[sizes[0]][learner]]
        lines.append(f"  - {CASE_LABELS[case]}: lowest excess log-loss at N = {sizes[-1]} "
                     f"without the oracle: {LEARNER_LABELS[best]} "
                     f"({at[sizes[-1]][best]:.4f} nats); the excess falls from N = {sizes[0]} "
                     f"to {sizes[-1]} for " + (" and ".join(falls) or "neither selected EBNC")
                     + ".")
    lines += ["- **Verdict**: none; the paper has no figure or result to compare, so these are "
              "findings beyond it.", ""]
    return lines


def write_study_report(learner_files, selection_files, curves_csv, selection_csv, findings,
                        figure) -> None:
    """Tables, learning curves (PNG + PDF) and findings.md from the per-case job outputs."""
    learners = pd.concat([pd.read_csv(path) for path in learner_files], ignore_index=True)
    selections = pd.concat([pd.read_csv(path) for path in selection_files], ignore_index=True)
    for frame, path in ((learning_curve_table(learners), curves_csv),
                        (selection_table(selections), selection_csv)):
        with atomic_output(path) as temporary:
            frame.to_csv(temporary, index=False, float_format="%.6g")
    atomic_write_text(findings, study_findings(learners, selections))
    draw_learning_curves(learners, figure)
