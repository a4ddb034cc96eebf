"""Missing cells (MAR) in EM, the scores and the marginal likelihoods, each against an independent
computation: dense joint tables, every completion enumerated, finite differences."""

import dataclasses
import itertools

import numpy as np
import pytest
from scipy.special import gammaln, logsumexp

from hiddenbn.data import MISSING, Dataset
from hiddenbn.data.sampling import sample_dataset
from hiddenbn.errors import DataError, HiddenbnError, ParameterError
from hiddenbn.inference import enumeration as inference
from hiddenbn.inference.latent_class import class_posteriors
from hiddenbn.interaction.noisy_additive import summarise
from hiddenbn.interaction.noisy_max import NoisyMaxEngine
from hiddenbn.learning import em
from hiddenbn.learning.annealing import AnnealedStarts
from hiddenbn.models.interaction import noisy_max_model
from hiddenbn.models.network import (free_parameters, latent_class, observed_distribution,
                                     parameters_from_free, random_parameters)
from hiddenbn.models.spec import parse_spec
from hiddenbn.scores import approximations as scores
from hiddenbn.scores.exact import cell_layout, complete_data_counts, exact_log_evidence
from hiddenbn.scores.smc import smc_log_evidence
from reference import (assert_e_step_identical_on_one_and_two_threads, brute_force_statistics,
                       central_difference_hessian, dense_joint)

HLC = "3(2(2,2),2(2,2))"
#: Observed parents of observed nodes, with a hidden node between them.
W_STRUCTURE = {"nodes": {
    "A": {"states": 2}, "B": {"states": 2}, "H": {"states": 2, "hidden": True},
    "C": {"states": 2, "parents": ["A", "H"]}, "D": {"states": 3, "parents": ["H", "B"]},
    "F": {"states": 2, "parents": ["H"]}}}


# --- independent computations ------------------------------------------------------------------
def with_missing(network, data, fraction, rng):
    """``data`` with each cell missing with probability ``fraction`` (at least one missing)."""
    rows = data.for_network(network).rows().copy()
    absent = rng.random(rows.shape) < fraction
    absent[0, 0] = True
    rows[absent] = MISSING
    return Dataset.from_rows(network.observed_names, rows, network.observed_cardinalities)


def observed_log_likelihood(network, cpts, data):
    """``sum_p c_p log p(x_p,obs)`` from the dense observed distribution, missing axes summed."""
    table = observed_distribution(network, cpts)
    total = 0.0
    for pattern, count in zip(data.patterns, data.counts):
        total += count * np.log(table[tuple(slice(None) if x == MISSING else x
                                            for x in pattern)].sum())
    return total




def central_difference_gradient(function, x, step):
    gradient = np.zeros(x.size)
    for a in range(x.size):
        up, down = x.copy(), x.copy()
        up[a] += step
        down[a] -= step
        gradient[a] = (function(up) - function(down)) / (2 * step)
    return gradient


def dirichlet_log_density(cpts, alpha):
    """``sum (alpha - 1) log theta`` plus the normaliser, written out."""
    total = 0.0
    for table in cpts:
        if table is not None:
            r = table.shape[1]
            total += table.shape[0] * (gammaln(r * alpha) - r * gammaln(alpha))
            total += float(((alpha - 1.0) * np.log(table)).sum())
    return total


def assert_counts_close(ours, theirs):
    for a, b in zip(ours, theirs):
        if b is not None and a is not None:
            np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-10 * max(1.0, np.abs(b).max()))


def model_and_data(spec, n, fraction, seed):
    network = parse_spec(spec) if isinstance(spec, str) else spec
    rng = np.random.default_rng(seed)
    cpts = random_parameters(network, rng)
    data = with_missing(network, sample_dataset(network, cpts, n, rng), fraction, rng)
    assert data.has_missing
    return network, cpts, data


