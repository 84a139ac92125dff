"""Tests for dpteach.mechanisms: the Laplace mechanism, percent error and the shared input checks."""

import math

import numpy as np
import pytest

from dpteach.mechanisms import analytic_gaussian_sigma, check_data, check_delta, laplace_mech, pct_error, sum_count_mean


def test_laplace_mech_is_reproducible_with_a_seeded_generator():
    first = laplace_mech(10.0, 1.0, 0.5, np.random.default_rng(7))
    second = laplace_mech(10.0, 1.0, 0.5, np.random.default_rng(7))
    assert first == second != 10.0


def test_laplace_mech_noise_has_scale_sensitivity_over_epsilon():
    rng = np.random.default_rng(1)
    noise = np.array([laplace_mech(0.0, 2.0, 0.5, rng) for _ in range(20_000)])
    # E|Lap(b)| = b = 2 / 0.5 = 4
    assert np.mean(np.abs(noise)) == pytest.approx(4.0, rel=0.03)
    assert abs(np.median(noise)) < 0.2


def test_laplace_mech_with_zero_sensitivity_returns_the_value():
    assert laplace_mech(3.5, 0.0, 1.0, np.random.default_rng(0)) == 3.5


@pytest.mark.parametrize("epsilon", [0, -1.0, math.nan, math.inf])
def test_laplace_mech_rejects_bad_epsilon(epsilon):
    with pytest.raises(ValueError, match="epsilon must be a finite number > 0"):
        laplace_mech(1.0, 1.0, epsilon, np.random.default_rng(0))


@pytest.mark.parametrize("epsilon", ["1", True, None])
def test_laplace_mech_rejects_non_numeric_epsilon(epsilon):
    with pytest.raises(TypeError, match="epsilon"):
        laplace_mech(1.0, 1.0, epsilon, np.random.default_rng(0))


@pytest.mark.parametrize("sensitivity", [-0.1, math.inf, math.nan])
def test_laplace_mech_rejects_bad_sensitivity(sensitivity):
    with pytest.raises(ValueError, match="sensitivity must be a finite number >= 0"):
        laplace_mech(1.0, sensitivity, 1.0, np.random.default_rng(0))


@pytest.mark.parametrize("value", [math.nan, math.inf, "3"])
def test_laplace_mech_rejects_bad_value(value):
    with pytest.raises(ValueError, match="value must be a finite real number"):
        laplace_mech(value, 1.0, 1.0, np.random.default_rng(0))


@pytest.mark.parametrize("rng", [42, np.random.RandomState(0), "seed"])
def test_laplace_mech_rejects_non_generator_rng(rng):
    with pytest.raises(TypeError, match="rng must be a numpy.random.Generator"):
        laplace_mech(1.0, 1.0, 1.0, rng)


def test_laplace_mech_without_rng_uses_a_fresh_generator():
    assert math.isfinite(laplace_mech(1.0, 1.0, 1.0))


@pytest.mark.parametrize("delta", [0, 1, 1.5, -0.2, math.nan])
def test_check_delta_rejects_values_outside_the_open_unit_interval(delta):
    with pytest.raises(ValueError, match=r"delta must be in \(0, 1\)"):
        check_delta(delta)


def test_check_delta_rejects_non_numbers():
    with pytest.raises(TypeError, match="delta"):
        check_delta("0.1")


@pytest.mark.parametrize(
    ("data", "message"),
    [([], "must not be empty"), ([1.0, math.nan], "NaN or infinity"), ([[1.0, 2.0]], "1-D"),
     ([1.0, math.inf], "NaN or infinity")],
)
def test_check_data_rejects_bad_data(data, message):
    with pytest.raises(ValueError, match=message):
        check_data(data)


def test_check_data_rejects_non_numeric_data():
    with pytest.raises(TypeError, match="data must be a 1-D sequence of numbers"):
        check_data(["a", "b"])


def test_pct_error_is_relative_and_in_percent():
    assert pct_error(40.0, 41.0) == pytest.approx(2.5)
    assert pct_error(-40.0, -38.0) == pytest.approx(5.0)


