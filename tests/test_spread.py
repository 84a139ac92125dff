"""dpteach.spread (local var and std in closed form), the bounded mean's ties and the fast work count, against
exhaustive enumeration on thousands of random cases.

Tolerance: on whole numbers the closed form is *certified* and must equal enumeration bit for bit (module
docstring of dpteach.spread). Off whole numbers it is a proved upper bound: never below enumeration (nor below
the real-arithmetic sensitivity), and above it by at most ``spread.tolerance``: four times numpy's own error
bound plus the scoring error, plus 4u times the value (typically 1e-13 relative; for near-constant data it is
the absolute size of numpy's rounding noise).
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dpteach
from dpteach import budget, exact, spread
from dpteach.neighbours import count_submultisets, positional_neighbours
from dpteach.queries import as_dataset, resolve_query

RELATIONS = ("unbounded", "bounded", "symmetric")
whole_values = st.integers(-7, 15)
float_values = st.floats(-60, 60, allow_nan=False).map(lambda v: round(v, 3))


def top_k(relation: str, size: int, universe_size: int) -> int:
    """The largest valid k (0 when there is none)."""
    return {"unbounded": min(size - 1, universe_size - size), "bounded": size - 1,
            "symmetric": universe_size if universe_size > size else universe_size - 1}[relation]


@st.composite
def local_cases(draw, values=whole_values, max_size: int = 8):
    """(universe, release, k, relation): duplicates on purpose (values drawn from a small pool), k up to its maximum."""
    pool = draw(st.lists(values, min_size=1, max_size=5))
    relation = draw(st.sampled_from(RELATIONS))
    universe = draw(st.lists(st.sampled_from(pool), min_size=2 if relation == "symmetric" else 3, max_size=max_size))
    lowest, highest = {"unbounded": (2, len(universe) - 1), "bounded": (2, len(universe)),
                       "symmetric": (1, len(universe))}[relation]
    size = draw(st.integers(lowest, highest))
    k = draw(st.integers(1, top_k(relation, size, len(universe))))
    release = draw(st.permutations(universe))[:size]
    return universe, release, k, relation


def both(case, query):
    universe, release, k, relation = case
    fast = dpteach.local_sensitivity(release, universe, query, k=k, relation=relation)
    enumerated = dpteach.local_sensitivity(release, universe, query, k=k, relation=relation, method="enumerate")
    return fast, enumerated


@contextmanager
def uncertified() -> Iterator[None]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(spread, "CERTIFY_CELLS", 0)
        yield



# ------------------------------------------------------------------------------------------ local var and std
@settings(max_examples=700, deadline=None)
@given(case=local_cases(), query=st.sampled_from(spread.SPREAD_QUERIES))
def test_local_spread_equals_enumeration_on_whole_numbers(case, query) -> None:
    fast, enumerated = both(case, query)
    assert fast == enumerated


@settings(max_examples=500, deadline=None)
@given(case=local_cases(float_values), query=st.sampled_from(spread.SPREAD_QUERIES))
def test_local_spread_is_a_tight_upper_bound_on_fractions(case, query) -> None:
    universe, release, k, relation = case
    fast, enumerated = both(case, query)
    slack = spread.tolerance(query, as_dataset(universe), len(release), k, relation, fast)
    assert enumerated <= fast <= enumerated + slack


@settings(max_examples=300, deadline=None)
@given(case=local_cases(st.one_of(whole_values, float_values)), query=st.sampled_from(spread.SPREAD_QUERIES))
def test_uncertified_bound_on_any_data(case, query) -> None:
    """With certification switched off the proved bound is used on whole numbers too (exact integer sums)."""
    universe, release, k, relation = case
    with uncertified():
        fast, enumerated = both(case, query)
    slack = spread.tolerance(query, as_dataset(universe), len(release), k, relation, fast)
    assert enumerated <= fast <= enumerated + slack


def exact_variance(data) -> Fraction:
    values = [Fraction(v) for v in data]
    mean = sum(values) / len(values)
    return sum((v - mean) ** 2 for v in values) / len(values)


@settings(max_examples=150, deadline=None)
@given(case=local_cases(float_values, max_size=7))
def test_local_var_bound_covers_real_arithmetic(case) -> None:
    """The bound is at least the sensitivity of the *real* variance of the given floats (Fractions, every neighbour)."""
    universe, release, k, relation = case
    truth_release = exact_variance(release)
    neighbours = positional_neighbours(tuple(release), tuple(universe), k, relation)
    truth = max(abs(exact_variance(y) - truth_release) for y in neighbours)
    with uncertified():
        bound = dpteach.local_sensitivity(release, universe, "var", k=k, relation=relation)
    assert Fraction(bound) >= truth


@settings(max_examples=150, deadline=None)
@given(case=local_cases(max_size=7))
def test_candidates_are_neighbours_and_extremes_are_candidates(case) -> None:
    """Every candidate is a neighbour (or the release); the neighbours of largest and smallest variance are
    candidates, as multisets (module docstring: every maximiser and minimiser is one)."""
    universe, release, k, relation = case
    data, pool = as_dataset(release), as_dataset(universe)
    others = exact.spare(data, pool)
    found = {"max": set(), "min": set()}
    for side, kept, chosen in spread._blocks(data.size, others.size, k, relation):
        for a in kept:
            for b in chosen:
                found[side].add(tuple(sorted([*data[a].tolist(), *others[b].tolist()])))
    everyone = {tuple(sorted(map(float, y))) for y in positional_neighbours(tuple(release), tuple(universe), k,
                                                                            relation)}
    assert found["max"] | found["min"] <= everyone | {tuple(data.tolist())}
    variance = {y: exact_variance(y) for y in everyone}
    assert {y for y in everyone if variance[y] == max(variance.values())} <= found["max"]
    assert {y for y in everyone if variance[y] == min(variance.values())} <= found["min"]


def test_symmetric_group_example_is_exact() -> None:
    """Notebook 02's group of four: from (1, ..., 6) remove 4, 5, 6 and add 20."""
    days = [1, 2, 3, 4, 5, 6, 7, 8, 15, 20]
    for relation in RELATIONS:
        for k in range(1, 5):
            fast = dpteach.local_sensitivity(days[:6], days, "var", k=k, relation=relation)
            assert fast == dpteach.local_sensitivity(days[:6], days, "var", k=k, relation=relation, method="naive")


