"""The explorer: its pure ``explain`` function and the widget's reaction to its controls."""

from __future__ import annotations

import math

import pytest

from dpteach import global_sensitivity
from dpteach.datasets import large_universe
from dpteach.smooth import smooth_sensitivity
from dpteach.widgets import explain, explain_smooth, largest_k, sensitivity_explorer, smooth_explorer

UNIVERSE = [1, 2, 3, 10, 11]


def test_explain_global_names_a_worst_release_and_its_neighbours() -> None:
    result = explain(UNIVERSE, "median", relation="bounded", k=1, scope="global", size=3)
    assert result.sensitivity == 8
    assert result.release == (1, 2, 10)
    assert set(result.witnesses["neighbour"]) == {(1, 10, 11), (2, 10, 11)}
    assert (result.witnesses["L1"] == 8).all()


def test_explain_local_lists_only_attaining_neighbours() -> None:
    result = explain(UNIVERSE, "median", relation="unbounded", k=1, scope="local", release=(1, 2, 11))
    assert result.sensitivity == 4.5
    assert result.witnesses["neighbour"].tolist() == [(2, 11)]
    assert "sensitivity = 4.5" in result.to_html()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [({"scope": "both", "size": 3}, "scope must be one of"), ({"scope": "local"}, "release is required"),
     ({"scope": "global"}, "size is required")],
)
def test_explain_rejects_incomplete_choices(kwargs, message) -> None:
    with pytest.raises(ValueError, match=message):
        explain(UNIVERSE, "median", relation="bounded", k=1, **kwargs)


def _controls(box) -> dict:
    return {getattr(c, "description", ""): c for row in box.children for c in getattr(row, "children", [row])}


def test_explorer_opens_on_the_global_median_the_lesson_plots() -> None:
    box = sensitivity_explorer(large_universe()[["school_year", "absence_days"]], size=6)
    controls = _controls(box)
    assert (controls["scope"].value, controls["column"].value, controls["query"].value) == (
        "global", "school_year", "median")
    expected = global_sensitivity(large_universe()["school_year"], 6, "median", k=1, relation="unbounded")
    assert expected == 3
    assert box.children[-1].value.startswith(f"<b>sensitivity = {expected:g}</b>")


def test_explorer_updates_when_a_control_changes() -> None:
    box = sensitivity_explorer(large_universe()[["school_year", "absence_days"]], size=6)
    controls = _controls(box)
    output = box.children[-1]
    controls["scope"].value = "local"
    assert output.value.startswith("<b>sensitivity = 0</b>")  # local median of the first six school years
    controls["k"].value = 3
    assert output.value.startswith("<b>sensitivity = 3</b>")
    controls["column"].value = "absence_days"
    controls["scope"].value = "global"
    expected = global_sensitivity(large_universe()["absence_days"], 6, "median", k=3)
    assert output.value.startswith(f"<b>sensitivity = {expected:g}</b>")
    controls["relation"].value = "bounded"
    assert controls["k"].max == 5


@pytest.mark.parametrize(("relation", "size", "universe_size", "expected"),
                         [("unbounded", 6, 10, 4), ("unbounded", 3, 10, 2), ("bounded", 6, 10, 5),
                          ("symmetric", 6, 10, 10), ("symmetric", 4, 4, 3), ("bounded", 1, 4, 1)])
def test_largest_k_follows_each_relation(relation, size, universe_size, expected) -> None:
    assert largest_k(relation, size, universe_size) == expected


def test_explorer_offers_the_group_distance() -> None:
    box = sensitivity_explorer(large_universe()[["school_year", "absence_days"]], size=6)
    controls = _controls(box)
    assert "symmetric" in controls["relation"].options
    controls["scope"].value = "local"
    controls["column"].value = "absence_days"
    controls["query"].value = "var"
    controls["relation"].value = "symmetric"
    assert controls["k"].max == 10  # remove all six records and add the other four
    controls["k"].value = 4
    # the first six students: remove 4, 5, 6 and add 20 moves the variance from 2.92 to 61.25
    assert box.children[-1].value.startswith("<b>sensitivity = 58.3333</b>")
    assert "(1, 2, 3, 20)" in box.children[-1].value
    controls["relation"].value = "unbounded"
    assert box.children[-1].value.startswith("<b>sensitivity = 29.5")  # the blog's exactly-4 number


def test_explain_smooth_gives_the_curve_and_where_s_star_is_attained() -> None:
    result = explain_smooth((1, 2, 3), UNIVERSE, "median", beta=0.5)
    assert result.curve["A"].tolist() == [1, 8, 8]
    assert result.smooth == smooth_sensitivity((1, 2, 3), UNIVERSE, "median", beta=0.5)
    assert result.attained_at == 1
    assert result.smooth == result.curve["discounted"].max()
    assert result.to_html().startswith(f"<b>S* = {result.smooth:.4g}</b> for release (1, 2, 3)")


def test_smooth_explorer_updates_when_a_control_changes() -> None:
    box = smooth_explorer(UNIVERSE, 3)
    controls = _controls(box)
    output = box.children[-1]
    assert (controls["query"].value, controls["release"].value, controls["relation"].value) == (
        "median", (1, 2, 3), "bounded")
    assert output.value.startswith("<b>S* = 4.852</b>")  # 8 e^(-0.5): the neighbour (1, 2, 10) has LS 8
    controls["release"].value = (1, 2, 10)
    assert output.value.startswith("<b>S* = 8</b>")
    controls["β"].value = 0.01
    controls["release"].value = (1, 2, 3)
    assert output.value.startswith(f"<b>S* = {8 * math.exp(-0.01):.4g}</b>")
    controls["relation"].value = "symmetric"
    expected = smooth_sensitivity((1, 2, 3), UNIVERSE, "median", beta=controls["β"].value, relation="symmetric")
    assert output.value.startswith(f"<b>S* = {expected:.4g}</b>")
    assert "unbounded" not in controls["relation"].options


def test_smooth_explorer_rejects_a_release_size_it_cannot_smooth() -> None:
    with pytest.raises(ValueError, match="size must be >= 2"):
        smooth_explorer(UNIVERSE, 1)
