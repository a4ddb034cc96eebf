"""The EM engine interface and its one restart/convergence driver (hiddenbn.learning.em.fit_engine):
every engine implements the Protocol, a new family is one class, the noisy-max fits through
the driver agree with enumeration over the hidden mechanism states, and SQUAREM's jumps
(Varadhan & Roland 2008) keep g monotone and reach plain EM's fixed point on every engine."""

import numpy as np
import pytest
from scipy.special import xlogy

from hiddenbn.data.sampling import sample_dataset
from hiddenbn.errors import ParameterError
from hiddenbn.inference.enumeration import enumeration_statistics
from hiddenbn.interaction.noisy_additive import (GaussianEngine, PoissonEngine, fit_additive,
                                                 sample_additive, summarise)
from hiddenbn.interaction.noisy_max import NoisyMaxEngine, fit_noisy_max
from hiddenbn.learning import em
from hiddenbn.learning.engine import EMEngine, NetworkEngine, Statistics
from hiddenbn.models.interaction import load_interaction, noisy_max_model
from hiddenbn.models.network import latent_class, observed_distribution, random_parameters
from hiddenbn.models.priors import map_update
from hiddenbn.models.spec import parse_spec

CAUSE_TABLES = [np.array([[0.4, 0.6]]), np.array([[0.5, 0.5]]), np.array([[0.7, 0.3]])]


def additive_model(family):
    return load_interaction({"interaction": family, "causes": {"C1": 2, "C2": 2, "C3": 2},
                             "mechanisms": {"X1": ["C1", "C2"], "X2": ["C2", "C3"], "L": []}})


def additive_engine(family, rng):
    model = additive_model(family)
    size = int(model.mechanism_offsets()[-1])
    causes, effect = sample_additive(model, CAUSE_TABLES, rng.uniform(0.5, 2.0, size),
                                     rng.uniform(0.3, 2.0, size), 1000, rng)
    return (PoissonEngine if family == "poisson" else GaussianEngine)(
        model, summarise(causes, effect), None)


def noisy_max_engine(rng, alpha=1.0):
    model = noisy_max_model([[1, 2], [3]], cause_states=(2, 3, 2), effect_states=3, leak=True)
    network = model.network()
    data = sample_dataset(network, random_parameters(network, rng), 2000, rng)
    return NoisyMaxEngine(model, data, alpha), data


def network_engine(spec, rng, engine=em.make_engine):
    network = parse_spec(spec)
    data = sample_dataset(network, random_parameters(network, rng), 300, rng)
    return engine(network, data, 1.01)


#: Not a tree (C has two parents): enumeration's or the junction tree's.
NOT_A_TREE = {"nodes": {"H": {"states": 3, "hidden": True}, "A": {"states": 2},
                        "B": {"states": 2, "parents": ["H"]},
                        "C": {"states": 2, "parents": ["H", "A"]}}}
#: One engine of each kind, on data the model overfits: g is flat, EM slow.
ENGINES = {
    "latent class": lambda rng: network_engine("3:2,3,2", rng),
    "message passing (tree)": lambda rng: network_engine("3(2(2,2),2,2)", rng),
    "enumeration": lambda rng: network_engine(NOT_A_TREE, rng),
    "junction tree": lambda rng: network_engine(NOT_A_TREE, rng, em.JunctionTreeEngine),
    "noisy-max": lambda rng: noisy_max_engine(rng, 1.5)[0],
    "poisson": lambda rng: additive_engine("poisson", rng),
    "gaussian": lambda rng: additive_engine("gaussian", rng),
}
NETWORK_ENGINES = ("latent class", "message passing (tree)", "enumeration", "junction tree")


@pytest.mark.parametrize("name", ENGINES)
def test_every_engine_implements_the_protocol(name, rng):
    engine = ENGINES[name](rng)
    assert isinstance(engine, EMEngine)
    # only the network engines can hand their state to em.Fit as CPTs
    assert isinstance(engine, NetworkEngine) == (name in NETWORK_ENGINES)
    if name in NETWORK_ENGINES:
        assert engine.name.startswith(name)
    # the parameters as one vector and back, and no state where a value is out of range
    state = engine.random_state(rng)
    vector = engine.to_vector(state)
    assert vector.ndim == 1 and np.array_equal(engine.to_vector(engine.from_vector(vector, state)),
                                               vector)
    assert engine.from_vector(-vector, state) is None


