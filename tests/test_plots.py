"""Tests of hiddenbn.reports.plots: network drawings and the figure style."""

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.patches import Circle, FancyArrowPatch

from hiddenbn.models.spec import parse_spec
from hiddenbn.reports import plots

NOISY_MAX = {"nodes": {
    "C1": {"states": 2}, "C2": {"states": 2},
    "M1": {"states": 2, "parents": ["C1"], "hidden": True},
    "M2": {"states": 2, "parents": ["C1", "C2"], "hidden": True},
    "E": {"parents": ["M1", "M2"], "function": "max"},
}}


def _patches(ax, kind, prefix):
    return {p.get_gid().split(":", 1)[1]: p for p in ax.patches
            if isinstance(p, kind) and (p.get_gid() or "").startswith(prefix)}


def test_draw_network_marks_hidden_deterministic_states_and_arcs():
    network = parse_spec(NOISY_MAX)
    ax = plots.draw_network(network, title="noisy max")
    nodes = _patches(ax, Circle, "node:")
    assert set(nodes) == set(network.names)
    for i, name in enumerate(network.names):
        shaded = nodes[name].get_facecolor()[:3] != (1.0, 1.0, 1.0)
        assert shaded == network.hidden[i], name
    assert set(_patches(ax, Circle, "ring:")) == {"E"}
    arcs = set(_patches(ax, FancyArrowPatch, "arc:"))
    expected = {f"{network.names[p]}->{network.names[i]}"
                for i in range(network.n_nodes) for p in network.parents[i]}
    assert arcs == expected
    texts = [t.get_text() for t in ax.texts]
    assert texts.count("2") == network.n_nodes  # every node is binary here
    assert ax.get_title() == "noisy max"
    plt.close(ax.figure)


def test_layout_puts_each_node_below_its_parents_without_overlaps():
    network = parse_spec("5(3(2,2),3(2,2),2)")
    position = plots.network_layout(network)
    for i, parents in enumerate(network.parents):
        for p in parents:
            assert position[i, 1] < position[p, 1]
    distances = np.linalg.norm(position[:, None] - position[None], axis=-1)
    assert distances[~np.eye(network.n_nodes, dtype=bool)].min() >= 2 * plots.NODE_RADIUS
    assert list(plots.node_depths(network)) == [0, 1, 1, 2, 2, 2, 2, 1]


def test_labels_and_gaussian_nodes():
    network = parse_spec({"type": "gaussian", "nodes": {"H": {"hidden": True},
                                                        "X": {"parents": ["H"]}}})
    ax = plots.draw_network(network, labels={"H": "hidden"})
    texts = {t.get_text() for t in ax.texts}
    assert {"hidden", "X"} <= texts and "0" not in texts
    plt.close(ax.figure)
    ax = plots.draw_network(network, labels=False)
    assert {t.get_text() for t in ax.texts} == {""}
    plt.close(ax.figure)


def test_network_panels_save_png_and_pdf(tmp_path):
    panels = [("LC", parse_spec("3:2,2,2,2")), ("noisy max", parse_spec(NOISY_MAX))]
    open_before = plt.get_fignums()  # other tests in this worker may hold figures
    with plots.network_panels(panels, tmp_path / "structures") as (figure, axes):
        assert len(axes) == 2
        assert plt.rcParams["pdf.fonttype"] == 42  # inside the project style
    assert (tmp_path / "structures.png").stat().st_size > 0
    assert (tmp_path / "structures.pdf").read_bytes().startswith(b"%PDF")
    assert plt.get_fignums() == open_before


def test_style_is_scoped():
    before = plt.rcParams["axes.spines.top"]
    with plots.style():
        assert plt.rcParams["axes.spines.top"] is False
    assert plt.rcParams["axes.spines.top"] == before


def test_mean_and_error_is_the_mean_and_sd_over_root_n_per_group():
    import pandas as pd

    rng = np.random.default_rng(4)
    frame = pd.DataFrame({"score": rng.choice(["a", "b"], 40), "cases": rng.choice([10, 20], 40),
                          "kl_bits": rng.random(40)})
    summary = plots.mean_and_error(frame, ["score", "cases"], "kl_bits").set_index(
        ["score", "cases"])
    for (score, cases), group in frame.groupby(["score", "cases"]):
        values = group.kl_bits.to_numpy()
        row = summary.loc[(score, cases)]
        assert row["mean"] == pytest.approx(values.mean())
        assert row["se"] == pytest.approx(values.std(ddof=1) / np.sqrt(values.size))
        assert row["n"] == values.size
    single = plots.mean_and_error(frame.head(1), ["score"], "kl_bits")
    assert single.se.iloc[0] == 0.0  # one value: no spread, not NaN


