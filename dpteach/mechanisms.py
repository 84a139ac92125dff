"""Noise-adding mechanisms, percent error, and the input checks every mechanism in ``dpteach`` shares.

Lessons 05 to 07 compare the frameworks for local sensitivity with the global-sensitivity mean (lesson 05,
``notebooks/05_propose_test_release.ipynb``, with ideal Laplace noise and :func:`sum_count_mean`'s design); notebook 08
uses :func:`analytic_gaussian_sigma`; notebook 10 shows why the floating-point :func:`laplace_mech` leaks
and releases with the exact samplers :func:`geometric_mech` and :func:`snapping_mech` instead, which are
also what :func:`sum_count_mean`, :mod:`dpteach.ptr` and :mod:`dpteach.saa` release with.
"""

from __future__ import annotations

import math
import struct
import sys
from fractions import Fraction
from numbers import Integral, Rational, Real

import numpy as np
from numpy.typing import ArrayLike

from dpteach.queries import check_data, check_int, check_real


def check_rng(rng: np.random.Generator | None) -> np.random.Generator:
    """Return ``rng``, or a fresh *unseeded* generator when ``rng`` is None.

    Notebooks always pass the one generator they seed at the top, so their output is reproducible.
    """
    if rng is None:
        return np.random.default_rng()
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator (np.random.default_rng(seed)), "
                        f"got {type(rng).__name__}")
    return rng


def check_positive(name: str, value: float) -> float:
    """Return ``value`` as a float if it is a finite real number > 0, else raise naming ``name``."""
    number = check_real(name, value, "a finite number > 0")
    if not math.isfinite(number) or number <= 0:
        raise ValueError(f"{name} must be a finite number > 0, got {value!r}")
    return number


def check_epsilon(epsilon: float) -> float:
    r"""Return :math:`\varepsilon` as a float; it must be finite and :math:`> 0`."""
    return check_positive("epsilon", epsilon)


def check_delta(delta: float) -> float:
    r"""Return :math:`\delta` as a float; it must lie in the open interval :math:`(0, 1)`."""
    number = check_real("delta", delta, "a real number in (0, 1)")
    if not 0 < number < 1:
        raise ValueError(f"delta must be in (0, 1), got {delta!r}")
    return number


def check_sensitivity(sensitivity: float) -> float:
    """Return the sensitivity as a float; it must be finite and ``>= 0``."""
    number = check_real("sensitivity", sensitivity, "a finite number >= 0")
    if not math.isfinite(number) or number < 0:
        raise ValueError(f"sensitivity must be a finite number >= 0, got {sensitivity!r}")
    return number


def check_bounds(lower: float, upper: float) -> tuple[float, float]:
    """Return ``(lower, upper)`` as floats; both finite with ``lower < upper``."""
    low, high = (_bound(name, value) for name, value in (("lower", lower), ("upper", upper)))
    if not low < high:
        raise ValueError(f"lower must be < upper, got lower={lower!r}, upper={upper!r}")
    return low, high


def _bound(name: str, value: float) -> float:
    number = check_real(name, value, "a real number")
    if not math.isfinite(number):
        raise ValueError(f"{name} must be finite, got {value!r}")
    return number


def check_finite(name: str, value: float) -> float:
    """Return ``value`` as a float if it is a finite real number (in the range of doubles), else raise naming
    ``name``."""
    number = check_real(name, value, "a finite real number")
    if not math.isfinite(number):
        raise ValueError(f"{name} must be a finite real number, got {value!r}")
    return number


_LARGEST_LAPLACE_DRAW = 53 * math.log(2) * (1 + 1e-12)  # numpy's |noise| <= scale * ln(2**53): its U >= 2**-53
_FINITE_RELEASE = 1e308  # every release of a real number stays below this in magnitude (doubles end at 1.797e308)


