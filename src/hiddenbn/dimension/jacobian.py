"""Analytic Jacobians of the map from network parameters to the observed distribution.

Geiger, Heckerman & Meek (paper 000, Sec. 4) define the effective dimension of a network with
hidden variables as the generic rank of the Jacobian of the map ``g: theta -> W`` from the
network parameters to the parameters of the observed distribution. This module evaluates that
Jacobian, row block by row block, at a given parameter point, either in floating point or
exactly over the prime field ``F_p`` (for the rank test of :mod:`hiddenbn.dimension.rank`):

discrete networks (paper 000 Sec. 5, paper 002 Sec. 2.4, paper 004 Sec. 5)
    ``W`` = the probabilities of all observed configurations; ``theta`` = the free parameters
    (every CPT row without its last entry, :func:`hiddenbn.models.network.free_parameters`).
    Deterministic ``max``/``sum`` nodes contribute their 0/1 tables and no parameters.
sigmoid networks (paper 000 Sec. 8)
    ``p(x_i = 1 | pa_i) = Sig(a_i + sum_j b_ji x_j)``; ``theta`` = ``(a_i, b_ji)`` node by node.
linear-Gaussian networks (paper 000 Sec. 7)
    ``W`` = the observed means and the upper triangle of the observed covariance;
    ``theta`` = ``(m_i, b_ji..., v_i)`` node by node (mean, one weight per parent, variance).

How the discrete Jacobian is formed without building what is not needed
-----------------------------------------------------------------------
``P(o) = sum_h prod_i t_i(x_i | pa_i)`` is multilinear in the table entries ``t``, so
``dP(o)/dt_ie`` is the same sum with factor ``i`` left out (a leave-one-out product, formed
with prefix and suffix products so that zero entries and modular arithmetic need no division).
The numba kernel enumerates, for one block of observed configurations, every hidden
configuration, and accumulates these leave-one-out products into a ``(block, T)`` matrix over
the ``T`` table entries; a sparse "chain" matrix (``dt/dtheta``) then maps it to the
``(block, ds)`` Jacobian block. Only one block lives in memory at a time (about
``BLOCK_ENTRIES`` numbers) and the rank routines keep ``O(ds^2)`` beside it, never the
``|O| x ds`` Jacobian. Rows can be read in a pseudo-random order, so both ranks stop after
about ``ds`` rows once they reach a known bound (``min(ds, dc)``). The latent class model
20:2x16 (65,536 observed states, 339 parameters) is ranked in about 0.5 s with a 21 MiB peak
(``benchmarks/bench_dimension.py``; its dense Jacobian alone would take 170 MiB). A model whose
rank stays below the bound reads every row: time is then proportional to (observed
configurations) x (hidden configurations) x (nodes) plus ``|O| ds^2`` for the ranks.

Exact arithmetic
----------------
Over ``F_p`` (``p = PRIME``, below ``2^31`` so a product of two residues fits in int64) the
discrete map is polynomial in the free parameters. The sigmoid map is rational in
``alpha_i = exp(-a_i)`` and ``beta_ji = exp(-b_ji)``; the columns we form, ``s(1-s)`` and
``x_j s(1-s)``, are the ``alpha``/``beta`` derivatives times the non-zero factors ``-alpha_i``
and ``-beta_ji``, so they have the same rank. The Gaussian map is polynomial because
``(I - B)^-1 = I + B + B^2 + ...`` for a DAG. A random point of ``F_p`` therefore gives the
generic rank except with probability at most ``deg / p`` (Schwartz-Zippel), and never more.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, replace

import numba
import numpy as np

from hiddenbn.errors import HiddenbnError
from hiddenbn.models.network import (Network, check_parameters, deterministic_table, node_tables,
                                     observed_distribution)
from hiddenbn.util.limits import approximately

#: The prime of the exact rank test: the largest prime below 2^31.
PRIME = 2_147_483_647
#: Numbers in one block of the entry Jacobian; bounds the memory of the discrete path.
BLOCK_ENTRIES = 2**20
#: Largest (observed configurations x hidden configurations) the discrete path enumerates.
MAX_JOINT_CONFIGURATIONS = 2**31


# --- the structure of a discrete or sigmoid network, flattened for the kernel ----------------
@dataclass(frozen=True)
class _Layout:
    cards: np.ndarray          # (n,) states per node
    observed: np.ndarray       # observed node indices, network order
    hidden: np.ndarray         # hidden node indices
    parent_ptr: np.ndarray     # CSR of parents
    parent_idx: np.ndarray
    offsets: np.ndarray        # (n,) start of node i's table in the flat entry vector
    n_entries: int
    n_observed_configs: int
    n_hidden_configs: int


def _layout(network: Network) -> _Layout:
    cards = np.asarray(network.cardinalities, dtype=np.int64)
    sizes = [network.n_parent_configurations(i) * cards[i] for i in range(network.n_nodes)]
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    ptr = np.concatenate([[0], np.cumsum([len(p) for p in network.parents])]).astype(np.int64)
    idx = np.array([p for pa in network.parents for p in pa], dtype=np.int64)
    observed = np.asarray(network.observed_indices, dtype=np.int64)
    hidden = np.asarray(network.hidden_indices, dtype=np.int64)
    n_obs = int(np.prod(cards[observed], dtype=np.float64))
    n_hid = int(np.prod(cards[hidden], dtype=np.float64))
    return _Layout(cards, observed, hidden, ptr, idx, offsets, int(sum(sizes)), n_obs, n_hid)


def check_enumerable(network: Network) -> None:
    """Raise a one-line :class:`HiddenbnError` if the discrete path cannot enumerate the model."""
    # Python ints: a chain of thousands of hidden nodes overflows floats
    observed = math.prod(int(network.cardinalities[i]) for i in network.observed_indices)
    hidden = math.prod(int(network.cardinalities[i]) for i in network.hidden_indices)
    if observed * hidden > MAX_JOINT_CONFIGURATIONS:
        raise HiddenbnError(
            f"the Jacobian of this network needs {approximately(observed)} observed x "
            f"{approximately(hidden)} hidden "
            f"configurations (limit {MAX_JOINT_CONFIGURATIONS:.3g}); instead use the "
            "Kocka-Zhang bound db for a latent class model, the HLC decomposition for a "
            "hierarchical latent class model, or a model with fewer observed states")


@numba.njit(cache=True)
def _mulmod(a, b, modulus):
    if modulus > 0:
        return (a * b) % modulus
    return a * b


@numba.njit(cache=True)
def _addmod(a, b, modulus):
    if modulus > 0:
        return (a + b) % modulus
    return a + b


@numba.njit(cache=True)
def _entry_jacobian_block(cards, observed, hidden, parent_ptr, parent_idx, offsets, values,
                          row_start, multiplier, offset, modulus, out):
    """Rows ``o_r = (multiplier (row_start + r) + offset) mod |O|`` of ``dP(o)/dt``, for every
    table entry ``t`` (``multiplier`` coprime to ``|O|``: a permutation of the rows).

    ``values`` holds every table (deterministic ones too) flattened; arithmetic is modulo
    ``modulus`` when it is positive (then ``values`` are int64 residues) and real otherwise.
    """
    n = cards.shape[0]
    x = np.zeros(n, dtype=np.int64)
    entry = np.zeros(n, dtype=np.int64)
    factor = np.zeros(n, dtype=values.dtype)
    prefix = np.zeros(n + 1, dtype=values.dtype)
    n_hidden = 1
    for k in range(hidden.shape[0]):
        n_hidden *= cards[hidden[k]]
    n_observed = 1
    for k in range(observed.shape[0]):
        n_observed *= cards[observed[k]]
    for r in range(out.shape[0]):
        rest = (multiplier * (row_start + r) + offset) % n_observed
        for k in range(observed.shape[0] - 1, -1, -1):  # C order: last observed varies fastest
            node = observed[k]
            x[node] = rest % cards[node]
            rest //= cards[node]
        for h in range(n_hidden):
            rest = h
            for k in range(hidden.shape[0] - 1, -1, -1):
                node = hidden[k]
                x[node] = rest % cards[node]
                rest //= cards[node]
            prefix[0] = 1
            for i in range(n):
                config = 0
                for e in range(parent_ptr[i], parent_ptr[i + 1]):
                    config = config * cards[parent_idx[e]] + x[parent_idx[e]]
                entry[i] = offsets[i] + config * cards[i] + x[i]
                factor[i] = values[entry[i]]
                prefix[i + 1] = _mulmod(prefix[i], factor[i], modulus)
            suffix = values[0] * 0 + 1
            for i in range(n - 1, -1, -1):
                leave_one_out = _mulmod(prefix[i], suffix, modulus)
                out[r, entry[i]] = _addmod(out[r, entry[i]], leave_one_out, modulus)
                suffix = _mulmod(suffix, factor[i], modulus)


@numba.njit(cache=True)
def _apply_chain(entry_block, chain_entry, chain_column, chain_value, modulus, out):
    """``out = entry_block @ C`` for the sparse chain matrix ``C`` given as triplets."""
    for r in range(out.shape[0]):  # row-major: both blocks are read along their rows
        for k in range(chain_entry.shape[0]):
            t, c = chain_entry[k], chain_column[k]
            out[r, c] = _addmod(out[r, c], _mulmod(entry_block[r, t], chain_value[k], modulus),
                                modulus)


# --- parameter points -----------------------------------------------------------------------
@dataclass(frozen=True)
class Point:
    """A parameter point of a network: table entries (discrete/sigmoid) or Gaussian parameters.

    ``tables`` is the flat vector of every table entry (deterministic tables included) and
    ``chain`` the sparse derivative ``dt/dtheta`` as ``(entry, column, value)`` arrays;
    ``gaussian`` holds ``(means, weights matrix B[child, parent], variances)`` instead.
    ``modulus`` is 0 for real points and the prime for points of ``F_p``.
    """

    modulus: int
    tables: np.ndarray | None = None
    chain: tuple | None = None
    gaussian: tuple | None = None


def _free_chain(network: Network, layout: _Layout, modulus: int):
    """Triplets of ``dt/dtheta`` for the free parameterisation (drop each row's last entry)."""
    entries, columns, values = [], [], []
    column = 0
    minus_one = modulus - 1 if modulus else -1.0
    for i in range(network.n_nodes):
        if network.is_deterministic(i):
            continue
        r = network.cardinalities[i]
        for j in range(network.n_parent_configurations(i)):
            row = layout.offsets[i] + j * r
            for k in range(r - 1):
                entries += [row + k, row + r - 1]
                columns += [column, column]
                values += [1, minus_one]
                column += 1
    return _triplets(entries, columns, values, modulus)


def _triplets(entries, columns, values, modulus):
    dtype = np.int64 if modulus else np.float64
    return (np.asarray(entries, dtype=np.int64), np.asarray(columns, dtype=np.int64),
            np.asarray(values, dtype=dtype))


def random_discrete_point(network: Network, rng: np.random.Generator, modulus: int = 0,
                          alpha: float = 2.0) -> Point:
    """A random point of a discrete network: Dirichlet(``alpha``) rows, or uniform in ``F_p``.

    Over ``F_p`` each free entry is uniform and the last entry of a row is one minus the rest.
    ``alpha = 2`` keeps real entries away from zero, which keeps the Jacobian well conditioned.
    """
    layout = _layout(network)
    tables = np.zeros(layout.n_entries, dtype=np.int64 if modulus else np.float64)
    for i in range(network.n_nodes):
        if network.is_deterministic(i):
            table = deterministic_table(network, i).astype(tables.dtype)
        elif modulus:
            q, r = network.n_parent_configurations(i), network.cardinalities[i]
            head = rng.integers(0, modulus, size=(q, r - 1), dtype=np.int64)
            last = (1 - head.sum(axis=1)) % modulus
            table = np.hstack([head, last[:, None]])
        else:
            q, r = network.n_parent_configurations(i), network.cardinalities[i]
            table = rng.dirichlet(np.full(r, alpha), size=q)
        tables[layout.offsets[i]:layout.offsets[i] + table.size] = table.ravel()
    return Point(modulus, tables, _free_chain(network, layout, modulus))


def discrete_point(network: Network, cpts) -> Point:
    """The real point of given CPTs (e.g. fitted ones), for the Jacobian at that point."""
    checked = check_parameters(network, cpts)
    tables = np.concatenate([t.ravel() for t in node_tables(network, checked)])
    return Point(0, tables, _free_chain(network, _layout(network), 0))


def sigmoid_point(network: Network, coefficients, modulus: int = 0) -> Point:
    """The point of a sigmoid network with parameters ``coefficients`` (paper 000 Sec. 8).

    ``coefficients`` is the flat vector ``(a_i, b_ji for each parent j)`` node by node. Over
    ``F_p`` it holds ``(alpha_i, beta_ji)`` instead, non-zero residues standing for
    ``exp(-a_i)`` and ``exp(-b_ji)``, so ``s = 1 / (1 + alpha_i prod_j beta_ji^x_j)`` (module
    notes).
    """
    layout = _layout(network)
    tables = np.zeros(layout.n_entries, dtype=np.int64 if modulus else np.float64)
    entries, columns, values = [], [], []
    column = 0
    for i in range(network.n_nodes):
        parents = network.parents[i]
        own = coefficients[column:column + len(parents) + 1]
        # parent configurations in C order (first parent most significant), shape (q, |pa|)
        configs = np.array(list(itertools.product((0, 1), repeat=len(parents))),
                           dtype=np.int64).reshape(2 ** len(parents), len(parents))
        if modulus:
            u = [_modular_product([own[0]] + [own[1 + l] for l in np.flatnonzero(c)], modulus)
                 for c in configs]
            s = np.array([pow(int(1 + v), modulus - 2, modulus) for v in u], dtype=np.int64)
            one_minus_s = (1 - s) % modulus
            slope = s * one_minus_s % modulus
            minus = (modulus - slope) % modulus
        else:
            s = 1.0 / (1.0 + np.exp(-(own[0] + configs @ np.asarray(own[1:], dtype=float))))
            one_minus_s = 1.0 - s
            slope = s * one_minus_s
            minus = -slope
        start = layout.offsets[i]
        tables[start:start + 2 * len(configs)] = np.column_stack([one_minus_s, s]).ravel()
        for j, config in enumerate(configs):
            for weight_column, active in enumerate([1, *config]):
                if active:
                    entries += [start + 2 * j + 1, start + 2 * j]
                    columns += [column + weight_column] * 2
                    values += [slope[j], minus[j]]
        column += len(parents) + 1
    return Point(modulus, tables, _triplets(entries, columns, values, modulus))


def random_sigmoid_point(network: Network, rng: np.random.Generator, modulus: int = 0) -> Point:
    """A random sigmoid point: ``a``, ``b`` from N(0, 1), or non-zero residues of ``F_p``."""
    ds = network.standard_dimension
    coefficients = (rng.integers(1, modulus, size=ds, dtype=np.int64) if modulus
                    else rng.normal(size=ds))
    return sigmoid_point(network, coefficients, modulus)


def _modular_product(factors, modulus):
    result = 1
    for f in factors:
        result = result * int(f) % modulus
    return result


def random_point(network: Network, rng: np.random.Generator, modulus: int = 0) -> Point:
    """A random point of any network kind, real (``modulus = 0``) or in ``F_modulus``."""
    if network.kind == "gaussian":
        return random_gaussian_point(network, rng, modulus)
    if network.kind == "sigmoid":
        return random_sigmoid_point(network, rng, modulus)
    return random_discrete_point(network, rng, modulus)


# --- the Jacobian, block by block -----------------------------------------------------------
def n_rows(network: Network) -> int:
    """Number of rows of the Jacobian: observed configurations, or Gaussian moments."""
    if network.kind == "gaussian":
        k = len(network.observed_indices)
        return k + k * (k + 1) // 2
    return int(np.prod(network.observed_cardinalities, dtype=np.int64))


def jacobian_blocks(network: Network, point: Point, block_rows: int | None = None,
                    shuffle: np.random.Generator | None = None):
    """Yield the Jacobian ``dW/dtheta`` at ``point`` as row blocks.

    Blocks have ``ds`` columns (parameter order of the module notes) and together cover all
    rows once, in C order over the observed configurations, or, with ``shuffle``, in the
    pseudo-random order ``o = (a i + b) mod |O|`` (``a`` coprime to ``|O|``), which lets an
    exact rank that stops at a known bound do so after about ``ds`` rows. Each block is a
    fresh array (float64, or int64 residues for points of ``F_p``).
    """
    if network.kind == "gaussian":
        yield gaussian_jacobian(network, point)
        return
    check_enumerable(network)
    layout = _layout(network)
    ds = network.standard_dimension
    total = layout.n_observed_configs
    if block_rows is None:
        block_rows = max(1, BLOCK_ENTRIES // max(layout.n_entries, ds, 1))
    multiplier, offset = 1, 0
    if shuffle is not None and total > 1:
        multiplier = int(shuffle.integers(1, total))
        while math.gcd(multiplier, total) != 1:
            multiplier = int(shuffle.integers(1, total))
        offset = int(shuffle.integers(0, total))
    chain_entry, chain_column, chain_value = point.chain
    for start in range(0, total, block_rows):
        rows = min(block_rows, total - start)
        entry_block = np.zeros((rows, layout.n_entries), dtype=point.tables.dtype)
        _entry_jacobian_block(layout.cards, layout.observed, layout.hidden, layout.parent_ptr,
                              layout.parent_idx, layout.offsets, point.tables, start,
                              multiplier, offset, point.modulus, entry_block)
        block = np.zeros((rows, ds), dtype=point.tables.dtype)
        _apply_chain(entry_block, chain_entry, chain_column, chain_value, point.modulus, block)
        yield block


def jacobian(network: Network, point: Point) -> np.ndarray:
    """The whole Jacobian as one dense array (small models and tests)."""
    return np.vstack(list(jacobian_blocks(network, point)))


def observed_function(network: Network, point: Point) -> np.ndarray:
    """``W`` at a real discrete/sigmoid point: the observed distribution, C order, flattened.

    Used by the tests (finite differences) and as a check of the kernel: every row of the
    entry Jacobian dotted with its own factor gives ``P(o)`` back.
    """
    layout = _layout(network)
    cpts = [None if network.is_deterministic(i) else
            point.tables[layout.offsets[i]:layout.offsets[i] + network.n_parent_configurations(i)
                         * network.cardinalities[i]].reshape(-1, network.cardinalities[i])
            for i in range(network.n_nodes)]
    # a sigmoid network is a discrete network once its tables are formed
    return observed_distribution(replace(network, kind="discrete"), cpts).ravel()


# --- linear-Gaussian networks ---------------------------------------------------------------
def gaussian_point(network: Network, theta, modulus: int = 0) -> Point:
    """The point of a linear-Gaussian network with parameters ``theta`` (paper 000 Sec. 7).

    ``theta`` is the flat vector ``(m_i, b_ji for each parent j, v_i)`` node by node; over
    ``F_p`` its entries are residues (Python ints are used, so products never overflow).
    """
    n = network.n_nodes
    dtype = object if modulus else float
    means, variances = np.zeros(n, dtype=dtype), np.zeros(n, dtype=dtype)
    weights = np.zeros((n, n), dtype=dtype)
    position = 0
    for i, parents in enumerate(network.parents):
        own = theta[position:position + len(parents) + 2]
        values = [int(v) if modulus else float(v) for v in own]
        means[i], variances[i] = values[0], values[-1]
        for p, weight in zip(parents, values[1:-1]):
            weights[i, p] = weight
        position += len(parents) + 2
    return Point(modulus, gaussian=(means, weights, variances))


def random_gaussian_point(network: Network, rng: np.random.Generator, modulus: int = 0) -> Point:
    """Random Gaussian parameters: means N(0, 1), weights +-U(0.5, 1.5), variances U(0.5, 2);
    or uniform residues of ``F_p`` (variances non-zero)."""
    theta = []
    for parents in network.parents:
        if modulus:
            theta += [int(v) for v in rng.integers(0, modulus, size=len(parents) + 1)]
            theta.append(int(rng.integers(1, modulus)))
        else:
            theta.append(rng.normal())
            theta += list(rng.choice([-1.0, 1.0], size=len(parents))
                          * rng.uniform(0.5, 1.5, size=len(parents)))
            theta.append(rng.uniform(0.5, 2.0))
    return gaussian_point(network, theta, modulus)


def _total_effects(weights: np.ndarray, modulus: int) -> np.ndarray:
    """``A = (I - B)^-1``, exactly ``I + B + ... + B^(n-1)`` for a DAG (B is nilpotent)."""
    n = weights.shape[0]
    if not modulus:
        return np.linalg.solve(np.eye(n) - weights, np.eye(n))
    identity = np.eye(n, dtype=np.int64).astype(object)
    total, power = identity.copy(), identity.copy()
    for _ in range(n - 1):
        power = (power @ weights) % modulus
        total = (total + power) % modulus
    return total


def gaussian_moments(network: Network, point: Point):
    """Observed mean vector and covariance matrix of a linear-Gaussian network (trek rule).

    ``X = B X + m + e`` gives ``mu = A m`` and ``Sigma = A V A^T`` with ``A = (I - B)^-1``
    (paper 000 Sec. 7).
    """
    means, weights, variances = point.gaussian
    modulus = point.modulus
    total = _total_effects(weights, modulus)
    mu = total @ means
    sigma = (total * variances) @ total.T
    if modulus:
        mu, sigma = mu % modulus, sigma % modulus
    observed = network.observed_indices
    return mu[observed], sigma[np.ix_(observed, observed)]


def gaussian_function(network: Network, point: Point) -> np.ndarray:
    """``W`` of a Gaussian network: observed means then the covariance's upper triangle."""
    mu, sigma = gaussian_moments(network, point)
    return np.concatenate([mu, sigma[np.triu_indices(len(mu))]])


def gaussian_jacobian(network: Network, point: Point) -> np.ndarray:
    """``dW/dtheta`` of a linear-Gaussian network, analytic.

    With ``a_i`` the column ``A[:, i]`` restricted to observed rows:
    ``d/dm_i``: ``(a_i, 0)``; ``d/dv_i``: ``(0, a_i a_i^T)``; ``d/db_ji`` (arc ``j -> i``):
    ``dA = A e_i e_j^T A`` so ``(a_i mu_j, a_i Sigma_j. + Sigma_.j a_i^T)`` over all variables,
    then restricted to the observed block.
    """
    means, weights, variances = point.gaussian
    modulus = point.modulus
    total = _total_effects(weights, modulus)
    mu = total @ means
    sigma = (total * variances) @ total.T
    observed = network.observed_indices
    upper = np.triu_indices(len(observed))
    columns = []

    def column(d_mu, d_sigma):
        values = np.concatenate([d_mu, d_sigma[upper]])
        columns.append(values % modulus if modulus else values)

    zero_mu = np.zeros(len(observed), dtype=total.dtype)
    zero_sigma = np.zeros((len(observed), len(observed)), dtype=total.dtype)
    for i in range(network.n_nodes):
        a_i = total[observed, i]
        column(a_i, zero_sigma)  # mean m_i
        for j in network.parents[i]:
            cross = np.outer(a_i, sigma[j, observed])
            column(a_i * mu[j], cross + cross.T)  # weight b_ji
        column(zero_mu, np.outer(a_i, a_i))  # variance v_i
    matrix = np.column_stack(columns)
    return matrix.astype(np.int64) if modulus else matrix.astype(float)
