r"""Global sensitivity of the variance (population, ``ddof=0``) under bounded and unbounded neighbours, from few
candidates.

Notebook A1. The local case is :mod:`dpteach.spread`; this module uses its two facts (C) *convex in each record*
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

**Floating point: exact or not at all** (the rounding promise of :mod:`dpteach.exact`, for these candidates).
:func:`bounded_global_var` returns enumeration's value bit for bit, or
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

*Layouts.* Facts (W) and (S) say that one chosen set has no record *strictly inside the range* of another set of
records: write :math:`X \mid Y` for "no record of :math:`X` lies strictly between the least and the largest of
:math:`Y`". Reading sorted :math:`U` from left to right, the three sets :math:`P`, :math:`R`, :math:`Z` then form
few patterns, listed below; the names :math:`R_1 Z R_2 P R_3` mean consecutive blocks of sorted :math:`U` (any may
be empty), the ``a`` lowest and the highest values "the ends".

*Side (a)*, :math:`V(P + R) - V(P)`. (i) With :math:`B` fixed, :math:`P` minimises :math:`V(P)` among the
:math:`p`-sets of :math:`B`: a window of :math:`B` by (W), so :math:`R \mid P`. (ii) With :math:`P` fixed,
:math:`R` maximises :math:`V(P + R)`: a split of :math:`R + Z` by (S) (:math:`m \ge 2`), so :math:`R \mid Z`.
(iii) With :math:`R` fixed, the objective is :math:`(1/m - 1/p)\,Q_P + g(S_P)` plus a constant, with
:math:`g(S) = S^2/p^2 - (S + S_R)^2/m^2`, strictly convex (:math:`m > p`): by (H), :math:`P` is a window or a
split of :math:`P + Z`. If :math:`Z` has records on both sides of :math:`P` (window) or :math:`P` on both sides of
:math:`Z` (split), the range of one contains the other, and :math:`R` avoids it: :math:`R` is the ``a`` lowest and
``k - a`` highest of :math:`U`, and :math:`P` a window or a split of the middle :math:`U - R`. Otherwise :math:`Z`
lies wholly below or wholly above :math:`P`, and :math:`R` avoids both ranges: the layouts
:math:`R_1 Z R_2 P R_3` and :math:`R_1 P R_2 Z R_3`. Candidates: :math:`(k + 1)(|U| - k + 2) + (k + 1)(k + 2)`.

*Side (b)*, :math:`V(P) - V(P + R)`, only for :math:`p \ge 2` (with :math:`p = 1`, :math:`V(P) = 0` and the
side is never positive). (i) With :math:`B` fixed, :math:`P` maximises :math:`V(P)` among the :math:`p`-sets of
:math:`B`: a split of :math:`B` by (S), so :math:`P \mid R`. (ii) With :math:`R` fixed, the leading coefficient in
each record of :math:`P` is :math:`(p - 1)/p^2 - (m - 1)/m^2 > 0`: by (S), :math:`P` is a split of :math:`P + Z`,
so :math:`P \mid Z`. (iii) With :math:`P` fixed, :math:`R` minimises :math:`V(P + R)`: by the exchange of (W)
(replace the record of :math:`R` farther from the mean of :math:`B`), a window of :math:`U - P`, so
:math:`Z \mid R`. If :math:`Z` has records on both sides of :math:`R`, its range contains :math:`R`'s and
:math:`P` avoids it: :math:`P` is the ``b`` lowest and ``p - b`` highest of :math:`U` and :math:`R` a window of
the rest. Otherwise :math:`Z` lies wholly below or above :math:`R` and :math:`P` avoids both ranges: the layouts
:math:`P_1 Z P_2 R P_3` and :math:`P_1 R P_2 Z P_3`. Candidates: :math:`(p + 1)(|U| - p - k + 1) + (p + 1)(p + 2)`.
The layouts are needed, so their :math:`n^2` work stays: for :math:`U = \{0, 1, 1, 13, 13, 14\}`, :math:`p = 3`,
:math:`k = 2` the largest side-(b) gap, :math:`206/225`, is attained only by :math:`P = \{0, 13, 13\}`,
:math:`R = \{1, 1\}` (:math:`P_1 R P_2 Z P_3`, :math:`Z = \{14\}`) and its mirror image, while the ends with a
window reach :math:`204/225` (``test_unbounded_side_b_maximiser_only_a_layout_holds``).

Every candidate is a pair (its :math:`P` and :math:`R` are disjoint position sets of :math:`U`), so the largest
real gap :math:`T` is the largest over the candidates, and every pair attaining it is a candidate (as a multiset:
positions of equal values give equal multisets). There are :math:`O(|U| (k + n) + n^2)` of them
(:func:`unbounded_count`).

*Computing* :math:`T` *exactly* (whole numbers, shifted by the rounded mid-range, :math:`|U| A'^2 \le 2^{62}`, so
every sum and sum of squares is an exact ``int64`` from prefix sums). Each candidate is scored in floating point,
:math:`\hat V = \mathrm{fl}(Q/m) - \mathrm{fl}(S/m)^2` for :math:`P` and :math:`B`, within
:math:`e = 2\gamma_7 A'^2` of each real variance (:func:`dpteach.spread.scoring_error`), so within :math:`2e` of its
real gap, up to the rounding of the subtraction (every threshold below is lowered by a further relative
:math:`2^{-50}`, :func:`_below`). Every maximiser scores at least :math:`\hat g_{\max} - 4e`; those candidates
(the *shortlist*) are scored again in exact rational arithmetic from their integer sums, which gives :math:`T`
and the set of maximisers.
*Pruning side (b)*: :math:`V(P + R) \ge \frac{p}{m} V(P)` (the within-groups part of the variance of a union), so
every side-(b) gap with a given :math:`b` is at most :math:`\frac{k}{m} V(P_b)`. A :math:`b` whose bound (from
:math:`\hat V(P_b) + e`, rounded up) lies below the best score so far minus :math:`2e` cannot reach :math:`T` and
is skipped; the work left is counted before it is done, and above :data:`UNBOUNDED_CANDIDATES` the function returns
``None``. Side (a) and the layouts are scored whole; on spread-out data few :math:`b` survive (measured in
``make bench``).

*Floating point.* Real gaps are multiples of :math:`1/L`, :math:`L = \operatorname{lcm}(n^2 (n - k)^2,
(n + k)^2 n^2)`. When :math:`4E + 2uT < 1/L` (:math:`E` numpy's error for datasets of up to :math:`n + k`
records), a pair that does not attain :math:`T` has a rounded gap below every maximiser's (the bounded argument
above, with :math:`1/L` for :math:`1/n^2`), so enumeration's value is the largest rounded gap over the
maximisers, all of which are candidates: :func:`unbounded_global_var` evaluates exactly those with numpy, as
enumeration does, and returns its value bit for bit. Otherwise (wide ranges, large :math:`n`: the spacing
:math:`1/L` shrinks like :math:`n^{-8}`) it returns the proved upper bound
:math:`\mathrm{fl}^{\uparrow}((T + 2E)(1 + u))`: enumeration's value, a rounded :math:`|\hat V(B) - \hat V(P)|`,
is at most :math:`(T + 2E)(1 + u)` and at least :math:`(T - 2E)(1 - u)`, so the bound exceeds it by at most
:math:`4E + 4uR`. Fractional values return ``None`` (the caller enumerates).

**Symmetric: not covered** (``var`` is enumerated). Read a symmetric pair high side first: :math:`H = C + P`,
:math:`L = C + M` with :math:`C + P + M \subseteq U`, :math:`|C| = c \ge 0`, :math:`|P| = p`, :math:`|M| = q`,
:math:`p + q \le k`, :math:`c + p = n` or :math:`c + q = n`, and neither side empty (:math:`c = 0` pairs two
datasets that share no record); write :math:`h = c + p`, :math:`l = c + q`,
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
condition splits a set against a different pool, and the splits need not sit at the same place (the *Layouts*
reading of the unbounded case is the way to combine them, not yet carried out for four sets); and the maximum
can come from a family that is neither bounded nor unbounded (:math:`U = \{-9, -5, -4, -3, 3, 9\}`,
:math:`n = 4`, :math:`k = 5`: only :math:`(c, p, q) = (1, 1, 3)` attains it). No certificate is claimed until such
a family is proved.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from dpteach.neighbours import count_submultisets, counts_to_rows, distinct_counts, submultisets
from dpteach.queries import ResolvedQuery
from dpteach.spread import numpy_error, prefix_sums, round_up, scoring_error

MAX_CANDIDATES = 2_000_000  # scoring holds several int64 arrays of up to this many entries (16 MB each)
_UNIT = Fraction(1, 2**53)


def _centre_and_reach(universe: np.ndarray) -> tuple[float, float]:
    r"""For whole numbers: the rounded mid-range :math:`c` and :math:`A' = \max(\max |U - c|, 1)`, so the shifted
    values, their sums and sums of squares are integers bounded through :math:`A'`."""
    centre = float(np.round(universe[-1] / 2 + universe[0] / 2))
    return centre, float(max(np.abs(universe - centre).max(), 1.0))


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
    centre, reach = _centre_and_reach(universe)
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
MAX_SHORTLIST = 100_000  # near-maximal candidates re-scored in exact rational arithmetic
SMALL_TABLE = 20_000  # up to this many candidates, one cached table is scored at once (no pruning)
UNBOUNDED_CANDIDATES = 50_000_000  # scored in blocks, so memory stays small; this bounds the time (seconds)


@dataclass
class _Block:
    """Candidates sharing a shape (module docstring, *Unbounded*): the part :math:`P` and the added :math:`R` as three
    half-open position ranges each, ``ranges = (P: 6 bounds, R: 6 bounds)``, every bound an integer or an array (all
    broadcast together; one candidate per element), scored as ``side * (V(P + R) - V(P))``."""

    side: np.ndarray | int
    part: np.ndarray | int
    ranges: tuple[np.ndarray | int, ...]

    @functools.cached_property
    def shape(self) -> tuple[int, ...]:
        """The broadcast shape of the bounds: one entry per candidate."""
        return np.broadcast_shapes(*(np.shape(r) for r in self.ranges))

    def sums(self, prefix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The sums over :math:`P` and over :math:`R` (flat integer arrays, one entry per candidate) from one
        prefix-sum array."""
        def total(bounds: tuple[np.ndarray | int, ...]) -> np.ndarray:
            runs = zip(bounds[::2], bounds[1::2], strict=True)
            return np.broadcast_to(sum(prefix[hi] - prefix[lo] for lo, hi in runs), self.shape).ravel()
        return total(self.ranges[:6]), total(self.ranges[6:])

    def bounds(self, chosen: np.ndarray) -> np.ndarray:
        """The twelve bounds of the chosen candidates, one row each."""
        return np.stack([np.broadcast_to(r, self.shape).ravel()[chosen] for r in self.ranges], axis=1)


