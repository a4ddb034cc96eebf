"""The SMC marginal likelihood against the exact value (over many seeds) and against Eq. 5."""

import numba
import numpy as np
import pytest

from hiddenbn.data import MISSING, Dataset
from hiddenbn.data.sampling import forward_sample, sample_dataset
from hiddenbn.errors import ParameterError
from hiddenbn.models.network import latent_class, random_parameters
from hiddenbn.models.priors import bd_log_marginal
from hiddenbn.models.spec import parse_spec
from hiddenbn.scores.exact import complete_data_counts, exact_log_evidence
from hiddenbn.scores.smc import (MonteCarloEvidence, nested_smc_log_evidence, smc_log_evidence,
                                 tempered_smc_log_evidence)

SEEDS = 24


def small_data(network, n, seed):
    rng = np.random.default_rng(seed)
    return sample_dataset(network, random_parameters(network, rng), n, rng)


def test_nothing_hidden_reproduces_the_bd_score_exactly():
    """With no hidden node every predictive is exact: each run is the prequential Eq. 5."""
    network = parse_spec({"nodes": {"A": {"states": 3}, "B": {"states": 2, "parents": ["A"]}}})
    data = small_data(network, 150, 4)
    result = smc_log_evidence(network, data, np.random.default_rng(0), alpha=1.2, runs=3,
                              particles=2)
    expected = bd_log_marginal(network, complete_data_counts(network, data), 1.2)
    assert np.allclose(result.run_estimates, expected, atol=1e-9)
    assert result.standard_error < 1e-9


@pytest.mark.parametrize("network, n, sampler, settings", [
    (latent_class(2, [2, 2, 2, 2]), 40, smc_log_evidence, {"particles": 16}),
    (latent_class(3, [2, 3, 2]), 18, smc_log_evidence, {"particles": 16}),
    (parse_spec("2(2(2,2),2(2,2))"), 9, smc_log_evidence, {"particles": 16}),
    # split-merge moves alone; few particles, so that runs are resampled and moved
    (latent_class(2, [2, 2, 2, 2]), 40, smc_log_evidence,
     {"particles": 8, "moves": 0, "split_merge": 2}),
    (latent_class(3, [2, 3, 2]), 18, tempered_smc_log_evidence, {"particles": 32}),
    (parse_spec("2(2(2,2),2(2,2))"), 9, tempered_smc_log_evidence, {"particles": 32}),
])
def test_estimates_cover_the_exact_value_within_their_standard_error(network, n, sampler,
                                                                     settings):
    """Over many seeds: the errors average out to zero and |error| < 3 SE almost always."""
    data = small_data(network, n, 3)
    exact = exact_log_evidence(network, data, 1.0).log_evidence
    errors, ses = [], []
    for seed in range(SEEDS):
        result = sampler(network, data, np.random.default_rng(seed), runs=6, **settings)
        errors.append(result.log_evidence - exact)
        ses.append(result.standard_error)
        if settings.get("split_merge") and result.resampling_steps:
            assert 0 < result.split_merge_acceptance <= 1
        if sampler is tempered_smc_log_evidence:
            assert result.temperatures > 1
    errors, ses = np.array(errors), np.array(ses)
    assert np.mean(np.abs(errors) < 3 * ses) >= 0.9
    assert abs(errors.mean()) < 3 * errors.std(ddof=1) / np.sqrt(SEEDS) + 1e-3
    assert np.all(ses > 0)


def test_nested_prefixes_each_cover_their_exact_value():
    """One pass over nested prefixes of a sample: each prefix's estimate against its own exact
    log p(D), over many seeds, as for a single data set."""
    network = latent_class(2, [2, 2, 2, 2])
    rng = np.random.default_rng(5)
    sizes = (10, 25, 40)
    sample = forward_sample(network, random_parameters(network, rng), 40, rng)
    prefixes = [Dataset.from_rows(network.observed_names, sample[:n],
                                  network.observed_cardinalities) for n in sizes]
    exact = [exact_log_evidence(network, data, 1.0).log_evidence for data in prefixes]
    errors, ses = [], []
    for seed in range(SEEDS):
        results = nested_smc_log_evidence(network, prefixes, np.random.default_rng(seed), runs=6,
                                          particles=16)
        errors.append([r.log_evidence - e for r, e in zip(results, exact)])
        ses.append([r.standard_error for r in results])
    errors, ses = np.array(errors), np.array(ses)
    assert np.all(np.mean(np.abs(errors) < 3 * ses, axis=0) >= 0.85)
    assert np.all(np.abs(errors.mean(axis=0))
                  < 3 * errors.std(axis=0, ddof=1) / np.sqrt(SEEDS) + 1e-3)


