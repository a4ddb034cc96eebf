"""Tests of the effective-dimension engine against independent computations.

Expected values come from finite differences, brute-force rank over the rationals (SymPy),
theorems with closed forms (Settimi & Smith, paper 002 Thms 1-2; Kočka & Zhang bounds) and
the HLC decomposition vs the direct rank: never from a paper's printed table.
"""

import itertools
import math
import warnings

import numpy as np
import pytest
import sympy

from hiddenbn.dimension import effective as dim, jacobian as jac
from hiddenbn.dimension.rank import modular_rank, numerical_rank, singular_values
from hiddenbn.errors import HiddenbnError
from hiddenbn.models.network import (Network, free_parameters, latent_class, observed_distribution,
                                     parameters_from_free, random_parameters)
from hiddenbn.models.spec import parse_spec

W_STRUCTURE = {"nodes": {"A": {"states": 2}, "B": {"states": 3},
                         "H": {"states": 3, "hidden": True},
                         "C": {"states": 2, "parents": ["A", "H"]},
                         "D": {"states": 2, "parents": ["H", "B"]}}}
SIGMOID_THREE_LEVEL = {"type": "sigmoid", "nodes": {
    "T": {"hidden": True}, "M1": {"hidden": True, "parents": ["T"]},
    "M2": {"hidden": True, "parents": ["T"]},
    **{f"X{i}": {"parents": ["M1", "M2"]} for i in range(1, 4)}}}
GAUSSIAN_W = {"type": "gaussian", "nodes": {
    "A": {}, "B": {}, "H": {"hidden": True}, "C": {"parents": ["A", "H"]},
    "D": {"parents": ["H", "B"]}}}


def _central_differences(function, theta, step=1e-6):
    theta = np.asarray(theta, dtype=float)
    columns = []
    for k in range(theta.size):
        up, down = theta.copy(), theta.copy()
        up[k] += step
        down[k] -= step
        columns.append((function(up) - function(down)) / (2 * step))
    return np.column_stack(columns)


# --- the Jacobian against finite differences -------------------------------------------------
NOISY_SUM = {"nodes": {"C1": {"states": 2}, "M1": {"states": 2, "parents": ["C1"], "hidden": True},
                       "M2": {"states": 3, "hidden": True},
                       "E": {"function": "sum", "parents": ["M1", "M2"]},
                       "F": {"states": 2, "parents": ["M2"]}}}


@pytest.mark.parametrize("spec", ["3:2,3,2", W_STRUCTURE, "3(2,2(2,3))", NOISY_SUM, "noisy max"])
def test_discrete_jacobian_matches_finite_differences(spec, rng, noisy_max_network):
    network = noisy_max_network if spec == "noisy max" else parse_spec(spec)
    cpts = random_parameters(network, rng, alpha=2.0)
    analytic = jac.jacobian(network, jac.discrete_point(network, cpts))

    def observed(theta):
        return observed_distribution(network, parameters_from_free(network, theta)).ravel()

    numeric = _central_differences(observed, free_parameters(network, cpts))
    assert analytic.shape == (np.prod(network.observed_cardinalities), network.standard_dimension)
    np.testing.assert_allclose(analytic, numeric, atol=1e-8)


@pytest.mark.parametrize("spec, make_point, function", [
    (SIGMOID_THREE_LEVEL, jac.sigmoid_point, jac.observed_function),
    (GAUSSIAN_W, jac.gaussian_point, jac.gaussian_function)], ids=["sigmoid", "gaussian"])
def test_sigmoid_and_gaussian_jacobians_match_finite_differences(spec, make_point, function, rng):
    network = parse_spec(spec)
    theta = rng.normal(size=network.standard_dimension)
    analytic = jac.jacobian(network, make_point(network, theta))
    numeric = _central_differences(lambda t: function(network, make_point(network, t)), theta)
    np.testing.assert_allclose(analytic, numeric, atol=1e-7)


