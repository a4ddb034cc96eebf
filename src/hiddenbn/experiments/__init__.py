"""Each paper's experimental protocol as plain functions, called by the workflow's rules.

One module per paper (``papers`` is the registry, the only list of them, and writes down the
protocols the workflow calls them by), the shared ``comparison`` and ``reproduction`` helpers,
the user's ``studies`` and ``blrt`` (the bootstrap test's replicates as jobs), and
``workflow_config`` (the check of the workflow's config, section by section). The estimators,
beside it in the layers, it does not import.

May import: hiddenbn.errors, hiddenbn.util, hiddenbn.models, hiddenbn.data, hiddenbn.inference,
hiddenbn.dimension, hiddenbn.scores, hiddenbn.learning, hiddenbn.ebnc, hiddenbn.interaction,
hiddenbn.regression, hiddenbn.reports, hiddenbn.commands.
"""
