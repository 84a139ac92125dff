"""The exercises of notebook 03 (local sensitivity): the right answers and the mistakes each one must catch."""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Callable, Sequence
from functools import partial

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
from dpteach.sensitivity import blog_bounded_local, global_sensitivity, local_sensitivity

Query = Callable[[tuple], float]

TABLE_UNIVERSE = (1, 2, 3, 10, 11)  # the blog's hand-worked median table: releases of three


def absence_days() -> tuple[float, ...]:
    return tuple(float(v) for v in large_universe()["absence_days"])


def school_years() -> tuple[float, ...]:
    return tuple(float(v) for v in large_universe()["school_year"])


# --- Exercise 1: one row of the median table -----------------------------------------------------------------------

ROW = (3, 10, 11)


def row_local(relation: str) -> float:
    return local_sensitivity(ROW, TABLE_UNIVERSE, "median", relation=relation)


# --- Exercise 2: a calm dataset of the table, and the scale its noise needs ----------------------------------------

CALM = (1, 2, 3)  # the table's calm row; its bounded neighbour (1, 2, 10) has the global value as local sensitivity


def calm_local(relation: str = "bounded") -> float:
    return local_sensitivity(CALM, TABLE_UNIVERSE, "median", relation=relation)


def table_global(relation: str = "bounded") -> float:
    return global_sensitivity(TABLE_UNIVERSE, len(CALM), "median", relation=relation)


# --- Exercise 3: bounded_local(f, x, universe, k) from scratch --------------------------------------------------------

# Each small case is chosen so that one of the declared mistakes goes wrong on it (see the mistakes below).
SMALL_CASES: tuple[tuple[str, tuple[float, ...], tuple[float, ...], int], ...] = (
    ("sum", (5, 3, 0, 0), (3, 3, 0, 0, 5), 1),    # duplicates: a refill may use a value the core already holds
    ("sum", (3, 5, 7), (0, 3, 5, 7, 10), 2),      # the largest k: one record replaced beats two
    ("median", (1, 3, 10), TABLE_UNIVERSE, 1),   # the table row where the blog's function says 8
    ("mean", (2, 2, 7), (0, 2, 2, 2, 7, 7), 2),   # duplicates; `set(U) - set(kept)` loses the second 7
)
YEARS_QUERIES = ("mean", "median", "sum", "var", "percentile_90")


def bounded_local_cases() -> list[tuple[Query, tuple[float, ...], tuple[float, ...], int]]:
    """The first six school years (duplicates) at k = 1 and 2, then small adversarial multisets."""
    years = school_years()
    cases = [(partial(evaluate, q), years[:6], years, k) for k in (1, 2) for q in YEARS_QUERIES]
    cases += [(partial(evaluate, q), tuple(map(float, x)), tuple(map(float, u)), k) for q, x, u, k in SMALL_CASES]
    return cases


def show_bounded_case(case: tuple) -> str:
    f, x, universe, k = case
    ints = lambda values: tuple(int(v) for v in values)  # noqa: E731
    return f"f = the {f.args[0]}, x = {ints(x)}, universe = {ints(universe)}, k = {k}"


def bounded_local_truth(f: Query, x: Sequence[float], universe: Sequence[float], k: int) -> float:
    return local_sensitivity(x, universe, f.args[0], k=k, relation="bounded", method="naive")  # type: ignore[attr-defined]


def _largest_move(f: Query, x: tuple, neighbours: list[tuple]) -> float:
    return max((abs(f(x) - f(y)) for y in neighbours), default=0.0)


def _refilled(x: tuple, k: int, refills: Callable[[tuple], list]) -> list[tuple]:
    """Every core of n - k records of x, refilled with every choice of k of ``refills(core)``."""
    return [kept + added for kept in itertools.combinations(x, len(x) - k)
            for added in itertools.combinations(refills(kept), k)]


def mistake_not_in_kept(f: Query, x: tuple, universe: Sequence[float], k: int) -> float:
    """Refills only with values the core does not hold at all (`v not in kept`), not with what U still holds."""
    return _largest_move(f, x, _refilled(x, k, lambda kept: [v for v in universe if v not in kept]))


def mistake_set_difference(f: Query, x: tuple, universe: Sequence[float], k: int) -> float:
    """Refills from ``set(universe) - set(kept)``: values the core holds are lost, and so are repeated values."""
    return _largest_move(f, x, _refilled(x, k, lambda kept: sorted(set(universe) - set(kept))))


