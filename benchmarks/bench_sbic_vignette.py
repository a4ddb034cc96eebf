"""The latent class experiment of the sBIC package's vignette, with hiddenbn's search and sBIC.

Run with ``python -m benchmarks sbic_vignette`` (about two minutes on two cores). The vignette
(``vignettes/LatentClassAnalysis.Rmd`` of the R package sBIC, Lucaweihs/sBIC) draws 100 data
sets of 50 cases from a latent class model of 4 equally likely classes over 8 binary items,
fits the models of 1..6 classes to each by poLCA (ML, 50 random starts) and counts the number
of classes BIC and sBIC choose, sBIC at the prior parameters phi = 3, 3.5, 4, 4.5, 5
(:data:`VIGNETTE_TABLE`; 4.5 is the package's default, ``(d_1 + 1) / 2``). Here each data set is
fitted by hiddenbn's default search (:func:`hiddenbn.learning.selection.fit_and_score`: ML,
8 annealed starts, split-and-merge moves), BIC is ``bic_log_evidence`` and sBIC
:func:`hiddenbn.scores.singular_bic.latent_class_sbic`.

The generating model is the vignette's: item ``l`` takes its first state with probability
0.85 in the class it marks (items 1-2 mark class 1, 3-4 class 2, ...) and 0.1 (odd items) or
0.2 (even items) in the others. The vignette's seeds (``set.seed(1234)`` for R's generator in
poLCA's ``poLCA.simdata``) cannot be replayed here, so the data sets are other draws from the
same model (:data:`SEED`): the two tables are two samples of 100 data sets each, and agree when
they differ by no more than Monte-Carlo error.

**The test.** For each criterion (a column), the two frequency vectors over 1..6 classes are
compared by the chi-square test of homogeneity of two multinomial samples, its p-value by
:data:`PERMUTATIONS` random permutations of the 200 pooled choices (the margins fixed, as R's
``chisq.test(simulate.p.value = TRUE)`` computes it: exact in the limit, where the expected
counts are too small for the chi-square distribution). A column agrees when its p-value is at
least :data:`ALPHA` divided by the 6 columns (Bonferroni). Beside it, the headline shares
(BIC choosing 1, 2 and 3 classes; sBIC at phi = 4 choosing 4) get 95% Wilson intervals from our
100 data sets. Nothing here is tuned to the vignette's numbers.
"""

from __future__ import annotations

import math
import time

import numpy as np

from hiddenbn.data.sampling import sample_dataset
from hiddenbn.learning.selection import fit_and_score, latent_class_network
from hiddenbn.models.network import latent_class
from hiddenbn.scores.singular_bic import latent_class_sbic
from hiddenbn.util import seeding

#: The vignette's item-response probabilities: row ``l`` is item ``l + 1``, column ``h`` class
#: ``h + 1``, each the probability of the item's first state.
HIGH, LOW_ODD, LOW_EVEN = 0.85, 0.1, 0.2
ITEM_FIRST_STATE = np.array([[HIGH if h == l // 2 else (LOW_ODD if l % 2 == 0 else LOW_EVEN)
                              for h in range(4)] for l in range(8)])
CLASS_SIZES = np.full(4, 0.25)
N_CASES, REPLICATES, MAX_CLASSES = 50, 100, 6
PHIS = (3.0, 3.5, 4.0, 4.5, 5.0)
#: The vignette's Table 1: how often each criterion chose 1..6 classes in its 100 data sets.
VIGNETTE_TABLE = {"BIC": (38, 42, 20, 0, 0, 0), "sBIC3": (0, 0, 3, 55, 38, 4),
                  "sBIC3.5": (0, 0, 11, 72, 16, 1), "sBIC4": (0, 0, 16, 75, 9, 0),
                  "sBIC4.5": (0, 1, 26, 70, 3, 0), "sBIC5": (0, 3, 34, 61, 2, 0)}
SEED = 1234
PERMUTATIONS = 20_000
ALPHA = 0.05


def generating_parameters() -> tuple:
    """The vignette's latent class model (4 classes, 8 binary items) and its CPTs."""
    network = latent_class(4, [2] * 8)
    return network, [CLASS_SIZES[None, :]] + [np.column_stack([row, 1 - row])
                                              for row in ITEM_FIRST_STATE]


