"""relation="symmetric" (group privacy under add/remove DP) against a brute force written from scratch here.

The brute force takes the definition literally: every release x (positions of the universe, duplicates and
all) and every non-empty sub-multiset y of the universe are compared, and y is a neighbour when their
multiset symmetric difference has 1..k records (y may share no record with x: then the distance is |x| + |y|).
Nothing from dpteach is used in it.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dpteach
from dpteach import budget
from dpteach import sensitivity as sens
from dpteach.datasets import large_universe
from dpteach.neighbours import positional_neighbours
from dpteach.smooth import discounted_up, local_sensitivity_at_distance, smooth_sensitivity

QUERY_NAMES = (*dpteach.QUERIES, "percentile_10", "percentile_62.5")
METHODS = ("naive", "enumerate", "fast")


# ------------------------------------------------------------------------------------- brute force
def brute_query(name: str, data: tuple[float, ...]) -> float:
    values = np.sort(np.array(data, dtype=float))
    if name == "count":
        return float(len(values))
    if name.startswith("percentile_"):
        return float(np.percentile(values, float(name.split("_")[1])))
    return float({"mean": np.mean, "median": np.median, "sum": np.sum, "std": np.std, "var": np.var}[name](values))


def brute_neighbours(x: tuple[float, ...], universe: list[float], k: int) -> set[tuple[float, ...]]:
    found = set()
    for size in range(1, len(universe) + 1):
        for y in set(itertools.combinations(sorted(universe), size)):
            cx, cy = Counter(x), Counter(y)
            distance = sum((cx - cy).values()) + sum((cy - cx).values())
            if 1 <= distance <= k:
                found.add(y)
    return found


def brute_local(name: str, x: tuple[float, ...], universe: list[float], k: int, cache: dict | None = None) -> float:
    cache = {} if cache is None else cache
    neighbours = brute_neighbours(x, universe, k)
    for y in (x, *neighbours):
        if y not in cache:
            cache[y] = brute_query(name, y)
    return max((abs(cache[x] - cache[y]) for y in neighbours), default=0.0)


def brute_global(name: str, universe: list[float], size: int, k: int) -> float:
    releases = set(itertools.combinations(sorted(universe), size))
    cache: dict = {}
    return max(brute_local(name, x, universe, k, cache) for x in releases)


def same(computed: float, truth: float, whole: bool) -> bool:
    """Exact on whole numbers; float universes allow rounding differences of closed forms (dpteach.exact)."""
    return computed == truth if whole else math.isclose(computed, truth, rel_tol=1e-9, abs_tol=1e-9)


# ------------------------------------------------------------------------------------- random cases
whole_values = st.integers(-5, 12).map(float)
float_values = st.floats(-50, 50, allow_nan=False).map(lambda v: round(v, 2))


@st.composite
def cases(draw: st.DrawFn) -> tuple[list[float], int, int, tuple[float, ...], bool]:
    whole = draw(st.booleans())
    pool = draw(st.lists(whole_values if whole else float_values, min_size=1, max_size=4))
    universe = draw(st.lists(st.sampled_from(pool), min_size=2, max_size=7))  # duplicates on purpose
    size = draw(st.integers(1, len(universe)))
    k = draw(st.integers(1, len(universe) if size < len(universe) else len(universe) - 1))
    release = tuple(sorted(draw(st.permutations(universe))[:size]))
    return universe, size, k, release, whole


def assert_matches_brute_force(query: str, case: tuple) -> None:
    """Global and local symmetric sensitivity of ``case`` by every method equal the brute force's."""
    universe, size, k, release, whole = case
    truth_global = brute_global(query, universe, size, k)
    truth_local = brute_local(query, release, universe, k)
    for method in METHODS if len(universe) <= 5 else METHODS[1:]:  # naive (by position) is slow by design
        assert same(dpteach.global_sensitivity(universe, size, query, k=k, relation="symmetric", method=method),
                    truth_global, whole), method
        assert same(dpteach.local_sensitivity(release, universe, query, k=k, relation="symmetric", method=method),
                    truth_local, whole), method


