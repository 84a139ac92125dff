r"""Propose-test-release (PTR): the book chapter's mean, a corrected mean, and the median (Dwork & Lei 2009).

The analyst proposes a bound :math:`b` on the local sensitivity; the test adds
:math:`\mathrm{Lap}(1/\varepsilon_t)` to the distance to instability
:math:`D(x, b) = \min\{k : A(x, k) > b\}` (global sensitivity 1) and releases the statistic with
:math:`\mathrm{Lap}(b/\varepsilon_r)` only if the noisy distance clears a threshold. The mean uses
add/remove-one neighbours, the median replace-one. Notebook 05.

:math:`\delta` is part of the mechanism, so it must not depend on the data: take it from a public bound on
the size (e.g. :math:`1/N^2` for a published :math:`N \ge n`), never from ``len(data)``. A threshold computed
from the private :math:`n` is printed with every run and gives :math:`n` away, and neighbours of different
sizes would run different mechanisms, which the proof does not cover.

Noise. numpy's floating-point Laplace sampler (:func:`dpteach.mechanisms.laplace_mech`) has outputs that rule a
neighbour out (Mironov 2012; notebook 10), so the corrected releases draw safe noise by default
(``noise="exact"``): the distance, an integer of sensitivity 1, gets exact discrete Laplace noise
(:func:`dpteach.mechanisms.geometric_mech`) and is tested against the integer threshold
:func:`ptr_threshold_discrete`; the statistic is released with :func:`dpteach.mechanisms.snapping_mech`, clamped
to the public clipping range. ``noise="textbook"`` keeps numpy's Laplace and :func:`ptr_threshold`, the ideal
mechanism that :mod:`dpteach.audit` samples in bulk; its guarantee holds over the reals only.
:func:`ptr_mean_book` reproduces the chapter with numpy's Laplace and claims nothing.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from dpteach.mechanisms import (
    check_bounds,
    check_delta,
    check_epsilon,
    check_finite,
    check_positive,
    check_rng,
    geometric_mech,
    laplace_mech,
    snapping_bound,
    snapping_mech,
)
from dpteach.queries import check_data, check_int, returned_real
from dpteach.smooth import _padded_sorted


@dataclass(frozen=True)
class PTRRelease:
    """What one PTR run releases: ``value`` is None for ⊥ (refused); the budget is spent either way."""

    value: float | None
    noisy_distance: float | int
    threshold: float | int
    epsilon_spent: float
    delta: float


def _check_distances(n: int, k: int | np.ndarray, k_max: float) -> np.ndarray:
    """Check the dataset size ``n >= 1`` and the distances ``0 <= k <= k_max``; return ``k`` as floats."""
    check_int("n", n, 1)
    if isinstance(k, int) and not isinstance(k, bool) and 0 <= k <= k_max:  # the common scalar case, fast
        return np.float64(k)
    ks = np.asarray(k) if isinstance(k, (int, np.integer, np.ndarray, list, tuple, range)) else None
    if ks is None or isinstance(k, bool) or ks.dtype.kind not in "iu":
        raise TypeError(f"k must be an integer or an array of integers, got {type(k).__name__}")
    if ks.size and (ks.min() < 0 or ks.max() > k_max):
        raise ValueError(f"k must lie in [0, {k_max:g}], got values from {ks.min()} to {ks.max()}")
    return ks.astype(float)


def book_mean_ls_at_distance(n: int, k: int | np.ndarray, upper: float) -> float | np.ndarray:
    r"""The chapter's bound :math:`u / (n - k + 1)` for :math:`0 \le k \le n`: it only counts *added*
    records (values in :math:`[0, u]`), so it understates the local sensitivity at distance :math:`k`.
    Notebook 05.
    """
    ks = _check_distances(n, k, n)
    return check_positive("upper", upper) / (n - ks + 1.0)


def mean_ls_at_distance(n: int, k: int | np.ndarray, lower: float, upper: float) -> float | np.ndarray:
    r"""Largest local sensitivity of the mean of data in :math:`[l, u]` over datasets within :math:`k`
    add/remove steps of a dataset of size :math:`n`.

    A dataset of size :math:`m` moves by at most :math:`(u-l)/(m+1)` when a record is added and
    :math:`(u-l)/m` when one is removed, and never by more than :math:`u-l` (taking the empty mean to be
    any value in :math:`[l, u]`); the smallest reachable size is :math:`m = n - k`, so

    .. math:: A(k) = \min\Bigl(u - l,\ \max\Bigl(\frac{u-l}{n-k+1}, \frac{u-l}{n-k}\Bigr)\Bigr)
              = \frac{u - l}{\max(n - k, 1)}.

    Notebook 05.
    """
    lower, upper = check_bounds(lower, upper)
    ks = _check_distances(n, k, math.inf)
    return (upper - lower) / np.maximum(n - ks, 1.0)


def distance_to_instability(ls_at_distance: Callable[[int], float], b: float, k_max: int) -> int:
    r"""Smallest :math:`k \in \{0, \dots, k_{\max}\}` with :math:`A(k) > b` for a non-decreasing
    :math:`A` given as ``ls_at_distance`` (binary search); ``k_max`` if there is none. Notebook 05.
    """
    if not callable(ls_at_distance):
        raise TypeError(f"ls_at_distance must be a callable k -> A(k), got {type(ls_at_distance).__name__}")
    check_positive("b", b)
    if isinstance(k_max, bool) or not isinstance(k_max, int) or k_max < 0:
        raise ValueError(f"k_max must be an integer >= 0, got {k_max!r}")
    low, high = 0, k_max
    while low < high:
        mid = (low + high) // 2
        if returned_real("ls_at_distance", ls_at_distance(mid)) > b:
            high = mid
        else:
            low = mid + 1
    return low


def mean_distance_to_instability(n: int, lower: float, upper: float, b: float) -> int:
    r"""The corrected :math:`D = \min\{k : A(k) > b\}` for the mean of :math:`n` values in :math:`[l, u]` under
    add/remove-one neighbours (:func:`mean_ls_at_distance`, so removals count), capped at :math:`n`. It depends on
    :math:`n` alone: :math:`\lfloor n - (u - l)/b \rfloor + 1` clamped to :math:`[0, n]`. Since :math:`A(k)` is a
    bound, this is at most the true distance of any given dataset of size :math:`n` (safe for PTR); compare
    :func:`book_distance_to_instability`. Notebook 05.
    """
    check_int("n", n, 1)
    lower, upper = check_bounds(lower, upper)
    return distance_to_instability(lambda k: mean_ls_at_distance(n, k, lower, upper), check_positive("b", b), n)


def book_distance_to_instability(n: int, upper: float, b: float) -> int:
    r"""The chapter's distance, its loop ``while ls_at_distance(df, u, k) < b: k += 1`` as written: the smallest
    :math:`k \in \{0, \dots, n\}` with :math:`u/(n - k + 1) \ge b` (:func:`book_mean_ls_at_distance`), found by
    binary search; ``n`` if there is none (the chapter's loop would divide by zero).

    The chapter's :math:`A(k)` is the corrected bound :math:`u/(n - (k - 1))` one step back, so wherever this distance
    is above 0 it is the corrected :func:`mean_distance_to_instability` (with :math:`l = 0`) plus one, unless
    :math:`u/b` is a whole number (as at the chapter's :math:`u/b = 20{,}000`): there its :math:`\ge` stops one step
    early and cancels that. Notebook 05.
    """
    check_int("n", n, 1)
    upper, b = check_positive("upper", upper), check_positive("b", b)
    low, high = 0, n
    while low < high:
        mid = (low + high) // 2
        if upper / (n - mid + 1.0) >= b:
            high = mid
        else:
            low = mid + 1
    return low


def book_threshold(epsilon: float, delta: float) -> float:
    r"""The chapter's threshold :math:`\ln(2/\delta) / (2\varepsilon)`; with test noise
    :math:`\mathrm{Lap}(1/\varepsilon)` an unstable dataset passes with probability
    :math:`\tfrac12\sqrt{\delta/2}`, far above :math:`\delta`. Notebook 05.
    """
    return math.log(2 / check_delta(delta)) / (2 * check_epsilon(epsilon))


def ptr_threshold(epsilon: float, delta: float) -> float:
    r"""Threshold :math:`t = \ln(1/(2\delta)) / \varepsilon`, for which
    :math:`\Pr[\mathrm{Lap}(1/\varepsilon) \ge t] = \tfrac12 e^{-\varepsilon t} = \delta` (needs
    :math:`\delta < 1/2`). Notebook 05.
    """
    delta = check_delta(delta)
    if delta >= 0.5:
        raise ValueError(f"delta must be in (0, 0.5) for a positive PTR threshold, got {delta!r}")
    return math.log(1 / (2 * delta)) / check_epsilon(epsilon)


def ptr_threshold_discrete(epsilon: float, delta: float) -> int:
    r"""Integer threshold :math:`T` for a distance tested with exact discrete Laplace noise
    (:func:`dpteach.mechanisms.geometric_mech`): the smallest :math:`T \ge 1` with
    :math:`\Pr[Z \ge T] \le \delta`, up to a widening that can only raise it by one:

    .. math:: T = \max\Bigl(1, \Bigl\lceil \frac{\ln\bigl(1/((1 + e^{-\varepsilon})\,\delta)\bigr)}
              {\varepsilon} \Bigr\rceil\Bigr).

    Proof: :math:`Z` has :math:`\Pr[Z = z] = \frac{1-q}{1+q} q^{|z|}`, :math:`q = e^{-\varepsilon}`, so for
    :math:`T \ge 1`, :math:`\Pr[Z \ge T] = \frac{1-q}{1+q} \sum_{z \ge T} q^z = \frac{q^T}{1+q}`, which is
    :math:`\le \delta` iff :math:`\varepsilon T \ge \ln(1/((1+q)\delta))`; the smallest such integer is the
    ceiling. A dataset at distance 0 (true :math:`D = 0`) therefore passes with probability
    :math:`e^{-\varepsilon T}/(1 + e^{-\varepsilon}) \le \delta`. Rounding: the quotient is computed in doubles
    (``math.log``, ``math.log1p``, ``math.exp``, each within a few ulps) and widened by a relative
    :math:`10^{-12}` before the ceiling, so rounding can raise :math:`T` by one (a smaller failure
    probability), never lower it. At :math:`\varepsilon = 1`, :math:`\delta = 10^{-6}`: :math:`T = 14`
    (the continuous threshold :math:`\ln(1/(2\delta))/\varepsilon` is 13.1). Notebook 05.
    """
    epsilon, delta = check_epsilon(epsilon), check_delta(delta)
    t = (-math.log(delta) - math.log1p(math.exp(-epsilon))) / epsilon
    return max(1, math.ceil(t + 1e-12 * max(1.0, abs(t))))


def pass_probability(distance: float, threshold: float, epsilon: float) -> float:
    r""":math:`\Pr[d + \mathrm{Lap}(1/\varepsilon) \ge t]`: how often the test lets a dataset at distance
    :math:`d` through. :math:`\tfrac12 e^{-\varepsilon (t - d)}` for :math:`d \le t`, else
    :math:`1 - \tfrac12 e^{-\varepsilon (d - t)}`. Notebook 05.
    """
    distance, threshold = check_finite("distance", distance), check_finite("threshold", threshold)
    gap = check_epsilon(epsilon) * (threshold - distance)
    return 0.5 * math.exp(-gap) if gap >= 0 else 1.0 - 0.5 * math.exp(gap)


Noise = Literal["exact", "textbook"]


def _run(
    stat: float, distance: int, b: float, eps_test: float, eps_release: float, delta: float,
    range_bound: float, rng: np.random.Generator, noise: Noise,
) -> PTRRelease:
    """Test the distance and release ``stat`` (whose public bound is ``|stat| <= range_bound``)."""
    if noise == "textbook":
        threshold: float | int = ptr_threshold(eps_test, delta)
        noisy_distance: float | int = laplace_mech(float(distance), 1.0, eps_test, rng)
        passed = noisy_distance >= threshold
        value = laplace_mech(stat, b, eps_release, rng) if passed else None
    elif noise == "exact":
        threshold = ptr_threshold_discrete(eps_test, delta)
        noisy_distance = geometric_mech(distance, 1, eps_test, rng)
        passed = noisy_distance >= threshold
        bound = snapping_bound(range_bound, b, eps_release)
        value = snapping_mech(stat, b, eps_release, bound, rng) if passed else None
    else:
        raise ValueError(f"noise must be 'exact' or 'textbook', got {noise!r}")
    return PTRRelease(value, noisy_distance, threshold, eps_test + eps_release, delta)


def ptr_mean_book(
    data: ArrayLike, upper: float, b: float, epsilon: float, delta: float,
    rng: np.random.Generator | None = None,
) -> PTRRelease:
    r"""The chapter's PTR mean, as written: clip above at ``upper``, distance from
    :func:`book_distance_to_instability` (the chapter's loop, stopping at :math:`A(k) \ge b`), threshold
    :func:`book_threshold`, test and release each with
    :math:`\varepsilon`.

    It makes **no** valid privacy claim: the chapter says :math:`(\varepsilon, \delta)`, but it spends
    :math:`2\varepsilon` (reported in ``epsilon_spent``), its test fails with probability far above
    :math:`\delta`, and its bound ignores removals. Kept to reproduce the chapter, with the chapter's
    floating-point Laplace noise (:func:`dpteach.mechanisms.laplace_mech`). Notebook 05.
    """
    values = np.minimum(check_data(data), check_positive("upper", upper))
    epsilon, delta, b = check_epsilon(epsilon), check_delta(delta), check_positive("b", b)
    n = values.size
    distance = book_distance_to_instability(n, upper, b)
    rng, threshold = check_rng(rng), book_threshold(epsilon, delta)
    noisy_distance = laplace_mech(float(distance), 1.0, epsilon, rng)
    value = laplace_mech(float(values.mean()), b, epsilon, rng) if noisy_distance >= threshold else None
    return PTRRelease(value, noisy_distance, threshold, 2 * epsilon, delta)


def ptr_mean(
    data: ArrayLike, lower: float, upper: float, b: float, epsilon_test: float, epsilon_release: float,
    delta: float, rng: np.random.Generator | None = None, noise: Noise = "exact",
) -> PTRRelease:
    r"""Corrected PTR mean of the data clipped to ``[lower, upper]`` (``delta`` :math:`< 1/2`).

    Distance from :func:`mean_ls_at_distance` (additions and removals). ``noise="exact"`` (default): test
    :math:`D + Z \ge T`, :math:`Z` exact discrete Laplace of scale :math:`1/\varepsilon_t`, :math:`T` from
    :func:`ptr_threshold_discrete`; release with :func:`dpteach.mechanisms.snapping_mech` (sensitivity
    :math:`b`, :math:`\varepsilon_r`, clamped to the public :math:`\max(|l|, |u|)`). Guarantee:
    :math:`(\varepsilon_t + \varepsilon_r, \delta)`-DP under add/remove-one neighbours, as implemented: the
    test exactly, the release under :func:`dpteach.mechanisms.snapping_mech`'s assumptions (a correctly
    rounded ``math.log``; the mean as computed in doubles moving by at most :math:`b` where the proof says
    the real mean does). Spent whether or not it returns ⊥ (``value`` None). ``noise="textbook"``: numpy's
    Laplace, threshold :func:`ptr_threshold`; the same guarantee over the reals only. Notebook 05.
    """
    lower, upper = check_bounds(lower, upper)
    values = np.clip(check_data(data), lower, upper)
    eps_t, eps_r = check_positive("epsilon_test", epsilon_test), check_positive("epsilon_release",
                                                                               epsilon_release)
    b = check_positive("b", b)
    ptr_threshold(eps_t, delta)  # checks 0 < delta < 1/2 for both kinds of noise
    distance = mean_distance_to_instability(values.size, lower, upper, b)
    return _run(float(values.mean()), distance, b, eps_t, eps_r, float(delta), max(abs(lower), abs(upper)),
                check_rng(rng), noise)


def _median_spread(xs: np.ndarray, k: int) -> float:
    """:math:`A(k)` of the median for the padded sorted data ``xs`` (see :func:`median_ls_at_distance`)."""
    n = xs.size - 2
    m = math.ceil(n / 2)
    s = np.arange(k + 2)
    return float((xs[np.minimum(m + s, n + 1)] - xs[np.maximum(m + s - k - 1, 0)]).max())


def median_ls_at_distance(data: ArrayLike, lower: float, upper: float, k: int | np.ndarray) -> float | np.ndarray:
    r"""Largest local sensitivity of the median :math:`x_{(m)}`, :math:`m = \lceil n/2 \rceil`, over datasets
    within :math:`k` replacements of the data clipped to :math:`[l, u]` (replace-one neighbours, :math:`n`
    public; NRS 2007, Section 3.1).

    Pad the sorted data with :math:`x_{(i)} = l` for :math:`i \le 0` and :math:`u` for :math:`i > n`. With
    :math:`k` records changed, then one more, the median can land on any of :math:`x_{(m+s-k-1)}, \dots,
    x_{(m+s)}`, so

    .. math:: A(k) = \max_{0 \le s \le k+1} \bigl(x_{(m+s)} - x_{(m+s-k-1)}\bigr).

    :math:`A(0)` is the local sensitivity; :math:`A` never decreases and reaches :math:`u - l`. Notebook 05.
    """
    xs = _padded_sorted(data, lower, upper)
    ks = _check_distances(xs.size - 2, k, math.inf)
    if np.ndim(ks) == 0:
        return _median_spread(xs, int(ks))
    return np.array([_median_spread(xs, int(d)) for d in ks.ravel()]).reshape(ks.shape)


def median_distance_to_instability(data: ArrayLike, lower: float, upper: float, b: float) -> int:
    r""":math:`D(x, b) = \min\{k : A(k) > b\}` for the median (:func:`median_ls_at_distance`), capped at the
    public size :math:`n` (reached only when :math:`b \ge u - l`). One replacement changes it by at most 1,
    because the balls around neighbours nest: :math:`A(x', k) \le A(x, k + 1)`. Notebook 05.
    """
    xs = _padded_sorted(data, lower, upper)
    return distance_to_instability(lambda k: _median_spread(xs, k), check_positive("b", b), xs.size - 2)


def ptr_median(
    data: ArrayLike, lower: float, upper: float, b: float, epsilon_test: float, epsilon_release: float,
    delta: float, rng: np.random.Generator | None = None, noise: Noise = "exact",
) -> PTRRelease:
    r"""PTR for the median :math:`x_{(\lceil n/2 \rceil)}` of the data clipped to ``[lower, upper]``, in the
    spirit of Dwork & Lei (STOC 2009), who introduced PTR for robust statistics such as the median (their own
    algorithm proposes the scale on a logarithmic grid; here the analyst proposes :math:`b`).

    Test :math:`D(x, b) + Z \ge T` (:func:`median_distance_to_instability`), then release :math:`x_{(m)}` plus
    noise of scale :math:`b/\varepsilon_r`; the noise as in :func:`ptr_mean`: by default exact discrete Laplace
    :math:`Z` with :math:`T` from :func:`ptr_threshold_discrete` and a snapping release clamped to
    :math:`\max(|l|, |u|)`; ``noise="textbook"``: numpy's Laplace with :func:`ptr_threshold` (reals only).

    Guarantee: :math:`(\varepsilon_t + \varepsilon_r, \delta)`-DP under **replace-one** neighbours (size
    :math:`n` public), spent whether or not it returns ⊥ (``value`` None). Proof: :math:`D` has sensitivity 1,
    so the test is :math:`\varepsilon_t`-DP. If :math:`D(x) \ge 1` or :math:`D(x') \ge 1` then
    :math:`LS \le b` at one of the two, so :math:`|x_{(m)} - x'_{(m)}| \le b` and the release adds
    :math:`\varepsilon_r`. Otherwise :math:`D(x) = D(x') = 0` and either run releases a value with probability
    :math:`\Pr[Z \ge T] \le \delta`. As implemented with the default noise, the test is exact and the release
    holds under :func:`dpteach.mechanisms.snapping_mech`'s assumptions (a correctly rounded ``math.log``).
    Notebook 05.
    """
    xs = _padded_sorted(data, lower, upper)
    eps_t = check_positive("epsilon_test", epsilon_test)
    eps_r = check_positive("epsilon_release", epsilon_release)
    b = check_positive("b", b)
    ptr_threshold(eps_t, delta)  # checks 0 < delta < 1/2 for both kinds of noise
    distance = distance_to_instability(lambda k: _median_spread(xs, k), b, xs.size - 2)
    median = float(xs[math.ceil((xs.size - 2) / 2)])
    return _run(median, distance, b, eps_t, eps_r, float(delta), max(abs(xs[0]), abs(xs[-1])), check_rng(rng), noise)
