"""Tests for dpteach.saa: chunk layouts, the noise scale per chunk formed, and both chunkings."""

import math

import numpy as np
import pytest

from dpteach.datasets import load_adult
from dpteach.saa import contiguous_layout, sample_and_aggregate

AGES = load_adult()["Age"].to_numpy()


def test_book_k_600_forms_593_chunks_of_55_rows():
    assert contiguous_layout(len(AGES), 600) == (55, 593)


@pytest.mark.parametrize(("n", "k", "expected"), [(10, 10, (1, 10)), (10, 3, (4, 3)), (10, 4, (3, 4)), (7, 1, (7, 1))])
def test_contiguous_layout_small_cases(n, k, expected):
    assert contiguous_layout(n, k) == expected


def test_noise_is_scaled_to_the_chunks_actually_formed():
    result = sample_and_aggregate(AGES, np.mean, 600, 20.0, 80.0, 1.0, np.random.default_rng(0))
    assert result.n_chunks == 593
    assert result.scale == pytest.approx(60 / 593)


def test_contiguous_value_is_the_mean_of_clipped_chunk_answers():
    data = np.array([1.0, 2.0, 3.0, 100.0, 5.0, 6.0, 7.0])
    result = sample_and_aggregate(data, np.max, 3, 0.0, 10.0, 1e9, np.random.default_rng(0))
    # chunks of 3: [1, 2, 3], [100, 5, 6], [7] -> max 3, 100 -> 10, 7
    assert result.n_chunks == 3
    assert result.value == pytest.approx((3 + 10 + 7) / 3, abs=1e-6)


def test_shuffled_chunking_puts_every_record_in_exactly_one_of_k_chunks():
    data = np.ones(1000)
    result = sample_and_aggregate(data, np.sum, 10, 0.0, 1000.0, 1e9, np.random.default_rng(1), chunking="shuffled")
    assert result.n_chunks == 10
    assert result.noisy_count == pytest.approx(10.0, abs=1e-6)
    assert result.value == pytest.approx(100.0, abs=1e-4)  # the chunk sizes add up to 1000


def test_shuffled_empty_chunks_add_nothing():
    # one record, three labels: two chunks are empty; the old design answered (8 + 5 + 5) / 3 = 6
    result = sample_and_aggregate([8.0], np.mean, 3, 0.0, 10.0, 1e9, np.random.default_rng(1), chunking="shuffled")
    assert result.value == pytest.approx(8.0, abs=1e-6)
    assert result.noisy_count == pytest.approx(1.0, abs=1e-6)


def test_shuffled_is_unbiased_with_many_empty_chunks():
    data = np.full(50, 10.0)  # 40 labels for 50 records: about 11 chunks stay empty
    values = [sample_and_aggregate(data, np.mean, 40, 0.0, 100.0, 1e6, np.random.default_rng(s),
                                   chunking="shuffled") for s in range(20)]
    assert all(r.noisy_count < 39.5 for r in values)  # empty chunks did occur
    assert all(r.value == pytest.approx(10.0, abs=1e-3) for r in values)


def _sum_and_count(data, seed, n_chunks=4, lower=0.0, upper=10.0):
    """(S, c) recovered from a release with negligible noise: c = noisy count, S = (value - midpoint) * c."""
    r = sample_and_aggregate(data, np.max, n_chunks, lower, upper, 1e12, np.random.default_rng(seed),
                             chunking="shuffled")
    return (r.value - (lower + upper) / 2) * r.noisy_count, r.noisy_count


def test_shuffled_sum_and_count_have_sensitivity_width_and_one_under_add_remove():
    rng = np.random.default_rng(3)
    for seed in range(300):
        data = list(rng.uniform(0, 10, size=int(rng.integers(1, 8))))
        labels = np.random.default_rng(seed).integers(0, 4, size=len(data) + 1)
        assert (np.random.default_rng(seed).integers(0, 4, size=len(data)) == labels[:-1]).all()  # coupling
        (s0, c0), (s1, c1) = _sum_and_count(data, seed), _sum_and_count(data + [float(rng.uniform(0, 10))], seed)
        assert abs(s1 - s0) <= 10.0 + 1e-6 and abs(c1 - c0) <= 1 + 1e-6


