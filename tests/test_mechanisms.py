"""Tests for dpteach.mechanisms: the Laplace mechanism, percent error and the shared input checks."""

import math
from fractions import Fraction

import numpy as np
import pytest

from dpteach.mechanisms import (
    analytic_gaussian_sigma,
    check_data,
    check_delta,
    discrete_laplace,
    geometric_mech,
    laplace_mech,
    pct_error,
    sum_count_mean,
)


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


# ------------------------------------------------------------------------------ exact discrete Laplace
def _discrete_laplace_chi_square(draws, scale, cutoff=8):
    """Pearson's statistic of integer draws against P(z) = (1-q)/(1+q) q^|z|, q = e^(-1/scale), with the
    cells z = -cutoff..cutoff and the two tails beyond; returns (statistic, degrees of freedom)."""
    q = math.exp(-1 / scale)
    draws = np.asarray(draws)
    cells = np.arange(-cutoff, cutoff + 1)
    probs = (1 - q) / (1 + q) * q ** np.abs(cells)
    tail = q ** (cutoff + 1) / (1 + q)  # P(Z > cutoff) = P(Z < -cutoff)
    observed = np.array([(draws < -cutoff).sum(), *[(draws == z).sum() for z in cells], (draws > cutoff).sum()])
    expected = draws.size * np.array([tail, *probs, tail])
    assert math.isclose(expected.sum(), draws.size)
    return float(((observed - expected) ** 2 / expected).sum()), observed.size - 1


def _passes(statistic, dof):
    """Chi-square test at roughly the 1e-6 level: mean dof, standard deviation sqrt(2 dof), 6 sd margin."""
    return statistic < dof + 6 * math.sqrt(2 * dof)


@pytest.mark.parametrize(("num", "den"), [(3, 2), (1, 1), (5, 1), (2, 7)])
def test_discrete_laplace_matches_its_exact_probabilities(num, den):
    rng = np.random.default_rng(12)
    draws = [discrete_laplace(num, den, rng) for _ in range(30_000)]
    assert _passes(*_discrete_laplace_chi_square(draws, num / den))


def test_the_same_check_rejects_a_sampler_with_a_ten_percent_wrong_scale():
    rng = np.random.default_rng(12)
    draws = [discrete_laplace(33, 20, rng) for _ in range(30_000)]  # scale 1.65 checked as 1.5
    assert not _passes(*_discrete_laplace_chi_square(draws, 1.5))


def test_the_same_check_rejects_a_sampler_that_counts_zero_twice():
    # a geometric magnitude with a fair sign but without CKS's rejection of (minus, 0): P(0) is 1 - q, too big
    rng = np.random.default_rng(12)
    q = math.exp(-1 / 1.5)
    magnitudes = rng.geometric(1 - q, size=30_000) - 1
    draws = np.where(rng.integers(0, 2, size=30_000) == 1, magnitudes, -magnitudes)
    assert not _passes(*_discrete_laplace_chi_square(draws, 1.5))


class IntegersOnly(np.random.Generator):
    """A generator whose floating-point draws fail: only ``integers`` may be used."""

    def random(self, *args, **kwargs):
        raise AssertionError("a float was drawn")

    def laplace(self, *args, **kwargs):
        raise AssertionError("a float was drawn")

    def exponential(self, *args, **kwargs):
        raise AssertionError("a float was drawn")


def test_discrete_laplace_draws_integers_only():
    rng = IntegersOnly(np.random.PCG64(0))
    draws = [discrete_laplace(7, 3, rng) for _ in range(200)] + [geometric_mech(5, 1, 0.3, rng) for _ in range(50)]
    assert all(type(z) is int for z in draws)
    assert len(set(draws)) > 5


def test_geometric_mech_is_reproducible_integer_and_centred():
    first = [geometric_mech(10, 1, 0.5, np.random.default_rng(3)) for _ in range(3)]
    assert first == [geometric_mech(10, 1, 0.5, np.random.default_rng(3))] * 3
    rng = np.random.default_rng(4)
    draws = np.array([geometric_mech(10, 2, Fraction(1, 2), rng) for _ in range(20_000)])
    assert draws.dtype.kind == "i"
    assert _passes(*_discrete_laplace_chi_square(draws - 10, 4.0))
    assert geometric_mech(7, 0, 1.0, rng) == 7


def test_geometric_mech_takes_a_float_epsilon_exactly():
    # epsilon = 0.1 is the double 3602879701896397 / 2**55: the scale is that fraction's inverse, no rounding
    rng = np.random.default_rng(5)
    draws = [geometric_mech(0, 1, 0.1, rng) for _ in range(20_000)]
    assert _passes(*_discrete_laplace_chi_square(draws, 2**55 / 3602879701896397, cutoff=30))


def test_geometric_mech_privacy_loss_is_at_most_epsilon():
    # P(v + Z = o) / P(v' + Z = o) over every output near two neighbouring counts, from the exact pmf
    epsilon, sensitivity = 0.7, 2
    q = math.exp(-epsilon / sensitivity)
    outputs = np.arange(-40, 60)
    log_ratio = (np.abs(outputs - 12) - np.abs(outputs - 10)) * math.log(q)
    assert log_ratio.max() == pytest.approx(epsilon)


@pytest.mark.parametrize(("kwargs", "error"), [({"value": 1.5}, TypeError), ({"value": True}, TypeError),
                                               ({"sensitivity": -1}, ValueError), ({"sensitivity": 1.0}, TypeError),
                                               ({"epsilon": 0}, ValueError), ({"epsilon": math.inf}, ValueError),
                                               ({"epsilon": "1"}, TypeError)])
def test_geometric_mech_rejects_bad_input(kwargs, error):
    call = {"value": 3, "sensitivity": 1, "epsilon": 1.0, "rng": np.random.default_rng(0)} | kwargs
    with pytest.raises(error, match=next(iter(kwargs))):
        geometric_mech(**call)
