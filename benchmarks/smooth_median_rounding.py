"""Old (log scores, exp(best) returned as is) against new (rounded up) smooth_sensitivity_median on the Adult ages.

Not a test: run ``.venv/bin/python benchmarks/smooth_median_rounding.py [old_git_ref]`` (by default the
code before the change); it prints the median of
repeated timings of each version, on the lesson 06 ages at lesson 06's beta, and on their all-pairs and
divide-and-conquer routes (the latter forced by a threshold of 0).
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import tempfile
import timeit
from pathlib import Path

import numpy as np

from dpteach import smooth
from dpteach.datasets import load_adult

ROOT = Path(__file__).resolve().parents[1]
# the default baseline: the last commit before smooth_sensitivity_median rounded up
BEFORE_ROUNDING = "03dad03c450262d2cc459ff87acec0a4c52f5e42"


def _old_module(ref: str):
    source = subprocess.run(["git", "-C", str(ROOT), "show", f"{ref}:dpteach/smooth.py"], check=True,
                            capture_output=True, text=True).stdout
    path = Path(tempfile.mkdtemp()) / "smooth_old.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("smooth_old", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["smooth_old"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def _median_of_runs(call, repeat: int = 15, number: int = 3) -> float:
    return float(np.median(timeit.repeat(call, repeat=repeat, number=number))) / number


def main() -> None:
    old = _old_module(sys.argv[1] if len(sys.argv) > 1 else BEFORE_ROUNDING)
    ages = load_adult()["Age"].to_numpy(dtype=float)
    beta = smooth.laplace_beta(1.0, 1 / 48_842**2)
    reals = np.random.default_rng(0).normal(40, 15, size=ages.size)  # distinct values: many pairs
    print(f"n = {ages.size}, beta = {beta:.6g}; median of 15 runs, seconds per call")
    for label, data, threshold in (("ages, all pairs", ages, None), ("ages, divide and conquer", ages, 0),
                                   ("normal reals, divide and conquer", reals, None)):
        times = {}
        for name, module in (("old", old), ("new", smooth)):
            saved = module._ALL_PAIRS_UP_TO
            if threshold is not None:
                module._ALL_PAIRS_UP_TO = threshold
            value = module.smooth_sensitivity_median(data, 0.0, 100.0, beta)
            times[name] = _median_of_runs(lambda m=module, x=data: m.smooth_sensitivity_median(x, 0.0, 100.0, beta))
            module._ALL_PAIRS_UP_TO = saved
            print(f"  {label:34s} {name}: {times[name] * 1e3:8.2f} ms  S = {value!r}")
        print(f"  {label:34s} new/old = {times['new'] / times['old']:.2f}")


if __name__ == "__main__":
    main()
