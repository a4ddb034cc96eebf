"""What each command computes, as Python objects.

Each command of the command line has a function of :mod:`hiddenbn.commands` (or, for
``check-config``, of :mod:`hiddenbn.experiments.workflow_config`) that returns one of these
results: :class:`FitResult` (``hiddenbn fit``), :class:`SelectionResult` (``select``),
:class:`EvidenceResult` (``evidence``), :class:`DimensionResult` (``dim``),
:class:`ParametersResult` (``params``), :class:`EbncFitResult` (``ebnc fit``),
:class:`EbncSelectionResult` (``ebnc select``) and :class:`ConfigCheckResult`
(``check-config``); ``hiddenbn fit --covariates`` returns a :class:`RegressionResult`, ``select
--covariates`` a :class:`RegressionSelectionResult`. A result
holds the command's report, and shows it three ways:

* :meth:`Result.to_dict` is the JSON that the command prints with ``--json`` (``params`` and
  ``ebnc`` print only JSON), as Python lists and dicts (strict JSON: a NaN or infinite number,
  such as a Laplace score without a positive definite Hessian, is None), and
  :meth:`Result.to_json` that text itself;
* ``str(result)`` is the text the command prints without ``--json``;
* attributes give its numbers as numbers and arrays, and the Python objects behind them (the
  fitted network and its parameters, the data as they were coded).

This module imports no numerical library at its top: the command line builds its output with
it, and starts without them (``tests/test_startup.py``).
"""

from __future__ import annotations

import json
import math


def strict_json(value):
    """``value`` as strict JSON values: every float that is NaN or infinite, however deeply
    nested, is None, and tuples are lists (a fresh copy; ``value`` is left as it is).

    Parameters
    ----------
    value : object
        Nested dicts, lists and tuples of JSON values.

    Returns
    -------
    object
        The copy, which ``json.dumps(..., allow_nan=False)`` writes.

    Examples
    --------
    >>> strict_json({"laplace": float("nan"), "scores": (1.5, float("inf"))})
    {'laplace': None, 'scores': [1.5, None]}
    """
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: strict_json(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [strict_json(item) for item in value]
    return value


class Result:
    """A command's result: its report as JSON and as text, and its numbers as attributes.

    Parameters
    ----------
    report : dict
        The report, as the command prints it with ``--json``.
    text : callable, optional
        Makes the text the command prints of ``report`` (default: a subclass's, else the
        JSON).

    Examples
    --------
    >>> result = Result({"ds": 11, "notes": ["a note"]})
    >>> result.to_dict()
    {'ds': 11, 'notes': ['a note']}
    >>> print(result.to_json(indent=None))
    {"ds": 11, "notes": ["a note"]}
    """

    def __init__(self, report: dict, text=None):
        self._report, self._format = report, text

    def to_dict(self) -> dict:
        """The report as the command's ``--json`` prints it: strict JSON values (a NaN or an
        infinite number is None), a new copy at every call.

        Returns
        -------
        dict
        """
        return strict_json(self._report)

    def to_json(self, indent: int | None = 1) -> str:
        """The text of :meth:`to_dict` as JSON, as the command's ``--json`` prints it with the
        default ``indent``.

        Parameters
        ----------
        indent : int or None
            Spaces per level of nesting (None: one line).

        Returns
        -------
        str
        """
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False)

    @property
    def notes(self) -> list:
        """What a user should know about the result: how the data were read, a search that
        was not replicated, a score that could not be computed and why (list of str)."""
        return list(self._report.get("notes", []))

    def _text(self) -> str:
        """The text the command prints."""
        return self.to_json() if self._format is None else self._format(self._report)

    def __str__(self) -> str:
        return self._text()

    def _summary(self) -> str:
        """What the result's repr shows: the first line of its text."""
        return self._text().splitlines()[0]

    def __repr__(self) -> str:
        return f"<{type(self).__name__}: {self._summary()}>"


class _Dimensions(Result):
    """A result that gives the dimensions of its model."""

    @property
    def ds(self) -> int:
        """The standard dimension: the number of free parameters (int)."""
        return self._report["ds"]

    @property
    def de(self) -> int | None:
        """The effective dimension (int), or None where it was skipped or not found."""
        return self._report["de"]


