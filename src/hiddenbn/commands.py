"""The commands of the command line as Python functions, with the same defaults.

:func:`fit`, :func:`select`, :func:`log_evidence`, :func:`dimensions`, :func:`sample`,
:func:`parameters`, :func:`ebnc_fit` and :func:`ebnc_select` do what ``hiddenbn fit``,
``select``, ``evidence``, ``dim``, ``sample``, ``params``, ``ebnc fit`` and ``ebnc select`` do,
and return what they print as objects (:mod:`hiddenbn.reports.results`; ``sample`` a
DataFrame; :func:`draw_sample` the cases with their parameters, as the command writes them);
:func:`blrt_plan` is the plan of ``select --blrt``'s tests, which the workflow
runs as jobs (workflow/rules/blrt.smk). ``check-config``'s is
:func:`hiddenbn.experiments.workflow_config.check_config_file`, beside the workflow's config
that it checks (the experiments are a layer above this module). A keyword argument
is the option of the same name (``prior_alpha`` is ``--prior-alpha``), with its default, so a
call and a command line with the same data and seed give the same numbers; an error names the
option as the keyword (``prior_alpha=``), where the command line names its flag
(:func:`hiddenbn.errors.option`).

The data of a function is a CSV file, a pandas DataFrame (read as the file it writes:
:func:`hiddenbn.data.read_data`) or a :class:`~hiddenbn.data.Dataset`. Its model is a spec
(a shorthand such as ``"3:2,2,2"``, a tree such as ``"3(2,2,2)"``, a YAML or JSON file, or a
dict of the spec), a :class:`~hiddenbn.models.network.Network`, or ``classes=K`` for the latent
class model with K classes over the columns. A shorthand's observed leaves are bound to the
columns in order (or to ``columns``); a spec file's nodes name their columns.
"""

from __future__ import annotations

import operator
import os
from dataclasses import dataclass

import numpy as np

from hiddenbn.data import DataFile, Dataset, DataTable, read_table
from hiddenbn.errors import HiddenbnError, excerpt, first_named, for_caller, option
from hiddenbn.inference.enumeration import is_latent_class
from hiddenbn.learning import selection
from hiddenbn.learning.annealing import can_anneal
from hiddenbn.learning.blrt import (Plan, plan_tests, require_replicates, run_tests,
                                    tested_states)
from hiddenbn.models.interaction import InteractionModel, interaction_spec
from hiddenbn.models.network import (Network, check_parameters, load_labelled_parameters,
                                     random_parameters)
from hiddenbn.models.spec import bind_columns, is_spec_file, parse_spec
from hiddenbn.regression.multinomial_logit import SeparationError
from hiddenbn.reports import fit as fit_reports
from hiddenbn.reports.regression import regression_selection
from hiddenbn.reports.results import (DimensionResult, EbncFitResult, EbncSelectionResult,
                                      EvidenceResult, FitResult, ParametersResult,
                                      RegressionResult, RegressionSelectionResult, Result,
                                      SelectionResult)
from hiddenbn.util import limits, seeding
from hiddenbn.util.defaults import (ACCELERATION, ANNEALING_SWEEPS, DEFAULT_MISSING_VALUES,
                                    EBNC_PRIOR_SD, OPTIMUM, PRIOR_ALPHA, RESTARTS, SCHEDULE,
                                    THREE_STEP_CORRECTIONS, WBIC_DRAWS)

#: How messages name each family of models (the command line's families,
#: ``hiddenbn.cli.FAMILIES``, name them the same way).
FAMILY_NAMES = {"latent class": "a latent class model", "tree": "a tree",
                "latent class file": "a latent class model in a spec file",
                "network file": "a network in a spec file", "noisy-max": "a noisy-max model",
                "poisson": "a Poisson noisy-additive model",
                "gaussian": "a Gaussian noisy-additive model",
                "gaussian network": "a Gaussian network", "sigmoid network": "a sigmoid network"}
#: The families whose mechanisms are fitted by an EM of their own, on complete cases.
INTERACTION_FAMILIES = ("noisy-max", "poisson", "gaussian")
#: The families without a discrete network to fit: their effect is a measured number.
ADDITIVE_FAMILIES = ("poisson", "gaussian")


@dataclass(frozen=True)
class Model:
    """A command's model, as :func:`model_of` read it.

    Attributes
    ----------
    family : str
        A key of :data:`FAMILY_NAMES`.
    model : Network or InteractionModel or None
        The model (None: the latent class model with ``classes`` classes over the columns,
        built once they are read).
    classes : int or None
        The number of classes of that latent class model.
    named : bool
        Whether the model's observed nodes name their columns (a spec file's, a dict's, an
        interaction model's), rather than being bound to the columns in order.
    shown : str
        How a message names the model: ``the model SPEC`` for a spec given as text.
    """

    family: str
    model: Network | InteractionModel | None
    classes: int | None = None
    named: bool = False
    shown: str = "the model"


def model_of(model=None, classes: int | None = None) -> Model:
    """The family and the model of a command that reads data: a spec, a network, or a number
    of classes.

    Parameters
    ----------
    model : str, path-like, dict, Network, InteractionModel or int, optional
        A spec (:func:`spec_model`; a whole number K is the latent class model with K classes
        over the columns), or the model itself.
    classes : int, optional
        The latent class model with this many classes over the columns (instead of
        ``model``).

    Returns
    -------
    Model

    Examples
    --------
    >>> model_of("3:2,2,2").family, model_of("3(2(2,2),2(2,2))").family
    ('latent class', 'tree')
    >>> model_of(4) == model_of(classes=4) == Model("latent class", None, 4)
    True
    """
    if isinstance(model, Model):
        return model
    if model is None and classes is None:
        raise HiddenbnError("give the model: a spec (model=...) or a number of classes "
                            "(classes=K)")
    if model is not None and classes is not None:
        raise HiddenbnError("give a model or a number of classes, not both")
    if classes is None and isinstance(model, (int, np.integer, str)) \
            and str(model).strip().isdigit():
        classes = int(model)
    if classes is None:
        return spec_model(model)
    if isinstance(classes, bool) or not isinstance(classes, (int, np.integer)) \
            or not 1 <= classes <= limits.MAX_STATES:
        raise HiddenbnError(f"{excerpt(str(classes))} classes: a latent class model needs a "
                            f"whole number of classes from 1 to {limits.MAX_STATES}")
    return Model("latent class", None, int(classes))


