"""The exact sensitivity engine: known values, fast == naive, local vs global, and bad input."""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dpteach
from dpteach import budget, exact
from dpteach import sensitivity as sens
from dpteach.datasets import large_universe, small_universe

TABLE_UNIVERSE = [1, 2, 3, 10, 11]
TABLE_RELEASES = list(itertools.combinations(TABLE_UNIVERSE, 3))


# ------------------------------------------------------------------------------------------ known values
def test_median_table_local_sensitivities() -> None:
    bounded = [dpteach.local_sensitivity(r, TABLE_UNIVERSE, "median", relation="bounded") for r in TABLE_RELEASES]
    assert bounded == [1, 8, 8, 7, 7, 8, 7, 7, 8, 7]
    unbounded = [dpteach.local_sensitivity(r, TABLE_UNIVERSE, "median") for r in TABLE_RELEASES]
    assert max(unbounded) == 4.5
    assert unbounded[TABLE_RELEASES.index((1, 2, 11))] == 4.5


def test_median_table_global_sensitivities() -> None:
    assert dpteach.global_sensitivity(TABLE_UNIVERSE, 3, "median") == 4.5
    assert dpteach.global_sensitivity(TABLE_UNIVERSE, 3, "median", relation="bounded") == 8.0


def test_blog_bounded_local_overstates_four_rows() -> None:
    wrong = {r for r in TABLE_RELEASES if dpteach.blog_bounded_local(r, TABLE_UNIVERSE, "median") == 8
             and dpteach.local_sensitivity(r, TABLE_UNIVERSE, "median", relation="bounded") == 7}
    assert wrong == {(1, 3, 10), (1, 3, 11), (2, 3, 10), (2, 3, 11)}


@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_count_sensitivity_is_k_unbounded_and_zero_bounded(k: int) -> None:
    ages = large_universe()["absence_days"]
    assert dpteach.global_sensitivity(ages, 6, "count", k=k) == k
    assert dpteach.global_sensitivity(ages, 6, "count", k=k, relation="bounded") == 0


def test_small_universe_sum_sensitivity_is_largest_value() -> None:
    days = small_universe()["absence_days"]
    assert dpteach.global_sensitivity(days, 3, "sum") == 10
    assert dpteach.global_sensitivity(days, 3, "sum", relation="bounded") == 9


def test_neighbour_table_matches_hand_worked_table() -> None:
    table = dpteach.neighbour_table(TABLE_UNIVERSE, 3, relation="bounded")
    assert len(table) == 10
    assert table["local sensitivity"].tolist() == [1, 8, 8, 7, 7, 8, 7, 7, 8, 7]
    assert table.attrs["global_sensitivity"] == 8
    assert table["attains global"].sum() == 4
    first = table.iloc[1]
    assert first[f"L1 {first['argmax']}"] == first["local sensitivity"]
    unbounded = dpteach.neighbour_table(TABLE_UNIVERSE, 3)
    assert unbounded.attrs["global_sensitivity"] == 4.5
    assert sum(c.startswith("neighbour ") for c in unbounded.columns) == 5


def test_replicate_builds_scenario_b_universe() -> None:
    assert dpteach.replicate([2, 1], 3).tolist() == [1, 1, 1, 2, 2, 2]


# ------------------------------------------------------------------------------------------ fast == naive
small_universes = st.lists(st.integers(min_value=-5, max_value=12), min_size=3, max_size=8)
queries = st.one_of(
    st.sampled_from(dpteach.QUERIES),
    st.integers(min_value=0, max_value=100).map(lambda p: f"percentile_{p}"),
)
relations = st.sampled_from(["unbounded", "bounded"])


