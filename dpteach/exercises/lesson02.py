"""The exercises of notebook 02 (global sensitivity): the right answers and the mistakes each one must catch."""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Sequence
from functools import partial

import numpy as np

from dpteach.datasets import large_universe
from dpteach.exercises.core import (
    Choice,
    Example,
    Exercise,
    Function,
    Language,
    Mistake,
    Number,
    read_sub_multiset,
    register,
)
from dpteach.queries import evaluate
from dpteach.sensitivity import global_sensitivity

Query = Callable[[tuple], float]


def absence_days() -> np.ndarray:
    return large_universe()["absence_days"].to_numpy()


def school_years() -> np.ndarray:
    return large_universe()["school_year"].to_numpy()


# --- Exercise 3: bounded_global(f, universe, n) from scratch ----------------------------------------------------

BOUNDED_QUERIES = ("median", "mean", "sum", "var")
SMALL_UNIVERSES: tuple[tuple[tuple[float, ...], int], ...] = (
    ((0, 0, 0, 5), 2),          # duplicates: the release (0, 0) exists, and 5 may replace a 0
    ((1, 1, 4, 4, 9), 3),
    ((0, 0, 5, 5), 3),          # the only pair refills, both ways, with a value the release already holds
    ((2, 7, 7), 2),             # the smallest: three releases, one record replaced
)


def bounded_global_cases() -> list[tuple[Query, tuple[float, ...], int]]:
    """The school years (duplicates), then small adversarial multisets, for several queries."""
    years = tuple(float(v) for v in school_years())
    universes = [(years, 6), *SMALL_UNIVERSES]
    return [(partial(evaluate, q), tuple(map(float, u)), n) for u, n in universes for q in BOUNDED_QUERIES]


def show_bounded_case(case: tuple) -> str:
    f, universe, n = case
    return f"f = the {f.args[0]}, universe = {tuple(int(v) for v in universe)}, n = {n}"


def bounded_global_truth(f: Query, universe: Sequence[float], n: int) -> float:
    return global_sensitivity(universe, n, f.args[0], relation="bounded")  # type: ignore[attr-defined]


def _replace_one(x: tuple, universe: Sequence[float], refill: Callable[[tuple, tuple], list]) -> list[tuple]:
    return [kept + (v,) for i in range(len(x)) for kept in [x[:i] + x[i + 1:]] for v in refill(x, kept)]


def _largest_change(f: Query, releases: list[tuple], neighbours: Callable[[tuple], list[tuple]]) -> float:
    return max((abs(f(x) - f(y)) for x in releases for y in neighbours(x)), default=0.0)


def mistake_refill_from_values_not_in_x(f: Query, universe: Sequence[float], n: int) -> float:
    """Refills only with values that x does not hold at all (a set difference, not a multiset one)."""
    releases = list(itertools.combinations(universe, n))
    return _largest_change(f, releases, lambda x: _replace_one(
        x, universe, lambda x, kept: [v for v in universe if v not in x]))


def mistake_distinct_values_only(f: Query, universe: Sequence[float], n: int) -> float:
    """Enumerates releases of distinct values only, so releases that repeat a value are never tried."""
    values = sorted(set(universe))
    releases = list(itertools.combinations(values, n))
    return _largest_change(f, releases, lambda x: _replace_one(
        x, universe, lambda x, kept: sorted((Counter(universe) - Counter(kept)).elements())))


def mistake_add_or_remove(f: Query, universe: Sequence[float], n: int) -> float:
    """Uses add/remove neighbours (one record removed, or one added) instead of replacements."""
    def add_or_remove(x: tuple) -> list[tuple]:
        left = sorted((Counter(universe) - Counter(x)).elements())
        removed = [x[:i] + x[i + 1:] for i in range(len(x))] if len(x) > 1 else []
        return removed + [x + (v,) for v in left]
    return _largest_change(f, list(itertools.combinations(universe, n)), add_or_remove)


# --- Exercise 4: beat the blog's number with a dataset -----------------------------------------------------------

RELEASE = (1, 2, 3, 4, 5, 6)
BLOG_EXAMPLE = (1, 2, 3, 20)
GROUP = 4


def read_days_dataset(answer: object, language: Language) -> tuple[float, ...]:
    """A dataset of absence-day values that the universe holds (with multiplicity), sorted."""
    return read_sub_multiset(answer, "y_mine", absence_days(), language)


def group_distance(x: Sequence[float], y: Sequence[float]) -> int:
    """Records removed plus records added to turn the multiset x into y."""
    cx, cy = Counter(map(float, x)), Counter(map(float, y))
    return sum((cx - cy).values()) + sum((cy - cx).values())


