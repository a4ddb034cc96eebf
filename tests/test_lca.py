"""Tests of the latent class analysis output (hiddenbn.inference.latent_class,
hiddenbn.scores.lca_statistics, hiddenbn.reports.lca) and plots.class_profile_figure.

Every quantity is checked against an independent computation: posteriors by brute force over
classes and over the completions of missing cells, standard errors against inverted
finite-difference Hessians of the log-likelihood (computed from the dense observed
distribution, not from lca's own likelihood code) and against scores.negative_hessian, G^2 and
X^2 over the enumerated table.
"""

import itertools
import json
import math

import numpy as np
import pytest
from scipy.stats import chi2

from hiddenbn.data import MISSING, Dataset
from hiddenbn.data.sampling import sample_dataset
from hiddenbn.errors import HiddenbnError
from hiddenbn.inference.latent_class import class_posteriors, modal_class, pattern_posteriors
from hiddenbn.learning.em import run_em
from hiddenbn.models.network import (free_parameters, latent_class, observed_distribution,
                                     parameters_from_free, random_parameters)
from hiddenbn.models.spec import parse_spec
from hiddenbn.reports import plots
from hiddenbn.reports.lca import format_lca_text, lca_report, write_posteriors
from hiddenbn.scores import lca_statistics as lca
from hiddenbn.scores.approximations import negative_hessian

#: Finite-difference step in probability units: truncation error ~ step^2, rounding error
#: ~ eps |LL| / step^2, both far below the 1e-4 relative tolerance of the comparisons.
STEP = 1e-4


def _fit(k, cards, n_cases, seed, alpha=1.0, zeros=()):
    """An ML (or MAP) fit of ``k:cards`` to data sampled from random parameters, EM started at
    the truth and run to a tight tolerance; ``zeros`` are (node, row, state) entries of the
    truth set to 0 (EM keeps them at 0)."""
    rng = np.random.default_rng(seed)
    network = latent_class(k, cards, hidden="H")
    truth = random_parameters(network, rng)
    for node, row, state in zeros:
        truth[node][row, state] = 0.0
        truth[node][row] /= truth[node][row].sum()
    data = sample_dataset(network, truth, n_cases, rng)
    fit = run_em(network, data, truth, alpha=alpha, max_iterations=5000, tolerance=1e-13)
    return network, data, fit


def _log_likelihood(network, cpts, data):
    """``sum_p n_p log p(x_p)`` from the dense observed distribution (complete data)."""
    joint = observed_distribution(network, cpts)
    return float(data.counts @ np.log(joint[tuple(data.patterns.T)]))


def _finite_difference_hessian(function, x):
    """Central second differences of ``function`` at ``x``."""
    d = x.size
    hessian = np.zeros((d, d))
    for i, j in itertools.combinations_with_replacement(range(d), 2):
        total = 0.0
        for si, sj in itertools.product((1, -1), repeat=2):
            point = x.copy()
            point[i] += si * STEP
            point[j] += sj * STEP
            total += si * sj * function(point)
        hessian[i, j] = hessian[j, i] = total / (4 * STEP ** 2)
    return hessian


def _entries(tables):
    return np.concatenate([np.asarray(t, dtype=float).ravel() for t in tables])


def _ambient_errors(cpts, drop, covariance):
    """Standard error of every entry when each row's ``drop`` entry (0 or -1) is 1 minus the
    others and ``covariance`` is that of the others, row by row: the dropped entry's variance
    is the sum of its row's block."""
    errors, start = [], 0
    for table in cpts:
        q, r = table.shape
        for _ in range(q):
            block = covariance[start:start + r - 1, start:start + r - 1]
            kept = list(np.sqrt(np.diag(block)))
            dropped = math.sqrt(block.sum())
            errors += [dropped] + kept if drop == 0 else kept + [dropped]
            start += r - 1
    return np.array(errors)


def _se_entries(network, data, fit):
    errors = lca.standard_errors(network, fit.cpts, data.patterns, data.counts, fit.alpha)
    return _entries(errors.tables), errors


