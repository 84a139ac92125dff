"""The exercises of notebook 09 (sensitivity in a real library): the right answers and the mistakes each must catch."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dpteach.exercises.core import Choice, Exercise, Language, Mistake, Number, register
from dpteach.library import dpteach_value, opendp_bound, sum_gap

# --- Exercise 1: OpenDP's distance in the course's words ------------------------------------------------------------

SIZED_D_IN = 4  # .map(4) on datasets of a known size under SymmetricDistance
RELATIONS = ("unbounded", "bounded", "symmetric")


def changes_at(d_in: int) -> int:
    """Records changed at symmetric distance ``d_in`` between two datasets of the same size (a change is one
    removal plus one addition)."""
    return d_in // 2


# --- Exercise 2: OpenDP's bounds for two integer sums, add/remove and change-one ------------------------------------

SUM_BOUNDS, SUM_D_IN, SUM_SIZE = (-5, 2), 3, 6


def sum_bounds() -> tuple[float, float]:
    """OpenDP's own answers, asked only when a check runs: building them switches on OpenDP's ``contrib`` feature,
    and importing the exercises must not: the lesson switches it on in the open, where a student sees it. The mistakes
    below are the formulas a student might use instead."""
    return (opendp_bound("integer sum", "add/remove", SUM_BOUNDS, 2, SUM_D_IN),
            opendp_bound("integer sum", "change-one", SUM_BOUNDS, SUM_SIZE, SUM_D_IN))


def width(bounds: tuple[int, int]) -> int:
    return bounds[1] - bounds[0]


@dataclass(frozen=True)
class RuleNumber(Number):
    """A whole number compared exactly (up to ``rtol``), with a hint for each wrong value in ``hints`` that a
    misapplied rule gives, so that a student who gets both parts wrong still sees why each one is."""

    hints: tuple[tuple[float, str], ...] = ()

    def judge(self, mine: object, language: Language) -> tuple[bool, str | None]:
        if self.same(mine, self.truth()):
            return True, None
        return False, next((hint for value, hint in self.hints if self.same(mine, value)), None)


WIDTH_FOR_ADDITION = "U - L is what a changed record costs; an added or removed record moves the sum by its own value"
UPPER_ONLY = "an added or removed record may also be the lower bound: which end is farther from zero?"
SIGN_SLIP = "a sensitivity is a distance, never negative: compare the ends by their absolute values"
ONE_RECORD = "that is one record (or one change); the distance asked for is larger"
ADDITION_FOR_CHANGE = ("that is the add/remove value; a changed record can move from one end of the bounds to the "
                       "other")
CHANGE_COUNTED_TWICE = ("change-one distance 3 is three changes: then_metric_unbounded doubles it, and the sized sum's "
                        "rule turns the doubled distance back into changes")
ADD_REMOVE_HINTS = ((SUM_D_IN * width(SUM_BOUNDS), WIDTH_FOR_ADDITION), (SUM_D_IN * max(SUM_BOUNDS), UPPER_ONLY),
                    (SUM_D_IN * min(SUM_BOUNDS), SIGN_SLIP), (max(abs(b) for b in SUM_BOUNDS), ONE_RECORD))
CHANGE_ONE_HINTS = ((SUM_D_IN * max(abs(b) for b in SUM_BOUNDS), ADDITION_FOR_CHANGE),
                    (2 * SUM_D_IN * width(SUM_BOUNDS), CHANGE_COUNTED_TWICE), (width(SUM_BOUNDS), ONE_RECORD))


# --- Exercise 3: the resized mean against the exact one -------------------------------------------------------------

MEAN_BOUNDS, MEAN_SIZE, MEAN_K = (0, 10), 5, 5


def mean_pair() -> tuple[float, float]:
    """(OpenDP's bound, dpteach's exact value) for the add/remove mean at distance ``MEAN_K``."""
    return (opendp_bound("mean", "add/remove", MEAN_BOUNDS, MEAN_SIZE, MEAN_K),
            dpteach_value("mean", "add/remove", MEAN_BOUNDS, MEAN_SIZE, MEAN_K))


def resized_formula(k: int) -> float:
    """k(U - L)/n: OpenDP's map for the resized mean (what a student may take for both numbers)."""
    return k * width(MEAN_BOUNDS) / MEAN_SIZE


def kept_formula() -> float:
    """(n - 1)(U - L)/n: at k = n at most n - 1 records of a release can leave (all n would need an addition)."""
    return (MEAN_SIZE - 1) * width(MEAN_BOUNDS) / MEAN_SIZE


# --- Exercise 4: one and a half spacings, a tie on every addition --------------------------------------------------

SMALL_COUNT = 1000  # x holds this many copies of the small value; x' adds the record 1.0 in front
SMALL_FRACTION = 1.5  # the small value, in float32 spacings at 1
IDEAL_BOUND = 1.0   # bounds [0, 1] under add/remove: max(|L|, |U|)
SPACING = float(np.spacing(np.float32(1)))  # u = 2**-23


def tie_excess() -> float:
    """How far the float32 running sums of x' = (1.0) + x and x (``SMALL_COUNT`` copies of 1.5u) differ beyond the
    ideal bound, in spacings u: computed by running them (:func:`dpteach.library.sum_gap`)."""
    x = np.full(SMALL_COUNT, np.float32(SMALL_FRACTION * SPACING), dtype=np.float32)
    return (sum_gap(x, np.concatenate([np.array([1.0], dtype=np.float32), x])) - IDEAL_BOUND) / SPACING


