"""Tests for dpteach.ptr: distances to instability, the two thresholds and both PTR means."""

import decimal
import itertools
import math

import numpy as np
import pytest

from dpteach.datasets import load_adult
from dpteach.mechanisms import discrete_laplace
from dpteach.ptr import (
    book_distance_to_instability,
    book_mean_ls_at_distance,
    book_threshold,
    distance_to_instability,
    mean_distance_to_instability,
    mean_ls_at_distance,
    median_distance_to_instability,
    median_ls_at_distance,
    pass_probability,
    ptr_mean,
    ptr_mean_book,
    ptr_median,
    ptr_threshold,
    ptr_threshold_discrete,
)

N_ADULT = len(load_adult())


def test_book_threshold_matches_the_pinned_adult_value():
    assert N_ADULT == 32_561
    assert book_threshold(1.0, 1 / N_ADULT**2) == pytest.approx(10.73744412245554, rel=1e-13)


def test_corrected_threshold_fails_with_probability_exactly_delta():
    for epsilon, delta in [(1.0, 1e-6), (0.5, 0.01), (2.0, 1 / N_ADULT**2)]:
        threshold = ptr_threshold(epsilon, delta)
        assert 0.5 * math.exp(-epsilon * threshold) == pytest.approx(delta, rel=1e-9)


def test_book_threshold_fails_far_more_often_than_delta():
    delta = 1 / N_ADULT**2
    failure = 0.5 * math.exp(-book_threshold(1.0, delta))  # Pr[Lap(1) >= threshold] at distance 0
    assert failure == pytest.approx(0.5 * math.sqrt(delta / 2))
    assert failure > 1000 * delta


def test_monte_carlo_failure_rates_at_distance_zero():
    delta, epsilon = 0.01, 1.0
    noise = np.random.default_rng(5).laplace(0.0, 1 / epsilon, size=400_000)
    assert np.mean(noise >= ptr_threshold(epsilon, delta)) == pytest.approx(delta, rel=0.1)
    assert np.mean(noise >= book_threshold(epsilon, delta)) > 3 * delta


def test_ptr_threshold_rejects_delta_of_a_half_or_more():
    with pytest.raises(ValueError, match=r"delta must be in \(0, 0.5\)"):
        ptr_threshold(1.0, 0.5)


def _mean(values):
    return sum(values) / len(values)


def _local_sensitivity_add_remove(data, grid):
    """Brute force: largest change of the mean over all add-one (values in grid) and remove-one neighbours."""
    neighbours = [data + (v,) for v in grid] + [data[:i] + data[i + 1:] for i in range(len(data))]
    return max(abs(_mean(data) - _mean(nb)) for nb in neighbours if nb)


@pytest.mark.parametrize("k", [0, 1, 2])
def test_mean_ls_at_distance_bounds_brute_force_and_is_attained(k):
    lower, upper, n = 0.0, 100.0, 4
    grid = (lower, 50.0, upper)
    worst = 0.0
    for data in itertools.combinations_with_replacement(grid, n):
        reachable = {data}
        for _ in range(k):
            added = {tuple(sorted(y + (v,))) for y in reachable for v in grid}
            removed = {y[:i] + y[i + 1:] for y in reachable for i in range(len(y))}
            reachable |= added | removed
        reachable = {y for y in reachable if len(y) >= 2}
        worst = max(worst, max(_local_sensitivity_add_remove(y, grid) for y in reachable))
        assert max(_local_sensitivity_add_remove(y, grid) for y in reachable) <= (
            mean_ls_at_distance(n, k, lower, upper) + 1e-12
        )
    assert worst == pytest.approx(mean_ls_at_distance(n, k, lower, upper))


def test_book_bound_misses_removals():
    data = (0.0, 100.0, 100.0)
    assert _local_sensitivity_add_remove(data, (0.0, 100.0)) > book_mean_ls_at_distance(3, 0, 100.0)
    assert _local_sensitivity_add_remove(data, (0.0, 100.0)) == pytest.approx(
        mean_ls_at_distance(3, 0, 0.0, 100.0)
    )


def test_mean_ls_at_distance_is_vectorised_and_capped_at_the_width():
    values = mean_ls_at_distance(5, np.arange(8), 20.0, 80.0)
    assert values[0] == pytest.approx(12.0)
    assert np.all(values[4:] == 60.0)
    assert np.all(np.diff(values) >= 0)


