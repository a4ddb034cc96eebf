"""Model selection: fit a family of models to one data set and compare every score.

:func:`fit_and_score` fits one network by EM (:func:`hiddenbn.learning.em.fit`, by default from
annealed starts) and evaluates every score of :mod:`hiddenbn.scores.approximations`;
:func:`select_latent_class` does it for the latent class models ``k:r1,...,rn`` (paper 002 Sec. 2.2,
paper 003 Sec. 3) over a range of ``k`` and reports which ``k`` each score selects. Both report how
many of EM's independent searches reached the best fit (:func:`replication_note` says when only one
did).
"""

from __future__ import annotations

import math

from hiddenbn.data import Dataset
from hiddenbn.dimension.effective import effective_dimension_or_reason
from hiddenbn.errors import DataError, HiddenbnError, excerpt, for_caller, option
from hiddenbn.inference.enumeration import MAX_HIDDEN_CONFIGURATIONS, hidden_configuration_count
from hiddenbn.learning.em import REPLICATION_TOLERANCE, best_found, fit, run_em
from hiddenbn.models.network import Network, latent_class
from hiddenbn.scores import singular_bic
from hiddenbn.scores.approximations import LAPLACE_MAX_DIMENSION, hessian_refusal, score_fit
from hiddenbn.scores.integrated_completed_likelihood import hidden_entropy, icl_log_evidence
from hiddenbn.scores.lca_statistics import model_comparison
from hiddenbn.scores.wbic import wbic_of_fit
from hiddenbn.util import limits, seeding
from hiddenbn.util.defaults import PRIOR_ALPHA, SCHEDULE

#: Scores reported for every model, in display order (BIC+/CS+ only when de is known).
SCORE_NAMES = ("loglik", "bic_log_evidence", "icl_log_evidence", "bic_plus_log_evidence",
               "draper", "mled", "cs", "cs_plus", "laplace", "wbic_log_evidence")
#: The scores of ``select`` and ``fit``, in display order: every model's and sBIC, which is a
#: fixed point over the models of 1..K classes (:mod:`hiddenbn.scores.singular_bic`).
SELECTION_SCORE_NAMES = SCORE_NAMES[:2] + ("sbic_log_evidence",) + SCORE_NAMES[2:]
#: The sign convention of the scores, as every report states it.
SCORES_ORIENTATION = ("approximations of the log marginal likelihood log p(D | model) (loglik: "
                      "the log-likelihood): larger is better; bic_log_evidence is -BIC/2, "
                      "icl_log_evidence -ICL/2 (BIC less the entropy of the hidden classes), "
                      "wbic_log_evidence -WBIC")
#: The information criteria of the latent class output
#: (:func:`hiddenbn.scores.lca_statistics.model_comparison`) that ``select`` also selects by, the
#: smallest value winning.
CRITERIA = ("aic", "bic", "sabic", "caic")


def fit_and_score(network: Network, data: Dataset, seed: int, alpha: float = PRIOR_ALPHA,
                  restarts: int | None = None, with_effective_dimension: bool = True,
                  with_laplace: bool = True, initial=None, wbic_draws: int | None = None,
                  **em_options) -> dict:
    """Fit ``network`` by :func:`search` and compute every score (Laplace, whose exact
    Hessian costs the most, only ``with_laplace``; WBIC, which samples, only given
    ``wbic_draws``, the draws per chain of :func:`hiddenbn.scores.wbic.wbic`, seeded by
    ``seed`` and the network).

    Returns ``{"fit": Fit, "scores": dict, "ds": int, "de": int or None, "note": str or None}``
    and, with ``wbic_draws``, ``"wbic"``: :meth:`hiddenbn.scores.wbic.WBIC.to_dict`.
    """
    result = search(network, data, seed, alpha, restarts, initial, **em_options)
    outcome = scored(result, data, with_effective_dimension, with_laplace)
    if wbic_draws is not None:
        add_wbic(outcome, data, seeding.rng(seed, "wbic", network.to_dict()), wbic_draws)
    outcome["note"] = "; ".join(filter(None, [outcome["note"],
                                              _random_starts_note(result, em_options)])) or None
    return outcome


def add_wbic(outcome: dict, data: Dataset, rng, draws: int) -> None:
    """Add WBIC (:func:`hiddenbn.scores.wbic.wbic_of_fit`, ``draws`` per chain from ``rng``)
    to the ``outcome`` of :func:`scored`: the score, and its diagnostics under ``"wbic"``."""
    estimate = wbic_of_fit(outcome["fit"], data, rng, draws=draws)
    outcome["scores"]["wbic_log_evidence"] = estimate.wbic_log_evidence
    outcome["wbic"] = estimate.to_dict()


