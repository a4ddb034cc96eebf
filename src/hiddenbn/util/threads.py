"""Parallel work whose result does not depend on the number of threads.

Every result the library writes must be the same to the last bit on 1 or 64 cores. Two things
would otherwise change it:

* **BLAS.** OpenBLAS splits a matrix product over its threads, and the rows at the edge of each
  thread's share go through other micro-kernels, which add in another order: ``design @
  coefficients`` for 36001 rows differs in the last bits between one and two threads. So every
  product runs on one BLAS thread (:func:`one_blas_thread`; :func:`pin_blas_to_one_thread` for
  a whole command or workflow job), and the parallelism is ours.
* **Reductions split by thread.** Work is split into blocks fixed by the size of the data alone
  (never by the thread count); the blocks run on as many threads as numba has
  (``numba.set_num_threads``, which every workflow job sets to its rule's threads) and their
  partial sums are added in block order (:func:`map_blocks`).

The numba kernels are compiled without ``fastmath``: with ``reassoc`` the compiler may sum in
any order, and the machine code of a fresh compile and of numba's cache differed (the same E
step gave other last bits on a cold and on a warm cache).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

import numba

_controller = None
_pools: dict[int, ThreadPoolExecutor] = {}


def _blas():
    """The BLAS libraries loaded in this process (threadpoolctl, inspected once)."""
    global _controller
    if _controller is None:
        from threadpoolctl import ThreadpoolController
        _controller = ThreadpoolController().select(user_api="blas")
    return _controller


def pin_blas_to_one_thread() -> None:
    """Run every BLAS call of this process on one thread from now on (for a CLI command or a
    workflow job: then every product and decomposition it makes is independent of the cores)."""
    _blas().limit(limits=1)  # the limiter is not kept: without restore() the limit stays


def use_threads(threads: int) -> None:
    """Set up a CLI command or a workflow job: numba kernels and :func:`map_blocks` on
    ``threads`` threads (a job: its rule's), BLAS on one (:func:`pin_blas_to_one_thread`)."""
    numba.set_num_threads(threads)
    pin_blas_to_one_thread()


@contextmanager
def one_blas_thread():
    """BLAS on one thread inside the block (a no-op when it already is)."""
    controller = _blas()
    if all(library.num_threads == 1 for library in controller.lib_controllers):
        yield
        return
    with controller.limit(limits=1):
        yield


def _pool(threads: int) -> ThreadPoolExecutor:
    if threads not in _pools:
        _pools[threads] = ThreadPoolExecutor(threads, thread_name_prefix="hiddenbn")
    return _pools[threads]


def block_starts(n_rows: int, block_rows: int) -> list[tuple[int, int]]:
    """``(start, stop)`` of consecutive blocks of ``block_rows`` rows (the last may be short)."""
    return [(start, min(start + block_rows, n_rows)) for start in range(0, n_rows, block_rows)]


def map_blocks(function, blocks, parallel: bool = True) -> list:
    """``[function(start, stop) for (start, stop) in blocks]``, in that order, on up to
    ``numba.get_num_threads()`` threads, every BLAS call on one thread.

    ``function`` must release the GIL for its heavy parts (NumPy products and ufuncs, numba
    kernels with ``nogil=True``; never a ``parallel=True`` kernel). ``parallel=False`` runs the
    same blocks in turn, for work too small to be worth waking threads.
    """
    threads = min(numba.get_num_threads(), len(blocks)) if parallel else 1
    with one_blas_thread():
        if threads <= 1:
            return [function(start, stop) for start, stop in blocks]
        return list(_pool(threads).map(lambda block: function(*block), blocks))
