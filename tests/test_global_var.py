"""dpteach.global_spread (global var, bounded neighbours) against exhaustive enumeration.

Tolerance: none. On whole numbers the fast answer must equal enumeration bit for bit (the module certifies it or
hands back to enumeration). The structural claim itself (the candidates contain every maximising pair with unequal
sums, and the largest gap) is checked in exact rational arithmetic, on whole and fractional universes alike.
"""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dpteach
from dpteach import global_spread
from dpteach import sensitivity as sens
from dpteach.datasets import BLOG_FIGURES
from dpteach.neighbours import submultisets
from dpteach.queries import resolve_query

whole_values = st.integers(-7, 15).map(float)
float_values = st.floats(-60, 60, allow_nan=False).map(lambda v: round(v, 3))
VAR = resolve_query("var")


@st.composite
def cases(draw, values=whole_values, max_size: int = 9):
    """(sorted universe, size, k): values from a small pool (duplicates), every k from 1 to size - 1."""
    pool = draw(st.lists(values, min_size=1, max_size=5))
    universe = sorted(draw(st.lists(st.sampled_from(pool), min_size=3, max_size=max_size)))
    size = draw(st.integers(2, len(universe)))
    k = draw(st.integers(1, size - 1))
    return np.array(universe), size, k


def enumerated(universe: np.ndarray, size: int, k: int) -> float:
    return dpteach.global_sensitivity(universe, size, "var", k=k, relation="bounded", method="enumerate")


@settings(max_examples=1500, deadline=None)
@given(case=cases())
def test_candidates_equal_enumeration_on_whole_numbers(case) -> None:
    universe, size, k = case
    expected = enumerated(universe, size, k)
    value = global_spread.bounded_global_var(universe, size, k, VAR)
    if min(k, universe.size - size) >= 1:  # small whole numbers: the certificate must hold
        assert value == expected
    else:
        assert value is None
    assert dpteach.global_sensitivity(universe, size, "var", k=k, relation="bounded") == expected


@settings(max_examples=400, deadline=None)
@given(case=cases(float_values))
def test_fast_equals_enumeration_on_fractions(case) -> None:
    universe, size, k = case
    fast = dpteach.global_sensitivity(universe, size, "var", k=k, relation="bounded")
    assert fast == enumerated(universe, size, k)


def _variance(data: tuple[Fraction, ...]) -> Fraction:
    total = sum(data, Fraction(0))
    return sum((d * d for d in data), Fraction(0)) / len(data) - (total / len(data)) ** 2


def _all_pairs(universe: np.ndarray, size: int, k: int) -> dict[tuple, Fraction]:
    """Every bounded pair (x, y) as sorted tuples, with its exact gap V(y) - V(x)."""
    exact = [Fraction(float(v)) for v in universe]
    releases = {tuple(sorted(c)) for c in itertools.combinations(exact, size)}
    pairs = {}
    for x in releases:
        for y in releases:
            shared = sum((Counter(x) & Counter(y)).values())
            if size - shared <= k:
                pairs[(x, y)] = _variance(y) - _variance(x)
    return pairs


def _candidates(universe: np.ndarray, size: int, k: int) -> set[tuple]:
    """The candidate family of the module docstring, written out from its text (positions in sorted U - A)."""
    exact = [Fraction(float(v)) for v in universe]
    found = set()
    for j in range(1, min(k, len(exact) - size) + 1):
        for chosen in itertools.combinations(range(len(exact)), j):
            away = [exact[i] for i in chosen]
            rest = [v for i, v in enumerate(exact) if i not in chosen]
            core = size - j
            for p in range(size + 1):
                y = rest[:p] + rest[len(rest) - (size - p):]
                starts = list(range(p - core + 1)) if p >= core else []
                if p <= j:
                    starts += range(len(rest) - (size - p), len(rest) - core + 1)
                for s in starts:
                    found.add((tuple(sorted(away + rest[s:s + core])), tuple(y)))
    return found


