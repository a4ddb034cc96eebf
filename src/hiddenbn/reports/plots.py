"""Figures: one project-wide style, drawings of network structures and selection curves.

Every figure of the pipeline is drawn inside :func:`style` so that fonts, sizes and colours
match across papers, and saved with :func:`save_figure` (PNG for reading, PDF for print).
:func:`selection_figure` draws what scores select against the sample size (paper 002 Figures
4-5, and every user study of the config).
:func:`draw_network` draws a :class:`~hiddenbn.models.network.Network` the way the papers draw
theirs (paper 001 Fig. 2: "the number in the node is its number of states"): hidden nodes shaded,
deterministic nodes (the ``max``/``sum`` effects of paper 004) double-circled, nodes layered
top-down by depth, arcs as arrows.
"""

from __future__ import annotations

import contextlib
import textwrap
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # the pipeline and tests run headless; set before pyplot is imported

import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.lines  # noqa: E402
import matplotlib.ticker  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.patches import Circle, FancyArrowPatch  # noqa: E402

from hiddenbn.errors import HiddenbnError  # noqa: E402
from hiddenbn.util.files import atomic_output  # noqa: E402
from hiddenbn.models.network import Network  # noqa: E402

#: Colours of the series that are not scores (models, learners, classes, reference lines), in
#: this order; none is a score's colour (:data:`SCORE_STYLES`), so that a colour names one score
#: across every figure of the project.
PALETTE = ("#56b4e9", "#f26419", "#9a8c1f", "#2e4057", "#e78ac3", "#b3d463")
#: One look per score, the same in every figure of the project: colour, marker, line style and
#: legend label (one name per score: BIC is also the MDL score, paper 003's "BIC/MDL", and its
#: texts say so). Markers and line styles keep curves apart where they coincide (CS and MLED
#: often do); two colours of like hue (within 15 degrees) differ in lightness by 20 (CIE L*),
#: so that lines a pixel wide are told apart (WBIC is near-black olive and ICL lime, apart from
#: BIC's purple and BIC+'s teal, beside which they are drawn), and two scores of one hue family
#: (within 35 degrees of CIELAB hue) never share a line style: ICL's lime is dashed, not dotted
#: as MLED's green. sBIC, drawn beside Laplace and BIC wherever it is compared with them, is a
#: light turquoise dash-dot on a hue of its own (30 degrees of CIELAB hue from every other
#: score's and series' colour; it was a royal blue beside Laplace's) and lighter by 20 (CIE L*)
#: than the other dash-dot scores, so that it reads apart in greyscale too.
SCORE_STYLES = {
    "laplace": ("#1b6ca8", "o", "-", "Laplace"),
    "cs": ("#d1495b", "s", "--", "CS"),
    "mled": ("#3b8b5a", "^", ":", "MLED"),
    "draper": ("#edae49", "D", "-", "Draper"),
    "bic_log_evidence": ("#6a4c93", "v", "-", "BIC"),
    "bic_plus_log_evidence": ("#00798c", "P", "--", "BIC+"),
    "sbic_log_evidence": ("#3ac4b4", "<", "-.", "sBIC"),
    "icl_log_evidence": ("#77aa00", ">", "--", "ICL"),
    "wbic_log_evidence": ("#4d4d00", "h", "-.", "WBIC"),
    "cs_plus": ("#8d6a50", "X", "-.", "CS+"),
    "cs_de": ("#c05299", "x", "-.", "CS (d = de)"),
    "gold": ("#222222", "*", "-", "gold standard"),
    "loglik": ("#999999", ".", ":", "log-likelihood"),
}
#: The KL panel of :func:`selection_figure`: the column of the selections and its axis label.
KL_PANEL = ("kl_bits", "KL(true ‖ selected) [bits]")
HIDDEN_FILL = "#c8c8c8"
OBSERVED_FILL = "white"
EDGE_COLOUR = "#222222"

