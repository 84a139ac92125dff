r"""Empirical privacy audits: look for outputs that a mechanism makes too likely on one of two neighbours.

A mechanism :math:`M` is :math:`(\varepsilon, \delta)`-DP when, for all neighbouring datasets :math:`x, x'`
and every set of outputs :math:`S`,

.. math:: P[M(x) \in S] \le e^{\varepsilon} P[M(x') \in S] + \delta .

:func:`audit` runs :math:`M` many times on one pair :math:`(x, x')`, sorts the outputs into bins (⊥, a refusal,
is its own outcome), and checks that inequality on a family of events :math:`S` in both directions. It reports
a *lower confidence bound* on the largest violation and on the smallest :math:`\varepsilon` the pair allows.
Notebook 05.

**How it decides.** A pilot run (independent samples) fixes the bin edges at pooled quantiles of the released
values; an exact value that recurs often (an atom) gets a bin of its own. The events are every single bin,
⊥, every prefix and every suffix of the ordered bins (the tails, where Laplace noise of the wrong scale
shows). On fresh samples, with :math:`N` runs per dataset, each probability gets a one-sided Chernoff (KL)
bound: with :math:`\hat p = k/N` and :math:`L = \ln(4m/\alpha)` for :math:`m` events,

.. math:: p_{lo} = \min\{p \le \hat p : N\,\mathrm{kl}(\hat p, p) \le L\}, \qquad
          q_{hi} = \max\{q \ge \hat q : N\,\mathrm{kl}(\hat q, q) \le L\},

where :math:`\mathrm{kl}` is the Bernoulli relative entropy. Each of the :math:`4m` bounds fails with
probability at most :math:`e^{-L} = \alpha/(4m)`, so all hold at once with probability :math:`\ge 1-\alpha`
(Bonferroni). The audit *fails* the mechanism when some event and direction has

.. math:: p_{lo} - e^{\varepsilon} q_{hi} - \delta > 0,

and reports :math:`\hat\varepsilon = \max \ln\bigl((p_{lo} - \delta)/q_{hi}\bigr)` over events with
:math:`p_{lo} > \delta` (0 if none).

**Guarantee.** If :math:`M` satisfies the inequality on this pair for every event (in particular if it is
:math:`(\varepsilon, \delta)`-DP), the audit passes with probability at least :math:`1 - \alpha` (default
:math:`10^{-6}`), and :math:`\hat\varepsilon` is then at most the smallest :math:`\varepsilon` for which the
pair satisfies the inequality: :math:`\hat\varepsilon` is a lower confidence bound on the privacy loss.

**Power.** A violation :math:`v = p - e^{\varepsilon} q - \delta` on one of the events is found once it
exceeds the confidence widths, roughly :math:`\sqrt{2pL/N} + e^{\varepsilon}\sqrt{2qL/N}` plus
:math:`e^{\varepsilon}L/N` (with :math:`N = 50\,000` and :math:`L \approx 20`: about 0.006 for
:math:`p \approx 0.05`).

**Limits.** An audit can find violations, never prove privacy. It tests one pair (the worst case must be
chosen by hand), one family of events built from quantile bins (a leak confined to a tiny set of outputs, or
a :math:`\delta`-sized leak below the widths above, goes unseen), and only the floating-point sampler it runs:
it cannot see the least-significant-bit leaks of textbook Laplace sampling (Mironov 2012).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from numbers import Real

import numpy as np
from numpy.typing import ArrayLike

from dpteach.mechanisms import check_epsilon, laplace_mech, sum_count_mean
from dpteach.ptr import ptr_mean, ptr_mean_book
from dpteach.queries import check_data, check_int
from dpteach.saa import sample_and_aggregate
from dpteach.sensitivity import local_sensitivity
from dpteach.smooth import smooth_median_release

Sampler = Callable[[np.ndarray, int, np.random.Generator], np.ndarray]
"""``sampler(data, n, rng)``: ``n`` independent outputs of the mechanism on ``data``, NaN for ⊥."""

Release = Callable[[np.ndarray, np.random.Generator], object]
"""``release(data, rng)``: one run; a number, None (⊥) or a release object with a ``value`` attribute."""

_BISECTION_STEPS = 60


# --------------------------------------------------------------------------------------------- checks
def _check_probability(name: str, value: object, *, closed_low: bool) -> float:
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}")
    low_ok = value >= 0 if closed_low else value > 0
    if not (low_ok and value < 1):
        interval = "[0, 1)" if closed_low else "(0, 1)"
        raise ValueError(f"{name} must lie in {interval}, got {value!r}")
    return float(value)


# --------------------------------------------------------------------------------------------- bounds
def _kl(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Bernoulli relative entropy kl(p, q), with 0 ln 0 = 0 (``q`` strictly inside (0, 1))."""
    with np.errstate(divide="ignore", invalid="ignore"):
        first = np.where(p > 0, p * np.log(p / q), 0.0)
        second = np.where(p < 1, (1 - p) * np.log((1 - p) / (1 - q)), 0.0)
    return first + second


