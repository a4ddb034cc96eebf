"""WBIC: the tempered-posterior sampler against closed forms and quadrature, against the exact
evidence (its bias, reported), and its diagnostics against the closed forms of AR(1) chains."""

import json

import numpy as np
import pytest
from numpy.polynomial.legendre import leggauss
from scipy.special import digamma

import hiddenbn
from hiddenbn.data import MISSING, Dataset, read_data
from hiddenbn.data.sampling import sample_dataset
from hiddenbn.errors import DataError, ParameterError
from hiddenbn.inference import exact as exact_inference
from hiddenbn.models.network import latent_class, random_parameters
from hiddenbn.models.spec import parse_spec
from hiddenbn.scores.exact import exact_log_evidence
from hiddenbn.scores.wbic import (ObservedLikelihood, SoftmaxRows, TemperedPosterior,
                                  effective_sample_size, split_rhat, wbic, wbic_temperature)

#: A short run: enough for the checks below to resolve a few tenths of a nat in seconds.
SHORT = {"chains": 4, "warmup": 200, "draws": 400}
#: Standard errors a sampler estimate may be off by before a check fails (p ~ 6e-5 each).
SIGMAS = 4.0


def binary_items(counts: dict) -> Dataset:
    """Cases of binary items X1, X2, ... from ``{pattern: count}``."""
    rows = np.array([pattern for pattern, count in counts.items() for _ in range(count)])
    return Dataset.from_rows(tuple(f"X{j + 1}" for j in range(rows.shape[1])), rows,
                             (2,) * rows.shape[1])


def tempered_beta_mean_log_likelihood(ones: int, zeros: int, alpha: float, beta: float):
    """``E[n1 log t + n0 log(1 - t)]`` under the tempered posterior Beta(beta n1 + alpha,
    beta n0 + alpha) of one binary variable with a Beta(alpha, alpha) prior."""
    a, b = beta * ones + alpha, beta * zeros + alpha
    return ones * (digamma(a) - digamma(a + b)) + zeros * (digamma(b) - digamma(a + b))


def within_error(result, expected):
    assert abs(result.wbic_log_evidence - expected) < SIGMAS * result.standard_error, (
        result.wbic_log_evidence, result.standard_error, expected)


@pytest.mark.parametrize("alpha, beta", [(1.0, None), (2.0, None), (1.0, 1.0)])
def test_one_class_is_independent_tempered_beta_posteriors(alpha, beta):
    """One hidden state: the items are independent binomials, each row's tempered posterior a
    Beta, and E_beta[log p(D | theta)] a sum of digammas."""
    data = binary_items({(0, 0): 9, (0, 1): 3, (1, 0): 4, (1, 1): 14})
    network = latent_class(1, [2, 2])
    result = wbic(network, data, random_parameters(network, np.random.default_rng(0)),
                  np.random.default_rng(1), alpha, inverse_temperature=beta, **SHORT)
    temperature = wbic_temperature(30) if beta is None else beta
    assert result.inverse_temperature == temperature
    expected = (tempered_beta_mean_log_likelihood(18, 12, alpha, temperature)
                + tempered_beta_mean_log_likelihood(17, 13, alpha, temperature))
    within_error(result, expected)
    assert result.rhat < 1.05 and not result.divergences


def test_a_lone_node_takes_the_exact_inference_kernels():
    """A network that is not a latent class model goes through
    :func:`hiddenbn.inference.exact.statistics_function`; one observed binary node: a Beta."""
    network = parse_spec({"nodes": {"A": {"states": 2}}})
    data = Dataset.from_rows(("A",), np.array([[1]] * 7 + [[0]] * 13), (2,))
    result = wbic(network, data, [np.array([[0.5, 0.5]])], np.random.default_rng(2),
                  chains=2, warmup=100, draws=300)
    within_error(result, tempered_beta_mean_log_likelihood(7, 13, 1.0, wbic_temperature(20)))


def quadrature_mean_log_likelihood(counts: dict, beta: float, nodes: int = 16) -> float:
    """``E_beta[log p(D | theta)]`` of the 2-class model of two binary items under the uniform
    prior, by Gauss-Legendre quadrature over its 5 parameters (the unit cube)."""
    x, w = leggauss(nodes)
    weight, first_1, first_2, second_1, second_2 = np.meshgrid(
        *[0.5 * (x + 1.0)] * 5, indexing="ij", sparse=True)
    cell = 1.0
    for factor in np.meshgrid(*[0.5 * w] * 5, indexing="ij", sparse=True):
        cell = cell * factor
    log_likelihood = 0.0
    for (x1, x2), count in counts.items():
        in_1 = (first_1 if x1 else 1 - first_1) * (second_1 if x2 else 1 - second_1)
        in_2 = (first_2 if x1 else 1 - first_2) * (second_2 if x2 else 1 - second_2)
        log_likelihood = log_likelihood + count * np.log(weight * in_1 + (1 - weight) * in_2)
    tempered = np.exp(beta * (log_likelihood - log_likelihood.max())) * cell
    return float((log_likelihood * tempered).sum() / tempered.sum())


