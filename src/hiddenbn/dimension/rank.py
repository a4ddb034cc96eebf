"""Matrix rank two ways, streaming over row blocks: SVD with its gap, and exact over ``F_p``.

Both consume the row blocks of :func:`hiddenbn.dimension.jacobian.jacobian_blocks` one at a time, so
the memory is ``O(ds^2)`` plus one block, whatever the number of rows.

* Floating point: a tall-skinny QR keeps only the ``R`` factor of the rows seen so far
  (``[R; block] -> R'``); ``R`` has the singular values of the whole matrix. The numerical rank
  counts singular values above ``RELATIVE_TOLERANCE * s_max``, and the *gap* is
  ``log10(s_rank / s_(rank+1))`` in decades (``s_(rank+1)`` is taken as ``eps * s_max`` when
  every singular value is kept). A gap below ``CLEAR_GAP_DECADES`` means the cut is not clear.
* Exact: Gaussian elimination modulo a prime (numba), one row at a time against the echelon
  basis found so far, stopping early once the rank reaches a known upper bound (``ds`` or
  ``dc``). At a point drawn uniformly from ``F_p`` this is the generic rank of a polynomial map
  except with probability ``<= degree / p`` (Schwartz-Zippel), and it is never larger.
"""

from __future__ import annotations

import math

import numba
import numpy as np

#: Singular values below this fraction of the largest are counted as zero.
RELATIVE_TOLERANCE = 1e-9
#: A rank cut with fewer decades between the kept and the dropped singular values is unclear.
CLEAR_GAP_DECADES = 4.0


def singular_values(blocks, columns: int, stop_rank: int | None = None) -> np.ndarray:
    """All ``columns`` singular values of the matrix stacked from ``blocks`` (descending).

    Fewer rows than columns leaves the missing singular values at zero. With ``stop_rank`` (a
    known upper bound on the rank), reading stops as soon as the rows read so far have that
    numerical rank with a clear gap: adding rows never lowers a singular value (interlacing),
    so the whole matrix has that rank too, and the values returned are those of the rows read
    (lower bounds of the full ones). With rows in random order this usually takes one block.
    """
    r_factor = np.zeros((0, columns))
    for block in blocks:
        stacked = np.vstack([r_factor, np.asarray(block, dtype=float)])
        r_factor = np.linalg.qr(stacked, mode="r") if stacked.shape[0] else stacked
        if stop_rank is not None:
            values = _padded_singular_values(r_factor, columns)
            rank, gap = numerical_rank(values)
            if rank >= stop_rank and gap >= CLEAR_GAP_DECADES:
                return values
    return _padded_singular_values(r_factor, columns)


def _padded_singular_values(matrix: np.ndarray, columns: int) -> np.ndarray:
    values = np.zeros(columns)
    if matrix.size:
        found = np.linalg.svd(matrix, compute_uv=False)
        values[:found.size] = found
    return values


def numerical_rank(values: np.ndarray) -> tuple[int, float]:
    """``(rank, gap)`` of descending singular values ``values`` (see the module notes)."""
    if values.size == 0 or values[0] == 0:
        return 0, math.inf
    rank = int(np.count_nonzero(values > RELATIVE_TOLERANCE * values[0]))
    below = values[rank] if rank < values.size else np.finfo(float).eps * values[0]
    if below <= 0:
        return rank, math.inf
    return rank, float(np.log10(values[rank - 1]) - np.log10(below))


@numba.njit(cache=True)
def _inverse_mod(a, p):
    result, base, exponent = 1, a % p, p - 2
    while exponent > 0:
        if exponent & 1:
            result = result * base % p
        base = base * base % p
        exponent >>= 1
    return result


@numba.njit(cache=True)
def _eliminate_rows(rows, basis, pivots, rank, p, bound):
    """Add the rows of ``rows`` to the echelon ``basis[:rank]``; return the new rank.

    Each basis row is scaled to 1 at its pivot and is zero at the pivots of earlier rows, so a
    single pass over the basis in order reduces a new row. Stops once ``rank == bound``.
    """
    columns = rows.shape[1]
    row = np.zeros(columns, dtype=np.int64)
    for r in range(rows.shape[0]):
        if rank >= bound:
            break
        for c in range(columns):
            row[c] = rows[r, c] % p
        for k in range(rank):
            f = row[pivots[k]]
            if f != 0:
                for c in range(columns):
                    row[c] = (row[c] - f * basis[k, c]) % p
        pivot = -1
        for c in range(columns):
            if row[c] != 0:
                pivot = c
                break
        if pivot < 0:
            continue
        scale = _inverse_mod(row[pivot], p)
        for c in range(columns):
            basis[rank, c] = row[c] * scale % p
        pivots[rank] = pivot
        rank += 1
    return rank


def modular_echelon(blocks, columns: int, prime: int,
                    bound: int | None = None) -> tuple[int, np.ndarray]:
    """Rank over ``F_prime`` of the matrix stacked from int64 ``blocks``, and its pivot columns.

    Parameters
    ----------
    blocks : iterable of array_like
        Row blocks of integers, each with ``columns`` columns; entries are reduced mod
        ``prime`` here, so any integers (negative ones too) will do.
    columns : int
    prime : int
        A prime below ``2**31`` (products of two residues must fit int64).
    bound : int, optional
        A known upper bound on the rank (default ``columns``): reaching it ends the scan,
        which is what makes large full-rank models cheap.

    Returns
    -------
    rank : int
    pivots : numpy.ndarray
        The pivot columns in ascending order: column ``j`` is one iff it is not in the span
        (mod ``prime``) of the columns left of it, so they form a column basis. They are the
        leading columns of the echelon rows, a property of the row space, so the order of
        the rows does not matter. Once the scan ends at ``bound``, those of the rows read.
    """
    bound = columns if bound is None else min(bound, columns)
    basis = np.zeros((max(bound, 1), columns), dtype=np.int64)
    pivots = np.zeros(max(bound, 1), dtype=np.int64)
    rank = 0
    for block in blocks:
        if rank >= bound:
            break
        rank = _eliminate_rows(np.ascontiguousarray(block, dtype=np.int64), basis, pivots, rank,
                               prime, bound)
    return int(rank), np.sort(pivots[:rank])


def modular_rank(blocks, columns: int, prime: int, bound: int | None = None) -> int:
    """Rank over ``F_prime`` of the matrix stacked from int64 ``blocks`` (:func:`modular_echelon`
    without its pivots)."""
    return modular_echelon(blocks, columns, prime, bound)[0]
