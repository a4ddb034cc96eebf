"""Tests of the dimension results of papers 000, 002 and 004: structures, the SymPy Figure 1,
the writers, the printed numbers they read, and the formula evaluator of printed values."""

import ast
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from hiddenbn.dimension import jacobian as jac
from hiddenbn.dimension.effective import dimension_report
from hiddenbn.errors import HiddenbnError
from hiddenbn.experiments import (comparison, geiger_heckerman_meek1996, kocka_zhang2002,
                                  meek_heckerman1997)
from hiddenbn.models.network import observed_distribution, parameters_from_free, random_parameters
from hiddenbn.models.spec import parse_spec

ROOT = Path(__file__).resolve().parents[1]
RESOURCES = ROOT / "workflow" / "resources"
EXPERIMENTS = ROOT / "src" / "hiddenbn" / "experiments"
PAPERS = {module.__name__.rsplit(".", 1)[1]: module for module in (
    geiger_heckerman_meek1996, kocka_zhang2002, meek_heckerman1997)}


def printed(paper: str) -> dict:
    """``paper``'s printed dimensions, read here independently of the modules."""
    return yaml.safe_load((RESOURCES / paper / "dimensions.yaml").read_text(encoding="utf-8"))


def gh96_section() -> dict:
    """A small paper-000 section whose ranges hold every n, |H| and AutoClass model the paper
    prints, so each printed number has a row."""
    numbers = printed("geiger_heckerman_meek1996")
    example = numbers["autoclass"]
    return {"jacobian_points": 1,
            "naive_bayes_features": {"min": min(numbers["naive_bayes"]),
                                     "max": max(numbers["naive_bayes"])},
            "w_hidden_states": {"min": min(numbers["w_structure"]),
                                "max": max(numbers["w_structure"])},
            "autoclass": {"hidden_states": {"min": example["k"], "max": example["k"]},
                          "features": {"min": example["n"], "max": example["n"]},
                          "feature_states": [example["b"]], "sample_sizes": [1000]}}


SECTIONS = {"geiger_heckerman_meek1996": gh96_section(),
            "kocka_zhang2002": {"jacobian_points": 1},
            "meek_heckerman1997": {"jacobian_points": 1, "models": {
                "F1": [[1], [2], [3]], "F2": [[1, 2], [3]], "F3": [[1, 2], [2, 3]],
                "F4": [[1, 2], [1, 3], [2, 3]], "F5": [[1, 2, 3]]}}}


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    """Every paper's dimension results, written once: paper -> output folder."""
    base = tmp_path_factory.mktemp("dimension")
    for paper, module in PAPERS.items():
        module.write_dimension_results(SECTIONS[paper], 5, RESOURCES / paper / "dimensions.yaml",
                                       base / paper)
    return {paper: base / paper for paper in PAPERS}


def paper_cells(directory: Path, item: str) -> list[str]:
    """The ``paper`` cells of the verdicts whose item matches the regular expression ``item``."""
    verdicts = pd.read_csv(directory / "verdicts.csv", dtype=str, keep_default_na=False)
    return [row.paper for row in verdicts.itertuples() if re.fullmatch(item, row.item)]


# --- structures and Figure 1 ----------------------------------------------------------------
def test_sympy_figure1_equals_the_numeric_kernel(rng):
    """The symbolic 3x5 Jacobian at a point equals our kernel's rows and columns there."""
    symbols, matrix, rank = geiger_heckerman_meek1996.figure1_jacobian()
    assert matrix.shape == (3, 5) and rank == 3
    network = geiger_heckerman_meek1996.naive_bayes(2, 2)
    # our free parameters: theta_{h=0}, theta_{x1=0|h=0}, theta_{x1=0|h=1}, theta_{x2=0|h=0},
    # theta_{x2=0|h=1}; state 0 plays the paper's x and h
    theta = rng.uniform(0.1, 0.9, size=5)
    point = jac.discrete_point(network, parameters_from_free(network, theta))
    ours = jac.jacobian(network, point)
    values = dict(zip(symbols, [theta[1], theta[3], theta[2], theta[4], theta[0]]))
    symbolic = np.array(matrix.subs(values).evalf(), dtype=float)
    rows = [0, 2, 1]  # (x1, x2), (~x1, x2), (x1, ~x2) in C order over (X1, X2)
    columns = [1, 3, 2, 4, 0]
    np.testing.assert_allclose(ours[np.ix_(rows, columns)], symbolic, atol=1e-12)


