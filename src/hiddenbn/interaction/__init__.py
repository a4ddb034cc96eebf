"""Fitting causal interaction models (paper 004): noisy-max and noisy-additive mechanisms.

``noisy_max`` (mechanism posteriors and EM of noisy-max models) and ``noisy_additive`` (Poisson
and Gaussian noisy-additive models, their data and scores). The models themselves are
:mod:`hiddenbn.models.interaction`. The EBNCs, beside it in the layers, it does not import.

May import: hiddenbn.errors, hiddenbn.util, hiddenbn.models, hiddenbn.data, hiddenbn.inference,
hiddenbn.dimension, hiddenbn.scores, hiddenbn.learning.
"""
