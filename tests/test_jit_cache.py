"""hiddenbn.jit_cache calls every group of numba kernels (what fills a shared cache before a
cluster run): every module with numba kernels gets its kernels compiled."""

import numba

from hiddenbn import jit_cache


def test_warm_calls_every_group_and_leaves_their_kernels_compiled():
    timings = jit_cache.warm()
    assert [name for name, _ in timings] == [name for name, _ in jit_cache._groups()]
    assert all(seconds >= 0 for _, seconds in timings)
    # kernels called only from other kernels compile inside their callers: every module with
    # kernels must have had at least one called from Python (hiddenbn.collapsed's are called
    # only by the annealing and SMC kernels)
    from hiddenbn import (annealing, inference, jacobian, junction_tree, message_passing,
                          noisy_max, rank, sampling, smc, split_merge)
    for module in (annealing, inference, jacobian, junction_tree, message_passing, noisy_max,
                   rank, sampling, smc, split_merge):
        kernels = [value for value in vars(module).values()
                   if isinstance(value, numba.core.registry.CPUDispatcher)]
        assert any(kernel.signatures for kernel in kernels), module.__name__