def test_an_object_without_an_m_step_is_not_an_engine():
    class Incomplete:
        def random_state(self, rng): ...

        def e_step(self, state): ...

        def log_prior(self, state): ...

    assert not isinstance(Incomplete(), EMEngine)


@pytest.mark.parametrize("name", ENGINES)
@pytest.mark.parametrize("schedule", em.ENGINE_SCHEDULES)
@pytest.mark.parametrize("acceleration", em.ACCELERATIONS)
def test_g_never_decreases_through_the_driver(name, schedule, acceleration, rng):
    engine = ENGINES[name](rng)
    result = em.fit_engine(engine, rng, restarts=4, max_iterations=40, tolerance=0.0,
                           schedule=schedule, acceleration=acceleration)
    trace = np.array(result.trace)
    if acceleration == "none":
        assert trace.size == result.iterations == 40 and not result.converged
    else:  # a trace entry per cycle of up to 4 E steps; a fast engine may reach its fixed point
        assert trace.size < result.iterations and result.converged == (result.iterations < 40)
    assert np.all(np.diff(trace) >= -1e-12 * np.abs(trace[1:]))
    assert result.run.g == trace[-1] == (result.run.statistics.log_likelihood
                                         + engine.log_prior(result.run.state))


#: Seeds of data on which SQUAREM both keeps and rejects jumps within 200 iterations (the
#: additive models converge within tens, where a rejection is rarer).
REJECTING_SEEDS = {"poisson": 2, "gaussian": 1}


@pytest.mark.parametrize("name", ENGINES)
def test_squarem_keeps_g_monotone_where_jumps_are_kept_and_rejected(name):
    rng = np.random.default_rng(REJECTING_SEEDS.get(name, 12345))
    engine = ENGINES[name](rng)
    result = em.fit_engine(engine, rng, restarts=1, max_iterations=200, tolerance=0.0,
                           acceleration="squarem")
    assert result.run.jumps_kept > 0 and result.run.jumps_rejected > 0
    trace = np.array(result.trace)
    assert np.all(np.diff(trace) >= -1e-12 * np.abs(trace[1:]))
    assert result.iterations == 200 or result.converged


