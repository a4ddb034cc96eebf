"""Tests of the dimension experiments: structures, the SymPy Figure 1, the writers."""

import numpy as np
import pandas as pd
import pytest

from hiddenbn import jacobian as jac
from hiddenbn.dimension import dimension_report
from hiddenbn.errors import HiddenbnError
from hiddenbn.experiments import dimension as ex
from hiddenbn.models import observed_distribution, parameters_from_free, random_parameters
from hiddenbn.spec import parse_spec

TINY = {"points": 1, "naive_bayes_features": {"min": 2, "max": 3},
        "w_hidden_states": {"min": 2, "max": 2},
        "autoclass": {"hidden_states": {"min": 3, "max": 3}, "features": {"min": 4, "max": 4},
                      "feature_states": [2], "sample_sizes": [1000]},
        "causal_interaction_models": {"F1": [[1], [2], [3]], "F2": [[1, 2], [3]]}}


def test_sympy_figure1_equals_the_numeric_kernel(rng):
    """The symbolic 3x5 Jacobian at a point equals our kernel's rows and columns there."""
    symbols, matrix, rank = ex.figure1_jacobian()
    assert matrix.shape == (3, 5) and rank == 3
    network = ex.naive_bayes(2, 2)
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
    network = ex.w_structure(5)
    joint = observed_distribution(network, random_parameters(network, rng))  # axes A, B, C, D
    abd = joint.sum(axis=2)
    np.testing.assert_allclose(abd, abd.sum(axis=(1, 2))[:, None, None] * abd.sum(axis=0)[None])
    abc = joint.sum(axis=3)
    np.testing.assert_allclose(abc, abc.sum(axis=1)[:, None, :]
                               * abc.sum(axis=(0, 2))[None, :, None])
    assert dimension_report(network, points=2)["de"] <= 10


def test_noisy_max_networks_count_their_parameters():
    for sets in ([[1], [2], [3]], [[1, 2], [3]], [[1, 2], [1, 3], [2, 3]], [[1, 2, 3]]):
        network = ex.noisy_max_network(sets)
        assert network.standard_dimension == 3 + sum(2 ** len(s) for s in sets)
        assert network.functions[-1] == "max" and network.hidden_indices.size == len(sets)


def test_theorem5_split_matches_the_direct_rank():
    network = parse_spec(ex.HLC_SPEC)
    m1, m2 = ex.theorem5_split(network, "H2")
    assert set(m1.names) | set(m2.names) == set(network.names)
    assert set(m1.names) & set(m2.names) == {"H1", "H2"}
    difference = sum(r["ds"] - r["de"] for r in (dimension_report(m, points=2) for m in (m1, m2)))
    full = dimension_report(network, points=2)
    assert full["ds"] - full["de"] == difference


def test_check_section_rejects_bad_ranges_and_cause_sets():
    with pytest.raises(HiddenbnError, match="naive_bayes_features"):
        ex.check_section({**TINY, "naive_bayes_features": {"min": 5, "max": 2}})
    with pytest.raises(HiddenbnError, match="causal_interaction_models.F9"):
        ex.check_section({**TINY, "causal_interaction_models": {"F9": [[1, 1]]}})
    ex.check_section(TINY)


def test_writers_produce_tables_figures_and_comparisons(tmp_path):
    for paper, writer in ex.WRITERS.items():
        writer(TINY, 5, tmp_path / paper)
        assert (tmp_path / paper / "comparison.md").read_text().startswith("# ")
        assert (tmp_path / paper / "figures" / "structures.pdf").exists()
    table1 = pd.read_csv(tmp_path / "kocka_zhang2002" / "tables" / "table1.csv")
    assert len(table1) == len(ex.PRINTED_KZ_TABLE1) == 21
    assert (table1["db"] >= table1["de"]).all()
    mh = pd.read_csv(tmp_path / "meek_heckerman1997" / "tables" / "table1.csv")
    assert list(mh["model"]) == ["F1", "F2"]
    assert (tmp_path / "geiger_heckerman_meek1996" / "figures" / "figure1_jacobian.png").exists()
