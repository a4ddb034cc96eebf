"""Exact inference: posteriors of hidden values and expected counts given observed patterns.

``enumeration`` (every joint hidden state; small networks and latent class models),
``message_passing`` (trees and forests), ``junction_tree`` (any other network), ``exact`` (picks
the method that suits a network's structure), ``latent_class`` (a latent class model's class
posteriors, exact with missing cells) and ``collapsed`` (a case's hidden configuration given
every other case's, the parameters integrated out: the kernels of the annealed search and of the
Monte-Carlo evidence).

May import: hiddenbn.errors, hiddenbn.util, hiddenbn.models, hiddenbn.data.
"""
