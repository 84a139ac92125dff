"""Smooth sensitivity from scratch (dpteach.smooth, notebook 04): A^(k) and S* by enumeration on a universe."""

from __future__ import annotations

import itertools
import math
from decimal import Context, Decimal

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpteach import QUERIES, budget, global_sensitivity, local_sensitivity
from dpteach.neighbours import as_tuple, counts_to_rows, distinct_counts, submultisets
from dpteach.smooth import (
    discounted_up,
    local_sensitivity_at_distance,
    local_sensitivity_by_distance,
    smooth_sensitivity,
    smooth_sensitivity_median,
    smooth_sensitivity_of_curve,
)

TABLE = (1, 2, 3, 10, 11)
RELATIONS = ("bounded", "symmetric")


@st.composite
def cases(draw, max_universe: int = 6):
    """A small universe of whole numbers (repeats allowed), a release inside it, a query and a relation."""
    universe = sorted(draw(st.lists(st.integers(0, 9), min_size=3, max_size=max_universe)))
    relation = draw(st.sampled_from(RELATIONS))
    low = 2 if relation == "bounded" else 1
    picks = draw(st.lists(st.integers(0, len(universe) - 1), min_size=low, max_size=len(universe), unique=True))
    release = sorted(universe[i] for i in picks)
    return universe, release, draw(st.sampled_from(QUERIES)), relation


def _datasets(universe, relation: str, size: int) -> list[tuple]:
    values, capacity = distinct_counts(np.sort(np.asarray(universe, dtype=float)))
    sizes = [size] if relation == "bounded" else range(1, len(universe) + 1)
    return [as_tuple(row) for s in sizes for row in counts_to_rows(values, submultisets(capacity, s))]


def _global(universe, query: str, relation: str, size: int) -> float:
    sizes = [size] if relation == "bounded" else range(1, len(universe) + 1)
    return max(global_sensitivity(universe, s, query, relation=relation, method="enumerate") for s in sizes)


# ---------------------------------------------------------------------------------------------- known forms
@pytest.mark.parametrize("data", [(3, 7, 7), (0, 2, 9, 10, 10), (1, 1, 4, 6, 8), (5, 5, 5)])
@pytest.mark.parametrize("beta", [0.05, 0.3, 1.0])
def test_median_matches_the_closed_form_of_nissim_raskhodnikova_and_smith(data, beta) -> None:
    """Odd sizes; the universe holds the data plus n + 1 copies of the bounds 0 and 10, so every replacement the
    closed form takes (to 0 or to 10) is available at every distance."""
    n = len(data)
    universe = (*data, *([0] * (n + 1)), *([10] * (n + 1)))
    ours = smooth_sensitivity(data, universe, "median", beta=beta, relation="bounded")
    assert ours == pytest.approx(smooth_sensitivity_median(data, 0.0, 10.0, beta), rel=1e-12)


def test_median_curve_matches_the_closed_form_of_a_k() -> None:
    """A^(k) = max_{0 <= t <= k+1} (x_(m+t) - x_(m+t-k-1)), with x_(i) = 0 below 1 and 10 above n."""
    data = (1, 4, 5, 6, 9)
    n, m = len(data), 3
    padded = (0, *data, *([10] * (n + 1)))
    expected = [max(padded[min(m + t, n + 1)] - padded[max(m + t - k - 1, 0)] for t in range(k + 2))
                for k in range(n + 1)]
    curve = local_sensitivity_by_distance(data, (*data, *([0] * 6), *([10] * 6)), "median", relation="bounded")
    assert curve.tolist() == expected


def test_bounded_mean_curve_is_the_largest_move_then_the_full_range() -> None:
    """Bounded, with spare copies of l and u: A^(0) = max(u - min x, max x - l)/n, and A^(k) = (u - l)/n for k >= 1
    (one replacement puts l into the dataset, and u is still available)."""
    data, low, high = (3, 4, 8), 0, 10
    curve = local_sensitivity_by_distance(data, (*data, *([low] * 4), *([high] * 4)), "mean", relation="bounded")
    n = len(data)
    assert curve[0] == pytest.approx(max(high - min(data), max(data) - low) / n, rel=1e-12)
    np.testing.assert_allclose(curve[1:], (high - low) / n, rtol=1e-12)
    assert curve.size == n + 1


def test_symmetric_mean_curve_on_the_extreme_release() -> None:
    """x = (l, ..., l, u): removing k copies of l leaves n - k records whose mean moves by (u - l)/(n - k) when u is
    removed, the bound A(k) = (u - l)/max(n - k, 1) of dpteach.ptr.mean_ls_at_distance, attained for n - k >= 2."""
    n, low, high = 6, 0, 12
    data = (*([low] * (n - 1)), high)
    curve = local_sensitivity_by_distance(data, (*data, *([low] * 3), *([high] * 3)), "mean", relation="symmetric")
    for k in range(n - 1):
        assert curve[k] == pytest.approx((high - low) / (n - k), rel=1e-12)


def test_median_table_numbers() -> None:
    """Notebook 04's table: (1, 2, 3) has LS 1 and A^(1) = 8; the rows with LS 7 reach 8 one step away."""
    assert local_sensitivity_by_distance((1, 2, 3), TABLE, "median").tolist() == [1, 8, 8]
    assert local_sensitivity_by_distance((1, 3, 10), TABLE, "median").tolist() == [7, 8, 8]
    s = smooth_sensitivity((1, 2, 3), TABLE, "median", beta=0.5)
    exact = 8 * Decimal(-0.5).exp(Context(prec=50))
    assert exact <= Decimal(s) <= exact * (1 + Decimal(2) ** -46)  # rounded up, by a few ulps at most