class _Fitted(Result):
    """A result of a fit by EM (its ``fit``): the numbers of the fit every such result gives."""

    @property
    def log_likelihood(self) -> float:
        """log p(D | theta) at the fitted parameters (float)."""
        return self.fit.log_likelihood

    @property
    def log_posterior(self) -> float:
        """g = log p(D | theta) + log p(theta), what EM maximises (float)."""
        return self.fit.log_posterior

    @property
    def converged(self) -> bool:
        """Whether EM's stopping rule was met before its iteration cap (bool)."""
        return self.fit.converged

    @property
    def replicated(self) -> bool:
        """Whether more than one of EM's independent searches reached the best log posterior
        (bool): a fit that only one reached may not be the best there is."""
        return self.fit.replicated


class FitResult(_Dimensions, _Fitted):
    """A network fitted by EM and scored: what ``hiddenbn fit`` prints, and the fit itself.

    Returned by :func:`hiddenbn.fit` for a discrete network (a latent class model, a tree, a
    network of a spec file, a noisy-max model). ``str(result)`` is the text of ``hiddenbn
    fit``; :meth:`to_dict` its ``--json``.

    Attributes
    ----------
    network : hiddenbn.models.network.Network
        The fitted network, its observed nodes named after the data's columns.
    fit : hiddenbn.learning.em.Fit
        The fit: ``cpts`` (one table per node, a row per parent configuration), the
        log-likelihood and log prior, convergence, the final log posterior of every search.
    data : hiddenbn.data.Dataset
        The cases the network was fitted to, over its observed nodes, with their states.
    data_file : hiddenbn.data.DataFile
        The data as read: every row with missing cells too, and each row's pattern (what
        :meth:`posteriors` gives one line per row from).
    lca : LatentClassReport or None
        The latent class analysis of a latent class model (None for another network).

    Examples
    --------
    >>> import hiddenbn
    >>> frame = hiddenbn.sample("2:2,2,2,2", n=500, seed=1)
    >>> result = hiddenbn.fit(frame, classes=2, seed=1)
    >>> round(result.log_likelihood, 3), result.converged, result.ds
    (-815.547, True, 9)
    >>> sorted(result.scores)[:3]
    ['bic_log_evidence', 'bic_plus_log_evidence', 'cs']
    >>> result.to_dict()["em"]["schedule"]
    'annealing'
    """

    def __init__(self, report: dict, fit, data, data_file):
        super().__init__(report)
        self.fit, self.network, self.data, self.data_file = fit, fit.network, data, data_file
        self.lca = LatentClassReport(report["lca"]) if "lca" in report else None


    @property
    def scores(self) -> dict:
        """Every score: approximations of log p(D | model), larger is better (``loglik``,
        ``bic_log_evidence`` = -BIC/2, ``icl_log_evidence`` = -ICL/2,
        ``bic_plus_log_evidence``, ``draper``, ``mled``, ``cs``, ``cs_plus``, ``laplace``;
        those that need ``de`` only when it is known; ``sbic_log_evidence`` is None: sBIC
        compares the models of 1..K classes, :func:`hiddenbn.select`)."""
        return dict(self._report["scores"])

    @property
    def parameters(self) -> dict:
        """The fitted tables, ``{node: array}``: a row per configuration of the node's parents
        (the first parent most significant), a column per state, in the order of
        :attr:`states` for observed nodes."""
        import numpy as np

        return {self.network.names[i]: np.array(table) for i, table in enumerate(self.fit.cpts)
                if table is not None}

    @property
    def states(self) -> dict:
        """The states of each column, in code order: ``{column: [label, ...]}``."""
        return self.data.states()

    def posteriors(self):
        """Each data row's posterior probabilities of the hidden states, as ``fit
        --posteriors`` writes them.

        Returns
        -------
        pandas.DataFrame
            One row per row of the data in its order (index ``row``, from 1; rows with missing
            cells included). A latent class model has columns ``p_class1 .. p_classk`` and
            ``modal_class`` (classes from 1); another network ``p_NODE_1 ..`` and
            ``modal_NODE`` per hidden node.
        """
        import pandas as pd

        from hiddenbn.inference.latent_class import modal_class

        rows, columns = self.data_file.row_patterns, {}
        for node, posterior in self._hidden_posteriors().items():
            prefix, modal = (("p_class", "modal_class") if self.lca is not None
                             else (f"p_{node}_", f"modal_{node}"))
            columns.update({f"{prefix}{s + 1}": posterior[rows, s]
                            for s in range(posterior.shape[1])})
            columns[modal] = modal_class(posterior)[rows] + 1
        frame = pd.DataFrame(columns)
        frame.index = pd.RangeIndex(1, len(frame) + 1, name="row")
        return frame

    def write_posteriors(self, path) -> None:
        """Write :meth:`posteriors` as CSV (``fit --posteriors``), atomically.

        Parameters
        ----------
        path : path-like
            The CSV file.
        """
        from hiddenbn.inference.latent_class import modal_class
        from hiddenbn.reports.lca import write_posteriors

        hidden, rows = self._hidden_posteriors(), self.data_file.row_patterns
        if self.lca is None:
            write_posteriors(path, None, None, rows, hidden=hidden)
        else:
            (posterior,) = hidden.values()
            write_posteriors(path, posterior, modal_class(posterior), rows)

    def _hidden_posteriors(self) -> dict:
        """Each hidden node's posterior for each pattern of every data row (``data_file``'s
        ``every_case``): ``{node: (patterns, states) array}``."""
        every_case = self.data_file.every_case
        if self.lca is not None:
            from hiddenbn.inference.latent_class import pattern_posteriors

            return {self.network.names[0]: pattern_posteriors(self.fit, every_case)[0]}
        from hiddenbn.inference.exact import posterior_marginals

        columns = [every_case.names.index(name) for name in self.network.observed_names]
        return posterior_marginals(self.network, self.fit.cpts, every_case.patterns[:, columns])

    def plot(self, path, format: str | None = None) -> None:
        """Draw the class profile of a latent class model (``fit --plot``): item-response
        probabilities per class, as PNG, PDF or SVG.

        Parameters
        ----------
        path : path-like
            The figure file.
        format : {"png", "pdf", "svg"}, optional
            Default: the one the suffix of ``path`` names.
        """
        if self.lca is None:
            from hiddenbn.errors import HiddenbnError

            raise HiddenbnError("the class profile is of a latent class model, and this fit is "
                                "of another network; fit a latent class model (classes=K)")
        from hiddenbn.reports.plots import class_profile_figure

        class_profile_figure(self._report["lca"], path, format)

    def save_parameters(self, path) -> None:
        """Write the fitted parameters as JSON with the states of each column (``fit
        --save-params``), as :func:`hiddenbn.fit` (``init``) and :func:`hiddenbn.sample`
        (``parameters``) read them.

        Parameters
        ----------
        path : path-like
            The JSON file.
        """
        from hiddenbn.models.network import save_parameters

        save_parameters(path, self.network, self.fit.cpts, self.states)

    def _text(self) -> str:
        from hiddenbn.reports.fit import format_fit_report

        return format_fit_report(self._report)


