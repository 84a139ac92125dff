"""Every sensitivity path answers within the work budget or refuses at once (issue 26).

The budget is counted in work units (dpteach.budget), not seconds: inside ``budget.meter()`` every count a path
makes before it runs is recorded (``charged``), and the closed forms report the units they then spend. A call
either answers, having counted no step above ``MAX_WORK`` and spent no more than it counted, or raises the budget's
``ValueError`` having spent nothing. Speed itself is measured in benchmarks, not here.
"""

from __future__ import annotations

import numpy as np
import pytest

import dpteach
from dpteach import budget, sensitivity

QUERIES = [*dpteach.QUERIES, "percentile_0.0001", "percentile_99.9"]
RELATIONS = ["unbounded", "bounded", "symmetric"]
RNG = np.random.default_rng(26)
# (universe, release size, k): the two bounded-mean reproducers, then wide-range universes of growing size
CASES = {
    "seven values near 1e6, n = 3": ([781318, -916726, -638172, 83689, -528112, 826928, 960095], 3, 1),
    "four values, range 2e6, n = 2": ([-1000001, 0, 1000000, 1000001], 2, 1),
    "wide whole numbers, |U| = 12": (RNG.integers(-10**7, 10**7, size=12).tolist(), 6, 2),
    "wide whole numbers, |U| = 40, k = 5": (RNG.integers(-10**9, 10**9, size=40).tolist(), 20, 5),
    "wide reals, |U| = 30": (RNG.uniform(-1e12, 1e12, size=30).tolist(), 15, 3),
    "wide whole numbers, |U| = 2e4, k = 10": (RNG.integers(-10**9, 10**9, size=20_000).tolist(), 10_000, 10),
}


def _metered(call) -> tuple[float | None, budget.Meter]:
    with budget.meter() as meter:
        try:
            return call(), meter
        except ValueError as error:
            assert "above the limit of" in str(error), f"a ValueError that is not the budget's: {error}"
            assert meter.spent == 0 and max(meter.charged) > budget.MAX_WORK  # refused at once, for its count
            return None, meter


def _within_budget(meter: budget.Meter) -> None:
    assert all(units <= budget.MAX_WORK for units in meter.charged)
    assert meter.spent <= sum(meter.charged), "work was spent that no count announced"


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("relation", RELATIONS)
def test_global_paths_answer_within_budget_or_refuse(case, relation) -> None:
    universe, size, k = CASES[case]
    for query in QUERIES:
        value, meter = _metered(lambda q=query: dpteach.global_sensitivity(universe, size, q, k=k, relation=relation))
        if value is not None:
            _within_budget(meter)
            assert np.isfinite(value) and value >= 0


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("relation", RELATIONS)
def test_local_paths_answer_within_budget_or_refuse(case, relation) -> None:
    universe, size, k = CASES[case]
    release = universe[:size]
    for query in QUERIES:
        value, meter = _metered(lambda q=query: dpteach.local_sensitivity(release, universe, q, k=k,
                                                                          relation=relation))
        if value is not None:
            _within_budget(meter)


def test_the_bounded_mean_reproducers_are_answered_exactly_and_counted() -> None:
    """Issue 26: these took 101 s and 9.8 s (the tie search read its bitset one bit at a time). The answers are
    enumeration's, the tie search counted its work before running, and it spent what it counted."""
    for case, expected in [("seven values near 1e6, n = 3", 625607.0), ("four values, range 2e6, n = 2", None)]:
        universe, size, _ = CASES[case]
        with budget.meter() as meter:
            value = dpteach.global_sensitivity(universe, size, "mean", relation="bounded")
        enumerated = dpteach.global_sensitivity(universe, size, "mean", relation="bounded", method="enumerate")
        assert value == enumerated == (expected if expected is not None else enumerated)
        assert 0 < meter.spent == max(meter.charged) <= dpteach.exact.TIE_WORDS  # the search's own count


def test_closed_forms_refuse_at_once_above_the_budget(monkeypatch) -> None:
    """Lowering the budget below what a closed form counts turns its answer into an immediate refusal."""
    universe, size, k = CASES["wide whole numbers, |U| = 40, k = 5"]
    for relation in RELATIONS:
        _, meter = _metered(lambda r=relation: dpteach.global_sensitivity(universe, size, "median", k=k, relation=r))
        monkeypatch.setattr(budget, "MAX_WORK", max(meter.charged) - 1)
        value, refused = _metered(lambda r=relation: dpteach.global_sensitivity(universe, size, "median", k=k,
                                                                                relation=r))
        assert value is None and refused.spent == 0
        monkeypatch.undo()


def test_symmetric_closed_form_with_large_k_is_refused_not_run() -> None:
    """k^3 candidate records (O(k^2) families, each a window of splits of ~n records): counted, then refused."""
    universe, size, _ = CASES["wide whole numbers, |U| = 2e4, k = 10"]
    for call in (lambda: dpteach.global_sensitivity(universe, size, "median", k=2_000, relation="symmetric"),
                 lambda: dpteach.local_sensitivity(universe[:size], universe, "median", k=2_000,
                                                   relation="symmetric")):
        value, meter = _metered(call)
        assert value is None and meter.spent == 0


def test_listing_every_release_is_counted_first() -> None:
    """local_sensitivities lists every distinct release (C(60, 30) = 1.2e17 of them here): refused at once."""
    value, meter = _metered(lambda: sensitivity.local_sensitivities(list(range(60)), 30, "mean"))
    assert value is None and meter.spent == 0