def test_local_spread_at_scale_answers_quickly_and_brackets_a_known_neighbour() -> None:
    rng = np.random.default_rng(16)
    universe = rng.integers(0, 10**6, size=100_000).astype(float)
    release = np.sort(universe[:50_000])
    spare_values = exact.spare(release, np.sort(universe))
    for relation in RELATIONS:
        value = dpteach.local_sensitivity(release, universe, "var", k=3, relation=relation)
        # adding the three largest spare values is an unbounded and a symmetric neighbour
        added = np.var(np.concatenate([release, spare_values[-3:]])) - np.var(release)
        swapped = np.var(np.sort(np.concatenate([release[3:], spare_values[-3:]]))) - np.var(release)
        assert value >= (abs(added) if relation != "bounded" else abs(swapped)) > 0


# ------------------------------------------------------------------------------------------ bounded mean
@st.composite
def mean_cases(draw):
    pool = draw(st.lists(st.integers(-7, 15), min_size=1, max_size=6))
    universe = draw(st.lists(st.sampled_from(pool) | st.integers(-7, 15), min_size=3, max_size=10))
    size = draw(st.integers(2, len(universe)))
    return universe, size, draw(st.integers(1, size - 1))


@settings(max_examples=600, deadline=None)
@given(case=mean_cases())
def test_bounded_mean_is_enumerations_value_without_enumerating(case) -> None:
    universe, size, k = case
    assert exact.bounded_mean_ties(as_dataset(universe), size, k) is not None  # the tie path, not the fallback
    fast = dpteach.global_sensitivity(universe, size, "mean", k=k, relation="bounded")
    assert fast == dpteach.global_sensitivity(universe, size, "mean", k=k, relation="bounded", method="enumerate")


@settings(max_examples=200, deadline=None)
@given(case=mean_cases())
def test_bounded_mean_fallback_rounds_up(case) -> None:
    universe, size, k = case
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(exact, "TIE_WORDS", 0)
        fast = dpteach.global_sensitivity(universe, size, "mean", k=k, relation="bounded")
    enumerated = dpteach.global_sensitivity(universe, size, "mean", k=k, relation="bounded", method="enumerate")
    data = as_dataset(universe)
    slack = 8 * (exact.value_error("mean", data, size) + 2.0**-53 * fast)
    assert enumerated <= fast <= enumerated + 2 * slack + float(np.spacing(fast))