@pytest.mark.parametrize("data", [[], [3.0], [1.0, 2.0]])
def test_shuffled_answers_whatever_the_size(data):
    result = sample_and_aggregate(data, np.mean, 10, 0.0, 10.0, 1.0, np.random.default_rng(0), chunking="shuffled")
    assert 0.0 <= result.value <= 10.0 and result.n_chunks == 10


def test_contiguous_on_sorted_data_breaks_the_replace_one_bound():
    """One replacement in value-ordered data shifts every chunk: the mean of the answers moves by c times the
    sensitivity the noise is scaled to."""
    data = np.repeat(np.arange(10.0), 2)  # sorted pairs (0, 0), (1, 1), ...: every chunk of 2 has range 0
    other = data.copy()
    other[0] = 9.5  # one record replaced
    runs = [sample_and_aggregate(np.sort(x), np.ptp, 10, 0.0, 1.0, 1e9, np.random.default_rng(0))
            for x in (data, other)]
    bound = runs[0].scale * 1e9  # (u - l) / c, the change the noise is calibrated to
    assert abs(runs[1].value - runs[0].value) > 9 * bound
    by_position = [sample_and_aggregate(x, np.ptp, 10, 0.0, 1.0, 1e9, np.random.default_rng(0)) for x in (data, other)]
    assert abs(by_position[1].value - by_position[0].value) <= bound + 1e-6


def test_shuffled_chunking_is_reproducible_and_seed_dependent():
    runs = [sample_and_aggregate(AGES, np.median, 100, 20.0, 80.0, 1.0, np.random.default_rng(s),
                                 chunking="shuffled").value for s in (3, 3, 4)]
    assert runs[0] == runs[1] != runs[2]


def test_more_chunks_means_less_noise_on_adult():
    scales = [sample_and_aggregate(AGES, np.mean, k, 20.0, 80.0, 1.0, np.random.default_rng(0)).scale
              for k in (10, 1000, 6000)]
    assert scales[0] > scales[1] > scales[2]
    assert math.isclose(scales[0], 6.0)


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"n_chunks": 0}, ValueError, "n_chunks must be >= 1 and <= len"),
        ({"n_chunks": 11}, ValueError, "n_chunks must be >= 1 and <= len"),
        ({"n_chunks": 2.5}, TypeError, "n_chunks must be an integer"),
        ({"chunking": "random"}, ValueError, "chunking must be 'contiguous' or 'shuffled'"),
        ({"f": 3}, TypeError, "f must be a callable"),
        ({"f": lambda x: math.nan}, ValueError, "f must return a finite number"),
        ({"lower": 1.0, "upper": 0.0}, ValueError, "lower must be < upper"),
        ({"epsilon": 0.0}, ValueError, "epsilon must be"),
        ({"rng": "x"}, TypeError, "rng must be"),
        ({"data": []}, ValueError, "empty"),
    ],
)
def test_sample_and_aggregate_rejects_bad_input(kwargs, error, message):
    args = {"data": np.arange(10.0), "f": np.mean, "n_chunks": 2, "lower": 0.0, "upper": 10.0, "epsilon": 1.0,
            "rng": np.random.default_rng(0)} | kwargs
    with pytest.raises(error, match=message):
        sample_and_aggregate(**args)


def test_shuffled_chunking_checks_n_chunks_but_not_the_size():
    with pytest.raises(ValueError, match="n_chunks must be >= 1"):
        sample_and_aggregate([1.0, 2.0], np.mean, 0, 0.0, 1.0, 1.0, np.random.default_rng(0), chunking="shuffled")
    with pytest.raises(ValueError, match="data must hold finite"):
        sample_and_aggregate([1.0, np.nan], np.mean, 3, 0.0, 1.0, 1.0, np.random.default_rng(0), chunking="shuffled")