def test_selection_figure_draws_one_line_per_score_and_panel(tmp_path, monkeypatch):
    import pandas as pd

    selections = pd.DataFrame({"generator": "g", "cases": [100, 100, 1000, 1000] * 2,
                               "score": ["BIC+"] * 4 + ["bic_log_evidence"] * 4,
                               "kl_bits": [0.2, 0.3, 0.05, 0.07] * 2, "states": [2, 3, 3, 3] * 2})
    saved = []
    monkeypatch.setattr(plots, "save_figure", lambda figure, path: saved.append(figure))
    plots.selection_figure(selections, ["g"], ["BIC+", "bic_log_evidence"], tmp_path / "selection",
                           "title",
                           {"g": "G"}, (plots.KL_PANEL, ("states", "states")),
                           {"BIC+": "bic_plus_log_evidence"})
    axes = saved[0].axes
    # a letter and the metric per panel, the unit left to the axis; the row's generator below
    assert [ax.get_title() for ax in axes] == ["(a) KL(true ‖ selected)\ngenerator G",
                                               "(b) states\ngenerator G"]
    assert axes[0].get_yscale() == "log" and axes[1].get_yscale() == "linear"
    # a score named by the code (a study's) reads as its display name, one mapped keeps its own
    # one legend, the figure's, beside the panels and over none of them
    assert all(ax.get_legend() is None for ax in axes)
    legend = saved[0].legends[0]
    # the two scores' means are equal everywhere: only one line shows, and the legend says so
    assert [t.get_text() for t in legend.get_texts()] == [
        "BIC+", plots.SCORE_STYLES["bic_log_evidence"][3], "BIC+, BIC coincide"]
    saved[0].canvas.draw()
    box = legend.get_window_extent()
    assert not any(box.overlaps(ax.get_window_extent()) for ax in axes)
    # BIC+'s means: the look of bic_plus_log_evidence, the paper's label
    kl = axes[0].containers[0].lines[0]
    np.testing.assert_allclose(np.asarray(kl.get_ydata(), dtype=float), [0.25, 0.06])
    assert kl.get_color() == plots.SCORE_STYLES["bic_plus_log_evidence"][0]
    plt.close(saved[0])


def _selection_legend_and_title(tmp_path, monkeypatch, scores, title):
    import pandas as pd

    selections = pd.DataFrame([{"generator": "g", "cases": n, "score": score,
                                "states": k + n / 1000} for k, score in enumerate(scores)
                               for n in (500, 2000)])
    saved = []
    monkeypatch.setattr(plots, "save_figure", lambda figure, path: saved.append(figure))
    plots.selection_figure(selections, ["g"], scores, tmp_path / "f", title,
                           {"g": "lc3_covariates (3:2,2,2,2,2,2)"}, [("states", "states")])
    saved[0].canvas.draw()
    return saved[0]


def test_one_panel_keeps_its_legend_clear_of_a_long_title(tmp_path, monkeypatch):
    """One panel is narrower than a study's title: a legend at the upper right ran into it."""
    title = "Study latent_class_regression_demo: the selected model"
    scores = ["bic_log_evidence", "icl_log_evidence", "laplace"]
    figure = _selection_legend_and_title(tmp_path, monkeypatch, scores, title)
    renderer = figure.canvas.get_renderer()
    suptitle = figure._suptitle.get_window_extent(renderer)
    legend = figure.legends[0].get_window_extent(renderer)
    assert suptitle.x1 > legend.x0  # the title reaches over the legend's column ...
    assert not legend.overlaps(suptitle)  # ... and stays above it
    assert not any(legend.overlaps(ax.get_window_extent()) for ax in figure.axes)
    # the legend the figure had before: in the right margin, at the top of the figure
    figure.legends[0].set_loc("outside right upper")
    figure.canvas.draw()
    assert figure.legends[0].get_window_extent(renderer).overlaps(suptitle)
    plt.close(figure)


