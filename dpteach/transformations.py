"""Stability of table transformations: flat maps, joins and per-ID truncation (notebook 08).

A transformation is *c-stable* when one protected change of its input grows into at most ``c``
changed rows of its output. A count after a c-stable transformation has sensitivity ``c``; a sum
clamped to ``[lower, upper]`` has sensitivity ``c * max(|lower|, |upper|)``. The noise then follows:

* pure epsilon-DP with the Laplace (or, for integers, geometric) mechanism: scale
  ``lambda = Delta_1 / epsilon`` (notebook 08 writes lambda, keeping ``a`` and ``b`` for the
  truncation bounds of a private join);
* rho-zCDP with the Gaussian mechanism: variance ``sigma^2 = Delta_2^2 / (2 rho)``.

Three neighbour relations appear in notebook 08:

* add/remove one row per private table (Tumult Analytics' ``AddOneRow`` on each table), for
  :func:`flat_map`, :func:`public_join` and :func:`private_join` with ``protect="row"``;
* add/remove one join-key value with all its rows in both tables, for :func:`private_join` with
  ``protect="key"`` (see there for where it comes from);
* add/remove all rows of one ID (``AddRowsWithID``), for :func:`truncate_rows_per_id` and
  :func:`truncate_groups_per_id`. Under this relation flat maps and joins that carry the ID column
  along do not change the protected change; only the truncation sets the factor.

Every transformation returns a :class:`Transformed`: the output table and its stability.
:func:`empirical_stability` tries every removal and every duplicate addition on a small input and
measures the largest change of a count or clamped sum: evidence that a bound holds on that input
and whether it is tight there, not a proof for all inputs.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import product
from numbers import Real
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd

from dpteach.queries import check_real

Noise = Literal["laplace", "gaussian"]
Norm = Literal["l1", "l2"]
Tables = pd.DataFrame | Mapping[str, pd.DataFrame]


@dataclass(frozen=True)
class Transformed:
    """A transformed table and its stability.

    ``stability`` bounds how many output rows one protected change can alter; ``norm`` is ``"l2"``
    only for the Gaussian per-ID rule (R * sqrt(G)), which bounds the L2 norm of a grouped count.
    """

    table: pd.DataFrame
    stability: float
    norm: Norm = "l1"


# --- input checks -------------------------------------------------------------------------------


def _check_table(table: object, name: str) -> pd.DataFrame:
    if not isinstance(table, pd.DataFrame):
        raise TypeError(f"{name} must be a pandas DataFrame, got {type(table).__name__}")
    return table


def _check_columns(table: pd.DataFrame, columns: Sequence[str], name: str, table_name: str) -> None:
    unhashable = [c for c in columns if not isinstance(c, Hashable)]
    if unhashable:
        raise TypeError(f"{name}: column names must be hashable (e.g. strings), got {unhashable!r}")
    missing = [c for c in columns if c not in table.columns]
    if missing:
        raise ValueError(
            f"{name}: column(s) {missing} missing from {table_name} (it has {list(table.columns)})"
        )


def _check_bound(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise TypeError(f"{name} must be an integer >= 1, got {value!r}")
    if value < 1:
        raise ValueError(f"{name} must be an integer >= 1, got {value}")
    return int(value)


def _check_positive(value: object, name: str) -> float:
    if isinstance(value, Real):
        check_real(name, value, "a finite number > 0")  # a Python number no double holds: ValueError
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise TypeError(f"{name} must be a number > 0, got {value!r}")
    if not value > 0 or not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number > 0, got {value}")
    return float(value)


def _check_flag(value: object, name: str) -> bool:
    if not isinstance(value, bool | np.bool_):
        raise TypeError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def _check_noise(noise: object) -> Noise:
    if noise not in ("laplace", "gaussian"):
        raise ValueError(f"noise must be 'laplace' (pure DP) or 'gaussian' (zCDP), got {noise!r}")
    return noise  # type: ignore[return-value]


def _check_protect(protect: object) -> Literal["key", "row"]:
    if protect not in ("key", "row"):
        raise ValueError(f"protect must be 'key' (one key, both tables) or 'row' (one row), got {protect!r}")
    return protect  # type: ignore[return-value]


def _as_columns(on: str | Sequence[str]) -> list[str]:
    if not isinstance(on, str | Sequence):
        raise TypeError(f"on must be a column name or a non-empty list of names, got {on!r}")
    columns = [on] if isinstance(on, str) else list(on)
    if not columns or not all(isinstance(c, str) for c in columns):
        raise TypeError(f"on must be a column name or a non-empty list of names, got {on!r}")
    return columns


def _keep_first(table: pd.DataFrame, by: list[str], limit: int) -> pd.DataFrame:
    """The first ``limit`` rows (in table order) of each group of ``by``."""
    return table[table.groupby(by, sort=False).cumcount() < limit].reset_index(drop=True)


# --- transformations ----------------------------------------------------------------------------


def flat_map(
    table: pd.DataFrame, func: Callable[[dict[str, Any]], Iterable[Mapping[str, Any]]], max_rows: int
) -> Transformed:
    """Replace each row by the rows ``func(row)`` returns, keeping at most ``max_rows`` of them.

    Each output row is the input row updated with one mapping from ``func``. Under add/remove one
    row, one input row yields at most ``max_rows`` output rows, so the stability is ``max_rows``,
    whatever the rows actually produce (notebook 08, the genres example).
    """
    table = _check_table(table, "table")
    if not callable(func):
        raise TypeError(f"func must be a callable row -> iterable of mappings, got {type(func).__name__}")
    max_rows = _check_bound(max_rows, "max_rows")
    rows = [
        {**row, **new}
        for row in table.to_dict("records")
        for _, new in zip(range(max_rows), func(row), strict=False)
    ]
    return Transformed(pd.DataFrame(rows, columns=_output_columns(table, rows)), max_rows)


def _output_columns(table: pd.DataFrame, rows: list[dict[str, Any]]) -> list[str]:
    extra = [c for row in rows for c in row if c not in table.columns]
    return [*table.columns, *dict.fromkeys(extra)]


def public_join(private: pd.DataFrame, public: pd.DataFrame, on: str | Sequence[str]) -> Transformed:
    """Inner join of a private table with a public table on the ``on`` columns.

    One private row meets every public row that shares its key, so under add/remove one row the
    stability is the largest number of public rows sharing one key value: ``max_k |public_k|``
    (notebook 08: a ZIP code in two states gives 2). It depends only on the public table.
    """
    private = _check_table(private, "private")
    public = _check_table(public, "public")
    columns = _as_columns(on)
    _check_columns(private, columns, "on", "the private table")
    _check_columns(public, columns, "on", "the public table")
    stability = int(public.groupby(columns).size().max()) if len(public) else 0
    return Transformed(private.merge(public, on=columns, how="inner"), stability)


def private_join(
    left: pd.DataFrame,
    right: pd.DataFrame,
    on: str | Sequence[str],
    left_max_records: int,
    right_max_records: int,
    protect: Literal["key", "row"] = "key",
) -> Transformed:
    """Truncate both private tables to their first ``*_max_records`` rows per key, then inner join.

    Write ``a = left_max_records``, ``b = right_max_records``, and for each key value ``k`` let
    ``x_k <= a`` and ``y_k <= b`` be its rows left after truncation; the join has ``x_k * y_k`` rows
    of key ``k``. The stability depends on what one protected change is (notebook 08):

    * ``protect="key"`` -- one key value together with all its rows in *both* tables is added or
      removed: user-level privacy when ``on`` identifies the person. This is not ``AddOneRow``. It
      is the relation Tumult Analytics declares with ``AddRowsWithID`` on both tables in one
      identifier space, the join key being the ID column; but Tumult does not use ``a * b`` there:
      under ``AddRowsWithID`` a join leaves the protected change as it is and a per-ID cap
      (``MaxRowsPerID``) must follow before aggregating; ``MaxRowsPerID(a * b)`` after the join gives
      the same factor, capping joined rows per user. Proof of the factor: the other keys keep
      their rows, and the protected key brings or takes ``x_k * y_k <= a * b`` joined rows, so the
      stability is ``a * b``. The topic guide prints this product, but in its ``AddMaxRows``
      (row-level) section, where it is not a bound (next point).
    * ``protect="row"`` -- add/remove one row in each table (at most one per table), Tumult's
      ``AddOneRow`` on both. Removing a kept row can let a dropped row of the same key in, so one
      change can swap two rows after truncation; each left row meets at most ``b`` right rows and
      each right row at most ``a`` left rows, so at most ``2 b + 2 a`` joined rows change: the
      stability Tumult Analytics uses, valid for any aggregation of the joined rows. (Tumult's
      ``TruncationStrategy`` docstring gives ``T_left S_right M_left + T_right S_left M_right`` with
      thresholds ``T``, strategy stabilities ``S = 2`` for ``DropExcess`` and ``M = 1`` rows per
      table under ``AddOneRow``; the two terms are added because both tables may change at once.)
      A plain count is not moved by a swap and has the smaller sensitivity ``a + b``
      (:func:`private_join_count_sensitivity`).
    """
    left = _check_table(left, "left")
    right = _check_table(right, "right")
    columns = _as_columns(on)
    _check_columns(left, columns, "on", "the left table")
    _check_columns(right, columns, "on", "the right table")
    a = _check_bound(left_max_records, "left_max_records")
    b = _check_bound(right_max_records, "right_max_records")
    protect = _check_protect(protect)
    joined = _keep_first(left, columns, a).merge(_keep_first(right, columns, b), on=columns, how="inner")
    return Transformed(joined, a * b if protect == "key" else 2 * (a + b))


def private_join_count_sensitivity(
    left_max_records: int, right_max_records: int, protect: Literal["key", "row"] = "key"
) -> int:
    """Largest change of the row count of :func:`private_join` under one protected change (notebook 08).

    With ``a = left_max_records`` and ``b = right_max_records``: ``a * b`` for ``protect="key"``
    (the stability itself) and ``a + b`` for ``protect="row"``. Proof for ``"row"``: the count is
    ``C = sum_k x_k y_k`` with ``x_k = min(a, L_k)`` and ``y_k = min(b, R_k)``, where ``L_k, R_k``
    are the rows of key ``k`` in each table before truncation. One row changes ``L_k`` by one at a
    single key, so ``x_k`` moves by at most 1 there and nowhere else; likewise ``y`` at a single
    key. Writing ``C' - C = sum_k (x'_k - x_k) y'_k + sum_k x_k (y'_k - y_k)``, each sum has at most
    one non-zero term, bounded by ``b`` and by ``a``: ``|C' - C| <= a + b``. The bound is reached
    when the two changes hit two keys, e.g. ``user_id`` values ``{1, 2, 2}`` in users and
    ``{1, 1, 2}`` in purchases with ``a = b = 2``: removing user 1's row from users takes 2 joined
    rows, removing user 2's purchase takes 2 more, so the count moves by 4 = a + b. If both changes
    hit the same key, ``x' y' - x y`` with ``|x' - x|, |y' - y| <= 1`` is at most ``a + b - 1``
    (two additions give ``x + y + 1`` with ``x + 1 <= a``, ``y + 1 <= b``). ``a + b`` exceeds
    ``a * b`` when ``a`` or ``b`` is 1, so the topic guide's product is no count bound under row
    protection; if only one table could change, ``max(a, b) <= a * b`` would bound the count.
    """
    a = _check_bound(left_max_records, "left_max_records")
    b = _check_bound(right_max_records, "right_max_records")
    protect = _check_protect(protect)
    return a * b if protect == "key" else a + b


def truncate_rows_per_id(table: pd.DataFrame, id_column: str, max_rows_per_id: int) -> Transformed:
    """Keep the first ``max_rows_per_id`` rows of each ID (Tumult's ``MaxRowsPerID``).

    Under add/remove all rows of one ID, the output loses or gains at most ``max_rows_per_id``
    rows: the stability is linear in the bound (notebook 08), under Laplace and Gaussian noise.
    """
    table = _check_table(table, "table")
    _check_columns(table, [id_column], "id_column", "the table")
    limit = _check_bound(max_rows_per_id, "max_rows_per_id")
    return Transformed(_keep_first(table, [id_column], limit), limit)


def grouped_truncation_factor(
    max_groups_per_id: int, max_rows_per_group_per_id: int, noise: Noise, grouped: bool = True
) -> float:
    """Sensitivity factor of ``MaxGroupsPerID`` G with ``MaxRowsPerGroupPerID`` R (notebook 08).

    One ID touches at most G groups with at most R rows each. A grouped count then changes by at
    most R in each of G cells: L1 norm ``R * G`` (Laplace, pure DP) and L2 norm ``R * sqrt(G)``
    (Gaussian, zCDP). The square root needs the query to group by that column (``grouped``);
    otherwise all R * G rows land in one number and the factor is ``R * G`` for both noises.
    """
    g = _check_bound(max_groups_per_id, "max_groups_per_id")
    r = _check_bound(max_rows_per_group_per_id, "max_rows_per_group_per_id")
    grouped = _check_flag(grouped, "grouped")
    return r * math.sqrt(g) if _check_noise(noise) == "gaussian" and grouped else float(r * g)


def truncate_groups_per_id(
    table: pd.DataFrame,
    id_column: str,
    group_column: str,
    max_groups_per_id: int,
    max_rows_per_group_per_id: int,
    noise: Noise,
    grouped: bool = True,
) -> Transformed:
    """Keep each ID's first G groups and, in each group, its first R rows.

    This is Tumult's ``MaxGroupsPerID`` G together with ``MaxRowsPerGroupPerID`` R (notebook 08).

    Under add/remove all rows of one ID the stability is :func:`grouped_truncation_factor`:
    ``R * G`` with Laplace noise, ``R * sqrt(G)`` (an L2 bound) with Gaussian noise when the query
    groups by ``group_column``. The truncation itself is ``R * G``-stable in rows whatever the noise; with
    ``noise="gaussian"`` the ``stability`` field holds the L2 factor of the grouped count, not a row count.
    """
    table = _check_table(table, "table")
    _check_columns(table, [id_column, group_column], "id_column/group_column", "the table")
    factor = grouped_truncation_factor(max_groups_per_id, max_rows_per_group_per_id, noise, grouped)
    pairs = table[[id_column, group_column]].drop_duplicates()
    kept = _keep_first(pairs, [id_column], max_groups_per_id)
    limited = table.merge(kept, on=[id_column, group_column], how="inner")
    truncated = _keep_first(limited, [id_column, group_column], max_rows_per_group_per_id)
    return Transformed(truncated, factor, "l2" if noise == "gaussian" else "l1")


# --- noise --------------------------------------------------------------------------------------


def laplace_scale(sensitivity: float, epsilon: float) -> float:
    """Laplace (or geometric) scale ``lambda = Delta_1 / epsilon`` for pure epsilon-DP (notebook 08)."""
    return _check_positive(sensitivity, "sensitivity") / _check_positive(epsilon, "epsilon")


def gaussian_variance(sensitivity: float, rho: float) -> float:
    """Gaussian variance ``sigma^2 = Delta_2^2 / (2 rho)`` for rho-zCDP (notebook 08, appendix A2)."""
    return _check_positive(sensitivity, "sensitivity") ** 2 / (2 * _check_positive(rho, "rho"))


def zcdp_rho_for(epsilon: float, delta: float) -> float:
    """The largest rho whose rho-zCDP guarantee implies (epsilon, delta)-DP (appendix A2).

    rho-zCDP implies (rho + 2 sqrt(rho ln(1/delta)), delta)-DP (Bun and Steinke, 2016); solving for
    rho gives ``(sqrt(ln(1/delta) + epsilon) - sqrt(ln(1/delta)))**2``. It puts Gaussian noise and
    pure-DP Laplace noise on a comparable footing.

    The float is rounded down: the returned rho, converted back with the formula above in floating point,
    never gives an epsilon above the target (the calibration errs on the safe side, by an ulp or so).
    """
    epsilon = _check_positive(epsilon, "epsilon")
    if isinstance(delta, bool) or not isinstance(delta, float | int) or not 0 < delta < 1:
        raise ValueError(f"delta must be a number in (0, 1), got {delta!r}")
    log_term = math.log(1 / delta)
    rho = (math.sqrt(log_term + epsilon) - math.sqrt(log_term)) ** 2
    while rho > 0 and _zcdp_epsilon(rho, delta) > epsilon:
        rho = math.nextafter(rho, 0.0)
    return rho


def _zcdp_epsilon(rho: float, delta: float) -> float:
    """The epsilon of the (epsilon, delta)-DP guarantee that rho-zCDP implies (appendix A2):
    ``rho + 2 sqrt(rho ln(1/delta))`` (Bun and Steinke, 2016)."""
    return rho + 2 * math.sqrt(rho * math.log(1 / delta))


def gaussian_beats_laplace_from(sigma_per_unit: float, epsilon: float) -> int:
    """Smallest ``G = MaxGroupsPerID`` at which Gaussian noise on each group's count is smaller (appendix A2).

    Take ``R = 1`` (a larger ``R`` multiplies both noises alike). Laplace noise for pure epsilon-DP
    has scale ``G / epsilon``, so standard deviation ``sqrt(2) G / epsilon``; a Gaussian mechanism
    calibrated to ``sigma_per_unit`` per unit of L2 sensitivity has ``sigma_per_unit * sqrt(G)``.
    The Gaussian is smaller exactly when ``G > (epsilon * sigma_per_unit)^2 / 2``, so the answer is
    ``floor((epsilon * sigma_per_unit)^2 / 2) + 1``, computed in exact rational arithmetic from the
    two floats given. ``sigma_per_unit`` comes from the calibration: ``sqrt(1 / (2 rho))`` for
    rho-zCDP (with rho from :func:`zcdp_rho_for`), or the analytic Gaussian sigma at sensitivity 1
    (``dpteach.mechanisms.analytic_gaussian_sigma``).
    """
    sigma = Fraction(_check_positive(sigma_per_unit, "sigma_per_unit"))
    threshold = (Fraction(_check_positive(epsilon, "epsilon")) * sigma) ** 2 / 2
    return math.floor(threshold) + 1


# --- aggregations and the empirical check -------------------------------------------------------


@dataclass(frozen=True)
class Count:
    """Count rows, in total or per value of ``by``. One changed row moves it by 1."""

    by: str | None = None

    def __post_init__(self) -> None:
        _check_by(self.by)

    def __call__(self, table: pd.DataFrame) -> pd.Series:
        return _aggregate(table, self.by, pd.Series(1.0, index=table.index))

    @property
    def per_row(self) -> float:
        return 1.0


@dataclass(frozen=True)
class ClampedSum:
    """Sum of ``column`` clamped to ``[lower, upper]``; one row moves it by ``max(|lower|, |upper|)``."""

    column: str
    lower: float
    upper: float
    by: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.column, str):
            raise TypeError(f"column must be a column name (str), got {self.column!r}")
        for name, value in (("lower", self.lower), ("upper", self.upper)):
            if isinstance(value, Real):
                check_real(name, value, "a finite real number")  # a Python number no double holds: ValueError
            if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
                raise TypeError(f"{name} must be a real number, got {value!r}")
            if not math.isfinite(value):
                raise ValueError(f"{name} must be finite, got {value}")
        if not self.lower <= self.upper:
            raise ValueError(f"need lower <= upper, got lower={self.lower}, upper={self.upper}")
        _check_by(self.by)

    def __call__(self, table: pd.DataFrame) -> pd.Series:
        _check_columns(table, [self.column], "column", "the transformed table")
        return _aggregate(table, self.by, table[self.column].astype(float).clip(self.lower, self.upper))

    @property
    def per_row(self) -> float:
        return max(abs(self.lower), abs(self.upper))


def _check_by(by: object) -> None:
    if by is not None and not isinstance(by, str):
        raise TypeError(f"by must be a column name (str) or None, got {by!r}")


def _aggregate(table: pd.DataFrame, by: str | None, values: pd.Series) -> pd.Series:
    if by is None:
        return pd.Series({"total": float(values.sum())})
    _check_columns(table, [by], "by", "the transformed table")
    return values.groupby(table[by]).sum()


@dataclass(frozen=True)
class StabilityCheck:
    """Result of :func:`empirical_stability`: the promised bound and the largest change seen."""

    bound: float
    observed: float
    norm: Norm
    worst_change: str
    neighbours: int

    @property
    def holds(self) -> bool:
        return self.observed <= self.bound + 1e-9

    @property
    def tight(self) -> bool:
        return math.isclose(self.observed, self.bound)


    def summary(self) -> dict[str, Any]:
        """One row for a table of checks: bound, largest change seen, and the change that caused it."""
        return {
            "bound": round(self.bound, 3),
            "largest change seen": round(self.observed, 3),
            "norm": self.norm,
            "holds": self.holds,
            "tight": self.tight,
            "worst protected change": self.worst_change,
            "neighbours tried": self.neighbours,
        }


Step = Callable[[Any], Transformed]


def empirical_stability(
    tables: Tables,
    steps: Sequence[Step],
    aggregate: Count | ClampedSum,
    change: Literal["row", "id"] = "row",
    id_column: str | None = None,
) -> StabilityCheck:
    """Try every removal and every duplicate addition on ``tables``; report the largest change.

    ``tables`` is one DataFrame or a dict of them (for a private join). ``steps`` run in order: the
    first receives ``tables``, each later one the previous output table; their stabilities
    multiply. The bound is ``product of stabilities * aggregate.per_row``, compared with the
    largest L1 (or, for the Gaussian rule, L2) change of the aggregate. Protected changes:

    * ``change="row"``: in each table, remove one row, add a copy of one row, or leave it alone
      (at least one table changes) -- add/remove one row per table, as ``AddOneRow`` does;
    * ``change="id"``: remove all rows of one ``id_column`` value from every table, or add a new
      ID whose rows copy an existing ID's rows -- add/remove all rows of one ID.

    Added rows copy existing ones (no brand-new row is tried), so the search is evidence on this
    input, not a proof: the bound is tight only if a worst-case row is present, and a wrong bound
    can pass on an input that lacks its counterexample.
    """
    if not isinstance(tables, pd.DataFrame | Mapping):
        raise TypeError(f"tables must be a DataFrame or a dict of them, got {type(tables).__name__}")
    named = {"table": tables} if isinstance(tables, pd.DataFrame) else dict(tables)
    for name, table in named.items():
        _check_table(table, f"tables[{name!r}]")
    if not isinstance(steps, Sequence) or isinstance(steps, str) or not all(callable(s) for s in steps):
        raise TypeError(f"steps must be a list of callables (transformations), got {steps!r}")
    if not steps:
        raise ValueError("steps must contain at least one transformation")
    if not isinstance(aggregate, Count | ClampedSum):
        raise TypeError(f"aggregate must be a Count or a ClampedSum, got {type(aggregate).__name__}")
    if change not in ("row", "id"):
        raise ValueError(f"change must be 'row' (one row) or 'id' (all rows of one ID), got {change!r}")
    if change == "id":
        if id_column is None or not any(id_column in t.columns for t in named.values()):
            raise ValueError(f"change='id' needs id_column naming a column of the tables, got {id_column!r}")

    def run(current: dict[str, pd.DataFrame]) -> tuple[pd.Series, float, Norm]:
        data: Any = current["table"] if isinstance(tables, pd.DataFrame) else current
        stability, norm = 1.0, "l1"
        for step in steps:
            result = step(data)
            data, stability = result.table, stability * result.stability
            norm = "l2" if result.norm == "l2" else norm
        return aggregate(data), stability, norm

    base, stability, norm = run(named)
    neighbours = list(_row_neighbours(named) if change == "row" else _id_neighbours(named, str(id_column)))
    observed, worst = 0.0, "none"
    for label, neighbour in neighbours:
        diff = base.sub(run(neighbour)[0], fill_value=0.0).to_numpy()
        size = float(np.abs(diff).sum() if norm == "l1" else np.sqrt((diff**2).sum()))
        if size > observed:
            observed, worst = size, label
    return StabilityCheck(stability * aggregate.per_row, observed, norm, worst, len(neighbours))


def _single_table_changes(table: pd.DataFrame) -> Iterator[tuple[str, pd.DataFrame]]:
    for i in range(len(table)):
        yield f"remove row {i}", table.drop(index=table.index[i]).reset_index(drop=True)
        yield f"add a copy of row {i}", pd.concat([table, table.iloc[[i]]], ignore_index=True)


def _row_neighbours(tables: dict[str, pd.DataFrame]) -> Iterator[tuple[str, dict[str, pd.DataFrame]]]:
    options = [[("", t), *_single_table_changes(t)] for t in tables.values()]
    for combo in product(*options):
        labels = [f"{name}: {label}" if len(tables) > 1 else label
                  for name, (label, _) in zip(tables, combo, strict=True) if label]
        if labels:
            yield "; ".join(labels), {name: t for name, (_, t) in zip(tables, combo, strict=True)}


def _id_neighbours(
    tables: dict[str, pd.DataFrame], id_column: str
) -> Iterator[tuple[str, dict[str, pd.DataFrame]]]:
    with_ids = [t[id_column] for t in tables.values() if id_column in t.columns]
    ids = list(dict.fromkeys(v for column in with_ids for v in column))
    for value in ids:
        fresh = _fresh_id(ids, value)
        yield f"remove ID {value!r}", {
            name: t[t[id_column] != value].reset_index(drop=True) if id_column in t.columns else t
            for name, t in tables.items()
        }
        yield f"add a new ID copying {value!r}", {
            name: _with_copy(t, id_column, value, fresh) if id_column in t.columns else t
            for name, t in tables.items()
        }


def _fresh_id(ids: list[Any], value: Any) -> Any:
    if all(isinstance(v, int | np.integer) for v in ids):
        return max(ids) + 1
    return f"{value}-copy"


def _with_copy(table: pd.DataFrame, id_column: str, value: Any, fresh: Any) -> pd.DataFrame:
    copy = table[table[id_column] == value].assign(**{id_column: fresh})
    return pd.concat([table, copy], ignore_index=True)


# --- the small tables of notebook 08 and the Tumult cross-check ---------------------------------

CROSSCHECK_FILE = Path(__file__).resolve().parent.parent / "data" / "tumult_crosscheck.json"


def split_genres(row: Mapping[str, Any]) -> list[dict[str, str]]:
    """One ``{"genre": ...}`` per entry of the ``;``-separated ``genres`` field (notebook 08 flat map)."""
    if not isinstance(row, Mapping) or "genres" not in row:
        raise ValueError(f"row must be a mapping with a 'genres' field, got {row!r}")
    return [{"genre": genre} for genre in str(row["genres"]).split(";")]


def example_tables() -> dict[str, pd.DataFrame]:
    """The made-up tables of notebook 08, also used by ``tumult/crosscheck.py``.

    ``people`` (genres to flat-map), ``residents`` with the public ``zip_states`` (ZIP 37752 lies in
    two states), ``users`` and ``purchases`` (private join on ``user_id``), and ``visits`` (one row
    per clinic visit, privacy ID ``patient_id``).
    """
    return {
        "people": pd.DataFrame(
            {
                "name": ["Ada", "Bo", "Cleo", "Dev"],
                "genres": ["drama;comedy;horror;jazz", "drama", "comedy;drama", "horror;comedy;drama"],
            }
        ),
        "residents": pd.DataFrame(
            {"name": ["Ada", "Bo", "Susie", "Dev"], "age": [34, 51, 27, 45],
             "zipcode": [10001, 60601, 37752, 94105]}
        ),
        "zip_states": pd.DataFrame(
            {"zipcode": [10001, 60601, 37752, 37752, 94105], "state": ["NY", "IL", "TN", "KY", "CA"]}
        ),
        "users": pd.DataFrame({"user_id": [1, 2, 3], "name": ["Ada", "Bo", "Cleo"]}),
        "purchases": pd.DataFrame(
            {"user_id": [1, 1, 1, 2, 3, 3], "item": ["book", "pen", "lamp", "book", "mug", "pen"]}
        ),
        "visits": pd.DataFrame(
            {
                "patient_id": [1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3],
                "clinic": ["north", "north", "north", "south", "south", "east", "east", "west",
                           "north", "south", "east"],
            }
        ),
    }


def dpteach_factor(case: Mapping[str, Any]) -> float:
    """The factor ``dpteach.transformations`` gives for one case of ``data/tumult_crosscheck.json``."""
    if not isinstance(case, Mapping) or "case" not in case or not isinstance(case.get("params"), Mapping):
        raise ValueError(f"case must be a mapping with 'case' and 'params' entries, got {case!r}")
    tables, params = example_tables(), dict(case["params"])
    name = case["case"]
    if name == "flat_map":
        return flat_map(tables["people"], split_genres, params["max_rows"]).stability
    if name == "public_join":
        return public_join(tables["residents"], tables["zip_states"], params["on"]).stability
    if name == "private_join":
        return private_join(tables["users"], tables["purchases"], "user_id", protect="row", **params).stability
    if name == "max_rows_per_id":
        return truncate_rows_per_id(tables["visits"], "patient_id", **params).stability
    if name == "max_groups_per_id":
        visits = tables["visits"]
        return truncate_groups_per_id(visits, "patient_id", "clinic", noise=case["noise"], **params).stability
    raise ValueError(f"case: unknown cross-check case {name!r}")


def crosscheck_table(path: str | Path = CROSSCHECK_FILE) -> pd.DataFrame:
    """Tumult's factors (from ``make tumult-check``) next to this module's, one row per case (notebook 08).

    ``tumult_noise_parameter`` is the noise Tumult chose: the geometric scale under pure ε-DP, the variance of the
    discrete Gaussian under ρ-zCDP."""
    if not isinstance(path, str | Path):
        raise TypeError(f"path must be a str or a Path, got {type(path).__name__}")
    cases = json.loads(Path(path).read_text())["cases"]
    rows = [
        {
            "case": case["case"],
            "noise": case.get("noise", "laplace"),
            "params": ", ".join(f"{k}={v}" for k, v in case["params"].items()),
            "tumult_mechanism": case["noise_mechanism"],
            "tumult_factor": case["factor"],
            "tumult_noise_parameter": case["noise_parameter"],
            "dpteach_factor": round(dpteach_factor(case), 9),
        }
        for case in cases
    ]
    table = pd.DataFrame(rows)
    return table.assign(agree=np.isclose(table["tumult_factor"], table["dpteach_factor"]))
