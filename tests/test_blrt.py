"""The bootstrap likelihood-ratio test (:mod:`hiddenbn.learning.blrt`, ``select --blrt``).

* The sequential rule of Besag & Clifford against brute force: its p-value is exact (``P(p <= u)
  <= u`` under the null hypothesis, here by simulating exchangeable statistics), and it stops
  exactly where the rule says.
* The replicates: drawn with the data's N and missing cells, the same from a plan file, and the
  same report on one core and on two.
* The refits: those of the first replicates reach the oracle on real data; a weak search is
  caught.
* StepMix's ``blrt`` on real data (poLCA's carcinoma data, 3 against 4 classes, where the p-value
  is near 0.2): the two programs' counts of replicates at least as extreme agree within Monte-Carlo
  error (Fisher's exact test on the two binomial counts, same B).
* ``select --blrt`` in text and JSON, and its bad input: one line, exit 2.
"""

import contextlib
import dataclasses
import io
import json
import sys
import types
import warnings
from pathlib import Path

import numpy as np
import pytest
from scipy import stats
from test_bad_input import assert_refused, run, write

import hiddenbn
from hiddenbn.cli import main
from hiddenbn.data import MISSING, write_csv
from hiddenbn.data.sampling import sample_dataset
from hiddenbn.errors import ParameterError
from hiddenbn.learning import blrt, em
from hiddenbn.models.network import latent_class, random_parameters
from hiddenbn.models.spec import parse_spec

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks import bench_search  # noqa: E402

#: Replicates of the comparison with StepMix, for each program.
PEER_REPLICATES = 50
#: StepMix's EM starts for the 4-class refits: from one start, 2 in 10 reach the carcinoma
#: data's 4-class optimum; its replicates' refits need a few to find theirs.
PEER_STARTS = 3
#: The level of Fisher's exact test below which the two programs' counts disagree.
AGREEMENT_LEVEL = 0.01


@pytest.fixture(scope="module")
def small_data():
    """300 cases of a 2-class model over three ternary items, some cells blank."""
    network = latent_class(2, [3, 3, 3])
    cpts = random_parameters(network, np.random.default_rng(1))
    return sample_dataset(network, cpts, 300, np.random.default_rng(2), missing_rate=0.1)


@pytest.fixture(scope="module")
def plan(small_data):
    """The test of 1 against 2 classes on ``small_data``, at most 6 replicates, 2 EM starts."""
    return blrt.plan_tests(small_data, [1, 2], 0, 6, restarts=2)


def statistics(values):
    """Replicate results with the given statistics, as :func:`blrt.run_replicate` returns."""
    return [{"states": 2, "replicate": b, "statistic": value, "log_likelihoods": [0.0, value / 2],
             "converged": [True, True]} for b, value in enumerate(values)]


# --- the sequential rule ----------------------------------------------------------------------
@pytest.mark.parametrize("replicates, limit", [(19, 1), (20, 2), (99, 5), (100, 6), (1010, 51),
                                               (1000, 51)])
def test_the_exceedance_limit_is_the_fewest_that_put_p_above_the_level(replicates, limit):
    assert blrt.exceedance_limit(replicates) == limit
    assert limit / replicates > 0.05 >= (limit - 1) / replicates


def test_the_exceedance_limit_is_exact_where_floats_are_not():
    assert blrt.exceedance_limit(100, 0.29) == 30  # 0.29 * 100 is 28.999999999999996


