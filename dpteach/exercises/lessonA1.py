"""The exercises of notebook A1 (exact sensitivity at scale): the right answers and the mistakes each one must catch."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from dpteach.exact import local_candidates, spare
from dpteach.exercises.core import (
    Example,
    Exercise,
    Function,
    Invalid,
    Language,
    Mistake,
    Number,
    describe,
    read_values,
    register,
)
from dpteach.queries import as_dataset
from dpteach.sensitivity import global_sensitivity, local_sensitivity

UNIVERSE = (1, 2, 3, 10, 11)  # the universe of Steps 1 to 3
SEED = 606  # the check's own cases, whatever the notebook's generator has drawn


def _whole(values: Sequence[float]) -> str:
    """A dataset for a message: whole numbers without the trailing .0."""
    return "(" + ", ".join(f"{v:g}" for v in values) + ")"


def show_local_case(case: tuple) -> str:
    x, others, k = case
    return f"x = {_whole(x)}, spare = {_whole(others)}, k = {k}"


def _case(x: Sequence[float], others: Sequence[float], k: int, seed: int) -> tuple[np.ndarray, np.ndarray, int]:
    """The case as the student's function receives it: both arrays shuffled (by a generator of the check's own), so
    that a function which forgets to sort them is caught."""
    rng = np.random.default_rng([SEED, seed])
    return rng.permutation(np.asarray(x, dtype=float)), rng.permutation(np.asarray(others, dtype=float)), k


def _random_cases(size: int, low: int, high: int, n: int, top_k: int, count: int = 30) -> list[tuple]:
    """``count`` releases of ``n`` records from universes of ``size`` whole numbers in [low, high), with
    1 <= k <= top_k, drawn from a generator of the check's own (never the notebook's), each array shuffled."""
    rng = np.random.default_rng(SEED)
    cases = []
    for _ in range(count):
        universe = np.sort(rng.integers(low, high, size=size).astype(float))
        x = np.sort(rng.choice(universe, size=n, replace=False))
        k = int(rng.integers(1, top_k + 1))
        cases.append((rng.permutation(x), rng.permutation(spare(x, universe)), k))  # shuffled: see _case
    return cases


def _ls(x: np.ndarray, others: np.ndarray, k: int, query: str, relation: str) -> float:
    return local_sensitivity(x, np.concatenate([x, others]), query, k=k, relation=relation)


# --- Exercise 3: ls_sum_unbounded(x, spare, k) ------------------------------------------------------------------

SUM_CASES = (
    ((-9, -7, -7, -3), (-8, -5, -1), 1),      # every value negative: the smallest ones move the sum most
    ((-9, -7, -7, -3), (-8, -5, -1), 3),      # the same, the largest k: min(n - 1, |S|)
    ((0, 0, 5, 5), (-20, 5, 5), 2),           # duplicates; the spare -20 decides
    ((-4, 2), (1, 30), 1),                    # the smallest release; the spare 30 decides
    ((-30, 1, 2, 3), (0, 0, 4), 2),           # the release's own -30 decides
    ((-1, 50, 60), (-40, -40, 2), 2),         # two spare -40s against the release's 50 + 60
)


def sum_cases() -> list[tuple[np.ndarray, np.ndarray, int]]:
    """Small adversarial multisets (negative values, duplicates, extremes, smallest and largest k), then 30
    random releases of 5 records from 9 whole numbers in [-20, 20), k from 1 to 3; every array shuffled."""
    return [_case(*c, seed=i) for i, c in enumerate(SUM_CASES)] + _random_cases(9, -20, 20, 5, 3)


def sum_truth(x: np.ndarray, others: np.ndarray, k: int) -> float:
    return _ls(x, others, k, "sum", "unbounded")


def mistake_largest_only(x: np.ndarray, others: np.ndarray, k: int) -> float:
    """Forgets that values may be negative: only the k largest of x (removed) or of S (added)."""
    x, others = np.sort(x), np.sort(others)
    return float(max(x[-k:].sum(), others[-k:].sum()))


def mistake_removals_only(x: np.ndarray, others: np.ndarray, k: int) -> float:
    """Looks at x's values only: removes k records, never adds k spare ones."""
    x = np.sort(x)
    return float(max(x[-k:].sum(), -x[:k].sum()))


def mistake_additions_only(x: np.ndarray, others: np.ndarray, k: int) -> float:
    """Looks at the spare values only: adds k records, never removes k."""
    others = np.sort(others)
    return float(max(others[-k:].sum(), -others[:k].sum()))


def mistake_unsorted_sum(x: np.ndarray, others: np.ndarray, k: int) -> float:
    """The right formula on arrays it never sorts: x[-k:] is then any k records, not the k largest."""
    return float(max(x[-k:].sum(), -x[:k].sum(), others[-k:].sum(), -others[:k].sum()))


