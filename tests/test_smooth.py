"""Tests for dpteach.smooth: generic smooth sensitivity and the exact median algorithm (NRS 2007)."""

import decimal
import fractions
import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpteach.datasets import load_adult
from dpteach.ptr import book_mean_ls_at_distance, mean_ls_at_distance
from dpteach.smooth import (
    discounted_up,
    heavy_tail_beta,
    heavy_tail_density,
    heavy_tail_noise,
    heavy_tail_scale,
    heavy_tail_std,
    laplace_beta,
    smooth_mean_cap,
    smooth_median_release,
    smooth_median_release_pure,
    smooth_sensitivity_median,
    smooth_sensitivity_of_curve,
    smoothed_local_sensitivity,
)

N_ADULT = len(load_adult())


def test_laplace_beta_formula():
    assert laplace_beta(1.0, 0.01) == pytest.approx(1 / (2 * math.log(200)))


def _neighbour_delta(epsilon: float, shift: float, ratio: float) -> float:
    """sup_E P[M(x) in E] - e^eps P[M(x') in E] for M(x) = Lap(0, 1) and M(x') = Lap(shift, ratio): the integral of
    (p - e^eps q)^+ on a fine grid (noise in units of x's scale 2S(x)/eps, so S(x) = eps/2)."""
    y, step = np.linspace(-400.0, 400.0, 4_000_001, retstep=True)
    p = np.exp(-np.abs(y)) / 2
    q = np.exp(-np.abs(y - shift) / ratio) / (2 * ratio)
    return float(np.maximum(p - math.exp(epsilon) * q, 0.0).sum() * step)


def _worst_neighbour_delta(epsilon: float, beta: float) -> float:
    """The largest such delta over the neighbours smoothness allows: S(x') = e^lam S(x), |lam| <= beta, and a median
    moved by at most min(S(x), S(x')) (|f(x) - f(x')| <= LS <= S on both sides)."""
    return max(_neighbour_delta(epsilon, sign * epsilon / 2 * min(1.0, math.exp(lam)), math.exp(lam))
               for lam in (-beta, beta) for sign in (-1, 1))


@pytest.mark.parametrize(("epsilon", "delta"), [(1.0, 1e-3), (2.5, 1e-6), (2.5, 0.7), (3.5, 1e-3)])
def test_laplace_beta_keeps_every_neighbouring_pair_within_delta(epsilon, delta):
    """Lesson 04's derivation: slide (cost <= eps/2) and stretch (cost <= eps/2 except on a tail of mass delta/2)."""
    assert _worst_neighbour_delta(epsilon, laplace_beta(epsilon, delta)) <= delta


def test_laplace_beta_refuses_parameters_outside_its_proof_where_the_guarantee_fails():
    epsilon, delta = 20.0, 1e-6
    beta = epsilon / (2 * math.log(2 / delta))
    assert _worst_neighbour_delta(epsilon, beta) > 2 * delta  # the formula's beta is not (20, 1e-6)-DP
    with pytest.raises(ValueError, match="epsilon = 20.0 with delta = 1e-06"):
        laplace_beta(epsilon, delta)
    with pytest.raises(ValueError, match="delta <= 2/e"):
        laplace_beta(1.0, 0.9)


def test_laplace_beta_refuses_outside_its_proof_also_where_the_guarantee_still_holds():
    """Lesson 04's fold: the proof reaches about eps = 3.7 at delta = 1e-3; eps = 10, delta = 1e-6 is refused although
    the worst pair differs by about 3.3e-7 < delta, while eps = 20 differs by about 5.2e-6 > delta."""
    laplace_beta(3.65, 1e-3)
    for epsilon in (3.7, 4.0):
        with pytest.raises(ValueError, match="outside the proof"):
            laplace_beta(epsilon, 1e-3)
    with pytest.raises(ValueError, match="outside the proof"):
        laplace_beta(10.0, 1e-6)
    worst = {e: _worst_neighbour_delta(e, e / (2 * math.log(2 / 1e-6))) for e in (10.0, 20.0)}
    assert worst[10.0] == pytest.approx(3.3e-7, rel=0.02)
    assert worst[20.0] == pytest.approx(5.2e-6, rel=0.02)


def test_smoothed_mean_sensitivity_matches_the_pinned_adult_value():
    beta = laplace_beta(1.0, 1 / N_ADULT**2)
    s = smooth_sensitivity_of_curve(book_mean_ls_at_distance(N_ADULT, np.arange(200), 100.0), beta)
    assert 2 * s == pytest.approx(0.006142128861863522, rel=1e-12)


