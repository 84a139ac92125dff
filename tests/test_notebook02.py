"""The numbers notebook 02 states in its prose and solutions, and its neighbour-table figure's cells."""

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


def test_blog_local_curves_against_the_groups() -> None:
    columns = large_universe_columns()
    release = {c: v[:6] for c, v in columns.items()}
    both = dpteach.sensitivity_grid(columns, release=release, ks=[1, 2, 3, 4], relations=["unbounded", "symmetric"])
    wide = both.pivot_table(index=["column", "query", "k"], columns="relation", values="sensitivity")
    assert (wide["symmetric"] >= wide["unbounded"]).all()
    assert (wide["unbounded"] != wide["symmetric"]).sum() == 19
    p90 = wide.loc[("absence_days", "percentile_90")]
    assert [round(v, 2) for v in p90["unbounded"]] == [6.1, 11.0, 10.5, 10.0]  # the blog's curve falls
    assert [round(v, 2) for v in p90["symmetric"]] == [6.1, 11.0, 11.5, 12.0]  # the group's keeps rising


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


def test_blog_bounded_figure_stands_and_the_group_var_keeps_rising() -> None:
    columns = large_universe_columns()
    bounded = blog_figure("bounded_sensitivity_plot").grid()
    blog = [dpteach.blog_bounded_local(columns[c][:6], columns[c], q, k=k)
            for c, q, k in zip(bounded["column"], bounded["query"], bounded["k"], strict=True)]
    assert blog == pytest.approx(bounded["sensitivity"].tolist(), rel=1e-12, abs=1e-12)
    release = {"absence_days": DAYS[:6]}
    var = dpteach.sensitivity_grid({"absence_days": DAYS}, release=release, queries=["var"], ks=[1, 2, 3, 4],
                                   relations=["unbounded", "symmetric"])
    curves = var.pivot_table(index="k", columns="relation", values="sensitivity").round(1)
    assert curves["unbounded"].tolist() == [32.9, 37.6, 33.2, 29.6]
    assert curves["symmetric"].tolist() == [32.9, 38.9, 47.1, 58.3]
    mixed = [3, 4, 5, 6, 15, 20]  # the notebook's witness: remove 1, 2 and add 15, 20
    assert sum(mixed) / 6 - DAYS[:6].mean() == pytest.approx(16 / 3)
    assert sum(mixed) / 6 - DAYS[:6].mean() > dpteach.local_sensitivity(DAYS[:6], DAYS, "mean", k=4)
