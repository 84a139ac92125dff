"""Sensitivity in a real library: OpenDP's stability maps beside ``dpteach``'s exact values (notebook 09).

OpenDP (https://opendp.org) builds a query as a chain of *transformations*. Each one declares an input domain
(which datasets are allowed: element type, bounds, a known size) and an input metric (how distance between
datasets is counted), and carries a *stability map*: ``t.map(d_in)`` is an upper bound on the distance between the
outputs of any two allowed inputs at distance at most ``d_in``. With an absolute-distance output, it is an upper
bound on the global sensitivity at distance ``d_in``, not necessarily equal to it. For a randomized step (the
resize of the mean, the random subset of the unsized float sum) the bound holds for two runs that share their
randomness (a coupling), not for two independent runs. The course's words map onto OpenDP's as follows:

* ``SymmetricDistance`` counts added plus removed records, :math:`|x \\triangle x'|`: ``dpteach``'s
  ``relation="symmetric"`` at :math:`k = d_{in}` (add/remove DP, groups of :math:`k`), with one difference:
  ``dpteach`` leaves out the empty dataset (its queries are undefined there), while ``SymmetricDistance`` also
  relates it;
* a domain with a known ``size`` and ``ChangeOneDistance`` counts changed records: ``relation="bounded"``. OpenDP
  turns it into ``SymmetricDistance`` with ``make_metric_unbounded`` (a change is one removal and one addition, so
  :math:`d_{in} = k` becomes :math:`2k`).

:func:`comparison_table` lays the two side by side on the replicated universe of notebook 02 (every value of a grid
on :math:`[L, U]` repeated :math:`n` times, :func:`dpteach.replicate`). In exact arithmetic, at distance
:math:`k`:

* count: add/remove :math:`k` (each record moves the count by one); bounded :math:`0` (a sized dataset's count is
  its size), while OpenDP's count, which does not use the size, reports :math:`2k`;
* sum of integers: add/remove :math:`k \\max(|L|, |U|)` (each added or removed record moves the sum by its value),
  bounded :math:`k (U - L)` (each change moves it by at most the width);
* sum of floats: OpenDP's unsized float sum keeps a random subset of at most ``size_limit`` records
  (:data:`OPENDP_SIZE_LIMIT`), so adding a record to a full dataset can push another out: a change. One unit
  of distance therefore costs :math:`\\max(U - L, |L|, |U|)` (an addition alone at most :math:`\\max(|L|, |U|)`,
  an addition that pushes a record out at most :math:`U - L`; bounds :math:`(5, 7)` give 7, :math:`(-3, 7)`
  give 10), plus an allowance for rounding that grows with ``size_limit``. The bound covers every dataset the
  unsized domain holds, so it is charged on small datasets too. ``dpteach``
  on fractional data returns its exact value rounded *up* by its own small allowance
  (:func:`dpteach.exact.round_up`), never below enumeration's floating-point value, as :mod:`dpteach.exact`
  promises (:func:`real_value`, :func:`padding_table`);
* mean: bounded :math:`k (U - L) / n`. ``dpteach``'s add/remove values hold for releases of exactly :math:`n`
  records (the fixed-:math:`n` convention of notebook 02): at :math:`k = 1` the plain mean moves by
  :math:`(U - L)/n`, so with a secret size it has no such bound (a release of 2 records moves by
  :math:`(U - L)/2`). OpenDP's add/remove domain has no size, and its mean needs one, so the pipeline first
  resizes to a public :math:`n` (a random subset, or padding with a constant), a different, randomized
  function: it reports :math:`k (U - L) / n` at every :math:`k` and every input size. ``dpteach``'s exact value
  for the plain mean is :math:`\\min(k, n - 1)(U - L)/n` for :math:`k \\le n` (a neighbour within distance
  :math:`n` keeps at least one record of a release of :math:`n`, since it is never empty), and :math:`U - L` from
  :math:`k = n + 1` on, where a release of :math:`n` records at :math:`L` and a disjoint neighbour at :math:`U`
  are at distance :math:`n + 1`.

The second half of the lesson is floating point (Casacuberta, Shoemate, Vadhan & Wagaman, "Widespread
Underestimation of Sensitivity in Differentially Private Libraries and How to Fix It", CCS 2022):
:func:`rounding_pair` builds two neighbouring datasets whose *computed* sums differ by more than the ideal bound,
and :func:`rounding_gaps` searches the small value that makes it happen.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import numpy as np
import opendp.prelude as dp
import pandas as pd

from dpteach.sensitivity import global_sensitivity, replicate

QUERIES: tuple[str, ...] = ("count", "integer sum", "float sum", "mean")
NEIGHBOURS: tuple[str, ...] = ("add/remove", "change-one")
# The dpteach relation that each OpenDP setting corresponds to.
RELATION = {"add/remove": "symmetric", "change-one": "bounded"}
# The size limit OpenDP's ``then_sum`` uses for floats when the dataset size is unknown (2**20 records): the
# tests check it against ``make_bounded_float_checked_sum``.
OPENDP_SIZE_LIMIT = 2**20
SOURCES = {"opendp": "OpenDP", "dpteach": "dpteach"}  # dpteach: the exact value plus a rounding allowance
GRID_STEP = {"count": 1.0, "integer sum": 1.0, "float sum": 0.5, "mean": 0.5}

Bounds = tuple[float, float]


def _check_bounds(bounds: object) -> Bounds:
    if not isinstance(bounds, tuple) or len(bounds) != 2:
        raise TypeError(f"bounds must be a tuple (lower, upper), got {bounds!r}")
    lower, upper = (float(b) for b in bounds)
    if not (math.isfinite(lower) and math.isfinite(upper) and lower < upper):
        raise ValueError(f"bounds must be finite with lower < upper, got {bounds!r}")
    if not (lower.is_integer() and upper.is_integer()):
        raise ValueError(f"bounds must be whole numbers (the integer queries use them as ints), got {bounds!r}")
    return lower, upper


def _check_choice(name: str, value: object, options: tuple[str, ...]) -> str:
    if value not in options:
        raise ValueError(f"{name} must be one of {options}, got {value!r}")
    return value  # type: ignore[return-value]


def _check_whole(name: str, value: object, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < low:
        raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
    return int(value)


def opendp_transformation(query: str, neighbours: str, bounds: Bounds, size: int) -> dp.Transformation:
    """OpenDP's transformation for ``query`` under ``neighbours``, its input distance counted as ``dpteach``'s k.

    * ``"add/remove"``: datasets of any size, ``SymmetricDistance``; the data are clamped to ``bounds``
      (``make_clamp``); the mean is resized to ``size`` records first (``make_resize``: keep a random subset or pad
      with the middle of the bounds), since OpenDP's mean needs a known size.
    * ``"change-one"``: datasets of exactly ``size`` records inside ``bounds``, ``ChangeOneDistance``, turned into
      ``SymmetricDistance`` by ``make_metric_unbounded``.

    Enables OpenDP's ``contrib`` feature: these constructors are in it (their proofs have not completed OpenDP's
    vetting process).
    """
    _check_choice("query", query, QUERIES)
    _check_choice("neighbours", neighbours, NEIGHBOURS)
    lower, upper = _check_bounds(bounds)
    size = _check_whole("size", size, 2)
    dp.enable_features("contrib")
    integer = query in ("count", "integer sum")
    typed: tuple = (int(lower), int(upper)) if integer else (lower, upper)
    if neighbours == "change-one":
        atoms = dp.atom_domain(bounds=typed) if integer else dp.atom_domain(bounds=typed, nan=False)
        space = (dp.vector_domain(atoms, size=size), dp.change_one_distance()) >> dp.t.then_metric_unbounded()
    else:
        atoms = dp.atom_domain(T=int) if integer else dp.atom_domain(T=float, nan=False)
        space = (dp.vector_domain(atoms), dp.symmetric_distance()) >> dp.t.then_clamp(typed)
        if query == "mean":
            space = space >> dp.t.then_resize(size=size, constant=(lower + upper) / 2)
    if query == "count":
        return space >> dp.t.then_count()
    return space >> (dp.t.then_mean() if query == "mean" else dp.t.then_sum())


def opendp_bound(query: str, neighbours: str, bounds: Bounds, size: int, k: int) -> float:
    """OpenDP's sensitivity at distance ``k``: the stability map of :func:`opendp_transformation` at ``d_in = k``."""
    k = _check_whole("k", k, 1)
    return float(opendp_transformation(query, neighbours, bounds, size).map(k))