def mistake_k_times_largest(x: np.ndarray, others: np.ndarray, k: int) -> float:
    """k times the largest absolute value: a bound from the universe's range, not the release's neighbours."""
    return float(k * np.abs(np.concatenate([x, others])).max())


# --- Exercise 4: ls_mean_symmetric(x, spare, k) -----------------------------------------------------------------

MEAN_CASES = (
    ((-5, 0, 0, 7), (), 3),                   # no spare value; k = n - 1, the largest k here
    ((-5, 0, 0, 7), (), 1),                   # no spare value, the smallest k
    ((3,), (-4, 9), 1),                       # one record: removing it needs an addition too, so only additions
    ((3,), (-4, 9), 2),                       # one record, k = n + 1: swap the 3 for a spare value
    ((0, 0), (10, 10), 2),                    # k = n: r = n - 1 with one spare value
    ((0, 0), (10, 10), 3),                    # k = n + 1: remove both 0s, add a 10 (no record shared)
    ((-10, -10, 1, 2), (2, 3, 40), 2),        # duplicates; one addition beats two changes
    ((-10, -10, 1, 2), (2, 3, 40), 4),        # k = n; r = n - 1 removes both -10s and a 1
    ((-10, -10, 1, 2), (2, 3, 40), 7),        # k = |U|, the largest: r = n with the 40 alone
    ((1, 2, 3, 4, 5), (-1, 6), 1),
)


def mean_cases() -> list[tuple[np.ndarray, np.ndarray, int]]:
    """Small adversarial multisets (no spare value, one record, duplicates, negative values, the smallest k,
    k = n and k > n, where a neighbour may share no record with x), then 30 random releases of 4 records from 8
    whole numbers in [-10, 20), k from 1 to |U| = 8; every array shuffled.

    The third case is the first where removing every record is within reach: a mistake that evaluates the empty
    dataset raises there, and the message names that case, whose values are single digits (no truth shows)."""
    return [_case(*c, seed=i) for i, c in enumerate(MEAN_CASES)] + _random_cases(8, -10, 20, 4, 8)


def mean_truth(x: np.ndarray, others: np.ndarray, k: int) -> float:
    return _ls(x, others, k, "mean", "symmetric")


def _mean_over_mixes(x: np.ndarray, others: np.ndarray, mixes: list[tuple[int, int]], sort: bool = True) -> float:
    """The largest change of the mean over the two candidates of each mix (r removed, a added)."""
    if sort:
        x, others = np.sort(x), np.sort(others)
    f_x, best = float(np.mean(x)), 0.0
    for r, a in mixes:
        if r + a == 0 or r > x.size or a > others.size or (r == x.size and a == 0):
            continue
        high = np.concatenate([x[r:], others[others.size - a:]])
        low = np.concatenate([x[: x.size - r], others[:a]])
        best = max(best, float(np.mean(high)) - f_x, f_x - float(np.mean(low)))
    return best


def mistake_removals_only_mean(x: np.ndarray, others: np.ndarray, k: int) -> float:
    """Only removes records (a = 0)."""
    return _mean_over_mixes(x, others, [(r, 0) for r in range(1, min(k, len(x) - 1) + 1)])


def mistake_blog_exactly_k(x: np.ndarray, others: np.ndarray, k: int) -> float:
    """The blog's distance k: exactly k records removed, or exactly k added, never a mix."""
    return _mean_over_mixes(x, others, [(k, 0)] * (k <= len(x) - 1) + [(0, k)])


def mistake_exactly_k_changes(x: np.ndarray, others: np.ndarray, k: int) -> float:
    """Every mix of exactly k changes (r + a = k), never fewer."""
    return _mean_over_mixes(x, others, [(r, k - r) for r in range(min(k, len(x)) + 1)])


def mistake_keeps_a_record(x: np.ndarray, others: np.ndarray, k: int) -> float:
    """Stops at r = n - 1: misses the neighbours that share no record with x (r = n, a >= 1), within reach when
    k > n."""
    return _mean_over_mixes(x, others, [(r, a) for r in range(min(k, len(x) - 1) + 1) for a in range(k - r + 1)])


def mistake_unsorted_mean(x: np.ndarray, others: np.ndarray, k: int) -> float:
    """The right mixes on arrays it never sorts: x[r:] then drops any r records, not the r smallest."""
    mixes = [(r, a) for r in range(min(k, len(x)) + 1) for a in range(k - r + 1)]
    return _mean_over_mixes(x, others, mixes, sort=False)


