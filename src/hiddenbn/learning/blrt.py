"""The bootstrap likelihood-ratio test (BLRT) of k - 1 against k latent classes.

The likelihood-ratio statistic of a latent class model with ``k`` classes against ``k - 1``,

    LR = 2 (log L_k - log L_{k-1}),

from the ML fits (the project's default search, :func:`hiddenbn.learning.selection.search`),
does not follow the chi-square law: the smaller model lies on the boundary and in a singular
part of the larger one. McLachlan (1987) calibrates it by the parametric bootstrap, and Nylund,
Asparouhov & Muthen (2007) found the test the most reliable guide to the number of classes in
their simulations (Mplus' TECH14, StepMix's and poLCAParallel's ``blrt``). Replicate ``b`` of
the test of ``k``:

1. draws a data set from the fitted ``k - 1`` class model (:mod:`hiddenbn.data.sampling`) with
   the observed data's number of cases N and its missing cells: case ``i`` of the replicate is
   blank where case ``i`` of the data is (the cases are drawn independently, so which case gets
   which pattern of blanks does not matter, and every replicate has the data's blanks, each
   column's number of them and their joint pattern);
2. refits it under ``k - 1`` and ``k`` classes with the same search as the data, and takes
   ``LR_b``.

The p-value is the share of replicates at least as extreme, ``(1 + #{LR_b >= LR}) / (B + 1)``,
the Monte-Carlo p-value of Davison & Hinkley (1997, Ch. 4), with the binomial Monte-Carlo
standard error ``sqrt(p (1 - p) / n)`` of a proportion from ``n`` replicates. Under a Dirichlet
prior above 1 (``alpha``) the fits are MAP fits and LR is computed from them: another statistic,
calibrated by the same bootstrap.

**Stopping early.** The replicates are drawn by the sequential rule of Besag & Clifford (1991):
stop at the ``h``-th replicate with ``LR_b >= LR``, after ``L`` replicates, and report
``p = h / L``; if fewer than ``h`` come in ``B`` replicates, ``p = (1 + #{LR_b >= LR}) / (B +
1)``. This p-value is exact, ``P(p <= u) <= u`` under the null hypothesis for every ``u``
(Besag & Clifford 1991), so the test at level ``alpha`` keeps its level however early it
stops. ``h = floor(alpha B) + 1`` (:func:`exceedance_limit`), the fewest with ``h / B > alpha``:
the rule stops only once ``p > alpha`` is certain, as soon as it is (a p-value far above alpha
takes about ``h / p`` replicates), and a p-value at or below alpha takes all ``B``: no rule can
say ``p < 0.05`` much sooner, for ``n`` replicates without an exceedance have probability
``0.95^n`` at ``p = 0.05``, still about 1% at ``n = 90``. With ``B < 1 / alpha - 1`` (19 at 0.05) no
p-value can fall to alpha; the report says so.

**Refits.** A test is only as good as its refits: a search that misses the ``k``-class mode
lowers ``LR_b`` and the p-value with it. The first :data:`ORACLE_CHECKS` replicates of each test
are refitted twice more, by EM from the parameters that generated them (the ``k - 1`` class
model) and by a search with :data:`ORACLE_RESTARTS_FACTOR` times the starts; the best of the
three is the oracle, and the report counts the refits within
:data:`~hiddenbn.learning.em.REPLICATION_TOLERANCE` (0.01 nats) of its log posterior.

**Jobs.** Replicate ``b`` of the test of ``k`` draws its data and the starts of its searches
from streams of its own, ``seed`` with the keys ``("blrt", k, b, ...)``
(:mod:`hiddenbn.util.seeding`), and a fit is the same on any number of threads
(:mod:`hiddenbn.util.threads`), so a replicate is the same wherever and whenever it runs; the
sequential rule reads them in the order of ``b`` (:func:`combine`). :func:`run_tests` runs them
in a process pool, one thread a process. A workflow writes the plan once (:func:`plan_tests`,
:func:`write_plan`), runs ranges of replicates as jobs (:func:`read_plan`,
:func:`run_replicates`) and combines the jobs' results (:func:`combine_all`; replicates past a
stopping point are ignored), each step a call or two.

References: G. J. McLachlan (1987), On bootstrapping the likelihood ratio test statistic for
the number of components in a normal mixture, Applied Statistics 36: 318-324. K. L. Nylund, T.
Asparouhov and B. O. Muthen (2007), Deciding on the number of classes in latent class analysis
and growth mixture modeling: a Monte Carlo simulation study, Structural Equation Modeling 14:
535-569. J. Besag and P. Clifford (1991), Sequential Monte Carlo p-values, Biometrika 78:
301-304. A. C. Davison and D. V. Hinkley (1997), Bootstrap Methods and their Application,
Cambridge University Press.
"""