def _lab(colour) -> np.ndarray:
    """CIE L*, a*, b* of a matplotlib colour (sRGB, D65)."""
    import matplotlib.colors

    rgb = np.array(matplotlib.colors.to_rgb(colour))
    linear = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    xyz = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722],
                    [0.0193, 0.1192, 0.9505]]) @ linear / [0.95047, 1.0, 1.08883]
    f = np.where(xyz > (6 / 29) ** 3, np.cbrt(xyz), xyz * (29 / 6) ** 2 / 3 + 4 / 29)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def _like_colours(colours: dict) -> list:
    """Pairs of chromatic colours within 15 degrees of hue and 20 of lightness (CIE L*)."""
    import colorsys
    import itertools

    import matplotlib.colors

    hsv = {k: colorsys.rgb_to_hsv(*matplotlib.colors.to_rgb(c)) for k, c in colours.items()}
    like = []
    for a, b in itertools.combinations(colours, 2):
        if min(hsv[a][1], hsv[b][1]) < 0.2:  # greys: told apart by lightness and hue alone
            continue
        hue = abs(hsv[a][0] - hsv[b][0]) * 360
        if min(hue, 360 - hue) < 15 and abs(_lab(colours[a])[0] - _lab(colours[b])[0]) < 20:
            like.append((a, b))
    return like


def test_score_colours_of_like_hue_differ_in_lightness():
    """WBIC and BIC were two dark purples, ICL and BIC+ two teals: one line looked like the
    other."""
    colours = {score: look[0] for score, look in plots.SCORE_STYLES.items()}
    assert _like_colours(colours) == []
    before = {**colours, "wbic_log_evidence": "#3a0ca3", "icl_log_evidence": "#20a39e"}
    # (ICL's old teal is also like sBIC's turquoise)
    assert _like_colours(before) == [("bic_log_evidence", "wbic_log_evidence"),
                                     ("bic_plus_log_evidence", "icl_log_evidence"),
                                     ("sbic_log_evidence", "icl_log_evidence")]


def _hue_gap(a, b) -> float | None:
    """Degrees of CIELAB hue between two colours; None if either is grey (chroma below 10)."""
    (_, a1, b1), (_, a2, b2) = _lab(a), _lab(b)
    if min(np.hypot(a1, b1), np.hypot(a2, b2)) < 10:
        return None
    gap = abs(np.degrees(np.arctan2(b1, a1) - np.arctan2(b2, a2))) % 360
    return min(gap, 360 - gap)


def _same_style_like_hue(styles: dict) -> list:
    """Pairs of chromatic scores (CIELAB chroma above 10) with one line style and hues within
    35 degrees of CIELAB hue: one hue family drawn alike."""
    import itertools

    like = []
    for a, b in itertools.combinations(styles, 2):
        gap = _hue_gap(styles[a][0], styles[b][0])
        if styles[a][2] == styles[b][2] and gap is not None and gap < 35:
            like.append((a, b))
    return like


def test_scores_of_one_hue_family_differ_in_line_style():
    """sBIC was a dark red dashed as CS's red, ICL a lime dotted as MLED's green: at print size
    each pair read as one score."""
    assert _same_style_like_hue(plots.SCORE_STYLES) == []
    before = {**plots.SCORE_STYLES, "sbic_log_evidence": ("#7b2d26", "<", "--", "sBIC"),
              "icl_log_evidence": ("#77aa00", ">", ":", "ICL")}
    assert _same_style_like_hue(before) == [("cs", "sbic_log_evidence"),
                                            ("mled", "icl_log_evidence")]


def _hue_neighbours(colours: dict, key: str, degrees: float = 30) -> list:
    """The other chromatic colours of ``colours`` within ``degrees`` of CIELAB hue of
    ``colours[key]``."""
    return [other for other, colour in colours.items() if other != key
            and (gap := _hue_gap(colours[key], colour)) is not None and gap < degrees]