def test_pct_error_refuses_a_refused_release():
    with pytest.raises(TypeError, match="returned ⊥"):
        pct_error(40.0, None)


@pytest.mark.parametrize(("true", "private"), [(0.0, 1.0), (math.nan, 1.0), (1.0, math.inf)])
def test_pct_error_rejects_bad_numbers(true, private):
    with pytest.raises(ValueError, match="must be a finite"):
        pct_error(true, private)


def test_sum_count_mean_approaches_the_clipped_mean_for_large_epsilon():
    data = [10.0, 20.0, 30.0, 500.0]
    result = sum_count_mean(data, 0.0, 100.0, 1e9, np.random.default_rng(3))
    assert result == pytest.approx(40.0, abs=1e-4)


def test_sum_count_mean_is_noisy_at_small_epsilon():
    rng = np.random.default_rng(3)
    results = {sum_count_mean([1.0, 2.0, 3.0], 0.0, 5.0, 1.0, rng) for _ in range(5)}
    assert len(results) == 5


def test_sum_count_mean_rejects_reversed_bounds():
    with pytest.raises(ValueError, match="lower must be < upper"):
        sum_count_mean([1.0], 5.0, 5.0, 1.0, np.random.default_rng(0))


def test_sum_count_mean_rejects_infinite_bounds():
    with pytest.raises(ValueError, match="upper must be finite"):
        sum_count_mean([1.0], 0.0, math.inf, 1.0, np.random.default_rng(0))


# ------------------------------------------------------------------------------ analytic Gaussian
def _profile(sigma, sensitivity, epsilon):
    """Balle & Wang's privacy profile of N(0, sigma^2) noise, written out independently."""
    def cdf(x):
        return 0.5 * math.erfc(-x / math.sqrt(2))
    a = sensitivity / (2 * sigma)
    b = epsilon * sigma / sensitivity
    return cdf(a - b) - math.exp(epsilon) * cdf(-a - b)


@pytest.mark.parametrize(("sensitivity", "epsilon", "delta"),
                         [(1.0, 1.0, 1e-6), (1.0, 0.5, 1e-5), (3.0, 0.1, 1e-3), (1.0, 5.0, 1e-10),
                          (2.0, 20.0, 1e-6), (1.0, 1.0, 1e-100), (0.01, 2.0, 0.3)])
def test_analytic_gaussian_sigma_is_the_smallest_that_satisfies_the_profile(sensitivity, epsilon, delta):
    sigma = analytic_gaussian_sigma(sensitivity, epsilon, delta)
    assert _profile(sigma, sensitivity, epsilon) <= delta
    assert _profile(sigma * (1 - 1e-9), sensitivity, epsilon) > delta


def test_analytic_gaussian_sigma_matches_the_issue_and_beats_the_classical_bound():
    assert analytic_gaussian_sigma(1.0, 1.0, 1e-6) == pytest.approx(4.22, abs=0.005)
    for epsilon in (0.05, 0.3, 0.9):
        for delta in (1e-3, 1e-6, 1e-9):
            classical = math.sqrt(2 * math.log(1.25 / delta)) / epsilon
            assert analytic_gaussian_sigma(1.0, epsilon, delta) < classical


def test_analytic_gaussian_sigma_scales_with_sensitivity_and_falls_with_delta():
    base = analytic_gaussian_sigma(1.0, 1.0, 1e-6)
    assert analytic_gaussian_sigma(7.0, 1.0, 1e-6) == pytest.approx(7 * base, rel=1e-12)
    assert analytic_gaussian_sigma(1.0, 1.0, 1e-3) < base < analytic_gaussian_sigma(1.0, 1.0, 1e-9)
    assert analytic_gaussian_sigma(0.0, 1.0, 1e-6) == 0.0


def test_analytic_gaussian_sigma_refuses_a_delta_doubles_cannot_certify():
    with pytest.raises(ValueError, match="delta"):
        analytic_gaussian_sigma(1.0, 1.0, 1e-300)
