"""The conda environment and pyproject.toml declare the same packages; the data ships with the repo."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import yaml

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent


def _normalise(requirement: str) -> str:
    return re.sub(r"\s+", "", requirement.split(";")[0]).lower().replace("_", "-")


def _pyproject_requirements() -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    declared = project["dependencies"] + project["optional-dependencies"]["dev"]
    # tomli only backports the standard library's tomllib to Python 3.10; conda's Python is newer.
    return {_normalise(r) for r in declared if "python_version" not in r}


def _conda_requirements() -> set[str]:
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    found: set[str] = set()
    for entry in env["dependencies"]:
        if isinstance(entry, dict):
            found |= {_normalise(r) for r in entry["pip"] if not r.startswith("-e")}
        elif not entry.startswith(("python", "pip")) or entry.startswith("python-"):
            found.add(_normalise(entry))
    return found


def test_environment_yml_matches_pyproject() -> None:
    pyproject, conda = _pyproject_requirements(), _conda_requirements()
    assert pyproject - conda == set(), f"in pyproject.toml but not environment.yml: {pyproject - conda}"
    assert conda - pyproject == set(), f"in environment.yml but not pyproject.toml: {conda - pyproject}"


def test_adult_data_ships_with_provenance() -> None:
    import dpteach

    adult = dpteach.load_adult()
    assert len(adult) == 32_561
    assert adult.columns[0] == "Age"
    assert adult["Age"].between(17, 90).all()
    readme = (ROOT / "data" / "README.md").read_text()
    for fact in ("Kohavi", "Becker", "CC BY 4.0", "32,561"):
        assert fact in readme
