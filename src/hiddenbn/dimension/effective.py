"""Effective dimension of networks with hidden variables, and the Kočka-Zhang bounds.

The effective dimension ``de`` of a network is the generic rank of the Jacobian of the map from
its parameters to the distribution of its observed variables (Geiger, Heckerman & Meek, paper
000 Sec. 4, Thm 1; Kočka & Zhang, paper 002 Sec. 2.4). It replaces the standard dimension
``ds`` (the number of free parameters) in BIC and Cheeseman-Stutz scores (paper 000 Sec. 6,
paper 002 Sec. 2.3).

How ``de`` is computed (:func:`jacobian_rank`)
    At each of ``points`` random parameter points the analytic Jacobian
    (:mod:`hiddenbn.dimension.jacobian`) is ranked twice (:mod:`hiddenbn.dimension.rank`): by SVD at
    a real point, reporting the singular-value gap, and exactly over ``F_p`` at a point of ``F_p``.
    Both are maxima over the points (paper 000 Sec. 5: "determine r to be the maximum of the
    resulting ranks"). The exact rank is ``de`` (it can only fall below the generic rank, with
    probability ``<= degree / p`` per point). A disagreement with the SVD rank, or a gap of fewer
    than :data:`hiddenbn.dimension.rank.CLEAR_GAP_DECADES` decades, is reported loudly: a
    :class:`DimensionWarning` and the report fields ``agree``, ``clear`` and ``warnings``.
Bounds (paper 002)
    ``ds``; ``dc`` = parameters of the complete model over the observed variables; for latent
    class (LC) models also ``dp`` (Thm 3, via Settimi & Smith's Thm 1) and
    ``db = min(ds, dc, dp)`` (Thm 4), with ``de <= db``.
Regular models and the HLC decomposition (paper 002 Secs. 3.2, 4)
    An irregular LC or HLC model is equivalent to a regular one (Lemmas 3.2, 4.1), which has
    the same ``de``. For a regular hierarchical LC (HLC) model,
    ``ds - de = sum over hidden nodes H of (ds - de)`` of the local LC model ``H : Ne(H)``
    (Thm 5, Cor. 4.1); :func:`hlc_decomposition` uses that as a fast path, and
    :func:`dimension_report` cross-checks it against the direct rank when both are feasible.
"""

from __future__ import annotations

import functools
import math
import warnings

import numpy as np

from hiddenbn.dimension import jacobian as jac
from hiddenbn.dimension.rank import CLEAR_GAP_DECADES, modular_rank, numerical_rank, singular_values
from hiddenbn.errors import HiddenbnError
from hiddenbn.inference.enumeration import is_latent_class
from hiddenbn.models.network import Network, latent_class
from hiddenbn.util import limits

#: Most free parameters the rank routines accept (they keep two ds x ds matrices).
MAX_PARAMETERS = 8192


class DimensionWarning(UserWarning):
    """The exact and SVD ranks disagree, or the singular-value gap is not clear."""


# --- the Jacobian rank ----------------------------------------------------------------------
def complete_dimension(network: Network) -> int:
    """``dc``: free parameters of the complete model over the observed variables.

    Discrete and sigmoid: ``prod |O_i| - 1`` (paper 002 Sec. 2.4); Gaussian: ``k`` means and
    ``k(k+1)/2`` covariances for ``k`` observed variables.
    """
    if network.kind == "gaussian":
        k = len(network.observed_indices)
        return k + k * (k + 1) // 2
    return math.prod(network.observed_cardinalities) - 1


def _check_size(network: Network) -> None:
    ds = network.standard_dimension
    if ds > MAX_PARAMETERS:
        gib = 2 * 8 * ds * ds / 2**30
        raise HiddenbnError(
            f"the network has {ds} free parameters; ranking its Jacobian needs two {ds} x {ds} "
            f"matrices ({gib:.1f} GiB, limit {MAX_PARAMETERS} parameters); use the HLC "
            "decomposition or the Kocka-Zhang bound db for latent class models, or a smaller "
            "model")
    if network.kind != "gaussian":
        jac.check_enumerable(network)