def _side_a(total: int, part: int, k: int) -> list[_Block]:
    """Side (a). :math:`R` the ``a`` lowest and ``k - a`` highest of :math:`U` (``a`` per row) with :math:`P` a
    window or a split of the middle (``total - k`` values); and the layouts :math:`R_1 Z R_2 P R_3` and
    :math:`R_1 P R_2 Z R_3` (``a1`` and ``a2`` per entry, ``a3 = k - a1 - a2``)."""
    middle, a = total - k, np.arange(k + 1)[:, None]
    start = a + np.arange(middle - part + 1)[None, :]
    low = np.arange(part + 1)[None, :]
    a1, a2 = np.nonzero(np.add.outer(np.arange(k + 1), np.arange(k + 1)) <= k)
    unused = total - part - k
    after_z, after_p = a1 + unused + a2, a1 + part + a2  # where P starts in the first layout, Z in the second
    top = total - (k - a1 - a2)
    return [_Block(1, part, (start, start + part, 0, 0, 0, 0, 0, a, a + middle, total, 0, 0)),
            _Block(1, part, (a, a + low, a + middle - part + low, a + middle, 0, 0, 0, a, a + middle, total, 0, 0)),
            _Block(1, part, (after_z, after_z + part, 0, 0, 0, 0, 0, a1, a1 + unused, after_z, top, total)),
            _Block(1, part, (a1, a1 + part, 0, 0, 0, 0, 0, a1, a1 + part, after_p, top, total))]


