"""Every notebook, executed twice from a clean kernel, gives the same outputs: the same as each other and as the
outputs stored in the repository (and the same figure files as ``images/``).

Each notebook runs in a fresh kernel with nbclient, twice, two kernels at a time (the machine has two cores). The
kernels get ``DPTEACH_IMAGES_DIR`` pointing to a temporary folder, so ``save_fig`` never touches ``images/``; the
working directory is the notebook's folder, as for ``make figures``. Compared per code cell: stream text,
``text/plain``, ``text/html`` and PNG bytes (matplotlib's Agg output is deterministic), after the sanitisers of
``notebooks/sanitize.cfg``; errors fail the test. Widget models are not compared (their ids are random).

"``make test`` on a fresh clone passes twice in a row" is a property of the whole procedure, not of one test, and
is checked by running ``.ci/run`` twice on a fresh clone; this module checks the part that could silently break it
(notebooks whose numbers or pictures change from run to run).
"""

from __future__ import annotations

import configparser
import hashlib
import os
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
IMAGES = ROOT / "images"
COMPARED = ("text/plain", "text/html", "image/png")


def _sanitisers() -> list[tuple[re.Pattern, str]]:
    config = configparser.ConfigParser()
    config.read(ROOT / "notebooks" / "sanitize.cfg")
    return [(re.compile(config[s]["regex"]), config[s]["replace"]) for s in config.sections()]


SANITISERS = _sanitisers()


def _clean(text: str, images: Path | None = None) -> str:
    """Apply the sanitisers; a path in the temporary images folder is shown as the ``images/`` path it stands for."""
    if images is not None:
        text = text.replace(str(images), "images")
    for pattern, replacement in SANITISERS:
        text = pattern.sub(replacement, text)
    return text


def _digest(data: bytes | str) -> str:
    return hashlib.sha256(data.encode() if isinstance(data, str) else data).hexdigest()[:16]


def _outputs(nb: nbformat.NotebookNode, images: Path | None = None) -> list[list[tuple[str, ...]]]:
    """Per code cell, its outputs in order, normalised for comparison."""
    cells = []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        outputs = []
        for output in cell.get("outputs", []):
            if output.output_type == "stream":
                outputs.append((output.name, _clean(output.text, images)))
            elif output.output_type == "error":
                outputs.append(("error", output.ename, output.evalue))
            else:
                outputs += [(mime, _digest(output.data[mime]) if mime == "image/png"
                             else _clean(output.data[mime], images)) for mime in COMPARED if mime in output.data]
        cells.append(outputs)
    return cells


def _execute(notebook: Path, images: Path) -> tuple[list, dict[str, str]]:
    nb = nbformat.read(notebook, as_version=4)
    client = NotebookClient(nb, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": str(notebook.parent)}})
    client.execute(env={**os.environ, "DPTEACH_IMAGES_DIR": str(images)})
    return _outputs(nb, images), {p.name: _digest(p.read_bytes()) for p in sorted(images.glob("*.png"))}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[tuple[list, dict[str, str]]]]:
    """Both runs of every notebook, executed two at a time."""
    jobs = [(nb, tmp_path_factory.mktemp(f"{nb.stem}-run{i}")) for nb in NOTEBOOKS for i in (1, 2)]
    with ThreadPoolExecutor(max_workers=2) as pool:
        done = list(pool.map(lambda job: _execute(*job), jobs))
    return {nb.name: [done[2 * i], done[2 * i + 1]] for i, nb in enumerate(NOTEBOOKS)}


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=[nb.name for nb in NOTEBOOKS])
def test_two_clean_runs_agree_with_each_other_and_with_the_stored_outputs(notebook, runs):
    (first, first_images), (second, second_images) = runs[notebook.name]
    errors = [o for cell in first for o in cell if o[0] == "error"]
    assert not errors, errors
    assert first == second, "two runs from a clean kernel differ"
    assert first == _outputs(nbformat.read(notebook, as_version=4)), \
        "the stored outputs differ from a fresh run: re-run `make figures` and commit"
    assert first_images == second_images, "the figure files differ between two runs"
    stored = {name: _digest((IMAGES / name).read_bytes()) for name in first_images if (IMAGES / name).exists()}
    assert stored == first_images, "images/ differs from a fresh run: re-run `make figures` and commit"
