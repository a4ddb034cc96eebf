"""Paper 001 dimension outputs: the table's content and the figures, on a small config."""

import csv
from pathlib import Path

import pytest
import yaml

from hiddenbn.experiments import heckerman_meek1997
from hiddenbn.experiments.comparison import formula_value

SECTION = {"naive_bayes_inputs": 3, "markov_chain_inputs": 3, "full_table_inputs": 2,
           "non_binary_states": {"X1": 3, "Y": 3}}
PRINTED = (Path(__file__).resolve().parents[1] / "workflow" / "resources" / "heckerman_meek1997"
           / "dimensions.yaml")
#: The size n of each panel with a printed formula, from SECTION.
PANEL_SIZES = {"section6": None, "naive_bayes": 3, "markov_chain": 3, "full_table": 2}


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    directory = tmp_path_factory.mktemp("hm97")
    heckerman_meek1997.write_dimension_results(SECTION, seed=5, points=2, printed=PRINTED,
                                               directory=directory)
    with open(directory / "tables" / "ebnc_dimensions.csv") as handle:
        rows = {row["panel"]: row for row in csv.DictReader(handle)}
    return directory, rows, (directory / "tables" / "ebnc_dimensions.md").read_text()


def test_every_construction_agrees_on_every_panel_but_the_curved_one(outputs):
    _, rows, _ = outputs
    assert set(rows) == {"section6", "naive_bayes", "markov_chain", "non_binary", "full_table",
                         "curved"}
    for name, row in rows.items():
        linear = {row[k] for k in ("d_sec6_decomposition", "d_sec4_exact", "d_sec4_svd")}
        assert linear == {row["basis_size"]}
        assert row["d"] == row["d_jacobian_exact"] == row["d_jacobian_svd"]
        assert sum(int(t) for t in row["eq18_terms"].split(" + ")) == int(row["basis_size"])
        if name == "curved":
            assert int(row["d"]) < int(row["basis_size"]) and "curved" in row["note"]
        else:
            assert row["d"] == row["basis_size"]


def test_paper_column_is_filled_from_the_printed_file_only(outputs):
    _, rows, markdown = outputs
    printed = yaml.safe_load(PRINTED.read_text())["panels"]
    for name, row in rows.items():
        if name in printed:
            assert row["paper_says"] == printed[name]["text"]
            assert row["paper_where"] == printed[name]["where"]
            assert row["agrees"] == ("yes" if row["paper_value"] == row["d"] else "no")
        else:
            assert row["paper_says"] == row["agrees"] == ""
    assert rows["section6"]["note"] == ""  # the one certain panel is not marked reconstructed
    assert "reconstructed" in rows["naive_bayes"]["note"]
    assert markdown.count("\n| ") == len(rows) + 1  # header + one line per panel
    assert "Non-redundant bases phi" in markdown


def test_every_printed_dimension_is_in_the_verdicts(outputs):
    directory, _, _ = outputs
    with open(directory / "verdicts.csv") as handle:
        verdicts = list(csv.DictReader(handle))
    printed = yaml.safe_load(PRINTED.read_text())
    assert set(printed["panels"]) == set(PANEL_SIZES)
    for name, entry in printed["panels"].items():
        matching = [v for v in verdicts if v["item"].endswith(f": {entry['text']}")]
        assert len(matching) == 1, name
        assert matching[0]["where"] == entry["where"]
        assert matching[0]["paper"] == str(formula_value(entry["value"], PANEL_SIZES[name]))
    terms = [v for v in verdicts if v["item"].startswith("Eq. 18's terms")]
    assert [v["paper"] for v in terms] == [" + ".join(map(str, printed["section6_terms"]["terms"]))]
    parameters = [v for v in verdicts if v["item"].startswith("parameters of the naive-Bayes")]
    assert [v["paper"] for v in parameters] == [str(formula_value(
        printed["naive_bayes_parameters"]["value"], SECTION["naive_bayes_inputs"]))]
    assert {v["verdict"] for v in verdicts} == {"reproduced", "partly reproduced"}


def test_figures_and_comparison_are_written(outputs):
    directory, _, _ = outputs
    for name in ("figure1", "figure2"):
        for suffix in (".png", ".pdf"):
            assert (directory / "figures" / f"{name}{suffix}").stat().st_size > 1000
    comparison = (directory / "comparison.md").read_text()
    for heading in ("## Claims", "### Figure 1: an EBNC (`figures/figure1.png`)",
                    "### Figure 2: some Bayesian networks"):
        assert heading in comparison


