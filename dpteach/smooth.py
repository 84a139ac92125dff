r"""Smooth sensitivity (Nissim, Raskhodnikova and Smith, STOC 2007): generic, and exact for the median.

The :math:`\beta`-smooth sensitivity is :math:`S = \max_{k \ge 0} e^{-\beta k} A(k)`, where
:math:`A(k)` is the largest local sensitivity within distance :math:`k` of the data. Its noise is either
Laplace, for :math:`(\varepsilon, \delta)`-DP, or the heavy-tailed density
:math:`h(z) \propto 1/(1 + |z|^\gamma)`, for pure :math:`\varepsilon`-DP. Notebook 03.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from numbers import Real

import numpy as np
from numpy.typing import ArrayLike

from dpteach.mechanisms import (
    check_bounds,
    check_delta,
    check_epsilon,
    check_positive,
    check_rng,
    laplace_mech,
)
from dpteach.queries import check_data, check_int


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
    :math:`2S/\varepsilon` gives :math:`(\varepsilon, \delta)`-DP (NRS 2007, Section 2: Laplace
    noise is admissible with :math:`\alpha = \varepsilon/2` and this :math:`\beta`). Notebook 03.
    """
    return check_epsilon(epsilon) / (2 * math.log(2 / check_delta(delta)))


def smoothed_local_sensitivity(ls_at_distance: ArrayLike, beta: float) -> np.ndarray:
    r"""The curve :math:`e^{-\beta k} A(k)` for :math:`k = 0, 1, \dots` given :math:`A(0), A(1), \dots`.

    Notebook 03.
    """
    beta = check_positive("beta", beta)
    values = check_data(ls_at_distance, "ls_at_distance")
    if (values < 0).any():
        raise ValueError("ls_at_distance must hold local sensitivities >= 0")
    return np.exp(-beta * np.arange(values.size)) * values


def smooth_sensitivity(ls_at_distance: ArrayLike, beta: float) -> float:
    r""":math:`S = \max_k e^{-\beta k} A(k)` over the distances given (:math:`k = 0, 1, \dots`).

    Only a true :math:`\beta`-smooth bound if the maximum over *all* :math:`k` lies among them.
    Notebook 03.
    """
    return float(smoothed_local_sensitivity(ls_at_distance, beta).max())


_ALL_PAIRS_UP_TO = 1_000_000


def _padded_sorted(data: ArrayLike, lower: float, upper: float) -> np.ndarray:
    """``[lower, x_(1), ..., x_(n), upper]`` with the data clipped to ``[lower, upper]`` and sorted."""
    lower, upper = check_bounds(lower, upper)
    values = np.sort(np.clip(check_data(data), lower, upper))
    return np.concatenate(([lower], values, [upper]))


def _log_scores(xs: np.ndarray, i: np.ndarray, j: np.ndarray, beta: float) -> np.ndarray:
    """:math:`\\log(x_{(j)} - x_{(i)}) - \\beta (j - i - 1)` elementwise (``-inf`` where the values tie)."""
    with np.errstate(divide="ignore"):
        return np.log(xs[j] - xs[i]) - beta * (j - i - 1)


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