@st.composite
def global_cases(draw):
    universe = draw(small_universes)
    relation = draw(relations)
    size = draw(st.integers(min_value=2, max_value=len(universe) - (relation == "unbounded")))
    high = size - 1 if relation == "bounded" else min(size - 1, len(universe) - size)
    k = draw(st.integers(min_value=1, max_value=high))
    return universe, size, k, relation


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(case=global_cases(), query=queries)
def test_fast_equals_naive_global(case, query) -> None:
    universe, size, k, relation = case
    fast = dpteach.global_sensitivity(universe, size, query, k=k, relation=relation)
    naive = dpteach.global_sensitivity(universe, size, query, k=k, relation=relation, method="naive")
    if may_round_up(universe, size, k, relation, query):
        assert naive <= fast <= naive + rounding_slack(universe, size, k, relation, query, fast)
    else:
        assert fast == naive


def may_round_up(universe, size: int, k: int, relation: str, query) -> bool:
    """Whether the closed form has a pair of :func:`dpteach.exact.tied_pairs` (or an exchanged bounded mean),
    the only cases where the rounding promise allows it to round up on whole numbers."""
    if not exact.has_closed_form(query):
        return False
    data = np.sort(np.asarray(universe, dtype=float))
    specs = exact.global_pair_specs(data.size, size, k, relation, query)
    largest = exact._largest(size, k, relation, data.size)
    noise = 16 * exact.value_error(query, data, largest)
    exchanged = any(query == "mean" and 0 < a and m - a == b for m, _, a, b in specs)
    return exchanged or bool(exact.tied_pairs(specs, query, data, noise).any())


def rounding_slack(universe, size: int, k: int, relation: str, query, value: float) -> float:
    """The most :func:`dpteach.exact.round_up` adds to a gap of about ``value``, plus a spare ulp."""
    data = np.sort(np.asarray(universe, dtype=float))
    largest = exact._largest(size, k, relation, data.size)
    return 8 * (exact.value_error(query, data, largest) + 2.0**-53 * value) + float(np.spacing(value))


def test_tied_percentile_pair_rounds_up_within_the_slack() -> None:
    # A Hypothesis draw: the pair (z[1:], z[:4]) of z = (0, 0, 0, 0) uses rank 1 with weight 3/5 in both
    # percentiles, so numpy may round its records apart; the closed form rounds up, enumeration finds 0.
    universe, size, k, query = [0, 0, 0, 0, 1], 4, 1, "percentile_20"
    assert may_round_up(universe, size, k, "unbounded", query)
    naive = dpteach.global_sensitivity(universe, size, query, k=k, method="naive")
    fast = dpteach.global_sensitivity(universe, size, query, k=k)
    assert naive == 0.0
    assert 0.0 < fast <= rounding_slack(universe, size, k, "unbounded", query, fast)


@settings(max_examples=150, deadline=None)
@given(case=global_cases(), query=queries, data=st.data())
def test_fast_equals_naive_local_and_local_below_global(case, query, data) -> None:
    universe, size, k, relation = case
    release = data.draw(st.permutations(universe)).__getitem__(slice(size))
    fast = dpteach.local_sensitivity(release, universe, query, k=k, relation=relation)
    naive = dpteach.local_sensitivity(release, universe, query, k=k, relation=relation, method="naive")
    assert fast == naive
    assert fast <= dpteach.global_sensitivity(universe, size, query, k=k, relation=relation)


@settings(max_examples=40, deadline=None)
@given(
    universe=st.lists(st.floats(min_value=-1e3, max_value=1e3, allow_nan=False, width=32), min_size=4, max_size=7),
    query=queries,
    relation=relations,
)
def test_fast_equals_naive_on_fractional_values(universe, query, relation) -> None:
    size = len(universe) // 2
    fast = dpteach.global_sensitivity(universe, size, query, relation=relation)
    naive = dpteach.global_sensitivity(universe, size, query, relation=relation, method="naive")
    # On floats the closed forms are rounded up (dpteach.exact, *Floating point*): never below the enumeration,
    # and above it by at most the stated slack 8(E + u d) plus a spare ulp (E for datasets as large as the universe).
    data = np.sort(np.asarray(universe, dtype=float))
    slack = 8 * (exact.value_error(query, data, data.size) + 2.0**-53 * fast) if exact.has_closed_form(query) else 0.0
    assert naive <= fast <= naive + slack + float(np.spacing(fast))


