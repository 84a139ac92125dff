r"""Exact local sensitivity of the variance and the standard deviation (population, ``ddof=0``), notebook A1.

The variance is not monotone in the order statistics, so the dominance arguments of :mod:`dpteach.exact` do not
apply. Two other facts do. For a dataset :math:`y` of :math:`m` records write
:math:`V(y) = \frac1m \sum (y_i - \bar y)^2`.

* (C) **Convex in each record.** With the other :math:`m - 1` records fixed,
  :math:`V = \frac{Q + t^2}{m} - \frac{(S + t)^2}{m^2}` is a quadratic in the record :math:`t` with leading
  coefficient :math:`\frac{m - 1}{m^2} \ge 0` (:math:`> 0` for :math:`m \ge 2`). So moving a record *outwards*,
  to a value below or above it, never lowers the larger of the two results.
* (N) **Nearest values.** :math:`V(y) = \min_c \frac1m \sum (y_i - c)^2`, attained at :math:`c = \bar y`.

**Neighbours in families.** Every neighbour of a release :math:`x` (:math:`n` records, spare values
:math:`S = U - x`) is :math:`(x - R) + a` with :math:`R \subseteq x`, :math:`|R| = i`, :math:`a \subseteq S`,
:math:`|a| = j`, and the families :math:`(i, j)` are: unbounded :math:`(k, 0)` and :math:`(0, k)`; bounded
:math:`(j, j)` for :math:`0 \le j \le \min(k, |S|)` (:mod:`dpteach.exact`: the neighbours are the
:math:`n`-record :math:`y \subseteq U` with :math:`|y - x| \le k`; :math:`j = 0` is :math:`x` itself, gap 0);
symmetric every :math:`i \le \min(k, n)`, :math:`j \le \min(k - i, |S|)`, :math:`i + j \le k`, :math:`j \ge 1` when
:math:`i = n` (a neighbour is never empty, but may share no record with :math:`x`; and :math:`(0, 0)`, gap 0).
Conversely every member of a family is a neighbour or :math:`x`. So
:math:`LS_k(x) = \max(V_{\max} - V(x),\ V(x) - V_{\min})`, the extremes taken over all families, and for the
standard deviation the same with :math:`\sqrt{\cdot}` (increasing) applied to each of the three values.

**The candidates of one family.** A member is a choice of :math:`n - i` records of the sorted :math:`x` (the
kept part :math:`K`) and :math:`j` of the sorted :math:`S`.

* *Largest variance*: :math:`K` is a **split** of :math:`x` (its :math:`t` lowest and :math:`n - i - t` highest
  records, i.e. :math:`R` is a window of :math:`i` consecutive records) and :math:`a` a split of :math:`S`:
  :math:`(n - i + 1)(j + 1)` candidates. *Proof.* Take a maximiser and, among the ways of labelling its records by
  positions of the two sorted pools, one that minimises the number of chosen positions lying strictly between
  two unchosen positions of the same pool. If that number is positive, some chosen :math:`q` has unchosen
  :math:`p < q < r` in its pool; take :math:`p, r` the lowest and highest unchosen positions. If the value at
  :math:`q` equals that at :math:`p` or :math:`r`, swapping the labels gives the same multiset with a smaller
  count; otherwise by (C), with :math:`m \ge 2`, replacing :math:`q` by :math:`p` or by :math:`r` *raises*
  the variance strictly, contradicting maximality. So every maximiser (as a multiset) is a candidate. (With
  :math:`m = 1` every variance is 0.)
* *Smallest variance*: :math:`K` is a **window** of :math:`x` (:math:`n - i` consecutive records) and :math:`a`
  a window of :math:`S`: :math:`(i + 1)(|S| - j + 1)` candidates. *Proof.* Let :math:`y^*` be a minimiser and
  :math:`c` its mean. Replacing :math:`K` by the :math:`n - i` records of :math:`x` nearest to :math:`c`, and
  :math:`a` by the :math:`j` values of :math:`S` nearest to :math:`c`, lowers :math:`\sum (y_i - c)^2`, strictly
  unless both parts already were nearest sets; by (N) the variance falls with it, so every minimiser consists
  of nearest sets. A nearest set holds everything strictly closer than some distance :math:`\rho` and some of
  the copies of :math:`c \pm \rho`: as a multiset, a window.

Unbounded: :math:`O(n + |S|)` candidates; bounded :math:`O(|U| k^2)`; symmetric :math:`O(|U| k^3)`. Each is
scored in :math:`O(1)` from prefix sums of the values and their squares, after sorting: :math:`O(|U| \log |U|)`
plus the candidates, one work unit each under the budget of :mod:`dpteach.budget`; a larger call raises
``ValueError`` at once.

**Floating point** (the rounding promise of :mod:`dpteach.exact`, for these closed forms). Enumeration reports the
largest *rounded* gap between numpy's ``np.var`` (or ``np.std``) values. Two cases:

* *Certified* (whole numbers, few candidates): then every variance is a fraction with denominator
  :math:`m^2`, so a dataset that is not an extreme of its side has a gap at least :math:`\delta = 1/M^4` below
  that side's extreme (:math:`1/(2 M^4 \sqrt{V_b})` for the standard deviation; :math:`M` the largest dataset,
  :math:`V_b` the squared half range of :math:`U`). When :math:`4E + 2uT < \delta` (:math:`E` numpy's error,
  below, :math:`u = 2^{-53}`), no rounding lets such a dataset overtake the extreme, and all extremes are
  candidates (above): the candidates are evaluated with the very numpy code enumeration uses, and the answer
  **equals** enumeration's bit for bit.
* *Otherwise* the answer is an upper bound :math:`R`, at least both enumeration's value and the real-arithmetic
  :math:`T`: the candidates' variances are scored in floating point with a proved error :math:`e` (exact integer
  prefix sums when the values are whole and small enough, else :math:`e` covers the sums' rounding too), so
  :math:`V_{\max} \in [\hat V_{\max} - e, \hat V_{\max} + e]` and likewise for :math:`V_{\min}` and
  :math:`V(x)`; from those intervals an upper bound :math:`T^+ \ge T` is formed in exact rational arithmetic
  (square roots bounded by integer square roots) and :math:`R = \mathrm{fl}^{\uparrow}((T^+ + 2E)(1 + u))`.
  Enumeration's value is :math:`\mathrm{fl}(|\hat f(x) - \hat f(y)|) \le (T + 2E)(1 + u) \le R`. The tests
  check :math:`\text{enumeration} \le R \le \text{enumeration} + 4(E + e) + 4uR + 2^{-1069}`
  (:func:`tolerance`; for ``std`` with :math:`2\sqrt{2e}` in place of :math:`e`, since the intervals pass
  through square roots). In the tests that is about :math:`10^{-13}` relative for typical data; for
  near-constant data it is the absolute size of numpy's own rounding noise.

*numpy's error* :math:`E` (:func:`numpy_error`), for every dataset of at most :math:`M` records of :math:`U`.
``np.var`` computes :math:`\hat\mu` (error :math:`e_\mu \le uA` on whole numbers, whose sums are exact,
:math:`\gamma_M A + 2^{-1074}` otherwise; :math:`A = \max |U|`, :math:`\gamma_j = ju/(1 - ju)`), then
:math:`d_i = \mathrm{fl}(y_i - \hat\mu)` (relative error :math:`u`; exact when subnormal), the squares, a sum of
non-negative terms (relative error :math:`\gamma_{m-1}`, Higham (4.4)) and one division. So
:math:`\hat v = W(1 + \theta)`, :math:`|\theta| \le \gamma_{m+3}`, up to :math:`(m + 4) 2^{-1074}` of underflow,
with :math:`W = \frac1m \sum (y_i - \hat\mu)^2 = V + (\mu - \hat\mu)^2`. Hence
:math:`E_{var} = \gamma_{M+3} (V_b + e_\mu^2) + e_\mu^2 + (M + 4) 2^{-1074}` with :math:`V \le V_b` and, for
``np.std`` :math:`= \mathrm{fl}(\sqrt{\hat v})` (using :math:`\sqrt{W} \le \sqrt V + e_\mu`),
:math:`E_{std} = e_\mu + \gamma_{M+5}(\sqrt{V_b} + e_\mu) + 2\sqrt{(M + 4) 2^{-1074}}`.

*Scoring error* :math:`e` (:func:`scoring_error`). The values are shifted by a centre :math:`c` (the mid-range;
exact for whole numbers, else each shifted value errs by :math:`u|y_i - c|`, moving :math:`\sqrt V` by at most
:math:`uA'` and :math:`V` by at most :math:`2.01uA'^2`, :math:`A' = \max |y - c|`). A candidate's :math:`m`,
sum :math:`S` and sum of squares :math:`Q` come from at most six prefix sums and five additions;
:math:`\hat V = \mathrm{fl}(\mathrm{fl}(Q/m) - \mathrm{fl}(S/m)^2)`. With exact integer :math:`S, Q` (values
whole and :math:`|U| A'^2 \le 2^{62}`), :math:`|\hat V - V| \le \gamma_6 (Q/m + S^2/m^2) + uV \le 2\gamma_7 A'^2`.
Otherwise the prefix sums (any order, Higham (4.4)) give :math:`|\hat S - S| \le e_S = 6 N A' \gamma_{N+6}`,
:math:`|\hat Q - Q| \le e_Q = 6 N A'^2 \gamma_{N+7}` (:math:`N = |U|`), and
:math:`|\hat V - V| \le e_Q/m + e_S (2A' + e_S/m)/m + \gamma_7 ((A' + e_S/m)^2 + A'^2 + e_Q/m)`, plus the shift
term and :math:`(N + 8) 2^{-1074}` of underflow, with :math:`m` the smallest candidate size.

A value that could overflow float64 (squares of the range, sums of squares) raises ``ValueError``, as the
enumeration does. Global sensitivities: ``var`` under bounded and unbounded neighbours has candidates of its own
(:mod:`dpteach.global_spread`); the symmetric global ``var`` and every global ``std`` are still enumerated, since
no proof is implemented for which pairs of releases and neighbours contain a maximiser.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from fractions import Fraction

import numpy as np

from dpteach.budget import check_work
from dpteach.exact import spare
from dpteach.queries import ResolvedQuery

SPREAD_QUERIES: tuple[str, ...] = ("var", "std")
CERTIFY_CELLS = 4_000_000
_UNIT = Fraction(1, 2**53)
_TINY = Fraction(1, 2**1074)
_CHUNK = 4_000_000


def has_local_closed_form(query: object) -> bool:
    """Whether :func:`local_spread` handles ``query``: ``"var"`` and ``"std"``."""
    return isinstance(query, str) and query in SPREAD_QUERIES


def _gamma(j: int) -> Fraction:
    return Fraction(j, 2**53 - j)


def families(n: int, spare_size: int, k: int, relation: str) -> list[tuple[int, int]]:
    """The families :math:`(i, j)`: :math:`i` records of the release removed, :math:`j` spare values added."""
    if relation == "unbounded":
        return [(k, 0), (0, k)]
    if relation == "bounded":
        return [(j, j) for j in range(min(k, spare_size) + 1)]
    return [(i, j) for i in range(min(k, n) + 1) for j in range(1 if i == n else 0, min(k - i, spare_size) + 1)]


def candidate_count(n: int, spare_size: int, k: int, relation: str) -> int:
    """How many candidate datasets :func:`local_spread` scores (both sides, every family)."""
    return sum((n - i + 1) * (j + 1) + (i + 1) * (spare_size - j + 1)
               for i, j in families(n, spare_size, k, relation))


def _split_index(size: int, length: int) -> np.ndarray:
    """Rows of positions: for each ``t`` in ``0..length``, the ``t`` lowest and ``length - t`` highest of ``size``."""
    t = np.arange(length + 1)[:, None]
    p = np.arange(length)[None, :]
    return p + (p >= t) * (size - length)


def _window_index(size: int, length: int) -> np.ndarray:
    """Rows of positions: every run of ``length`` consecutive positions out of ``size``."""
    return np.arange(size - length + 1)[:, None] + np.arange(length)[None, :]


def _blocks(n: int, spare_size: int, k: int, relation: str) -> Iterator[tuple[str, np.ndarray, np.ndarray]]:
    """Per family and side: ``("max" | "min", kept positions of x, chosen positions of S)`` as index matrices."""
    for i, j in families(n, spare_size, k, relation):
        yield "max", _split_index(n, n - i), _split_index(spare_size, j)
        yield "min", _window_index(n, n - i), _window_index(spare_size, j)


def _block_sums(prefix: np.ndarray, size: int, length: int, split: bool) -> np.ndarray:
    """Sums over the rows of :func:`_split_index` (``split``) or :func:`_window_index`, from a prefix-sum array."""
    if split:
        t = np.arange(length + 1)
        return prefix[t] + (prefix[size] - prefix[size - length + t])
    return prefix[length:] - prefix[: size - length + 1]


def _scored(pools: tuple[tuple[np.ndarray, np.ndarray, int], ...], n: int, spare_size: int, k: int,
            relation: str) -> tuple[float, float]:
    """Largest and smallest :math:`\\hat V` over the candidates, from prefix sums (sums, squares, size) per pool."""
    (x_sum, x_sq, _), (s_sum, s_sq, _) = pools
    best_max, best_min = -math.inf, math.inf
    for i, j in families(n, spare_size, k, relation):
        m = n - i + j
        for side, split in (("max", True), ("min", False)):
            sums = (_block_sums(x_sum, n, n - i, split), _block_sums(s_sum, spare_size, j, split))
            squares = (_block_sums(x_sq, n, n - i, split), _block_sums(s_sq, spare_size, j, split))
            step = max(1, _CHUNK // max(1, sums[1].size))
            for start in range(0, sums[0].size, step):
                part = slice(start, start + step)
                total = (sums[0][part, None] + sums[1][None, :]).astype(float)
                square = (squares[0][part, None] + squares[1][None, :]).astype(float)
                values = square / m - (total / m) ** 2
                if side == "max":
                    best_max = max(best_max, float(values.max()))
                else:
                    best_min = min(best_min, float(values.min()))
    return best_max, best_min


def prefix_sums(values: np.ndarray, exact: bool) -> tuple[np.ndarray, np.ndarray, int]:
    """Prefix sums of ``values`` and of their squares, each with a leading 0, and the count: exact ``int64`` when
    ``exact`` (whole values whose sums fit), else floating point."""
    if exact:
        whole = values.astype(np.int64)
        return (np.concatenate([[0], np.cumsum(whole)]), np.concatenate([[0], np.cumsum(whole * whole)]),
                values.size)
    return np.concatenate([[0.0], np.cumsum(values)]), np.concatenate([[0.0], np.cumsum(values * values)]), values.size


def _whole(values: np.ndarray) -> bool:
    return bool(np.all(values == np.round(values)))


def numpy_error(query: str, universe: np.ndarray, largest: int) -> Fraction:
    """:math:`E`: how far numpy's ``var``/``std`` of any dataset of at most ``largest`` records of ``universe`` can
    be from the exact value (module docstring)."""
    top = Fraction(float(np.abs(universe).max()))
    mean_error = _UNIT * top if _whole(universe) else _gamma(largest) * top + _TINY
    half_range = (Fraction(float(universe[-1])) - Fraction(float(universe[0]))) / 2
    if query == "var":
        return _gamma(largest + 3) * (half_range**2 + mean_error**2) + mean_error**2 + (largest + 4) * _TINY
    return mean_error + _gamma(largest + 5) * (half_range + mean_error) + 2 * _sqrt_bounds((largest + 4) * _TINY)[1]


def scoring_error(shifted: np.ndarray, exact: bool, smallest: int) -> Fraction:
    """:math:`e`: the error of one candidate's :math:`\\hat V` (module docstring)."""
    reach = Fraction(float(np.abs(shifted).max()))
    if exact:
        return 2 * _gamma(7) * reach**2
    count = shifted.size
    e_sum, e_sq = 6 * count * reach * _gamma(count + 6), 6 * count * reach**2 * _gamma(count + 7)
    m = smallest
    rounding = e_sq / m + e_sum * (2 * reach + e_sum / m) / m
    return (rounding + _gamma(7) * ((reach + e_sum / m) ** 2 + reach**2 + e_sq / m)
            + Fraction(201, 100) * _UNIT * reach**2 * (1 + 2 * _UNIT) + (count + 8) * _TINY)