def jacobian_rank(network: Network, points: int = 5, seed: int = 0,
                  prime: int = jac.PRIME, every_point: bool = False) -> dict:
    """Rank the Jacobian at ``points`` random points, by SVD and exactly over ``F_prime``.

    Returns a dict with ``exact_rank`` and ``svd_rank`` (maxima over the points),
    ``exact_ranks``, ``svd_ranks`` and ``gaps`` (per point, decades), ``gap`` (the gap at the
    points that reach the SVD rank, the smallest of them), ``agree``, ``clear`` and
    ``points_used``: once both ranks reach the upper bound ``min(ds, dc)`` with a clear gap at
    one point, the remaining points cannot raise the maximum and are skipped, unless
    ``every_point`` (to report whether any random point reduced the rank, Geiger et al. 1996
    Sec. 5).
    """
    if points < 1:
        raise HiddenbnError(f"points must be at least 1, got {points}")
    _check_size(network)
    ds = network.standard_dimension
    bound = min(ds, complete_dimension(network))
    rng = np.random.default_rng(np.random.SeedSequence(int(seed)))
    exact_ranks, svd_ranks, gaps = [], [], []
    for _ in range(points):
        real = jac.random_point(network, rng)
        values = singular_values(jac.jacobian_blocks(network, real, shuffle=rng), ds, bound)
        rank, gap = numerical_rank(values)
        svd_ranks.append(rank)
        gaps.append(gap)
        exact = jac.random_point(network, rng, modulus=prime)
        exact_ranks.append(modular_rank(jac.jacobian_blocks(network, exact, shuffle=rng), ds,
                                        prime, bound))
        if not every_point and exact_ranks[-1] == rank == bound and gap >= CLEAR_GAP_DECADES:
            break  # no further point can raise a maximum that has reached its upper bound
    svd_rank = max(svd_ranks)
    gap = min(g for r, g in zip(svd_ranks, gaps) if r == svd_rank)
    return {
        "exact_rank": max(exact_ranks), "svd_rank": svd_rank, "exact_ranks": exact_ranks,
        "svd_ranks": svd_ranks, "gaps": gaps, "gap": gap,
        "agree": max(exact_ranks) == svd_rank, "clear": gap >= CLEAR_GAP_DECADES,
        "prime": prime, "points": points, "points_used": len(exact_ranks),
    }


# --- latent class models (paper 002 Sec. 3) -------------------------------------------------
def latent_class_shape(network: Network) -> tuple[int, tuple[int, ...]]:
    """``(|X|, (|O_1|, ..., |O_n|))`` of an LC model; a clear error for any other network."""
    if not is_latent_class(network):
        raise HiddenbnError(
            "the Kocka-Zhang bounds dp and db (paper 002 Thms 3-4) are defined for latent class "
            "models (one hidden root whose children are exactly the observed variables, e.g. "
            "'3:2,2,2,2'); this network is not one: use its effective dimension de instead")
    return network.cardinalities[network.hidden_indices[0]], network.observed_cardinalities


def _subset_products(cardinalities) -> set[int]:
    """Every product of a sub-multiset of ``cardinalities`` up to the square root of the total."""
    limit = math.isqrt(math.prod(cardinalities))
    products = {1}
    for r in cardinalities:
        products |= {p * r for p in products if p * r <= limit}
    return products


def pairwise_dimension(hidden_states: int, observed_states) -> int:
    """``dp`` of Thm 3 (paper 002): the best bound from merging O into two variables U1, U2.

    For a split with ``|X| < min(|U1|, |U2|)`` the merged model has
    ``de = ds - |X|(|X| - 1)`` (Settimi & Smith's Thm 1); otherwise the bound is ``dc``.
    ``ds`` of ``X : |U1|, |U2|`` grows with ``|U1| + |U2|`` at fixed ``|U1||U2| = |O|``, and the
    condition favours balanced splits too, so the minimum is at the split whose smaller side
    has the largest product not above ``sqrt(|O|)`` (found over distinct subset products, not
    over all ``2^n`` splits).
    """
    k = int(hidden_states)
    observed_states = [int(r) for r in observed_states]
    total = math.prod(observed_states)
    dc = total - 1
    if len(observed_states) < 2:
        return dc
    u1 = max(_subset_products(observed_states))
    u2 = total // u1
    if k < min(u1, u2):
        merged_ds = (k - 1) + k * (u1 - 1 + u2 - 1)
        return min(merged_ds - k * (k - 1), dc)
    return dc


