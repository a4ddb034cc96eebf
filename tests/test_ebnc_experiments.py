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
    paths = (directory / "table.csv", directory / "table.md", directory / "figure2")
    heckerman_meek1997.write_dimension_results(
        SECTION, seed=5, points=2, printed=PRINTED, table_csv=paths[0], table_md=paths[1],
        figure2=paths[2], verdicts_csv=directory / "verdicts.csv")
    heckerman_meek1997.draw_figure1(3, directory / "figure1")
    with open(paths[0]) as handle:
        rows = {row["panel"]: row for row in csv.DictReader(handle)}
    return directory, rows, paths[1].read_text()


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
    printed = yaml.safe_load(PRINTED.read_text())
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
    assert set(printed) == set(PANEL_SIZES)
    for name, entry in printed.items():
        matching = [v for v in verdicts if v["item"].endswith(f": {entry['text']}")]
        assert len(matching) == 1, name
        assert matching[0]["where"] == entry["where"]
        assert matching[0]["paper"] == str(formula_value(entry["value"], PANEL_SIZES[name]))
    assert len(verdicts) == len(printed)


def test_figures_are_written(outputs):
    directory, _, _ = outputs
    for name in ("figure1", "figure2"):
        for suffix in (".png", ".pdf"):
            assert (directory / f"{name}{suffix}").stat().st_size > 1000


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
