"""What the commands print and write: reports, their text form, files and figures.

``interaction`` (the reports of causal interaction models), ``blrt`` (the text of the bootstrap
likelihood-ratio tests) and ``plots`` (figures).

May import: hiddenbn.errors, hiddenbn.util, hiddenbn.models, hiddenbn.data, hiddenbn.inference,
hiddenbn.dimension, hiddenbn.scores, hiddenbn.learning, hiddenbn.ebnc, hiddenbn.interaction.
"""
