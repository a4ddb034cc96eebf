"""hiddenbn: model selection in Bayesian networks with hidden variables.

The reference implementation of five papers on effective dimension, marginal-likelihood
approximations, causal-interaction models and embedded Bayesian-network classifiers (see
``README.md``), as a command line (``hiddenbn``) and this Python package. Docstrings cite them
by number, as the experiments name them:

* paper 000: Geiger, Heckerman & Meek (1996), effective dimension
  (``experiments.geiger_heckerman_meek1996``);
* paper 001: Heckerman & Meek (1997), embedded Bayesian-network classifiers
  (``experiments.heckerman_meek1997``);
* paper 002: Kocka & Zhang (2002), dimension correction for hierarchical latent class models
  (``experiments.kocka_zhang2002``);
* paper 003: Chickering & Heckerman (1996), marginal-likelihood approximations for incomplete
  data (``experiments.chickering_heckerman1996``);
* paper 004: Meek & Heckerman (1997), causal-interaction models
  (``experiments.meek_heckerman1997``).

The names below are the public API, each imported from its module when first used, so that
``import hiddenbn`` loads neither numpy nor numba, scipy or pandas (``tests/test_startup.py``):

* the commands: :func:`fit`, :func:`select`, :func:`log_evidence`, :func:`dimensions`,
  :func:`sample`, :func:`parameters`, :func:`ebnc_fit`, :func:`ebnc_select` and
  :func:`check_config_file` do what ``hiddenbn fit``, ``select``, ``evidence``, ``dim``,
  ``sample``, ``params``, ``ebnc fit``, ``ebnc select`` and ``check-config`` do, with the same
  defaults, and return what they print as objects (:class:`FitResult`,
  :class:`LatentClassReport`, :class:`SelectionResult`, :class:`EvidenceResult`,
  :class:`DimensionResult`, :class:`ParametersResult`, :class:`EbncFitResult`,
  :class:`EbncSelectionResult`, :class:`ConfigCheckResult`);
* a scikit-learn-style estimator of latent class models, :class:`LatentClassModel`;
* models and data: :func:`parse_spec`, :class:`Network`, :func:`latent_class`,
  :func:`random_parameters`, :func:`read_data`, :class:`Dataset`, :class:`DataFile`;
* the scores of a fit, :func:`score_fit`, and every error, :class:`HiddenbnError`.

The package is split into subpackages by role, lowest first: :mod:`hiddenbn.util`,
:mod:`hiddenbn.models`, :mod:`hiddenbn.data`, :mod:`hiddenbn.inference`,
:mod:`hiddenbn.dimension`, :mod:`hiddenbn.scores`, :mod:`hiddenbn.learning`,
:mod:`hiddenbn.ebnc`, :mod:`hiddenbn.interaction`, :mod:`hiddenbn.reports`,
:mod:`hiddenbn.experiments`; above them the command line (:mod:`hiddenbn.cli`), the commands'
functions (:mod:`hiddenbn.commands`) and the estimators (:mod:`hiddenbn.estimators`).

Examples
--------
>>> import hiddenbn
>>> frame = hiddenbn.sample("2:2,2,2,2", n=500, seed=1)
>>> model = hiddenbn.LatentClassModel(n_classes=2, random_state=1).fit(frame)
>>> round(model.score(frame) * len(frame), 3) == round(hiddenbn.fit(frame, classes=2,
...                                                                  seed=1).log_likelihood, 3)
True
"""

import hashlib
import os
import shutil
import sys
import time


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
    _prune_kernel_folders(parent, folder)


#: Days after which the kernel folder of another version of the sources, unused since, is
#: deleted: each update leaves one behind (1-2 MB), and in a shared cache another checkout
#: still in use marks its own folder used on every start, so it is never pruned.
UNUSED_KERNEL_FOLDER_DAYS = 30


def _prune_kernel_folders(parent: str, folder: str) -> None:
    """Mark ``folder`` used (its modification time) and, when it does not exist yet (the first
    start of these sources, so at most once per update), delete the other ``hiddenbn-kernels-``
    folders of ``parent`` unused for :data:`UNUSED_KERNEL_FOLDER_DAYS`. A process of an old
    version still running then compiles a kernel it has not loaded yet again: slower, never
    wrong. Best effort: a cache that cannot be written to is left as it is."""
    try:
        os.utime(folder)
        return
    except FileNotFoundError:
        pass
    except OSError:
        return
    oldest = time.time() - UNUSED_KERNEL_FOLDER_DAYS * 86400
    try:
        entries = list(os.scandir(parent))
    except OSError:
        return
    for entry in entries:
        try:
            if (entry.name.startswith("hiddenbn-kernels-") and entry.path != folder
                    and entry.is_dir(follow_symlinks=False)
                    and entry.stat(follow_symlinks=False).st_mtime < oldest):
                shutil.rmtree(entry.path, ignore_errors=True)
        except OSError:
            continue


_key_numba_cache()


#: Each public name and the module it is imported from when first used.
_EXPORTS = {
    "fit": "hiddenbn.commands", "select": "hiddenbn.commands",
    "log_evidence": "hiddenbn.commands", "dimensions": "hiddenbn.commands",
    "sample": "hiddenbn.commands", "parameters": "hiddenbn.commands",
    "ebnc_fit": "hiddenbn.commands", "ebnc_select": "hiddenbn.commands",
    "check_config_file": "hiddenbn.experiments.workflow_config",
    "FitResult": "hiddenbn.reports.results", "LatentClassReport": "hiddenbn.reports.results",
    "SelectionResult": "hiddenbn.reports.results",
    "EvidenceResult": "hiddenbn.reports.results", "DimensionResult": "hiddenbn.reports.results",
    "ParametersResult": "hiddenbn.reports.results", "EbncFitResult": "hiddenbn.reports.results",
    "EbncSelectionResult": "hiddenbn.reports.results",
    "ConfigCheckResult": "hiddenbn.reports.results",
    "LatentClassModel": "hiddenbn.estimators",
    "parse_spec": "hiddenbn.models.spec", "Network": "hiddenbn.models.network",
    "latent_class": "hiddenbn.models.network",
    "random_parameters": "hiddenbn.models.network",
    "read_data": "hiddenbn.data", "Dataset": "hiddenbn.data", "DataFile": "hiddenbn.data",
    "score_fit": "hiddenbn.scores.approximations", "HiddenbnError": "hiddenbn.errors",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    """A public name (:data:`__all__`), imported from its module when first asked for, and
    ``hiddenbn.__version__``, read from the installed package's metadata then: importing
    :mod:`importlib.metadata` costs as much as the rest of ``hiddenbn --help``."""
    if name in _EXPORTS:
        import importlib

        value = getattr(importlib.import_module(_EXPORTS[name]), name)
        globals()[name] = value
        return value
    if name != "__version__":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib.metadata import PackageNotFoundError, version

    try:
        value = version("hiddenbn")
    except PackageNotFoundError:  # running from a source tree that was not installed
        value = "0+unknown"
    globals()["__version__"] = value
    return value


def __dir__() -> list:
    """The module's names with the public ones not imported yet."""
    return sorted(set(globals()) | set(__all__) | {"__version__"})