# --- posteriors ------------------------------------------------------------------------------
def test_posteriors_match_brute_force_with_missing_cells(rng):
    network = latent_class(3, [2, 3, 2, 4], hidden="H")
    cpts = random_parameters(network, rng)
    patterns = np.column_stack([rng.integers(-1, r, size=40) for r in (2, 3, 2, 4)])
    patterns[0] = MISSING  # a case with nothing observed: the prior is its posterior
    posterior, log_marginal = class_posteriors(network, cpts, patterns)
    joint = observed_distribution(network, cpts)
    for p, pattern in enumerate(patterns):
        # p(x_p, h) by brute force: the class weight times the observed items' probabilities
        product = cpts[0][0].copy()
        for j, x in enumerate(pattern):
            if x != MISSING:
                product *= cpts[j + 1][:, x]
        np.testing.assert_allclose(posterior[p], product / product.sum(), rtol=1e-12)
        # p(x_p) = the sum of the full table over every completion of the missing cells
        index = tuple(slice(None) if x == MISSING else x for x in pattern)
        assert log_marginal[p] == pytest.approx(math.log(joint[index].sum()), rel=1e-12)
    np.testing.assert_allclose(posterior[0], cpts[0][0])
    assert list(modal_class(posterior)) == list(posterior.argmax(axis=1))


def test_posteriors_refuse_other_models_and_impossible_patterns():
    network = latent_class(2, [2, 2], hidden="H")
    cpts = [np.array([[0.5, 0.5]]), np.array([[1.0, 0.0], [1.0, 0.0]]),
            np.array([[0.5, 0.5], [0.5, 0.5]])]
    with pytest.raises(HiddenbnError, match="probability zero"):
        class_posteriors(network, cpts, np.array([[1, 0]]))
    with pytest.raises(HiddenbnError, match="outside"):
        class_posteriors(network, cpts, np.array([[2, 0]]))
    chain = parse_spec({"nodes": {"H": {"states": 2, "hidden": True},
                                  "X1": {"states": 2, "parents": ["H"]},
                                  "X2": {"states": 2, "parents": ["X1"]}}})
    with pytest.raises(HiddenbnError, match="latent class model"):
        class_posteriors(chain, cpts, np.array([[0, 0]]))


def test_pattern_posteriors_match_columns_by_name(rng):
    network, data, fit = _fit(2, [2, 3], 300, 3)
    swapped = Dataset(data.names[::-1], data.patterns[:, ::-1], data.counts)
    posterior, modal = pattern_posteriors(fit, swapped)
    expected, _ = class_posteriors(network, fit.cpts, data.patterns)
    np.testing.assert_allclose(posterior, expected)
    assert list(modal) == list(expected.argmax(axis=1))


# --- standard errors -------------------------------------------------------------------------
def test_standard_errors_match_inverted_finite_difference_hessians():
    """Both parametrisations, each row's last entry dropped (the project's free parameters) and
    each row's first dropped, give every entry's variance as a diagonal element of an inverted
    finite-difference Hessian somewhere: the delta-method variance of the dependent entry, the
    last category included, is checked against a direct computation."""
    network, data, fit = _fit(2, [2, 3, 2, 2], 2000, 3)
    mine, errors = _se_entries(network, data, fit)
    assert errors.notes == []
    assert "observed information" in errors.method and "ML" in errors.method
    last_dropped = free_parameters(network, fit.cpts)
    hessian = _finite_difference_hessian(
        lambda theta: _log_likelihood(network, parameters_from_free(network, theta), data),
        last_dropped)
    covariance = np.linalg.inv(-hessian)
    direct = np.concatenate([np.sqrt(np.diag(covariance[s:s + r - 1, s:s + r - 1]))
                             for s, r in _row_blocks(fit.cpts)])
    np.testing.assert_allclose(mine[_kept(fit.cpts, drop=-1)], direct, rtol=1e-4)
    np.testing.assert_allclose(mine, _ambient_errors(fit.cpts, -1, covariance), rtol=1e-4)

    def first_dropped_cpts(theta):
        tables, start = [], 0
        for table in fit.cpts:
            q, r = table.shape
            tail = theta[start:start + q * (r - 1)].reshape(q, r - 1)
            tables.append(np.hstack([1.0 - tail.sum(axis=1, keepdims=True), tail]))
            start += q * (r - 1)
        return tables

    first = np.concatenate([t[:, 1:].ravel() for t in fit.cpts])
    hessian = _finite_difference_hessian(
        lambda theta: _log_likelihood(network, first_dropped_cpts(theta), data), first)
    covariance = np.linalg.inv(-hessian)
    direct = np.sqrt(np.diag(covariance))
    np.testing.assert_allclose(mine[_kept(fit.cpts, drop=0)], direct, rtol=1e-4)