def beats_the_blog(y: object, language: Language) -> str | None:
    y = tuple(y)  # type: ignore[arg-type]
    if y == tuple(map(float, BLOG_EXAMPLE)):
        return "that is the blog's own example (1, 2, 3, 20): find another one"
    distance = group_distance(RELEASE, y)
    if distance > GROUP:
        return f"turning x into your y takes {distance} removals and additions; a group of four makes at most 4"
    blog = global_sensitivity(absence_days(), len(RELEASE), "var", k=GROUP, relation="unbounded")
    if abs(np.var(y) - np.var(RELEASE)) <= blog:
        return f"your y is in reach, but its variance does not move by more than the blog's {blog:.2f}"
    return None


FAMILY_EPSILON = 0.5
COPIES_N, COPIES_K = 4, 2  # exercise 6: releases of four, group distance two


def family_sensitivity(relation: str, k: int = GROUP) -> float:
    """The global sensitivity of the variance of absence days, releases of six, at distance k."""
    return global_sensitivity(absence_days(), len(RELEASE), "var", k=k, relation=relation)


register(
    Exercise(
        "02.1", "count at k = 3, unbounded and bounded",
        (Number(lambda: global_sensitivity(absence_days(), 6, "count", k=3, relation="unbounded")),
         Number(lambda: global_sensitivity(absence_days(), 6, "count", k=3, relation="bounded"))),
        (Mistake((1, 0), "1 is the count's sensitivity for one record; here three records change"),
         Mistake((3, 3), "bounded neighbours replace records: the size, and so the count, never changes"),
         Mistake((3, 1), "bounded neighbours replace records: the size, and so the count, never changes")),
    ),
    Exercise(
        "02.2", "the Laplace scale of a sum",
        (Number(lambda: global_sensitivity(absence_days(), 6, "sum", relation="unbounded") / 0.5),),
        (Mistake(20, "20 is the sensitivity; the Laplace scale is the sensitivity divided by ε"),
         Mistake(10, "the scale divides the sensitivity by ε = 0.5, it does not multiply it"),
         Mistake(38, "that is the bounded scale (20 − 1)/0.5; under unbounded DP a record is added or removed")),
    ),
    Exercise(
        "02.3", "bounded_global from scratch",
        (Function(bounded_global_cases, bounded_global_truth, show=show_bounded_case),),
        (Mistake(mistake_refill_from_values_not_in_x,
                 "a refill may use any value the universe still holds after removing one record, even one x "
                 "already holds (a multiset difference, not `v not in x`)"),
         Mistake(mistake_distinct_values_only,
                 "releases may repeat a value the universe holds twice: enumerate releases of the universe's "
                 "records, not of its distinct values"),
         Mistake(mistake_add_or_remove,
                 "bounded neighbours replace one record; adding or removing one is the unbounded relation")),
    ),
    Exercise(
        "02.4", "a dataset that beats the blog's number",
        (Example(read_days_dataset, beats_the_blog),),
        (Mistake(BLOG_EXAMPLE, "that is the blog's own example"),
         Mistake((1, 20), "too far: a group of four cannot remove five records and add one"),
         Mistake((1, 2, 3, 4, 5, 20), "in reach, but the variance moves by less than 55.78")),
    ),
    Exercise(
        "02.5", "the noise for a family of four",
        (Number(lambda: family_sensitivity("symmetric") / FAMILY_EPSILON),),
        (Mistake(family_sensitivity("unbounded") / FAMILY_EPSILON,
                 "that uses the blog's exactly-k value: a family of four can also remove some records and add "
                 "others, so use the group distance (relation=\"symmetric\")"),
         Mistake(family_sensitivity("symmetric", k=1) / FAMILY_EPSILON,
                 "that protects one student; the family has four"),
         Mistake(GROUP * family_sensitivity("symmetric", k=1) / FAMILY_EPSILON,
                 "that is 4 × the one-student sensitivity of releases of six, over ε: a family's changes pass through "
                 "smaller datasets, so this is not the sensitivity at group distance 4 (here it is merely larger)"),
         Mistake(family_sensitivity("symmetric"), "that is the sensitivity; the scale divides it by ε")),
    ),
    Exercise(
        "02.6", "copies in the universe under add/remove",
        (Number(lambda: COPIES_N + COPIES_K),),
        (Mistake(4, "4 copies give every release, but a neighbour may add two more of the same value"),
         Mistake(2, "a release alone may repeat one value four times"),
         Mistake(8, "a neighbour adds at most k = 2 records to a release of 4")),
    ),
    Exercise(
        "02.7", "can the group curve fall?",
        (Choice(("a", "b", "c", "d"), "b"),),
        (Mistake("a", "compare the sets: every dataset within distance k is also within distance k + 1"),
         Mistake("c", "the variance is not monotone (adding a middle value lowers it); the reason lies in the sets"),
         Mistake("d", "the argument about the sets holds for every query")),
    ),
)