def spec_model(spec) -> Model:
    """The family and the model of a spec (or of a model given as it is).

    Parameters
    ----------
    spec : str, path-like, dict, Network or InteractionModel
        A latent class shorthand ``k:r1,...,rn``, a tree such as ``"3(2,2,2)"``, a YAML or
        JSON spec file or its dict (a network's nodes, or paper 004's interaction form).

    Returns
    -------
    Model

    Examples
    --------
    >>> chosen = spec_model("2(3(2,2),2)")
    >>> chosen.family, chosen.model.hidden_indices.tolist()
    ('tree', [0, 1])
    """
    if isinstance(spec, InteractionModel):
        return Model(spec.family, spec, named=True)
    if not isinstance(spec, Network):
        interaction = interaction_spec(spec)  # paper 004's form
        if interaction is not None:
            return Model(interaction.family, interaction, named=True)
    named = isinstance(spec, dict) or (not isinstance(spec, Network) and is_spec_file(spec))
    text = isinstance(spec, (str, os.PathLike))
    network = parse_spec(os.fspath(spec) if text else spec)
    shown = f"the model {os.fspath(spec)}" if text else "the model"
    if network.kind != "discrete":
        family = f"{network.kind} network"
    elif is_latent_class(network):
        family = "latent class file" if named else "latent class"
    else:
        family = "network file" if named else "tree"
    return Model(family, network, named=named, shown=shown)


def data_table(data, dictionary=None, missing_values=DEFAULT_MISSING_VALUES,
               missing: str = "model", numeric=()):
    """The data of a command, parsed: a :class:`~hiddenbn.data.DataTable` of a file or a
    DataFrame (an empty cell is missing too, as on the command line), or a Dataset or a
    DataTable as it is (read already, so the reading options do not apply to it)."""
    if isinstance(data, DataTable):
        return data
    if isinstance(data, Dataset):
        if dictionary is not None or missing != "model":
            raise HiddenbnError("a Dataset is coded already: its states and missing cells are "
                                "set; give a data file or a DataFrame to read with a dictionary "
                                "or missing='drop'")
        return _DatasetTable(data)
    if isinstance(missing_values, str):
        raise HiddenbnError(f"missing_values must be a list of cell texts, e.g. ['NA', '.'], got "
                            f"the text {excerpt(missing_values)}")
    return read_table(data, dictionary, [*missing_values, ""], missing, numeric)


@dataclass(frozen=True)
class _DatasetTable:
    """A Dataset in the place of a parsed data table: its patterns are the data's rows."""

    dataset: Dataset

    @property
    def names(self) -> tuple:
        return self.dataset.names

    def data_file(self, columns=None, ordered=()) -> DataFile:
        """The patterns over ``columns`` (default: every column), as a data file of one row
        per pattern."""
        data = self.dataset
        data = data.select(data.names if columns is None else column_names(columns))
        return DataFile(data, data, np.arange(data.n_patterns), (), "the Dataset")


def column_names(columns) -> tuple:
    """Column names given as a sequence, or as one string separated by commas as the command
    line's ``--columns`` takes them (a string is not read as a sequence of characters)."""
    if isinstance(columns, str):
        return tuple(name.strip() for name in columns.split(","))
    return tuple(columns)


def bound_network(chosen: Model, table, columns=None) -> tuple:
    """The network of a model over the columns of the data ``table`` (:func:`data_table`),
    and the data file of the columns it is bound to (no other is coded).

    A latent class model of ``classes`` is built over ``columns`` (default: every column). A
    named model's observed nodes are its columns; another model's are bound to ``columns``
    in order, or to every column, unless they are already every column by name. A
    noisy-additive model has no network (None): the data file holds its causes and effect.
    """
    names = table.names
    if columns is not None:
        columns = column_names(columns)
        unknown = [name for name in columns if name not in names]
        if unknown:
            raise HiddenbnError(f"columns names {excerpt(str(unknown[0]))}, which is not a "
                                f"column of the data; its columns are {', '.join(names)}")
    if chosen.model is None:
        data_file = table.data_file(columns or names)
        return (selection.latent_class_network(data_file.dataset, chosen.classes,
                                               columns or names), data_file)
    if chosen.family in ADDITIVE_FAMILIES:
        return None, table.data_file(chosen.model.observed_names)  # its causes and effect
    network = (chosen.model.network() if chosen.family == "noisy-max" else chosen.model)
    if not (chosen.named or (columns is None and set(network.observed_names) == set(names))):
        # a shorthand's X1..Xn name the columns only when they are every one of them
        network = bind_columns(network, columns or names, chosen.shown)
    return network, table.data_file(network.observed_names, network.ordered_names)


def em_options(schedule: str = SCHEDULE, sweeps: int = ANNEALING_SWEEPS,
               tolerance: float = OPTIMUM["tolerance"],
               convergence: str = OPTIMUM["convergence"],
               max_iterations: int = OPTIMUM["max_iterations"],
               acceleration: str = ACCELERATION,
               run_all_iterations: bool = OPTIMUM["run_all_iterations"],
               annealable: bool = True) -> dict:
    """The EM settings of fit and select as :func:`hiddenbn.learning.em.fit` takes them (the sweeps
    only for the annealed search). An interaction model's EM has no annealed search
    (``annealable`` false): there the default, annealing, means random starts each run to
    convergence (best-of-n), as for a network too large to anneal."""
    annealing = schedule == "annealing"
    options = {"max_iterations": max_iterations, "tolerance": tolerance,
               "convergence": convergence, "run_all_iterations": run_all_iterations,
               "schedule": "best-of-n" if annealing and not annealable else schedule,
               "acceleration": acceleration}
    return {**options, "sweeps": sweeps} if annealing and annealable else options


def starts(schedule: str, restarts: int | None) -> int:
    """The EM starts of a search: ``restarts``, or by default the schedule's
    (:data:`hiddenbn.util.defaults.RESTARTS`)."""
    if restarts is not None:
        return restarts
    if schedule not in RESTARTS:
        raise HiddenbnError(f"unknown restart schedule {excerpt(str(schedule))}; use one of "
                            f"{', '.join(RESTARTS)}")
    return RESTARTS[schedule]