# --- E steps -------------------------------------------------------------------------------------
@pytest.mark.parametrize("path", ["single variables", "groups", "design"])
def test_latent_class_e_step_equals_brute_force(path):
    network, cpts, data = model_and_data(latent_class(3, [2, 3, 4, 2, 3]), 400, 0.15, 1)
    engine = em.make_engine(network, data, 1.0)
    engine.groups = inference.state_groups(data.patterns, engine.cards, 3,
                                           1 if path == "single variables" else 40)
    engine.design = (inference.latent_class_design(data.patterns, engine.cards)
                     if path == "design" else None)
    statistics = engine.e_step(engine.from_cpts(cpts))
    expected, log_likelihood = brute_force_statistics(network, cpts, data)
    assert statistics.log_likelihood == pytest.approx(log_likelihood, rel=1e-10)
    ours = engine.expected_counts(statistics)
    assert_counts_close(ours, expected)
    for table in ours[1:]:  # full completion: every row adds up to its class's mass
        np.testing.assert_allclose(table.sum(axis=1), ours[0][0], rtol=1e-12)


def test_latent_class_e_step_is_identical_for_one_and_two_threads():
    network, cpts, data = model_and_data(latent_class(32, [2] * 64), 3000, 0.15, 2)
    engine = em.make_engine(network, data, 1.0)
    engine.design = None  # the group pass, every variable alone: past the parallel threshold
    engine.groups = inference.state_groups(data.patterns, engine.cards, 32, max_states=1)
    assert engine.groups.codes.size * 32 >= inference.PARALLEL_MIN_CELLS
    assert_e_step_identical_on_one_and_two_threads(engine, engine.from_cpts(cpts))


def test_zero_probabilities_take_the_group_pass_with_missing_cells():
    """Zero entries take the group pass (the design needs logs); a missing cell must not
    read them."""
    network, cpts, data = model_and_data(latent_class(3, [2, 3, 2]), 200, 0.2, 4)
    cpts[1][1] = [1.0, 0.0]
    engine = em.make_engine(network, data, 1.0)
    statistics = engine.e_step(engine.from_cpts(cpts))
    expected, log_likelihood = brute_force_statistics(network, cpts, data)
    assert statistics.log_likelihood == pytest.approx(log_likelihood, rel=1e-10)
    assert_counts_close(engine.expected_counts(statistics), expected)


@pytest.mark.parametrize("spec", [HLC, "3(2(2,2),3,2)", "noisy-max"])
def test_enumeration_e_step_equals_brute_force(spec, noisy_max_network):
    """Missing leaves, missing parents of hidden nodes (C1, C2) and missing deterministic
    nodes (E = max) alike."""
    network, cpts, data = (model_and_data(noisy_max_network, 300, 0.15, 3) if spec == "noisy-max"
                           else model_and_data(spec, 300, 0.15, 5))
    expected, log_likelihood = inference.enumeration_statistics(network, cpts, data.patterns,
                                                                data.counts)
    reference, reference_log_likelihood = brute_force_statistics(network, cpts, data)
    assert log_likelihood == pytest.approx(reference_log_likelihood, rel=1e-10)
    assert_counts_close(expected, reference)


def test_latent_class_engine_equals_the_enumeration_engine():
    network, cpts, data = model_and_data(latent_class(4, [2, 3, 4, 2]), 400, 0.15, 6)
    packed = em.make_engine(network, data, 1.0)
    assert isinstance(packed, em.LatentClassEngine)
    general = em.EnumerationEngine(network, data.for_network(network), 1.0)
    a = packed.e_step(packed.from_cpts(cpts))
    b = general.e_step(general.from_cpts(cpts))
    assert a.log_likelihood == pytest.approx(b.log_likelihood, rel=1e-12)
    assert_counts_close(packed.expected_counts(a), general.expected_counts(b))


def test_posteriors_sum_the_missing_cells_out():
    network, cpts, data = model_and_data(latent_class(3, [2, 3, 2, 2]), 200, 0.2, 7)
    engine = em.make_engine(network, data, 1.0)
    ours, _ = class_posteriors(network, cpts, engine.patterns)
    joint = dense_joint(network, cpts)
    for p, pattern in enumerate(data.patterns):
        index = (slice(None),) + tuple(slice(None) if x == MISSING else x for x in pattern)
        marginal = joint[index].reshape(3, -1).sum(axis=1)
        np.testing.assert_allclose(ours[p], marginal / marginal.sum(), rtol=1e-10)
    for rows, _, weights, _ in inference.posterior_chunks(network, cpts, data.patterns):
        hidden = weights.reshape(weights.shape[0], 3, -1).sum(axis=2)  # hidden-major order
        np.testing.assert_allclose(hidden, ours[rows], rtol=1e-10)