def test_one_data_set_is_the_single_pass():
    network = latent_class(2, [2, 3, 2])
    data = small_data(network, 30, 1)
    nested = nested_smc_log_evidence(network, [data], np.random.default_rng(4), runs=3,
                                     particles=8)[0]
    single = smc_log_evidence(network, data, np.random.default_rng(4), runs=3, particles=8)
    assert np.array_equal(nested.run_estimates, single.run_estimates)


def test_data_sets_that_are_not_nested_are_refused():
    network = latent_class(2, [2, 2, 2])
    first, second = small_data(network, 20, 1), small_data(network, 30, 2)
    with pytest.raises(ParameterError, match="nested data sets"):
        nested_smc_log_evidence(network, [second, first], np.random.default_rng(0), runs=2,
                                particles=2)


def test_a_deterministic_node_is_handled(noisy_max_network):
    data = small_data(noisy_max_network, 5, 2)
    exact = exact_log_evidence(noisy_max_network, data, 1.0).log_evidence
    result = smc_log_evidence(noisy_max_network, data, np.random.default_rng(1), runs=8,
                              particles=32)
    assert abs(result.log_evidence - exact) < 4 * result.standard_error + 1e-3


@pytest.mark.parametrize("log_runs, expected", [
    ([3.0, 3.0, 3.0, 3.0], 4.0),  # runs that agree all count
    ([0.0, -50.0, -60.0, -70.0], 1.0),  # one run dwarfs the others
    ([0.0, 0.0, -40.0, -40.0], 2.0),
])
def test_effective_runs_is_kish_on_the_runs_evidence(log_runs, expected):
    log_runs = np.array(log_runs)
    for shift in (0.0, -20000.0):  # the scale of real log evidences, where exp underflows
        result = MonteCarloEvidence(0.0, 0.0, log_runs + shift, log_runs.size, 8, 1, 0)
        assert result.effective_runs == pytest.approx(expected, rel=1e-12)
    z = np.exp(log_runs)  # the definition, on values that do not underflow
    assert MonteCarloEvidence(0.0, 0.0, log_runs, log_runs.size, 8, 1, 0).effective_runs \
        == pytest.approx(z.sum() ** 2 / (z ** 2).sum(), rel=1e-12)


@pytest.mark.parametrize("sampler, settings", [
    (smc_log_evidence, {}),
    (smc_log_evidence, {"split_merge": 2}),  # the moves' own generators, one per particle
    (tempered_smc_log_evidence, {}),
])
def test_same_result_on_one_and_two_threads(sampler, settings):
    network = latent_class(3, [2] * 6)
    data = small_data(network, 60, 8)
    before = numba.get_num_threads()
    results = []
    try:
        for threads in (1, min(2, numba.config.NUMBA_NUM_THREADS)):
            numba.set_num_threads(threads)
            results.append(sampler(network, data, np.random.default_rng(5), runs=2,
                                   particles=8, **settings).run_estimates)
    finally:
        numba.set_num_threads(before)
    assert np.array_equal(results[0], results[1])


def test_bad_arguments_are_refused():
    network = latent_class(2, [2, 2])
    data = small_data(network, 5, 0)
    with pytest.raises(ParameterError, match="2 independent runs"):
        smc_log_evidence(network, data, np.random.default_rng(0), runs=1)
    with pytest.raises(ParameterError, match="alpha"):
        smc_log_evidence(network, data, np.random.default_rng(0), alpha=-1.0)


def _direct_log_predictive(layout, counts, row_counts, p, alpha):
    """Every configuration's ``sum log(alpha + N_ijk) - log(r_i alpha + N_ij)`` over its cells,
    from the counts directly."""
    cells = layout.cells[p]
    rows = layout.row_of_cell[cells]
    expected = (np.log(alpha + counts[cells])
                - np.log(layout.row_states[rows] * alpha + row_counts[rows])).sum(axis=1)
    expected[~layout.possible[p]] = -np.inf
    return expected


