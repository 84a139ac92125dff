"""Tests for dpteach.audit: the confidence bounds, the tester's error rates, the batched mechanisms against the
one-shot releases they stand for, and the verdict on every pair of :data:`dpteach.audit.CASES`.

The audits are seeded, so each verdict below is deterministic; the statistical claim behind it (a mechanism
that satisfies the inequality on the pair passes with probability >= 1 - 1e-6) is what makes the seed irrelevant,
and the verdicts are checked on three seeds.
"""

import functools
import math

import numpy as np
import pandas as pd
import pytest

from dpteach import audit as audit_module
from dpteach.audit import (
    CASES,
    PTR_PAIRS,
    SHIFT_PAIR,
    SORTED_PAIR,
    SUM_PAIR,
    audit,
    detection_threshold,
    kl_bounds,
    laplace_batch,
    largest_violation,
    planted_leak_batch,
    planted_leak_catches,
    ptr_batch,
    repeat,
    saa_batch,
    verdict_table,
)
from dpteach.ptr import ptr_mean, ptr_mean_book
from dpteach.saa import sample_and_aggregate
from dpteach.smooth import laplace_beta, smooth_median_release, smooth_sensitivity_median

SEEDS = (0, 1, 2)


@functools.cache
def _result(index, seed=0):
    """Each case runs once per seed and session (all of them take about a second)."""
    return CASES[index].run(seed)


def _laplace_shift(scale):
    """A batched sampler: the data's sum plus Laplace noise of ``scale``."""
    return lambda data, n, rng: data.sum() + rng.laplace(0.0, scale, size=n)


def _find(pair, name):
    return next(i for i, c in enumerate(CASES) if c.pair == pair and c.name == name)


def _resolution(case, result):
    """What the audit can see on the event where theory's violation is largest: detection_threshold there."""
    size, probability = case.theory()
    return size, detection_threshold(probability, case.epsilon, case.delta, n_samples=case.n_samples,
                                     n_events=result.n_events, alpha=result.alpha)[2]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("index", range(len(CASES)), ids=[f"{c.pair.label} / {c.name}" for c in CASES])
def test_every_audit_gives_the_verdict_theory_predicts_on_its_pair_at_its_resolution(index, seed):
    """A claim that holds passes; a violation above the audit's resolution fails, with a margin; one below it
    passes, and then far below: the book's PTR at ε on the 4 | 5 pair, at a third of the resolution. (The
    resolution is taken at the edge of the claim, q = e^-ε (p - δ): events far from it, like the 0 | 0 pair's, are
    seen somewhat below it.)"""
    case, result = CASES[index], _result(index, seed)
    if case.holds:
        assert result.passed, result.summary()
        assert 0 <= result.epsilon_lower <= case.epsilon
        return
    size, resolution = _resolution(case, result)
    if size < resolution:
        assert size < resolution / 2
        assert result.passed and result.violation <= size, result.summary()  # the bound stays below the truth
    else:  # caught with a margin, not by a hair
        assert not result.passed and result.violation > 0.01, result.summary()
        assert result.violation <= size and result.epsilon_lower > case.epsilon + 0.2


def test_theory_on_each_pair_one_violation_below_the_resolution():
    """Theory's verdict on every case (largest_violation), pinned: the book's PTR at the ε it claims is violated
    on all three of its pairs, on the 4 | 5 pair by 0.014 on an event of probability 0.49, where the audit needs
    about 0.044."""
    expected = [True, False] * 3 + [True, False, False] + [True, True, False] + [True, True, False, False] \
        + [True, False] * 2
    assert [case.holds for case in CASES] == expected
    book = CASES[_find(PTR_PAIRS[2], "book's PTR, at the ε it claims")]
    size, probability = book.theory()
    assert size == pytest.approx(0.0142, abs=5e-5) and probability == pytest.approx(0.488, abs=1e-3)
    assert _resolution(book, _result(_find(PTR_PAIRS[2], "book's PTR, at the ε it claims")))[1] == \
        pytest.approx(0.044, abs=0.001)


