"""Paper 001 dimension outputs: the table's content and the figures, on a small config."""

import csv
import re
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from hiddenbn.data.sampling import sample_dataset
from hiddenbn.ebnc import fitting as ebnc_fit, model as ebnc
from hiddenbn.experiments import heckerman_meek1997
from hiddenbn.experiments.comparison import formula_value
from hiddenbn.experiments.reproduction import CONSTRUCTED
from hiddenbn.models.network import random_parameters
from hiddenbn.util import seeding

SECTION = {"naive_bayes_inputs": 3, "markov_chain_inputs": 3, "full_table_inputs": 2,
           "non_binary_states": {"X1": 3, "Y": 3}}
PRINTED = (Path(__file__).resolve().parents[1] / "workflow" / "resources" / "heckerman_meek1997"
           / "dimensions.yaml")
#: The size n of each panel with a printed formula, from SECTION.
PANEL_SIZES = {"section6": None, "naive_bayes": 3, "markov_chain": 3, "full_table": 2}
#: Theorem 2's check at a size the tests afford.
THEOREM2 = {"sample_sizes": [400, 1600, 6400], "replicates": 3}


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    directory = tmp_path_factory.mktemp("hm97")
    heckerman_meek1997.write_dimension_results(SECTION, seed=5, points=2, printed=PRINTED,
                                               directory=directory, theorem2=THEOREM2)
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
    # the Figure 1b count is arithmetic; Eq. 6 is misprinted; Theorem 1 holds on the paper's
    # panels (our curved one is a finding beyond the paper, not a verdict)
    assert {v["item"] for v in verdicts if v["verdict"] == CONSTRUCTED} == {
        parameters[0]["item"]}
    assert {v["where"] for v in verdicts if v["verdict"] == "not reproduced"} == {
        "Sec. 4 (Eq. 6)"}
    # a panel of a printed formula repeats that formula's row
    items = {v["item"] for v in verdicts}
    derived = [v for v in verdicts if v["derived_from"]]
    assert len(derived) == 3 and all(v["derived_from"] in items for v in derived)
    assert (directory / "tables" / "theorem2.csv").is_file()


def test_figures_and_comparison_are_written(outputs):
    directory, _, _ = outputs
    for name in ("figure1", "figure2"):
        for suffix in (".png", ".pdf"):
            assert (directory / "figures" / f"{name}{suffix}").stat().st_size > 1000
    comparison = (directory / "comparison.md").read_text()
    for heading in ("## Claims", "### Figure 1: an EBNC (`figures/figure1.png`)",
                    "### Figure 2: some Bayesian networks"):
        assert heading in comparison


def test_figure2_and_theorem1_tables_label_each_panel_by_its_source(outputs):
    directory, _, _ = outputs
    panels = heckerman_meek1997.figure2_panels(SECTION)
    assert {p.name: p.source for p in panels} == {
        "section6": "certain", "naive_bayes": "reconstructed", "markov_chain": "reconstructed",
        "non_binary": "reconstructed", "full_table": "reconstructed",
        "curved": "ours, not in the paper"}
    comparison = (directory / "comparison.md").read_text()
    assert "| (a) Section 6 network | certain |" in comparison
    assert "| (f) curved (not in the paper) | ours, not in the paper |" in comparison
    assert "| curved (not in the paper) | ours, not in the paper |" in comparison
    # counterfactual: our panel, were it not marked beyond the paper, would read as certain
    curved = next(p for p in panels if p.beyond_paper)
    assert replace(curved, beyond_paper=False).source == "certain"


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
    printed = heckerman_meek1997.read_printed_dimensions(yaml.safe_load(PRINTED.read_text()))
    assert {v["verdict"] for v in heckerman_meek1997.dimension_verdicts(rows, panels, printed)} == {
        "reproduced"}
    changed = [dict(r, paper_value=r["paper_value"] + 1) if r["panel"] == "markov_chain" else r
               for r in rows]
    verdicts = {v["item"].split(":")[0]: v["verdict"]
                for v in heckerman_meek1997.dimension_verdicts(changed, panels, printed)}
    assert verdicts["EBNC dimension of Y, Markov chain given Y, n = 3 (reconstructed panel)"] == \
        "not reproduced"


