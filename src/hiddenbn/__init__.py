"""hiddenbn: model selection in Bayesian networks with hidden variables.

The reference implementation of five papers on effective dimension, marginal-likelihood
approximations, causal-interaction models and embedded Bayesian-network classifiers (see
``README.md``). Modules are named after the concept they implement: :mod:`hiddenbn.models.spec`,
:mod:`hiddenbn.models.network`, :mod:`hiddenbn.data.sampling`, :mod:`hiddenbn.data`,
:mod:`hiddenbn.util.seeding`.
"""

import hashlib
import os
import sys


def _key_numba_cache() -> None:
    """Keep numba's cached machine code in a folder named after the kernels' sources.

    numba checks a cached kernel against its own file only, so a kernel that calls kernels of
    another module (the SMC's and the annealed search's moves are
    :mod:`hiddenbn.inference.collapsed`'s) or reads its constants keeps its cached machine code when
    only that module changes: after such an update (a ``git pull``) it would run the old code. A
    folder per version of the package's sources (hashing them takes a few milliseconds) leaves
    nothing stale; a change anywhere costs one compile per kernel. The folder lies in
    ``NUMBA_CACHE_DIR`` when that is set (a shared cache; a process started by one that set it up
    keeps its folder), else in the package's ``__pycache__``, numba's own default, when that is
    writable (an install that cannot be written to is replaced whole, never file by file).
    """
    package = os.path.dirname(os.path.abspath(__file__))
    digest = hashlib.sha256()
    for folder, subfolders, files in os.walk(package):
        # sources only: not numba's cache folders, which grow under __pycache__
        subfolders[:] = sorted(name for name in subfolders if name != "__pycache__")
        for file in sorted(files):
            if file.endswith(".py"):
                path = os.path.join(folder, file)
                with open(path, "rb") as source:
                    digest.update(os.path.relpath(path, package).encode() + b"\0" + source.read())
    name = "hiddenbn-kernels-" + digest.hexdigest()[:16]
    parent = os.environ.get("NUMBA_CACHE_DIR")
    if not parent:
        if not os.access(package, os.W_OK):
            return
        parent = os.path.join(package, "__pycache__")
    if os.path.basename(parent).startswith("hiddenbn-kernels-"):  # set up by the parent process
        parent = os.path.dirname(parent)
    folder = os.path.join(parent, name)
    os.environ["NUMBA_CACHE_DIR"] = folder
    if "numba" in sys.modules:  # it read the environment when it was imported
        sys.modules["numba"].config.CACHE_DIR = folder


_key_numba_cache()


def __getattr__(name: str):
    """``hiddenbn.__version__``, read from the installed package's metadata when first asked
    for: importing :mod:`importlib.metadata` costs as much as the rest of ``hiddenbn --help``."""
    if name != "__version__":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib.metadata import PackageNotFoundError, version

    try:
        value = version("hiddenbn")
    except PackageNotFoundError:  # running from a source tree that was not installed
        value = "0+unknown"
    globals()["__version__"] = value
    return value