@pytest.mark.parametrize("query", QUERY_NAMES)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=cases())
def test_symmetric_matches_brute_force(query: str, case: tuple) -> None:
    assert_matches_brute_force(query, case)


@settings(max_examples=150, deadline=None)
@given(case=cases())
def test_neighbours_are_the_definition(case: tuple) -> None:
    universe, _, k, release, _ = case
    truth = brute_neighbours(release, universe, k)
    positional = {tuple(sorted(y)) for y in positional_neighbours(release, tuple(universe), k, "symmetric")}
    assert positional - {release} == truth  # by position, an equal value can be removed and added back
    table = sens.neighbours_of(release, universe, "sum", k=k, relation="symmetric")
    listed = [tuple(float(v) for v in y) for y in table["neighbour"]]
    assert len(listed) == len(set(listed)) and set(listed) == truth  # each distinct neighbour exactly once


@st.composite
def disjoint_cases(draw: st.DrawFn) -> tuple[list[float], int, int, tuple[float, ...], bool]:
    """Cases with k > size, where a neighbour may share no record with the release (|x △ y| = |x| + |y|)."""
    whole = draw(st.booleans())
    pool = draw(st.lists(whole_values if whole else float_values, min_size=2, max_size=5))
    universe = draw(st.lists(st.sampled_from(pool), min_size=3, max_size=6))
    size = draw(st.integers(1, len(universe) - 2))
    k = draw(st.integers(size + 1, len(universe)))
    release = tuple(sorted(draw(st.permutations(universe))[:size]))
    return universe, size, k, release, whole


@pytest.mark.parametrize("query", QUERY_NAMES)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=disjoint_cases())
def test_symmetric_beyond_the_release_size_matches_brute_force(query: str, case: tuple) -> None:
    assert_matches_brute_force(query, case)


def brute_smooth(name: str, x: tuple[float, ...], universe: list[float], beta: float) -> tuple[list[float], float]:
    """A^(k)(x) for every k up to |U|, and S*(x) = max_k e^(-beta k) A^(k)(x), from the definitions: every non-empty
    sub-multiset y of the universe, its distance |x △ y|, and LS(y) over the datasets at distance exactly 1 from y.
    Each term e^(-beta k) A^(k) is rounded up as dpteach rounds it (discounted_up, tested in test_smooth.py)."""
    everyone = sorted({y for size in range(1, len(universe) + 1)
                       for y in itertools.combinations(sorted(universe), size)})
    counts = [Counter(y) for y in everyone]
    values = [brute_query(name, y) for y in everyone]

    def distance(a: Counter, b: Counter) -> int:
        return sum((a - b).values()) + sum((b - a).values())

    ls_at: dict[int, float] = {}
    for cy, fy in zip(counts, values, strict=True):
        ls = max((abs(fy - fz) for cz, fz in zip(counts, values, strict=True) if distance(cy, cz) == 1), default=0.0)
        d = distance(Counter(x), cy)
        ls_at[d] = max(ls_at.get(d, 0.0), ls)
    curve = [max(v for d, v in ls_at.items() if d <= k) for k in range(len(universe) + 1)]
    return curve, max(discounted_up(a, beta, k) for k, a in enumerate(curve))


@pytest.mark.parametrize("query", QUERY_NAMES)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=disjoint_cases(), beta=st.sampled_from([0.1, 0.5, 2.0]))
def test_symmetric_smooth_matches_brute_force(query: str, case: tuple, beta: float) -> None:
    universe, _, _, release, whole = case
    curve, truth = brute_smooth(query, release, universe, beta)
    top = len(universe)  # the release is smaller than the universe here
    for k in range(top + 1):
        for method in ("fast", "naive"):
            assert same(local_sensitivity_at_distance(release, universe, query, k, relation="symmetric",
                                                      method=method), curve[k], whole), (k, method)
    for method in ("fast", "naive"):
        assert same(smooth_sensitivity(release, universe, query, beta=beta, relation="symmetric", method=method),
                    truth, whole), method


