"""The exercises of appendix A3 (what the mean's bound costs): the right answers and the mistakes each one must
catch."""

from __future__ import annotations

import math
from functools import cache

import numpy as np

from dpteach import datasets, ptr, smooth
from dpteach.exercises.core import Exercise, Mistake, Number, Scale, register

EPSILON = 1.0
PUBLIC_SIZE = 48_842                 # the public size bound N of the Adult data; delta = 1/N^2

# --- Exercise 1: sum/count on years of education against the smoothed bound -------------------------------------

YEARS_LOWER, YEARS_UPPER, YEARS_GUESS = 0, 20, 10  # Education-Num clipped to [0, 20]; a public guess of its mean


@cache
def _years() -> np.ndarray:
    return datasets.load_adult()["Education-Num"].to_numpy()


def rule_share(power: float = 2 / 3, swapped: bool = False) -> float:
    """The share of epsilon for the sum, u^p / (u^p + guess^p), to 2 decimals (lesson 05's rule at p = 2/3);
    ``swapped`` gives the count's share instead."""
    top, guess = YEARS_UPPER**power, YEARS_GUESS**power
    return round((guess if swapped else top) / (top + guess), 2)


def sd_ratio(share: float, factor: float = 2.0, *, guess_as_mean: bool = False, bound_upper: float = YEARS_UPPER,
             sum_upper: float = YEARS_UPPER, ages_mean: bool = False) -> float:
    """Sum/count's first-order noise sd at ``share`` (the column's own mean and size) over the sd of
    Lap(factor S_n/epsilon), S_n the smoothed bound (u - l)/max(n - k, 1) over every k at delta = 1/N^2.
    ``guess_as_mean`` puts the public guess in place of the column's mean, ``bound_upper`` and ``sum_upper`` the u
    of the bound and of the sum (slips: the ages' 100 reused, or sd_sum_count's default top kept), ``ages_mean``
    the ages' mean in place of the column's (the slip of keeping sd_sum_count's default data_mean)."""
    years = _years()
    n = years.size
    beta = smooth.laplace_beta(EPSILON, 1 / PUBLIC_SIZE**2)
    curve = ptr.mean_ls_at_distance(n, np.arange(n + 1), YEARS_LOWER, bound_upper)
    sd_bound = math.sqrt(2) * factor * smooth.smooth_sensitivity_of_curve(curve, beta) / EPSILON
    mean = YEARS_GUESS if guess_as_mean else years.mean()
    mean = datasets.load_adult()["Age"].mean() if ages_mean else mean
    sd_sum_count = math.sqrt(2) / n * math.hypot(sum_upper / share, mean / (EPSILON - share))
    return sd_sum_count / sd_bound


def answer_1(power: float = 2 / 3, swapped: bool = False, factor: float = 2.0) -> tuple[float, float]:
    share = rule_share(power, swapped)
    return share, sd_ratio(share, factor)


# --- Exercise 2: the cap S_bar on the first twenty ages -----------------------------------------------------------

TWENTY, LOWER, UPPER, BETA_2 = 20, 0, 100, 0.1


@cache
def _twenty() -> np.ndarray:
    return datasets.load_adult()["Age"].to_numpy()[:TWENTY]


def cap_variant(*, capped: bool = True, drift: bool = True, shift: int = 1, last: int = TWENTY,
                mean_as_top: bool = False) -> float:
    """max over k = 0..last of e^(-beta k) C_k with C_k = min(u - l, (M + k w/(n - k))/(n - k - shift)) (w = u - l
    once n - k - shift <= 0); ``capped=False`` drops the min with u - l, ``drift=False`` drops k w/(n - k),
    ``mean_as_top`` puts the mean in place of M(mean)."""
    data, width = _twenty(), UPPER - LOWER
    n, top = data.size, max(data.mean() - LOWER, UPPER - data.mean())
    top = data.mean() if mean_as_top else top
    caps = []
    for k in range(last + 1):
        if n - k - shift <= 0:
            caps.append(width)
            continue
        value = (top + (k * width / (n - k) if drift else 0)) / (n - k - shift)
        caps.append(min(width, value) if capped else value)
    return smooth.smooth_sensitivity_of_curve(caps, BETA_2)


def cap_truth() -> float:
    return smooth.smooth_mean_cap(_twenty(), LOWER, UPPER, BETA_2)


register(
    Exercise(
        "A3.1", "sum/count on years of education",
        (Number(lambda: answer_1()[0]), Number(lambda: answer_1()[1], decimals=3)),
        (Mistake((0.5, sd_ratio(0.5)),
                 "that is an even split; lesson 05's rule gives the sum the share u^(2/3) / (u^(2/3) + guess^(2/3))"),
         Mistake(answer_1(swapped=True),
                 "that share belongs to the count: the sum, whose sensitivity u is the larger, gets "
                 "u^(2/3) / (u^(2/3) + guess^(2/3))"),
         Mistake(answer_1(power=1 / 2),
                 "the exponent of the rule is 2/3, not 1/2: it minimises (u/ε_sum)² + (mean/ε_count)²"),
         Mistake(answer_1(power=1),
                 "the exponent of the rule is 2/3, not 1: it minimises (u/ε_sum)² + (mean/ε_count)²"),
         Mistake(answer_1(factor=1.0),
                 "the smoothed bound's noise is Lap(2 S_n/ε): its sd is √2 · 2 S_n/ε, with the factor 2"),
         Mistake((rule_share(), 1 / sd_ratio(rule_share())),
                 "that ratio is the smoothed bound's sd over sum/count's; the question divides the other way"),
         Mistake((rule_share(), sd_ratio(rule_share(), guess_as_mean=True)),
                 "the guess 10 only chooses the split; sum/count's noise depends on the column's own mean, "
                 "years.mean(), passed as data_mean"),
         Mistake((rule_share(), sd_ratio(rule_share(), bound_upper=100)),
                 "the smoothed bound is for the years' own [l, u] = [0, 20], not the ages' [0, 100]"),
         Mistake((rule_share(), sd_ratio(rule_share(), sum_upper=100)),
                 "sd_sum_count's top is the ages' u = 100 unless you pass top=20, the years' u"),
         Mistake((rule_share(), sd_ratio(rule_share(), ages_mean=True)),
                 "sd_sum_count's data_mean is the ages' mean unless you pass data_mean=years.mean()"),
         Mistake((rule_share(), sd_ratio(rule_share(), ages_mean=True, sum_upper=100)),
                 "sd_sum_count's defaults are the ages': pass data_mean=years.mean() and top=20")),
    ),
    Exercise(
        "A3.2", "the cap on twenty ages",
        (Scale(cap_truth, decimals=3),),
        (Mistake(cap_variant(capped=False),
                 "a cap on a local sensitivity never needs to exceed u − l: take the minimum with u − l"),
         Mistake(cap_variant(drift=False),
                 "either the mean's drift k(u − l)/(n − k) is missing from the numerator, or that is the data-blind "
                 "S_n, which here equals the smaller of C_k and B_n(k) at each k (valid, but not the S̄ asked "
                 "for): within k steps the mean can move, and the cap must follow it"),
         Mistake(cap_variant(shift=0),
                 "two slips give this value (the cap saturates at u − l earlier): if you used the mean x̄ itself, "
                 "use M(x̄) = max(x̄ − l, u − x̄), the distance to the farther end; if your denominator is n − k, "
                 "it is n − k − 1, since removing one of n − k records divides by n − k − 1"),
         Mistake(cap_variant(last=0),
                 "that is C_0 alone; S̄ is the largest e^(−βk) C_k over every k from 0 to n")),
    ),
)