def test_too_many_configurations_in_a_pattern_name_the_cause_and_the_fix(monkeypatch):
    network, cpts, data = model_and_data(HLC, 200, 0.3, 8)
    monkeypatch.setattr(inference, "MAX_HIDDEN_CONFIGURATIONS", 12)  # 12 hidden states
    with pytest.raises(HiddenbnError, match=r"missing cells of a pattern .*missing='drop'") as err:
        inference.enumeration_statistics(network, cpts, data.patterns, data.counts)
    assert "\n" not in str(err.value) and "--missing drop" in err.value.command_line_message()


# --- the Hessian -------------------------------------------------------------------------------
@pytest.mark.parametrize("spec", ["3:2,3,2", "2(2(2,2),3)", "noisy-max"])
def test_negative_hessian_equals_central_differences(spec, noisy_max_network):
    network = noisy_max_network if spec == "noisy-max" else parse_spec(spec)
    rng = np.random.default_rng(9)
    cpts = random_parameters(network, rng, alpha=4.0)  # interior: A is exact anywhere
    data = with_missing(network, sample_dataset(network, cpts, 150, rng), 0.15, rng)
    alpha = 1.3

    def g(theta):
        tables = parameters_from_free(network, theta)
        return (observed_log_likelihood(network, tables, data)
                + dirichlet_log_density(tables, alpha))

    numeric = central_difference_hessian(g, free_parameters(network, cpts), 1e-4)
    analytic = scores.negative_hessian(network, data, cpts, alpha)
    np.testing.assert_allclose(analytic, -numeric, rtol=1e-5, atol=1e-4 * np.abs(numeric).max())


def test_latent_class_hessian_equals_the_enumeration_hessian():
    network, _, data = model_and_data(latent_class(4, [2, 3, 4, 2, 2]), 300, 0.15, 10)
    cpts = random_parameters(network, np.random.default_rng(11), alpha=3.0)
    data = data.for_network(network)
    closed_form = scores.likelihood_hessian_latent_class(network, cpts, data)
    enumerated = scores.likelihood_hessian_by_enumeration(network, cpts, data)
    np.testing.assert_allclose(closed_form, enumerated, rtol=1e-10,
                               atol=1e-10 * np.abs(enumerated).max())


def test_enumeration_hessian_in_chunks_equals_one_piece(monkeypatch):
    network, cpts, data = model_and_data("2(2(2,2),3)", 200, 0.2, 12)
    whole = scores.negative_hessian(network, data, cpts, 1.2)
    monkeypatch.setattr(scores, "HESSIAN_CHUNK_CELLS", 5 * network.standard_dimension)
    np.testing.assert_allclose(scores.negative_hessian(network, data, cpts, 1.2), whole,
                               rtol=1e-12, atol=1e-9)


# --- EM ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("spec, schedule", [("3:2,3,4,2", "halving"), ("3:2,3,4,2", "best-of-n"),
                                            (HLC, "halving"), ("4:2,3,2,2,3", "annealing"),
                                            (HLC, "annealing")])
def test_em_never_decreases_g(spec, schedule):
    network, _, data = model_and_data(spec, 300, 0.15, 13)
    fit = em.fit(network, data, np.random.default_rng(1), alpha=1.01, restarts=4,
                 max_iterations=60, schedule=schedule, run_all_iterations=True, sweeps=10)
    trace = np.array(fit.trace)
    assert np.all(np.diff(trace) >= -1e-9 * np.abs(trace[1:]))
    _, log_likelihood = brute_force_statistics(network, fit.cpts, data)
    assert fit.log_likelihood == pytest.approx(log_likelihood, rel=1e-10)


