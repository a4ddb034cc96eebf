"""Gaussian elimination over GF(p) (hiddenbn.dimension.rank.modular_echelon) against a plain Python
elimination and, on well-conditioned integer matrices, numpy's floating rank."""

import numpy as np
import pytest

from hiddenbn.dimension.rank import modular_echelon, modular_rank

PRIMES = (2, 3, 7, 2_147_483_647)


def python_echelon(matrix, p):
    """Rank and pivot columns mod ``p`` by textbook column-by-column elimination."""
    rows = [[int(v) % p for v in row] for row in matrix]
    n_columns = len(rows[0]) if rows else 0
    rank, pivots = 0, []
    for column in range(n_columns):
        found = next((r for r in range(rank, len(rows)) if rows[r][column]), None)
        if found is None:
            continue
        rows[rank], rows[found] = rows[found], rows[rank]
        inverse = pow(rows[rank][column], -1, p)
        rows[rank] = [v * inverse % p for v in rows[rank]]
        for r in range(len(rows)):
            if r != rank and rows[r][column]:
                factor = rows[r][column]
                rows[r] = [(a - factor * b) % p for a, b in zip(rows[r], rows[rank])]
        pivots.append(column)
        rank += 1
    return rank, pivots


def random_matrices(rng, count=150):
    for trial in range(count):
        rows, columns = (int(n) for n in rng.integers(1, 9, 2))
        if trial % 3 == 0:  # low rank: a product of thin integer factors
            inner = int(rng.integers(0, min(rows, columns) + 1))
            yield rng.integers(-3, 4, (rows, inner)) @ rng.integers(-3, 4, (inner, columns))
        elif trial % 3 == 1:  # repeated and zero columns
            matrix = rng.integers(-5, 6, (rows, columns))
            matrix[:, rng.integers(0, columns)] = 0
            matrix[:, -1] = matrix[:, 0]
            yield matrix
        else:  # entries far beyond the primes, negative too
            yield rng.integers(-2**40, 2**40, (rows, columns))


@pytest.mark.parametrize("p", PRIMES)
def test_rank_and_pivots_equal_a_plain_elimination(p):
    rng = np.random.default_rng(p)
    for matrix in random_matrices(rng):
        expected_rank, expected_pivots = python_echelon(matrix.tolist(), p)
        rank, pivots = modular_echelon([matrix], matrix.shape[1], p)
        assert (rank, pivots.tolist()) == (expected_rank, expected_pivots), matrix
        # its rows shuffled and in blocks: the pivots are the matrix's first independent
        # columns, whatever the order of the rows
        shuffled = rng.permutation(matrix)
        blocks = [shuffled[i:i + 3] for i in range(0, len(shuffled), 3)]
        again = modular_echelon(blocks, matrix.shape[1], p)
        assert (again[0], again[1].tolist()) == (expected_rank, expected_pivots)
        assert modular_rank(blocks, matrix.shape[1], p) == expected_rank


def test_the_large_prime_gives_numpys_rank_of_small_integer_matrices():
    rng = np.random.default_rng(11)
    for _ in range(200):
        rows, columns = (int(n) for n in rng.integers(1, 10, 2))
        inner = int(rng.integers(1, min(rows, columns) + 1))
        matrix = rng.integers(-4, 5, (rows, inner)) @ rng.integers(-4, 5, (inner, columns))
        assert modular_echelon([matrix], columns, PRIMES[-1])[0] == \
            np.linalg.matrix_rank(matrix.astype(float))


def test_pivot_columns_form_a_column_basis():
    rng = np.random.default_rng(3)
    matrix = rng.integers(-3, 4, (6, 3)) @ rng.integers(-3, 4, (3, 9))
    rank, pivots = modular_echelon([matrix], 9, PRIMES[-1])
    assert rank == len(pivots) == np.linalg.matrix_rank(matrix[:, pivots].astype(float))


def test_the_bound_ends_the_scan():
    identity = np.eye(6, dtype=np.int64)
    rank, pivots = modular_echelon([identity[:2], identity[2:]], 6, 7, bound=3)
    assert rank == 3 and pivots.tolist() == [0, 1, 2]
    empty = modular_echelon([np.zeros((0, 4), dtype=np.int64)], 4, 7)
    assert empty[0] == 0 and empty[1].size == 0