def smooth_sensitivity_median(data: ArrayLike, lower: float, upper: float, beta: float) -> float:
    r"""Exact :math:`\beta`-smooth sensitivity of the median :math:`x_{(m)}`, :math:`m = \lceil n/2 \rceil`,
    under replace-one neighbours, data clipped to :math:`[l, u]` (NRS 2007, Section 3.1).

    With :math:`x_{(i)} = l` for :math:`i \le 0` and :math:`u` for :math:`i > n`,
    :math:`A(k) = \max_{0 \le t \le k+1} (x_{(m+t)} - x_{(m+t-k-1)})`, so

    .. math:: S = \max_{0 \le i \le m \le j \le n+1} (x_{(j)} - x_{(i)})\, e^{-\beta (j - i - 1)}.

    Ties first: among indices :math:`i \le m` holding the same value only the largest can win (same gap,
    shorter distance), and among :math:`j \ge m` only the smallest; on data with few distinct values (ages)
    the remaining pairs are scored all at once. Otherwise: the best :math:`j` for each :math:`i` never
    decreases as :math:`i` grows, so divide and conquer finds all of them in :math:`O(n \log n)` after
    sorting, vectorised one recursion level at a time. Notebooks 03 and 06.

    *Why the best* :math:`j` *never moves left.* The score is :math:`(x_{(j)} - x_{(i)})\, e^{\beta}
    e^{-\beta j} e^{\beta i}`, and the exponential factor splits into a part in :math:`i` times a part in
    :math:`j`. For :math:`i < i'` and :math:`j < j'`,
    :math:`(x_{(j')} - x_{(i)})(x_{(j)} - x_{(i')}) \le (x_{(j)} - x_{(i)})(x_{(j')} - x_{(i')})`, since the
    right side minus the left is :math:`(x_{(j')} - x_{(j)})(x_{(i')} - x_{(i)}) \ge 0`. So the score is
    log-supermodular, and the largest maximiser in :math:`j` is non-decreasing in :math:`i`.
    """
    beta = check_positive("beta", beta)
    xs = _padded_sorted(data, lower, upper)
    m = math.ceil((xs.size - 2) / 2)
    i = np.arange(m + 1)
    j = np.arange(m, xs.size)
    rows = i[(i == m) | (xs[i] != xs[np.minimum(i + 1, xs.size - 1)])]
    cols = j[(j == m) | (xs[j] != xs[j - 1])]
    if rows.size * cols.size <= _ALL_PAIRS_UP_TO:
        best = float(_log_scores(xs, rows[:, None], cols[None, :], beta).max())
    else:
        best = _largest_score_monotone(xs, rows, cols, beta)
    return math.exp(best)


def smooth_median_release(
    data: ArrayLike, lower: float, upper: float, epsilon: float, delta: float,
    rng: np.random.Generator | None = None,
) -> SmoothRelease:
    r"""Release the median :math:`x_{(\lceil n/2 \rceil)}` of the data clipped to ``[lower, upper]`` plus
    :math:`\mathrm{Lap}(2S/\varepsilon)`, with :math:`S` its exact :math:`\beta`-smooth sensitivity for
    :math:`\beta = \varepsilon / (2\ln(2/\delta))`.

    Guarantee: over the reals, :math:`(\varepsilon, \delta)`-DP under replace-one neighbours (datasets of
    the same public size :math:`n`), by NRS 2007, Section 2, with Laplace noise (:math:`\alpha =
    \varepsilon/2`). The noise is drawn by :func:`dpteach.mechanisms.laplace_mech`, numpy's floating-point
    sampler, which carries no guarantee in floating point (Mironov 2012). The snapping mechanism that
    :mod:`dpteach.ptr` and :mod:`dpteach.saa` release with does not transfer: it rounds to a power-of-two grid
    at least as coarse as the noise scale, so with a scale :math:`2S/\varepsilon` that depends on the data,
    neighbours whose :math:`S` straddle a power of two would release on different grids, and the grid alone
    would tell them apart. A sound sampler for data-dependent scales is not implemented here. For pure
    :math:`\varepsilon`-DP see :func:`smooth_median_release_pure`. Notebook 03.
    """
    beta = laplace_beta(epsilon, delta)
    xs = _padded_sorted(data, lower, upper)
    s = smooth_sensitivity_median(data, lower, upper, beta)
    median = float(xs[math.ceil((xs.size - 2) / 2)])
    scale = 2 * s / epsilon
    value = laplace_mech(median, 2 * s, epsilon, check_rng(rng))
    return SmoothRelease(value, s, beta, scale, float(epsilon), float(delta))


# ------------------------------------------------------------------------------ pure-epsilon noise
def _check_gamma(gamma: float) -> float:
    if isinstance(gamma, bool) or not isinstance(gamma, Real):
        raise TypeError(f"gamma must be a real number > 1, got {type(gamma).__name__}")
    if not math.isfinite(gamma) or gamma <= 1:
        raise ValueError(f"gamma must be a finite number > 1, got {gamma!r}")
    return float(gamma)


def heavy_tail_beta(epsilon: float, gamma: float = 4.0) -> float:
    r""":math:`\beta = \varepsilon / (2(\gamma + 1))`, the smoothing at which the heavy-tailed noise of
    :func:`heavy_tail_scale` gives pure :math:`\varepsilon`-DP (NRS 2007, Lemma 2.7; proof in
    :func:`smooth_median_release_pure`). With :math:`\gamma = 4`: :math:`\beta = \varepsilon/10`. Notebook 03.
    """
    return check_epsilon(epsilon) / (2 * (_check_gamma(gamma) + 1))