_RC = {
    "figure.dpi": 100,
    "savefig.dpi": 200,
    "savefig.bbox": "tight",
    "font.size": 9,
    "axes.titlesize": 10,
    "axes.labelsize": 9,
    "legend.fontsize": 8,
    "legend.frameon": False,
    "xtick.labelsize": 8,
    "ytick.labelsize": 8,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "lines.linewidth": 1.4,
    "lines.markersize": 4,
    "axes.prop_cycle": matplotlib.cycler(color=PALETTE),
    "pdf.fonttype": 42,  # embed TrueType so PDF text stays selectable
}

#: Node radius and spacing of :func:`draw_network`, in data units (one unit between layers).
NODE_RADIUS = 0.27
_DOUBLE_RING_GAP = 0.055
#: Curvature (matplotlib ``arc3`` rad) of an arc bent around a node in its way.
_ARC_BEND = 0.45


def score_style(score: str, markersize: float = 3.5) -> dict:
    """Keyword arguments of ``Axes.plot`` for ``score`` (a key of :data:`SCORE_STYLES`)."""
    colour, marker, linestyle, label = SCORE_STYLES[score]
    return {"color": colour, "marker": marker, "linestyle": linestyle, "label": label,
            "markersize": markersize}


def style():
    """The project figure style as a context manager: ``with plots.style(): ...``."""
    return plt.rc_context(_RC)


def save_figure(figure, path) -> list[Path]:
    """Save ``figure`` as ``path`` with suffix ``.png`` and ``.pdf`` (atomically); close it."""
    path = Path(path)
    written = []
    for suffix in (".png", ".pdf"):
        target = path.with_suffix(suffix)
        with atomic_output(target) as temporary:
            figure.savefig(temporary, format=suffix[1:])
        written.append(target)
    plt.close(figure)
    return written


def mean_and_error(frame: pd.DataFrame, by, value: str) -> pd.DataFrame:
    """Mean, standard error (sd / sqrt(n)) and size ``n`` of ``value`` per group ``by``: the
    points and error bars of :func:`selection_figure`, and the tables printed beside it."""
    grouped = frame.groupby(by, sort=True)[value]
    return pd.DataFrame({"mean": grouped.mean(), "se": grouped.sem(ddof=1).fillna(0.0),
                         "n": grouped.size()}).reset_index()


def coinciding_lines(curves: dict) -> list[list]:
    """Groups of two or more keys of ``curves`` (a score -> its points, any hashable sequence)
    whose points are equal, in the order of ``curves``: their lines lie on top of each other,
    and only the top one shows."""
    groups = {}
    for score, points in curves.items():
        groups.setdefault(tuple(points), []).append(score)
    return [group for group in groups.values() if len(group) > 1]


#: Characters per line of a legend entry that names lines which coincide.
LEGEND_NOTE_WIDTH = 24


def _panel_letter(index: int) -> str:
    """The letter of panel ``index`` (row by row) of :func:`selection_figure`."""
    return chr(ord("a") + index)