def mistake_deduplicated_remainder(f: Query, x: tuple, universe: Sequence[float], k: int) -> float:
    """Refills from ``set(left.elements())``: the multiset U − kept with its repeats dropped, so a value the universe
    holds twice (two 9s) can never come in twice."""
    def refills(kept: tuple) -> list:
        return sorted(set((Counter(universe) - Counter(kept)).elements()))
    return _largest_move(f, x, _refilled(x, k, refills))


def mistake_refill_from_all_of_u(f: Query, x: tuple, universe: Sequence[float], k: int) -> float:
    """Refills from all of U, ignoring the records the core already uses: a record can appear more often than U
    holds it."""
    return _largest_move(f, x, _refilled(x, k, lambda kept: list(universe)))


def mistake_refill_from_u_minus_x(f: Query, x: tuple, universe: Sequence[float], k: int) -> float:
    """Refills every core from U − x, never with a record just removed: only exactly k changes are formed."""
    left = sorted((Counter(universe) - Counter(x)).elements())
    return _largest_move(f, x, _refilled(x, k, lambda kept: left))


def mistake_blog_families(f: Query, x: tuple, universe: Sequence[float], k: int) -> float:
    """The blog's function: the largest gap between two refills of one core, neither of them x."""
    best = 0.0
    for kept in itertools.combinations(x, len(x) - k):
        left = sorted((Counter(universe) - Counter(kept)).elements())
        values = [f(kept + added) for added in itertools.combinations(left, k)]
        best = max(best, max(values) - min(values))
    return best


# --- Exercise 4: a dataset on which the blog's function overstates ---------------------------------------------------

RELEASE_SIZE = 6
FIGURE_RELEASE = (1, 2, 3, 4, 5, 6)       # the first six students: the blog's function is right there
UNBOUNDED_ONLY = (1, 2, 3, 4, 6, 7)       # above the unbounded local sensitivity, equal to the bounded one


def read_release(answer: object, language: Language) -> tuple[float, ...]:
    """Six absence-day values that the large universe holds (with multiplicity), sorted."""
    return read_sub_multiset(answer, "my_dataset", absence_days(), language, size=RELEASE_SIZE)


def blog_overstates(release: object, language: Language) -> str | None:
    release = tuple(release)  # type: ignore[arg-type]
    days = absence_days()
    blog = blog_bounded_local(release, days, "median")
    if blog > local_sensitivity(release, days, "median", relation="bounded"):
        return None
    if blog_bounded_local(release, days, "median", k=2) > local_sensitivity(release, days, "median", k=2,
                                                                            relation="bounded"):
        return {"en": "the blog's function overstates here at k = 2, not at k = 1: the exercise asks k = 1 (the "
                      "default k of both functions)",
                "zh": "博客的函数在这里是在 k = 2 时高估，而不是 k = 1：练习问的是 k = 1（两个函数默认的 k）"}[language]
    if blog > local_sensitivity(release, days, "median", relation="unbounded"):
        return {"en": "the blog's value exceeds the unbounded local sensitivity here, not the bounded one",
                "zh": "这里博客的值超过的是无界局部敏感度，而不是有界的"}[language]
    return {"en": "on this dataset the blog's function gives the true bounded local sensitivity",
            "zh": "在这个数据集上，博客的函数给出的正是真正的有界局部敏感度"}[language]


# --- Exercise 5: the privacy loss of noise scaled to local sensitivity ------------------------------------------------

LEAK_PAIR = ((1, 2, 3), (1, 2, 10))  # bounded neighbours of the median table, both with median 2
LEAK_OUTPUT = 10.0


def leak_loss(scales: str = "local", *, normalise: bool = True, sign: int = 1) -> float:
    """ln(p_x(y) / p_x'(y)) at y = LEAK_OUTPUT for Laplace noise around each median, ε = 1, with the scales of
    ``scales`` ("local": each dataset's own bounded local sensitivity; "global": the table's global one for both).
    ``normalise=False`` drops the ln(b'/b) of the densities' normalising constants, ``sign=-1`` turns the ratio."""
    x, x_prime = LEAK_PAIR
    if scales == "local":
        b, b_prime = (local_sensitivity(d, TABLE_UNIVERSE, "median", relation="bounded") for d in LEAK_PAIR)
    else:
        b = b_prime = global_sensitivity(TABLE_UNIVERSE, 3, "median", relation="bounded")
    dx, dx_prime = abs(LEAK_OUTPUT - evaluate("median", x)), abs(LEAK_OUTPUT - evaluate("median", x_prime))
    loss = -dx / b + dx_prime / b_prime + (math.log(b_prime / b) if normalise else 0.0)
    return sign * loss