def test_every_pair_sets_a_pass_against_a_fail():
    for pair in {case.pair for case in CASES}:
        verdicts = {case.holds for case in CASES if case.pair == pair}
        assert verdicts == {True, False}, pair.label


def test_the_verdict_table_lists_every_case_with_its_verdict():
    table = verdict_table(CASES[:2])
    assert list(table.index) == [(c.pair.label, c.name) for c in CASES[:2]]
    assert list(table["verdict"]) == ["pass" if _result(i).passed else "FAIL" for i in range(2)]
    assert list(table["ε̂"]) == [round(_result(i).epsilon_lower, 2) for i in range(2)]
    assert isinstance(table, pd.DataFrame) and table.index.names == ["pair", "mechanism"]


def test_the_books_ptr_leaks_through_releases_that_should_be_refused():
    book = _result(_find(PTR_PAIRS[0], "book's PTR, at the 2ε it spends"))
    corrected = _result(_find(PTR_PAIRS[0], "corrected PTR, at the 2ε it spends"))
    # At distance 0 the book's test lets 1/2 sqrt(delta/2) = 3.5% through; the corrected one delta = 1%.
    assert 1 - book.refusals[0] == pytest.approx(0.5 * math.sqrt(0.01 / 2), abs=0.003)
    assert 1 - corrected.refusals[0] == pytest.approx(0.01, abs=0.002)
    assert corrected.epsilon_lower == 0  # only the refusal branch is seen on this pair


def test_the_other_ptr_pairs_exercise_the_release_branch():
    threshold = math.log(1 / (2 * 0.01))  # ln(1/(2 delta)) / eps
    for pair, distance in zip(PTR_PAIRS[1:], (0, 4), strict=True):
        case = CASES[_find(pair, "corrected PTR, at the 2ε it spends")]
        released = [1 - r for r in _result(_find(pair, "corrected PTR, at the 2ε it spends")).refusals]
        expected = [_pass_probability(d, threshold) for d in (distance, distance + 1)]
        assert released == pytest.approx(expected, abs=0.01)
        assert [case.law(np.array(data))[0] for data in (pair.x, pair.x_prime)] == pytest.approx(expected, rel=1e-12)
    assert _result(_find(PTR_PAIRS[2], "corrected PTR, at the 2ε it spends")).epsilon_lower > 1


def _pass_probability(distance, threshold):
    """P[distance + Lap(1) >= threshold]."""
    gap = threshold - distance
    return 0.5 * math.exp(-gap) if gap >= 0 else 1 - 0.5 * math.exp(gap)


def test_the_sensitivities_behind_the_median_pairs():
    assert audit_module._TABLE_GS == 8
    table = [audit_module._median_ls_in_table_universe(np.array(x)) for x in ((1.0, 2.0, 3.0), (1.0, 2.0, 10.0))]
    assert table == [1, 8]
    # The shift pair: medians 10 | 60, so the shift of 50 is in play; beta = eps/2 lets S jump by 1.6 > e^beta(correct)
    x, x_prime = (np.array(d) for d in (SHIFT_PAIR.x, SHIFT_PAIR.x_prime))
    assert [np.median(x), np.median(x_prime)] == [10, 60]
    correct = [smooth_sensitivity_median(d, 0.0, 100.0, laplace_beta(1.0, 1e-3)) for d in (x, x_prime)]
    assert correct[0] == pytest.approx(80) and correct[1] == pytest.approx(80 * math.exp(-laplace_beta(1.0, 1e-3)))
    assert [smooth_sensitivity_median(d, 0.0, 100.0, 0.5) for d in (x, x_prime)] == pytest.approx([80, 50])


