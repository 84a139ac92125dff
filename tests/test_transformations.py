"""dpteach.transformations: each stability bound holds on small tables, is tight somewhere, and bad input fails."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpteach import transformations as tr


def genres_step(max_rows: int = 3) -> tr.Step:
    return lambda table: tr.flat_map(table, tr.split_genres, max_rows)


TABLES = tr.example_tables()


# --- flat map -----------------------------------------------------------------------------------


def test_flat_map_keeps_at_most_max_rows_per_input_row() -> None:
    out = tr.flat_map(TABLES["people"], tr.split_genres, 3)
    assert out.stability == 3
    assert out.table.groupby("name").size().to_dict() == {"Ada": 3, "Bo": 1, "Cleo": 2, "Dev": 3}
    assert list(out.table.columns) == ["name", "genres", "genre"]


def test_flat_map_bound_is_tight_when_a_row_fills_max_rows() -> None:
    check = tr.empirical_stability(TABLES["people"], [genres_step()], tr.Count())
    assert check.holds and check.tight and check.bound == 3


def test_flat_map_bound_holds_but_is_loose_when_no_row_fills_it() -> None:
    short = TABLES["people"].iloc[[1, 2]]
    check = tr.empirical_stability(short, [genres_step()], tr.Count())
    assert check.holds and not check.tight and check.observed == 2


@settings(max_examples=25, deadline=None)
@given(
    lengths=st.lists(st.integers(min_value=1, max_value=5), min_size=1, max_size=4),
    max_rows=st.integers(min_value=1, max_value=4),
)
def test_flat_map_bound_holds_on_random_tables(lengths: list[int], max_rows: int) -> None:
    table = pd.DataFrame({"genres": [";".join(["g"] * n) for n in lengths]})
    check = tr.empirical_stability(table, [genres_step(max_rows)], tr.Count())
    assert check.holds
    assert check.tight == (max(lengths) >= max_rows)


def test_clamped_sum_after_flat_map_scales_by_the_clamp() -> None:
    table = TABLES["people"].assign(score=[5, -7, 1, 2])
    check = tr.empirical_stability(table, [genres_step()], tr.ClampedSum("score", -4, 3))
    assert check.bound == 12 and check.holds and check.observed == 9  # Ada: 3 rows of min(5, 3)


# --- public join --------------------------------------------------------------------------------


def test_public_join_factor_is_largest_key_multiplicity() -> None:
    out = tr.public_join(TABLES["residents"], TABLES["zip_states"], "zipcode")
    assert out.stability == 2
    assert sorted(out.table.loc[out.table["name"] == "Susie", "state"]) == ["KY", "TN"]


def test_public_join_bound_is_tight_with_susie() -> None:
    step: tr.Step = lambda t: tr.public_join(t, TABLES["zip_states"], "zipcode")  # noqa: E731
    check = tr.empirical_stability(TABLES["residents"], [step], tr.Count())
    assert check.tight and "row 2" in check.worst_change


def test_flat_map_then_public_join_multiplies() -> None:
    people = TABLES["people"].assign(zipcode=[37752, 10001, 60601, 94105])
    join: tr.Step = lambda t: tr.public_join(t, TABLES["zip_states"], "zipcode")  # noqa: E731
    check = tr.empirical_stability(people, [genres_step(), join], tr.Count())
    assert check.bound == 6 and check.tight


# --- private join -------------------------------------------------------------------------------


def join_step(a: int, b: int, protect: str) -> tr.Step:
    return lambda d: tr.private_join(d["users"], d["purchases"], "user_id", a, b, protect=protect)


def test_private_join_truncates_each_side() -> None:
    out = tr.private_join(TABLES["users"], TABLES["purchases"], "user_id", 2, 2)
    assert out.stability == 4
    assert out.table.groupby("user_id").size().to_dict() == {1: 2, 2: 1, 3: 2}


def test_private_join_key_bound_tight_when_a_key_fills_both_bounds() -> None:
    users = pd.DataFrame({"user_id": [1, 1, 2], "name": ["Ada", "Ada (work)", "Bo"]})
    tables = {"users": users, "purchases": TABLES["purchases"]}
    check = tr.empirical_stability(tables, [join_step(2, 2, "key")], tr.Count(), "id", "user_id")
    assert check.bound == 4 and check.tight


def test_private_join_key_bound_loose_with_one_row_per_user() -> None:
    tables = {"users": TABLES["users"], "purchases": TABLES["purchases"]}
    check = tr.empirical_stability(tables, [join_step(2, 2, "key")], tr.Count(), "id", "user_id")
    assert check.holds and check.observed == 2


def test_private_join_row_bound_is_tumults_and_holds() -> None:
    users = pd.DataFrame({"user_id": [1, 1, 1, 2], "name": ["a", "b", "c", "d"]})
    tables = {"users": users, "purchases": TABLES["purchases"]}
    check = tr.empirical_stability(tables, [join_step(2, 2, "row")], tr.Count())
    assert check.bound == 8 and check.holds and check.observed == 3  # a + b - 1 for a count


# --- per-ID truncation --------------------------------------------------------------------------


def test_rows_per_id_is_linear_and_tight() -> None:
    for limit in (1, 2, 3):
        step: tr.Step = lambda t, k=limit: tr.truncate_rows_per_id(t, "patient_id", k)  # noqa: E731
        check = tr.empirical_stability(TABLES["visits"], [step], tr.Count(), "id", "patient_id")
        assert check.bound == limit and check.tight


def groups_step(g: int, r: int, noise: str) -> tr.Step:
    return lambda t: tr.truncate_groups_per_id(t, "patient_id", "clinic", g, r, noise)


def test_groups_per_id_keeps_first_groups_and_rows() -> None:
    out = tr.truncate_groups_per_id(TABLES["visits"], "patient_id", "clinic", 2, 1, "laplace")
    assert out.table.to_dict("list") == {
        "patient_id": [1, 1, 2, 2, 3],
        "clinic": ["north", "south", "north", "south", "east"],
    }


@pytest.mark.parametrize(("noise", "norm"), [("laplace", "l1"), ("gaussian", "l2")])
def test_groups_per_id_tight_for_both_noises(noise: str, norm: str) -> None:
    by_clinic = tr.Count(by="clinic")
    check = tr.empirical_stability(TABLES["visits"], [groups_step(3, 2, noise)], by_clinic, "id", "patient_id")
    assert check.norm == norm and check.tight
    assert check.bound == pytest.approx(6 if noise == "laplace" else 2 * math.sqrt(3))


def test_gaussian_sqrt_rule_needs_the_groupby() -> None:
    assert tr.grouped_truncation_factor(4, 2, "gaussian") == 4
    assert tr.grouped_truncation_factor(4, 2, "gaussian", grouped=False) == 8
    step: tr.Step = lambda t: tr.truncate_groups_per_id(  # noqa: E731
        t, "patient_id", "clinic", 3, 2, "gaussian", grouped=False
    )
    check = tr.empirical_stability(TABLES["visits"], [step], tr.Count(), "id", "patient_id")
    assert check.bound == 6 and check.tight  # a total count adds all R * G rows together


@settings(max_examples=25, deadline=None)
@given(
    rows=st.lists(st.tuples(st.integers(0, 2), st.sampled_from("abcd")), min_size=1, max_size=9),
    g=st.integers(1, 3),
    r=st.integers(1, 3),
    noise=st.sampled_from(["laplace", "gaussian"]),
)
def test_groups_per_id_bound_holds_on_random_tables(
    rows: list[tuple[int, str]], g: int, r: int, noise: str
) -> None:
    table = pd.DataFrame(rows, columns=["patient_id", "clinic"])
    check = tr.empirical_stability(table, [groups_step(g, r, noise)], tr.Count(by="clinic"), "id", "patient_id")
    assert check.holds


# --- noise --------------------------------------------------------------------------------------


def test_noise_scales() -> None:
    assert tr.laplace_scale(6, 0.5) == 12
    assert tr.gaussian_variance(2 * math.sqrt(3), 0.5) == pytest.approx(12)


# --- bad input ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: tr.flat_map(TABLES["people"], tr.split_genres, 0), ValueError, "max_rows must be an integer >= 1"),
        (lambda: tr.flat_map(TABLES["people"], tr.split_genres, 2.5), TypeError, "max_rows must be an integer"),
        (lambda: tr.flat_map(TABLES["people"], tr.split_genres, True), TypeError, "max_rows"),
        (lambda: tr.flat_map([1, 2], tr.split_genres, 2), TypeError, "table must be a pandas DataFrame"),
        (lambda: tr.public_join(TABLES["residents"], TABLES["zip_states"], "zip"), ValueError, "on: column"),
        (lambda: tr.public_join(TABLES["residents"], TABLES["users"], "zipcode"), ValueError, "public table"),
        (lambda: tr.public_join(TABLES["residents"], TABLES["zip_states"], []), TypeError, "on must be"),
        (
            lambda: tr.private_join(TABLES["users"], TABLES["purchases"], "user_id", 2, 0),
            ValueError,
            "right_max_records must be an integer >= 1",
        ),
        (
            lambda: tr.private_join(TABLES["users"], TABLES["purchases"], "user_id", 2, 2, protect="id"),
            ValueError,
            "protect must be",
        ),
        (lambda: tr.truncate_rows_per_id(TABLES["visits"], "pid", 2), ValueError, "id_column: column"),
        (lambda: tr.truncate_rows_per_id(TABLES["visits"], "patient_id", -1), ValueError, "max_rows_per_id"),
        (
            lambda: tr.truncate_groups_per_id(TABLES["visits"], "patient_id", "ward", 2, 2, "laplace"),
            ValueError,
            "id_column/group_column",
        ),
        (lambda: tr.grouped_truncation_factor(2, 2, "normal"), ValueError, "noise must be 'laplace'"),
        (lambda: tr.grouped_truncation_factor(0, 2, "laplace"), ValueError, "max_groups_per_id"),
        (lambda: tr.laplace_scale(1, 0), ValueError, "epsilon must be a finite number > 0"),
        (lambda: tr.gaussian_variance(1, "a"), TypeError, "rho must be a number"),
        (lambda: tr.ClampedSum("x", 2, 1), ValueError, "lower <= upper"),
        (lambda: tr.empirical_stability(TABLES["people"], [], tr.Count()), ValueError, "steps"),
        (
            lambda: tr.empirical_stability(TABLES["people"], [genres_step()], tr.Count(), "id"),
            ValueError,
            "id_column",
        ),
        (
            lambda: tr.empirical_stability(TABLES["people"], [genres_step()], tr.Count(by="city")),
            ValueError,
            "by: column",
        ),
        (
            lambda: tr.empirical_stability(TABLES["people"], [genres_step()], tr.Count(), "person"),
            ValueError,
            "change must be",
        ),
    ],
)
def test_bad_input_raises_clear_errors(call, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        call()