def selection_figure(selections: pd.DataFrame, generators, scores, path, title: str,
                     panel_titles: dict, panels, style_names: dict | None = None) -> None:
    """What each score selects against the sample size N (paper 002 Figures 4-5), saved as
    ``path`` (PNG + PDF).

    Parameters
    ----------
    selections : pandas.DataFrame
        One row per (data set, score) with columns ``generator``, ``cases`` (N), ``score`` and
        the panels' columns.
    generators : list
        One row of panels each; a panel is titled by its letter and axis label, "(a) ...",
        over ``"generator " + panel_titles[generator]``.
    scores : list
        One line per score, drawn in the look of :data:`SCORE_STYLES` and labelled by its
        display name there; ``style_names`` maps names that are not its keys, e.g. paper 002's
        ``BIC+``, to them, and such a score keeps its own name as its label.
    panels : sequence of (column, axis label)
        One panel per column: its mean against N with error bars of one standard error
        (:func:`mean_and_error`); N, and KL (:data:`KL_PANEL`), on log scales.

    Notes
    -----
    The legend, beside the panels, ends with an entry per group of scores whose means are equal
    at every N in every panel of a row (:func:`coinciding_lines`; prefixed by the row's panel
    letters when there are several rows), since only the top line of such a group can be
    seen.
    """
    style_names = style_names or {}

    def label_of(score):
        return score if score in style_names else score_style(score)["label"]

    with style():
        # constrained layout places the suptitle right above the panels' titles, no gap
        figure, axes = plt.subplots(len(generators), len(panels),
                                    figsize=(4 * len(panels), 3 * len(generators)),
                                    squeeze=False, layout="constrained")
        notes = []
        for index, (row, generator) in enumerate(zip(axes, generators)):
            subset = selections[selections.generator == generator]
            curves = {}  # score -> its means in every panel of the row
            for column, (value, label) in enumerate(panels):
                summary = mean_and_error(subset, ["score", "cases"], value)
                # scores that select alike draw one line: their markers tell them apart
                for score in scores:
                    line = summary[summary.score == score]
                    look = score_style(style_names.get(score, score))
                    look["label"] = label_of(score)
                    row[column].errorbar(line.cases, line["mean"], yerr=line.se,
                                         markerfacecolor="none", capsize=2, **look)
                    curves.setdefault(score, []).extend(zip(line.cases, line["mean"]))
                row[column].set_xscale("log")
                sizes = sorted(subset.cases.unique())  # label the sample sizes themselves
                row[column].set_xticks(sizes, [size_label(n) for n in sizes])
                row[column].xaxis.set_minor_locator(plt.NullLocator())
                if value == KL_PANEL[0]:
                    row[column].set_yscale("log")
                    label_log_axis(row[column])
                row[column].set_xlabel("sample size N")
                row[column].set_ylabel(label)
                letter = _panel_letter(index * len(panels) + column)
                # the panel's letter and metric first: a row's panels share its generator
                row[column].set_title(f"({letter}) {label.split(' [')[0]}\n"
                                      f"generator {panel_titles[generator]}")
            groups = coinciding_lines(curves)
            prefix = ("(" + ", ".join(_panel_letter(index * len(panels) + column)
                                      for column in range(len(panels))) + "): "
                      if len(generators) > 1 else "")
            notes += [textwrap.fill(prefix + ", ".join(map(label_of, group)) + " coincide",
                                    LEGEND_NOTE_WIDTH) for group in groups]
        # one legend, every row drawing the same scores, beside the panels: inside one it
        # covers the points of a score far from the others; centred on the right, so that it
        # stays clear of the suptitle however wide that is
        handles, labels = axes[0][0].get_legend_handles_labels()
        blank = matplotlib.lines.Line2D([], [], linestyle="none")
        figure.legend(handles + [blank] * len(notes), labels + notes, loc="outside right center")
        figure.suptitle(title)
        save_figure(figure, path)


def size_label(cases: int) -> str:
    """A sample size as a short tick label: ``"2k"`` for 2,000, ``"12.8k"``, ``"500"``; in
    full ("2,000") the neighbours 2,000 and 3,000 of a log axis print over each other."""
    return f"{cases / 1000:g}k" if cases >= 1000 else str(cases)


#: A log axis spanning fewer decades than this gets labels at 1, 2 and 5 times each power of
#: ten, so that a curve within one or two decades still has labelled ticks along it.
FEW_DECADES = 3
#: A log axis spanning fewer decades than this (and at least :data:`FEW_DECADES`) gets labels
#: at 1 and 3 times each power of ten: with the powers alone, a KL axis from 1.5e-4 to 0.2
#: had three labels and none on its lowest decade.
SOME_DECADES = 5


def _power_of_ten_label(value: float, _position=None) -> str:
    """``10^-3`` and ``2×10^-3`` in mathtext: the labels of :func:`label_log_axis`."""
    exponent = int(np.floor(np.log10(value) + 1e-9))
    mantissa = round(value / 10.0 ** exponent)
    power = rf"10^{{{exponent}}}"
    return rf"${power}$" if mantissa == 1 else rf"${mantissa}\times{power}$"