def kl_bounds(counts: ArrayLike, n: int, log_level: float) -> tuple[np.ndarray, np.ndarray]:
    r"""Chernoff (KL) confidence bounds on binomial proportions: ``(lower, upper)`` for each count.

    For :math:`k` successes in :math:`n` trials and :math:`L` = ``log_level``, ``lower`` is the smallest
    :math:`p \le k/n` with :math:`n\,\mathrm{kl}(k/n, p) \le L` and ``upper`` the largest such
    :math:`p \ge k/n`; each one-sided bound fails with probability at most :math:`e^{-L}`. Found by
    bisection, rounded outwards. Notebook 05.
    """
    n = check_int("n", n, 1)
    phat = check_data(counts, "counts") / n
    if (phat < 0).any() or (phat > 1).any():
        raise ValueError(f"counts must lie in [0, n={n}]")
    if isinstance(log_level, bool) or not isinstance(log_level, Real):
        raise TypeError(f"log_level must be a real number, got {type(log_level).__name__}")
    if not 0 < log_level < math.inf:
        raise ValueError(f"log_level must be a finite number > 0, got {log_level!r}")
    budget = log_level / n
    lower = np.zeros_like(phat), phat.copy()  # (outside, inside) the confidence set
    upper = phat.copy(), np.ones_like(phat)
    for _ in range(_BISECTION_STEPS):
        mid = (lower[0] + lower[1]) / 2
        inside = _kl(phat, np.clip(mid, 1e-300, 1 - 1e-16)) <= budget
        lower = np.where(inside, lower[0], mid), np.where(inside, mid, lower[1])
        mid = (upper[0] + upper[1]) / 2
        inside = _kl(phat, np.clip(mid, 1e-300, 1 - 1e-16)) <= budget
        upper = np.where(inside, mid, upper[0]), np.where(inside, upper[1], mid)
    return np.where(phat > 0, lower[0], 0.0), np.where(phat < 1, upper[1], 1.0)