def fit(data, model=None, *, classes: int | None = None, columns=None, init=None,
        prior_alpha: float = PRIOR_ALPHA, restarts: int | None = None,
        schedule: str = SCHEDULE, sweeps: int = ANNEALING_SWEEPS, seed: int = 0,
        tolerance: float = OPTIMUM["tolerance"], convergence: str = OPTIMUM["convergence"],
        max_iterations: int = OPTIMUM["max_iterations"], acceleration: str = ACCELERATION,
        run_all_iterations: bool = OPTIMUM["run_all_iterations"], skip_de: bool = False,
        wbic: bool = False, wbic_draws: int = WBIC_DRAWS, dictionary=None,
        missing_values=DEFAULT_MISSING_VALUES, missing: str = "model", covariates=None,
        categorical=(), predict_at=(), prior_sd: float = EBNC_PRIOR_SD,
        three_step: str | None = None):
    """Fit a model to data by EM and score it: ``hiddenbn fit``.

    The MAP parameters under a symmetric Dirichlet(``prior_alpha``) prior (the ML parameters
    with the default 1) by EM from annealed starts, each run to convergence, the best
    improved by split-and-merge moves for a latent class model; then every score, an
    approximation of log p(D | model) (larger is better), and for a latent class model the
    latent class analysis (AIC, BIC, SABIC, CAIC, entropy, G^2, standard errors).

    Parameters
    ----------
    data : path-like, pandas.DataFrame or Dataset
        The cases: a CSV file with a header (an optional ``count`` column of pattern counts),
        a DataFrame (null cells missing, categorical columns' categories as their states), or
        a Dataset.
    model : str, path-like, dict or Network, optional
        The model (``--model``): a shorthand ``k:r1,...,rn``, a tree such as ``"3(2,2,2)"``,
        a YAML or JSON spec file or its dict, a Network, or a whole number K.
    classes : int, optional
        The latent class model with this many classes over the columns (``--classes``);
        give it or ``model``.
    columns : sequence of str or str, optional
        The columns the model is bound to, in order (default: every column); a string names
        them separated by commas, as ``--columns`` does.
    init : path-like or list of arrays, optional
        Start EM once from these parameters (a parameter file as
        :meth:`FitResult.save_parameters` writes, or one table per node) instead of the
        search; ``restarts``, ``schedule`` and ``seed`` then do not act.
    prior_alpha : float
        The symmetric Dirichlet prior of every CPT row, at least 1 (default 1: ML).
    restarts : int, optional
        EM starts (default: 8 annealed, 64 for ``halving`` and ``best-of-n``).
    schedule : {"annealing", "halving", "best-of-n"}
        The restart schedule: annealed starts each run to convergence (the default); random
        starts, the best half kept after 1, 2, 4, ... iterations (Chickering & Heckerman
        1996); or random starts each run to convergence.
    sweeps : int
        Annealing sweeps over the cases per start (``schedule="annealing"``).
    seed : int
        The random seed of the starts.
    tolerance, convergence, max_iterations, run_all_iterations
        EM's stopping rule: converged when the change of the log posterior over an
        iteration is at most ``tolerance`` (``"absolute"``) or ``tolerance |g|``
        (``"relative"``), stopped after ``max_iterations``; ``run_all_iterations`` always
        runs them all (Chickering & Heckerman 1996's protocol).
    acceleration : {"squarem", "none"}
        SQUAREM steps after the restart schedule (the default), or plain EM.
    skip_de : bool
        Do not compute the effective dimension (no BIC+ or CS+).
    wbic : bool
        Also score by WBIC (:func:`hiddenbn.scores.wbic.wbic`, seeded by ``seed``); the
        report's ``"wbic"`` holds its Monte-Carlo standard error and split-R-hat. Not for a
        Poisson or Gaussian noisy-additive model.
    wbic_draws : int
        WBIC's draws per chain after its warm-up.
    dictionary : path-like or dict, optional
        A data dictionary: each column's categories in order, ``{"smoker": ["no", "yes"]}``.
    missing_values : sequence of str
        The cells read as missing besides empty ones (default: pandas' ``na_values``, ``.``
        and ``na``).
    missing : {"model", "drop"}
        Sum missing cells out (missing at random), or drop the cases that have one.
    covariates : sequence of str or str, optional
        Fit a one-step latent class regression (``--covariates``): these columns predict the
        class by a multinomial logit, class 1 the reference
        (:func:`hiddenbn.regression.one_step.fit_one_step`); the items are ``columns``, by
        default every column but the covariates. A row with a missing covariate is dropped.
    categorical : sequence of str or str
        Covariates read as categorical although their cells are whole numbers
        (``--categorical``); a covariate with a label or a data dictionary entry is anyway.
        Its first level (the dictionary's order, else sorted) is the reference.
    predict_at : str, dict or a sequence of them
        Covariate values at which to report the predicted class probabilities
        (``--predict-at``): ``"age=30,sex=M"`` or ``{"age": 30, "sex": "M"}``, each giving
        every covariate.
    prior_sd : float
        The standard deviation of the normal prior on every logit coefficient of the
        standardised covariates (a class against any other), which the Laplace score of a
        regression needs (``--prior-sd``;
        :func:`hiddenbn.regression.one_step.log_prior_density`).
    three_step : {"bch", "ml"}, optional
        Estimate the covariates' coefficients in three steps instead of one
        (``--three-step``; :func:`hiddenbn.regression.three_step.fit_three_step`): the
        measurement model of the items alone, modal assignment with its classification error,
        then the logit of the assigned classes corrected by BCH or ML (Vermunt 2010; Bakk,
        Tekle & Vermunt 2013). The scores are then the measurement model's.

    Returns
    -------
    FitResult
        For a network; a :class:`~hiddenbn.reports.results.Result` for a Poisson or Gaussian
        noisy-additive model, whose report is ``hiddenbn fit``'s for it; a
        :class:`~hiddenbn.reports.results.RegressionResult` given ``covariates``.

    Raises
    ------
    HiddenbnError
        A bad model, data or option, with one line saying what is wrong and the fix.

    Examples
    --------
    >>> import hiddenbn
    >>> frame = hiddenbn.sample("2:3,3,3,3", n=600, seed=4)
    >>> result = hiddenbn.fit(frame, classes=2, seed=1)
    >>> round(result.log_likelihood, 4), result.replicated
    (-1904.9245, True)
    >>> result.lca.class_sizes.round(2).tolist()
    [0.59, 0.41]
    >>> tree = hiddenbn.fit(frame, "2(2(3,3),2(3,3))", skip_de=True)
    >>> tree.network.names
    ('H1', 'H2', 'H3', 'X1', 'X2', 'X3', 'X4')
    """
    chosen = model_of(model, classes)
    if three_step is not None and covariates is None:
        raise HiddenbnError("three_step estimates the coefficients of covariates; give "
                            "covariates too, or leave three_step out")
    if covariates is not None:
        if init is not None or wbic:
            raise HiddenbnError(f"{'init' if init is not None else 'wbic'} does not act on a "
                                "latent class regression (covariates); leave it out")
        return _regression(chosen, data_table(data, dictionary, missing_values, missing),
                           columns, covariates, categorical, predict_at, prior_sd, prior_alpha,
                           restarts, seed, three_step,
                           {"schedule": schedule, "tolerance": tolerance,
                            "convergence": convergence, "max_iterations": max_iterations,
                            "acceleration": acceleration,
                            "run_all_iterations": run_all_iterations,
                            **({"sweeps": sweeps} if schedule == "annealing" else {})})
    additive = chosen.family in ADDITIVE_FAMILIES
    if chosen.family not in ("latent class", "tree", "latent class file", "network file",
                             *INTERACTION_FAMILIES):
        raise HiddenbnError(f"the model is {FAMILY_NAMES[chosen.family]}, which EM does not fit; "
                            "give a discrete network")
    table = data_table(data, dictionary, missing_values, missing,
                       (chosen.model.effect_name,) if additive else ())
    network, data_file = bound_network(chosen, table, columns)
    if chosen.family in INTERACTION_FAMILIES:  # EM reads every cell of a case
        data_file.require_complete(chosen.model.observed_names, FAMILY_NAMES[chosen.family])
    searches = starts(schedule, restarts)
    if additive and wbic:
        raise HiddenbnError(f"WBIC samples CPT rows under Dirichlet priors, and "
                            f"{FAMILY_NAMES[chosen.family]}'s rates are numbers without a bound; "
                            "leave wbic out")
    if additive:
        from hiddenbn.interaction.noisy_additive import additive_summary, noisy_additive_outcome

        outcome = noisy_additive_outcome(
            chosen.model, additive_summary(chosen.model, data_file), seed, prior_alpha, searches,
            **em_options(schedule, sweeps, tolerance, convergence, max_iterations, acceleration,
                         run_all_iterations, annealable=False))
        report = fit_reports.additive_fit_report(chosen.model, outcome, data_file.notes)
        return Result(report, fit_reports.format_fit_report)
    limits.check_network(network)
    dataset = data_file.dataset.for_network(network)
    noisy_max = chosen.family == "noisy-max"
    annealable = not noisy_max and schedule == "annealing" and can_anneal(network)
    limits.check_em(network, dataset.n_cases, 1 if init is not None else searches,
                    annealable and init is None)
    states = dataset.states()
    initial = None if init is None else (
        load_labelled_parameters(init, network, states)[0]
        if isinstance(init, (str, os.PathLike)) else check_parameters(network, init))
    options = em_options(schedule, sweeps, tolerance, convergence, max_iterations, acceleration,
                         run_all_iterations, annealable=not noisy_max)
    draws = wbic_draws if wbic else None
    if noisy_max:
        from hiddenbn.interaction.noisy_max import noisy_max_outcome

        outcome = noisy_max_outcome(chosen.model, dataset, seed, prior_alpha, searches,
                                    not skip_de, initial=initial, wbic_draws=draws, **options)
    else:
        outcome = selection.fit_and_score(network, dataset, seed, prior_alpha, searches,
                                          not skip_de, initial=initial, wbic_draws=draws,
                                          **options)
    report = fit_reports.fit_report(outcome, dataset, data_file.notes)
    return FitResult(report, outcome["fit"], dataset, data_file)