def test_theorem1_holds_on_the_paper_panels_and_fails_only_where_a_check_says_so(outputs):
    directory, _, _ = outputs
    rows, panels = rows_and_panels(outputs)
    checks = heckerman_meek1997.theorem1_checks(panels, seed=5)
    # the run's own verdict: the paper's panels are linear, ours is a counterexample beyond it
    with open(directory / "verdicts.csv") as handle:
        written = next(v for v in csv.DictReader(handle) if v["where"] == "Sec. 4 (Theorem 1)")
    assert written == heckerman_meek1997.theorem1_row(rows, panels, checks)
    # the theorem is stated for every EBNC: our counterexample limits it to partly reproduced
    assert written["verdict"] == "partly reproduced" and "counterexample" in written["explanation"]
    assert re.search(r"can fail: Section 6, non-binary \(\d+ against \d+; its states are our "
                     r"choice\), curved \(not in the paper\) \(18 against 14\)", written["ours"])
    # without a counterexample of ours the paper's linear panels reproduce it
    linear = dict(checks, curved=replace(checks["curved"], angle=1e-15))
    assert heckerman_meek1997.theorem1_row(rows, panels, linear)["verdict"] == "reproduced"
    assert {name: c.status for name, c in checks.items()} == {
        p.name: "curved" if p.beyond_paper else "linear" for p in panels}
    # a paper panel whose tangent space turned would fail the claim
    turned = dict(checks, section6=replace(checks["section6"], angle=0.5))
    row = heckerman_meek1997.theorem1_row(rows, panels, turned)
    assert row["verdict"] == "not reproduced" and "Section 6 network" in row["explanation"]
    # points outside the premise are not judged
    outside = {name: replace(c, unencoded=("X4 _||_ Y",)) for name, c in checks.items()}
    assert heckerman_meek1997.theorem1_row(rows, panels, outside)["verdict"] == "not checked"


def test_the_curved_panel_meets_the_hypotheses_and_a_point_outside_them_is_no_counterexample(
        outputs):
    rows, panels = rows_and_panels(outputs)
    curved = next(p for p in panels if p.beyond_paper)
    check = heckerman_meek1997.theorem1_check(curved, heckerman_meek1997.theorem1_points(curved, 5))
    # 18 kappa coordinates from 14 free parameters: the proof's open-image step cannot hold
    assert (check.kappa_coordinates, check.free_parameters, check.unencoded) == (18, 14, ())
    assert check.weakest_dependence > 1e3 * check.strongest_independence
    checks = heckerman_meek1997.theorem1_checks(panels, seed=5)
    text = "\n".join(heckerman_meek1997.beyond_paper_lines(rows, panels, checks))
    assert "a counterexample to Theorem 1" in text and "18 coordinates" in text
    # counterfactual: X4's table the same for every state of Y encodes X4 _||_ Y | X3
    points = heckerman_meek1997.theorem1_points(curved, 5)
    x4 = curved.network.index("X4")
    for cpts in points:
        table = cpts[x4].reshape(2, 4, 2)  # X3, Y, X4
        cpts[x4] = np.repeat(table[:, :1], 4, axis=1).reshape(8, 2)
    check = heckerman_meek1997.theorem1_check(curved, points)
    assert check.status == "hypothesis fails" and "Y _||_ X4 | X3" in check.unencoded
    text = "\n".join(heckerman_meek1997.beyond_paper_lines(
        rows, panels, dict(checks, curved=check)))
    assert "no counterexample" in text and "a counterexample to Theorem 1" not in text


def test_eq4_and_the_softmax_form_hold_and_fail_for_a_wrong_formula():
    panels = heckerman_meek1997.figure2_panels(SECTION)
    assert heckerman_meek1997.eq4_row(panels, 1, 2)["verdict"] == "reproduced"

    def without_children(network, cpts, target, configurations):  # Y's own term alone
        alone = [table if i == network.index(target) else np.full_like(table, 1 / table.shape[1])
                 for i, table in enumerate(cpts)]
        return ebnc.log_odds(network, alone, target, configurations)

    assert heckerman_meek1997.eq4_row(panels, 1, 2, without_children)["verdict"] == \
        "not reproduced"
    assert heckerman_meek1997.softmax_row(panels, 1, 2)["verdict"] == "reproduced"

    def short_basis(network, target):  # the basis without its last feature
        basis = ebnc.ebnc_basis(network, target)
        return ebnc.EbncBasis(basis.classifier, basis.features[:-1], basis.block_ranks)

    assert heckerman_meek1997.softmax_row(panels, 1, 2, short_basis)["verdict"] == \
        "not reproduced"


def test_brute_force_log_odds_is_inference_by_enumeration():
    network = heckerman_meek1997.section6_network()
    cpts = random_parameters(network, seeding.rng(1))
    configurations = np.array([[0, 1, 1, 0, 1]])  # X1, X2, X3, X4, X5
    joint = []
    for y in (0, 1):
        state = dict(zip(["X1", "X2", "X3", "X4", "X5"], configurations[0]), Y=y)
        probability = 1.0
        for i, name in enumerate(network.names):
            parents = [state[network.names[q]] for q in network.parents[i]]
            row = int(np.ravel_multi_index(parents, [2] * len(parents))) if parents else 0
            probability *= cpts[i][row, state[name]]
        joint.append(probability)
    ours = heckerman_meek1997.brute_force_log_odds(network, cpts, "Y", configurations)
    assert ours[0, 0] == pytest.approx(np.log(joint[1] / joint[0]), abs=1e-12)


def test_eq6_holds_with_log_ratios_and_fails_as_printed():
    printed = heckerman_meek1997.eq6_row(3, 1, 2)
    assert printed["verdict"] == "not reproduced" and "misprint" in printed["explanation"]
    assert heckerman_meek1997.eq6_row(3, 1, 2, log_ratio=True)["verdict"] == "reproduced"