def search(network: Network, data: Dataset, seed: int, alpha: float = PRIOR_ALPHA,
           restarts: int | None = None, initial=None, **em_options):
    """Fit ``network`` by EM as ``hiddenbn fit`` does: ``restarts`` starts of the restart
    schedule (by default the schedule's number), seeded by ``seed`` and the network; or one
    start from the CPTs ``initial``. ``em_options`` go to :func:`hiddenbn.learning.em.fit`
    (with ``initial``: the final phase's ``max_iterations``, ``tolerance``, ``convergence``,
    ``run_all_iterations`` and ``acceleration`` to :func:`~hiddenbn.learning.em.run_em`).

    Returns the :class:`hiddenbn.learning.em.Fit`.
    """
    if initial is None:
        return fit(network, data, seeding.rng(seed, "em", network.to_dict()), alpha=alpha,
                   restarts=restarts, **em_options)
    final_phase = {key: em_options[key] for key in
                   ("max_iterations", "tolerance", "convergence", "run_all_iterations",
                    "acceleration")
                   if key in em_options}
    return run_em(network, data, initial, alpha, **final_phase)


def _random_starts_note(result, em_options: dict) -> str | None:
    """Why a fit asked for annealed starts had random ones (:func:`hiddenbn.learning.em.fit`)."""
    if em_options.get("schedule", SCHEDULE) != "annealing" or result.schedule != "best-of-n":
        return None
    return ("EM started at random points, each run to convergence (best-of-n): the annealed "
            f"starts score every joint state of the hidden nodes, at most "
            f"{MAX_HIDDEN_CONFIGURATIONS}, and this model has "
            f"{limits.approximately(hidden_configuration_count(result.network))}")


def scored(fit, data: Dataset, with_effective_dimension: bool = True,
           with_laplace: bool = True) -> dict:
    """Every score of the fit ``fit`` (a :class:`hiddenbn.learning.em.Fit`, by any engine) of
    ``data``, as :func:`fit_and_score` returns them."""
    network = fit.network
    de, note = (effective_dimension_or_reason(network) if with_effective_dimension
                else (None, "effective dimension skipped: no BIC+ or CS+"))
    refusal = hessian_refusal(network) if with_laplace else None
    if refusal:
        with_laplace = False
        note = "; ".join(filter(None, [note, refusal]))
    scores = score_fit(fit, data, de, with_laplace)
    entropy, no_entropy = hidden_entropy(network, fit.cpts, data,
                                         (fit.expected_counts, fit.log_likelihood))
    if entropy is None:
        note = "; ".join(filter(None, [note, no_entropy]))
    else:
        scores["icl_log_evidence"] = icl_log_evidence(scores["bic_log_evidence"], entropy)
    return {"fit": fit, "scores": scores, "ds": network.standard_dimension, "de": de,
            "note": note}


def latent_class_network(data: Dataset, hidden_states: int, columns=None) -> Network:
    """The latent class model over the data's ``columns`` (default: all): a hidden root and one
    child per column.

    Each child gets the states of its column (its categories, else its largest state + 1),
    at least 2; the hidden node is named ``H1``, as in the shorthand ``k:r1,...,rn`` (with
    underscores added if a column already has that name), so that a parameter file of either
    fits both.
    """
    if not data.n_patterns:
        raise DataError("the data set has no cases")
    columns = data.names if columns is None else tuple(columns)
    cards = data.cardinalities
    return latent_class(hidden_states, [max(2, cards[data.names.index(c)]) for c in columns],
                        columns)


