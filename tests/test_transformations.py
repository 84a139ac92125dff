"""dpteach.transformations: each stability bound holds on small tables, is tight somewhere, and bad input fails."""

from __future__ import annotations

import math
from itertools import product

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpteach import transformations as tr
from dpteach.mechanisms import analytic_gaussian_sigma


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
    assert check.bound == 8 and check.holds and check.observed == 3  # both changes hit user 1: a + b - 1


def test_private_join_count_moves_by_a_plus_b_when_the_changes_hit_two_keys() -> None:
    tables = {"users": pd.DataFrame({"user_id": [1, 2, 2]}), "purchases": pd.DataFrame({"user_id": [1, 1, 2]})}
    check = tr.empirical_stability(tables, [join_step(2, 2, "row")], tr.Count())
    assert check.observed == 4 == tr.private_join_count_sensitivity(2, 2, "row")  # not a + b - 1 = 3
    assert check.worst_change == "users: remove row 0; purchases: remove row 2"


def test_guide_product_is_no_count_bound_under_row_protection() -> None:
    tables = {"users": pd.DataFrame({"user_id": [1, 2]}), "purchases": pd.DataFrame({"user_id": [1, 1, 1, 2, 2, 2]})}
    check = tr.empirical_stability(tables, [join_step(1, 3, "row")], tr.Count())
    assert check.observed == 4 == tr.private_join_count_sensitivity(1, 3, "row") > 1 * 3
    assert tr.private_join_count_sensitivity(1, 3, "key") == 3


def test_clamped_sum_after_private_join_feels_the_swap() -> None:
    users = pd.DataFrame({"user_id": [1, 1, 1, 2, 2], "v": [1, -1, -1, 1, 1]})
    tables = {"users": users, "purchases": pd.DataFrame({"user_id": [1, 1, 2, 2]})}
    check = tr.empirical_stability(tables, [join_step(2, 2, "row")], tr.ClampedSum("v", -1, 1))
    assert check.holds and check.observed == 6 > 2 * 2  # above a * b and above a + b; within 2 (a + b)


@settings(max_examples=30, deadline=None)
@given(
    left=st.lists(st.integers(1, 3), min_size=1, max_size=4),
    right=st.lists(st.integers(1, 3), min_size=1, max_size=4),
    a=st.integers(1, 3),
    b=st.integers(1, 3),
)
def test_private_join_count_bounds_hold_on_random_tables(left: list[int], right: list[int], a: int, b: int) -> None:
    tables = {"users": pd.DataFrame({"user_id": left}), "purchases": pd.DataFrame({"user_id": right})}
    by_row = tr.empirical_stability(tables, [join_step(a, b, "row")], tr.Count())
    by_key = tr.empirical_stability(tables, [join_step(a, b, "key")], tr.Count(), "id", "user_id")
    assert by_row.observed <= tr.private_join_count_sensitivity(a, b, "row")
    assert by_key.observed <= tr.private_join_count_sensitivity(a, b, "key") == by_key.bound


@pytest.mark.parametrize(("a", "b"), [(1, 1), (1, 3), (2, 2), (3, 2)])
def test_private_join_count_moves_by_at_most_a_plus_b_minus_1_when_both_changes_hit_one_user(a: int, b: int) -> None:
    for x, y in product(range(1, a + 2), range(1, b + 2)):  # one user with x rows in users, y in purchases
        tables = {"users": pd.DataFrame({"user_id": [1] * x}), "purchases": pd.DataFrame({"user_id": [1] * y})}
        check = tr.empirical_stability(tables, [join_step(a, b, "row")], tr.Count())
        assert check.observed <= a + b - 1
        if (x, y) == (a - 1, b - 1) and a > 1 and b > 1:  # room for one more row on each side
            assert check.observed == a + b - 1


def test_tumults_join_formula_is_the_row_stability() -> None:
    for a, b in [(2, 2), (1, 3), (3, 1)]:
        drop_excess, add_one_row = 2, 1  # S of DropExcess, M of AddOneRow (TruncationStrategy docstring)
        tumult = a * drop_excess * add_one_row + b * drop_excess * add_one_row
        stability = tr.private_join(TABLES["users"], TABLES["purchases"], "user_id", a, b, "row").stability
        assert stability == tumult == 2 * (a + b)


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


def first_gaussian_win_on_grid(sigma_per_unit: float, epsilon: float) -> int:
    """The crossover by direct comparison of the two standard deviations, G = 1, 2, ..."""
    return next(g for g in range(1, 10_000) if sigma_per_unit * math.sqrt(g) < math.sqrt(2) * g / epsilon)


def test_crossover_with_the_zcdp_conversion_is_fifteen() -> None:
    rho = tr.zcdp_rho_for(1.0, 1e-6)
    sigma = math.sqrt(tr.gaussian_variance(1.0, rho))
    assert rho == pytest.approx(0.01747, abs=5e-6) and sigma == pytest.approx(5.35, abs=5e-3)
    assert tr.gaussian_beats_laplace_from(sigma, 1.0) == 15 == first_gaussian_win_on_grid(sigma, 1.0)


@pytest.mark.parametrize("epsilon", [1.0, 0.5, 0.1, 2.0, 3.7])
@pytest.mark.parametrize("delta", [1e-6, 1e-9, 1e-3, 0.05])
def test_zcdp_rho_never_converts_above_the_target(epsilon: float, delta: float) -> None:
    rho = tr.zcdp_rho_for(epsilon, delta)
    assert tr._zcdp_epsilon(rho, delta) <= epsilon
    assert rho + 2 * math.sqrt(rho * math.log(1 / delta)) <= epsilon
    assert tr._zcdp_epsilon(rho, delta) == pytest.approx(epsilon, rel=1e-12)  # rounded down by ulps, no more


def test_crossover_with_the_analytic_gaussian_is_nine() -> None:
    sigma = analytic_gaussian_sigma(1.0, 1.0, 1e-6)
    assert sigma == pytest.approx(4.22, abs=5e-3)
    assert tr.gaussian_beats_laplace_from(sigma, 1.0) == 9 == first_gaussian_win_on_grid(sigma, 1.0)


@pytest.mark.parametrize(("sigma", "epsilon"), [(2.0, 1.0), (3.0, 0.5), (0.1, 1.0), (7.3, 0.25), (4.0, 2.0)])
def test_crossover_closed_form_matches_the_direct_comparison(sigma: float, epsilon: float) -> None:
    assert tr.gaussian_beats_laplace_from(sigma, epsilon) == first_gaussian_win_on_grid(sigma, epsilon)


def test_crossover_is_strict_at_a_tie() -> None:
    assert tr.gaussian_beats_laplace_from(2.0, 1.0) == 3  # at G = 2 both standard deviations are 2 sqrt(2)


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
        (lambda: tr.private_join_count_sensitivity(2, 2, "user"), ValueError, "protect must be"),
        (lambda: tr.private_join_count_sensitivity(0, 2), ValueError, "left_max_records"),
        (lambda: tr.gaussian_beats_laplace_from(math.nan, 1.0), ValueError, "sigma_per_unit"),
        (lambda: tr.gaussian_beats_laplace_from(4.0, -1.0), ValueError, "epsilon"),
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