def replicated_universe(query: str, bounds: Bounds, size: int) -> np.ndarray:
    """Notebook 02's scenario (b): the grid of ``bounds`` (whole numbers for the count and the integer sum, halves
    for the float sum and the mean) with every value repeated ``size`` times."""
    _check_choice("query", query, QUERIES)
    lower, upper = _check_bounds(bounds)
    step = GRID_STEP[query]
    grid = lower + step * np.arange(round((upper - lower) / step) + 1)
    return replicate(grid, _check_whole("size", size, 2))


def dpteach_value(query: str, neighbours: str, bounds: Bounds, size: int, k: int) -> float:
    """The exact global sensitivity on :func:`replicated_universe` (releases of ``size`` records, distance ``k``),
    with ``relation="symmetric"`` for add/remove and ``"bounded"`` for change-one. NaN for change-one at
    ``k >= size``, where ``dpteach``'s bounded relation is not defined (``1 <= k < size``)."""
    _check_choice("neighbours", neighbours, NEIGHBOURS)
    size, k = _check_whole("size", size, 2), _check_whole("k", k, 1)
    if neighbours == "change-one" and k >= size:
        return math.nan
    name = "sum" if query.endswith("sum") else query
    universe = replicated_universe(query, bounds, size)
    return float(global_sensitivity(universe, size, name, k=k, relation=RELATION[neighbours]))


