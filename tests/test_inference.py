"""Exact inference: expected counts and log-likelihoods against brute-force joint tables."""

import numpy as np
import pytest

from hiddenbn.data import Dataset
from hiddenbn.data.sampling import sample_dataset
from hiddenbn.errors import DataError
from hiddenbn.inference import enumeration as inference
from hiddenbn.learning.em import LatentClassEngine, make_engine
from hiddenbn.models.network import latent_class, random_parameters
from hiddenbn.models.spec import parse_spec
from reference import assert_e_step_identical_on_one_and_two_threads, brute_force_statistics




@pytest.mark.parametrize("spec", ["3(2(2,2),3,2)", "3:2,3,2", "noisy-max"])
def test_enumeration_matches_the_dense_joint_table(spec, noisy_max_network, rng):
    """Hidden trees, latent class and deterministic (max) nodes."""
    network = noisy_max_network if spec == "noisy-max" else parse_spec(spec)
    cpts = random_parameters(network, rng)
    data = sample_dataset(network, cpts, 300, rng)
    expected, log_likelihood = inference.enumeration_statistics(network, cpts, data.patterns,
                                                                data.counts)
    reference, reference_log_likelihood = brute_force_statistics(network, cpts, data)
    assert log_likelihood == pytest.approx(reference_log_likelihood, rel=1e-12)
    for ours, theirs in zip(expected, reference):
        np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-10)


def test_impossible_pattern_is_a_data_error():
    network = parse_spec({"nodes": {"A": {"states": 2, "hidden": True},
                                    "B": {"states": 2, "hidden": True},
                                    "E": {"function": "max", "parents": ["A", "B"]},
                                    "F": {"function": "sum", "parents": ["A", "B"]}}})
    cpts = [np.array([[0.5, 0.5]]), np.array([[0.5, 0.5]]), None, None]
    data = Dataset(("E", "F"), np.array([[0, 2]], dtype=np.int32), np.array([3]))
    with pytest.raises(DataError, match="probability zero"):
        inference.enumeration_statistics(network, cpts, data.patterns, data.counts)


@pytest.mark.parametrize("path", ["single variables", "groups", "design"])
def test_latent_class_e_step_matches_enumeration(path, rng):
    network = latent_class(4, [2, 3, 5, 2])
    cpts = random_parameters(network, rng)
    data = sample_dataset(network, cpts, 500, rng)
    engine = LatentClassEngine(network, data, 1.0)
    engine.groups = inference.state_groups(data.patterns, engine.cards, 4,
                                           1 if path == "single variables" else 30)
    engine.design = inference.latent_class_design(data.patterns, engine.cards) \
        if path == "design" else None
    statistics = engine.e_step(engine.from_cpts(cpts))
    expected, log_likelihood = inference.enumeration_statistics(network, cpts, data.patterns,
                                                                data.counts)
    assert statistics.log_likelihood == pytest.approx(log_likelihood, rel=1e-12)
    for ours, theirs in zip(engine.expected_counts(statistics), expected):
        np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-10)


def test_latent_class_e_step_is_identical_for_one_and_two_threads(rng):
    network = latent_class(32, [2] * 64)
    cpts = random_parameters(network, rng)
    data = sample_dataset(network, cpts, 3000, rng)
    engine = make_engine(network, data, 1.0)
    engine.design = None  # the group pass, every variable alone: past the parallel threshold
    engine.groups = inference.state_groups(data.patterns, engine.cards, 32, max_states=1)
    assert engine.groups.codes.size * 32 >= inference.PARALLEL_MIN_CELLS
    assert_e_step_identical_on_one_and_two_threads(engine, engine.from_cpts(cpts))


def test_zero_weights_and_zero_entries_give_no_nan(rng):
    network = latent_class(3, [2, 2, 2])
    cpts = random_parameters(network, rng)
    cpts[0] = np.array([[0.0, 0.4, 0.6]])  # an empty class
    cpts[1][1] = [1.0, 0.0]  # a boundary estimate
    data = sample_dataset(network, cpts, 100, rng)
    engine = make_engine(network, data, 1.0)
    statistics = engine.e_step(engine.from_cpts(cpts))
    assert np.isfinite(statistics.log_likelihood)
    counts = engine.expected_counts(statistics)
    assert all(np.all(np.isfinite(c)) for c in counts)
    assert counts[0][0, 0] == 0.0