def _row_blocks(cpts):
    """``(start, r)`` of each CPT row's block of free parameters."""
    blocks, start = [], 0
    for table in cpts:
        q, r = table.shape
        for _ in range(q):
            blocks.append((start, r))
            start += r - 1
    return blocks


def _kept(cpts, drop):
    """Mask of the entries that are free parameters when each row's ``drop`` entry is not."""
    masks = []
    for table in cpts:
        mask = np.ones(table.shape, bool)
        mask[:, drop] = False
        masks.append(mask.ravel())
    return np.concatenate(masks)


@pytest.mark.parametrize("alpha", [1.0, 1.5])
def test_standard_errors_match_the_negative_hessian_of_scores(alpha):
    """In the interior the covariance is the inverse of scores.negative_hessian (ML: observed
    information; MAP: with the Dirichlet prior's curvature), whatever the reference entries."""
    network, data, fit = _fit(3, [2, 3, 2, 2, 3], 3000, 6, alpha=alpha)
    mine, errors = _se_entries(network, data, fit)
    covariance = np.linalg.inv(negative_hessian(network, data, fit.cpts, alpha))
    np.testing.assert_allclose(mine, _ambient_errors(fit.cpts, -1, covariance), rtol=1e-7)
    assert ("MAP" in errors.method) == (alpha != 1.0)


def test_boundary_entries_are_fixed_and_named_and_the_rest_conditional_on_them():
    zeros = [(1, 0, 1), (2, 1, 2)]  # class 1: X1 = 1; class 2: X2 = 2
    network, data, fit = _fit(2, [2, 3, 2, 2, 2], 3000, 8, zeros=zeros)
    assert fit.cpts[1][0, 1] == 0.0 and fit.cpts[2][1, 2] == 0.0
    mine, errors = _se_entries(network, data, fit)
    values = _entries(fit.cpts)
    fixed = np.isnan(mine)
    # the zeros, and X1's row of class 1, whose only other entry is 1 minus the zero
    assert set(np.flatnonzero(fixed)) == {2, 3, 6 + 3 + 2}
    assert len(errors.notes) == 1
    assert "class 1: X1 = 1" in errors.notes[0] and "class 2: X2 = 2" in errors.notes[0]
    # the others: an inverted finite-difference Hessian in coordinates that hold the fixed
    # entries and drop each row's largest entry (1 minus the rest of its row)
    rows = _rows(fit.cpts)
    free = [(row, e) for row in rows for e in row
            if not fixed[e] and e != max(row, key=lambda i: values[i])]

    def cpts_at(theta):
        entries = values.copy()
        for (row, e), value in zip(free, theta):
            entries[e] = value
        for row in rows:
            largest = max(row, key=lambda i: values[i])
            entries[largest] = 1.0 - sum(entries[i] for i in row if i != largest)
        return _tables(entries, fit.cpts)

    theta = np.array([values[e] for _, e in free])
    hessian = _finite_difference_hessian(
        lambda t: _log_likelihood(network, cpts_at(t), data), theta)
    covariance = np.linalg.inv(-hessian)
    expected = np.full(values.size, np.nan)
    for row in rows:
        members = [k for k, (r, _) in enumerate(free) if r is row]
        for k in members:
            expected[free[k][1]] = math.sqrt(covariance[k, k])
        if members:
            largest = max(row, key=lambda i: values[i])
            expected[largest] = math.sqrt(covariance[np.ix_(members, members)].sum())
    np.testing.assert_allclose(mine, expected, rtol=1e-4)


def _rows(cpts):
    """Entry numbers of each CPT row."""
    rows, start = [], 0
    for table in cpts:
        q, r = table.shape
        rows += [list(range(start + j * r, start + (j + 1) * r)) for j in range(q)]
        start += q * r
    return rows


def _tables(entries, like):
    tables, start = [], 0
    for table in like:
        tables.append(entries[start:start + table.size].reshape(table.shape))
        start += table.size
    return tables


def test_a_non_identifiable_model_gets_no_standard_errors_and_a_note():
    network, data, fit = _fit(2, [2, 2], 500, 4)  # ds 5, de 3: two flat directions
    mine, errors = _se_entries(network, data, fit)
    assert np.isnan(mine).all()
    assert any("not identifiable along 2 directions" in note for note in errors.notes)