class LatentClassReport(Result):
    """The latent class analysis of a fit: what ``hiddenbn fit`` prints below the scores for a
    latent class model, in the layout of poLCA's print.

    Class sizes and item-response probabilities with standard errors, classification quality
    (entropy), and the information criteria and goodness of fit that latent class users
    compare (AIC, BIC, SABIC, CAIC: -2 log L + penalty, smaller is better; G^2, X^2). It is
    the ``lca`` of a :class:`FitResult`; :meth:`to_dict` is the ``lca`` entry of ``fit --json``.

    Examples
    --------
    >>> import hiddenbn
    >>> frame = hiddenbn.sample("2:2,2,2,2", n=500, seed=1)
    >>> report = hiddenbn.fit(frame, classes=2, seed=1).lca
    >>> report.n_classes, report.class_sizes.round(3).tolist()
    (2, [0.702, 0.298])
    >>> report.item_probabilities["X1"].shape
    (2, 2)
    >>> round(report.bic, 2)
    1687.02
    """

    @property
    def n_classes(self) -> int:
        """The number of classes (int)."""
        return self._report["model"]["classes"]

    @property
    def class_sizes(self):
        """p(class), one per class (ndarray)."""
        import numpy as np

        return np.array([c["size"] for c in self._report["classes"]])

    @property
    def item_probabilities(self) -> dict:
        """``{item: (classes, categories) array}``: p(category | class), a row per class and a
        column per category, in the order of :attr:`categories`."""
        import numpy as np

        return {name: np.array(item["probabilities"], dtype=float)
                for name, item in self._report["items"].items()}

    @property
    def categories(self) -> dict:
        """``{item: [label, ...]}``: each item's categories, in the order of the columns of
        :attr:`item_probabilities`."""
        return {name: list(item["categories"]) for name, item in self._report["items"].items()}

    @property
    def fit_statistics(self) -> dict:
        """The log-likelihood, the number of parameters, AIC, BIC, SABIC, CAIC, G^2 and X^2
        with their degrees of freedom and p values (dict; None where undefined)."""
        return strict_json(self._report["fit_statistics"])

    @property
    def classification(self) -> dict:
        """Entropy, entropy R^2, the modal class counts and the average posterior by modal
        class (dict)."""
        return strict_json(self._report["classification"])

    @property
    def aic(self) -> float:
        """Akaike's information criterion, -2 log L + 2 ds (float)."""
        return self._report["fit_statistics"]["aic"]

    @property
    def bic(self) -> float:
        """Schwarz's Bayesian information criterion, -2 log L + ds log N (float)."""
        return self._report["fit_statistics"]["bic"]

    def _text(self) -> str:
        from hiddenbn.reports.lca import format_lca_text

        return format_lca_text(self._report)