def test_the_books_ptr_law_on_the_4_5_pair_is_the_reviewers_by_hand():
    """Book distances 4 | 5 (max(0, n - 99)), releases 1 - e^-(d - 2.65)/2, means 0 | 100/104, noise Lap(1); the event
    {released, y > 100/104} alone violates the ε claim: 0.4762 - e 0.1664 - 0.01 = 0.0138 <= the largest, 0.0142."""
    case = CASES[_find(PTR_PAIRS[2], "book's PTR, at the ε it claims")]
    (r_x, c_x, s_x), (r_y, c_y, s_y) = (case.law(np.array(d)) for d in (PTR_PAIRS[2].x, PTR_PAIRS[2].x_prime))
    threshold = math.log(2 / 0.01) / 2
    assert (r_x, r_y) == pytest.approx([1 - 0.5 * math.exp(-(d - threshold)) for d in (4, 5)], rel=1e-12)
    assert (c_x, c_y, s_x, s_y) == pytest.approx((0, 100 / 104, 1, 1))
    by_hand = r_y * 0.5 - math.e * r_x * 0.5 * math.exp(-100 / 104) - 0.01
    assert by_hand == pytest.approx(0.0138, abs=1e-4) and by_hand < case.theory()[0]


def test_the_shift_pair_passes_the_smooth_median_and_fails_its_twin_with_beta_too_large():
    correct = _result(_find(SHIFT_PAIR, "smooth-sensitivity median"))
    twin = _result(_find(SHIFT_PAIR, "smooth median, β = ε/2"))
    assert correct.passed and 0.2 < correct.epsilon_lower < 0.5  # the shift is seen: 50 / 160 = 0.31 of eps
    assert not twin.passed and twin.epsilon_lower > 1.2


def test_dropping_the_smooth_medians_factor_2_is_a_small_real_flaw_on_a_full_jump_of_the_median():
    """Notebook 10: median + Lap(S*/ε) holds its (1, 10⁻³) claim on the shift pair (median 10 | 60), but a pair whose
    median jumps from 10 to 90, the worst on the grid 0, 10, …, 100, violates it by 0.0086 (below the resolution)."""
    beta = laplace_beta(1.0, 1e-3)

    def dropped(data):
        return 1.0, float(np.median(data)), smooth_sensitivity_median(data, 0.0, 100.0, beta)

    assert largest_violation(dropped(SHIFT_PAIR.x), dropped(SHIFT_PAIR.x_prime), 1.0, 1e-3)[0] < 0
    worst = largest_violation(dropped((0, 10, 10, 90, 100)), dropped((10, 10, 90, 90, 100)), 1.0, 1e-3)[0]
    assert worst == pytest.approx(0.0086, abs=1e-4)


def test_sorting_shifts_every_chunk_but_one_while_position_changes_one():
    def answers(data, order):
        values = np.sort(data) if order == "sorted" else np.asarray(data)
        return np.clip([np.std(values[i:i + 2]) for i in range(0, values.size, 2)], 0, 10)

    for order, changed in (("position", 1), ("sorted", 4)):
        assert np.sum(answers(SORTED_PAIR.x, order) != answers(SORTED_PAIR.x_prime, order)) == changed


# ------------------------------------------------------------------------------ batched copies vs one-shot
def _ks_distance(a, b):
    grid = np.sort(np.concatenate([a, b]))
    return np.max(np.abs(np.searchsorted(np.sort(a), grid, side="right") / a.size
                         - np.searchsorted(np.sort(b), grid, side="right") / b.size))


def _assert_same_distribution(batched, one_shot, data, n=3_000):
    """Refusal rate within 4 standard errors and released values within the KS critical distance at 1e-4."""
    data = np.asarray(data, dtype=float)
    a = batched(data, 20_000, np.random.default_rng(1))
    b = repeat(one_shot)(data, n, np.random.default_rng(2))
    refused_a, refused_b = np.isnan(a).mean(), np.isnan(b).mean()
    assert abs(refused_a - refused_b) <= 4 * math.sqrt(max(refused_b * (1 - refused_b), 1e-4) / n)
    a, b = a[~np.isnan(a)], b[~np.isnan(b)]
    assert _ks_distance(a, b) <= math.sqrt(-math.log(1e-4 / 2) / 2) * math.sqrt((a.size + b.size) / (a.size * b.size))