def _side_b(total: int, part: int, k: int, lows: np.ndarray) -> _Block:
    """Side (b) for the given ``b`` (one per row): :math:`P` the ``b`` lowest and ``part - b`` highest of :math:`U`,
    :math:`R` a window of the rest."""
    b = lows[:, None]
    start = b + np.arange(total - part - k + 1)[None, :]
    return _Block(-1, part, (0, b, total - part + b, total, 0, 0, start, start + k, 0, 0, 0, 0))


def _side_b_layouts(total: int, part: int, k: int) -> list[_Block]:
    """Side (b)'s layouts :math:`P_1 Z P_2 R P_3` and :math:`P_1 R P_2 Z P_3` (``p1`` and ``p2`` per entry)."""
    p1, p2 = np.nonzero(np.add.outer(np.arange(part + 1), np.arange(part + 1)) <= part)
    unused = total - part - k
    z_first, r_first = p1 + unused + p2, p1 + k + p2  # where R starts in the first layout, Z in the second
    return [_Block(-1, part, (0, p1, p1 + unused, z_first, z_first + k, total, z_first, z_first + k, 0, 0, 0, 0)),
            _Block(-1, part, (0, p1, p1 + k, r_first, r_first + unused, total, p1, p1 + k, 0, 0, 0, 0))]