def test_sbic_has_a_hue_no_other_score_or_series_uses():
    """sBIC was a royal blue beside Laplace's blue (and BIC's purple), the scores it is compared
    with in the studies' and the gold standard's figures: only the line style told them
    apart."""
    colours = {**{score: look[0] for score, look in plots.SCORE_STYLES.items()},
               **{f"series {i}": colour for i, colour in enumerate(plots.PALETTE)}}
    assert _hue_neighbours(colours, "sbic_log_evidence") == []
    before = {**colours, "sbic_log_evidence": "#4361ee"}
    assert _hue_neighbours(before, "sbic_log_evidence") == ["laplace", "bic_log_evidence",
                                                            "series 3"]


def test_paper_001_learners_keep_off_the_hues_of_the_scores_that_select_the_ebncs():
    """Logistic regression was the palette's light blue beside the Laplace EBNC's blue, both
    solid; the oracle's dark slate is dashed, as two scores of one hue family are."""
    from hiddenbn.experiments import heckerman_meek1997 as hm

    colours = {learner: look["color"] for learner, look in hm.LEARNER_STYLES.items()
               if look["linestyle"] == "-"}
    for selected in ("ebnc_laplace", "ebnc_bic"):
        assert _hue_neighbours(colours, selected) == []
    before = {**colours, "logistic": plots.PALETTE[0]}
    assert _hue_neighbours(before, "ebnc_laplace") == ["logistic"]


def _greyscale_alike(styles: dict, key: str) -> list:
    """The scores drawn with the line style of ``styles[key]`` and within 20 of its lightness
    (CIE L*): in greyscale print only their markers tell them apart."""
    lightness = _lab(styles[key][0])[0]
    return [other for other, look in styles.items() if other != key
            and look[2] == styles[key][2] and abs(_lab(look[0])[0] - lightness) < 20]


def test_sbic_reads_apart_in_greyscale():
    """The other dash-dot scores (CS+, WBIC, CS with d = de) are darker by more than 20 L*."""
    assert _greyscale_alike(plots.SCORE_STYLES, "sbic_log_evidence") == []
    before = {**plots.SCORE_STYLES, "sbic_log_evidence": ("#4361ee", "<", "-.", "sBIC")}
    assert _greyscale_alike(before, "sbic_log_evidence") == ["wbic_log_evidence", "cs_plus",
                                                             "cs_de"]


def test_no_series_colour_is_a_score_colour():
    """A colour names one score in every figure: series that are not scores never take one."""
    scores = [look[0].lower() for look in plots.SCORE_STYLES.values()]
    assert len(set(scores)) == len(scores)
    assert not {c.lower() for c in plots.PALETTE} & set(scores)


def test_network_panels_draw_every_panel_at_one_scale(tmp_path):
    panels = [("small", parse_spec("2:2,2")), ("wide", parse_spec("3:2,2,2,2,2,2"))]
    with plots.network_panels(panels, tmp_path / "scale") as (figure, axes):
        figure.canvas.draw()
        scales = [ax.get_window_extent().width / (ax.get_xlim()[1] - ax.get_xlim()[0])
                  for ax in axes]
    assert scales[0] == pytest.approx(scales[1], rel=1e-6)


def test_every_score_of_fit_and_select_has_its_look():
    from hiddenbn.learning.selection import SELECTION_SCORE_NAMES

    assert set(SELECTION_SCORE_NAMES) <= set(plots.SCORE_STYLES)


def test_lines_that_coincide_in_one_row_are_named_with_its_panels(tmp_path, monkeypatch):
    import pandas as pd

    states = {("g1", "bic_log_evidence"): 2, ("g1", "cs"): 2, ("g2", "bic_log_evidence"): 2,
              ("g2", "cs"): 3}
    selections = pd.DataFrame([{"generator": g, "cases": n, "score": score, "states": k}
                               for (g, score), k in states.items() for n in (100, 1000)])
    saved = []
    monkeypatch.setattr(plots, "save_figure", lambda figure, path: saved.append(figure))
    plots.selection_figure(selections, ["g1", "g2"], ["bic_log_evidence", "cs"], tmp_path / "f",
                           "t", {"g1": "G1", "g2": "G2"}, [("states", "states")])
    assert [ax.get_title() for ax in saved[0].axes] == ["(a) states\ngenerator G1",
                                                        "(b) states\ngenerator G2"]
    # in row (a) the two lines are one; in row (b) they are apart
    assert [t.get_text() for t in saved[0].legends[0].get_texts()] == [
        "BIC", "CS", "(a): BIC, CS coincide"]
    plt.close(saved[0])