def test_corrected_mean_smooth_sensitivity_peaks_at_distance_zero_over_all_k():
    beta = laplace_beta(1.0, 1 / N_ADULT**2)
    curve = smoothed_local_sensitivity(mean_ls_at_distance(N_ADULT, np.arange(N_ADULT + 1), 0.0, 100.0), beta)
    assert int(np.argmax(curve)) == 0
    assert curve[0] == pytest.approx(100 / N_ADULT)


def test_smoothed_local_sensitivity_discounts_by_distance():
    curve = smoothed_local_sensitivity([1.0, 1.0, 4.0], 0.5)
    np.testing.assert_allclose(curve, [1.0, math.exp(-0.5), 4 * math.exp(-1.0)])
    assert smooth_sensitivity_of_curve([1.0, 1.0, 4.0], 0.5) == pytest.approx(4 * math.exp(-1.0))


@pytest.mark.parametrize(
    ("values", "beta", "message"),
    [([1.0, -1.0], 0.1, "local sensitivities >= 0"), ([1.0], 0.0, "beta must be"), ([], 0.1, "empty")],
)
def test_smooth_sensitivity_rejects_bad_input(values, beta, message):
    with pytest.raises(ValueError, match=message):
        smooth_sensitivity_of_curve(values, beta)


def _median(values):
    return sorted(values)[math.ceil(len(values) / 2) - 1]


def _direct_quadratic(data, lower, upper, beta):
    """O(n^2) evaluation of max over i <= m <= j of (x_j - x_i) e^{-beta (j - i - 1)} on the padded data."""
    xs = [lower, *sorted(min(max(v, lower), upper) for v in data), upper]
    m = math.ceil(len(data) / 2)
    return max((xs[j] - xs[i]) * math.exp(-beta * (j - i - 1))
               for i in range(m + 1) for j in range(m, len(xs)))


def _brute_force(data, grid, beta):
    """Enumerate every dataset over ``grid`` (which holds lower and upper): A(k) and S from their definitions."""
    n = len(data)
    datasets = list(itertools.product(grid, repeat=n))

    def local(y):
        return max(abs(_median(y) - _median(y[:p] + (v,) + y[p + 1:])) for p in range(n) for v in grid)

    ls = np.array([local(y) for y in datasets])
    distance = np.array([sum(a != b for a, b in zip(data, y, strict=True)) for y in datasets])
    return max(math.exp(-beta * k) * ls[distance <= k].max() for k in range(n + 1))


@pytest.mark.parametrize("n", [1, 2, 3, 4])
@pytest.mark.parametrize("beta", [0.1, 0.7, 2.0])
def test_median_matches_brute_force_on_a_tiny_grid(n, beta):
    grid = (0.0, 1.0, 2.5, 4.0)
    for data in itertools.combinations_with_replacement(grid, n):
        expected = _brute_force(data, grid, beta)
        assert smooth_sensitivity_median(data, 0.0, 4.0, beta) == pytest.approx(expected, rel=1e-12)


@settings(max_examples=150, deadline=None)
@given(
    data=st.lists(st.integers(-5, 30), min_size=1, max_size=60),
    beta=st.floats(0.001, 3.0),
)
def test_median_matches_the_quadratic_evaluation(data, beta):
    fast = smooth_sensitivity_median(data, 0.0, 25.0, beta)
    assert fast == pytest.approx(_direct_quadratic(data, 0.0, 25.0, beta), rel=1e-9)


def test_median_on_random_reals_matches_the_quadratic_evaluation():
    rng = np.random.default_rng(11)
    for n in [5, 50, 301]:
        data = rng.normal(40, 15, size=n).tolist()
        for beta in [0.005, 0.05, 0.5]:
            assert smooth_sensitivity_median(data, 0.0, 100.0, beta) == pytest.approx(
                _direct_quadratic(data, 0.0, 100.0, beta), rel=1e-9)


def test_median_clips_the_data_first():
    assert smooth_sensitivity_median([-50, 3, 200], 0, 10, 0.3) == smooth_sensitivity_median([0, 3, 10], 0, 10, 0.3)


def test_median_on_adult_ages_is_fast_and_tiny():
    ages = load_adult()["Age"]
    s = smooth_sensitivity_median(ages, 0.0, 100.0, laplace_beta(1.0, 1 / N_ADULT**2))
    assert 0 < s < 1e-3  # hundreds of people share every age around the median


@pytest.mark.parametrize(
    ("data", "lower", "upper", "beta", "message"),
    [([1.0], 3.0, 3.0, 0.1, "lower must be < upper"), ([], 0.0, 1.0, 0.1, "empty"),
     ([math.nan], 0.0, 1.0, 0.1, "NaN"), ([1.0], 0.0, 1.0, -1.0, "beta must be")],
)
def test_median_rejects_bad_input(data, lower, upper, beta, message):
    with pytest.raises(ValueError, match=message):
        smooth_sensitivity_median(data, lower, upper, beta)


