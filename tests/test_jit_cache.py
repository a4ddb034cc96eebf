"""hiddenbn.jit_cache calls every group of numba kernels (what fills a shared cache before a
cluster run): every module with numba kernels gets its kernels compiled."""

import numba

from hiddenbn import jit_cache


def test_warm_calls_every_group_and_leaves_their_kernels_compiled():
    timings = jit_cache.warm()
    assert [name for name, _ in timings] == [name for name, _ in jit_cache._groups()]
    assert all(seconds >= 0 for _, seconds in timings)
    # kernels called only from other kernels compile inside their callers: every module with
    # kernels must have had at least one called from Python (hiddenbn.inference.collapsed's are
    # called only by the annealing and SMC kernels)
    from hiddenbn.data import sampling
    from hiddenbn.dimension import jacobian, rank
    from hiddenbn.inference import enumeration as inference, junction_tree, message_passing
    from hiddenbn.interaction import noisy_max
    from hiddenbn.learning import annealing, em, engine, split_merge
    from hiddenbn.scores import smc
    for module in (annealing, em, engine, inference, jacobian, junction_tree, message_passing,
                   noisy_max, rank, sampling, smc, split_merge):
        kernels = [value for value in vars(module).values()
                   if isinstance(value, numba.core.registry.CPUDispatcher)]
        assert any(kernel.signatures for kernel in kernels), module.__name__
    # both latent class E step kernels, the serial one and the one in blocks on threads
    assert inference._group_statistics.signatures
    assert engine._squared_norms.signatures  # SQUAREM's step length
    assert inference._group_statistics_in_blocks.signatures


def test_the_cache_folder_changes_with_the_sources(tmp_path):
    """numba checks a cached kernel against its own file only; hiddenbn keys its cache folder
    on the package's sources, so changing hiddenbn.inference.collapsed (whose kernels the SMC's are
    compiled with) moves every kernel to a new folder instead of leaving the SMC's stale. A
    process started by one that set the folder up keeps it."""
    import os
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    import hiddenbn

    copy = tmp_path / "source"
    shutil.copytree(Path(hiddenbn.__file__).parent, copy / "hiddenbn",
                    ignore=shutil.ignore_patterns("__pycache__"))

    def cache_folder(environment_folder):
        environment = {**os.environ, "PYTHONPATH": str(copy),
                       "NUMBA_CACHE_DIR": str(environment_folder)}
        return Path(subprocess.run(
            [sys.executable, "-c", "import hiddenbn.inference.collapsed, numba; "
                                   "print(numba.config.CACHE_DIR)"],
            env=environment, capture_output=True, text=True, check=True).stdout.strip())

    first = cache_folder(tmp_path / "cache")
    assert first.parent == tmp_path / "cache" and first.name.startswith("hiddenbn-kernels-")
    assert cache_folder(first) == first  # a child process of one that set it up
    with open(copy / "hiddenbn" / "inference" / "collapsed.py", "a") as source:
        source.write("\n# a change to a module the SMC kernels call\n")
    second = cache_folder(first)
    assert second.parent == tmp_path / "cache" and second != first
    assert cache_folder(tmp_path / "cache") == second  # the same sources, the same folder


def test_kernel_folders_of_other_sources_unused_for_long_are_pruned(tmp_path):
    """Each update of the sources leaves a kernel folder behind: the first start of new sources
    deletes the others unused for hiddenbn.UNUSED_KERNEL_FOLDER_DAYS, and a start marks its own
    folder used, so a folder still in use (another checkout sharing the cache) is kept."""
    import os
    import subprocess
    import sys
    import time
    from pathlib import Path

    import hiddenbn

    cache = tmp_path / "cache"
    long_ago = time.time() - (hiddenbn.UNUSED_KERNEL_FOLDER_DAYS + 1) * 86400
    stale, recent, other = (cache / "hiddenbn-kernels-0000000000000000",
                            cache / "hiddenbn-kernels-1111111111111111", cache / "not-ours")
    for folder in (stale, recent, other):
        folder.mkdir(parents=True)
        (folder / "kernel.nbi").write_text("")
    for folder in (stale, other):
        os.utime(folder, (long_ago, long_ago))

    def start():
        environment = {**os.environ, "NUMBA_CACHE_DIR": str(cache)}
        return Path(subprocess.run(
            [sys.executable, "-c", "import hiddenbn, numba; print(numba.config.CACHE_DIR)"],
            env=environment, capture_output=True, text=True, check=True).stdout.strip())

    own = start()
    assert not stale.exists() and recent.exists() and other.exists()
    own.mkdir()  # numba makes it on its first compile
    os.utime(own, (long_ago, long_ago))
    assert start() == own and own.stat().st_mtime > long_ago  # marked used on every start