def test_distance_to_instability_matches_a_linear_scan():
    rng = np.random.default_rng(2)
    for _ in range(50):
        a = np.cumsum(rng.random(30))
        b = float(rng.uniform(0, a[-1] * 1.1))
        expected = next((k for k in range(30) if a[k] > b), 29)
        assert distance_to_instability(lambda k, a=a: a[k], b, 29) == expected


def test_adult_distances_book_and_corrected():
    assert book_distance_to_instability(N_ADULT, 100.0, 0.005) == 12_562  # the chapter's loop stops at A >= b
    assert distance_to_instability(lambda k: mean_ls_at_distance(N_ADULT, k, 0.0, 100.0), 0.005, N_ADULT) == 12_562
    assert mean_distance_to_instability(N_ADULT, 0.0, 100.0, 0.005) == 12_562


@pytest.mark.parametrize(("n", "b", "book", "corrected"),
                         [(32_561, 0.0051, 12_955, 12_954), (19_606, 0.0051, 0, 0), (19_607, 0.0051, 1, 0),
                          (19_608, 0.0051, 2, 1)])
def test_corrected_mean_distance_is_one_below_the_chapters_unless_u_over_b_is_whole(n, b, book, corrected):
    assert book_distance_to_instability(n, 100.0, b) == book
    assert mean_distance_to_instability(n, 0.0, 100.0, b) == corrected
    closed_form = min(max(math.floor(n - 100.0 / b) + 1, 0), n)
    assert corrected == closed_form
    assert corrected == distance_to_instability(lambda k: mean_ls_at_distance(n, k, 0.0, 100.0), b, n)


@pytest.mark.parametrize(("b", "k_max", "error"), [(0.0, 3, ValueError), (1.0, -1, ValueError), (1.0, 2.0, ValueError)])
def test_distance_to_instability_rejects_bad_input(b, k_max, error):
    with pytest.raises(error, match="b must|k_max must"):
        distance_to_instability(lambda k: k, b, k_max)


def test_ptr_mean_releases_close_to_the_mean_on_a_stable_dataset():
    data = np.random.default_rng(0).uniform(20, 60, size=5000)
    result = ptr_mean(data, 0.0, 100.0, 0.05, 0.5, 0.5, 1e-6, np.random.default_rng(1))
    assert result.value is not None
    assert result.value == pytest.approx(data.mean(), abs=1.0)
    assert result.epsilon_spent == 1.0
    assert result.delta == 1e-6
    assert result.threshold == ptr_threshold_discrete(0.5, 1e-6) == 27
    assert isinstance(result.noisy_distance, int)


def _exact_pass_rate_at_distance_zero(epsilon: float, threshold: int) -> decimal.Decimal:
    """Pr[Z >= T] = e^(-eps T) / (1 + e^(-eps)) for discrete Laplace Z, in 60-digit decimal arithmetic."""
    with decimal.localcontext() as ctx:
        ctx.prec = 60
        eps = decimal.Decimal(epsilon)  # the exact double
        return (-eps * threshold).exp() / (1 + (-eps).exp())


@pytest.mark.parametrize("epsilon", [0.01, 0.1, 0.5, 1.0, math.log(3), 2.0, 7.5])
@pytest.mark.parametrize("delta", [1e-12, 1e-9, 1 / 32_561**2, 1e-6, 1e-3, 0.01, 0.05, 0.2, 0.49])
def test_discrete_threshold_fails_at_distance_zero_with_probability_at_most_delta_and_is_smallest(epsilon, delta):
    threshold = ptr_threshold_discrete(epsilon, delta)
    assert isinstance(threshold, int) and threshold >= 1
    assert _exact_pass_rate_at_distance_zero(epsilon, threshold) <= decimal.Decimal(delta)
    if threshold > 1:  # one less would fail too often (the widening never cost a step on this grid)
        assert _exact_pass_rate_at_distance_zero(epsilon, threshold - 1) > decimal.Decimal(delta)


def test_discrete_threshold_at_an_exact_boundary_still_holds():
    # (1 + e^-eps) delta = e^-(eps T) exactly in the reals: the float quotient lands on or next to T
    epsilon, threshold = 1.0, 14
    delta = math.exp(-epsilon * threshold) / (1 + math.exp(-epsilon))
    found = ptr_threshold_discrete(epsilon, delta)
    assert found in (threshold, threshold + 1)
    assert _exact_pass_rate_at_distance_zero(epsilon, found) <= decimal.Decimal(delta) * (1 + decimal.Decimal(1e-15))


