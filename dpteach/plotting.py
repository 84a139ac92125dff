"""One set-up call per notebook: a fixed plot style and ``save_fig`` writing ``images/<name>.png``.

Every notebook starts with ``save_fig = dpteach.plotting.setup()``. The style is set through rcParams,
never through a named matplotlib style sheet (``seaborn-whitegrid``, which the book chapter uses, was
removed from matplotlib 3.6).

``save_fig`` writes into ``images/`` beside the running notebook (its working directory), so a copy of a notebook
run elsewhere never overwrites the course's figures; ``make figures`` points it at the repository's ``images/``
through ``DPTEACH_IMAGES_DIR``. Each PNG records, under :data:`SMALLEST_TEXT_KEY`, the height in pixels of the
smallest text it draws, so the browser tests can tell how large that text is on a slide.

``setup(language="zh")`` is for the Chinese editions (notebook 05): it registers the vendored Noto Sans CJK SC
subset in ``dpteach/fonts/`` and makes ``save_fig`` add ``_zh`` to every file name, so the English and
Chinese notebooks run the same code.
"""

from __future__ import annotations

import itertools
import math
import os
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path

import matplotlib as mpl
import matplotlib.axis
import matplotlib.patches
import matplotlib.pyplot as plt
import matplotlib.table
import matplotlib.text
import numpy as np
import pandas as pd
from matplotlib import font_manager, ticker
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from pandas.io.formats.style import Styler

from dpteach.mechanisms import check_delta, check_epsilon, check_positive
from dpteach.queries import as_dataset, check_data, check_int, check_real

# The PNG text chunk where save_fig records the font size, in pixels of the saved image, of the smallest text.
SMALLEST_TEXT_KEY = "dpteach:smallest-text-px"
CJK_FONT = Path(__file__).resolve().parent / "fonts" / "NotoSansCJKsc-Regular-subset.otf"
LANGUAGES = ("en", "zh")

STYLE: dict[str, object] = {
    "figure.figsize": (8.0, 4.5),
    "figure.dpi": 100,
    "savefig.dpi": 120,
    "savefig.bbox": "tight",
    # Figures are drawn for a 1280x720 slide: no text under 13 pt (18 px at the inline 100 dpi), so that a figure
    # shown at three quarters of its size still draws its smallest text at 14 px (tests/browser/test_static_slides.py).
    "font.size": 13,
    "axes.titlesize": 14,
    "axes.labelsize": 13,
    "axes.grid": True,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "grid.color": "#dddddd",
    "grid.linewidth": 0.8,
    "legend.frameon": False,
    "lines.linewidth": 1.8,
    "lines.markersize": 6,
    "axes.prop_cycle": mpl.cycler(
        color=["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
               "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"]
    ),
    "svg.hashsalt": "dpteach",
}


def register_cjk_font() -> str:
    """Register the vendored Chinese font with matplotlib and return its family name (notebook 05, zh).

    The font is a subset of Noto Sans CJK SC (SIL OFL 1.1, see ``dpteach/fonts/README.md``).
    """
    font_manager.fontManager.addfont(str(CJK_FONT))
    return font_manager.FontProperties(fname=CJK_FONT).get_name()


def smallest_text_pt(fig: Figure) -> float:
    """The font size, in points, of the smallest text ``fig`` draws (tick labels, legends, table cells and titles
    alike: every visible, non-empty text of a visible artist); ``math.inf`` for a figure without text."""
    if not isinstance(fig, Figure):
        raise TypeError(f"fig must be a matplotlib Figure, got {type(fig).__name__}")
    fig.draw_without_rendering()  # tick labels get their text when the figure is drawn
    return min((text.get_fontsize() for text in _drawn_texts(fig)), default=math.inf)


def _drawn_texts(artist: mpl.artist.Artist) -> Iterator[mpl.text.Text]:
    """The texts under ``artist`` that are drawn: hidden artists and the axis of an ``axis("off")`` axes are not."""
    if not artist.get_visible():
        return
    if isinstance(artist, mpl.text.Text) and artist.get_text().strip():
        yield artist
    children = artist.get_children()
    if isinstance(artist, mpl.table.Table):  # a table's cells hold their text outside get_children()
        children = [cell.get_text() for cell in artist.get_celld().values() if cell.get_visible()]
    for child in children:
        if isinstance(artist, Axes) and not artist.axison and isinstance(child, mpl.axis.Axis):
            continue
        yield from _drawn_texts(child)


def _record_smallest_text_inline() -> None:
    """In a Jupyter kernel, make every figure shown inline carry :data:`SMALLEST_TEXT_KEY` too (in pixels of the
    shown PNG, drawn at ``figure.dpi``), so the browser tests can measure its text on a slide or a web page.

    The inline backend shows a figure through IPython's PNG formatter, a ``functools.partial`` of
    ``IPython.core.pylabtools.print_figure``; it is wrapped once, and every other argument is kept.
    """
    try:
        from IPython import get_ipython
    except ImportError:  # plain Python: nothing is shown inline
        return
    shell = get_ipython()
    if shell is None:
        return
    plt.switch_backend(mpl.get_backend())  # loading the inline backend is what registers its formatter
    formatter = shell.display_formatter.formatters["image/png"]
    try:
        show = formatter.lookup_by_type(Figure)
    except KeyError:  # a backend that shows no PNG (a terminal, a widget backend)
        return
    if getattr(show, "records_smallest_text", False):
        return

    def show_recording(fig: Figure) -> str | None:
        px = smallest_text_pt(fig) * fig.dpi / 72
        return show(fig, metadata={SMALLEST_TEXT_KEY: f"{px:.2f}"})

    show_recording.records_smallest_text = True
    formatter.for_type(Figure, show_recording)