def test_the_rule_stops_at_the_h_th_exceedance_and_otherwise_uses_every_replicate(plan):
    plan = dataclasses.replace(plan, replicates=100)
    observed = plan.test(2).statistic
    above, below = observed + 1.0, observed - 1.0
    stopped = blrt.combine(plan, 2, statistics([below, above] * 10))  # h = 6: at L = 12
    assert (stopped["replicates"], stopped["exceedances"]) == (12, 6)
    assert stopped["p_value"] == 6 / 12 and stopped["stopped_early"]
    assert stopped["monte_carlo_se"] == pytest.approx(np.sqrt(0.5 * 0.5 / 12))
    every = blrt.combine(plan, 2, statistics([below] * 97 + [observed] * 3))  # ties count
    assert (every["replicates"], every["exceedances"], every["stopped_early"]) == (100, 3, False)
    assert every["p_value"] == 4 / 101
    with pytest.raises(ParameterError, match="lack replicate 1"):
        blrt.combine(plan, 2, statistics([below] * 5)[::2])
    with pytest.raises(ParameterError, match="not yet decided; run replicates 5 to 99"):
        blrt.combine(plan, 2, statistics([below] * 5))


@pytest.mark.parametrize("replicates", [19, 50, 99])
def test_the_sequential_p_value_is_exact_under_the_null_hypothesis(replicates):
    """Under the null hypothesis the observed statistic and the B replicates' are exchangeable
    (here independent uniforms): P(p <= u) <= u for every u, with equality at u = 0.05 when
    0.05 (B + 1) is whole. Brute force over 40000 simulated tests, 4 standard errors."""
    rng = np.random.default_rng(5)
    trials = 40000
    draws = rng.random((trials, replicates + 1))
    exceeds = draws[:, 1:] >= draws[:, :1]
    limit = blrt.exceedance_limit(replicates)
    counts = np.cumsum(exceeds, axis=1)
    reached = counts[:, -1] >= limit
    stop = np.argmax(counts >= limit, axis=1) + 1
    p = np.where(reached, limit / stop, (1 + counts[:, -1]) / (replicates + 1))
    for u in (0.01, 0.05, 0.1, 0.3, 0.6):
        share = np.mean(p <= u)
        assert share <= u + 4 * np.sqrt(u * (1 - u) / trials), (u, share)
    if (0.05 * (replicates + 1)).is_integer():
        assert np.mean(p <= 0.05) == pytest.approx(0.05, abs=4 * np.sqrt(0.05 * 0.95 / trials))
    # the rule's own reading of a trial gives the same p-value
    plan = small_plan_for_statistics(replicates)
    for trial in range(5):
        values = np.where(exceeds[trial], 2.0, 0.0)
        assert blrt.combine(plan, 2, statistics(values))["p_value"] == p[trial]


def small_plan_for_statistics(replicates):
    """A plan whose test of 2 classes has the observed statistic 1 (no fit needed)."""
    network = latent_class(1, [2, 2])
    data = sample_dataset(network, random_parameters(network, np.random.default_rng(0)), 20,
                          np.random.default_rng(0))
    test = blrt.ClassesTest(2, random_parameters(network, np.random.default_rng(0)), (0.0, 0.5))
    return blrt.Plan(data, (test,), 0, replicates)


# --- the replicates ---------------------------------------------------------------------------
def test_a_replicate_has_the_data_s_cases_and_missing_cells(small_data, plan):
    replicate = blrt.replicate_data(plan, 2, 4)
    assert replicate.n_cases == small_data.n_cases
    blanks = np.unique(small_data.rows() == MISSING, axis=0, return_counts=True)
    replicate_blanks = np.unique(replicate.rows() == MISSING, axis=0, return_counts=True)
    for ours, theirs in zip(blanks, replicate_blanks):
        np.testing.assert_array_equal(ours, theirs)
    other = blrt.replicate_data(plan, 2, 5)  # each replicate its own draw
    assert not np.array_equal(np.sort(replicate.rows(), axis=0), np.sort(other.rows(), axis=0))