def test_gaussian_moments_match_forward_substitution(rng):
    """mu and Sigma of X = B X + m + e, solved node by node instead of by matrix inverse."""
    network = parse_spec(GAUSSIAN_W)
    point = jac.random_gaussian_point(network, rng)
    means, weights, variances = point.gaussian
    # solve X = B X + m + e column by column (forward substitution in topological order)
    n = network.n_nodes
    effect = np.zeros((n, n))  # X_i = mean_i + sum_k effect[i, k] e_k
    mean = np.zeros(n)
    for i in range(n):
        effect[i, i] = 1.0
        for p in network.parents[i]:
            effect[i] += weights[i, p] * effect[p]
            mean[i] += weights[i, p] * mean[p]
        mean[i] += means[i]
    mu, sigma = jac.gaussian_moments(network, point)
    observed = network.observed_indices
    np.testing.assert_allclose(mu, mean[observed])
    covariance = (effect * variances) @ effect.T
    np.testing.assert_allclose(sigma, covariance[np.ix_(observed, observed)], atol=1e-12)


# --- exact arithmetic -----------------------------------------------------------------------
def _integer_point(network, rng, modulus):
    """A point with small integer free parameters: the float Jacobian is then exact integers."""
    theta = rng.integers(-3, 4, size=network.standard_dimension)
    layout_point = jac.random_discrete_point(network, rng)  # for the deterministic tables
    cpts = parameters_from_free(network, theta)
    tables = []
    offset = 0
    for i in range(network.n_nodes):
        size = network.n_parent_configurations(i) * network.cardinalities[i]
        tables.append(layout_point.tables[offset:offset + size] if cpts[i] is None
                      else cpts[i].ravel())
        offset += size
    tables = np.concatenate(tables)
    real = jac.Point(0, tables, jac._free_chain(network, jac._layout(network), 0))
    exact = jac.Point(modulus, tables.astype(np.int64) % modulus,
                      jac._free_chain(network, jac._layout(network), modulus))
    return real, exact


def test_modular_jacobian_is_the_integer_jacobian_reduced(noisy_max_network, rng):
    network = noisy_max_network
    real, exact = _integer_point(network, rng, jac.PRIME)
    integer = np.rint(jac.jacobian(network, real)).astype(np.int64)
    np.testing.assert_array_equal(integer % jac.PRIME, jac.jacobian(network, exact))


def test_modular_rank_matches_rational_rank(rng):
    for _ in range(20):
        rows, columns, rank = rng.integers(1, 9), rng.integers(1, 9), rng.integers(0, 6)
        matrix = rng.integers(-5, 6, size=(rows, rank)) @ rng.integers(-5, 6, size=(rank, columns))
        expected = sympy.Matrix(matrix.tolist()).rank()
        residues = [matrix[i:i + 3] % jac.PRIME for i in range(0, rows, 3)]
        assert modular_rank(residues, columns, jac.PRIME) == expected
        reals = [matrix[i:i + 2] for i in range(0, rows, 2)]
        assert numerical_rank(singular_values(reals, columns))[0] == expected


def test_modular_rank_stops_at_the_bound():
    identity = np.eye(6, dtype=np.int64)
    assert modular_rank([identity[:2], identity[2:]], 6, 7, bound=3) == 3


def test_streamed_singular_values_equal_dense_ones(rng):
    matrix = rng.normal(size=(50, 7)) @ np.diag([1, 1, 1, 1e-3, 1e-6, 1, 0.0])
    streamed = singular_values([matrix[i:i + 9] for i in range(0, 50, 9)], 7)
    np.testing.assert_allclose(streamed, np.linalg.svd(matrix, compute_uv=False), atol=1e-12)
    rank, gap = numerical_rank(streamed)
    assert rank == 6 and gap > 6
    # a known bound ends the scan once the rows read have that rank with a clear gap
    full_rank = rng.normal(size=(50, 7))
    read = []

    def blocks():
        for i in range(0, 50, 9):
            read.append(i)
            yield full_rank[i:i + 9]

    early = singular_values(blocks(), 7, stop_rank=7)
    assert read == [0] and numerical_rank(early)[0] == 7
    assert np.all(early <= np.linalg.svd(full_rank, compute_uv=False) + 1e-12)


def test_block_size_and_row_order_do_not_change_the_jacobian(rng):
    network = parse_spec("2:2,3,2,2")
    point = jac.random_point(network, rng)
    whole = jac.jacobian(network, point)
    pieces = np.vstack(list(jac.jacobian_blocks(network, point, block_rows=5)))
    np.testing.assert_array_equal(whole, pieces)
    shuffled = np.vstack(list(jac.jacobian_blocks(network, point, block_rows=7, shuffle=rng)))
    order = np.lexsort(shuffled.T[::-1])
    np.testing.assert_array_equal(shuffled[order], whole[np.lexsort(whole.T[::-1])])


