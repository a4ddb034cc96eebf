"""Each paper's experimental protocol as plain functions, called by the workflow's rules.

One module per paper (``papers`` is the registry, the only list of them), the shared
``comparison`` and ``reproduction`` helpers, the user's ``studies`` and ``workflow_config`` (the
check of the workflow's config, section by section).

May import: hiddenbn.errors, hiddenbn.util, hiddenbn.models.network, hiddenbn.data,
hiddenbn.inference.enumeration, hiddenbn.dimension.effective, hiddenbn.scores.approximations,
hiddenbn.learning, hiddenbn.ebnc.model, hiddenbn.models.interaction, hiddenbn.reports.
"""