def _side_b_pruned(scores: _Scores, total: int, families: list[tuple[int, int]], k: int) -> bool:
    """Score side (b): its layouts whole, and of the ends-and-window candidates only the ``b`` whose bound
    :math:`(k/m) V(P_b)` reaches the best gap so far minus ``2e`` (module docstring); ``False`` if the work would
    exceed :data:`UNBOUNDED_CANDIDATES`."""
    s1, s2, error = scores.s1, scores.s2, scores.error
    bounds = {}
    for part, whole in families:
        if part < 2:
            continue
        for block in _side_b_layouts(total, part, k):
            scores.add(block)
        lows = np.arange(part + 1)
        p_sum = s1[lows] + s1[total] - s1[total - part + lows]
        p_sq = s2[lows] + s2[total] - s2[total - part + lows]
        bounds[part] = (k / whole) * (_variance(p_sum, p_sq, part) + error) * (1 + 2.0**-50)
        scores.add(_side_b(total, part, k, np.array([int(np.argmax(bounds[part]))])))
    rest = {part: np.flatnonzero(bound >= _below(scores.best, 2 * error)) for part, bound in bounds.items()}
    work = sum(lows.size * (total - part - k + 1) for part, lows in rest.items())
    if scores.scored + work > UNBOUNDED_CANDIDATES:
        return False
    for part, lows in rest.items():
        scores.add(_side_b(total, part, k, lows))
    return True


def _unpruned_count(total: int, part: int, k: int) -> int:
    """Candidates of one family that are always scored whole: side (a) and side (b)'s layouts."""
    return (k + 1) * (total - k + 2) + (k + 1) * (k + 2) + (part >= 2) * (part + 1) * (part + 2)


def unbounded_count(total: int, size: int, k: int) -> int:
    """How many candidate pairs the *Unbounded* section lists before any pruning (both families)."""
    return sum(_unpruned_count(total, part, k) + (part >= 2) * (part + 1) * (total - part - k + 1)
               for part in (size - k, size))