class RegressionResult(_Fitted):
    """A one-step latent class regression: what ``hiddenbn fit --covariates`` prints, and the
    fit itself.

    Returned by :func:`hiddenbn.fit` given ``covariates``. ``str(result)`` is the text of
    ``hiddenbn fit --covariates``; :meth:`to_dict` its ``--json``.

    Attributes
    ----------
    fit : hiddenbn.regression.one_step.OneStepFit
        The fit: ``coefficients`` (p x k, column 0 zeros: class 1 the reference), the item
        tables ``cpts``, the log-likelihood, convergence, the final g of every start.
    design : hiddenbn.regression.covariates.CovariateDesign
        The covariates: the design's column names, reference levels, the rows dropped.

    Examples
    --------
    >>> import numpy as np, pandas as pd, hiddenbn
    >>> rng = np.random.default_rng(0)
    >>> age = rng.uniform(20, 60, 500).round()
    >>> cls = rng.random(500) < 1 / (1 + np.exp(-(age - 40) / 8))
    >>> items = rng.random((500, 4)) < np.where(cls, 0.8, 0.2)[:, None]
    >>> frame = pd.DataFrame(items.astype(int), columns=["a", "b", "c", "d"]).assign(age=age)
    >>> result = hiddenbn.fit(frame, classes=2, covariates="age", seed=1)
    >>> result.coefficients.loc[("2", "age"), "estimate"].round(1) in (-0.1, 0.1)
    True
    >>> result.replicated, result.dropped_rows
    (True, 0)
    """

    def __init__(self, report: dict, fit, design, rows):
        super().__init__(report)
        self.fit, self.design = fit, design
        # the kept data rows' item patterns and design rows, which rows are kept, and why
        # each other row was dropped
        self._rows = rows

    @property
    def dropped_rows(self) -> int:
        """Data rows dropped for a missing covariate (int)."""
        return self._report["dropped_rows"]

    @property
    def scores(self) -> dict:
        """Every score, larger is better (``loglik``, ``bic_log_evidence``,
        ``icl_log_evidence``, ``laplace``; None where undefined, a note says why)."""
        return strict_json(self._report["scores"])

    @property
    def fit_statistics(self) -> dict:
        """AIC, BIC, SABIC and CAIC (-2 log L + penalty, smaller is better), the
        log-likelihood and the number of parameters (dict)."""
        return dict(self._report["fit_statistics"])

    @property
    def coefficients(self):
        """The logit coefficients: a DataFrame indexed by (class, covariate), class 2..k
        against class 1, with ``estimate``, ``standard_error``, ``z``, ``p`` and
        ``odds_ratio``."""
        import pandas as pd

        frame = pd.DataFrame(self._report["coefficients"])
        frame["class"] = frame["class"].astype(str)
        return frame.set_index(["class", "covariate"]).astype(float)

    @property
    def predictions(self) -> list:
        """``[{"at": {covariate: value}, "probabilities": [p(class h), ...]}]``: the class
        probabilities at the values asked for (``predict_at``)."""
        return strict_json(self._report["predictions"])

    def predict(self, values):
        """The class probabilities at covariate ``values``.

        Parameters
        ----------
        values : dict or list of dict
            ``{covariate: value}`` giving every covariate (a level for a categorical one).

        Returns
        -------
        ndarray, shape (len(values), k)
        """
        return self.fit.class_probabilities(self.design.rows(values))

    def posteriors(self):
        """Each data row's posterior class probabilities given its items and covariates, as
        ``fit --posteriors`` writes them.

        Returns
        -------
        pandas.DataFrame
            One row per data row in its order (index ``row``, from 1): ``p_class1 ..
            p_classk`` and ``modal_class`` (NaN for a row dropped for a missing covariate),
            and ``dropped`` (why a row was dropped, else empty).
        """
        import numpy as np
        import pandas as pd

        patterns, design, kept, reasons = self._rows
        posterior = self.fit.posterior(patterns, design)
        k = posterior.shape[1]
        values = np.full((kept.size, k), np.nan)
        values[kept] = posterior
        frame = pd.DataFrame(values, columns=[f"p_class{h + 1}" for h in range(k)])
        modal = np.full(kept.size, np.nan)
        modal[kept] = posterior.argmax(axis=1) + 1
        frame["modal_class"] = pd.array(modal, dtype="Int64")
        frame["dropped"] = reasons
        frame.index = pd.RangeIndex(1, len(frame) + 1, name="row")
        return frame

    def write_posteriors(self, path) -> None:
        """Write :meth:`posteriors` as CSV (``fit --posteriors``), atomically.

        Parameters
        ----------
        path : path-like
            The CSV file.
        """
        from hiddenbn.reports.regression import write_regression_posteriors

        patterns, design, kept, reasons = self._rows
        write_regression_posteriors(path, self.fit.posterior(patterns, design), kept, reasons)

    def plot(self, path, format: str | None = None, covariate: str | None = None) -> None:
        """Draw the predicted class probabilities against the numeric ``covariate`` (``fit
        --plot FILE --plot-covariate NAME``), the other covariates at their means
        (numeric) or reference levels (categorical); without ``covariate``, the class profile
        (item-response probabilities per class). PNG, PDF or SVG.

        Parameters
        ----------
        path : path-like
            The figure file.
        format : {"png", "pdf", "svg"}, optional
            Default: the one the suffix of ``path`` names.
        covariate : str, optional
            A numeric covariate of the model.
        """
        from hiddenbn.reports import plots
        from hiddenbn.reports.regression import probability_curve

        if covariate is None:
            plots.class_profile_figure(self._report, path, format)
        else:
            plots.class_probability_figure(probability_curve(self.fit, self.design, covariate),
                                           path, format)

    def _text(self) -> str:
        from hiddenbn.reports.regression import format_regression_text

        return format_regression_text(self._report)