def _regression(chosen: Model, table, columns, covariates, categorical, predict_at, prior_sd,
                alpha, restarts, seed, three_step, options) -> RegressionResult:
    """:func:`fit` given covariates: one-step (or, given ``three_step``, three-step) latent
    class regression of the items (``columns``, by default every column but the covariates) on
    ``covariates``."""
    from hiddenbn.data import MISSING
    from hiddenbn.regression.covariates import covariate_design
    from hiddenbn.regression.multinomial_logit import fit_multinomial_logit
    from hiddenbn.regression.one_step import RegressionCases, fit_one_step
    from hiddenbn.reports.regression import regression_report

    if chosen.family not in ("latent class", "latent class file"):
        raise HiddenbnError(f"covariates predict the class of a latent class model, and "
                            f"{chosen.shown} is {FAMILY_NAMES[chosen.family]}; give a number "
                            f"of classes ({option('--classes', shown='K')}) or a latent class "
                            "model")
    if isinstance(table, _DatasetTable):
        raise HiddenbnError("covariates are read from the cells of a data file or DataFrame, "
                            "and a Dataset has only coded states; give the file or DataFrame")
    _check_prior_sd(prior_sd)
    if three_step is not None and three_step not in THREE_STEP_CORRECTIONS:
        raise HiddenbnError(f"unknown three-step correction {excerpt(str(three_step))}; "
                            f"choose one of {', '.join(THREE_STEP_CORRECTIONS)}")
    names = column_names(covariates)
    categorical = column_names(categorical)
    items = (column_names(columns) if columns is not None else
             None if chosen.named else tuple(n for n in table.names if n not in names))
    network, data_file = bound_network(chosen, table, items)
    design = covariate_design(table, names, categorical=categorical,
                              items=network.observed_names)
    rows = data_file.every_case.patterns[data_file.row_patterns]
    counts = (np.ones(rows.shape[0]) if table.counts is None
              else np.asarray(table.counts, dtype=float))
    reasons = np.where(design.kept, "", "missing covariate").astype(object)
    if table.missing == "drop":  # the table's: a command line's is read already
        reasons[(reasons == "") & (rows == MISSING).any(axis=1)] = for_caller(
            f"missing item ({option('--missing', 'drop')})")
    reasons[(reasons == "") & (counts <= 0)] = "count 0"
    kept = reasons == ""
    if not kept.any():
        raise HiddenbnError(f"{table.source}: no row has every covariate and a positive count; "
                            "fill in the covariates")
    design_rows = design.matrix[(np.cumsum(design.kept) - 1)[kept]]
    # the rows' counts: a row of a count column may stand for many cases
    dropped_cases = int(counts[~design.kept].sum())
    cases = RegressionCases.grouped(rows[kept], design_rows, network.cardinalities[1:],
                                    counts[kept])
    limits.check_em(network, cases.n_cases, starts(options["schedule"], restarts),
                    options["schedule"] == "annealing")
    if isinstance(predict_at, (str, dict)):  # one point, not a sequence of its characters
        predict_at = [predict_at]
    predictions = [(_values_shown(design, row), row) for row in
                   (design.rows(_covariate_values(given)) for given in predict_at)]
    if three_step is not None:
        from hiddenbn.regression.three_step import fit_three_step
        from hiddenbn.reports.regression import three_step_report

        result = fit_three_step(network, cases.patterns, cases.design, cases.counts, three_step,
                                design.names, seed=seed, alpha=alpha, restarts=restarts,
                                **options)
        report = three_step_report(result, design, data_file.dataset.states(), predictions,
                                   data_file.notes)
        report["dropped_cases"] = dropped_cases
        return RegressionResult(report, result, design,
                                (rows[kept], design_rows, kept, reasons.astype(str)))
    result = fit_one_step(network, cases, design.names, seed=seed, alpha=alpha,
                          restarts=restarts, **options)
    if network.cardinalities[0] > 1:
        # a coefficient running to infinity: the logit of the final posteriors has no maximum
        fit_multinomial_logit(cases.design, cases.counts[:, None] * result.posterior(),
                              start=result.coefficients, names=design.names)
    report = regression_report(result, design, data_file.dataset.states(), prior_sd,
                               predictions, data_file.notes)
    report["dropped_cases"] = dropped_cases
    return RegressionResult(report, result, design,
                            (rows[kept], design_rows, kept, reasons.astype(str)))


def _values_shown(design, row) -> dict:
    """The covariate values of a design row as a report shows them: a numeric covariate's
    number, a categorical one's level (the same whether given as text or as a number)."""
    values = {}
    for name in design.covariates:
        if name in design.levels:
            values[name] = next((level for level in design.levels[name][1:]
                                 if row[0, design.names.index(f"{name}={level}")] == 1),
                                design.references[name])
        else:
            values[name] = float(row[0, design.names.index(name)])
    return values


def _covariate_values(given) -> dict:
    """Covariate values given as ``{"age": 30}`` or as ``"age=30,sex=M"`` (``--predict-at``)."""
    if isinstance(given, dict):
        return dict(given)
    values = {}
    for part in str(given).split(","):
        name, equals, value = part.partition("=")
        if not equals or not name.strip() or not value.strip():
            raise HiddenbnError(f"{option('--predict-at', shown=excerpt(str(given)))}: write "
                                "each covariate as name=value, separated by commas, e.g. "
                                "age=30,sex=M")
        values[name.strip()] = value.strip()
    return values