def select_latent_class(data: Dataset, states, seed: int, alpha: float = PRIOR_ALPHA,
                        restarts: int | None = None, with_effective_dimension: bool = True,
                        sbic_phi: float | None = None, wbic_draws: int | None = None,
                        fits: dict | None = None,
                        **em_options) -> dict:
    """Fit the latent class model for every ``k`` in ``states``; which ``k`` each score and
    each information criterion picks. A dict given as ``fits`` gets each ``k``'s
    :class:`~hiddenbn.learning.em.Fit` (the bootstrap test of :mod:`hiddenbn.learning.blrt`
    starts from them).

    ``em_options`` (``max_iterations``, ``tolerance``, ``schedule``) go to
    :func:`hiddenbn.learning.em.fit`; ``wbic_draws`` adds WBIC (:func:`fit_and_score`), each
    model's row then holds its diagnostics under ``"wbic"``. Returns ``{"models": [{"states",
    "ds", "de", "converged", "iterations", "replicated", "best_found", "searches", <scores>,
    "fit_statistics", "classification"}], "selected": {score or criterion: k},
    "scores_orientation": str, "sbic_phi": float or None, "notes": [str]}``: the
    scores are those of :func:`scored` (larger is better) and ``sbic_log_evidence``, the sBIC
    of Drton & Plummer (2017) over the models of ``1..K`` classes with the prior parameter
    ``sbic_phi`` (default the ``sBIC`` package's,
    :func:`hiddenbn.scores.singular_bic.default_phi`), None unless ``states`` are ``1..K``;
    ``fit_statistics`` (AIC, BIC, SABIC, CAIC, G^2, ...; smaller is better) and
    ``classification`` (entropy) are those of
    :func:`hiddenbn.scores.lca_statistics.model_comparison`, as ``fit`` reports them. A score that
    is NaN or None for some model (a Laplace Hessian that is not positive definite) selects
    among the others.
    """
    if sbic_phi is not None:
        singular_bic.check_phi(sbic_phi)
    models, notes, comparison_notes = [], [], {}
    for k in states:
        outcome = fit_and_score(latent_class_network(data, k), data, seed, alpha, restarts,
                                with_effective_dimension, wbic_draws=wbic_draws, **em_options)
        result = outcome["fit"]
        if fits is not None:
            fits[int(k)] = result
        row = {"states": int(k), "ds": outcome["ds"], "de": outcome["de"],
               "converged": result.converged, "iterations": result.iterations,
               **replication(result)}
        row.update(outcome["scores"])
        comparison, _ = model_comparison(outcome["fit"], data, outcome["de"])
        row.update(fit_statistics=comparison["fit_statistics"],
                   classification=comparison["classification"])
        if "wbic" in outcome:
            row["wbic"] = outcome["wbic"]
            notes += [f"k = {k}: {note}" for note in outcome["wbic"]["notes"]]
        models.append(row)
        if outcome["note"] and outcome["note"] not in notes:
            notes.append(outcome["note"])
        if not result.converged:
            notes.append(f"k = {k}: {stopped_by_cap(result)}")
        if replication_note(result):
            notes.append(f"k = {k}: {replication_note(result)}")
        notes += [f"k = {k}: {note}" for note in laplace_notes(row, row["ds"])]
        for note in comparison["notes"]:
            comparison_notes.setdefault(note, []).append(k)
    # a note of every model (a MAP fit) once, the others with their k
    notes += [note if len(ks) == len(models) else f"k = {', '.join(map(str, ks))}: {note}"
              for note, ks in comparison_notes.items()]
    item_states = latent_class_network(data, 1).cardinalities[1:]
    phi, sbic_note = _with_sbic(models, item_states, data.n_cases, sbic_phi)
    notes.append(sbic_note)
    selected = {}
    for name in SELECTION_SCORE_NAMES:
        candidates = [m for m in models if m.get(name) is not None and not math.isnan(m[name])]
        if candidates:
            selected[name] = max(candidates, key=lambda m: m[name])["states"]
    for name in CRITERIA:
        selected[name] = min(models, key=lambda m: m["fit_statistics"][name])["states"]
    return {"models": models, "selected": selected, "scores_orientation": SCORES_ORIENTATION,
            "sbic_phi": phi, "notes": notes}


def one_model_sbic_note() -> str:
    """Why ``fit`` gives a latent class model no sBIC, and what does (for the caller:
    :func:`~hiddenbn.errors.for_caller`)."""
    return for_caller("no sBIC for one model: it weighs a model against all its submodels "
                      f"(Drton & Plummer 2017); select, given {option('--classes', '1..K')}, "
                      "gives it for the models of 1..K classes")


