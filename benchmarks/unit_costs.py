"""Benchmark: what one work unit of each path costs, and the fast paths' speed (issue 26; not a unit test).

``--costs``: for every path the work budget (:mod:`dpteach.budget`) counts, a mid-sized call is timed (median of
repeated runs) with every weight set to 1, and its time divided by the raw units it counted: microseconds per unit.
The weights in :data:`dpteach.budget.WEIGHTS` are these costs divided by the cost of one enumerated pair, rounded.

``--fast``: medians of the fast paths (blog grid, closed forms at scale, small enumerations, smooth sensitivity,
mechanism checks), to compare before and after a change to the engine.

Run one section at a time on a quiet machine: ``python benchmarks/unit_costs.py --fast`` (about a minute).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import numpy as np
import pandas as pd

import dpteach
from dpteach import budget, sensitivity, smooth
from dpteach.datasets import BLOG_FIGURES


def median_seconds(call: Callable[[], object], repeats: int) -> float:
    """Median wall time of ``repeats`` calls (one untimed warm-up call first)."""
    call()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def fast_paths(repeats: int) -> None:
    rng = np.random.default_rng(6)
    wide = np.sort(rng.integers(-10**6, 10**6, size=100_000))
    mid = np.sort(rng.integers(-10**6, 10**6, size=10_000))
    cases: dict[str, Callable[[], object]] = {
        "blog grid (6 figures, 440 cells), warm": lambda: pd.concat([f.grid() for f in BLOG_FIGURES]),
        "global median |U| = 1e5, n = 5e4, k = 10, unbounded + bounded": lambda: [
            dpteach.global_sensitivity(wide, 50_000, "median", k=10, relation=r) for r in ("unbounded", "bounded")],
        "local mean |U| = 1e5, n = 5e4, k = 10, symmetric": lambda: dpteach.local_sensitivity(
            wide[::2], wide, "mean", k=10, relation="symmetric"),
        "local var |U| = 1e4, n = 5e3, k = 10, symmetric": lambda: dpteach.local_sensitivity(
            mid[::2], mid, "var", k=10, relation="symmetric"),
        "global var enumerated |U| = 14, n = 7, 3 relations": lambda: [
            dpteach.global_sensitivity(range(14), 7, "var", relation=r) for r in ("unbounded", "bounded", "symmetric")],
        "local_sensitivities |U| = 12, n = 6, median and var": lambda: [
            sensitivity.local_sensitivities(range(12), 6, q) for q in ("median", "var")],
        "smooth_sensitivity median and var, range(5) in range(10), symmetric": lambda: [
            smooth.smooth_sensitivity(range(5), range(10), q, beta=0.1, relation="symmetric")
            for q in ("median", "var")],
        "10,000 laplace_mech calls": lambda: [
            dpteach.mechanisms.laplace_mech(1.0, 1.0, 1.0, rng) for _ in range(10_000)],
    }
    for label, call in cases.items():
        print(f"{label}: {median_seconds(call, repeats) * 1e3:.1f} ms", flush=True)


def _units(call: Callable[[], object]) -> int:
    with budget.meter() as meter:
        call()
    return sum(meter.charged)


def _cases() -> dict[str, tuple[str, Callable[[], object]]]:
    s, gs, ls = smooth.smooth_sensitivity, dpteach.global_sensitivity, dpteach.local_sensitivity
    return {
        "global var bounded, enumerate, |U| = 16, n = 8": (
            "unit", lambda: gs(range(16), 8, "var", relation="bounded", method="enumerate")),
        "global var unbounded, enumerate, |U| = 16, n = 8": (
            "unit", lambda: gs(range(16), 8, "var", relation="unbounded", method="enumerate")),
        "local var symmetric, enumerate, |U| = 40, k = 3": (
            "unit", lambda: ls(range(0, 40, 2), range(40), "var", k=3, relation="symmetric", method="enumerate")),
        "smooth var symmetric (shells), range(6) in range(12)": (
            "unit", lambda: s(range(6), range(12), "var", beta=0.1, relation="symmetric")),
        "global median bounded, closed form, |U| = 1e5, n = 5e4, k = 10": (
            "unit", lambda: gs(np.arange(100_000.0), 50_000, "median", k=10, relation="bounded")),
        "replicate(range(1000), 1000)": ("unit", lambda: sensitivity.replicate(range(1000), 1000)),
        "global median bounded, naive, |U| = 10, n = 5, k = 2": (
            "naive pair", lambda: gs(range(10), 5, "median", k=2, relation="bounded", method="naive")),
        "local var symmetric, naive, |U| = 40, k = 2": (
            "naive pair", lambda: ls(range(0, 40, 2), range(40), "var", k=2, relation="symmetric", method="naive")),
        "smooth var symmetric, naive, range(4) in range(9)": (
            "naive pair", lambda: s(range(4), range(9), "var", beta=0.1, relation="symmetric", method="naive")),
        "neighbour_table median bounded, |U| = 10, n = 5, k = 2": (
            "table pair", lambda: dpteach.neighbour_table(range(10), 5, "median", k=2, relation="bounded")),
        "neighbours_of median symmetric, |U| = 60, n = 30, k = 2": (
            "listed neighbour", lambda: sensitivity.neighbours_of(range(0, 60, 2), range(60), "median", k=2,
                                                                  relation="symmetric")),
        "local_sensitivities median, |U| = 14, n = 7": (
            "release", lambda: sensitivity.local_sensitivities(range(14), 7, "median")),
    }


def unit_costs(repeats: int) -> None:
    """Microseconds per raw unit of each kind: the measured kind weighs 1 and every other kind 0, so the call's whole
    time is divided by the units of its own kind."""
    saved = dict(budget.WEIGHTS)
    try:
        for label, (kind, call) in _cases().items():
            budget.WEIGHTS.update(dict.fromkeys(budget.WEIGHTS, 0))
            budget.WEIGHTS[kind] = 1
            units = _units(call)
            seconds = median_seconds(call, repeats)
            print(f"{label} [{kind}]: {units:,} units, {seconds * 1e3:.1f} ms, {seconds / units * 1e6:.3f} µs per unit",
                  flush=True)
    finally:
        budget.WEIGHTS.update(saved)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fast", action="store_true", help="medians of the fast paths")
    parser.add_argument("--costs", action="store_true", help="microseconds per work unit of each path")
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    if args.fast:
        fast_paths(args.repeats)
    if args.costs:
        unit_costs(args.repeats)


if __name__ == "__main__":
    main()
