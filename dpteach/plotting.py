"""One set-up call per notebook: a fixed plot style and ``save_fig`` writing ``images/<name>.png``.

Every notebook starts with ``save_fig = dpteach.plotting.setup()``. The style is set through rcParams,
never through a named matplotlib style sheet (``seaborn-whitegrid``, which the book chapter uses, was
removed from matplotlib 3.6).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import matplotlib as mpl
import matplotlib.pyplot as plt
from matplotlib.figure import Figure

IMAGES_DIR = Path(__file__).resolve().parent.parent / "images"

STYLE: dict[str, object] = {
    "figure.figsize": (8.0, 4.5),
    "figure.dpi": 100,
    "savefig.dpi": 120,
    "savefig.bbox": "tight",
    "font.size": 11,
    "axes.titlesize": 12,
    "axes.labelsize": 11,
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


def setup(images_dir: str | Path | None = None) -> Callable[..., Path]:
    """Apply the project's plot style and return ``save_fig(name, fig=None)``.

    ``save_fig`` writes ``<images_dir>/<name>.png`` (default: the repository's ``images/``) and returns
    the path it wrote.
    """
    plt.rcdefaults()
    mpl.rcParams.update(STYLE)
    target = Path(images_dir) if images_dir is not None else IMAGES_DIR

    def save_fig(name: str, fig: Figure | None = None) -> Path:
        if not isinstance(name, str) or not name or "/" in name:
            raise ValueError(f"name must be a non-empty file stem without '/', got {name!r}")
        target.mkdir(parents=True, exist_ok=True)
        path = target / f"{name}.png"
        (fig or plt.gcf()).savefig(path, metadata={"Software": None})
        return path

    return save_fig
