"""The effective dimension of a model with hidden variables (paper 000; paper 002 Sec. 2.4).

``rank`` (numerical and modular ranks of a matrix), ``jacobian`` (the Jacobian of the map from
parameters to the observed distribution) and ``effective`` (the effective dimension, its bounds
for latent class models and the decomposition of hierarchical latent class models).

May import: hiddenbn.errors, hiddenbn.util, hiddenbn.models, hiddenbn.data, hiddenbn.inference.
"""