# --- theorems and bounds --------------------------------------------------------------------
def _random_latent_class(rng, max_observed=4, max_states=4, max_hidden=5):
    observed = rng.integers(2, max_states + 1, size=rng.integers(2, max_observed + 1))
    return latent_class(int(rng.integers(2, max_hidden + 1)), observed)


def test_settimi_smith_theorem_1(rng):
    """LC X : O1, O2: de = ds - |X|(|X|-1) if |X| <= min(|O1|, |O2|), else dc."""
    for _ in range(12):
        r1, r2, k = (int(v) for v in rng.integers(2, 6, size=3))
        network = latent_class(k, [r1, r2])
        report = dim.dimension_report(network, points=2, seed=int(rng.integers(1 << 30)))
        expected = (network.standard_dimension - k * (k - 1) if k <= min(r1, r2)
                    else r1 * r2 - 1)
        assert report["de"] == expected, (k, r1, r2)
        assert report["agree"] and report["clear"]


def _random_tree(rng, hidden_nodes, max_states, binary=False):
    """A random HLC tree: hidden nodes form a random tree, each gets observed leaves so that
    every hidden node has at least two neighbours."""
    cards, hidden, parent = [], [], []
    for h in range(hidden_nodes):
        cards.append(2 if binary else int(rng.integers(2, max_states + 1)))
        hidden.append(True)
        parent.append(None if h == 0 else int(rng.integers(0, h)))
    for h in range(hidden_nodes):
        degree = (h > 0) + sum(p == h for p in parent[:hidden_nodes])
        leaves = max(0, 2 - degree) + int(rng.integers(0, 3 if degree < 3 else 2))
        for _ in range(leaves):
            cards.append(2 if binary else int(rng.integers(2, max_states + 1)))
            hidden.append(False)
            parent.append(h)
    names = [f"H{i + 1}" if hidden[i] else f"X{i + 1}" for i in range(len(cards))]
    return Network(names=tuple(names), cardinalities=tuple(cards),
                   parents=tuple(() if p is None else (p,) for p in parent),
                   hidden=tuple(hidden), functions=(None,) * len(cards))


def test_settimi_smith_theorem_2(rng):
    """Binary HLC: de = ds - 2k, k = number of hidden nodes with fewer than three neighbours."""
    for _ in range(8):
        network = _random_tree(rng, int(rng.integers(1, 5)), 2, binary=True)
        assert dim.is_hlc(network)
        k = sum(len(network.parents[h]) + len(network.children(h)) < 3
                for h in network.hidden_indices)
        report = dim.dimension_report(network, points=2, seed=int(rng.integers(1 << 30)))
        assert report["de"] == network.standard_dimension - 2 * k
        assert report["agree"] and report["clear"]


def test_hlc_decomposition_matches_direct_rank_on_random_trees(rng):
    checked = 0
    for _ in range(12):
        network = _random_tree(rng, int(rng.integers(2, 4)), 4)
        regular = dim.regular_equivalent(network)
        assert dim.is_regular_hlc(regular)
        if np.prod(regular.observed_cardinalities) * np.prod(
                [regular.cardinalities[h] for h in regular.hidden_indices]) > 2e5:
            continue
        direct = dim.jacobian_rank(regular, points=2, seed=1)
        assert direct["agree"] and direct["clear"]
        assert dim.hlc_decomposition(network, points=2, seed=1)["de"] == direct["exact_rank"]
        # equivalent models have the same dimension (Lemma 4.1)
        if len(network.hidden_indices) == len(regular.hidden_indices) and \
                np.prod(network.cardinalities) < 2e5:
            irregular = dim.jacobian_rank(network, points=2, seed=1)
            assert irregular["exact_rank"] == direct["exact_rank"]
        checked += 1
    assert checked >= 6


def test_bounds_hold_on_random_latent_class_models(rng):
    for _ in range(15):
        network = _random_latent_class(rng)
        report = dim.dimension_report(network, points=2, seed=int(rng.integers(1 << 30)))
        assert report["de"] <= min(report["ds"], report["dc"]) <= report["ds"]
        assert report["db"] >= report["de"]
        assert report["db"] == min(report["ds"], report["dc"], report["dp"])
        assert report["agree"] and report["clear"], network.cardinalities