def setup(images_dir: str | Path | None = None, language: str = "en") -> Callable[[str, Figure | None], None]:
    """Apply the project's plot style and return ``save_fig(name, fig=None)``.

    ``save_fig`` writes ``<images_dir>/<name>.png`` and returns nothing, so a cell ending with it prints nothing.
    With ``images_dir=None`` the folder is ``DPTEACH_IMAGES_DIR`` when that environment variable is set
    (``make figures`` sets it to the repository's ``images/``, the tests to a temporary folder), else ``images/``
    in the working directory at the time of this call: beside the notebook being run. The PNG's text chunk
    :data:`SMALLEST_TEXT_KEY` holds :func:`smallest_text_pt` in pixels of the saved image, and so does every
    figure the notebook shows inline from then on. With ``language="zh"``
    Chinese text renders (DejaVu Sans first, the vendored CJK font as per-glyph fallback) and the file is
    ``<name>_zh.png``.
    """
    if language not in LANGUAGES:
        raise ValueError(f"language must be one of {LANGUAGES}, got {language!r}")
    if images_dir is not None and not isinstance(images_dir, str | os.PathLike):
        raise TypeError(f"images_dir must be a str, a Path or None, got {type(images_dir).__name__}")
    plt.rcdefaults()
    mpl.rcParams.update(STYLE)
    _record_smallest_text_inline()
    suffix = ""
    if language == "zh":
        mpl.rcParams["font.family"] = ["DejaVu Sans", register_cjk_font()]
        suffix = "_zh"
    if images_dir is None:
        images_dir = os.environ.get("DPTEACH_IMAGES_DIR") or "images"
    target = Path(images_dir).absolute()

    def save_fig(name: str, fig: Figure | None = None) -> None:
        if not isinstance(name, str) or not name or "/" in name:
            raise ValueError(f"name must be a non-empty file stem without '/', got {name!r}")
        figure = fig or plt.gcf()
        target.mkdir(parents=True, exist_ok=True)
        smallest_px = smallest_text_pt(figure) * mpl.rcParams["savefig.dpi"] / 72
        figure.savefig(target / f"{name}{suffix}.png",
                       metadata={"Software": None, SMALLEST_TEXT_KEY: f"{smallest_px:.2f}"})

    return save_fig


# ------------------------------------------------------------------------------------------ sensitivity plots
# One look per query. median and percentile_50 are the same number, so they get the same colour family but
# different markers and line styles, and percentile_50 is drawn thinner on top: both stay visible.
QUERY_LOOKS: dict[str, dict[str, object]] = {
    "mean": {"color": "#1f77b4", "marker": "o", "linestyle": "-"},
    "median": {"color": "#d62728", "marker": "o", "linestyle": "-", "markersize": 10,
               "markerfacecolor": "none", "linewidth": 3.0, "alpha": 0.6},
    "count": {"color": "#2ca02c", "marker": "s", "linestyle": "-"},
    "sum": {"color": "#ff7f0e", "marker": "D", "linestyle": "-"},
    "std": {"color": "#9467bd", "marker": "^", "linestyle": "--"},
    "var": {"color": "#8c564b", "marker": "v", "linestyle": "--"},
    # The three other percentiles differ by dash pattern and a large marker as well as by colour, so they can be
    # told apart from the back of a room where their colours blur together.
    "percentile_25": {"color": "#e377c2", "marker": "<", "linestyle": "-.", "linewidth": 2.4, "markersize": 10},
    "percentile_50": {"color": "#000000", "marker": "x", "linestyle": "--", "linewidth": 1.2},
    "percentile_75": {"color": "#17becf", "marker": ">", "linestyle": (0, (6, 2)), "linewidth": 2.4,
                      "markersize": 10},
    "percentile_90": {"color": "#bcbd22", "marker": "P", "linestyle": (0, (1, 1.5)), "linewidth": 2.8,
                      "markersize": 10},
}


DODGE = 0.018
# sum and var reach tens where the other queries stay near 1-15: each group gets its own panel and linear axis.
LARGE_QUERIES = ("sum", "var")
HEADROOM = 0.08
GRID_COLUMNS = ("k", "query", "column", "sensitivity")
NEIGHBOUR_TABLE_COLUMNS = ("release", "local sensitivity", "argmax", "attains global")
# What k counts under each relation of dpteach.sensitivity_grid: the blog's unbounded k is *not* a Hamming
# (symmetric-difference) distance, since it never mixes additions with removals (notebook 02).
K_LABELS = {
    "unbounded": "k: exactly k added, or exactly k removed",
    "bounded": "k: up to k records replaced",
    "symmetric": "k: up to k added or removed, any mix",
}


def _check_frame(table: object, name: str, columns: tuple[str, ...]) -> pd.DataFrame:
    """``table`` must be a non-empty DataFrame holding ``columns``; messages name the parameter ``name``."""
    if not isinstance(table, pd.DataFrame):
        raise TypeError(f"{name} must be a pandas DataFrame, got {type(table).__name__}")
    missing = [c for c in columns if c not in table.columns]
    if missing or table.empty:
        raise ValueError(f"{name} must be a non-empty table with columns {list(columns)}; missing {missing}")
    return table