register(
    Exercise(
        "03.1", "one row of the median table",
        (Number(lambda: row_local("bounded")),
         Number(lambda: blog_bounded_local(ROW, TABLE_UNIVERSE, "median"))),
        (Mistake((row_local("unbounded"), blog_bounded_local(ROW, TABLE_UNIVERSE, "median")),
                 "the first number is the unbounded local sensitivity; the exercise asks for the bounded one"),
         Mistake((row_local("bounded"), global_sensitivity(TABLE_UNIVERSE, 3, "median", relation="bounded")),
                 "the blog's function overstates on four rows of the table: check whether this row is one of them"),
         Mistake((global_sensitivity(TABLE_UNIVERSE, 3, "median", relation="bounded"),) * 2,
                 "that is the bounded global sensitivity, the worst row; this row's neighbours move less")),
    ),
    Exercise(
        "03.2", "a calm dataset and the scale its noise needs",
        (Number(calm_local), Choice(("a", "b", "c"), "c")),
        (Mistake((calm_local(), "a"),
                 "a scale chosen from x's own local sensitivity depends on the data: a neighbour of x with a larger "
                 "local sensitivity would get wider noise, and the spread of the answers tells the two apart"),
         Mistake((calm_local(), "b"),
                 "4.5 is the unbounded global sensitivity for datasets of three; under bounded DP one replacement "
                 "can move the median of another dataset further"),
         Mistake((calm_local("unbounded"), "c"),
                 "that first number is the unbounded local sensitivity; bounded neighbours replace a record"),
         Mistake((table_global(), "c"),
                 "that first number is the global sensitivity, the worst dataset; x's own neighbours move its "
                 "median less")),
    ),
    Exercise(
        "03.3", "bounded_local from scratch",
        (Function(bounded_local_cases, bounded_local_truth, show=show_bounded_case),),
        (Mistake(mistake_not_in_kept,
                 "a refill may use any value the universe still holds beyond the records kept, even one the core "
                 "already holds (a multiset difference U − kept, not `v not in kept`)"),
         Mistake(mistake_set_difference,
                 "`set(universe) - set(kept)` drops the values the core holds and every repeat: a refill may use "
                 "any value the universe still holds beyond the records kept, counted with multiplicity "
                 "(Counter(universe) - Counter(kept))"),
         Mistake(mistake_deduplicated_remainder,
                 "`set(left.elements())` drops the repeats of U − kept: the universe may hold a value twice (two "
                 "9s), and then a refill of k = 2 may use it twice; keep the multiset, sorted(left.elements())"),
         Mistake(mistake_refill_from_all_of_u,
                 "a refill may only use what the universe still holds beyond the records kept: refilling from all of "
                 "U uses a record more often than U holds it; take the multiset difference "
                 "Counter(universe) - Counter(kept)"),
         Mistake(mistake_refill_from_u_minus_x,
                 "refill each core from U − kept, not from U − x: a removed record may come back, so neighbours "
                 "with fewer than k changes are formed too"),
         Mistake(mistake_blog_families,
                 "that is the blog's function: it compares the refills with each other, not with x")),
    ),
    Exercise(
        "03.4", "a dataset on which the blog's function overstates",
        (Example(read_release, blog_overstates),),
        (Mistake(FIGURE_RELEASE,
                 "that is the dataset of the blog's figures, where its function gives the true local sensitivity"),
         Mistake(UNBOUNDED_ONLY,
                 "the blog's value exceeds the unbounded local sensitivity here (the default relation of "
                 "local_sensitivity), but its function is about bounded DP: compare with relation=\"bounded\"")),
    ),
    Exercise(
        "03.5", "the privacy loss of noise scaled to local sensitivity",
        (Number(leak_loss),),
        (Mistake(leak_loss("global"),
                 "that is the loss when both datasets use one scale, the global sensitivity: here each uses its own"),
         Mistake(leak_loss(normalise=False),
                 "the two Laplace densities have different normalising constants, 1/(2b) and 1/(2b′): their ratio "
                 "adds a term"),
         Mistake(leak_loss(sign=-1), "that is ln(p_x′(y) / p_x(y)), the ratio the other way round")),
    ),
)