def excess_if_each_adds(spacings: float) -> float:
    """The excess in spacings if every small record after the 1.0 added ``spacings`` u while x's sum is exact (a
    mistaken rounding rule: 1 for rounding every tie down, which is also the lesson's round-up gap count * (1 - f)
    misapplied at f = 1.5; 1.5 for no rounding at all)."""
    return SMALL_COUNT * (spacings - SMALL_FRACTION)


ROUNDED_DOWN = ("that has each record after the 1.0 add one spacing u, as a round-down would, or the lesson's gap "
                "1 + count * u * (1 - f), which holds only for 1/2 < f < 1; 1 + 1.5u lies exactly halfway between two "
                "floats, a tie, and a tie goes to the even neighbour: which one is an even number of spacings above 1?")
NO_ROUNDING = "1 + 1.5u is not a float32 (floats near 1 are u apart), so every addition after the 1.0 is rounded"
FORGOT_X = "the gap is the difference of two sums: the sum of x grows too, exactly"
WHOLE_GAP = "the question asks for the excess above the ideal bound 1, counted in spacings u, not for the gap itself"


@dataclass(frozen=True)
class ExcessNumber(Number):
    """The excess in spacings; any answer strictly between 1 and 1.001 is a gap typed instead of the excess (1 plus a
    few hundred spacings, however rounded) and gets :data:`WHOLE_GAP`'s hint."""

    def judge(self, mine: object, language: Language) -> tuple[bool, str | None]:
        if self.same(mine, self.truth()):
            return True, None
        return False, WHOLE_GAP if 1 < float(mine) < 1.001 else None  # type: ignore[arg-type]


register(
    Exercise(
        "09.1", "OpenDP's distance in the course's words",
        (Choice(RELATIONS, "bounded"), Number(lambda: changes_at(SIZED_D_IN), decimals=None)),
        (Mistake(("symmetric", SIZED_D_IN),
                 "dpteach's symmetric relation at this distance gives a six-record release neighbours of other sizes, "
                 "which this domain does not hold"),
         Mistake(("symmetric", changes_at(SIZED_D_IN)),
                 "the relation must keep the size: dpteach's symmetric relation also adds or removes records, so a "
                 "six-record release gets neighbours of other sizes"),
         Mistake(("bounded", SIZED_D_IN),
                 "the relation is right; count how much SymmetricDistance charges for one changed record"),
         Mistake(("bounded", SIZED_D_IN - 1),
                 "the relation is right; one change costs 2 units of symmetric distance, a removal plus an addition"),
         Mistake(("unbounded", changes_at(SIZED_D_IN)),
                 "dpteach's unbounded relation adds or removes records, so its neighbours of a six-record release "
                 "have another size, which this domain does not hold"),
         Mistake(("unbounded", SIZED_D_IN),
                 "dpteach's unbounded relation adds or removes exactly k records, so a six-record release's "
                 "neighbours have another size; which relation keeps the size, and what does one change cost here?")),
    ),
    Exercise(
        "09.2", "OpenDP's bounds for two integer sums",
        (RuleNumber(lambda: sum_bounds()[0], decimals=None, hints=ADD_REMOVE_HINTS),
         RuleNumber(lambda: sum_bounds()[1], decimals=None, hints=CHANGE_ONE_HINTS)),
        (Mistake((SUM_D_IN * width(SUM_BOUNDS),) * 2, WIDTH_FOR_ADDITION),
         Mistake((SUM_D_IN * max(abs(b) for b in SUM_BOUNDS),) * 2, ADDITION_FOR_CHANGE),
         Mistake((SUM_D_IN * max(SUM_BOUNDS), SUM_D_IN * width(SUM_BOUNDS)), UPPER_ONLY),
         Mistake((SUM_D_IN * min(SUM_BOUNDS), SUM_D_IN * width(SUM_BOUNDS)), SIGN_SLIP),
         Mistake((SUM_D_IN * max(abs(b) for b in SUM_BOUNDS), 2 * SUM_D_IN * width(SUM_BOUNDS)), CHANGE_COUNTED_TWICE),
         Mistake((max(abs(b) for b in SUM_BOUNDS), width(SUM_BOUNDS)), ONE_RECORD)),
    ),
    Exercise(
        "09.3", "the resized mean against the exact one",
        (Number(lambda: mean_pair()[0]), Number(lambda: mean_pair()[1])),
        (Mistake((resized_formula(MEAN_K), resized_formula(MEAN_K)),
                 "the second number cannot keep growing: at k = n a neighbour keeps a record of the release "
                 "(removing all n needs an addition, distance n + 1)"),
         Mistake((kept_formula(), kept_formula()),
                 "the first number is OpenDP's map, which grows with k: it does not know that at k = n a record "
                 "is kept"),
         Mistake((kept_formula(), resized_formula(MEAN_K)),
                 "the two numbers are swapped: OpenDP's map comes first and grows with k; dpteach's comes second and "
                 "stops at n - 1 records leaving"),
         Mistake((resized_formula(1), resized_formula(1)),
                 "those are the values at k = 1; the question asks about k = n")),
    ),
    Exercise(
        "09.4", "one and a half spacings",
        (ExcessNumber(tie_excess, decimals=None),),
        (Mistake(excess_if_each_adds(1), ROUNDED_DOWN),
         Mistake(excess_if_each_adds(SMALL_FRACTION), NO_ROUNDING),
         Mistake(tie_excess() + SMALL_COUNT * SMALL_FRACTION, FORGOT_X),
         Mistake(IDEAL_BOUND + tie_excess() * SPACING, WHOLE_GAP)),
    ),
)
