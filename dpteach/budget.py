"""The one work budget every sensitivity computation runs under (notebooks 02 and A1).

A computation counts its work *before* it starts, in work units: one (dataset, neighbour) pair compared by
enumeration, one record of a candidate dataset built and evaluated by a closed form of :mod:`dpteach.exact` (or of a
release listed by :func:`dpteach.sensitivity.local_sensitivities`), one candidate scored by :mod:`dpteach.spread`, or
one 64-bit word of the bounded mean's tie search. A count above
:data:`MAX_WORK` raises :class:`WorkLimitError` (a ``ValueError``) at once, saying how much the call would take;
nothing of it runs. Steps with
a fallback are not refused but skipped above their own, smaller limits: the tie search above
:data:`dpteach.exact.TIE_WORDS` (the mean is then rounded up), the candidates of :mod:`dpteach.global_spread` above
its ``MAX_CANDIDATES`` and ``UNBOUNDED_CANDIDATES`` (the variance is then enumerated, under this budget).

**One budget per call.** A public function decorated with :func:`held` holds everything it does to one
:data:`MAX_WORK`: the counts made inside it (by the functions it calls, each grid cell, each listed release) add up,
and the count that would take the total above the limit is refused before its work runs.
:func:`dpteach.sensitivity.local_sensitivities` and the smooth sensitivities of :mod:`dpteach.smooth` count their
whole total first and refuse it before any work (:func:`planned`). :func:`dpteach.sensitivity.sensitivity_grid`
counts every closed-form cell, then runs each other cell only up to its first count (:func:`first_count`: the count
a path makes before its work starts) and refuses the grid at once if these counts together pass the limit. An
enumeration makes one count for all of its work (the unbounded one counts both of its dataset sizes together), so
its first count is its whole count. Two steps count later. The global variance's candidates may leave a cell to
enumeration, so the grid tries them before counting the cells left (refused there, it has enumerated nothing). A
mean's tie search counts its words after its records, but only when they fit what the call has left
(:func:`fits`); otherwise it takes its fallback (the mean rounded up), so it is never the step refused.

**Weights.** Units of different paths do not cost the same time, so each count is multiplied by the weight of its
kind (:data:`WEIGHTS`), its cost relative to one enumerated pair (about 1 µs): a call at the limit then takes about
the same time on every path, a few minutes (about 200 s at 1 µs per weighted unit). Measured with
``python benchmarks/unit_costs.py --costs --repeats 5`` (median of 5 runs; the measured kind weighs 1 and the others
0, so a call's whole time is divided by the units of its own kind; 2-core development machine shared with other
jobs), in µs per raw unit:

- ``unit``: weight 1. Enumerated pairs 0.61 (global var unbounded), 1.01 (global var bounded), 2.06 (local var
  symmetric); smooth-sensitivity shell pairs 1.37; closed-form records 0.05; replicated records 0.0002.
- ``naive pair``: weight 50. 58.8 (global median, naive), 48.1 (local var, naive), 35.9 (smooth var, naive).
- ``table pair``: weight 90. 93.3 (:func:`dpteach.sensitivity.neighbour_table`, median, bounded).
- ``listed neighbour``: weight 200. 196.5 (:func:`dpteach.sensitivity.neighbours_of`, median, symmetric).
- ``release``: weight 1700. 1,686 (:func:`dpteach.sensitivity.local_sensitivities`, median: one call of
  :func:`dpteach.sensitivity.local_sensitivity` per release).

:func:`meter` is for tests: inside it every count (refused ones too, weighted) is recorded, and the closed forms also
report the units they then actually spend, so a test can check that what runs is what was counted.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import ParamSpec, TypeVar

MAX_WORK = 200_000_000

WEIGHTS: dict[str, int] = {
    "unit": 1,  # a pair enumerated in numpy batches, a candidate record, a scored candidate, a bitset word
    "naive pair": 50,  # a pair compared by position (method="naive"), one query evaluation each
    "table pair": 90,  # a pair written into neighbour_table's rows
    "listed neighbour": 200,  # a neighbour listed by neighbours_of, one query evaluation and one tuple each
    "release": 1700,  # one local sensitivity of local_sensitivities (the call's fixed cost)
}
"""Work units charged per counted unit of each kind (module docstring, *Weights*)."""

_P = ParamSpec("_P")
_R = TypeVar("_R")


class WorkLimitError(ValueError):
    """A computation refused, before running, because its counted work is above :data:`MAX_WORK`."""


@dataclass
class Meter:
    """What the computations inside one :func:`meter` block counted (``charged``, one entry per count, weighted)
    and spent."""

    charged: list[int] = field(default_factory=list)
    spent: int = 0


_METERS: list[Meter] = []
_CALL: list[int] = []  # the weighted units counted so far by the outermost held call in progress (empty: none)


def amount(units: int) -> str:
    """``units`` with thousands separators, or as a power of ten when it has more than 15 digits."""
    if units < 10**15:
        return f"{units:,}"
    return f"about 10^{math.log10(units):.1f}"


def _refuse(units: int, counted: str, weight: int) -> None:
    before = _CALL[0] if _CALL else 0
    if before + units * weight <= MAX_WORK:
        return
    notes = [f"{amount(units * weight)} or more work units at {weight} units each"] if weight != 1 else []
    if before:
        notes.append(f"on top of the {before:,} units this call has already counted")
    note = f" ({', '.join(notes)})" if notes else ""
    raise WorkLimitError(f"this computation would {counted.format(amount(units) + ' or more')}, above the limit of "
                         f"{MAX_WORK:,}{note}; use a smaller universe, size or k (or an exact closed form)")


def check_work(units: int, counted: str, *, kind: str = "unit") -> None:
    """Record ``units`` (times the weight of ``kind``) and refuse them if they take the call's total above
    :data:`MAX_WORK`. ``counted`` names what one unit is (``"compare {} (dataset, neighbour) pairs"``, ``{}``
    standing for the amount). ``units`` is exact up to the limit; a larger number can be a lower bound (counting
    stops early), hence "or more"."""
    weight = WEIGHTS[kind]
    if _PROBING:
        raise _FirstCount(units * weight)
    for active in _METERS:
        active.charged.append(units * weight)
    _refuse(units, counted, weight)
    if _CALL:
        _CALL[0] += units * weight


def fits(units: int, *, kind: str = "unit") -> bool:
    """Whether counting ``units`` (times the weight of ``kind``) keeps the call's total within :data:`MAX_WORK`. A
    step with a fallback asks this before counting and takes its fallback instead of being refused."""
    return (_CALL[0] if _CALL else 0) + units * WEIGHTS[kind] <= MAX_WORK


def planned(units: int, counted: str, *, kind: str = "unit") -> None:
    """Refuse, before any of it runs, a total of ``units`` that the call is about to count step by step (with
    :func:`check_work`); nothing is recorded when it fits, so the steps are not charged twice."""
    weight = WEIGHTS[kind]
    if _PROBING:
        raise _FirstCount(units * weight)
    try:
        _refuse(units, counted, weight)
    except WorkLimitError:
        for active in _METERS:
            active.charged.append(units * weight)
        raise


class _FirstCount(BaseException):  # noqa: N818 - a signal, not an error; BaseException so no handler takes it
    """Raised by the first count of a call run under :func:`first_count`, carrying that count (weighted)."""

    def __init__(self, units: int) -> None:
        super().__init__(units)
        self.units = units


_PROBING: list[bool] = []  # non-empty while first_count runs a call up to its first count


def first_count(call: Callable[[], object]) -> int:
    """Run ``call`` up to its first count (:func:`check_work` or :func:`planned`) and stop it there: the weighted
    units of that count, which every path makes before its work starts, or 0 if ``call`` finishes without counting
    (a cached or trivial answer). Nothing is recorded or charged, so the call can then run for real."""
    _PROBING.append(True)
    try:
        call()
    except _FirstCount as found:
        return found.units
    finally:
        _PROBING.pop()
    return 0


def spend(units: int) -> None:
    """Report ``units`` of work actually done (seen only inside :func:`meter`)."""
    for active in _METERS:
        active.spent += units


@contextmanager
def one_budget() -> Iterator[None]:
    """Hold every count made inside the block to one :data:`MAX_WORK` together. Nested blocks share the outermost
    one's total, so a public function calling others is held as a whole."""
    if _CALL:
        yield
        return
    _CALL.append(0)
    try:
        yield
    finally:
        _CALL.clear()


def held(function: Callable[_P, _R]) -> Callable[_P, _R]:
    """Run ``function`` inside :func:`one_budget` (a public function's whole call under one budget)."""

    @functools.wraps(function)
    def call(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        with one_budget():
            return function(*args, **kwargs)

    return call


@contextmanager
def meter() -> Iterator[Meter]:
    """Record every :func:`check_work` and :func:`spend` made inside the block."""
    active = Meter()
    _METERS.append(active)
    try:
        yield active
    finally:
        _METERS.remove(active)
