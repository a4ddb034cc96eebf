"""Posterior class membership in a latent class model, exact with missing cells.

A latent class model (:func:`hiddenbn.models.network.latent_class`) has one hidden root ``H``
with ``k`` classes and the observed items as its children, so the posterior of ``H`` given a
pattern is a sum over ``k`` classes: ``p(h | x_p) = p(x_p, h) / p(x_p)`` with
``log p(x_p, h) = log p(h) + sum_{j observed in p} log p(x_pj | h)`` (:func:`class_log_joint`).
A missing cell (:data:`hiddenbn.data.MISSING`, missing at random) contributes ``log 1 = 0``:
the item is summed out. :func:`class_posteriors` gives them for any patterns,
:func:`pattern_posteriors` for the patterns of a data set under a fit; the latent class
analysis output (:mod:`hiddenbn.scores.lca_statistics`, :mod:`hiddenbn.reports.lca`) and the
split-and-merge moves of EM (:mod:`hiddenbn.learning.split_merge`) read them.
"""

from __future__ import annotations

import numpy as np
from scipy.special import logsumexp

from hiddenbn.data import MISSING, Dataset
from hiddenbn.errors import DataError, HiddenbnError, option
from hiddenbn.inference.enumeration import is_latent_class, state_offsets
from hiddenbn.models.network import Network, check_parameters

#: Patterns whose class log joints are computed at once: a block of (patterns, items, classes)
#: log probabilities (bounds the memory).
CHUNK_PATTERNS = 4096


def require_latent_class(network: Network) -> None:
    """Refuse a network that is not a latent class model."""
    if not is_latent_class(network):
        raise HiddenbnError("latent class output needs a latent class model (a hidden root "
                            "whose children are all the observed variables), e.g. "
                            f"{option('--model', '3:2,2,2')}")


def class_posteriors(network: Network, cpts, patterns) -> tuple[np.ndarray, np.ndarray]:
    """Posterior class membership of each pattern, exact with missing cells.

    ``log p(x_p, h) = log p(h) + sum_{j observed in p} log p(x_pj | h)`` and
    ``log p(x_p) = logsumexp_h log p(x_p, h)``; ``w_ph = exp(log p(x_p, h) - log p(x_p))``. A
    missing cell contributes ``log 1 = 0`` (the item is summed out). Computed in log space, so a
    zero probability only removes a class from a pattern's posterior.

    Parameters
    ----------
    network : Network
        A latent class model.
    cpts : list
        ``p(H)`` as a ``(1, k)`` table, then one ``(k, r_j)`` table per item.
    patterns : int array, shape (m, n)
        One column per item in network order, states ``0..r_j - 1`` or ``MISSING``.

    Returns
    -------
    posterior : ndarray, shape (m, k)
    log_marginal : ndarray, shape (m,)
        ``log p(x_p)``.
    """
    require_latent_class(network)
    cpts = check_parameters(network, cpts)
    patterns = np.asarray(patterns)
    n_items = network.n_nodes - 1
    if patterns.ndim != 2 or patterns.shape[1] != n_items:
        raise DataError(f"expected patterns with {n_items} columns (one per item), got shape "
                        f"{patterns.shape}")
    for j, table in enumerate(cpts[1:]):
        column = patterns[:, j]
        if column.size and not (column.min() >= MISSING and column.max() < table.shape[1]):
            raise DataError(f"column {network.names[j + 1]!r} has a state outside "
                            f"0..{table.shape[1] - 1} (or {MISSING} for a missing cell)")
    log_joint = class_log_joint(cpts, patterns)
    log_marginal = logsumexp(log_joint, axis=1)
    impossible = np.flatnonzero(~np.isfinite(log_marginal))
    if impossible.size:
        raise DataError(f"pattern {patterns[impossible[0]].tolist()} has probability zero under "
                        "the fitted model; it cannot be the data the model was fitted to")
    return np.exp(log_joint - log_marginal[:, None]), log_marginal


def class_log_joint(cpts, patterns) -> np.ndarray:
    """``log p(x_p, h)``, shape ``(m, k)``, for checked ``patterns``; ``-inf`` where zero.

    The items' log tables are stacked (:func:`packed_rows`, :func:`with_zero_row`), each cell
    picks its row, and ``log p(h)`` is added to their sum over the items; in blocks of
    :data:`CHUNK_PATTERNS` patterns.
    """
    cards = np.array([table.shape[1] for table in cpts[1:]], dtype=np.int64)
    rows = packed_rows(np.asarray(patterns), cards)
    with np.errstate(divide="ignore"):  # a zero probability (ML fits): log -inf, weight 0
        log_weights = np.log(cpts[0][0])
        log_table = with_zero_row(np.log(np.vstack([table.T for table in cpts[1:]])))
    log_joint = np.empty((rows.shape[0], log_weights.size))
    for start in range(0, rows.shape[0], CHUNK_PATTERNS):
        chunk = rows[start:start + CHUNK_PATTERNS]
        log_joint[start:start + chunk.shape[0]] = log_weights + log_table[chunk].sum(axis=1)
    return log_joint


def packed_rows(patterns, cards) -> np.ndarray:
    """Row of each cell in the items' tables stacked as one ``(sum r_j, k)`` table (item ``j``
    from :func:`~hiddenbn.inference.enumeration.state_offsets`), shape ``(m, n)``; a missing
    cell gets the row ``sum r_j`` just past them, which :func:`with_zero_row` reads as log 1."""
    rows = patterns.astype(np.int64) + state_offsets(cards)
    rows[patterns == MISSING] = np.sum(cards)
    return rows


def with_zero_row(log_table) -> np.ndarray:
    """``log_table`` and a last row of zeros: a missing cell's factor 1 (:func:`packed_rows`)."""
    return np.vstack([log_table, np.zeros((1, log_table.shape[1]))])


def modal_class(posterior) -> np.ndarray:
    """Index (from 0) of each row's most probable class; ties go to the first class."""
    return np.asarray(posterior).argmax(axis=1)


def pattern_posteriors(fit, data: Dataset) -> tuple[np.ndarray, np.ndarray]:
    """``(posterior (m, k), modal (m,))`` for the patterns of ``data`` in their own order.

    Columns are matched to the model's items by name; unlike ``data.for_network`` the patterns
    are never merged, so row ``p`` belongs to ``data.patterns[p]`` (and a row -> pattern map of
    the input file indexes the result directly).
    """
    missing = [name for name in fit.network.observed_names if name not in data.names]
    if missing:
        raise DataError(f"the data has no column {missing[0]!r}, an item of the model")
    order = [data.names.index(name) for name in fit.network.observed_names]
    posterior, _ = class_posteriors(fit.network, fit.cpts, data.patterns[:, order])
    return posterior, modal_class(posterior)
