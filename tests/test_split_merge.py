"""Split-and-merge moves: posteriors against enumeration, and a fit with two classes for one
group and one class for two, which EM cannot leave and one move repairs."""

import warnings

import numpy as np
import pytest

from hiddenbn.data import MISSING, Dataset
from hiddenbn.data.sampling import sample_dataset
from hiddenbn.inference.enumeration import posterior_chunks
from hiddenbn.inference.latent_class import class_posteriors, packed_rows
from hiddenbn.learning import em
from hiddenbn.learning.engine import Run
from hiddenbn.learning.split_merge import (SPLIT_SMOOTHING, _candidates, _distances,
                                           _state_frequencies, split_merge)
from hiddenbn.models.network import latent_class, random_parameters


def test_posteriors_and_frequencies(rng):
    network = latent_class(3, [2, 3, 4])
    cpts = random_parameters(network, rng)
    data = sample_dataset(network, cpts, 200, rng)
    engine = em.make_engine(network, data, 1.01)
    ours, _ = class_posteriors(network, cpts, engine.patterns)
    (_, _, weights, _), = posterior_chunks(network, cpts, data.patterns)
    np.testing.assert_allclose(ours, weights, rtol=1e-10)
    mass = rng.random(data.n_patterns)
    rows = packed_rows(engine.patterns, engine.cards)
    column = _state_frequencies(rows, mass, engine.offsets, engine.cards)
    np.testing.assert_allclose(np.add.reduceat(column, engine.offsets), 1.0)


def test_state_frequencies_count_the_observed_cells_of_each_variable(rng):
    """Against a count written out case by case: each variable's states weighted by the
    pattern masses, its missing cells left out, smoothed and normalised."""
    network = latent_class(2, [2, 3, 4, 2])
    rows = sample_dataset(network, random_parameters(network, rng), 300, rng).rows().copy()
    rows[rng.random(rows.shape) < 0.2] = MISSING
    data = Dataset.from_rows(network.observed_names, rows, network.observed_cardinalities)
    engine = em.make_engine(network, data, 1.01)
    assert (engine.patterns == MISSING).any()
    mass = rng.random(engine.patterns.shape[0])
    packed = packed_rows(engine.patterns, engine.cards)
    column = _state_frequencies(packed, mass, engine.offsets, engine.cards)
    for j, (offset, states) in enumerate(zip(engine.offsets, engine.cards)):
        weighted = np.full(states, SPLIT_SMOOTHING)
        for pattern, weight in zip(engine.patterns, mass):
            if pattern[j] != MISSING:
                weighted[pattern[j]] += weight
        np.testing.assert_allclose(column[offset:offset + states], weighted / weighted.sum(),
                                   rtol=1e-13)


def test_a_move_repairs_a_fit_em_cannot_leave():
    """Three well-separated groups fitted by three classes of which two share one group: g
    rises to that of EM started from the truth."""
    network = latent_class(3, [2] * 12)
    truth = [np.array([[0.4, 0.3, 0.3]])] + [
        np.array([[0.95, 0.05], [0.05, 0.95], [0.5, 0.5]]) if j % 2 else
        np.array([[0.95, 0.05], [0.95, 0.05], [0.05, 0.95]]) for j in range(12)]
    rng = np.random.default_rng(0)
    data = sample_dataset(network, truth, 600, rng)
    oracle = em.run_em(network, data, truth, 1.01, 300, 1e-9, True).log_posterior
    # class 0 covers groups 0 and 1 (their average), classes 1 and 2 both sit on group 2
    wrong = [np.array([[0.7, 0.15, 0.15]])] + [
        np.array([[(t[0, 0] + t[1, 0]) / 2, (t[0, 1] + t[1, 1]) / 2], t[2], t[2]])
        for t in truth[1:]]
    stuck = em.run_em(network, data, wrong, 1.01, 300, 1e-9, True)
    assert stuck.log_posterior < oracle - 50
    engine = em.make_engine(network, data, 1.01)
    run = Run(engine, engine.from_cpts(stuck.cpts))
    repaired, moves = split_merge(engine, run, np.random.default_rng(1))
    assert moves >= 1
    repaired.converge(300, 1e-9, True)
    assert repaired.g == pytest.approx(oracle, abs=1.0) or repaired.g > oracle


def test_distances_are_squared_distances_of_one_hot_cases_over_observed_cells(rng):
    """Against ``|onehot(x) - q|^2`` over the observed variables, less one per observed cell."""
    network = latent_class(2, [2, 3, 4, 2])
    rows = sample_dataset(network, random_parameters(network, rng), 200, rng).rows().copy()
    rows[rng.random(rows.shape) < 0.2] = MISSING
    data = Dataset.from_rows(network.observed_names, rows, network.observed_cardinalities)
    engine = em.make_engine(network, data, 1.01)
    packed = packed_rows(engine.patterns, engine.cards)
    q = _state_frequencies(packed, rng.random(engine.patterns.shape[0]), engine.offsets,
                           engine.cards)
    ours = _distances(q, packed, engine.offsets, engine.cards)
    for pattern, distance in zip(engine.patterns, ours):
        expected = 0.0
        for j, (offset, states) in enumerate(zip(engine.offsets, engine.cards)):
            if pattern[j] == MISSING:
                continue
            gap = (np.arange(states) == pattern[j]) - q[offset:offset + states]
            expected += gap @ gap - 1.0
        assert distance == pytest.approx(expected, abs=1e-12)


def test_ml_fits_with_zero_probabilities_rank_moves_without_warnings():
    """ML (alpha = 1) on five cases leaves probabilities at zero: their logs are -inf and
    classes with no mass on a pattern must not turn the fit ranking into NaN (nor print
    NumPy warnings to the user)."""
    network = latent_class(3, [2, 2, 2])
    data = Dataset.from_rows(network.observed_names,
                             np.array([[0, 1, 0], [1, 1, 0], [0, 0, 1], [1, 0, 1], [0, 1, 1]]),
                             network.observed_cardinalities)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for seed in range(5):
            # plain EM: its ML fit reaches the zeros that SQUAREM's jumps leave at 1e-12
            fit = em.fit(network, data, np.random.default_rng(seed), 1.0, 2, 200, 1e-10,
                         "annealing", convergence="absolute", acceleration="none")
            assert np.isfinite(fit.log_posterior)
    engine = em.make_engine(network, data, 1.0)
    state = engine.from_cpts(fit.cpts)
    assert (state[1] == 0).any()  # the case this test is about
    posteriors, _ = class_posteriors(network, engine.to_cpts(state), engine.patterns)
    merges, splits = _candidates(engine, packed_rows(engine.patterns, engine.cards), state,
                                 posteriors)
    assert sorted(splits) == sorted(set(splits)) and len(merges) == 3
