"""Queries on multisets of numbers, and the checks every dataset passes before it is queried.

A *query* is a name from :data:`QUERIES`, ``"percentile_<p>"`` for any ``0 <= p <= 100``, or a callable
``f(np.ndarray) -> float``. Conventions follow the blog posts (notebook 02):

* ``mean``, ``median``, ``sum``: numpy's functions;
* ``std``, ``var``: population versions (``ddof=0``);
* ``percentile_<p>``: numpy's default linear interpolation between order statistics;
* ``count``: the number of records.

A dataset is a multiset, so a query's value must not depend on the order of the records. To make that
exact in floating point too, every dataset is sorted before it is evaluated: the naive and the fast
engines then feed numpy the very same numbers in the same order and get bit-identical answers.
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from decimal import Decimal

import numpy as np

QUERIES: tuple[str, ...] = (
    "mean",
    "median",
    "count",
    "sum",
    "std",
    "var",
    "percentile_25",
    "percentile_50",
    "percentile_75",
    "percentile_90",
)

Query = str | Callable[[np.ndarray], float]
BatchFunction = Callable[[np.ndarray], np.ndarray]

EXACT_INTEGERS = 2**53

_PERCENTILE = re.compile(r"^percentile_(.*)$", re.DOTALL)
_LEVEL = re.compile(r"(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)\Z")  # plain ASCII decimals only: no "1_0", "1e1", "٩٠"

_ROW_FUNCTIONS: dict[str, BatchFunction] = {
    "mean": lambda rows: np.mean(rows, axis=1),
    "median": lambda rows: np.median(rows, axis=1),
    "count": lambda rows: np.full(rows.shape[0], float(rows.shape[1])),
    "sum": lambda rows: np.sum(rows, axis=1),
    "std": lambda rows: np.std(rows, axis=1),
    "var": lambda rows: np.var(rows, axis=1),
}


@dataclass(frozen=True)
class ResolvedQuery:
    """A query turned into a function over a batch of datasets (one sorted dataset per row)."""

    name: str
    on_rows: BatchFunction


def _percentile_level(name: str) -> float | None:
    match = _PERCENTILE.match(name)
    if match is None:
        return None
    if _LEVEL.match(match.group(1)) is None:
        raise ValueError(
            f"query {name!r}: the percentile level must be a number from 0 to 100 written in ASCII decimal digits "
            "with an optional decimal point, e.g. 'percentile_90' or 'percentile_12.5'"
        )
    level = float(match.group(1))
    if not 0.0 <= level <= 100.0:
        raise ValueError(f"query {name!r}: the percentile level must lie in [0, 100], got {level!r}")
    return level


def resolve_query(query: Query) -> ResolvedQuery:
    """Validate ``query`` and return its batch form.

    Raises ``ValueError`` for an unknown name (listing the valid ones) or a percentile outside [0, 100],
    and ``TypeError`` for anything that is neither a string nor a callable.
    """
    if isinstance(query, str):
        if query in _ROW_FUNCTIONS:
            return ResolvedQuery(query, _finite(query, _ROW_FUNCTIONS[query]))
        level = _percentile_level(query)
        if level is not None:
            return ResolvedQuery(query, _finite(query, lambda rows: np.percentile(rows, level, axis=1)))
        raise ValueError(
            f"query {query!r} is unknown; valid queries are {', '.join(QUERIES)}, "
            "'percentile_<p>' for any p in [0, 100], or a callable f(np.ndarray) -> float"
        )
    if callable(query):
        label = getattr(query, "__name__", repr(query))

        def on_rows(rows: np.ndarray) -> np.ndarray:
            return np.array([returned_real(f"query {label!r}", query(row)) for row in rows], dtype=float)

        return ResolvedQuery(label, _finite(label, on_rows))
    raise TypeError(f"query must be a query name (str) or a callable, got {type(query).__name__}")


def _finite(name: str, on_rows: BatchFunction) -> BatchFunction:
    """``on_rows`` that refuses non-finite query values.

    A sensitivity is a largest difference of query values. If a value overflowed (``inf``) or is NaN, the
    difference is unknown: ``inf - inf`` is NaN, which ``max`` silently drops, and ``mean`` of
    ``[1e308, 1e308]`` overflows to ``inf`` although the true mean is finite. So every engine path stops
    here with a ``ValueError`` instead of returning a wrong number. Finite values then give finite or
    ``inf`` differences, and ``inf`` only when the true difference exceeds the float64 range.
    """

    def checked(rows: np.ndarray) -> np.ndarray:
        with np.errstate(over="ignore", invalid="ignore"):  # reported below, with what to do about it
            out = on_rows(rows)
        if not np.isfinite(out).all():
            bad = out[~np.isfinite(out)][0]
            raise ValueError(
                f"query {name!r} is {bad} (float64 overflow or NaN) on a dataset of {rows.shape[1]} records drawn "
                "from the data (universe, release or data): an overflowed value cannot be compared, so no "
                "sensitivity can be computed from it; rescale the data (e.g. change units) so that sums and "
                "squares of the values stay below 1.8e308"
            )
        return out

    return checked


def check_data(data: Iterable[float] | np.ndarray, name: str = "data") -> np.ndarray:
    """Return ``data`` as a non-empty 1-D float array without NaN or infinity, in its original order.

    ``TypeError`` for anything that is not a flat sequence of real numbers (strings, booleans, None, ...; a
    boolean inside a list such as ``[True, 2, 3]`` too, as boolean arrays are) and for masked arrays (numpy would
    drop the mask and use the hidden values), ``ValueError`` for empty data, NaN/inf or more than one dimension;
    every message names ``name``.
    """
    if isinstance(data, (str, bytes)) or not (hasattr(data, "__len__") or hasattr(data, "__iter__")):
        raise TypeError(f"{name} must be a 1-D sequence of numbers, got a {type(data).__name__}")
    if isinstance(data, np.ma.MaskedArray):
        raise TypeError(f"{name} must not be a masked array: its masked values would be used; pass "
                        f"{name}.compressed() (the unmasked values) instead")
    source = data if hasattr(data, "__len__") else list(data)
    try:
        values = np.asarray(source)
    except (TypeError, ValueError) as err:
        raise TypeError(f"{name} must be a 1-D sequence of numbers: {err}") from None
    if values.dtype != object and isinstance(source, (list, tuple)) and values.ndim == 1 and any(
            isinstance(v, (bool, np.bool_)) or (isinstance(v, np.ndarray) and v.dtype == bool) for v in source):
        # numpy turned the booleans (Python, numpy scalars or 0-d boolean arrays) into numbers
        raise TypeError(f"{name} must hold real numbers (int or float), not booleans (numpy would read True as 1)")
    numeric = values.dtype.kind in "iuf" or (values.dtype == object and all(
        isinstance(v, numbers.Real) and not isinstance(v, bool) for v in values.ravel()))
    if not numeric:
        raise TypeError(f"{name} must be a 1-D sequence of numbers, i.e. {name} must hold real numbers "
                        f"(int or float); got values of dtype {values.dtype}")
    if values.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got an array of shape {values.shape}")
    if values.size == 0:
        raise ValueError(f"{name} must not be empty ({name} must hold at least one value)")
    if _beyond_exact_integers(values):
        raise ValueError(f"{name} holds integers beyond 2**53 = {EXACT_INTEGERS} in magnitude, which float64 "
                         f"would round silently; {name} must hold integers in [-2**53, 2**53] (shift or "
                         "rescale the data)")
    values = values.astype(float)
    if not np.isfinite(values).all():
        raise ValueError(f"{name} must hold finite numbers only, not NaN or infinity")
    return values


def _beyond_exact_integers(values: np.ndarray) -> bool:
    """Whether integer ``values`` (numpy or Python ints) include one of magnitude above :math:`2^{53}`."""
    if values.dtype.kind in "iu":
        return bool(((values > EXACT_INTEGERS) | (values < -EXACT_INTEGERS)).any())
    return values.dtype == object and any(
        isinstance(v, numbers.Integral) and abs(int(v)) > EXACT_INTEGERS for v in values.tolist())


def check_exact_sums(values: np.ndarray, size: int, name: str = "data") -> None:
    """Refuse whole-number data whose sums over ``size`` records would be rounded by float64.

    Integers of magnitude up to :math:`2^{53}` are exact in float64, and so is every partial sum numpy forms
    while it adds a dataset, as long as the sum of the absolute values stays within :math:`2^{53}`. On
    whole-number data the sensitivity engine then compares exact sums (e.g. ``[2**52, 2**52 + 1, 2**52 + 2]``
    would otherwise give a bounded sum sensitivity of 4 where the truth is 2). The bound used is the sum of
    the ``size`` largest absolute values. Data with fractional values follow float64 arithmetic (relative
    error of order ``size`` times 1e-16) and are not checked here.
    """
    if not (values == np.floor(values)).all():
        return
    largest = np.sort(np.abs(values))[values.size - min(size, values.size):]
    total = sum(int(v) for v in largest.tolist())  # exact: Python integers
    if total > EXACT_INTEGERS:
        raise ValueError(
            f"{name} holds whole numbers whose sums over {size} records reach {Decimal(total):.4g} > 2**53, where "
            f"float64 stops representing every integer, so query values would be rounded silently; shift or "
            f"rescale {name} (sums of absolute values of at most {size} of its records must stay <= 2**53)"
        )


def check_real(name: str, value: object, valid: str) -> float:
    """``value`` as a double, if it is a real number (int, float, Fraction, numpy; not a bool) that a double holds
    without overflow and without rounding a non-zero value to 0. ``valid`` states the valid range (``"a finite
    number > 0"``); the ``TypeError`` or ``ValueError`` names ``name`` and says it. NaN and infinity pass through:
    range checks are the caller's. Every scalar argument of the package goes through here, so a Python integer or
    fraction beyond the doubles gives this ``ValueError``, never an ``OverflowError`` or ``ZeroDivisionError``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be {valid}, got {type(value).__name__}")
    try:
        number = float(value)
    except OverflowError:
        raise ValueError(f"{name} must be {valid}, within the range of doubles (magnitude at most "
                         f"{_LARGEST_DOUBLE:.4g}); got a number of about 10^{_log10(value):.0f}") from None
    if number == 0 and value != 0:
        raise ValueError(f"{name} must be {valid}; got a number of about 10^{_log10(value):.0f}, too close to 0 for a "
                         "double (below 4.9e-324 in magnitude it rounds to 0)")
    return number


_LARGEST_DOUBLE = 1.7976931348623157e308


def returned_real(name: str, value: object) -> float:
    """What a user's callable (``name``: ``"query 'f'"``, ``"f"``, ...) returned, as a double: one real number (an
    int, float, Fraction, numpy number or 0-d numeric array), never a string, a bool or an array of several values,
    which ``float()`` would read silently. NaN and infinity pass through (the caller refuses them)."""
    if isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in "iuf":
        value = value[()]
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        shown = f"{value!r:.40}" if isinstance(value, (str, bytes, bool, np.bool_)) else f"of shape {np.shape(value)}"
        raise TypeError(f"{name} must return one real number (int or float), got {type(value).__name__} {shown}")
    return check_real(name, value, "a real number")


def _log10(value: numbers.Real) -> float:
    r""":math:`\log_{10} |v|` of a number too large for a double (an int, or a fraction of ints)."""
    numerator, denominator = value.as_integer_ratio() if hasattr(value, "as_integer_ratio") else (int(value), 1)
    return math.log10(abs(numerator)) - math.log10(denominator)


def check_int(name: str, value: object, low: int, high: int | None = None, *, high_label: str | None = None) -> int:
    """Return ``value`` as an int if it is a whole number (not a bool) with ``low <= value <= high``.

    ``TypeError`` for a non-integer, ``ValueError`` out of range; ``high_label`` says what the upper bound is
    (``"len(data) = 10"``) where a bare number would not.
    """
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__}")
    if value < low or (high is not None and value > high):
        upper = f" and <= {high_label or high}" if high is not None else ""
        raise ValueError(f"{name} must be >= {low}{upper}, got {value}")
    return int(value)


def as_dataset(data: Iterable[float] | np.ndarray, name: str = "data") -> np.ndarray:
    """:func:`check_data`, then sorted: a multiset in canonical order."""
    return np.sort(check_data(data, name))


def evaluate(query: Query, data: Iterable[float] | np.ndarray) -> float:
    """Evaluate ``query`` on the multiset ``data``.

    >>> evaluate("median", [10, 1, 3])
    3.0
    >>> evaluate("percentile_25", [1, 2, 3, 10])
    1.75
    """
    resolved = resolve_query(query)
    values = as_dataset(data)
    return float(resolved.on_rows(values[np.newaxis, :])[0])
