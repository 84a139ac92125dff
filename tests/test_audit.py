"""Tests for dpteach.audit: the confidence bounds, the tester's error rates, and the audits of every mechanism.

The audits of :data:`dpteach.audit.CASES` are seeded, so each verdict below is deterministic; the statistical
claim behind it (a private mechanism passes with probability >= 1 - 1e-6) is what makes the seed irrelevant.
"""

import functools
import math

import numpy as np
import pytest

from dpteach.audit import CASES, audit, kl_bounds, repeat


@functools.cache
def _result(name):
    """Each case runs once per session (the whole set takes about 15 s)."""
    return next(c for c in CASES if c.name == name).run()


def _laplace_shift(scale):
    """A batched sampler: the data's sum plus Laplace noise of ``scale``."""
    return lambda data, n, rng: data.sum() + rng.laplace(0.0, scale, size=n)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_every_audit_gives_the_verdict_theory_predicts(case):
    result = _result(case.name)
    assert result.passed is case.private, result.summary()
    if case.private:
        assert 0 <= result.epsilon_lower <= case.epsilon
    else:  # caught with a margin, not by a hair
        assert result.violation > 0.01
        assert result.epsilon_lower > case.epsilon + 1


def test_the_books_ptr_leaks_through_releases_that_should_be_refused():
    book, corrected = _result("PTR, book"), _result("PTR, corrected")
    # At distance 0 the book's test lets 1/2 sqrt(delta/2) = 3.5% through; the corrected one delta = 1%.
    assert 1 - book.refusals[0] == pytest.approx(0.5 * math.sqrt(0.01 / 2), abs=0.003)
    assert 1 - corrected.refusals[0] == pytest.approx(0.01, abs=0.002)
    assert book.direction == "x vs x'" and book.q_hat == 0


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
