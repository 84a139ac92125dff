"""The numbers notebook 03 states in its prose and solutions, and its neighbour-table figure's cells."""

from __future__ import annotations

import itertools

import matplotlib
import pytest

matplotlib.use("Agg")

import dpteach  # noqa: E402
from dpteach import plotting  # noqa: E402
from dpteach.datasets import blog_figure, large_universe_columns  # noqa: E402

U = (1, 2, 3, 10, 11)
DAYS = large_universe_columns()["absence_days"]


def test_blog_bounded_local_overstates_exactly_four_rows_of_the_median_table() -> None:
    differ = {x: (dpteach.blog_bounded_local(x, U, "median"),
                  dpteach.local_sensitivity(x, U, "median", relation="bounded"))
              for x in itertools.combinations(U, 3)}
    differ = {x: pair for x, pair in differ.items() if pair[0] != pair[1]}
    assert differ == {x: (8.0, 7.0) for x in [(1, 3, 10), (1, 3, 11), (2, 3, 10), (2, 3, 11)]}


def test_max_of_the_blogs_quantity_is_global_on_the_large_universe() -> None:
    six = sorted(set(itertools.combinations(DAYS, 6)))
    for k, overstated in ((1, 141), (2, 180)):
        blog = [dpteach.blog_bounded_local(x, DAYS, "median", k=k) for x in six]
        true = [dpteach.local_sensitivity(x, DAYS, "median", k=k, relation="bounded") for x in six]
        assert max(blog) == dpteach.global_sensitivity(DAYS, 6, "median", k=k, relation="bounded")
        assert all(b >= t for b, t in zip(blog, true, strict=True))
        assert sum(b > t for b, t in zip(blog, true, strict=True)) == overstated


def test_max_true_local_is_global_for_both_relations_on_the_large_universe() -> None:
    six = sorted(set(itertools.combinations(DAYS, 6)))
    assert len(six) == 210
    expected = {("unbounded", 1): 2.5, ("unbounded", 2): 6.0, ("bounded", 1): 2.5, ("bounded", 2): 4.0}
    for (relation, k), value in expected.items():
        true = [dpteach.local_sensitivity(x, DAYS, "median", k=k, relation=relation) for x in six]
        assert max(true) == dpteach.global_sensitivity(DAYS, 6, "median", k=k, relation=relation) == value
        assert dpteach.local_sensitivity(DAYS[:6], DAYS, "median", k=k, relation=relation) < value


def test_bounded_local_below_global_beyond_rounding() -> None:
    pair = blog_figure("bounded_sensitivity_plot").grid().merge(
        blog_figure("bounded_a").grid(), on=["k", "query", "column"], suffixes=(" local", " global"))
    assert (pair["sensitivity local"] < pair["sensitivity global"] - 1e-9).sum() == 23


def test_neighbour_table_cells_name_the_change() -> None:
    unbounded = dpteach.neighbour_table(U, 3, "median")
    header, text, _ = plotting._neighbour_cells(unbounded)
    assert header[2] == "x'1"  # the figure's title says what a cell reads
    row = dict(zip(unbounded["release"], text, strict=True))[(1, 2, 11)]
    assert "−1: 6.5 | 4.5" in row and "+10: 6 | 4" in row
    bounded = dpteach.neighbour_table(U, 3, "median", relation="bounded")
    row = dict(zip(bounded["release"], plotting._neighbour_cells(bounded)[1], strict=True))[(1, 2, 10)]
    assert "2→11: 10 | 8" in row


def test_blog_bounded_figure_stands() -> None:
    columns = large_universe_columns()
    bounded = blog_figure("bounded_sensitivity_plot").grid()
    blog = [dpteach.blog_bounded_local(columns[c][:6], columns[c], q, k=k)
            for c, q, k in zip(bounded["column"], bounded["query"], bounded["k"], strict=True)]
    assert len(blog) == 80
    assert blog == pytest.approx(bounded["sensitivity"].tolist(), rel=1e-12, abs=1e-12)


def test_median_of_the_table_universe_over_every_size() -> None:
    """Under add/remove with a secret size the largest move is 5, (1) -> (1, 11), above 4.5 at size three."""
    every = [frozenset(x) for m in range(1, 6) for x in itertools.combinations(U, m)]
    moves = {(tuple(sorted(x)), tuple(sorted(y))): abs(dpteach.evaluate("median", sorted(x))
                                                        - dpteach.evaluate("median", sorted(y)))
             for x in every for y in every if len(x ^ y) == 1}
    assert max(moves.values()) == 5 == moves[((1,), (1, 11))]
    assert max(v for (x, _), v in moves.items() if len(x) == 3) == 4.5