from __future__ import annotations

import json
import math
import multiprocessing
import os
import signal
from collections import deque
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from hiddenbn.data import MISSING, Dataset
from hiddenbn.data.sampling import forward_sample
from hiddenbn.errors import HiddenbnError, ParameterError, for_caller, option
from hiddenbn.inference.enumeration import is_latent_class
from hiddenbn.learning.em import REPLICATION_TOLERANCE, fit
from hiddenbn.learning.selection import latent_class_network, search
from hiddenbn.util import limits, seeding
from hiddenbn.util.defaults import PRIOR_ALPHA, RESTARTS, SCHEDULE
from hiddenbn.util.files import atomic_write_text
from hiddenbn.util.threads import use_threads

#: The level at which the sequential rule decides a p-value (:func:`exceedance_limit`).
LEVEL = 0.05
#: Replicates of each test whose refits are checked against the oracle (the first ones).
ORACLE_CHECKS = 3
#: The oracle's longer search has this many times the starts of the test's search.
ORACLE_RESTARTS_FACTOR = 4
#: How the report names the stopping rule.
STOPPING_RULE = ("Besag & Clifford (1991): stop at the h-th replicate with LR_b >= LR, h = "
                 "floor(level B) + 1, with p = h / L after L replicates (p > level is then "
                 "certain); otherwise p = (1 + #{LR_b >= LR}) / (B + 1); the p-value is exact")
#: How the report says what the replicates do with missing cells.
MISSING_CELLS = ("each replicate has the data's missing cells: case i is blank where case i of "
                 "the data is")


@dataclass(frozen=True)
class ClassesTest:
    """The test of ``states - 1`` against ``states`` classes on the data.

    Attributes
    ----------
    states : int
        ``k``, the classes of the alternative model.
    null_parameters : list of ndarray
        The CPTs of the ``k - 1`` class fit: the model the replicates are drawn from.
    log_likelihoods : tuple of float
        The data's log-likelihood under the ``k - 1`` and the ``k`` class fit.
    """

    states: int
    null_parameters: list
    log_likelihoods: tuple

    @property
    def statistic(self) -> float:
        """``LR = 2 (log L_k - log L_{k-1})``."""
        return 2.0 * (self.log_likelihoods[1] - self.log_likelihoods[0])


@dataclass(frozen=True)
class Plan:
    """What every replicate of every test needs: a job reads it from a plan file
    (:func:`write_plan`).

    Attributes
    ----------
    data : Dataset
        The observed data, its columns in the models' order: N and the missing cells of each
        replicate.
    tests : tuple of ClassesTest
        One per ``k`` tested, in increasing ``k``.
    seed : int
        The root of every replicate's stream.
    replicates : int
        ``B``, the most replicates of a test.
    alpha : float
        The Dirichlet prior of the fits (1: ML).
    restarts : int or None
        EM starts of the search (None: the schedule's default).
    em_options : dict
        The other keywords of :func:`hiddenbn.learning.em.fit`.
    level : float
        The level the sequential rule decides at (:data:`LEVEL`).
    oracle_checks : int
        Replicates of each test checked against the oracle (:data:`ORACLE_CHECKS`).
    """

    data: Dataset
    tests: tuple
    seed: int
    replicates: int
    alpha: float = PRIOR_ALPHA
    restarts: int | None = None
    em_options: dict = field(default_factory=dict)
    level: float = LEVEL
    oracle_checks: int = ORACLE_CHECKS

    def network(self, classes: int):
        """The latent class model with ``classes`` classes over the data's columns."""
        return latent_class_network(self.data, classes)

    def test(self, states: int) -> ClassesTest:
        """The test of ``states - 1`` against ``states`` classes."""
        for test in self.tests:
            if test.states == states:
                return test
        raise ParameterError(f"the plan has no test of {states} classes; it tests "
                             f"{', '.join(str(t.states) for t in self.tests)}")