@settings(max_examples=60, deadline=None)
@given(case=global_cases(), query=queries)
def test_global_is_the_largest_local(case, query) -> None:
    universe, size, k, relation = case
    releases = set(itertools.combinations(sorted(universe), size))
    largest_local = max(dpteach.local_sensitivity(r, universe, query, k=k, relation=relation) for r in releases)
    assert largest_local == dpteach.global_sensitivity(universe, size, query, k=k, relation=relation)


def test_callable_query_matches_named_query() -> None:
    days = large_universe()["absence_days"]
    # remove 15 and 20 from {1, 2, 3, 4, 15, 20}: the maximum falls from 20 to 4
    assert dpteach.global_sensitivity(days, 6, np.max, k=2) == 16
    assert dpteach.global_sensitivity(days, 6, lambda x: float(np.mean(x)), k=2) == pytest.approx(
        dpteach.global_sensitivity(days, 6, "mean", k=2)
    )


# ------------------------------------------------------------------------------------------ grid
def test_grid_is_tidy_and_agrees_with_single_calls() -> None:
    universe = large_universe()
    grid = dpteach.sensitivity_grid(universe, size=6, columns=["school_year", "absence_days"],
                                    queries=["median", "sum"], ks=[1, 2])
    assert list(grid.columns) == ["relation", "scope", "k", "query", "column", "sensitivity"]
    assert len(grid) == 2 * 2 * 2 * 2
    row = grid.query("relation == 'bounded' and k == 2 and query == 'median' and column == 'absence_days'")
    expected = dpteach.global_sensitivity(universe["absence_days"], 6, "median", k=2, relation="bounded")
    assert row["sensitivity"].item() == expected
    local = dpteach.sensitivity_grid(universe, release=universe.head(6), columns=["absence_days"],
                                     queries=["sum"], ks=[1], relations=["unbounded"])
    assert local["scope"].item() == "local"
    assert local["sensitivity"].item() == 20  # adding Rick's 20 days


def test_grid_accepts_scenario_b_mapping() -> None:
    universe = {"mood": dpteach.replicate([1, 2], 4), "driving_proficiency": dpteach.replicate([1, 2, 3], 4)}
    grid = dpteach.sensitivity_grid(universe, size=4, queries=["count", "median"], ks=[1, 2, 3])
    assert set(grid["column"]) == {"mood", "driving_proficiency"}
    assert grid.query("query == 'median' and relation == 'bounded'")["sensitivity"].max() == 2


# ------------------------------------------------------------------------------------------ budget
def test_work_above_hard_limit_says_how_much(monkeypatch) -> None:
    monkeypatch.setattr(budget, "MAX_WORK", 1_000)
    # "mean" has a closed form under the default method; the global "std" has none, so the default enumerates.
    with pytest.raises(ValueError, match=r"would compare [\d,]+ .*pairs"):
        dpteach.global_sensitivity(range(30), 10, "std")
    with pytest.raises(ValueError, match=r"would compare [\d,]+ .*pairs"):
        dpteach.global_sensitivity(range(30), 10, "mean", method="enumerate")
    with pytest.raises(ValueError, match="limit"):
        dpteach.global_sensitivity(range(30), 10, "mean", method="naive")
    assert dpteach.global_sensitivity(range(30), 10, "mean") == 2.5  # 0..8 and 29 lose the 29: 6.5 - 4
    monkeypatch.setattr(budget, "MAX_WORK", 100)  # the closed form counts its 160 records of candidates too
    with pytest.raises(ValueError, match=r"would evaluate \d+ or more records of candidate datasets"):
        dpteach.global_sensitivity(range(30), 10, "mean")


