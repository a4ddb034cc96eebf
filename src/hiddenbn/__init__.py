"""hiddenbn: model selection in Bayesian networks with hidden variables.

The reference implementation of five papers on effective dimension, marginal-likelihood
approximations, causal-interaction models and embedded Bayesian-network classifiers (see
``README.md``). Modules are named after the concept they implement: :mod:`hiddenbn.spec`,
:mod:`hiddenbn.models`, :mod:`hiddenbn.sampling`, :mod:`hiddenbn.data`, :mod:`hiddenbn.seeding`.
"""


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