def test_two_classes_of_two_items_match_quadrature():
    """A singular model (5 parameters, 3 degrees of freedom in the data)."""
    counts = {(0, 0): 9, (0, 1): 3, (1, 0): 4, (1, 1): 14}
    start = [np.array([[0.5, 0.5]]), np.array([[0.8, 0.2], [0.2, 0.8]]),
             np.array([[0.7, 0.3], [0.3, 0.7]])]
    result = wbic(latent_class(2, [2, 2]), binary_items(counts), start,
                  np.random.default_rng(3), **SHORT)
    expected = quadrature_mean_log_likelihood(counts, wbic_temperature(30))
    assert expected == pytest.approx(quadrature_mean_log_likelihood(
        counts, wbic_temperature(30), 24), abs=1e-4)  # the rule has converged
    within_error(result, expected)


def finite_difference_gradient(function, z, step=1e-6):
    gradient = np.empty_like(z)
    for k in range(z.size):
        shift = np.zeros_like(z)
        shift[k] = step
        gradient[k] = (function(z + shift)[0] - function(z - shift)[0]) / (2 * step)
    return gradient


@pytest.mark.parametrize("which", ["latent class, missing cells", "tree", "deterministic"])
def test_the_gradient_is_that_of_the_log_target(which, noisy_max_network):
    """Fisher's identity through the expected counts of every kernel, the prior's term and
    the layouts (the latent class kernel's packed table, deterministic nodes without rows)."""
    network = {"latent class, missing cells": latent_class(3, [2, 3, 2]),
               "tree": parse_spec("2(3(2,2),2)"), "deterministic": noisy_max_network}[which]
    rng = np.random.default_rng(4)
    data = sample_dataset(network, random_parameters(network, rng), 40, rng)
    if which.endswith("missing cells"):
        rows = data.rows()
        rows[::4, 1] = MISSING
        data = Dataset.from_rows(data.names, rows, (2, 3, 2))
    layout = SoftmaxRows(network)
    target = TemperedPosterior(ObservedLikelihood(network, data.for_network(network), layout),
                               1.5, 0.3)
    z = target.coordinates(layout.flat(random_parameters(network, rng)))
    assert target(z)[1] == pytest.approx(finite_difference_gradient(target, z), rel=1e-5,
                                         abs=1e-6)


@pytest.mark.parametrize("spec", ["3:2,3,2", "2(3(2,2),2)"])
def test_a_probability_that_underflows_is_rejected_not_raised(spec):
    """Far out in the prior's tails a probability underflows (message passing had divided by
    a pattern's zero probability): the target is -inf there, and a trajectory is rejected."""
    network = parse_spec(spec)
    rng = np.random.default_rng(18)
    data = sample_dataset(network, random_parameters(network, rng), 30, rng)
    layout = SoftmaxRows(network)
    target = TemperedPosterior(ObservedLikelihood(network, data.for_network(network), layout),
                               1.0, 0.3)
    z = target.coordinates(layout.flat(random_parameters(network, rng)))
    assert np.isfinite(target(z)[0])
    for value in (-800.0, 800.0):
        z[:] = value
        log_target, gradient, log_likelihood = target(z)
        assert log_target == log_likelihood == -np.inf and not gradient.any()


def test_the_latent_class_kernel_agrees_with_exact_inference():
    network = latent_class(3, [2, 3, 2])
    rng = np.random.default_rng(5)
    cpts = random_parameters(network, rng)
    data = sample_dataset(network, cpts, 50, rng).for_network(network)
    layout = SoftmaxRows(network)
    log_likelihood, expected = ObservedLikelihood(network, data, layout)(layout.flat(cpts))
    counts, peer = exact_inference.expected_statistics(network, cpts, data.patterns,
                                                       data.counts)
    assert log_likelihood == pytest.approx(peer, abs=1e-9)
    assert expected == pytest.approx(layout.flat(counts), abs=1e-9)
    assert layout.tables(layout.flat(cpts))[2] == pytest.approx(cpts[2])