def test_work_above_budget_shows_progress(monkeypatch, capsys) -> None:
    monkeypatch.setattr(sens, "PROGRESS_ABOVE", 0)
    dpteach.global_sensitivity(range(8), 4, "mean", method="naive")
    assert "naive releases" in capsys.readouterr().err


# ------------------------------------------------------------------------------------------ bad input
@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: dpteach.global_sensitivity([1, 2, 3], 4, "mean"), ValueError, "size"),
        (lambda: dpteach.global_sensitivity([1, 2, 3, 4], 3, "mean", k=0), ValueError, "k must"),
        (lambda: dpteach.global_sensitivity([1, 2, 3, 4], 3, "mean", k=3, relation="bounded"), ValueError, "k < size"),
        (lambda: dpteach.global_sensitivity(range(6), 3, "mean", k=4), ValueError, "k <= |universe| - size"),
        (lambda: dpteach.global_sensitivity(range(6), 3, "mean", k=1.0), TypeError, "k must be an integer"),
        (lambda: dpteach.global_sensitivity(range(6), 3, "mean", relation="replace"), ValueError, "relation"),
        (lambda: dpteach.global_sensitivity(range(6), 3, "mean", method="quick"), ValueError, "method"),
        (lambda: dpteach.global_sensitivity([], 1, "mean"), ValueError, "universe must hold at least one"),
        (lambda: dpteach.global_sensitivity([1, np.nan, 2], 2, "mean"), ValueError, "universe must hold finite"),
        (lambda: dpteach.global_sensitivity([1, np.inf, 2], 2, "mean"), ValueError, "finite"),
        (lambda: dpteach.global_sensitivity(["a", "b", "c"], 2, "mean"), TypeError, "universe must hold real"),
        (lambda: dpteach.global_sensitivity(range(6), 3, "mode"), ValueError, "valid queries are mean, median"),
        (lambda: dpteach.global_sensitivity(range(6), 3, "percentile_120"), ValueError, r"\[0, 100\]"),
        (lambda: dpteach.global_sensitivity(range(6), 3, 42), TypeError, "query must be"),
        (lambda: dpteach.local_sensitivity([1, 5, 7, 7], [1, 2, 7, 9, 11], "mean"), ValueError, r"values: \[5, 7\]"),
        (lambda: dpteach.local_sensitivity([], [1, 2], "mean"), ValueError, "release"),
        (lambda: dpteach.replicate([1, 2], 0), ValueError, "size"),
        (lambda: dpteach.evaluate("median", []), ValueError, "data"),
        (lambda: dpteach.sensitivity_grid(pd.DataFrame({"a": [1, 2, 3]}), size=2, columns=["b"]), ValueError,
         r"columns \['b'\]"),
        (lambda: dpteach.sensitivity_grid(pd.DataFrame({"a": [1, 2, 3]})), ValueError, "exactly one of size"),
        (lambda: dpteach.sensitivity_grid(pd.DataFrame({"a": ["x", "y", "z"]}), size=2), TypeError,
         r"universe\['a'\]"),
        (lambda: dpteach.neighbour_table([1, 2, 3], 3), ValueError, "k has no valid value"),
    ],
)
def test_bad_input_is_named(call, error, message) -> None:
    with pytest.raises(error, match=message):
        call()


# ------------------------------------------------------------------------------------------ the blog's bounded local
def blog_transcription(universe: list[float], release: tuple[float, ...], k: int, query: str) -> float:
    """The blog's bounded-local algorithm, by position: keep n - k records of the release, refill each core with
    every k records of (universe - core), compare every pair inside one core's group, return the largest gap."""
    def run(data: list[float]) -> float:
        return dpteach.evaluate(query, data)

    groups = []
    for core in itertools.combinations(release, len(release) - k):
        rest = list((Counter(universe) - Counter(core)).elements())
        groups.append([list(core) + list(fill) for fill in itertools.combinations(rest, k)])
    norms = []
    for group in groups:
        for i in range(len(group) - 1):
            for j in range(i + 1, len(group)):
                norms.append(abs(run(group[i]) - run(group[j])))
    return max(norms)


