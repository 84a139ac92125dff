"""Benchmark: the exact fast methods against the baselines they replace, in one process (``make bench``).

Workloads (issue #6):

1. the blog grid: every number behind the six blog figures, ``method="naive"`` against the default;
2. scaling: global and local sensitivity for universes of 10^4..10^6 values (release = half, k = 10), the local
   variance and standard deviation in closed form (issue #16) with the time the enumerated global variance takes to
   be refused, and the cost curve of enumeration against the closed forms on small universes;
3. the smooth sensitivity of the median on the Adult ages (delta from the public bound N = 48,842, as in
   notebook A1): O(n log n) against the O(n^2) direct evaluation, and its growth for n = 10^3..10^6. The fast
   value is rounded up, so the check is direct <= fast <= (1 + eta) direct, with eta the relative margin of
   ``smooth_sensitivity_median``'s docstring;
4. notebook A1's cost curve: one workload (the global median, both relations, release = half the universe) for
   every method and size, each time a median of repeated runs, with the values each method returned.

Times are medians of repeated runs (wall clock). Writes ``benchmarks/results.md``, ``benchmarks/timings.csv``,
``benchmarks/cost_curve.csv`` and ``images/benchmark_scaling.png``; ``--cost-curve`` runs workload 4 alone (about
two minutes) and writes only its CSV; ``--smooth-median`` runs workload 3 alone (under a minute) and replaces its
rows in those files, saying so in ``results.md``; ``--quick`` is a smoke test that writes nothing.
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

import dpteach  # noqa: E402
from dpteach import budget, spread  # noqa: E402
from dpteach.datasets import BLOG_FIGURES  # noqa: E402
from dpteach.smooth import (  # noqa: E402
    _ALL_PAIRS_UP_TO,
    _UNIT,
    _log_scores,
    _padded_sorted,
    laplace_beta,
    smooth_sensitivity_median,
)

ROOT = Path(__file__).resolve().parent.parent
QUERIES = ("count", "sum", "mean", "median", "percentile_90")
RELATIONS = ("unbounded", "bounded")


@dataclass
class Row:
    """One line of the results table."""

    workload: str
    baseline: str
    baseline_s: float | None
    default_s: float
    identical: str

    def cells(self) -> list[str]:
        ratio = f"{self.baseline_s / self.default_s:,.0f}×" if self.baseline_s and self.default_s else "—"
        base = f"{self.baseline}: {_seconds(self.baseline_s)}" if self.baseline_s else self.baseline
        return [self.workload, base, _seconds(self.default_s), ratio, self.identical]


def _seconds(value: float | None) -> str:
    if value is None or math.isnan(value):
        return "—"
    return f"{value * 1e3:.1f} ms" if value < 1 else f"{value:.1f} s"


def timed(call: Callable[[], object], repeats: int) -> tuple[float, object]:
    """Median wall time of ``repeats`` calls, and the last call's result."""
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = call()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def machine() -> str:
    cpu = platform.processor() or "unknown CPU"
    if Path("/proc/cpuinfo").exists():
        names = [line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                 if line.startswith("model name")]
        cpu = names[0] if names else cpu
    return (f"{cpu}, {os.cpu_count()} logical cores, {platform.system()} {platform.machine()}, "
            f"Python {platform.python_version()}, numpy {np.__version__}")


# ------------------------------------------------------------------------------------------ workloads
def blog_grid(naive_repeats: int, repeats: int, figures=BLOG_FIGURES) -> list[Row]:
    """The grid behind the blog's figures, naive against the default. The default is timed *cold* (the kept lists
    of sub-multisets and candidate tables cleared before each run, as in a fresh process) and *warm* (the same
    grid again in a process that has just computed it)."""
    def grid(method: str) -> pd.DataFrame:  # naive: one budget per (k, query), as one grid would be refused
        return pd.concat([f.grid(method=method, piecewise=method == "naive").assign(figure=f.name) for f in figures],
                         ignore_index=True)

    def cold() -> pd.DataFrame:
        dpteach.sensitivity.clear_caches()
        return grid("fast")

    naive_s, naive = timed(lambda: grid("naive"), naive_repeats)
    fast_s, fast = timed(cold, repeats)
    warm_s, warm = timed(lambda: grid("fast"), repeats)
    cells = len(fast)
    rows = []
    for label, seconds, values in (("cold", fast_s, fast), ("warm", warm_s, warm)):
        equal = int((naive["sensitivity"] == values["sensitivity"]).sum()) if naive.drop(
            columns="sensitivity").equals(values.drop(columns="sensitivity")) else 0
        rows.append(Row(f"blog grid, {label}: {cells} sensitivities (6 figures, 10 queries, 2 columns)", "naive",
                        naive_s, seconds,
                        f"yes (all {cells} cells ==)" if equal == cells else f"NO ({equal} of {cells} cells ==)"))
    return rows