@settings(max_examples=250, deadline=None)
@given(case=cases(st.one_of(whole_values, float_values), max_size=8))
def test_candidates_hold_every_maximiser_with_unequal_sums(case) -> None:
    universe, size, k = case
    pairs = _all_pairs(universe, size, k)
    top = max(pairs.values())
    found = _candidates(universe, size, k)
    assert found <= set(pairs), "every candidate must be a bounded pair"
    if found:
        assert max(pairs[c] for c in found) == top
    for (x, y), gap in pairs.items():
        if gap == top and sum(x) != sum(y):
            assert (x, y) in found


@pytest.mark.parametrize("relation", ["bounded", "unbounded"])
def test_the_blog_universes_are_answered_by_the_candidates(relation: str) -> None:
    """The certified path (not the fallback) answers every global var cell of the blog's figures, both relations."""
    candidates = {"bounded": global_spread.bounded_global_var, "unbounded": global_spread.unbounded_global_var}
    answered = 0
    for figure in BLOG_FIGURES:
        if figure.local or figure.relation != relation:
            continue
        for column in figure.universe().values():
            universe = np.sort(np.asarray(column, dtype=float))
            for k in figure.ks:
                value = candidates[relation](universe, figure.size, k, VAR)
                assert value is not None
                assert value == dpteach.global_sensitivity(universe, figure.size, "var", k=k, relation=relation,
                                                           method="enumerate")
                answered += 1
    assert answered == 14


def test_fast_uses_the_candidates_where_they_pay() -> None:
    """The default path calls the candidates on a larger case (and then agrees with enumeration)."""
    universe = np.arange(-4.0, 8.0)
    calls = []

    def spy(*args):
        calls.append(args)
        return global_spread.bounded_global_var(*args)

    with pytest.MonkeyPatch.context() as monkey:
        monkey.setattr(sens, "bounded_global_var", spy)
        fast = dpteach.global_sensitivity(universe, 7, "var", k=2, relation="bounded")
    assert len(calls) == 1
    assert fast == enumerated(universe, 7, 2)


def test_fractions_and_a_full_universe_are_left_to_enumeration() -> None:
    assert global_spread.bounded_global_var(np.array([0.5, 1.0, 2.0, 4.0]), 2, 1, VAR) is None
    assert global_spread.bounded_global_var(np.array([1.0, 2.0, 3.0]), 3, 2, VAR) is None


@pytest.mark.parametrize("patch", ["error", "budget"])
def test_uncertified_calls_fall_back_to_enumeration(patch: str) -> None:
    universe = np.array([-3.0, 0, 0, 1, 4, 4, 9, 12])
    with pytest.MonkeyPatch.context() as monkey:
        if patch == "error":
            monkey.setattr(global_spread, "numpy_error", lambda *args: Fraction(1))
        else:
            monkey.setattr(global_spread, "MAX_CANDIDATES", 5)
        assert global_spread.bounded_global_var(universe, 5, 2, VAR) is None
        fast = dpteach.global_sensitivity(universe, 5, "var", k=2, relation="bounded")
    assert fast == enumerated(universe, 5, 2)


def test_tied_sums_enumerate_their_cores() -> None:
    """A maximising pair with equal sums (found by search): its cores are enumerated, and the answer is exact."""
    universe = np.array([-2.0, -1, 1, 2, 3, 5])
    pairs = _all_pairs(universe, 4, 3)
    top = max(pairs.values())
    assert any(sum(x) == sum(y) for (x, y), gap in pairs.items() if gap == top)
    assert global_spread.bounded_global_var(universe, 4, 3, VAR) == enumerated(universe, 4, 3)


@settings(max_examples=200, deadline=None)
@given(capacity=st.lists(st.integers(1, 4), min_size=1, max_size=6), top=st.integers(0, 5))
def test_small_submultisets_lists_each_set_once(capacity, top) -> None:
    capacity = np.array(capacity)
    built = global_spread._small_submultisets(capacity, top)
    for j, rows in enumerate(built):
        expected = sorted(map(tuple, submultisets(capacity, j).tolist()))
        assert sorted(map(tuple, rows.tolist())) == expected


