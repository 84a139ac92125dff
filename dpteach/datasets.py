"""Data sets used by the notebooks: the blog posts' toy universes and the UCI Adult census data.

Taught in notebooks 02 and 03 (toy universes) and 05 (Adult ages).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from dpteach.queries import QUERIES, check_int
from dpteach.sensitivity import sensitivity_grid

DATA_DIR = Path(__file__).resolve().parent.parent / "data"


def load_adult() -> pd.DataFrame:
    """The UCI Adult training file (32,561 rows), with the column ``Age`` first.

    Read from ``data/adult.csv``; see ``data/README.md`` for provenance and licence
    (UCI Machine Learning Repository, Becker & Kohavi 1996, CC BY 4.0).
    """
    path = DATA_DIR / "adult.csv"
    if not path.exists():
        raise FileNotFoundError(f"{path} is missing; rebuild it with data/make_adult_csv.py (see data/README.md)")
    return pd.read_csv(path)


def small_universe() -> pd.DataFrame:
    """The four-student universe of the global-sensitivity post (release = its first 3 rows)."""
    return pd.DataFrame(
        {
            "name": ["Chris", "Kelly", "Pat", "Terry"],
            "school_year": [1, 2, 3, 4],
            "absence_days": [1, 2, 3, 10],
        }
    )


def large_universe() -> pd.DataFrame:
    """The ten-student universe of the global-sensitivity post (release = its first 6 rows)."""
    return pd.DataFrame(
        {
            "name": ["Chris", "Kelly", "Keny", "Sherry", "Jerry", "Morty", "Beth", "Summer", "Squanchy", "Rick"],
            "school_year": [1, 2, 2, 2, 5, 5, 7, 8, 9, 9],
            "absence_days": [1, 2, 3, 4, 5, 6, 7, 8, 15, 20],
        }
    )


def scenario_b_ranges() -> dict[str, list[int]]:
    """Scenario (b): the ranges of possible values, before replication to the release size."""
    return {"mood": [1, 2], "driving_proficiency": [1, 2, 3]}


@dataclass(frozen=True)
class BlogFigure:
    """One figure of the blog posts: which universe, which release, which relation, which distances.

    ``release_rows`` set means local sensitivity of the universe's first ``release_rows`` rows; otherwise
    global sensitivity over every release of ``size`` records.
    """

    name: str
    title: str
    universe: Callable[[], dict[str, np.ndarray]]
    size: int
    relation: str
    ks: tuple[int, ...]
    local: bool = False

    def grid(self, method: str = "fast", *, piecewise: bool = False) -> pd.DataFrame:
        """The tidy sensitivity table behind this figure (see :func:`dpteach.sensitivity_grid`). A grid is one work
        budget; ``piecewise=True`` computes it one ``(k, query)`` at a time, each its own budget, in the same row
        order (the naive engine needs this for the largest figures: ``bounded_a`` compares 8.4 million pairs by
        position, about 5 minutes)."""
        if not isinstance(piecewise, bool):
            raise TypeError(f"piecewise must be True or False, got {type(piecewise).__name__}")
        universe = self.universe()
        if self.local:
            scope = {"release": {column: values[: self.size] for column, values in universe.items()}}
        else:
            scope = {"size": self.size}
        if not piecewise:
            return sensitivity_grid(universe, ks=self.ks, relations=[self.relation], method=method, **scope)
        return pd.concat([sensitivity_grid(universe, ks=[k], queries=[query], relations=[self.relation],
                                           method=method, **scope) for k in self.ks for query in QUERIES],
                         ignore_index=True)


def large_universe_columns() -> dict[str, np.ndarray]:
    """The large universe's two numeric columns (scenario a)."""
    frame = large_universe()
    return {c: frame[c].to_numpy() for c in ("school_year", "absence_days")}


def scenario_b_universe(size: int = 4) -> dict[str, np.ndarray]:
    """Scenario (b): each range replicated ``size`` times, so any release of ``size`` values is possible."""
    size = check_int("size", size, 1)
    return {name: np.repeat(np.asarray(values), size) for name, values in scenario_b_ranges().items()}


_A = "large universe (10 students), datasets of 6"
_B = "scenario (b): ranges mood 1..2 and driving 1..3, datasets of 4"
_L = "large universe, dataset = its first 6 rows"
BLOG_FIGURES: tuple[BlogFigure, ...] = (
    BlogFigure("unbounded_a", f"Global sensitivity, unbounded DP — {_A}", large_universe_columns, 6,
               "unbounded", (1, 2, 3, 4)),
    BlogFigure("bounded_a", f"Global sensitivity, bounded DP — {_A}", large_universe_columns, 6,
               "bounded", (1, 2, 3, 4)),
    BlogFigure("unbounded_b", f"Global sensitivity, unbounded DP — {_B}", scenario_b_universe, 4,
               "unbounded", (1, 2, 3)),
    BlogFigure("bounded_b", f"Global sensitivity, bounded DP — {_B}", scenario_b_universe, 4,
               "bounded", (1, 2, 3)),
    BlogFigure("unbounded_sensitivity_plot", f"Unbounded DP: local vs global sensitivity — {_L}",
               large_universe_columns, 6, "unbounded", (1, 2, 3, 4), local=True),
    BlogFigure("bounded_sensitivity_plot", f"Bounded DP: local vs global sensitivity — {_L}",
               large_universe_columns, 6, "bounded", (1, 2, 3, 4), local=True),
)


def blog_figure(name: str) -> BlogFigure:
    """Look up one of :data:`BLOG_FIGURES` by its file name (without ``.png``)."""
    for figure in BLOG_FIGURES:
        if figure.name == name:
            return figure
    raise ValueError(f"name must be one of {[f.name for f in BLOG_FIGURES]}, got {name!r}")
