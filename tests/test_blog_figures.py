"""The numbers behind every blog figure, pinned.

``tests/data/blog_grids.csv`` was computed by the naive, blog-style engine (``scripts/pin_blog_grids.py``, a few
minutes); the fast engine must reproduce it exactly, so a regression fails here and not only in a picture.
Notebook 02's own numbers (the Laplace worked example, the blog's k against a group's k over every dataset of six)
are pinned at the end.
"""

from __future__ import annotations

import itertools
from collections import Counter
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from dpteach import global_sensitivity, local_sensitivity, plotting  # noqa: E402
from dpteach.datasets import BLOG_FIGURES, blog_figure, large_universe, small_universe  # noqa: E402
from dpteach.sensitivity import neighbours_of  # noqa: E402

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


@pytest.mark.parametrize("figure", BLOG_FIGURES, ids=lambda f: f.name)
def test_figure_x_axis_says_what_the_blogs_k_counts(figure) -> None:
    # The blog's unbounded k is exactly k added or exactly k removed, never a mix: not a Hamming distance.
    expected = {"unbounded": "exactly k added, or exactly k removed", "bounded": "up to k records replaced"}
    grid = figure.grid()
    labels = {ax.get_xlabel() for ax in plotting.plot_sensitivity_grid(grid, figure.title).axes}
    assert labels == {f"k: {expected[figure.relation]}"}
    assert "Hamming" not in str(labels)
    both = plotting.plot_local_vs_global(grid, grid, figure.title, xlabel="k records")
    assert {ax.get_xlabel() for ax in both.axes if ax.axison} == {"k records"}
    with pytest.raises(TypeError, match="xlabel must be a str"):
        plotting.plot_sensitivity_grid(grid, figure.title, xlabel=4)
    plt.close("all")


def test_figure_names_are_the_blogs() -> None:
    assert {f.name for f in BLOG_FIGURES} == {
        "unbounded_a", "bounded_a", "unbounded_b", "bounded_b",
        "unbounded_sensitivity_plot", "bounded_sensitivity_plot",
    }
    with pytest.raises(ValueError, match="name must be one of"):
        blog_figure("unbounded_c")


# ------------------------------------------------------------------------------- notebook 02's own figures
DAYS = large_universe()["absence_days"].to_numpy()
FIRST_SIX = tuple(DAYS[:6])


def _group_neighbours(x: tuple, universe, k: int) -> set[tuple]:
    """From scratch: remove r records of x and add a from the rest of the universe, 1 <= r + a <= k."""
    left = sorted((Counter(universe.tolist()) - Counter(x)).elements())
    found = set()
    for r in range(min(k, len(x) - 1) + 1):
        for kept in itertools.combinations(x, len(x) - r):
            for a in range(k - r + 1):
                found.update(tuple(sorted(kept + added)) for added in itertools.combinations(left, a))
    found.discard(tuple(sorted(x)))
    return found


def test_laplace_example_numbers() -> None:
    absence = small_universe()["absence_days"].to_numpy()
    assert global_sensitivity(absence, 3, "sum", relation="unbounded") == 10  # scale 10 at epsilon = 1
    # Note 1: for the median, additions alone give 0.5 and removals 4; dpteach's unbounded value is the larger.
    by_size = {3 - 1: 0.0, 3 + 1: 0.0}
    for release in itertools.combinations(absence, 3):
        table = neighbours_of(release, absence, "median", relation="unbounded")
        for neighbour, norm in zip(table["neighbour"], table["L1"], strict=True):
            by_size[len(neighbour)] = max(by_size[len(neighbour)], norm)
    assert by_size == {2: 4.0, 4: 0.5}
    assert global_sensitivity(absence, 3, "median", relation="unbounded") == 4.0


def test_group_distance_against_scratch_for_one_dataset() -> None:
    """Not a figure pin (notebook 02's figure is global only, local sensitivity is lesson 03's): the
    ``"symmetric"`` relation at distance k against a from-scratch enumeration of every mix of changes."""
    blog = [local_sensitivity(FIRST_SIX, DAYS, "var", k=k, relation="unbounded") for k in range(1, 5)]
    group = [local_sensitivity(FIRST_SIX, DAYS, "var", k=k, relation="symmetric") for k in range(1, 5)]
    assert [round(v, 2) for v in blog] == [32.92, 37.58, 33.18, 29.57]  # the blog's curve falls after k = 2
    assert [round(v, 2) for v in group] == [32.92, 38.89, 47.08, 58.33]
    by_hand = [max(abs(np.var(FIRST_SIX) - np.var(y)) for y in _group_neighbours(FIRST_SIX, DAYS, k))
               for k in range(1, 5)]
    assert group == pytest.approx(by_hand, rel=1e-12)
    assert np.var((1, 2, 3, 20)) - np.var(FIRST_SIX) == pytest.approx(group[3])  # the four-record counterexample


def test_blog_k_against_group_k_globally() -> None:
    blog = [global_sensitivity(DAYS, 6, "var", k=k, relation="unbounded") for k in range(1, 5)]
    group = [global_sensitivity(DAYS, 6, "var", k=k, relation="symmetric") for k in range(1, 5)]
    assert [round(v, 2) for v in blog] == [39.81, 51.67, 52.25, 55.78]
    assert [round(v, 2) for v in group] == [39.81, 51.67, 52.25, 58.33]
    # the pair notebook 02 prints: (1, ..., 6) -> (1, 2, 3, 20) attains the group value the blog's curve misses
    move = np.var((1, 2, 3, 20)) - np.var(FIRST_SIX)
    assert move == pytest.approx(group[3], rel=1e-12)
    assert round(move / blog[3], 2) == 1.05  # the privacy loss, in units of eps, under noise scaled to 55.78