@st.composite
def blog_cases(draw):
    """The blog's input rule: 0 < k < size and k <= |universe| - size; duplicates on purpose."""
    pool = draw(st.lists(st.integers(min_value=-5, max_value=12), min_size=1, max_size=5))
    universe = draw(st.lists(st.sampled_from(pool), min_size=3, max_size=7))
    size = draw(st.integers(min_value=2, max_value=len(universe) - 1))
    k = draw(st.integers(min_value=1, max_value=min(size - 1, len(universe) - size)))
    release = tuple(draw(st.permutations(universe))[:size])
    return universe, size, k, release


@settings(max_examples=300, deadline=None)
@given(case=blog_cases(), query=queries)
def test_blog_bounded_local_is_the_blogs_algorithm(case, query) -> None:
    universe, size, k, release = case
    blog = dpteach.blog_bounded_local(release, universe, query, k=k)
    assert blog == blog_transcription(universe, release, k, query)
    local = dpteach.local_sensitivity(release, universe, query, k=k, relation="bounded")
    assert local <= blog <= dpteach.global_sensitivity(universe, size, query, k=k, relation="bounded")


@settings(max_examples=60, deadline=None)
@given(case=blog_cases(), query=queries)
def test_blog_bounded_local_over_all_releases_is_global(case, query) -> None:
    universe, size, k, _ = case
    releases = set(itertools.combinations(sorted(universe), size))
    assert max(dpteach.blog_bounded_local(r, universe, query, k=k) for r in releases) == (
        dpteach.global_sensitivity(universe, size, query, k=k, relation="bounded", method="enumerate"))


def test_blog_bounded_local_issue_example() -> None:
    universe, release = [11, 11, 8, 6, 8, 10], (8, 10, 6)
    assert dpteach.blog_bounded_local(release, universe, "sum", k=2) == 8
    assert blog_transcription(universe, release, 2, "sum") == 8
    assert dpteach.global_sensitivity(universe, 3, "sum", k=2, relation="bounded") == 8


@pytest.mark.parametrize(("release", "universe", "k"), [((1, 2, 3), [1, 2, 3, 10], 2), ((1, 2, 3), [1, 2, 3], 1),
                                                     ((1, 2, 3), [1, 2, 3, 10], 3)])
def test_blog_bounded_local_refuses_the_blogs_bad_inputs(release, universe, k) -> None:
    """The blog's verify_sensitivity_inputs refuses these; a finite answer (9.0 was returned) would be no one's."""
    with pytest.raises(ValueError, match=r"^k must .*1 <= k < size \(3\)"):
        dpteach.blog_bounded_local(release, universe, "sum", k=k)


@pytest.mark.parametrize("query", ["mean", "var", "median", "percentile_90"])
def test_blog_bounded_local_on_floats_up_to_rounding(query) -> None:
    """Float data: the same number as the blog's code up to the last bits (evaluation order differs)."""
    universe, release = [7.545, 11.918, 7.545, 11.918, 7.545], (11.918, 7.545, 7.545, 7.545)
    blog = blog_transcription(universe, release, 1, query)
    assert dpteach.blog_bounded_local(release, universe, query) == pytest.approx(blog, rel=1e-12, abs=1e-12)
    assert blog > 0


def test_blog_bounded_local_on_the_median_table() -> None:
    blog = [dpteach.blog_bounded_local(r, TABLE_UNIVERSE, "median") for r in TABLE_RELEASES]
    truth = [dpteach.local_sensitivity(r, TABLE_UNIVERSE, "median", relation="bounded") for r in TABLE_RELEASES]
    assert {r for r, b, t in zip(TABLE_RELEASES, blog, truth, strict=True) if b != t} == {
        (1, 3, 10), (1, 3, 11), (2, 3, 10), (2, 3, 11)}
    assert max(blog) == 8 == dpteach.global_sensitivity(TABLE_UNIVERSE, 3, "median", relation="bounded")