def separated_network_engine(spec, rng, engine=em.make_engine):
    """An engine of a binary network on 2000 cases from well separated parameters (roots
    (0.4, 0.6), other rows near (0.85, 0.15) and (0.2, 0.8)): plain EM reaches the interior
    mode in a few hundred iterations."""
    network = parse_spec(spec)
    truth = []
    for table in random_parameters(network, rng):
        rows = len(table)
        truth.append(np.array([[0.4, 0.6]]) if rows == 1 else
                     np.array([[0.85, 0.15], [0.2, 0.8]] * (rows // 2))
                     + np.linspace(0.0, 0.1, rows)[:, None] * [1.0, -1.0])
    return engine(network, sample_dataset(network, truth, 2000, rng), 1.01)


#: C has two parents and H three more children, so that H is identified.
SEPARATED_NOT_A_TREE = {"nodes": {"H": {"states": 2, "hidden": True}, "A": {"states": 2},
                                  **{name: {"states": 2, "parents": ["H"]} for name in "BDE"},
                                  "C": {"states": 2, "parents": ["H", "A"]}}}
#: One engine of each kind on data that identify the parameters (but the additive models':
#: only the sums of mechanism rows that cases add, see identified()).
IDENTIFIED = {
    "latent class": lambda rng: separated_network_engine("2:2,2,2,2", rng),
    "message passing (tree)": lambda rng: separated_network_engine("2(2(2,2),2,2)", rng),
    "enumeration": lambda rng: separated_network_engine(SEPARATED_NOT_A_TREE, rng,
                                                        em.EnumerationEngine),
    "junction tree": lambda rng: separated_network_engine(SEPARATED_NOT_A_TREE, rng,
                                                          em.JunctionTreeEngine),
    "noisy-max": ENGINES["noisy-max"],
    "poisson": ENGINES["poisson"],
    "gaussian": ENGINES["gaussian"],
}


def identified(engine, state):
    """The parameters the data identify: all, but an additive model's per-case sums of its
    mechanisms' means (and variances), ``incidence @ rows``."""
    vector = engine.to_vector(state)
    if not isinstance(engine, (PoissonEngine, GaussianEngine)):
        return vector
    moments = 1 if isinstance(engine, PoissonEngine) else 2
    return np.concatenate([engine.model.incidence() @ part
                           for part in np.split(vector, moments)])


@pytest.mark.parametrize("name", IDENTIFIED)
def test_squarem_reaches_plain_em_s_fixed_point_in_fewer_e_steps(name, rng):
    """From the same start, plain EM run to a change of g of 1e-13 and SQUAREM agree on g to
    1e-8 and on the parameters, and SQUAREM takes fewer E steps."""
    engine = IDENTIFIED[name](rng)
    start = engine.random_state(rng)
    plain, accelerated = (em.fit_engine(engine, None, 1, 100000, 1e-13, draw=lambda _: start,
                                        convergence="absolute", acceleration=acceleration)
                          for acceleration in ("none", "squarem"))
    assert plain.converged and accelerated.converged
    assert accelerated.run.g == pytest.approx(plain.run.g, abs=1e-8)
    np.testing.assert_allclose(identified(engine, accelerated.run.state),
                               identified(engine, plain.run.state), atol=1e-5)
    assert accelerated.iterations < plain.iterations / 2


class BernoulliMixture:
    """A model family that is not in the library: two classes of independent binary features,
    ML. The state is ``(w, p)``: ``w = p(H = 1)``, ``p[h, j] = p(X_j = 1 | H = h)``."""

    def __init__(self, data):
        self.x, self.counts = data.patterns.astype(float), data.counts.astype(float)

    def random_state(self, rng):
        return rng.uniform(0.2, 0.8), rng.uniform(0.1, 0.9, (2, self.x.shape[1]))

    def e_step(self, state):
        w, p = state
        log_joint = (np.log([1 - w, w])[:, None] + np.log(p) @ self.x.T
                     + np.log1p(-p) @ (1 - self.x).T)  # (class, pattern)
        log_marginal = np.logaddexp(*log_joint)
        mass = np.exp(log_joint - log_marginal) * self.counts
        return Statistics((mass.sum(axis=1), mass @ self.x), float(self.counts @ log_marginal))

    def m_step(self, statistics, state):
        n, ones = statistics.expected
        return n[1] / n.sum(), ones / n[:, None]

    def log_prior(self, state):
        return 0.0

    def to_vector(self, state):
        return np.concatenate([[state[0]], state[1].ravel()])

    def from_vector(self, vector, like):
        inside = np.all((vector >= 0) & (vector <= 1))
        return (vector[0], vector[1:].reshape(like[1].shape)) if inside else None


def mixture_cpts(state):
    """The mixture's parameters as the CPTs of the latent class model ``2:2,...,2``."""
    w, p = state
    return [np.array([[1 - w, w]])] + [np.column_stack([1 - p[:, j], p[:, j]])
                                       for j in range(p.shape[1])]


@pytest.mark.parametrize("schedule", em.ENGINE_SCHEDULES)
def test_a_new_model_family_is_one_class(schedule):
    """The toy engine, fitted by the shared driver, reaches the optimum the library's latent
    class engine reaches on the same data, and its g is the exact log-likelihood."""
    network = latent_class(2, [2] * 6)
    truth = [np.array([[0.35, 0.65]])] + [np.array([[0.85, 0.15], [0.2, 0.8]])] * 3 + [
        np.array([[0.3, 0.7], [0.9, 0.1]])] * 3
    rng = np.random.default_rng(4)
    data = sample_dataset(network, truth, 3000, rng)
    toy = BernoulliMixture(data)
    assert isinstance(toy, EMEngine)
    result = em.fit_engine(toy, rng, restarts=8, max_iterations=5000, tolerance=1e-12,
                           schedule=schedule)
    reference = em.fit(network, data, rng, alpha=1.0, restarts=8, max_iterations=5000,
                       tolerance=1e-12, schedule="best-of-n")
    assert result.converged and reference.converged
    assert result.run.g == pytest.approx(reference.log_likelihood, rel=1e-10)
    ours = mixture_cpts(result.run.state)
    table = observed_distribution(network, ours)
    assert result.run.g == pytest.approx(float(data.counts @ np.log(
        table[tuple(data.patterns.T)])), rel=1e-12)
    # the same parameters up to the labels of the two classes (the rows of the children)
    swapped = [ours[0][:, ::-1]] + [t[::-1] for t in ours[1:]]
    best = min((ours, swapped), key=lambda cpts: abs(cpts[0][0, 0] - reference.cpts[0][0, 0]))
    for mine, theirs in zip(best, reference.cpts):
        np.testing.assert_allclose(mine, theirs, atol=1e-5)


def effect_log_posterior(engine, data, table):
    """The noisy-max engine's g by enumeration over the hidden mechanism states: the network's
    log-likelihood (hiddenbn.inference.enumeration) less that of its causes, plus the mechanisms'
    prior."""
    model, network = engine.model, engine.model.network()
    offsets = model.mechanism_offsets()
    cause_tables = [np.full((1, r), 1.0 / r) for r in model.cause_states]
    cpts = cause_tables + [table[a:b] for a, b in zip(offsets[:-1], offsets[1:])] + [None]
    data = data.for_network(network)
    _, log_likelihood = enumeration_statistics(network, cpts, data.patterns, data.counts)
    cause_log_likelihood = -data.n_cases * float(np.log(model.cause_states).sum())
    return log_likelihood - cause_log_likelihood + float(xlogy(engine.alpha - 1.0, table).sum())


@pytest.mark.parametrize("alpha", [1.0, 1.5])
def test_noisy_max_through_the_driver_agrees_with_enumeration(alpha, rng):
    engine, data = noisy_max_engine(rng, alpha)
    result = em.fit_engine(engine, np.random.default_rng(3), restarts=3, max_iterations=3000,
                           tolerance=1e-10)
    assert result.converged
    trace = np.array(result.trace)
    assert trace.size <= result.iterations  # a SQUAREM cycle takes up to 4 iterations
    assert np.all(np.diff(trace) >= -1e-12 * np.abs(trace[1:]))
    assert abs(trace[-1] - trace[-2]) <= 1e-10 * abs(trace[-2])
    assert result.run.g == pytest.approx(effect_log_posterior(engine, data, result.run.state),
                                         rel=1e-12)
    # fit_noisy_max is this run, with the causes' closed-form tables around it
    fit = fit_noisy_max(engine.model, data, np.random.default_rng(3), alpha=alpha, restarts=3,
                        max_iterations=3000, tolerance=1e-10)
    offsets = engine.model.mechanism_offsets()
    for i, (a, b) in enumerate(zip(offsets[:-1], offsets[1:])):
        assert np.array_equal(fit.cpts[engine.model.n_causes + i], result.run.state[a:b])
    assert (fit.iterations, fit.converged) == (result.iterations, result.converged)
    network = engine.model.network()
    _, log_likelihood = enumeration_statistics(network, fit.cpts,
                                               data.for_network(network).patterns,
                                               data.for_network(network).counts)
    assert fit.log_likelihood == pytest.approx(log_likelihood, rel=1e-12)


def test_best_of_n_keeps_the_best_of_the_starts_drawn_in_order(rng):
    """Each start fitted alone from the same draws: the driver returns the largest g."""
    engine, _ = noisy_max_engine(rng)
    options = dict(max_iterations=200, tolerance=1e-9)
    together = em.fit_engine(engine, np.random.default_rng(8), restarts=5, **options)
    draws = np.random.default_rng(8)
    alone = [em.fit_engine(engine, None, restarts=1, draw=lambda _: state, **options)
             for state in [engine.random_state(draws) for _ in range(5)]]
    best = max(alone, key=lambda result: result.run.g)
    assert together.run.g == best.run.g
    assert np.array_equal(together.run.state, best.run.state)
    assert (together.iterations, together.trace) == (best.iterations, best.trace)


@pytest.mark.parametrize("call", [
    lambda rng: em.fit(latent_class(2, [2, 2, 2]), toy_data(rng), rng, alpha=0.5),
    lambda rng: fit_noisy_max(noisy_max_model([[1], [2]]), toy_nmi_data(rng), rng, alpha=0.5),
    lambda rng: fit_additive(additive_model("poisson"), toy_summary(rng), rng, alpha=0.5),
])
def test_alpha_is_checked_once_for_every_fit(call, rng):
    with pytest.raises(ParameterError, match="Dirichlet alpha of at least 1"):
        call(rng)


@pytest.mark.parametrize("call", [
    lambda rng: em.fit(latent_class(2, [2, 2, 2]), toy_data(rng), rng, restarts=0),
    lambda rng: fit_noisy_max(noisy_max_model([[1], [2]]), toy_nmi_data(rng), rng, restarts=0),
    lambda rng: fit_additive(additive_model("poisson"), toy_summary(rng), rng, restarts=0),
    lambda rng: em.fit_engine(BernoulliMixture(toy_data(rng)), rng, 0, 10, 1e-6),
])
def test_starts_are_checked_once_for_every_fit(call, rng):
    with pytest.raises(ParameterError,
                       match="the number of EM starts must be a whole number of at least 1"):
        call(rng)


def test_the_driver_refuses_the_network_only_schedule(rng):
    with pytest.raises(ParameterError, match="'annealing'; use one of halving, best-of-n"):
        em.fit_engine(BernoulliMixture(toy_data(rng)), rng, 4, 10, 1e-6, schedule="annealing")


def toy_data(rng):
    network = latent_class(2, [2, 2, 2])
    return sample_dataset(network, random_parameters(network, rng), 50, rng)


def toy_nmi_data(rng):
    network = noisy_max_model([[1], [2]]).network()
    return sample_dataset(network, random_parameters(network, rng), 50, rng)


def toy_summary(rng):
    model = additive_model("poisson")
    causes, effect = sample_additive(model, CAUSE_TABLES, np.ones(9), None, 50, rng)
    return summarise(causes, effect)


@pytest.mark.parametrize("alpha", [1.0, 1.01, 3.0])
def test_latent_class_m_step_and_prior_match_the_elementwise_formulas(alpha, rng):
    """The one-pass numba M step and log prior against :func:`hiddenbn.models.priors.map_update` and
    ``xlogy``, with an empty row (kept at its previous value when ML has no data for it)."""
    network = latent_class(3, [2, 4, 3])
    engine = em.make_engine(network, sample_dataset(network, random_parameters(network, rng),
                                                    50, rng), alpha)
    state = engine.random_state(rng)
    class_counts = np.array([12.5, 0.0, 37.5])
    table_counts = rng.random((9, 3)) * 10
    table_counts[:, 1] = 0.0
    weights, table = engine.m_step(Statistics((class_counts, table_counts), -1.0), state)
    expected_weights = map_update(class_counts, class_counts.sum(), 3, state[0], alpha)
    totals = np.repeat(np.add.reduceat(table_counts, engine.offsets, axis=0), engine.cards,
                       axis=0)
    rows = np.repeat(engine.cards, engine.cards)[:, None]
    expected_table = map_update(table_counts, totals, rows, state[1], alpha)
    np.testing.assert_allclose(weights, expected_weights, rtol=1e-14)
    np.testing.assert_allclose(table, expected_table, rtol=1e-14)
    prior = engine.normalizer + xlogy(alpha - 1, state[0]).sum() + xlogy(alpha - 1,
                                                                          state[1]).sum()
    assert engine.log_prior(state) == pytest.approx(prior, rel=1e-13)
