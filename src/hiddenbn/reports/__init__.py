"""What the commands print and write: reports, their text form, files and figures.

One module per command: ``fit`` (``fit`` and ``select``: the report of a fitted network or
noisy-additive model, and the text of a selection), ``evidence``, ``dimension`` (``dim``),
``ebnc`` (``ebnc fit`` and ``select``) and ``regression`` (``fit --covariates``: one-step
latent class regression); ``lca`` (the latent class analysis: its report, text and posteriors
file), ``blrt`` (the text of the bootstrap likelihood-ratio tests), ``results``
(every command's result as a Python object, :mod:`hiddenbn.commands` returns them) and
``plots`` (figures).

May import: hiddenbn.errors, hiddenbn.util, hiddenbn.models, hiddenbn.data, hiddenbn.inference,
hiddenbn.dimension, hiddenbn.scores, hiddenbn.learning, hiddenbn.ebnc, hiddenbn.interaction,
hiddenbn.regression.
"""
