"""Query conventions: numpy's functions, population std/var, linear percentiles, count = records."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import dpteach

DAYS = [1, 2, 3, 10]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("mean", 4.0),
        ("median", 2.5),
        ("count", 4.0),
        ("sum", 16.0),
        ("var", 12.5),
        ("std", 12.5**0.5),
        ("percentile_25", 1.75),
        ("percentile_50", 2.5),
        ("percentile_75", 4.75),
        ("percentile_90", 7.9),
        ("percentile_0", 1.0),
        ("percentile_100", 10.0),
        ("percentile_12.5", 1.375),
    ],
)
def test_named_queries(query: str, expected: float) -> None:
    assert dpteach.evaluate(query, DAYS) == pytest.approx(expected)


def test_queries_list_is_the_blogs() -> None:
    assert dpteach.QUERIES == ("mean", "median", "count", "sum", "std", "var",
                               "percentile_25", "percentile_50", "percentile_75", "percentile_90")


@given(st.lists(st.integers(-50, 50), min_size=1, max_size=20), st.randoms())
def test_order_does_not_matter(values, random) -> None:
    shuffled = list(values)
    random.shuffle(shuffled)
    for query in dpteach.QUERIES:
        assert dpteach.evaluate(query, values) == dpteach.evaluate(query, shuffled)


def test_callable_and_series() -> None:
    import pandas as pd

    assert dpteach.evaluate(np.max, pd.Series(DAYS)) == 10.0
    assert dpteach.evaluate("median", (x for x in DAYS)) == 2.5