def label_log_axis(ax) -> None:
    """Label the log-scale y axis of ``ax`` at every power of ten and, when its limits span
    fewer than :data:`FEW_DECADES` decades, at 2 and 5 times each too, fewer than
    :data:`SOME_DECADES` at 3 times each (matplotlib's default labels only the powers of ten
    inside the limits, which left a KL axis from 1.7e-4 to 3e-3 with a single label)."""
    low, high = ax.get_ylim()  # positive on a log axis; settles the autoscaled limits
    decades = np.log10(high / low)
    subs = ((1.0, 2.0, 5.0) if decades < FEW_DECADES
            else (1.0, 3.0) if decades < SOME_DECADES else (1.0,))
    ax.yaxis.set_major_locator(matplotlib.ticker.LogLocator(base=10, subs=subs))
    ax.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(_power_of_ten_label))
    ax.yaxis.set_minor_locator(matplotlib.ticker.LogLocator(base=10, subs=np.arange(2, 10)))
    ax.yaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())


def node_depths(network: Network) -> np.ndarray:
    """Length of the longest directed path from a root to each node (roots have depth 0)."""
    depth = np.zeros(network.n_nodes, dtype=int)
    for i, parents in enumerate(network.parents):  # topological order: parents are final
        if parents:
            depth[i] = 1 + max(depth[p] for p in parents)
    return depth


def network_layout(network: Network) -> np.ndarray:
    """Node positions ``(n, 2)``: one row per depth, top down, one unit apart.

    Within a layer nodes are ordered by the barycentre heuristic (mean position of their
    parents, then, for the roots, of their children; one down, one up and one down sweep), which
    removes the crossings of the trees and layered networks of the papers; ties keep network
    order. Each layer is centred on zero.
    """
    depth = node_depths(network)
    position = np.zeros((network.n_nodes, 2))
    position[:, 1] = -depth
    position[:, 0] = np.arange(network.n_nodes)  # initial order: network order
    neighbours_down = [network.parents[i] for i in range(network.n_nodes)]
    neighbours_up = [network.children(i) for i in range(network.n_nodes)]
    for neighbours in (neighbours_down, neighbours_up, neighbours_down):
        for level in range(depth.max() + 1 if network.n_nodes else 0):
            members = np.flatnonzero(depth == level)
            keys = [np.mean(position[list(neighbours[i]), 0]) if neighbours[i]
                    else position[i, 0] for i in members]
            ordered = members[np.lexsort((position[members, 0], keys))]
            position[ordered, 0] = np.arange(len(ordered)) - (len(ordered) - 1) / 2.0
    return position


def _arc_bend(position: np.ndarray, start: int, end: int) -> float:
    """Curvature of the arc ``start -> end``: 0, or bent away from a node the chord crosses.

    Matplotlib's ``arc3`` puts the Bezier control point at ``mid + rad * (dy, -dx)``; the sign
    is chosen so that the curve bulges away from the first node in the way.
    """
    a, b = position[start], position[end]
    chord = b - a
    length2 = float(np.dot(chord, chord))
    for k, point in enumerate(position):
        if k in (start, end) or length2 == 0.0:
            continue
        t = np.clip(np.dot(point - a, chord) / length2, 0.0, 1.0)
        if np.linalg.norm(a + t * chord - point) < NODE_RADIUS * 1.05:
            side = np.dot(np.array([chord[1], -chord[0]]), point - (a + b) / 2)
            return -_ARC_BEND if side > 0 else _ARC_BEND
    return 0.0


def _arc_apex(position: np.ndarray, start: int, end: int, bend: float) -> np.ndarray:
    """The point of the ``arc3`` curve halfway along it (for the axis limits)."""
    a, b = position[start], position[end]
    return (a + b) / 2 + bend / 2 * np.array([b[1] - a[1], a[0] - b[0]])


def _node_text(network: Network, i: int) -> str:
    if network.kind == "gaussian":
        return ""
    return str(network.cardinalities[i])