class SelectionResult(Result):
    """Latent class models fitted for each number of classes, and the number each score and
    criterion selects: what ``hiddenbn select`` prints.

    Returned by :func:`hiddenbn.select`. ``str(result)`` is the text of ``hiddenbn select``
    (a table of the information criteria, one of the scores), :meth:`to_dict` its ``--json``.

    Examples
    --------
    >>> import hiddenbn
    >>> frame = hiddenbn.sample("2:2,2,2,2,2", n=1000, seed=3)
    >>> result = hiddenbn.select(frame, classes=[1, 2, 3], skip_de=True)
    >>> result.selected["bic"], result.selected["bic_log_evidence"]
    (2, 2)
    >>> result.to_frame().loc[2, "converged"]
    np.True_
    """

    @property
    def selected(self) -> dict:
        """``{score or criterion: number of classes}``: the number each selects (the largest
        score, the smallest information criterion)."""
        return dict(self._report["selected"])

    @property
    def models(self) -> list:
        """One dict per number of classes, as the ``models`` of ``--json``: ``states`` (the
        number of classes), ``ds``, ``de``, convergence and replication, every score, and the
        ``fit_statistics`` and ``classification`` of :class:`LatentClassReport`."""
        return strict_json(self._report["models"])

    def to_frame(self):
        """The models as a table: a row per number of classes (index ``classes``), a column
        per score, information criterion and statistic.

        Returns
        -------
        pandas.DataFrame
        """
        import pandas as pd

        rows = []
        for model in self._report["models"]:
            row = {key: value for key, value in model.items()
                   if key not in ("fit_statistics", "classification")}
            statistics = {key: value for key, value in model["fit_statistics"].items()
                          if key != "orientation"}
            rows.append({**row, **statistics, **model["classification"]})
        return pd.DataFrame(rows).set_index("states").rename_axis("classes")

    @property
    def blrt(self) -> dict | None:
        """The bootstrap likelihood-ratio tests of k - 1 against k classes, as the ``blrt`` of
        ``--json`` (None without ``blrt``): per ``k`` the statistic, the p-value, its
        Monte-Carlo standard error, the replicates used and whether the rule stopped early
        (:func:`hiddenbn.learning.blrt.report`)."""
        return strict_json(self._report["blrt"]) if "blrt" in self._report else None

    def _text(self) -> str:
        from hiddenbn.reports.fit import format_selection

        if "blrt" not in self._report:
            return format_selection(self._report)
        from hiddenbn.reports.blrt import format_blrt

        return "\n".join([format_selection(self._report), format_blrt(self._report["blrt"])])