def select(data, classes="1..8", *, columns=None, prior_alpha: float = PRIOR_ALPHA,
           restarts: int | None = None, schedule: str = SCHEDULE,
           sweeps: int = ANNEALING_SWEEPS, seed: int = 0,
           tolerance: float = OPTIMUM["tolerance"], convergence: str = OPTIMUM["convergence"],
           max_iterations: int = OPTIMUM["max_iterations"], acceleration: str = ACCELERATION,
           run_all_iterations: bool = OPTIMUM["run_all_iterations"], skip_de: bool = False,
           sbic_phi: float | None = None, wbic: bool = False, wbic_draws: int = WBIC_DRAWS,
           dictionary=None,
           missing_values=DEFAULT_MISSING_VALUES, missing: str = "model",
           blrt: int | None = None, cores: int | None = None,
           progress=None, covariates=None, categorical=(), prior_sd: float = EBNC_PRIOR_SD):
    """Choose the number of classes of a latent class model by every score: ``hiddenbn
    select``.

    Fits the latent class model (a hidden root with every column as a child) for each number
    of classes as :func:`fit` does, and reports per model the information criteria (AIC, BIC,
    SABIC, CAIC: smaller is better), entropy R^2, G^2 and every score (approximations of
    log p(D | model): larger is better), and the number of classes each selects; with
    ``blrt``, also the bootstrap likelihood-ratio test of k - 1 against k classes
    (:mod:`hiddenbn.learning.blrt`).

    Parameters
    ----------
    data : path-like, pandas.DataFrame or Dataset
        The cases, as for :func:`fit`.
    classes : str or iterable of int
        The numbers of classes: a range such as ``"1..8"`` (the default), a list such as
        ``"2,3,5"``, or the numbers themselves.
    columns, prior_alpha, restarts, schedule, sweeps, seed, tolerance, convergence, \
max_iterations, acceleration, run_all_iterations, skip_de, wbic, wbic_draws, dictionary, \
missing_values, missing
        As for :func:`fit`.
    sbic_phi : float, optional
        The prior parameter phi of the learning-coefficient bounds of sBIC (Drton & Plummer
        2017, Sec. 6.3; :mod:`hiddenbn.scores.singular_bic`), which ``classes`` ``1..K`` get;
        by default the R package sBIC's, ``(d_1 + 1) / 2``.
    blrt : int, optional
        ``--blrt``: test k - 1 against k classes for every ``k > 1`` of ``classes`` with at most
        this many bootstrap replicates each (the report's ``blrt``, the choice
        ``selected["blrt"]``).
    cores : int, optional
        ``--cores``: processes that refit the replicates (default: every core this process may
        use); the results are the same for any number.
    progress : callable, optional
        Called with the number of replicates refitted so far.
    covariates, categorical, prior_sd
        As for :func:`fit`: with ``covariates``, each model is a one-step latent class
        regression, and every score counts its coefficients (no sBIC, WBIC, effective
        dimension or bootstrap test). A number of classes whose covariates separate the
        classes is listed as separated, without scores, and not selected; a
        :class:`~hiddenbn.regression.multinomial_logit.SeparationError` only when every
        number of classes separates.

    Returns
    -------
    SelectionResult
        A :class:`~hiddenbn.reports.results.RegressionSelectionResult` with ``covariates``.

    Examples
    --------
    >>> import hiddenbn
    >>> frame = hiddenbn.sample("3:2,2,2,2,2,2", n=2000, seed=5)
    >>> result = hiddenbn.select(frame, classes="1..4", skip_de=True)
    >>> result.selected["bic"]
    3
    >>> result.to_frame()["bic"].idxmin()
    3
    """
    if covariates is not None:
        return _regression_selection(data, classes, columns, covariates, categorical, prior_sd,
                                     prior_alpha, restarts, seed, dictionary, missing_values,
                                     missing, (sbic_phi, wbic, blrt),
                                     {"schedule": schedule, "tolerance": tolerance,
                                      "convergence": convergence,
                                      "max_iterations": max_iterations,
                                      "acceleration": acceleration,
                                      "run_all_iterations": run_all_iterations,
                                      **({"sweeps": sweeps} if schedule == "annealing"
                                         else {})})
    counts, data_file, dataset, searches = _latent_class_data(
        data, classes, columns, dictionary, missing_values, missing, schedule, restarts)
    if blrt is not None:  # refused before any fit
        require_replicates(blrt)
        tested_states(counts)
    options = em_options(schedule, sweeps, tolerance, convergence, max_iterations, acceleration,
                         run_all_iterations)
    fits = {}
    report = selection.select_latent_class(
        dataset, counts, seed, prior_alpha, searches, not skip_de, sbic_phi,
        wbic_draws=wbic_draws if wbic else None, fits=fits, **options)
    report.update(fit_reports.data_summary(dataset))
    report["notes"] = list(data_file.notes) + report["notes"]
    if blrt is not None:
        plan = plan_tests(dataset, counts, seed, blrt, prior_alpha, searches, fits, **options)
        report["blrt"] = run_tests(plan, cores, progress)
        if report["blrt"]["selected"] is not None:
            report["selected"]["blrt"] = report["blrt"]["selected"]
    return SelectionResult(report)


def _latent_class_data(data, classes, columns, dictionary, missing_values, missing: str,
                       schedule: str, restarts: int | None) -> tuple:
    """What :func:`select` and :func:`blrt_plan` fit latent class models to: the numbers of
    classes (:func:`_class_counts`), the data file of ``columns``, its dataset in the largest
    model's order and the EM starts, each checked against the limits before any fit."""
    counts = _class_counts(classes)
    table = data_table(data, dictionary, missing_values, missing)
    columns = table.names if columns is None else column_names(columns)
    data_file = table.data_file(columns)
    largest = selection.latent_class_network(data_file.dataset, counts[-1], columns)
    limits.check_network(largest, f"the latent class model with {counts[-1]} classes")
    dataset = data_file.dataset.for_network(largest)
    searches = starts(schedule, restarts)
    limits.check_em(largest, dataset.n_cases, searches,
                    schedule == "annealing" and can_anneal(largest))
    return counts, data_file, dataset, searches