def _sqrt_bounds(value: Fraction) -> tuple[Fraction, Fraction]:
    """Rational bounds ``lo <= sqrt(value) <= hi`` about 80 bits apart, from an integer square root."""
    if value <= 0:
        return Fraction(0), Fraction(0)
    top, bottom = value.numerator, value.denominator
    shift = max(0, 81 - (top * bottom).bit_length() // 2)
    root = math.isqrt(top * bottom * 4**shift)
    return Fraction(root, bottom * 2**shift), Fraction(root + 1, bottom * 2**shift)


def round_up(value: Fraction) -> float:
    """The smallest float at least ``value`` (``inf`` beyond the float64 range)."""
    try:
        result = float(value)
    except OverflowError:
        return math.inf
    if math.isinf(result):
        return result
    return result if Fraction(result) >= value else float(np.nextafter(result, math.inf))


def _check_range(universe: np.ndarray, name: str) -> None:
    spread = float(universe[-1]) / 2 - float(universe[0]) / 2
    with np.errstate(over="ignore"):
        worst = np.float64(4 * spread) ** 2 * universe.size
    if not np.isfinite(worst):
        raise ValueError(
            f"query {name!r} may overflow float64 on datasets of this universe (its squared range times its size "
            "exceeds 1.8e308), so no sensitivity can be computed from it; rescale the data (e.g. change units)")


def _certificate_holds(query: str, universe: np.ndarray, largest: int, bound: Fraction) -> bool:
    """Whether :math:`4E + 2uT < \\delta` (module docstring, *Certified*) is proved, given ``bound`` :math:`\\ge T`."""
    half_range = (Fraction(float(universe[-1])) - Fraction(float(universe[0]))) / 2
    spacing = Fraction(1, largest**4)
    if query == "std":
        spacing /= 2 * half_range
    return 4 * numpy_error(query, universe, largest) + 2 * _UNIT * bound < spacing


def _numpy_gap(release: np.ndarray, others: np.ndarray, k: int, relation: str, resolved: ResolvedQuery) -> float:
    """:math:`\\max(\\hat f(x) - \\min \\hat f, \\max \\hat f - \\hat f(x))`, the minimum over the "min" candidates
    and the maximum over the "max" candidates (:func:`_blocks`), each dataset sorted and evaluated by numpy.
    Datasets of one size go to numpy in one batch (its ``var`` and ``std`` along ``axis=1`` treat each row
    alone)."""
    n = release.size
    by_size: dict[int, list[np.ndarray]] = {n: [release[np.newaxis, :]]}
    blocks = []
    for side, kept, chosen in _blocks(n, others.size, k, relation):
        rows = np.concatenate([np.repeat(release[kept], len(chosen), axis=0),
                               np.tile(others[chosen], (len(kept), 1))], axis=1)
        group = by_size.setdefault(rows.shape[1], [])
        blocks.append((side, rows.shape[1], sum(len(r) for r in group), len(rows)))
        group.append(rows)
    values = {size: resolved.on_rows(np.sort(np.concatenate(group), axis=1)) for size, group in by_size.items()}
    highest, lowest = -math.inf, math.inf
    for side, size, start, count in blocks:  # every block has at least one row
        part = values[size][start: start + count]
        if side == "max":
            highest = max(highest, float(part.max()))
        else:
            lowest = min(lowest, float(part.min()))
    f_release = float(values[n][0])
    return float(max(f_release - lowest, highest - f_release))


def local_spread(release: np.ndarray, universe: np.ndarray, k: int, relation: str, resolved: ResolvedQuery) -> float:
    """:math:`LS_k(x)` of ``var`` or ``std`` (module docstring): enumeration's exact value when certified, else the
    proved upper bound :math:`R`. ``release`` and ``universe`` sorted, inputs already checked.

    The certificate needs an upper bound on :math:`T`. Popoviciu's inequality :math:`V \\le V_b` (every dataset of
    :math:`U` lies in its range) gives :math:`T \\le V_b` for ``var`` and :math:`T \\le \\sqrt{V_b}` for ``std``; it is
    tried first, and the scored bound :math:`T^+` only when that fails. The condition is monotone in the bound, so
    the answer is the same either way; the first try just skips the scoring."""
    _check_range(universe, resolved.name)
    others = spare(release, universe)
    n, spare_size = release.size, others.size
    work = candidate_count(n, spare_size, k, relation)
    check_work(work, "score {} candidate datasets (they grow like |U| k^2, or k^3 symmetric)")
    sizes = [n - i + j for i, j in families(n, spare_size, k, relation)]
    largest, smallest = max(sizes + [n]), max(1, min(sizes + [n]))
    whole = _whole(universe)
    certifiable = whole and work * largest <= CERTIFY_CELLS
    half_range = (Fraction(float(universe[-1])) - Fraction(float(universe[0]))) / 2
    if certifiable and half_range == 0:
        return 0.0
    if certifiable and _certificate_holds(resolved.name, universe, largest,
                                          half_range**2 if resolved.name == "var" else half_range):
        return _numpy_gap(release, others, k, relation, resolved)
    centre = float(np.round(universe[-1] / 2 + universe[0] / 2)) if whole else (
        float(universe[-1] / 2 + universe[0] / 2))
    shifted_x, shifted_s = release - centre, others - centre
    reach = float(max(np.abs(universe - centre).max(), 1.0))
    exact = whole and universe.size * reach**2 <= 2.0**62
    pools = (prefix_sums(shifted_x, exact), prefix_sums(shifted_s, exact))
    high, low = _scored(pools, n, spare_size, k, relation)
    own = (pools[0][1][n] / n - (pools[0][0][n] / n) ** 2) if not exact else (
        float(pools[0][1][n]) / n - (float(pools[0][0][n]) / n) ** 2)
    error = scoring_error(np.concatenate([shifted_x, shifted_s]), exact, smallest)
    high_hi, low_lo = Fraction(high) + error, max(Fraction(0), Fraction(low) - error)
    own_lo, own_hi = max(Fraction(0), Fraction(float(own)) - error), Fraction(float(own)) + error
    if resolved.name == "var":
        bound = max(high_hi - own_lo, own_hi - low_lo)
    else:
        bound = max(_sqrt_bounds(high_hi)[1] - _sqrt_bounds(own_lo)[0],
                    _sqrt_bounds(own_hi)[1] - _sqrt_bounds(low_lo)[0])
    if certifiable and _certificate_holds(resolved.name, universe, largest, bound):
        return _numpy_gap(release, others, k, relation, resolved)
    return round_up((bound + 2 * numpy_error(resolved.name, universe, largest)) * (1 + _UNIT))


def tolerance(query: str, universe: np.ndarray, release_size: int, k: int, relation: str, value: float) -> float:
    """How far above enumeration :func:`local_spread` may be: :math:`4(E + e) + 4uR + 2^{-1069}` (for ``std``,
    :math:`e` enters through square roots: :math:`2\\sqrt{2e}` in its place)."""
    others = universe.size - release_size
    sizes = [release_size - i + j for i, j in families(release_size, others, k, relation)]
    largest, smallest = max(sizes + [release_size]), max(1, min(sizes + [release_size]))
    centre = float(universe[-1] / 2 + universe[0] / 2)
    shifted = universe - (float(np.round(centre)) if _whole(universe) else centre)
    reach = float(max(np.abs(shifted).max(), 1.0))
    exact = _whole(universe) and universe.size * reach**2 <= 2.0**62
    error = scoring_error(shifted, exact, smallest)
    if query == "std":
        error = 2 * _sqrt_bounds(2 * error)[1]
    return float(4 * (numpy_error(query, universe, largest) + error) + 4 * _UNIT * Fraction(value) + 32 * _TINY)