def test_discrete_threshold_matches_sampled_discrete_laplace():
    rng = np.random.default_rng(21)
    draws = np.array([discrete_laplace(1, 1, rng) for _ in range(40_000)])  # scale 1/eps = 1
    threshold = ptr_threshold_discrete(1.0, 0.05)
    assert threshold == 3
    exact = float(_exact_pass_rate_at_distance_zero(1.0, threshold))
    assert np.mean(draws >= threshold) == pytest.approx(exact, abs=4 * math.sqrt(exact / 40_000))
    assert exact <= 0.05 < float(_exact_pass_rate_at_distance_zero(1.0, threshold - 1))


def test_ptr_mean_refuses_on_an_unstable_dataset():
    result = ptr_mean([10.0, 20.0, 30.0], 0.0, 100.0, 0.01, 1.0, 1.0, 1e-6, np.random.default_rng(1))
    assert result.value is None
    assert result.noisy_distance < result.threshold
    assert result.epsilon_spent == 2.0  # the budget is spent even for ⊥


def _chapter_loop(n, u, b):
    k = 0
    while u / (n - k + 1) < b:  # the chapter's dist_to_high_ls, line by line
        k += 1
    return k


@pytest.mark.parametrize(("n", "upper", "b"), [(N_ADULT, 100.0, 0.005), (N_ADULT, 100.0, 0.0051), (1000, 100.0, 0.3),
                                               (100, 10.0, 0.5), (5, 100.0, 1.0), (7, 100.0, 50.0)])
def test_book_distance_follows_the_chapters_loop(n, upper, b):
    assert book_distance_to_instability(n, upper, b) == _chapter_loop(n, upper, b)
    corrected = distance_to_instability(lambda k: mean_ls_at_distance(n, k, 0.0, upper), b, n)
    whole = (upper / b).is_integer() and upper / b <= n
    assert book_distance_to_instability(n, upper, b) == corrected + (0 if whole or corrected == 0 else 1)


def test_at_n_floor_u_over_b_a_dataset_at_true_distance_0_is_tested_by_the_chapter_as_1():
    b = 0.0051
    n = int(100.0 // b)  # 19,607: the largest n at which the bound u/n still exceeds b
    x = np.r_[np.zeros(n - 1), 100.0]  # its local sensitivity (removing the 100) is 100/n > b: true D = 0
    m = x.mean()
    ls = max(max(m, 100.0 - m) / (n + 1), max(m - x.min(), x.max() - m) / (n - 1))
    assert ls == pytest.approx(100.0 / n) and ls > b
    assert mean_distance_to_instability(n, 0.0, 100.0, b) == 0  # the bound's D, at most the true D
    assert book_distance_to_instability(n, 100.0, b) == 1


def test_ptr_mean_book_reproduces_the_chapter_set_up():
    ages = load_adult()["Age"]
    delta = 1 / len(ages) ** 2
    result = ptr_mean_book(ages, 100.0, 0.005, 1.0, delta, np.random.default_rng(4))
    assert result.threshold == book_threshold(1.0, delta)
    assert result.epsilon_spent == 2.0
    assert abs(result.noisy_distance - 12_562) < 20
    assert result.value == pytest.approx(ages.mean(), abs=0.2)


def test_ptr_mean_is_reproducible():
    runs = [ptr_mean([1.0] * 200, 0.0, 2.0, 0.1, 1.0, 1.0, 1e-3, np.random.default_rng(9)) for _ in range(2)]
    assert runs[0] == runs[1]


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"lower": 5.0, "upper": 1.0}, ValueError, "lower must be < upper"),
        ({"b": -1.0}, ValueError, "b must be a finite number > 0"),
        ({"epsilon_test": 0.0}, ValueError, "epsilon_test must be a finite number > 0"),
        ({"epsilon_release": -1.0}, ValueError, "epsilon_release must be a finite number > 0"),
        ({"delta": 1.0}, ValueError, r"delta must be in \(0, 1\)"),
        ({"data": []}, ValueError, "data must not be empty"),
        ({"rng": 3}, TypeError, "rng must be a numpy.random.Generator"),
    ],
)
def test_ptr_mean_rejects_bad_input(kwargs, error, message):
    args = {"data": [1.0, 2.0], "lower": 0.0, "upper": 10.0, "b": 1.0, "epsilon_test": 1.0,
            "epsilon_release": 1.0, "delta": 1e-3, "rng": np.random.default_rng(0)} | kwargs
    with pytest.raises(error, match=message):
        ptr_mean(**args)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [({"upper": 0.0}, "upper must be"), ({"epsilon": 0.0}, "epsilon must be"), ({"delta": 0.0}, "delta must be")],
)
def test_ptr_mean_book_rejects_bad_input(kwargs, message):
    args = {"data": [1.0, 2.0], "upper": 10.0, "b": 1.0, "epsilon": 1.0, "delta": 1e-3,
            "rng": np.random.default_rng(0)} | kwargs
    with pytest.raises(ValueError, match=message):
        ptr_mean_book(**args)