def _with_sbic(models: list, item_states, n_cases: int, phi: float | None) -> tuple:
    """Set each model's ``sbic_log_evidence`` (None unless the models are those of 1..K
    classes, in order); the prior parameter phi it took (or None) and the note that says so."""
    chosen = singular_bic.default_phi(item_states) if phi is None else phi
    values = singular_bic.chain_sbic([m["states"] for m in models],
                                     [m["loglik"] for m in models], item_states, n_cases, chosen)
    if values is None:
        for m in models:
            m["sbic_log_evidence"] = None
        return None, for_caller("no sBIC: it weighs each model against all its submodels "
                                "(Drton & Plummer 2017), so it needs the models of 1..K "
                                f"classes; give {option('--classes', '1..K')}")
    for m, value in zip(models, values):
        m["sbic_log_evidence"] = float(value)
    return chosen, (f"sbic_log_evidence: the singular BIC of Drton & Plummer (2017) with their "
                    f"learning-coefficient bounds for latent class models at prior parameter "
                    f"phi = {chosen:g}"
                    + (" (the sBIC package's default, (d_1 + 1) / 2 for a 1-class model of "
                       "d_1 parameters)" if phi is None else ""))


def laplace_notes(scores: dict, ds: int) -> list:
    """Why a fit has no Laplace score (JSON gives it as null), if it has none and the reason
    is not already in the fit's note."""
    if "laplace" not in scores:
        return [f"no Laplace score: more than {LAPLACE_MAX_DIMENSION} parameters, too many for "
                "the dense Hessian"] if ds > LAPLACE_MAX_DIMENSION else []
    if not scores["laplace_positive_definite"]:
        return ["no Laplace score: the negative Hessian is not positive definite here (a "
                "probability at 0, as ML fits often have, or a direction the data do not "
                "identify); a prior alpha above 1 keeps the fit inside"]
    return []


def replication(fit) -> dict:
    """How many of the independent searches of a fit (any fit with ``final_log_posteriors``,
    the final g of each EM start run to the end) reached its best g, within
    :data:`~hiddenbn.learning.em.REPLICATION_TOLERANCE` nats (JSON-ready)."""
    found = best_found(fit.final_log_posteriors)
    return {"replicated": found > 1, "best_found": found,
            "searches": len(fit.final_log_posteriors)}


def replication_note(fit) -> str | None:
    """The note of a fit whose best g only one search reached, and what to do; ``None`` for a
    replicated fit or one start chosen by the user (``--init``). It names options as the
    caller wrote them (:func:`~hiddenbn.errors.for_caller`)."""
    counted = replication(fit)
    if counted["replicated"] or fit.schedule == "single":
        return None
    if counted["searches"] == 1:
        return for_caller("the halving schedule runs one start to convergence, so it cannot "
                          "tell whether other starts reach the same fit; the other schedules "
                          f"({option('--schedule')}) run every start to convergence and count "
                          "those that reach the best")
    starts = counted["searches"]
    return for_caller(f"the best fit was found by 1 of {starts} starts (no other ended within "
                      f"{REPLICATION_TOLERANCE} nats of its log posterior), so a better one may "
                      f"exist; rerun with more starts (e.g. {option('--restarts', 4 * starts)}) "
                      "and see whether the best recurs")


def stopped_by_cap(fit) -> str:
    """The note of a fit that the iteration cap stopped before the stopping rule was met,
    naming the option as the caller wrote it (:func:`~hiddenbn.errors.for_caller`)."""
    return for_caller(f"EM stopped at the cap of {fit.iterations} final iterations before its "
                      "stopping rule was met: the estimates may be short of the optimum; raise "
                      f"the cap ({option('--max-iterations')})")


def parse_classes(text: str) -> list:
    """``"1..8"``, ``"2,3,5"`` or ``"4"`` as a sorted list of distinct numbers of classes.

    A range is counted before it is built (``len`` of a range stops at 2**63): at most
    :data:`~hiddenbn.util.limits.MAX_MODELS` counts.
    """
    shown = excerpt(text)
    try:
        if ".." in text:
            low, high = (int(part) for part in text.split(".."))
            values = range(low, high + 1)
        else:
            values = [int(part) for part in text.split(",")]
    except ValueError:
        raise HiddenbnError(f"{option('--classes', shown=shown)}: write a range such as 1..8 "
                            "or a list such as 2,3,5") from None
    count = max(0, values.stop - values.start) if isinstance(values, range) else len(values)
    limits.require_at_most(count, limits.MAX_MODELS,
                           f"{option('--classes', shown=shown)}: the number of models to fit",
                           "give fewer numbers of classes, e.g. 1..8")
    if not values or min(values) < 1:
        raise HiddenbnError(f"{option('--classes', shown=shown)}: need at least one number of "
                            "classes, each >= 1; write a range such as 1..8 or a list such as "
                            "2,3,5")
    return sorted(set(values))