@pytest.mark.parametrize("data", [PTR_PAIRS[2].x, PTR_PAIRS[2].x_prime, (0.0,) * 98 + (50.0, 100.0)])
def test_the_batched_ptr_draws_like_the_one_shot_releases(data):
    _assert_same_distribution(ptr_batch("corrected", 1.0, 1.0, 0.01),
                              lambda d, rng: ptr_mean(d, 0.0, 100.0, 1.0, 1.0, 1.0, 0.01, rng, noise="textbook"), data)
    _assert_same_distribution(ptr_batch("book", 1.0, 1.0, 0.01),
                              lambda d, rng: ptr_mean_book(d, 100.0, 1.0, 1.0, 0.01, rng), data)


@pytest.mark.parametrize("data", [SHIFT_PAIR.x, SHIFT_PAIR.x_prime, (3.0, 97.0, 40.0, 41.0, 60.0, 12.0, 100.0)])
def test_the_batched_smooth_median_draws_like_the_one_shot_release(data):
    sampler = next(c.mechanism for c in CASES if c.name == "smooth-sensitivity median")
    _assert_same_distribution(sampler, lambda d, rng: smooth_median_release(d, 0.0, 100.0, 1.0, 1e-3, rng), data)
    scale = audit_module._smooth_median_scale(1.0, laplace_beta(1.0, 1e-3))(np.asarray(data))
    assert scale == smooth_median_release(data, 0.0, 100.0, 1.0, 1e-3, np.random.default_rng(0)).scale


@pytest.mark.parametrize(("data", "n_chunks"), [((0.0,) * 11, 10), ((100.0,) + (0.0,) * 10, 10),
                                         ((5.0, 80.0, 20.0, 60.0, 61.0, 2.0, 99.0), 3)])
def test_the_batched_sample_and_aggregate_draws_like_the_one_shot_release(data, n_chunks):
    _assert_same_distribution(saa_batch(np.max, n_chunks, 0.0, 100.0, 1.0),
                              lambda d, rng: sample_and_aggregate(d, np.max, n_chunks, 0.0, 100.0, 1.0, rng,
                                                                  noise="textbook"), data)


def test_the_books_saa_noise_is_scaled_to_k_and_sorting_reorders():
    data = np.array([100.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0])
    book = saa_batch(np.max, 10, 0.0, 100.0, 1.0, noise_for="K")(data, 200_000, np.random.default_rng(0))
    # 6 chunks, one answers 100: centre 100/6; Laplace scale 100/10, so the mean absolute deviation is 10
    assert np.median(book) == pytest.approx(100 / 6, abs=0.1)
    assert np.mean(np.abs(book - 100 / 6)) == pytest.approx(10, rel=0.02)
    ordered = saa_batch(np.max, 10, 0.0, 100.0, 1.0, order="sorted")(data, 200_000, np.random.default_rng(0))
    assert np.median(ordered) == pytest.approx(100 / 6, abs=0.2)  # the max sits in the last chunk instead


def test_laplace_batch_draws_the_centre_plus_laplace_noise():
    outputs = laplace_batch(np.sum, lambda d: 2.0)(np.array([1.0, 2.0]), 100_000, np.random.default_rng(0))
    assert np.median(outputs) == pytest.approx(3.0, abs=0.05)
    assert np.mean(np.abs(outputs - 3.0)) == pytest.approx(2.0, rel=0.02)