def test_a_small_class_with_many_zeros_is_identifiable():
    """A class of a dozen cases that gives most cells probability zero: cells drawn uniformly
    would almost never reach its support, and its 24 coordinates, more than its cases, would
    look unidentifiable. Its cases are classified almost with certainty, so its standard errors
    are nearly those of multinomial proportions."""
    rng = np.random.default_rng(12)
    network = latent_class(2, [5] * 12, hidden="H")
    truth = [np.array([[0.99, 0.01]])] + [
        np.vstack([rng.dirichlet(np.ones(5)), [0.4, 0.3, 0.3, 0.0, 0.0]]) for _ in range(12)]
    data = sample_dataset(network, truth, 1200, rng)
    fit = run_em(network, data, truth, alpha=1.0, max_iterations=5000, tolerance=1e-13)
    mine, errors = _se_entries(network, data, fit)
    assert not any("not identifiable" in note for note in errors.notes)
    cases = fit.cpts[0][0, 1] * data.n_cases
    p = fit.cpts[1][1]
    tables = _tables(mine, fit.cpts)
    seen = p > lca.BOUNDARY_PROBABILITY
    np.testing.assert_allclose(tables[1][1][seen], np.sqrt(p * (1 - p) / cases)[seen],
                               rtol=0.05)


def test_a_note_about_many_empty_classes_names_the_first_few():
    network = latent_class(30, [2, 2])
    rng = np.random.default_rng(3)
    cpts = random_parameters(network, rng)
    cpts[0] = np.zeros((1, 30))
    cpts[0][0, 0] = 1.0  # classes 2..30 are empty
    data = sample_dataset(network, cpts, 50, rng)
    notes = lca.standard_errors(network, cpts, data.patterns, data.counts, 1.0).notes
    named = lca.NAMED_IN_NOTE
    expected = ", ".join(str(h) for h in range(2, 2 + named)) + f", and {29 - named} more"
    assert notes[0].startswith(f"empty classes {expected} (size below")


def test_an_empty_class_a_singular_point_and_a_non_maximum_are_named():
    network, data, fit = _fit(2, [2, 2, 2], 500, 6)

    def errors_at(cpts):
        errors = lca.standard_errors(network, cpts, data.patterns, data.counts, 1.0)
        return _entries(errors.tables), errors.notes

    empty = [np.array([[1.0, 0.0]])] + [t.copy() for t in fit.cpts[1:]]
    mine, notes = errors_at(empty)
    assert "empty class 2" in notes[0]
    class_two = [1, 2 + 2, 2 + 3, 6 + 2, 6 + 3, 10 + 2, 10 + 3]  # its size and item rows
    assert np.isnan(mine[class_two]).all() and not np.isnan(mine).all()
    # two identical classes (at the one-class ML estimate): a singular point of the model,
    # where the classes can be told apart along no direction
    rows = data.rows()
    margins = [np.bincount(rows[:, j], minlength=2) / rows.shape[0] for j in range(3)]
    mine, notes = errors_at([np.array([[0.5, 0.5]])] + [np.vstack([m, m]) for m in margins])
    assert np.isnan(mine).all() and "not identifiable" in notes[-1]
    # parameters far from any maximum
    mine, notes = errors_at(random_parameters(network, np.random.default_rng(0)))
    assert np.isnan(mine).all() and "not positive definite" in notes[-1]


# --- classification quality ------------------------------------------------------------------
def test_entropy_and_entropy_r2_match_a_computation_over_the_cases():
    network, data, fit = _fit(3, [2, 3, 2, 2], 400, 2)
    posterior, _ = class_posteriors(network, fit.cpts, data.patterns)
    entropy = 0.0
    for case in data.rows():
        joint = fit.cpts[0][0] * np.prod([fit.cpts[j + 1][:, x] for j, x in enumerate(case)],
                                         axis=0)
        w = joint / joint.sum()
        entropy -= float(np.sum(w * np.log(w)))
    assert lca.classification_entropy(posterior, data.counts) == pytest.approx(entropy, rel=1e-10)
    assert lca.entropy_r2(entropy, 400, 3) == pytest.approx(1 - entropy / (400 * math.log(3)))
    assert lca.entropy_r2(0.0, 400, 1) is None
    certain = np.eye(3)[[0, 1, 2, 2]]
    assert lca.classification_entropy(certain, [1, 1, 1, 5]) == 0.0
    assert lca.entropy_r2(0.0, 8, 3) == 1.0
    assert lca.entropy_r2(lca.classification_entropy(np.full((1, 3), 1 / 3), [8]), 8, 3) == \
        pytest.approx(0.0, abs=1e-12)