def test_lesson_02_every_size_at_distance_two_is_19() -> None:
    """The reviewer's reproducer (lesson 02, the cell printing "over every size"): the median over every dataset size
    at k = 2 is 19, from {1} against {20} (distance 2, no record shared), not 18."""
    days = large_universe()["absence_days"].to_numpy()
    assert sorted(days.tolist())[0] == 1 and sorted(days.tolist())[-1] == 20
    universe = [float(v) for v in days]
    assert brute_global("median", universe, 1, 2) == 19.0  # the brute force at size 1 alone
    for method in METHODS:
        assert dpteach.global_sensitivity(days, 1, "median", k=2, relation="symmetric", method=method) == 19.0
    every_size = max(dpteach.global_sensitivity(days, size, "median", k=2, relation="symmetric")
                     for size in range(1, len(days) + 1))
    assert every_size == 19.0
    assert dpteach.local_sensitivity([1], days, "median", k=2, relation="symmetric") == 19.0
    table = sens.neighbours_of([1], days, "median", k=2, relation="symmetric")
    assert table["neighbour"][0] == (20,) and table["L1"][0] == 19.0


# ------------------------------------------------------------------------------------- structure
@pytest.mark.parametrize("query", QUERY_NAMES)
@settings(max_examples=40, deadline=None)
@given(case=cases())
def test_global_is_non_decreasing_in_k(query: str, case: tuple) -> None:
    universe, size, _, _, _ = case
    curve = [dpteach.global_sensitivity(universe, size, query, k=k, relation="symmetric")
             for k in range(1, len(universe) + (size < len(universe)))]
    assert all(a <= b for a, b in itertools.pairwise(curve)), curve


@pytest.mark.parametrize("query", QUERY_NAMES)
@settings(max_examples=40, deadline=None)
@given(case=cases())
def test_symmetric_covers_unbounded_and_bounded(query: str, case: tuple) -> None:
    """Exactly k added or removed is a mix with r + a = k; k replacements are 2k changes."""
    universe, size, _, release, _ = case
    top = len(universe) - 1
    for k in range(1, min(size - 1, len(universe) - size) + 1):
        sym = dpteach.global_sensitivity(universe, size, query, k=k, relation="symmetric")
        assert sym >= dpteach.global_sensitivity(universe, size, query, k=k, relation="unbounded")
        assert (dpteach.local_sensitivity(release, universe, query, k=k, relation="symmetric")
                >= dpteach.local_sensitivity(release, universe, query, k=k, relation="unbounded"))
    for k in range(1, size):
        assert (dpteach.global_sensitivity(universe, size, query, k=min(2 * k, top), relation="symmetric")
                >= dpteach.global_sensitivity(universe, size, query, k=k, relation="bounded"))


@pytest.mark.parametrize("query", QUERY_NAMES)
@settings(max_examples=25, deadline=None)
@given(case=cases())
def test_max_local_is_global(query: str, case: tuple) -> None:
    universe, size, k, _, whole = case
    table = sens.local_sensitivities(universe, size, query, k=k, relation="symmetric")
    largest = table["local sensitivity"].max()
    truth = dpteach.global_sensitivity(universe, size, query, k=k, relation="symmetric", method="enumerate")
    assert largest >= truth and same(largest, truth, whole)  # float closed forms are rounded up (dpteach.exact)
    attaining = sens.releases_attaining_global(universe, size, query, k=k, relation="symmetric")
    assert len(attaining) >= 1


# ------------------------------------------------------------------------------------- the numbers
def test_a_group_of_four_moves_the_variance_by_58() -> None:
    """From (1, ..., 6), removing 4, 5, 6 and adding 20 changes 4 records: variance 2.92 -> 61.25."""
    days = large_universe()["absence_days"]
    release = days[:6]
    moved = dpteach.evaluate("var", [1, 2, 3, 20]) - dpteach.evaluate("var", release)
    assert round(dpteach.evaluate("var", release), 2) == 2.92 and dpteach.evaluate("var", [1, 2, 3, 20]) == 61.25
    for method in METHODS:
        assert dpteach.local_sensitivity(release, days, "var", k=4, relation="symmetric", method=method) >= moved
    table = sens.neighbours_of(release, days, "var", k=4, relation="symmetric")
    assert (1, 2, 3, 20) in set(table["neighbour"])
    blog = dpteach.local_sensitivity(release, days, "var", k=4)
    assert blog < moved  # the blog's number would not cover this group