def test_bounded_mean_ties_on_the_blog_universe() -> None:
    days = [1, 2, 3, 4, 5, 6, 7, 8, 15, 20]
    for k in range(1, 5):
        expected = dpteach.global_sensitivity(days, 6, "mean", k=k, relation="bounded", method="enumerate")
        assert dpteach.global_sensitivity(days, 6, "mean", k=k, relation="bounded") == expected


# ------------------------------------------------------------------------------------------ fast work count
@settings(max_examples=500, deadline=None)
@given(capacity=st.lists(st.integers(1, 40), min_size=1, max_size=7), data=st.data(),
       cap=st.sampled_from([3, 1_000, 10**9]))
def test_capped_count_is_exact_below_the_cap_and_a_lower_bound_above(capacity, data, cap) -> None:
    size = data.draw(st.integers(0, sum(capacity)))
    exact_count = count_submultisets(np.array(capacity), size)
    capped = count_submultisets(np.array(capacity), size, cap=cap)
    assert capped == exact_count if exact_count <= cap else cap < capped <= exact_count


def test_count_by_brute_force() -> None:
    universe = [1, 1, 2, 3, 3, 3, 7]
    capacity = np.array(list(Counter(universe).values()))
    for size in range(len(universe) + 1):
        assert count_submultisets(capacity, size) == len(set(itertools.combinations(universe, size)))


@pytest.mark.parametrize("relation", RELATIONS)
@pytest.mark.parametrize("method", ["fast", "enumerate", "naive"])
def test_work_beyond_the_budget_is_refused_with_its_size(relation, method) -> None:
    """|U| = 100,000: the global variance is enumerated (no closed form), so it must be refused, saying how much."""
    universe = np.random.default_rng(1).integers(0, 10**6, size=100_000).astype(float)
    with pytest.raises(ValueError, match=r"would compare about 10\^\d+\.\d or more .*pairs, above the limit"):
        dpteach.global_sensitivity(universe, 50_000, "var", k=10, relation=relation, method=method)


def test_local_enumeration_and_closed_form_budgets(monkeypatch) -> None:
    universe = np.arange(40.0)
    with pytest.raises(ValueError, match=r"would compare [\d,]+ or more .*pairs"):
        dpteach.local_sensitivity(universe[:20], universe, "var", k=10, relation="bounded", method="enumerate")
    monkeypatch.setattr(budget, "MAX_WORK", 100)
    expected = spread.candidate_count(20, 20, 10, "bounded")
    with pytest.raises(ValueError, match=f"would score {expected:,} or more candidate datasets"):
        dpteach.local_sensitivity(universe[:20], universe, "var", k=10, relation="bounded")


# ------------------------------------------------------------------------------------------ bad input
@pytest.mark.parametrize(("call", "error", "message"), [
    (lambda: dpteach.local_sensitivity([1, 2], [1, 2, 3], "var", k=0), ValueError, "k must be >= 1"),
    (lambda: dpteach.local_sensitivity([1, 2], [1, 2, 3], "std", k=2), ValueError, "k must"),
    (lambda: dpteach.local_sensitivity([1, 9], [1, 2, 3], "var"), ValueError, r"values: \[9\]"),
    (lambda: dpteach.local_sensitivity([1, 2], [1, 2, 3], "var", relation="group"), ValueError, "relation"),
    (lambda: dpteach.local_sensitivity([1, 2], [1, 2, 3], "var", k=1.5), TypeError, "k must be an integer"),
    (lambda: dpteach.local_sensitivity([0.5, 1e308], [0.5, 1e308, -1e308], "std"), ValueError, "overflow"),
])
def test_bad_input_is_named(call, error, message) -> None:
    with pytest.raises(error, match=message):
        call()


def test_round_up_is_the_smallest_float_above() -> None:
    third = Fraction(1, 3)
    assert Fraction(spread.round_up(third)) >= third > Fraction(float(np.nextafter(spread.round_up(third), 0)))
    assert spread.round_up(Fraction(10) ** 400) == np.inf
    assert spread.round_up(Fraction(5, 4)) == 1.25


def test_has_local_closed_form_and_resolve() -> None:
    assert spread.has_local_closed_form("var") and spread.has_local_closed_form("std")
    assert not spread.has_local_closed_form("mean") and not spread.has_local_closed_form(np.var)
    assert resolve_query("std").name == "std"
    assert budget.MAX_WORK > 0