@pytest.mark.parametrize("spec, missing, in_runs", [
    ("4:2,3,2,2", 0.0, True),  # a latent class model: every segment a run
    ("2(3(2,2),2)", 0.0, False),  # leaves under part of the joint configuration
    ("3:2,3,2", 0.2, False),  # missing cells: configurations over them repeat cells
])
def test_kept_terms_give_the_predictive_from_the_counts(spec, missing, in_runs):
    """After a random sequence of moves and adds, the terms :func:`update` keeps are the tables
    at the counts (all three kinds in a layout of runs, in its slot order), and the predictive
    of a case left out by :func:`lift` (on the fly in a layout of runs) and of a new case is
    the sum over each configuration's cells of ``log(alpha + N_ijk) - log(r_i alpha + N_ij)``
    computed from the counts, with the case's own completion subtracted."""
    from hiddenbn.inference.collapsed import (FEWER, FEWER_IN_ROW, FULL, collapsed_layout,
                                              configuration_log_predictive, lift, place, update)
    from hiddenbn.scores.exact import cell_layout
    from hiddenbn.scores.smc import _row_kinds

    network = parse_spec(spec)
    rng = np.random.default_rng(3)
    data = small_data(network, 60, 2)
    if missing:
        rows = np.repeat(data.patterns, data.counts, axis=0)
        rows[rng.random(rows.shape) < missing] = MISSING
        data = Dataset.from_rows(data.names, rows, data.cardinalities)
    data = data.for_network(network)
    layout = cell_layout(network, data)
    kinds, row_kind = _row_kinds(layout)
    collapsed = collapsed_layout(layout, row_kind)
    assert collapsed.in_runs == in_runs
    assert np.array_equal(np.sort(collapsed.slot_of_cell), np.arange(layout.n_cells))
    if in_runs:  # each pattern's cells of a node across the configurations: consecutive slots
        slots = collapsed.slot_of_cell[layout.cells].transpose(0, 2, 1)
        first = collapsed.run_start[collapsed.segment_of]
        np.testing.assert_array_equal(slots, first[:, :, None] + np.arange(slots.shape[2]))
    alpha = 1.3
    axis = np.arange(201, dtype=float)  # room for every add
    cell_log, row_log = np.log(alpha + axis), np.log(kinds[:, None] * alpha + axis[None, :])
    counts = np.zeros(layout.n_cells, dtype=np.int64)
    row_counts = np.zeros(layout.row_states.size, dtype=np.int64)
    terms = collapsed.terms(counts, row_counts, cell_log, row_log)
    assert terms.shape == (3 if in_runs else 1, layout.n_cells)  # only what is read is kept
    log_q = np.empty(layout.cells.shape[1])
    placed = []
    for _ in range(300):
        if placed and rng.random() < 0.6:  # a Gibbs move of a placed case
            index = int(rng.integers(len(placed)))
            p, old = placed[index]
            without = counts.copy()
            np.subtract.at(without, layout.cells[p, old], 1)
            without_rows = np.bincount(layout.row_of_cell, weights=without,
                                       minlength=row_counts.size)
            removed = lift(counts, row_counts, terms, collapsed, cell_log, row_log, p, old)
            assert removed == (old if in_runs else -1)
            top = configuration_log_predictive(log_q, terms, collapsed, p, removed)
            np.testing.assert_allclose(
                log_q, _direct_log_predictive(layout, without, without_rows, p, alpha),
                rtol=1e-12)
            assert top == log_q.max()
            new = int(rng.choice(np.flatnonzero(layout.possible[p])))
            place(counts, row_counts, terms, collapsed, cell_log, row_log, p, old, new, removed)
            placed[index] = (p, new)
        else:  # a new case
            p = int(rng.integers(data.n_patterns))
            top = configuration_log_predictive(log_q, terms, collapsed, p, -1)
            np.testing.assert_allclose(
                log_q, _direct_log_predictive(layout, counts, row_counts, p, alpha), rtol=1e-12)
            h = int(rng.choice(np.flatnonzero(layout.possible[p])))
            update(counts, row_counts, terms, collapsed, cell_log, row_log, p, h, 1)
            placed.append((p, h))
        expected_counts = np.bincount(np.concatenate([layout.cells[p, h] for p, h in placed]),
                                      minlength=layout.n_cells)
        np.testing.assert_array_equal(counts, expected_counts)
    rows = layout.row_of_cell
    np.testing.assert_array_equal(row_counts, np.bincount(rows, weights=counts,
                                                          minlength=row_counts.size))
    kept = terms[:, collapsed.slot_of_cell]  # back in cell order
    row_value = row_log[row_kind[rows], row_counts[rows]]
    np.testing.assert_array_equal(kept[FULL], cell_log[counts] - row_value)
    if in_runs:
        fewer_row = row_log[row_kind[rows], row_counts[rows] - 1]
        filled = counts > 0
        np.testing.assert_array_equal(kept[FEWER][filled],
                                      (cell_log[counts - 1] - fewer_row)[filled])
        np.testing.assert_array_equal(kept[FEWER_IN_ROW][row_counts[rows] > 0],
                                      (cell_log[counts] - fewer_row)[row_counts[rows] > 0])