def test_pairwise_dimension_is_the_minimum_over_all_splits(rng):
    """The subset-product shortcut equals brute force over all 2^(n-1) splits (Thm 3)."""
    for _ in range(30):
        network = _random_latent_class(rng, max_observed=6, max_states=5, max_hidden=12)
        k, observed = dim.latent_class_shape(network)
        dc = math.prod(observed) - 1
        best = dc
        for size in range(1, len(observed)):
            for subset in itertools.combinations(range(len(observed)), size):
                u1 = math.prod(observed[i] for i in subset)
                u2 = math.prod(observed) // u1
                if k < min(u1, u2):
                    best = min(best, (k - 1) + k * (u1 + u2 - 2) - k * (k - 1))
        assert dim.pairwise_dimension(k, observed) == best


def _random_dag(rng, kind="discrete"):
    """A random small DAG: up to two parents per node, a random hidden subset (never all)."""
    n = int(rng.integers(3, 7))
    nodes = {}
    for i in range(n):
        parents = sorted(rng.choice(i, size=min(i, int(rng.integers(0, 3))), replace=False))
        node = {"parents": [f"V{p}" for p in parents]}
        if kind == "discrete":
            node["states"] = int(rng.integers(2, 4))
        if i < n - 2 and rng.random() < 0.5:
            node["hidden"] = True
        nodes[f"V{i}"] = node
    return parse_spec({"type": kind, "nodes": nodes})


def test_de_is_at_most_ds_and_dc_on_random_networks(noisy_max_network, rng):
    networks = [noisy_max_network, parse_spec(W_STRUCTURE), parse_spec(SIGMOID_THREE_LEVEL),
                parse_spec(GAUSSIAN_W)]
    networks += [_random_dag(rng, kind) for kind in ("discrete", "sigmoid", "gaussian")
                 for _ in range(4)]
    for network in networks:
        report = dim.dimension_report(network, points=2, seed=3)
        assert report["de"] <= min(report["ds"], report["dc"])
        assert report["agree"] and report["clear"], network
        if report["latent_class"]:
            assert report["db"] >= report["de"]
        else:
            assert report["db"] is None and report["dp"] is None


def test_gaussian_rank_agrees_with_finite_difference_rank(rng):
    network = parse_spec({"type": "gaussian", "nodes": {
        "H": {"hidden": True}, **{f"X{i}": {"parents": ["H"]} for i in range(1, 5)}}})
    theta = []
    for parents in network.parents:
        theta += [rng.normal(), *rng.uniform(0.5, 1.5, size=len(parents)), rng.uniform(0.5, 2)]
    numeric = _central_differences(
        lambda t: jac.gaussian_function(network, jac.gaussian_point(network, t)), theta)
    fd_rank = np.linalg.matrix_rank(numeric, tol=1e-6 * np.abs(numeric).max())
    assert dim.effective_dimension(network) == fd_rank


# --- regular models -------------------------------------------------------------------------
def test_regular_equivalent_of_latent_class_keeps_de():
    network = parse_spec("7:2,3,2")  # 12 / 3 = 4 states suffice (Lemma 3.2)
    regular = dim.regular_equivalent(network)
    assert regular.cardinalities[0] == 4 and not dim.is_regular_hlc(network)
    assert dim.effective_dimension(regular) == dim.effective_dimension(network)


def test_regular_equivalent_removes_a_saturated_two_neighbour_hidden_node():
    # H2 sits between H1 (3 states) and one binary leaf: Lemma 4.1 cuts it to 2 states, and
    # then, with 2 >= min(3, 2), it can carry any table between them and is removed.
    network = parse_spec("3(3(2),2,2,2)")
    regular = dim.regular_equivalent(network)
    assert len(regular.hidden_indices) == 1 and dim.is_regular_hlc(regular)
    assert dim.effective_dimension(regular) == dim.effective_dimension(network)


# --- reports, errors and warnings -----------------------------------------------------------
def test_fully_observed_network_has_de_equal_to_ds():
    network = parse_spec({"nodes": {"A": {"states": 3}, "B": {"states": 2, "parents": ["A"]}}})
    report = dim.dimension_report(network, points=1)
    assert report["de"] == report["ds"] == report["dc"] == 5
    assert not report["hlc"] and not report["latent_class"]


