r"""Exact sensitivities on the sorted universe, without enumerating datasets (notebook A1).

For ``count``, ``sum``, ``mean``, ``median`` and ``percentile_<p>`` the largest change over *all*
neighbours is reached at a handful of extreme datasets that can be written down from the sorted universe.
This module builds those few candidates and evaluates the query on them with the very numpy code the
enumeration uses, so the answer is one of the numbers enumeration compares, not a re-derived formula.

**Dominance.** For sorted datasets of equal size write :math:`y \preceq y'` when :math:`y_{(i)} \le y'_{(i)}`
for every rank :math:`i`. The five queries are *monotone*: :math:`y \preceq y' \Rightarrow f(y) \le f(y')`.
Sum and mean are sums of the order statistics; a percentile is :math:`(1 - t) y_{(l)} + t y_{(l+1)}` with
:math:`l, t` fixed by the size; count depends on the size only. Two facts do all the work:

* (D1) adding larger values or removing smaller ones moves every order statistic up:
  :math:`x + a \preceq x + a'` when :math:`a \preceq a'`, and
  :math:`x - \mathrm{top}_k(x) \preceq x - r \preceq x - \mathrm{bottom}_k(x)` for every :math:`r \subseteq x`,
  :math:`|r| = k`;
* (D2) a sub-multiset :math:`y` of size :math:`L` of a sorted multiset :math:`v` (size :math:`V`) satisfies
  :math:`v_{(i)} \le y_{(i)} \le v_{(V - L + i)}`, and both bounds are reached together by the *split*
  :math:`v_{(0..s-1)} + v_{(V-L+s..V-1)}` for every rank below :math:`s` and every rank from :math:`s` on.

**Local sensitivity** (:func:`local_candidates`). Let :math:`S = U - x` (multiset difference).

* Unbounded: by (D1) the neighbours with the smallest and largest value are among
  :math:`x - \mathrm{top}_k(x)`, :math:`x - \mathrm{bottom}_k(x)`, :math:`x + \mathrm{bottom}_k(S)`,
  :math:`x + \mathrm{top}_k(S)`: four candidates.
* Bounded: the neighbours of :math:`x` are exactly the size-:math:`n` sub-multisets :math:`y \subseteq U`
  with :math:`|y - x| \le k` (a common core of :math:`n - k` records is :math:`|x \cap y| \ge n - k`). Such a
  :math:`y` lies inside :math:`x + B` with :math:`B \subseteq S`, :math:`|B| \le k`, so its :math:`i`-th
  largest value is at most that of :math:`T = x + \mathrm{top}_k(S)`, and :math:`\mathrm{top}_n(T)` is itself a
  neighbour: it dominates every neighbour. Symmetrically :math:`\mathrm{bottom}_n(x + \mathrm{bottom}_k(S))`
  is dominated by every neighbour. Two candidates (with :math:`k` capped at :math:`|S|`).
* Symmetric: every neighbour is :math:`x - r + a` with :math:`r = x - y`, :math:`a = y - x`, so it lies in
  one of the families :math:`F_{ij} = \{x - r + a : r \subseteq x,\ |r| = i,\ a \subseteq S,\ |a| = j\}` with
  :math:`0 \le i \le \min(k, n)`, :math:`0 \le j \le \min(k - i, |S|)`, :math:`i + j \ge 1`, and :math:`j \ge 1` when
  :math:`i = n` (a neighbour is never empty, but it may share no record with :math:`x`); conversely every
  member of :math:`F_{ij}` holds :math:`n - i + j \ge 1` records and differs from :math:`x` in at most
  :math:`i + j \le k` records, so it is a neighbour or :math:`x` itself (an equal value removed and added
  back), whose gap 0 changes no maximum. Inside one family all datasets have :math:`n - i + j` records, and
  (D1), (D2) and the fact that each order statistic of a union is non-decreasing in every element give
  :math:`x - \mathrm{top}_i(x) + \mathrm{bottom}_j(S) \preceq y \preceq x - \mathrm{bottom}_i(x) + \mathrm{top}_j(S)`
  for every :math:`y \in F_{ij}`. So the two extremes of every family, :math:`O(k^2)` candidates, contain the
  smallest and the largest neighbour value.

**Global sensitivity** (:func:`global_candidates`). Here the release varies too, so we need the worst
*pair*. Every query here is an affine function :math:`\sum_i w_i y_{(i)} + c` of the order statistics of the
datasets it compares, and the difference of two such values is again of that form. If the weights are
*sign-separated* (every negative weight sits at a lower rank than every positive one, with a split rank
:math:`s` between), (D2) says the split at :math:`s` maximises every term at once, hence the sum.

* Unbounded: every pair is :math:`(B, B - r)` with :math:`|r| = k` and :math:`|B| = m \in \{n, n + k\}`
  (removal from a release of size :math:`n`, or addition to one, read backwards). By (D1) the best
  :math:`r` is :math:`\mathrm{top}_k(B)` or :math:`\mathrm{bottom}_k(B)`, i.e. :math:`f(B) - f(B_{(0..m-k-1)})` or
  :math:`f(B_{(k..m-1)}) - f(B)`. For the mean the weights are :math:`1/m - 1/(m - k) < 0` on the ranks
  removed and :math:`1/m > 0` on the others (split :math:`s = m - k`, resp. :math:`s = k`); for the sum they
  are :math:`0` and :math:`\pm 1` (any split with :math:`s \le m - k`, resp. :math:`s \ge k`); for a percentile
  at virtual index :math:`h_m = (m-1)p/100` the positive weights sit at :math:`\lfloor h_m \rfloor` and
  :math:`\lfloor h_m \rfloor + 1`, the negative ones at :math:`\lfloor h_{m-k} \rfloor` and
  :math:`\lfloor h_{m-k} \rfloor + 1` with :math:`h_{m-k} \le h_m` (and when the floors agree the fractional
  parts order the signs the same way); in the second form the positive ranks are
  :math:`\lfloor h_{m-k} \rfloor + k \ge \lfloor h_m \rfloor` because :math:`k \ge kp/100`. So the optimal
  :math:`B` is a split of the sorted universe :math:`U`, with :math:`s` in a window of :math:`O(k)` ranks.
* Bounded: with :math:`k_e = \min(k, |U| - n)` (two releases never differ in more than :math:`|U| - n`
  records), a worst pair is :math:`y = C + a`, :math:`y' = C + a'` with disjoint :math:`a, a'` of size
  :math:`k_e` outside the core :math:`C`. (A pair that differs in :math:`j < k_e` records can be padded: since
  :math:`j < |U| - n`, some value :math:`w` of :math:`U` is in neither dataset; take a core value :math:`c` out
  of the core and give :math:`y` the larger of :math:`c, w` and :math:`y'` the smaller. One of them changed one
  value, in the direction that raises :math:`f(y) - f(y')` (monotonicity), and the pair now differs in
  :math:`j + 1` records; repeat until :math:`j = k_e`.) Exchanging values shows
  :math:`a' = \mathrm{bottom}_{k_e}(U)` and
  :math:`a = \mathrm{top}_{k_e}(U)` (an element of the bottom block that is not in :math:`a'` can be swapped
  with a larger one of :math:`a'` without raising :math:`f(y')` or lowering :math:`f(y)`: unused, in :math:`C`
  or in :math:`a`, every case only helps; then the same for the top block). So :math:`y` is :math:`C` followed
  by the top block and :math:`y'` the bottom block followed by :math:`C`, the core lies in the middle
  :math:`M = U_{(k_e .. |U|-k_e-1)}`, and :math:`f(y) - f(y')` has weights on the ranks of :math:`C`: positive
  at :math:`l, l+1` (from :math:`y`), negative at :math:`l - k_e, l - k_e + 1` (from :math:`y'`), mixed at
  :math:`l` only when :math:`k_e = 1`. Sign-separated again: :math:`C` is a split of :math:`M`.
* Symmetric: write a pair as :math:`x = C + r`, :math:`y = C + a` with :math:`C = x \cap y`, :math:`|r| = i`,
  :math:`|a| = j` (a family :math:`(i, j)`: :math:`1 \le i + j \le k`, :math:`i \le n`, :math:`j \ge 1` if :math:`i =
  n`) and let :math:`z = x \cup y = C + r + a \subseteq U`, of :math:`m = n + j` records. Then :math:`x = z - a` and
  :math:`y = z - r`, so by (D1) :math:`x \preceq z - \mathrm{bottom}_j(z) = \mathrm{top}_n(z)` and :math:`y \succeq z
  - \mathrm{top}_i(z) = \mathrm{bottom}_{m-i}(z)`, and symmetrically :math:`f(y) - f(x) \le f(\mathrm{top}_{m-i}(z)) -
  f(\mathrm{bottom}_n(z))`. Both bounds are attained by neighbour pairs (the removed blocks are disjoint because
  :math:`i \le n`; the pair shares the :math:`n - i \ge 0` middle records of :math:`z`, differs in at most :math:`i +
  j` records, and neither is empty). As functions of :math:`z` both are sign-separated: for the sum the weights are
  :math:`-1` below rank :math:`j` (resp. :math:`i`) and :math:`+1` from rank :math:`m - i` (resp. :math:`n`); for the
  mean the middle ranks carry :math:`1/n - 1/(m-i)` (resp. its negative), whose sign only moves the split to :math:`j`
  or :math:`m - i` (resp. :math:`i` or :math:`n`); for a percentile the positive ranks :math:`j + \lfloor h_n \rfloor
  (+1)` sit at or above the negative ones :math:`\lfloor h_{m-i} \rfloor (+1)` since :math:`j + h_n - h_{m-i} = j(1 -
  p/100) + ip/100 \ge 0` (resp. :math:`i + h_{m-i} - h_n \ge 0`), with the fractional parts ordered as in the
  unbounded case when the floors agree. So by (D2) the best :math:`z` is a split of :math:`U` with :math:`s` in a
  window of :math:`O(k)` ranks, for each of the :math:`O(k^2)` families.

**The rounding promise** (stated here once for the whole package; :mod:`dpteach.sensitivity`,
:mod:`dpteach.spread` and :mod:`dpteach.global_spread` refer to it). A query value is a float: :math:`\hat f(y)`,
what numpy computes on the sorted dataset :math:`y`, and what a mechanism adds noise to. Call
:math:`\widehat{GS}_k = \max \mathrm{fl}(|\hat f(y) - \hat f(y')|)` over neighbour pairs (and :math:`\widehat{LS}_k`
likewise) *enumeration's value*, which ``method="enumerate"`` and ``method="naive"`` return: the sensitivity of the
query as numpy computes it, :math:`\max |\hat f(y) - \hat f(y')|`, up to the rounding of that last subtraction (at
most half an ulp, the spacing of floats there; none when the two values are within a factor 2 of each other, by
Sterbenz's lemma). Then every sensitivity that :func:`dpteach.global_sensitivity`,
:func:`dpteach.local_sensitivity` and :func:`dpteach.sensitivity_grid` return, with any method and relation,

* is **never below** enumeration's value, and
* **equals** it wherever the path certifies that: the closed forms of this module on whole-number universes (below),
  the bounded mean through its tie search (*Ties of the bounded mean*), and the certified cases of
  :mod:`dpteach.spread` and :mod:`dpteach.global_spread`. Everywhere else it is rounded up, by at most the slack the
  module states (:func:`round_up` here).

It does **not** promise to be at least the real-arithmetic sensitivity :math:`T` of the exact query. Where it equals
enumeration's value it can be below :math:`T`, because numpy rounds the query values themselves: with
:math:`A = 2^{50}`, enumeration's bounded global ``percentile_0.0001`` of :math:`\{A, A, A + 1\}` at :math:`n = 2`
is 0 (both releases' percentiles round to :math:`A`), while :math:`T = 10^{-6}` (the closed form, which cannot
certify its ranking there, rounds up to 4: see below). On whole numbers this happens for ordinary data too: the
local ``mean`` of :math:`(483, 517, 552)` in :math:`U = (483, 517, 552, 557, 592, 748)` is 8.5 ulps below
:math:`T = 916/15`, and the local ``var`` of :math:`(0, 1, 2, 6)` in :math:`(0, 1, 2, 6, 7, 10, 11, 11)` is 2.4 ulps
below :math:`T = 2201/144` (both unbounded, :math:`k = 2`; notebook A1). What a
mechanism releases is :math:`\hat f`, whose sensitivity is enumeration's value to within that half ulp of the last
subtraction; :math:`T` is the sensitivity of a number nobody releases. (The rounded-up values of
:func:`round_up` happen to cover :math:`T` as well; the proof below shows both.)

*Whole numbers.* The sums are exact (:func:`dpteach.queries.check_exact_sums`), so the sum and the count are exact,
a mean is :math:`\mathrm{fl}(S/m)`, non-decreasing in the exact sum :math:`S`, and a percentile is non-decreasing
in each order statistic it interpolates from, even in floating point: raising :math:`a` by :math:`\delta \ge 1` in
numpy's ``a + (b - a) t`` (:math:`t < 1/2`) raises the exact sum by :math:`\delta (1 - t) > \delta/2` while the two
roundings of :math:`(b - a) t` (below :math:`2^{52}`, so within :math:`1/4` each) move it by at most :math:`1/2`;
``b - (b - a)(1 - t)`` (:math:`t \ge 1/2`) is the mirror image. So every dominance argument above carries over to
the floats, and the local closed forms, the global sum and count return enumeration's value.
Global pairs need more where a rank is used by *both* query values of a pair (:func:`tied_pairs`). Its net weight
:math:`c` (its weight in :math:`\hat f(y)` less its weight in :math:`\hat f(y')`) decides which way moving that record
moves the gap. When :math:`|c|` exceeds the rounding noise (:math:`16 \hat E`, :func:`value_error`; for a percentile
also :math:`8um`, the error of numpy's fraction), moving the record by :math:`\delta \ge 1` moves the float gap the
same way as the exact one, and the split argument holds. Otherwise the records at that rank tie, or nearly, and numpy
may round them apart; :func:`global_plan` then rounds the gap up (``force``) if such a pair comes within the noise of
the largest gap. Three kinds occur:

* the mean, on pairs that *exchange* records (:math:`c = 0`: the bounded relation, and the symmetric families with
  :math:`i = j`, which are bounded pairs): the tie search of *Ties of the bounded mean* finds enumeration's value
  for all of them, and only if it cannot is the gap rounded up;
* the mean under unbounded and symmetric neighbours, :math:`c = 1/(m - a) - 1/b \ne 0` but below the noise for very
  large datasets;
* a percentile whose rank carries :math:`1 - t` in one value and :math:`t'` in the other, e.g. ``percentile_90``,
  :math:`k = 2`, :math:`m = 12`: :math:`t = 0.9`, :math:`t' = 0.1`, :math:`c = 0`; or any :math:`c` below the noise
  for values near :math:`2^{50}`. Not when both percentiles interpolate exactly (:math:`t = j/2^e` with
  :math:`2A \cdot 2^e \le 2^{53}`): then every float gap is the rounded exact gap and ties round alike.

The tests check ``>=`` against enumeration everywhere, and ``==`` on whole numbers (small and wide ranges) except
where one of these pairs may round up; there they check the slack of :func:`round_up`. Such a pair can be tiny: the
unbounded global ``percentile_20`` of :math:`U = (0, 0, 0, 0, 1)` at :math:`n = 4`, :math:`k = 1` pairs
:math:`z[1:]` with :math:`z[:4]` for :math:`z = (0, 0, 0, 0)`, both weighting rank 1 by :math:`3/5`; enumeration
finds 0 and the closed form returns :math:`3.6 \cdot 10^{-15}`.

*Fractional values.* Candidates that tie with the optimum in exact arithmetic may round differently, so the
candidate's rounded gap :math:`d` can sit *below* enumeration's, by up to about :math:`4\hat E + 2ud` (below): many
ulps on large data, since :math:`\hat E` grows with the number of records. :func:`round_up` returns
:math:`R = \mathrm{fl}(d + 8(\hat E + u d))` rounded one more ulp up, where :math:`d \ge 0` is the computed gap,
:math:`u = 2^{-53}` and :math:`\hat E` bounds the error of one query value (:func:`value_error`). Then :math:`R` is
at least both enumeration's value and :math:`T` (percentiles taken at numpy's interpolation fraction).

*Proof.* Let :math:`A = \max |U|` and :math:`M` the most records a compared dataset holds, and
:math:`\gamma_j = ju/(1 - ju)`. Every computed value satisfies :math:`|\hat f(y) - f(y)| \le E` with
:math:`E = \gamma_{M} M A` for the sum (any summation order, Higham, *Accuracy and Stability*, (4.4)),
:math:`E = \gamma_{M} A` for the mean (a sum error :math:`\gamma_{M-1} M A`, divided by :math:`m`, plus one
rounding of a value at most :math:`(1 + \gamma_{M-1}) A`), :math:`E = \gamma_4 A` for a percentile (numpy's
``a + (b - a) t``, or ``b - (b - a)(1 - t)`` with :math:`1 - t` exact for :math:`t \ge 1/2`: three roundings of
terms at most :math:`2A`) and :math:`E = 0` for the count; :math:`\hat E` adds :math:`2^{-1073}`
for underflow (additions of floats are exact when subnormal; each of the at most three products or quotients
errs by at most :math:`2^{-1075}` more). The closed form's best candidate pair attains
:math:`T`, so :math:`d \ge \mathrm{fl}(T - 2E) \ge (1 - u)(T - 2E)`, i.e. :math:`T \le d/(1 - u) + 2E`;
enumeration's largest rounded gap is at most :math:`(1 + u)(T + 2E) \le (1 + u)(d/(1 - u) + 4E)
\le d + 2.01 u d + 4.01 E`. And :math:`\mathrm{fl}(d + s) \ge (1 - u)(d + s)` exceeds that whenever
:math:`s \ge 5E + 4ud`; :math:`s = \mathrm{fl}(8(\hat E + ud))` with :math:`\hat E \ge (1 - 4u)E` (the float
evaluation of :math:`E`) is far above it. The extra ulp is spare. The tests check
:math:`\text{enumeration} \le R \le \text{enumeration} + 2 \cdot 8(\hat E + u d) + \mathrm{ulp}(R)`.

**Ties of the bounded mean.** On whole numbers every core of the middle attains the bounded mean's
:math:`T = D/n`, :math:`D = \sum \mathrm{top}_{k_e}(U) - \sum \mathrm{bottom}_{k_e}(U)`, and numpy rounds
:math:`\mathrm{fl}(s/n) - \mathrm{fl}(s'/n)` differently for different core sums; enumeration reports the largest.
:func:`bounded_mean_ties` computes that number without listing cores. A pair differing in :math:`j \le k_e`
records is :math:`(C + a, C + a')`; its exact gap is :math:`(\sum a - \sum a')/n`, an integer over :math:`n`, so a
pair not attaining :math:`T` is :math:`1/n` below it and, when :math:`4uA + 2uT < 1/n`, its rounded gap
(:math:`\le (T - 1/n + 2uA)(1 + u)`) stays below every attaining pair's (:math:`\ge (T - 2uA)(1 - u)`; each
mean is one rounding of an exact sum, error :math:`\le uA`). A pair attains :math:`T` exactly when
:math:`D_j = \sum \mathrm{top}_j(U) - \sum \mathrm{bottom}_j(U)` equals :math:`D` and, as values,
:math:`a = \mathrm{top}_j(U)`, :math:`a' = \mathrm{bottom}_j(U)` (:math:`\sum a \le \sum \mathrm{top}_j(U)` with
equality only so), with any core :math:`C` of :math:`n - j` records of :math:`U - a - a'`. Its gap depends on
the core only through its sum :math:`\sigma`, so enumeration's value is
:math:`\max_{j, \sigma} \mathrm{fl}(\mathrm{fl}((\sigma + \sum a)/n) - \mathrm{fl}((\sigma + \sum a')/n))` over
the achievable core sums. These come from a bitset recursion over (records used, sum), read out in one pass over
its bytes: pseudo-polynomial, :math:`|M| (c + 1) \lceil W/64 \rceil` work units for :math:`|M|` middle values,
:math:`c` core records and sums spanning :math:`W`, counted before it runs and used when at most :data:`TIE_WORDS`
(the seven-value universe of issue 26, values near :math:`10^6`, takes about 676,000). Otherwise (large values or
sums, or fractional data) the closed form is rounded up like any other (:func:`round_up` with ``force=True``):
never below enumeration, and above it by at most the slack stated there.

Variance, standard deviation and callable queries are not monotone, so this module does not cover them:
:mod:`dpteach.spread` gives the local sensitivity of ``var`` and ``std``, :mod:`dpteach.global_spread` the global
sensitivity of ``var`` under bounded and unbounded neighbours, and the rest is enumerated.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Collection, Iterable, Iterator
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from dpteach import budget
from dpteach.budget import check_work, fits, spend
from dpteach.queries import Query, ResolvedQuery

_CHUNK_CELLS = 4_000_000
_CANDIDATE_WORK = "evaluate {} records of candidate datasets"
TIE_WORDS = 2_000_000
"""Work units (64-bit words of bitset) the tie search of :func:`bounded_mean_ties` may take; above it the bounded
mean is rounded up instead (module docstring)."""


def percentile_level(query: Query) -> float | None:
    """The level :math:`p` in percent if ``query`` is an order statistic (``median`` is 50), else ``None``."""
    if query == "median":
        return 50.0
    if isinstance(query, str) and query.startswith("percentile_"):
        return float(query.removeprefix("percentile_"))
    return None


def has_closed_form(query: Query) -> bool:
    """Whether :mod:`dpteach.exact` has a closed form for ``query``: the named monotone queries, for every
    relation, global and local (module docstring); ``var``, ``std`` and callables are enumerated here (the local
    ``var`` and ``std`` have closed forms in :mod:`dpteach.spread`)."""
    return isinstance(query, str) and (query in ("count", "sum", "mean") or percentile_level(query) is not None)


def value_error(query: Query, universe: np.ndarray, largest: int) -> float:
    r""":math:`\hat E`, a bound on :math:`|\hat f(y) - f(y)|` for every dataset of at most ``largest`` records from
    ``universe`` (module docstring, *Floating point*): :math:`\gamma_M M A` (sum), :math:`\gamma_M A` (mean),
    :math:`\gamma_4 A` (percentile), 0 (count). On whole numbers, whose sums are exact, the sum's is 0 and the
    mean's :math:`uA` (one rounded division)."""
    if query == "count":
        return 0.0
    unit, top = 2.0**-53, float(np.abs(universe).max())
    if percentile_level(query) is None and _whole(universe):
        return unit * top if query == "mean" else 0.0
    terms = 4 if percentile_level(query) is not None else largest
    gamma = terms * unit / (1 - terms * unit)
    return gamma * top * (largest if query == "sum" else 1) + 2.0**-1073  # + underflow of <= 3 products