# --- split-merge moves and tempering --------------------------------------------------------
def _completion_posterior(network, n, alpha, beta, seed):
    """A tiny data set, its collapsed layout, and ``p(H, D)^beta`` normalised over every
    completion ``H`` (enumerated), for checking moves against the distribution they keep."""
    import itertools

    from hiddenbn.inference.collapsed import collapsed_layout
    from hiddenbn.scores.exact import cell_layout, log_bd_score
    from hiddenbn.scores.smc import _row_kinds

    data = small_data(network, n, seed).for_network(network)
    layout = cell_layout(network, data)
    kinds, row_kind = _row_kinds(layout)
    collapsed = collapsed_layout(layout, row_kind)
    cases = np.repeat(np.arange(data.n_patterns), data.counts).astype(np.int64)
    completions = [h for h in itertools.product(range(layout.cells.shape[1]), repeat=n)
                   if all(layout.possible[cases[l], h[l]] for l in range(n))]
    statistics = np.zeros((len(completions), layout.n_cells))
    for r, h in enumerate(completions):
        for case, configuration in zip(cases, h):
            np.add.at(statistics[r], layout.cells[case, configuration], 1)
    log_joint = log_bd_score(layout, statistics, alpha)
    target = np.exp(beta * (log_joint - log_joint.max()))
    axis = np.arange(n + 1, dtype=float)
    tables = (np.log(alpha + axis), np.log(kinds[:, None] * alpha + axis[None, :]))
    return collapsed, cases, completions, statistics, log_joint, target / target.sum(), tables


@pytest.mark.parametrize("spec, n, width, beta", [
    ("3:2,2,3", 6, 2, 1.0),  # a latent class model (terms in runs)
    ("3:2,2,3", 6, 3, 0.4),  # three configurations at once, tempered
    ("2(2(2,2),2)", 5, 3, 1.0),  # joint configurations of two hidden nodes (cell order)
])
def test_split_merge_moves_keep_the_posterior_of_the_completions(spec, n, width, beta):
    """Run as a Markov chain, the move visits every completion in proportion to ``p(H,
    D)^beta`` (total variation to the enumerated distribution), keeps the counts and terms of
    the completion it is at, and returns the change of ``log p(H, D)``. Accepting every
    proposal, the same chain strays three times as far."""
    from hiddenbn.inference.collapsed import reallocate

    network = parse_spec(spec)
    collapsed, cases, completions, statistics, log_joint, target, tables = \
        _completion_posterior(network, n, 1.0, beta, 1)
    index = {h: r for r, h in enumerate(completions)}
    assignment = np.array(completions[0], dtype=np.int64)
    counts = statistics[0].astype(np.int64)
    row_counts = np.add.reduceat(counts, collapsed.row_starts)
    terms = collapsed.terms(counts, row_counts, *tables)
    state = np.array([7], dtype=np.uint64)
    work = [np.empty(n, dtype=np.int64) for _ in range(3)]
    visits, joint, steps = np.zeros(len(completions)), log_joint[0], 60_000
    for _ in range(steps):
        joint += reallocate(assignment, n, cases, counts, row_counts, terms, collapsed,
                            *tables, state, *work, width, beta)
        visits[index[tuple(assignment)]] += 1
    at = index[tuple(assignment)]
    np.testing.assert_array_equal(counts, statistics[at])
    np.testing.assert_allclose(terms, collapsed.terms(counts, row_counts, *tables))
    assert joint == pytest.approx(log_joint[at], abs=1e-8)
    distance = 0.5 * np.abs(visits / steps - target).sum()
    assert distance < 0.05
    uniform = np.full(len(completions), 1 / len(completions))
    assert 0.5 * np.abs(uniform - target).sum() > 3 * distance  # the check can fail


