"""Learning from data: parameters by EM, hidden cardinalities and structures by search.

``engine`` (what EM works on: the engine interface, one EM run, SQUAREM), ``em`` (the network
engines, the restart schedules and the fit), ``annealing`` (annealed starts), ``split_merge``
(split-and-merge moves), ``selection`` (fit and score a model, select the number of classes),
``blrt`` (the bootstrap likelihood-ratio test of k - 1 against k classes), ``hlc`` (the search
over the hidden cardinalities of hierarchical latent class models) and ``structure_search``
(greedy search over DAGs without hidden variables).

May import: hiddenbn.errors, hiddenbn.util, hiddenbn.models, hiddenbn.data, hiddenbn.inference,
hiddenbn.dimension, hiddenbn.scores.
"""
