"""The Dirichlet prior of a network's CPT rows, and complete data under it.

Every CPT row ``theta_ij`` of a stochastic node has an independent symmetric Dirichlet(alpha)
prior (paper 003 Eq. 3; ``alpha = 1`` is uniform, and MAP under it is ML). With complete data,
or with the expected counts ``E(N_ijk)`` of an EM fit standing in for them, everything follows
from the counts ``N_ijk`` in closed form:

* :func:`dirichlet_log_density` -- ``log p(theta)`` (:func:`dirichlet_log_normalizer` its
  constant);
* :func:`map_update` -- the MAP (ML for ``alpha = 1``) M step below paper 003 Eq. 11, for the
  ``alpha`` that :func:`check_alpha` accepts;
* :func:`bd_log_marginal` -- paper 003 Eq. 5 (Cooper-Herskovits), the marginal likelihood of
  complete data, node by node (:func:`bd_node_term`); MLED (Eq. 12) is Eq. 5 at the expected
  counts;
* :func:`bdeu_log_marginal` -- Eq. 5 under the BDeu prior, ``alpha_ijk = ESS / (q_i r_i)``;
* :func:`complete_log_likelihood` -- ``log p(D' | theta)`` of (expected) complete data ``D'``.

The counts of a complete data set are :func:`hiddenbn.scores.exact.complete_data_counts`.
"""

from __future__ import annotations

import numpy as np
from scipy.special import gammaln, xlogy

from hiddenbn.errors import ParameterError, option
from hiddenbn.models.network import Network
from hiddenbn.util import limits


def dirichlet_log_normalizer(network: Network, alpha: float) -> float:
    """``sum_ij log Gamma(r_i alpha) - r_i log Gamma(alpha)``: the constant of the prior."""
    return float(sum(network.n_parent_configurations(i)
                     * (gammaln(network.cardinalities[i] * alpha)
                        - network.cardinalities[i] * gammaln(alpha))
                     for i in range(network.n_nodes) if not network.is_deterministic(i)))


def dirichlet_log_density(network: Network, cpts, alpha: float) -> float:
    """``log p(theta)`` for independent symmetric Dirichlet(alpha) rows (paper 003 Eq. 3).

    A density over the free parameters (each row without its last entry), the coordinates of
    :func:`hiddenbn.scores.approximations.negative_hessian`, so Eq. 8 combines the two
    consistently.
    """
    return dirichlet_log_normalizer(network, alpha) + sum(
        float(xlogy(alpha - 1.0, table).sum()) for table in cpts if table is not None)


def map_update(expected, totals, states, previous, alpha: float):
    """The MAP (or, for ``alpha = 1``, ML) M step of paper 003, elementwise.

    ``totals`` are the row sums ``E(N_ij)`` and ``states`` the row lengths ``r_i``, both
    broadcast against ``expected``. Rows whose denominator is not positive (no expected data and
    ``alpha = 1``) keep ``previous``.
    """
    denominator = totals + states * (alpha - 1.0)
    empty = denominator <= 0
    with np.errstate(divide="ignore", invalid="ignore"):
        updated = (expected + (alpha - 1.0)) / denominator
    return np.where(empty, previous, updated)


def check_alpha(alpha: float) -> None:
    """Refuse a Dirichlet parameter the MAP update cannot use: below 1 the mode of a row with
    a zero count is on the boundary, and the update of paper 003 gives a negative value."""
    if not alpha >= 1.0:
        raise ParameterError(f"the MAP M step needs a Dirichlet alpha of at least 1 (1 gives ML), "
                             f"got {alpha}; give an alpha ({option('--prior-alpha')}) of 1 or more")
    limits.check_dirichlet_alpha(alpha, ParameterError)


def bd_log_marginal(network: Network, counts, alpha: float) -> float:
    """Paper 003 Eq. 5 (Cooper & Herskovits): ``log p(D | S)`` for complete data.

    ``counts`` are ``N_ijk`` (or expected counts, giving MLED, Eq. 12) as one ``(q_i, r_i)``
    array per node; deterministic nodes (no parameters) are skipped. ``alpha_ijk = alpha``.
    """
    return float(sum(bd_node_term(np.asarray(n, dtype=float), alpha)
                     for i, n in enumerate(counts) if not network.is_deterministic(i)))


def bdeu_log_marginal(network: Network, counts, equivalent_sample_size: float) -> float:
    """Paper 003 Eq. 5 under the BDeu prior (Heckerman, Geiger & Chickering 1995):
    ``alpha_ijk = ess / (q_i r_i)`` for node ``i`` with ``q_i`` parent configurations and ``r_i``
    states, so the prior holds ``ess`` cases in every node's table however many parameters it
    has. Unlike a symmetric ``alpha_ijk``, it gives Markov-equivalent structures the same
    score. ``counts`` as for :func:`bd_log_marginal`.

    Examples
    --------
    >>> from hiddenbn.models.spec import parse_spec
    >>> x_to_y = parse_spec({"nodes": {"X": {"states": 2}, "Y": {"states": 3,
    ...                                                          "parents": ["X"]}}})
    >>> y_to_x = parse_spec({"nodes": {"Y": {"states": 3}, "X": {"states": 2,
    ...                                                          "parents": ["Y"]}}})
    >>> joint = np.array([[5.0, 1.0, 2.0], [0.0, 4.0, 3.0]])  # N(x, y)
    >>> one = bdeu_log_marginal(x_to_y, [joint.sum(axis=1)[None, :], joint], 10.0)
    >>> other = bdeu_log_marginal(y_to_x, [joint.sum(axis=0)[None, :], joint.T], 10.0)
    >>> bool(np.isclose(one, other))
    True
    """
    if not equivalent_sample_size > 0:
        raise ParameterError(f"the BDeu equivalent sample size must be positive, got "
                             f"{equivalent_sample_size}")
    return float(sum(bd_node_term(table, equivalent_sample_size / table.size)
                     for i, n in enumerate(counts) if not network.is_deterministic(i)
                     for table in [np.asarray(n, dtype=float)]))


def bd_node_term(counts, alpha: float):
    """One node's factor of Eq. 5 in logs; ``counts`` has shape ``(..., q_i, r_i)``."""
    r = counts.shape[-1]
    return (np.sum(gammaln(r * alpha) - gammaln(r * alpha + counts.sum(axis=-1)), axis=-1)
            + np.sum(gammaln(alpha + counts) - gammaln(alpha), axis=(-2, -1)))


def complete_log_likelihood(cpts, counts) -> float:
    """``log p(D' | theta) = sum_ijk N_ijk log theta_ijk`` for (expected) complete data D'."""
    return float(sum(xlogy(n, t).sum() for t, n in zip(cpts, counts) if t is not None))