def _whole(universe: np.ndarray) -> bool:
    return bool(np.all(universe == np.round(universe)))


def _largest(size: int, k: int, relation: str, universe_size: int) -> int:
    """The most records any dataset compared for a release of ``size`` holds. Global and local use the same
    bound, so a release attaining the global gap gets the same rounded-up value."""
    return size if relation == "bounded" else size + min(k, universe_size - size)


def round_up(gap: float, query: Query, universe: np.ndarray, largest: int, *, force: bool = False) -> float:
    r"""The computed ``gap`` itself for the count (exact) and on integer-valued ``universe`` (unless ``force``);
    otherwise :math:`\mathrm{fl}(d + 8(\hat E + ud))` one ulp up, which is at least both enumeration's value and the
    real-arithmetic sensitivity (module docstring, *Floating point*)."""
    if query == "count" or (not force and _whole(universe)):
        return gap
    slack = 8 * (value_error(query, universe, largest) + 2.0**-53 * gap)
    return float(np.nextafter(gap + slack, np.inf))


def _rank(size: int, level: float) -> int:
    """:math:`\\lfloor (size - 1) p / 100 \\rfloor`, the lower rank numpy interpolates from (up to rounding)."""
    return math.floor((size - 1) * (level / 100))


def _window(low: int, high: int, lowest: int, highest: int) -> range:
    return range(max(lowest, low), min(highest, high) + 1)