def test_local_variance_falls_under_the_blog_relation_but_not_under_symmetric() -> None:
    days = large_universe()["absence_days"]
    blog = [dpteach.local_sensitivity(days[:6], days, "var", k=k) for k in range(1, 5)]
    assert [round(v, 1) for v in blog] == [32.9, 37.6, 33.2, 29.6]
    group = [dpteach.local_sensitivity(days[:6], days, "var", k=k, relation="symmetric") for k in range(1, 5)]
    assert all(a <= b for a, b in itertools.pairwise(group))


def test_grid_default_relations_are_the_blogs_two() -> None:
    universe = {"absence_days": large_universe()["absence_days"]}
    grid = dpteach.sensitivity_grid(universe, size=6, queries=["sum"], ks=[1, 2])
    assert set(grid["relation"]) == {"unbounded", "bounded"}
    grid = dpteach.sensitivity_grid(universe, size=6, queries=["sum"], ks=[1, 2], relations=["symmetric"])
    assert grid["sensitivity"].tolist() == [
        dpteach.global_sensitivity(universe["absence_days"], 6, "sum", k=k, relation="symmetric") for k in (1, 2)]


def test_neighbour_table_symmetric_rows_match_local_sensitivity() -> None:
    universe = [1, 2, 3, 10, 11]
    table = dpteach.neighbour_table(universe, 3, "median", k=2, relation="symmetric")
    for release, value in zip(table["release"], table["local sensitivity"], strict=True):
        assert value == dpteach.local_sensitivity(release, universe, "median", k=2, relation="symmetric")
    assert table.attrs["global_sensitivity"] == dpteach.global_sensitivity(universe, 3, "median", k=2,
                                                                           relation="symmetric")


@pytest.mark.parametrize("k", [0, 6])
def test_k_range_is_stated(k: int) -> None:
    with pytest.raises(ValueError, match=r"k must be >= 1 and <= 5 .*\|universe\| \(5\)"):
        dpteach.global_sensitivity([1, 2, 3, 10, 11], 3, "median", k=k, relation="symmetric")


def test_k_range_of_the_whole_universe_is_stated() -> None:
    """A release that is the whole universe keeps a record (its neighbours are never empty): k <= |U| - 1."""
    assert dpteach.global_sensitivity([1, 2, 3], 3, "sum", k=2, relation="symmetric") == 5  # (1, 2, 3) -> (1)
    with pytest.raises(ValueError, match=r"k must be >= 1 and <= 2 .*whole universe"):
        dpteach.global_sensitivity([1, 2, 3], 3, "sum", k=3, relation="symmetric")


def test_no_neighbour_at_all_is_refused() -> None:
    with pytest.raises(ValueError, match="k has no valid value"):
        dpteach.global_sensitivity([4.0], 1, "sum", relation="symmetric")


def test_symmetric_work_is_budgeted_and_shows_progress(monkeypatch, capsys) -> None:
    monkeypatch.setattr(sens, "PROGRESS_ABOVE", 0)
    dpteach.global_sensitivity(range(8), 4, "var", k=2, relation="symmetric")
    assert "global (symmetric)" in capsys.readouterr().err
    monkeypatch.setattr(budget, "MAX_WORK", 100)
    for method in ("enumerate", "naive"):
        with pytest.raises(ValueError, match="limit"):
            dpteach.global_sensitivity(range(12), 6, "var", k=3, relation="symmetric", method=method)
    with pytest.raises(ValueError, match="limit"):
        dpteach.local_sensitivity(range(6), range(12), "var", k=3, relation="symmetric", method="enumerate")
