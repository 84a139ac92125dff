"""The exercises of lesson 02 (global sensitivity): the right answers and the mistakes each one must catch."""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Sequence
from functools import partial

import numpy as np

from dpteach.datasets import large_universe, small_universe
from dpteach.exercises.core import (
    Choice,
    Exercise,
    Function,
    Mistake,
    Number,
    Scale,
    register,
)
from dpteach.queries import evaluate
from dpteach.sensitivity import global_sensitivity, replicate

Query = Callable[[tuple], float]


def absence_days() -> np.ndarray:
    return large_universe()["absence_days"].to_numpy()


def school_years() -> np.ndarray:
    return large_universe()["school_year"].to_numpy()


# --- Exercise 3: bounded_global(f, universe, n) from scratch ----------------------------------------------------

BOUNDED_QUERIES = ("median", "mean", "sum", "var")
SMALL_UNIVERSES: tuple[tuple[tuple[float, ...], int], ...] = (
    ((0, 0, 0, 5), 2),          # duplicates: the dataset (0, 0) exists, and 5 may replace a 0
    ((1, 1, 4, 4, 9), 3),
    ((0, 0, 5, 5), 3),          # the only pair refills, both ways, with a value the dataset already holds
    ((2, 7, 7), 2),             # the smallest: three datasets, one record replaced
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


def _largest_change(f: Query, datasets: list[tuple], neighbours: Callable[[tuple], list[tuple]]) -> float:
    return max((abs(f(x) - f(y)) for x in datasets for y in neighbours(x)), default=0.0)


def _notebook_local(f: Query, x: tuple, neighbours: list[tuple]) -> float:
    """The notebook's ``local``: ``max`` over the neighbours, so it raises ValueError when there are none."""
    return max(abs(f(x) - f(y)) for y in neighbours)


def mistake_refill_from_values_not_in_x(f: Query, universe: Sequence[float], n: int) -> float:
    """Refills only with values that x does not hold at all (a set difference, not a multiset one)."""
    datasets = list(itertools.combinations(universe, n))
    return _largest_change(f, datasets, lambda x: _replace_one(
        x, universe, lambda x, kept: [v for v in universe if v not in x]))


def mistake_refill_from_values_not_in_x_with_notebook_local(f: Query, universe: Sequence[float], n: int) -> float:
    """The same slip written with the notebook's ``local``: a dataset holding every distinct value has no
    neighbour, so it raises ValueError on every case (the check recognises the raise)."""
    return max(_notebook_local(f, x, _replace_one(x, universe, lambda x, kept: [v for v in universe if v not in x]))
               for x in itertools.combinations(universe, n))


def mistake_refill_from_set_of_universe(f: Query, universe: Sequence[float], n: int) -> float:
    """Refills with every distinct value of ``set(universe)``, however many copies the kept records already use, so
    it builds multisets the universe does not hold (a 5 added to (5,) when the universe has one 5)."""
    datasets = list(itertools.combinations(universe, n))
    return _largest_change(f, datasets, lambda x: _replace_one(x, universe, lambda x, kept: sorted(set(universe))))


def mistake_distinct_values_only(f: Query, universe: Sequence[float], n: int) -> float:
    """Enumerates datasets of distinct values only, so datasets that repeat a value are never tried."""
    values = sorted(set(universe))
    datasets = list(itertools.combinations(values, n))
    return _largest_change(f, datasets, lambda x: _replace_one(
        x, universe, lambda x, kept: sorted((Counter(universe) - Counter(kept)).elements())))


SMALL_UNIVERSE_SIZE = 3  # the notebook's n for the small universe


def _notebook_replacements(x: tuple, universe: Sequence[float]) -> list[tuple]:
    """The notebook's ``replacements``: remove one record, refill from what the universe holds beyond the rest."""
    return [kept + (v,) for kept in itertools.combinations(x, len(x) - 1)
            for v in sorted((Counter(universe) - Counter(kept)).elements()) if sorted(kept + (v,)) != sorted(x)]


def mistake_reuses_global_by_hand(f: Query, universe: Sequence[float], n: int) -> float:
    """``global_by_hand(f, lambda x: replacements(x, universe), datasets)``: Step 1's ``datasets`` are the small
    universe's datasets of three, whatever ``universe`` and ``n`` it is asked about."""
    small = tuple(float(v) for v in small_universe()["absence_days"])
    return max(_notebook_local(f, x, _notebook_replacements(x, universe))
               for x in itertools.combinations(small, SMALL_UNIVERSE_SIZE))


def mistake_reuses_replace_one(f: Query, universe: Sequence[float], n: int) -> float:
    """``max(local(f, x, replace_one(x)) for x in combinations(universe, n))``: the notebook's ``replace_one``
    refills from the small universe ``U``, whatever ``universe`` the datasets come from."""
    small = tuple(float(v) for v in small_universe()["absence_days"])
    return max(_notebook_local(f, x, _notebook_replacements(x, small)) for x in itertools.combinations(universe, n))


def mistake_add_or_remove(f: Query, universe: Sequence[float], n: int) -> float:
    """Uses add/remove neighbours (one record removed, or one added) instead of replacements."""
    def add_or_remove(x: tuple) -> list[tuple]:
        left = sorted((Counter(universe) - Counter(x)).elements())
        removed = [x[:i] + x[i + 1:] for i in range(len(x))] if len(x) > 1 else []
        return removed + [x + (v,) for v in left]
    return _largest_change(f, list(itertools.combinations(universe, n)), add_or_remove)


REFILL_HINT = ("a refill may use any value the universe still holds after removing one record, even one x already "
               "holds (a multiset difference, not `v not in x`)")


# --- Exercise 2: the clamped sum on a domain [L, H] ---------------------------------------------------------------

DOMAIN_LOW, DOMAIN_HIGH, DOMAIN_SIZE = -5, 3, 4  # integer records in [-5, 3], datasets of four


def clamped_sum_sensitivity(relation: str) -> float:
    """The sum's global sensitivity on the integer grid of [L, H], by enumeration over a universe holding n + 1
    copies of each value (enough for one addition): H - L under replace-one, max(|L|, |H|) under add/remove."""
    grid = replicate(range(DOMAIN_LOW, DOMAIN_HIGH + 1), DOMAIN_SIZE + 1)
    return global_sensitivity(grid, DOMAIN_SIZE, "sum", relation=relation)


# --- Exercise 1: the median's Laplace scale, size secret ----------------------------------------------------------

MEDIAN_EPSILON = 0.5


def median_sensitivity(size: int) -> float:
    """The add/remove sensitivity of the median of the school years over the datasets of ``size`` records."""
    return global_sensitivity(school_years(), size, "median", relation="symmetric")


def secret_size_median_sensitivity(column: np.ndarray | None = None) -> float:
    """The add/remove sensitivity of the median of ``column`` (the school years unless given), largest over every
    non-empty size 1..|U|: what a secret size needs (4 for the school years, from {1} to {1, 9})."""
    values = school_years() if column is None else column
    return max(global_sensitivity(values, size, "median", relation="symmetric") for size in range(1, values.size + 1))


WRONG_COLUMN_HINT = "that is absence_days (`days`); use the school years, `years`"


# --- Exercise 5: a family of four ----------------------------------------------------------------------------------

FAMILY_SIZE, DATASET_SIZE = 4, 6
FAMILY_EPSILON = 0.5


def family_sensitivity(relation: str, k: int = FAMILY_SIZE, column: np.ndarray | None = None) -> float:
    """The global sensitivity of the variance of ``column`` (the school years unless given), datasets of six, at
    distance k."""
    values = school_years() if column is None else column
    return global_sensitivity(values, DATASET_SIZE, "var", k=k, relation=relation)


def family_sensitivity_every_size(k: int = FAMILY_SIZE) -> float:
    """The group sensitivity of the variance at distance k, largest over every dataset size 1..|U|: what a
    secret size needs, where the exercise makes the size public."""
    years = school_years()
    return max(global_sensitivity(years, size, "var", k=k, relation="symmetric") for size in range(1, years.size + 1))


register(
    Exercise(
        "02.1", "the Laplace scale of a median, size secret",
        (Scale(lambda: secret_size_median_sensitivity() / MEDIAN_EPSILON),),
        (Mistake(median_sensitivity(6) / MEDIAN_EPSILON,
                 "that scale uses the sensitivity at n = 6 alone; the size is secret, so the noise needs the "
                 "largest value over every non-empty size"),
         Mistake(median_sensitivity(5) / MEDIAN_EPSILON,
                 "that scale uses the sensitivity at n = 5 alone; the size is secret, so the noise needs the "
                 "largest value over every non-empty size"),
         Mistake(secret_size_median_sensitivity(),
                 "that is the sensitivity; the Laplace scale is the sensitivity divided by ε"),
         Mistake(secret_size_median_sensitivity() * MEDIAN_EPSILON,
                 "the scale divides the sensitivity by ε = 0.5, it does not multiply it"),
         Mistake(secret_size_median_sensitivity(absence_days()) / MEDIAN_EPSILON, WRONG_COLUMN_HINT)),
    ),
    Exercise(
        "02.2", "the clamped sum on a domain",
        (Number(lambda: clamped_sum_sensitivity("symmetric")), Number(lambda: clamped_sum_sensitivity("bounded"))),
        (Mistake((8, 8), "an addition or a removal moves the sum by one record's value, not by the width of the "
                         "domain"),
         Mistake((3, 8), "the record added or removed may be the most negative value, not only the largest"),
         Mistake((5, 5), "a replacement can move one record from one end of the domain to the other"),
         Mistake((3, 3), "look at both ends of the domain, and at what a replacement does"),
         Mistake((8, 5), "the order is add/remove, then replace-one"),
         Mistake((-5, 8), "a sensitivity is a distance: take |−5|")),
    ),
    Exercise(
        "02.3", "bounded_global from scratch",
        (Function(bounded_global_cases, bounded_global_truth, show=show_bounded_case),),
        (Mistake(mistake_refill_from_values_not_in_x, REFILL_HINT),
         # the same slip as a student writes it with the notebook's `local`: one hint for both
         Mistake(mistake_refill_from_values_not_in_x_with_notebook_local, REFILL_HINT),
         Mistake(mistake_refill_from_set_of_universe,
                 "your refills use copies the universe does not hold once the kept records are taken out (a value "
                 "it holds once can appear twice): refill from what it holds beyond the kept records, "
                 "`replacements(x, universe)`"),
         Mistake(mistake_distinct_values_only,
                 "datasets may repeat a value the universe holds twice: enumerate datasets of the universe's "
                 "records, not of its distinct values"),
         Mistake(mistake_reuses_global_by_hand,
                 "Step 1's `datasets` are the small universe's (n = 3), whatever universe and n you ask about: "
                 "enumerate the datasets of n records of `universe` yourself"),
         Mistake(mistake_reuses_replace_one,
                 "Step 3's `replace_one` refills from the small universe `U`; the refills must come from "
                 "`universe`: pass it to `replacements`"),
         Mistake(mistake_add_or_remove,
                 "replace-one neighbours swap one record; adding or removing one is the add/remove relation")),
    ),
    Exercise(
        "02.4", "a clipping bound read off the data",
        (Choice(("a", "b", "c", "d"), "b"),),
        (Mistake("a", "the noise is right for that c, but c came from the data: would a neighbour get the same c?"),
         Mistake("c", "clipping is a fixed rule applied to each record, which DP allows; look at how c was chosen"),
         Mistake("d", "the adversary sees the noisy mean, whose spread depends on c whether or not c is "
                      "printed")),
    ),
    Exercise(
        "02.5", "the noise for a family of four, n public",
        # one decimal: a scale is a sensitivity over ε = 0.5, so a sensitivity rounded to two decimals (10.00,
        # or 4 × 5.33) moves it by up to 0.01 × 2 × 4, and the student's rounded work must still be recognised
        (Scale(lambda: family_sensitivity("bounded") / FAMILY_EPSILON, decimals=1),),
        (Mistake(family_sensitivity("symmetric") / FAMILY_EPSILON,
                 "safe here, but not the smallest: that is an add/remove value at distance 4 (any mix of four "
                 "changes, or the blog's exactly-k value, equal here). With n public the family's change is four "
                 "replacements (relation=\"bounded\"), whose exact value is smaller"),
         Mistake(family_sensitivity("bounded", k=1) / FAMILY_EPSILON,
                 "that protects one student; the family has four"),
         Mistake(FAMILY_SIZE * family_sensitivity("bounded", k=1) / FAMILY_EPSILON,
                 "4 × the one-student sensitivity is valid under replace-one but loose: the sensitivity at "
                 "distance 4 itself is smaller"),
         Mistake(family_sensitivity_every_size() / FAMILY_EPSILON,
                 "safe here, but not the smallest: that is the add/remove value over every dataset size, what a "
                 "secret size needs. With n public the family's change is four replacements "
                 "(relation=\"bounded\"), whose exact value is smaller"),
         Mistake(family_sensitivity("bounded"), "that is the sensitivity; the scale divides it by ε"),
         Mistake(family_sensitivity("bounded", column=absence_days()) / FAMILY_EPSILON, WRONG_COLUMN_HINT)),
    ),
)
