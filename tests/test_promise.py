"""Tests for dpteach.promise: the arithmetic of what epsilon-DP promises (lesson 01), checked against the Laplace
densities themselves where a theorem is involved."""

import math

import numpy as np
import pytest

from dpteach.promise import group_epsilon, laplace_scale, odds_bound, posterior_bound, sequential_composition


def laplace_density(z: np.ndarray, centre: float, scale: float) -> np.ndarray:
    return np.exp(-np.abs(z - centre) / scale) / (2 * scale)


def test_laplace_scale_is_sensitivity_over_epsilon() -> None:
    assert laplace_scale(10, 1.0) == 10.0
    assert laplace_scale(10, 0.5) == 20.0
    assert laplace_scale(0, 2.0) == 0.0


def test_the_odds_bound_is_the_largest_density_ratio_of_the_laplace_mechanism() -> None:
    z = np.linspace(-60, 80, 14_001)
    epsilon, sensitivity = 0.7, 10.0
    scale = laplace_scale(sensitivity, epsilon)
    ratio = laplace_density(z, 6, scale) / laplace_density(z, 16, scale)
    assert ratio.max() == pytest.approx(odds_bound(epsilon), rel=1e-12)
    assert (1 / ratio).max() == pytest.approx(odds_bound(epsilon), rel=1e-12)


def test_posterior_bound_multiplies_odds_not_probabilities() -> None:
    assert posterior_bound(0.5, 1.0) == pytest.approx(math.e / (1 + math.e))
    assert posterior_bound(0.1, 1.0) == pytest.approx((math.e / 9) / (1 + math.e / 9))
    assert posterior_bound(0.9, 3.0) < 1.0 < 0.9 * math.exp(3.0)
    # Bayes' rule with the worst output of a Laplace mechanism gives exactly the bound
    scale, prior = laplace_scale(10, 1.0), 0.1
    worst = laplace_density(np.array([0.0]), 6, scale) / laplace_density(np.array([0.0]), 16, scale)
    odds = prior / (1 - prior) * worst[0]
    assert odds / (1 + odds) == pytest.approx(posterior_bound(prior, 1.0), rel=1e-12)


def test_sequential_composition_adds_epsilons_and_deltas() -> None:
    assert sequential_composition([0.5, 0.25]) == (0.75, 0.0)
    assert sequential_composition([(1.0, 1e-6), 0.5, (0.5, 1e-6)]) == pytest.approx((2.0, 2e-6))
    # two independent Laplace releases of the same sum: the joint density ratio reaches e^(eps1 + eps2)
    z = np.linspace(-100, 120, 2_201)
    first, second = (laplace_density(z, 6, laplace_scale(10, e)) / laplace_density(z, 16, laplace_scale(10, e))
                     for e in (0.5, 0.25))
    assert (first[:, None] * second[None, :]).max() == pytest.approx(odds_bound(0.75), rel=1e-12)


def test_group_epsilon_is_k_times_epsilon_and_matches_a_pair_at_distance_k() -> None:
    assert group_epsilon(0.5, 3) == 1.5
    # sums 6 and 26 differ by two records of 10 (distance 2): noise for one record gives a loss up to 2 eps
    z = np.linspace(-60, 90, 15_001)
    scale = laplace_scale(10, 0.5)
    loss = np.log(laplace_density(z, 6, scale) / laplace_density(z, 26, scale))
    assert np.abs(loss).max() == pytest.approx(group_epsilon(0.5, 2), rel=1e-12)


@pytest.mark.parametrize(("call", "error", "message"), [
    (lambda: laplace_scale(-1, 1.0), ValueError, "sensitivity"),
    (lambda: laplace_scale(1, 0), ValueError, "epsilon"),
    (lambda: odds_bound(float("nan")), ValueError, "epsilon"),
    (lambda: odds_bound(800), ValueError, "700"),
    (lambda: posterior_bound(1.0, 1.0), ValueError, "prior"),
    (lambda: posterior_bound("half", 1.0), TypeError, "prior"),
    (lambda: sequential_composition([]), ValueError, "non-empty"),
    (lambda: sequential_composition("0.5"), ValueError, "sequence"),
    (lambda: sequential_composition([(0.5, 1.0)]), ValueError, "delta"),
    (lambda: sequential_composition([-0.5]), ValueError, "epsilon"),
    (lambda: group_epsilon(0.5, 0), ValueError, "k"),
    (lambda: group_epsilon(0.5, 2.0), TypeError, "k"),
])
def test_bad_input_is_refused_naming_the_parameter(call, error, message) -> None:
    with pytest.raises(error, match=message):
        call()