def test_the_quadrature_marginal_likelihood_agrees_with_monte_carlo_over_the_prior():
    network = heckerman_meek1997.naive_bayes_network(2)
    rng = seeding.rng(2)
    data = sample_dataset(network, random_parameters(network, rng), 15, rng)
    basis = ebnc.ebnc_basis(network, "Y")
    rows = ebnc_fit.class_data(basis, data)
    fit = ebnc_fit.fit_phi(rows, 2.0)
    exact = heckerman_meek1997.exact_log_marginal(rows, fit, 2.0)
    draws = rng.normal(0.0, 2.0, size=(20_000, 3, 1))
    values = np.array([ebnc_fit.log_likelihood(phi, rows) for phi in draws])
    # independent: the prior's Monte-Carlo mean of the likelihood (20,000 draws)
    top = values.max()
    monte_carlo = top + np.log(np.mean(np.exp(values - top)))
    spread = np.std(np.exp(values - top)) / np.mean(np.exp(values - top)) / np.sqrt(len(values))
    assert exact == pytest.approx(monte_carlo, abs=4 * spread)


def test_theorem2_holds_for_laplace_and_bic_and_fails_for_wrong_approximations(outputs):
    directory, _, _ = outputs
    errors = pd.read_csv(directory / "tables" / "theorem2.csv")
    assert [r["verdict"] for r in heckerman_meek1997.theorem2_rows(errors)] == [
        "reproduced", "reproduced"]
    # Laplace without its d/2 log(2 pi) term: a constant error; BIC with one parameter too many
    wrong = errors.assign(**{"laplace error": errors["laplace error"] + 1.5 * np.log(2 * np.pi),
                             "bic_log_evidence error":
                                 errors["bic_log_evidence error"] - 0.5 * np.log(errors.N)})
    assert [r["verdict"] for r in heckerman_meek1997.theorem2_rows(wrong)] == [
        "not reproduced", "not reproduced"]


def synthetic_theorem2_errors(laplace) -> pd.DataFrame:
    """A theorem2.csv with ``laplace(replicate, N)`` as the Laplace error and a bounded BIC."""
    return pd.DataFrame([{"replicate": r, "N": n, "d": 3, "quadrature": 1e-10,
                          "laplace error": laplace(r, n), "bic_log_evidence error": 1.5 + 0.01 * r}
                         for r in range(8) for n in (400, 1600, 6400, 25600, 102400)])


def test_theorem2_laplace_rate_is_fitted_over_every_size():
    spread = np.linspace(0.9, 1.1, 8)  # each replicate's own constant, with sampling noise
    one_over_n = synthetic_theorem2_errors(lambda r, n: spread[r] * 5 / n * (1 + 0.05 * (-1) ** (
        n // 400 + r)))
    assert heckerman_meek1997.theorem2_rows(one_over_n)[0]["verdict"] == "reproduced"
    # Haughton's N^-1/2 over every size: not O(1/N)
    root = synthetic_theorem2_errors(lambda r, n: spread[r] / np.sqrt(n))
    row = heckerman_meek1997.theorem2_rows(root)[0]
    assert row["verdict"] == "not reproduced" and "N^-0.50" in row["explanation"]
    # N^-0.45 up to N = 6400, then 1/N: the last two sizes alone would read -1; every size not
    kink = synthetic_theorem2_errors(
        lambda r, n: spread[r] * (n ** -0.45 if n <= 6400 else 6400 ** 0.55 / n))
    row = heckerman_meek1997.theorem2_rows(kink)[0]
    assert "from N = 25600 to 102400 -1.00" in row["ours"] and row["verdict"] == "not reproduced"
    # one replicate reaching 1/N late is named, with its N |error| by size
    late = synthetic_theorem2_errors(lambda r, n: spread[r] * (20 if r or n > 6400 else 20 * (
        n / 400) ** 0.8) / n)
    row = heckerman_meek1997.theorem2_rows(late)[0]
    assert "replicate 0 reaches 1/N late" in row["explanation"]
    assert "over all sizes" in row["ours"] and "over N = 400 to 6400" in row["ours"]
    # BIC's error drifting by 0.07 nats per unit of log N: bounded, and the drift is said
    drift = late.assign(**{"bic_log_evidence error":
                           1.5 + 0.07 * np.log(late.N) + 0.01 * late.replicate})
    row = heckerman_meek1997.theorem2_rows(drift)[1]
    assert row["verdict"] == "reproduced" and "does change with N" in row["explanation"]
    assert "+0.39 nats from N = 400 to 102400" in row["explanation"]
    assert heckerman_meek1997.theorem2_rows(late)[1]["explanation"] == ""


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
    assert heckerman_meek1997.figure1_row(3, printed)["verdict"] == CONSTRUCTED
    other = dict(printed, naive_bayes_parameters=dict(printed["naive_bayes_parameters"],
                                                      value="2 * n"))
    assert heckerman_meek1997.figure1_row(3, other)["verdict"] == "not reproduced"


def test_figure2_arcs_that_would_cross_a_node_are_bent():
    # In the Markov chain given Y every arc Y -> X_i (i > 1) lies on the line of the chain.
    import matplotlib.pyplot as plt

    from hiddenbn.reports.plots import draw_network

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