def require_replicates(replicates) -> None:
    """Refuse a number of bootstrap replicates that is not a whole number from 1 to
    :data:`~hiddenbn.util.limits.MAX_BOOTSTRAP_REPLICATES` (one line)."""
    limits.require_whole_number(replicates, 1, "the number of bootstrap replicates",
                                ParameterError)
    limits.require_at_most(replicates, limits.MAX_BOOTSTRAP_REPLICATES,
                           "the number of bootstrap replicates", "give fewer",
                           ParameterError)


def plan_tests(data: Dataset, states, seed: int, replicates: int, alpha: float = PRIOR_ALPHA,
               restarts: int | None = None, fits: dict | None = None,
               oracle_checks: int = ORACLE_CHECKS, level: float = LEVEL,
               **em_options) -> Plan:
    """The plan of the tests of ``k - 1`` against ``k`` classes for every ``k > 1`` of
    ``states``, each with at most ``replicates`` replicates.

    ``fits`` maps numbers of classes to fits of ``data`` already made (as
    :func:`hiddenbn.learning.selection.select_latent_class` leaves them); a model without one
    is fitted here by the same search (:func:`~hiddenbn.learning.selection.search`, seeded by
    ``seed``), so a test is the same whatever was fitted before. ``alpha``, ``restarts`` and
    ``em_options`` are the search's (:func:`hiddenbn.learning.em.fit`), for the data and every
    replicate alike.
    """
    require_replicates(replicates)
    limits.require_whole_number(oracle_checks, 0, "the number of replicates checked against "
                                "the oracle", ParameterError)
    if not 0.0 < level < 1.0:
        raise ParameterError(f"the level of the bootstrap test must be between 0 and 1, got "
                             f"{level}")
    tested = tested_states(states)
    fits = dict(fits or {})
    for classes, fitted in fits.items():
        if not is_latent_class(fitted.network):
            raise ParameterError(f"the fit given for {classes} classes is not of a latent class "
                                 "model; the bootstrap likelihood-ratio test compares latent "
                                 "class models only")

    def fitted(classes: int):
        if classes not in fits:
            fits[classes] = search(latent_class_network(data, classes), data, seed, alpha,
                                   restarts, **em_options)
        return fits[classes]

    tests = tuple(ClassesTest(k, [np.asarray(t) for t in fitted(k - 1).cpts],
                              (fitted(k - 1).log_likelihood, fitted(k).log_likelihood))
                  for k in tested)
    return Plan(data, tests, seed, replicates, alpha, restarts, dict(em_options), level,
                oracle_checks)


def tested_states(states) -> list:
    """The ``k`` of ``states`` that have a test (``k > 1``), in order; one line if none has."""
    tested = sorted({int(k) for k in states if k > 1})
    if not tested:
        raise ParameterError("the bootstrap likelihood-ratio test compares k - 1 with k classes "
                             "and the classes given have no k of 2 or more; give a range such "
                             "as 1..4")
    return tested


# --- one replicate ----------------------------------------------------------------------------
def replicate_data(plan: Plan, states: int, replicate: int) -> Dataset:
    """Replicate ``replicate`` of the test of ``states`` classes: N cases drawn from the ``states
    - 1`` class fit, blank where the data's cases are (see the module docstring)."""
    network = plan.network(states - 1)
    rows = forward_sample(network, plan.test(states).null_parameters, plan.data.n_cases,
                          seeding.rng(plan.seed, "blrt", states, replicate))
    rows[plan.data.rows() == MISSING] = MISSING
    return Dataset.from_rows(network.observed_names, rows, network.observed_cardinalities)