@pytest.mark.parametrize("spec", ["3:2,3,2,2", W_STRUCTURE])
def test_em_reaches_a_stationary_point_of_the_observed_data_posterior(spec):
    """The latent class engine, and enumeration with missing observed parents (A, B)."""
    network = parse_spec(spec)
    rng = np.random.default_rng(14)
    truth = random_parameters(network, rng, alpha=0.5)
    data = with_missing(network, sample_dataset(network, truth, 500, rng), 0.15, rng)
    start = random_parameters(network, rng, alpha=3.0)
    alpha = 1.2
    fit = em.run_em(network, data, start, alpha=alpha, max_iterations=3000, tolerance=1e-11,
                    convergence="absolute")
    assert fit.converged

    def g(theta):
        tables = parameters_from_free(network, theta)
        return (observed_log_likelihood(network, tables, data)
                + dirichlet_log_density(tables, alpha))

    theta = free_parameters(network, fit.cpts)
    assert g(theta) == pytest.approx(fit.log_posterior, rel=1e-10)
    # at |dg| <= 1e-11 the gradient is down to the finite differences' rounding (~1e-4)
    assert np.abs(central_difference_gradient(g, theta, 1e-6)).max() < 2e-3
    assert np.abs(central_difference_gradient(g, free_parameters(network, start), 1e-6)).max() > 1


@pytest.mark.parametrize("spec", ["3:2,3,2,2", HLC])
def test_mled_and_cheeseman_stutz_use_the_fully_completed_counts(spec):
    network, cpts, data = model_and_data(spec, 300, 0.15, 15)
    alpha = 1.01
    fit = em.run_em(network, data, cpts, alpha=alpha, max_iterations=50)
    counts, log_likelihood = brute_force_statistics(network, fit.cpts, data)
    mled = 0.0
    for table in counts:  # paper 003 Eq. 5 at the expected counts, written out
        r = table.shape[1]
        mled += float(np.sum(gammaln(r * alpha) - gammaln(r * alpha + table.sum(axis=1)))
                      + np.sum(gammaln(alpha + table) - gammaln(alpha)))
    complete = sum(float((n * np.log(t)).sum()) for n, t in zip(counts, fit.cpts))
    ds = network.standard_dimension
    result = scores.score_fit(fit, data, with_laplace=False)
    assert result["mled"] == pytest.approx(mled, rel=1e-10)
    assert result["cs"] == pytest.approx(mled - complete + log_likelihood, rel=1e-10)
    assert result["bic_log_evidence"] == pytest.approx(
        log_likelihood - ds / 2 * np.log(data.n_cases), rel=1e-10)
    assert fit.n_cases == data.n_cases


@pytest.mark.parametrize("spec", ["3:2,3,2", "3(2,3,2(2,2))"])
def test_a_column_entirely_missing_is_the_model_without_it(spec):
    """Summing a cell out is the likelihood without it: EM (ML) with the last leaf always
    missing follows EM on the network without that leaf, and leaves the leaf's table as it
    started (full completion gives it the expected counts of its own predictions)."""
    network = parse_spec(spec)
    smaller = dataclasses.replace(network, names=network.names[:-1],
                                  cardinalities=network.cardinalities[:-1],
                                  parents=network.parents[:-1], hidden=network.hidden[:-1],
                                  functions=network.functions[:-1])
    rng = np.random.default_rng(16)
    cpts = random_parameters(network, rng)
    rows = sample_dataset(network, cpts, 300, rng).for_network(network).rows().copy()
    rows[:, -1] = MISSING
    holed = Dataset.from_rows(network.observed_names, rows, network.observed_cardinalities)
    kept = Dataset.from_rows(smaller.observed_names, rows[:, :-1], smaller.observed_cardinalities)
    a = em.run_em(network, holed, cpts, alpha=1.0, max_iterations=30, run_all_iterations=True)
    b = em.run_em(smaller, kept, cpts[:-1], alpha=1.0, max_iterations=30,
                  run_all_iterations=True)
    assert a.log_likelihood == pytest.approx(b.log_likelihood, rel=1e-12)
    for ours, theirs in zip(a.cpts, b.cpts):
        np.testing.assert_allclose(ours, theirs, rtol=1e-9)
    np.testing.assert_allclose(a.cpts[-1], cpts[-1], rtol=1e-9)