def choices(replicates: int = REPLICATES, max_classes: int = MAX_CLASSES, phis=PHIS,
            seed: int = SEED, n_cases: int = N_CASES) -> dict:
    """``{criterion: [number of classes chosen in each data set]}`` for BIC and sBIC at each
    phi (names as :data:`VIGNETTE_TABLE`'s), from ``replicates`` data sets of ``n_cases``."""
    network, cpts = generating_parameters()
    chosen = {"BIC": []} | {f"sBIC{phi:g}": [] for phi in phis}
    for replicate in range(replicates):
        data = sample_dataset(network, cpts, n_cases, seeding.rng(seed, "data", replicate))
        outcomes = [fit_and_score(latent_class_network(data, k), data,
                                  seeding.job_seed(seed, "em", replicate),
                                  with_effective_dimension=False, with_laplace=False)["scores"]
                    for k in range(1, max_classes + 1)]
        bic = [scores["bic_log_evidence"] for scores in outcomes]
        chosen["BIC"].append(int(np.argmax(bic)) + 1)
        log_likelihoods = [scores["loglik"] for scores in outcomes]
        for phi in phis:
            sbic = latent_class_sbic(log_likelihoods, [2] * 8, n_cases, phi)
            chosen[f"sBIC{phi:g}"].append(int(np.argmax(sbic)) + 1)
    return chosen


def frequencies(chosen: list, max_classes: int = MAX_CLASSES) -> tuple:
    """How often each number of classes 1..``max_classes`` was chosen."""
    return tuple(int(c) for c in np.bincount(chosen, minlength=max_classes + 1)[1:])


def chi_square(table: np.ndarray) -> float:
    """Pearson's statistic of homogeneity of the rows of a contingency ``table`` (columns with
    no count in any row left out)."""
    table = table[:, table.sum(axis=0) > 0]
    expected = table.sum(axis=1, keepdims=True) * table.sum(axis=0) / table.sum()
    return float(((table - expected) ** 2 / expected).sum())


def homogeneity_p_value(ours, theirs, rng: np.random.Generator,
                        permutations: int = PERMUTATIONS) -> float:
    """p-value of the chi-square test that two frequency vectors are samples of one
    multinomial, by permuting the pooled choices between the two samples (the module's
    docstring); ``(1 + #{permuted >= observed}) / (1 + permutations)``."""
    ours, theirs = np.asarray(ours), np.asarray(theirs)
    observed = chi_square(np.vstack([ours, theirs]))
    pooled = np.repeat(np.arange(ours.size), ours + theirs)
    size, bins = int(ours.sum()), ours.size
    as_extreme = 0
    for _ in range(permutations):
        first = np.bincount(rng.permutation(pooled)[:size], minlength=bins)
        as_extreme += chi_square(np.vstack([first, ours + theirs - first])) >= observed - 1e-9
    return (1 + as_extreme) / (1 + permutations)


def wilson_interval(successes: int, trials: int, z: float = 1.959964) -> tuple:
    """The 95% Wilson score interval of a binomial proportion."""
    share = successes / trials
    centre = (share + z * z / (2 * trials)) / (1 + z * z / trials)
    half = z * math.sqrt(share * (1 - share) / trials + z * z / (4 * trials * trials)) / (
        1 + z * z / trials)
    return centre - half, centre + half


def comparison_lines(chosen: dict, reference: dict = VIGNETTE_TABLE, seed: int = SEED,
                     permutations: int = PERMUTATIONS) -> list:
    """The two tables side by side, each column's homogeneity p-value and verdict, and the
    headline shares with their Wilson intervals."""
    rng = seeding.rng(seed, "permutations")
    columns = list(reference)
    threshold = ALPHA / len(columns)
    lines = ["classes " + " ".join(f"{name:>15}" for name in columns),
             "        " + " ".join(f"{'ours/vignette':>15}" for _ in columns)]
    ours = {name: frequencies(chosen[name]) for name in columns}
    for k in range(MAX_CLASSES):
        lines.append(f"{k + 1:>7} " + " ".join(
            f"{f'{ours[name][k]}/{reference[name][k]}':>15}" for name in columns))
    verdicts = []
    for name in columns:
        p = homogeneity_p_value(ours[name], reference[name], rng, permutations)
        verdicts.append(p >= threshold)
        lines.append(f"{name}: homogeneity p = {p:.4f} ({permutations} permutations), "
                     + ("agrees" if p >= threshold else "DIFFERS")
                     + f" at {ALPHA} / {len(columns)} = {threshold:.4f}")
    trials = len(chosen["BIC"])
    for name, k in (("BIC", 1), ("BIC", 2), ("BIC", 3), ("sBIC4", 4)):
        low, high = wilson_interval(ours[name][k - 1], trials)
        lines.append(f"{name} chooses {k}: ours {ours[name][k - 1]}/{trials} (95% Wilson "
                     f"{100 * low:.0f}-{100 * high:.0f}%), vignette {reference[name][k - 1]}/100")
    lines.append(f"verdict: {sum(verdicts)} of {len(columns)} columns agree with the vignette "
                 "within Monte-Carlo error")
    return lines


def run() -> list:
    start = time.perf_counter()
    chosen = choices()
    seconds = time.perf_counter() - start
    return ([f"{REPLICATES} data sets of {N_CASES} cases, models of 1..{MAX_CLASSES} classes "
             f"fitted by the default search in {seconds:.0f} s"]
            + comparison_lines(chosen))
