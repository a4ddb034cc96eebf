"""Latent class regression: covariates that predict class membership.

``covariates`` (the covariate design matrix read from a data file's cells: numeric and
dummy-coded categorical covariates, the rows dropped for a missing covariate, and the checks
that refuse a constant, collinear, all-missing or mistyped covariate), ``multinomial_logit``
(the class-membership model, a multinomial logit with class 1 as the reference, fitted to
weighted class memberships by Newton's method on the standardised design, with its gradient,
Hessian, standard errors and a check for separation), ``one_step`` (one-step latent class
regression: the items' latent class model with the multinomial logit as its class prior, fitted
by EM with the project's search, its observed information, standard errors and scores) and
``three_step`` (three-step estimation: the measurement model, modal assignment with its
classification error, the covariate logit corrected by BCH or ML). The EBNCs and the
interaction models, beside it in the layers, it does not import.

May import: hiddenbn.errors, hiddenbn.util, hiddenbn.models, hiddenbn.data, hiddenbn.inference,
hiddenbn.dimension, hiddenbn.scores, hiddenbn.learning.
"""
