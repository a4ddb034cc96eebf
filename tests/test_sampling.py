"""Forward sampling: the frequencies match the exact distribution; a seed fixes the output."""

import dataclasses

import numpy as np
import pytest
from scipy.stats import chisquare

from hiddenbn.data import Dataset
from hiddenbn.data.sampling import CHUNK_ROWS, forward_sample, sample_dataset
from hiddenbn.errors import HiddenbnError
from hiddenbn.models.network import observed_distribution, random_parameters
from hiddenbn.models.spec import parse_spec


def chi_square_p_value(dataset, probabilities):
    """Pearson's test of pattern counts against an exact distribution (zero cells must be empty)."""
    observed = np.zeros(probabilities.shape)
    np.add.at(observed, tuple(dataset.patterns.T), dataset.counts)
    support = probabilities > 0
    assert observed[~support].sum() == 0, "a state of probability zero was sampled"
    expected = probabilities[support] * dataset.n_cases
    return chisquare(observed[support], expected).pvalue


@pytest.mark.parametrize("spec", ["noisy_max", "5(3(2,2),3(2,2),2)", "4:3,2,5"])
def test_pattern_frequencies_match_the_exact_observed_distribution(spec, noisy_max_network):
    network = noisy_max_network if spec == "noisy_max" else parse_spec(spec)
    cpts = random_parameters(network, np.random.default_rng(1), alpha=1.0)
    dataset = sample_dataset(network, cpts, 200_000, np.random.default_rng(2))
    assert dataset.n_cases == 200_000
    assert chi_square_p_value(dataset, observed_distribution(network, cpts)) > 1e-3


def test_hidden_columns_follow_the_joint_distribution(noisy_max_network):
    cpts = random_parameters(noisy_max_network, np.random.default_rng(3))
    rows = forward_sample(noisy_max_network, cpts, 150_000, np.random.default_rng(4),
                          include_hidden=True)
    everything_observed = dataclasses.replace(noisy_max_network,
                                              hidden=(False,) * noisy_max_network.n_nodes)
    dataset = Dataset.from_rows(noisy_max_network.names, rows, noisy_max_network.cardinalities)
    assert chi_square_p_value(dataset, observed_distribution(everything_observed, cpts)) > 1e-3


def test_a_biased_sampler_would_be_caught(noisy_max_network):
    # the test above has power: data from other parameters is rejected
    cpts = random_parameters(noisy_max_network, np.random.default_rng(1))
    other = random_parameters(noisy_max_network, np.random.default_rng(99))
    dataset = sample_dataset(noisy_max_network, other, 100_000, np.random.default_rng(2))
    assert chi_square_p_value(dataset, observed_distribution(noisy_max_network, cpts)) < 1e-6


def test_same_seed_same_cases_across_chunks():
    network = parse_spec("3:2,2,2")
    cpts = random_parameters(network, np.random.default_rng(5))
    n = CHUNK_ROWS + 123
    a = forward_sample(network, cpts, n, np.random.default_rng(6))
    b = forward_sample(network, cpts, n, np.random.default_rng(6))
    c = forward_sample(network, cpts, n, np.random.default_rng(7))
    assert a.shape == (n, 3) and a.dtype == np.int32
    assert np.array_equal(a, b) and not np.array_equal(a, c)


def test_bad_sample_sizes_are_rejected():
    network = parse_spec("2:2,2")
    cpts = random_parameters(network, np.random.default_rng(0))
    for n in (0, -3, 2.5):
        with pytest.raises(HiddenbnError, match="number of cases must be a positive whole number"):
            forward_sample(network, cpts, n, np.random.default_rng(0))