def comparison_table(bounds: Bounds = (-3, 7), size: int = 4, distances: Iterable[int] = (1, 2, 3, 4),
                     queries: Sequence[str] = QUERIES) -> pd.DataFrame:
    """One row per (query, neighbours, k): OpenDP's bound, ``dpteach``'s exact value and their difference."""
    rows = [
        {"query": query, "neighbours": neighbours, "k": k,
         "opendp": opendp_bound(query, neighbours, bounds, size, k),
         "dpteach": dpteach_value(query, neighbours, bounds, size, k)}
        for query in queries for neighbours in NEIGHBOURS for k in distances
    ]
    table = pd.DataFrame(rows)
    return table.assign(difference=table["opendp"] - table["dpteach"])


def side_by_side(table: pd.DataFrame, queries: Sequence[str] = QUERIES) -> pd.DataFrame:
    """Rows of :func:`comparison_table` for ``queries``, one row per (query, neighbours, source), a column per k; the
    sources labelled as in :data:`SOURCES` (``OpenDP``, ``dpteach``)."""
    chosen = table[table["query"].isin(queries)].rename(columns=SOURCES)
    labels = list(SOURCES.values())
    long = chosen.melt(id_vars=["query", "neighbours", "k"], value_vars=labels, var_name="source")
    wide = long.pivot(index=["query", "neighbours", "source"], columns="k", values="value")
    order = [(q, nb, s) for q in queries for nb in NEIGHBOURS for s in labels]
    return wide.reindex([row for row in order if row in wide.index])


FLOAT_QUERIES: tuple[str, ...] = ("float sum", "mean")


def real_value(query: str, neighbours: str, source: str, bounds: Bounds, size: int, k: int) -> float:
    """The real-arithmetic value that ``source``'s float number (:func:`opendp_bound` or :func:`dpteach_value`)
    pads for rounding, for :math:`1 \\le k \\le n` (module docstring):

    * OpenDP: :math:`k \\max(U - L, |L|, |U|)` for the float sum (unsized: an addition costs at most
      :math:`\\max(|L|, |U|)`, and truncation can turn it into a change, :math:`U - L`), and :math:`k (U - L)/n`
      for the mean;
    * ``dpteach``: the float sum :math:`k \\max(|L|, |U|)` (add/remove) or :math:`k (U - L)` (change-one); the mean
      :math:`\\min(k, n - 1)(U - L)/n` (add/remove: at most :math:`n - 1` records can leave, and for
      :math:`k \\le n` adding records moves the mean less) or :math:`k (U - L)/n` (change-one).
    """
    _check_choice("query", query, FLOAT_QUERIES)
    _check_choice("neighbours", neighbours, NEIGHBOURS)
    _check_choice("source", source, tuple(SOURCES))
    lower, upper = _check_bounds(bounds)
    size = _check_whole("size", size, 2)
    k = _check_whole("k", k, 1)
    if k > size:
        raise ValueError(f"k must be at most size = {size} (the formulas hold for 1 <= k <= n), got {k}")
    if query == "float sum":
        widest = max(abs(lower), abs(upper))
        if source == "dpteach":
            return k * (widest if neighbours == "add/remove" else upper - lower)
        return k * (max(upper - lower, widest) if neighbours == "add/remove" else upper - lower)
    moved = min(k, size - 1) if source == "dpteach" and neighbours == "add/remove" else k
    return moved * (upper - lower) / size


