"""The numbers behind every blog figure, pinned.

``tests/data/blog_grids.csv`` was computed by the naive, blog-style engine (``scripts/pin_blog_grids.py``, a few
minutes); the fast engine must reproduce it exactly, so a regression fails here and not only in a picture.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from dpteach.datasets import BLOG_FIGURES, blog_figure

PINNED = pd.read_csv(Path(__file__).parent / "data" / "blog_grids.csv")
KEY = ["relation", "scope", "k", "query", "column"]


@pytest.mark.parametrize("figure", BLOG_FIGURES, ids=lambda f: f.name)
def test_fast_grid_equals_pinned_naive_grid(figure) -> None:
    pinned = PINNED[PINNED["figure"] == figure.name].drop(columns="figure").set_index(KEY)["sensitivity"]
    fast = figure.grid().set_index(KEY)["sensitivity"]
    assert len(fast) == len(pinned) > 0
    pd.testing.assert_series_equal(fast.sort_index(), pinned.sort_index(), check_exact=True)


def test_anchor_values_a_reader_can_check_by_hand() -> None:
    grid = blog_figure("unbounded_sensitivity_plot").grid().set_index(KEY)["sensitivity"]
    # The release (first six students) can gain Rick's 20 absence days: the local sum sensitivity is 20.
    assert grid[("unbounded", "local", 1, "sum", "absence_days")] == 20
    scenario_b = blog_figure("bounded_b").grid().set_index(KEY)["sensitivity"]
    # Bounded, values in [1, 3]: replacing k records moves the sum by at most 2k.
    assert [scenario_b[("bounded", "global", k, "sum", "driving_proficiency")] for k in (1, 2, 3)] == [2, 4, 6]
    assert (scenario_b.xs("count", level="query") == 0).all()


def test_figure_names_are_the_blogs() -> None:
    assert {f.name for f in BLOG_FIGURES} == {
        "unbounded_a", "bounded_a", "unbounded_b", "bounded_b",
        "unbounded_sensitivity_plot", "bounded_sensitivity_plot",
    }
    with pytest.raises(ValueError, match="name must be one of"):
        blog_figure("unbounded_c")