def network_extent(network: Network) -> tuple[float, float, float, float]:
    """``(left, right, bottom, top)`` in data units of :func:`draw_network`'s drawing of
    ``network``: its nodes, their labels and the bent arcs, with a margin."""
    position = network_layout(network)
    extent = list(position)
    for i in range(network.n_nodes):
        for p in network.parents[i]:
            bend = _arc_bend(position, p, i)
            if bend:
                extent.append(_arc_apex(position, p, i, bend))
    margin = NODE_RADIUS + 0.25
    extent = np.array(extent)
    # the right margin holds the node labels, which are written beside the nodes
    return (extent[:, 0].min() - margin, extent[:, 0].max() + margin + 0.2,
            extent[:, 1].min() - margin, extent[:, 1].max() + margin)


def draw_network(network: Network, ax=None, labels=None, title=None):
    """Draw ``network`` on ``ax`` (a new figure if None) and return the axes.

    Parameters
    ----------
    network : Network
        Any structure; Gaussian nodes (continuous) show no state count.
    ax : matplotlib.axes.Axes, optional
    labels : dict or bool, optional
        Text beside each node: None or True shows the node names, a dict maps names to other
        text (missing names fall back to the name), False shows none.
    title : str, optional

    Notes
    -----
    Hidden nodes are filled grey, deterministic nodes get a second ring, the node's number of
    states is written inside it, and an arrow runs from each parent to its child, clipped at
    the circles.
    """
    if ax is None:
        width = max(2.0, 0.8 * max(np.bincount(node_depths(network))) + 0.8)
        height = max(1.6, 0.8 * (node_depths(network).max() + 1) + 0.4)
        _, ax = plt.subplots(figsize=(width, height))
    position = network_layout(network)
    for i in range(network.n_nodes):
        centre = position[i]
        fill = HIDDEN_FILL if network.hidden[i] else OBSERVED_FILL
        ax.add_patch(Circle(centre, NODE_RADIUS, facecolor=fill, edgecolor=EDGE_COLOUR,
                            linewidth=1.0, zorder=2, gid=f"node:{network.names[i]}"))
        if network.is_deterministic(i):
            ax.add_patch(Circle(centre, NODE_RADIUS - _DOUBLE_RING_GAP, facecolor="none",
                                edgecolor=EDGE_COLOUR, linewidth=1.0, zorder=3,
                                gid=f"ring:{network.names[i]}"))
        ax.text(*centre, _node_text(network, i), ha="center", va="center", fontsize=9, zorder=4)
        if labels is not False:
            name = network.names[i]
            text = labels.get(name, name) if isinstance(labels, dict) else name
            ax.text(centre[0] + NODE_RADIUS * 1.15, centre[1], text, ha="left", va="center",
                    fontsize=7, color="#444444", zorder=4)
        for p in network.parents[i]:
            direction = centre - position[p]
            direction = direction / np.linalg.norm(direction)
            arc = f"arc:{network.names[p]}->{network.names[i]}"
            # An arc that would run through another node (e.g. Y -> X2 along the chain
            # Y -> X1 -> X2 of paper 001's Figure 2) is bent so that it stays visible.
            bend = _arc_bend(position, p, i)
            ax.add_patch(FancyArrowPatch(position[p] + NODE_RADIUS * direction,
                                         centre - NODE_RADIUS * direction, arrowstyle="-|>",
                                         connectionstyle=f"arc3,rad={bend}",
                                         mutation_scale=9, color=EDGE_COLOUR, linewidth=0.9,
                                         zorder=1, gid=arc))
    left, right, bottom, top = network_extent(network)
    ax.set_xlim(left, right)
    ax.set_ylim(bottom, top)
    ax.set_aspect("equal")
    ax.set_axis_off()
    if title:
        ax.set_title(title)
    return ax


#: Inches per data unit of :func:`network_panels` (one unit between layers): every panel of a
#: figure is drawn at this one scale, so nodes have the same size in all of them.
PANEL_INCHES_PER_UNIT = 0.55
#: Inches above a panel for each line of its title, and between a title and the row above.
TITLE_LINE_INCHES = 0.2
ROW_GAP_INCHES = 0.15