def padding_table(table: pd.DataFrame, bounds: Bounds, size: int) -> pd.DataFrame:
    """For the float queries of :func:`comparison_table` (computed with ``bounds`` and ``size``): per (query,
    neighbours, source), the real value it pads (:func:`real_value`, as a formula in :math:`k`) and, per
    :math:`k`, the padding: the float number minus that real value."""
    lower, upper = _check_bounds(bounds)
    rows = []
    for (query, neighbours), group in table[table["query"].isin(FLOAT_QUERIES)].groupby(
            ["query", "neighbours"], sort=False):
        for source, label in SOURCES.items():
            formula = f"{real_value(query, neighbours, source, bounds, size, 1):g}k"
            if query == "mean" and source == "dpteach" and neighbours == "add/remove":
                formula = f"{(upper - lower) / size:g} min(k, {size - 1})"
            row = {"query": query, "neighbours": neighbours, "source": label, "real value": formula}
            for k, value in zip(group["k"], group[source], strict=True):
                row[k] = value - real_value(query, neighbours, source, bounds, size, int(k))
            rows.append(row)
    return pd.DataFrame(rows).set_index(["query", "neighbours", "source"])


def padded_text(table: pd.DataFrame, bounds: Bounds, size: int, allowance: bool = True,
                queries: Sequence[str] = FLOAT_QUERIES) -> str:
    """The rows of :func:`side_by_side` for ``queries`` as text, each float number split in two, "real value +
    rounding allowance" (:func:`real_value`; the allowance with two significant digits), a dash where ``dpteach``'s
    relation is not defined, one column per :math:`k`; with ``allowance=False`` only the real values. Counts and
    integer sums are exact and printed whole."""
    wide = side_by_side(table, queries)
    cells = {}
    for k in wide.columns:
        def text(row: pd.Series, k: int = int(k)) -> str:
            value = row[k]
            query, neighbours, source = row.name
            if math.isnan(value) or query not in FLOAT_QUERIES:
                return shortest(value)
            real = real_value(query, neighbours, _SOURCE_KEY[source], bounds, size, k)
            return f"{real:g} + {value - real:.1e}" if allowance else f"{real:g}"
        cells[f"k = {k}"] = wide.apply(text, axis=1)
    frame = pd.DataFrame(cells)
    frame.columns.name = "real + allowance" if allowance else "real value"
    return frame.to_string()


_SOURCE_KEY = {label: key for key, label in SOURCES.items()}


def shortest(value: float) -> str:
    """A number as text: whole numbers without decimals, others with the shortest digits that round-trip (so
    ``7.0000000000001625`` is not shown as 7), NaN as a dash."""
    if math.isnan(value):
        return "-"
    return f"{value:.0f}" if float(value).is_integer() else repr(float(value))


def as_text(frame: pd.DataFrame) -> str:
    """``frame`` printed with :func:`shortest` for every number."""
    return frame.map(shortest).to_string()


# ---------------------------------------------------------------------------------------------------------------
# Floating-point sums
# ---------------------------------------------------------------------------------------------------------------


