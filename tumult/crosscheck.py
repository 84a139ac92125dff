"""Ask Tumult Analytics, running on Spark, which noise it adds for each case of notebook 08.

Run in the separate environment ``.venv-tumult`` (``make tumult-check``): Tumult pins older numpy
and pandas than the notebooks use. Each case builds a Tumult ``Session`` on the notebook's small
tables, asks ``Session._noise_info`` for the noise of a count, and turns that noise into the
sensitivity factor it implies:

* pure epsilon-DP (geometric/Laplace noise), epsilon = 1: factor = scale * epsilon = scale;
* rho-zCDP (discrete Gaussian noise), rho = 1/2: factor = sqrt(2 * rho * sigma^2) = sqrt(sigma^2).

The results go to ``data/tumult_crosscheck.json``. The script exits with status 1 if the file
already held different results, so CI fails when the real library disagrees with the committed file.
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import sys
import types
from importlib.metadata import version
from pathlib import Path
from typing import Any

from pyspark.sql import SparkSession
from tmlt.analytics import (
    AddOneRow,
    AddRowsWithID,
    KeySet,
    MaxGroupsPerID,
    MaxRowsPerGroupPerID,
    MaxRowsPerID,
    PureDPBudget,
    QueryBuilder,
    RhoZCDPBudget,
    Session,
    TruncationStrategy,
)

ROOT = Path(__file__).resolve().parent.parent
EPSILON = 1.0
RHO = 0.5
GRID = range(1, 6)


def load_notebook_module() -> Any:
    """dpteach/transformations.py (tables, genre splitter), loaded without running the package's ``__init__``
    (which imports plotting and widgets, absent here): ``dpteach`` is registered as a bare package over its folder,
    so the module and what it imports from the package (``dpteach.queries``: numpy only) load from their files."""
    package = types.ModuleType("dpteach")
    package.__path__ = [str(ROOT / "dpteach")]
    sys.modules.setdefault("dpteach", package)
    return importlib.import_module("dpteach.transformations")


def start_spark() -> SparkSession:
    """A one-core local Spark bound to 127.0.0.1, with no web UI and quiet logs."""
    spark = (
        SparkSession.builder.master("local[1]")
        .appName("dpteach-tumult-crosscheck")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "1")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def factor(session: Session, query: Any, budget: PureDPBudget | RhoZCDPBudget) -> dict[str, Any]:
    """Tumult's noise for ``query`` and the sensitivity factor it implies (see module docstring)."""
    (info,) = session._noise_info(query, budget)
    parameter = float(info["noise_parameter"])
    implied = parameter * EPSILON if isinstance(budget, PureDPBudget) else math.sqrt(2 * RHO * parameter)
    return {
        "noise_mechanism": info["noise_mechanism"].name,
        "noise_parameter": round(parameter, 9),
        "factor": round(implied, 9),
    }


def row_level_cases(spark: SparkSession, notebook: Any) -> list[dict[str, Any]]:
    """Flat map, public join and private joins, each private table protected by AddOneRow."""
    df = {name: spark.createDataFrame(table) for name, table in notebook.example_tables().items()}
    budget = PureDPBudget(EPSILON)
    builder = Session.Builder().with_privacy_budget(PureDPBudget(10 * EPSILON))
    for name in ("people", "residents", "users", "purchases"):
        builder = builder.with_private_dataframe(name, df[name], protected_change=AddOneRow())
    session = builder.with_public_dataframe("zip_states", df["zip_states"]).build()

    cases = [
        {"case": "flat_map", "params": {"max_rows": 3},
         **factor(session, QueryBuilder("people").flat_map(
             notebook.split_genres, {"genre": "VARCHAR"}, augment=True, max_rows=3).count(), budget)},
        {"case": "public_join", "params": {"on": "zipcode"},
         **factor(session, QueryBuilder("residents").join_public("zip_states").count(), budget)},
    ]
    for a, b in ((2, 2), (1, 3)):
        query = QueryBuilder("users").join_private(
            "purchases",
            truncation_strategy_left=TruncationStrategy.DropExcess(a),
            truncation_strategy_right=TruncationStrategy.DropExcess(b),
        ).count()
        cases.append({"case": "private_join", "params": {"left_max_records": a, "right_max_records": b},
                      **factor(session, query, budget)})
    return cases


def id_level_cases(spark: SparkSession, notebook: Any) -> list[dict[str, Any]]:
    """Per-ID truncation of ``visits`` (AddRowsWithID on patient_id), under pure DP and zCDP."""
    table = notebook.example_tables()["visits"]
    visits = spark.createDataFrame(table)
    keys = KeySet.from_dict({"clinic": sorted(set(table["clinic"]))})
    cases = []
    for noise, budget in (("laplace", PureDPBudget(EPSILON)), ("gaussian", RhoZCDPBudget(RHO))):
        session = Session.from_dataframe(
            type(budget)(100), "visits", visits, protected_change=AddRowsWithID("patient_id")
        )
        query = QueryBuilder("visits").enforce(MaxRowsPerID(2)).count()
        cases.append({"case": "max_rows_per_id", "noise": noise, "params": {"max_rows_per_id": 2},
                      **factor(session, query, budget)})
        for g in GRID:
            for r in GRID:
                query = (QueryBuilder("visits").enforce(MaxGroupsPerID("clinic", g))
                         .enforce(MaxRowsPerGroupPerID("clinic", r)).groupby(keys).count())
                cases.append({"case": "max_groups_per_id", "noise": noise,
                              "params": {"max_groups_per_id": g, "max_rows_per_group_per_id": r},
                              **factor(session, query, budget)})
    return cases


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("output", type=Path, help="JSON file to (re)write, e.g. data/tumult_crosscheck.json")
    output = parser.parse_args().output
    spark = start_spark()
    notebook = load_notebook_module()
    result = {
        "library": {name: version(name) for name in ("tmlt.analytics", "tmlt.core", "pyspark")},
        "budgets": {"epsilon": EPSILON, "rho": RHO},
        "cases": row_level_cases(spark, notebook) + id_level_cases(spark, notebook),
    }
    spark.stop()
    text = json.dumps(result, indent=1, sort_keys=True) + "\n"
    previous = output.read_text() if output.exists() else None
    output.write_text(text)
    if previous is not None and json.loads(previous)["cases"] != result["cases"]:
        print(f"Tumult disagrees with the committed {output}; see `git diff {output}`", file=sys.stderr)
        return 1
    print(f"wrote {output}: {len(result['cases'])} cases agree with the committed file")
    return 0


if __name__ == "__main__":
    sys.exit(main())
