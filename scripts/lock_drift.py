"""Print how the running environment differs from the lock: ``python scripts/lock_drift.py requirements.lock``.

Used by ``make test-latest`` to report which packages a fresh install of pyproject.toml's ranges would move
away from the pinned versions (the stored notebook outputs were made with the pinned ones). Always exits 0: the
tests that follow decide whether the drift matters.
"""

from __future__ import annotations

import sys
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement


def locked_versions(lock: Path) -> dict[str, str]:
    """Package name -> pinned version, for the pins whose environment marker holds on this Python."""
    pins = {}
    for line in lock.read_text().splitlines():
        if line and not line.startswith((" ", "#")):
            requirement = Requirement(line)
            if requirement.marker is None or requirement.marker.evaluate():
                pins[requirement.name.lower()] = str(requirement.specifier).removeprefix("==")
    return pins


def installed_version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def main(lock: str) -> None:
    drift = [(name, pinned, installed_version(name)) for name, pinned in sorted(locked_versions(Path(lock)).items())
             if installed_version(name) != pinned]
    print(f"{len(drift)} of the locked packages differ from {lock}:" if drift else f"no drift from {lock}")
    for name, pinned, installed in drift:
        print(f"  {name}: locked {pinned}, installed {installed or 'not installed'}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "requirements.lock")