# --- fit statistics --------------------------------------------------------------------------
def _direct_goodness_of_fit(network, cpts, data):
    """G^2, X^2 and the fraction of cells with E < 5 over the enumerated table; a cell that
    the model makes impossible (E = 0, hence O = 0) adds nothing."""
    n = data.n_cases
    expected = n * observed_distribution(network, cpts)
    observed = np.zeros(expected.shape)
    np.add.at(observed, tuple(data.patterns.T), data.counts)
    seen, possible = observed > 0, expected > 0
    assert possible[seen].all()
    g2 = 2 * np.sum(observed[seen] * np.log(observed[seen] / expected[seen]))
    x2 = np.sum((observed[possible] - expected[possible]) ** 2 / expected[possible])
    return g2, x2, float(np.mean(expected < 5))


def test_g2_and_x2_match_the_enumerated_table_and_need_no_enumeration(monkeypatch):
    network, data, fit = _fit(2, [2, 3, 2, 3], 60, 9)  # 36 cells, some never observed
    g2, x2, small = _direct_goodness_of_fit(network, fit.cpts, data)
    ds = network.standard_dimension
    statistics, notes = lca.goodness_of_fit(network, fit.cpts, data.patterns, data.counts, ds, 9)
    assert statistics["n_observed_cells"] < statistics["n_cells"] == 36
    assert statistics["g2"] == pytest.approx(g2, rel=1e-10)
    assert statistics["chi2"] == pytest.approx(x2, rel=1e-10)
    assert statistics["cells_expected_below_5"] == pytest.approx(small)
    assert statistics["cells_expected_below_5_is_lower_bound"] is False
    assert any("expected count below 5" in note for note in notes)
    assert statistics["df"] == 36 - 1 - ds and statistics["df_effective"] == 36 - 1 - 9
    assert statistics["g2_p"] == pytest.approx(chi2.sf(g2, 36 - 1 - ds))
    assert statistics["chi2_p_effective"] == pytest.approx(chi2.sf(x2, 26))
    assert any(f"de = 9 < ds = {ds}" in note for note in notes)
    # a table too large to enumerate: the same statistics, a bound on the sparse cells
    monkeypatch.setattr(lca, "MAX_ENUMERATED_CELLS", 10)
    large, _ = lca.goodness_of_fit(network, fit.cpts, data.patterns, data.counts, ds)
    assert large["g2"] == statistics["g2"] and large["chi2"] == statistics["chi2"]
    assert large["cells_expected_below_5_is_lower_bound"] is True
    assert 0 <= large["cells_expected_below_5"] <= small
    assert large["df_effective"] is None and large["g2_p_effective"] is None


def test_g2_of_a_table_beyond_the_range_of_floats():
    # 2^1100 cells: the count of cells, the df and the sparse-cell bound overflow floats
    network = latent_class(2, [2] * 1100, hidden="H")
    cpts = random_parameters(network, np.random.default_rng(2))
    patterns = np.random.default_rng(3).integers(0, 2, (4, 1100)).astype(np.int32)
    ds = network.standard_dimension
    statistics, notes = lca.goodness_of_fit(network, cpts, patterns, np.ones(4, int), ds, ds)
    assert statistics["n_cells"] == 2**1100 and statistics["df"] == 2**1100 - 1 - ds
    assert statistics["g2"] > 0 and statistics["g2_p"] == 1.0
    assert statistics["chi2"] is None and statistics["chi2_p"] is None  # E ~ 2^-1100
    assert any("X^2 exceeds the range of floats" in note for note in notes)
    assert statistics["cells_expected_below_5"] == 1.0
    assert any(note.startswith("nearly all of the about 10^331 cells") for note in notes)


