"""Recompute the numbers behind every blog figure with the naive (blog-style) engine and pin them.

Writes ``tests/data/blog_grids.csv``; ``tests/test_blog_figures.py`` checks the fast engine against it.
Slow on purpose: the naive engine enumerates positions and compares pair by pair (a few minutes).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from dpteach.datasets import BLOG_FIGURES

OUT = Path(__file__).resolve().parent.parent / "tests" / "data" / "blog_grids.csv"


def main() -> None:
    frames = []
    for figure in BLOG_FIGURES:
        grid = figure.grid(method="naive", piecewise=True)  # one work budget per (k, query)
        frames.append(grid.assign(figure=figure.name))
        print(f"{figure.name}: {len(grid)} values")
    pd.concat(frames).to_csv(OUT, index=False, float_format="%.17g")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
