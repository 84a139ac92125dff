r"""Sample-and-aggregate: run any statistic on disjoint chunks, clip, and release a noisy mean.

:math:`A = \frac{1}{c}\sum_{i=1}^{c} \mathrm{clip}(f(x_i), l, u)
+ \mathrm{Lap}\bigl(\tfrac{u-l}{c\,\varepsilon}\bigr)` with :math:`c` the number of chunks actually formed.
Notebook 03.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from dpteach.mechanisms import check_bounds, check_epsilon, check_rng, laplace_mech
from dpteach.queries import check_data, check_int


@dataclass(frozen=True)
class SAARelease:
    """A sample-and-aggregate release: the noisy value, the number of chunks, the noise scale, epsilon."""

    value: float
    n_chunks: int
    scale: float
    epsilon: float


def _check_k(n: int, k: int) -> None:
    check_int("k", k, 1, check_int("n", n, 1), high_label=f"len(data) = {n}")


def contiguous_layout(n: int, k: int) -> tuple[int, int]:
    r"""Chunk size :math:`s = \lceil n/k \rceil` and the number of chunks :math:`\lceil n/s \rceil \le k`
    that slicing :math:`n` rows into pieces of :math:`s` forms (593 for :math:`n = 32561, k = 600`).

    Notebook 03.
    """
    _check_k(n, k)
    size = math.ceil(n / k)
    return size, math.ceil(n / size)


def _chunks(
    values: np.ndarray, k: int, chunking: str, rng: np.random.Generator
) -> list[np.ndarray]:
    if chunking == "contiguous":
        size, count = contiguous_layout(values.size, k)
        return [values[i * size:(i + 1) * size] for i in range(count)]
    if chunking == "shuffled":
        _check_k(values.size, k)
        labels = rng.integers(0, k, size=values.size)
        order = np.argsort(labels, kind="stable")
        return np.split(values[order], np.searchsorted(labels[order], np.arange(1, k)))
    raise ValueError(f"chunking must be 'contiguous' or 'shuffled', got {chunking!r}")


def sample_and_aggregate(
    data: ArrayLike, f: Callable[[np.ndarray], float], k: int, lower: float, upper: float,
    epsilon: float, rng: np.random.Generator | None = None,
    chunking: Literal["contiguous", "shuffled"] = "contiguous",
) -> SAARelease:
    r"""Noisy mean of :math:`\mathrm{clip}(f(x_i), l, u)` over the chunks :math:`x_i`, noise
    :math:`\mathrm{Lap}((u-l)/(c\varepsilon))` for the :math:`c` chunks formed.

    ``chunking="contiguous"`` (the book): slices of :math:`\lceil n/k \rceil` rows in data order,
    :math:`c \le k`. :math:`\varepsilon`-DP under **replace-one** neighbours only (size public): one
    inserted record shifts every later chunk, so there is no add/remove guarantee.

    ``chunking="shuffled"``: every record gets its own uniform chunk label in :math:`\{0..k-1\}` from
    ``rng``, independent of the data, so :math:`c = k` and adding, removing or replacing one record
    changes one chunk: :math:`\varepsilon`-DP under add/remove-one (and replace-one). An empty chunk
    answers the midpoint :math:`(l+u)/2`.
    """
    if not callable(f):
        raise TypeError(f"f must be a callable taking a 1-D array, got {type(f).__name__}")
    lower, upper = check_bounds(lower, upper)
    epsilon = check_epsilon(epsilon)
    rng = check_rng(rng)
    midpoint = (lower + upper) / 2
    answers = np.array([f(chunk) if chunk.size else midpoint
                        for chunk in _chunks(check_data(data), k, chunking, rng)], dtype=float)
    if not np.isfinite(answers).all():
        raise ValueError("f must return a finite number on every chunk")
    count = answers.size
    scale = (upper - lower) / (count * epsilon)
    value = laplace_mech(float(np.clip(answers, lower, upper).mean()), (upper - lower) / count, epsilon, rng)
    return SAARelease(value, count, scale, epsilon)
