"""Paper 000's claim checks: each passes on the paper's own numbers and fails on a table changed
so that the claim is false (a check that cannot fail is no check)."""

from pathlib import Path

import pandas as pd
import yaml

from hiddenbn.experiments import geiger_heckerman_meek1996 as gh
from hiddenbn.experiments.comparison import formula_value

RESOURCES = Path(__file__).resolve().parents[1] / "workflow" / "resources"
PAPER = yaml.safe_load((RESOURCES / "geiger_heckerman_meek1996" / "dimensions.yaml")
                       .read_text(encoding="utf-8"))


def naive_bayes_table(**changed) -> pd.DataFrame:
    """The paper's Sec. 5 ranks as a table (ds = 2n + 1 parameters), with ranks ``changed``
    (``n<k>=rank``)."""
    ranks = {n: changed.get(f"n{n}", rank) for n, rank in PAPER["naive_bayes"].items()}
    return pd.DataFrame({"n": list(ranks), "ds": [2 * n + 1 for n in ranks],
                         "de": list(ranks.values())})


def autoclass_table(rows) -> pd.DataFrame:
    """Naive-Bayes models ``(b, k, n, d', d)`` as the AutoClass sweep's columns."""
    frame = pd.DataFrame(rows, columns=["b", "k", "n", "d' (CS)", "d (corrected CS)"])
    frame["model"] = [f"{k}:" + ",".join([str(b)] * n) for b, k, n in
                      zip(frame.b, frame.k, frame.n)]
    frame["d' - d"] = frame["d' (CS)"] - frame["d (corrected CS)"]
    frame["dc"] = frame.b ** frame.n - 1
    return frame


def paper_autoclass(**changed) -> pd.DataFrame:
    """The models whose d' and d the paper gives: naive Bayes with a binary root (k = 2, b = 2;
    Sec. 5's ranks, d' from the printed formula) and the Sec. 6 example."""
    example = PAPER["autoclass"]
    rows = [(2, 2, n, formula_value(PAPER["autoclass_parameters"], n, k=2, b=2), rank)
            for n, rank in PAPER["naive_bayes"].items()]
    rows.append((example["b"], example["k"], example["n"],
                 changed.get("parameters", example["parameters"]), example["rank"]))
    return autoclass_table(rows)


def test_conjecture_holds_on_the_paper_ranks_and_fails_where_one_differs():
    assert gh.conjecture_row(naive_bayes_table(), PAPER["conjecture"])["verdict"] == "reproduced"
    row = gh.conjecture_row(naive_bayes_table(n6=12), PAPER["conjecture"])
    assert (row["verdict"], row["ours"]) == ("not reproduced", "fails for n = 6")
    assert "n = 6" in row["explanation"]


def test_theorem2_bounds_hold_on_the_paper_ranks_and_fail_below_2n():
    assert gh.theorem2_row(naive_bayes_table(), PAPER["theorem2"])["verdict"] == "reproduced"
    # 2n + 0 is still inside; 2n - 1 is not
    assert gh.theorem2_row(naive_bayes_table(n5=10), PAPER["theorem2"])["verdict"] == "reproduced"
    row = gh.theorem2_row(naive_bayes_table(n5=9), PAPER["theorem2"])
    assert row["verdict"] == "not reproduced" and "n = 5" in row["ours"]
    # a range below the theorem's covers nothing
    short = naive_bayes_table()
    assert gh.theorem2_row(short[short.n <= 2], PAPER["theorem2"])["verdict"] == "not checked"


def test_no_redundancy_holds_on_the_paper_ranks_and_fails_with_a_redundant_parameter():
    span = PAPER["no_redundant_parameters"]
    assert gh.no_redundancy_row(naive_bayes_table(), span)["verdict"] == "reproduced"
    assert gh.no_redundancy_row(naive_bayes_table(n4=8), span)["verdict"] == "not reproduced"
    # a range that leaves out part of the paper's is only partly a check
    short = naive_bayes_table()
    assert gh.no_redundancy_row(short[short.n <= 5], span)["verdict"] == "partly reproduced"


