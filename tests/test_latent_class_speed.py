"""The design E step of the latent class model (issue 19): its vectorised exp and fused
per-row weighing against independent computations (NumPy, enumeration, the gather kernel)."""

import numba
import numpy as np
import pytest

from hiddenbn import inference
from hiddenbn.data import MISSING, Dataset
from hiddenbn.em import make_engine
from hiddenbn.models import latent_class, random_parameters
from hiddenbn.sampling import sample_dataset
from reference import assert_e_step_identical_on_one_and_two_threads


@numba.njit
def _exp_all(values):
    out = np.empty_like(values)
    for i in range(values.shape[0]):
        out[i] = inference._exp_nonpositive(values[i])
    return out


def test_exp_is_within_an_ulp_or_two_of_numpy(rng):
    values = np.concatenate([-rng.exponential(5.0, 100_000), -rng.random(10_000) * 700.0,
                             [0.0, -0.0, -1e-300, -np.log(2) / 2, -np.log(2), -707.9, -708.0]])
    ours, theirs = _exp_all(values), np.exp(values)
    np.testing.assert_allclose(ours, theirs, rtol=4.5e-16, atol=0.0)


def test_exp_is_zero_far_below_and_at_minus_infinity():
    values = np.array([-708.5, -745.2, -800.0, -1e300, -np.inf])
    assert np.all(_exp_all(values) == 0.0)


def _random_problem(rng, cards, rows, classes, missing_rate):
    cards = np.asarray(cards)
    patterns = np.stack([rng.integers(0, r, rows) for r in cards], axis=1).astype(np.int32)
    if missing_rate:
        patterns[rng.random(patterns.shape) < missing_rate] = MISSING
    counts = rng.integers(1, 6, rows).astype(float)
    weights = rng.dirichlet(np.ones(classes))
    table = np.vstack([rng.dirichlet(np.ones(r), size=classes).T for r in cards])
    return patterns, counts, weights, table, inference.state_offsets(cards), cards


@pytest.mark.parametrize("cards, missing_rate", [
    ([2] * 40, 0.0), ([2] * 40, 0.15), ([2, 3, 5, 2, 4], 0.0), ([3, 2, 4, 2], 0.25)])
def test_design_e_step_matches_the_gather_kernel(cards, missing_rate, rng):
    """Several blocks and a short last one, binary and not, with and without missing cells."""
    rows = 2 * inference.DESIGN_BLOCK_ROWS + 311
    patterns, counts, weights, table, offsets, cards = _random_problem(
        rng, cards, rows, 6, missing_rate)
    design = inference.latent_class_design(patterns, cards)
    by_design = inference.latent_class_statistics(patterns, counts, weights, table, offsets,
                                                  design)
    by_kernel = inference.latent_class_statistics(patterns, counts, weights, table, offsets)
    assert by_design[2] == pytest.approx(by_kernel[2], rel=1e-13)
    for a, b in zip(by_design[:2], by_kernel[:2]):
        np.testing.assert_allclose(a, b, rtol=1e-11, atol=1e-9)


@pytest.mark.parametrize("missing_rate", [0.0, 0.2])
def test_design_e_step_matches_numpy_products(missing_rate, rng):
    """The products that the kernel adds up, written as dense NumPy products."""
    patterns, counts, weights, table, offsets, cards = _random_problem(
        rng, [2, 3, 2, 2, 4], 3000, 5, missing_rate)
    design = inference.latent_class_design(patterns, cards)
    class_counts, table_counts, missing_mass, log_likelihood = \
        inference._statistics_by_design(design, counts, weights, table, offsets)
    # the coefficients of latent_class_design's docstring, built independently
    log_table, free = np.log(table), cards - 1
    coefficients = []
    for j, (o, r) in enumerate(zip(offsets, cards)):
        coefficients += [log_table[o + s] - log_table[o + r - 1] for s in range(r - 1)]
    if design.shape[1] > free.sum() + 1:
        coefficients += [-log_table[o + r - 1] for o, r in zip(offsets, cards)]
    coefficients.append(np.log(weights) + sum(log_table[o + r - 1] for o, r in zip(offsets,
                                                                                   cards)))
    joint = design @ np.array(coefficients)
    top = joint.max(axis=1, keepdims=True)
    total = np.exp(joint - top).sum(axis=1, keepdims=True)
    posterior = counts[:, None] * np.exp(joint - top) / total
    expected = design.T @ posterior
    assert log_likelihood == pytest.approx(float(counts @ (top + np.log(total)).ravel()),
                                           rel=1e-13)
    np.testing.assert_allclose(class_counts, expected[-1], rtol=1e-12)
    np.testing.assert_allclose(table_counts[np.delete(np.arange(table.shape[0]),
                                                      offsets + cards - 1)],
                               expected[:free.sum()], rtol=1e-11, atol=1e-10)
    if missing_rate:
        np.testing.assert_allclose(missing_mass, expected[free.sum():-1], rtol=1e-11,
                                   atol=1e-10)
    else:
        assert missing_mass is None


def test_design_e_step_matches_enumeration_with_a_class_far_from_the_data(rng):
    """Log joints hundreds of nats apart: the small posteriors are exp's far range."""
    network = latent_class(4, [2] * 30)
    cpts = random_parameters(network, rng)
    data = sample_dataset(network, cpts, 400, rng)
    cpts[1] = np.vstack([cpts[1][:3], [[1e-12, 1 - 1e-12]]])  # class 3 unlike the data
    for i in range(2, len(cpts)):
        cpts[i][3] = [1e-12, 1 - 1e-12]
    engine = make_engine(network, data, 1.0)
    assert engine.design is not None
    statistics = engine.e_step(engine.from_cpts(cpts))
    expected, log_likelihood = inference.enumeration_statistics(network, cpts, data.patterns,
                                                                data.counts)
    assert statistics.log_likelihood == pytest.approx(log_likelihood, rel=1e-12)
    for ours, theirs in zip(engine.expected_counts(statistics), expected):
        np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("missing_rate", [0.0, 0.1])
def test_design_e_step_is_identical_on_one_and_two_threads(missing_rate, rng):
    network = latent_class(8, [2] * 40)
    cpts = random_parameters(network, rng)
    data = sample_dataset(network, cpts, 3 * inference.DESIGN_BLOCK_ROWS + 5, rng)
    if missing_rate:
        rows = data.rows().copy()
        rows[rng.random(rows.shape) < missing_rate] = MISSING
        data = Dataset.from_rows(network.observed_names, rows, network.observed_cardinalities)
        assert data.has_missing
    engine = make_engine(network, data, 1.0)
    assert engine.design is not None
    assert engine.design.shape[0] > 2 * inference.DESIGN_BLOCK_ROWS
    assert_e_step_identical_on_one_and_two_threads(engine, engine.from_cpts(cpts))