def test_w_structure_independences_bound_its_dimension(rng):
    """A indep. (B, D) and B indep. (A, C) hold at random points: the reason printed for |H| = 5."""
    network = geiger_heckerman_meek1996.w_structure(5)
    joint = observed_distribution(network, random_parameters(network, rng))  # axes A, B, C, D
    abd = joint.sum(axis=2)
    np.testing.assert_allclose(abd, abd.sum(axis=(1, 2))[:, None, None] * abd.sum(axis=0)[None])
    abc = joint.sum(axis=3)
    np.testing.assert_allclose(abc, abc.sum(axis=1)[:, None, :]
                               * abc.sum(axis=(0, 2))[None, :, None])
    assert dimension_report(network, points=2)["de"] <= 10


def test_noisy_max_networks_count_their_parameters():
    for sets in ([[1], [2], [3]], [[1, 2], [3]], [[1, 2], [1, 3], [2, 3]], [[1, 2, 3]]):
        network = meek_heckerman1997.noisy_max_network(sets)
        assert network.standard_dimension == 3 + sum(2 ** len(s) for s in sets)
        assert network.functions[-1] == "max" and network.hidden_indices.size == len(sets)


def test_theorem5_split_matches_the_direct_rank():
    network = parse_spec(kocka_zhang2002.HLC_SPEC)
    m1, m2 = kocka_zhang2002.theorem5_split(network, "H2")
    assert set(m1.names) | set(m2.names) == set(network.names)
    assert set(m1.names) & set(m2.names) == {"H1", "H2"}
    difference = sum(r["ds"] - r["de"] for r in (dimension_report(m, points=2) for m in (m1, m2)))
    full = dimension_report(network, points=2)
    assert full["ds"] - full["de"] == difference


@pytest.mark.parametrize("key", ["naive_bayes_features", "w_hidden_states",
                                 "autoclass.hidden_states", "autoclass.features"])
def test_check_config_rejects_ranges_that_run_downwards(key):
    section = yaml.safe_load(yaml.safe_dump(gh96_section()))
    *path, last = key.split(".")
    target = section
    for part in path:
        target = target[part]
    target[last] = {"min": 5, "max": 3}
    with pytest.raises(HiddenbnError, match=re.escape(
            f"config geiger_heckerman_meek1996.{key}: min 5 exceeds max 3")):
        geiger_heckerman_meek1996.check_config(section)
    geiger_heckerman_meek1996.check_config(gh96_section())


# --- the writers and the printed numbers -----------------------------------------------------
def test_writers_produce_tables_figures_and_comparisons(written):
    for paper, directory in written.items():
        assert (directory / "comparison.md").read_text().startswith("# ")
        assert (directory / "figures" / "structures.pdf").exists()
    table1 = pd.read_csv(written["kocka_zhang2002"] / "tables" / "table1.csv")
    assert len(table1) == len(printed("kocka_zhang2002")["table1"]) == 21
    assert (table1["db"] >= table1["de"]).all()
    mh = pd.read_csv(written["meek_heckerman1997"] / "tables" / "table1.csv")
    assert list(mh["model"]) == ["F1", "F2", "F3", "F4", "F5"]
    assert (written["geiger_heckerman_meek1996"] / "figures" / "figure1_jacobian.png").exists()


def test_every_printed_number_of_paper_000_is_in_the_verdicts(written):
    directory, numbers = written["geiger_heckerman_meek1996"], printed("geiger_heckerman_meek1996")
    for n, rank in numbers["naive_bayes"].items():
        assert paper_cells(directory, f"rank of naive Bayes, binary hidden root, n = {n} binary "
                                      "features") == [str(rank)]
    for states, dimension in numbers["w_structure"].items():
        assert paper_cells(directory, rf"dimension of the W structure, \|H\| = {states}") == [
            str(dimension)]
    example = numbers["autoclass"]
    model = f"{example['k']}:" + ",".join([str(example["b"])] * example["n"])
    assert paper_cells(directory, f"parameters d' of AutoClass {model}") == [
        str(example["parameters"])]
    assert paper_cells(directory, f"rank d of AutoClass {model}") == [str(example["rank"])]
    for name, values in numbers["continuous"].items():
        assert paper_cells(directory, f"parameters of the {name} network .*") == [str(values["ds"])]
        assert paper_cells(directory, f"dimension of the {name} network .*") == [str(values["de"])]
    assert paper_cells(directory, "generic rank of the 3x5 Jacobian") == [
        str(numbers["figure1_rank"])]


