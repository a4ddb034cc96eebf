"""hiddenbn: model selection in Bayesian networks with hidden variables.

The reference implementation of five papers on effective dimension, marginal-likelihood
approximations, causal-interaction models and embedded Bayesian-network classifiers (see
``README.md``). Modules are named after the concept they implement: :mod:`hiddenbn.spec`,
:mod:`hiddenbn.models`, :mod:`hiddenbn.sampling`, :mod:`hiddenbn.data`, :mod:`hiddenbn.seeding`.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("hiddenbn")
except PackageNotFoundError:  # running from a source tree that was not installed
    __version__ = "0+unknown"