# --- the stopping rule -----------------------------------------------------------------------
def test_absolute_convergence_goes_further_and_stops_within_its_tolerance():
    """A non-identifiable model (3 classes, 3 binary variables): g creeps along a ridge, where
    the relative rule stops early."""
    network = latent_class(3, [2, 2, 2])
    rng = np.random.default_rng(17)
    data = sample_dataset(network, random_parameters(network, rng), 500, rng)
    start = random_parameters(network, np.random.default_rng(18))
    relative = em.run_em(network, data, start, alpha=1.0, max_iterations=10000, tolerance=1e-5,
                         convergence="relative", acceleration="none")
    optimum = em.run_em(network, data, start, alpha=1.0, acceleration="none",  # step by step
                        **dataclasses.asdict(em.OPTIMUM))
    assert optimum.converged and relative.converged
    assert optimum.log_posterior >= relative.log_posterior
    assert optimum.iterations > relative.iterations
    assert optimum.trace[:relative.iterations] == relative.trace  # the same path, further
    changes = np.abs(np.diff(optimum.trace))
    assert changes[-1] <= 1e-10 < changes[-2]  # the first change within the tolerance stops it
    assert em.PAPER_003.tolerance == 1e-5 and em.PAPER_003.run_all_iterations


def test_unknown_convergence_rule_is_a_one_line_parameter_error(rng):
    network = latent_class(2, [2, 2])
    data = sample_dataset(network, random_parameters(network, rng), 20, rng)
    for call in (lambda: em.fit(network, data, rng, convergence="bogus"),
                 lambda: em.run_em(network, data, random_parameters(network, rng),
                                   convergence="bogus"),
                 lambda: em.fit_engine(em.make_engine(network, data, 1.0), rng, 1, 5, 1e-5,
                                       convergence="bogus"),
                 lambda: em.Stopping(1e-5, 10, "bogus", False)):
        with pytest.raises(ParameterError, match="relative, absolute") as err:
            call()
        assert "\n" not in str(err.value)


# --- marginal likelihoods and searches --------------------------------------------------------
def brute_force_evidence(network, data, alpha):
    """Sum of Eq. 5 over every completion of the hidden values and missing cells of every case
    (the scores of complete data written out)."""
    rows = data.for_network(network).rows()
    free = [(case, int(node)) for case in range(rows.shape[0]) for node in network.hidden_indices]
    free += [(case, int(network.observed_indices[j])) for case, j in zip(*np.nonzero(rows < 0))]
    full = np.zeros((rows.shape[0], network.n_nodes), dtype=np.int64)
    full[:, network.observed_indices] = rows
    terms = []
    for values in itertools.product(*[range(network.cardinalities[i]) for _, i in free]):
        for (case, node), value in zip(free, values):
            full[case, node] = value
        total = 0.0
        for i in range(network.n_nodes):
            r = network.cardinalities[i]
            parents = list(network.parents[i])
            configuration = (np.ravel_multi_index(full[:, parents].T, [network.cardinalities[p]
                                                                     for p in parents])
                             if parents else np.zeros(rows.shape[0], dtype=np.int64))
            counts = np.zeros((network.n_parent_configurations(i), r))
            np.add.at(counts, (configuration, full[:, i]), 1)
            total += float(np.sum(gammaln(r * alpha) - gammaln(r * alpha + counts.sum(axis=1)))
                           + np.sum(gammaln(alpha + counts) - gammaln(alpha)))
        terms.append(total)
    return float(logsumexp(terms))


@pytest.mark.parametrize("spec, n", [("2:2,3,2", 5), ("2(2,2(2,2))", 4)])
def test_exact_evidence_equals_brute_force_over_every_completion(spec, n):
    network = parse_spec(spec)
    rng = np.random.default_rng(19)
    data = sample_dataset(network, random_parameters(network, rng), n, rng).for_network(network)
    rows = data.rows().copy()
    rows[0, 0] = rows[1, 2] = rows[2, 0] = MISSING
    data = Dataset.from_rows(network.observed_names, rows, network.observed_cardinalities)
    assert exact_log_evidence(network, data, 1.3).log_evidence == pytest.approx(
        brute_force_evidence(network, data, 1.3), rel=1e-10)


def test_smc_estimate_covers_the_exact_value():
    network, _, data = model_and_data(latent_class(2, [2, 3, 2]), 12, 0.2, 20)
    exact = exact_log_evidence(network, data, 1.0).log_evidence
    result = smc_log_evidence(network, data, np.random.default_rng(0), 1.0, runs=8, particles=64)
    assert abs(result.log_evidence - exact) < max(4 * result.standard_error, 0.05)