def test_default_noise_is_exact_and_textbook_noise_stays_available():
    exact = sample_and_aggregate(AGES, np.mean, 40, 20.0, 80.0, 1.0, np.random.default_rng(2), chunking="shuffled")
    assert isinstance(exact.noisy_count, int)
    textbook = sample_and_aggregate(AGES, np.mean, 40, 20.0, 80.0, 1.0, np.random.default_rng(2),
                                    chunking="shuffled", noise="textbook")
    assert isinstance(textbook.noisy_count, float) and textbook.noisy_count != round(textbook.noisy_count)
    contiguous = [sample_and_aggregate(AGES, np.mean, 600, 20.0, 80.0, 1.0, np.random.default_rng(s)).value
                  for s in range(20)]
    grid = 2 * 60 / 593  # snapping grid: Lambda = 2 in units of the sensitivity (u - l)/c
    assert np.allclose(np.array(contiguous) / grid, np.round(np.array(contiguous) / grid), atol=1e-6)
    with pytest.raises(ValueError, match="noise must be 'exact' or 'textbook'"):
        sample_and_aggregate(AGES, np.mean, 10, 20.0, 80.0, 1.0, np.random.default_rng(0), noise="numpy")


def test_book_k_6000_contiguous_chunks_hold_five_or_six_but_shuffled_ones_do_not():
    """Lesson 07: contiguous slices of 6 rows hold 6 people (the last one 5); shuffled labels give random sizes,
    a Binomial(n, 1/K): about a third of the chunks hold 5 or 6 and some are empty."""
    n = len(AGES)
    size, formed = contiguous_layout(n, 6000)
    assert (size, formed) == (6, 5427) and n - (formed - 1) * size == 5
    sizes = np.bincount(np.random.default_rng(0).integers(0, 6000, size=n), minlength=6000)
    assert sizes.min() == 0 and sizes.max() >= 13
    share = np.isin(sizes, [5, 6]).mean()
    p = 1 / 6000
    expected = sum(math.comb(n, j) * p**j * (1 - p) ** (n - j) for j in (5, 6))
    assert 0.32 < expected < 0.33 and abs(share - expected) < 0.03


def test_midpoint_for_empty_chunks_would_pull_the_mean_at_k_6000():
    """Lesson 07: 26.4 empty chunks expected at K = 6000; a midpoint answer would pull the mean by +0.0502."""
    n, mean = len(AGES), AGES.mean()
    empty = 6000 * (1 - 1 / 6000) ** n
    assert round(empty, 1) == 26.4
    assert round(empty / 6000 * (50 - mean), 4) == 0.0502


def test_safe_contiguous_release_at_k_10_sits_on_a_12_year_grid_whose_point_36_is_6_691_percent_off():
    """Lesson 07: the snapped release's grid at epsilon = 1 is 2 (u - l)/c = 12 years at K = 10; the grid point nearest
    the mean is 36, |36 - mean|/mean = 6.691%: what an error histogram of safe releases would show."""
    mean = AGES.mean()
    values = np.array([sample_and_aggregate(AGES, np.mean, 10, 20.0, 80.0, 1.0, np.random.default_rng(s)).value
                       for s in range(30)])
    assert np.allclose(values / 12, np.round(values / 12))
    assert np.mean(values == 36.0) > 0.4
    assert round(abs(36 - mean) / mean * 100, 3) == 6.691


def test_shuffled_keeps_the_composition_split_on_sum_and_count():
    """Lesson 07 and the docstring: S gets Lap(2(u - l)/eps) and c gets Lap(2/eps) (epsilon/2 each, the composition
    bound the snapping sampler is proven for), not the halved sum noise a finer argument allows over the reals."""
    result = sample_and_aggregate(AGES, np.mean, 1000, 20.0, 80.0, 1.0, np.random.default_rng(0), chunking="shuffled")
    assert result.scale == pytest.approx(2 * 60 / 1.0) and result.epsilon == 1.0
    counts = [sample_and_aggregate([], np.mean, 4, 0.0, 10.0, 1.0, np.random.default_rng(s), chunking="shuffled",
                                 noise="textbook").noisy_count for s in range(4000)]
    assert np.std(counts) == pytest.approx(np.sqrt(2) * 2 / 1.0, rel=0.1)  # Lap(2/eps) on the count: sd 2 sqrt 2
