"""The reports of ``hiddenbn dim``: a network's, an interaction model's, an EBNC's.

The reports themselves are dicts made where the dimensions are computed
(:func:`hiddenbn.dimension.effective.dimension_report`, :func:`hiddenbn.ebnc.model.ebnc_report`)
or here for an interaction model (:func:`interaction_dimension_report`); the ``format_``
functions give the text the command prints of each.
"""

from __future__ import annotations

from hiddenbn.dimension.effective import dimension_report
from hiddenbn.ebnc import model as ebnc
from hiddenbn.interaction.noisy_additive import additive_dimension, standard_additive_dimension
from hiddenbn.models.interaction import InteractionModel


def interaction_dimension_report(model: InteractionModel, points: int = 5,
                                 seed: int = 0) -> dict:
    """``ds`` and ``de`` of an interaction model: ``hiddenbn dim``'s report (a noisy-max
    model's is its network's, :func:`~hiddenbn.dimension.effective.dimension_report`)."""
    if model.family == "noisy-max":
        return dimension_report(model.network(), points, seed)
    return {"family": model.family, "ds": standard_additive_dimension(model),
            "de": additive_dimension(model),
            "method": "rank of the cause-configuration x mechanism-row incidence matrix, per "
                      "moment (mean; and variance for Gaussian), plus the causes' tables",
            "warnings": []}


def format_dimension_report(report: dict) -> str:
    """The few lines ``hiddenbn dim`` prints of a network's
    :func:`~hiddenbn.dimension.effective.dimension_report`."""
    lines = [f"ds  {report['ds']:>6}  standard dimension (free parameters)"]
    if report["method"] == "hlc":
        how = "HLC decomposition (paper 002 Cor. 4.1)"
    elif report["method"] == "blocks":
        how = "ds: every block of observed variables has a full-rank latent class model"
    else:
        gap = "inf" if report["gap"] is None else f"{report['gap']:.1f}"
        how = (f"exact rank mod {report['prime']}, max over {report['points_used']} of "
               f"{report['points']} points; "
               f"SVD rank {report['svd_rank']}, gap {gap} decades")
    lines.append(f"de  {report['de']:>6}  effective dimension ({how})")
    lines.append(f"dc  {report['dc']:>6}  complete model over the observed variables")
    if report["dp"] is not None:
        lines.append(f"dp  {report['dp']:>6}  pairwise bound (paper 002 Thm 3)")
        lines.append(f"db  {report['db']:>6}  min(ds, dc, dp) (paper 002 Thm 4)")
    if report["hlc_terms"]:
        terms = ", ".join(f"{t['node']} {t['model']}: {t['difference']}"
                          for t in report["hlc_terms"])
        lines.append(f"HLC decomposition: de = {report['hlc_regular_ds']} (ds of the regular "
                     f"model) - sum of local ds - de ({terms}) = {report['hlc_de']}")
    if report["regular"] is False:
        lines.append(f"irregular; equivalent regular model: {report['regular_equivalent']}")
    lines += [f"WARNING: {w}" for w in report["warnings"]]
    return "\n".join(lines)


def format_additive_dimension_report(report: dict) -> str:
    """The line ``hiddenbn dim`` prints of a Poisson or Gaussian NAI model's
    :func:`interaction_dimension_report`."""
    return (f"{report['family']} NAI model: ds {report['ds']}, de {report['de']} "
            f"({report['method']})")


def format_ebnc_report(report: dict) -> str:
    """The text ``hiddenbn dim --ebnc`` prints of :func:`~hiddenbn.ebnc.model.ebnc_report`."""
    methods = {m: "skipped" for m in ebnc.METHODS} | report["by_method"]
    gaps = report["svd_gaps"]

    def gap(method):
        return "" if gaps.get(method) is None else f" (gap {gaps[method]:.1f} decades)"

    lines = [
        f"EBNC of {report['node']}: d = {report['d']}",
        f"  basis phi: {report['basis_size']} parameters = {len(report['features'])} features "
        f"x {report['classes'] - 1} class(es)",
        f"  Sec. 6 eta->psi: {methods['decomposition']}   Sec. 4 kappa->lambda: exact "
        f"{methods['exact']}, SVD {methods['svd']}{gap('svd')}",
        f"  Jacobian theta->lambda: exact {methods['jacobian']}, SVD "
        f"{methods['jacobian-svd']}{gap('jacobian-svd')}",
        "  features: " + ", ".join(report["features"]),
    ]
    lines += [f"  WARNING: {line}" for line in report["warnings"]]
    return "\n".join(lines)
