"""The Chinese web font covers the Chinese notebooks, and the CSS that carries it is well formed."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _script(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(ROOT / "scripts"))  # lab_setup imports cjk_webfont beside it
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.pop(0)
    return module


CJK = _script("cjk_webfont")


def test_the_web_font_has_every_chinese_character_of_the_notebooks() -> None:
    needed = CJK.needed_characters()
    assert len(needed) > 100, "no Chinese notebook found"
    missing = needed - CJK.covered_characters()
    assert not missing, (f"{len(missing)} characters lack a glyph: {''.join(sorted(missing))}; regenerate with"
                         " `python scripts/cjk_webfont.py NotoSansCJK-Regular.ttc` (dpteach/fonts/README.md)")


def test_the_web_font_has_the_chinese_words_of_the_website() -> None:
    spec = importlib.util.spec_from_file_location("dpteach_book", ROOT / "book" / "_ext" / "dpteach_book.py")
    book = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(book)
    words = {ch for ch in book.page_links("notebooks/03_x.zh") if CJK.is_cjk(ch)}
    assert words and words <= set(CJK.SITE_TEXT), f"add {''.join(sorted(words - set(CJK.SITE_TEXT)))} to SITE_TEXT"
    missing = set(CJK.SITE_TEXT) - CJK.covered_characters()
    assert not missing, f"{''.join(sorted(missing))} lack a glyph; regenerate (dpteach/fonts/README.md)"


def test_needed_characters_reads_sources_and_outputs(tmp_path: Path) -> None:
    nb = tmp_path / "x.zh.ipynb"
    nb.write_text('{"cells": [{"cell_type": "markdown", "source": ["敏感 abc"], "metadata": {}},'
                  ' {"cell_type": "code", "source": [], "metadata": {}, "outputs": ['
                  '{"output_type": "stream", "text": ["度"]},'
                  ' {"output_type": "execute_result", "data": {"text/html": "<b>隐</b>", "image/png": "私"}}]}]}',
                  encoding="utf-8")
    assert CJK.needed_characters([nb], sources=[]) == set("敏感度隐")
    hints = tmp_path / "lesson.py"
    hints.write_text('HINT = {"zh": "提示"}', encoding="utf-8")
    assert CJK.needed_characters([nb], sources=[hints]) == set("敏感度隐提示")


def test_font_face_css_embeds_the_woff_for_cjk_code_points_only() -> None:
    css = CJK.font_face_css()
    assert css.count("@font-face") == 1 and CJK.FAMILY in css
    assert "url(data:font/woff;base64," in css
    assert re.findall(r"url\((?!data:)", css) == []  # no fetched font (base64 text may spell "http" by chance)
    ranges = re.search(r"unicode-range: ([^;]+);", css).group(1)
    assert ranges == CJK.UNICODE_RANGE
    assert CJK.is_cjk("敏") and CJK.is_cjk("，") and not CJK.is_cjk("A") and not CJK.is_cjk("β")


def test_lab_setup_resets_presentation_mode_and_keeps_user_shortcuts(tmp_path: Path) -> None:
    import json

    setup = _script("lab_setup")
    settings = tmp_path / "settings"
    deck = settings / "jupyterlab-slideshow" / "plugin.jupyterlab-settings"
    deck.parent.mkdir(parents=True)
    # as JupyterLab saves it: JSON5 with comments
    deck.write_text('{\n    // Slideshow\n    // jupyterlab-slideshow:plugin\n    "active": true,\n'
                    '    "showCodeCellPrompt": true\n}')
    shortcuts = settings / "@jupyterlab" / "shortcuts-extension" / "shortcuts.jupyterlab-settings"
    shortcuts.parent.mkdir(parents=True)
    own = {"command": "notebook:run-cell", "keys": ["F5"], "selector": ".jp-Notebook"}
    shortcuts.write_text(json.dumps({"shortcuts": [own]}))
    for _ in range(2):  # a second start adds nothing twice
        setup.install(tmp_path / "config", settings)
    assert json.loads(deck.read_text()) == {"active": False, "showCodeCellPrompt": True}
    bound = json.loads(shortcuts.read_text())["shortcuts"]
    assert bound[0] == own
    assert sorted(b["keys"][0] for b in bound[1:]) == sorted(2 * ["PageDown", "PageUp", "ArrowRight", "ArrowLeft"])
    css = (tmp_path / "config" / "custom" / "custom.css").read_text()
    assert "@font-face" in css and "--jp-content-font-size1: 24px" in css


def test_the_bundled_font_comes_first_in_every_font_stack() -> None:
    """Last, after system-ui, Chromium drew bold Chinese text as boxes; first, its unicode-range keeps Latin text
    in the stack's own fonts (the browser tests check both in Chromium)."""
    for css in (CJK.lab_css(), CJK.deck_css()):
        stacks = re.findall(r"--(?:jp-(?:ui|content|code)-font-family|r-(?:main|heading|code)-font): ([^;]+);", css)
        assert len(stacks) >= 3
        assert all(stack.startswith(f'"{CJK.FAMILY}",') for stack in stacks), stacks


def test_every_deck_with_chinese_text_gets_the_font() -> None:
    slides = _script("build_slides")
    assert CJK.FAMILY in slides.embed_cjk_font("<html><head></head><body>(中文版 / Chinese edition)</body></html>")
    assert slides.embed_cjk_font("<html><head></head><body>English</body></html>").count("@font-face") == 0