def split(values: np.ndarray, size: int, s: int) -> np.ndarray:
    """The split of sorted ``values`` with ``s`` lowest and ``size - s`` highest values (sorted)."""
    return np.concatenate([values[:s], values[values.size - (size - s):]])


def _evaluate(resolved: ResolvedQuery, rows: list[np.ndarray]) -> np.ndarray:
    """Query values of sorted datasets, evaluated in batches of equal size as the enumeration does (numpy's
    row functions along ``axis=1`` give each row the same bits in any batch)."""
    out = np.empty(len(rows))
    sizes = np.array([row.size for row in rows], dtype=np.int64)
    spend(int(sizes.sum()))
    for size in np.unique(sizes).tolist():
        index = np.flatnonzero(sizes == size).tolist()
        step = max(1, _CHUNK_CELLS // max(1, size))
        for start in range(0, len(index), step):
            batch = index[start: start + step]
            out[batch] = resolved.on_rows(np.concatenate([rows[i] for i in batch]).reshape(len(batch), size))
    return out


@dataclass(frozen=True)
class Plan:
    """The candidate datasets of one sensitivity (sorted rows) and how their query values give it."""

    rows: list[np.ndarray]
    finish: Callable[[np.ndarray], float]


def run_plans(resolved: ResolvedQuery, plans: list[Plan]) -> list[float]:
    """Every plan's sensitivity, the rows of all plans evaluated together (one numpy call per dataset size)."""
    values = _evaluate(resolved, [row for plan in plans for row in plan.rows])
    answers, start = [], 0
    for plan in plans:
        answers.append(plan.finish(values[start: start + len(plan.rows)]))
        start += len(plan.rows)
    return answers


def sub_multiset_counts(release: np.ndarray, universe: np.ndarray) -> tuple[np.ndarray, np.ndarray, bool]:
    """Distinct universe values, how often the (sorted) release and universe hold each, and whether the
    release fits in the universe. Linear time on sorted input."""
    starts = np.flatnonzero(np.concatenate([[True], universe[1:] != universe[:-1]]))
    values = universe[starts]
    capacity = np.diff(np.append(starts, universe.size))
    index = np.searchsorted(values, release)
    inside = (index < values.size) & (values[np.minimum(index, values.size - 1)] == release)
    own = np.bincount(index[inside], minlength=values.size)
    return values, capacity, bool(inside.all() and (own <= capacity).all())


def matched_positions(release: np.ndarray, universe: np.ndarray) -> np.ndarray | None:
    """For sorted ``release`` and ``universe``: the position in ``universe`` of each release record when the
    :math:`j`-th copy of a value in the release is matched with its :math:`j`-th copy in the universe, or ``None``
    when the universe runs out of some value (the release is then not a sub-multiset).

    The copies of a value :math:`v` fill the positions from ``searchsorted(universe, v)`` on, and record :math:`i`
    of the release is copy :math:`i - ` ``searchsorted(release, release[i])`` of its value; so the release is a
    sub-multiset exactly when every matched position lies inside the universe and holds an equal value."""
    positions = (np.searchsorted(universe, release) + np.arange(release.size)
                 - np.searchsorted(release, release))
    if positions.max() >= universe.size or not (universe[positions] == release).all():
        return None
    return positions


def spare(release: np.ndarray, universe: np.ndarray) -> np.ndarray:
    """:math:`U - x` as a sorted array (the release must be a sub-multiset of the universe): the unmatched records
    of :func:`matched_positions`, each written as the first universe record equal to it (as the distinct values of
    :func:`sub_multiset_counts` are)."""
    positions = matched_positions(release, universe)
    if positions is None:
        raise ValueError("release must be a sub-multiset of universe")
    unmatched = np.ones(universe.size, dtype=bool)
    unmatched[positions] = False
    return universe[np.searchsorted(universe, universe[unmatched])]


def local_candidates(release: np.ndarray, universe: np.ndarray, k: int, relation: str) -> list[np.ndarray]:
    """The few neighbours of sorted ``release`` that attain the smallest and largest monotone query value.

    Unbounded: ``[x - top_k(x), x - bottom_k(x), x + bottom_k(S), x + top_k(S)]``; bounded:
    ``[bottom_n(x + bottom_k(S)), top_n(x + top_k(S))]``; symmetric: ``x - top_i(x) + bottom_j(S)`` and
    ``x - bottom_i(x) + top_j(S)`` for every family :math:`(i, j)`; with :math:`S = U - x` (module docstring).
    """
    n, others = release.size, spare(release, universe)
    if relation == "symmetric":
        families = _families(n, others.size, k)
        return [np.sort(np.concatenate(parts), kind="stable") for i, j in families
                for parts in ((release[: n - i], others[:j]), (release[i:], others[others.size - j:]))]
    if relation == "unbounded":
        return [release[: n - k], release[k:],
                np.sort(np.concatenate([release, others[:k]]), kind="stable"),
                np.sort(np.concatenate([release, others[others.size - k:]]), kind="stable")]
    j = min(k, others.size)
    return [np.sort(np.concatenate([release, others[:j]]), kind="stable")[:n],
            np.sort(np.concatenate([release, others[others.size - j:]]), kind="stable")[j:]]


def local_plan_records(size: int, spare_size: int, k: int, relation: str) -> int:
    """How many records the release and its candidates (:func:`local_candidates`) hold together: the work units of
    :func:`local_plan`, known before any candidate is built (``spare_size`` :math:`= |U| - n`)."""
    if relation == "symmetric":
        return size + _capped_sum(2 * (size - i + j) for i, j in _families(size, spare_size, k))
    return size + (4 * size if relation == "unbounded" else 2 * size)


def local_plan(release: np.ndarray, universe: np.ndarray, k: int, relation: str, query: Query) -> Plan:
    """:math:`LS_k(x)` for a monotone query from :func:`local_candidates`, as
    :math:`\\max(f(x) - \\min f(x'), \\max f(x') - f(x))` over the candidates."""
    largest = _largest(release.size, k, relation, universe.size)
    check_work(local_plan_records(release.size, universe.size - release.size, k, relation), _CANDIDATE_WORK)

    def finish(values: np.ndarray) -> float:
        f_release, *f_neighbours = values
        gap = float(max(f_release - min(f_neighbours), max(f_neighbours) - f_release))
        return round_up(gap, query, universe, largest)

    return Plan([release, *local_candidates(release, universe, k, relation)], finish)


def local_exact(release: np.ndarray, universe: np.ndarray, k: int, relation: str, resolved: ResolvedQuery) -> float:
    """:func:`local_plan`, evaluated."""
    return run_plans(resolved, [local_plan(release, universe, k, relation, resolved.name)])[0]


def _families(size: int, spare_size: int, k: int) -> Iterator[tuple[int, int]]:
    """The symmetric families :math:`(i, j)`: :math:`i` records removed, :math:`j` added, :math:`1 \\le i + j \\le k`,
    :math:`i \\le \\min(k, size)`, :math:`j \\le` ``spare_size``, :math:`j \\ge 1` when :math:`i = size` (a
    neighbour is never empty; module docstring); generated, as :math:`O(k^2)` of them are counted before any is
    used."""
    for i in range(min(k, size) + 1):
        yield from ((i, j) for j in range(1 if i in (0, size) else 0, min(k - i, spare_size) + 1))


def _capped_sum(terms: Iterable[int]) -> int:
    """The sum of ``terms``, or a partial sum once it passes the work budget (enough to refuse, and fast)."""
    total = 0
    for term in terms:
        total += term
        if total > budget.MAX_WORK:
            break
    return total


PairSpec = tuple[int, int, int, int]
"""``(m, s, a, b)``: the pair ``(z[a:], z[:b])`` with ``z = split(universe, m, s)``. Every candidate pair of the
three relations has this form (:func:`global_pair_specs`)."""


def _pair_groups(universe_size: int, size: int, k: int, relation: str,
                 query: Query) -> Iterator[tuple[int, int, int, Collection[int]]]:
    """The candidate pairs of :func:`global_pair_specs` in groups ``(m, a, b, splits)`` that share the sizes of
    their two datasets, generated (so their records can be counted before any list is built).

    Unbounded: ``(B, B - top_k(B))`` is ``(z[0:], z[:m - k])`` and ``(B - bottom_k(B), B)`` is ``(z[k:], z[:m])``
    for the split ``B = z`` of ``m`` records. Bounded: with ``kept`` records exchanged, the core ``C`` = the split
    of the middle at ``s`` gives ``(C + top, bottom + C) = (z[kept:], z[:size])`` for ``z = split(U, size + kept,
    kept + s)``. Symmetric: ``(z[j:], z[:m - i])`` and ``(z[i:], z[:size])`` for ``m = size + j``.
    """
    level = percentile_level(query)
    if relation == "symmetric":
        for i, j in _families(size, universe_size - size, k):
            m = size + j
            if level is None:  # sum, mean, count: the split sits at one of these ranks
                firsts = seconds = sorted({i, j, size, m - i})
            else:
                firsts = _window(_rank(m - i, level) - 2, j + _rank(size, level) + 3, 0, m)
                seconds = _window(_rank(size, level) - 2, i + _rank(m - i, level) + 3, 0, m)
            yield m, j, m - i, firsts
            yield m, i, size, seconds
        return
    if relation == "unbounded":
        for m in (size, size + k):
            if level is None:
                tops = bottoms = sorted({k, m - k})
            else:
                low, high = _rank(m - k, level), _rank(m, level)
                tops, bottoms = _window(low - 2, high + 3, 0, m), _window(high - 2, low + k + 3, 0, m)
            yield m, 0, m - k, tops
            yield m, k, m, bottoms
        return
    kept = min(k, universe_size - size)
    if kept == 0:  # the release is the whole universe: its only neighbour is itself
        yield size, 0, size, [0]
        return
    core, rank = size - kept, _rank(size, level) if level is not None else 0
    splits = [0] if level is None else _window(rank - kept - 2, rank + 3, 0, core)
    yield size + kept, kept, size, [kept + s for s in splits]


def global_pair_specs(universe_size: int, size: int, k: int, relation: str, query: Query) -> list[PairSpec]:
    """The candidate pairs of :func:`global_candidates` (module docstring) before any is built, their records
    counted against the work budget first (:func:`dpteach.budget.check_work`): one ``(m, s, a, b)`` per pair."""
    check_work(_capped_sum(len(splits) * (m - a + b) for m, a, b, splits in
                           _pair_groups(universe_size, size, k, relation, query)), _CANDIDATE_WORK)
    return [(m, s, a, b) for m, a, b, splits in _pair_groups(universe_size, size, k, relation, query)
            for s in splits]


def _fraction(size: int, level: float) -> tuple[int, float]:
    """numpy's virtual index :math:`(n - 1) q` of a percentile of ``size`` records (``q = level / 100``), split into
    its floor and the fraction :math:`t` it interpolates with, in the same double operations as numpy's default
    (linear) method."""
    index = (size - 1) * (level / 100)
    low = math.floor(index)
    return low, index - low


def _rank_weights(size: int, level: float, offset: int) -> dict[int, float]:
    """The ranks (in a larger sorted dataset, ``offset`` ranks below this one's) a percentile of ``size`` records
    interpolates from, with their weights :math:`1 - t` and :math:`t` (zero weights left out)."""
    low, fraction = _fraction(size, level)
    weights = {offset + low: 1 - fraction, offset + low + 1: fraction}
    return {rank: weight for rank, weight in weights.items() if weight > 0 and rank < offset + size}


def _interpolates_exactly(size: int, level: float, top: float) -> bool:
    """Whether numpy's percentile of every ``size``-record dataset of whole numbers at most ``top`` in magnitude is
    exact: :math:`t = j/2^e` makes :math:`a + (b - a)t` (or :math:`b - (b - a)(1 - t)`) a multiple of
    :math:`2^{-e}` below :math:`2A`, exact when :math:`2A \\cdot 2^e \\le 2^{53}`."""
    return 2 * top * _fraction(size, level)[1].as_integer_ratio()[1] <= 2.0**53


def _net_weights(m: int, a: int, b: int, query: Query) -> list[float]:
    """The net weights :math:`c` of the ranks that both query values of the pair ``(z[a:], z[:b])`` use (their
    weight in :math:`\\hat f(z[a:])` less their weight in :math:`\\hat f(z[:b])`), for the mean and percentiles."""
    level = percentile_level(query)
    if level is None:  # exact ties (m - a == b) exchange records: global_plan treats them apart
        return [1 / (m - a) - 1 / b] if a < b and m - a != b else []
    positive, negative = _rank_weights(m - a, level, a), _rank_weights(b, level, 0)
    return [positive[r] - negative[r] for r in positive.keys() & negative.keys()]


def tied_pairs(specs: list[PairSpec], query: Query, universe: np.ndarray, noise: float) -> np.ndarray:
    """For each candidate pair: whether a rank both its query values use has a net weight :math:`c` within
    ``noise`` of 0 (for a percentile also within the error :math:`8um` of numpy's fractions) while one of them may
    round, so that records at that rank may tie in exact arithmetic and not in floating point (module docstring,
    *The rounding promise*). Only the mean and percentiles can tie so."""
    level = percentile_level(query)
    if query != "mean" and level is None:
        return np.zeros(len(specs), dtype=bool)
    top = float(np.abs(universe).max())

    def tie(m: int, a: int, b: int) -> bool:
        margin = noise if level is None else noise + 8 * 2.0**-53 * m
        rounds = level is None or not (_interpolates_exactly(m - a, level, top)
                                       and _interpolates_exactly(b, level, top))
        same = a == 0 and b == m  # a dataset paired with itself: its gap is an exact 0
        return rounds and not same and any(abs(c) <= margin for c in _net_weights(m, a, b, query))

    return np.array([tie(m, a, b) for m, _, a, b in specs], dtype=bool)


def global_candidates(
    universe: np.ndarray, size: int, k: int, relation: str, query: Query
) -> list[tuple[np.ndarray, np.ndarray]]:
    """Pairs ``(y, y')`` of datasets, neighbours at distance ``k``, among which :math:`f(y) - f(y')` is
    largest (module docstring). Each pair is listed once per direction that can be worst. The records they hold
    are counted against the work budget first (:func:`dpteach.budget.check_work`).
    """
    return _built(universe, global_pair_specs(universe.size, size, k, relation, query))


def _built(universe: np.ndarray, specs: list[PairSpec]) -> list[tuple[np.ndarray, np.ndarray]]:
    """The pairs of ``specs`` (already counted by :func:`global_pair_specs`)."""
    pairs = []
    for m, s, a, b in specs:
        z = split(universe, m, s)
        pairs.append((z[a:], z[:b]))
    return pairs


def bounded_mean_ties(universe: np.ndarray, size: int, k: int) -> float | None:
    """Enumeration's value of the bounded global mean on whole numbers (module docstring, *Ties of the bounded
    mean*), or ``None`` when the rounding argument does not apply or the sum search would take more than
    :data:`TIE_WORDS` work units or more than the call's budget has left."""
    total, kept = universe.size, min(k, universe.size - size)
    if kept == 0:  # the release is the whole universe: its only neighbour is itself
        return 0.0
    if not _whole(universe):
        return None
    values = [int(v) for v in universe.tolist()]
    lows = list(itertools.accumulate(values, initial=0))  # lows[j]: sum of the j smallest
    highs = list(itertools.accumulate(reversed(values), initial=0))  # highs[j]: sum of the j largest
    top, unit = max(abs(values[0]), abs(values[-1])), Fraction(1, 2**53)
    widest = highs[kept] - lows[kept]
    if 4 * unit * top + 2 * unit * Fraction(widest, size) >= Fraction(1, size):
        return None
    tied = [j for j in range(1, kept + 1) if highs[j] - lows[j] == widest]
    searches = [(values[j: total - j], size - j) for j in tied]
    words = sum(_core_sum_words(middle, count) for middle, count in searches)
    if words > TIE_WORDS or not fits(words):  # above its own limit or the call's: the caller rounds up
        return None
    check_work(words, "update {} 64-bit words of the tie search's bitsets")
    best = -math.inf
    for j, (middle, count) in zip(tied, searches, strict=True):
        sums = _core_sums(middle, count)
        high = (sums + highs[j]).astype(float) / size
        low = (sums + lows[j]).astype(float) / size
        best = max(best, float((high - low).max()))
    return best


def _core_sum_words(values: list[int], count: int) -> int:
    """The work units (64-bit words of bitset updated) of :func:`_core_sums`, counted before it runs."""
    count = min(count, len(values) - count)
    width = sum(values[len(values) - count:]) - count * (values[0] if values else 0) + 1
    return len(values) * (count + 1) * (width // 64 + 1)


def _core_sums(values: list[int], count: int) -> np.ndarray:
    """Every sum of ``count`` of the sorted whole ``values`` (a multiset), sorted: a bitset per number of records
    used (bit :math:`t` of ``reach[c]`` says some :math:`c` values, each less the smallest, sum to :math:`t`),
    read out in one pass over its bytes. Takes the complement when it is smaller; :func:`_core_sum_words` counts
    its work."""
    if len(values) - count < count:
        return np.sort(sum(values) - _core_sums(values, len(values) - count))
    base = values[0] if values else 0
    reach = [1] + [0] * count
    for v in values:
        for c in range(count, 0, -1):
            reach[c] |= reach[c - 1] << (v - base)
    spend(_core_sum_words(values, count))
    bits = reach[count]
    packed = np.frombuffer(bits.to_bytes((bits.bit_length() + 7) // 8, "little"), dtype=np.uint8)
    return np.flatnonzero(np.unpackbits(packed, bitorder="little")).astype(np.int64) + count * base


def global_plan(universe: np.ndarray, size: int, k: int, relation: str, query: Query) -> Plan:
    """:math:`GS_k` for a monotone query: the largest :math:`f(y) - f(y')` over :func:`global_candidates`. For the
    mean, the pairs that exchange records (bounded, and the symmetric families with :math:`i = j`) are bounded
    pairs, whose value enumeration reports :func:`bounded_mean_ties` finds (no rows when they are all there is).
    Rounded up (:func:`round_up` with ``force``) where that search fails or a pair of :func:`tied_pairs` comes
    within the noise of the largest gap (module docstring, *The rounding promise*)."""
    specs = global_pair_specs(universe.size, size, k, relation, query)
    exchanged = np.array([query == "mean" and 0 < a and m - a == b for m, _, a, b in specs], dtype=bool)
    exchange_value = None
    if exchanged.any():
        exchange_value = bounded_mean_ties(universe, size, k if relation == "bounded" else min(k // 2, size))
        if exchange_value is not None and exchanged.all():
            return Plan([], lambda _values: exchange_value)
    pairs = _built(universe, specs)
    largest = _largest(size, k, relation, universe.size)
    noise = 16 * value_error(query, universe, largest)
    tied = tied_pairs(specs, query, universe, noise) | (exchanged if exchange_value is None else False)
    kept = ~exchanged if exchange_value is not None else np.ones(len(specs), dtype=bool)

    def finish(values: np.ndarray) -> float:
        gaps = (values[0::2] - values[1::2])[kept]
        gap = max(0.0, float(gaps.max(initial=-math.inf)), exchange_value or 0.0)
        near = bool(tied[kept].any()) and float(gaps[tied[kept]].max()) >= gap - noise - 4 * 2.0**-53 * gap
        return round_up(gap, query, universe, largest, force=near or (exchanged.any() and exchange_value is None))

    return Plan([row for pair in pairs for row in pair], finish)


def global_exact(universe: np.ndarray, size: int, k: int, relation: str, query: Query,
                 resolved: ResolvedQuery) -> float:
    """:func:`global_plan`, evaluated."""
    return run_plans(resolved, [global_plan(universe, size, k, relation, query)])[0]