# ------------------------------------------------------------------------------------------- unbounded
@st.composite
def unbounded_cases(draw, values=whole_values, max_size: int = 10):
    """(sorted universe, size, k) with 1 <= k < size and size + k <= |U|, the unbounded relation's range."""
    pool = draw(st.lists(values, min_size=1, max_size=6))
    universe = sorted(draw(st.lists(st.sampled_from(pool), min_size=3, max_size=max_size)))
    size = draw(st.integers(2, len(universe) - 1))
    k = draw(st.integers(1, min(size - 1, len(universe) - size)))
    return np.array(universe), size, k


def unbounded_enumerated(universe: np.ndarray, size: int, k: int) -> float:
    return dpteach.global_sensitivity(universe, size, "var", k=k, relation="unbounded", method="enumerate")


@settings(max_examples=1500, deadline=None)
@given(case=unbounded_cases())
def test_unbounded_candidates_equal_enumeration_on_whole_numbers(case) -> None:
    universe, size, k = case
    expected = unbounded_enumerated(universe, size, k)
    value = global_spread.unbounded_global_var(universe, size, k, VAR)
    assert value == expected  # small whole numbers: the certificate must hold (or every variance is 0)
    assert dpteach.global_sensitivity(universe, size, "var", k=k, relation="unbounded") == expected


def _tolerance(universe: np.ndarray, size: int, k: int, value: float) -> float:
    """How far the proved upper bound may exceed enumeration: 4E + 4uR (module docstring)."""
    numpy = global_spread.numpy_error("var", universe, size + k)
    return float(4 * numpy + 4 * Fraction(value) / 2**53)


@settings(max_examples=400, deadline=None)
@given(case=unbounded_cases(st.integers(-(10**6), 10**6).map(float), max_size=9), prune=st.booleans())
def test_unbounded_bound_on_wide_whole_numbers(case, prune: bool) -> None:
    """Wide ranges: certified (equal) or the proved upper bound within its tolerance; the pruned path (forced on
    these small universes) gives the same answer as the single table."""
    universe, size, k = case
    expected = unbounded_enumerated(universe, size, k)
    with pytest.MonkeyPatch.context() as monkey:
        if prune:
            monkey.setattr(global_spread, "SMALL_TABLE", 0)
        value = global_spread.unbounded_global_var(universe, size, k, VAR)
    assert expected <= value <= expected + _tolerance(universe, size, k, value)


@settings(max_examples=300, deadline=None)
@given(case=unbounded_cases(float_values))
def test_unbounded_fast_equals_enumeration_on_fractions(case) -> None:
    universe, size, k = case
    assert dpteach.global_sensitivity(universe, size, "var", k=k, relation="unbounded") == unbounded_enumerated(
        universe, size, k)


def _unbounded_pairs(universe: np.ndarray, size: int, k: int) -> dict[tuple, Fraction]:
    """Every unbounded pair (part P, dataset B = P + R, |R| = k) of both families, as sorted tuples, with its exact
    V(B) - V(P)."""
    exact = [Fraction(float(v)) for v in universe]
    pairs = {}
    for whole in (size, size + k):
        for b_positions in itertools.combinations(range(len(exact)), whole):
            for r_positions in itertools.combinations(b_positions, k):
                part = tuple(exact[i] for i in b_positions if i not in r_positions)
                dataset = tuple(exact[i] for i in b_positions)
                pairs[(part, dataset)] = _variance(dataset) - _variance(part)
    return pairs


