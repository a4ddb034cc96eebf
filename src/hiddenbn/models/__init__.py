"""The models: networks, their specs, the Dirichlet prior, causal interaction models.

``network`` (:class:`~hiddenbn.models.network.Network`, its conditional probability tables and
parameter files), ``spec`` (the shorthand, tree and YAML/JSON forms a user writes a model in),
``priors`` (the Dirichlet prior of the CPT rows and what complete data give under it: the MAP
update, Cooper and Herskovits' marginal likelihood), ``independence`` (d-separation, and the
conditional independencies a parameter point adds beyond its structure) and ``interaction``
(causal interaction models: structure and spec). Nothing here looks at data.

May import: hiddenbn.errors, hiddenbn.util.
"""
