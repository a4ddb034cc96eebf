"""The latent class model as a scikit-learn-style estimator: :class:`LatentClassModel`.

A latent class model explains categorical items by one hidden variable, the class: given the
class the items are independent, so ``p(x) = sum_h p(h) prod_j p(x_j | h)`` (Lazarsfeld;
paper 002 Sec. 2.2, paper 003 Sec. 3 of the five papers this package implements).
:class:`LatentClassModel` fits it as ``hiddenbn fit --classes K`` does, by the same search
(:func:`hiddenbn.learning.selection.search`: annealed starts, SQUAREM, split-and-merge moves)
from the same data, read by the same reader, so that both give the same log-likelihood for the
same seed. It answers as scikit-learn's mixtures (``sklearn.mixture.GaussianMixture``) do:
:meth:`~LatentClassModel.predict_proba`, :meth:`~LatentClassModel.predict`,
:meth:`~LatentClassModel.score` (the mean log-likelihood per case),
:meth:`~LatentClassModel.score_samples`, :meth:`~LatentClassModel.bic`,
:meth:`~LatentClassModel.icl`, :meth:`~LatentClassModel.aic`, :meth:`~LatentClassModel.sample`.

scikit-learn is not a dependency: :meth:`~LatentClassModel.get_params`,
:meth:`~LatentClassModel.set_params` and the ``repr`` follow its conventions (parameters are
the keywords of ``__init__``, stored as given and checked by ``fit``; fitted attributes end
with ``_``), and ``__sklearn_tags__``, which only scikit-learn calls, imports its tags then.
So ``sklearn.base.clone``, pipelines and grid searches take the estimator, and its checks
(``sklearn.utils.estimator_checks``) pass where they apply (``tests/test_estimators.py``).
"""

from __future__ import annotations

import inspect
import numbers
import warnings

import numpy as np

from hiddenbn import commands
from hiddenbn.errors import HiddenbnError
from hiddenbn.learning import selection
from hiddenbn.learning.annealing import can_anneal
from hiddenbn.util import limits, seeding
from hiddenbn.util.defaults import (ACCELERATION, ANNEALING_SWEEPS, DEFAULT_MISSING_VALUES,
                                    OPTIMUM, PRIOR_ALPHA, SCHEDULE)


class NotFittedError(HiddenbnError, AttributeError):
    """A method that needs the fitted model was called before :meth:`LatentClassModel.fit`
    (a ValueError and an AttributeError, as scikit-learn's ``NotFittedError``)."""