def mistake_empty_neighbour(x: np.ndarray, others: np.ndarray, k: int) -> float:
    """Lets r = n go with a = 0 and takes the mean of the empty dataset that is left: in plain Python,
    sum / len raises ZeroDivisionError on every case where k >= n."""
    x, others = sorted(x), sorted(others)
    f_x, best = sum(x) / len(x), 0.0
    for r in range(min(k, len(x)) + 1):
        for a in range(max(0, 1 - r), min(k - r, len(others)) + 1):
            high = x[r:] + others[len(others) - a:]
            low = x[: len(x) - r] + others[:a]
            best = max(best, sum(high) / len(high) - f_x, f_x - sum(low) / len(low))
    return best


def mistake_negative_slice(x: np.ndarray, others: np.ndarray, k: int) -> float:
    """Writes ``low`` with ``x[:-r]``: at r = 0 that slice is empty (``x[:-0]`` is ``x[:0]``), so each mix that only
    adds values compares x with the a smallest spare values alone."""
    x, others = np.sort(x), np.sort(others)
    f_x, best = float(np.mean(x)), 0.0
    for r in range(min(k, x.size) + 1):
        for a in range(1 if r in (0, x.size) else 0, min(k - r, others.size) + 1):
            high = np.concatenate([x[r:], others[others.size - a:]])
            low = np.concatenate([x[:-r], others[:a]])
            best = max(best, float(np.mean(high)) - f_x, f_x - float(np.mean(low)))
    return best


# --- Exercise 5: a release where Step 2's candidates miss the variance's local sensitivity ----------------------


@dataclass(frozen=True)
class VarianceRelease:
    """A checked answer to exercise 5: the sorted release and universe, the local sensitivity of ``var``
    (unbounded, k = 1) and the largest change any of Step 2's four candidates makes."""

    x: tuple[float, ...]
    universe: tuple[float, ...]
    local: float
    best_candidate: float


def read_variance_release(answer: object, language: Language) -> VarianceRelease:
    """The pair (x_5, universe_5): lists of numbers, x_5 of at least two records and a sub-multiset of
    universe_5, which holds at least one value more (so one record can be removed and one added)."""
    if not isinstance(answer, tuple | list) or len(answer) != 2:
        raise Invalid({"en": f"expected the pair (x_5, universe_5), got {describe(answer)}",
                       "zh": f"应当是一对 (x_5, universe_5)，得到的是 {describe(answer)}"}[language])
    x = read_values(answer[0], "x_5", language)
    universe = read_values(answer[1], "universe_5", language)
    if len(x) < 2:
        raise Invalid({"en": f"x_5 needs at least 2 records, so that removing one leaves a dataset; it has {len(x)}",
                       "zh": f"x_5 至少要有 2 条记录，删去一条后才仍是数据集；它有 {len(x)} 条"}[language])
    missing = Counter(x) - Counter(universe)
    if missing:
        raise Invalid({"en": f"x_5 is not a sub-multiset of universe_5: universe_5 lacks these records of x_5: "
                             f"{_whole(sorted(missing.elements()))}",
                       "zh": f"x_5 不是 universe_5 的子多重集：universe_5 缺少 x_5 的这些记录："
                             f"{_whole(sorted(missing.elements()))}"}[language])
    if len(universe) == len(x):
        raise Invalid({"en": "universe_5 holds no value beyond x_5, so no record can be added: give it at least one",
                       "zh": "universe_5 除了 x_5 没有别的值，无法添加记录：至少再给它一个值"}[language])
    release, values = as_dataset(x), as_dataset(universe)
    try:
        local = local_sensitivity(release, values, "var", relation="unbounded")
    except ValueError as error:  # e.g. whole numbers too large for exact float64 sums
        raise Invalid(str(error)) from None
    best = max(abs(float(np.var(release)) - float(np.var(c)))
               for c in local_candidates(release, values, 1, "unbounded"))
    return VarianceRelease(x, universe, local, best)


def candidates_miss(answer: object, language: Language) -> str | None:
    """None when every candidate of Step 2 stays below the local sensitivity (beyond rounding), else why not."""
    found: VarianceRelease = answer  # type: ignore[assignment]
    if found.best_candidate < found.local - 1e-9 * max(1.0, found.local):
        return None
    return {"en": "on this release one of Step 2's four candidates already moves the variance as far as the "
                  "farthest neighbour does",
            "zh": "在这个数据集上，第 2 步的四个候选之一已经让方差移动得和最远的邻居一样远"}[language]