def laplace_mech(
    value: float, sensitivity: float, epsilon: float, rng: np.random.Generator | None = None
) -> float:
    r"""Release ``value`` + :math:`\mathrm{Lap}(\Delta / \varepsilon)`, sampled with numpy's floating-point
    ``Generator.laplace`` (the textbook inverse-CDF sampler).

    Guarantee: **none in floating point.** Over the real numbers this is the Laplace mechanism, which is
    :math:`\varepsilon`-DP for any neighbour relation under which ``sensitivity`` bounds the global
    sensitivity :math:`\Delta` of the query. The doubles it actually outputs are not: many outputs can
    only come from one of two neighbouring inputs, so their privacy loss is infinite (Mironov 2012;
    :func:`textbook_laplace_impossible_fraction` measures how many on notebook 10's pair). It is kept for
    the notebooks' error comparisons; release with :func:`geometric_mech` (integer queries, exact) or
    :func:`snapping_mech` (real values). ``rng=None`` uses a fresh unseeded generator. The release is always
    finite: numpy draws :math:`U \ge 2^{-53}`, so :math:`|\text{noise}| \le \ln(2^{53})\,\Delta/\varepsilon`,
    and a scale for which value plus that could reach :math:`10^{308}` raises ``ValueError``. Notebooks 05, 10.
    """
    value = check_finite("value", value)
    scale = check_sensitivity(sensitivity) / check_epsilon(epsilon)
    if not abs(value) + _LARGEST_LAPLACE_DRAW * scale <= _FINITE_RELEASE:
        raise ValueError(f"sensitivity / epsilon = {scale!r} is too large: |value| + {_LARGEST_LAPLACE_DRAW:.2f} * "
                         f"sensitivity / epsilon (the largest release numpy's sampler can make) must stay below "
                         f"{_FINITE_RELEASE:g}, so that the release is finite")
    return value + float(check_rng(rng).laplace(0.0, scale))


def pct_error(true: float, private: float | None) -> float:
    r"""Percent error :math:`100 \cdot |t - p| / |t|` of a private answer ``p`` against the truth ``t``.

    ``private`` is None when propose-test-release refused (⊥): filter those runs out first. Notebook 05.
    """
    if private is None:
        raise TypeError("private is None (the mechanism returned ⊥); drop refused runs before scoring them")
    true, private = check_real("true", true, "a finite non-zero number"), check_finite("private", private)
    if not math.isfinite(true) or true == 0:
        raise ValueError(f"true must be a finite non-zero number, got {true!r}")
    return abs(true - private) / abs(true) * 100.0


def sum_count_mean(
    data: ArrayLike, lower: float, upper: float, epsilon: float, rng: np.random.Generator | None = None,
    max_size: int = 10**9,
) -> float:
    r"""The global-sensitivity mean: noisy sum over noisy count of the data clipped to ``[lower, upper]``.

    Spends :math:`\varepsilon/2` on the sum (sensitivity :math:`\Delta = \max(|l|, |u|)`), released with
    :func:`snapping_mech` clamped at the public bound :func:`snapping_bound` of
    :math:`\pm` ``max_size`` :math:`\cdot \Delta` (``max_size``: a public upper bound on the number of
    records; larger data sets have their sum clamped, which biases but does not leak), and
    :math:`\varepsilon/2` on the count (sensitivity 1), released exactly with :func:`geometric_mech`; the
    answer is :math:`\hat S / \max(\hat c, 1)` (post-processing: the noisy count can be 0 or negative).

    Guarantee: :math:`\varepsilon`-DP under add/remove-one neighbours, as implemented: the count exactly,
    the sum under the assumptions of :func:`snapping_mech` (a correctly rounded ``math.log``; the clipped
    sum as computed in doubles moving by at most :math:`\Delta`). Notebook 05.
    """
    lower, upper = check_bounds(lower, upper)
    clipped = np.clip(check_data(data), lower, upper)
    half = check_epsilon(epsilon) / 2
    max_size = check_int("max_size", max_size, 1)
    rng = check_rng(rng)
    width = max(abs(lower), abs(upper))
    noisy_sum = snapping_mech(float(clipped.sum()), width, half,
                              snapping_bound(max_size * width, width, half), rng)
    noisy_count = geometric_mech(int(clipped.size), 1, half, rng)
    return noisy_sum / max(noisy_count, 1)


# ------------------------------------------------------------------------------ analytic Gaussian
_ERFC_SLACK = 1e-12  # relative error allowed for each math.erfc value (libm's erfc is within a few ulps)
_TINY_PROFILE = 1e-289  # below this, a profile value is only trusted as "at most this"
_SMALLEST_DELTA = 1e-280  # analytic_gaussian_sigma's delta must exceed it (and so _TINY_PROFILE)
_LARGEST_EPSILON = 700.0  # e**epsilon must stay finite in double precision (it overflows beyond 709.78)