def test_smooth_median_release_reports_its_calibration():
    data = np.arange(1.0, 100.0)
    result = smooth_median_release(data, 0.0, 100.0, 1.0, 1e-6, np.random.default_rng(2))
    beta = laplace_beta(1.0, 1e-6)
    assert result.beta == beta
    assert result.smooth_sensitivity == pytest.approx(smooth_sensitivity_median(data, 0.0, 100.0, beta))
    assert result.scale == pytest.approx(2 * result.smooth_sensitivity)
    assert (result.epsilon, result.delta) == (1.0, 1e-6)
    assert result.value == pytest.approx(50.0, abs=30 * result.scale)
    assert result.value != 50.0


def test_smooth_median_release_noise_has_the_stated_scale():
    data = [10.0, 20.0, 30.0, 40.0, 50.0]
    rng = np.random.default_rng(4)
    draws = [smooth_median_release(data, 0.0, 60.0, 2.0, 1e-3, rng) for _ in range(4000)]
    noise = np.array([d.value for d in draws]) - 30.0
    assert np.mean(np.abs(noise)) == pytest.approx(draws[0].scale, rel=0.05)


@pytest.mark.parametrize(
    ("epsilon", "delta", "rng", "error"),
    [(0.0, 1e-3, np.random.default_rng(0), ValueError), (1.0, 0.0, np.random.default_rng(0), ValueError),
     (1.0, 1e-3, 5, TypeError)],
)
def test_smooth_median_release_rejects_bad_input(epsilon, delta, rng, error):
    with pytest.raises(error, match="epsilon|delta|rng"):
        smooth_median_release([1.0, 2.0], 0.0, 3.0, epsilon, delta, rng)


# ------------------------------------------------------------------------------ pure-epsilon heavy-tailed noise
def _cdf_gamma4(t):
    """CDF of h(z) ∝ 1/(1 + z^4), from the antiderivative of 1/(1 + t^4) (independent of the sampler)."""
    r2, a = math.sqrt(2), abs(t)
    half = (math.log((a * a + r2 * a + 1) / (a * a - r2 * a + 1)) + 2 * math.atan(r2 * a + 1)
            + 2 * math.atan(r2 * a - 1)) / (4 * r2)  # integral over [0, a]
    return 0.5 + math.copysign(half, t) / (math.pi / r2)


def _cdf_cauchy(t):
    return 0.5 + math.atan(t) / math.pi


def _ks_statistic(draws, cdf):
    draws = np.sort(np.asarray(draws))
    n = draws.size
    values = np.array([cdf(t) for t in draws])
    return max((np.arange(1, n + 1) / n - values).max(), (values - np.arange(n) / n).max())


KS_LIMIT = 1.95  # sqrt(n) * D above this has probability about 0.001 under the null


def test_gamma4_cdf_is_a_cdf():
    assert _cdf_gamma4(0.0) == pytest.approx(0.5)
    assert _cdf_gamma4(1e8) == pytest.approx(1.0, abs=1e-12)
    assert _cdf_gamma4(-1e8) == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize("gamma", [2.0, 3.0, 4.0, 6.0])
def test_heavy_tail_density_integrates_to_one(gamma):
    # over [0, 1] directly and over [1, inf) with z = 1/t: the integrand becomes t^(gamma-2) / (1 + t^gamma)
    t = np.linspace(0.0, 1.0, 200_001)
    inner = np.trapezoid(heavy_tail_density(t, gamma), t)
    outer = np.trapezoid(heavy_tail_density(1 / t[1:], gamma) / t[1:] ** 2, t[1:])
    assert 2 * (inner + outer) == pytest.approx(1.0, abs=1e-5)  # [0, 5e-6] of the outer part is left out


def test_heavy_tail_density_at_two_is_cauchy():
    z = np.array([-3.0, 0.0, 0.5, 10.0])
    assert heavy_tail_density(z, 2.0) == pytest.approx(1 / (math.pi * (1 + z**2)))


@pytest.mark.parametrize(("gamma", "cdf"), [(4.0, _cdf_gamma4), (2.0, _cdf_cauchy)])
def test_heavy_tail_noise_matches_its_cdf(gamma, cdf):
    draws = heavy_tail_noise(np.random.default_rng(21), gamma, size=40_000)
    assert math.sqrt(draws.size) * _ks_statistic(draws, cdf) < KS_LIMIT


def test_the_same_ks_check_rejects_the_wrong_density():
    rng = np.random.default_rng(21)
    assert math.sqrt(40_000) * _ks_statistic(heavy_tail_noise(rng, 2.0, size=40_000), _cdf_gamma4) > KS_LIMIT
    assert math.sqrt(40_000) * _ks_statistic(1.1 * heavy_tail_noise(rng, 4.0, size=40_000), _cdf_gamma4) > KS_LIMIT


