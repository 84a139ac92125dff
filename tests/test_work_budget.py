"""Every sensitivity path answers within the work budget or refuses at once (issue 26).

The budget is counted in work units (dpteach.budget), not seconds: inside ``budget.meter()`` every count a path
makes before it runs is recorded (``charged``), and the closed forms report the units they then spend. A call
either answers, having counted no step above ``MAX_WORK`` and spent no more than it counted, or raises the budget's
``ValueError`` having spent nothing. Speed itself is measured in benchmarks, not here.
"""

from __future__ import annotations

import itertools
import math
from functools import partial

import numpy as np
import pytest

import dpteach
from dpteach import budget, sensitivity, smooth

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
            assert isinstance(error, budget.WorkLimitError), f"a ValueError that is not the budget's: {error}"
            assert meter.spent == 0 and sum(meter.charged) > budget.MAX_WORK  # refused at once, for its count
            return None, meter


def _within_budget(meter: budget.Meter) -> None:
    assert sum(meter.charged) <= budget.MAX_WORK  # one budget for the whole call
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


def test_the_tie_search_takes_its_fallback_rather_than_be_refused(monkeypatch) -> None:
    """The bounded mean counts its records, then its tie search's words. With a budget that holds the records but
    not the words, the search is skipped (not refused): the call answers with the rounded-up mean, never below
    enumeration's value, and charges only its records."""
    universe, size, _ = CASES["seven values near 1e6, n = 3"]
    call = lambda: dpteach.global_sensitivity(universe, size, "mean", relation="bounded")  # noqa: E731
    records, words = _charged(call)  # the closed form's records, then the search's words
    monkeypatch.setattr(budget, "MAX_WORK", records + words - 1)
    with budget.meter() as meter:
        value = call()
    assert meter.charged == [records] and meter.spent < words
    assert value >= dpteach.global_sensitivity(universe, size, "mean", relation="bounded", method="enumerate")


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


# ---------------------------------------------------------------------------------------- one budget per call
def test_smooth_sensitivity_counts_every_shell_before_building_one(monkeypatch) -> None:
    """The independent check's reproducer: refused only after about 60 s of shells, as the budget was checked shell
    by shell. The total is counted first now, so no shell is built."""
    built = []
    shell = smooth._shell
    monkeypatch.setattr(smooth, "_shell", lambda ball, d: built.append(d) or shell(ball, d))
    with budget.meter() as meter, pytest.raises(budget.WorkLimitError, match="dataset, neighbour"):
        smooth.smooth_sensitivity(range(11), range(23), "var", beta=0.1, relation="symmetric")
    assert built == [0] and sum(meter.charged) > budget.MAX_WORK  # only LS(x), the single dataset at distance 0


def test_smooth_sensitivity_early_stop_still_answers() -> None:
    """With a closed-form bound the loop stops early; only the shells it can reach are counted, so a median on a
    universe whose every shell together is above the budget still answers, as enumeration of its reach says."""
    release, universe = range(0, 40, 4), range(40)
    with budget.meter() as meter:
        value = smooth.smooth_sensitivity(release, universe, "median", beta=2.0, relation="symmetric")
    assert sum(meter.charged) <= budget.MAX_WORK
    assert value == max(smooth.local_sensitivity_at_distance(release, universe, "median", 0, relation="symmetric"),
                        math.exp(-2.0) * smooth.local_sensitivity_at_distance(release, universe, "median", 1,
                                                                                relation="symmetric"))


def _charged(call) -> list[int]:
    with budget.meter() as meter:
        call()
    return meter.charged


