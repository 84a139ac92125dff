"""House rules every lesson notebook keeps: slides an instructor can present, thin cells, hidden solutions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dpteach.course import course_notebooks

NOTEBOOKS = course_notebooks(Path(__file__).resolve().parent.parent / "notebooks")
LESSONS = [p for p in NOTEBOOKS if not p.name.startswith("00_")]
# The slide types jupyterlab-deck and nbconvert both understand; "" continues the current slide. ("-", which
# some tools write for "continue", makes jupyterlab-deck hide the cell, widgets and all.)
SLIDE_TYPES = {"slide", "subslide", "fragment", "skip", "notes", ""}
MAX_CODE_LINES = 15


def _cells(path: Path) -> list[dict]:
    return json.loads(path.read_text())["cells"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_cell_carries_a_slide_type_the_deck_understands(path: Path) -> None:
    types = [c["metadata"].get("slideshow", {}).get("slide_type") for c in _cells(path)]
    assert set(types) <= SLIDE_TYPES, f"unknown slide types {set(types) - SLIDE_TYPES}"
    assert types[0] == "slide"


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name)
def test_lessons_set_up_once_keep_cells_short_and_hide_solutions(path: Path) -> None:
    cells = _cells(path)
    code = [c for c in cells if c["cell_type"] == "code"]
    sources = ["".join(c["source"]) for c in code]
    assert sum("plotting.setup(" in s for s in sources) == 1
    assert sum("default_rng(" in s for s in sources) <= 1, "seed once, at the top"
    for cell, source in zip(code, sources, strict=True):
        if "language-switch" in cell["metadata"].get("tags", []):
            continue  # the translated strings of notebook 05, the one cell allowed to differ between editions
        lines = [line for line in source.splitlines() if line.strip()]
        assert len(lines) <= MAX_CODE_LINES, f"a {len(lines)}-line code cell: move the logic into dpteach\n{source}"
    markdown = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    assert "<details>" in markdown and "</details>" in markdown, "exercises need folded solutions"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_no_cell_echoes_a_path(path: Path) -> None:
    """save_fig returns nothing: no PosixPath (or other path) above a figure, on a slide or on the website."""
    echoed = ["".join(out.get("data", {}).get("text/plain", "")) for cell in _cells(path)
              for out in cell.get("outputs", []) if out.get("output_type") == "execute_result"]
    assert [text for text in echoed if "Path(" in text or ".png" in text] == []