def latent_class_bounds(network: Network) -> dict:
    """``ds``, ``dc``, ``dp``, ``db`` of an LC model and whether ``dp`` is ``dc`` (Thms 3-4)."""
    k, observed = latent_class_shape(network)
    ds, dc = network.standard_dimension, complete_dimension(network)
    dp = pairwise_dimension(k, observed)
    return {"ds": ds, "dc": dc, "dp": dp, "dp_is_dc": dp == dc, "db": min(ds, dc, dp)}


def regular_hidden_states(neighbour_states) -> int:
    """Largest regular state count of a hidden node: ``prod |Ne| / max |Ne|`` (Lemmas 3.2, 4.1)."""
    neighbour_states = list(neighbour_states)
    return math.prod(neighbour_states) // max(neighbour_states)


# --- hierarchical latent class models (paper 002 Sec. 4) ------------------------------------
def _neighbours(network: Network, i: int) -> tuple[int, ...]:
    return network.parents[i] + network.children(i)


def is_hlc(network: Network) -> bool:
    """True for an HLC model: a discrete tree with hidden nodes whose observed nodes are exactly
    its leaves (paper 002 Sec. 2.2)."""
    if network.kind != "discrete" or any(network.functions) or not network.hidden_indices.size:
        return False
    if any(len(pa) > 1 for pa in network.parents) or sum(not pa for pa in network.parents) != 1:
        return False  # a directed tree: one root, every other node one parent
    return all((len(_neighbours(network, i)) == 1) != network.hidden[i]
               for i in range(network.n_nodes))


def is_regular_hlc(network: Network) -> bool:
    """Regularity of an HLC (or LC) model (paper 002 Sec. 4, after Lemma 4.1)."""
    for h in network.hidden_indices:
        neighbours = _neighbours(network, h)
        states = [network.cardinalities[j] for j in neighbours]
        k = network.cardinalities[h]
        if k > regular_hidden_states(states):
            return False
        if len(neighbours) == 2 and any(network.hidden[j] for j in neighbours) and \
                k >= regular_hidden_states(states):
            return False
    return True


def _tree_network(names, cards, hidden, edges, root) -> Network:
    """A directed tree from undirected ``edges``, rooted at ``root``, nodes in BFS order."""
    adjacency = {name: [] for name in names}
    for a, b in edges:
        adjacency[a].append(b)
        adjacency[b].append(a)
    order, parent = [root], {root: None}
    for name in order:
        for other in sorted(adjacency[name], key=names.index):
            if other not in parent:
                parent[other] = name
                order.append(other)
    position = {name: i for i, name in enumerate(order)}
    return Network(
        names=tuple(order), cardinalities=tuple(cards[n] for n in order),
        parents=tuple(() if parent[n] is None else (position[parent[n]],) for n in order),
        hidden=tuple(hidden[n] for n in order), functions=(None,) * len(order))


def regular_equivalent(network: Network) -> Network:
    """The regular LC/HLC model equivalent to ``network`` (paper 002 Lemmas 3.2 and 4.1).

    Repeats until nothing changes: a hidden node with more states than
    ``prod |Ne| / max |Ne|`` gets that many; a hidden node with exactly two neighbours, one of
    them hidden, and at least ``min`` of their state counts is removed and its neighbours are
    joined (it can then carry any conditional table between them). Node names are kept.
    """
    if not is_hlc(network):
        raise HiddenbnError("regular_equivalent needs a latent class or hierarchical latent "
                            "class model (a tree whose observed nodes are its leaves)")
    names = list(network.names)
    cards = dict(zip(names, network.cardinalities))
    hidden = dict(zip(names, network.hidden))
    edges = {(names[p], names[i]) for i, pa in enumerate(network.parents) for p in pa}
    changed = True
    while changed:
        changed = False
        for name in [n for n in names if hidden[n]]:
            neighbours = [b if a == name else a for a, b in edges if name in (a, b)]
            bound = regular_hidden_states([cards[n] for n in neighbours])
            if cards[name] > bound:
                cards[name] = bound
                changed = True
            elif len(neighbours) == 2 and any(hidden[n] for n in neighbours) and \
                    cards[name] >= bound:
                edges = {e for e in edges if name not in e} | {tuple(neighbours)}
                names.remove(name)
                changed = True
    root = network.names[0] if network.names[0] in names and hidden[network.names[0]] else \
        next(n for n in names if hidden[n])
    return _tree_network(names, cards, hidden, edges, root)