def _check_text(value: object, name: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, got {type(value).__name__}")
    return value


def _query_groups(grid: pd.DataFrame) -> list[tuple[str, pd.DataFrame]]:
    """(panel label, rows): the other queries first, then :data:`LARGE_QUERIES`; an empty part is dropped."""
    large = grid["query"].isin(LARGE_QUERIES)
    parts = (("other queries", grid[~large]), (" and ".join(LARGE_QUERIES), grid[large]))
    return [(label, part) for label, part in parts if not part.empty]


def _k_label(grid: pd.DataFrame, xlabel: str | None) -> str:
    """``xlabel`` if given, else what k means for the grid's one relation (:data:`K_LABELS`), else "k"."""
    if xlabel is not None:
        return _check_text(xlabel, "xlabel")
    relations = set(grid["relation"]) if "relation" in grid.columns else set()
    return K_LABELS.get(relations.pop(), "k") if len(relations) == 1 else "k"


def _draw_queries(ax: Axes, grid: pd.DataFrame, *, top: float, xlabel: str) -> None:
    """One line per query on a linear axis from 0 to ``top``; each query is nudged sideways by :data:`DODGE`.

    The axis starts a little below 0 and ends a little above ``top``, so a sensitivity of 0 (bounded ``count``)
    sits visibly above the frame and the highest markers are never cut by the top edge.
    """
    queries = list(dict.fromkeys(grid["query"]))
    for i, query in enumerate(queries):
        rows = grid[grid["query"] == query].sort_values("k")
        shift = DODGE * (i - (len(queries) - 1) / 2)
        ax.plot(rows["k"] + shift, rows["sensitivity"], label=query, zorder=3, **QUERY_LOOKS.get(query, {}))
    ks = sorted(grid["k"].unique())
    ax.set_xticks(ks)
    ax.set_xlim(ks[0] - 0.4, ks[-1] + 0.4)
    span = top if top > 0 else 1.0
    ax.set_ylim(-HEADROOM * span, top + HEADROOM * span)
    ax.axhline(0.0, color="#555555", linewidth=0.8, zorder=1)
    ax.set_xlabel(xlabel)


def _legend(fig: Figure, order: Sequence[str]) -> None:
    """One legend for the whole figure, queries in ``order`` (each panel holds only some of them)."""
    handles = {}
    for ax in fig.axes:
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
            handles.setdefault(label, handle)
    labels = [q for q in order if q in handles]
    fig.legend([handles[q] for q in labels], labels, loc="center left", bbox_to_anchor=(1.0, 0.5), title="query")


FADED_LINE_ALPHA, FADED_TEXT_ALPHA = 0.25, 0.4  # a query left out of ``highlight``: its lines, its legend text


def _check_highlight(highlight: object, queries: Sequence[str]) -> tuple[str, ...]:
    """``highlight`` must be a tuple or list of query names drawn in the grid (``queries``); a bare str is refused."""
    if not isinstance(highlight, tuple | list) or not all(isinstance(q, str) for q in highlight):
        raise TypeError(f"highlight must be a tuple or list of query names, got {highlight!r}")
    unknown = [q for q in highlight if q not in queries]
    if unknown:
        raise ValueError(f"highlight must name queries of the grid, one of {list(queries)}; got {unknown}")
    return tuple(highlight)


def _fade(fig: Figure, highlight: tuple[str, ...]) -> None:
    """Draw every query not in ``highlight`` faded, in the panels and in the legend."""
    for line in (line for ax in fig.axes for line in ax.get_lines()):
        line.set_alpha(1.0 if line.get_label() in highlight else FADED_LINE_ALPHA)
    legend = fig.legends[0]
    for handle, text in zip(legend.legend_handles, legend.get_texts(), strict=True):
        bright = text.get_text() in highlight
        handle.set_alpha(1.0 if bright else FADED_LINE_ALPHA)
        text.set_alpha(1.0 if bright else FADED_TEXT_ALPHA)


def plot_sensitivity_grid(grid: pd.DataFrame, title: str, *, xlabel: str | None = None,
                          highlight: Sequence[str] = ()) -> Figure:
    """A row of panels per column of data, x = k, y = sensitivity on a plain linear scale, one line per query.

    Each column of data gets two panels side by side: the other queries, then :data:`LARGE_QUERIES` (whose values
    dwarf the rest), each with its own linear axis from 0; two columns of data make a 2 x 2 grid for a 16:9 slide.
    Each query is nudged sideways by :data:`DODGE` so equal values do not hide each other.

    ``grid`` is a :func:`dpteach.sensitivity_grid` table for one relation and scope (notebooks 02, 03). The x
    axis says what k counts under that relation (:data:`K_LABELS`) unless ``xlabel`` is given. The queries named
    in ``highlight`` (a tuple or list; empty: all) stay bright; the others fade, in the legend too (lesson 02).
    """
    _check_frame(grid, "grid", GRID_COLUMNS)
    _check_text(title, "title")
    bright = _check_highlight(highlight, list(dict.fromkeys(grid["query"])))
    k_label = _k_label(grid, xlabel)
    rows = {column: _query_groups(grid[grid["column"] == column]) for column in dict.fromkeys(grid["column"])}
    width = max(len(groups) for groups in rows.values())
    fig, axes = plt.subplots(len(rows), width, figsize=(4.8 * width + 0.8, 2.9 * len(rows) + 0.4), squeeze=False)
    for row, (column, groups) in zip(axes, rows.items(), strict=True):
        for ax in row[len(groups):]:
            ax.set_visible(False)
        for ax, (label, part) in zip(row, groups, strict=False):  # spare axes are hidden above
            _draw_queries(ax, part, top=float(part["sensitivity"].max()), xlabel=k_label)
            ax.set_title(f"{column}: {label}")
        row[0].set_ylabel("sensitivity")
    _legend(fig, list(dict.fromkeys(grid["query"])))
    if bright:
        _fade(fig, bright)
    fig.suptitle(title)
    fig.tight_layout()
    return fig


def plot_local_vs_global(local: pd.DataFrame, global_: pd.DataFrame, title: str, *,
                         xlabel: str | None = None) -> Figure:
    """Local next to global sensitivity (lesson 03): a row per column of data and group of queries (the other
    queries, then :data:`LARGE_QUERIES`), local on the left and global on the right, linear axes from 0.

    Each local/global pair shares its y axis. One column of data makes a 2 x 2 grid for a 16:9 slide (notebook 02
    draws one figure per column). The x axis says what k counts (:data:`K_LABELS`) when both tables
    hold the same one relation, unless ``xlabel`` is given.
    """
    _check_frame(local, "local", GRID_COLUMNS)
    _check_frame(global_, "global_", GRID_COLUMNS)
    _check_text(title, "title")
    k_label = _k_label(pd.concat([local, global_]), xlabel)
    columns = list(dict.fromkeys(local["column"]))
    labels = [label for label, _ in _query_groups(pd.concat([local, global_]))]
    rows = [(column, label) for column in columns for label in labels]
    fig, axes = plt.subplots(len(rows), 2, figsize=(11.0, 3.0 * len(rows) + 0.6), squeeze=False)
    for (left, right), (column, label) in zip(axes, rows, strict=True):
        parts = {scope: dict(_query_groups(grid[grid["column"] == column])).get(label)
                 for scope, grid in (("local", local), ("global", global_))}
        drawn = [p for p in parts.values() if p is not None]
        top = max(float(p["sensitivity"].max()) for p in drawn) if drawn else 0.0
        for ax, (scope, part) in zip((left, right), parts.items(), strict=True):
            if part is None:
                ax.axis("off")
                continue
            _draw_queries(ax, part, top=top, xlabel=k_label)
            ax.set_title(f"{scope} — {column}: {label}")
        left.set_ylabel("sensitivity")
    _legend(fig, list(dict.fromkeys(local["query"])))
    fig.suptitle(title)
    fig.tight_layout()
    return fig


# ------------------------------------------------------------------------------------------ neighbour table
ROW_MAX_COLOUR = "#f9d46b"  # a yellow that stays visible on a projector
GLOBAL_MAX_COLOUR = "#f4a582"


def _change(release: tuple, neighbour: tuple) -> str:
    """How ``neighbour`` differs from ``release``: ``-v`` removed, ``+v`` added, ``a→b`` a replaced by b."""
    removed = sorted((Counter(release) - Counter(neighbour)).elements())
    added = sorted((Counter(neighbour) - Counter(release)).elements())
    if len(removed) == len(added) == 1:
        return f"{removed[0]:g}→{added[0]:g}"
    return " ".join([f"−{v:g}" for v in removed] + [f"+{v:g}" for v in added])


def _neighbour_cells(table: pd.DataFrame) -> tuple[list[str], list[list[str]], list[list[str]]]:
    """Flatten a :func:`dpteach.neighbour_table` into display text and cell colours.

    Each neighbour cell reads ``change: value | L1``: the record removed (``-v``), added (``+v``) or replaced
    (``a→b``), the query's value on that neighbour, and :math:`|f(x) - f(x')|`. The neighbour columns are headed
    ``x'1``, ``x'2``, ...: short, so the table fits a slide at a size a class can read.
    """
    value_column = table.columns[1]
    query_name = value_column.removesuffix("(release)")
    n_neighbours = sum(c.startswith("neighbour ") for c in table.columns)
    header = ["release x", value_column.replace("(release)", "(x)")]
    header += [f"x'{j}" for j in range(1, n_neighbours + 1)] + ["local sens."]
    text, colours = [], []
    global_value = table.attrs["global_sensitivity"]
    for _, row in table.iterrows():
        cells, tints = [str(row["release"]), f"{row[value_column]:g}"], ["white", "white"]
        for j in range(1, n_neighbours + 1):
            norm = row[f"L1 {j}"]
            if not isinstance(row[f"neighbour {j}"], tuple):  # a row with fewer neighbours than the widest
                cells.append("")
                tints.append("white")
                continue
            change = _change(row["release"], row[f"neighbour {j}"])
            cells.append(f"{change}: {row[f'{query_name} {j}']:g} | {norm:g}")
            attains = norm == row["local sensitivity"]
            tints.append(GLOBAL_MAX_COLOUR if attains and norm == global_value else
                         ROW_MAX_COLOUR if attains else "white")
        cells.append(f"{row['local sensitivity']:g}")
        tints.append(GLOBAL_MAX_COLOUR if row["attains global"] else ROW_MAX_COLOUR)
        text.append(cells)
        colours.append(tints)
    return header, text, colours


def _check_neighbour_table(table: object) -> None:
    _check_frame(table, "table", NEIGHBOUR_TABLE_COLUMNS)
    if "global_sensitivity" not in table.attrs:
        raise ValueError("table must come from dpteach.neighbour_table (attrs['global_sensitivity'] is missing)")


def draw_neighbour_table(ax: Axes, table: pd.DataFrame, title: str) -> None:
    """Draw the neighbour table on ``ax``: row maxima in yellow, cells reaching the global maximum in orange and bold
    (so that the two are told apart without colour).

    Each neighbour cell names the change (``-v`` removed, ``+v`` added, ``a→b`` replaced), then the query's
    value on the neighbour and the L1 norm; the title says so (lesson 03). One table per figure, of about
    12 x 3.95 inches for ten rows (no blank band below), is drawn for a 16:9 slide: its cells at the style's base
    font size.
    """
    _check_neighbour_table(table)
    header, text, colours = _neighbour_cells(table)
    ax.axis("off")
    drawn = ax.table(cellText=text, cellColours=colours, colLabels=header, loc="upper center", cellLoc="center")
    drawn.auto_set_font_size(False)
    drawn.set_fontsize(mpl.rcParams["font.size"])
    drawn.scale(1.0, 1.6)
    drawn.auto_set_column_width(list(range(len(header))))
    for (row, column), cell in drawn.get_celld().items():
        if row == 0 or colours[row - 1][column] == GLOBAL_MAX_COLOUR:
            cell.set_text_props(fontweight="bold")
    query_name = table.columns[1].removesuffix("(release)")
    ax.set_title(f"{title} — global sensitivity {table.attrs['global_sensitivity']:g}\n"
                 f"cell: change (−v removed, +v added, a→b replaced): {query_name}(x') | "
                 f"L1 = |{query_name}(x) − {query_name}(x')|\n"
                 "yellow: attains the row's local sensitivity · orange, bold: attains the global sensitivity")


def style_neighbour_table(table: pd.DataFrame, uuid: str) -> Styler:
    """The table as a pandas Styler with the same highlighting (a fixed ``uuid`` keeps the HTML reproducible)."""
    _check_neighbour_table(table)
    _check_text(uuid, "uuid")
    norm_columns = [c for c in table.columns if c.startswith("L1 ")]
    global_value = table.attrs["global_sensitivity"]

    def tint(row: pd.Series) -> list[str]:
        looks = []
        for column in row.index:
            if column in norm_columns or column == "local sensitivity":
                value = row[column]
                if value == row["local sensitivity"]:
                    colour = GLOBAL_MAX_COLOUR if value == global_value else ROW_MAX_COLOUR
                    looks.append(f"background-color: {colour}; font-weight: bold")
                    continue
            looks.append("")
        return looks

    shown = table.drop(columns=["argmax", "attains global"])
    return shown.style.set_uuid(uuid).apply(tint, axis=1).format(precision=1).hide(axis="index")


# ------------------------------------------------------------------------------------------ error histograms
def error_histograms(errors_by_label: Mapping[str, Sequence[float]], *, title: str, xlabel: str,
                     ylabel: str) -> Figure:
    """Percent-error histograms of several mechanisms on shared bins (notebook 05).

    Each is an unfilled outline with its own colour and line style (solid, dashed, dotted, ...), so where two
    overlap both shapes stay readable, on a projector and without telling red from green (translucent fills
    blend into a third colour that matches no legend entry). Counts get integer ticks.
    """
    if not isinstance(errors_by_label, Mapping):
        raise TypeError(f"errors_by_label must be a mapping of label to errors, got {type(errors_by_label).__name__}")
    if not errors_by_label:
        raise ValueError("errors_by_label must hold at least one label, got an empty mapping")
    for text, name in ((title, "title"), (xlabel, "xlabel"), (ylabel, "ylabel")):
        _check_text(text, name)
    arrays = {label: as_dataset(errors, f"errors_by_label[{label!r}]") for label, errors in errors_by_label.items()}
    bins = np.histogram_bin_edges(np.concatenate(list(arrays.values())), bins=20)
    fig, ax = plt.subplots(figsize=(9.0, 3.6))  # wide and low: the slide keeps room for a paragraph below
    colours = itertools.cycle(mpl.rcParams["axes.prop_cycle"].by_key()["color"])
    styles = itertools.cycle(["-", "--", ":", "-."])
    for (label, errors), colour, style in zip(arrays.items(), colours, styles, strict=False):  # cycles never end
        ax.hist(errors, bins=bins, histtype="step", color=colour, linestyle=style, linewidth=2.5, label=label)
    ax.set(xlabel=xlabel, ylabel=ylabel, title=title)
    ax.yaxis.set_major_locator(ticker.MaxNLocator(integer=True))
    ax.legend()
    return fig


# ------------------------------------------------------------------------------------------ privacy loss (01)
def plot_privacy_loss(z: Sequence[float], densities: Mapping[str, Sequence[float]], epsilon: float,
                      title: str) -> Figure:
    r"""Two output densities (left) and the privacy loss :math:`\ln(p_1(z)/p_2(z))` between them (right).

    ``densities`` holds exactly two curves over the grid ``z``; the right panel shades the band
    :math:`[-\varepsilon, \varepsilon]` that an :math:`\varepsilon`-DP mechanism keeps the loss in (lesson 01).
    Dotted lines on both panels mark where each density peaks (for Laplace noise, the true value it is centred on).
    """
    grid = check_data(z, "z")
    if grid.size < 2 or (np.diff(grid) <= 0).any():
        raise ValueError("z must hold at least two values in increasing order")
    if not isinstance(densities, Mapping) or len(densities) != 2:
        raise ValueError(f"densities must be a mapping of exactly two labels to curves, got {densities!r}")
    curves = {label: check_data(values, f"densities[{label!r}]") for label, values in densities.items()}
    if any(c.shape != grid.shape or (c <= 0).any() for c in curves.values()):
        raise ValueError("densities must hold, for each label, one positive value per point of z")
    if isinstance(epsilon, bool) or not isinstance(epsilon, int | float) or not 0 < check_real(
            "epsilon", epsilon, "a finite number > 0") < math.inf:
        raise ValueError(f"epsilon must be a finite number > 0, got {epsilon!r}")
    _check_text(title, "title")
    (first, p), (second, q) = curves.items()
    fig, (left, right) = plt.subplots(1, 2, figsize=(11.0, 4.2))
    for label, curve in curves.items():
        line, = left.plot(grid, curve, label=label)
        peak = grid[int(np.argmax(curve))]
        for axes in (left, right):
            axes.axvline(peak, color=line.get_color(), linestyle=":", linewidth=1.5)
    left.set(xlabel="released value z", ylabel="density", title="output densities")
    left.legend()
    right.axhspan(-epsilon, epsilon, color="#cfe3f3", label=f"allowed band: -ε to ε (ε = {epsilon:g})")
    right.plot(grid, np.log(p / q), color="#333333", label="privacy loss")
    right.set(xlabel="released value z", ylabel="privacy loss", ylim=(-1.6 * epsilon, 1.6 * epsilon),
              title=f"privacy loss ln(density {first} / density {second})")
    fig.suptitle(title)
    # the legend sits below the panel, so the ±ε band fills the panel's height
    right.legend(loc="upper center", bbox_to_anchor=(0.5, -0.3), ncol=2, frameon=False)
    fig.tight_layout()
    return fig


def plot_stretch_loss(lam: float, t: float, epsilon: float, title: str) -> Figure:
    r"""The stretch part of the privacy loss between Laplace noises whose widths differ by :math:`e^{\lambda}`
    (lesson 04), for both orders of the pair, each at every output :math:`z` in its first dataset's noise units:
    :math:`\lambda - |z|(1 - e^{-\lambda})` when the second noise is the wider one (blue, at most :math:`\lambda`)
    and :math:`-\lambda + |z|(e^{\lambda} - 1)` in the reverse order (red).

    It draws the line :math:`\varepsilon/2` and shades the red order's tail :math:`|z| > t` (probability
    :math:`e^{-t}` under the first dataset's noise), where the red curve passes :math:`\varepsilon/2` when
    :math:`t = (\varepsilon/2 + \lambda)/(e^{\lambda} - 1)`; the blue order's tail starts at :math:`t e^{\lambda}`.
    """
    lam = check_real("lam", lam, "a finite number > 0")
    t = check_real("t", t, "a finite number > 0")
    epsilon = check_real("epsilon", epsilon, "a finite number > 0")
    for name, value in (("lam", lam), ("t", t), ("epsilon", epsilon)):
        if not 0 < value < math.inf:
            raise ValueError(f"{name} must be a finite number > 0, got {value!r}")
    _check_text(title, "title")
    edge = max(12.0, 1.2 * t)
    z = np.linspace(-edge, edge, 961)
    with plt.rc_context({"font.size": 18, "axes.titlesize": 19, "axes.labelsize": 19, "lines.linewidth": 3.5}):
        fig, ax = plt.subplots(figsize=(12.8, 7.2))
        ax.plot(z, -lam + np.abs(z) * math.expm1(lam), color="#d62728",
                label="x′ against x (reverse order): passes ε/2 at t")
        ax.plot(z, lam + np.abs(z) * math.expm1(-lam), color="#3182bd",
                label="x against x′ (x′'s noise wider): at most β")
        ax.hlines(epsilon / 2, -edge, edge, color="black", linestyle="--", linewidth=2,
                  label="ε/2: the stretch's share")
        ax.axvspan(t, edge, color="#ff7f0e", alpha=0.3, label="|z| > t: the red order's tail, probability e^(−t)")
        ax.axvspan(-edge, -t, color="#ff7f0e", alpha=0.3)
        ax.text(t, 0.05 * epsilon, f"t = {t:.1f} ", fontsize=18, ha="right")
        ax.set(xlabel="z (in the first dataset's noise units)", ylabel="stretch part of the privacy loss",
               xlim=(-edge, edge), ylim=(-0.75 * epsilon, epsilon), title=title)
        ax.legend(loc="upper center", fontsize=16)
    return fig


def plot_truncation_swap(b: int, title: str) -> Figure:
    """The swap of lesson 08's private join: user 1 has ``b + 1`` rows in ``purchases``, truncation keeps the first
    ``b`` (blue, each meeting up to ``a`` rows of ``users``) and drops the last (grey). Removing row 0 lets the
    dropped row move up and be kept, so row 0's joined rows leave and row ``b``'s arrive.
    """
    b = check_int("b", b, 1, 4)
    _check_text(title, "title")
    before = [f"row {i}, kept" for i in range(b)] + [f"row {b}, dropped"]
    after = [f"row {i}, kept" for i in range(1, b)] + [f"row {b}, kept (moved up)"]
    states = {f"user 1's rows in purchases, before (b = {b})": before, "after removing row 0": after}
    fig, axes = plt.subplots(1, 2, figsize=(11, 3.4))
    for ax, (panel, labels) in zip(axes, states.items(), strict=True):
        for i, label in enumerate(labels):
            kept = "kept" in label
            ax.text(0.02, 0.8 - 0.6 / b * i, f"{label} → {'≤ a joined rows' if kept else 'none'}", fontsize=16,
                    va="center", bbox={"facecolor": "C0" if kept else "lightgrey", "alpha": 0.35, "boxstyle": "round"})
        ax.set_title(panel, fontsize=16)
        ax.set(xlim=(0, 1), ylim=(0, 1))
        ax.axis("off")
    fig.suptitle(title, y=0.02, va="bottom", fontsize=16)
    return fig


# Appendix A2's two Gaussian routes: (line style, label offset in points, label alignment, short name).
_GAUSSIAN_ROUTES = {"Gaussian via zCDP (loose)": ("C3--", (-30, 48), "right", "zCDP route"),
                    "analytic Gaussian (exact)": ("C1-", (24, -34), "left", "exact")}


def plot_noise_vs_groups(groups: Sequence[int], laplace_sd: Sequence[float], gaussian_sd: Mapping[str, Sequence[float]],
                         sigmas: Mapping[str, float], crossover: Mapping[str, int], epsilon: float,
                         delta: float) -> Figure:
    r"""Appendix A2: the noise standard deviation on each clinic count against :math:`G`, Laplace
    (:math:`\sqrt2\,G/\varepsilon`) beside the two Gaussian calibrations (:math:`\sigma\sqrt G`), each marked where
    it first wins (``crossover``), with the Tumult guide's grid :math:`G \le 5` shaded.

    ``gaussian_sd``, ``sigmas`` and ``crossover`` are keyed by the two route names of :data:`_GAUSSIAN_ROUTES`.
    """
    g_values = check_data(groups, "groups")
    if g_values.size < 2 or (np.diff(g_values) != 1).any() or g_values[0] != 1:
        raise ValueError("groups must be 1, 2, ..., G_max (at least two values)")
    laplace = check_data(laplace_sd, "laplace_sd")
    if laplace.shape != g_values.shape:
        raise ValueError("laplace_sd must hold one value per group count")
    for name, value in (("gaussian_sd", gaussian_sd), ("sigmas", sigmas), ("crossover", crossover)):
        if not isinstance(value, Mapping) or set(value) != set(_GAUSSIAN_ROUTES):
            raise ValueError(f"{name} must map exactly {sorted(_GAUSSIAN_ROUTES)}, got {value!r}")
    curves = {name: check_data(values, f"gaussian_sd[{name!r}]") for name, values in gaussian_sd.items()}
    if any(curve.shape != g_values.shape for curve in curves.values()):
        raise ValueError("gaussian_sd must hold one value per group count for each route")
    for name, g in crossover.items():
        if isinstance(g, bool) or not isinstance(g, int | np.integer) or not 1 <= g <= g_values.size:
            raise ValueError(f"crossover[{name!r}] must be a group count in 1..{g_values.size}, got {g!r}")
    for name, sigma in sigmas.items():
        check_positive(f"sigmas[{name!r}]", sigma)
    epsilon, delta = check_epsilon(epsilon), check_delta(delta)
    fig, ax = plt.subplots(figsize=(9, 4.2))
    ax.plot(g_values, laplace, color="C0")
    ax.annotate("Laplace, pure ε-DP:\nsd √2·G/ε", (g_values[-1], laplace[-1]), (6, 0), textcoords="offset points",
                va="center", color="C0")
    for name, (style, offset, align, short) in _GAUSSIAN_ROUTES.items():
        g, sd = crossover[name], curves[name]
        ax.plot(g_values, sd, style, marker="o", markevery=[g - 1])
        ax.annotate(f"Gaussian, {short}:\nsd {sigmas[name]:.2f}·√G", (g_values[-1], sd[-1]), (6, 0),
                    textcoords="offset points", va="center", color=style[:2])
        ax.annotate(f"{short}:\nGaussian wins from G = {g}", (g, sd[g - 1]), offset,
                    textcoords="offset points", ha=align, arrowprops={"arrowstyle": "-", "color": "grey"})
    ax.axvspan(0.5, 5.5, color="grey", alpha=0.12)
    ax.text(3, 0.97, "the guide's\ngrid, G ≤ 5", transform=ax.get_xaxis_transform(), ha="center", va="top")
    ax.set(xlim=(0.5, g_values[-1] + 0.5), ylim=(0, None), ylabel="noise standard deviation (lower is better)",
           xlabel="G = MaxGroupsPerID: clinics one patient may count in (R = 1 visit per clinic)",
           title=f"Noise on each clinic count at the same (ε = {epsilon:g}, δ = 10$^{{{math.log10(delta):.0f}}}$)-DP "
           "promise")
    return fig


# One slide-sized panel for a few curves over k (notebook 02): sizes in points, larger than the style's 13 pt.
CURVE_TEXT_PT = {"title": 20, "label": 18, "ticks": 16, "values": 17}


def plot_k_curves(curves: Mapping[str, pd.Series], *, ylabel: str, title: str) -> Figure:
    """A few labelled curves over integer k in one 16:9 panel (notebook 02: the blog's k against a group's).

    ``curves`` maps a label to a Series of values indexed by k. Where the curves disagree at some k, each value
    there is printed beside its marker (the first curve's below, the others' above); where they agree the lines
    overlap and nothing is printed. The y axis runs from 0 to a little above the largest value.
    """
    if not isinstance(curves, Mapping) or not curves:
        raise ValueError(f"curves must be a non-empty mapping of label to a Series indexed by k, got {curves!r}")
    _check_text(ylabel, "ylabel")
    _check_text(title, "title")
    series = {}
    for label, values in curves.items():
        if not isinstance(values, pd.Series):
            raise TypeError(f"curves[{label!r}] must be a pandas Series indexed by k, got {type(values).__name__}")
        series[label] = pd.Series(check_data(values.to_numpy(), f"curves[{label!r}]"), index=values.index)
    ks = sorted({int(k) for s in series.values() for k in s.index})
    table = pd.DataFrame(series).reindex(ks)
    differs = {k for k in ks if not np.allclose(table.loc[k].dropna(), table.loc[k].dropna().iloc[0])}
    fig, ax = plt.subplots(figsize=(12, 6.75), layout="constrained")
    looks = itertools.cycle([({"marker": "o", "linestyle": "-"}, -30), ({"marker": "s", "linestyle": "--"}, 14)])
    for (label, values), (look, offset) in zip(series.items(), looks, strict=False):  # the cycle never ends
        ax.plot(values.index, values.to_numpy(), label=label, linewidth=3, markersize=11, **look)
        for k, v in values.items():
            if int(k) in differs:
                ax.annotate(f"{v:.2f}", (k, v), textcoords="offset points", xytext=(0, offset), ha="center",
                            fontsize=CURVE_TEXT_PT["values"])
    top = float(table.max().max())
    ax.set_xticks(ks)
    ax.set_ylim(0, 1.2 * top if top > 0 else 1.0)
    ax.tick_params(labelsize=CURVE_TEXT_PT["ticks"])
    ax.set_xlabel("distance k", fontsize=CURVE_TEXT_PT["label"])
    ax.set_ylabel(ylabel, fontsize=CURVE_TEXT_PT["label"])
    ax.set_title(title, fontsize=CURVE_TEXT_PT["title"])
    ax.legend(loc="lower right", fontsize=CURVE_TEXT_PT["values"])
    return fig


def plot_audit_verdicts(panels: Mapping[str, Mapping[str, tuple]], *, title: str) -> Figure:
    r"""One panel per pair of neighbours (notebook 10): a bar per mechanism for the audit's lower bound
    :math:`\hat\varepsilon`, green if the audit passed and red if it failed, and a black line at the
    :math:`\varepsilon` it was audited against.

    ``panels`` maps a pair's label to ``{mechanism label: (ε̂, claimed ε, passed)}``, or to
    ``(ε̂, claimed ε, passed, holds)`` with theory's verdict on the pair: a bar whose claim theory finds violated
    is hatched and outlined, so a green hatched bar is a miss (a real violation the audit did not see). A legend
    names the colours and, when some bar is hatched, the hatching. Two rows of panels; the leftmost carry the
    y label (:data:`AUDIT_YLABEL`).
    """
    if not isinstance(panels, Mapping) or not panels:
        raise ValueError(f"panels must be a non-empty mapping of pair label to bars, got {panels!r}")
    _check_text(title, "title")
    columns = math.ceil(len(panels) / 2)
    fig, axes = plt.subplots(2, columns, figsize=(3.4 * columns, 6.6), squeeze=False)
    for ax in axes.flat[len(panels):]:
        ax.set_visible(False)
    any_hatched = False
    for index, (ax, (pair, bars)) in enumerate(zip(axes.flat, panels.items(), strict=False)):  # spares hidden above
        well_formed = (isinstance(bar, tuple) and len(bar) in (3, 4)
                       and all(isinstance(flag, (bool, np.bool_)) for flag in bar[2:])
                       for bar in (bars.values() if isinstance(bars, Mapping) else ()))
        if not isinstance(bars, Mapping) or not bars or not all(well_formed):
            raise ValueError(f"panels[{pair!r}] must be a non-empty mapping of label to (ε̂, ε, passed[, holds])")
        found = check_data([bar[0] for bar in bars.values()], f"panels[{pair!r}] ε̂")
        claimed = check_data([bar[1] for bar in bars.values()], f"panels[{pair!r}] ε")
        x = np.arange(len(bars))
        for i, (low, bar) in enumerate(zip(found, bars.values(), strict=True)):
            violated = len(bar) == 4 and not bar[3]
            any_hatched |= violated
            ax.bar(i, low, width=0.6, color=AUDIT_COLOURS[bool(bar[2])], hatch="//" if violated else None,
                   edgecolor="black" if violated else "none", linewidth=1.5 if violated else 0)
        ax.hlines(claimed, x - 0.4, x + 0.4, color="black", linewidth=2.2)
        top = 1.7 * max(found.max(), claimed.max())  # room for two lines of text above the tallest bar
        for i, (low, claim, bar) in enumerate(zip(found, claimed, bars.values(), strict=True)):
            ax.text(i, max(low, claim) + 0.03 * top, f"{low:.2f}\n{'pass' if bar[2] else 'FAIL'}", ha="center",
                    va="bottom")
        ax.set_xticks(x, [label.replace(", ", "\n") for label in bars])  # two short lines each
        ax.set(title=pair, ylim=(0, top), ylabel=AUDIT_YLABEL if index % columns == 0 else "")
        ax.grid(axis="x", visible=False)
    keys = [mpl.patches.Patch(color=AUDIT_COLOURS[True], label="audit: pass"),
            mpl.patches.Patch(color=AUDIT_COLOURS[False], label="audit: FAIL")]
    if any_hatched:
        keys.append(mpl.patches.Patch(facecolor="white", edgecolor="black", hatch="//",
                                      label="theory: claim violated on this pair"))
    fig.suptitle(title)
    fig.legend(handles=keys, loc="lower center", ncol=len(keys), frameon=False, fontsize=STYLE["font.size"])
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    return fig


AUDIT_YLABEL = r"$\hat\varepsilon$ (bars), $\varepsilon$ (lines)"
"""The y label of :func:`plot_audit_verdicts`, on the leftmost panels only."""

AUDIT_COLOURS = {True: "#2ca02c", False: "#d62728"}
"""Bar colours of :func:`plot_audit_verdicts`: green for a pass, red for a fail."""


SMOOTH_COLOURS = ("#08306b", "#2171b5", "#4eb3d3", "#41ab5d")
SMOOTH_MARKERS = ("o", "s", "D", "^")  # a shape per beta as well, for projectors and grey-scale prints


def plot_smooth_between(panels: Mapping[str, pd.DataFrame], *, title: str) -> Figure:
    r"""One panel per universe column (notebook 04): for each query (a row of the frame), :math:`LS`, :math:`S^*` at
    each :math:`\beta` and :math:`GS`, drawn as fractions of :math:`GS` on one 0–1 axis, :math:`GS` printed at the
    right. Each frame's columns are ``"LS"``, one column per :math:`\beta` (its label in the legend), then ``"GS"``.
    A query whose :math:`GS` is 0 gets a note instead of markers (0 of 0 is no fraction).
    """
    if not isinstance(panels, Mapping) or not panels:
        raise ValueError(f"panels must be a non-empty mapping of panel title to DataFrame, got {panels!r}")
    _check_text(title, "title")
    fig, axes = plt.subplots(1, len(panels), figsize=(5.6 * len(panels), 4.6), squeeze=False, sharey=True)
    for ax, (panel, frame) in zip(axes[0], panels.items(), strict=True):
        if not isinstance(frame, pd.DataFrame) or frame.shape[1] < 3 or list(frame.columns[[0, -1]]) != ["LS", "GS"]:
            raise ValueError(f"panels[{panel!r}] must be a DataFrame with columns LS, one per beta, GS")
        check_data(frame.to_numpy().ravel(), f"panels[{panel!r}] values")
        rows = np.arange(len(frame))[::-1]  # first query on top
        gs = frame["GS"].to_numpy(dtype=float)
        smooth = list(frame.columns[1:-1])
        for y, (_, row), top in zip(rows, frame.iterrows(), gs, strict=True):
            ax.text(1.04, y, f"{top:.3g}", va="center")
            if top == 0:
                ax.text(0.5, y, "0 everywhere", va="center", ha="center", color="grey")
                continue
            ax.plot([0, 1], [y, y], color="#dddddd", linewidth=6, solid_capstyle="butt", zorder=0)
            styles = zip(smooth, SMOOTH_COLOURS, SMOOTH_MARKERS, strict=False)  # at most four betas get a style
            for column, colour, marker in styles:
                ax.plot(row[column] / top, y, marker, color=colour, markersize=8,
                        label=column if y == rows[0] else None)
            ax.plot(row["LS"] / top, y, "|", color="#d62728", markersize=16, markeredgewidth=3,
                    label="LS" if y == rows[0] else None)
        ax.set_yticks(rows, list(frame.index))
        ax.set(xlim=(-0.08, 1.18), xticks=[0, 0.25, 0.5, 0.75, 1], title=panel, xlabel="fraction of GS  (GS at right)")
        ax.grid(axis="y", visible=False)
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=len(labels), frameon=False)
    fig.suptitle(title)
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    return fig