class LatentClassModel:
    """The latent class model of categorical data, fitted by EM as ``hiddenbn fit`` fits it.

    Parameters
    ----------
    n_classes : int
        The number of classes, the states of the hidden variable.
    prior_alpha : float
        The symmetric Dirichlet prior of every probability table, at least 1 (default 1: the
        maximum likelihood fit, as poLCA and StepMix give).
    restarts : int, optional
        EM starts (default: the schedule's, 8 annealed starts).
    schedule : {"annealing", "halving", "best-of-n"}
        The restart schedule (see :func:`hiddenbn.fit`).
    sweeps : int
        Annealing sweeps over the cases per start.
    tolerance, convergence, max_iterations, run_all_iterations
        EM's stopping rule (see :func:`hiddenbn.fit`); by default EM runs to the optimum
        (an absolute change of the log-likelihood of at most 1e-10, as poLCA).
    acceleration : {"squarem", "none"}
        SQUAREM steps after the restart schedule, or plain EM.
    missing : {"model", "drop"}
        Sum missing cells out (missing at random), or drop the rows that have one from the
        fit.
    dictionary : dict, optional
        A data dictionary, ``{column: [category, ...]}``: each column's categories in order.
    missing_values : sequence of str
        The cells read as missing besides null and empty ones (default: pandas'
        ``na_values``, ``.`` and ``na``).
    random_state : int, numpy.random.RandomState, numpy.random.Generator or None
        The seed of the EM starts and of :meth:`sample`. The default, 0, is the command
        line's ``--seed``; None draws a seed from numpy's global random state, and a
        generator one from itself.

    Attributes
    ----------
    weights_ : ndarray of shape (n_classes,)
        The class sizes p(class).
    item_probabilities_ : list of ndarray of shape (n_classes, n_categories)
        Per column, p(category | class): a row per class, a column per category of
        ``categories_``.
    categories_ : list of ndarray
        Per column, its categories (text), in the order of the columns of
        ``item_probabilities_``: a data file's, a DataFrame's categories, or its whole
        numbers.
    log_likelihood_ : float
        The log-likelihood of the data at the fit.
    n_iter_ : int
        EM iterations of the final phase.
    converged_ : bool
        Whether EM met its stopping rule before ``max_iterations``.
    replicated_ : bool
        Whether more than one of EM's independent searches reached the best fit (a fit only
        one reached may not be the best there is: add restarts).
    n_features_in_ : int
        The number of columns (a ``count`` column of a DataFrame excepted).
    feature_names_in_ : ndarray of str
        The column names, when ``X`` was a DataFrame with names that are all text.
    network_ : hiddenbn.models.network.Network
        The fitted model as a network (a hidden root ``H1``, a child per column), for the
        rest of the library.

    Notes
    -----
    ``X`` is read as ``hiddenbn fit`` reads a data file (:func:`hiddenbn.read_data`): each
    column on its own, whole numbers as states from 1 (from 0 where a column has 0), labels
    sorted, a DataFrame's categorical columns in the order of their categories; null cells
    (NaN, None, ``pd.NA``) and pandas' default missing texts are missing, and a DataFrame's
    ``count`` column, if any, counts the cases of each row. An array's columns are named
    ``X1 .. Xn``. Methods after :meth:`fit` code ``X`` by the fitted categories, and refuse a
    category the fit did not see.

    :func:`hiddenbn.fit` gives the whole report of the same fit: every score, standard
    errors, G^2, entropy.

    Examples
    --------
    >>> import pandas as pd
    >>> from hiddenbn import LatentClassModel, sample
    >>> frame = sample("2:2,2,2,2,2", n=1000, seed=11)
    >>> model = LatentClassModel(n_classes=2).fit(frame)
    >>> model.weights_.round(3).tolist(), model.converged_, model.replicated_
    ([0.352, 0.648], True, True)
    >>> model.predict_proba(frame.head(2)).round(3).tolist()
    [[1.0, 0.0], [0.065, 0.935]]
    >>> round(model.score(frame), 4), round(model.bic(frame), 2)
    (-2.6837, 5443.41)
    >>> model.sample(3)[0].shape
    (3, 5)
    """

    def __init__(self, n_classes: int = 3, *, prior_alpha: float = PRIOR_ALPHA,
                 restarts: int | None = None, schedule: str = SCHEDULE,
                 sweeps: int = ANNEALING_SWEEPS, tolerance: float = OPTIMUM["tolerance"],
                 convergence: str = OPTIMUM["convergence"],
                 max_iterations: int = OPTIMUM["max_iterations"],
                 run_all_iterations: bool = OPTIMUM["run_all_iterations"],
                 acceleration: str = ACCELERATION, missing: str = "model", dictionary=None,
                 missing_values=DEFAULT_MISSING_VALUES, random_state=0):
        self.n_classes = n_classes
        self.prior_alpha = prior_alpha
        self.restarts = restarts
        self.schedule = schedule
        self.sweeps = sweeps
        self.tolerance = tolerance
        self.convergence = convergence
        self.max_iterations = max_iterations
        self.run_all_iterations = run_all_iterations
        self.acceleration = acceleration
        self.missing = missing
        self.dictionary = dictionary
        self.missing_values = missing_values
        self.random_state = random_state

    # --- scikit-learn's conventions -----------------------------------------------------------
    @classmethod
    def _parameter_names(cls) -> list:
        """The keywords of ``__init__``: the estimator's parameters, sorted."""
        return sorted(name for name in inspect.signature(cls.__init__).parameters
                      if name != "self")

    def get_params(self, deep: bool = True) -> dict:
        """The estimator's parameters, as scikit-learn's ``get_params``.

        Parameters
        ----------
        deep : bool
            Ignored: no parameter is an estimator.

        Returns
        -------
        dict
            ``{parameter: value}``.

        Examples
        --------
        >>> LatentClassModel(n_classes=4).get_params()["n_classes"]
        4
        """
        return {name: getattr(self, name) for name in self._parameter_names()}

    def set_params(self, **parameters) -> "LatentClassModel":
        """Set parameters, as scikit-learn's ``set_params``; the fit is not changed until
        :meth:`fit` runs again.

        Parameters
        ----------
        **parameters
            ``parameter=value`` for parameters of ``__init__``.

        Returns
        -------
        LatentClassModel
            The estimator itself.

        Examples
        --------
        >>> LatentClassModel().set_params(n_classes=2, random_state=5)
        LatentClassModel(n_classes=2, random_state=5)
        """
        valid = self._parameter_names()
        for name, value in parameters.items():
            if name not in valid:
                raise ValueError(f"Invalid parameter {name!r} for estimator {self!r}. Valid "
                                 f"parameters are: {valid!r}.")
            setattr(self, name, value)
        return self

    def __repr__(self) -> str:
        defaults = {name: parameter.default for name, parameter in
                    inspect.signature(type(self).__init__).parameters.items()}
        given = [f"{name}={value!r}" for name, value in self.get_params().items()
                 if not (value is defaults[name] or (type(value) is type(defaults[name])
                                                     and value == defaults[name]))]
        # n_classes first, as it is the one positional parameter
        given.sort(key=lambda text: not text.startswith("n_classes="))
        return f"{type(self).__name__}({', '.join(given)})"

    def __sklearn_tags__(self):
        """scikit-learn's tags (called by scikit-learn only, which is then importable): a
        density estimator of categorical data, missing values allowed, no target."""
        from sklearn.utils import InputTags, Tags, TargetTags

        return Tags(estimator_type="density_estimator", target_tags=TargetTags(required=False),
                    input_tags=InputTags(categorical=True, string=True, allow_nan=True))

    def __sklearn_is_fitted__(self) -> bool:
        return hasattr(self, "weights_")

    # --- fitting ------------------------------------------------------------------------------
    def fit(self, X, y=None) -> "LatentClassModel":
        """Fit the model to ``X`` by EM, as ``hiddenbn fit --classes K`` fits it.

        Parameters
        ----------
        X : pandas.DataFrame or array-like of shape (n_samples, n_features)
            The cases, a row each (see the Notes of the class).
        y : None
            Ignored (no target).

        Returns
        -------
        LatentClassModel
            The fitted estimator.

        Examples
        --------
        >>> LatentClassModel(n_classes=2).fit([[0, 0, 0], [1, 1, 1], [0, 1, 0]] * 20).n_iter_ > 0
        True
        """
        frame, named = self._frame(X, fitted=False)
        chosen = commands.model_of(classes=_classes(self.n_classes))
        table = commands.data_table(frame, self.dictionary, self.missing_values, self.missing)
        network, data_file = commands.bound_network(chosen, table)
        limits.check_network(network)
        data = data_file.dataset.for_network(network)
        searches = commands.starts(self.schedule, self.restarts)
        limits.check_em(network, data.n_cases, searches,
                        self.schedule == "annealing" and can_anneal(network))
        options = commands.em_options(self.schedule, self.sweeps, self.tolerance,
                                      self.convergence, self.max_iterations, self.acceleration,
                                      self.run_all_iterations)
        fit = selection.search(network, data, _seed(self.random_state), self.prior_alpha,
                               searches, **options)
        for note in data_file.notes:
            warnings.warn(note, UserWarning, stacklevel=2)
        if not fit.converged:
            warnings.warn(selection.stopped_by_cap(fit), UserWarning, stacklevel=2)
        self.network_ = network
        self.weights_ = np.array(fit.cpts[0][0])
        self.item_probabilities_ = [np.array(table) for table in fit.cpts[1:]]
        self.categories_ = [np.array(list(data.labels(j)), dtype=object)
                            for j in range(len(data.names))]
        self.log_likelihood_ = fit.log_likelihood
        self.n_iter_, self.converged_ = fit.iterations, fit.converged
        self.replicated_ = fit.replicated
        self.n_features_in_ = len(network.observed_names)
        if named:
            self.feature_names_in_ = np.array(network.observed_names, dtype=object)
        return self

    def fit_predict(self, X, y=None):
        """Fit the model to ``X`` and give each row's most probable class.

        Parameters
        ----------
        X : pandas.DataFrame or array-like of shape (n_samples, n_features)
        y : None
            Ignored.

        Returns
        -------
        ndarray of shape (n_samples,)
            Classes from 0.

        Examples
        --------
        >>> labels = LatentClassModel(2).fit_predict([["a", "x"], ["b", "y"]] * 20)
        >>> labels.tolist()[:4]
        [0, 1, 0, 1]
        """
        return self.fit(X, y).predict(X)

    # --- what the fit says of data ------------------------------------------------------------
    def predict_proba(self, X):
        """Each row's posterior class probabilities, p(class | row); a missing cell is summed
        out.

        Parameters
        ----------
        X : pandas.DataFrame or array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes)

        Examples
        --------
        >>> model = LatentClassModel(2).fit([[0, 0, 0], [1, 1, 1], [0, 0, 1]] * 30)
        >>> model.predict_proba([[0, 0, None], [1, 1, 1]]).round(2).tolist()
        [[1.0, 0.0], [0.0, 1.0]]
        """
        posterior, _, rows, _ = self._posteriors(X)
        return posterior[rows]

    def predict(self, X):
        """Each row's most probable class (from 0; a tie goes to the first).

        Parameters
        ----------
        X : pandas.DataFrame or array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)

        Examples
        --------
        >>> model = LatentClassModel(2).fit([[1, 1, 2], [2, 2, 2], [1, 1, 1]] * 30)
        >>> model.predict([[1, 1, 1], [2, 2, None]]).tolist()
        [0, 1]
        """
        return self.predict_proba(X).argmax(axis=1)

    def score_samples(self, X):
        """Each row's log-likelihood, log p(row) under the fit (a missing cell summed out).

        Parameters
        ----------
        X : pandas.DataFrame or array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)

        Examples
        --------
        >>> model = LatentClassModel(2).fit([["no", "no"], ["yes", "yes"]] * 10)
        >>> model.score_samples([["no", "no"], ["yes", None]]).round(4).tolist()
        [-0.6931, -0.6931]
        """
        _, log_marginal, rows, _ = self._posteriors(X)
        return log_marginal[rows]

    def score(self, X, y=None) -> float:
        """The mean log-likelihood per case, as scikit-learn's mixtures score.

        Parameters
        ----------
        X : pandas.DataFrame or array-like of shape (n_samples, n_features)
            The cases (a DataFrame's ``count`` column weighs its rows).
        y : None
            Ignored.

        Returns
        -------
        float

        Examples
        --------
        >>> X = [[0, 1, 1], [1, 0, 0], [0, 0, 0]] * 40
        >>> model = LatentClassModel(2).fit(X)
        >>> round(model.score(X) * len(X), 6) == round(model.log_likelihood_, 6)
        True
        """
        log_likelihood, n_cases = self._log_likelihood(X)
        return log_likelihood / n_cases

    def bic(self, X) -> float:
        """Schwarz's Bayesian information criterion on ``X``: -2 log L + d log N, smaller is
        better (``d``: the free parameters; ``N``: the cases).

        Parameters
        ----------
        X : pandas.DataFrame or array-like of shape (n_samples, n_features)

        Returns
        -------
        float

        Examples
        --------
        >>> import math
        >>> X = [[0, 1, 1], [1, 0, 0], [1, 1, 1], [0, 1, 0]] * 25
        >>> model = LatentClassModel(2).fit(X)  # 7 parameters, 100 cases
        >>> abs(model.bic(X) - (-2 * model.log_likelihood_ + 7 * math.log(100))) < 1e-9
        True
        """
        log_likelihood, n_cases = self._log_likelihood(X)
        return float(-2.0 * log_likelihood
                     + self.network_.standard_dimension * np.log(n_cases))

    def icl(self, X) -> float:
        """The integrated completed likelihood criterion on ``X`` (Biernacki, Celeux & Govaert
        2000): BIC + 2 E, with E the entropy of the class posteriors summed over the cases,
        smaller is better; ``-2`` times the ``icl_log_evidence`` of ``hiddenbn fit``
        (:mod:`hiddenbn.scores.integrated_completed_likelihood`).

        Parameters
        ----------
        X : pandas.DataFrame or array-like of shape (n_samples, n_features)

        Returns
        -------
        float

        Examples
        --------
        >>> import hiddenbn
        >>> frame = hiddenbn.sample("2:2,2,2,2", n=500, seed=1)
        >>> model = LatentClassModel(2).fit(frame)  # classes that overlap: ICL above BIC
        >>> round(model.bic(frame), 2), round(model.icl(frame), 2)
        (1687.02, 2204.77)
        """
        from hiddenbn.scores.lca_statistics import classification_entropy

        posterior, log_marginal, _, counts = self._posteriors(X)
        return float(-2.0 * (counts @ log_marginal)
                     + self.network_.standard_dimension * np.log(counts.sum())
                     + 2.0 * classification_entropy(posterior, counts))

    def aic(self, X) -> float:
        """Akaike's information criterion on ``X``: -2 log L + 2 d, smaller is better.

        Parameters
        ----------
        X : pandas.DataFrame or array-like of shape (n_samples, n_features)

        Returns
        -------
        float

        Examples
        --------
        >>> X = [[0, 1, 1], [1, 0, 0], [1, 1, 1], [0, 1, 0]] * 25
        >>> model = LatentClassModel(3).fit(X)  # 11 parameters
        >>> round(model.aic(X) - (-2 * model.log_likelihood_ + 2 * 11), 9)
        0.0
        """
        log_likelihood, _ = self._log_likelihood(X)
        return -2.0 * log_likelihood + 2.0 * self.network_.standard_dimension

    def sample(self, n_samples: int = 1):
        """Draw cases from the fitted model, as scikit-learn's mixtures sample.

        Parameters
        ----------
        n_samples : int
            The number of cases.

        Returns
        -------
        X : pandas.DataFrame or ndarray of shape (n_samples, n_features)
            The cases: a DataFrame with the fitted columns and categories if the model was
            fitted to a DataFrame; else an array of the fitted whole numbers, or of the
            labels where a column has any.
        y : ndarray of shape (n_samples,)
            The class of each case (from 0).

        Examples
        --------
        >>> model = LatentClassModel(2).fit([[1, 1, 1], [1, 1, 2], [2, 2, 2], [2, 2, 1]] * 25)
        >>> cases, classes = model.sample(4)
        >>> cases.shape, sorted(set(cases.ravel().tolist())), classes.shape
        ((4, 3), [1, 2], (4,))
        """
        from hiddenbn.data import rows_frame
        from hiddenbn.data.sampling import forward_sample

        self._require_fitted()
        limits.require_whole_number(n_samples, 1, "the number of samples")
        drawn = forward_sample(self.network_, self._tables(), n_samples,
                               seeding.rng(_seed(self.random_state), "sample"),
                               include_hidden=True)
        cases = rows_frame(self.network_.observed_names, drawn[:, 1:],
                           [_states(categories) for categories in self.categories_])
        return (cases if hasattr(self, "feature_names_in_") else cases.to_numpy()), drawn[:, 0]

    # --- reading X ----------------------------------------------------------------------------
    def _frame(self, X, fitted: bool) -> tuple:
        """``X`` as a DataFrame to read. Before the fit, with whether its columns are named
        (a DataFrame whose column names are all text; an array's are named ``X1 .. Xn``).
        After it, with the fitted columns, which ``X`` gives by name, or by position where
        names were not given at one end (as scikit-learn matches them, with its warnings)."""
        import pandas as pd

        if isinstance(X, pd.DataFrame):
            frame, named = X, all(isinstance(name, str) for name in X.columns)
            given = [name for name in X.columns if not (named and name == "count")]
        else:
            frame, named = _array_frame(X), False
            given = list(frame.columns)
        if not fitted:
            return frame, named
        self._require_fitted()
        expected = list(self.network_.observed_names)
        if len(given) != self.n_features_in_:
            raise ValueError(f"X has {len(given)} features, but {type(self).__name__} is "
                             f"expecting {self.n_features_in_} features as input.")
        fitted_named = hasattr(self, "feature_names_in_")
        if named and fitted_named:
            if given != expected:
                raise ValueError("The feature names should match those that were passed "
                                 f"during fit: {', '.join(expected)}; got {', '.join(given)}")
            return frame, expected
        if named or fitted_named:
            warnings.warn(f"X has feature names, but {type(self).__name__} was fitted without "
                          "feature names" if named else
                          f"X does not have valid feature names, but {type(self).__name__} "
                          "was fitted with feature names", UserWarning, stacklevel=3)
        return frame.rename(columns=dict(zip(given, expected))), expected

    def _posteriors(self, X) -> tuple:
        """The class posteriors and log-likelihoods of the distinct rows of ``X``, the
        distinct row of each row, and the count of each distinct row."""
        from hiddenbn.inference.latent_class import class_posteriors

        frame, names = self._frame(X, fitted=True)
        dictionary = {name: list(categories)
                      for name, categories in zip(self.network_.observed_names,
                                                  self.categories_)}
        read = commands.data_table(frame, dictionary, self.missing_values).data_file(names)
        every_case = read.every_case
        posterior, log_marginal = class_posteriors(self.network_, self._tables(),
                                                   every_case.patterns)
        return posterior, log_marginal, read.row_patterns, every_case.counts

    def _log_likelihood(self, X) -> tuple:
        """The log-likelihood of the cases of ``X`` and their number."""
        _, log_marginal, _, counts = self._posteriors(X)
        return float(counts @ log_marginal), int(counts.sum())

    def _tables(self) -> list:
        """The fit as the network's tables: p(class), then p(item | class) per item."""
        return [self.weights_[None, :], *self.item_probabilities_]

    def _require_fitted(self) -> None:
        if not self.__sklearn_is_fitted__():
            raise NotFittedError(f"this {type(self).__name__} is not fitted yet; call fit "
                                 "with the data first")


