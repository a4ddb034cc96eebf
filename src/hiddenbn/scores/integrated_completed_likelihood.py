"""ICL, the integrated completed likelihood criterion (Biernacki, Celeux & Govaert 2000), on the
scale of ``log p(D | S)``.

BIC approximates the log marginal likelihood of the observed data; ICL approximates that of the
data *completed* by their hidden classes, so a model whose classes overlap (cases it cannot
assign) pays for it. Biernacki et al. complete the data with the modal classes ``z_hat``:
``log p(D, z_hat | theta_hat) - d/2 log N``. With each case's posterior in place of its modal
class this is BIC penalised by the classification entropy (McLachlan & Peel 2000 call it
ICL-BIC), the form computed here, since ``log p(x, h) = log p(x) + log p(h | x)``::

    icl_log_evidence = bic_log_evidence - E,
    E = sum_n H(h | x_n) = -sum_n sum_h p(h | x_n) log p(h | x_n)  >= 0,

where ``bic_log_evidence = log p(D | theta_hat) - ds/2 log N`` (paper 003 Eq. 9) is ``-BIC/2``,
so ``icl_log_evidence`` is ``-ICL/2`` of the criterion ``ICL = BIC + 2E``: larger is better.
With one class, or classes that every case belongs to with certainty, ``E = 0`` and ICL is BIC.

``h`` is the joint state of *all* hidden nodes: for a latent class model the class (``E`` is
the classification entropy of the LCA output,
:func:`hiddenbn.scores.lca_statistics.classification_entropy`); for a network with several
hidden nodes (a hierarchical latent class model, ...) their joint configuration. That entropy
needs no enumeration of the joint states: with ``log p(x, h) = sum_i log theta_i(v_i | pa_i)``,

    H(h | x) = log p(x) - E[log p(x, h) | x] = log p(x) - sum_i sum_c p(fam_i = c | x) log theta_ic,

so ``E = log p(D | theta) - sum_ijk E(N_ijk) log theta_ijk``: the log-likelihood less the
expected complete-data log-likelihood, from the expected counts of one exact E step (paper 003
Eq. 11, family posteriors by :mod:`hiddenbn.inference.exact`). A missing cell is completed by
those counts as well, which would add its own entropy to the classes'; so a network other than
the latent class model (whose posteriors sum the missing items out) gets no ICL on data with
missing cells.

References: C. Biernacki, G. Celeux and G. Govaert (2000), Assessing a mixture model for
clustering with the integrated completed likelihood, IEEE Trans. Pattern Anal. Mach. Intell.
22(7): 719-725; G. McLachlan and D. Peel (2000), Finite Mixture Models, Wiley.
"""

from __future__ import annotations

from hiddenbn.data import MISSING, Dataset
from hiddenbn.inference.enumeration import is_latent_class
from hiddenbn.inference.exact import expected_statistics
from hiddenbn.inference.latent_class import class_posteriors
from hiddenbn.scores.approximations import complete_log_likelihood
from hiddenbn.scores.lca_statistics import classification_entropy

#: Why a network other than a latent class model has no ICL on data with missing cells.
MISSING_CELLS_NOTE = ("no ICL: on data with missing cells the entropy of this network's hidden "
                      "nodes alone is not given by its family posteriors (they complete the "
                      "missing cells too); only a latent class model sums them out")


def hidden_entropy(network, cpts, data: Dataset,
                   statistics: tuple | None = None) -> tuple[float | None, str | None]:
    """``E = sum_n H(h | x_n)``, the entropy of the hidden nodes' joint posterior summed over
    the cases of ``data`` at the parameters ``cpts`` (the module's docstring).

    Parameters
    ----------
    network : Network
    cpts : list
        The parameters, in network order (``None`` for deterministic nodes).
    data : Dataset
    statistics : tuple, optional
        ``(expected counts E(N_ijk) per node, log p(D | theta))`` of an exact E step at
        ``cpts``, as a fit holds them (its ``expected_counts`` and ``log_likelihood``, from
        whatever engine fitted it); computed by
        :func:`hiddenbn.inference.exact.expected_statistics` when not given. A latent class
        model does not need them.

    Returns
    -------
    entropy : float or None
    why_none : str or None
        Why there is no entropy (:data:`MISSING_CELLS_NOTE`), else None.
    """
    data = data.for_network(network)
    if is_latent_class(network):
        posterior, _ = class_posteriors(network, cpts, data.patterns)
        return classification_entropy(posterior, data.counts), None
    if (data.patterns == MISSING).any():
        return None, MISSING_CELLS_NOTE
    expected, log_likelihood = (expected_statistics(network, cpts, data.patterns, data.counts)
                                if statistics is None else statistics)
    # the difference of two sums of N terms: a sharp posterior leaves rounding around 0
    return max(0.0, float(log_likelihood - complete_log_likelihood(cpts, expected))), None


def icl_log_evidence(bic_log_evidence: float, entropy: float) -> float:
    """``bic_log_evidence - E``: ``-ICL/2`` (Biernacki, Celeux & Govaert 2000, with the
    posteriors in place of the modal classes), larger is better."""
    return bic_log_evidence - entropy