# --- every check fails where its claim is false --------------------------------------------
def rows_and_panels(outputs):
    _, rows, _ = outputs
    panels = heckerman_meek1997.figure2_panels(SECTION)
    return [dict(rows[p.name], d=int(rows[p.name]["d"]),
                 basis_size=int(rows[p.name]["basis_size"]),
                 paper_value=rows[p.name]["paper_value"] and int(rows[p.name]["paper_value"]))
            for p in panels], panels


def test_printed_dimensions_fail_where_the_printed_value_differs(outputs):
    rows, panels = rows_and_panels(outputs)
    assert {v["verdict"] for v in heckerman_meek1997.dimension_verdicts(rows, panels)} == {
        "reproduced"}
    changed = [dict(r, paper_value=r["paper_value"] + 1) if r["panel"] == "markov_chain" else r
               for r in rows]
    verdicts = {v["item"].split(":")[0]: v["verdict"]
                for v in heckerman_meek1997.dimension_verdicts(changed, panels)}
    assert verdicts["EBNC dimension of Y, Markov chain given Y, n = 3 (reconstructed panel)"] == \
        "not reproduced"


def test_theorem1_holds_on_the_paper_panels_and_fails_on_a_paper_panel_below_its_span(outputs):
    rows, panels = rows_and_panels(outputs)
    paper = [(r, p) for r, p in zip(rows, panels) if r["paper_value"] != ""]
    rows_paper, panels_paper = [r for r, _ in paper], [p for _, p in paper]
    assert heckerman_meek1997.theorem1_row(rows_paper, panels_paper)["verdict"] == "reproduced"
    # our curved panel is not the paper's: it makes the theorem only partly hold
    row = heckerman_meek1997.theorem1_row(rows, panels)
    assert row["verdict"] == "partly reproduced" and "14 free parameters" in row["explanation"]
    # a paper panel below its span refutes it
    shrunk = [dict(r, d=r["d"] - 1) if r["panel"] == "section6" else r for r in rows_paper]
    assert heckerman_meek1997.theorem1_row(shrunk, panels_paper)["verdict"] == "not reproduced"


def test_section6_terms_and_methods_fail_where_they_differ(outputs):
    rows, _ = rows_and_panels(outputs)
    printed = yaml.safe_load(PRINTED.read_text())
    assert [v["verdict"] for v in heckerman_meek1997.section6_rows(rows, printed)] == [
        "reproduced", "reproduced"]
    other_terms = dict(printed, section6_terms=dict(printed["section6_terms"],
                                                    terms=[1, 1, 3, 2, 4, 4]))
    assert heckerman_meek1997.section6_rows(rows, other_terms)[0]["verdict"] == "not reproduced"
    split = [dict(r, d_sec4_exact="14") if r["panel"] == "section6" else r for r in rows]
    assert heckerman_meek1997.section6_rows(split, printed)[1]["verdict"] == "not reproduced"


def test_figure1_parameter_count_fails_on_another_printed_count():
    printed = yaml.safe_load(PRINTED.read_text())
    assert heckerman_meek1997.figure1_row(3, printed)["verdict"] == "reproduced"
    other = dict(printed, naive_bayes_parameters=dict(printed["naive_bayes_parameters"],
                                                      value="2 * n"))
    assert heckerman_meek1997.figure1_row(3, other)["verdict"] == "not reproduced"


def test_figure2_arcs_that_would_cross_a_node_are_bent():
    # In the Markov chain given Y every arc Y -> X_i (i > 1) lies on the line of the chain.
    import matplotlib.pyplot as plt

    from hiddenbn.plots import draw_network

    ax = draw_network(heckerman_meek1997.markov_chain_network(3))
    bends = {patch.get_gid(): patch.get_connectionstyle().rad for patch in ax.patches
             if (patch.get_gid() or "").startswith("arc:")}
    plt.close(ax.figure)
    assert bends["arc:Y->X1"] == bends["arc:X1->X2"] == 0.0
    assert bends["arc:Y->X2"] != 0.0 and bends["arc:Y->X3"] != 0.0
    left, right = ax.get_xlim()
    assert right - left > 1.5  # the bent arcs widen the panel instead of leaving it


def test_printed_formulas_hold_for_every_n_and_fail_for_another_formula():
    printed = heckerman_meek1997.read_printed_dimensions(yaml.safe_load(PRINTED.read_text()))
    rows = heckerman_meek1997.formula_rows(printed, seed=1, points=2)
    assert [r["verdict"] for r in rows] == ["reproduced"] * 3
    wrong = dict(printed, markov_chain=heckerman_meek1997.PrintedDimension("2n + 1", "Sec. 6",
                                                                          "2 * n + 1"))
    row = heckerman_meek1997.formula_rows(wrong, seed=1, points=2)[1]
    assert row["verdict"] == "not reproduced" and "n = 2, 3, 4, 5, 6" in row["explanation"]
