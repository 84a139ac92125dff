"""dpteach.transformations gives the factors Tumult Analytics chose in data/tumult_crosscheck.json.

That file is written by tumult/crosscheck.py in the separate Spark environment (``make tumult-check``).
"""

from __future__ import annotations

import json
import math

import pytest

from dpteach import transformations as tr

CASES = json.loads(tr.CROSSCHECK_FILE.read_text())["cases"]


def test_file_covers_every_transformation_and_both_noises() -> None:
    kinds = {(case["case"], case.get("noise", "laplace")) for case in CASES}
    assert {"flat_map", "public_join", "private_join", "max_rows_per_id", "max_groups_per_id"} == {
        kind for kind, _ in kinds
    }
    assert ("max_groups_per_id", "gaussian") in kinds and ("max_rows_per_id", "gaussian") in kinds


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c['case']}-{c.get('noise', 'laplace')}-{c['params']}")
def test_factor_matches_tumult(case: dict) -> None:
    assert tr.dpteach_factor(case) == pytest.approx(case["factor"], rel=1e-9)


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c['case']}-{c.get('noise', 'laplace')}-{c['params']}")
def test_noise_parameter_matches_tumult(case: dict) -> None:
    budgets = json.loads(tr.CROSSCHECK_FILE.read_text())["budgets"]
    factor = tr.dpteach_factor(case)
    if case["noise_mechanism"] == "GEOMETRIC":
        expected = tr.laplace_scale(factor, budgets["epsilon"])
    else:
        assert case["noise_mechanism"] == "DISCRETE_GAUSSIAN"
        expected = tr.gaussian_variance(factor, budgets["rho"])
    assert math.isclose(case["noise_parameter"], expected, rel_tol=1e-6)


def test_crosscheck_table_agrees_everywhere() -> None:
    table = tr.crosscheck_table()
    assert len(table) == len(CASES) and table["agree"].all()