@contextlib.contextmanager
def network_panels(panels, path, columns=None):
    """Draw several networks side by side and save them as ``path`` (PNG + PDF).

    ``panels`` is a list of ``(title, network)``; yields the figure and its axes (one per panel)
    so a caller can add notes before the figure is saved on exit. Every panel has the same
    scale (:data:`PANEL_INCHES_PER_UNIT`): the columns are as wide as the widest network, each
    row as high as its highest one, and each drawing is centred and aligned at the top.
    """
    count = len(panels)
    columns = columns or min(count, 4)
    rows = -(-count // columns)
    extents = [network_extent(network) for _, network in panels]
    width = max(right - left for left, right, _, _ in extents)
    heights = [max(top - bottom for _, _, bottom, top in extents[r * columns:(r + 1) * columns])
               for r in range(rows)]
    titles = [max(title.count("\n") + 1 for title, _ in panels[r * columns:(r + 1) * columns])
              for r in range(rows)]
    rooms = [(t * TITLE_LINE_INCHES + ROW_GAP_INCHES) / PANEL_INCHES_PER_UNIT for t in titles]
    cell_heights = [(h + room) * PANEL_INCHES_PER_UNIT for h, room in zip(heights, rooms)]
    with style():
        figure = plt.figure(figsize=(columns * width * PANEL_INCHES_PER_UNIT, sum(cell_heights)))
        grid = figure.add_gridspec(rows, columns, height_ratios=cell_heights, hspace=0,
                                   wspace=0, left=0, right=1, bottom=0, top=1)
        axes = [figure.add_subplot(grid[r, c]) for r in range(rows) for c in range(columns)]
        for index, (ax, (title, network), (left, right, bottom, top)) in enumerate(
                zip(axes, panels, extents)):
            draw_network(network, ax=ax, title=title)
            row = index // columns
            middle = (left + right) / 2
            # the title's lines sit inside the cell, right above the drawing
            ax.set_xlim(middle - width / 2, middle + width / 2)
            ax.set_ylim(top - heights[row], top + rooms[row])
            ax.set_title(title, y=heights[row] / (heights[row] + rooms[row]), va="bottom")
        for ax in axes[count:]:
            ax.set_axis_off()
        yield figure, axes[:count]
        save_figure(figure, path)


#: Markers of the classes of :func:`class_profile_figure`, beside their colours (the palette
#: repeats after six classes; the markers keep classes apart in print).
CLASS_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*", "<", ">")
#: Figure formats of :func:`class_profile_figure`, by file suffix.
FIGURE_FORMATS = (".png", ".pdf", ".svg")


def figure_format(path) -> str:
    """The format of a figure file, from its suffix; one line naming the choices otherwise."""
    suffix = Path(path).suffix.lower()
    if suffix not in FIGURE_FORMATS:
        raise HiddenbnError(f"figure {path}: name it .png, .pdf or .svg (the suffix chooses the "
                            "format)")
    return suffix[1:]


def class_profile_figure(report: dict, path, format: str | None = None) -> Path:
    """The latent class profile plot of a report of
    :func:`hiddenbn.reports.lca.lca_report`, saved as ``path`` in ``format`` (default: the
    one its suffix names: PNG, PDF or SVG), atomically.

    When every item is binary it is the classic profile plot of poLCA and Mplus: one line per
    class through the probability of each item's second category, items along the x axis.
    Otherwise each item gets a panel of bars, ``p(category | class)`` grouped by category. One
    colour and marker per class throughout; the legend gives the class sizes ("class 1 (42%)").
    """
    path = Path(path)
    format = format or figure_format(path)
    items = report["items"]
    labels = [f"class {c['class']} ({100 * c['size']:.0f}%)" for c in report["classes"]]
    with style():
        if all(len(item["categories"]) == 2 for item in items.values()):
            figure = _binary_profile(items, labels)
        else:
            figure = _item_panels(items, labels)
        with atomic_output(path) as temporary:
            figure.savefig(temporary, format=format)
        plt.close(figure)
    return path


def _class_look(h: int) -> dict:
    return {"color": PALETTE[h % len(PALETTE)], "marker": CLASS_MARKERS[h % len(CLASS_MARKERS)]}


def _binary_profile(items: dict, labels: list):
    """One line per class through ``p(second category | class)`` of each binary item."""
    names = list(items)
    figure, ax = plt.subplots(figsize=(max(4.0, 0.55 * len(names) + 1.8), 3.2))
    x = np.arange(len(names))
    for h, label in enumerate(labels):
        ax.plot(x, [items[name]["probabilities"][h][1] for name in names], label=label,
                markersize=5, **_class_look(h))
    ticks = [f"{name} = {items[name]['categories'][1]}" for name in names]
    long_ticks = len(names) > 6 or max(len(t) for t in ticks) > 10
    ax.set_xticks(x, ticks, rotation=40 if long_ticks else 0,
                  ha="right" if long_ticks else "center")
    ax.set_xlim(-0.4, len(names) - 0.6)
    ax.set_ylim(-0.02, 1.02)
    ax.set_ylabel("p(category | class)")
    ax.set_title("latent class profiles")
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0))
    figure.tight_layout()
    return figure