def test_jobs_from_a_plan_file_give_the_report_of_one_run(plan, tmp_path):
    """The workflow's path: the plan written once, replicates in two jobs from the file (in
    either order), their results combined; the same report as run_tests in one process."""
    blrt.write_plan(tmp_path / "plan.json", plan)
    again = blrt.read_plan(tmp_path / "plan.json")
    assert again.test(2).statistic == plan.test(2).statistic
    jobs = [blrt.run_replicates(again, 2, 3, 6), blrt.run_replicates(again, 2, 0, 3)]
    assert jobs[1][1:] == blrt.run_replicates(plan, 2, 1, 3)
    assert blrt.combine_all(again, jobs[0] + jobs[1]) == blrt.run_tests(plan, cores=1)
    (tmp_path / "bad.json").write_text("{}")
    with pytest.raises(blrt.HiddenbnError, match="is not a bootstrap test plan"):
        blrt.read_plan(tmp_path / "bad.json")


def test_the_report_is_the_same_on_one_core_and_on_two(plan):
    progress = []
    one = blrt.run_tests(plan, cores=1, progress=progress.append)
    assert one == blrt.run_tests(plan, cores=2)
    assert progress == list(range(1, one["tests"][0]["replicates"] + 1))
    test = one["tests"][0]
    assert test["replicates"] <= plan.replicates and test["states"] == 2
    assert one["missing_cells"] == blrt.MISSING_CELLS


# --- the refits -------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def carcinoma():
    return bench_search.carcinoma()


def test_the_refits_reach_the_oracle_on_real_data(carcinoma):
    """3 against 4 classes on the carcinoma data: the default search's refits of two
    replicates, under both models, end within 0.01 nats of the oracle's."""
    plan = blrt.plan_tests(carcinoma, [4], 0, 2, oracle_checks=2)
    checks = [check for result in blrt.run_replicates(plan, 4, 0, 2)
              for check in result["refit_check"]]
    assert [check["classes"] for check in checks] == [3, 4, 3, 4]
    for check in checks:
        assert check["reached"], check
        assert check["log_posterior"] >= check["oracle_log_posterior"] - em.REPLICATION_TOLERANCE


def test_a_weak_search_is_caught_by_the_oracle(carcinoma):
    """One random start, five EM iterations: the refits end short of the oracle's longer
    search, and the report says so."""
    plan = blrt.plan_tests(carcinoma, [4], 0, 1, oracle_checks=1, restarts=1,
                           schedule="best-of-n", max_iterations=5)
    test = blrt.combine(plan, 4, blrt.run_replicates(plan, 4, 0, 1))
    assert test["refit_check"]["reached"] < test["refit_check"]["checked"] == 2
    report = blrt.report(plan, [test])
    assert any("refits checked against the oracle ended more than 0.01 nats below" in note
               for note in report["notes"])


# --- StepMix ----------------------------------------------------------------------------------
def test_p_value_agrees_with_stepmix_on_real_data(carcinoma):
    """3 against 4 classes on the carcinoma data, B = 50 for both: hiddenbn's count of
    replicates with LR_b >= LR and StepMix's (``blrt`` counts LR_b > LR; the statistic is
    continuous) are two binomial counts of one probability if both tests are right; Fisher's
    exact test must not reject that at 1%. Both also find the same observed statistic."""
    blrt_of_stepmix = pytest.importorskip("stepmix.bootstrap").blrt
    StepMix = pytest.importorskip("stepmix.stepmix").StepMix
    plan = blrt.plan_tests(carcinoma, [4], 0, PEER_REPLICATES, oracle_checks=0)
    ours = blrt.run_replicates(plan, 4, 0, PEER_REPLICATES)
    observed = plan.test(4).statistic
    exceedances = sum(result["statistic"] >= observed for result in ours)

    rows = carcinoma.rows().astype(float)
    settings = dict(measurement="binary", max_iter=1000, abs_tol=1e-6, rel_tol=0.0,
                    random_state=1, verbose=0, progress_bar=0)
    null, alternative = (StepMix(n_components=3, n_init=1, **settings),
                         StepMix(n_components=4, n_init=PEER_STARTS, **settings))
    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()), \
            contextlib.redirect_stderr(io.StringIO()):
        warnings.simplefilter("ignore")  # a start stopped by max_iter warns
        their_p = blrt_of_stepmix(null, alternative, rows, n_repetitions=PEER_REPLICATES,
                                  random_state=7)
    their_statistic = 2 * len(rows) * (alternative.score(rows) - null.score(rows))
    assert their_statistic == pytest.approx(observed, abs=0.05)
    theirs = round(their_p * PEER_REPLICATES)
    table = [[exceedances, PEER_REPLICATES - exceedances], [theirs, PEER_REPLICATES - theirs]]
    assert stats.fisher_exact(table).pvalue >= AGREEMENT_LEVEL, table
    assert 0 < exceedances < PEER_REPLICATES  # an informative p-value, not one at 0 or 1