def test_a_grid_is_one_budget(monkeypatch) -> None:
    """Each cell of this grid fits the budget; together they do not (the check found a grid charged 2.5x the
    limit). The cells' first counts together pass the limit, so the grid is refused before any cell runs."""
    universe = {"a": list(range(14)), "b": list(range(20, 34))}
    call = lambda: sensitivity.sensitivity_grid(universe, size=7, queries=["var", "std"],  # noqa: E731
                                                relations=["bounded", "unbounded"])
    counts = _charged(call)
    monkeypatch.setattr(budget, "MAX_WORK", sum(counts) // 2)
    assert max(counts) <= budget.MAX_WORK
    with budget.meter() as meter, pytest.raises(budget.WorkLimitError, match="grid's cells without a closed form"):
        call()
    assert len(meter.charged) == 1 and meter.charged[0] > budget.MAX_WORK  # the first counts, refused: nothing ran


def test_an_unbounded_enumeration_counts_both_sizes_first(monkeypatch) -> None:
    """Unbounded GS_k compares datasets of size n and of size n + k with their parts: both counts are made before
    either runs, so a call whose first size fits and whose second does not is refused with nothing done."""
    call = lambda: dpteach.global_sensitivity(range(14), 7, "std", relation="unbounded")  # noqa: E731
    counts = _charged(call)
    assert len(counts) == 2 and budget.first_count(call) == sum(counts)  # the two sizes' pairs, counted
    monkeypatch.setattr(budget, "MAX_WORK", sum(counts) - 1)
    assert max(counts) <= budget.MAX_WORK
    with budget.meter() as meter, pytest.raises(budget.WorkLimitError, match="compare"):
        call()
    assert meter.charged == [sum(counts)]  # the total refused; neither size's pairs were charged or compared


def test_a_grid_whose_variance_falls_back_is_refused_before_any_enumeration(monkeypatch) -> None:
    """A global variance cell tries its candidates, which answer for whole numbers ("b") and leave fractional ones
    ("a") to enumeration, counted only then. The grid counts its other cells, runs the variances' candidates, and
    counts every cell left before any of them runs: refused there, it has enumerated nothing."""
    universe = {"a": [x + 0.5 for x in range(14)], "b": list(range(20, 34))}  # fractional: no candidates for "a"
    call = lambda: sensitivity.sensitivity_grid(universe, size=7, queries=["var", "std"],  # noqa: E731
                                                relations=["unbounded"])
    first, counts = budget.first_count(call), _charged(call)
    assert first < sum(counts)  # the grid's first count: its std cells; the variance of "a" is counted later
    enumerated: list[str] = []
    real = sensitivity._global_by_enumeration

    def enumeration(*args):  # records the enumerations that pass their count (a probe stops at the count)
        value = real(*args)
        enumerated.append(args[3])
        return value

    monkeypatch.setattr(sensitivity, "_global_by_enumeration", enumeration)
    monkeypatch.setattr(budget, "MAX_WORK", (first + sum(counts)) // 2)
    with budget.meter() as meter, pytest.raises(budget.WorkLimitError, match="grid's cells without a closed form"):
        call()
    assert enumerated == [] and sum(meter.charged[:-1]) <= budget.MAX_WORK < sum(meter.charged)


def test_local_sensitivities_are_one_budget_counted_first(monkeypatch) -> None:
    """The listing and every local sensitivity together, counted before any release is listed."""
    for query in ("median", "var"):
        counts = _charged(lambda q=query: sensitivity.local_sensitivities(range(12), 6, q))
        monkeypatch.setattr(budget, "MAX_WORK", sum(counts) - 1)
        assert max(counts) <= budget.MAX_WORK
        ran: list[tuple] = []
        monkeypatch.setattr(sensitivity, "local_sensitivity", lambda *a, ran=ran, **kw: ran.append(a))
        with budget.meter() as meter, pytest.raises(budget.WorkLimitError, match="every distinct release"):
            sensitivity.local_sensitivities(range(12), 6, query)
        assert ran == [] and meter.spent == 0
        monkeypatch.undo()


# ---------------------------------------------------------------------------------------- weights
WEIGHTED_CALLS = {
    "naive global": ("naive pair", lambda: dpteach.global_sensitivity(range(9), 4, "median", method="naive")),
    "naive local": ("naive pair", lambda: dpteach.local_sensitivity(range(4), range(9), "median", k=2,
                                                                     relation="symmetric", method="naive")),
    "neighbour table": ("table pair", lambda: dpteach.neighbour_table(range(7), 3, "median", relation="bounded")),
    "neighbours_of": ("listed neighbour", lambda: sensitivity.neighbours_of(range(4), range(9), "median", k=2,
                                                                            relation="symmetric")),
    "smooth naive": ("naive pair", lambda: smooth.smooth_sensitivity(range(3), range(6), "var", beta=0.5,
                                                                     relation="symmetric", method="naive")),
}


@pytest.mark.parametrize("case", WEIGHTED_CALLS)
def test_slow_paths_are_charged_by_their_weight(case, monkeypatch) -> None:
    """A pair compared by position costs tens of times a pair enumerated in numpy (benchmarks/unit_costs.py), so
    it is charged that many units: a budget that holds the raw count refuses the weighted one."""
    kind, call = WEIGHTED_CALLS[case]
    monkeypatch.setitem(budget.WEIGHTS, kind, 1)
    raw = sum(_charged(call))
    monkeypatch.undo()
    weighted = sum(_charged(call))
    assert budget.WEIGHTS[kind] > 1 and raw < weighted <= raw * budget.WEIGHTS[kind]
    monkeypatch.setattr(budget, "MAX_WORK", raw)
    with pytest.raises(budget.WorkLimitError, match=f"at {budget.WEIGHTS[kind]} units each"):
        call()


def test_weights_are_stated_in_the_docstring() -> None:
    for kind, weight in budget.WEIGHTS.items():
        assert f"``{kind}``: weight {weight}." in budget.__doc__


def test_replicate_is_refused_before_allocating() -> None:
    """``replicate([1, 2], 10**12)`` raised MemoryError: 2e12 records are counted and refused first."""
    with budget.meter() as meter, pytest.raises(budget.WorkLimitError, match="records of a replicated universe"):
        sensitivity.replicate([1, 2], 10**12)
    assert meter.charged == [2 * 10**12]


def test_first_count_stops_a_call_at_its_first_count_and_charges_nothing() -> None:
    ran = []

    def counted() -> None:
        budget.check_work(7, "do {} things", kind="naive pair")
        ran.append("work after the count")

    with budget.meter() as meter:
        assert budget.first_count(counted) == 7 * budget.WEIGHTS["naive pair"]
        assert budget.first_count(lambda: ran.append("no count")) == 0
    assert ran == ["no count"] and meter.charged == []
    counted()  # outside first_count the same call counts and runs
    assert ran == ["no count", "work after the count"]


@pytest.mark.parametrize("relation", ["unbounded", "bounded", "symmetric"])
@pytest.mark.parametrize("method", ["enumerate", "naive"])
def test_an_enumeration_counts_all_its_work_first(relation, method) -> None:
    """Every enumeration makes one count for its whole work (the unbounded one both sizes, the symmetric one every
    core size), so a refusal comes before any of it runs: its first count equals everything it charges."""
    universe = [1, 2, 2, 3, 5, 8, 13, 21, 34, 40]
    for query, k in itertools.product(("var", "std", "median", "percentile_25", "sum"), (1, 2, 3)):
        options = {"k": k, "relation": relation, "method": method}
        for call in (partial(dpteach.global_sensitivity, universe, 5, query, **options),
                     partial(dpteach.local_sensitivity, universe[:5], universe, query, **options)):
            charged = _charged(call)
            assert charged and budget.first_count(call) == sum(charged), (query, k, charged)