class RegressionSelectionResult(SelectionResult):
    """Latent class regressions fitted for each number of classes, and the number each score
    and criterion selects: what ``hiddenbn select --covariates`` prints.

    Returned by :func:`hiddenbn.select` given ``covariates``. :attr:`selected` gives the
    choices, :meth:`to_frame` one row per model.
    """

    def to_frame(self):
        """One row per number of classes (index ``k``): ``n_parameters``, ``converged``,
        ``best_found``, ``searches``, every score and criterion and ``entropy_r2``.

        Returns
        -------
        pandas.DataFrame
        """
        import pandas as pd

        # a separated model has no fit statistics and no classification: its cells are None
        rows = [{key: value for key, value in m.items()
                 if key not in ("fit_statistics", "classification")}
                | {name: (m["fit_statistics"] or {}).get(name)
                   for name in ("aic", "bic", "sabic", "caic")}
                | {"entropy_r2": (m["classification"] or {}).get("entropy_r2")}
                for m in self.to_dict()["models"]]
        return pd.DataFrame(rows).set_index("states").rename_axis("k")

    def _text(self) -> str:
        from hiddenbn.reports.regression import format_regression_selection

        return format_regression_selection(self._report)


class EvidenceResult(Result):
    """The marginal likelihood log p(D | S) of a model: what ``hiddenbn evidence`` prints.

    Returned by :func:`hiddenbn.log_evidence`: exact (every completion of the hidden values
    summed) or a sequential Monte Carlo estimate with its standard error over independent
    runs.

    Examples
    --------
    >>> import hiddenbn
    >>> frame = hiddenbn.sample("2:2,2,2", n=30, seed=2)
    >>> exact = hiddenbn.log_evidence(frame, "2:2,2,2", method="exact")
    >>> round(exact.log_evidence, 4), exact.standard_error
    (-50.1919, 0.0)
    >>> estimate = hiddenbn.log_evidence(frame, "2:2,2,2", seed=1)
    >>> abs(estimate.log_evidence - exact.log_evidence) < 4 * estimate.standard_error + 0.05
    True
    """

    @property
    def log_evidence(self) -> float:
        """log p(D | S), or its Monte Carlo estimate (float)."""
        return self._report["log_evidence"]

    @property
    def standard_error(self) -> float:
        """The standard error of a Monte Carlo estimate over its runs (0 for exact)."""
        return self._report["standard_error"]

    @property
    def method(self) -> str:
        """``"exact"`` or ``"mc"`` (sequential Monte Carlo)."""
        return self._report["method"]

    def _text(self) -> str:
        from hiddenbn.reports.evidence import format_evidence_report

        return format_evidence_report(self._report)


class DimensionResult(_Dimensions):
    """The dimensions of a model: what ``hiddenbn dim`` prints.

    Returned by :func:`hiddenbn.dimensions`: the standard dimension ``ds`` (free parameters),
    the effective dimension ``de`` (the rank of the Jacobian of the map from parameters to
    the distribution of the observed variables; Geiger, Heckerman & Meek 1996), the complete
    dimension ``dc`` and, for a latent class model, Kocka & Zhang's bounds ``dp`` and ``db``.

    Examples
    --------
    >>> import hiddenbn
    >>> result = hiddenbn.dimensions("3:2,2,2,2")
    >>> result.ds, result.de, result.dc  # one parameter the data cannot identify
    (14, 13, 15)
    >>> hiddenbn.dimensions("2:2,2").de  # two binary items: fewer than the 5 parameters
    3
    """

    @property
    def dc(self) -> int | None:
        """The dimension of the complete model over the observed variables (int), or None
        for a model that has none here."""
        return self._report.get("dc")

    @property
    def dp(self) -> int | None:
        """The pairwise bound on de of Kocka & Zhang (2002, Theorem 3) (int), or None where
        it does not apply."""
        return self._report.get("dp")

    @property
    def db(self) -> int | None:
        """``min(ds, dc, dp)``, the bound on de of Kocka & Zhang (2002, Theorem 4) (int), or
        None where it does not apply."""
        return self._report.get("db")

    @property
    def warnings(self) -> list:
        """Why a rank may not be sure (list of str)."""
        return list(self._report.get("warnings", []))

    def _text(self) -> str:
        if self._format is not None:  # an interaction model's
            return self._format(self._report)
        from hiddenbn.reports.dimension import format_dimension_report

        return format_dimension_report(self._report)