def test_kl_bounds_bracket_the_estimate_and_match_the_closed_form_at_zero():
    lower, upper = kl_bounds([0, 10, 500, 1000], 1000, math.log(1e6))
    assert lower[0] == 0 and upper[-1] == 1
    assert (lower <= np.array([0, 10, 500, 1000]) / 1000).all()
    assert (upper >= np.array([0, 10, 500, 1000]) / 1000).all()
    # n kl(0, q) = -n ln(1 - q) = L  =>  q = 1 - exp(-L / n)
    assert upper[0] == pytest.approx(1 - math.exp(-math.log(1e6) / 1000), rel=1e-9)
    assert lower[-1] == pytest.approx(math.exp(-math.log(1e6) / 1000), rel=1e-9)


def test_kl_bounds_cover_the_true_proportion():
    rng = np.random.default_rng(3)
    counts = rng.binomial(200, 0.3, size=20_000)
    lower, upper = kl_bounds(counts, 200, math.log(100))  # each side may fail with probability <= 1%
    assert np.mean(lower > 0.3) < 0.01 and np.mean(upper < 0.3) < 0.01


def test_a_tight_private_mechanism_passes_on_every_seed_and_a_slightly_broken_one_fails_on_every_seed():
    x, x_prime = np.array([0.0]), np.array([1.0])  # sensitivity 1
    for seed in range(10):
        assert audit(_laplace_shift(1.0), x, x_prime, 1.0, n_samples=20_000, seed=seed).passed
        # the same noise is only 1/0.6-DP: claiming epsilon = 1 must fail
        assert not audit(_laplace_shift(0.6), x, x_prime, 1.0, n_samples=20_000, seed=seed).passed


def test_refusal_is_an_outcome_of_its_own():
    def refuse(data, n, rng):  # refuses with probability 0.5 on [0] and 0.1 on [1], else outputs 0
        return np.where(rng.random(n) < (0.5 if data[0] == 0 else 0.1), np.nan, 0.0)

    x, x_prime = np.array([0.0]), np.array([1.0])
    leaky = audit(refuse, x, x_prime, 1.0, n_samples=20_000)
    assert not leaky.passed and leaky.worst_event == "⊥ (refused)"
    assert leaky.refusals == pytest.approx((0.5, 0.1), abs=0.01)
    assert audit(refuse, x, x_prime, math.log(5) + 0.1, n_samples=20_000).passed  # 0.5 / 0.1 = 5


def test_delta_absorbs_a_small_leak():
    def rare_tell(data, n, rng):  # on [1] a distinctive output 1 appears with probability 0.02
        return np.where((data[0] == 1) & (rng.random(n) < 0.02), 1.0, rng.random(n) - 2)

    x, x_prime = np.array([0.0]), np.array([1.0])
    assert not audit(rare_tell, x, x_prime, 1.0, 0.0, n_samples=20_000).passed
    assert audit(rare_tell, x, x_prime, 1.0, 0.03, n_samples=20_000).passed


def test_audits_are_reproducible_and_depend_on_the_seed():
    x, x_prime = np.array([0.0]), np.array([1.0])
    first, again = (audit(_laplace_shift(1.0), x, x_prime, 1.0, n_samples=5_000, seed=4) for _ in range(2))
    assert first == again
    assert audit(_laplace_shift(1.0), x, x_prime, 1.0, n_samples=5_000, seed=5) != first


def test_repeat_turns_none_and_release_objects_into_outputs():
    class Release:
        def __init__(self, value):
            self.value = value

    outputs = iter([1.5, None, Release(2.5), Release(None)])
    sampler = repeat(lambda data, rng: next(outputs))
    np.testing.assert_array_equal(sampler(np.zeros(1), 4, np.random.default_rng(0)), [1.5, np.nan, 2.5, np.nan])


def test_a_sampler_returning_the_wrong_number_of_outputs_is_rejected():
    with pytest.raises(ValueError, match="mechanism must return"):
        audit(lambda data, n, rng: np.zeros(n + 1), [0.0], [1.0], 1.0, n_samples=1_000)


