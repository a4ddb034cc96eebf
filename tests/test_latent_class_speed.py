"""The latent class E step's two paths: the pass over groups of variables and the
BLAS products on the design, with their vectorised exp, against independent computations
(dense NumPy, enumeration) and each other."""

import numba
import numpy as np
import pytest

from hiddenbn.data import MISSING
from hiddenbn.data.sampling import sample_dataset
from hiddenbn.inference import enumeration as inference
from hiddenbn.learning.em import make_engine
from hiddenbn.models.network import latent_class, random_parameters
from hiddenbn.util.limits import GROUP_TABLE_BYTES, GROUP_TABLE_ROWS
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


def _numpy_statistics(patterns, counts, weights, table, offsets, cards):
    """The E step written densely in NumPy, variable by variable: ``log p(x_p, h)``, the
    posterior, the expected counts of the observed cells, and the missing cells completed
    from their classes (``latent_class_statistics``'s docstring)."""
    observed = patterns != MISSING
    joint = np.tile(np.log(weights), (patterns.shape[0], 1))
    for j, (o, r) in enumerate(zip(offsets, cards)):
        rows = np.log(table[o + np.where(observed[:, j], patterns[:, j], 0)])
        joint += np.where(observed[:, j, None], rows, 0.0)
    top = joint.max(axis=1, keepdims=True)
    posterior = np.exp(joint - top)
    total = posterior.sum(axis=1, keepdims=True)
    mass = counts[:, None] * posterior / total
    table_counts = np.zeros_like(table)
    for j, (o, r) in enumerate(zip(offsets, cards)):
        for x in range(r):
            table_counts[o + x] = mass[patterns[:, j] == x].sum(axis=0)
        table_counts[o:o + r] += table[o:o + r] * mass[~observed[:, j]].sum(axis=0)
    return mass.sum(axis=0), table_counts, float(counts @ (top + np.log(total)).ravel())


@pytest.mark.parametrize("max_states", [1, 2, 8, 64, None])
@pytest.mark.parametrize("cards, missing_rate", [
    ([2] * 13, 0.0), ([2] * 13, 0.15), ([2, 3, 5, 2, 4, 7, 2], 0.0), ([3, 2, 4, 2, 3], 0.25)])
def test_group_e_step_matches_numpy(cards, missing_rate, max_states, rng):
    """Single variables, pairs, groups of several (with a short last one) and the chosen
    grouping; binary and not; a missing cell is a digit of its own."""
    patterns, counts, weights, table, offsets, cards = _random_problem(
        rng, cards, 700, 6, missing_rate)
    groups = inference.state_groups(patterns, cards, 6, max_states)
    ours = inference.latent_class_statistics(patterns, counts, weights, table, offsets,
                                             groups=groups)
    theirs = _numpy_statistics(patterns, counts, weights, table, offsets, cards)
    assert ours[2] == pytest.approx(theirs[2], rel=1e-13)
    for a, b in zip(ours[:2], theirs[:2]):
        np.testing.assert_allclose(a, b, rtol=1e-11, atol=1e-9)


def test_state_groups_codes_are_the_mixed_radix_of_the_digits(rng):
    cards = np.array([2, 3, 2, 4, 2])
    patterns = np.stack([rng.integers(0, r, 50) for r in cards], axis=1).astype(np.int32)
    patterns[3, 1] = MISSING
    groups = inference.state_groups(patterns, cards, 3, max_states=12)
    # radices 2, 4 (a missing cell in column 1), 2, 4, 2: groups (0, 1), (2, 3), (4,)
    np.testing.assert_array_equal(groups.group_starts, [0, 2, 4, 5])
    np.testing.assert_array_equal(groups.radices, [2, 4, 2, 4, 2])
    np.testing.assert_array_equal(groups.code_starts, [0, 8, 16, 18])
    digits = np.where(patterns == MISSING, cards, patterns)
    np.testing.assert_array_equal(groups.codes[:, 0], digits[:, 0] + 2 * digits[:, 1])
    np.testing.assert_array_equal(groups.codes[:, 1], 8 + digits[:, 2] + 2 * digits[:, 3])
    np.testing.assert_array_equal(groups.codes[:, 2], 16 + digits[:, 4])


def test_state_groups_follow_the_data_size(rng):
    """Few patterns: small groups (their tables would cost more than they save); many binary
    patterns: groups of several variables, their tables within the cache budget."""
    cards = np.full(64, 2)
    few = np.stack([rng.integers(0, 2, 20) for _ in cards], axis=1).astype(np.int32)
    many = np.stack([rng.integers(0, 2, 100_000) for _ in cards], axis=1).astype(np.int32)
    small, large = (inference.state_groups(p, cards, 32) for p in (few, many))
    assert small.codes.shape[1] >= 32
    assert 8 <= large.codes.shape[1] <= 16
    assert large.code_starts[-1] <= GROUP_TABLE_ROWS
    # very many classes: each row costs so much memory that the variables stay alone (their
    # rows are the CPTs' own, which EM's memory check counts); a few hundred: fewer rows
    alone = inference.state_groups(many, cards, 10**6)
    assert alone.codes.shape[1] == 64 and alone.code_starts[-1] == 128
    copies_bytes = 2000 * 8 * (inference.LATENT_CLASS_BLOCKS + 1)  # per row at 2000 classes
    fewer = inference.state_groups(many, cards, 2000)
    assert fewer.code_starts[-1] * copies_bytes <= GROUP_TABLE_BYTES
    assert large.code_starts[-1] * copies_bytes > GROUP_TABLE_BYTES


@pytest.mark.parametrize("cards, missing_rate", [([2] * 40, 0.0), ([2] * 40, 0.15),
                                                 ([2, 3, 5, 2, 4], 0.0), ([3, 2, 4, 2], 0.25)])
def test_design_e_step_matches_the_group_e_step(cards, missing_rate, rng):
    patterns, counts, weights, table, offsets, cards = _random_problem(
        rng, cards, 2000, 6, missing_rate)
    design = inference.latent_class_design(patterns, cards)
    by_design = inference.latent_class_statistics(patterns, counts, weights, table, offsets,
                                                  design)
    by_groups = inference.latent_class_statistics(patterns, counts, weights, table, offsets)
    assert by_design[2] == pytest.approx(by_groups[2], rel=1e-13)
    for a, b in zip(by_design[:2], by_groups[:2]):
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
    data = sample_dataset(network, cpts, 600, rng)
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
def test_group_e_step_is_identical_on_one_and_two_threads(missing_rate, rng):
    """Past PARALLEL_MIN_CELLS: fixed blocks of patterns on however many threads."""
    network = latent_class(8, [2] * 40)
    cpts = random_parameters(network, rng)
    data = sample_dataset(network, cpts, 20_000, rng, missing_rate)
    engine = make_engine(network, data, 1.0)
    assert engine.design is None
    # every variable alone: the most work per pattern, so past the parallel threshold
    engine.groups = inference.state_groups(data.patterns, engine.cards, 8, max_states=1)
    assert engine.groups.codes.size * 8 >= inference.PARALLEL_MIN_CELLS
    assert_e_step_identical_on_one_and_two_threads(engine, engine.from_cpts(cpts))


def test_engine_takes_the_design_for_a_few_thousand_binary_patterns_only(rng):
    network = latent_class(8, [2] * 40)
    cpts = random_parameters(network, rng)
    for cases, design in ((60, False), (2000, True), (3000, False)):
        engine = make_engine(network, sample_dataset(network, cpts, cases, rng), 1.0)
        assert (engine.design is not None) == design