def sequential_sum(values: Sequence[float] | np.ndarray, dtype: type = np.float32) -> float:
    """The sum as a running total in ``dtype``, left to right (one rounding per addition), as a float.

    This is the summation whose rounding the CCS 2022 paper exploits; numpy's ``np.sum`` adds in pairs and would
    hide it."""
    data = np.asarray(values, dtype=dtype)
    if data.ndim != 1:
        raise ValueError(f"values must be one-dimensional, got shape {data.shape}")
    return float(np.add.accumulate(data)[-1]) if data.size else 0.0


def rounding_pair(fraction: float, count: int, big: float = 1.0,
                  dtype: type = np.float32) -> tuple[np.ndarray, np.ndarray]:
    """Neighbours under add/remove: :math:`x` holds ``count`` copies of :math:`s` = ``fraction`` ulp(big), and
    :math:`x' = (\\text{big}) + x` adds one record in front.

    *Why the computed sums differ by more than big.* Let :math:`u` = ulp(big) in ``dtype`` (:math:`2^{-23}` for
    big = 1 in float32) and :math:`1/2 < f < 1`. Every running total of :math:`x'` lies in :math:`[b, 2b)` (with
    :math:`b` = big a power of two, while ``count`` :math:`\\cdot u < b`), where floats are :math:`u` apart, so
    :math:`R + s` rounds to the nearest one, :math:`R + u`: each small record adds :math:`u`, not :math:`s`. The
    totals of :math:`x` are multiples of :math:`s` small enough to be exact. So the computed gap is
    :math:`b + \\text{count} \\cdot (u - s) = b + \\text{count} \\cdot u (1 - f)`, above the ideal add/remove bound
    :math:`\\max(|L|, |U|) = b` for bounds :math:`[0, b]`. For :math:`f \\le 1/2` each addition rounds back to
    :math:`R` (a tie goes to the even neighbour, :math:`R = b`) and the gap is :math:`b - \\text{count} \\cdot s`.
    """
    count = _check_whole("count", count, 1)
    if not (isinstance(fraction, int | float) and 0 < fraction <= 1):
        raise ValueError(f"fraction must be a number in (0, 1], got {fraction!r}")
    if not (isinstance(big, int | float) and big > 0 and math.isfinite(big)):
        raise ValueError(f"big must be a positive finite number, got {big!r}")
    small = dtype(fraction * float(np.spacing(dtype(big))))
    x = np.full(count, small, dtype=dtype)
    return x, np.concatenate([np.array([big], dtype=dtype), x])


def sum_gap(x: Sequence[float] | np.ndarray, x_prime: Sequence[float] | np.ndarray, dtype: type = np.float32) -> float:
    """:math:`|\\hat S(x') - \\hat S(x)|` for the running-total sums :func:`sequential_sum` in ``dtype``."""
    return abs(sequential_sum(x_prime, dtype) - sequential_sum(x, dtype))


def rounding_gaps(count: int, fractions: Iterable[float] = (0.25, 0.5, 0.625, 0.75, 1.0), big: float = 1.0,
                  dtype: type = np.float32) -> pd.DataFrame:
    """The search: for each fraction, the pair of :func:`rounding_pair`, its computed sums and their gap, and
    whether the gap exceeds the ideal add/remove bound ``big`` (bounds ``[0, big]``)."""
    rows = []
    for fraction in fractions:
        x, x_prime = rounding_pair(fraction, count, big, dtype)
        rows.append({"fraction of u": fraction, "small value": float(x[0]),
                     "sum of x": sequential_sum(x, dtype), "sum of x'": sequential_sum(x_prime, dtype),
                     "gap": sum_gap(x, x_prime, dtype)})
    table = pd.DataFrame(rows)
    return table.assign(**{"above the ideal bound": table["gap"] > big})


def opendp_float_sum(count_limit: int, bounds: Bounds = (0, 1), summation: str = "Pairwise<f32>") -> dp.Transformation:
    """OpenDP's float sum over at most ``count_limit`` records (``make_bounded_float_checked_sum``): its map adds a
    rounding allowance for ``summation`` (``"Sequential<f32>"``, ``"Pairwise<f32>"``, or the f64 versions)."""
    limit = _check_whole("count_limit", count_limit, 1)
    lower, upper = _check_bounds(bounds)
    dp.enable_features("contrib")
    return dp.t.make_bounded_float_checked_sum(limit, (lower, upper), S=summation)