def test_report_keys_and_latent_class_fields():
    report = dim.dimension_report(parse_spec("2:2,2,2,2"), points=2)
    for key in ("ds", "de", "dc", "dp", "db", "method", "gap"):
        assert key in report
    assert report["method"] == "exact+svd" and report["latent_class"] and report["warnings"] == []


def test_db_of_a_non_latent_class_model_is_a_clear_error():
    with pytest.raises(HiddenbnError, match="latent class"):
        dim.latent_class_bounds(parse_spec(W_STRUCTURE))


def test_too_large_models_give_the_size_and_an_alternative():
    # 10^12 observed states, and no block of variables small enough to certify de = ds
    wide = parse_spec("3:" + ",".join(["100"] * 6))
    with pytest.raises(HiddenbnError, match=r"observed x .* hidden configurations.*db"):
        dim.effective_dimension(wide)
    with pytest.raises(HiddenbnError, match=r"free parameters.*GiB"):
        dim.effective_dimension(parse_spec("600:" + ",".join(["2"] * 14)))
    with pytest.raises(HiddenbnError, match=r"db = \d+ is an upper bound"):
        dim.dimension_report(wide)


def test_effective_dimension_or_the_reason_why_not():
    small = parse_spec("3:2,2,2,2")
    assert dim.effective_dimension_or_reason(small) == (dim.effective_dimension(small), None)
    assert dim.effective_dimension_or_reason(small, 2, 1) == \
        (dim.effective_dimension(small, 2, 1), None)
    de, reason = dim.effective_dimension_or_reason(parse_spec("3:" + ",".join(["100"] * 6)))
    assert de is None and reason.startswith("no effective dimension: ") and "db" in reason


def test_huge_irregular_latent_class_model_is_ranked_through_its_regular_equivalent():
    network = parse_spec("100000:3,2")  # 6 observed states; Lemma 3.2: 2 hidden states suffice
    report = dim.dimension_report(network, points=1)
    assert report["method"] == "exact+svd (regular equivalent)"
    assert report["de"] == dim.effective_dimension(parse_spec("2:3,2"), points=1)


def test_large_hlc_falls_back_to_the_decomposition():
    spec = "2(" + ",".join(["2(" + ",".join(["2"] * 6) + ")"] * 6) + ")"  # 36 leaves, 2^36 states
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        report = dim.dimension_report(parse_spec(spec), points=1)
        assert report["de"] == dim.effective_dimension(parse_spec(spec), points=1)
    assert report["method"] == "hlc" and any("HLC" in str(w.message) for w in caught)


def test_disagreement_is_reported_loudly(monkeypatch):
    real_rank = dim.modular_rank
    monkeypatch.setattr(dim, "modular_rank", lambda *a, **k: real_rank(*a, **k) - 1)
    with pytest.warns(dim.DimensionWarning, match="disagree"):
        report = dim.dimension_report(parse_spec("2:2,2,2"), points=1)
    assert report["agree"] is False and report["warnings"]


def test_unclear_gap_is_reported_loudly(monkeypatch):
    monkeypatch.setattr(dim, "CLEAR_GAP_DECADES", 100.0)
    with pytest.warns(dim.DimensionWarning, match="unclear singular-value gap"):
        report = dim.dimension_report(parse_spec("2:2,2,2"), points=1)
    assert report["clear"] is False and report["agree"] is True


def test_block_certificate_agrees_with_the_direct_rank_when_it_applies():
    assert dim.latent_class_blocks([2] * 8, 2**4) == [[0, 1, 2, 3], [4, 5, 6, 7]]
    assert dim.latent_class_blocks([3, 3, 2, 2, 2], 2**4) == [[0, 1], [2, 3, 4]]
    assert dim.latent_class_blocks([2, 100], 2**4) is None
    identifiable = latent_class(2, [2] * 8)
    certified = dim.latent_class_block_certificate(identifiable, points=2, max_block_states=2**4)
    assert certified == dim.effective_dimension(identifiable, points=2) == 17
    # blocks 4:2,2,2,2 have de 15 < ds 19: the certificate is inconclusive, not wrong
    assert dim.latent_class_block_certificate(latent_class(4, [2] * 8), points=2,
                                              max_block_states=2**4) is None


def test_wide_latent_class_models_get_de_from_blocks():
    report = dim.dimension_report(latent_class(4, [2] * 40), points=2)
    assert report["method"] == "blocks" and report["de"] == report["ds"] == 3 + 4 * 40