def test_fit_statistics_without_degrees_of_freedom_or_complete_cases():
    network = latent_class(2, [2, 2], hidden="H")
    cpts = random_parameters(network, np.random.default_rng(1))
    data = Dataset(("X1", "X2"), np.array([[0, 0], [1, 1]], dtype=np.int32),
                   np.array([3, 4]))
    statistics, notes = lca.goodness_of_fit(network, cpts, data.patterns, data.counts, 5, 3)
    assert statistics["df"] == -2 and statistics["g2_p"] is None
    assert statistics["df_effective"] == 0 and statistics["chi2_p_effective"] is None
    assert any("df = -2" in note for note in notes)
    assert any("df_effective = 0" in note for note in notes)
    partial = np.array([[0, MISSING], [MISSING, 1]], dtype=np.int32)
    statistics, notes = lca.goodness_of_fit(network, cpts, partial, data.counts, 5, 3)
    assert statistics["g2"] is None and statistics["n_complete_cases"] == 0
    assert any("no complete case" in note for note in notes)


def test_g2_with_missing_cells_uses_the_complete_cases():
    network, data, fit = _fit(2, [2, 3, 2], 300, 10)
    rows = data.rows()
    rows[::7, 1] = MISSING
    with_missing = Dataset.from_rows(data.names, rows, network.observed_cardinalities)
    complete = Dataset.from_rows(data.names, rows[rows[:, 1] != MISSING],
                                 network.observed_cardinalities)
    ds = network.standard_dimension
    statistics, notes = lca.goodness_of_fit(network, fit.cpts, with_missing.patterns,
                                            with_missing.counts, ds)
    expected, _ = lca.goodness_of_fit(network, fit.cpts, complete.patterns, complete.counts, ds)
    for key in ("g2", "chi2", "n_complete_cases", "n_observed_cells"):
        assert statistics[key] == pytest.approx(expected[key], rel=1e-12)
    assert statistics["n_complete_cases"] == complete.n_cases
    assert any(f"the {complete.n_cases} complete cases only" in note for note in notes)


def test_information_criteria_in_the_deviance_orientation():
    criteria = lca.information_criteria(-100.0, 7, 50)
    assert criteria["aic"] == 214.0
    assert criteria["bic"] == pytest.approx(200 + 7 * math.log(50))
    assert criteria["sabic"] == pytest.approx(200 + 7 * math.log(52 / 24))
    assert criteria["caic"] == pytest.approx(200 + 7 * (math.log(50) + 1))


# --- the report ------------------------------------------------------------------------------
def _strict(report):
    return json.loads(json.dumps(report, allow_nan=False))


def test_report_layout_and_values():
    network, data, fit = _fit(2, [2, 3, 2, 2], 2000, 3)
    labels = {"X2": ["low", "mid", "high"], "X1": ["no"]}
    report = _strict(lca_report(fit, data, de=11, labels=labels))
    assert report["model"] == {"classes": 2, "items": ["X1", "X2", "X3", "X4"],
                               "n_cases": 2000, "n_patterns": data.n_patterns, "alpha": 1.0,
                               "estimate": "ML", "ds": 11, "de": 11}
    sizes = fit.cpts[0][0]
    errors = lca.standard_errors(network, fit.cpts, data.patterns, data.counts, 1.0)
    for h, entry in enumerate(report["classes"]):
        assert entry["class"] == h + 1
        assert entry["size"] == pytest.approx(sizes[h])
        assert entry["size_se"] == pytest.approx(errors.tables[0][0, h])
        assert entry["expected_cases"] == pytest.approx(2000 * sizes[h])
    assert report["items"]["X2"]["categories"] == ["low", "mid", "high"]
    assert report["items"]["X1"]["categories"] == ["no", "1"]
    np.testing.assert_allclose(report["items"]["X2"]["probabilities"], fit.cpts[2])
    np.testing.assert_allclose(report["items"]["X3"]["standard_errors"], errors.tables[3])
    classification = report["classification"]
    assert sum(classification["modal_class_counts"]) == 2000
    assert [c["modal_cases"] for c in report["classes"]] == classification["modal_class_counts"]
    for row in classification["average_posterior_by_modal_class"]:
        assert sum(row) == pytest.approx(1.0)
    statistics = report["fit_statistics"]
    assert statistics["log_likelihood"] == pytest.approx(fit.log_likelihood, rel=1e-10)
    assert statistics["bic"] == pytest.approx(-2 * fit.log_likelihood + 11 * math.log(2000))
    assert "smaller is better" in statistics["orientation"]
    assert report["notes"] == []
    text = format_lca_text(report)
    for expected in ("2 classes, 4 items, 2000 cases", "class 1", "low", "mid", "high",
                     "entropy R^2", "AIC", "G^2", "Pearson X^2", "observed information"):
        assert expected in text