def test_heavy_tail_noise_is_reproducible_and_scalar_by_default():
    first = heavy_tail_noise(np.random.default_rng(3))
    assert isinstance(first, float)
    assert first == heavy_tail_noise(np.random.default_rng(3))


@pytest.mark.parametrize("gamma", [4.0, 5.0, 8.0])
def test_heavy_tail_std_matches_the_density_integrated(gamma):
    # E[Z^2] = 2 (int_0^1 z^2 h + int_1^inf z^2 h); with z = 1/t the second is int_0^1 h(1/t) / t^4 dt, whose
    # integrand is bounded on [0, 1] for gamma >= 4
    t = np.linspace(0.0, 1.0, 200_001)
    inner = np.trapezoid(t**2 * heavy_tail_density(t, gamma), t)
    outer = np.trapezoid(heavy_tail_density(1 / t[1:], gamma) / t[1:] ** 4, t[1:])
    assert heavy_tail_std(gamma) == pytest.approx(math.sqrt(2 * (inner + outer)), rel=1e-4)
    assert heavy_tail_std(4.0) == pytest.approx(1.0)


@pytest.mark.parametrize("gamma", [2.0, 3.0])
def test_heavy_tail_std_refuses_an_infinite_variance(gamma):
    with pytest.raises(ValueError, match="gamma must be > 3"):
        heavy_tail_std(gamma)


def test_heavy_tail_beta_and_scale_formulas():
    assert heavy_tail_beta(1.0) == pytest.approx(0.1)
    assert heavy_tail_beta(0.5, 2.0) == pytest.approx(0.5 / 6)
    assert heavy_tail_scale(3.0, 1.0) == pytest.approx(30.0)
    assert heavy_tail_scale(3.0, 0.5, 2.0) == pytest.approx(36.0)


@pytest.mark.parametrize("gamma", [1.5, 2.0, 4.0, 8.0])
def test_heavy_tail_release_privacy_loss_is_at_most_epsilon(gamma):
    # worst case of the proof: f moves by S (the largest local sensitivity allowed) and S moves by e^(+-beta);
    # the log-ratio of the two output densities, on a wide grid, never exceeds epsilon
    epsilon = 1.0
    beta = heavy_tail_beta(epsilon, gamma)
    y = np.linspace(-2000, 2000, 400_001)
    worst = 0.0
    for shift in (-1.0, 1.0):
        for stretch in (-beta, beta):
            s, s_next = 1.0, math.exp(stretch)
            b, b_next = heavy_tail_scale(s, epsilon, gamma), heavy_tail_scale(s_next, epsilon, gamma)
            log_here = np.log(heavy_tail_density(y / b, gamma) / b)
            log_there = np.log(heavy_tail_density((y - shift) / b_next, gamma) / b_next)
            worst = max(worst, float(np.abs(log_here - log_there).max()))
    assert 0.2 * epsilon < worst <= epsilon


def test_heavy_tail_noise_at_laplaces_multiplier_breaks_pure_dp():
    # a negative control for the check above: the same density scaled by Laplace's 2S/epsilon is not epsilon-DP
    epsilon, gamma = 1.0, 4.0
    beta = heavy_tail_beta(epsilon, gamma)
    y = np.linspace(-2000, 2000, 400_001)
    b, b_next = 2 / epsilon, 2 * math.exp(beta) / epsilon
    log_here = np.log(heavy_tail_density(y / b, gamma) / b)
    log_there = np.log(heavy_tail_density((y - 1.0) / b_next, gamma) / b_next)
    assert float(np.abs(log_here - log_there).max()) > epsilon


def test_smooth_median_release_pure_uses_its_own_beta():
    data = [0.0, 50.0, 50.0, 50.0, 100.0]
    release = smooth_median_release_pure(data, 0.0, 100.0, 1.0, np.random.default_rng(0))
    assert release.beta == pytest.approx(0.1) and release.delta == 0.0
    assert release.smooth_sensitivity == pytest.approx(smooth_sensitivity_median(data, 0.0, 100.0, 0.1))
    assert release.scale == pytest.approx(10 * release.smooth_sensitivity)
    again = smooth_median_release_pure(data, 0.0, 100.0, 1.0, np.random.default_rng(0))
    assert release == again


