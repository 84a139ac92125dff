"""Lesson 06's English and Chinese editions stay in step (until the generic editions test covers every pair): the
same code cells apart from the language-switch cell, the same cell layout and slide types, the same figures with
``_zh`` names, and Chinese figure text the vendored CJK font can draw."""

import ast
import json
import re
from pathlib import Path

from fontTools.ttLib import TTFont

import dpteach.plotting

ROOT = Path(__file__).resolve().parent.parent
EN = ROOT / "notebooks" / "06_smooth_sensitivity_in_practice.ipynb"
ZH = ROOT / "notebooks" / "06_smooth_sensitivity_in_practice.zh.ipynb"
SWITCH = "language-switch"


def _cells(path: Path) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def _code(path: Path, *, switch: bool) -> list[str]:
    return ["".join(c["source"]) for c in _cells(path)
            if c["cell_type"] == "code" and (SWITCH in c["metadata"].get("tags", [])) == switch]


def _switch(path: Path) -> dict:
    [source] = _code(path, switch=True)
    return {node.targets[0].id: ast.literal_eval(node.value) for node in ast.parse(source).body}


def test_code_cells_are_identical_apart_from_the_language_switch() -> None:
    assert _code(EN, switch=False) == _code(ZH, switch=False)
    en, zh = _switch(EN), _switch(ZH)
    assert (en["LANG"], zh["LANG"]) == ("en", "zh")
    assert set(en["LABELS"]) == set(zh["LABELS"])


def test_same_layout_and_slide_types() -> None:
    layout = [[(c["cell_type"], c["metadata"]["slideshow"]["slide_type"]) for c in _cells(p)] for p in (EN, ZH)]
    assert layout[0] == layout[1]


def test_both_editions_saved_the_same_figures() -> None:
    saved = re.findall(r'save_fig\("(\w+)"', "".join(_code(EN, switch=False)))
    assert saved and all(name.startswith("06_") for name in saved)
    for name in saved:
        assert (ROOT / "images" / f"{name}.png").exists() and (ROOT / "images" / f"{name}_zh.png").exists()


def test_the_cjk_font_has_every_character_of_the_chinese_figure_text() -> None:
    cmap = TTFont(dpteach.plotting.CJK_FONT).getBestCmap()
    text = "".join(_switch(ZH)["LABELS"].values())
    missing = {ch for ch in text if ord(ch) > 0x2E7F and ord(ch) not in cmap}
    assert not missing, f"regenerate dpteach/fonts (see its README): missing {''.join(sorted(missing))}"
