"""Data sets used by the notebooks: the blog posts' toy universes and the UCI Adult census data.

Taught in notebooks 01 and 02 (toy universes) and 03 (Adult ages).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

DATA_DIR = Path(__file__).resolve().parent.parent / "data"


def load_adult() -> pd.DataFrame:
    """The UCI Adult training file (32,561 rows), with the column ``Age`` first.

    Read from ``data/adult.csv``; see ``data/README.md`` for provenance and licence
    (UCI Machine Learning Repository, Becker & Kohavi 1996, CC BY 4.0).
    """
    path = DATA_DIR / "adult.csv"
    if not path.exists():
        raise FileNotFoundError(f"{path} is missing; rebuild it with data/make_adult_csv.py (see data/README.md)")
    return pd.read_csv(path)


def small_universe() -> pd.DataFrame:
    """The four-student universe of the global-sensitivity post (release = its first 3 rows)."""
    return pd.DataFrame(
        {
            "name": ["Chris", "Kelly", "Pat", "Terry"],
            "school_year": [1, 2, 3, 4],
            "absence_days": [1, 2, 3, 10],
        }
    )


def large_universe() -> pd.DataFrame:
    """The ten-student universe of the global-sensitivity post (release = its first 6 rows)."""
    return pd.DataFrame(
        {
            "name": ["Chris", "Kelly", "Keny", "Sherry", "Jerry", "Morty", "Beth", "Summer", "Squanchy", "Rick"],
            "school_year": [1, 2, 2, 2, 5, 5, 7, 8, 9, 9],
            "absence_days": [1, 2, 3, 4, 5, 6, 7, 8, 15, 20],
        }
    )


def scenario_b_ranges() -> dict[str, list[int]]:
    """Scenario (b): the ranges of possible values, before replication to the release size."""
    return {"mood": [1, 2], "driving_proficiency": [1, 2, 3]}
