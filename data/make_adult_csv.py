"""Rebuild ``data/adult.csv`` from the UCI Adult training file.

Usage: ``python data/make_adult_csv.py PATH/TO/adult.data [PATH/TO/adult.names]``

The raw file has no header, separates fields with ", " and ends with a blank line. Column names are read
from ``adult.names`` (the lines ``name: ...`` after the attribute list) and capitalised per hyphen part
(``age`` -> ``Age``, ``hours-per-week`` -> ``Hours-Per-Week``), as the book chapter's copy of the data does;
the class label, which ``adult.names`` lists without a name, becomes ``Income``.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pandas as pd

ATTRIBUTE_LINE = re.compile(r"^([a-z][a-z-]*): ")


def column_names(names_file: Path) -> list[str]:
    """Attribute names in the order ``adult.names`` lists them, then ``Income``."""
    raw = [m.group(1) for line in names_file.read_text().splitlines() if (m := ATTRIBUTE_LINE.match(line))]
    return ["-".join(part.capitalize() for part in name.split("-")) for name in raw] + ["Income"]


def main(data_file: str, names_file: str | None = None) -> None:
    data_path = Path(data_file)
    names_path = Path(names_file) if names_file else data_path.with_name("adult.names")
    names = column_names(names_path)
    frame = pd.read_csv(data_path, header=None, names=names, sep=",", skipinitialspace=True)
    frame = frame.dropna(how="all")
    out = Path(__file__).with_name("adult.csv")
    frame.to_csv(out, index=False)
    print(f"wrote {out} with {len(frame)} rows and columns {names}")


if __name__ == "__main__":
    main(*sys.argv[1:])