# ---------------------------------------------------------------------------------------------- properties
@settings(max_examples=60, deadline=None)
@given(cases())
def test_fast_and_naive_agree_bit_for_bit(case) -> None:
    universe, release, query, relation = case
    fast = local_sensitivity_by_distance(release, universe, query, relation=relation)
    naive = local_sensitivity_by_distance(release, universe, query, relation=relation, method="naive")
    assert fast.tolist() == naive.tolist()
    k = int(fast.size // 2)
    assert local_sensitivity_at_distance(release, universe, query, k, relation=relation) == fast[k]
    assert local_sensitivity_at_distance(release, universe, query, k, relation=relation, method="naive") == fast[k]
    for beta in (0.1, 1.0):
        assert (smooth_sensitivity(release, universe, query, beta=beta, relation=relation)
                == smooth_sensitivity(release, universe, query, beta=beta, relation=relation, method="naive"))


@settings(max_examples=60, deadline=None)
@given(cases(), st.sampled_from([0.01, 0.2, 1.0, 5.0]))
def test_curve_rises_and_smooth_sensitivity_lies_between_local_and_global(case, beta) -> None:
    universe, release, query, relation = case
    curve = local_sensitivity_by_distance(release, universe, query, relation=relation)
    assert (np.diff(curve) >= 0).all()
    assert curve[0] == local_sensitivity(release, universe, query, relation=relation, method="enumerate")
    s = smooth_sensitivity(release, universe, query, beta=beta, relation=relation)
    assert s == max(discounted_up(a, beta, k) for k, a in enumerate(curve))  # the early stop loses nothing
    assert s == smooth_sensitivity_of_curve(curve, beta)
    assert curve[0] <= s <= _global(universe, query, relation, len(release))
    assert curve[-1] == _global(universe, query, relation, len(release))  # the whole universe is in reach


@settings(max_examples=40, deadline=None)
@given(cases(max_universe=5), st.sampled_from([0.1, 0.7]))
def test_smooth_sensitivity_is_beta_smooth_on_every_pair_of_neighbours(case, beta) -> None:
    """S*(x) <= e^beta S*(x') for every pair of neighbours among all datasets the universe forms."""
    universe, release, query, relation = case
    datasets = _datasets(universe, relation, len(release))
    s = {x: smooth_sensitivity(x, universe, query, beta=beta, relation=relation) for x in datasets}
    pairs = 0
    for x, y in itertools.permutations(datasets, 2):
        only_x = len(x) - sum(min(x.count(v), y.count(v)) for v in set(x))
        only_y = len(y) - (len(x) - only_x)
        if (only_x == only_y == 1) if relation == "bounded" else (only_x + only_y == 1):
            pairs += 1
            assert s[x] <= math.exp(beta) * s[y] * (1 + 1e-12), (x, y, s[x], s[y])
    assert pairs > 0 or len(datasets) == 1


def test_local_sensitivity_alone_is_not_smooth_but_smooth_sensitivity_is() -> None:
    """The jump of notebook 03: LS goes 1 -> 8 between neighbours, S* at beta = 0.5 stays within e^0.5."""
    x, y = (1, 2, 3), (1, 2, 10)
    assert local_sensitivity(y, TABLE, "median", relation="bounded") > math.exp(0.5) * local_sensitivity(
        x, TABLE, "median", relation="bounded")
    s_x, s_y = (smooth_sensitivity(d, TABLE, "median", beta=0.5) for d in (x, y))
    assert s_y <= math.exp(0.5) * s_x * (1 + 1e-12)


# ---------------------------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [({"relation": "unbounded"}, ValueError, "not a distance"),
     ({"relation": "nope"}, ValueError, "relation must be one of"),
     ({"method": "enumerate"}, ValueError, "method must be"),
     ({"release": (1, 4)}, ValueError, "sub-multiset"),
     ({"release": (1,)}, ValueError, "at least 2 records"),
     ({"query": "mode"}, ValueError, "unknown"),
     ({"query": 3}, TypeError, "query must be"),
     ({"universe": [1, 2, float("nan")]}, ValueError, "universe"),
     ({"beta": 0.0}, ValueError, "beta must be"),
     ({"beta": -1.0}, ValueError, "beta must be"),
     ({"beta": float("inf")}, ValueError, "beta must be"),
     ({"beta": "1"}, TypeError, "beta must be")],
)
def test_smooth_sensitivity_rejects_bad_input(kwargs, error, message) -> None:
    arguments = {"release": (1, 2, 3), "universe": TABLE, "query": "median", "beta": 0.5} | kwargs
    with pytest.raises(error, match=message):
        smooth_sensitivity(**arguments)


@pytest.mark.parametrize(("k", "error", "message"),
                         [(-1, ValueError, "k must be >= 0"), (3, ValueError, "largest bounded distance"),
                          (1.0, TypeError, "k must be an integer"), (True, TypeError, "k must be an integer")])
def test_distance_must_be_one_the_universe_allows(k, error, message) -> None:
    with pytest.raises(error, match=message):
        local_sensitivity_at_distance((1, 2, 3), TABLE, "median", k)
    assert local_sensitivity_at_distance((1, 2, 3), TABLE, "median", 5, relation="symmetric") == _global(
        TABLE, "median", "symmetric", 3)


def test_symmetric_needs_two_records_in_the_universe() -> None:
    with pytest.raises(ValueError, match="at least 2 records"):
        smooth_sensitivity((1,), (1,), "mean", beta=1.0, relation="symmetric")


@pytest.mark.parametrize("method", ["fast", "naive"])
def test_work_above_the_budget_is_refused(monkeypatch, method) -> None:
    monkeypatch.setattr(budget, "MAX_WORK", 50)
    with pytest.raises(ValueError, match="above the limit of 50"):
        smooth_sensitivity((1, 2, 3), TABLE, "var", beta=0.5, method=method)
