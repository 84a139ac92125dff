"""The Chinese web font: a WOFF subset of Noto Sans CJK SC for the zh deck, the website and JupyterLab.

Browsers on a machine without a Chinese system font draw empty boxes ("tofu") for Chinese text. The zh static
deck, every other deck or page with Chinese text (the index deck names the Chinese edition), the course website and
JupyterLab therefore carry their own font: ``dpteach/fonts/NotoSansCJKsc-Regular-web.woff`` holds every CJK
character of the notebooks (sources and outputs), of the website's links (``SITE_TEXT``) and of the matplotlib
subset beside it.

    python scripts/cjk_webfont.py FULL.ttc     # regenerate the WOFF (see dpteach/fonts/README.md)

``font_face_css()`` is the ``@font-face`` rule all of them use: scripts/build_slides.py puts it into every deck
with Chinese text and the decks' index page (``deck_css()``), scripts/build_book.py into the website's cjk.css,
scripts/lab_setup.py into JupyterLab's custom.css (``lab_css()``).
The rule's ``unicode-range`` limits the font to CJK code points, so Latin text keeps its usual font, and that is
why the font comes *first* in every font stack: last, after ``system-ui`` and ``sans-serif``, Chromium drew bold
and italic Chinese text as empty boxes (a system font claimed the characters before the list reached it). The
browser draws bold and italic from the one regular face (synthetic bold and oblique).
"""

from __future__ import annotations

import argparse
import base64
import json
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FONTS = ROOT / "dpteach" / "fonts"
WEB_FONT = FONTS / "NotoSansCJKsc-Regular-web.woff"
PLOT_FONT = FONTS / "NotoSansCJKsc-Regular-subset.otf"
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
# The exercise checks print their verdicts and hints in Chinese in the Chinese edition (dpteach.exercises).
EXERCISE_SOURCES = sorted((ROOT / "dpteach" / "exercises").glob("*.py"))
FAMILY = "dpteach Noto Sans CJK SC"
# CJK radicals to ideographs, compatibility ideographs, vertical and compatibility forms, full-width forms.
CJK_RANGES = ((0x2E80, 0x9FFF), (0xF900, 0xFAFF), (0xFE30, 0xFE4F), (0xFF00, 0xFFEF))
UNICODE_RANGE = ", ".join(f"U+{lo:04X}-{hi:04X}" for lo, hi in CJK_RANGES)
# The Chinese words of the course website's own links (book/_ext/dpteach_book.py: download, slides).
SITE_TEXT = "下载笔记本幻灯片"
# Face 2 of NotoSansCJK-Regular.ttc (Debian's fonts-noto-cjk) is the Simplified Chinese one.
SC_FACE = 2


def is_cjk(char: str) -> bool:
    return any(lo <= ord(char) <= hi for lo, hi in CJK_RANGES)


def _notebook_texts(path: Path) -> Iterator[str]:
    """Every string a reader sees: cell sources and the text, HTML and Markdown of stored outputs."""
    for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
        yield "".join(cell["source"])
        for output in cell.get("outputs", []):
            yield "".join(output.get("text", ""))
            for mime, value in output.get("data", {}).items():
                if mime.startswith("text/"):
                    yield "".join(value) if isinstance(value, list) else str(value)


def needed_characters(notebooks: list[Path] = NOTEBOOKS, sources: list[Path] = EXERCISE_SOURCES) -> set[str]:
    """The CJK characters of the notebooks (the Chinese edition's, and the few that name it elsewhere) and of
    the Chinese messages the exercise checks can print."""
    texts = [text for nb in notebooks for text in _notebook_texts(nb)]
    texts += [path.read_text(encoding="utf-8") for path in sources]
    return {ch for text in texts for ch in text if is_cjk(ch)}


def covered_characters(font: Path = WEB_FONT) -> set[str]:
    from fontTools.ttLib import TTFont

    with TTFont(font) as face:
        return {chr(code) for code in face.getBestCmap()}


def subset(full_font: Path, out: Path = WEB_FONT) -> set[str]:
    """Cut the WOFF from the full collection: the notebooks' CJK characters, the website's and the plotting
    subset's."""
    from fontTools import subset as ft_subset

    wanted = needed_characters() | set(SITE_TEXT) | {ch for ch in covered_characters(PLOT_FONT) if is_cjk(ch)}
    options = ft_subset.Options()
    options.font_number = SC_FACE
    options.flavor = "woff"
    options.layout_features = ["*"]
    options.name_IDs = ["*"]  # keep the copyright and licence records
    font = ft_subset.load_font(str(full_font), options)
    subsetter = ft_subset.Subsetter(options)
    subsetter.populate(text="".join(sorted(wanted)))
    subsetter.subset(font)
    ft_subset.save_font(font, str(out), options)
    return wanted


def font_face_css(font: Path = WEB_FONT) -> str:
    """An ``@font-face`` rule carrying the WOFF inline (no file to serve, nothing fetched from elsewhere)."""
    data = base64.b64encode(font.read_bytes()).decode("ascii")
    return (f'@font-face {{ font-family: "{FAMILY}"; font-style: normal; font-weight: 400; font-display: block;'
            f' src: url(data:font/woff;base64,{data}) format("woff"); unicode-range: {UNICODE_RANGE}; }}\n')


def lab_css() -> str:
    """JupyterLab's custom.css: the font first in the UI, content and code font stacks (CJK code points only)."""
    stacks = {
        "--jp-ui-font-family": "system-ui, -apple-system, blinkmacsystemfont, 'Segoe UI', helvetica, arial,"
                               " sans-serif",
        "--jp-content-font-family": "system-ui, -apple-system, blinkmacsystemfont, 'Segoe UI', helvetica, arial,"
                                    " sans-serif",
        "--jp-code-font-family": "menlo, consolas, 'DejaVu Sans Mono', monospace",
    }
    rules = "".join(f'  {var}: "{FAMILY}", {stack};\n' for var, stack in stacks.items())
    return ("/* Written by scripts/cjk_webfont.py: Chinese text without a Chinese system font. */\n"
            + font_face_css() + ":root, body, .jp-ThemedContainer {\n" + rules + "}\n")


def deck_css() -> str:
    """For a reveal.js deck from nbconvert: JupyterLab's font variables and reveal.js's, the font first in each."""
    reveal = f'"{FAMILY}", "Source Sans Pro", Helvetica, sans-serif'
    return (lab_css() + f":root {{\n  --r-main-font: {reveal};\n  --r-heading-font: {reveal};\n"
            f'  --r-code-font: "{FAMILY}", monospace;\n}}\n')


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("full_font", type=Path, help="NotoSansCJK-Regular.ttc from Debian's fonts-noto-cjk")
    args = parser.parse_args(argv)
    print(f"{len(subset(args.full_font))} characters -> {WEB_FONT} ({WEB_FONT.stat().st_size:,} bytes)")


if __name__ == "__main__":
    main()