# ------------------------------------------------------------------------------ issue 26: finite releases
def test_heavy_tail_noise_is_finite_or_refused() -> None:
    from dpteach.smooth import SAMPLED_GAMMA_ABOVE, heavy_tail_largest_draw, heavy_tail_noise

    with pytest.raises(ValueError, match=r"gamma must be > 1\.053"):
        heavy_tail_noise(np.random.default_rng(0), 1.01)
    for gamma in (math.nextafter(SAMPLED_GAMMA_ABOVE, 2.0), 1.06, 1.5):
        draws = heavy_tail_noise(np.random.default_rng(1), gamma, size=200_000)
        assert np.isfinite(draws).all() and np.abs(draws).max() <= heavy_tail_largest_draw(gamma) < 2.0**1008


def test_smooth_median_releases_are_finite_or_refused() -> None:
    from dpteach.smooth import smooth_median_release, smooth_median_release_pure

    data = np.random.default_rng(2).normal(40, 15, size=200)
    with pytest.raises(ValueError, match="gamma must be > 1.053"):
        smooth_median_release_pure(data, 0.0, 100.0, 1.0, np.random.default_rng(0), gamma=1.01)
    with pytest.raises(ValueError, match="gamma, epsilon, lower and upper allow releases"):
        smooth_median_release_pure(data, 0.0, 1e300, 1.0, np.random.default_rng(0), gamma=1.5)
    with pytest.raises(ValueError, match="epsilon, lower and upper allow releases"):
        smooth_median_release(data, -1e300, 1e300, 1e-10, 1e-6, np.random.default_rng(0))
    rng = np.random.default_rng(3)
    values = [smooth_median_release_pure(data, 0.0, 100.0, 1.0, rng, gamma=1.06).value for _ in range(5_000)]
    assert np.isfinite(values).all()


def test_smooth_median_never_exceeds_the_global_bound() -> None:
    """Lesson 06: the log-domain scores may round above u - l by an ulp; the result is capped at u - l."""
    assert smooth_sensitivity_median((0, 100, 100), 0, 100, 0.1) == 100.0
    rng = np.random.default_rng(6)
    for _ in range(200):
        data = rng.choice([0, 100, 50], size=rng.integers(1, 12))
        beta = float(rng.uniform(1e-4, 2.0))
        assert smooth_sensitivity_median(data, 0, 100, beta) <= 100.0


def _lesson06_fold_code(marker: str) -> list[str]:
    """The python block of lesson 06's fold that contains ``marker``, in each edition (the folds are markdown, so
    the notebook runs never execute them)."""
    import json
    import re
    from pathlib import Path

    blocks = []
    for name in ("06_smooth_sensitivity_in_practice.ipynb", "06_smooth_sensitivity_in_practice.zh.ipynb"):
        cells = json.loads((Path(__file__).parents[1] / "notebooks" / name).read_text())["cells"]
        text = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
        found = [b for b in re.findall(r"```python\n(.*?)```", text, re.S) if marker in b]
        assert len(found) == 1, (name, marker)
        blocks.append(found[0])
    return blocks


def test_lesson06_folds_print_the_numbers_their_text_states(capsys):
    """Lesson 06's folds state "It prints ..."; run their code on the lesson's values and compare."""
    from dpteach import ptr
    from dpteach.smooth import smoothed_local_sensitivity

    ages = load_adult()["Age"].to_numpy()
    n, u, epsilon = len(ages), 100, 1.0
    mean = ages.mean()
    local = max(max(mean, u - mean) / (n + 1), max(mean - ages.min(), ages.max() - mean) / (n - 1))
    bound = mean_ls_at_distance(n, k=0, lower=0, upper=u)
    delta = 1 / 48_842**2
    beta = laplace_beta(epsilon, delta)
    smoothed_bound = smoothed_local_sensitivity(mean_ls_at_distance(n, k=np.arange(n + 1), lower=0, upper=u), beta)
    names = {"np": np, "math": math, "ptr": ptr, "n": n, "u": u, "epsilon": epsilon, "mean": mean, "local": local,
             "bound": bound, "delta": delta, "beta": beta, "smoothed_bound": smoothed_bound}
    spacing = _lesson06_fold_code("p_moves")
    assert spacing[0] == spacing[1]  # the same in both editions
    pure = smooth_median_release_pure(ages, 0, u, epsilon, np.random.default_rng(0))  # its scale is 10S/epsilon
    exec(spacing[0], {"np": np, "math": math, "pure": pure})
    assert capsys.readouterr().out.split() == "spacing of doubles at 37: 7.1e-15 P(|Z| > 84) <= 5e-07".split()
    five = _lesson06_fold_code("S e^-beta")
    assert five[0] == five[1]
    from dpteach import smooth

    exec(five[0], dict(names, smooth=smooth))
    assert capsys.readouterr().out.splitlines() == [
        "(0, 50, 50, 50, 100): LS = 0   S = 93.491   S e^-beta = 91.417",
        "(0, 0, 50, 50, 100): LS = 50   S = 95.612   S e^-beta = 93.491"]
    gap = _lesson06_fold_code("d_equal")
    assert gap[0] == gap[1]
    exec(gap[0], dict(names, smooth=smooth, beta_pure=smooth.heavy_tail_beta(epsilon)))
    expected = "per unit of S: heavy-tail sd = 3.5 x Laplace sd equal sd at d = 16"
    assert capsys.readouterr().out.split() == expected.split()