def _refit(plan: Plan, data: Dataset, classes: int, *key, restarts: int | None = None):
    """The search's fit of ``classes`` classes to a replicate, from the stream ``key``."""
    return fit(plan.network(classes), data, seeding.rng(plan.seed, "blrt", *key), plan.alpha,
               plan.restarts if restarts is None else restarts, **plan.em_options)


def _search_restarts(plan: Plan) -> int:
    """The starts of the test's search (its schedule's default if none were given)."""
    schedule = plan.em_options.get("schedule", SCHEDULE)
    return plan.restarts if plan.restarts is not None else RESTARTS[schedule]


def _oracle_check(plan: Plan, data: Dataset, states: int, replicate: int, refits) -> list:
    """Each refit of a replicate beside its oracle: the best of the refit, a search with
    :data:`ORACLE_RESTARTS_FACTOR` times the starts and, for the ``k - 1`` class model, EM from
    the parameters that drew the replicate."""
    checks = []
    for classes, refit in zip((states - 1, states), refits):
        rivals = [_refit(plan, data, classes, states, replicate, "oracle", classes,
                         restarts=ORACLE_RESTARTS_FACTOR * _search_restarts(plan))]
        if classes == states - 1:
            rivals.append(search(plan.network(classes), data, plan.seed, plan.alpha,
                                 initial=plan.test(states).null_parameters, **plan.em_options))
        oracle = max([refit.log_posterior] + [rival.log_posterior for rival in rivals])
        checks.append({"classes": classes, "log_posterior": refit.log_posterior,
                       "oracle_log_posterior": oracle,
                       "reached": refit.log_posterior >= oracle - REPLICATION_TOLERANCE})
    return checks


def run_replicate(plan: Plan, states: int, replicate: int) -> dict:
    """Replicate ``replicate`` of the test of ``states`` classes, JSON-ready: ``{"states",
    "replicate", "log_likelihoods": [k - 1, k], "statistic": LR_b, "converged": [k - 1, k]}``
    and, for the first ``plan.oracle_checks`` replicates, ``"refit_check"``
    (:func:`_oracle_check`)."""
    data = replicate_data(plan, states, replicate)
    refits = [_refit(plan, data, classes, states, replicate, "fit", classes)
              for classes in (states - 1, states)]
    result = {"states": states, "replicate": replicate,
              "log_likelihoods": [refit.log_likelihood for refit in refits],
              "statistic": 2.0 * (refits[1].log_likelihood - refits[0].log_likelihood),
              "converged": [refit.converged for refit in refits]}
    if replicate < plan.oracle_checks:
        result["refit_check"] = _oracle_check(plan, data, states, replicate, refits)
    return result


def run_replicates(plan: Plan, states: int, start: int, stop: int) -> list:
    """Replicates ``start`` to ``stop - 1`` of the test of ``states`` classes
    (:func:`run_replicate`): what one workflow job runs (on the threads it sets with
    :func:`hiddenbn.util.threads.use_threads`)."""
    if not 0 <= start <= stop <= plan.replicates:
        raise ParameterError(f"replicates {start} to {stop - 1} are outside the plan's 0 to "
                             f"{plan.replicates - 1}")
    return [run_replicate(plan, states, replicate) for replicate in range(start, stop)]


# --- the sequential rule ----------------------------------------------------------------------
def exceedance_limit(replicates: int, level: float = LEVEL) -> int:
    """Besag & Clifford's ``h`` for ``B = replicates``: ``floor(level B) + 1``, the fewest
    exceedances with ``h / B > level``, in exact arithmetic (in floats 0.29 * 100 is
    28.999999999999996, and h would be 29 instead of 30)."""
    return math.floor(Fraction(repr(float(level))) * replicates) + 1