def _std_normal_cdf(x: float) -> float:
    r""":math:`\Phi(x) = \tfrac12 \operatorname{erfc}(-x/\sqrt 2)`, accurate in both tails (no ``1 - \Phi``)."""
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


def _gaussian_delta_upper(sigma: float, sensitivity: float, epsilon: float) -> float:
    r"""An upper bound on the privacy profile of :math:`N(0, \sigma^2)` noise at :math:`\varepsilon`:

    .. math:: \delta(\sigma) = \Phi\Big(\frac{\Delta}{2\sigma} - \frac{\varepsilon\sigma}{\Delta}\Big)
              - e^{\varepsilon}\, \Phi\Big(-\frac{\Delta}{2\sigma} - \frac{\varepsilon\sigma}{\Delta}\Big),

    with the first term inflated and the second deflated by :data:`_ERFC_SLACK`, so rounding can only make
    the bound larger. Where the first term falls below :data:`_TINY_PROFILE` (near the subnormal range, where
    ``erfc`` is accurate only in absolute terms) the bound returned is that threshold itself: the profile is at
    most the first term, so this is still an upper bound, and every admitted ``delta`` exceeds it.
    """
    ratio = sigma / sensitivity  # the profile depends on sigma / Delta alone; 2 * sigma could overflow to inf
    a = 1 / (2 * ratio) - epsilon * ratio
    b = -1 / (2 * ratio) - epsilon * ratio
    first = _std_normal_cdf(a)
    if 0 < first < _TINY_PROFILE:
        return _TINY_PROFILE
    second = math.exp(epsilon) * _std_normal_cdf(b) if first > 0 else 0.0
    return first * (1 + _ERFC_SLACK) - second * (1 - _ERFC_SLACK)


def _double_to_key(x: float) -> int:
    """The position of a double >= 0 in the ordered list of doubles (monotone, integers are consecutive)."""
    return struct.unpack("<q", struct.pack("<d", x))[0]


def _key_to_double(key: int) -> float:
    return struct.unpack("<d", struct.pack("<q", key))[0]


def analytic_gaussian_sigma(sensitivity: float, epsilon: float, delta: float) -> float:
    r"""The smallest noise level :math:`\sigma` for which :math:`f(x) + N(0, \sigma^2)` is
    :math:`(\varepsilon, \delta)`-DP, when :math:`\Delta` = ``sensitivity`` bounds the :math:`\ell_2`
    global sensitivity of :math:`f` under the neighbour relation in use (Balle & Wang 2018, Theorem 8):

    .. math:: \Phi\Big(\frac{\Delta}{2\sigma} - \frac{\varepsilon\sigma}{\Delta}\Big)
              - e^{\varepsilon}\, \Phi\Big(-\frac{\Delta}{2\sigma} - \frac{\varepsilon\sigma}{\Delta}\Big)
              \le \delta.

    The condition is necessary and sufficient, so this is the *exact* calibration, for every
    :math:`\varepsilon > 0` (the classical :math:`\sigma = \Delta\sqrt{2\ln(1.25/\delta)}/\varepsilon` needs
    :math:`\varepsilon < 1` and is larger). The left side falls as :math:`\sigma` grows. Instead of the
    paper's Algorithm 1 (a search over a reparametrisation), we bisect directly over the doubles: the
    answer is the smallest double whose *upper bound* on the left side (each :math:`\Phi` evaluated with
    ``math.erfc``, then widened by a relative :math:`10^{-12}`) is at most :math:`\delta`, so the
    returned :math:`\sigma` satisfies the inequality despite rounding, and is larger than the exact
    real solution by a relative :math:`\sim 10^{-11}` at most in ordinary ranges. At
    :math:`(\varepsilon, \delta) = (1, 10^{-6})` and :math:`\Delta = 1` it returns 4.22. Computed for
    :math:`0 < \varepsilon \le 700` (:math:`e^{\varepsilon}` overflows doubles beyond 709.78) and
    :math:`10^{-280} < \delta < 1` (smaller profile values are trusted only as upper bounds); other values raise
    ``ValueError`` naming the parameter. Appendix A2.
    """
    sensitivity = check_sensitivity(sensitivity)
    epsilon, delta = check_epsilon(epsilon), check_delta(delta)
    if epsilon > _LARGEST_EPSILON:
        raise ValueError(f"epsilon must be in (0, {_LARGEST_EPSILON:g}] for the analytic Gaussian calibration "
                         f"(e**epsilon overflows double precision beyond 709.78), got {epsilon!r}")
    if delta <= _SMALLEST_DELTA:
        raise ValueError(f"delta must be in ({_SMALLEST_DELTA:g}, 1) for a trustworthy double-precision "
                         f"calibration, got {delta!r}")
    if sensitivity == 0:
        return 0.0
    hi = sensitivity
    while _gaussian_delta_upper(hi, sensitivity, epsilon) > delta:
        if hi == sys.float_info.max:
            raise ValueError(f"sensitivity={sensitivity!r} is too large: no finite sigma reaches delta={delta!r} "
                             f"at epsilon={epsilon!r}")
        hi = min(hi * 2, sys.float_info.max)
    lo_key, hi_key = 0, _double_to_key(hi)  # key 0 is sigma = 0.0, where the profile is 1 > delta
    while hi_key - lo_key > 1:
        mid_key = (lo_key + hi_key) // 2
        if _gaussian_delta_upper(_key_to_double(mid_key), sensitivity, epsilon) <= delta:
            hi_key = mid_key
        else:
            lo_key = mid_key
    return _key_to_double(hi_key)