# --------------------------------------------------------------------------------------------- events
def _bin_index(outputs: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Bin ``i`` holds outputs in ``(edges[i-1], edges[i]]``; the last index, ``edges.size + 1``, is ⊥."""
    index = np.searchsorted(edges, outputs, side="left")
    return np.where(np.isnan(outputs), edges.size + 1, index)


def _edges(released: np.ndarray, n_bins: int) -> np.ndarray:
    """Bin edges at pooled quantiles; the (at most ``n_bins``) most frequent values seen at least 10 times,
    the atoms, also get a bin of their own, so a rare but telling exact output is not averaged away."""
    if released.size == 0:
        return np.array([])
    values, counts = np.unique(released, return_counts=True)
    frequent = np.argsort(-counts, kind="stable")[:n_bins]
    atoms = values[frequent[counts[frequent] >= 10]]
    quantiles = np.quantile(released, np.linspace(0, 1, n_bins + 1)[1:-1])
    return np.unique(np.concatenate([quantiles, atoms, np.nextafter(atoms, -np.inf)]))


def _events(edges: np.ndarray) -> tuple[np.ndarray, list[str]]:
    """Single bins, ⊥, and every prefix and suffix of the ordered value bins, as a boolean matrix."""
    n_bins = edges.size + 1
    bounds = np.concatenate(([-np.inf], edges, [np.inf]))
    rows, names = [], []

    def add(members: np.ndarray, name: str) -> None:
        row = np.zeros(n_bins + 1, dtype=bool)
        row[members] = True
        rows.append(row)
        names.append(name)

    for i in range(n_bins):
        add(np.array([i]), f"output in ({bounds[i]:.4g}, {bounds[i + 1]:.4g}]")
    add(np.array([n_bins]), "⊥ (refused)")
    add(np.arange(n_bins), "released (not ⊥)")
    for j in range(1, n_bins):
        add(np.arange(j), f"output <= {bounds[j]:.4g}")
        add(np.arange(j, n_bins), f"output > {bounds[j]:.4g}")
    return np.array(rows), names


# --------------------------------------------------------------------------------------------- audit
@dataclass(frozen=True)
class AuditResult:
    r"""Outcome of :func:`audit` on one pair of neighbours.

    ``violation`` is the lower confidence bound on :math:`\max_S (P[M(a) \in S] - e^\varepsilon P[M(b) \in S]
    - \delta)` over the events and both directions :math:`(a, b)`; the mechanism ``passed`` when it is
    :math:`\le 0`. ``epsilon_lower`` is :math:`\hat\varepsilon`. ``worst_event`` and ``direction`` name the
    event with the largest violation bound if the audit fails, otherwise the one that gives
    :math:`\hat\varepsilon`, with its plain frequencies ``p_hat`` (on :math:`a`) and ``q_hat`` (on :math:`b`).
    ``refusals`` is the fraction of ⊥ on :math:`x` and on :math:`x'`.
    """

    epsilon: float
    delta: float
    n_samples: int
    n_events: int
    alpha: float
    violation: float
    epsilon_lower: float
    worst_event: str
    direction: str
    p_hat: float
    q_hat: float
    refusals: tuple[float, float]

    @property
    def passed(self) -> bool:
        return self.violation <= 0

    def summary(self) -> dict[str, object]:
        """One row for a results table (numbers rounded for display)."""
        return {
            "claimed ε": self.epsilon,
            "claimed δ": self.delta,
            "ε lower bound": round(self.epsilon_lower, 2),
            "violation bound": round(self.violation, 4),
            "verdict": "pass" if self.passed else "FAIL",
            "worst event": f"{self.worst_event} ({self.direction})",
            "runs per dataset": self.n_samples,
        }


def audit(
    mechanism: Sampler,
    x: ArrayLike,
    x_prime: ArrayLike,
    epsilon: float,
    delta: float = 0.0,
    *,
    n_samples: int = 50_000,
    n_bins: int = 40,
    alpha: float = 1e-6,
    seed: int = 0,
) -> AuditResult:
    r"""Audit ``mechanism`` for :math:`(\varepsilon, \delta)`-DP on the neighbours ``x`` and ``x_prime``.

    ``mechanism(data, n, rng)`` returns ``n`` outputs (NaN for ⊥); wrap a one-shot release with
    :func:`repeat`. It runs ``n_samples // 5`` pilot times per dataset to place ``n_bins`` quantile bins,
    then ``n_samples`` times per dataset for the test. Everything is drawn from generators seeded by ``seed``,
    so an audit is reproducible. False alarms on a mechanism that is private on this pair have probability
    at most ``alpha``; see the module documentation for the power and the limits. Notebook 05.
    """
    if not callable(mechanism):
        raise TypeError(f"mechanism must be a callable sampler(data, n, rng), got {type(mechanism).__name__}")
    data = check_data(x, "x"), check_data(x_prime, "x_prime")
    epsilon = check_epsilon(epsilon)
    delta = _check_probability("delta", delta, closed_low=True)
    n_samples = check_int("n_samples", n_samples, 100)
    n_bins = check_int("n_bins", n_bins, 1)
    alpha = _check_probability("alpha", alpha, closed_low=False)
    seed = check_int("seed", seed, 0)
    streams = [np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(4)]

    def run(which: int, n: int, rng: np.random.Generator) -> np.ndarray:
        outputs = np.asarray(mechanism(data[which], n, rng), dtype=float)
        if outputs.shape != (n,):
            raise ValueError(f"mechanism must return {n} outputs, got an array of shape {outputs.shape}")
        return outputs

    pilot = np.concatenate([run(0, n_samples // 5, streams[0]), run(1, n_samples // 5, streams[1])])
    released = pilot[~np.isnan(pilot)]
    edges = _edges(released, n_bins)
    membership, names = _events(edges)
    counts = [membership.astype(np.int64) @ np.bincount(_bin_index(run(i, n_samples, streams[2 + i]), edges),
                                                        minlength=membership.shape[1])
              for i in (0, 1)]
    log_level = math.log(4 * len(names) / alpha)
    (lo_x, hi_x), (lo_y, hi_y) = (kl_bounds(c, n_samples, log_level) for c in counts)
    scale = math.exp(epsilon)
    candidates = []
    for label, p_lo, q_hi, p_count, q_count in (("x vs x'", lo_x, hi_y, *counts),
                                                ("x' vs x", lo_y, hi_x, *counts[::-1])):
        gaps = p_lo - scale * q_hi - delta
        best = int(np.argmax(gaps))
        with np.errstate(divide="ignore"):
            ratios = np.where(p_lo > delta, np.log(np.maximum(p_lo - delta, 0) / q_hi), 0.0)
        # Report the most violating event if there is a violation, else the one that gives ε̂.
        shown = best if gaps[best] > 0 else int(np.argmax(ratios))
        candidates.append((float(gaps[best]), float(ratios.max()), names[shown], label,
                           p_count[shown] / n_samples, q_count[shown] / n_samples))
    violation, _, event, direction, p_hat, q_hat = max(candidates)
    if violation <= 0:
        _, revealing, event, direction, p_hat, q_hat = max(candidates, key=lambda c: c[1])
        if revealing == 0:
            event, p_hat, q_hat = f"none (no event has a lower bound above δ = {delta:g})", math.nan, math.nan
    bottom = names.index("⊥ (refused)")
    return AuditResult(
        epsilon=epsilon, delta=delta, n_samples=n_samples, n_events=len(names), alpha=alpha,
        violation=violation, epsilon_lower=max(0.0, *(c[1] for c in candidates)), worst_event=event,
        direction=direction, p_hat=p_hat, q_hat=q_hat,
        refusals=(counts[0][bottom] / n_samples, counts[1][bottom] / n_samples),
    )


def repeat(release: Release) -> Sampler:
    """Turn a one-shot ``release(data, rng)`` into a sampler that calls it ``n`` times (a plain loop).

    The result may be a number, None (⊥) or an object with a ``value`` attribute (``PTRRelease``,
    ``SmoothRelease``, ``SAARelease``) whose ``value`` is used. Notebook 05.
    """
    if not callable(release):
        raise TypeError(f"release must be a callable release(data, rng), got {type(release).__name__}")

    def sampler(data: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
        outputs = np.empty(n)
        for i in range(n):
            result = release(data, rng)
            result = getattr(result, "value", result)
            outputs[i] = np.nan if result is None else float(result)
        return outputs

    return sampler


# --------------------------------------------------------------------------------------------- the audits
LOWER, UPPER = 0.0, 100.0
"""Every audited dataset holds values in ``[LOWER, UPPER]``."""

MEDIAN_UNIVERSE = (1.0, 2.0, 3.0, 10.0, 11.0)
"""The universe of notebook 02's median table."""


def _laplace_sum(data: np.ndarray, rng: np.random.Generator) -> float:
    return laplace_mech(float(np.clip(data, LOWER, UPPER).sum()), max(abs(LOWER), abs(UPPER)), 1.0, rng)


def _laplace_count(data: np.ndarray, rng: np.random.Generator) -> float:
    return laplace_mech(float(data.size), 1.0, 1.0, rng)


def _laplace_mean(data: np.ndarray, rng: np.random.Generator) -> float:
    return sum_count_mean(data, LOWER, UPPER, 1.0, rng)


def laplace_on_local_sensitivity(data: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    r"""The mistake of notebook 02: median + :math:`\mathrm{Lap}(LS(x)/\varepsilon)`, :math:`\varepsilon = 1`,
    with :math:`LS` the bounded local sensitivity in :data:`MEDIAN_UNIVERSE`. A sampler for :func:`audit`.
    """
    scale = local_sensitivity(data, MEDIAN_UNIVERSE, "median", relation="bounded") / 1.0
    return float(np.median(data)) + rng.laplace(0.0, scale, size=n)


def _ptr_book(data: np.ndarray, rng: np.random.Generator) -> object:
    return ptr_mean_book(data, UPPER, 1.0, 1.0, 0.01, rng)


def _ptr_corrected(data: np.ndarray, rng: np.random.Generator) -> object:
    return ptr_mean(data, LOWER, UPPER, 1.0, 1.0, 1.0, 0.01, rng)


def _smooth_median(data: np.ndarray, rng: np.random.Generator) -> object:
    return smooth_median_release(data, LOWER, UPPER, 1.0, 1e-3, rng)


def _saa_max(data: np.ndarray, rng: np.random.Generator) -> object:
    return sample_and_aggregate(data, np.max, 4, LOWER, UPPER, 1.0, rng)


@dataclass(frozen=True)
class AuditCase:
    r"""One mechanism, a hand-picked pair of neighbours, the guarantee to test, and what theory predicts.

    ``private`` is True when the mechanism is :math:`(\varepsilon, \delta)`-DP for ``relation``, so the
    audit should pass; False when a known flaw should make it fail on this pair.
    """

    name: str
    mechanism: Sampler
    x: tuple[float, ...]
    x_prime: tuple[float, ...]
    epsilon: float
    delta: float
    relation: str
    private: bool
    n_samples: int = 50_000

    def run(self, seed: int = 0) -> AuditResult:
        """:func:`audit` this case with ``seed``."""
        return audit(self.mechanism, self.x, self.x_prime, self.epsilon, self.delta,
                     n_samples=self.n_samples, seed=seed)


_ZEROS = (0.0,) * 10
_ADD_ONE = (*_ZEROS, UPPER)

CASES: tuple[AuditCase, ...] = (
    # Laplace with the global sensitivity of a clipped sum (100), a count (1), and the mean built from both:
    # adding a record at the upper bound moves sum and count the most.
    AuditCase("Laplace, sum", repeat(_laplace_sum), _ZEROS, _ADD_ONE, 1.0, 0.0, "add/remove", True),
    AuditCase("Laplace, count", repeat(_laplace_count), _ZEROS, _ADD_ONE, 1.0, 0.0, "add/remove", True),
    AuditCase("Laplace, mean (sum/count)", repeat(_laplace_mean), _ZEROS, _ADD_ONE, 1.0, 0.0, "add/remove",
              True),
    # Notebook 02: same median 2, local sensitivities 1 and 8, so noise of scale 1 against 8.
    AuditCase("Laplace, local sensitivity", laplace_on_local_sensitivity, (1.0, 2.0, 3.0), (1.0, 2.0, 10.0),
              1.0, 0.0, "replace-one", False),
    # PTR at distance 0 from instability on both sides (b = 1 < 100/12): the release should happen with
    # probability at most delta = 1/n^2 = 0.01, and its value then tells 0 from 9.09. The book's threshold
    # passes with probability 0.035. Both are audited at the 2 epsilon they spend.
    AuditCase("PTR, book", repeat(_ptr_book), _ZEROS, _ADD_ONE, 2.0, 0.01, "add/remove", False),
    AuditCase("PTR, corrected", repeat(_ptr_corrected), _ZEROS, _ADD_ONE, 2.0, 0.01, "add/remove", True),
    # Smooth-sensitivity median: one replacement moves the median from 0 to 100.
    AuditCase("smooth-sensitivity median", repeat(_smooth_median), (0.0, 0.0, 0.0, UPPER, UPPER),
              (0.0, 0.0, UPPER, UPPER, UPPER), 1.0, 1e-3, "replace-one", True, n_samples=12_000),
    # Sample-and-aggregate of the max over 4 contiguous chunks: one replacement moves one chunk's max by 100.
    AuditCase("sample-and-aggregate", repeat(_saa_max), (0.0,) * 20, (UPPER,) + (0.0,) * 19, 1.0, 0.0,
              "replace-one", True, n_samples=20_000),
)
"""The audits of notebook 05 and ``tests/test_audit.py``."""