def scaling(sizes: list[int], k: int, repeats: int, records: list[dict]) -> list[Row]:
    rows = []
    rng = np.random.default_rng(2024)
    for size in sizes:
        universe = rng.integers(0, 1_000_000, size=size).astype(float)
        release = rng.permutation(universe)[: size // 2]
        for scope in ("global", "local"):
            slowest = 0.0
            for query in QUERIES:
                for relation in RELATIONS:
                    if scope == "global":
                        call = lambda q=query, r=relation, u=universe, n=size // 2: (  # noqa: E731
                            dpteach.global_sensitivity(u, n, q, k=k, relation=r))
                    else:
                        call = lambda q=query, r=relation, u=universe, x=release: (  # noqa: E731
                            dpteach.local_sensitivity(x, u, q, k=k, relation=r))
                    seconds, _ = timed(call, repeats)
                    slowest = max(slowest, seconds)
                    records.append(dict(workload=f"fast {scope}", size=size, query=query, relation=relation,
                                        seconds=seconds))
            if size >= 10_000:
                workload = f"{scope}, |U| = {size:,}, n = {size // 2:,}, k = {k}: slowest of 5 queries × 2 relations"
                rows.append(Row(workload,
                                "enumeration: infeasible", None, slowest, "— (closed forms; see small cases)"))
    return rows