def heavy_tail_scale(smooth_sensitivity: float, epsilon: float, gamma: float = 4.0) -> float:
    r"""The noise multiplier :math:`S/\alpha = 2(\gamma + 1) S / \varepsilon` for the density
    :math:`h(z) \propto 1/(1 + |z|^\gamma)` (:math:`\alpha = \beta = \varepsilon/(2(\gamma+1))`): release
    :math:`f(x) + (2(\gamma+1) S/\varepsilon)\, Z`. With :math:`\gamma = 4`: :math:`10 S/\varepsilon`. Notebook 03.
    """
    if isinstance(smooth_sensitivity, bool) or not isinstance(smooth_sensitivity, Real):
        raise TypeError(f"smooth_sensitivity must be a real number >= 0, got {type(smooth_sensitivity).__name__}")
    if not math.isfinite(smooth_sensitivity) or smooth_sensitivity < 0:
        raise ValueError(f"smooth_sensitivity must be a finite number >= 0, got {smooth_sensitivity!r}")
    return 2 * (_check_gamma(gamma) + 1) * float(smooth_sensitivity) / check_epsilon(epsilon)


def heavy_tail_density(z: ArrayLike, gamma: float = 4.0) -> np.ndarray:
    r"""The density :math:`h(z) = \frac{\gamma \sin(\pi/\gamma)}{2\pi} \cdot \frac{1}{1 + |z|^\gamma}`.

    The constant: :math:`\int_0^\infty dz/(1 + z^\gamma) = (\pi/\gamma)/\sin(\pi/\gamma)`, and the density
    is symmetric. :math:`\gamma = 2` is the Cauchy density. Its variance is finite only for
    :math:`\gamma > 3`. Notebook 03.
    """
    gamma = _check_gamma(gamma)
    values = check_data(z, "z")
    return gamma * math.sin(math.pi / gamma) / (2 * math.pi) / (1 + np.abs(values) ** gamma)


def heavy_tail_noise(rng: np.random.Generator, gamma: float = 4.0, size: int | None = None) -> float | np.ndarray:
    r"""Draws from :math:`h(z) \propto 1/(1 + |z|^\gamma)` (one float, or an array of ``size``).

    Rejection from the envelope :math:`g(z) \propto \min(1, |z|^{-\gamma})`: a uniform on :math:`[0, 1]`
    with weight 1, or a Pareto :math:`U^{-1/(\gamma-1)}` tail with weight :math:`1/(\gamma - 1)`, then a
    fair sign. :math:`h/g` is :math:`1/(1 + |z|^\gamma)` inside :math:`[-1, 1]` and :math:`1/(1 + |z|^{-\gamma})`
    outside, both in :math:`[1/2, 1]`, so accepting with that probability is exact and keeps at least
    half of the proposals. Floating-point, like :func:`dpteach.mechanisms.laplace_mech`. Notebook 03.
    """
    gamma = _check_gamma(gamma)
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
    :math:`\beta`, smaller than Laplace's).

    Guarantee: over the reals, pure :math:`\varepsilon`-DP under replace-one neighbours (same public size
    :math:`n`) (NRS 2007, Lemma 2.7 with :math:`\alpha = \beta = \varepsilon/(2(\gamma+1))`). Proof: for
    neighbours, :math:`|f(x) - f(x')| \le S(x)` and :math:`S(x') = e^{\lambda} S(x)` with :math:`|\lambda| \le
    \beta`; the log-ratio of the two output densities at any :math:`y` is a slide of :math:`z` by at most
    :math:`\alpha`, costing :math:`\le \gamma\alpha` because :math:`|\tfrac{d}{dz}\ln(1 + |z|^\gamma)| \le \gamma`,
    plus a dilation by :math:`e^\lambda`, costing :math:`\le |\lambda| + \gamma|\lambda|`; in total
    :math:`\le \gamma\alpha + (\gamma+1)\beta \le \varepsilon`. As implemented, the noise is drawn in floating
    point (:func:`heavy_tail_noise`), which this proof does not cover (cf. Mironov 2012). Notebook 03.
    """
    beta = heavy_tail_beta(epsilon, gamma)
    xs = _padded_sorted(data, lower, upper)
    s = smooth_sensitivity_median(data, lower, upper, beta)
    median = float(xs[math.ceil((xs.size - 2) / 2)])
    scale = heavy_tail_scale(s, epsilon, gamma)
    value = median + scale * heavy_tail_noise(check_rng(rng), gamma)
    return SmoothRelease(value, s, beta, scale, float(epsilon), 0.0)
