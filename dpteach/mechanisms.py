"""The Laplace mechanism, percent error, and the input checks every mechanism in ``dpteach`` shares.

Taught in notebook 03 (``notebooks/03_local_sensitivity_frameworks.ipynb``), where every framework
for local sensitivity is compared with the global-sensitivity mean :func:`sum_count_mean`.
"""

from __future__ import annotations

import math
from numbers import Real

import numpy as np
from numpy.typing import ArrayLike

from dpteach.queries import check_data


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
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(f"{name} must be a real number > 0, got {type(value).__name__}")
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a finite number > 0, got {value!r}")
    return float(value)


def check_epsilon(epsilon: float) -> float:
    r"""Return :math:`\varepsilon` as a float; it must be finite and :math:`> 0`."""
    return check_positive("epsilon", epsilon)


def check_delta(delta: float) -> float:
    r"""Return :math:`\delta` as a float; it must lie in the open interval :math:`(0, 1)`."""
    if isinstance(delta, bool) or not isinstance(delta, Real):
        raise TypeError(f"delta must be a real number in (0, 1), got {type(delta).__name__}")
    if not 0 < delta < 1:
        raise ValueError(f"delta must be in (0, 1), got {delta!r}")
    return float(delta)


def check_sensitivity(sensitivity: float) -> float:
    """Return the sensitivity as a float; it must be finite and ``>= 0``."""
    if isinstance(sensitivity, bool) or not isinstance(sensitivity, Real):
        raise TypeError(f"sensitivity must be a real number >= 0, got {type(sensitivity).__name__}")
    if not math.isfinite(sensitivity) or sensitivity < 0:
        raise ValueError(f"sensitivity must be a finite number >= 0, got {sensitivity!r}")
    return float(sensitivity)


def check_bounds(lower: float, upper: float) -> tuple[float, float]:
    """Return ``(lower, upper)`` as floats; both finite with ``lower < upper``."""
    for name, value in (("lower", lower), ("upper", upper)):
        if isinstance(value, bool) or not isinstance(value, Real):
            raise TypeError(f"{name} must be a real number, got {type(value).__name__}")
        if not math.isfinite(value):
            raise ValueError(f"{name} must be finite, got {value!r}")
    if not lower < upper:
        raise ValueError(f"lower must be < upper, got lower={lower!r}, upper={upper!r}")
    return float(lower), float(upper)


def laplace_mech(
    value: float, sensitivity: float, epsilon: float, rng: np.random.Generator | None = None
) -> float:
    r"""Release ``value`` + :math:`\mathrm{Lap}(\Delta / \varepsilon)`.

    :math:`\varepsilon`-DP for any neighbour relation under which ``sensitivity`` bounds the global
    sensitivity :math:`\Delta` of the query that produced ``value``. ``rng=None`` uses a fresh unseeded
    generator. Notebook 03.
    """
    if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(value):
        raise ValueError(f"value must be a finite real number, got {value!r}")
    scale = check_sensitivity(sensitivity) / check_epsilon(epsilon)
    return float(value) + float(check_rng(rng).laplace(0.0, scale))


def pct_error(true: float, private: float | None) -> float:
    r"""Percent error :math:`100 \cdot |t - p| / |t|` of a private answer ``p`` against the truth ``t``.

    ``private`` is None when propose-test-release refused (⊥): filter those runs out first. Notebook 03.
    """
    if private is None:
        raise TypeError("private is None (the mechanism returned ⊥); drop refused runs before scoring them")
    for name, number in (("true", true), ("private", private)):
        if isinstance(number, bool) or not isinstance(number, Real):
            raise TypeError(f"{name} must be a real number, got {type(number).__name__}")
    if not math.isfinite(true) or true == 0:
        raise ValueError(f"true must be a finite non-zero number, got {true!r}")
    if not math.isfinite(private):
        raise ValueError(f"private must be a finite number, got {private!r}")
    return abs(true - private) / abs(true) * 100.0


def sum_count_mean(
    data: ArrayLike, lower: float, upper: float, epsilon: float, rng: np.random.Generator | None = None
) -> float:
    r"""The global-sensitivity mean: noisy sum over noisy count of the data clipped to ``[lower, upper]``.

    Spends :math:`\varepsilon/2` on the sum (sensitivity :math:`\max(|l|, |u|)`) and :math:`\varepsilon/2`
    on the count (sensitivity 1): :math:`\varepsilon`-DP under add/remove-one neighbours. Notebook 03.
    """
    lower, upper = check_bounds(lower, upper)
    clipped = np.clip(check_data(data), lower, upper)
    half = check_epsilon(epsilon) / 2
    rng = check_rng(rng)
    noisy_sum = laplace_mech(float(clipped.sum()), max(abs(lower), abs(upper)), half, rng)
    noisy_count = laplace_mech(float(clipped.size), 1.0, half, rng)
    return noisy_sum / noisy_count
