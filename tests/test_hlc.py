"""The hill-climb over hidden cardinalities and the KL of paper 002 Sec. 6 against enumeration."""

import itertools
import math

import numpy as np
import pytest
from scipy.stats import entropy

from hiddenbn.dimension.effective import is_regular_hlc
from hiddenbn.learning import hlc
from hiddenbn.models.network import observed_distribution, random_parameters
from hiddenbn.models.spec import parse_spec

#: Table 2's generator: H1 (5 states) over H2, H3 (3 states, two binary leaves each) and a
#: binary leaf.
TREE = "5(3(2,2),3(2,2),2)"


def _regular(c1: int, c2: int, c3: int) -> bool:
    """Regularity of TREE with hidden cardinalities (c1, c2, c3), written out by hand: a hidden
    node has at most prod |Ne| / max |Ne| states (paper 002 Sec. 4); no node here has exactly
    two neighbours."""
    bound = lambda states: math.prod(states) // max(states)  # noqa: E731
    return c1 <= bound([c2, c3, 2]) and c2 <= bound([c1, 2, 2]) and c3 <= bound([c1, 2, 2])


def _greedy(score: dict, start=(2, 2, 2)):
    """The climb written out over an enumerated lattice: the best one-state-more neighbour in
    ``score`` (first node on ties), while strictly better."""
    current, path = start, [start]
    while True:
        moves = [tuple(c + (j == k) for k, c in enumerate(current)) for j in range(3)]
        moves = [m for m in moves if m in score]
        if not moves:
            return current, path
        best = max(moves, key=lambda m: score[m])  # max keeps the first of equal values
        if not score[best] > score[current]:
            return current, path
        current = best
        path.append(current)


def test_cardinalities_round_trip_and_all_binary():
    network = parse_spec(TREE)
    assert hlc.hidden_cardinalities(network) == (5, 3, 3)
    start = hlc.all_binary(network)
    assert hlc.hidden_cardinalities(start) == (2, 2, 2)
    assert hlc.with_hidden_cardinalities(start, (5, 3, 3)) == network
    assert start.observed_cardinalities == network.observed_cardinalities


def test_one_state_more_keeps_the_regular_increases_in_node_order():
    start = hlc.all_binary(parse_spec(TREE))
    for cards in itertools.product(range(2, 7), repeat=3):
        if not _regular(*cards):
            continue
        expected = [m for m in (tuple(c + (j == k) for k, c in enumerate(cards))
                                for j in range(3)) if _regular(*m)]
        assert hlc.one_state_more(start, cards) == expected, cards
    # H2 with a binary parent and two binary leaves holds at most 4 states
    assert hlc.one_state_more(start, (2, 4, 2)) == [(3, 4, 2), (2, 4, 3)]
    assert hlc.one_state_more(parse_spec("3:2,2,2"), (4,)) == []  # 8 / 2: the largest


@pytest.mark.parametrize("seed", range(20))
def test_hill_climb_follows_the_enumerated_greedy_path(seed):
    start = hlc.all_binary(parse_spec(TREE))
    lattice = [c for c in itertools.product(range(2, 9), repeat=3) if _regular(*c)]
    assert all(is_regular_hlc(hlc.with_hidden_cardinalities(start, c)) for c in lattice)
    rng = np.random.default_rng(seed)
    # a toy score with a trend towards more states, so that climbs run several steps
    score = {c: float(rng.normal()) + 0.6 * sum(c) for c in lattice}
    calls = []

    def evaluate(cards):
        calls.append(cards)
        return {"toy": score[cards]}

    final, path = hlc.hill_climb(start, evaluate, "toy")
    assert (final, path) == _greedy(score)
    assert path[-1] == final and all(score[a] < score[b] for a, b in zip(path, path[1:]))
    # a local maximum: no regular one-state increase scores higher
    assert all(score[m] <= score[final] for m in hlc.one_state_more(start, final))
    assert set(calls) <= set(lattice)  # only regular models are evaluated


def test_hill_climb_takes_the_first_node_on_ties_and_stops_without_a_strict_gain():
    start = hlc.all_binary(parse_spec(TREE))
    capped = lambda cards: {"s": float(min(sum(cards), 8))}  # noqa: E731
    assert hlc.hill_climb(start, capped, "s") == ((4, 2, 2), [(2, 2, 2), (3, 2, 2), (4, 2, 2)])
    assert hlc.hill_climb(start, lambda cards: {"s": 0.0}, "s") == ((2, 2, 2), [(2, 2, 2)])
    target = np.array([5, 3, 3])
    closer = lambda cards: {"s": -float(np.sum((np.array(cards) - target) ** 2))}  # noqa: E731
    final, path = hlc.hill_climb(start, closer, "s")
    assert final == (5, 3, 3) and len(path) == 1 + (3 + 1 + 1)


def _brute_force_observed(network, cpts) -> dict:
    """p(observed states) by summing the product of every node's CPT entry over all joint
    states (each node of a tree has at most one parent, whose state is the CPT row)."""
    table = {}
    for states in itertools.product(*(range(r) for r in network.cardinalities)):
        p = 1.0
        for i, parents in enumerate(network.parents):
            p *= cpts[i][states[parents[0]] if parents else 0, states[i]]
        key = tuple(states[i] for i in network.observed_indices)
        table[key] = table.get(key, 0.0) + p
    return table


def test_kl_bits_is_the_sum_over_every_observed_configuration():
    rng = np.random.default_rng(5)
    truth = parse_spec("3(2(2,2),2(2,3))")
    fitted = hlc.with_hidden_cardinalities(truth, (2, 3, 2))
    true_cpts, fitted_cpts = random_parameters(truth, rng), random_parameters(fitted, rng)
    p, q = _brute_force_observed(truth, true_cpts), _brute_force_observed(fitted, fitted_cpts)
    expected = sum(p[x] * math.log2(p[x] / q[x]) for x in p)
    assert hlc.kl_bits(observed_distribution(truth, true_cpts),
                       observed_distribution(fitted, fitted_cpts)) == pytest.approx(
        expected, rel=1e-12)


def test_kl_bits_matches_scipy_and_is_infinite_off_support():
    rng = np.random.default_rng(1)
    p, q = rng.dirichlet(np.ones(16)), rng.dirichlet(np.ones(16))
    assert hlc.kl_bits(p, q) == pytest.approx(entropy(p, q, base=2), rel=1e-12)
    assert hlc.kl_bits(p, p) == pytest.approx(0.0, abs=1e-15)
    p[0], q[0] = 0.0, 0.5  # zero-probability states of p contribute nothing
    assert math.isfinite(hlc.kl_bits(p / p.sum(), q / q.sum()))
    assert hlc.kl_bits(np.array([0.5, 0.5]), np.array([1.0, 0.0])) == math.inf
