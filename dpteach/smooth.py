r"""Smooth sensitivity (Nissim, Raskhodnikova and Smith, STOC 2007): generic, and exact for the median.

The :math:`\beta`-smooth sensitivity is :math:`S = \max_{k \ge 0} e^{-\beta k} A(k)`, where
:math:`A(k)` is the largest local sensitivity within distance :math:`k` of the data. Its noise is either
Laplace, for :math:`(\varepsilon, \delta)`-DP, or the heavy-tailed density
:math:`h(z) \propto 1/(1 + |z|^\gamma)`, for pure :math:`\varepsilon`-DP. Lesson 06 (formulas, the median
in :math:`O(n \log n)`); lesson 04 (:func:`smooth_sensitivity`: any query on a small universe, by enumeration).
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from numpy.typing import ArrayLike
from tqdm.auto import tqdm

from dpteach import budget
from dpteach.budget import check_work, held, planned
from dpteach.exact import has_closed_form, sub_multiset_counts
from dpteach.mechanisms import (
    _FINITE_RELEASE,
    _LARGEST_LAPLACE_DRAW,
    check_bounds,
    check_delta,
    check_epsilon,
    check_positive,
    check_rng,
    laplace_mech,
)
from dpteach.neighbours import count_submultisets, counts_to_rows, missing_from, submultisets
from dpteach.queries import (
    Query,
    ResolvedQuery,
    as_dataset,
    check_data,
    check_exact_sums,
    check_int,
    check_real,
    resolve_query,
)
from dpteach.sensitivity import (
    _CHUNK_CELLS,
    PROGRESS_ABOVE,
    _naive_local,
    _weights,
    global_sensitivity,
)


@dataclass(frozen=True)
class SmoothRelease:
    """A smooth-sensitivity release: the noisy value, :math:`S`, :math:`\\beta`, the noise scale (Laplace, or
    the heavy-tailed density's) and the :math:`(\\varepsilon, \\delta)` it spends (:math:`\\delta = 0` for
    pure DP)."""

    value: float
    smooth_sensitivity: float
    beta: float
    scale: float
    epsilon: float
    delta: float


def laplace_beta(epsilon: float, delta: float) -> float:
    r""":math:`\beta = \varepsilon / (2 \ln(2/\delta))`, the smoothing for which Laplace noise of scale
    :math:`2S/\varepsilon` gives :math:`(\varepsilon, \delta)`-DP, by the sliding and dilation argument of
    NRS 2007 (Nissim, Raskhodnikova and Smith, "Smooth sensitivity and sampling in private data analysis",
    STOC 2007), with :math:`\alpha = \varepsilon/2`. Derived in lesson 04.

    The derivation. Between neighbours the noise *slides* by at most :math:`\alpha` of its units, which costs
    Laplace at most :math:`\alpha = \varepsilon/2` with no :math:`\delta`, and *dilates* by :math:`e^{\lambda}`,
    :math:`|\lambda| \le \beta`. The dilation's privacy loss at :math:`z` is :math:`\lambda - |z|(1 -
    e^{-\lambda})` (with :math:`e^{\lambda} = S(x')/S(x)`): at most :math:`\beta` when the neighbour :math:`x'`'s
    noise is wider (:math:`\lambda = \beta`), at most :math:`-\beta + |z|(e^{\beta} - 1)` when :math:`x'`'s noise is
    narrower (:math:`\lambda = -\beta`), which stays within :math:`\varepsilon/2` for
    :math:`|z| \le t = (\varepsilon/2 + \beta)/(e^\beta - 1)`; beyond :math:`t` lies probability
    :math:`e^{-t}`, which must be at most :math:`\delta/2`. So the proof needs :math:`\beta \le \varepsilon/2` and
    :math:`\ln(2/\delta)(e^{\beta} - 1) \le \varepsilon/2 + \beta`. This :math:`\beta` meets the second
    condition to first order (:math:`e^\beta - 1 \approx \beta`), and exactly for :math:`\varepsilon \le 2.5`
    at every :math:`\delta \le 2/e` (up to about 3.7 at :math:`\delta = 10^{-3}`); beyond, the proof stops.
    Parameters outside the proof raise ``ValueError``, though outside is not always a failure: at
    :math:`\varepsilon = 10`, :math:`\delta = 10^{-6}` the worst neighbouring pair of noise distributions differs
    by about :math:`3.3 \cdot 10^{-7} < \delta`, while at :math:`\varepsilon = 20` it differs by about
    :math:`5.2 \cdot 10^{-6} > \delta`: the guarantee fails.
    """
    epsilon, delta = check_epsilon(epsilon), check_delta(delta)
    log_term = math.log(2 / delta)
    beta = epsilon / (2 * log_term)
    if not (beta <= epsilon / 2 and log_term * math.expm1(beta) <= epsilon / 2 + beta):
        raise ValueError(f"epsilon = {epsilon!r} with delta = {delta!r} is outside the proof of smooth sensitivity "
                         "with Laplace noise (it needs delta <= 2/e and ln(2/delta)(e^beta - 1) <= epsilon/2 + beta "
                         "for beta = epsilon/(2 ln(2/delta))); epsilon <= 2.5 with delta <= 2/e always fits")
    return beta


def smoothed_local_sensitivity(ls_at_distance: ArrayLike, beta: float) -> np.ndarray:
    r"""The curve :math:`e^{-\beta k} A(k)` for :math:`k = 0, 1, \dots` given :math:`A(0), A(1), \dots`.

    Lesson 06.
    """
    values, beta = _checked_curve(ls_at_distance, beta)
    return np.exp(-beta * np.arange(values.size)) * values


def _checked_curve(ls_at_distance: ArrayLike, beta: float) -> tuple[np.ndarray, float]:
    beta = check_positive("beta", beta)
    values = check_data(ls_at_distance, "ls_at_distance")
    if (values < 0).any():
        raise ValueError("ls_at_distance must hold local sensitivities >= 0")
    return values, beta


def smooth_sensitivity_of_curve(ls_at_distance: ArrayLike, beta: float) -> float:
    r""":math:`S = \max_k e^{-\beta k} A(k)` over the distances given (:math:`k = 0, 1, \dots`).

    Only a true :math:`\beta`-smooth bound if the maximum over *all* :math:`k` lies among them
    (:func:`smooth_sensitivity` computes the curve itself, over every distance). Each term is rounded up
    (:func:`discounted_up`), so the result is never below the exact maximum. Lesson 06.
    """
    values, beta = _checked_curve(ls_at_distance, beta)
    return max(_discounted_up(float(a), beta, k) for k, a in enumerate(values))


_MEAN_CAP_WIDTHS = (Fraction(1, 2**900), Fraction(2**900))  # u - l where smooth_mean_cap's rounding argument holds


def mean_caps(data: ArrayLike, lower: float, upper: float) -> np.ndarray:
    r"""The caps :math:`C_k(x)`, :math:`k = 0, \dots, n`, on the local sensitivity of the mean of ``data`` clipped
    to :math:`[l, u]` within :math:`k` add/remove steps, each rounded up. Appendix A3 (why they cap it, and the
    step :math:`C_k(x) \le C_{k+1}(x')` between neighbours that makes both :func:`smooth_mean_cap` and PTR's
    distance :math:`\min\{k : C_k(x) > b\}` safe).

    With :math:`w = u - l` and :math:`M(t) = \max(t - l, u - t)`,

    .. math:: C_k(x) = \min\Bigl(w,\ \frac{M(\bar x) + k w/(n - k)}{n - k - 1}\Bigr)
              \quad (C_k(x) = w \text{ once } n - k - 1 \le 0).

    **Rounding.** The width :math:`u - l` must lie in :math:`[2^{-900}, 2^{900}]` (else ``ValueError``): there every
    cap is a normal double and no product overflows. :math:`M(\bar x)` is computed exactly (fractions) and rounded
    up, :math:`w` is rounded up, and each cap then takes four more roundings, which :func:`smooth_mean_cap` covers.
    """
    lower, upper = check_bounds(lower, upper)
    values = np.clip(check_data(data), lower, upper)
    if not _MEAN_CAP_WIDTHS[0] <= Fraction(upper) - Fraction(lower) <= _MEAN_CAP_WIDTHS[1]:
        raise ValueError(f"upper - lower must lie in [2**-900, 2**900], got lower={lower!r}, upper={upper!r}")
    width = _gap_up(lower, upper)
    n = values.size
    total = sum(map(Fraction, values.tolist()), Fraction(0))
    exact_top = max(total - n * Fraction(lower), n * Fraction(upper) - total) / n  # M(mean), exactly
    top = float(exact_top)
    if Fraction(top) < exact_top:
        top = math.nextafter(top, math.inf)
    ks = np.arange(n + 1)
    caps = np.full(n + 1, width)
    inside = ks < n - 1  # n - k - 1 > 0
    k_in = ks[inside].astype(float)
    caps[inside] = np.minimum(width, (top + k_in * width / (n - k_in)) / (n - k_in - 1))
    return caps


def smooth_mean_cap(data: ArrayLike, lower: float, upper: float, beta: float) -> float:
    r"""A :math:`\beta`-smooth upper bound :math:`\bar S` on the local sensitivity of the mean of ``data``
    clipped to :math:`[l, u]`, under add/remove-one neighbours, computed from the data's mean as well as its size
    :math:`n`, rounded up. Appendix A3 (the proof that it is smooth, and what it costs).

    :math:`\bar S(x) = \max_{0 \le k \le n} e^{-\beta k} C_k(x)` with the caps of :func:`mean_caps`.
    :math:`C_k(x)` caps the local sensitivity of every dataset within :math:`k` steps of :math:`x`,
    :math:`C_0(x) \ge LS(x)`, and :math:`C_k(x) \le C_{k+1}(x')` for each neighbour :math:`x'`, so
    :math:`\bar S(x) \le e^{\beta} \bar S(x')`. Terms past :math:`k = n` equal :math:`w = u - l` discounted further,
    so they never set the maximum. The empty dataset has no mean; giving it :math:`\bar S = w` keeps the bound
    smooth, and this function asks for at least one record.

    **Rounding.** :func:`mean_caps` rounds its inputs up (width in :math:`[2^{-900}, 2^{900}]`),
    :func:`smooth_sensitivity_of_curve` rounds each discount up (assuming ``math.exp`` within 4 ulps), and the
    result is multiplied by :math:`1 + 2^{-40}`, which covers the caps' roundings. So the result :math:`\hat S` is
    never below :math:`\bar S` and lies within a factor :math:`1 + 2^{-39}` of it, which makes :math:`\hat S` a
    :math:`(\beta + 2^{-39})`-smooth upper bound on :math:`LS`.
    """
    beta = check_positive("beta", beta)
    return smooth_sensitivity_of_curve(mean_caps(data, lower, upper), beta) * (1 + 2**-40)


_ALL_PAIRS_UP_TO = 1_000_000


def _padded_sorted(data: ArrayLike, lower: float, upper: float) -> np.ndarray:
    """``[lower, x_(1), ..., x_(n), upper]`` with the data clipped to ``[lower, upper]`` and sorted."""
    lower, upper = check_bounds(lower, upper)
    values = np.sort(np.clip(check_data(data), lower, upper))
    return np.concatenate(([lower], values, [upper]))


def _log_scores(xs: np.ndarray, i: np.ndarray, j: np.ndarray, beta: float) -> np.ndarray:
    """:math:`\\log(x_{(j)} - x_{(i)}) - \\beta (j - i - 1)` elementwise for the pairs at distance
    :math:`j - i - 1 \\ge 1`; ``-inf`` where the values tie and at distance 0 or -1 (those gaps are taken exactly)."""
    with np.errstate(divide="ignore"):
        return np.where(j - i >= 2, np.log(xs[j] - xs[i]) - beta * (j - i - 1), -np.inf)


def _largest_score_monotone(xs: np.ndarray, rows: np.ndarray, cols: np.ndarray, beta: float) -> float:
    """Divide and conquer over the rows, one whole level of the recursion per numpy pass.

    Each node is a block of rows ``rows[lo..hi]`` whose best column index lies in ``cols[c_lo..c_hi]``; its
    middle row is scored against that range, and the largest arg max splits the range for the two halves.
    A level touches at most ``cols.size + nodes`` cells, and there are :math:`\\lceil \\log_2 |rows| \\rceil`
    levels.
    """
    lo, hi = np.array([0]), np.array([rows.size - 1])
    c_lo, c_hi = np.array([0]), np.array([cols.size - 1])
    best = -math.inf
    while lo.size:
        mid = (lo + hi) // 2
        width = c_hi - c_lo + 1
        starts = np.concatenate(([0], np.cumsum(width)[:-1]))
        node = np.repeat(np.arange(mid.size), width)
        col = c_lo[node] + np.arange(node.size) - starts[node]
        scores = _log_scores(xs, rows[mid[node]], cols[col], beta)
        top = np.maximum.reduceat(scores, starts)
        best = max(best, float(top.max()))
        arg = np.maximum.reduceat(np.where(scores == top[node], col, -1), starts)  # largest arg max
        lo, hi, c_lo, c_hi = (np.concatenate(pair) for pair in ((lo, mid + 1), (mid - 1, hi), (c_lo, arg),
                                                                 (arg, c_hi)))
        keep = lo <= hi
        lo, hi, c_lo, c_hi = lo[keep], hi[keep], c_lo[keep], c_hi[keep]
    return best


_UNIT = 2.0**-53
"""The unit roundoff of doubles: a correctly rounded operation errs by at most this much, relatively."""

_TINY = 2.0**-1072
"""Four of the smallest subnormal steps: the absolute error allowed to ``math.exp`` below the normal range."""


def _gap_up(low: float, high: float) -> float:
    """:math:`x_{(j)} - x_{(i)}` rounded up to a double (exact whenever the subtraction is)."""
    gap = high - low
    if Fraction(gap) < Fraction(high) - Fraction(low):
        gap = math.nextafter(gap, math.inf)
    return gap


def _exp_up(x: float) -> float:
    """A double :math:`\\ge e^x`, assuming ``math.exp`` within 4 ulps (within :data:`_TINY` below the normal
    range): :math:`(1 + 2^{-48})` covers :math:`(1 - 8u)^{-1}` and the rounding of the product (:math:`u = 2^{-53}`),
    and :data:`_TINY`, added exactly at that size, covers the absolute error of a subnormal result."""
    try:
        value = math.exp(x)
    except OverflowError:
        return math.inf
    return value * (1 + 2.0**-48) + _TINY


def discounted_up(value: float, beta: float, k: int) -> float:
    r""":math:`e^{-\beta k}\,` ``value`` rounded up (``value`` itself at :math:`k = 0`), for ``value`` :math:`\ge 0`:
    never below the exact product, at most :math:`1 + 2^{-50}(\beta k + 6)` times it plus
    :math:`(\text{value} + 1)\, 2^{-1071}`, and never above ``value``. Non-decreasing in ``value`` and
    non-increasing in :math:`k`, so the maximum over :math:`k` of a curve commutes with taking running maxima.
    Assumes ``math.exp`` within 4 ulps. Proof: the exponent :math:`-\beta k (1 - 2^{-51})`, rounded, is at least
    :math:`-\beta k`; :func:`_exp_up` bounds its exponential from above with room for one more rounding; the last
    :math:`2^{-1074}` covers a subnormal product. Lessons 04 and 06.
    """
    value = check_real("value", value, "a finite number >= 0")
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"value must be a finite number >= 0, got {value!r}")
    return _discounted_up(value, check_positive("beta", beta), check_int("k", k, 0))


def _discounted_up(value: float, beta: float, k: int) -> float:
    """:func:`discounted_up` without the checks of its arguments, for the loops of this module."""
    if k == 0 or value == 0:
        return value
    up = _exp_up(-(beta * k) * (1 - 2.0**-51))
    if up >= 1:
        return value
    return min(value, value * up + 2.0**-1074)


def smooth_sensitivity_median(data: ArrayLike, lower: float, upper: float, beta: float) -> float:
    r"""The :math:`\beta`-smooth sensitivity of the median :math:`x_{(m)}`, :math:`m = \lceil n/2 \rceil`,
    under replace-one neighbours, data clipped to :math:`[l, u]` (NRS 2007, Section 3.1), rounded up.

    With :math:`x_{(i)} = l` for :math:`i \le 0` and :math:`u` for :math:`i > n`,
    :math:`A(k) = \max_{0 \le t \le k+1} (x_{(m+t)} - x_{(m+t-k-1)})`, so

    .. math:: S = \max_{0 \le i \le m \le j \le n+1} (x_{(j)} - x_{(i)})\, e^{-\beta (j - i - 1)}.

    Ties first: among indices :math:`i \le m` holding the same value only the largest can win (same gap,
    shorter distance), and among :math:`j \ge m` only the smallest; on data with few distinct values (ages)
    the remaining pairs are scored all at once. Otherwise: the best :math:`j` for each :math:`i` never
    decreases as :math:`i` grows, so divide and conquer finds all of them in :math:`O(n \log n)` after
    sorting, vectorised one recursion level at a time. Lesson 06 and appendix A1.

    *Why the best* :math:`j` *never moves left.* The score is :math:`(x_{(j)} - x_{(i)})\, e^{\beta}
    e^{-\beta j} e^{\beta i}`, and the exponential factor splits into a part in :math:`i` times a part in
    :math:`j`. For :math:`i < i'` and :math:`j < j'`,
    :math:`(x_{(j')} - x_{(i)})(x_{(j)} - x_{(i')}) \le (x_{(j)} - x_{(i)})(x_{(j')} - x_{(i')})`, since the
    right side minus the left is :math:`(x_{(j')} - x_{(j)})(x_{(i')} - x_{(i)}) \ge 0`. So the score is
    log-supermodular, and the largest maximiser in :math:`j` is non-decreasing in :math:`i`. It stays so with
    the two distance-0 pairs :math:`(m-1, m)`, :math:`(m, m+1)` scored 0: each product that holds one of them
    also holds :math:`(m, m)`, or has it on the other side, where it is 0 (gap 0).

    **Rounding.** The result :math:`\hat S` satisfies :math:`S \le \hat S \le (1 + \eta) S + 2^{-1070}`, with
    :math:`S` the exact value over the real gaps (hence also over the gaps rounded to nearest), and
    :math:`\eta = 2^{-48}(|\ln(u - l)| + |\ln S| + 3) \le 2^{-37}` on the all-pairs route; the
    divide-and-conquer route (above :math:`10^6` pairs) adds :math:`4 L\, 2^{-53} (7460 + 3\beta(n + 1))` for its
    :math:`L = \lceil \log_2 (\text{rows}) \rceil` levels. When the maximum is a distance-0 gap, :math:`\hat S`
    is that gap exactly (when the subtraction is exact). It assumes ``numpy.log`` and ``math.exp`` within 4 ulps.
    *Proof.* (1) :math:`\hat S = \max(LS^\uparrow, \min(C, (u - l)^\uparrow))`: the two distance-0 gaps and
    :math:`u - l` are rounded up exactly (:func:`_gap_up`), and :math:`u - l \ge S`. (2) Each log score
    :math:`\hat s` of a pair at distance :math:`d \ge 1` errs by at most
    :math:`2^{-53}(10|\ln g| + 3\beta d + 2)` (the gap's rounding, ``log``, the product :math:`\beta d`, the
    subtraction). (3) For the best pair, :math:`|\ln g| \le \max(|\ln(u - l)|, |\ln g - \beta d|)` and
    :math:`\beta d \le \ln(u - l) - (\ln g - \beta d)`, so its true score is at most the largest computed one
    :math:`\hat s` plus :math:`\tau = 2^{-53}(16(|\ln(u - l)| + 1 + |\hat s|) + 8)`, and
    :math:`C = e^{\hat s + \tau}` rounded up (:func:`_exp_up`) is :math:`\ge` every distance-:math:`d \ge 1`
    term. (4) The same bound from the other side gives :math:`C \le e^{2\tau}(1 + 2^{-47})` times the largest
    true term, hence :math:`\eta`. (5) Divide and conquer can skip a pair only after a row's computed arg max
    beat it by at most two score errors; by the supermodularity above the skipped pair's loss moves, per level,
    to a pair still in range, hence its extra term.
    """
    beta = check_positive("beta", beta)
    xs = _padded_sorted(data, lower, upper)
    cap = _gap_up(xs[0], xs[-1])
    if not math.isfinite(cap):
        raise ValueError(f"upper - lower must be a finite double, got lower={lower!r}, upper={upper!r}")
    m = math.ceil((xs.size - 2) / 2)
    local = max(_gap_up(xs[m - 1], xs[m]), _gap_up(xs[m], xs[m + 1]))
    i = np.arange(m + 1)
    j = np.arange(m, xs.size)
    rows = i[(i == m) | (xs[i] != xs[np.minimum(i + 1, xs.size - 1)])]
    cols = j[(j == m) | (xs[j] != xs[j - 1])]
    tau = 0.0
    if rows.size * cols.size <= _ALL_PAIRS_UP_TO:
        best = float(_log_scores(xs, rows[:, None], cols[None, :], beta).max())
    else:
        best = _largest_score_monotone(xs, rows, cols, beta)
        tau = 4 * math.ceil(math.log2(rows.size)) * _UNIT * (7460 + 3 * beta * (xs.size - 1))
    if best == -math.inf:  # no pair at distance >= 1 has a gap
        return local
    tau += _UNIT * (16 * (abs(math.log(cap)) + 1 + abs(best)) + 8)
    return max(local, min(_exp_up(best + tau), cap))


def smooth_median_release(
    data: ArrayLike, lower: float, upper: float, epsilon: float, delta: float,
    rng: np.random.Generator | None = None,
) -> SmoothRelease:
    r"""Release the median :math:`x_{(\lceil n/2 \rceil)}` of the data clipped to ``[lower, upper]`` plus
    :math:`\mathrm{Lap}(2S/\varepsilon)`, with :math:`S` its exact :math:`\beta`-smooth sensitivity for
    :math:`\beta = \varepsilon / (2\ln(2/\delta))`.

    Guarantee: over the reals, :math:`(\varepsilon, \delta)`-DP under replace-one neighbours (datasets of
    the same public size :math:`n`), by NRS 2007's argument (derived in lesson 04), with Laplace noise (:math:`\alpha =
    \varepsilon/2`). The :math:`S` used is :func:`smooth_sensitivity_median`'s, rounded up by a relative
    :math:`\eta` at most, so it is a :math:`(\beta + \ln(1 + \eta))`-smooth upper bound on :math:`LS`, and the
    argument holds for that :math:`\beta`. The noise is drawn by :func:`dpteach.mechanisms.laplace_mech`, numpy's
    floating-point sampler, which carries no guarantee in floating point (Mironov 2012). The snapping mechanism that
    :mod:`dpteach.ptr` and :mod:`dpteach.saa` release with does not transfer: it rounds to a power-of-two grid
    at least as coarse as the noise scale, so with a scale :math:`2S/\varepsilon` that depends on the data,
    neighbours whose :math:`S` straddle a power of two would release on different grids, and the grid alone
    would tell them apart. A sound sampler for data-dependent scales is not implemented here. The release is
    finite: parameters for which :math:`\max(|l|, |u|) + 2(u - l)\ln(2^{53})/\varepsilon` (a bound from public
    parameters, as :math:`S \le u - l`) reaches :math:`10^{308}` raise ``ValueError`` before the data are read. For pure
    :math:`\varepsilon`-DP see :func:`smooth_median_release_pure`. Lesson 06.
    """
    beta = laplace_beta(epsilon, delta)
    xs = _padded_sorted(data, lower, upper)
    _check_reach(max(abs(lower), abs(upper)) + _LARGEST_LAPLACE_DRAW * 2 * (upper - lower) / epsilon,
                 "epsilon, lower and upper", "a larger epsilon or a narrower [lower, upper]")
    s = smooth_sensitivity_median(data, lower, upper, beta)
    median = float(xs[math.ceil((xs.size - 2) / 2)])
    scale = 2 * s / epsilon
    value = laplace_mech(median, 2 * s, epsilon, check_rng(rng))
    return SmoothRelease(value, s, beta, scale, float(epsilon), float(delta))


def _check_reach(reach: float, names: str, remedy: str) -> None:
    """Refuse, from public parameters only, a release that could reach :data:`dpteach.mechanisms._FINITE_RELEASE`
    in magnitude (``reach`` bounds it; :math:`S \\le u - l` for the median of data clipped to :math:`[l, u]`)."""
    if not reach <= _FINITE_RELEASE:
        raise ValueError(f"{names} allow releases as large as {reach:.3g} in magnitude, not below "
                         f"{_FINITE_RELEASE:g} as a finite release needs; use {remedy}")


# ------------------------------------------------------------------------------ pure-epsilon noise
def _check_gamma(gamma: float) -> float:
    number = check_real("gamma", gamma, "a finite number > 1")
    if not math.isfinite(number) or number <= 1:
        raise ValueError(f"gamma must be a finite number > 1, got {gamma!r}")
    return number


def heavy_tail_beta(epsilon: float, gamma: float = 4.0) -> float:
    r""":math:`\beta = \varepsilon / (2(\gamma + 1))`, the smoothing at which the heavy-tailed noise of
    :func:`heavy_tail_scale` gives pure :math:`\varepsilon`-DP, with the constants that give the stretch
    exactly :math:`\varepsilon/2` (proof in :func:`smooth_median_release_pure`). With :math:`\gamma = 4`:
    :math:`\beta = \varepsilon/10`. Lessons 04 and 06.
    """
    return check_epsilon(epsilon) / (2 * (_check_gamma(gamma) + 1))


def heavy_tail_scale(smooth_sensitivity: float, epsilon: float, gamma: float = 4.0) -> float:
    r"""The noise multiplier :math:`S/\alpha = 2(\gamma + 1) S / \varepsilon` for the density
    :math:`h(z) \propto 1/(1 + |z|^\gamma)` (:math:`\alpha = \beta = \varepsilon/(2(\gamma+1))`): release
    :math:`f(x) + (2(\gamma+1) S/\varepsilon)\, Z`. With :math:`\gamma = 4`: :math:`10 S/\varepsilon`. Lesson 06.
    """
    value = check_real("smooth_sensitivity", smooth_sensitivity, "a finite number >= 0")
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"smooth_sensitivity must be a finite number >= 0, got {smooth_sensitivity!r}")
    return 2 * (_check_gamma(gamma) + 1) * value / check_epsilon(epsilon)


def heavy_tail_density(z: ArrayLike, gamma: float = 4.0) -> np.ndarray:
    r"""The density :math:`h(z) = \frac{\gamma \sin(\pi/\gamma)}{2\pi} \cdot \frac{1}{1 + |z|^\gamma}`.

    The constant: :math:`\int_0^\infty dz/(1 + z^\gamma) = (\pi/\gamma)/\sin(\pi/\gamma)`, and the density
    is symmetric. :math:`\gamma = 2` is the Cauchy density. Its variance is finite only for
    :math:`\gamma > 3`. Lesson 06.
    """
    gamma = _check_gamma(gamma)
    values = check_data(z, "z")
    return gamma * math.sin(math.pi / gamma) / (2 * math.pi) / (1 + np.abs(values) ** gamma)


def heavy_tail_std(gamma: float = 4.0) -> float:
    r"""The standard deviation of :math:`Z \sim h(z) \propto 1/(1 + |z|^\gamma)`: finite only for
    :math:`\gamma > 3`, where it is :math:`\sqrt{\sin(\pi/\gamma) / \sin(3\pi/\gamma)}` (1 for :math:`\gamma = 4`).

    Proof: :math:`\int_0^\infty z^{s-1}/(1 + z^\gamma)\, dz = (\pi/\gamma)/\sin(\pi s/\gamma)` for
    :math:`0 < s < \gamma`; the mean is 0 by symmetry, and :math:`E[Z^2]` is the ratio of this integral at
    :math:`s = 3` to the one at :math:`s = 1` (the normaliser). Lesson 04 (noise cost against Laplace's).
    """
    gamma = _check_gamma(gamma)
    if gamma <= 3:
        raise ValueError(f"gamma must be > 3 for a finite standard deviation, got {gamma!r}")
    return math.sqrt(math.sin(math.pi / gamma) / math.sin(3 * math.pi / gamma))


SAMPLED_GAMMA_ABOVE = 1.053
""":func:`heavy_tail_noise` needs :math:`\\gamma` above this, so that its largest draw :math:`2^{53/(\\gamma - 1)}`
stays below :math:`2^{1007}` and every release built on it is finite (:func:`heavy_tail_largest_draw`)."""


def heavy_tail_largest_draw(gamma: float = 4.0) -> float:
    r"""The largest magnitude :func:`heavy_tail_noise` can return: its tail draw is :math:`U^{-1/(\gamma - 1)}`
    with :math:`U = 1 - ` ``rng.random()`` :math:`\ge 2^{-53}`, so at most :math:`2^{53/(\gamma - 1)}` (widened by
    a relative :math:`10^{-12}` for the rounding of ``**``); the body draws are at most 1. Requires
    :math:`\gamma >` :data:`SAMPLED_GAMMA_ABOVE`. Lesson 06.
    """
    gamma = _check_sampled_gamma(gamma)
    return 2.0 ** (53 / (gamma - 1)) * (1 + 1e-12)


def _check_sampled_gamma(gamma: float) -> float:
    gamma = _check_gamma(gamma)
    if gamma <= SAMPLED_GAMMA_ABOVE:
        raise ValueError(f"gamma must be > {SAMPLED_GAMMA_ABOVE} to sample the heavy-tailed noise: nearer 1 a draw "
                         f"can reach 2**(53/(gamma - 1)) and overflow to infinity; got {gamma!r}")
    return gamma


def heavy_tail_noise(rng: np.random.Generator, gamma: float = 4.0, size: int | None = None) -> float | np.ndarray:
    r"""Draws from :math:`h(z) \propto 1/(1 + |z|^\gamma)` (one float, or an array of ``size``).

    Rejection from the envelope :math:`g(z) \propto \min(1, |z|^{-\gamma})`: a uniform on :math:`[0, 1]`
    with weight 1, or a Pareto :math:`U^{-1/(\gamma-1)}` tail with weight :math:`1/(\gamma - 1)`, then a
    fair sign. :math:`h/g` is :math:`1/(1 + |z|^\gamma)` inside :math:`[-1, 1]` and :math:`1/(1 + |z|^{-\gamma})`
    outside, both in :math:`[1/2, 1]`, so accepting with that probability is exact and keeps at least
    half of the proposals. Floating-point, like :func:`dpteach.mechanisms.laplace_mech`. Every draw is finite, at
    most :func:`heavy_tail_largest_draw` in magnitude: ``gamma`` must exceed :data:`SAMPLED_GAMMA_ABOVE`
    (``ValueError`` otherwise; the density itself has a tail beyond the doubles for :math:`\gamma` near 1, e.g.
    mass 0.0009 at :math:`\gamma = 1.01`, which no finite sampler reproduces). Lesson 06.
    """
    gamma = _check_sampled_gamma(gamma)
    rng = check_rng(rng)
    if size is not None:
        size = check_int("size", size, 1)
    wanted = 1 if size is None else size
    kept: list[np.ndarray] = []
    while sum(block.size for block in kept) < wanted:
        n = 2 * wanted + 8
        tail = rng.random(n) < 1 / gamma  # P(tail) = (1/(gamma-1)) / (1 + 1/(gamma-1)) = 1/gamma
        uniform = 1.0 - rng.random(n)  # in (0, 1]
        magnitude = np.where(tail, uniform ** (-1 / (gamma - 1)), uniform)
        ratio = np.where(tail, 1 / (1 + magnitude ** -gamma), 1 / (1 + magnitude**gamma))
        accept = rng.random(n) < ratio
        sign = np.where(rng.integers(0, 2, size=n) == 1, 1.0, -1.0)
        kept.append((sign * magnitude)[accept])
    draws = np.concatenate(kept)[:wanted]
    return float(draws[0]) if size is None else draws


def smooth_median_release_pure(
    data: ArrayLike, lower: float, upper: float, epsilon: float,
    rng: np.random.Generator | None = None, gamma: float = 4.0,
) -> SmoothRelease:
    r"""Release the median of the data clipped to ``[lower, upper]`` plus :math:`(2(\gamma+1)S/\varepsilon)\, Z`,
    :math:`Z \sim h(z) \propto 1/(1 + |z|^\gamma)`, with :math:`S` the exact :math:`\beta`-smooth
    sensitivity of the median at :math:`\beta = \varepsilon/(2(\gamma+1))` (it must be computed at *this*
    :math:`\beta`, not Laplace's :math:`\varepsilon/(2\ln(2/\delta))`: the heavy tail's is the larger one when
    :math:`\delta < 2e^{-(\gamma+1)}`, about 0.013 for :math:`\gamma = 4`, and the smaller one above).

    Guarantee: over the reals, pure :math:`\varepsilon`-DP under replace-one neighbours (same public size
    :math:`n`) (NRS 2007's argument with :math:`\alpha = \beta = \varepsilon/(2(\gamma+1))`, the constants that
    give the stretch exactly :math:`\varepsilon/2`; the :math:`S` used is rounded up by a relative :math:`\eta` at most,
    see :func:`smooth_sensitivity_median`, so it is :math:`(\beta + \ln(1 + \eta))`-smooth and the argument holds for
    that :math:`\beta`). Proof: for
    neighbours, :math:`|f(x) - f(x')| \le S(x)` and :math:`S(x') = e^{\lambda} S(x)` with :math:`|\lambda| \le
    \beta`; the log-ratio of the two output densities at any :math:`y` is a slide of :math:`z` by at most
    :math:`\alpha`, costing :math:`\le \gamma\alpha` because :math:`|\tfrac{d}{dz}\ln(1 + |z|^\gamma)| \le \gamma`,
    plus a dilation by :math:`e^\lambda`, costing :math:`\le |\lambda| + \gamma|\lambda|`; in total
    :math:`\le \gamma\alpha + (\gamma+1)\beta \le \varepsilon`. As implemented, the noise is drawn in floating
    point (:func:`heavy_tail_noise`), which this proof does not cover (cf. Mironov 2012). The release is finite:
    :math:`S \le u - l`, so it is at most :math:`\max(|l|, |u|) + 2(\gamma+1)(u - l)/\varepsilon` times
    :func:`heavy_tail_largest_draw`, a bound from public parameters only; where that could reach :math:`10^{308}`
    the call raises ``ValueError`` before looking at the data. Lesson 06.
    """
    beta = heavy_tail_beta(epsilon, gamma)
    xs = _padded_sorted(data, lower, upper)
    _check_reach(max(abs(lower), abs(upper)) + heavy_tail_scale(upper - lower, epsilon, gamma)
                 * heavy_tail_largest_draw(gamma), "gamma, epsilon, lower and upper", "a larger gamma or epsilon")
    s = smooth_sensitivity_median(data, lower, upper, beta)
    median = float(xs[math.ceil((xs.size - 2) / 2)])
    scale = heavy_tail_scale(s, epsilon, gamma)
    value = median + scale * heavy_tail_noise(check_rng(rng), gamma)
    return SmoothRelease(value, s, beta, scale, float(epsilon), 0.0)


# ------------------------------------------------------------------------------ from scratch, on a universe
SMOOTH_RELATIONS: tuple[str, ...] = ("bounded", "symmetric")
"""The relations that are a distance: replacements (``"bounded"``) and additions plus removals (``"symmetric"``)."""


def _check_smooth_relation(relation: str) -> str:
    if relation == "unbounded":
        raise ValueError("relation='unbounded' (the blog's: exactly k added or exactly k removed) is not a distance, "
                         "so it has no smooth sensitivity; use relation='symmetric' (add/remove, any mix) or "
                         "'bounded' (replacements)")
    if relation not in SMOOTH_RELATIONS:
        raise ValueError(f"relation must be one of {SMOOTH_RELATIONS}, got {relation!r}")
    return relation


def _check_method(method: str) -> str:
    if method not in ("fast", "naive"):
        raise ValueError(f"method must be 'fast' or 'naive', got {method!r}")
    return method


@dataclass(frozen=True)
class _Ball:
    """A release inside its universe, as count vectors over the universe's distinct values."""

    query: Query
    resolved: ResolvedQuery
    release: np.ndarray  # sorted
    universe: np.ndarray  # sorted
    relation: str
    values: np.ndarray
    own: np.ndarray
    capacity: np.ndarray

    @property
    def largest_distance(self) -> int:
        """An upper bound on the largest distance, attained when the values are distinct. Bounded:
        :math:`\\min(n, |U| - n)` replacements. Symmetric: remove all :math:`n` records and add all :math:`|U| - n`
        others (a dataset is never empty, so :math:`|U| - 1` if the release is the universe). With repeated values
        the true largest distance can be smaller; :math:`A^{(k)}` is flat beyond it."""
        n, room = self.release.size, self.universe.size - self.release.size
        if self.relation == "bounded":
            return min(n, room)
        return n + room if room else n - 1

    def families(self, d: int) -> list[tuple[int, int]]:
        """``(i, j)``: remove ``i`` records of the release and add ``j`` from the rest of the universe, at distance
        ``d`` (bounded: ``i = j = d``; symmetric: ``i + j = d``, never all removed and none added)."""
        n, room = self.release.size, self.universe.size - self.release.size
        if self.relation == "bounded":
            return [(d, d)] if d <= min(n, room) else []
        return [(i, d - i) for i in range(max(0, d - room), min(d, n) + 1) if n - i + (d - i) >= 1]


def _ball(release: ArrayLike, universe: ArrayLike, query: Query, relation: str) -> _Ball:
    """Check the arguments shared by :func:`local_sensitivity_at_distance` and :func:`smooth_sensitivity`."""
    resolved = resolve_query(query)
    relation = _check_smooth_relation(relation)
    universe_data = as_dataset(universe, "universe")
    release_data = as_dataset(release, "release")
    values, capacity, fits = sub_multiset_counts(release_data, universe_data)
    if not fits:
        raise ValueError("release must be a sub-multiset of universe; the universe cannot supply these release "
                         f"values: {missing_from(release_data, universe_data)}")
    if relation == "bounded" and release_data.size < 2:
        raise ValueError(f"relation='bounded' needs a release of at least 2 records (the engine replaces "
                         f"1 <= k < size records), got size {release_data.size}")
    if relation == "symmetric" and universe_data.size < 2:
        raise ValueError("relation='symmetric' needs a universe of at least 2 records, so that every dataset "
                         f"has a neighbour; got {universe_data.size}")
    if math.prod(int(c) + 1 for c in capacity) >= 2**62:
        raise ValueError("universe has too many distinct values to enumerate its datasets (the count-vector keys "
                         "would overflow 64 bits); use a smaller universe")
    largest = release_data.size if relation == "bounded" else universe_data.size
    check_exact_sums(universe_data, largest, "universe")
    own = np.bincount(np.searchsorted(values, release_data), minlength=values.size).astype(np.int64)
    return _Ball(query, resolved, release_data, universe_data, relation, values, own, capacity.astype(np.int64))


def _check_k(ball: _Ball, k: object) -> int:
    top = ball.largest_distance
    return check_int("k", k, 0, top, high_label=f"{top}, an upper bound on the largest {ball.relation} distance "
                                                 f"from this release to another dataset of the universe")


# --- naive: the definitions, by positions
def _distance(x: tuple[float, ...], y: tuple[float, ...], relation: str) -> int:
    """Bounded: records to replace, :math:`n - |x \\cap y|`. Symmetric: :math:`|x \\triangle y|`."""
    only_x, only_y = Counter(x) - Counter(y), Counter(y) - Counter(x)
    if relation == "bounded":
        return sum(only_x.values())
    return sum(only_x.values()) + sum(only_y.values())


def _naive_datasets(ball: _Ball) -> list[tuple[float, ...]]:
    """Every distinct dataset the universe can form: of the release's size (bounded) or any non-empty size."""
    universe = tuple(ball.universe.tolist())
    sizes = [ball.release.size] if ball.relation == "bounded" else range(1, len(universe) + 1)
    _check_work(_naive_work(ball), "naive pair")
    return list(dict.fromkeys(y for s in sizes for y in itertools.combinations(universe, s)))


def _naive_work(ball: _Ball) -> int:
    """(dataset, neighbour) pairs of one :func:`_naive_at_distance`, at most: every dataset by positions times the
    neighbours one dataset can have (one replacement: :math:`|U|^2`; one addition or removal: :math:`|U|`), which
    bounds the pairs :func:`dpteach.sensitivity.local_sensitivity` compares by position."""
    size = ball.universe.size
    sizes = [ball.release.size] if ball.relation == "bounded" else range(1, size + 1)
    moves = size ** 2 if ball.relation == "bounded" else size
    return sum(math.comb(size, s) for s in sizes) * moves


def _naive_at_distance(ball: _Ball, k: int) -> float:
    r""":math:`A^{(k)}(x) = \max \{LS(y) : d(x, y) \le k\}`, straight from the definition: :math:`LS(y)` as
    :func:`dpteach.sensitivity.local_sensitivity` with ``method="naive"`` computes it (its pairs are counted by
    :func:`_naive_datasets`)."""
    x = tuple(ball.release.tolist())
    universe = tuple(ball.universe.tolist())
    ball_k = [y for y in _naive_datasets(ball) if _distance(x, y, ball.relation) <= k]
    return max(_naive_local(y, universe, 1, ball.relation, ball.resolved) for y in ball_k)


def _naive_curve(ball: _Ball, distances: range) -> list[float]:
    """:func:`_naive_at_distance` for every ``k`` of ``distances``, their total work refused up front."""
    planned(len(distances) * _naive_work(ball), "examine {} (dataset, neighbour) pairs", kind="naive pair")
    return [_naive_at_distance(ball, k) for k in distances]


# --- fast: shells of distinct multisets, every query value evaluated in batches
def _check_work(pairs: int, kind: str = "unit") -> None:
    check_work(pairs, "examine {} (dataset, neighbour) pairs", kind=kind)


def _moves(ball: _Ball) -> int:
    """Neighbour candidates of one dataset: a replacement (value p by value q) or an addition or a removal."""
    return ball.values.size ** 2 if ball.relation == "bounded" else 2 * ball.values.size


def _shell_work(ball: _Ball, d: int) -> int:
    """(dataset, neighbour) candidates examined at distance ``d``: every (removed, added) choice, times the
    neighbour moves of each dataset (one replacement: d_U^2; one addition or removal: 2 d_U)."""
    spare = ball.capacity - ball.own
    choices = sum(count_submultisets(ball.own, i) * count_submultisets(spare, j) for i, j in ball.families(d))
    return _moves(ball) * choices


def _shell(ball: _Ball, d: int) -> np.ndarray:
    r"""The distinct datasets at distance exactly ``d``, as count vectors :math:`y = x - r + a`.

    :math:`r \subseteq x`, :math:`a \subseteq U - x`, and no value both removed and added: then
    :math:`r = (x - y)^+` and :math:`a = (y - x)^+`, so each dataset appears once.
    """
    spare = ball.capacity - ball.own
    blocks = [np.zeros((0, ball.values.size), dtype=np.int64)]
    for i, j in ball.families(d):
        removed, added = submultisets(ball.own, i), submultisets(spare, j)
        r = np.repeat(removed, len(added), axis=0)
        a = np.tile(added, (len(removed), 1))
        disjoint = ~((r > 0) & (a > 0)).any(axis=1)
        blocks.append(ball.own - r[disjoint] + a[disjoint])
    return np.vstack(blocks)


def _query_by_key(ball: _Ball, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Evaluate the query once on each distinct dataset among ``keys``: (sorted keys, values)."""
    keys = np.unique(keys)
    counts = np.empty((keys.size, ball.values.size), dtype=np.int64)
    rest = keys.copy()
    for v in range(ball.values.size):  # mixed-radix digits
        rest, counts[:, v] = np.divmod(rest, ball.capacity[v] + 1)
    sizes = counts.sum(axis=1)
    f = np.empty(keys.size)
    for s in np.unique(sizes):
        f[sizes == s] = ball.resolved.on_rows(counts_to_rows(ball.values, counts[sizes == s]))
    return keys, f


def _local_sensitivities(ball: _Ball, shell: np.ndarray) -> np.ndarray:
    r""":math:`LS(y)` at distance 1 for every dataset of ``shell``, as
    :math:`\max(f(y) - \min f(y'), \max f(y') - f(y))` over the neighbours :math:`y'` (exactly the values
    :func:`dpteach.sensitivity.local_sensitivity` compares: replace one record by one of another value, or add one,
    or remove one if two or more remain)."""
    d_u = ball.values.size
    weights = _weights(ball.capacity)
    keys = shell @ weights
    if ball.relation == "bounded":
        step = weights[None, None, :] - weights[None, :, None]  # remove value p, add value q
        can = (shell[:, :, None] > 0) & (shell[:, None, :] < ball.capacity[None, None, :]) & ~np.eye(d_u, dtype=bool)
        moved = keys[:, None, None] + step
    else:
        step = np.concatenate([-weights, weights])
        can = np.concatenate([(shell > 0) & (shell.sum(axis=1, keepdims=True) >= 2), shell < ball.capacity], axis=1)
        moved = keys[:, None] + step[None, :]
    moved, can = moved.reshape(len(shell), -1), can.reshape(len(shell), -1)
    table_keys, table_f = _query_by_key(ball, np.concatenate([keys, moved[can]]))
    f_y = table_f[np.searchsorted(table_keys, keys)]
    f_nb = table_f[np.minimum(np.searchsorted(table_keys, moved), table_keys.size - 1)]
    high = np.where(can, f_nb, -np.inf).max(axis=1, initial=-np.inf)
    low = np.where(can, f_nb, np.inf).min(axis=1, initial=np.inf)
    return np.maximum(0.0, np.maximum(f_y - low, high - f_y))


def _plan_shells(ball: _Ball, distances: list[int]) -> int:
    """Count the work of the shells at ``distances`` (a partial sum once above the budget) and refuse it at once
    above :data:`dpteach.budget.MAX_WORK`; return it."""
    total = 0
    for d in distances:
        total += _shell_work(ball, d)
        if total > budget.MAX_WORK:
            break
    _check_work(total)
    return total


def _shell_maxima(ball: _Ball, distances: Iterable[int]) -> Iterator[tuple[int, float]]:
    """:math:`M_d = \\max \\{LS(y) : d(x, y) = d\\}` shell by shell, with a progress bar. The work of every shell is
    counted against the work budget (:func:`_plan_shells`) before the first one is built."""
    distances = list(distances)
    total = _plan_shells(ball, distances)
    with tqdm(total=total, desc=f"smooth ({ball.relation})", unit="pair", unit_scale=True,
              disable=total <= PROGRESS_ABOVE) as bar:
        for d in distances:
            work = _shell_work(ball, d)
            shell = _shell(ball, d)
            rows = max(1, _CHUNK_CELLS // _moves(ball))
            top = 0.0
            for start in range(0, len(shell), rows):
                top = max(top, float(_local_sensitivities(ball, shell[start:start + rows]).max()))
            bar.update(work)
            yield d, top



def _global_bound(ball: _Ball) -> float | None:
    r"""An upper bound on every :math:`LS(y)` of the universe, from the engine's closed forms (None without one).

    Bounded: :math:`GS` over releases of size :math:`n`. Symmetric: the largest :math:`GS` over every size
    :math:`1 \dots |U|`. ``method="fast"`` of :func:`dpteach.sensitivity.global_sensitivity` is exact on whole
    numbers and rounded up otherwise (:func:`dpteach.exact.round_up`), so it is never below an enumerated value.
    """
    if not has_closed_form(ball.resolved.name):
        return None
    sizes = [ball.release.size] if ball.relation == "bounded" else range(1, ball.universe.size + 1)
    return max(global_sensitivity(ball.universe, s, ball.resolved.name, relation=ball.relation) for s in sizes)


@held
def local_sensitivity_at_distance(
    release: ArrayLike, universe: ArrayLike, query: Query, k: int, *, relation: str = "bounded",
    method: str = "fast",
) -> float:
    r""":math:`A^{(k)}(x) = \max \{ LS(y) : y \subseteq U,\ d(x, y) \le k \}`: the largest local sensitivity (at
    distance 1) of any dataset drawn from ``universe`` within distance ``k`` of ``release``. Lesson 04.

    :math:`k = 0` gives :math:`LS(x)`. ``relation`` is ``"bounded"`` (datasets of the release's size,
    :math:`d` = records replaced) or ``"symmetric"`` (non-empty datasets of any size, :math:`d = |x \triangle y|`,
    add/remove DP); :math:`LS` is :func:`dpteach.sensitivity.local_sensitivity` at :math:`k = 1` under the same
    relation. ``k`` runs from 0 to at most the largest distance the universe allows (bounded
    :math:`\min(n, |U| - n)`, symmetric :math:`|U|`, or :math:`|U| - 1` when the release is the whole universe).
    Repeated values can make the true largest distance smaller (:math:`U = (1, 1, 1, 2)`, :math:`n = 2`: only
    distance 1 exists); beyond it :math:`A^{(k)}` stays flat, so the extra ``k`` are harmless.

    ``method="naive"`` follows the definition: every dataset by positions, its distance by counting, its
    :math:`LS` by :func:`dpteach.sensitivity.local_sensitivity` with ``method="naive"``. ``"fast"`` lists each
    distinct dataset once, shell by shell (:math:`A^{(k)} = \max_{d \le k} M_d` with :math:`M_d` the largest
    :math:`LS` at distance exactly :math:`d`), and evaluates the query once per distinct dataset in numpy batches.
    Both compare the same query values, so they agree bit for bit. Work above :data:`dpteach.budget.MAX_WORK`
    (dataset, neighbour) pairs raises ``ValueError``; above :data:`dpteach.sensitivity.PROGRESS_ABOVE` a bar shows.
    """
    _check_method(method)
    ball = _ball(release, universe, query, relation)
    k = _check_k(ball, k)
    if method == "naive":
        return _naive_curve(ball, range(k, k + 1))[0]
    return max(m for _, m in _shell_maxima(ball, range(k + 1)))


@held
def local_sensitivity_by_distance(
    release: ArrayLike, universe: ArrayLike, query: Query, *, relation: str = "bounded", method: str = "fast",
) -> np.ndarray:
    r"""The whole curve :math:`A^{(0)}(x), A^{(1)}(x), \dots` up to the largest distance the universe allows
    (:func:`local_sensitivity_at_distance` for every ``k``, in one pass over the shells). Lesson 04."""
    _check_method(method)
    ball = _ball(release, universe, query, relation)
    if method == "naive":
        return np.array(_naive_curve(ball, range(ball.largest_distance + 1)))
    return np.maximum.accumulate([m for _, m in _shell_maxima(ball, range(ball.largest_distance + 1))])


@held
def smooth_sensitivity(
    release: ArrayLike, universe: ArrayLike, query: Query, *, beta: float, relation: str = "bounded",
    method: str = "fast",
) -> float:
    r"""The exact :math:`\beta`-smooth sensitivity :math:`S^*(x) = \max_{k \ge 0} e^{-\beta k} A^{(k)}(x)` of
    ``release`` among the datasets ``universe`` can form, :math:`k` over every distance the universe allows
    (NRS 2007, Definition 2.2 and Proposition 3.1). Lesson 04.

    It is :math:`\beta`-smooth: for neighbours :math:`x, x'`, the ball of radius :math:`k` around :math:`x` lies
    in the ball of radius :math:`k + 1` around :math:`x'`, so :math:`A^{(k)}(x) \le A^{(k+1)}(x')` and
    :math:`S^*(x) \le e^{\beta} S^*(x')`; and :math:`LS(x) = A^{(0)}(x) \le S^*(x) \le \max_y LS(y) = GS`.

    **Shells.** With :math:`M_d` the largest :math:`LS` at distance exactly :math:`d`,
    :math:`A^{(k)} = \max_{d \le k} M_d`, and
    :math:`\max_k e^{-\beta k} \max_{d \le k} M_d = \max_d M_d \max_{k \ge d} e^{-\beta k} = \max_d e^{-\beta d} M_d`.

    **When the loop may stop.** Let :math:`G \ge LS(y)` for every dataset :math:`y` of the universe (the global
    sensitivity, from the engine's closed forms) and let :math:`s` be the best :math:`e^{-\beta d'} M_{d'}` over
    the shells :math:`d' < d` done so far. If :math:`e^{-\beta d} G \le s`, then for every :math:`d'' \ge d`,
    :math:`e^{-\beta d''} M_{d''} \le e^{-\beta d} G \le s`, so no later shell can raise the maximum and the loop
    stops with :math:`S^* = s`. ``std``, ``var`` and callables have no closed form here, so every shell is
    computed. ``method="naive"`` takes the definition literally: :math:`A^{(k)}` from scratch for every :math:`k`,
    then the maximum. The two agree bit for bit.

    **Rounding.** Every term :math:`e^{-\beta d} M_d` is rounded up by :func:`discounted_up` (exactly
    :math:`M_0 = LS(x)` at :math:`d = 0`), and so is the stopping test's :math:`e^{-\beta d} G`; so the result
    :math:`\hat S` is never below the exact :math:`S^*` of the query values computed, and
    :math:`\hat S \le (1 + 2^{-50}(\beta K + 6)) S^* + (G + 1)\, 2^{-1071}` for :math:`K` the largest distance
    (:math:`G` any bound on :math:`LS`). As :func:`discounted_up` is monotone in both arguments (assuming a monotone
    ``exp``, which IEEE 754 does not require of a library but which holds in practice), the stopping rule
    holds in floating point and the two methods still agree bit for bit.
    """
    _check_method(method)
    beta = check_positive("beta", beta)
    ball = _ball(release, universe, query, relation)
    distances = range(ball.largest_distance + 1)
    if method == "naive":
        curve = _naive_curve(ball, distances)
        return max(_discounted_up(a_k, beta, k) for k, a_k in zip(distances, curve, strict=True))
    bound = _global_bound(ball)
    best = max(m for _, m in _shell_maxima(ball, [0]))  # LS(x): the loop below stops before e^{-beta d} G <= LS(x)
    reach = list(itertools.takewhile(lambda d: bound is None or _discounted_up(bound, beta, d) > best, distances[1:]))
    shells = _shell_maxima(ball, reach)  # every shell the loop can reach, counted before the first is built
    for d in reach:
        if bound is not None and _discounted_up(bound, beta, d) <= best:
            break
        best = max(best, _discounted_up(next(shells)[1], beta, d))
    shells.close()
    return best
