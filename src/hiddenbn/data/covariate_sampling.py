"""Latent class data with covariates: covariates drawn, the class from a multinomial logit of
them, the items from the class's response probabilities.

A latent class regression model (Dayton & Macready 1988; Vermunt 2010) has covariates
``z_i``, a class ``x_i`` in ``1..K`` with

    P(x_i = k | z_i) = exp(z_i' beta_k) / sum_l exp(z_i' beta_l),   beta_1 = 0,

and items independent given the class, ``P(y_ij = r | x_i = k) = item_tables[j][k, r]``.
:class:`LatentClassRegressionModel` holds one and draws cases from it
(:meth:`~LatentClassRegressionModel.sample`) from a seeded ``numpy.random.Generator``, as the
rest of :mod:`hiddenbn.data.sampling` does. The design row ``z_i`` is a one, then each
covariate in order: a numeric one as its value, a categorical one as the indicators of its
levels after the first (the reference level).

:func:`bakk_tekle_vermunt_model` is the simulation setting of Bakk, Tekle & Vermunt (2013):
three classes, six binary items, a covariate uniform on 1..5.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from hiddenbn.data.dataset import rows_frame
from hiddenbn.data.sampling import blank_cells
from hiddenbn.errors import ParameterError


@dataclasses.dataclass(frozen=True)
class NormalCovariate:
    """A numeric covariate drawn from Normal(``mean``, ``sd``)."""

    name: str
    mean: float = 0.0
    sd: float = 1.0

    def draw(self, n_cases: int, rng: np.random.Generator):
        return rng.normal(self.mean, self.sd, n_cases)


@dataclasses.dataclass(frozen=True)
class UniformIntegerCovariate:
    """A numeric covariate uniform on the whole numbers ``low..high`` (both included), as
    the five-category covariate of Bakk, Tekle & Vermunt (2013) on 1..5."""

    name: str
    low: int
    high: int

    def draw(self, n_cases: int, rng: np.random.Generator):
        return rng.integers(self.low, self.high + 1, n_cases)


@dataclasses.dataclass(frozen=True)
class CategoricalCovariate:
    """A categorical covariate: ``levels`` drawn with ``probabilities`` (default: equal); the
    design codes it by indicators of the levels after the first, the reference."""

    name: str
    levels: tuple
    probabilities: tuple | None = None

    def draw(self, n_cases: int, rng: np.random.Generator):
        levels = np.array(self.levels, dtype=object)
        return levels[rng.choice(len(self.levels), n_cases, p=self.probabilities)]


@dataclasses.dataclass(frozen=True)
class CovariateSample:
    """Cases drawn from a :class:`LatentClassRegressionModel`.

    ``frame`` holds one row per case: the covariates, then the items as states ``0..r-1``
    (pandas' nullable integers where a cell is missing), as :func:`hiddenbn.data.read_data`
    reads them. ``classes`` are the drawn classes (0 for class 1), ``design`` the design
    matrix (a first column of ones) with its column names ``design_names``.
    """

    frame: object
    classes: np.ndarray
    design: np.ndarray
    design_names: tuple


@dataclasses.dataclass(frozen=True)
class LatentClassRegressionModel:
    """A latent class model whose class membership is a multinomial logit of covariates.

    Parameters
    ----------
    covariates : tuple
        :class:`NormalCovariate`, :class:`UniformIntegerCovariate` or
        :class:`CategoricalCovariate`, in design order.
    coefficients : ndarray, shape (p, K)
        The logit coefficients ``beta_k``, one column per class, rows in
        :attr:`design_names` order; column 0 (class 1, the reference) is zero.
    item_tables : tuple of ndarray
        One ``(K, r_j)`` table per item, ``P(y_j = r | x = k)`` in row ``k``: the items'
        CPTs of the latent class network :func:`hiddenbn.models.network.latent_class`.
    item_names : tuple of str, optional
        The items' column names (default ``X1, X2, ...``).

    Examples
    --------
    >>> import numpy as np
    >>> model = LatentClassRegressionModel(
    ...     (NormalCovariate("age", 40, 10), CategoricalCovariate("sex", ("F", "M"))),
    ...     np.array([[0.0, -2.0], [0.0, 0.05], [0.0, 0.5]]),
    ...     (np.array([[0.9, 0.1], [0.2, 0.8]]),) * 4)
    >>> model.design_names
    ('(intercept)', 'age', 'sex=M')
    >>> sample = model.sample(5, np.random.default_rng(0))
    >>> sample.frame.columns.tolist(), sample.classes.shape
    (['age', 'sex', 'X1', 'X2', 'X3', 'X4'], (5,))
    """

    covariates: tuple
    coefficients: np.ndarray
    item_tables: tuple
    item_names: tuple | None = None

    def __post_init__(self):
        coefficients = np.asarray(self.coefficients, dtype=float)
        names = self.design_names
        if coefficients.ndim != 2 or coefficients.shape[0] != len(names) \
                or coefficients.shape[1] < 2:
            raise ParameterError(f"the coefficients must be a {len(names)} x K matrix (a row "
                                 f"per design column {', '.join(names)}; K >= 2 classes), got "
                                 f"shape {coefficients.shape}")
        if not (np.isfinite(coefficients).all() and (coefficients[:, 0] == 0).all()):
            raise ParameterError("the coefficients must be finite with column 0 all zero (class "
                                 "1 is the reference); subtract column 0 from every column")
        classes = coefficients.shape[1]
        tables = tuple(np.asarray(table, dtype=float) for table in self.item_tables)
        for j, table in enumerate(tables):
            if table.ndim != 2 or table.shape[0] != classes or table.shape[1] < 2 \
                    or (table < 0).any() or not np.allclose(table.sum(axis=1), 1.0):
                raise ParameterError(f"item table {j + 1} must be {classes} x r (r >= 2) with "
                                     "rows of probabilities summing to 1")
        item_names = (tuple(f"X{j + 1}" for j in range(len(tables)))
                      if self.item_names is None else tuple(self.item_names))
        if not tables or len(item_names) != len(tables):
            raise ParameterError("give at least one item table, and one name per item")
        clash = set(item_names) & {c.name for c in self.covariates}
        if clash or len({c.name for c in self.covariates}) != len(self.covariates):
            raise ParameterError("the covariates and items need distinct names")
        object.__setattr__(self, "coefficients", coefficients)
        object.__setattr__(self, "item_tables", tables)
        object.__setattr__(self, "item_names", item_names)

    @property
    def n_classes(self) -> int:
        return self.coefficients.shape[1]

    @property
    def design_names(self) -> tuple:
        """The design's column names in order: ``(intercept)``, then a numeric covariate's
        name, or ``name=level`` for each level of a categorical one but the first."""
        names = ["(intercept)"]
        for covariate in self.covariates:
            if isinstance(covariate, CategoricalCovariate):
                names += [f"{covariate.name}={level}" for level in covariate.levels[1:]]
            else:
                names.append(covariate.name)
        return tuple(names)

    def design(self, values) -> np.ndarray:
        """The design matrix of covariate ``values`` (one array per covariate, in order)."""
        columns = [np.ones(len(values[0]) if values else 0)]
        for covariate, column in zip(self.covariates, values):
            if isinstance(covariate, CategoricalCovariate):
                column = np.asarray(column, dtype=object)
                columns += [(column == level).astype(float) for level in covariate.levels[1:]]
            else:
                columns.append(np.asarray(column, dtype=float))
        return np.column_stack(columns)

    def class_probabilities(self, design) -> np.ndarray:
        """``P(x = k | z)``, shape ``(n, K)``: the softmax of ``design @ coefficients``."""
        from scipy.special import softmax

        return softmax(np.asarray(design, dtype=float) @ self.coefficients, axis=1)

    def class_order(self, item_tables) -> np.ndarray:
        """Which class of a fitted model is each of this model's classes: the matching of the
        fitted ``item_tables`` (``(K, r_j)`` each, in this model's item order) to these that
        minimises the total absolute difference of the response probabilities (the
        assignment problem; a fit's classes are this model's up to their order).
        ``posteriors[:, order]`` puts a fit's columns in this model's class order."""
        from scipy.optimize import linear_sum_assignment

        cost = sum(np.abs(mine[:, None, :] - np.asarray(theirs)[None, :, :]).sum(axis=2)
                   for mine, theirs in zip(self.item_tables, item_tables))
        return linear_sum_assignment(cost)[1]

    def sample(self, n_cases: int, rng: np.random.Generator,
               missing_rate: float = 0.0) -> CovariateSample:
        """Draw ``n_cases`` cases: the covariates, each case's class from its
        :meth:`class_probabilities`, then each item from its table's row of that class; item
        cells then missing completely at random at ``missing_rate``
        (:func:`hiddenbn.data.sampling.blank_cells`). All draws come from ``rng``, in that
        order."""
        import pandas as pd

        if isinstance(n_cases, bool) or not isinstance(n_cases, (int, np.integer)) \
                or n_cases < 1:
            raise ParameterError(f"the number of cases must be a positive whole number, got "
                                 f"{n_cases!r}")
        values = [covariate.draw(n_cases, rng) for covariate in self.covariates]
        design = self.design(values)
        classes = inverse_cdf(self.class_probabilities(design), rng.random(n_cases))
        uniforms = rng.random((n_cases, len(self.item_tables)))
        rows = np.column_stack([inverse_cdf(table[classes], uniforms[:, j])
                                for j, table in enumerate(self.item_tables)]).astype(np.int32)
        rows = blank_cells(rows, missing_rate, rng)
        # a categorical covariate as pandas' categorical, whose first category the design
        # (hiddenbn.regression.covariates) takes as the reference level, as here
        covariates = {c.name: pd.Categorical(v, categories=c.levels)
                      if isinstance(c, CategoricalCovariate) else v
                      for c, v in zip(self.covariates, values)}
        frame = pd.concat([pd.DataFrame(covariates), rows_frame(self.item_names, rows)], axis=1)
        return CovariateSample(frame, classes, design, self.design_names)


def inverse_cdf(probabilities, uniforms) -> np.ndarray:
    """Row ``i``'s state whose cumulative probability first exceeds ``uniforms[i]``."""
    cdf = np.cumsum(probabilities, axis=1)
    cdf[:, -1] = 1.0  # rounding must never leave a uniform without a state
    return (uniforms[:, None] >= cdf).sum(axis=1)


def bakk_tekle_vermunt_model(response_probability: float) -> LatentClassRegressionModel:
    """The simulation setting of Bakk, Tekle & Vermunt (2013) at one class separation.

    Three classes and six binary items: class 1 answers every item "1" (state 1) with
    probability ``response_probability``, class 2 the first three items, class 3 none (each
    otherwise with ``1 - response_probability``); 0.9, 0.8 and 0.7 give the paper's high,
    medium and low separation. A covariate ``Z`` uniform on 1..5 enters the logit with slope
    -1 for class 2 and +1 for class 3 against class 1; the intercepts make the three classes
    equally large on average over ``Z`` (:func:`equal_size_intercepts`).
    """
    if not 0.5 < response_probability < 1.0:
        raise ParameterError(f"the response probability must be above 0.5 and below 1, got "
                             f"{response_probability}")
    high, low = response_probability, 1.0 - response_probability
    first_three = [[low, high], [low, high], [low, high]]
    item_tables = [np.array([[low, high], row, [high, low]])
                   for row in first_three + [[high, low]] * 3]
    covariate = UniformIntegerCovariate("Z", 1, 5)
    slopes = np.array([0.0, -1.0, 1.0])
    intercepts = equal_size_intercepts(slopes, np.arange(1, 6))
    return LatentClassRegressionModel((covariate,), np.vstack([intercepts, slopes]),
                                      tuple(item_tables))


def equal_size_intercepts(slopes, support) -> np.ndarray:
    """Intercepts (class 1's zero) with which a logit of one covariate uniform on ``support``
    and ``slopes`` gives every class the mean probability ``1 / K`` over the support."""
    from scipy.optimize import root
    from scipy.special import softmax

    slopes = np.asarray(slopes, dtype=float)
    support = np.asarray(support, dtype=float)

    def excess(free):
        intercepts = np.concatenate([[0.0], free])
        mean = softmax(intercepts + np.outer(support, slopes), axis=1).mean(axis=0)
        return mean[1:] - 1.0 / slopes.size

    solution = root(excess, np.zeros(slopes.size - 1), tol=1e-14)
    return np.concatenate([[0.0], solution.x])
