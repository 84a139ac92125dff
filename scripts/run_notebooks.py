"""Execute every notebook of a folder (or the notebooks named) in order, store its outputs, and list the figures it wrote.

Used by ``make figures``. Each notebook runs top to bottom in a fresh kernel, with its own folder as the
working directory; a failing cell stops the run with the notebook's name and the error.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent
IMAGES = ROOT / "images"


def snapshot() -> dict[Path, int]:
    return {p: p.stat().st_mtime_ns for p in IMAGES.glob("*.png")}


def run(notebook: Path) -> list[Path]:
    before = snapshot()
    nb = nbformat.read(notebook, as_version=4)
    client = NotebookClient(nb, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": str(notebook.parent)}})
    client.execute()
    nbformat.write(nb, notebook)
    after = snapshot()
    return sorted(p for p, mtime in after.items() if before.get(p) != mtime)


def main(targets: list[str]) -> None:
    """Run the notebooks named NN_*.ipynb in each folder of ``targets``, and each notebook file named there."""
    notebooks = []
    for target in map(Path, targets):
        notebooks += [target] if target.suffix == ".ipynb" else sorted(target.glob("[0-9][0-9]_*.ipynb"))
    if not notebooks:
        sys.exit(f"no notebooks named NN_*.ipynb in {' '.join(targets)}")
    total = 0
    for notebook in notebooks:
        start = time.perf_counter()
        written = run(notebook)
        total += len(written)
        print(f"{notebook.name}: executed in {time.perf_counter() - start:.1f} s, wrote {len(written)} figure(s)")
        for path in written:
            print(f"  {path.relative_to(ROOT)}")
    print(f"{len(notebooks)} notebook(s) executed, {total} figure(s) written to images/")


if __name__ == "__main__":
    main(sys.argv[1:] or ["notebooks"])
