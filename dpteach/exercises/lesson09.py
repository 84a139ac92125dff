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


# --- Exercise 2: OpenDP's unsized float sum under add/remove, on bounds across zero and on bounds of one sign -------

SUM_BOUNDS, ONE_SIGN_BOUNDS, SUM_D_IN, SUM_SIZE = (-5, 2), (5, 8), 3, 2  # SUM_SIZE is unused by the unsized sums


def sum_bounds() -> tuple[float, float]:
    """OpenDP's own answers (the float sum on each pair of bounds), asked only when a check runs: building them
    switches on OpenDP's ``contrib`` feature, and importing the exercises must not: the lesson switches it on in the
    open, where a student sees it. The mistakes below are the formulas a student might use instead."""
    return tuple(opendp_bound("float sum", "add/remove", bounds, SUM_SIZE, SUM_D_IN)  # type: ignore[return-value]
                 for bounds in (SUM_BOUNDS, ONE_SIGN_BOUNDS))


def width(bounds: tuple[int, int]) -> int:
    return bounds[1] - bounds[0]


def magnitude(bounds: tuple[int, int]) -> int:
    """What an added or removed record can move a sum by: the end farther from zero."""
    return max(abs(b) for b in bounds)


@dataclass(frozen=True)
class RuleNumber(Number):
    """A number compared as :class:`Number` does, with a hint for each wrong value in ``hints`` that a misapplied
    rule gives, so that a student who gets both parts wrong still sees why each one is."""

    hints: tuple[tuple[float, str], ...] = ()

    def judge(self, mine: object, language: Language) -> tuple[bool, str | None]:
        if self.same(mine, self.truth()):
            return True, None
        return False, next((hint for value, hint in self.hints if self.same(mine, value)), None)


INTEGER_RULE = ("(a): that is the integer sum's rule, k max(|L|, |U|); the unsized float sum keeps a capped random "
                "subset, so an added record may push another out: a change, worth U - L, larger here")
WIDTH_ONLY = ("(b): k(U - L) counts only the change; an added record that pushes none out moves the sum by its own "
              "value, up to the end farther from zero, larger here")
ONE_RECORD = "that is one unit of distance; the distance asked for is 3"
TWICE = "symmetric distance 3 already counts each added or removed record once; do not double it"
FLOAT_HINTS = ((SUM_D_IN * magnitude(SUM_BOUNDS), INTEGER_RULE), (width(SUM_BOUNDS), ONE_RECORD))
ONE_SIGN_HINTS = ((SUM_D_IN * width(ONE_SIGN_BOUNDS), WIDTH_ONLY), (magnitude(ONE_SIGN_BOUNDS), ONE_RECORD))


# --- Exercise 3: the resized mean against the exact one -------------------------------------------------------------

MEAN_BOUNDS, MEAN_SIZE, MEAN_K = (0, 10), 5, 5


def exact_mean() -> float:
    """dpteach's exact value for the add/remove mean at distance ``MEAN_K`` (OpenDP's bound, k(U - L)/n, is stated in
    the lesson; the student reasons out only this one)."""
    return dpteach_value("mean", "add/remove", MEAN_BOUNDS, MEAN_SIZE, MEAN_K)


def resized_formula(k: int) -> float:
    """k(U - L)/n: OpenDP's map for the resized mean (what a student may take for both numbers)."""
    return k * width(MEAN_BOUNDS) / MEAN_SIZE


LESSON_MEAN = 3 * 10 / 4  # the lesson's dpteach mean at k = n = 4 on [-3, 7], (n - 1)(U - L)/n


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
    mistaken rounding rule: 1 for rounding every tie down; 1.5 for no rounding at all, the answer 0, also reached by
    thinking a tie rounded down costs nothing)."""
    return SMALL_COUNT * (spacings - SMALL_FRACTION)


ROUNDED_DOWN = ("that has each record after the 1.0 add one spacing u, as rounding the tie down would; 1 + 1.5u lies "
                "exactly halfway between two floats, a tie, and a tie goes to the even neighbour: which one is an even "
                "number of spacings above 1?")
NO_ROUNDING = ("0 means no excess: either no rounding at all, but 1 + 1.5u is not a float32 (floats near 1 are u "
               "apart), or a tie rounded down, which would lose spacings instead; a tie goes to the even neighbour")
FORGOT_X = "the gap is the difference of two sums: the sum of x grows too, exactly"
WHOLE_GAP = "the question asks for the excess above the ideal bound 1, counted in spacings u, not for the gap itself"
ABSOLUTE_UNITS = "counted in spacings u: divide the excess by u"


@dataclass(frozen=True)
class ExcessNumber(Number):
    """The excess in spacings; any answer strictly between 1 and 1.001 is a gap typed instead of the excess (1 plus a
    few hundred spacings, however rounded) and gets :data:`WHOLE_GAP`'s hint; a positive answer below 0.001 is an
    excess typed in absolute units and gets :data:`ABSOLUTE_UNITS`'s."""

    def judge(self, mine: object, language: Language) -> tuple[bool, str | None]:
        if self.same(mine, self.truth()):
            return True, None
        value = float(mine)  # type: ignore[arg-type]
        if 1 < value < 1.001:
            return False, WHOLE_GAP
        return False, ABSOLUTE_UNITS if 0 < value < 0.001 else None


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
         Mistake(("bounded", 1), "the relation is right; distance 4 is more than one change"),
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
        "09.2", "the float sum's rule on two ranges",
        (RuleNumber(lambda: sum_bounds()[0], hints=FLOAT_HINTS),
         RuleNumber(lambda: sum_bounds()[1], hints=ONE_SIGN_HINTS)),
        (Mistake((SUM_D_IN * magnitude(SUM_BOUNDS), SUM_D_IN * magnitude(ONE_SIGN_BOUNDS)), INTEGER_RULE),
         Mistake((SUM_D_IN * width(SUM_BOUNDS), SUM_D_IN * width(ONE_SIGN_BOUNDS)), WIDTH_ONLY),
         Mistake((width(SUM_BOUNDS), magnitude(ONE_SIGN_BOUNDS)), ONE_RECORD),
         Mistake((2 * SUM_D_IN * width(SUM_BOUNDS), 2 * SUM_D_IN * magnitude(ONE_SIGN_BOUNDS)), TWICE)),
    ),
    Exercise(
        "09.3", "the resized mean against the exact one",
        (Number(exact_mean),),
        (Mistake(resized_formula(MEAN_K),
                 "that is OpenDP's resized bound k(U - L)/n; dpteach's exact value cannot keep growing: at k = n a "
                 "neighbour keeps a record of the release (removing all n needs an addition, distance n + 1)"),
         Mistake(LESSON_MEAN,
                 "7.5 is the lesson's value at n = 4; here n = 5: at most n - 1 of the n records can leave"),
         Mistake(resized_formula(1), "that is the value at k = 1; the question asks about k = n")),
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