# ------------------------------------------------------------------------------------------ PTR on the median
def _median(values):
    ordered = sorted(values)
    return ordered[math.ceil(len(ordered) / 2) - 1]


def _brute_a(data, grid, k):
    """Largest replace-one local sensitivity of the median over datasets within k replacements (values in grid)."""
    def ls(y):
        return max(abs(_median(y) - _median(y[:i] + (v,) + y[i + 1:])) for i in range(len(y)) for v in grid)
    best = 0.0
    for positions in itertools.combinations(range(len(data)), k):
        for values in itertools.product(grid, repeat=k):
            y = list(data)
            for i, v in zip(positions, values, strict=True):
                y[i] = v
            best = max(best, ls(tuple(y)))
    return best


@pytest.mark.parametrize("data", [(0, 50, 50, 50, 100), (0, 0, 50, 50, 100), (10, 20, 30, 40), (5, 5, 70, 80, 95, 95)])
def test_median_ls_at_distance_matches_brute_force(data):
    grid = sorted(set(data) | {0, 100})  # maximisers only use the data's values and the bounds
    for k in range(3):
        assert median_ls_at_distance(data, 0, 100, k) == _brute_a(data, grid, k), k


def test_five_number_median_jumps_between_neighbours():
    assert median_ls_at_distance((0, 50, 50, 50, 100), 0, 100, 0) == 0
    assert median_ls_at_distance((0, 0, 50, 50, 100), 0, 100, 0) == 50
    assert list(median_ls_at_distance((0, 50, 50, 50, 100), 0, 100, np.arange(5))) == [0, 50, 50, 100, 100]


def test_median_distance_has_sensitivity_one_under_replacement():
    rng = np.random.default_rng(7)
    for _ in range(200):
        data = rng.integers(0, 6, size=int(rng.integers(1, 9))).astype(float) * 20
        other = data.copy()
        other[rng.integers(data.size)] = rng.integers(0, 6) * 20
        b = float(rng.choice([0.5, 20.5, 40.5, 60.5]))
        d, d_other = (median_distance_to_instability(x, 0, 100, b) for x in (data, other))
        assert abs(d - d_other) <= 1


def test_median_distance_is_the_first_k_above_b_and_capped_at_n():
    data = (0, 50, 50, 50, 100)
    assert median_distance_to_instability(data, 0, 100, 10) == 1
    assert median_distance_to_instability(data, 0, 100, 60) == 3
    assert median_distance_to_instability(data, 0, 100, 100) == 5  # b >= u - l: never unstable, capped at n


def test_ptr_median_releases_on_ties_and_refuses_on_spread_data():
    ages = load_adult()["Age"].to_numpy()
    run = ptr_median(ages, 0, 100, 0.01, 1.0, 1.0, 1e-9, np.random.default_rng(3))
    assert run.value == pytest.approx(np.median(ages), abs=0.2)
    assert run.epsilon_spent == 2.0 and run.threshold == ptr_threshold_discrete(1.0, 1e-9)
    spread = ptr_median(np.linspace(0, 100, 51), 0, 100, 0.01, 1.0, 1.0, 1e-9, np.random.default_rng(3))
    assert spread.value is None


def test_ptr_median_release_rate_at_distance_zero_is_at_most_delta():
    data = (0, 0, 50, 50, 100)  # D = 0 for b = 10
    rng = np.random.default_rng(11)
    released = [ptr_median(data, 0, 100, 10, 1.0, 1.0, 0.05, rng).value is not None for _ in range(20_000)]
    exact = float(_exact_pass_rate_at_distance_zero(1.0, ptr_threshold_discrete(1.0, 0.05)))  # 0.0364 < 0.05
    assert np.mean(released) == pytest.approx(exact, abs=0.006)
    textbook = [ptr_median(data, 0, 100, 10, 1.0, 1.0, 0.05, rng, noise="textbook").value is not None
                for _ in range(20_000)]
    assert np.mean(textbook) == pytest.approx(0.05, abs=0.006)  # the continuous threshold spends delta exactly


