# flexmix's latent class regression for tests/test_regression_peers.py: binary items
# (FLXMCmvbinary) whose class membership is a multinomial logit of covariates (FLXPmultinom),
# the best of several random starts (stepFlexmix), standard errors from refit().
#
# Usage: Rscript flexmix_concomitant.R DATA ITEMS COVARIATES CLASSES STARTS SEED OUTPUT
#   DATA: a CSV file of 0/1 items, covariates and a `count` column of case weights; a text
#         covariate becomes a factor whose first level (sorted) is the reference.
#   ITEMS, COVARIATES: column names separated by commas.
#   OUTPUT: a CSV file with columns quantity, component, term, value: the log-likelihood, each
#           component's logit coefficients (component 1 the reference, all zero), item
#           probabilities and posterior of each data row (its number the term), and the
#           covariance of the coefficients of components 2..K (component 2's first; the
#           matrix's row and column in component and term).
suppressPackageStartupMessages(library(flexmix))
arguments <- commandArgs(trailingOnly = TRUE)
data <- read.csv(arguments[1], stringsAsFactors = TRUE)
items <- strsplit(arguments[2], ",")[[1]]
covariates <- strsplit(arguments[3], ",")[[1]]
classes <- as.integer(arguments[4])
starts <- as.integer(arguments[5])
set.seed(as.integer(arguments[6]))
output <- arguments[7]

y <- as.matrix(data[, items])
concomitant <- FLXPmultinom(as.formula(paste("~", paste(covariates, collapse = " + "))))
# FLXPmultinom's M step (nnet) and its final coefficients (multinom) stop at nnet's default
# relative change of 1e-8 in the weighted cross-entropy, which leaves the coefficients about
# 1e-3 standard errors short of the maximiser; these are the same two functions with tolerances
# at the limit of double precision (its @refit passes no arguments on, so it is rewritten).
concomitant@fit <- function(x, y, w, ...) {
  mask <- c(rep(0, ncol(x) + 1), rep(c(0, rep(1, ncol(x))), ncol(y) - 1))
  nnet::nnet.default(x, y, w, mask = mask, size = 0, skip = TRUE, softmax = TRUE,
                     censored = FALSE, rang = 0, trace = FALSE, abstol = 0, reltol = 1e-15,
                     maxit = 10000)$fitted.values
}
concomitant@refit <- function(x, y, w, ...) {
  rownames(y) <- rownames(x) <- NULL
  nnet::multinom(y ~ 0 + x, weights = w, data = list(y = y, x = x), trace = FALSE,
                 abstol = 0, reltol = 1e-15, maxit = 10000)
}
fit <- stepFlexmix(y ~ 1, data = data, k = classes, nrep = starts, weights = data$count,
                   model = FLXMCmvbinary(), concomitant = concomitant, verbose = FALSE,
                   control = list(tolerance = 1e-13, iter.max = 20000, minprior = 0))
# The observed information at the EM solution: refit() hands it to optim(), which with no
# iterations (maxit = 0) only differentiates there; moving on would step the item
# probabilities outside (0, 1).
refitted <- refit(fit, optim_control = list(maxit = 0))

table <- function(quantity, component, term, value) {
  data.frame(quantity = quantity, component = component, term = term, value = value)
}
coefficients <- fit@concomitant@coef
concomitant_terms <- grep("^concomitant_", names(refitted@coef), value = TRUE)
posterior <- posterior(fit)
covariance <- refitted@vcov[concomitant_terms, concomitant_terms]
rows <- list(table("log_likelihood", NA, NA, as.numeric(logLik(fit))),
             table("covariance", as.vector(row(covariance)), as.vector(col(covariance)),
                   as.vector(covariance)))
for (k in seq_len(classes)) {
  rows <- c(rows, list(table("coefficient", k, rownames(coefficients), coefficients[, k]),
                       table("item_probability", k, items, parameters(fit, component = k)[, 1]),
                       table("posterior", k, seq_len(nrow(posterior)), posterior[, k])))
}
write.csv(do.call(rbind, rows), output, row.names = FALSE)
