"""Every notebook, executed twice from a clean kernel, gives the same file: the same bytes as each other and as the
committed notebook (and the same figure files as ``images/``).

Each notebook runs with :func:`scripts.run_notebooks.execute`, the procedure ``make figures`` uses, twice, two
kernels at a time (the machine has two cores). The kernels get ``DPTEACH_IMAGES_DIR`` pointing to a temporary
folder, so ``save_fig`` never touches ``images/``; a path into that folder, where a cell shows one, is compared as
the ``images/`` path ``make figures`` would show. The working directory is the notebook's folder, as for
``make figures``. Byte equality covers everything: code, outputs, PNG bytes (matplotlib's Agg output is
deterministic), widget state and metadata, so a fresh clone's ``make figures`` leaves ``git status`` empty.

"``make test`` on a fresh clone passes twice in a row" is a property of the whole procedure, not of one test, and
is checked by running ``.ci/run`` twice on a fresh clone; this module checks the part that could silently break it
(notebooks whose numbers or pictures change from run to run).
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
import pytest

from dpteach.course import course_notebooks

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = course_notebooks(ROOT / "notebooks")
IMAGES = ROOT / "images"


def _load_runner():
    spec = importlib.util.spec_from_file_location("run_notebooks", ROOT / "scripts" / "run_notebooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


RUNNER = _load_runner()


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


def _execute(notebook: Path, images: Path) -> tuple[str, dict[str, str]]:
    """The notebook file as ``make figures`` writes it, and the digests of the figures it saved."""
    nb = RUNNER.execute(notebook, env={**os.environ, "DPTEACH_IMAGES_DIR": str(images)})
    written = images / notebook.name
    nbformat.write(nb, written)
    text = written.read_text(encoding="utf-8").replace(str(images), "images")
    return text, {p.name: _digest(p.read_bytes()) for p in sorted(images.glob("*.png"))}


def _first_difference(ours: str, theirs: str) -> str:
    """Where two notebook files first differ: the cell index and a line of each, for the failure message."""
    a, b = nbformat.reads(ours, as_version=4), nbformat.reads(theirs, as_version=4)
    for i, (x, y) in enumerate(zip(a.cells, b.cells, strict=False)):
        if x != y:
            return f"cell {i} ({x.cell_type}): {str(x.get('outputs', x.source))[:200]!r} vs " \
                   f"{str(y.get('outputs', y.source))[:200]!r}"
    return "cell count or notebook metadata" if a.cells != b.cells or a.metadata != b.metadata else "whitespace"


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[tuple[str, dict[str, str]]]]:
    """Both runs of every notebook, executed two at a time."""
    jobs = [(nb, tmp_path_factory.mktemp(f"{nb.stem}-run{i}")) for nb in NOTEBOOKS for i in (1, 2)]
    with ThreadPoolExecutor(max_workers=2) as pool:
        done = list(pool.map(lambda job: _execute(*job), jobs))
    return {nb.name: [done[2 * i], done[2 * i + 1]] for i, nb in enumerate(NOTEBOOKS)}


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=[nb.name for nb in NOTEBOOKS])
def test_two_clean_runs_give_the_committed_file_byte_for_byte(notebook, runs):
    (first, first_images), (second, second_images) = runs[notebook.name]
    errors = [o for cell in nbformat.reads(first, as_version=4).cells for o in cell.get("outputs", [])
              if o.output_type == "error"]
    assert not errors, errors
    assert first == second, f"two runs from a clean kernel differ: {_first_difference(first, second)}"
    committed = notebook.read_text(encoding="utf-8")
    assert first == committed, ("the committed notebook differs from a fresh run (re-run `make figures` and "
                                f"commit): {_first_difference(first, committed)}")
    assert first_images == second_images, "the figure files differ between two runs"
    stored = {name: _digest((IMAGES / name).read_bytes()) for name in first_images if (IMAGES / name).exists()}
    assert stored == first_images, "images/ differs from a fresh run: re-run `make figures` and commit"