# --- the command line -------------------------------------------------------------------------
def test_select_reports_the_tests_in_text_and_json(small_data, tmp_path, capsys):
    path = tmp_path / "data.csv"
    write_csv(path, small_data)
    options = ["--classes", "1..2", "--restarts", "2", "--skip-de", "--blrt", "5", "--cores", "1"]
    assert main(["select", str(path), *options, "--json"]) == 0
    result = json.loads(capsys.readouterr().out)["blrt"]
    test = result["tests"][0]
    assert set(test) >= {"states", "statistic", "p_value", "monte_carlo_se", "replicates",
                         "stopped_early", "refit_check"}
    assert result["replicates"] == 5 and result["refit_check"]["checked"] == 6
    assert any("no p-value can fall to 0.05" in note for note in result["notes"])
    from_python = hiddenbn.select(path, "1..2", restarts=2, skip_de=True, blrt=5, cores=1)
    # the notes name the option as the caller wrote it
    missed = "the search misses modes on such data, and a p-value can be off; give more starts "
    assert any(note.endswith(missed + "(--restarts)") for note in result["notes"])
    assert any(note.endswith(missed + "(restarts=)") for note in from_python.blrt["notes"])
    assert {**from_python.blrt, "notes": [note.replace("(restarts=)", "(--restarts)") for note
                                          in from_python.blrt["notes"]]} == result
    assert from_python.selected["blrt"] == result["selected"]
    assert main(["select", str(path), *options]) == 0
    text = capsys.readouterr().out
    assert "bootstrap likelihood-ratio tests of k - 1 against k classes" in text
    assert f"{test['p_value']:.4f}" in text
    assert f"refits at the oracle: {result['refit_check']['reached']} of 6 checked" in text


@pytest.mark.parametrize("argv, message", [
    (["--blrt", "0"], "argument --blrt: expected a positive whole number, got 0"),
    (["--blrt", "-3"], "argument --blrt: expected a positive whole number, got -3"),
    (["--blrt", "2.5"], "argument --blrt: expected a positive whole number, got '2.5'"),
    (["--blrt", "100000000"], "argument --blrt: 100000000 is above the limit of 65536"),
    (["--classes", "1", "--blrt", "5"], "compares k - 1 with k classes and the classes given "
                                        "have no k of 2 or more"),
    (["--cores", "2"], "--cores does not act without --blrt"),
    (["--blrt", "5", "--cores", "0"], "argument --cores: expected a positive whole number"),
])
def test_select_refuses_bad_blrt_input_in_one_line(tmp_path, capsys, argv, message):
    path = write(tmp_path, "data.csv", "X1,X2\n0,1\n1,0\n1,1\n0,0\n1,1\n")
    assert_refused(run(capsys, "select", path, *argv), message)


def test_the_library_refuses_a_model_that_is_not_latent_class(small_data):
    tree = types.SimpleNamespace(network=parse_spec("2(2(3,3),3)"))  # a fit of it, as refused
    with pytest.raises(ParameterError, match="not of a latent class model"):
        blrt.plan_tests(small_data, [2], 0, 10, fits={1: tree})
    for replicates in (0, -1, 2.5):
        with pytest.raises(ParameterError, match="bootstrap replicates"):
            blrt.plan_tests(small_data, [2], 0, replicates)