def test_the_in_kernel_generator_is_uniform():
    from hiddenbn.inference.collapsed import next_uniform

    @numba.njit
    def draws(state, size):
        return np.array([next_uniform(state) for _ in range(size)])

    values = draws(np.array([123], dtype=np.uint64), 20_000)
    assert values.min() >= 0.0 and values.max() < 1.0
    assert np.histogram(values, bins=10, range=(0, 1))[0].min() > 1800  # 2000 expected
    assert np.array_equal(values, draws(np.array([123], dtype=np.uint64), 20_000))


def test_tempering_is_unbiased_for_the_marginal_likelihood():
    """Over many independent runs of a coarse schedule with few particles, the mean of
    ``Z_r / p(D | S)`` is 1 (the estimate of ``Z``, not of its log, is unbiased); the median is
    well below it, which is why the log estimates are skewed and why runs are compared by
    their Kish count."""
    network = latent_class(2, [2, 2, 3])
    data = small_data(network, 12, 5)
    exact = exact_log_evidence(network, data, 1.0).log_evidence
    ratios = np.concatenate([
        np.exp(tempered_smc_log_evidence(network, data, np.random.default_rng(seed), runs=30,
                                         particles=4, schedule=[0.1, 0.3, 0.6, 1.0])
               .run_estimates - exact) for seed in range(100)])
    assert abs(ratios.mean() - 1) < 3 * ratios.std() / np.sqrt(ratios.size)
    assert np.median(ratios) < 0.95


def test_tempering_with_a_deterministic_node_and_missing_cells(noisy_max_network):
    """Configurations a pattern rules out are never drawn, and the start counts only the
    possible ones; missing cells are summed out."""
    for network, data in ((noisy_max_network, small_data(noisy_max_network, 5, 2)),
                          (latent_class(2, [2, 3, 2]), None)):
        if data is None:
            rows = np.repeat(*(lambda d: (d.patterns, d.counts))(small_data(network, 14, 4)),
                             axis=0)
            rows[np.random.default_rng(1).random(rows.shape) < 0.2] = MISSING
            data = Dataset.from_rows(network.observed_names, rows, network.observed_cardinalities)
        exact = exact_log_evidence(network, data, 1.0).log_evidence
        result = tempered_smc_log_evidence(network, data, np.random.default_rng(1), runs=8,
                                           particles=64)
        assert abs(result.log_evidence - exact) < 4 * result.standard_error + 1e-3


def test_tempering_checks_its_arguments():
    network = latent_class(3, [2] * 6)
    data = small_data(network, 40, 8)
    for schedule in ([0.5, 0.9], [0.0, 1.0], [0.6, 0.4, 1.0]):
        with pytest.raises(ParameterError, match="schedule"):
            tempered_smc_log_evidence(network, data, np.random.default_rng(0), runs=2,
                                      particles=2, schedule=schedule)
    with pytest.raises(ParameterError, match="Gibbs sweep"):
        tempered_smc_log_evidence(network, data, np.random.default_rng(0), moves=0)


def test_pooled_runs_are_one_estimate():
    from hiddenbn.scores.smc import pooled

    first = MonteCarloEvidence(0.0, 0.0, np.array([-10.0, -10.0]), 2, 8, 1, 3)
    second = MonteCarloEvidence(0.0, 0.0, np.array([-30.0, -30.0, -30.0]), 3, 4, 1, 2,
                                temperatures=40)
    both = pooled([first, second])
    assert both.runs == 5 and both.resampling_steps == 5 and both.temperatures == 40
    assert both.log_evidence == pytest.approx(np.log((2 * np.exp(-10) + 3 * np.exp(-30)) / 5))
    assert both.effective_runs == pytest.approx(2.0, abs=1e-6)  # the first sampler's two runs


@pytest.mark.parametrize("log_runs, different", [
    ([0.0, 0.0], False),  # two runs that agree count as 2.0, not "fewer than 2"
    ([0.0, -0.05], False),  # 1.999 effective runs: still one mode
    ([0.0, -3.0], True),  # one run dwarfs the other
    ([0.0], False),  # one run cannot disagree with itself
    ([0.0, -50.0, -60.0, -70.0], True),
    ([0.0, 0.0, -40.0, -40.0], False),  # two of four runs carry it: FEW_RUNS is not reached
])
def test_different_modes_only_when_runs_are_missing_from_the_effective_number(log_runs,
                                                                              different):
    log_runs = np.array(log_runs)
    result = MonteCarloEvidence(0.0, 0.0, log_runs, log_runs.size, 8, 1, 0)
    assert result.ended_in_different_modes is different
