"""What a model scores on data: log p(D | S), exactly, by approximation and by Monte Carlo.

``approximations`` (BIC, BIC+, Draper, MLED, Cheeseman-Stutz, Laplace: paper 003 Secs. 2-3),
``integrated_completed_likelihood`` (ICL: BIC less the entropy of the hidden classes),
``singular_bic`` (sBIC, Drton and Plummer 2017), ``wbic`` (WBIC, Watanabe 2013: the mean
log-likelihood under the posterior tempered to 1 / log N, by Hamiltonian Monte Carlo), ``exact``
(the exact marginal likelihood by enumerating completions), ``smc`` (sequential Monte Carlo)
and ``lca_statistics`` (a latent class fit's information criteria, goodness of fit,
classification entropy and standard errors).

May import: hiddenbn.errors, hiddenbn.util, hiddenbn.models, hiddenbn.data, hiddenbn.inference,
hiddenbn.dimension.
"""
