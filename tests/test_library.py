"""The numbers behind notebook 09: OpenDP's bounds beside dpteach's exact values, and the float-sum counterexample."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpteach import library as lib

BOUNDS, SIZE = (-3, 7), 4
LOWER, UPPER = BOUNDS
WIDEST = max(abs(LOWER), abs(UPPER))


@pytest.mark.parametrize("k", [1, 2, 3])
def test_integer_queries_agree_where_exact_arithmetic_says_they_must(k: int) -> None:
    assert lib.opendp_bound("count", "add/remove", BOUNDS, SIZE, k) == lib.dpteach_value(
        "count", "add/remove", BOUNDS, SIZE, k) == k
    assert lib.opendp_bound("integer sum", "add/remove", BOUNDS, SIZE, k) == lib.dpteach_value(
        "integer sum", "add/remove", BOUNDS, SIZE, k) == k * WIDEST
    assert lib.opendp_bound("integer sum", "change-one", BOUNDS, SIZE, k) == lib.dpteach_value(
        "integer sum", "change-one", BOUNDS, SIZE, k) == k * (UPPER - LOWER)


@pytest.mark.parametrize("k", [1, 2, 3])
def test_opendp_counts_a_change_as_two_where_the_sized_count_cannot_move(k: int) -> None:
    assert lib.opendp_bound("count", "change-one", BOUNDS, SIZE, k) == 2 * k
    assert lib.dpteach_value("count", "change-one", BOUNDS, SIZE, k) == 0


def test_the_unsized_float_sum_pays_for_truncation_and_rounding() -> None:
    opendp = lib.opendp_bound("float sum", "add/remove", BOUNDS, SIZE, 1)
    assert opendp == lib.opendp_float_sum(lib.OPENDP_SIZE_LIMIT, BOUNDS, "Pairwise<f64>").map(1)
    assert UPPER - LOWER < opendp < UPPER - LOWER + 1e-6
    exact = lib.dpteach_value("float sum", "add/remove", BOUNDS, SIZE, 1)
    assert WIDEST < exact < WIDEST + 1e-9  # dpteach's rounded-up value on fractional data, above the truth


@pytest.mark.parametrize("bounds, cost", [((5, 7), 7), ((-7, -5), 7), ((-3, 7), 10), ((0, 1), 1)])
def test_the_unsized_float_sum_costs_the_largest_of_width_and_both_ends(bounds: tuple[int, int], cost: int) -> None:
    for k in (1, 2, 3):
        real = lib.real_value("float sum", "add/remove", "opendp", bounds, SIZE, k)
        assert real == k * cost == k * max(bounds[1] - bounds[0], abs(bounds[0]), abs(bounds[1]))
        padding = lib.opendp_bound("float sum", "add/remove", bounds, SIZE, k) - real
        assert 0 < padding < 1e-7


def test_padded_text_shows_each_float_number_as_real_value_plus_padding() -> None:
    table = lib.comparison_table(BOUNDS, SIZE, (1, 2, 3, 4))
    lines = lib.padded_text(table, BOUNDS, SIZE).splitlines()
    assert "k = 1" in lines[0] and "k = 4" in lines[0]
    opendp_sum = next(line for line in lines if line.startswith("float sum"))
    assert "10 + 6.5e-08" in opendp_sum and "40 + 6.5e-08" in opendp_sum
    assert max(len(line) for line in lines) <= 90  # fits a slide


def test_padded_text_without_allowance_shows_the_real_values_only() -> None:
    table = lib.comparison_table(BOUNDS, SIZE, (1, 2, 3, 4))
    lines = lib.padded_text(table, BOUNDS, SIZE, allowance=False).splitlines()
    assert lines[0].startswith("real value") and not any("+" in line for line in lines)
    opendp_sum = next(line for line in lines if line.startswith("float sum")).split()
    assert opendp_sum[-4:] == ["10", "20", "30", "40"]


def test_padded_text_prints_counts_and_integer_sums_whole() -> None:
    table = lib.comparison_table(BOUNDS, SIZE, (1, 4))
    lines = lib.padded_text(table, BOUNDS, SIZE, queries=lib.QUERIES).splitlines()
    assert lines[2].split() == ["count", "add/remove", "OpenDP", "1", "4"]
    integer_sum = next(line for line in lines if line.startswith("integer sum")).split()
    assert integer_sum[-2:] == ["7", "28"]
    assert "10 + 6.5e-08" in next(line for line in lines if line.startswith("float sum"))
    assert max(len(line) for line in lines) <= 90  # fits a slide


@pytest.mark.parametrize("query", ["count", "integer sum", "float sum", "mean"])
@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_n_copies_give_the_same_add_remove_values_as_n_plus_k(query: str, k: int) -> None:
    """Lesson 02 asks for n + k copies under add/remove; on these grids n copies already reach every value."""
    from dpteach import global_sensitivity, replicate

    name = "sum" if query.endswith("sum") else query
    wider = replicate(np.unique(lib.replicated_universe(query, BOUNDS, SIZE)), SIZE + k)
    assert lib.dpteach_value(query, "add/remove", BOUNDS, SIZE, k) == float(
        global_sensitivity(wider, SIZE, name, k=k, relation="symmetric"))


def test_dpteach_float_value_rounds_up_the_enumerated_one() -> None:
    from dpteach import global_sensitivity

    universe = lib.replicated_universe("float sum", BOUNDS, SIZE)
    enumerated = global_sensitivity(universe, SIZE, "sum", relation="symmetric", method="enumerate")
    assert enumerated == WIDEST
    assert lib.dpteach_value("float sum", "add/remove", BOUNDS, SIZE, 1) >= enumerated


@pytest.mark.parametrize("k", [1, 2, 3, 4, 5, 6])
def test_the_resized_mean_grows_with_k_the_exact_one_stops_at_n_minus_one(k: int) -> None:
    """The exact add/remove mean stays at (n - 1)(U - L)/n up to k = n (a neighbour within distance n keeps a record)
    and is U - L from k = n + 1 on: n records at L against one disjoint record at U."""
    opendp = lib.opendp_bound("mean", "add/remove", BOUNDS, SIZE, k)
    assert math.isclose(opendp, k * (UPPER - LOWER) / SIZE, rel_tol=1e-13) and opendp >= k * (UPPER - LOWER) / SIZE
    exact = lib.dpteach_value("mean", "add/remove", BOUNDS, SIZE, k)
    truth = min(k, SIZE - 1) * (UPPER - LOWER) / SIZE if k <= SIZE else UPPER - LOWER
    assert math.isclose(exact, truth, rel_tol=1e-12) and exact >= truth


@pytest.mark.parametrize("size", [2, 3, 4, 5])
def test_the_plain_mean_moves_by_the_width_over_its_fixed_size(size: int) -> None:
    """dpteach's add/remove value holds for releases of exactly n records: (U - L)/n at k = 1, so no bound free of
    n exists when n is secret (a release of 2 records moves by (U - L)/2)."""
    exact = lib.dpteach_value("mean", "add/remove", BOUNDS, size, 1)
    assert math.isclose(exact, (UPPER - LOWER) / size, rel_tol=1e-12) and exact >= (UPPER - LOWER) / size


def test_opendp_mean_needs_a_known_size_and_the_resize_gives_it() -> None:
    import opendp.prelude as dp

    dp.enable_features("contrib")
    floats = (dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.symmetric_distance())
    clamped = floats >> dp.t.then_clamp((float(LOWER), float(UPPER)))
    with pytest.raises(dp.OpenDPException, match="size must be known"):
        clamped >> dp.t.then_mean()
    resized = clamped >> dp.t.then_resize(size=SIZE, constant=(LOWER + UPPER) / 2) >> dp.t.then_mean()
    for k in (1, 2, 3, 4):
        assert resized.map(k) == lib.opendp_bound("mean", "add/remove", BOUNDS, SIZE, k)


def test_laplace_noise_after_the_float_sum_pays_the_relaxation() -> None:
    import opendp.prelude as dp

    dp.enable_features("contrib")
    floats = (dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.symmetric_distance())
    clamped_sum = floats >> dp.t.then_clamp((0.0, 1.0)) >> dp.t.then_sum()
    epsilon = (clamped_sum >> dp.m.then_laplace(scale=1.0)).map(1)
    relaxation = lib.opendp_float_sum(lib.OPENDP_SIZE_LIMIT, (0, 1), "Pairwise<f64>").map(1) - 1
    assert 1 < epsilon and math.isclose(epsilon - 1, relaxation, rel_tol=1e-6)


def test_one_and_a_half_spacings_tie_to_even_and_add_two() -> None:
    unit = 2.0**-23
    x = np.full(1000, np.float32(1.5 * unit), dtype=np.float32)
    gap = lib.sum_gap(x, np.concatenate([np.array([1.0], dtype=np.float32), x]))
    assert gap == 1 + 1000 * (2 - 1.5) * unit


def test_change_one_at_k_equal_n_is_undefined_in_dpteach() -> None:
    assert math.isnan(lib.dpteach_value("mean", "change-one", BOUNDS, SIZE, SIZE))
    table = lib.comparison_table(BOUNDS, SIZE, (1, 2))
    assert len(table) == len(lib.QUERIES) * len(lib.NEIGHBOURS) * 2
    assert (table["difference"] == table["opendp"] - table["dpteach"]).all()


def test_both_sides_pad_their_real_value_by_a_little() -> None:
    padding = lib.padding_table(lib.comparison_table(BOUNDS, SIZE, (1, 2, 3, 4)), BOUNDS, SIZE)
    values = padding[[1, 2, 3, 4]].to_numpy(dtype=float)
    known = values[~np.isnan(values)]
    assert (known > 0).all() and (known < 1e-7).all()


def test_where_both_pad_the_same_real_value_dpteach_pads_more() -> None:
    padding = lib.padding_table(lib.comparison_table(BOUNDS, SIZE, (1, 2, 3)), BOUNDS, SIZE)
    for query, neighbours in [("float sum", "change-one"), ("mean", "change-one"), ("mean", "add/remove")]:
        ours, theirs = (padding.loc[(query, neighbours, lib.SOURCES[s])] for s in ("dpteach", "opendp"))
        assert all(lib.real_value(query, neighbours, "dpteach", BOUNDS, SIZE, k)
                   == lib.real_value(query, neighbours, "opendp", BOUNDS, SIZE, k) for k in (1, 2, 3))
        assert (ours[[1, 2, 3]].astype(float) > theirs[[1, 2, 3]].astype(float)).all()


def test_the_unsized_float_sum_pads_more_than_dpteach_on_a_smaller_real_value() -> None:
    padding = lib.padding_table(lib.comparison_table(BOUNDS, SIZE, (1,)), BOUNDS, SIZE)
    ours, theirs = (padding.loc[("float sum", "add/remove", lib.SOURCES[s])] for s in ("dpteach", "opendp"))
    assert (ours["real value"], theirs["real value"]) == (f"{WIDEST}k", f"{UPPER - LOWER}k")
    assert 1000 * ours[1] < theirs[1]


@pytest.mark.parametrize("fraction", [0.625, 0.75])
def test_rounding_up_each_small_record_breaks_the_ideal_bound(fraction: float) -> None:
    count = 2**20
    x, x_prime = lib.rounding_pair(fraction, count)
    unit = 2.0**-23  # float32's spacing at 1
    assert lib.sequential_sum(x) == count * fraction * unit  # exact
    assert lib.sum_gap(x, x_prime) == 1 + count * unit * (1 - fraction) > 1


@pytest.mark.parametrize("fraction", [0.25, 0.5, 1.0])
def test_no_violation_when_the_small_records_round_away_or_add_exactly(fraction: float) -> None:
    x, x_prime = lib.rounding_pair(fraction, 1000)
    assert lib.sum_gap(x, x_prime) <= 1


def test_numpy_pairwise_sum_hides_what_the_running_total_shows() -> None:
    x, x_prime = lib.rounding_pair(0.625, 2**20)
    assert float(np.sum(x_prime)) - float(np.sum(x)) < lib.sum_gap(x, x_prime)


@pytest.mark.parametrize("summation", ["Sequential<f32>", "Pairwise<f32>"])
def test_opendp_float_sum_covers_the_gap_of_its_own_arithmetic(summation: str) -> None:
    x, x_prime = lib.rounding_pair(0.625, 2**16)
    transformation = lib.opendp_float_sum(x_prime.size, (0, 1), summation)
    gap = abs(transformation(x_prime.tolist()) - transformation(x.tolist()))
    assert gap <= transformation.map(1)
    if summation.startswith("Sequential"):
        assert gap == lib.sum_gap(x, x_prime) > 1


def test_rounding_gaps_marks_the_violations() -> None:
    table = lib.rounding_gaps(4096)
    assert list(table["above the ideal bound"]) == [False, False, True, True, False]


@pytest.mark.parametrize(
    "call",
    [
        lambda: lib.opendp_bound("median", "add/remove", BOUNDS, SIZE, 1),
        lambda: lib.opendp_bound("count", "bounded", BOUNDS, SIZE, 1),
        lambda: lib.opendp_bound("count", "add/remove", (7, -3), SIZE, 1),
        lambda: lib.opendp_bound("count", "add/remove", (0.5, 3), SIZE, 1),
        lambda: lib.opendp_bound("count", "add/remove", BOUNDS, 1, 1),
        lambda: lib.opendp_bound("count", "add/remove", BOUNDS, SIZE, 0),
        lambda: lib.rounding_pair(0.0, 10),
        lambda: lib.rounding_pair(0.5, 0),
        lambda: lib.sequential_sum(np.zeros((2, 2))),
        lambda: lib.real_value("count", "add/remove", "opendp", BOUNDS, SIZE, 1),
        lambda: lib.real_value("mean", "add/remove", "tumult", BOUNDS, SIZE, 1),
        lambda: lib.real_value("mean", "add/remove", "dpteach", BOUNDS, SIZE, SIZE + 1),
    ],
)
def test_bad_input_names_the_parameter(call) -> None:
    with pytest.raises(ValueError):
        call()


def test_bounds_must_be_a_pair() -> None:
    with pytest.raises(TypeError, match="bounds"):
        lib.opendp_bound("count", "add/remove", [0, 1], SIZE, 1)


def test_side_by_side_labels_both_sources_as_the_float_table_does() -> None:
    wide = lib.side_by_side(lib.comparison_table(BOUNDS, SIZE, (1, 2)), ["count"])
    assert set(wide.index.get_level_values("source")) == {"OpenDP", "dpteach"}
    assert wide.loc[("count", "add/remove", "OpenDP"), 2] == 2


def test_a_capped_float_sum_can_turn_an_addition_into_a_change() -> None:
    """The lesson's truncation demo: room for 3 records, (-3, -3, -3, 7) keeps a random 3 of its 4."""
    capped = lib.opendp_float_sum(3, BOUNDS, "Pairwise<f64>")
    outputs = {capped([-3.0, -3.0, -3.0, 7.0]) for _ in range(200)}
    assert outputs == {-9.0, 1.0}
    assert capped([-3.0, -3.0, -3.0]) == -9.0
    assert 10 < capped.map(1) < 10 + 1e-12