# ------------------------------------------------------------------------------------------ fail safe
ALL_PATHS = [(relation, method) for relation in ("unbounded", "bounded", "symmetric")
             for method in ("fast", "enumerate", "naive")]


@pytest.mark.parametrize(("relation", "method"), ALL_PATHS)
@pytest.mark.parametrize("query", ["sum", "mean", "var", np.sum])
def test_overflowing_query_values_raise_on_every_path(relation, method, query) -> None:
    """inf - inf is NaN, which max would drop (the old answer was 0.0): every path must refuse instead."""
    huge = [0.5, 1.5e308, 1.6e308, 1.7e308]  # fractional, so not refused as inexact whole numbers
    with pytest.raises(ValueError, match="overflow"):
        dpteach.global_sensitivity(huge, 2, query, relation=relation, method=method)
    with pytest.raises(ValueError, match="overflow"):
        dpteach.local_sensitivity(huge[:2], huge, query, relation=relation, method=method)


@pytest.mark.parametrize(("relation", "method"), ALL_PATHS)
def test_a_gap_beyond_float_range_is_inf(relation, method) -> None:
    """Finite query values whose true difference exceeds the float64 range: inf is the truth."""
    universe = [-1e308, -1e308, 0.25, 1e308]
    assert dpteach.global_sensitivity(universe, 2, np.max, relation=relation, method=method) == np.inf
    assert dpteach.local_sensitivity([-1e308, 1e308], universe, np.max, relation=relation, method=method) == np.inf
    if relation != "symmetric":  # odd sizes only, so the median never averages two huge values
        universe = [-1e308, -1e308, 0.25, 1e308, 1e308]
        assert dpteach.global_sensitivity(universe, 3, "median", k=2, relation=relation, method=method) == np.inf


@pytest.mark.parametrize(("relation", "method"), ALL_PATHS)
def test_issue_examples_raise_instead_of_returning_zero(relation, method) -> None:
    with pytest.raises(ValueError, match="universe .*2\\*\\*53"):  # old answer: 0.0 (1e306 * 1000 overflows)
        dpteach.global_sensitivity(dpteach.replicate([0.0, 1e306], 1001), 1000, "sum", relation=relation,
                                   method=method)
    with pytest.raises(ValueError, match="universe holds integers beyond 2\\*\\*53"):  # old answer: 0.0 (truth 2)
        dpteach.global_sensitivity([2**53, 2**53 + 1, 2**53 + 2], 2, "sum", relation=relation, method=method)
    with pytest.raises(ValueError, match="universe holds whole numbers whose sums"):  # rounded sums: 4, truth 2
        dpteach.global_sensitivity([2**52, 2**52 + 1, 2**52 + 2], 2, "sum", relation=relation, method=method)
    with pytest.raises(ValueError, match="universe holds whole numbers whose sums"):
        dpteach.local_sensitivity([2**52, 2**52 + 1], [2**52, 2**52 + 1, 2**52 + 2], "sum", relation=relation,
                                  method=method)


def test_whole_numbers_up_to_the_exact_limit_are_exact() -> None:
    universe = [2**50, 2**50 + 1, 2**50 + 2, 2**50 + 3]  # sums of 3 records stay below 2**53
    for method in ("fast", "enumerate", "naive"):  # keep 2**50 + 1, replace 2**50 by 2**50 + 3
        assert dpteach.global_sensitivity(universe, 2, "sum", relation="bounded", method=method) == 3
        assert dpteach.global_sensitivity(universe, 2, "sum", k=2, relation="symmetric", method=method) == (
            2**51 + 5)  # add the two largest to the two smallest


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(columns=st.lists(st.lists(st.integers(min_value=-5, max_value=30), min_size=5, max_size=8), min_size=1,
                        max_size=2),
       relation=st.sampled_from(["unbounded", "bounded", "symmetric"]), local=st.booleans())