def test_w_bound_holds_on_the_paper_dimensions_and_fails_above_it():
    def table(**changed):
        dims = {k: changed.get(f"h{k}", d) for k, d in PAPER["w_structure"].items()}
        return pd.DataFrame({"states of H": list(dims), "de": list(dims.values())})

    bound = PAPER["w_structure_bound"]
    assert gh.w_bound_row(table(), bound)["verdict"] == "reproduced"
    row = gh.w_bound_row(table(h5=bound + 1), bound)
    assert row["verdict"] == "not reproduced" and "|H| = 5" in row["explanation"]


def test_autoclass_formula_holds_on_the_paper_example_and_fails_on_another_count():
    formula = PAPER["autoclass_parameters"]
    assert gh.autoclass_formula_row(paper_autoclass(), formula)["verdict"] == "reproduced"
    row = gh.autoclass_formula_row(paper_autoclass(parameters=15), formula)
    assert row["verdict"] == "not reproduced" and "3:2,2,2,2" in row["ours"]


def test_two_classes_converge_on_the_paper_ranks_and_not_with_a_reduced_two_class_model():
    classes = PAPER["converging_classes"]
    paper = paper_autoclass()
    covered = paper[paper.n >= PAPER["conjecture"]["from_n"]]  # the conjecture's range
    assert gh.two_class_row(covered, classes)["verdict"] == "reproduced"
    reduced = autoclass_table([(2, 2, 4, 9, 8)])
    assert gh.two_class_row(reduced, classes)["verdict"] == "not reproduced"
    # no model with two classes: nothing to judge
    assert gh.two_class_row(autoclass_table([(2, 3, 4, 14, 13)]), classes)["verdict"] == \
        "not checked"


def test_rarity_is_not_judged_but_counted():
    row = gh.rare_row(paper_autoclass())
    assert row["verdict"] == "not checked" and "3:2,2,2,2" in row["ours"]


def test_w_reason_is_computed_from_random_points():
    table = pd.DataFrame({"states of H": [2, 5], "de": [9, 10]})
    reason = gh.w_structure_reason(table, 5, points=2, seed=1)
    assert reason.startswith("computed: at 2 random parameter points")
    assert "(round-off)" in reason and "10 at most for |H| = 2..5" in reason


def test_gaussian_w_reason_finds_the_zero_covariances():
    reason = gh.gaussian_w_reason(points=2, seed=1)
    assert "cov(A,B), cov(A,D) and cov(B,C) are 0 to" in reason


def test_figure1_matches_the_numeric_jacobian():
    assert gh.figure1_check(seed=3) < gh.ROUND_OFF


def test_every_printed_number_fails_where_the_printed_file_is_changed(tmp_path):
    """The comparisons read the printed file: change a number there and only its row fails."""
    changed = yaml.safe_load(yaml.safe_dump(PAPER))
    changed["naive_bayes"][4] = 10
    changed["w_structure"][3] = 11
    changed["autoclass"]["rank"] = 14
    changed["continuous"]["sigmoid two-level"]["de"] = 13
    changed["figure1_rank"] = 2
    printed = tmp_path / "dimensions.yaml"
    printed.write_text(yaml.safe_dump(changed), encoding="utf-8")
    example = PAPER["autoclass"]
    section = {"jacobian_points": 1, "naive_bayes_features": {"min": 3, "max": 5},
               "w_hidden_states": {"min": 2, "max": 3},
               "autoclass": {"hidden_states": {"min": example["k"], "max": example["k"]},
                             "features": {"min": example["n"], "max": example["n"]},
                             "feature_states": [example["b"]], "sample_sizes": [1000]}}
    gh.write_dimension_results(section, 5, printed, tmp_path / "out")
    verdicts = pd.read_csv(tmp_path / "out" / "verdicts.csv", dtype=str, keep_default_na=False)
    failed = set(verdicts.loc[verdicts.verdict == "not reproduced", "item"])
    assert failed == {
        "rank of naive Bayes, binary hidden root, n = 4 binary features",
        "dimension of the W structure, |H| = 3", "rank d of AutoClass 3:2,2,2,2",
        "dimension of the sigmoid two-level network (structure reconstructed)",
        "dimension of the gaussian W network (structure reconstructed)",  # as in the paper
        "generic rank of the 3x5 Jacobian"}