def local_latent_classes(network: Network) -> list[tuple[str, Network]]:
    """The local LC model ``H : Ne(H)`` of every hidden node H (paper 002 Sec. 2.2)."""
    return [(network.names[h], latent_class(network.cardinalities[h],
                                            [network.cardinalities[j]
                                             for j in _neighbours(network, h)]))
            for h in network.hidden_indices]


@functools.lru_cache(maxsize=4096)
def latent_class_rank(hidden_states: int, observed_states: tuple, points: int, seed: int) -> dict:
    """:func:`jacobian_rank` of the latent class model ``hidden_states:observed_states``, kept
    for the next call with the same arguments (an HLC decomposition ranks the same local models
    again and again; ``latent_class_rank.cache_clear()`` forgets them)."""
    return jacobian_rank(latent_class(hidden_states, observed_states), points, seed)


def hlc_decomposition(network: Network, points: int = 5, seed: int = 0) -> dict:
    """``de`` of an HLC model from its local LC models (paper 002 Thm 5, Cor. 4.1).

    The model is first replaced by its regular equivalent (same ``de``). Each local LC model's
    ``de`` is its exact Jacobian rank (cached by shape). Returns ``de``, the regular model's
    ``ds``, and one term per hidden node: ``node``, ``model`` (``k:r1,..``), ``ds``, ``de``,
    ``difference``, ``agree`` (exact vs SVD for that local model).
    """
    regular = regular_equivalent(network)
    terms = []
    for name, local in local_latent_classes(regular):
        k, observed = latent_class_shape(local)
        ranks = latent_class_rank(k, tuple(sorted(observed)), points, seed)
        ds = local.standard_dimension
        terms.append({"node": name, "model": latent_class_spec(k, observed), "ds": ds,
                      "de": ranks["exact_rank"], "difference": ds - ranks["exact_rank"],
                      "agree": ranks["agree"] and ranks["clear"]})
    de = regular.standard_dimension - sum(t["difference"] for t in terms)
    return {"de": de, "regular_ds": regular.standard_dimension, "terms": terms,
            "regular": tree_shorthand(regular)}


def latent_class_spec(hidden_states: int, observed_states) -> str:
    """The ``k:r1,...,rn`` shorthand (paper 002 notation)."""
    return f"{hidden_states}:" + ",".join(str(r) for r in observed_states)


def tree_shorthand(network: Network) -> str:
    """The tree shorthand of an HLC model rooted at its first node, e.g. ``5(3(2,2),3(2,2),2)``."""
    def node(i):
        children = network.children(i)
        inner = "(" + ",".join(node(c) for c in children) + ")" if children else ""
        return f"{network.cardinalities[i]}{inner}"

    if not network.hidden[0] or network.parents[0]:
        raise HiddenbnError("tree shorthand needs a hidden root listed first")
    return node(0)


# --- the public API -------------------------------------------------------------------------
def _warn(report: dict, message: str) -> None:
    report["warnings"].append(message)
    warnings.warn(message, DimensionWarning, stacklevel=3)


def _direct_rank(network: Network, regular, points: int, seed: int):
    """The Jacobian rank of ``network``, or of its regular equivalent (same ``de``, Lemmas 3.2
    and 4.1) when ``network`` is an irregular LC/HLC model too large to rank directly."""
    try:
        return jacobian_rank(network, points, seed), "exact+svd"
    except HiddenbnError:
        if regular is not False:
            raise
    ranks = jacobian_rank(regular_equivalent(network), points, seed)
    return ranks, "exact+svd (regular equivalent)"