def _variance(sums: np.ndarray, squares: np.ndarray, m: int) -> np.ndarray:
    """:math:`\\hat V = \\mathrm{fl}(Q/m) - \\mathrm{fl}(S/m)^2` from exact integer sums (error: module docstring)."""
    return squares.astype(float) / m - (sums.astype(float) / m) ** 2


def _below(best: float, amount: float) -> float:
    """``best - amount`` lowered by a relative :math:`2^{-50}`, more than the few roundings of the scores and of
    this subtraction, so a candidate that may reach :math:`T` is never cut."""
    return best - amount - 2.0**-50 * (abs(best) + amount)


class _Scores:
    """Scores blocks of candidates in floating point and keeps every one within ``4e`` of the best so far."""

    def __init__(self, s1: np.ndarray, s2: np.ndarray, k: int, error: float) -> None:
        self.s1, self.s2, self.k, self.error = s1, s2, k, error
        self.best = -math.inf
        self.kept: list[tuple[_Block, np.ndarray, np.ndarray, np.ndarray]] = []
        self.scored = 0

    def add(self, block: _Block) -> None:
        (p_sum, r_sum), (p_sq, r_sq) = block.sums(self.s1), block.sums(self.s2)
        side, part = (np.broadcast_to(v, p_sum.shape) for v in (block.side, block.part))
        gap = side * (_variance(p_sum + r_sum, p_sq + r_sq, part + self.k) - _variance(p_sum, p_sq, part))
        self.scored += gap.size
        if gap.size == 0:
            return
        self.best = max(self.best, float(gap.max()))
        near = np.flatnonzero(gap >= _below(self.best, 4 * self.error))
        entries = np.stack([side, part, p_sum, p_sq, r_sum, r_sq], axis=1)[near]
        self.kept.append((block, near, gap[near], entries))

    def shortlist(self) -> Iterator[tuple[_Block, np.ndarray, np.ndarray]]:
        """Per block, the indices and ``(side, part, sums)`` rows of the kept candidates still within ``4e`` of the
        final best: every exact maximiser is among them (module docstring)."""
        for block, near, gap, entries in self.kept:
            close = gap >= _below(self.best, 4 * self.error)
            yield block, near[close], entries[close]


def _exact_gap(k: int, entry: tuple[int, ...]) -> Fraction:
    r""":math:`\pm (V(P + R) - V(P))` in exact rational arithmetic from one candidate's side, size of :math:`P` and
    integer sums."""
    side, part, p_sum, p_sq, r_sum, r_sq = entry
    m = part + k
    whole = Fraction(m * (p_sq + r_sq) - (p_sum + r_sum) ** 2, m * m)
    return side * (whole - Fraction(part * p_sq - p_sum * p_sum, part * part))


@functools.lru_cache(maxsize=32)
def _every_candidate(total: int, size: int, k: int) -> _Block:
    """Both families' candidates, sides (a) and (b) unpruned, as one flat block: one scoring pass for small
    universes (a pure function of three integers, cached; its arrays are read-only)."""
    blocks = []
    for part in (size - k, size):
        blocks += _side_a(total, part, k)
        if part >= 2:
            blocks += [_side_b(total, part, k, np.arange(part + 1)), *_side_b_layouts(total, part, k)]
    columns = []
    for block in blocks:
        zero = np.zeros(block.shape, dtype=np.int64)  # adding it broadcasts (cheaper than np.broadcast_to here)
        columns.append(np.array([(zero + value).ravel() for value in (block.side, block.part, *block.ranges)]))
    table = np.concatenate(columns, axis=1)
    table.flags.writeable = False
    side, part, *ranges = table
    return _Block(side, part, tuple(ranges))


def clear_cache() -> None:
    """Forget the kept candidate tables of :func:`_every_candidate`."""
    _every_candidate.cache_clear()