def test_wbic_against_the_exact_evidence(capsys):
    """WBIC - log p(D | S) on cases the exact sum reaches, reported, not hidden: within a few
    nats (Watanabe's O_p(sqrt(log N))), and at N = 10 above it for every model, the upward
    bias at small N of Friel et al. (2017)."""
    truth = latent_class(2, [2, 2, 2])
    cpts = [np.array([[0.6, 0.4]]), np.array([[0.85, 0.15], [0.2, 0.8]]),
            np.array([[0.8, 0.2], [0.25, 0.75]]), np.array([[0.9, 0.1], [0.3, 0.7]])]
    rows = sample_dataset(truth, cpts, 40, np.random.default_rng(1)).rows()
    rows = np.random.default_rng(9).permutation(rows)
    lines, biases = ["k  N  exact log p(D)  wbic_log_evidence  bias"], {}
    for classes in (1, 2, 3):
        network = latent_class(classes, [2, 2, 2])
        for n in (10, 20):
            data = Dataset.from_rows(truth.observed_names, rows[:n], (2, 2, 2))
            exact = exact_log_evidence(network, data, 1.0).log_evidence
            result = wbic(network, data, random_parameters(network, np.random.default_rng(0)),
                          np.random.default_rng(6), **SHORT)
            biases[classes, n] = result.wbic_log_evidence - exact
            lines.append(f"{classes}  {n:2d}  {exact:13.3f}  {result.wbic_log_evidence:11.3f} "
                         f"+- {result.standard_error:.3f}  {biases[classes, n]:+.3f}")
    with capsys.disabled():
        print("\n" + "\n".join(lines))
    assert all(abs(bias) < 3.0 for bias in biases.values())
    assert all(biases[classes, 10] > 0 for classes in (1, 2, 3))


def test_independent_runs_agree_within_their_standard_errors():
    network = latent_class(2, [2, 2, 2, 2])
    rng = np.random.default_rng(7)
    cpts = random_parameters(network, rng)
    data = sample_dataset(network, cpts, 200, rng)
    first, second = (wbic(network, data, cpts, np.random.default_rng(seed), **SHORT)
                     for seed in (10, 11))
    assert abs(first.wbic_log_evidence - second.wbic_log_evidence) < SIGMAS * np.hypot(
        first.standard_error, second.standard_error)
    assert first.wbic_log_evidence != second.wbic_log_evidence


def test_a_seed_fixes_the_result():
    network = latent_class(2, [2, 3])
    rng = np.random.default_rng(8)
    cpts = random_parameters(network, rng)
    data = sample_dataset(network, cpts, 60, rng)
    runs = [wbic(network, data, cpts, np.random.default_rng(12), chains=2, warmup=30, draws=20)
            for _ in range(2)]
    assert runs[0] == runs[1]


def ar1_chains(rho: float, chains: int, draws: int, rng, shifts=None) -> np.ndarray:
    """Stationary AR(1) chains ``x_t = rho x_{t-1} + e_t`` with unit marginal variance."""
    x = np.empty((chains, draws))
    x[:, 0] = rng.standard_normal(chains)
    noise = rng.standard_normal((chains, draws)) * np.sqrt(1 - rho ** 2)
    for t in range(1, draws):
        x[:, t] = rho * x[:, t - 1] + noise[:, t]
    return x if shifts is None else x + np.asarray(shifts)[:, None]


@pytest.mark.parametrize("rho", [0.0, 0.5, 0.9])
def test_effective_sample_size_of_ar1_chains(rho):
    """The ESS of the mean of an AR(1) chain is ``S (1 - rho) / (1 + rho)``."""
    traces = ar1_chains(rho, 4, 20000, np.random.default_rng(13))
    assert effective_sample_size(traces) == pytest.approx(
        traces.size * (1 - rho) / (1 + rho), rel=0.1)


def test_split_rhat_sees_chains_apart_and_drifting():
    rng = np.random.default_rng(14)
    assert split_rhat(ar1_chains(0.5, 4, 2000, rng)) < 1.01
    assert split_rhat(ar1_chains(0.5, 4, 2000, rng, shifts=[0, 0, 0, 1])) > 1.05
    drifting = ar1_chains(0.5, 4, 2000, rng) + np.linspace(0, 2, 2000)  # split chains see it
    assert split_rhat(drifting) > 1.05
    scaled = ar1_chains(0.5, 4, 2000, rng) * np.array([1, 1, 1, 3])[:, None]  # folded sees it
    assert split_rhat(scaled) > 1.05


def test_doubtful_estimates_carry_notes():
    network = latent_class(2, [2, 2, 2])
    rng = np.random.default_rng(15)
    cpts = random_parameters(network, rng)
    data = sample_dataset(network, cpts, 100, rng)
    result = wbic(network, data, cpts, np.random.default_rng(16), chains=2, warmup=10,
                  draws=8, leapfrog_steps=1)
    assert any("effective draws" in note for note in result.notes)
    assert result.to_dict()["notes"] == result.notes