def _item_panels(items: dict, labels: list):
    """One panel per item: bars of ``p(category | class)``, grouped by category."""
    names = list(items)
    columns = min(4, len(names))
    rows = -(-len(names) // columns)
    figure, axes = plt.subplots(rows, columns, figsize=(2.7 * columns, 2.3 * rows + 0.4),
                                squeeze=False, sharey=True)
    width = 0.8 / len(labels)
    for ax, name in zip(axes.flat, names):
        categories = items[name]["categories"]
        x = np.arange(len(categories))
        for h, label in enumerate(labels):
            ax.bar(x - 0.4 + width * (h + 0.5), items[name]["probabilities"][h], width,
                   color=_class_look(h)["color"], label=label)
        ax.set_xticks(x, categories, rotation=40 if max(map(len, categories)) > 4 else 0)
        ax.set_ylim(0, 1)
        ax.set_title(name)
        ax.grid(axis="x", visible=False)
    for ax in axes[:, 0]:
        ax.set_ylabel("p(category | class)")
    for ax in axes.flat[len(names):]:
        ax.set_axis_off()
    handles, legend_labels = axes.flat[0].get_legend_handles_labels()
    figure.legend(handles, legend_labels, loc="upper center", ncol=min(len(labels), 4),
                  bbox_to_anchor=(0.5, 1.0))
    figure.tight_layout(rect=(0, 0, 1, 1 - 0.35 / figure.get_figheight()))
    return figure


def class_probability_figure(curve: dict, path, format: str | None = None) -> Path:
    """Predicted class probabilities against one numeric covariate, one line per class, saved
    as ``path`` in ``format`` (default: the one its suffix names), atomically.

    ``curve`` is ``{"covariate": name, "values": [x, ...], "probabilities": [[p(class h |
    x) per class] per x], "held": {other covariate: its value}}`` (the other covariates held
    at the values the caption names).
    """
    path = Path(path)
    format = format or figure_format(path)
    probabilities = np.asarray(curve["probabilities"], dtype=float)
    values = np.asarray(curve["values"], dtype=float)
    with style():
        figure, ax = plt.subplots(figsize=(4.6, 3.2))
        for h in range(probabilities.shape[1]):
            look = _class_look(h)
            ax.plot(values, probabilities[:, h], color=look["color"], label=f"class {h + 1}")
        ax.set_xlim(values.min(), values.max())
        ax.set_ylim(-0.02, 1.02)
        ax.set_xlabel(curve["covariate"])
        ax.set_ylabel("predicted p(class)")
        held = curve["held"]
        if held:
            ax.set_title("other covariates at " + ", ".join(
                f"{name} = {value}" for name, value in held.items()), fontsize=8)
        ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0))
        figure.tight_layout()
        with atomic_output(path) as temporary:
            figure.savefig(temporary, format=format)
        plt.close(figure)
    return path