def combine(plan: Plan, states: int, replicates) -> dict:
    """The test of ``states`` classes from its replicates (:func:`run_replicate`'s results, in
    any order; those past the stopping point are ignored, and so is a gap there), JSON-ready.

    Keys: ``states``, ``null_states``, ``statistic`` (LR), ``p_value``, ``monte_carlo_se``,
    ``replicates`` (those used), ``exceedances`` (of them, ``LR_b >= LR``), ``stopped_early``,
    ``refit_check`` (``{"checked", "reached", "refits"}``), ``alternative_below_null`` (replicates
    whose ``k`` class refit ended more than 0.01 nats below the ``k - 1`` class one, which it
    nests: a search that missed) and ``not_converged`` (refits the iteration cap stopped).
    """
    test = plan.test(states)
    ordered, gap = _up_to_a_gap(replicates)
    limit = exceedance_limit(plan.replicates, plan.level)
    used, exceedances = _stopping_point(plan, test, ordered)
    n = len(used)
    if exceedances == limit:
        p_value = limit / n
    elif gap is not None:
        raise ParameterError(f"the replicates of the test of {states} classes lack replicate "
                             f"{gap}; the sequential rule reads them in order from 0")
    elif n == plan.replicates:
        p_value = (1 + exceedances) / (n + 1)
    else:
        raise ParameterError(f"the test of {states} classes has {n} of its {plan.replicates} "
                             f"replicates and is not yet decided; run replicates {n} to "
                             f"{plan.replicates - 1}")
    checks = [check for result in used for check in result.get("refit_check", ())]
    return {"states": states, "null_states": states - 1, "statistic": test.statistic,
            "log_likelihoods": list(test.log_likelihoods), "p_value": p_value,
            "monte_carlo_se": math.sqrt(p_value * (1 - p_value) / n), "replicates": n,
            "exceedances": exceedances, "stopped_early": n < plan.replicates,
            "refit_check": {"checked": len(checks),
                            "reached": sum(check["reached"] for check in checks),
                            "refits": [dict(check, replicate=result["replicate"])
                                       for result in used
                                       for check in result.get("refit_check", ())]},
            "alternative_below_null": sum(result["statistic"] < -2 * REPLICATION_TOLERANCE
                                          for result in used),
            "not_converged": sum(not converged for result in used
                                 for converged in result["converged"])}


def combine_all(plan: Plan, replicates) -> dict:
    """The report (:func:`report`) of every test of ``plan`` from the replicates of all of
    them (:func:`run_replicate`'s results, as any number of jobs returned them)."""
    by_test = {test.states: [] for test in plan.tests}
    for result in replicates:
        by_test[result["states"]].append(result)
    return report(plan, [combine(plan, states, results) for states, results in by_test.items()])