def test_report_is_strict_json_at_a_boundary_with_missing_cells_and_one_class():
    network, data, fit = _fit(2, [2, 3, 2, 2, 2], 3000, 8, zeros=[(1, 0, 1), (2, 1, 2)])
    report = _strict(lca_report(fit, data))
    assert report["items"]["X1"]["standard_errors"][0] == [None, None]
    assert any("at the boundary" in note for note in report["notes"])
    assert any("effective dimension unknown" in note for note in report["notes"])
    assert "(-)" in format_lca_text(report)
    rows = data.rows()
    rows[::5, 2] = MISSING
    incomplete = Dataset.from_rows(data.names, rows, network.observed_cardinalities)
    report = _strict(lca_report(fit, incomplete))
    assert any("complete cases only" in note for note in report["notes"])
    assert any("not the data that were fitted" in note for note in report["notes"])
    one = latent_class(1, [2, 3], hidden="H")
    one_data = sample_dataset(one, random_parameters(one, np.random.default_rng(1)), 100,
                              np.random.default_rng(2))
    one_fit = run_em(one, one_data, random_parameters(one, np.random.default_rng(3)), alpha=1.0)
    report = _strict(lca_report(one_fit, one_data, de=3))
    assert report["classification"]["entropy_r2"] is None
    assert report["classes"][0]["size_se"] == 0.0
    assert any("entropy R^2 undefined" in note for note in report["notes"])
    assert "entropy R^2 -" in format_lca_text(report)


def test_report_of_a_map_fit_and_a_non_identifiable_model():
    network, data, fit = _fit(2, [2, 2], 500, 4)
    report = _strict(lca_report(fit, data, de=3))
    assert all(se is None for item in report["items"].values()
               for row in item["standard_errors"] for se in row)
    assert any("not identifiable along" in note for note in report["notes"])
    network, data, fit = _fit(2, [2, 3, 2, 2], 500, 3, alpha=1.5)
    report = _strict(lca_report(fit, data))
    assert report["model"]["estimate"] == "MAP"
    assert "MAP" in report["standard_errors"]
    assert any("the fit is MAP" in note for note in report["notes"])


# --- the posterior file ----------------------------------------------------------------------
def test_write_posteriors_one_line_per_input_row_in_input_order(tmp_path):
    posterior = np.array([[0.9, 0.1], [0.25, 0.75], [0.5, 0.5]])
    modal = modal_class(posterior)
    row_pattern = np.array([2, 0, 0, 1, 2])
    path = tmp_path / "out" / "posteriors.csv"
    write_posteriors(path, posterior, modal, row_pattern)
    lines = path.read_text().splitlines()
    assert lines[0] == "row,p_class1,p_class2,modal_class"
    assert lines[1:] == ["1,0.5,0.5,1", "2,0.9,0.1,1", "3,0.9,0.1,1", "4,0.25,0.75,2",
                         "5,0.5,0.5,1"]
    assert sorted(p.name for p in path.parent.iterdir()) == ["posteriors.csv"]
    write_posteriors(path, posterior, modal)
    assert len(path.read_text().splitlines()) == 4


def test_write_posteriors_leaves_no_file_when_it_fails(tmp_path):
    path = tmp_path / "posteriors.csv"
    with pytest.raises(IndexError):
        write_posteriors(path, np.eye(2), np.arange(2), np.array([0, 5]))
    assert list(tmp_path.iterdir()) == []


# --- the profile figure ----------------------------------------------------------------------
@pytest.mark.parametrize("cards", [[2, 2, 2, 2], [2, 3, 4]])
def test_class_profile_figure_writes_png_and_pdf(tmp_path, cards):
    import matplotlib.pyplot as plt

    network, data, fit = _fit(2, cards, 300, 1)
    report = lca_report(fit, data)
    open_before = plt.get_fignums()  # other tests in this worker may hold figures
    png = plots.class_profile_figure(report, tmp_path / "profile.png")
    pdf = plots.class_profile_figure(report, tmp_path / "profile.pdf")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000
    assert pdf.read_bytes()[:5] == b"%PDF-"
    assert plt.get_fignums() == open_before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["profile.pdf", "profile.png"]
    with pytest.raises(HiddenbnError, match=r"\.png, \.pdf or \.svg"):
        plots.class_profile_figure(report, tmp_path / "profile.jpeg")