def test_grid_batches_equal_the_single_calls(columns, relation, local) -> None:
    """sensitivity_grid evaluates the closed-form cells together; every cell must equal its own call bit for bit."""
    size = min(len(c) for c in columns) // 2
    universe = {f"c{i}": np.array(c[: 2 * size]) for i, c in enumerate(columns)}
    ks = list(range(1, size))
    if local:
        release = {name: values[:size] for name, values in universe.items()}
        grid = dpteach.sensitivity_grid(universe, release=release, ks=ks, relations=[relation])
    else:
        grid = dpteach.sensitivity_grid(universe, size=size, ks=ks, relations=[relation])
    for row in grid.itertuples():
        query = row.query
        if local:
            single = dpteach.local_sensitivity(release[row.column], universe[row.column], query, k=row.k,
                                               relation=relation)
        else:
            single = dpteach.global_sensitivity(universe[row.column], size, query, k=row.k, relation=relation)
        assert np.float64(row.sensitivity).tobytes() == np.float64(single).tobytes()


def test_kept_submultiset_lists_are_read_only_and_fresh() -> None:
    """The kept lists equal a fresh build, cannot be changed in place, and clearing the caches rebuilds them."""
    from dpteach import neighbours

    capacity = np.array([2, 1, 3])
    first = neighbours.submultisets(capacity, 3)
    assert neighbours.submultisets(capacity, 3) is first
    assert np.array_equal(first, neighbours._build_submultisets(capacity, 3))
    with pytest.raises(ValueError, match="read-only"):
        first[0, 0] = 9
    sens.clear_caches()
    assert neighbours.submultisets(capacity, 3) is not first


def test_sensitivity_by_distance_pins_lesson_02_variance_curves() -> None:
    """Lesson 02's last figure: the variance of absence days, datasets of six, the blog's k against any mix."""
    days = large_universe()["absence_days"].to_numpy()
    curves = dpteach.sensitivity_by_distance(days, 6, "var", k_max=4)
    assert list(curves.columns) == ["unbounded", "symmetric"] and list(curves.index) == [1, 2, 3, 4]
    assert curves.round(2).to_dict("list") == {"unbounded": [39.81, 51.67, 52.25, 55.78],
                                               "symmetric": [39.81, 51.67, 52.25, 58.33]}
    x, y = days[:6], np.array([1.0, 2.0, 3.0, 20.0])  # three removals and one addition: distance 4
    assert np.var(y) - np.var(x) == pytest.approx(curves.loc[4, "symmetric"])
    assert curves.loc[3, "symmetric"] == dpteach.global_sensitivity(
        days, 6, "var", k=3, relation="symmetric")
    assert (curves["symmetric"] >= curves["unbounded"]).all()


def test_sensitivity_by_distance_over_every_size() -> None:
    """Lesson 02's last figure, n secret: the blog's exactly-k falls with k, a group's add/remove value cannot."""
    days = large_universe()["absence_days"].to_numpy()
    curves = dpteach.sensitivity_by_distance(days, "every", "var", k_max=4, relations=("unbounded", "symmetric"))
    assert curves.round(2).to_dict("list") == {"unbounded": [90.25, 76.22, 67.25, 60.56],
                                               "symmetric": [90.25] * 4}
    # the blog's k = 4 exists only at n = 5 and 6 (k < n <= |U| - k): the largest of those two
    assert curves.loc[4, "unbounded"] == max(dpteach.global_sensitivity(days, n, "var", k=4) for n in (5, 6))
    assert np.var([1.0, 20.0]) == curves.loc[1, "symmetric"]  # {1} -> {1, 20}
    with pytest.raises(ValueError, match="at size 5"):
        dpteach.sensitivity_by_distance(days, "every", "var", k_max=5, relations=("unbounded",))
    with pytest.raises(ValueError, match="or 'every'"):
        dpteach.sensitivity_by_distance(days, "all", "var", k_max=2)
