"""What every paper's comparison uses: the paper's printed numbers, our tables beside them.

A paper's printed numbers live in ``workflow/resources/<paper>/`` (never in the code) and are
read by :func:`read_printed`; a number the paper prints as a formula in a size ``n`` ("2n",
"2^n", or in further named sizes) is written there as an integer expression and evaluated by
:func:`formula_value`, which accepts nothing but those names, integers and ``+ - * **``.
Tables are written twice (:func:`write_table`): as CSV for figures and as Markdown for reading.
How far an approximation's curve over the test models lies from a yardstick's, as model
averaging sees it, is :func:`posterior_weight_distance`. Two scores are compared over paired
data sets by :func:`signed_rank_p_value`,
whose smallest attainable value is :func:`smallest_p_value`.
"""

from __future__ import annotations

import ast
import operator
from pathlib import Path

import numpy as np
import pandas as pd
import yaml
from scipy import stats

from hiddenbn.errors import HiddenbnError
from hiddenbn.util.files import atomic_output, atomic_write_text
from hiddenbn.util.markdown import general_cell, pipe_table

#: How a structure whose figure is lost is marked in the outputs.
RECONSTRUCTED = "reconstructed from the text (the figure is lost; see docs/RECONSTRUCTIONS.md)"


def random_rank_reason(prime: int) -> str:
    """Why "no random parameter point reduced the Jacobian rank" is consistent by construction
    (:data:`~hiddenbn.experiments.reproduction.CONSTRUCTED`) when every point gives the generic
    rank; ``prime``: the modulus of the exact rank (:data:`hiddenbn.dimension.jacobian.PRIME`).
    """
    return ("an implementation check, not evidence about the paper's own runs: the rank falls "
            "below its generic value only on a proper algebraic subset of the parameters, which "
            "a random real point (the SVD rank) misses with probability 1 (Geiger, Heckerman & "
            "Meek 1996, Theorem 1) and a point drawn uniformly from F_p (the exact rank, "
            f"p = {prime}) hits with probability at most deg/p (Schwartz-Zippel), so every "
            "point gives the generic rank by construction; only a wrong Jacobian or rank "
            "computation falls short")


# --- the printed numbers ----------------------------------------------------------------------
def read_printed(path) -> dict:
    """The mapping of printed numbers in the YAML file ``path``
    (``workflow/resources/<paper>/dimensions.yaml``)."""
    path = Path(path)
    try:
        printed = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as error:
        raise HiddenbnError(f"printed numbers {path}: cannot be read ({error})") from None
    if not isinstance(printed, dict):
        raise HiddenbnError(f"printed numbers {path}: must be a mapping, got "
                            f"{type(printed).__name__}")
    return printed


#: The operators a printed formula may use.
OPERATORS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
             ast.Pow: operator.pow}
#: The largest exponent of a printed formula: papers' dimensions are far below 2^64, and a
#: mistyped huge power would hang the evaluation.
MAX_EXPONENT = 64


def formula_value(formula: str, n: int | None = None, **sizes: int) -> int:
    """The value at ``n`` of ``formula``, an integer expression in ``n`` as a paper prints one
    (``"n + 1"``, ``"2 * n"``, ``"2 ** n"``, ``"15"``); ``sizes`` gives further named sizes a
    formula may use (``k`` and ``b`` in ``"n * k * (b - 1) + k - 1"``).

    Only the name ``n``, the names in ``sizes``, integer literals and the binary operators
    ``+ - * **`` are accepted (the expression is walked, never given to ``eval``); anything else
    raises :class:`~hiddenbn.errors.HiddenbnError`, as does a formula in ``n`` when ``n`` is
    None.
    """
    try:
        tree = ast.parse(str(formula), mode="eval")
    except SyntaxError:
        raise HiddenbnError(f"printed formula {formula!r}: not an expression") from None
    return _evaluated(tree.body, formula, {"n": n, **sizes})


def _evaluated(node, formula, sizes):
    if isinstance(node, ast.Constant) and type(node.value) is int:  # bool is not a number here
        return node.value
    if isinstance(node, ast.Name) and node.id in sizes:
        if sizes[node.id] is None:
            raise HiddenbnError(f"printed formula {formula!r}: needs {node.id}, which has no "
                                "value here")
        return sizes[node.id]
    if isinstance(node, ast.BinOp) and type(node.op) in OPERATORS:
        left = _evaluated(node.left, formula, sizes)
        right = _evaluated(node.right, formula, sizes)
        if isinstance(node.op, ast.Pow) and not 0 <= right <= MAX_EXPONENT:
            raise HiddenbnError(f"printed formula {formula!r}: exponent {right} is outside "
                                f"0..{MAX_EXPONENT}")
        return OPERATORS[type(node.op)](left, right)
    names = ", ".join(sizes)
    raise HiddenbnError(f"printed formula {formula!r}: {ast.unparse(node)!r} is not allowed; "
                        f"use {names}, integers and + - * ** only")


def printed_rows(table: pd.DataFrame, column: str) -> list[dict]:
    """The rows of ``table`` that have a printed value in ``column``."""
    return table[table[column].notna()].to_dict("records")


def table_verdict(ours, printed, reason: str = "") -> str:
    """The ``verdict`` column of a table: ``not in paper``, ``same``, or ``DIFFERENT`` with the
    reason where it is known."""
    if printed is None:
        return "not in paper"
    return "same" if ours == printed else f"DIFFERENT: {reason}" if reason else "DIFFERENT"