class ParametersResult(Result):
    """Random parameters of a network: what ``hiddenbn params`` prints.

    Returned by :func:`hiddenbn.parameters`. :meth:`to_json` (and ``str(result)``) is the
    parameter file the command writes: ``{"network": spec, "cpts": {node: rows}}``, which
    ``fit --init`` and ``sample --params`` read; :attr:`cpts` are the tables themselves, which
    :func:`hiddenbn.sample` (``parameters``) and :func:`hiddenbn.fit` (``init``) take.

    Attributes
    ----------
    network : hiddenbn.models.network.Network
        The network the parameters are of.
    cpts : list of ndarray
        One table per node (None for a deterministic node): a row per configuration of its
        parents, a column per state.

    Examples
    --------
    >>> import hiddenbn
    >>> drawn = hiddenbn.parameters("2:2,3", seed=3)
    >>> [table.shape for table in drawn.cpts]
    [(1, 2), (2, 2), (2, 3)]
    >>> sorted(drawn.to_dict()["cpts"])
    ['H1', 'X1', 'X2']
    >>> hiddenbn.sample("2:2,3", n=3, seed=3, parameters=drawn.cpts).shape
    (3, 2)
    """

    def __init__(self, network, cpts):
        from hiddenbn.models.network import parameters_to_dict

        super().__init__(parameters_to_dict(network, cpts))
        self.network, self.cpts = network, cpts

    def save_parameters(self, path) -> None:
        """Write the parameters as JSON (``params -o``), atomically.

        Parameters
        ----------
        path : path-like
            The JSON file.
        """
        from hiddenbn.models.network import save_parameters

        save_parameters(path, self.network, self.cpts)

    def _summary(self) -> str:
        return f"the CPTs of {', '.join(self._report['cpts'])}"


class _Classifier(Result):
    """A result about an embedded Bayesian-network classifier of a target: its scores."""

    @property
    def target(self) -> str:
        """The class node (str)."""
        return self._report["target"]

    @property
    def d(self) -> int:
        """The dimension of the classifier: its non-redundant parameters (int)."""
        return self._report["d"]

    @property
    def laplace(self) -> float:
        """The Laplace approximation of log p(D | S) (Eq. 8; float, NaN without a positive
        definite Hessian)."""
        return self._report["laplace"]

    @property
    def bic_log_evidence(self) -> float:
        """BIC on the scale of log p(D | S), -BIC/2 (Eq. 9; float)."""
        return self._report["bic_log_evidence"]