# --- all tests, in a process pool ---------------------------------------------------------------
def available_cores() -> int:
    """The cores this process may run on (its CPU affinity where the system tells it)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()


_worker_plan: Plan | None = None


def _start_worker(plan: Plan) -> None:
    """Set up a process of the pool: the plan, one thread, and the interrupts left to the
    parent (Ctrl-C and a hangup reach every process of the terminal's group; the parent
    stops the pool, and each worker would otherwise print its own traceback)."""
    global _worker_plan
    _worker_plan = plan
    use_threads(1)
    for number in (signal.SIGINT, signal.SIGHUP):
        signal.signal(number, signal.SIG_IGN)


def _worker_replicate(states: int, replicate: int) -> dict:
    return run_replicate(_worker_plan, states, replicate)


def run_tests(plan: Plan, cores: int | None = None, progress=None) -> dict:
    """Every test of ``plan``, its replicates on ``cores`` processes (default: every core this
    process may use; one: in this process), each stopped by the sequential rule; the report
    (:func:`report`).

    Replicates are started in the order of ``b`` and read in that order, so the rule stops at
    the same replicate on any number of cores (those started past it are dropped).
    ``progress``, if given, is called with the number of replicates done so far.
    """
    cores = available_cores() if cores is None else cores
    limits.require_whole_number(cores, 1, "the number of cores", ParameterError)
    done, results = 0, []  # the replicates the rule read, of every test
    # spawned, not forked: a fork would copy the locks of numba's threads in whatever state
    pool = (multiprocessing.get_context("spawn").Pool(cores, _start_worker, (plan,))
            if cores > 1 else None)
    try:
        for test in plan.tests:
            collected = []
            for result in _replicates_in_order(plan, test.states, pool, 2 * cores):
                collected.append(result)
                done += 1
                if progress is not None:
                    progress(done)
                if _decided(plan, test, collected):
                    break
            results += collected
    finally:
        if pool is not None:  # stops the replicates started past a stopping point, too
            pool.terminate()
            pool.join()
    return combine_all(plan, results)


def _replicates_in_order(plan: Plan, states: int, pool, ahead: int):
    """The replicates of the test of ``states`` classes in the order of ``b``, computed in
    ``pool`` with up to ``ahead`` started and not yet read (in this process without a pool);
    the caller stops reading when the rule stops."""
    if pool is None:
        for replicate in range(plan.replicates):
            yield run_replicate(plan, states, replicate)
        return
    pending, started = deque(), 0
    while pending or started < plan.replicates:
        while started < plan.replicates and len(pending) < ahead:
            pending.append(pool.apply_async(_worker_replicate, (states, started)))
            started += 1
        yield pending.popleft().get()


def _stopping_point(plan: Plan, test: ClassesTest, ordered: list) -> tuple:
    """The replicates of ``ordered`` (in the order of ``b``) that the sequential rule reads
    before it stops, and how many of them have ``LR_b >= LR``."""
    limit = exceedance_limit(plan.replicates, plan.level)
    exceedances = 0
    for n, result in enumerate(ordered[:plan.replicates], 1):
        exceedances += result["statistic"] >= test.statistic
        if exceedances == limit:
            return ordered[:n], exceedances
    return ordered[:plan.replicates], exceedances


def _up_to_a_gap(replicates) -> tuple:
    """The replicates of one test in the order of ``b`` from 0 up to the first gap, and the
    gap (None without one). The rule reads no further: a job that stopped its range early
    (:mod:`hiddenbn.experiments.blrt`) leaves a gap past the rule's stopping point."""
    ordered = sorted(replicates, key=lambda result: result["replicate"])
    gap = next((b for b, result in enumerate(ordered) if result["replicate"] != b), None)
    return ordered[:gap], gap


def is_decided(plan: Plan, states: int, replicates) -> bool:
    """Whether the test of ``states`` classes has its p-value from ``replicates``
    (:func:`run_replicate`'s results of any tests, in any order): the sequential rule stops
    within those from 0 up to the first gap, or they are all ``B`` (:func:`combine` then
    reports it)."""
    ordered, _ = _up_to_a_gap(result for result in replicates if result["states"] == states)
    return len(ordered) >= plan.replicates or _decided(plan, plan.test(states), ordered)


def _decided(plan: Plan, test: ClassesTest, collected: list) -> bool:
    """Whether the sequential rule stops after the replicates ``collected`` (in order)."""
    return _stopping_point(plan, test, collected)[1] == exceedance_limit(plan.replicates,
                                                                          plan.level)


# --- the report -------------------------------------------------------------------------------
def report(plan: Plan, tests: list) -> dict:
    """The JSON-ready report of the tests (:func:`combine`'s results): ``replicates`` (``B``),
    ``level``, ``exceedance_limit`` (``h``), ``stopping_rule``, ``missing_cells``, ``tests``,
    ``refit_check`` (over every test), ``selected`` (the number of classes the tests choose,
    :func:`selected_states`) and ``notes``, made here, in the process that called the tests
    (not in a worker of :func:`run_tests`), so they name options as that caller wrote them
    (:func:`~hiddenbn.errors.for_caller`)."""
    checked = sum(test["refit_check"]["checked"] for test in tests)
    reached = sum(test["refit_check"]["reached"] for test in tests)
    notes = []
    if (1 / (plan.replicates + 1)) > plan.level:
        notes.append(f"with {plan.replicates} replicates no p-value can fall to {plan.level}: "
                     f"the smallest is 1 / (B + 1); give at least "
                     f"{math.ceil(1 / plan.level) - 1} replicates")
    if reached < checked:
        missed = [f"k = {check['classes']} on replicate {check['replicate']} of the test of "
                  f"{test['states']} classes, "
                  f"{check['oracle_log_posterior'] - check['log_posterior']:.3g} nats below"
                  for test in tests for check in test["refit_check"]["refits"]
                  if not check["reached"]]
        notes.append(f"{checked - reached} of {checked} refits checked against the oracle ended "
                     f"more than {REPLICATION_TOLERANCE} nats below it ({'; '.join(missed)}): "
                     "the search misses modes on such data, and a p-value can be off; give "
                     f"more starts ({option('--restarts')})")
    for test in tests:
        if test["alternative_below_null"]:
            notes.append(f"test of {test['states']} classes: in {test['alternative_below_null']} "
                         f"of {test['replicates']} replicates the {test['states']} class refit "
                         f"ended below the {test['null_states']} class one, which it contains: "
                         "the search missed its mode there; give more starts "
                         f"({option('--restarts')})")
        if test["not_converged"]:
            notes.append(f"test of {test['states']} classes: {test['not_converged']} refits "
                         f"stopped at the iteration cap; raise it ({option('--max-iterations')})")
    return {"replicates": plan.replicates, "level": plan.level,
            "exceedance_limit": exceedance_limit(plan.replicates, plan.level),
            "stopping_rule": STOPPING_RULE,
            "missing_cells": MISSING_CELLS if plan.data.has_missing else None,
            "tests": tests, "refit_check": {"checked": checked, "reached": reached,
                                            "tolerance": REPLICATION_TOLERANCE},
            "selected": selected_states(tests, plan.level),
            "notes": [for_caller(note) for note in notes]}