def points_note(points: int) -> str:
    """How an effective dimension was taken, for the text beside a table."""
    return (f"(max over up to {points} random points; the rest are skipped once both ranks "
            "reach min(ds, dc))")


def rounded(value, digits: int = 1):
    """``value`` rounded for a table; None stays None (no SVD check was made)."""
    return None if value is None else round(float(value), digits)


# --- curves over the test models ------------------------------------------------------------
def shape_distance(score, gold) -> float:
    """The mean over the test models of ``|(s_k - max s) - (g_k - max g)|`` between the curves
    ``score`` and ``gold`` (arrays over the same test models, nats): how far one curve's shape
    departs from the other's. Every test model weighs alike, so the test models far below both
    maxima, where the errors run to hundreds of nats, weigh most; model averaging and selection
    look at the few near the maximum
    (:func:`posterior_weight_distance`)."""
    score, gold = np.asarray(score, float), np.asarray(gold, float)
    return float(np.mean(np.abs((score - score.max()) - (gold - gold.max()))))


def posterior_weight_distance(score, yardstick) -> float:
    """The total-variation distance between the posterior weights that ``score`` and
    ``yardstick`` (log marginal likelihoods, or approximations of them, one per test model)
    give the test models: what model averaging over them uses.

    With equal prior probability on the test models, a curve ``s`` gives test model ``k`` the
    weight ``w_k(s) = exp(s_k - max s) / sum_j exp(s_j - max s)``, and the distance is

    ``TV = 1/2 sum_k |w_k(score) - w_k(yardstick)|``,

    0 where both weigh the test models alike, 1 where they put all their weight on different
    ones. Unlike a mean over the test models of the curves' differences, test models far below
    both maxima weigh nothing. Only the test models where both curves are defined (finite)
    count, the weights renormalised over them (as a shape distance skips a score's undefined
    test models: Laplace's where its Hessian is not positive definite).

    Parameters
    ----------
    score, yardstick : array_like
        The two curves over the same test models, in nats; NaN where undefined.

    Returns
    -------
    float
        The distance in 0..1; NaN where no test model has both curves defined.
    """
    return float(posterior_weight_distances(score, [yardstick])[0])


def posterior_weight_distances(score, yardsticks) -> np.ndarray:
    """:func:`posterior_weight_distance` between ``score`` and each row of ``yardsticks`` at
    once (e.g. a yardstick redrawn within its noise), over the test models where ``score`` and
    every row are defined.

    Parameters
    ----------
    score : array_like
        One curve over the test models, in nats; NaN where undefined.
    yardsticks : array_like
        Curves over the same test models, one a row.

    Returns
    -------
    numpy.ndarray
        The distance to each row, in 0..1; NaN where no test model has every curve defined.
    """
    score, yardsticks = np.asarray(score, float), np.asarray(yardsticks, float)
    both = np.isfinite(score) & np.isfinite(yardsticks).all(axis=0)
    if not both.any():
        return np.full(len(yardsticks), np.nan)
    weights = [np.exp(curve - curve.max(axis=-1, keepdims=True))
               for curve in (score[both], yardsticks[:, both])]
    weights = [weight / weight.sum(axis=-1, keepdims=True) for weight in weights]
    return 0.5 * np.abs(weights[0] - weights[1]).sum(axis=-1)


# --- writing ------------------------------------------------------------------------------------
# --- paired comparisons ---------------------------------------------------------------------
def signed_rank_p_value(differences, alternative: str = "two-sided") -> float:
    """The Wilcoxon signed-rank p-value of paired ``differences`` (one per data set or unit):
    the pairs where either side is undefined (NaN) are dropped, and so are zero differences
    (they favour neither side); 1 where no nonzero difference is left, since nothing tells the
    two apart.

    Parameters
    ----------
    differences : array_like
        The paired differences ``a - b``.
    alternative : {"two-sided", "less", "greater"}
        As for :func:`scipy.stats.wilcoxon`: "less" tests that the differences lie below 0.

    Returns
    -------
    float
        The p-value.
    """
    differences = np.asarray(differences, float)
    differences = differences[np.isfinite(differences) & (differences != 0)]
    if not len(differences):
        return 1.0
    return float(stats.wilcoxon(differences, alternative=alternative).pvalue)


def smallest_p_value(pairs: int) -> float:
    """The smallest two-sided p-value an exact Wilcoxon signed-rank test
    (:func:`signed_rank_p_value`) of ``pairs`` nonzero paired differences can give,
    ``2 / 2^pairs`` (every difference of one sign): at or above a level the test cannot tell
    the two sides apart at that level, whatever the data (five pairs give 0.0625)."""
    return 2 * 0.5 ** pairs


def markdown(table: pd.DataFrame) -> str:
    """``table`` as a Markdown table, missing values left blank; a '|' inside a cell (``|H|``,
    ``p(D|S)``) is escaped so that it does not split the cell."""
    return pipe_table(table, lambda value: general_cell(value).replace("|", "\\|"))


def write_table(table: pd.DataFrame, stem) -> None:
    """Write ``table`` as ``stem.csv`` (tidy, for figures) and ``stem.md`` (for reading)."""
    stem = Path(stem)
    with atomic_output(stem.with_suffix(".csv")) as temporary:
        table.to_csv(temporary, index=False)
    atomic_write_text(stem.with_suffix(".md"), markdown(table) + "\n")