def blrt_plan(data, classes, replicates: int, *, columns=None,
              prior_alpha: float = PRIOR_ALPHA, restarts: int | None = None,
              schedule: str = SCHEDULE, sweeps: int = ANNEALING_SWEEPS, seed: int = 0,
              tolerance: float = OPTIMUM["tolerance"], convergence: str = OPTIMUM["convergence"],
              max_iterations: int = OPTIMUM["max_iterations"], acceleration: str = ACCELERATION,
              run_all_iterations: bool = OPTIMUM["run_all_iterations"], dictionary=None,
              missing_values=DEFAULT_MISSING_VALUES, missing: str = "model") -> Plan:
    """The plan of the bootstrap likelihood-ratio tests ``select --blrt replicates`` runs on
    the same data with the same options (:func:`hiddenbn.learning.blrt.plan_tests`): the
    fits of the models the tests compare, made by the same search, so that replicates run
    from it as jobs (:func:`hiddenbn.learning.blrt.run_replicates`) and combined
    (:func:`hiddenbn.learning.blrt.combine_all`) give the report of :func:`select`'s ``blrt``
    to the bit. The workflow's ``blrt`` rules start here.

    Parameters
    ----------
    data, classes, columns, prior_alpha, restarts, schedule, sweeps, seed, tolerance, \
convergence, max_iterations, acceleration, run_all_iterations, dictionary, missing_values, \
missing
        As for :func:`select`.
    replicates : int
        ``B``, as ``select --blrt B``.

    Returns
    -------
    hiddenbn.learning.blrt.Plan
    """
    require_replicates(replicates)
    counts, _, dataset, searches = _latent_class_data(
        data, classes, columns, dictionary, missing_values, missing, schedule, restarts)
    tested_states(counts)
    options = em_options(schedule, sweeps, tolerance, convergence, max_iterations, acceleration,
                         run_all_iterations)
    return plan_tests(dataset, counts, seed, replicates, prior_alpha, searches, **options)


def _regression_selection(data, classes, columns, covariates, categorical, prior_sd, alpha,
                          restarts, seed, dictionary, missing_values, missing, refused,
                          options) -> RegressionSelectionResult:
    """:func:`select` given covariates: a one-step latent class regression per number of
    classes (``refused``: sBIC's phi, WBIC and the bootstrap test, which do not act here)."""
    given = [name for name, value in zip(("sbic_phi", "wbic", "blrt"), refused)
             if value is not None and value is not False]
    if given:
        raise HiddenbnError(f"{given[0]} does not act on latent class regressions "
                            "(covariates); leave it out")
    counts = _class_counts(classes)
    table = data_table(data, dictionary, missing_values, missing)
    fits, separated = {}, {}
    for k in counts:
        try:
            fits[k] = _regression(Model("latent class", None, k), table, columns, covariates,
                                  categorical, (), prior_sd, alpha, restarts, seed, None,
                                  options)
        except SeparationError as error:  # the other numbers of classes are still compared
            separated[k] = str(error)
    if not fits:
        k, message = next(iter(separated.items()))
        raise SeparationError(f"{k} classes: {message}" if len(separated) == 1 else
                              f"every number of classes ({first_named(separated)}) separates; "
                              f"at {k} classes, {message}")
    return RegressionSelectionResult(regression_selection(
        {k: result.to_dict() for k, result in fits.items()}, separated))


def _class_counts(classes) -> list:
    """The numbers of classes of :func:`select`: a text as the command line reads it
    (:func:`hiddenbn.learning.selection.parse_classes`), else whole numbers of at least 1,
    sorted."""
    if isinstance(classes, str):
        return selection.parse_classes(classes)
    try:
        counts = [operator.index(k) for k in classes]  # whole numbers only, not 2.5
    except TypeError:
        raise HiddenbnError(f"classes must be whole numbers or a text such as '1..8', got "
                            f"{excerpt(repr(classes))}") from None
    if not counts or min(counts) < 1:
        raise HiddenbnError(f"classes {excerpt(repr(classes))}: give whole numbers of at least "
                            "1, e.g. range(1, 9)")
    limits.require_at_most(len(counts), limits.MAX_MODELS, "the number of models to fit",
                           "give fewer numbers of classes")
    return sorted(set(counts))


def log_evidence(data, model, *, method: str = "mc", runs: int = 8, particles: int = 64,
                 prior_alpha: float = PRIOR_ALPHA, seed: int = 0, columns=None,
                 dictionary=None, missing_values=DEFAULT_MISSING_VALUES,
                 missing: str = "model") -> EvidenceResult:
    """The marginal likelihood log p(D | S) of a model: ``hiddenbn evidence``.

    Under a symmetric Dirichlet(``prior_alpha``) prior on every CPT row: ``"exact"`` sums
    the complete-data Bayesian-Dirichlet score over every completion of the hidden values
    (small data only); ``"mc"`` estimates it by sequential Monte Carlo with collapsed Gibbs
    moves, with the standard error over ``runs`` independent runs.

    Parameters
    ----------
    data : path-like, pandas.DataFrame or Dataset
        The cases, as for :func:`fit`.
    model : str, path-like, dict, Network or int
        The model, as for :func:`fit` (a whole number K: the latent class model with K
        classes over the columns).
    method : {"mc", "exact"}
        Monte Carlo (the default) or exact enumeration.
    runs, particles : int
        Independent Monte Carlo runs (at least 2) and particles per run.
    prior_alpha : float
        The symmetric Dirichlet prior of every CPT row.
    seed : int
        The random seed of the Monte Carlo runs.
    columns, dictionary, missing_values, missing
        As for :func:`fit`.

    Returns
    -------
    EvidenceResult

    Examples
    --------
    >>> import hiddenbn
    >>> frame = hiddenbn.sample("2:2,2,2", n=30, seed=2)
    >>> round(hiddenbn.log_evidence(frame, 2, method="exact").log_evidence, 4)
    -50.1919
    """
    if method not in ("exact", "mc"):
        raise HiddenbnError(f"unknown method {excerpt(str(method))}; use 'exact' or 'mc'")
    chosen = model_of(model)
    if chosen.family not in ("latent class", "tree", "latent class file", "network file",
                             "noisy-max"):
        raise HiddenbnError(f"the model is {FAMILY_NAMES[chosen.family]}, whose marginal "
                            "likelihood is not computed here; give a discrete network")
    network, data_file = bound_network(chosen, data_table(data, dictionary, missing_values,
                                                          missing), columns)
    limits.check_network(network)
    dataset = data_file.dataset.for_network(network)
    monte_carlo = method == "mc"
    limits.check_evidence(network, dataset.n_patterns, dataset.n_cases,
                          runs if monte_carlo else 0, particles if monte_carlo else 0)
    if not monte_carlo:
        from hiddenbn.scores.exact import exact_log_evidence

        result = exact_log_evidence(network, dataset, prior_alpha)
    else:
        from hiddenbn.scores.smc import smc_log_evidence

        limits.require_whole_number(runs, 2, "the number of Monte Carlo runs")
        result = smc_log_evidence(network, dataset, seeding.rng(seed, "evidence"), prior_alpha,
                                  runs=runs, particles=particles)
    from hiddenbn.reports.evidence import evidence_report

    return EvidenceResult(evidence_report(_shown(model), method, prior_alpha, dataset,
                                          data_file.notes, result))


def _shown(model) -> str:
    """A model as a report names it: its spec as given, else its shorthand or kind."""
    if isinstance(model, (str, int, os.PathLike)):
        return str(model)
    return type(model).__name__


