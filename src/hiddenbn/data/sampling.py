"""Forward sampling of discrete Bayesian networks.

Cases are drawn as paper 003 Sec. 3 describes: each node in topological order given its
parents' sampled values, hidden values then discarded. The uniforms come from a seeded
``numpy.random.Generator`` outside the numba kernel, in fixed-size chunks, so a seed fixes the
data whatever the thread count. A :class:`DrawnSample` holds the cases with the parameters they
were drawn from, and writes both as ``hiddenbn sample`` does.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numba
import numpy as np

from hiddenbn.data import MISSING, Dataset, NumberedStates, rows_frame, write_csv, write_rows_csv
from hiddenbn.errors import HiddenbnError
from hiddenbn.models.network import Network, check_parameters, save_parameters
from hiddenbn.util import limits

#: Rows drawn per call of the kernel; part of the definition of the random stream.
CHUNK_ROWS = 1 << 16

_STOCHASTIC, _MAX, _SUM = 0, 1, 2


def pack_network(network: Network, cpts):
    """Pack the network into the flat arrays :func:`forward_sample_kernel` reads (its first
    arguments, in order)."""
    n = network.n_nodes
    node_kind = np.array([{None: _STOCHASTIC, "max": _MAX, "sum": _SUM}[f]
                          for f in network.functions], dtype=np.int8)
    parent_ptr = np.zeros(n + 1, dtype=np.int64)
    parent_index, parent_stride = [], []
    cdf_ptr = np.zeros(n, dtype=np.int64)
    uniform_column = np.full(n, -1, dtype=np.int64)
    cdfs, offset, column = [], 0, 0
    for i in range(n):
        pa = network.parents[i]
        parent_index += list(pa)
        cards = [network.cardinalities[p] for p in pa]
        # C-order strides: the first parent is the most significant digit
        parent_stride += [int(np.prod(cards[k + 1:], dtype=np.int64)) for k in range(len(pa))]
        parent_ptr[i + 1] = len(parent_index)
        if node_kind[i] == _STOCHASTIC:
            cdf = np.cumsum(cpts[i], axis=1)
            cdf[:, -1] = 1.0  # rounding must never leave a uniform without a state
            cdfs.append(cdf.ravel())
            cdf_ptr[i] = offset
            offset += cdf.size
            uniform_column[i] = column
            column += 1
    return (np.asarray(network.cardinalities, dtype=np.int64), node_kind, parent_ptr,
            np.asarray(parent_index, dtype=np.int64), np.asarray(parent_stride, dtype=np.int64),
            cdf_ptr, np.concatenate(cdfs) if cdfs else np.zeros(0), uniform_column)


@numba.njit(cache=True, nogil=True)
def forward_sample_kernel(cards, node_kind, parent_ptr, parent_index, parent_stride, cdf_ptr,
                          cdf, uniform_column, uniforms, out):
    """Fill each row of ``out`` (cases x every node) with one case drawn from the network that
    :func:`pack_network` packed, node by node in topological order, a stochastic node's state
    read off its CPT row's CDF at the row's next column of ``uniforms``."""
    for row in range(out.shape[0]):
        for i in range(cards.shape[0]):
            kind = node_kind[i]
            if kind == 0:
                config = 0
                for k in range(parent_ptr[i], parent_ptr[i + 1]):
                    config += out[row, parent_index[k]] * parent_stride[k]
                r = cards[i]
                base = cdf_ptr[i] + config * r
                u = uniforms[row, uniform_column[i]]
                state = 0
                while state < r - 1 and u >= cdf[base + state]:
                    state += 1
                out[row, i] = state
            else:
                value = 0
                for k in range(parent_ptr[i], parent_ptr[i + 1]):
                    v = out[row, parent_index[k]]
                    if kind == 1:
                        value = max(value, v)
                    else:
                        value += v
                out[row, i] = value


def forward_sample(network: Network, cpts, n_cases: int, rng: np.random.Generator,
                   include_hidden: bool = False) -> np.ndarray:
    """Draw ``n_cases`` cases; return an ``(n_cases, n)`` int32 array of states.

    Columns are the observed nodes in network order, or every node when ``include_hidden``.
    """
    if network.kind != "discrete":
        raise HiddenbnError(f"forward sampling is implemented for discrete networks, not "
                            f"{network.kind!r} ones")
    if isinstance(n_cases, bool) or not isinstance(n_cases, (int, np.integer)) or n_cases < 1:
        raise HiddenbnError(f"the number of cases must be a positive whole number, got {n_cases!r}")
    cpts = check_parameters(network, cpts)
    flat = pack_network(network, cpts)
    n_uniforms = int((flat[-1] >= 0).sum())
    columns = (np.arange(network.n_nodes) if include_hidden else network.observed_indices)
    limits.check_sample(int(n_cases), int(columns.size), False)  # not numpy's MemoryError
    result = np.empty((n_cases, columns.size), dtype=np.int32)
    chunk = np.empty((min(n_cases, CHUNK_ROWS), network.n_nodes), dtype=np.int32)
    for start in range(0, n_cases, CHUNK_ROWS):
        rows = min(CHUNK_ROWS, n_cases - start)
        uniforms = rng.random((rows, n_uniforms))
        forward_sample_kernel(*flat, uniforms, chunk[:rows])
        result[start:start + rows] = chunk[:rows, columns]
    return result


def blank_cells(rows: np.ndarray, missing_rate: float, rng: np.random.Generator) -> np.ndarray:
    """``rows`` with each cell made :data:`~hiddenbn.data.MISSING` with probability
    ``missing_rate``, independently (missing completely at random, MCAR), except that a row
    keeps one cell (drawn uniformly) where every cell was blanked: a case with no observed cell
    carries no information, and the data readers refuse it.

    The draws come from ``rng`` after the cases, so the complete cases do not depend on the rate.
    """
    if not 0.0 <= missing_rate < 1.0:
        raise HiddenbnError(f"the missing rate must be at least 0 and below 1, got {missing_rate}")
    rows = np.array(rows, copy=True)
    if missing_rate == 0.0 or rows.size == 0:
        return rows
    blank = rng.random(rows.shape) < missing_rate
    empty = np.flatnonzero(blank.all(axis=1))
    blank[empty, rng.integers(0, rows.shape[1], size=empty.size)] = False
    rows[blank] = MISSING
    return rows


def sample_dataset(network: Network, cpts, n_cases: int, rng: np.random.Generator,
                   missing_rate: float = 0.0) -> Dataset:
    """Sample ``n_cases`` cases and return the observed part as pattern counts, with cells
    blanked at ``missing_rate`` (:func:`blank_cells`)."""
    rows = blank_cells(forward_sample(network, cpts, n_cases, rng), missing_rate, rng)
    return Dataset.from_rows(network.observed_names, rows, network.observed_cardinalities)


@dataclass(frozen=True)
class DrawnSample:
    """Cases drawn from a network, with the parameters they were drawn from: what ``hiddenbn
    sample`` writes and :func:`hiddenbn.sample` returns, in one place.

    Attributes
    ----------
    network : Network
        The network sampled.
    cpts : list of ndarray
        Its parameters, one table per node.
    labels : dict
        The labels of observed nodes' states that a parameter file gave (``{}`` if none); such
        states are written and returned as their labels.
    rows : ndarray
        The cases (int32), one column per observed node, :data:`~hiddenbn.data.MISSING` where
        a cell was blanked.
    counts : bool
        Whether :meth:`write_csv` writes pattern counts rather than one line per case.
    """

    network: Network
    cpts: list
    labels: dict
    rows: np.ndarray
    counts: bool = False

    @property
    def categories(self) -> tuple | None:
        """Per observed column, its labels (numbers where the parameter file gives none), or
        None when no column is labelled."""
        if not self.labels:
            return None
        network = self.network
        return tuple(self.labels.get(name, NumberedStates(0, network.cardinalities[i]))
                     for i, name in zip(network.observed_indices, network.observed_names))

    def frame(self):
        """The cases as a pandas DataFrame (:func:`~hiddenbn.data.rows_frame`)."""
        return rows_frame(self.network.observed_names, self.rows, self.categories)

    def write_csv(self, path) -> None:
        """Write the cases as CSV (``path`` may be a stream): one line per case, or with
        :attr:`counts` one line per pattern with its count."""
        if self.counts:
            dataset = Dataset.from_rows(self.network.observed_names, self.rows,
                                        self.network.observed_cardinalities)
            write_csv(path, replace(dataset, categories=self.categories) if self.labels
                      else dataset)
        else:
            write_rows_csv(path, self.network.observed_names, self.rows, self.categories)

    def save_parameters(self, path) -> None:
        """Write the parameters, with the labels of the states, as JSON (``--save-params``)."""
        save_parameters(path, self.network, self.cpts, self.labels)
