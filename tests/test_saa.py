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
    assert result.value == pytest.approx(100.0, abs=1e-4)  # the chunk sizes add up to 1000


def test_shuffled_empty_chunks_answer_the_midpoint():
    result = sample_and_aggregate([5.0], np.mean, 1, 0.0, 10.0, 1e9, np.random.default_rng(1), chunking="shuffled")
    assert result.value == pytest.approx(5.0, abs=1e-6)
    data = np.zeros(3)
    sizes = [sample_and_aggregate(data, len, 3, 0.0, 30.0, 1e9, np.random.default_rng(s), chunking="shuffled")
             for s in range(20)]
    assert any(r.value != pytest.approx(1.0, abs=1e-6) for r in sizes)  # some seed leaves a chunk empty (15)


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
        ({"k": 0}, ValueError, "k must be >= 1 and <= len"),
        ({"k": 11}, ValueError, "k must be >= 1 and <= len"),
        ({"k": 2.5}, TypeError, "k must be an integer"),
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
    args = {"data": np.arange(10.0), "f": np.mean, "k": 2, "lower": 0.0, "upper": 10.0, "epsilon": 1.0,
            "rng": np.random.default_rng(0)} | kwargs
    with pytest.raises(error, match=message):
        sample_and_aggregate(**args)


def test_shuffled_chunking_also_checks_k():
    with pytest.raises(ValueError, match="k must be >= 1"):
        sample_and_aggregate([1.0, 2.0], np.mean, 3, 0.0, 1.0, 1.0, np.random.default_rng(0), chunking="shuffled")