def dimensions(model, *, ebnc: str | None = None, jacobian_points: int = 5,
               seed: int = 0) -> DimensionResult:
    """The dimensions of a model: ``hiddenbn dim``.

    The standard dimension ``ds`` (free parameters), the effective dimension ``de`` (the
    exact rank of the Jacobian over a prime field, checked by an SVD with its singular-value
    gap; Geiger, Heckerman & Meek 1996), the complete dimension ``dc`` and, for a latent
    class model, Kocka & Zhang's bounds ``dp`` and ``db``.

    Parameters
    ----------
    model : str, path-like, dict or Network
        The model: a spec (a shorthand, a tree, a YAML or JSON file or its dict; an
        interaction model's too), or a network.
    ebnc : str, optional
        The dimension of the embedded Bayesian-network classifier of this node in a fully
        observed network instead (Heckerman & Meek 1997).
    jacobian_points : int
        Random parameter points at which the Jacobian is ranked; the rank is the largest.
    seed : int
        The random seed of the points.

    Returns
    -------
    DimensionResult

    Examples
    --------
    >>> import hiddenbn
    >>> hiddenbn.dimensions("4:2,2,2,2,2").to_dict()["db"]
    23
    """
    from hiddenbn.dimension import effective as dimension
    from hiddenbn.ebnc import model as classifiers
    from hiddenbn.reports import dimension as dimension_reports

    chosen = spec_model(model)
    if chosen.family in ADDITIVE_FAMILIES:
        return DimensionResult(dimension_reports.interaction_dimension_report(chosen.model),
                               dimension_reports.format_additive_dimension_report)
    network = chosen.model.network() if chosen.family == "noisy-max" else chosen.model
    if ebnc is not None:
        rng = seeding.rng(seed, "ebnc", ebnc)  # the Jacobian check's random points
        return Result(classifiers.ebnc_report(network, ebnc, rng, jacobian_points),
                      dimension_reports.format_ebnc_report)
    import warnings

    with warnings.catch_warnings():  # the report carries its warnings
        warnings.simplefilter("ignore", dimension.DimensionWarning)
        return DimensionResult(dimension.dimension_report(network, jacobian_points, seed))


def sample(model, n: int, *, seed: int = 0, parameters=None, generating_alpha: float = 1.0,
           missing_rate: float = 0.0):
    """Cases drawn from a model: ``hiddenbn sample``.

    Forward-samples ``n`` cases of the observed variables. Without ``parameters`` the CPTs
    are drawn from Dirichlet(``generating_alpha``); parameters and data use separate random
    streams derived from ``seed``, as on the command line (:func:`draw_sample`, which the
    command line calls, gives the parameters too).

    Parameters
    ----------
    model : str, path-like, dict or Network
        The model, as for :func:`fit` (a noisy-max model is sampled as its network).
    n : int
        The number of cases.
    seed : int
        The random seed.
    parameters : path-like or list of arrays, optional
        A parameter file (as :meth:`FitResult.save_parameters` writes; labelled states are
        sampled as their labels) or one table per node.
    generating_alpha : float
        The Dirichlet parameter of random CPT rows (default 1: uniform).
    missing_rate : float
        Each cell is missing with this probability (missing completely at random; a case
        keeps at least one cell).

    Returns
    -------
    pandas.DataFrame
        One row per case, one column per observed variable: states ``0..r-1`` (nullable
        integers where a cell is missing), or the labels of a parameter file.

    Examples
    --------
    >>> import hiddenbn
    >>> frame = hiddenbn.sample("2:2,3", n=4, seed=7)
    >>> frame.columns.tolist(), frame.shape
    (['X1', 'X2'], (4, 2))
    >>> bool(frame["X2"].between(0, 2).all())
    True
    """
    return draw_sample(model, n, seed=seed, parameters=parameters,
                       generating_alpha=generating_alpha, missing_rate=missing_rate).frame()


def draw_sample(model, n: int, *, seed: int = 0, parameters=None,
                generating_alpha: float = 1.0, missing_rate: float = 0.0,
                counts: bool = False):
    """Cases drawn from a model, with the parameters they were drawn from: what ``hiddenbn
    sample`` writes (its data and ``--save-params``), and what :func:`sample` returns.

    Parameters
    ----------
    model, n, seed, parameters, generating_alpha, missing_rate
        As for :func:`sample`.
    counts : bool
        Whether the cases are to be written as pattern counts (``--counts``); their memory is
        checked before any case is drawn.

    Returns
    -------
    hiddenbn.data.sampling.DrawnSample

    Examples
    --------
    >>> drawn = draw_sample("2:2,2", n=6, seed=1, counts=True)
    >>> drawn.rows.shape, [table.shape for table in drawn.cpts]
    ((6, 2), [(1, 2), (2, 2), (2, 2)])
    """
    from hiddenbn.data.sampling import DrawnSample, blank_cells, forward_sample

    network = discrete_network(model, "sampled")
    limits.check_sample(n, len(network.observed_indices), counts)
    labels = {}
    if parameters is None:
        cpts = random_parameters(network, seeding.rng(seed, "parameters"), generating_alpha)
    elif isinstance(parameters, (str, os.PathLike)):
        cpts, labels = load_labelled_parameters(parameters, network)
    else:
        cpts = check_parameters(network, parameters)
    data_rng = seeding.rng(seed, "data")
    rows = blank_cells(forward_sample(network, cpts, n, data_rng), missing_rate, data_rng)
    return DrawnSample(network, cpts, labels, rows, counts)


def discrete_network(model, done: str):
    """The discrete network of ``model`` (:func:`spec_model`; a noisy-max model's network),
    checked against the limits, for a command by which a model is ``done`` ("sampled"): a
    noisy-additive model, a Gaussian or a sigmoid network has no CPTs, and is refused."""
    chosen = spec_model(model)
    if chosen.family in ADDITIVE_FAMILIES or chosen.family.endswith(" network"):
        raise HiddenbnError(f"the model is {FAMILY_NAMES[chosen.family]}, which is not {done} "
                            "here; give a discrete network's spec")
    network = chosen.model.network() if chosen.family == "noisy-max" else chosen.model
    limits.check_network(network)
    return network


def parameters(model, *, seed: int = 0, generating_alpha: float = 1.0) -> ParametersResult:
    """Random parameters of a model: ``hiddenbn params``.

    Draws every CPT row from a symmetric Dirichlet(``generating_alpha``) distribution
    (:func:`hiddenbn.models.network.random_parameters`) from the random stream of ``seed``
    that :func:`sample` draws its parameters from, so ``sample(model, n, seed=s)`` and
    ``sample(model, n, seed=s, parameters=parameters(model, seed=s).cpts)`` give the same
    cases.

    Parameters
    ----------
    model : str, path-like, dict or Network
        The model, as for :func:`sample`.
    seed : int
        The random seed.
    generating_alpha : float
        The Dirichlet parameter of every row (default 1: uniform over the simplex).

    Returns
    -------
    ParametersResult

    Raises
    ------
    HiddenbnError
        A bad model or ``generating_alpha``, with one line saying what is wrong and the fix.

    Examples
    --------
    >>> import hiddenbn
    >>> drawn = hiddenbn.parameters("2:2,2", seed=1, generating_alpha=0.5)
    >>> [round(float(p), 4) for p in drawn.cpts[0][0]]
    [0.1176, 0.8824]
    >>> hiddenbn.sample("2:2,2", n=5, seed=1).equals(
    ...     hiddenbn.sample("2:2,2", n=5, seed=1, parameters=hiddenbn.parameters("2:2,2",
    ...                                                                          seed=1).cpts))
    True
    """
    network = discrete_network(model, "given parameters")
    return ParametersResult(network, random_parameters(
        network, seeding.rng(seed, "parameters"), generating_alpha))