def _array_frame(X):
    """An array-like of cases as a DataFrame with columns ``X1 .. Xn``, refusing what is not
    a table of cells: a sparse matrix, complex numbers, infinities, a 1-D or 3-D array."""
    import pandas as pd

    if hasattr(X, "toarray") or type(X).__module__.startswith("scipy.sparse"):
        raise TypeError("a sparse matrix is not supported: a latent class model reads every "
                        "cell as a category; give a dense array or a DataFrame")
    array = np.asarray(X)
    if array.ndim != 2:
        raise ValueError(f"Expected a 2D array of cases x columns, got {array.ndim}D array "
                         "instead. Reshape your data either using array.reshape(-1, 1) if your "
                         "data has a single feature or array.reshape(1, -1) if it contains a "
                         "single sample.")
    for axis, what in enumerate(("sample", "feature")):  # scikit-learn's words
        if not array.shape[axis]:
            raise ValueError(f"X has 0 {what}(s) (shape={array.shape}) while a minimum of 1 is "
                             f"required: give at least one {('case', 'column')[axis]}")
    if array.dtype.kind == "c":
        raise ValueError("Complex data not supported: a latent class model reads categories; "
                         "give whole numbers or labels")
    if array.dtype.kind == "f" and np.isinf(array).any():
        raise ValueError("X holds an infinite number, which is no category; give whole "
                         "numbers or labels, and NaN for a missing cell")
    return pd.DataFrame(array, columns=[f"X{j + 1}" for j in range(array.shape[1])])


def _states(categories):
    """A column's fitted categories as :func:`hiddenbn.data.rows_frame` writes them: whole
    numbers where they are consecutive whole numbers (a column of numbers), else labels."""
    from hiddenbn.data import NumberedStates

    labels = [str(label) for label in categories]
    first = labels[0].lstrip("-")
    if first.isdigit() and labels == [str(int(labels[0]) + k) for k in range(len(labels))]:
        return NumberedStates(int(labels[0]), len(labels))
    return labels


def _classes(n_classes) -> int:
    """``n_classes`` checked to be a whole number of at least 1."""
    limits.require_whole_number(n_classes, 1, "the number of classes (n_classes)")
    return int(n_classes)


def _seed(random_state) -> int:
    """The integer seed of ``random_state`` (see :class:`LatentClassModel`)."""
    if random_state is None:
        return int(np.random.randint(np.iinfo(np.int32).max))
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(np.iinfo(np.int32).max))
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(np.iinfo(np.int32).max))
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool) \
            and random_state >= 0:
        return int(random_state)
    raise HiddenbnError(f"random_state must be a whole number of at least 0, None or a numpy "
                        f"random generator, got {random_state!r}")