def test_bad_settings_and_data_are_refused_in_one_line():
    network = latent_class(2, [2, 2])
    data = binary_items({(0, 1): 3, (1, 1): 2})
    cpts = random_parameters(network, np.random.default_rng(0))
    for options, match in (({"chains": 1}, "chains"), ({"draws": 3}, "draws"),
                           ({"leapfrog_steps": 0}, "leapfrog"), ({"alpha": 0.0}, "alpha"),
                           ({"inverse_temperature": -1.0}, "temperature")):
        with pytest.raises(ParameterError, match=match):
            wbic(network, data, cpts, np.random.default_rng(0), **options)
    with pytest.raises(DataError, match="at least 2 cases"):
        wbic(network, binary_items({(0, 1): 1}), cpts, np.random.default_rng(0))


# --- the command line and the Python API ---------------------------------------------------------
@pytest.fixture(scope="module")
def items_file(tmp_path_factory):
    network = latent_class(2, [2, 2, 2])
    rng = np.random.default_rng(17)
    data = sample_dataset(network, random_parameters(network, rng), 120, rng)
    path = tmp_path_factory.mktemp("wbic") / "items.csv"
    path.write_text("X1,X2,X3\n" + "".join(",".join(map(str, row)) + "\n"
                                           for row in data.rows()))
    return path


def as_on_the_command_line(estimate: dict) -> dict:
    """A WBIC estimate of the Python API with its notes naming the option as the command line's
    flag: the draws, which the API calls ``wbic_draws``."""
    return {**estimate, "notes": [note.replace("give more draws (wbic_draws=)",
                                               "give more draws (--wbic-draws)")
                                  for note in estimate["notes"]]}


def test_fit_reports_wbic_with_its_error_in_json_and_text(items_file, capsys):
    """Its notes name the draws as the caller gave them: ``--wbic-draws`` on the command line,
    ``wbic_draws=`` in Python."""
    from hiddenbn.cli import main
    from hiddenbn.learning import selection

    arguments = ["fit", str(items_file), "--classes", "2", "--skip-de", "--wbic",
                 "--wbic-draws", "60", "--seed", "3"]
    assert main(arguments + ["--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    estimate = report["wbic"]
    assert report["scores"]["wbic_log_evidence"] == estimate["wbic_log_evidence"]
    assert estimate["draws"] == 60 and estimate["warmup"] == 30 and estimate["chains"] == 4
    assert estimate["standard_error"] > 0 and estimate["rhat"] > 0.9
    assert set(estimate["notes"]) <= set(report["notes"])
    assert any(note.endswith("fewer than 100 per chain, so its standard error is itself "
                             "uncertain; give more draws (--wbic-draws)")
               for note in estimate["notes"])
    data = read_data(items_file).dataset
    network = selection.latent_class_network(data, 2)
    outcome = selection.fit_and_score(network, data, 3, with_effective_dimension=False,
                                      wbic_draws=60)
    in_python = json.loads(json.dumps(outcome["wbic"]))
    assert in_python != estimate and as_on_the_command_line(in_python) == estimate  # --seed's
    assert main(arguments) == 0
    text = capsys.readouterr().out
    assert f"wbic_log_evidence {estimate['wbic_log_evidence']:.6f}" in text
    assert f"+- {estimate['standard_error']:.3f} Monte-Carlo standard error; split-R-hat " \
        f"{estimate['rhat']:.3f}" in text
    result = hiddenbn.fit(items_file, classes=2, skip_de=True, wbic=True, wbic_draws=60, seed=3)
    assert as_on_the_command_line(json.loads(json.dumps(result.to_dict()["wbic"]))) == estimate
    assert any(note.endswith("give more draws (wbic_draws=)") for note in result.notes)
    assert not any("--wbic-draws" in note for note in result.notes)


def test_select_chooses_by_wbic_too(items_file, capsys):
    from hiddenbn.cli import main

    assert main(["select", str(items_file), "--classes", "1..2", "--skip-de", "--wbic",
                 "--wbic-draws", "40", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    scores = {m["states"]: m["wbic_log_evidence"] for m in result["models"]}
    assert result["selected"]["wbic_log_evidence"] == max(scores, key=scores.get)
    assert all(m["wbic"]["draws"] == 40 for m in result["models"])


@pytest.mark.parametrize("arguments, message", [
    (["--wbic-draws", "50"], "--wbic-draws does not act without --wbic"),
    (["--wbic", "--wbic-draws", "3"], "at least 4"),
])
def test_bad_wbic_options_are_one_line(items_file, arguments, message, capsys):
    from hiddenbn.cli import main

    try:
        code = main(["fit", str(items_file), "--classes", "2", *arguments])
    except SystemExit as stop:  # argparse's errors
        code = stop.code
    assert code == 2
    error = capsys.readouterr().err
    assert error.startswith("hiddenbn: error: ") and error.count("\n") == 1
    assert message in error
