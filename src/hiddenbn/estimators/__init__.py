"""Estimators in the style of scikit-learn, over hiddenbn's models.

:class:`LatentClassModel` (module :mod:`hiddenbn.estimators.latent_class`) fits the latent
class model of categorical data with ``.fit(X)`` and answers ``.predict_proba``, ``.predict``,
``.score``, ``.bic``, ``.sample``, ... as scikit-learn's mixtures do. It fits by the search of
``hiddenbn fit`` (:func:`hiddenbn.learning.selection.search`), so its fit equals the command
line's on the same data and seed.

It sits at the top of the package, beside the command line: nothing imports it but the lazy
exports of :mod:`hiddenbn`.

It reads the data and builds the model by :mod:`hiddenbn.commands`.

May import: hiddenbn.errors, hiddenbn.util, hiddenbn.models, hiddenbn.data, hiddenbn.inference,
hiddenbn.dimension, hiddenbn.scores, hiddenbn.learning, hiddenbn.ebnc, hiddenbn.interaction,
hiddenbn.regression, hiddenbn.reports, hiddenbn.commands.
"""

from hiddenbn.estimators.latent_class import LatentClassModel

__all__ = ["LatentClassModel"]
