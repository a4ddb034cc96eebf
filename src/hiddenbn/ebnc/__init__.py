"""Embedded Bayesian network classifiers (paper 001): their dimension, fit and selection.

``model`` (the classifier embedded in a network, its log odds and its dimension) and
``fitting`` (the fit of its natural parameters, its scores and the search over embedded
networks). The interaction models, beside it in the layers, it does not import.

May import: hiddenbn.errors, hiddenbn.util, hiddenbn.models, hiddenbn.data, hiddenbn.inference,
hiddenbn.dimension, hiddenbn.scores, hiddenbn.learning.
"""
