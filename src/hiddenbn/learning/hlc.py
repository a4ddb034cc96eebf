"""Hierarchical latent class (HLC) models: the search over their hidden cardinalities.

Kočka & Zhang (2002), paper 002 Sec. 6, keep the structure of an HLC model (a tree whose
observed nodes are its leaves) and search for the number of states of each hidden node:

* :func:`hill_climb` -- start with every hidden node binary (:func:`all_binary`); in each step
  try every hidden node with one state more (:func:`one_state_more`, regular models only,
  paper 002 Sec. 4) and move to the best of them if it raises the score; stop when none does.
* :func:`kl_bits` -- how close a fitted model comes to the generating one: ``KL(true ||
  fitted)`` in bits between their distributions of the observed variables (Table 2).

A model of the search is named by its hidden cardinalities, one per hidden node in network
order (:func:`hidden_cardinalities`, :func:`with_hidden_cardinalities`).
"""

from __future__ import annotations

import math

import numpy as np

from hiddenbn.dimension.effective import is_regular_hlc
from hiddenbn.models.network import Network


def hidden_cardinalities(network: Network) -> tuple[int, ...]:
    """The number of states of each hidden node, in network order."""
    return tuple(int(network.cardinalities[i]) for i in network.hidden_indices)


def with_hidden_cardinalities(network: Network, cardinalities) -> Network:
    """``network`` with its hidden nodes, in network order, given ``cardinalities`` states."""
    for i, states in zip(network.hidden_indices, cardinalities):
        network = network.with_cardinality(network.names[i], int(states))
    return network


def all_binary(network: Network) -> Network:
    """``network`` with every hidden node binary: the start of the paper 002 Sec. 6 climb."""
    return with_hidden_cardinalities(network, [2] * len(network.hidden_indices))


def one_state_more(network: Network, cardinalities) -> list[tuple[int, ...]]:
    """The moves of the climb from ``cardinalities``: one more state at one hidden node, in
    network order, leaving out those that make the model irregular.

    An irregular HLC model is equivalent to a smaller regular one (paper 002 Lemma 4.1), so
    the climb stays among the regular models.
    """
    current = tuple(cardinalities)
    moves = [current[:j] + (current[j] + 1,) + current[j + 1:] for j in range(len(current))]
    return [move for move in moves
            if is_regular_hlc(with_hidden_cardinalities(network, move))]


def hill_climb(start: Network, evaluate, score: str) -> tuple[tuple[int, ...], list]:
    """Paper 002 Sec. 6: the hidden cardinalities of ``start``'s structure by hill-climbing.

    Parameters
    ----------
    start : Network
        The structure, with the hidden cardinalities the climb starts from (the paper's:
        every hidden node binary, :func:`all_binary`).
    evaluate : callable
        ``evaluate(cardinalities)`` returns a mapping of score names to values for the model
        with those hidden cardinalities (:func:`with_hidden_cardinalities`). It is called
        once per candidate and step, so callers cache it: several climbs (one per score)
        share one data set's fits.
    score : str
        The key of the score this climb maximises.

    Returns
    -------
    final : tuple of int
        The hidden cardinalities where the climb stops.
    path : list of tuple of int
        Every model the climb moved through, ``start``'s first and ``final`` last.

    Notes
    -----
    Each step scores every move of :func:`one_state_more` and takes the highest (the first in
    network order on ties) if it is strictly above the current score; the climb stops when it
    is not, or when no move is left. States are only added, never removed.
    """
    # Steepest ascent as in learning.structure_search and ebnc.fitting, over another space
    # (hidden cardinalities, one state added per move) with the caller's cached scores; ties go
    # to the first move and any rise counts, as paper 002 Sec. 6 describes its search.
    current = hidden_cardinalities(start)
    path = [current]
    value = evaluate(current)[score]
    while True:
        candidates = [(evaluate(move)[score], move) for move in one_state_more(start, current)]
        if not candidates:
            return current, path
        best_value, best = max(candidates, key=lambda c: c[0])
        if not best_value > value:
            return current, path
        current, value = best, best_value
        path.append(current)


def kl_bits(true: np.ndarray, approximation: np.ndarray) -> float:
    """``KL(p || q) = sum_x p(x) log2(p(x) / q(x))`` in bits, paper 002's measure of fit.

    ``true`` (``p``) and ``approximation`` (``q``) are distributions over the same observed
    states, e.g. :func:`hiddenbn.models.network.observed_distribution` of the generating and of a
    fitted model, with their axes in the same order. States with ``p(x) = 0`` add nothing;
    the result is infinite when ``q(x) = 0 < p(x)``.
    """
    p, q = np.ravel(true), np.ravel(approximation)
    support = p > 0
    if np.any(q[support] <= 0):
        return math.inf
    return float(np.sum(p[support] * np.log2(p[support] / q[support])))