# ------------------------------------------------------------------ rounding: never below the exact S
def _exact_median_smooth(data, lower, upper, beta, *, float_gaps=False):
    """max over i <= m <= j of gap * e^(-beta (j - i - 1)) with 50 digits: the gaps exact (or rounded to nearest
    doubles, as numpy subtracts them), e^x by Decimal.exp()."""
    xs = [lower, *sorted(np.clip(np.asarray(data, dtype=float), lower, upper).tolist()), upper]
    m = math.ceil(len(data) / 2)
    best = decimal.Decimal(0)
    with decimal.localcontext(decimal.Context(prec=50)):
        for i in range(m + 1):
            for j in range(m, len(xs)):
                if float_gaps:
                    gap = decimal.Decimal(xs[j] - xs[i])
                else:
                    exact = fractions.Fraction(xs[j]) - fractions.Fraction(xs[i])
                    gap = decimal.Decimal(exact.numerator) / decimal.Decimal(exact.denominator)
                best = max(best, gap * (decimal.Decimal(-beta) * (j - i - 1)).exp())
    return best


@pytest.fixture
def digits60():
    """Decimal arithmetic to 60 digits for the test's comparisons (the default context keeps 28)."""
    with decimal.localcontext(decimal.Context(prec=60)):
        yield


def test_median_smooth_sensitivity_is_the_winning_local_gap_exactly():
    """The reviewer's case: A(0) = 80 wins; the log-domain route gave 79.99999999999997, below S."""
    assert smooth_sensitivity_median((10, 10, 10, 90, 90), 0, 100, 0.1) == 80.0
    assert smooth_sensitivity_median((10, 10, 10, 90, 90), 0, 100, 0.1) * 2 == 160.0
    for beta in (0.3, 1.0, 7.0):
        assert smooth_sensitivity_median((10, 10, 10, 90, 90), 0, 100, beta) == 80.0


def _random_median_case(rng):
    kind = rng.integers(3)
    n = int(rng.integers(1, 13))
    if kind == 0:  # ties: a few whole numbers
        data = rng.integers(0, 6, size=n).astype(float)
        lower, upper = 0.0, float(rng.choice([5, 6, 100]))
    elif kind == 1:  # reals in a box, some clipped
        data = rng.uniform(-20, 120, size=n)
        lower, upper = 0.0, 100.0
    else:  # wide ranges: magnitudes from 1e-300 to 1e300, both signs
        data = rng.choice([-1.0, 1.0], size=n) * 10.0 ** rng.uniform(-300, 300, size=n)
        lower, upper = -(10.0 ** rng.uniform(-300, 300)), 10.0 ** rng.uniform(-300, 300)
    beta = float(10.0 ** rng.uniform(-12, 1.7))
    return data.tolist(), lower, upper, beta


@pytest.mark.parametrize("route", ["all pairs", "divide and conquer"])
def test_median_smooth_sensitivity_is_never_below_the_exact_value(route, monkeypatch, digits60):
    """S <= S_hat <= (1 + eta) S + 2^-1070 on random small inputs, eta as the docstring states, on both routes
    (a threshold of 0 sends every input to divide and conquer)."""
    from dpteach import smooth

    if route == "divide and conquer":
        monkeypatch.setattr(smooth, "_ALL_PAIRS_UP_TO", 0)
    rng = np.random.default_rng(2024)
    for _ in range(1_500):
        data, lower, upper, beta = _random_median_case(rng)
        got = decimal.Decimal(smooth_sensitivity_median(data, lower, upper, beta))
        exact = _exact_median_smooth(data, lower, upper, beta)
        assert got >= exact * (1 - decimal.Decimal(10) ** -40), (data, lower, upper, beta)
        floats = _exact_median_smooth(data, lower, upper, beta, float_gaps=True)
        assert got >= floats * (1 - decimal.Decimal(10) ** -40), (data, lower, upper, beta)
        eta = 2.0**-48 * (abs(math.log(upper - lower)) + abs(math.log(float(exact))) + 3)
        if route == "divide and conquer":
            rows = math.ceil(len(data) / 2) + 1
            eta += 4 * math.ceil(math.log2(rows)) * 2.0**-53 * (7460 + 3 * beta * (len(data) + 1))
        assert got <= exact * decimal.Decimal(1 + eta) + decimal.Decimal(2.0**-1070), (data, lower, upper, beta)


