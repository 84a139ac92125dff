"""Tests for dpteach.mechanisms: the Laplace mechanism, percent error and the shared input checks."""

import math
from fractions import Fraction

import numpy as np
import pytest

from dpteach.mechanisms import (
    _LARGEST_LAPLACE_DRAW,
    _gaussian_delta_upper,
    _is_numpy_laplace_output,
    _numpy_laplace_output,
    _uniform_double,
    analytic_gaussian_sigma,
    check_data,
    check_delta,
    discrete_laplace,
    geometric_mech,
    laplace_mech,
    pct_error,
    snapping_bound,
    snapping_epsilon,
    snapping_mech,
    sum_count_mean,
    textbook_laplace_impossible_fraction,
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


@pytest.mark.parametrize(("value", "error"), [(math.nan, ValueError), (math.inf, ValueError), ("3", TypeError),
                                             (10**400, ValueError)])
def test_laplace_mech_rejects_bad_value(value, error):
    with pytest.raises(error, match="value must be a finite real number"):
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
    results = {sum_count_mean([1.0, 2.0, 3.0], 0.0, 5.0, 1.0, rng) for _ in range(20)}
    assert len(results) >= 5  # snapped sums sit on a grid of 10 (Lambda = 2 at sensitivity 5), so values repeat


def test_sum_count_mean_releases_the_count_exactly_and_the_sum_on_the_snapping_grid():
    rng = np.random.default_rng(4)
    data = [1.0, 2.0, 3.0]
    for _ in range(30):  # replay the two draws from the same seed
        seed = int(rng.integers(0, 2**32))
        value = sum_count_mean(data, 0.0, 5.0, 1.0, np.random.default_rng(seed))
        twin = np.random.default_rng(seed)
        noisy_sum = snapping_mech(6.0, 5.0, 0.5, snapping_bound(10**9 * 5.0, 5.0, 0.5), twin)
        noisy_count = geometric_mech(3, 1, 0.5, twin)
        assert value == noisy_sum / max(noisy_count, 1)
        assert noisy_sum / 10 == round(noisy_sum / 10) and isinstance(noisy_count, int)


def test_sum_count_mean_clamps_the_sum_at_the_public_size_bound():
    result = sum_count_mean(np.full(1000, 100.0), 0.0, 100.0, 1e6, np.random.default_rng(5), max_size=10)
    assert result == pytest.approx(10 * 100.0 / 1000, rel=1e-3)  # the sum is clamped to 10 * 100


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


# ------------------------------------------------------------------------------ snapping and the attack
def test_uniform_double_reaches_small_doubles_with_the_right_probability():
    rng = np.random.default_rng(8)
    draws = np.array([_uniform_double(rng) for _ in range(40_000)])
    assert ((draws > 0) & (draws < 1)).all()
    for cut in (0.5, 0.1, 0.01):  # P(U < c) = c
        share = (draws < cut).mean()
        assert abs(share - cut) < 5 * math.sqrt(cut * (1 - cut) / draws.size)
    # below 2**-53 numpy's grid has nothing but 0; the exact draw lands there with probability 2**-53 only,
    # so check the binary structure instead: mantissas are not multiples of 2**-53 of the value's binade
    assert len({math.frexp(d)[0] * 2**53 % 2 for d in draws}) == 2


@pytest.mark.parametrize(("value", "sensitivity", "epsilon", "bound"),
                         [(0.0, 1.0, 0.5, 100.0), (30.0, 2.0, 1.0, 64.0), (-5.0, 1.0, 0.1, 1000.0)])
def test_snapping_outputs_lie_on_the_grid_within_the_bound(value, sensitivity, epsilon, bound):
    rng = np.random.default_rng(9)
    outputs = np.array([snapping_mech(value, sensitivity, epsilon, bound, rng) for _ in range(5000)])
    lam = 1 / epsilon  # in units of the sensitivity; the stated epsilon inflates it a hair, past a power of 2
    grid = sensitivity * 2.0 ** math.ceil(math.log2(lam * (1 + 1e-12)))
    assert (np.abs(outputs) <= bound).all()
    on_grid = np.isclose(outputs / grid, np.round(outputs / grid), rtol=0, atol=1e-12)
    assert (on_grid | (np.abs(outputs) == bound)).all()


def test_snapping_noise_has_the_laplace_spread():
    rng = np.random.default_rng(10)
    outputs = np.array([snapping_mech(0.0, 1.0, 0.05, 1e4, rng) for _ in range(20_000)])
    # scale 20, grid 32: the output is 32 j with probability P(32 j - 16 <= X < 32 j + 16), X ~ Lap(20)
    j = np.arange(1, 400)
    p_j = 0.5 * (np.exp(-(32 * j - 16) / 20) - np.exp(-(32 * j + 16) / 20))
    assert abs(np.median(outputs)) <= 32
    assert np.mean(np.abs(outputs)) == pytest.approx(2 * (32 * j * p_j).sum(), rel=0.05)
    assert np.mean(outputs > 0) == pytest.approx(0.5 * math.exp(-16 / 20), abs=0.01)
    assert np.mean(outputs == 0) == pytest.approx(1 - math.exp(-16 / 20), abs=0.01)


@pytest.mark.parametrize("noise_epsilon", [1e-3, 0.1, 0.5, 1.0, 3.0])
@pytest.mark.parametrize("ratio", [1.0001, 2.0, 1e3, 1e9, 2.0**45])
def test_snapping_epsilon_stays_within_mironovs_theorem_1(noise_epsilon, ratio):
    # Mironov 2012, Theorem 1: (1/lambda + 2**-49 B/lambda)-DP for lambda < B < 2**46 lambda (sensitivity 1)
    lam = 1 / noise_epsilon
    assert snapping_epsilon(noise_epsilon, 1.0, ratio * lam) <= noise_epsilon + 2.0**-49 * ratio


@pytest.mark.parametrize(("magnitude", "sensitivity", "epsilon", "expected"),
                         [(100.0, 1.0, 1.0, 100.0), (0.5, 1.0, 1.0, 2.0), (1e30, 1.0, 1.0, 2.0**40)])
def test_snapping_bound_moves_the_range_into_the_window_of_the_theorem(magnitude, sensitivity, epsilon, expected):
    bound = snapping_bound(magnitude, sensitivity, epsilon)
    assert bound == expected
    snapping_mech(0.0, sensitivity, epsilon, bound, np.random.default_rng(0))  # accepted: inside the window


def test_snapping_epsilon_formula_and_its_range():
    assert snapping_epsilon(0.5, 1.0, 100.0) == pytest.approx(0.5 + 0.5 * 12 * 100 * 2.0**-53 + 2 * 2.0**-53,
                                                              rel=1e-15)
    assert snapping_epsilon(1.0, 1.0, 100.0) <= 1.0 + 2.0**-49 * 100
    with pytest.raises(ValueError, match="bound"):
        snapping_epsilon(1.0, 1.0, 0.5)  # B below lambda
    with pytest.raises(ValueError, match="bound"):
        snapping_mech(0.0, 1.0, 1.0, 0.5, np.random.default_rng(0))


def test_snapping_mech_spends_no_more_than_the_stated_epsilon():
    # the scale it uses, read back from its grid spacing, gives at most epsilon by Mironov's formula
    for epsilon in (0.5, 1.0, 0.3):
        lam = (1 + 12 * 100 * 2.0**-53) / (epsilon - 2 * 2.0**-53)
        assert snapping_epsilon(1 / math.nextafter(lam, math.inf), 1.0, 100.0) <= epsilon


def test_replay_of_numpy_laplace_is_bit_for_bit():
    draws = np.random.Generator(np.random.PCG64(3)).laplace(0.0, 100.0, size=2000)
    raw = np.random.Generator(np.random.PCG64(3)).bit_generator.random_raw(2000)
    replay = [_numpy_laplace_output(int(r) >> 11, 0.0, 100.0) for r in raw]
    assert np.array_equal(draws, replay)
    assert (draws < 0).any() and (draws > 0).any()


def test_impossible_fraction_on_notebook_05s_pair_is_about_eighty_percent():
    share = textbook_laplace_impossible_fraction(0.0, 100.0, 100.0, 20_000, np.random.default_rng(0))
    assert 0.7 < share < 0.9
    # the same value is always possible (a negative control for the membership test)
    assert textbook_laplace_impossible_fraction(0.0, 0.0, 100.0, 2000, np.random.default_rng(0)) == 0.0


def test_impossible_fraction_membership_is_exact_on_a_brute_forced_toy():
    # scale 1, values 3e-15 and 0 (a shift near the spacing of doubles at 30): every output beyond -30 or 30
    # comes from the lowest or highest 2**12 draws, so the neighbour's set of such outputs is enumerated
    # completely and the bisection must agree with plain set membership, both ways
    value, neighbour = 3e-15, 0.0
    ks = [*range(1, 2**12), *range(2**53 - 2**12, 2**53)]
    neighbour_outputs = {_numpy_laplace_output(k, neighbour, 1.0) for k in ks}
    tails = [y for y in (_numpy_laplace_output(k, value, 1.0) for k in ks) if abs(y) > 30]
    verdicts = [_is_numpy_laplace_output(y, neighbour, 1.0) for y in tails]
    assert verdicts == [y in neighbour_outputs for y in tails]
    assert 0 < sum(verdicts) < len(verdicts)


# ------------------------------------------------------------------------------ issue 26: finite releases, errors
def test_laplace_release_is_finite_or_refused() -> None:
    with pytest.raises(ValueError, match=r"sensitivity / epsilon = inf is too large"):
        laplace_mech(0.0, 1e308, 1e-10, np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"sensitivity / epsilon"):
        laplace_mech(9e307, 1e306, 1.0, np.random.default_rng(0))  # 9e307 + 36.74e306 > 1e308
    scale = 1e308 / 40  # admitted: 36.74 * scale < 1e308
    extremes = [_numpy_laplace_output(k, 0.0, scale) for k in (1, 2**53 - 1)]
    assert all(math.isfinite(y) and abs(y) <= _LARGEST_LAPLACE_DRAW * scale for y in extremes)
    assert math.isfinite(laplace_mech(0.0, scale, 1.0, np.random.default_rng(0)))


def test_analytic_gaussian_names_epsilon_and_delta_when_out_of_range() -> None:
    with pytest.raises(ValueError, match=r"epsilon must be in \(0, 700\]"):
        analytic_gaussian_sigma(1, 1000, 1e-6)
    with pytest.raises(ValueError, match=r"delta must be in \(1e-280, 1\)"):
        analytic_gaussian_sigma(1, 1, 1e-300)


@pytest.mark.parametrize(("epsilon", "delta"), [(37.0, 0.5), (160.0, 1e-6), (700.0, 1e-6), (11.0, 1e-250)])
def test_analytic_gaussian_answers_across_its_range(epsilon, delta) -> None:
    """These used to raise a "delta is too small" error that blamed delta: the search met profile values below
    1e-290, which are now used as upper bounds. The answer still satisfies the calibration inequality."""
    sigma = analytic_gaussian_sigma(1.0, epsilon, delta)
    assert 0 < sigma < math.inf and _gaussian_delta_upper(sigma, 1.0, epsilon) <= delta
    assert _gaussian_delta_upper(math.nextafter(sigma, 0.0), 1.0, epsilon) > delta  # the smallest such double


def test_geometric_mechanism_accepts_numpy_floats_exactly() -> None:
    for epsilon in (np.float32(0.5), np.float16(0.5), np.longdouble(0.5)):
        assert geometric_mech(5, 1, epsilon, np.random.default_rng(3)) == geometric_mech(5, 1, 0.5,
                                                                                         np.random.default_rng(3))
    with pytest.raises(ValueError, match="epsilon must be a finite number > 0"):
        geometric_mech(5, 1, np.float32(-0.5))


def test_analytic_gaussian_sigma_scales_with_the_sensitivity_up_to_the_largest_double() -> None:
    """The privacy profile depends on sigma / Delta alone: a huge Delta gets Delta times the unit calibration
    (no overflow of 2 * sigma making the bound negative), and one whose sigma would not be finite is refused."""
    from dpteach import mechanisms

    unit = mechanisms.analytic_gaussian_sigma(1.0, 1.0, 1e-6)
    for sensitivity in (1e-300, 3.0, 1e200, 4e307):
        sigma = mechanisms.analytic_gaussian_sigma(sensitivity, 1.0, 1e-6)
        assert sigma / sensitivity == pytest.approx(unit, rel=1e-9)
        assert mechanisms._gaussian_delta_upper(sigma, sensitivity, 1.0) <= 1e-6
    with pytest.raises(ValueError, match="sensitivity"):
        mechanisms.analytic_gaussian_sigma(1e308, 1.0, 1e-6)