#: Largest observed state space of one block in :func:`latent_class_block_certificate`.
MAX_BLOCK_STATES = 2**13


def latent_class_blocks(observed_states, max_block_states: int = MAX_BLOCK_STATES):
    """Split the observed variables into as few consecutive, nearly equal blocks as keep each
    block's joint state space within ``max_block_states`` (``None`` if one variable alone
    exceeds it)."""
    log_states = np.log2(np.asarray(observed_states, dtype=float))
    if log_states.max() > math.log2(max_block_states):
        return None
    blocks = 1
    while True:
        bounds = np.linspace(0, len(log_states), blocks + 1).round().astype(int)
        groups = [list(range(a, b)) for a, b in zip(bounds[:-1], bounds[1:])]
        if all(log_states[g].sum() <= math.log2(max_block_states) for g in groups):
            return groups
        blocks += 1


def latent_class_block_certificate(network: Network, points: int = 5, seed: int = 0,
                                   max_block_states: int = MAX_BLOCK_STATES) -> int | None:
    """``de = ds`` for a latent class model too wide to rank directly, when it can be shown.

    Split the observed variables into blocks (:func:`latent_class_blocks`). The marginal of a
    block is a linear image of the observed distribution, and depends only on the root's
    parameters ``x`` and the block's own ``y_g``, so the Jacobian of all block marginals is
    ``M = [A_g B_g]`` stacked over blocks, and ``rank J >= rank M``. If every block's own LC
    model ``|X| : block`` has full rank (its ``de`` equals its ``ds``; generic, so at one common
    generic point), ``M (x, y) = 0`` gives ``A_g x + B_g y_g = 0`` for every g, hence ``x = 0``
    and every ``y_g = 0``: ``M`` has full column rank ``ds``, and ``ds >= de >= ds``.

    Returns ``ds`` when every block has full rank, ``None`` when one does not or cannot be
    ranked (inconclusive: ``db`` remains an upper bound).
    """
    hidden_states, observed_states = latent_class_shape(network)
    blocks = latent_class_blocks(observed_states, max_block_states)
    if blocks is None:
        return None
    for block in blocks:
        sub_model = latent_class(hidden_states, [observed_states[j] for j in block])
        try:
            if effective_dimension(sub_model, points, seed) < sub_model.standard_dimension:
                return None
        except HiddenbnError:
            return None
    return network.standard_dimension