def test_textbook_laplace_leaks_through_its_last_bits_on_the_sum_pair():
    """Notebook 10's floating-point slide: on x' = sum 100 every output below 64 in absolute value is a multiple of
    2^-47; on x = sum 0 many are not, so those outputs are impossible on x'. The audit still passes this sampler."""
    sampler = next(c.mechanism for c in CASES if c.name == "Laplace, scale 100 = GS/ε")
    x, x_prime = (np.array(data) for data in (audit_module.SUM_PAIR.x, audit_module.SUM_PAIR.x_prime))

    def off_grid(y):
        return (np.abs(y) < 64) & (y * 2.0**47 != np.round(y * 2.0**47))

    assert not off_grid(sampler(x_prime, 200_000, np.random.default_rng(0))).any()
    assert off_grid(sampler(x, 200_000, np.random.default_rng(0))).mean() > 0.15
    assert _result(_find(audit_module.SUM_PAIR, "Laplace, scale 100 = GS/ε")).passed


def test_an_exact_off_grid_event_makes_the_audit_fail_textbook_laplace():
    """Given the exact event 'not a multiple of 2^-47 below 64' the audit refutes the textbook sampler it passed."""
    sampler = next(c.mechanism for c in CASES if c.name == "Laplace, scale 100 = GS/ε")
    pair = audit_module.SUM_PAIR

    def off_grid(y):
        return (np.abs(y) < 64) & (y * 2.0**47 != np.round(y * 2.0**47))

    result = audit(sampler, pair.x, pair.x_prime, 1.0, extra_events={"off the 2^-47 grid": off_grid})
    assert not result.passed and result.worst_event == "off the 2^-47 grid" and result.q_hat == 0
    with pytest.raises(TypeError, match="extra_events"):
        audit(sampler, pair.x, pair.x_prime, 1.0, extra_events={"bad": 3})


def _numerical_violation(law_a, law_b, epsilon, delta):
    """The largest violation by the trapezoid rule on a fine grid, both directions: the check of the exact one."""
    reach = 40 * max(law_a[2], law_b[2])  # the tails beyond hold less than e^-40
    grid = np.linspace(min(law_a[1], law_b[1]) - reach, max(law_a[1], law_b[1]) + reach, 4_000_001)

    def density(law):
        released, centre, scale = law
        return released * np.exp(-np.abs(grid - centre) / scale) / (2 * scale)

    best = -math.inf
    for a, b in ((law_a, law_b), (law_b, law_a)):
        refused = max(0.0, (1 - a[0]) - math.exp(epsilon) * (1 - b[0]))
        best = max(best, refused + np.trapezoid(np.maximum(density(a) - math.exp(epsilon) * density(b), 0), grid))
    return best - delta


@pytest.mark.parametrize(("law_a", "law_b", "epsilon", "delta"), [
    ((1.0, 0.0, 1.0), (1.0, 1.5, 1.0), 1.0, 0.0),              # Laplace, shift beyond the scale
    ((1.0, 10.0, 160.0), (1.0, 60.0, 100.0), 1.0, 1e-3),        # the smooth twin: shift and stretch
    ((1.0, 10.0, 160.0), (1.0, 10.0, 100.0), 1.0, 1e-3),        # stretch alone
    ((0.87, 0.0, 1.0), (0.95, 0.96, 1.0), 1.0, 0.01),           # PTR-like: refusals and a shift
    ((0.3, 0.0, 1.0), (0.9, 5.0, 2.0), 0.5, 0.0),               # refusals dominate one direction
    ((0.0, 0.0, 1.0), (0.5, 3.0, 2.0), 1.0, 0.0),               # always refuses on one side
])
def test_largest_violation_matches_a_numerical_integral(law_a, law_b, epsilon, delta):
    exact, probability = largest_violation(law_a, law_b, epsilon, delta)
    assert exact == pytest.approx(_numerical_violation(law_a, law_b, epsilon, delta), abs=1e-7)
    assert 0 <= probability <= 1 and exact >= -delta
    assert largest_violation(law_b, law_a, epsilon, delta) == pytest.approx((exact, probability))