# ------------------------------------------------------------------------------ exact discrete Laplace
def _uniform_below(n: int, rng: np.random.Generator) -> int:
    """A uniform integer in ``{0, ..., n - 1}`` from the generator's integers only (any size of ``n``)."""
    if n <= 2**62:
        return int(rng.integers(0, n))
    bits = n.bit_length()
    while True:  # rejection: uniform over [0, 2**bits), keep it if it is below n (probability > 1/2)
        draw = 0
        for _ in range(-(-bits // 32)):
            draw = (draw << 32) | int(rng.integers(0, 2**32))
        draw >>= -bits % 32
        if draw < n:
            return draw


def _bernoulli(p: Fraction, rng: np.random.Generator) -> bool:
    """True with probability exactly ``p`` (a rational in [0, 1])."""
    return _uniform_below(p.denominator, rng) < p.numerator


def _bernoulli_exp_minus(gamma: Fraction, rng: np.random.Generator) -> bool:
    r"""True with probability exactly :math:`e^{-\gamma}` for a rational :math:`0 \le \gamma \le 1`
    (Canonne, Kamath & Steinke 2020, Algorithm 1; larger :math:`\gamma` is never needed here).

    Draw :math:`A_k \sim \mathrm{Bernoulli}(\gamma/k)` for :math:`k = 1, 2, \dots` until one fails; the
    first failure index :math:`K` is odd with probability :math:`\sum_{k \ge 0} (-\gamma)^k/k! = e^{-\gamma}`.
    """
    k = 1
    while _bernoulli(gamma / k, rng):
        k += 1
    return k % 2 == 1


def discrete_laplace(scale_num: int, scale_den: int = 1, rng: np.random.Generator | None = None) -> int:
    r"""One exact draw from the discrete Laplace distribution with scale :math:`t = ` ``scale_num / scale_den``:

    .. math:: P(Z = z) = \frac{1 - q}{1 + q}\, q^{|z|}, \qquad q = e^{-1/t}, \quad z \in \mathbb{Z}.

    Canonne, Kamath & Steinke 2020, Algorithm 2, with integer and rational arithmetic only: the
    randomness is uniform integers from ``rng.integers``; no floating-point number is computed. With
    :math:`t = a/b`: draw :math:`U` uniform on :math:`\{0, \dots, a-1\}` and keep it with probability
    :math:`e^{-U/a}`; add :math:`a V` with :math:`V` geometric (:math:`P(V \ge v) = e^{-v}`), so
    :math:`X = U + aV` has :math:`P(X = x) \propto e^{-x/a}`; then :math:`Y = \lfloor X/b \rfloor` has
    :math:`P(Y = y) \propto e^{-y b/a}`; a fair sign makes it symmetric, and the draw (sign minus,
    :math:`Y = 0`) is rejected so that 0 is not counted twice. Notebook 10.
    """
    num = check_int("scale_num", scale_num, 1)
    den = check_int("scale_den", scale_den, 1)
    rng = check_rng(rng)
    while True:
        u = _uniform_below(num, rng)
        if not _bernoulli_exp_minus(Fraction(u, num), rng):
            continue
        v = 0
        while _bernoulli_exp_minus(Fraction(1), rng):
            v += 1
        y = (u + num * v) // den
        negative = bool(rng.integers(0, 2))
        if negative and y == 0:
            continue
        return -y if negative else y


def _exact_positive(name: str, value: float | Fraction) -> Fraction:
    """``value`` as an exact fraction (a double, or any numpy float, converts without rounding); finite and > 0."""
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(f"{name} must be a real number > 0 (int, float or Fraction), got {type(value).__name__}")
    if not isinstance(value, Rational) and not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number > 0, got {value!r}")
    exact = Fraction(*value.as_integer_ratio()) if isinstance(value, np.floating) else Fraction(value)
    if exact <= 0:
        raise ValueError(f"{name} must be a finite number > 0, got {value!r}")
    return exact


def geometric_mech(
    value: int, sensitivity: int, epsilon: float | Fraction, rng: np.random.Generator | None = None
) -> int:
    r"""Release the integer ``value`` plus discrete Laplace noise of scale :math:`\Delta/\varepsilon`:
    :math:`P(\text{out} = v + z) \propto e^{-\varepsilon |z| / \Delta}` (the two-sided geometric mechanism).

    Guarantee: :math:`\varepsilon`-DP, exactly as implemented, for any neighbour relation under which the
    integer-valued query that produced ``value`` changes by at most ``sensitivity`` :math:`= \Delta`
    between neighbours (e.g. a count, :math:`\Delta = 1`, under add/remove-one). Proof: for
    :math:`|v - v'| \le \Delta`, :math:`P(v + Z = o) / P(v' + Z = o) = e^{-\varepsilon(|o - v| - |o - v'|)/\Delta}
    \le e^{\varepsilon}`. ``epsilon`` is converted to a fraction without rounding (a float is taken as the
    exact double it is) and the noise comes from :func:`discrete_laplace`, so no rounding enters.
    ``sensitivity = 0`` returns ``value``. Notebook 10.
    """
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise TypeError(f"value must be an integer (the geometric mechanism is for integer queries), "
                        f"got {type(value).__name__}")
    if isinstance(sensitivity, bool) or not isinstance(sensitivity, Integral):
        raise TypeError(f"sensitivity must be an integer >= 0, got {type(sensitivity).__name__}")
    if sensitivity < 0:
        raise ValueError(f"sensitivity must be an integer >= 0, got {sensitivity!r}")
    scale = Fraction(int(sensitivity)) / _exact_positive("epsilon", epsilon)
    rng = check_rng(rng)
    if scale == 0:
        return int(value)
    return int(value) + discrete_laplace(scale.numerator, scale.denominator, rng)


# ------------------------------------------------------------------------------ snapping (Mironov 2012)
_ETA = 2.0**-53  # Mironov's eta: the relative rounding error of double arithmetic


def _uniform_double(rng: np.random.Generator) -> float:
    r"""A double drawn from :math:`(0, 1)` with probability equal to the length of the reals it stands for.

    :math:`U = (1 + m/2^{52})\, 2^{-k}` with :math:`P(k) = 2^{-k}` (:math:`k \ge 1`, counted from 64-bit
    words) and :math:`m` uniform on 52 bits, so every double of the binade :math:`[2^{-k}, 2^{1-k})` gets
    probability :math:`2^{-k-52}`, its spacing (Mironov 2012, Section 5.2). Unlike numpy's
    ``k / 2**53`` grid, it reaches every double in :math:`(2^{-1022}, 1)`.
    """
    k = 1
    while True:
        word = int(rng.integers(0, 2**64, dtype=np.uint64))
        if word:
            k += 64 - word.bit_length()
            break
        k += 64
    mantissa = (1 << 52) | int(rng.integers(0, 2**52))
    return math.ldexp(mantissa, -52 - k)


def snapping_epsilon(noise_epsilon: float, sensitivity: float, bound: float) -> float:
    r"""The privacy the snapping mechanism actually gives when its Laplace noise has scale
    :math:`\lambda = \Delta / \varepsilon_0` (``noise_epsilon`` :math:`= \varepsilon_0`):

    .. math:: \varepsilon' = \frac{1 + 12 B \eta}{\lambda} + 2\eta, \qquad \eta = 2^{-53},

    in units where the sensitivity is 1 (:math:`B` = ``bound`` / ``sensitivity``, :math:`\lambda = 1/\varepsilon_0`),
    as stated by Mironov 2012, Section 5.2 (Theorem 1, for :math:`\lambda < B < 2^{46}\lambda`, where it is
    at most :math:`1/\lambda + 2^{-49}B/\lambda`). Notebook 10.
    """
    noise_epsilon = check_positive("noise_epsilon", noise_epsilon)
    bound_units = check_positive("bound", bound) / check_positive("sensitivity", sensitivity)
    lam = 1 / noise_epsilon
    if not lam < bound_units < 2.0**46 * lam:
        raise ValueError(f"bound / sensitivity must lie in (1/epsilon, 2**46/epsilon) = ({lam!r}, {2.0**46 * lam!r}) "
                         f"for Mironov's theorem, got {bound_units!r}")
    return (1 + 12 * bound_units * _ETA) / lam + 2 * _ETA


def snapping_bound(magnitude: float, sensitivity: float, epsilon: float) -> float:
    r"""A public clamping bound :math:`B` for :func:`snapping_mech` on a value known to satisfy
    :math:`|f| \le` ``magnitude``: ``magnitude`` itself, moved into the window
    :math:`2\lambda \le B \le 2^{40}\lambda` (:math:`\lambda = \Delta/\varepsilon`), inside the range
    :math:`\lambda < B < 2^{46}\lambda` of Mironov's theorem even after :func:`snapping_mech` inflates
    :math:`\lambda` by the factor :math:`1 + 12 (B/\Delta) \eta` (at most :math:`1 + 0.0015/\varepsilon`).

    Any public :math:`B` keeps the guarantee (the mechanism clamps first, a 1-Lipschitz step). Raising it
    to :math:`2\lambda` changes nothing for values in range; lowering it to :math:`2^{40}\lambda` (only for
    a range :math:`10^{12}` times the noise scale) clamps, which biases large values. It depends on
    public parameters only. Notebook 05.
    """
    lam = check_positive("sensitivity", sensitivity) / check_epsilon(epsilon)
    return min(max(check_positive("magnitude", magnitude), 2 * lam), 2.0**40 * lam)


def snapping_mech(
    value: float, sensitivity: float, epsilon: float, bound: float, rng: np.random.Generator | None = None
) -> float:
    r"""Mironov's snapping mechanism: a floating-point Laplace release whose guarantee survives rounding.

    In units of the sensitivity (:math:`x = f(D)/\Delta`, :math:`B` = ``bound`` / :math:`\Delta`) it outputs

    .. math:: \Delta \cdot \operatorname{clamp}_B\Big(\big\lfloor \operatorname{clamp}_B(x) \oplus S \otimes
              \lambda \otimes \ln(U) \big\rceil_\Lambda\Big),

    with :math:`S` a fair sign, :math:`U` a uniform double drawn exactly (:func:`_uniform_double`),
    :math:`\lfloor\cdot\rceil_\Lambda` rounding to the nearest multiple of :math:`\Lambda`, the smallest power
    of 2 :math:`\ge \lambda`, and :math:`\oplus, \otimes` double arithmetic. The noise scale is inflated so that
    the *stated* ``epsilon`` holds: :math:`\lambda` solves :func:`snapping_epsilon` :math:`= \varepsilon`, i.e.
    :math:`1/\lambda = (\varepsilon - 2\eta)/(1 + 12B\eta)` (a relative change of about :math:`10^{-15}`).

    Guarantee: :math:`\varepsilon`-DP for any neighbour relation under which ``sensitivity`` bounds the change
    of the query, *if* :math:`|f| \le` ``bound`` is public (values outside are clamped, which biases them)
    and :math:`\lambda < B < 2^{46}\lambda` (else ``ValueError``), by Mironov's theorem (Mironov 2012,
    Section 5.2). The theorem assumes a correctly rounded logarithm (crlibm); we use ``math.log`` (the C
    library's), which is accurate to within an ulp but not proven correctly rounded, so this is the
    theorem's construction, not a machine-checked proof. The outputs lie on the grid
    :math:`\Delta\Lambda\mathbb{Z}` or at :math:`\pm` ``bound``. Notebook 10.
    """
    value = check_finite("value", value)
    sensitivity = check_positive("sensitivity", sensitivity)
    epsilon = check_epsilon(epsilon)
    if epsilon <= 4 * _ETA:
        raise ValueError(f"epsilon must be > 2**-51 for the snapping mechanism, got {epsilon!r}")
    bound_units = check_positive("bound", bound) / sensitivity
    rng = check_rng(rng)
    lam = (1 + 12 * bound_units * _ETA) / (epsilon - 2 * _ETA)
    lam = math.nextafter(lam, math.inf)  # round the scale up: the guarantee then holds despite this division
    snapping_epsilon(1 / lam, 1.0, bound_units)  # checks lambda < B < 2**46 lambda
    mantissa, exponent = math.frexp(lam)
    grid = lam if mantissa == 0.5 else math.ldexp(1.0, exponent)
    sign = 1.0 if rng.integers(0, 2) else -1.0
    noisy = min(max(value / sensitivity, -bound_units), bound_units) + sign * lam * math.log(_uniform_double(rng))
    snapped = round(noisy / grid) * grid
    return sensitivity * min(max(snapped, -bound_units), bound_units)


# ------------------------------------------------------------------------------ the floating-point attack
_NUMPY_UNIT = 1.0 / 9007199254740992.0  # numpy's next_double: (raw >> 11) * 2**-53


def _numpy_laplace_output(k: int, value: float, scale: float) -> float:
    """What :func:`laplace_mech` returns when numpy's uniform draw is ``k / 2**53`` (``1 <= k < 2**53``):
    the same double operations, in the same order, as numpy's ``random_laplace`` followed by ``value + noise``."""
    u = k * _NUMPY_UNIT
    noise = 0.0 - scale * math.log(2.0 - u - u) if u >= 0.5 else 0.0 + scale * math.log(u + u)
    return float(value) + noise


def _is_numpy_laplace_output(y: float, value: float, scale: float) -> bool:
    """Whether some uniform draw makes :func:`laplace_mech` at ``value`` return exactly ``y``.

    The output is non-decreasing in ``k`` (each step is a monotone rounding of a monotone function), so
    bisection finds the smallest ``k`` whose output is ``>= y`` in 53 steps; ``y`` is possible iff it equals it.
    """
    lo, hi = 0, 2**53 - 1  # output(hi) is the largest; "lo" stands for below every output
    if _numpy_laplace_output(hi, value, scale) < y:
        return False
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if _numpy_laplace_output(mid, value, scale) >= y:
            hi = mid
        else:
            lo = mid
    return _numpy_laplace_output(hi, value, scale) == y


def textbook_laplace_impossible_fraction(
    value: float, neighbour_value: float, scale: float, n_draws: int, rng: np.random.Generator
) -> float:
    r"""The share of :func:`laplace_mech`'s outputs at ``value`` that it can *never* output at
    ``neighbour_value`` (same ``scale``): seeing one of them tells the two datasets apart with certainty,
    a privacy loss of :math:`\infty` (Mironov 2012's attack on the textbook sampler).

    numpy's ``Generator.laplace`` draws :math:`U = k/2^{53}` (:math:`1 \le k < 2^{53}`, ``0`` redrawn) and
    returns :math:`-b \ln(2 - U - U)` if :math:`U \ge 1/2`, else :math:`b \ln(U + U)`, in doubles;
    :func:`laplace_mech` then adds the value. :func:`_numpy_laplace_output` replays this bit for bit (a test
    checks it against numpy), and since the output rises with :math:`k`, whether a given double is a
    possible output at the neighbour is decided *exactly* by bisection over the :math:`2^{53}` draws.

    What is **not** exact: the share is averaged over ``n_draws`` outputs drawn from ``rng`` (a Monte Carlo
    estimate with standard error :math:`\le 0.5/\sqrt{n}`). An exact sum over all :math:`2^{53}` draws, or
    over the distinct outputs, is out of reach (about :math:`10^{15}` cases). Assumes the C library's
    ``log`` (used by numpy and by ``math.log``) is monotone. Notebook 10.
    """
    value, neighbour_value = check_finite("value", value), check_finite("neighbour_value", neighbour_value)
    scale = check_positive("scale", scale)
    n_draws = check_int("n_draws", n_draws, 1)
    rng = check_rng(rng)
    outputs = float(value) + rng.laplace(0.0, scale, size=n_draws)
    impossible = sum(not _is_numpy_laplace_output(float(y), neighbour_value, scale) for y in outputs)
    return impossible / n_draws