class EbncFitResult(_Classifier):
    """The embedded Bayesian-network classifier of a target, fitted and scored: what
    ``hiddenbn ebnc fit`` prints.

    Returned by :func:`hiddenbn.ebnc_fit`. The classifier of the target given its Markov
    blanket in an embedded network (Heckerman & Meek 1997) is fitted by maximum likelihood
    and by MAP under a normal prior on its non-redundant natural parameters ``phi``, and scored
    by the Laplace approximation (Eq. 8) and BIC on the scale of log p(D | S) (Eq. 9: -BIC/2);
    larger is better. The command prints JSON only: ``str(result)`` is :meth:`to_json`.

    Examples
    --------
    >>> import hiddenbn
    >>> tables = [[[0.5, 0.5]], [[0.9, 0.1], [0.1, 0.9]], [[0.8, 0.2], [0.3, 0.7]],
    ...           [[0.7, 0.3], [0.2, 0.8]], [[0.5, 0.5], [0.5, 0.5]]]
    >>> frame = hiddenbn.sample("2:2,2,2,2", n=400, seed=2, parameters=tables)
    >>> frame = frame.rename(columns={"X1": "Y"})  # a proxy of the hidden class
    >>> result = hiddenbn.ebnc_fit(frame, {"nodes": {
    ...     "Y": {"states": 2}, "X2": {"states": 2, "parents": ["Y"]},
    ...     "X3": {"states": 2, "parents": ["Y"]}}}, "Y")
    >>> result
    <EbncFitResult: Y given X2, X3, d = 3>
    >>> result.laplace < result.log_likelihood_map
    True
    """

    @property
    def inputs(self) -> list:
        """The target's Markov blanket in the embedded network: the classifier's inputs."""
        return list(self._report["inputs"])

    @property
    def log_likelihood_map(self) -> float:
        """The conditional log-likelihood of the target at the MAP ``phi`` (float)."""
        return self._report["log_likelihood_map"]

    @property
    def phi_map(self) -> dict:
        """``{feature: [phi for classes 2..r]}``: the MAP natural parameters, per indicator
        feature of the inputs (dict)."""
        return strict_json(self._report["phi_map"])

    def _summary(self) -> str:
        return f"{self.target} given {', '.join(self.inputs) or 'no input'}, d = {self.d}"


class EbncSelectionResult(_Classifier):
    """An embedded network and inputs selected for a target: what ``hiddenbn ebnc select``
    prints.

    Returned by :func:`hiddenbn.ebnc_select`: the greedy search over embedded networks on the
    target and the candidate inputs (add, delete or reverse an arc) by the Laplace score or
    BIC (Heckerman & Meek 1997); its target, dimension and scores are the selected
    classifier's. The command prints JSON only: ``str(result)`` is :meth:`to_json`.

    Examples
    --------
    >>> import hiddenbn
    >>> tables = [[[0.5, 0.5]], [[0.9, 0.1], [0.1, 0.9]], [[0.8, 0.2], [0.3, 0.7]],
    ...           [[0.7, 0.3], [0.2, 0.8]], [[0.5, 0.5], [0.5, 0.5]]]
    >>> frame = hiddenbn.sample("2:2,2,2,2", n=400, seed=2, parameters=tables)
    >>> frame = frame.rename(columns={"X1": "Y"})  # a proxy of the hidden class
    >>> result = hiddenbn.ebnc_select(frame, "Y", max_parents=1)
    >>> result.selected_inputs, result.score
    (['X3', 'X2'], 'laplace')
    >>> result.embedded_network["X4"]  # no arc: not an input
    []
    """

    @property
    def score(self) -> str:
        """The score the search maximised: ``"laplace"`` or ``"bic_log_evidence"``."""
        return self._report["score"]

    @property
    def selected_inputs(self) -> list:
        """The inputs of the selected classifier: the target's Markov blanket (list of str)."""
        return list(self._report["selected_inputs"])

    @property
    def embedded_network(self) -> dict:
        """``{node: [parent, ...]}``: the selected embedded network."""
        return strict_json(self._report["embedded_network"])

    @property
    def value(self) -> float:
        """The selected network's value of :attr:`score` (float)."""
        return self._report["value"]

    def _summary(self) -> str:
        return (f"{self.target} given {', '.join(self.selected_inputs) or 'no input'}, "
                f"{self.score} {self.value:.6g}")


class ConfigCheckResult(Result):
    """A workflow config that passed its checks: what ``hiddenbn check-config`` prints.

    Returned by :func:`hiddenbn.check_config_file`. ``str(result)`` is the line of
    ``check-config``, :attr:`results_dir` what ``check-config --results-dir`` prints, and
    :meth:`to_dict` the config with the schema's defaults filled in.

    Parameters
    ----------
    report : dict
        The config, checked, its defaults filled in.
    path : str or path-like
        The config file, as the line names it.

    Examples
    --------
    >>> result = ConfigCheckResult({"results_dir": "results", "seed": 1}, "my.yaml")
    >>> print(result)
    config my.yaml: no problems; results go to results
    >>> result.results_dir
    'results'
    """

    def __init__(self, report: dict, path):
        super().__init__(report)
        self.path = path

    @property
    def results_dir(self) -> str:
        """The folder the workflow writes its results to (str)."""
        return self._report["results_dir"]

    def _text(self) -> str:
        return f"config {self.path}: no problems; results go to {self.results_dir}"