def test_every_printed_number_of_paper_002_is_in_the_verdicts(written):
    directory, numbers = written["kocka_zhang2002"], printed("kocka_zhang2002")
    for spec, row in numbers["table1"].items():
        assert paper_cells(directory, re.escape(f"(de, db, ds, dc, dp) of LC {spec}")) == [
            ", ".join(str(row[c]) for c in ("de", "db", "ds", "dc", "dp"))]
    hlc = numbers["hlc"]
    spec = re.escape(kocka_zhang2002.HLC_SPEC)
    # the paper's ds enters as ds - de, the quantity Cor. 4.1 decomposes
    assert paper_cells(directory, rf"ds - de: HLC model \(direct rank\), {spec}") == [
        str(hlc["ds"] - hlc["de"])]
    assert paper_cells(directory, rf"de: HLC model \(direct rank\), {spec}") == [str(hlc["de"])]
    assert paper_cells(directory, rf"ds: HLC model, {spec}") == [str(hlc["ds"])]
    for model, difference in hlc["local"].items():
        # one row per hidden node whose local model is ``model`` (H2 and H3 share 3:5,2,2)
        cells = paper_cells(directory, rf"ds - de: local LC at .*, {re.escape(model)}")
        assert cells and set(cells) == {str(difference)}
    assert paper_cells(directory, r"ds - de: Cor\. 4\.1: .*") == [str(hlc["sum"])]


def test_every_printed_number_of_paper_004_is_in_the_verdicts(written):
    directory, numbers = written["meek_heckerman1997"], printed("meek_heckerman1997")
    for name, row in numbers["table1"].items():
        assert paper_cells(directory, rf"\(dimension, unadjusted dimension\) of {name} .*") == [
            f"{row['dimension']}, {row['unadjusted']}"]


def test_read_printed_refuses_a_missing_file_and_a_non_mapping(tmp_path):
    with pytest.raises(HiddenbnError, match="cannot be read"):
        comparison.read_printed(tmp_path / "missing.yaml")
    (tmp_path / "list.yaml").write_text("- 1\n- 2\n")
    with pytest.raises(HiddenbnError, match="must be a mapping"):
        comparison.read_printed(tmp_path / "list.yaml")


# --- printed formulas ------------------------------------------------------------------------
@pytest.mark.parametrize("formula, n, value", [
    ("15", None, 15), ("n + 1", 3, 4), ("2 * n", 3, 6), ("2 ** n", 3, 8), ("n - 1", 3, 2),
    ("(n + 1) * 2 ** (n - 1)", 3, 16), ("1 + 1 + 2 * (n - 1)", 4, 8)])
def test_formula_value_evaluates_integer_formulas_in_n(formula, n, value):
    assert comparison.formula_value(formula, n) == value


@pytest.mark.parametrize("formula", [
    "__import__('os')", "__import__('os').system('true')", "m + 1", "x", "n.real", "n / 2",
    "n % 2", "n // 2", "-n", "2.5 * n", "True + n", "'n'", "[n]", "n if n else 1", "lambda: n",
    "abs(n)", "2 ** 1000", "2 ** -1", "", "n +", "n = 1"])
def test_formula_value_refuses_anything_else(formula):
    with pytest.raises(HiddenbnError, match="printed formula"):
        comparison.formula_value(formula, 3)


def test_formula_value_needs_n_for_a_formula_in_n():
    with pytest.raises(HiddenbnError, match="needs n"):
        comparison.formula_value("n + 1")


def test_no_experiment_module_defines_a_printed_constant():
    """Printed numbers live in workflow/resources/<paper>/, never as a PRINTED* constant."""
    offenders = []
    for path in sorted(EXPERIMENTS.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets = (node.targets if isinstance(node, ast.Assign)
                       else [node.target] if isinstance(node, (ast.AnnAssign, ast.AugAssign))
                       else [])
            offenders += [f"{path.name}: {t.id}" for t in targets
                          if isinstance(t, ast.Name) and t.id.startswith("PRINTED")]
    assert not offenders