register(
    Exercise(
        "A1.1", "two extreme neighbours of (1, 2, 3)",
        (Number(lambda: local_sensitivity([1, 2, 3], UNIVERSE, "median", relation="bounded")),),
        (Mistake(global_sensitivity(UNIVERSE, 3, "median", relation="bounded"),
                 "that is the global sensitivity, the worst release of three; here the release is fixed"),
         Mistake(local_sensitivity([1, 2, 3], UNIVERSE, "median", relation="unbounded"),
                 "that is the unbounded value (one record added or removed); bounded neighbours replace one"),
         Mistake(local_sensitivity([1, 3, 10], UNIVERSE, "median", relation="bounded"),
                 "that is the local sensitivity of Step 2's release (1, 3, 10), not of (1, 2, 3)"),
         Mistake(float(np.median([2, 3, 11])),
                 "that is the median of the highest neighbour; the sensitivity is its distance from f(x)")),
    ),
    Exercise(
        "A1.2", "the worst pair for a bounded sum",
        (Number(lambda: global_sensitivity(UNIVERSE, 3, "sum", k=2, relation="bounded")),),
        (Mistake(global_sensitivity(UNIVERSE, 3, "sum", k=2, relation="unbounded"),
                 "that is the unbounded value (two records added or removed); bounded neighbours replace them"),
         Mistake(global_sensitivity(UNIVERSE, 3, "sum", k=1, relation="bounded"),
                 "that is the value at k = 1 (max − min of U, one record replaced); here two are replaced"),
         Mistake(2 * global_sensitivity(UNIVERSE, 3, "sum", k=1, relation="bounded"),
                 "that is k·Δ₁, the group-privacy bound: it lets each replacement move the sum by max − min of U, "
                 "but only one of them can"),
         Mistake(float(sum((3, 10, 11))),
                 "that is the sum of the highest dataset; the sensitivity is the gap between two datasets")),
    ),
    Exercise(
        "A1.3", "ls_sum_unbounded from scratch",
        (Function(sum_cases, sum_truth, show=show_local_case),),
        (Mistake(mistake_largest_only,
                 "the values may be negative: removing or adding the k smallest can move the sum further than "
                 "the k largest"),
         Mistake(mistake_removals_only,
                 "an unbounded neighbour may also add k spare values, not only remove k records of x"),
         Mistake(mistake_additions_only,
                 "an unbounded neighbour may also remove k records of x, not only add k spare values"),
         Mistake(mistake_unsorted_sum,
                 "the check passes x and spare in any order: sort both first (np.sort), so that x[:k] and x[-k:] "
                 "are the k smallest and the k largest"),
         Mistake(mistake_k_times_largest,
                 "k times the largest absolute value bounds the change, but the k records moved need not all be "
                 "that large: sum the actual k largest or smallest")),
    ),
    Exercise(
        "A1.4", "ls_mean_symmetric from scratch",
        (Function(mean_cases, mean_truth, show=show_local_case),),
        (Mistake(mistake_removals_only_mean,
                 "a mix may also add spare values (a ≥ 1), alone or with removals"),
         Mistake(mistake_blog_exactly_k,
                 "that is the blog's distance k (k removed or k added): a group may also mix removals and "
                 "additions"),
         Mistake(mistake_exactly_k_changes,
                 "a group of up to k: mixes with fewer than k changes are neighbours too (1 ≤ r + a ≤ k)"),
         Mistake(mistake_keeps_a_record,
                 "r may reach n: when k > n a neighbour may remove every record of x and add spare values "
                 "(r = n, a ≥ 1), sharing no record with x"),
         Mistake(mistake_unsorted_mean,
                 "the check passes x and spare in any order: sort both first (np.sort), so that x[r:] drops the r "
                 "smallest records and spare[len(spare) - a:] holds the a largest values"),
         Mistake(mistake_negative_slice,
                 "x[:-0] is empty, not all of x: at r = 0 your low neighbour lost every record. Write "
                 "x[:len(x) - r], as the skeleton's spare[len(spare) - a:] does"),
         Mistake(mistake_empty_neighbour,
                 "a neighbour is never empty: removing all n records (r = n) needs at least one spare value "
                 "added (a ≥ 1); the mean of no records is undefined")),
    ),
    Exercise(
        "A1.5", "a release where Step 2's candidates miss the variance",
        (Example(read_variance_release, candidates_miss),),
        (Mistake(([1, 3, 10], [1, 2, 3, 10, 11]),
                 "on Step 2's release a candidate is the farthest neighbour: the variance needs another shape"),
         Mistake(([0, 0, 0, 5, 10], [0, 0, 0, 5, 5, 10]),
                 "with one end crowded, removing the lone record at the other end (a candidate) moves the variance "
                 "most"),
         Mistake(([0, 0, 0, 5, 10, 10, 10], [0, 0, 0, 5, 10, 10, 10, 20]),
                 "the spare value lies outside x's range, so adding it (a candidate) moves the variance most"),
         Mistake(([0, 0, 0, 10, 10, 10], [0, 0, 0, 5, 10, 10, 10]),
                 "no record of x sits near its mean, so every removal is at an end, where the candidates are")),
    ),
)