def selected_states(tests: list, level: float = LEVEL) -> int | None:
    """The number of classes the tests choose, as Nylund et al. (2007) read them: the first
    ``k - 1`` whose test against ``k`` gives ``p > level``, going up in ``k``, or the largest
    ``k`` if every test rejects. None when the tested ``k`` are not consecutive (a gap leaves
    a step untested)."""
    ks = [test["states"] for test in tests]
    if ks != list(range(ks[0], ks[0] + len(ks))):
        return None
    for test in tests:
        if test["p_value"] > level:
            return test["null_states"]
    return ks[-1]


# --- plan files ---------------------------------------------------------------------------------
def plan_to_dict(plan: Plan) -> dict:
    """The plan as JSON-ready values (:func:`plan_from_dict` reads them back exactly)."""
    return {"data": {"names": list(plan.data.names), "states": plan.data.states(),
                     "patterns": plan.data.patterns.tolist(),
                     "counts": plan.data.counts.tolist()},
            "tests": [{"states": test.states, "log_likelihoods": list(test.log_likelihoods),
                       "null_parameters": [table.tolist() for table in test.null_parameters]}
                      for test in plan.tests],
            "seed": plan.seed, "replicates": plan.replicates, "alpha": plan.alpha,
            "restarts": plan.restarts, "em_options": plan.em_options, "level": plan.level,
            "oracle_checks": plan.oracle_checks}


def plan_from_dict(values: dict) -> Plan:
    """The plan :func:`plan_to_dict` gave ``values`` for."""
    data = values["data"]
    dataset = Dataset(tuple(data["names"]), np.asarray(data["patterns"], dtype=np.int32),
                      np.asarray(data["counts"], dtype=np.int64),
                      tuple(tuple(data["states"][name]) for name in data["names"]))
    tests = tuple(ClassesTest(test["states"],
                              [np.asarray(table) for table in test["null_parameters"]],
                              tuple(test["log_likelihoods"])) for test in values["tests"])
    return Plan(dataset, tests, values["seed"], values["replicates"], values["alpha"],
                values["restarts"], values["em_options"], values["level"],
                values["oracle_checks"])


def write_plan(path, plan: Plan) -> None:
    """Write the plan as JSON (floats written exactly: ``repr`` round-trips)."""
    atomic_write_text(path, json.dumps(plan_to_dict(plan)))


def read_plan(path) -> Plan:
    """The plan of a file :func:`write_plan` wrote."""
    try:
        with open(path, encoding="utf-8") as handle:
            return plan_from_dict(json.load(handle))
    except (ValueError, KeyError, TypeError) as err:
        raise HiddenbnError(f"{path} is not a bootstrap test plan ({err}); write one with "
                            "hiddenbn.learning.blrt.write_plan") from None
