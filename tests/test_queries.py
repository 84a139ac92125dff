"""Query conventions: numpy's functions, population std/var, linear percentiles, count = records."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import dpteach
from dpteach.queries import check_data, check_exact_sums

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


# ------------------------------------------------------------------------------------------ fail safe
@pytest.mark.parametrize("data", [[2**53 + 1], [1, -(2**53) - 1], np.array([2**62], dtype=np.int64),
                                  np.array([2**63], dtype=np.uint64), [2**70, 1]])
def test_integers_float64_would_round_are_refused(data) -> None:
    with pytest.raises(ValueError, match=r"data holds integers beyond 2\*\*53"):
        check_data(data)


def test_integers_up_to_two_to_the_53_are_kept_exactly() -> None:
    assert check_data([2**53, -(2**53), 7]).tolist() == [2**53, -(2**53), 7]
    assert check_data(np.array([2**53], dtype=np.int64))[0] == 2**53


def test_exact_sums_bound_the_largest_records() -> None:
    values = np.array([2.0**52, 2.0**52, 1.0, 1.0])
    check_exact_sums(values, 2)  # 2**53: still exact
    with pytest.raises(ValueError, match=r"universe holds whole numbers whose sums over 3 records reach 9\.007e\+15"):
        check_exact_sums(values, 3, "universe")
    check_exact_sums(values + 0.5, 4)  # fractional data follow float64 arithmetic: not checked
    with pytest.raises(ValueError, match="1.001e\\+309"):  # exact even beyond the float range
        check_exact_sums(np.full(1001, 1e306), 1001)


@pytest.mark.parametrize(("query", "data"), [("sum", [1e308, 1e308]), ("mean", [1e308, 1e308]),
                                             ("var", [-1e200, 1e200]), ("median", [1e308, 1.5e308]),
                                             (lambda x: float("nan"), [1.0])])
def test_non_finite_query_values_raise(query, data) -> None:
    """mean([1e308, 1e308]) overflows although the truth is 1e308: never hand such a value to a max."""
    with pytest.raises(ValueError, match="float64 overflow or NaN"):
        dpteach.evaluate(query, data)