def spread_scaling(sizes: list[int], k: int, repeats: int, records: list[dict]) -> list[Row]:
    """Local var and std in closed form (dpteach.spread) at scale, and how fast the enumerated *global* var is
    refused (its work is counted, not done)."""
    rows = []
    rng = np.random.default_rng(16)
    for size in sizes:
        universe = rng.integers(0, 1_000_000, size=size).astype(float)
        release = rng.permutation(universe)[: size // 2]
        for relation in ("unbounded", "bounded", "symmetric"):
            work = spread.candidate_count(size // 2, size - size // 2, k, relation)
            if work > budget.MAX_WORK:
                rows.append(Row(f"local var/std, {relation}, |U| = {size:,}, k = {k}", "—", None, math.nan,
                                f"refused: {work:,} candidates > limit {budget.MAX_WORK:,}"))
                continue
            slowest = 0.0
            for query in ("var", "std"):
                seconds, _ = timed(lambda q=query, r=relation, u=universe, x=release: (  # noqa: E731
                    dpteach.local_sensitivity(x, u, q, k=k, relation=r)), repeats)
                slowest = max(slowest, seconds)
                records.append(dict(workload="fast local var/std", size=size, query=query, relation=relation,
                                    seconds=seconds))
            rows.append(Row(f"local var and std, {relation}, |U| = {size:,}, n = {size // 2:,}, k = {k}: slower of "
                            "the two", "enumeration: infeasible", None, slowest, "— (closed form; see tests)"))
        seconds, _ = timed(lambda u=universe: dpteach.global_sensitivity(u, 100, "var", k=k, relation="unbounded"),
                           repeats)
        records.append(dict(workload="fast global var, unbounded, n = 100", size=size, query="var",
                            relation="unbounded", seconds=seconds))
        rows.append(Row(f"global var, unbounded, |U| = {size:,}, n = 100, k = {k} (candidates: proved upper bound)",
                        "enumeration: infeasible", None, seconds, "— (candidates; see tests)"))
        refusals, messages = [], []
        for relation in ("unbounded", "bounded", "symmetric"):
            start = time.perf_counter()
            try:
                dpteach.global_sensitivity(universe, size // 2, "var", k=k, relation=relation)
                messages.append(f"{relation}: answered")
            except ValueError as error:
                messages.append(f"{relation}: " + str(error).split(";")[0].removeprefix("this computation "))
            refusals.append(time.perf_counter() - start)
        rows.append(Row(f"global var, n = |U|/2, |U| = {size:,}, k = {k}, 3 relations: time to answer or refuse, "
                        "slowest", "—", None, max(refusals), _merged(messages)))
    return rows


def _merged(messages: list[str]) -> str:
    """``"relation: outcome"`` messages, said once when every relation had the same outcome."""
    outcomes = {m.split(": ", 1)[1] for m in messages}
    return f"all: {outcomes.pop()}" if len(outcomes) == 1 else "; ".join(messages)


def cost_curve(sizes: list[int], naive_up_to: int, repeats: int, records: list[dict]) -> list[Row]:
    """Enumeration and naive against the closed forms on small universes: median, both relations, k = 1."""
    rows = []
    rng = np.random.default_rng(7)
    for size in sizes:
        universe = rng.integers(0, 100, size=size).astype(float)
        for method in ("naive", "enumerate", "fast"):
            if method == "naive" and size > naive_up_to:
                continue
            values, total = [], 0.0
            for relation in RELATIONS:
                seconds, value = timed(lambda m=method, r=relation, u=universe, n=size // 2: (  # noqa: E731
                    dpteach.global_sensitivity(u, n, "median", relation=r, method=m)),
                    repeats if method == "fast" else 1)
                values.append(value)
                total += seconds
            records.append(dict(workload=f"{method} global", size=size, query="median", relation="both",
                                 seconds=total))
            if method == "enumerate":
                reference, enumerate_s = values, total
        fast = records[-1]
        rows.append(Row(f"global median, |U| = {size}, n = {size // 2}, k = 1, both relations", "enumerate",
                        enumerate_s, fast["seconds"], "yes" if values == reference else "NO"))
    return rows


def global_median_curve(sizes: list[int], limits: dict[str, int], repeats: int, k: int = 1) -> list[dict]:
    """Notebook A1's cost curve: the global median at distance ``k``, unbounded then bounded, release = half.

    One call computes both relations; its time is the median of ``repeats`` calls. ``limits`` gives the largest
    universe each method is timed on (enumeration grows like the number of releases, C(|U|, |U|/2)).
    """
    records = []
    rng = np.random.default_rng(11)
    for size in sizes:
        universe = rng.integers(0, 1_000_000, size=size).astype(float)
        for method, largest in limits.items():
            if size > largest:
                continue
            seconds, values = timed(lambda m=method, u=universe, n=size // 2: [  # noqa: E731
                dpteach.global_sensitivity(u, n, "median", k=k, relation=r, method=m) for r in RELATIONS], repeats)
            records.append(dict(method=method, k=k, size=size, release_size=size // 2, repeats=repeats,
                                seconds=seconds, unbounded=values[0], bounded=values[1]))
    return records


def cost_curve_table() -> pd.DataFrame:
    """Workload 4: every method at k = 1, and enumeration at k = 2 on the largest small universe."""
    small = [6, 8, 10, 12, 14, 16, 18, 20]
    records = global_median_curve(small + [10**2, 10**3, 10**4, 10**5, 10**6],
                                  {"naive": 12, "enumerate": 20, "fast": 10**6}, repeats=3)
    records += global_median_curve([20], {"enumerate": 20, "fast": 20}, repeats=3, k=2)
    return pd.DataFrame(records)


def smooth_direct(data: np.ndarray, beta: float) -> float:
    """The O(n^2) evaluation: every pair i <= m <= j of the padded sorted data, in row blocks."""
    xs = _padded_sorted(data, 0.0, 100.0)
    m = math.ceil(data.size / 2)
    cols = np.arange(m, xs.size)
    step = max(1, 4_000_000 // cols.size)
    best = -math.inf
    for start in range(0, m + 1, step):
        rows = np.arange(start, min(m + 1, start + step))
        best = max(best, float(_log_scores(xs, rows[:, None], cols[None, :], beta).max()))
    return math.exp(best)


ADULT_PUBLIC_SIZE = 48_842  # UCI's published size of the whole Adult data set: notebook A1's public bound N >= n


def smooth_margin(data: np.ndarray, value: float, beta: float, lower: float = 0.0, upper: float = 100.0) -> float:
    """The relative margin eta of ``smooth_sensitivity_median``'s docstring (its "Rounding" paragraph) for this call:
    2^-48 (|ln(u - l)| + |ln S| + 3), plus 4 L 2^-53 (7460 + 3 beta (n + 1)) on the divide-and-conquer route."""
    xs = _padded_sorted(data, lower, upper)
    m = math.ceil(data.size / 2)
    i, j = np.arange(m + 1), np.arange(m, xs.size)
    rows = int(((i == m) | (xs[i] != xs[np.minimum(i + 1, xs.size - 1)])).sum())
    cols = int(((j == m) | (xs[j] != xs[j - 1])).sum())
    eta = 2.0**-48 * (abs(math.log(upper - lower)) + abs(math.log(value)) + 3)
    if rows * cols > _ALL_PAIRS_UP_TO:
        eta += 4 * math.ceil(math.log2(rows)) * _UNIT * (7460 + 3 * beta * (xs.size - 1))
    return eta


def smooth_check(data: np.ndarray, fast: float, direct: float, beta: float) -> str:
    """Never below the O(n^2) evaluation, and above it by at most the documented relative margin."""
    eta = smooth_margin(data, direct, beta)
    if direct <= fast <= (1 + eta) * direct + 2.0**-1070:
        return f"yes (fast ≥ direct, +{(fast - direct) / direct:.1e} relative ≤ η = {eta:.1e})"
    return f"NO ({fast!r} vs {direct!r}, η = {eta:.1e})"


def smooth_median(sizes: list[int], direct_up_to: int, repeats: int, records: list[dict]) -> list[Row]:
    ages = dpteach.load_adult()["Age"].to_numpy(dtype=float)
    beta = laplace_beta(1.0, 1 / ADULT_PUBLIC_SIZE**2)
    direct_s, direct = timed(lambda: smooth_direct(ages, beta), 1)
    fast_s, fast = timed(lambda: smooth_sensitivity_median(ages, 0.0, 100.0, beta), repeats)
    rows = [Row(f"smooth sensitivity of the median, Adult ages (n = {ages.size:,}, δ = 1/{ADULT_PUBLIC_SIZE:,}²)",
                "O(n²) direct", direct_s, fast_s, smooth_check(ages, fast, direct, beta))]
    rng = np.random.default_rng(3)
    for size in sizes:
        data = rng.normal(40, 15, size=size)
        fast_s, fast = timed(lambda d=data: smooth_sensitivity_median(d, 0.0, 100.0, 0.01), repeats)
        records.append(dict(workload="smooth median, O(n log n)", size=size, query="median", relation="replace",
                            seconds=fast_s))
        if size <= direct_up_to:
            direct_s, direct = timed(lambda d=data: smooth_direct(d, 0.01), 1)
            records.append(dict(workload="smooth median, O(n²) direct", size=size, query="median",
                                relation="replace", seconds=direct_s))
            rows.append(Row(f"smooth median, n = {size:,} normal draws, β = 0.01", "O(n²) direct", direct_s, fast_s,
                            smooth_check(data, fast, direct, 0.01)))
        else:
            rows.append(Row(f"smooth median, n = {size:,} normal draws, β = 0.01", "O(n²) direct: skipped", None,
                            fast_s, "—"))
    return rows


SMOOTH_SIZES = [10**3, 3 * 10**3, 10**4, 3 * 10**4, 10**5, 10**6]


def rerun_smooth_median() -> list[Row]:
    """Workload 3 alone: replace its rows in results.md and timings.csv (the other rows keep their run)."""
    start = time.perf_counter()
    records: list[dict] = []
    rows = smooth_median(SMOOTH_SIZES, 3 * 10**4, 5, records)
    seconds = time.perf_counter() - start
    results = ROOT / "benchmarks" / "results.md"
    lines = [line for line in results.read_text(encoding="utf-8").splitlines()
             if not line.startswith(("| smooth ", "The smooth-median rows"))]
    table_end = max(i for i, line in enumerate(lines) if line.startswith("|")) + 1
    lines[table_end:table_end] = ["| " + " | ".join(row.cells()) + " |" for row in rows]
    note = (f"The smooth-median rows were re-run alone (`python benchmarks/bench.py --smooth-median`, "
            f"{seconds:.0f} s) on {time.strftime('%d %b %Y')}; the other rows keep the run above.")
    lines[table_end + len(rows):table_end + len(rows)] = ["", note]
    results.write_text("\n".join(lines) + "\n", encoding="utf-8")
    timings_path = ROOT / "benchmarks" / "timings.csv"
    timings = pd.read_csv(timings_path)
    timings = pd.concat([timings[~timings["workload"].str.startswith("smooth")], pd.DataFrame(records)],
                        ignore_index=True)
    timings.to_csv(timings_path, index=False)
    plot(timings, ROOT / "images" / "benchmark_scaling.png")
    return rows


# ------------------------------------------------------------------------------------------ output
def plot(timings: pd.DataFrame, path: Path) -> None:
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.5))
    styles = {"naive global": ("o-", "#d62728"), "enumerate global": ("s-", "#ff7f0e"),
              "fast global": ("^-", "#1f77b4"), "fast local": ("v-", "#2ca02c"),
              "fast local var/std": ("D-", "#9467bd"), "fast global var, unbounded, n = 100": ("P-", "#8c564b"),
              "smooth median, O(n²) direct": ("s-", "#ff7f0e"), "smooth median, O(n log n)": ("^-", "#1f77b4")}
    labels = {"naive global": "naive (blog), global median", "enumerate global": "enumerate, global median",
              "fast global": "closed form, global (median; slowest query from 10²)",
              "fast local": "closed form, local (slowest monotone query)",
              "fast local var/std": "local var/std (slowest relation; symmetric refused at 10⁶)",
              "fast global var, unbounded, n = 100": "global var, unbounded, release size 100 (candidates)"}
    for name, (marker, colour) in styles.items():
        part = timings[timings["workload"] == name].groupby("size")["seconds"].max()
        if part.empty:
            continue
        axis = right if name.startswith("smooth") else left
        axis.loglog(part.index, part.values, marker, color=colour, label=labels.get(name, name))
    left.set(xlabel="universe size |U| (release size |U|/2)", ylabel="seconds (median of runs)",
             title="Global and local sensitivity")
    right.set(xlabel="data size n", ylabel="seconds (median of runs)", title="Smooth sensitivity of the median")
    for axis in (left, right):
        axis.legend(fontsize=9, loc="upper left", bbox_to_anchor=(0, -0.2))
        axis.grid(True, which="major")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def markdown(rows: list[Row], seconds: float) -> str:
    header = ["workload", "baseline", "default", "ratio", "values identical?"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row.cells()) + " |" for row in rows]
    return "\n".join([
        "# Benchmark results", "",
        f"Machine: {machine()}.", "",
        f"Produced by `make bench` (`python benchmarks/bench.py`) in {seconds / 60:.1f} minutes. Times are medians "
        "of repeated wall-clock runs; the naive blog grid and the O(n²) baselines run once.", "",
        *lines, "",
        "![time against size, log-log](../images/benchmark_scaling.png)", "",
    ])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small smoke run; writes no files")
    parser.add_argument("--cost-curve", action="store_true", help="only notebook A1's cost curve (its CSV)")
    parser.add_argument("--smooth-median", action="store_true", help="only the smooth-median rows (workload 3)")
    args = parser.parse_args()
    if args.smooth_median:
        rows = rerun_smooth_median()
        print("\n".join("| " + " | ".join(row.cells()) + " |" for row in rows))
        failed = [row.workload for row in rows if row.identical.startswith("NO")]
        if failed:
            sys.exit(f"values differ: {failed}")
        return
    if args.cost_curve or not args.quick:
        curve = cost_curve_table()
        curve.to_csv(ROOT / "benchmarks" / "cost_curve.csv", index=False)
        print(curve.to_string(index=False))
        if args.cost_curve:
            return
    start = time.perf_counter()
    records: list[dict] = []
    if args.quick:
        figures = [f for f in BLOG_FIGURES if f.name.endswith("_b")]
        rows = blog_grid(1, 3, figures)
        rows += cost_curve([6, 8, 10], 8, 3, records)
        rows += scaling([10**4], 10, 3, records)
        rows += spread_scaling([10**4], 10, 3, records)
        rows += smooth_median([10**3, 10**4], 10**3, 3, records)
    else:
        rows = blog_grid(1, 7)
        rows += cost_curve([6, 8, 10, 12, 14, 16, 18], 12, 5, records)
        rows += scaling([10**2, 10**3, 10**4, 10**5, 10**6], 10, 5, records)
        rows += spread_scaling([10**4, 10**5, 10**6], 10, 5, records)
        rows += smooth_median(SMOOTH_SIZES, 3 * 10**4, 5, records)
    text = markdown(rows, time.perf_counter() - start)
    print(text)
    if not args.quick:
        (ROOT / "benchmarks" / "results.md").write_text(text, encoding="utf-8")
        timings = pd.DataFrame(records)
        timings.to_csv(ROOT / "benchmarks" / "timings.csv", index=False)
        plot(timings, ROOT / "images" / "benchmark_scaling.png")
    failed = [row.workload for row in rows if row.identical.startswith("NO")]
    if failed:
        sys.exit(f"values differ: {failed}")


if __name__ == "__main__":
    main()