def complete_cases(data, columns=None):
    """The ``columns`` of ``data`` (:func:`data_table`) for a learner that needs every cell:
    one line if one is missing. Every column is coded when ``columns`` is None or names one
    the data lacks (for the learner to name it among them)."""
    table = data_table(data)
    columns = None if columns is None else column_names(columns)
    if columns is not None and not set(columns) <= set(table.names):
        columns = None
    dataset = table.data_file(columns).dataset
    dataset.require_complete("an embedded classifier", "delete the rows with missing cells")
    return dataset


def ebnc_fit(data, embedded, target: str, *,
             prior_sd: float = EBNC_PRIOR_SD) -> EbncFitResult:
    """Fit and score the embedded Bayesian-network classifier of ``target``: ``hiddenbn ebnc
    fit``.

    The classifier of ``target`` given its Markov blanket in the fully observed network
    ``embedded`` (Heckerman & Meek 1997) is fitted to complete data by maximum likelihood
    and by MAP under a normal prior on its non-redundant natural parameters ``phi``, and
    scored by the Laplace approximation (Eq. 8) and BIC on the scale of log p(D | S) (Eq. 9).

    Parameters
    ----------
    data : path-like, pandas.DataFrame or Dataset
        The cases, as for :func:`fit`, without a missing cell in the columns of ``embedded``.
    embedded : str, path-like, dict or Network
        The embedded network: a YAML or JSON spec file or its dict, whose nodes name columns of
        ``data``, or a Network.
    target : str
        The class node.
    prior_sd : float
        The standard deviation of the normal prior on every ``phi``.

    Returns
    -------
    EbncFitResult

    Raises
    ------
    HiddenbnError
        A bad network, data or target, with one line saying what is wrong and the fix.

    Examples
    --------
    >>> import hiddenbn
    >>> naive_bayes = {"nodes": {"Y": {"states": 2}, "X1": {"states": 2, "parents": ["Y"]},
    ...                          "X2": {"states": 2, "parents": ["Y"]}, "X3": {"states": 2}}}
    >>> tables = [[[0.5, 0.5]], [[0.85, 0.15], [0.2, 0.8]], [[0.7, 0.3], [0.2, 0.8]],
    ...           [[0.5, 0.5]]]
    >>> frame = hiddenbn.sample(naive_bayes, n=500, seed=1, parameters=tables)
    >>> result = hiddenbn.ebnc_fit(frame, naive_bayes, "Y")
    >>> result.inputs, result.d, sorted(result.phi_map)
    (['X1', 'X2'], 3, ['1', 'X1=1', 'X2=1'])
    >>> round(result.laplace, 2), round(result.bic_log_evidence, 2)
    (-177.42, -176.34)
    """
    from hiddenbn.reports import ebnc as ebnc_reports

    _check_prior_sd(prior_sd)
    network = discrete_network(embedded, "an embedded network")
    dataset = complete_cases(data, network.observed_names)
    return EbncFitResult(ebnc_reports.fit_report(network, target, dataset, prior_sd))


def ebnc_select(data, target: str, *, inputs=None, score: str = "laplace",
                prior_sd: float = EBNC_PRIOR_SD, max_parents: int = 3,
                progress=None) -> EbncSelectionResult:
    """Select an embedded network and inputs for ``target``: ``hiddenbn ebnc select``.

    A greedy search over embedded networks on ``target`` and the candidate inputs (add,
    delete or reverse an arc), each scored by the classifier of ``target`` it embeds
    (:func:`ebnc_fit`; Heckerman & Meek 1997); the best network's Markov blanket of
    ``target`` are the selected inputs.

    Parameters
    ----------
    data : path-like, pandas.DataFrame or Dataset
        The cases, as for :func:`fit`, without a missing cell in the columns searched.
    target : str
        The class column.
    inputs : sequence of str, optional
        The candidate input columns (default: every other column).
    score : {"laplace", "bic_log_evidence"}
        The score the search maximises.
    prior_sd : float
        The standard deviation of the normal prior on every ``phi``.
    max_parents : int
        The largest parent set in the search.
    progress : callable, optional
        Called with the number of embedded networks scored so far.

    Returns
    -------
    EbncSelectionResult

    Raises
    ------
    HiddenbnError
        Bad data, a bad target, input or option, with one line saying what is wrong and the
        fix.

    Examples
    --------
    >>> import hiddenbn
    >>> naive_bayes = {"nodes": {"Y": {"states": 2}, "X1": {"states": 2, "parents": ["Y"]},
    ...                          "X2": {"states": 2, "parents": ["Y"]}, "X3": {"states": 2}}}
    >>> tables = [[[0.5, 0.5]], [[0.85, 0.15], [0.2, 0.8]], [[0.7, 0.3], [0.2, 0.8]],
    ...           [[0.5, 0.5]]]
    >>> frame = hiddenbn.sample(naive_bayes, n=500, seed=1, parameters=tables)
    >>> result = hiddenbn.ebnc_select(frame, "Y", score="bic_log_evidence", max_parents=1)
    >>> result.selected_inputs, result.value == result.bic_log_evidence
    (['X1', 'X2'], True)
    """
    from hiddenbn.reports import ebnc as ebnc_reports

    if inputs is not None:
        if isinstance(inputs, str) or not all(isinstance(name, str) and name
                                              for name in inputs):
            raise HiddenbnError(f"inputs must be a list of column names, e.g. ['X1', 'X2'], got "
                                f"{excerpt(repr(inputs))}")
        inputs = tuple(inputs)
        if len(set(inputs)) != len(inputs):
            raise HiddenbnError("inputs names a column twice; give each once")
    limits.require_whole_number(max_parents, 1, "max_parents")
    _check_prior_sd(prior_sd)
    dataset = complete_cases(data, None if inputs is None else (target, *inputs))
    return EbncSelectionResult(ebnc_reports.select_report(
        dataset, target, inputs, score, prior_sd, max_parents, progress))


def _check_prior_sd(prior_sd) -> None:
    """Refuse a prior standard deviation the command line's ``--prior-sd`` would refuse."""
    if isinstance(prior_sd, bool) or not isinstance(prior_sd, (int, float, np.floating)) \
            or not limits.MIN_PRIOR_SD <= prior_sd <= limits.MAX_PRIOR_SD:
        raise HiddenbnError(f"prior_sd must be a number from {limits.MIN_PRIOR_SD} to "
                            f"{limits.MAX_PRIOR_SD}, got {excerpt(repr(prior_sd))}")
