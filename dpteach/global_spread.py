r"""Global sensitivity of the variance (population, ``ddof=0``) under bounded and unbounded neighbours, from few
candidates.

Notebook 06. The local case is :mod:`dpteach.spread`; this module uses its two facts (C) *convex in each record*
and (N) *nearest values* and adds a third. Write :math:`V(y) = Q_y/n - S_y^2/n^2` for :math:`n` records with sum
:math:`S_y` and sum of squares :math:`Q_y`.

**Pairs.** Two bounded neighbours at distance :math:`j \le k` are :math:`x = C + A`, :math:`y = C + B` with
:math:`C = x \cap y` (:math:`n - j` records), :math:`A = x - y`, :math:`B = y - x`, :math:`|A| = |B| = j` and
:math:`C + A + B \subseteq U` (so :math:`j \le |U| - n`); conversely any such triple (even with :math:`A, B`
sharing values) is a pair at distance at most :math:`j`. :math:`GS_k = \max (V(y) - V(x))` over all of them
(both orders are listed, so the maximum is the largest :math:`|V(x) - V(y)|`).

* (L) **Affine in the core's sum.** :math:`V(C + B) - V(C + A) = \frac{Q_B - Q_A}{n}
  - \frac{(S_B - S_A)(2 S_C + S_A + S_B)}{n^2}`: :math:`Q_C` cancels. For fixed :math:`A, B` the gap is affine in
  :math:`S_C` with slope :math:`-2(S_B - S_A)/n^2`. If :math:`S_B > S_A` every maximiser has :math:`C` = the
  :math:`n - j` *smallest* values of :math:`U - A - B` (the unique multiset of least sum), if :math:`S_B < S_A`
  the largest; if :math:`S_B = S_A` the gap does not depend on :math:`C`, so replacing :math:`C` by the smallest
  remainder gives another maximiser.

**Candidates** (:func:`windows`). For each :math:`j \le \min(k, |U| - n)` and each distinct :math:`A` of
:math:`j` values of :math:`U`, let :math:`W = U - A` sorted (:math:`|U| - j` values). The candidates are
:math:`y` = the :math:`p` lowest and :math:`n - p` highest of :math:`W` (a *split*, :math:`0 \le p \le n`) and
:math:`x = A + K` with :math:`K` a *window* of :math:`n - j` consecutive values of :math:`W` lying inside the
lowest-:math:`p` part (when :math:`p \ge n - j`) or inside the highest-:math:`(n - p)` part (when
:math:`p \le j`). Each is a pair: :math:`K \subseteq y`, so :math:`x` and :math:`y` share :math:`n - j` records.

*Claim: every maximiser* :math:`(x, y)` *with* :math:`S_x \ne S_y` *is a candidate, and if some maximiser has*
:math:`S_x = S_y` *then so does some candidate that attains the maximum.* Take a maximiser with :math:`C` extreme
by (L); say :math:`S_B \ge S_A`, so :math:`C` is the smallest :math:`n - j` of :math:`U - A - B` (the other case
is the mirror image). Let :math:`Z = U - C - A - B` (unused). (i) By (C) with :math:`n \ge 2` (:math:`1 \le k < n`),
:math:`B` is a split of :math:`B + Z` (:mod:`dpteach.spread`'s proof: otherwise moving a record of :math:`B`
outwards inside its pool raises :math:`V(y)` strictly and leaves :math:`x` alone): :math:`B = B_l + B_h` with
:math:`B_l \le Z \le B_h`. With :math:`C \le Z`, the multiset :math:`W = U - A = C + B_l + Z + B_h` has :math:`Z`
as a window, so :math:`y = W - Z` is a split of :math:`W` with :math:`p = |C| + |B_l|` and
:math:`p \ge n - j`. (ii) Exchanging a record of :math:`C` with one of :math:`B` keeps :math:`y` (still
:math:`C + B`) and keeps the triple inside :math:`U`; so :math:`C` minimises :math:`V(C' + A)` over
:math:`C' \subseteq y`, :math:`|C'| = n - j`, and by (N) (strict unless :math:`C` is already a nearest set) it
consists of the values of :math:`y` nearest to :math:`\bar x`: a window of :math:`y`. Being inside
:math:`C + B_l` (the lowest :math:`p` of :math:`W`), it is a window of that part (as multisets: a window that spills
past position :math:`p` meets only copies of the part's top value, so it can slide back). Steps (i) and (ii) hold for
*every* maximiser, and (L) makes :math:`C` extreme in every maximiser with :math:`S_x \ne S_y`
(:math:`S_y - S_x = S_B - S_A`). A maximiser with :math:`S_x = S_y` turns into one with extreme :math:`C` and the
same sums, which is then a candidate. :math:`\square`

So the largest real gap :math:`T` is the largest over the candidates: per :math:`A` there are at most
:math:`(j + 1)(j + 2)` of them, scored in :math:`O(1)` each from prefix sums of :math:`W` (built in
:math:`O(|U|)` per :math:`A`). The sets :math:`A` are still enumerated (:math:`\sum_j \binom{d + j - 1}{j}`
multisets at most, :math:`d` distinct values): no structure for :math:`A` is proved here, so the work is
:math:`O(|U|^{k + 1})`, polynomial in :math:`|U|` for fixed :math:`k` only.
The standard deviation is not covered ((L) fails under the square root) and stays enumerated, under every
relation (the convexity step (iii) of *Unbounded* below fails for it too).

**Floating point: exact or not at all.** :func:`bounded_global_var` returns enumeration's value bit for bit, or
``None`` (the caller then enumerates). It answers only when all of these hold: the values are whole numbers with
:math:`8 n^2 A'^2 \le 2^{63}` and :math:`|U| A'^2 \le 2^{62}` (:math:`A'` the largest distance from the rounded
mid-range), so the candidates' :math:`n^2 (V(y) - V(x)) = n Q_y - S_y^2 - n Q_x + S_x^2` are exact ``int64``
integers and :math:`T` is known exactly; and :math:`4E + 2uT < 1/n^2` with :math:`E` numpy's error bound
(:func:`dpteach.spread.numpy_error`) and :math:`u = 2^{-53}`. Enumeration reports
:math:`\max \mathrm{fl}(\hat V(y) - \hat V(x))` over all pairs (and 0), with :math:`\hat V` numpy's ``var`` of the
sorted dataset (correctly rounded subtraction is monotone, so its max-minus-min per core is this). Real gaps are
multiples of :math:`1/n^2`, so a pair that is not a maximiser has a real gap at most :math:`T - 1/n^2`, and its
rounded gap is at most :math:`(T - 1/n^2 + 2E)(1 + u)`, below every maximiser's :math:`(T - 2E)(1 - u)` exactly
when :math:`4E + 2uT < (1 + u)/n^2` (if :math:`T - 1/n^2 + 2E < 0` the rounded gap is negative and cannot beat
the 0 that both methods include). So enumeration's value is the largest rounded gap over the *maximisers*, and
this function evaluates every one of them with the very numpy code enumeration uses:

* the candidates attaining :math:`T` with :math:`S_x \ne S_y`: by the claim these are all maximisers with unequal
  sums;
* for each candidate attaining :math:`T` with :math:`S_x = S_y` (sums of whole numbers, exact), its
  :math:`(A, B) = (x - y, y - x)` with **every** core :math:`C \subseteq U - A - B` of :math:`n - |A|` values (the
  gap does not depend on :math:`C`, by (L)). By the claim every maximiser with equal sums has its
  :math:`(A, B)` among these.

Since :math:`E` grows like :math:`n u` times the squared half range, the certificate holds for small whole
numbers (every bounded blog universe) and fails for wide ranges, e.g. integers up to :math:`10^6` with
:math:`n = 50`: those calls enumerate, as before.

The tied step enumerates cores (about :math:`\binom{|U| - 2j}{n - j}` per tied :math:`(A, B)`), so its work is
budgeted too; above :data:`MAX_CANDIDATES` the function returns ``None``. It is cheap when few
:math:`(A, B)` tie, as on the blog's universes.

**Unbounded** (:func:`unbounded_global_var`). The pairs are a dataset :math:`B \subseteq U` and a part
:math:`P \subset B` with :math:`|B - P| = k`, in two families :math:`(|P|, |B|) = (n - k, n)` (a record removed
from a release) and :math:`(n, n + k)` (records added); enumeration reports the largest :math:`|V(B) - V(P)|`.
Write :math:`p = |P|`, :math:`m = p + k`, :math:`R = B - P`, :math:`Z = U - B` (unused). Side (a) maximises
:math:`V(B) - V(P)`, side (b) :math:`V(P) - V(B)`; a pair attaining the largest :math:`|V(B) - V(P)|` attains the
largest value of its side within its family, so it suffices to show that *every maximiser of a side is a
candidate*. Three exchange facts, each proved by moving records while the others stay:

* (W) *Least variance: a window.* Among the :math:`q`-record sub-multisets of a pool, every minimiser of the
  variance is a window of the sorted pool. If a pool value :math:`b` outside it lies strictly between its least
  and largest record, replacing the record :math:`z` farther from its mean :math:`\mu` by :math:`b` changes the
  variance by :math:`((b - \mu)^2 - (z - \mu)^2)/q - (b - z)^2/q^2 < 0`.
* (S) *Convex per record: a split.* If the objective is a strictly convex function of each record of a chosen set
  (the others fixed), every maximiser is a split of its pool (its lowest and highest values): a record strictly
  inside the range of the unchosen values can move to one of them and strictly gain. By (C), :math:`V(D)` has
  leading coefficient :math:`(d - 1)/d^2` in each record of a :math:`d`-record :math:`D`, and :math:`(d - 1)/d^2`
  is strictly decreasing for :math:`d \ge 2`.
* (H) *Convex in the sums: a window or a split.* If the objective depends on the chosen :math:`q`-set :math:`X`
  only through :math:`F = c\,Q_X + g(S_X)` with :math:`c \ne 0` and :math:`g` strictly convex, every maximiser is
  a window or a split of the pool. :math:`F` is convex on the plane, so its maximum over the finite set of points
  :math:`(S_X, Q_X)` is attained at vertices of their convex hull, and *only* there: a maximiser inside the hull is
  an average of vertices that all attain the maximum, with equality in Jensen's inequality, so (strict convexity
  in :math:`S`) they share :math:`S` and then differ in :math:`Q`, hence in :math:`F` (:math:`c \ne 0`); a
  contradiction. A vertex is the unique maximiser of :math:`\lambda S + \nu Q = \sum_{x \in X}
  (\lambda x + \nu x^2)` for all :math:`(\lambda, \nu)` in an open set; choose :math:`\nu \ne 0` and
  :math:`\lambda + \nu (w + w') \ne 0` for all distinct pool values :math:`w, w'`. Then :math:`\phi(w) = \lambda
  w + \nu w^2` is one-to-one on the pool's values and every :math:`X` at that vertex is *the* :math:`q` records of
  largest :math:`\phi`: a window if :math:`\nu < 0` (:math:`\phi` concave), a split if :math:`\nu > 0`.

*Side (a)*, :math:`V(P + R) - V(P)`. (i) With :math:`B` fixed, :math:`P` minimises :math:`V(P)` among the
:math:`p`-sets of :math:`B`: a window of :math:`B` by (W), so :math:`R_l \le P \le R_h` where :math:`R = R_l + R_h`
are the records of :math:`B` below and above it. (ii) With :math:`P` fixed, :math:`R` maximises :math:`V(P + R)`: a
split of :math:`R + Z` by (S) (:math:`m \ge 2`), so :math:`R_l \le Z \le R_h`. By (i) and (ii) :math:`R_l` lies
below everything else of :math:`U`: :math:`R` is the :math:`a` lowest and :math:`k - a` highest values of
:math:`U` (:math:`0 \le a \le k`). (iii) With :math:`R` fixed, the objective is
:math:`(1/m - 1/p)\,Q_P + g(S_P)` plus a constant, with :math:`g(S) = S^2/p^2 - (S + S_R)^2/m^2`, strictly convex
(:math:`m > p`): by (H), :math:`P` is a window or a split of the middle :math:`U - R`.
Candidates: :math:`(k + 1)(|U| - k + 2)`.

*Side (b)*, :math:`V(P) - V(P + R)`, only for :math:`p \ge 2` (with :math:`p = 1`, :math:`V(P) = 0` and the
side is never positive). (i) With :math:`B` fixed, :math:`P` maximises :math:`V(P)` among the :math:`p`-sets of
:math:`B`: a split of :math:`B` by (S), so :math:`P_l \le R \le P_h`. (ii) With :math:`R` fixed, the leading
coefficient in each record of :math:`P` is :math:`(p - 1)/p^2 - (m - 1)/m^2 > 0`: by (S), :math:`P` is a split
of :math:`P + Z`, so :math:`P_l \le Z \le P_h`. Hence :math:`P` is the :math:`b` lowest and :math:`p - b` highest
values of :math:`U`. (iii) With :math:`P` fixed, :math:`R` minimises :math:`V(P + R)`: by the exchange of (W)
(replace the record of :math:`R` farther from the mean of :math:`B`), a window of :math:`U - P`.
Candidates: :math:`(p + 1)(|U| - p - k + 1)`.

Every candidate is a pair (its :math:`P` and :math:`R` are disjoint position sets of :math:`U`), so the largest
real gap :math:`T` is the largest over the candidates, and every pair attaining it is a candidate (as a multiset:
positions of equal values give equal multisets). Each is scored in :math:`O(1)` from prefix sums, as exact
``int64`` integers :math:`p^2 (m Q_B - S_B^2) - m^2 (p Q_P - S_P^2) = m^2 p^2 (V(B) - V(P))` on whole numbers
shifted by the rounded mid-range, when :math:`4 m^4 A'^2 \le 2^{62}`. The work is :math:`O(|U| (k + n))`.

*Floating point.* Real gaps are multiples of :math:`1/L`, :math:`L = \operatorname{lcm}(n^2 (n - k)^2,
(n + k)^2 n^2)`. When :math:`4E + 2uT < 1/L` (:math:`E` numpy's error for datasets of up to :math:`n + k`
records), a pair that does not attain :math:`T` has a rounded gap below every maximiser's (the bounded argument
above, with :math:`1/L` for :math:`1/n^2`), so enumeration's value is the largest rounded gap over the
maximisers, all of which are candidates: :func:`unbounded_global_var` evaluates exactly those with numpy, as
enumeration does, and returns its value bit for bit. Otherwise (fractions, wide ranges, large :math:`n`: the
spacing :math:`1/L` shrinks like :math:`n^{-8}`) it returns ``None`` and the caller enumerates.

**Symmetric: not covered** (``var`` is enumerated). Read a symmetric pair high side first: :math:`H = C + P`,
:math:`L = C + M` with :math:`C + P + M \subseteq U`, :math:`|C| = c \ge 1`, :math:`|P| = p`, :math:`|M| = q`,
:math:`p + q \le k` and :math:`c + p = n` or :math:`c + q = n`; write :math:`h = c + p`, :math:`l = c + q`,
:math:`Z = U - C - P - M`. The gap is :math:`V(H) - V(L)`; with :math:`h = 1` it is never positive. For
:math:`h \ge 2`, every maximiser within one family :math:`(c, p, q)` meets five conditions, each from an exchange
inside one pool (which keeps the triple in its family):

* :math:`P` is a split of :math:`P + Z` (:math:`C, M` fixed: (S));
* :math:`M` is a window of :math:`M + Z` (:math:`C, P` fixed: the exchange of (W) lowers :math:`V(L)`);
* :math:`C` is a split of :math:`C + M` (:math:`L` and :math:`P` fixed, choosing which records of :math:`L` form
  :math:`C` maximises :math:`V(C + P)`: (S));
* :math:`C` is a window of :math:`C + P` (:math:`H` and :math:`M` fixed, the choice minimises :math:`V(C + M)`:
  the exchange of (W); with :math:`l = 1`, :math:`C` is one record);
* :math:`C` against :math:`Z` (:math:`P, M` fixed): the gap is :math:`(1/h - 1/l)\,Q_C + g(S_C)` plus a
  constant, :math:`g(S) = (S + S_M)^2/l^2 - (S + S_P)^2/h^2`. If :math:`p > q`, :math:`g` is strictly convex and
  (H) makes :math:`C` a window or a split of :math:`C + Z`; if :math:`p < q`, the leading coefficient in each
  record of :math:`C` is :math:`(h - 1)/h^2 - (l - 1)/l^2 > 0` and (S) makes it a split; if :math:`p = q`, (L)
  makes it the lowest or the highest :math:`c` of :math:`C + Z` unless :math:`S_P = S_M`.

``tests/test_global_var.py`` checks these in exact arithmetic. They are not yet a candidate family: each
condition splits a set against a different pool, and the splits need not sit at the same place; and the maximum
can come from a family that is neither bounded nor unbounded (:math:`U = \{-9, -5, -4, -3, 3, 9\}`,
:math:`n = 4`, :math:`k = 5`: only :math:`(c, p, q) = (1, 1, 3)` attains it). No certificate is claimed until such
a family is proved.
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction

import numpy as np

from dpteach.neighbours import count_submultisets, counts_to_rows, distinct_counts, submultisets
from dpteach.queries import ResolvedQuery
from dpteach.spread import numpy_error

MAX_CANDIDATES = 2_000_000  # scoring holds several int64 arrays of up to this many entries (16 MB each)
_UNIT = Fraction(1, 2**53)


def candidate_count(capacity: np.ndarray, top: int) -> int:
    """At least as many candidate pairs as :func:`bounded_global_var` scores: every :math:`A` of at most ``top``
    values (:func:`_count_small`) times :math:`(top + 1)(top + 2)`."""
    return _count_small(capacity, top) * (top + 1) * (top + 2)


def _count_small(capacity: np.ndarray, top: int) -> int:
    """How many sub-multisets of at most ``top`` values (one extra value of multiplicity ``top`` counts the missing
    ones); exact up to :data:`MAX_CANDIDATES`, a lower bound above it."""
    return count_submultisets(np.append(capacity, top), top, cap=MAX_CANDIDATES)


def _small_submultisets(capacity: np.ndarray, top: int) -> list[np.ndarray]:
    """Count vectors of every sub-multiset of ``j`` values, for ``j = 0 .. top`` (entry ``j``). Each is built once,
    as a non-decreasing sequence of value indices: a row grows only at or after the last index it used."""
    d = capacity.size
    rows, last = np.zeros((1, d), dtype=np.int64), np.zeros(1, dtype=np.int64)
    found = [rows]
    for _ in range(top):
        row, index = np.nonzero((np.arange(d)[None, :] >= last[:, None]) & (rows < capacity[None, :]))
        rows = rows[row]
        rows[np.arange(row.size), index] += 1
        last = index
        found.append(rows)
    return found


def _prefix(rows: np.ndarray) -> np.ndarray:
    """Row-wise prefix sums with a leading zero column."""
    return np.concatenate([np.zeros((rows.shape[0], 1), dtype=rows.dtype), np.cumsum(rows, axis=1)], axis=1)


def windows(size: int, rest: int, core: int, j: int) -> list[tuple[int, int]]:
    """Every candidate shape for one ``j`` (module docstring): ``y`` is the ``p`` lowest and ``size - p`` highest of
    sorted ``W`` (``rest`` values), ``K`` the ``core`` values of ``W`` from position ``s`` on."""
    pairs = []
    for p in range(size + 1):
        starts = list(range(p - core + 1)) if p >= core else []
        if p <= j:
            starts += list(range(rest - (size - p), rest - core + 1))
        pairs += [(p, s) for s in dict.fromkeys(starts)]
    return pairs


def bounded_global_var(universe: np.ndarray, size: int, k: int, resolved: ResolvedQuery) -> float | None:
    """Enumeration's bounded :math:`GS_k` of ``var`` bit for bit, or ``None`` when the certificate of the module
    docstring does not hold, or the candidates (or the sets :math:`A` times :math:`|U|`, the rows held while scoring)
    exceed :data:`MAX_CANDIDATES`. ``universe`` sorted, checked. The cheap refusals come first, so a ``None`` is
    quick whenever the work would be large."""
    top = min(k, universe.size - size)
    if top < 1:
        return None
    if not np.all(universe == np.round(universe)):
        return None
    centre = float(np.round(universe[-1] / 2 + universe[0] / 2))
    reach = float(max(np.abs(universe - centre).max(), 1.0))
    if 8 * size**2 * reach**2 > 2.0**63 or universe.size * reach**2 > 2.0**62:
        return None
    if 4 * numpy_error("var", universe, size) >= Fraction(1, size**2):  # the certificate below cannot hold
        return None
    values, capacity = distinct_counts(universe)
    small = _count_small(capacity, top)
    if small * (top + 1) * (top + 2) > MAX_CANDIDATES or small * universe.size > MAX_CANDIDATES:
        return None
    shifted = (values - centre).astype(np.int64)
    every = _small_submultisets(capacity, top)
    scored = []
    for j in range(1, top + 1):
        own = every[j]
        rest = counts_to_rows(shifted, capacity - own)
        s1, s2 = _prefix(rest), _prefix(rest * rest)
        width, core = universe.size - j, size - j
        split, start = np.array(windows(size, width, core, j)).T
        y1 = s1[:, split] + s1[:, [width]] - s1[:, width - size + split]
        y2 = s2[:, split] + s2[:, [width]] - s2[:, width - size + split]
        x1 = (own @ shifted)[:, None] + s1[:, start + core] - s1[:, start]
        x2 = (own @ (shifted * shifted))[:, None] + s2[:, start + core] - s2[:, start]
        scored.append((j, own, split, start, size * y2 - y1 * y1 - size * x2 + x1 * x1, x1 == y1))
    best_gap = max(int(gap.max()) for *_, gap, _ in scored)
    if 4 * numpy_error("var", universe, size) + 2 * _UNIT * Fraction(best_gap, size**2) >= Fraction(1, size**2):
        return None
    best, tied = 0.0, set()
    for j, own, split, start, gap, equal in scored:
        row, column = np.nonzero(gap == best_gap)
        if row.size == 0:
            continue
        rest = counts_to_rows(values, capacity - own[row])
        width, core = universe.size - j, size - j
        low = np.arange(size)[None, :]
        kept = np.where(low < split[column, None], low, low + width - size)
        y = np.take_along_axis(rest, kept, axis=1)
        window = np.take_along_axis(rest, start[column, None] + np.arange(core)[None, :], axis=1)
        x = np.sort(np.concatenate([counts_to_rows(values, own[row]), window], axis=1), axis=1)
        same = equal[row, column]
        tied.update(_differences(values, x[same], y[same]))
        if not same.all():
            best = max(best, float((resolved.on_rows(y[~same]) - resolved.on_rows(x[~same])).max()))
    work = sum(count_submultisets(capacity - np.array(a) - np.array(b), size - sum(a), cap=MAX_CANDIDATES + 1)
               for a, b in tied)
    if work > MAX_CANDIDATES:
        return None
    for a, b in tied:
        away, added = np.array(a), np.array(b)
        cores = submultisets(capacity - away - added, size - int(away.sum()))
        f_x = resolved.on_rows(counts_to_rows(values, cores + away))
        f_y = resolved.on_rows(counts_to_rows(values, cores + added))
        best = max(best, float((f_y - f_x).max()))
    return best


def _differences(values: np.ndarray, x: np.ndarray, y: np.ndarray) -> set[tuple[tuple[int, ...], tuple[int, ...]]]:
    """The distinct :math:`(x - y, y - x)` of sorted row pairs, as count-vector tuples."""
    def counts(rows: np.ndarray) -> np.ndarray:
        table = np.zeros((rows.shape[0], values.size), dtype=np.int64)
        np.add.at(table, (np.arange(rows.shape[0])[:, None], np.searchsorted(values, rows)), 1)
        return table

    cx, cy = counts(x), counts(y)
    common = np.minimum(cx, cy)
    return {(tuple(a), tuple(b)) for a, b in zip((cx - common).tolist(), (cy - common).tolist(), strict=True)}


# ------------------------------------------------------------------------------------------- unbounded
def unbounded_count(total: int, size: int, k: int) -> int:
    """How many candidate pairs :func:`unbounded_shapes` lists for ``total`` values, release size ``size``."""
    count = 0
    for part in (size - k, size):
        count += (k + 1) * (total - k + 2)
        if part >= 2:
            count += (part + 1) * (total - part - k + 1)
    return count


@functools.lru_cache(maxsize=64)
def unbounded_shapes(total: int, part: int, k: int) -> np.ndarray:
    r"""The candidate pairs of one unbounded family (module docstring, *Unbounded*) as rows of positions in the
    sorted universe (``total`` values): ``(side, p0, p1, p2, p3, r0, r1, r2, r3)``. The part :math:`P`
    (``part`` records) is positions ``[p0, p1) + [p2, p3)`` and the added :math:`R` (``k`` records)
    ``[r0, r1) + [r2, r3)``; ``side`` is 1 for (a), scored by :math:`V(P + R) - V(P)`, and -1 for (b).
    A pure function of three integers, so it is cached; the table is read-only."""
    middle = total - k
    a = np.arange(k + 1)[:, None]  # side (a): R = the a lowest and k - a highest of U, P inside the middle
    s = np.arange(middle - part + 1)[None, :]  # P a window of the middle
    a_w, s_w = np.broadcast_arrays(a, s)
    c = np.arange(part + 1)[None, :]  # P a split of the middle: its c lowest and part - c highest
    a_s, c_s = np.broadcast_arrays(a, c)
    blocks = [
        _columns(1, a_w + s_w, a_w + s_w + part, 0, 0, 0, a_w, a_w + middle, total),
        _columns(1, a_s, a_s + c_s, a_s + middle - (part - c_s), a_s + middle, 0, a_s, a_s + middle, total),
    ]
    if part >= 2:  # side (b): P = the b lowest and part - b highest of U, R a window of the rest
        b, t = np.broadcast_arrays(np.arange(part + 1)[:, None], np.arange(total - part - k + 1)[None, :])
        blocks.append(_columns(-1, 0, b, total - part + b, total, b + t, b + t + k, 0, 0))
    table = np.concatenate(blocks)
    table.flags.writeable = False
    return table


def _columns(*columns: int | np.ndarray) -> np.ndarray:
    """Stack scalars and equal-shaped arrays as the columns of one int64 table (one row per array entry)."""
    shape = next(np.shape(c) for c in columns if np.ndim(c))
    return np.stack([np.broadcast_to(c, shape).ravel() for c in columns], axis=1).astype(np.int64)


def _ranges_sum(prefix: np.ndarray, shapes: np.ndarray, first: int) -> np.ndarray:
    """Sum over the two position ranges in columns ``first .. first + 3`` of ``shapes``."""
    return (prefix[shapes[:, first + 1]] - prefix[shapes[:, first]]
            + prefix[shapes[:, first + 3]] - prefix[shapes[:, first + 2]])


def _ranges_rows(universe: np.ndarray, shapes: np.ndarray, first: int, columns: tuple[int, ...]) -> np.ndarray:
    """The sorted datasets made of the ranges in the given column pairs (offsets from ``first``)."""
    positions = [np.concatenate([np.arange(row[first + lo], row[first + lo + 1]) for lo in columns])
                 for row in shapes]
    return universe[np.sort(np.array(positions, dtype=np.int64).reshape(len(shapes), -1), axis=1)]


def unbounded_global_var(universe: np.ndarray, size: int, k: int, resolved: ResolvedQuery) -> float | None:
    """Enumeration's unbounded :math:`GS_k` of ``var`` bit for bit, or ``None`` when the certificate of the module
    docstring (*Unbounded*) does not hold or the candidates exceed :data:`MAX_CANDIDATES`. ``universe`` sorted and
    checked, ``1 <= k < size``, ``size + k <= |U|``."""
    total, size, k = universe.size, int(size), int(k)
    if unbounded_count(total, size, k) > MAX_CANDIDATES or not np.all(universe == np.round(universe)):
        return None
    centre = float(np.round(universe[-1] / 2 + universe[0] / 2))
    reach = float(max(np.abs(universe - centre).max(), 1.0))
    if 4 * (size + k) ** 4 * reach**2 > 2.0**62 or total * reach**2 > 2.0**62:
        return None
    families = [(size - k, size), (size, size + k)]
    spacing = Fraction(1, math.lcm(*(m * m * p * p for p, m in families)))
    error = numpy_error("var", universe, size + k)
    if 4 * error >= spacing:
        return None
    shifted = (universe - centre).astype(np.int64)
    s1 = np.concatenate([[0], np.cumsum(shifted)])
    s2 = np.concatenate([[0], np.cumsum(shifted * shifted)])
    scored = []
    for part, whole in families:
        shapes = unbounded_shapes(total, part, k)
        p_sum, p_sq = _ranges_sum(s1, shapes, 1), _ranges_sum(s2, shapes, 1)
        b_sum, b_sq = p_sum + _ranges_sum(s1, shapes, 5), p_sq + _ranges_sum(s2, shapes, 5)
        spread_whole, spread_part = whole * b_sq - b_sum * b_sum, part * p_sq - p_sum * p_sum  # m^2 V, p^2 V
        gap = shapes[:, 0] * (part * part * spread_whole - whole * whole * spread_part)
        scored.append((shapes, gap, part, whole))
    best = max(Fraction(int(gap.max()), whole * whole * part * part) for _, gap, part, whole in scored)
    if best <= 0 or 4 * error + 2 * _UNIT * best >= spacing:
        return None
    answer = 0.0
    for shapes, gap, part, whole in scored:
        target = best * whole * whole * part * part
        if target.denominator != 1:
            continue
        winners = shapes[gap == target.numerator]
        if winners.size == 0:
            continue
        if winners.shape[0] * (whole + part) > MAX_CANDIDATES:
            return None
        f_part = resolved.on_rows(_ranges_rows(universe, winners, 1, (0, 2)))
        f_whole = resolved.on_rows(_ranges_rows(universe, winners, 1, (0, 2, 4, 6)))
        answer = max(answer, float((winners[:, 0] * (f_whole - f_part)).max()))
    return answer