def test_median_routes_agree_on_larger_inputs(monkeypatch):
    """Both routes on a few hundred values: each within its margin of the exact value, so of each other."""
    from dpteach import smooth

    rng = np.random.default_rng(5)
    for _ in range(20):
        data = rng.normal(50, 20, size=int(rng.integers(20, 120))).round(int(rng.integers(0, 3))).tolist()
        beta = float(10.0 ** rng.uniform(-3, 0.5))
        pairs = smooth_sensitivity_median(data, 0.0, 100.0, beta)
        with monkeypatch.context() as patch:
            patch.setattr(smooth, "_ALL_PAIRS_UP_TO", 0)
            conquered = smooth_sensitivity_median(data, 0.0, 100.0, beta)
        exact = float(_exact_median_smooth(data, 0.0, 100.0, beta))
        assert exact <= pairs <= exact * (1 + 2.0**-40)
        assert exact <= conquered <= exact * (1 + 2.0**-30)


def test_discounted_up_bounds_the_exact_product(digits60):
    rng = np.random.default_rng(8)
    ctx = decimal.Context(prec=50)
    for _ in range(2_000):
        value = float(10.0 ** rng.uniform(-300, 300))
        beta, k = float(10.0 ** rng.uniform(-12, 1.5)), int(rng.integers(0, 40))
        got = discounted_up(value, beta, k)
        exact = ctx.multiply(decimal.Decimal(value), ctx.exp(decimal.Decimal(-beta) * k))
        low = exact * (1 - decimal.Decimal(10) ** -45)  # the 50-digit reference rounds
        assert low <= decimal.Decimal(got) <= exact * decimal.Decimal(1 + 2.0**-50 * (beta * k + 6)) + \
            decimal.Decimal((value + 1) * 2.0**-1071)
        assert got <= value
    assert discounted_up(80.0, 0.1, 0) == 80.0


def _mean_cap_smooth(data, lower, upper, beta):
    r"""An independent reference for appendix A3's cap :math:`\bar S = \max_k e^{-\beta k} C_k(x)` on the mean
    (add/remove), with :math:`C_k = \min(u - l, (M(\bar x) + k(u - l)/(n - k))/(n - k - 1))`,
    :math:`M(t) = \max(t - l, u - t)`, and :math:`C_k = u - l` once :math:`n - k - 1 \le 0`; every :math:`k` up to
    :math:`n`, in plain floating point (no rounding up)."""
    n, width = len(data), upper - lower
    top = max(np.mean(data) - lower, upper - np.mean(data))
    caps = [min(width, (top + k * width / (n - k)) / (n - k - 1)) if n - k - 1 > 0 else width for k in range(n + 1)]
    return max(math.exp(-beta * k) * c for k, c in enumerate(caps))


def _mean_local_sensitivity(data, lower, upper):
    """The mean's local sensitivity under add/remove, by trying every removal and the additions of l and u."""
    mean = np.mean(data)
    moves = [abs(np.mean(np.delete(data, i)) - mean) for i in range(len(data))]
    return max(moves + [abs(np.mean(np.append(data, v)) - mean) for v in (lower, upper)])


def test_a3_mean_cap_is_a_smooth_upper_bound_on_ls():
    """Appendix A3: smooth.smooth_mean_cap agrees with an independent plain-float reference (never below it, above
    it by a factor below 1 + 2^-39), is beta-smooth under add/remove (S_bar(x) <= e^beta S_bar(x') for every
    neighbour x', with the rounding's 2^-39 allowed) and at least LS, so it may set the noise scale. Checked on random
    neighbour pairs of small clipped datasets, each drawn either from the ends of [0, 100] (large LS) or anywhere in
    it."""
    rng = np.random.default_rng(6)
    worst = 0.0
    for _ in range(3_000):
        n = int(rng.integers(2, 12))
        x = rng.choice([0.0, 100.0], size=n) if rng.random() < 0.3 else np.round(rng.uniform(0, 100, size=n), 1)
        beta = float(rng.choice([0.01, 0.05, 0.3, 1.0]))
        if n > 2 and rng.random() < 0.5:
            x_prime = np.delete(x, int(rng.integers(n)))
        else:
            x_prime = np.append(x, rng.choice([0.0, 100.0, float(rng.uniform(0, 100))]))
        s, s_prime = smooth_mean_cap(x, 0, 100, beta), smooth_mean_cap(x_prime, 0, 100, beta)
        for data, value in ((x, s), (x_prime, s_prime)):
            reference = _mean_cap_smooth(data, 0, 100, beta)
            assert reference * (1 - 1e-14) <= value <= reference * (1 + 2**-39)
        for a, b in ((s, s_prime), (s_prime, s)):
            assert a <= math.exp(beta + 2**-39) * b
            worst = max(worst, a / b / math.exp(beta))
        assert s >= _mean_local_sensitivity(x, 0, 100)
    assert worst > 0.99  # the factor e^beta is nearly reached: the test could fail