@pytest.mark.parametrize(("shift", "epsilon"), [(1.0, 1.0), (2.0, 1.0), (3.0, 0.5), (0.5, 1.0)])
def test_largest_violation_of_laplace_is_the_closed_form(shift, epsilon):
    """Lap(1) at sensitivity Δ: the smallest δ for ε is max(0, 1 - e^((ε - Δ)/2)) (the hockey-stick divergence)."""
    exact, _ = largest_violation((1.0, 0.0, 1.0), (1.0, shift, 1.0), epsilon)
    assert exact == pytest.approx(max(0.0, 1 - math.exp((epsilon - shift) / 2)), abs=1e-15)


def test_largest_violation_refuses_a_malformed_law():
    for bad in ((1.5, 0.0, 1.0), (1.0, math.inf, 1.0), (1.0, 0.0, 0.0), (1.0, 0.0), "law"):
        with pytest.raises((ValueError, TypeError), match="law_x"):
            largest_violation(bad, (1.0, 0.0, 1.0), 1.0)


def test_an_event_seen_on_neither_side_is_left_out_of_the_violation_bound():
    """Laplace never refuses: ⊥ is empty on both sides and would give every pass the same bound, -e q_hi(0)."""
    result = CASES[_find(SUM_PAIR, "Laplace, scale 100 = GS/ε")].run()
    empty = -math.e * (1 - math.exp(-math.log(4 * result.n_events / result.alpha) / result.n_samples))
    assert result.passed and result.violation != pytest.approx(empty, rel=1e-3)
    assert -detection_threshold(0.05, 1.0)[2] < result.violation < 0


def test_the_detection_threshold_is_one_width_plus_e_eps_times_the_other():
    width_p, width_q, threshold = detection_threshold(0.05, 1.0)
    assert threshold == pytest.approx(width_p + math.e * width_q)
    assert 0.016 < threshold < 0.018 and 0.005 < width_p < 0.007 and 0.0035 < width_q < 0.0045  # the docstring's
    assert audit(planted_leak_batch(0.0), SUM_PAIR.x, SUM_PAIR.x_prime, 1.0).n_events == 120
    with pytest.raises(ValueError, match="p must exceed delta"):
        detection_threshold(0.01, 1.0, 0.02)


def test_a_planted_leak_has_the_size_asked_for_on_its_tail():
    cut = 100 * math.log(2 * 0.05)
    rng = np.random.default_rng(0)
    on_x = planted_leak_batch(0.03)(np.array(SUM_PAIR.x), 2_000_000, rng)
    on_x_prime = planted_leak_batch(0.03)(np.array(SUM_PAIR.x_prime), 2_000_000, rng)
    assert np.mean(on_x <= cut) == pytest.approx(0.08, abs=0.001)
    assert np.mean(on_x_prime <= cut) == pytest.approx(0.05 / math.e, abs=0.001)
    with pytest.raises(ValueError, match="violation must be at most"):
        planted_leak_batch(0.5)


def test_planted_leaks_below_the_threshold_hide_and_above_it_are_found():
    """The derived threshold (0.017) against seeds 0-5: 0.015 is never seen, 0.030 always."""
    assert planted_leak_catches((0.0, 0.015, 0.03), range(6)) == {0.0: 0, 0.015: 0, 0.03: 6}


def test_planted_leak_catches_gives_notebook_10s_counts():
    """Notebook 10 prints these: rarely caught below about 0.017, half the time at 0.020, always at 0.025."""
    assert planted_leak_catches((0.015, 0.017, 0.02, 0.025)) == {0.015: 1, 0.017: 2, 0.02: 6, 0.025: 12}
    with pytest.raises(ValueError, match="at least one seed"):
        planted_leak_catches((0.02,), ())


def test_case_finds_each_case_by_its_pair_and_label():
    for expected in CASES:
        assert audit_module.case(expected.pair, expected.short) is expected
    with pytest.raises(ValueError, match="its cases are"):
        audit_module.case(SUM_PAIR, "LS")