def unbounded_global_var(universe: np.ndarray, size: int, k: int, resolved: ResolvedQuery) -> float | None:
    """The unbounded :math:`GS_k` of ``var`` from the candidates (module docstring, *Unbounded*): enumeration's value
    bit for bit when certified, else the proved upper bound :math:`\\mathrm{fl}^{\\uparrow}((T + 2E)(1 + u))`.
    ``None`` (the caller enumerates) for fractional values, sums beyond ``int64``, work above
    :data:`UNBOUNDED_CANDIDATES` or more than :data:`MAX_SHORTLIST` near-ties. ``universe`` sorted and checked,
    ``1 <= k < size``, ``size + k <= |U|``."""
    total, size, k = universe.size, int(size), int(k)
    if not np.all(universe == np.round(universe)):
        return None
    if universe[0] == universe[-1]:
        return 0.0  # every variance is exactly 0, in numpy too (the mean of equal whole numbers is exact)
    centre, reach = _centre_and_reach(universe)
    if total * reach**2 > 2.0**62:
        return None
    shifted = (universe - centre).astype(np.int64)
    s1, s2, _ = prefix_sums(shifted, exact=True)
    error = scoring_error(shifted, exact=True, smallest=1)
    scores = _Scores(s1, s2, k, round_up(error))
    families = [(size - k, size), (size, size + k)]
    if unbounded_count(total, size, k) <= SMALL_TABLE:
        scores.add(_every_candidate(total, size, k))
    else:
        if sum(_unpruned_count(total, part, k) for part, _ in families) > UNBOUNDED_CANDIDATES:
            return None
        for part, _ in families:
            for block in _side_a(total, part, k):
                scores.add(block)
        if not _side_b_pruned(scores, total, families, k):
            return None
    shortlist = list(scores.shortlist())
    if sum(near.size for _, near, _ in shortlist) > MAX_SHORTLIST:
        return None
    gaps = {entry: _exact_gap(k, entry) for _, _, entries in shortlist for entry in map(tuple, entries.tolist())}
    top = max(gaps.values())
    numpy = numpy_error("var", universe, size + k)
    spacing = Fraction(1, math.lcm(*(m * m * p * p for p, m in families)))
    if 4 * numpy + 2 * _UNIT * top < spacing:
        winners = []
        for block, near, entries in shortlist:
            attains = np.array([gaps[entry] == top for entry in map(tuple, entries.tolist())], dtype=bool)
            winners.append((block, near[attains], entries[attains, 0]))
        return _evaluate_maximisers(universe, winners, k, resolved)
    return round_up((top + 2 * numpy) * (1 + _UNIT))


def _evaluate_maximisers(universe: np.ndarray, winners: list[tuple[_Block, np.ndarray, np.ndarray]], k: int,
                         resolved: ResolvedQuery) -> float | None:
    """Enumeration's largest rounded gap over the exact maximisers: numpy's ``var`` of each sorted :math:`P` and
    :math:`P + R`, as enumeration evaluates them (``None`` above :data:`MAX_CANDIDATES` cells)."""
    if sum(chosen.size for _, chosen, _ in winners) * 2 * (universe.size + k) > MAX_CANDIDATES:
        return None
    pairs = {}
    for block, chosen, sides in winners:  # equal values at other positions give the same pair: evaluate it once
        for bounds, side in zip(block.bounds(chosen).tolist(), sides.tolist(), strict=True):
            runs = [range(lo, hi) for lo, hi in zip(bounds[::2], bounds[1::2], strict=True)]
            part = sorted(i for run in runs[:3] for i in run)
            whole = sorted(i for run in runs for i in run)
            pairs[(tuple(universe[part]), tuple(universe[whole]))] = side
    best = 0.0
    for (part, whole), side in pairs.items():
        f_part = resolved.on_rows(np.array([part]))[0]
        f_whole = resolved.on_rows(np.array([whole]))[0]
        best = max(best, float(side * (f_whole - f_part)))
    return best