def test_cell_layout_pads_the_configurations_of_patterns_missing_fewer_cells():
    network, _, data = model_and_data(latent_class(2, [2, 3, 2]), 60, 0.2, 21)
    layout = cell_layout(network, data)
    missing = (data.patterns == MISSING)
    sizes = 2 * np.prod(np.where(missing, [2, 3, 2], 1), axis=1)
    np.testing.assert_array_equal(layout.possible.sum(axis=1), sizes)


@pytest.mark.parametrize("spec", ["4:2,3,2,2,3", HLC])
def test_annealed_completions_are_consistent(spec):
    """The moves keep their counts equal to those of the completion they hold, and the
    parameters they give are a distribution."""
    network, _, data = model_and_data(spec, 200, 0.2, 22)
    annealed = AnnealedStarts(network, data, sweeps=6)
    snapshot, value = annealed.completion(np.random.default_rng(2))
    moves = annealed.moves
    if spec.startswith("4:"):
        counts = np.zeros_like(moves.counts)
        for j in range(moves.rows.shape[1]):
            np.add.at(counts, (moves.rows[:, j], moves.assignments), 1)
        np.testing.assert_array_equal(counts, moves.counts)
        cases = np.repeat(data.for_network(network).patterns, data.counts, axis=0)
        observed = cases != MISSING
        np.testing.assert_array_equal(moves.rows[observed],
                                      (cases + moves.offsets)[observed])  # observed cells kept
    assert np.isfinite(value)
    for table in annealed.parameters(np.random.default_rng(3)):
        if table is not None:
            np.testing.assert_allclose(table.sum(axis=1), 1.0)


def test_noisy_models_and_complete_counts_refuse_missing_cells_in_one_line(rng):
    model = noisy_max_model([[1], [2]])
    network = model.network()
    data = with_missing(network, sample_dataset(network, random_parameters(network, rng), 50,
                                                rng), 0.1, rng)
    with pytest.raises(DataError, match="noisy-max.*missing='drop'") as err:
        NoisyMaxEngine(model, data, 1.0)
    assert "\n" not in str(err.value)
    with pytest.raises(DataError, match="missing='drop'") as err:
        summarise(np.array([[0], [MISSING]]), np.array([1.0, 2.0]))
    assert "\n" not in str(err.value)
    with pytest.raises(DataError, match="missing='drop'"):
        summarise(np.array([[0], [1]]), np.array([1.0, np.nan]))
    network = parse_spec({"nodes": {"A": {"states": 2}, "B": {"states": 2, "parents": ["A"]}}})
    data = Dataset.from_rows(("A", "B"), np.array([[0, 1], [MISSING, 0]]), (2, 2))
    with pytest.raises(DataError, match="missing='drop'"):
        complete_data_counts(network, data)


@pytest.mark.parametrize("spec", ["3:2,3,2,2,3", "3(2(2,2,2),2(2,2),2)"])
def test_the_search_with_missing_cells_reaches_the_mode_of_em_from_the_truth(spec):
    """The oracle: EM started from the generating parameters ends at the mode near the truth;
    best-of-n on the same data (20% of the cells missing) must reach it too. (The halved starts
    of paper 003, `--schedule halving`, `fit`'s default before the annealed search
    (`hiddenbn.util.defaults.SCHEDULE`), end 0.07 to 1 nat lower on these data sets, with or
    without missing cells: that is the schedule, not the missing cells; docs/SEARCH.md compares
    the schedules.) Both runs end at the same iteration cap, where g still creeps by ~1e-9 per
    iteration."""
    network = parse_spec(spec)
    rng = np.random.default_rng(5)
    truth = random_parameters(network, rng, alpha=2.0)
    data = sample_dataset(network, truth, 3000, rng, missing_rate=0.2)
    assert data.has_missing
    protocol = {**dataclasses.asdict(em.OPTIMUM), "max_iterations": 1000}
    oracle = em.run_em(network, data, truth, alpha=1.0, **protocol)
    searched = em.fit(network, data, np.random.default_rng(1), alpha=1.0, restarts=8,
                      schedule="best-of-n", **protocol)
    assert searched.log_posterior >= oracle.log_posterior - 0.01
