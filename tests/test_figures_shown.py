"""Every figure a notebook saves is also shown in the notebook (lesson 06's review found one saved to images/ and
never displayed).

A code cell that calls ``save_fig(...)`` at its top level (not inside a function it defines) must carry an
``image/png`` output in the committed notebook. A cell that closes its figure on purpose (``plt.close``) to show it
on the next slide passes when the next code cell carries the image instead.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parent.parent / "notebooks").glob("*.ipynb"))


def _calls_save_fig_at_top_level(source: str) -> bool:
    lines = [line for line in source.splitlines() if not line.lstrip().startswith(("%", "!"))]
    tree = ast.parse("\n".join(lines))
    inside_defs = {id(node) for top in ast.walk(tree) if isinstance(top, ast.FunctionDef | ast.AsyncFunctionDef |
                                                                        ast.Lambda)
                   for node in ast.walk(top)}
    return any(isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "save_fig"
               and id(node) not in inside_defs for node in ast.walk(tree))


def _shows_image(cell: dict) -> bool:
    return any("image/png" in output.get("data", {}) for output in cell.get("outputs", []))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_saved_figure_is_displayed(path: Path) -> None:
    code = [cell for cell in json.loads(path.read_text(encoding="utf-8"))["cells"] if cell["cell_type"] == "code"]
    missing = []
    for position, cell in enumerate(code):
        source = "".join(cell["source"])
        if "save_fig(" not in source or not _calls_save_fig_at_top_level(source):
            continue
        shown_next = "plt.close(" in source and position + 1 < len(code) and _shows_image(code[position + 1])
        if not (_shows_image(cell) or shown_next):
            missing.append(source.strip().splitlines()[-1])
    assert not missing, f"{path.name}: cells call save_fig but show no image: {missing}"