def test_ptr_releases_snap_to_a_grid_and_stay_in_the_public_range():
    rng = np.random.default_rng(12)
    ages = load_adult()["Age"].to_numpy()
    runs = [ptr_mean(ages, 0, 100, 0.01, 1.0, 1.0, 1e-9, rng) for _ in range(50)]
    values = np.array([r.value for r in runs])
    assert len(set(values)) > 1 and np.all(np.abs(values) <= 100)
    grid = 0.02  # b = 0.01 in units of the sensitivity: lambda just above 1, so Lambda = 2
    assert np.allclose(values / grid, np.round(values / grid), atol=1e-9)


def test_ptr_rejects_an_unknown_noise():
    with pytest.raises(ValueError, match="noise must be 'exact' or 'textbook'"):
        ptr_mean([1.0, 2.0], 0.0, 10.0, 1.0, 1.0, 1.0, 0.01, np.random.default_rng(0), noise="numpy")


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"lower": 5.0, "upper": 1.0}, ValueError, "lower must be < upper"),
        ({"b": 0.0}, ValueError, "b must be a finite number > 0"),
        ({"epsilon_test": -1.0}, ValueError, "epsilon_test must be"),
        ({"delta": 0.7}, ValueError, r"delta must be in \(0, 0.5\)"),
        ({"data": []}, ValueError, "data must not be empty"),
        ({"rng": 3}, TypeError, "rng must be a numpy.random.Generator"),
    ],
)
def test_ptr_median_rejects_bad_input(kwargs, error, message):
    args = {"data": [1.0, 2.0], "lower": 0.0, "upper": 10.0, "b": 1.0, "epsilon_test": 1.0,
            "epsilon_release": 1.0, "delta": 1e-3, "rng": np.random.default_rng(0)} | kwargs
    with pytest.raises(error, match=message):
        ptr_median(**args)


def test_median_ls_at_distance_rejects_bad_distances():
    with pytest.raises(ValueError, match="k must lie in"):
        median_ls_at_distance([1.0, 2.0], 0, 10, -1)
    with pytest.raises(TypeError, match="k must be an integer"):
        median_ls_at_distance([1.0, 2.0], 0, 10, 1.5)


def test_pass_probability_matches_sampling_and_shows_the_books_off_by_one():
    noise = np.random.default_rng(8).laplace(0.0, 1.0, size=400_000)
    for d, t in [(0, 2.0), (1, 2.0), (5, 2.0)]:
        assert pass_probability(d, t, 1.0) == pytest.approx(np.mean(d + noise >= t), abs=0.003)
    delta = 1 / N_ADULT**2
    t = book_threshold(1.0, delta)
    book = book_distance_to_instability(N_ADULT, 100.0, 0.0051)  # u/b not a whole number
    corrected = distance_to_instability(lambda k: mean_ls_at_distance(N_ADULT, k, 0.0, 100.0), 0.0051, N_ADULT)
    assert book == corrected + 1  # the book's A(k) = u/(n-k+1) is the corrected bound's A(k-1)
    assert pass_probability(1, t, 1.0) == pytest.approx(0.5 * math.exp(-(t - 1)))
    assert pass_probability(1, t, 1.0) / pass_probability(0, t, 1.0) == pytest.approx(math.e)


@pytest.mark.parametrize(("kwargs", "message"), [({"distance": math.nan}, "distance must be"),
                                                  ({"threshold": "1"}, "threshold must be"),
                                                  ({"epsilon": 0.0}, "epsilon must be")])
def test_pass_probability_rejects_bad_input(kwargs, message):
    with pytest.raises((ValueError, TypeError), match=message):
        pass_probability(**({"distance": 0, "threshold": 1.0, "epsilon": 1.0} | kwargs))


def test_the_chapters_threshold_passes_n_over_2_sqrt_2_times_delta_when_delta_is_1_over_n_squared():
    delta = 1 / N_ADULT**2
    ratio = pass_probability(0, book_threshold(1.0, delta), 1.0) / delta
    assert ratio == pytest.approx(N_ADULT / (2 * math.sqrt(2)))  # 1 / (2 sqrt(2 delta)), about 11,512 here
    assert 11_000 < ratio < 12_000