def test_a3_mean_cap_of_the_ages():
    """The cap S_bar that appendix A3 prints for the Adult ages (epsilon = 1, delta = 1/N^2, N = 48,842): within
    0.006% of their local sensitivity 0.0018862, and Lap(2 S_bar) has standard deviation 0.00534."""
    ages = load_adult()["Age"].to_numpy()
    beta = laplace_beta(1.0, 1 / 48_842**2)
    s_bar = smooth_mean_cap(ages, 0, 100, beta)
    assert f"{s_bar:.7f}" == "0.0018863"
    mean, n = ages.mean(), ages.size
    local = max(max(mean, 100 - mean) / (n + 1), max(mean - ages.min(), ages.max() - mean) / (n - 1))  # lesson 05
    assert f"{s_bar / local - 1:.3%}" == "0.006%"
    assert f"{math.sqrt(2) * 2 * s_bar:.5f}" == "0.00534"
    assert s_bar == pytest.approx(_mean_cap_smooth(ages, 0, 100, beta), rel=2**-39)


def test_a3_mean_cap_refuses_widths_outside_its_range():
    """smooth_mean_cap's rounding argument needs u - l in [2^-900, 2^900]: outside it, a ValueError naming the
    bounds and the range (a subnormal or overflowing width used to return a value below S_bar or far above it)."""
    for lower, upper in ((0.0, 1e-310), (0.0, 2.0**-901), (-1e308, 7e307), (0.0, 2.0**901)):
        with pytest.raises(ValueError, match=r"upper - lower must lie in \[2\*\*-900, 2\*\*900\]"):
            smooth_mean_cap([upper], lower, upper, 0.3)
    for lower, upper in ((0.0, 2.0**-900), (0.0, 2.0**900), (1.0, 1.0 + 2.0**-52)):
        assert smooth_mean_cap([lower, upper], lower, upper, 0.3) > 0


def _exact_mean_cap_above(data, lower, upper, beta):
    r"""An upper bound on the exact :math:`\bar S` of appendix A3, within :math:`10^{-50}` of it: the caps
    :math:`C_k` in fractions, each discount :math:`e^{-\beta k}` at 70 digits (correctly rounded) raised by
    :math:`10^{-60}` relative, the products rounded towards :math:`+\infty`."""
    ctx = decimal.Context(prec=70, rounding=decimal.ROUND_CEILING)
    values = [min(max(fractions.Fraction(v), fractions.Fraction(lower)), fractions.Fraction(upper)) for v in data]
    n, width = len(values), fractions.Fraction(upper) - fractions.Fraction(lower)
    mean = sum(values, fractions.Fraction(0)) / n
    top = max(mean - fractions.Fraction(lower), fractions.Fraction(upper) - mean)
    caps = [min(width, (top + k * width / (n - k)) / (n - k - 1)) if n - k - 1 > 0 else width for k in range(n + 1)]
    best = decimal.Decimal(0)
    for k, cap in enumerate(caps):
        discount = decimal.Context(prec=70).exp(decimal.Decimal(-beta) * k) * (1 + decimal.Decimal(10) ** -60)
        term = ctx.multiply(ctx.divide(decimal.Decimal(cap.numerator), decimal.Decimal(cap.denominator)), discount)
        best = max(best, term)
    return best


def test_a3_mean_cap_is_never_below_the_exact_value():
    """smooth_mean_cap against an exact reference (fractions for the caps, 70 digits for the discounts) on random
    small datasets over widths from 2^-890 to 2^890, bounds placed anywhere: never below the exact S_bar, and
    above it by a factor below 1 + 2^-39."""
    rng = np.random.default_rng(11)
    for _ in range(600):
        n = int(rng.integers(1, 10))
        scale = 2.0 ** int(rng.integers(-890, 891))
        lower = float(rng.uniform(-3, 3)) * scale
        upper = lower + float(rng.uniform(0.5, 1.5)) * scale
        data = lower + (upper - lower) * rng.choice([0.0, 1.0, float(rng.uniform())], size=n)
        beta = float(10.0 ** rng.uniform(-6, 1))
        got = decimal.Decimal(smooth_mean_cap(data, lower, upper, beta))
        exact = _exact_mean_cap_above(data, lower, upper, beta)
        assert exact <= got <= exact * decimal.Decimal(1 + 2**-39)
