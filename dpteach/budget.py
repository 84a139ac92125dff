"""The one work budget every sensitivity computation runs under (notebooks 02 and A1).

A computation counts its work *before* it starts, in work units: one (dataset, neighbour) pair compared by
enumeration, one record of a candidate dataset built and evaluated by a closed form of :mod:`dpteach.exact` (or of a
release listed by :func:`dpteach.sensitivity.local_sensitivities`), one candidate scored by :mod:`dpteach.spread`, or
one 64-bit word of the bounded mean's tie search. A count above
:data:`MAX_WORK` raises ``ValueError`` at once, saying how much the call would take; nothing of it runs. Steps with
a fallback are not refused but skipped above their own, smaller limits: the tie search above
:data:`dpteach.exact.TIE_WORDS` (the mean is then rounded up), the candidates of :mod:`dpteach.global_spread` above
its ``MAX_CANDIDATES`` and ``UNBOUNDED_CANDIDATES`` (the variance is then enumerated, under this budget).

:func:`meter` is for tests: inside it every count (refused ones too) is recorded, and the closed forms also report
the units they then actually spend, so a test can check that what runs is what was counted.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

MAX_WORK = 200_000_000


@dataclass
class Meter:
    """What the computations inside one :func:`meter` block counted (``charged``, one entry per count) and spent."""

    charged: list[int] = field(default_factory=list)
    spent: int = 0


_METERS: list[Meter] = []


def amount(units: int) -> str:
    """``units`` with thousands separators, or as a power of ten when it has more than 15 digits."""
    if units < 10**15:
        return f"{units:,}"
    return f"about 10^{math.log10(units):.1f}"


def check_work(units: int, counted: str) -> None:
    """Record ``units`` and refuse them above :data:`MAX_WORK`. ``counted`` names what one unit is (``"compare {}
    (dataset, neighbour) pairs"``, ``{}`` standing for the amount). ``units`` is exact up to the limit; a larger
    number can be a lower bound (counting stops early), hence "or more"."""
    for active in _METERS:
        active.charged.append(units)
    if units > MAX_WORK:
        raise ValueError(f"this computation would {counted.format(amount(units) + ' or more')}, above the limit of "
                         f"{MAX_WORK:,}; use a smaller universe, size or k (or an exact closed form)")


def spend(units: int) -> None:
    """Report ``units`` of work actually done (seen only inside :func:`meter`)."""
    for active in _METERS:
        active.spent += units


@contextmanager
def meter() -> Iterator[Meter]:
    """Record every :func:`check_work` and :func:`spend` made inside the block."""
    active = Meter()
    _METERS.append(active)
    try:
        yield active
    finally:
        _METERS.remove(active)