def _unbounded_candidates(universe: np.ndarray, size: int, k: int) -> set[tuple]:
    """The candidates of the docstring's *Unbounded* section, written out from its text (positions in sorted U)."""
    exact = [Fraction(float(v)) for v in universe]
    total, found = len(exact), set()

    def pair(part: list[int], added: list[int]) -> tuple:
        return tuple(exact[i] for i in sorted(part)), tuple(exact[i] for i in sorted(part + added))

    for p in (size - k, size):
        for a in range(k + 1):  # side (a): R the a lowest and k - a highest, P a window or a split of the rest
            added = list(range(a)) + list(range(total - k + a, total))
            middle = [i for i in range(total) if i not in added]
            for s in range(len(middle) - p + 1):
                found.add(pair(middle[s:s + p], added))
            for c in range(p + 1):
                found.add(pair(middle[:c] + middle[len(middle) - (p - c):], added))
        z = total - p - k  # unused values
        for a1, a2 in itertools.product(range(k + 1), repeat=2):  # side (a)'s layouts R1 Z R2 P R3, R1 P R2 Z R3
            if a1 + a2 <= k:
                top = list(range(total - (k - a1 - a2), total))
                found.add(pair(list(range(a1 + z + a2, a1 + z + a2 + p)),
                               list(range(a1)) + list(range(a1 + z, a1 + z + a2)) + top))
                found.add(pair(list(range(a1, a1 + p)), list(range(a1)) + list(range(a1 + p, a1 + p + a2)) + top))
        if p >= 2:  # side (b): P the b lowest and p - b highest, R a window of the rest
            for b in range(p + 1):
                part = list(range(b)) + list(range(total - p + b, total))
                rest = [i for i in range(total) if i not in part]
                for s in range(len(rest) - k + 1):
                    found.add(pair(part, rest[s:s + k]))
            for p1, p2 in itertools.product(range(p + 1), repeat=2):  # layouts P1 Z P2 R P3, P1 R P2 Z P3
                if p1 + p2 <= p:
                    start = p1 + z + p2
                    found.add(pair(list(range(p1)) + list(range(p1 + z, start)) + list(range(start + k, total)),
                                   list(range(start, start + k))))
                    start = p1 + k + p2
                    found.add(pair(list(range(p1)) + list(range(p1 + k, start)) + list(range(start + z, total)),
                                   list(range(p1, p1 + k))))
    return found


@settings(max_examples=600, deadline=None)
@given(case=unbounded_cases(st.one_of(whole_values, float_values), max_size=8))
def test_unbounded_candidates_hold_every_maximiser(case) -> None:
    """The docstring's claim in exact arithmetic, per family and side: every pair attaining the largest
    V(B) - V(P), and every pair attaining the largest V(P) - V(B) when that is positive, is a candidate."""
    universe, size, k = case
    pairs = _unbounded_pairs(universe, size, k)
    found = _unbounded_candidates(universe, size, k)
    assert found <= set(pairs), "every candidate must be an unbounded pair"
    for part_size, side in itertools.product((size - k, size), (1, -1)):
        family = {pair: side * gap for pair, gap in pairs.items() if len(pair[0]) == part_size}
        top = max(family.values())
        if top > 0:
            assert {pair for pair, gap in family.items() if gap == top} <= found


def test_unbounded_shapes_match_their_count() -> None:
    for total, size, k in [(10, 6, 4), (12, 7, 2), (5, 3, 2), (40, 20, 10)]:
        listed = global_spread._every_candidate(total, size, k).side.size
        assert listed == global_spread.unbounded_count(total, size, k)


def test_uncertified_unbounded_calls_return_the_bound() -> None:
    """With numpy's error bound forced up to 1 the certificate fails and the answer is fl((T + 2E)(1 + u))."""
    universe = np.array([-3.0, 0, 0, 1, 4, 4, 9, 12])
    with pytest.MonkeyPatch.context() as monkey:
        monkey.setattr(global_spread, "numpy_error", lambda *args: Fraction(1))
        value = global_spread.unbounded_global_var(universe, 5, 2, VAR)
    expected = unbounded_enumerated(universe, 5, 2)
    assert expected + 1.9 < value < expected + 2.1


