"""The conda environment, the lock and pyproject.toml declare the same packages; the environment is the locked
one; the data ships with the repo."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import yaml

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
# conda-forge names that differ from the package index's.
CONDA_NAMES = {"playwright": "playwright-python"}


def _load_lock_drift():
    spec = importlib.util.spec_from_file_location("lock_drift", ROOT / "scripts" / "lock_drift.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


LOCK_DRIFT = _load_lock_drift()


def _normalise(requirement: str) -> str:
    return re.sub(r"\s+", "", requirement.split(";")[0]).lower().replace("_", "-")


def _declared() -> list[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    return project["dependencies"] + [r for extra in sorted(extras) for r in extras[extra]]


def _pyproject_requirements() -> set[str]:
    """Declared requirements as conda-forge spells them (tomli is listed unconditionally there: harmless)."""
    found = set()
    for requirement in map(_normalise, _declared()):
        name = re.match(r"[a-z0-9.-]+", requirement).group(0)
        found.add(CONDA_NAMES.get(name, name) + requirement[len(name):])
    return found


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


def test_the_lock_pins_every_declared_package_exactly() -> None:
    lines = [line for line in (ROOT / "requirements.lock").read_text().splitlines()
             if line and not line.startswith((" ", "#"))]
    assert lines and all("==" in line.split(";")[0] for line in lines), "every lock line must pin one version"
    pinned = {re.match(r"[A-Za-z0-9._-]+", line).group(0).lower().replace("_", "-") for line in lines}
    declared = {re.match(r"[a-z0-9.-]+", _normalise(r)).group(0) for r in _declared()}
    assert declared - pinned == set(), f"declared in pyproject.toml but not in requirements.lock: {declared - pinned}"


def test_installed_versions_match_the_lock() -> None:
    """The environment the tests run in is the locked one (``make`` installs requirements.lock)."""
    pins = LOCK_DRIFT.locked_versions(ROOT / "requirements.lock")
    drift = {name: (pinned, LOCK_DRIFT.installed_version(name)) for name, pinned in pins.items()
             if LOCK_DRIFT.installed_version(name) != pinned}
    assert drift == {}, f"installed versions differ from requirements.lock (locked, installed): {drift}"


def test_adult_data_ships_with_provenance() -> None:
    import dpteach

    adult = dpteach.load_adult()
    assert len(adult) == 32_561
    assert adult.columns[0] == "Age"
    assert adult["Age"].between(17, 90).all()
    readme = (ROOT / "data" / "README.md").read_text()
    for fact in ("Kohavi", "Becker", "CC BY 4.0", "32,561"):
        assert fact in readme