def dimension_report(network: Network, points: int = 5, seed: int = 0) -> dict:
    """Every dimension of ``network``, with how ``de`` was obtained and how sure it is.

    Keys: ``ds``, ``de``, ``dc``, ``dp``, ``db`` (None unless LC), ``method`` (``"exact+svd"``:
    direct rank; ``"exact+svd (regular equivalent)"``: rank of the regular equivalent of an
    irregular LC/HLC model too large to rank directly; ``"hlc"``: HLC decomposition when no
    direct rank is feasible), ``gap``
    (SVD gap in decades; None for ``"hlc"`` or an exactly zero next singular value),
    ``svd_rank``, ``exact_rank``, ``agree``,
    ``clear``, ``points``, ``points_used`` (points ranked: the rest are skipped once both ranks
    reach ``min(ds, dc)``), ``prime``, ``kind``, ``latent_class``, ``hlc``, ``regular`` (None
    unless LC/HLC), ``regular_equivalent`` (shorthand), ``hlc_de``, ``hlc_terms`` and
    ``hlc_regular_ds`` (HLC models with more than one hidden node: ``hlc_de =
    hlc_regular_ds - sum of the terms' differences``), and ``warnings`` (list of strings).
    """
    ds = network.standard_dimension
    _check_points(points)
    report = {"ds": ds, "de": None, "dc": complete_dimension(network), "dp": None, "db": None,
              "method": None, "gap": None, "svd_rank": None, "exact_rank": None,
              "agree": None, "clear": None, "points": points, "points_used": None,
              "prime": jac.PRIME,
              "kind": network.kind, "latent_class": is_latent_class(network),
              "hlc": is_hlc(network), "regular": None, "regular_equivalent": None,
              "hlc_de": None, "hlc_terms": None, "hlc_regular_ds": None, "warnings": []}
    if report["latent_class"]:
        bounds = latent_class_bounds(network)
        report.update(dp=bounds["dp"], db=bounds["db"])
    if report["hlc"]:
        report["regular"] = is_regular_hlc(network)
        report["regular_equivalent"] = tree_shorthand(regular_equivalent(network))
        if len(network.hidden_indices) > 1:
            decomposition = hlc_decomposition(network, points, seed)
            report.update(hlc_de=decomposition["de"], hlc_terms=decomposition["terms"],
                          hlc_regular_ds=decomposition["regular_ds"])
    try:
        ranks, method = _direct_rank(network, report["regular"], points, seed)
    except HiddenbnError as err:
        if report["hlc_de"] is None and report["db"] is not None:
            certified = latent_class_block_certificate(network, points, seed)
            if certified is not None:
                report.update(de=certified, method="blocks")
                _warn(report, f"direct rank skipped ({err}); de = ds from full-rank blocks of "
                              "observed variables (latent_class_block_certificate)")
                return report
        if report["hlc_de"] is None:
            if report["db"] is not None:
                raise HiddenbnError(f"{err} (db = {report['db']} is an upper bound on de)") \
                    from None
            raise
        report.update(de=report["hlc_de"], method="hlc")
        _warn(report, f"direct rank skipped ({err}); de from the HLC decomposition")
        return report
    gap = ranks["gap"] if math.isfinite(ranks["gap"]) else None  # None: nothing dropped as zero
    report.update(de=ranks["exact_rank"], method=method, gap=gap,
                  svd_rank=ranks["svd_rank"], exact_rank=ranks["exact_rank"],
                  points_used=ranks["points_used"],
                  agree=ranks["agree"], clear=ranks["clear"])
    if not ranks["agree"]:
        _warn(report, f"exact rank {ranks['exact_rank']} (mod {jac.PRIME}) and SVD rank "
                      f"{ranks['svd_rank']} disagree; de = the exact rank")
    if not ranks["clear"]:
        _warn(report, f"unclear singular-value gap ({ranks['gap']:.1f} decades at the rank "
                      f"cut); the SVD rank {ranks['svd_rank']} is not reliable")
    if report["hlc_de"] is not None and report["hlc_de"] != report["de"]:
        _warn(report, f"HLC decomposition gives de = {report['hlc_de']} but the direct rank "
                      f"gives {report['de']}")
    return report


def _check_points(points) -> None:
    """Refuse a number of random points that is not a whole number of at least 1 (0 had
    recursed without end through the regular equivalent)."""
    limits.require_whole_number(points, 1, "the number of random points")


@functools.lru_cache(maxsize=1024)
def _effective_dimension(network: Network, points: int, seed: int) -> int:
    return dimension_report(network, points, seed)["de"]


def effective_dimension(network: Network, points: int = 5, seed: int = 0) -> int:
    """``de`` as :func:`dimension_report` finds it (exact Jacobian rank, maximum over
    ``points`` random points of ``F_p``; the regular equivalent or the HLC decomposition for
    models too large to rank directly). Cached per (network, points, seed); warnings about
    disagreeing ranks are emitted on the first call only.
    """
    _check_points(points)
    return _effective_dimension(network, int(points), int(seed))


def effective_dimension_or_reason(network: Network, points: int = 5,
                                  seed: int = 0) -> tuple[int | None, str | None]:
    """``(de, None)`` from :func:`effective_dimension`, or ``(None, reason)`` when it cannot
    give ``de`` (e.g. a model too large to rank that no bound or decomposition covers): callers
    then report the scores that need ``de`` (BIC+, CS+ of paper 002 Sec. 2.3) as missing
    instead of failing."""
    try:
        return int(effective_dimension(network, points, seed)), None
    except HiddenbnError as err:
        return None, f"no effective dimension: {err}"