@pytest.mark.parametrize(("limit", "value"), [("UNBOUNDED_CANDIDATES", 5), ("MAX_SHORTLIST", 0)])
def test_unbounded_work_above_its_limits_falls_back_to_enumeration(limit: str, value: int) -> None:
    universe = np.array([-3.0, 0, 0, 1, 4, 4, 9, 12])
    with pytest.MonkeyPatch.context() as monkey:
        monkey.setattr(global_spread, "SMALL_TABLE", 0)
        monkey.setattr(global_spread, limit, value)
        assert global_spread.unbounded_global_var(universe, 5, 2, VAR) is None
        fast = dpteach.global_sensitivity(universe, 5, "var", k=2, relation="unbounded")
    assert fast == unbounded_enumerated(universe, 5, 2)


def test_unbounded_at_scale_answers_and_prunes() -> None:
    """|U| = 4,000, n = 300: the bound is answered (enumeration could not), side (b)'s ends-and-window candidates
    are pruned to a few b, and the value is at least the gap of one explicit pair (a split P of U and the window R
    at the middle of the rest)."""
    rng = np.random.default_rng(5)
    universe = np.sort(rng.integers(0, 1_000_000, size=4_000).astype(float))
    size, k = 300, 10
    kept = []
    original = global_spread._side_b

    def spy(total, part, k, lows):
        kept.append(lows.size)
        return original(total, part, k, lows)

    with pytest.MonkeyPatch.context() as monkey:
        monkey.setattr(global_spread, "_side_b", spy)
        value = global_spread.unbounded_global_var(universe, size, k, VAR)
    assert value is not None and np.isfinite(value)
    assert len(kept) == 4 and sum(kept) < (size + 1) / 10  # per family: the best b first, then the survivors
    part = np.concatenate([universe[: size // 2], universe[-(size // 2):]])
    middle = universe[size // 2: -(size // 2)]
    window = middle[middle.size // 2 - k // 2: middle.size // 2 + k - k // 2]
    assert value >= np.var(part) - np.var(np.concatenate([part, window])) - 1e-6 * value


# ------------------------------------------------------------------------------------------- symmetric
def _symmetric_families(total: int, size: int, k: int) -> list[tuple[int, int, int]]:
    """Every (c, p, q) of a symmetric pair read as high H = C + P, low L = C + M (|C| = c >= 0, p + q <= k,
    one of H, L the release of ``size`` records, neither empty, C + P + M inside U); H of one record has V(H) = 0,
    never a gain."""
    return [(c, p, q) for c in range(size + 1) for p in range(k + 1) for q in range(k + 1 - p)
            if size in (c + p, c + q) and c + p + q <= total and c + p >= 2 and c + q >= 1]


def _triples(universe: np.ndarray, c: int, p: int, q: int) -> dict[tuple, Fraction]:
    """Every (C, P, M, Z) of one family as sorted tuples, with its exact gap V(C + P) - V(C + M)."""
    exact = [Fraction(float(v)) for v in universe]
    found = {}
    for chosen in itertools.combinations(range(len(exact)), c + p + q):
        rest = [v for i, v in enumerate(exact) if i not in chosen]
        for core in itertools.combinations(chosen, c):
            left = [i for i in chosen if i not in core]
            for high in itertools.combinations(left, p):
                parts = [tuple(exact[i] for i in part) for part in
                         (core, high, [i for i in left if i not in high])] + [tuple(rest)]
                found[tuple(parts)] = _variance(parts[0] + parts[1]) - _variance(parts[0] + parts[2])
    return found


def _inside(chosen: tuple, other: tuple) -> bool:
    """Whether some record of ``chosen`` lies strictly between the least and largest of ``other``."""
    return bool(other) and any(min(other) < v < max(other) for v in chosen)


@settings(max_examples=300, deadline=None)
@given(case=cases(st.one_of(whole_values, float_values), max_size=7))
def test_symmetric_family_maximisers_meet_the_exchange_facts(case) -> None:
    """The five conditions of dpteach.global_spread's *Symmetric* section, on every maximiser of every family:
    P a split of P + Z, M a window of M + Z, C a split of C + M and a window of C + P, and C against Z by the sign
    of p - q (window or split, split, lowest or highest when the sums of P and M differ)."""
    universe, size, _ = case
    k = len(universe) - 1  # the widest symmetric distance holds every family
    for c, p, q in _symmetric_families(len(universe), size, k):
        triples = _triples(universe, c, p, q)
        top = max(triples.values())
        if top <= 0:
            continue
        for (core, high, low, unused), gap in triples.items():
            if gap != top:
                continue
            assert not _inside(high, unused) and not _inside(unused, low) and not _inside(core, low)
            assert not _inside(high, core)
            if p > q:
                assert not _inside(unused, core) or not _inside(core, unused)
            elif p < q:
                assert not _inside(core, unused)
            elif sum(high) != sum(low) and unused and core:
                assert max(core) <= min(unused) or min(core) >= max(unused)


def test_symmetric_maximum_can_need_a_mixed_family() -> None:
    """Found by search: the symmetric maximum is attained only by removing three records and adding one, so it is not
    the largest of the bounded and unbounded families the other two relations use."""
    universe, size, k = np.array([-9.0, -5, -4, -3, 3, 9]), 4, 5
    best = {family: max(_triples(universe, *family).values()) for family in _symmetric_families(6, size, k)}
    top = max(best.values())
    assert [family for family, gap in best.items() if gap == top] == [(1, 1, 3)]
    enumerated_value = dpteach.global_sensitivity(universe, size, "var", k=k, relation="symmetric", method="enumerate")
    assert enumerated_value == float(top)


@pytest.mark.parametrize(("universe", "size", "k"), [
    ([0, 0, 0, 1, -1, -1, 2, 3], 5, 3),  # R = {0, 2, 3} is a split of R + Z but not the ends of U: layout R1 Z R2 P R3
    ([-9, 5, 5, 10, 10, 12, 12], 5, 2),  # P = {10, 12, 12}, R = {-9, 10}: the same layout with repeated values
])
def test_unbounded_layout_cases_found_by_review(universe, size, k) -> None:
    """Two cases the first version (ends and windows only) got wrong; the layouts hold their maximisers."""
    data = np.sort(np.array(universe, dtype=float))
    expected = unbounded_enumerated(data, size, k)
    assert global_spread.unbounded_global_var(data, size, k, VAR) == expected
    pairs = _unbounded_pairs(data, size, k)
    top = max(pairs.values())
    assert {pair for pair, gap in pairs.items() if gap == top} <= _unbounded_candidates(data, size, k)


def test_unbounded_side_b_maximiser_only_a_layout_holds() -> None:
    """Found by an exhaustive search over six whole numbers: in the family (|P|, |B|) = (3, 5) the largest
    V(P) - V(B) is attained only by P = {0, 13, 13}, R = {1, 1} (layout P1 R P2 Z P3, Z = {14}) and its mirror
    P = {1, 1, 14}, R = {13, 13}; no P made of the b lowest and 3 - b highest values with R a window of the rest
    reaches it (their best is 204/225, the layouts' 206/225)."""
    data = np.array([0.0, 1, 1, 13, 13, 14])
    size, k, part_size = 3, 2, 3
    family = {pair: -gap for pair, gap in _unbounded_pairs(data, size, k).items() if len(pair[0]) == part_size}
    top = max(family.values())
    winners = {pair for pair, gap in family.items() if gap == top}
    exact = [Fraction(int(v)) for v in data]
    standard = set()
    for b in range(part_size + 1):  # side (b) without its layouts, from the docstring's text
        part = exact[:b] + exact[len(exact) - part_size + b:]
        rest = exact[b:len(exact) - part_size + b]
        standard |= {(tuple(part), tuple(sorted(part + rest[s:s + k]))) for s in range(len(rest) - k + 1)}
    assert top == Fraction(206, 225)
    assert max(family[pair] for pair in standard) == Fraction(204, 225)
    assert winners == {((0, 13, 13), (0, 1, 1, 13, 13)), ((1, 1, 14), (1, 1, 13, 13, 14))}
    assert not winners & standard
    assert winners <= _unbounded_candidates(data, size, k)
