"""Build the course website: every committed notebook as a page, from its stored outputs, into ``_build/book/``.

Used by ``make book`` (after ``make slides``). Sphinx with myst-nb and sphinx-book-theme renders the notebooks
without running them (book/conf.py). Before Sphinx starts, MathJax 3, require.js and the widget renderer are
fetched once from the npm registry (versions in ``book/vendor.json``, cached in ``_build/book-generated/vendor``)
and the Chinese web font is written into ``cjk.css``; afterwards the slide decks are copied into ``slides/`` so
each page's slide link works wherever the site is hosted, and ``index.html`` leads to the landing page.

    python scripts/build_book.py [--out _build/book] [--slides _build/slides]

A page, style sheet or script that would load anything from another host fails the build.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
import time
from pathlib import Path

import build_slides  # beside this script, as lab_setup.py imports cjk_webfont
import cjk_webfont

from dpteach.course import course_notebooks

ROOT = Path(__file__).resolve().parent.parent
BOOK = ROOT / "book"
GENERATED = ROOT / "_build" / "book-generated"
DOCTREES = ROOT / "_build" / "book-doctrees"
LANDING = "notebooks/00_index.html"


def cjk_css() -> str:
    """The bundled CJK font, first in the theme's font stacks; its unicode-range leaves Latin text as it was."""
    family = f'"{cjk_webfont.FAMILY}"'
    return ("/* Written by scripts/build_book.py: Chinese text without a Chinese system font. */\n"
            + cjk_webfont.font_face_css()
            + f":root {{\n  --pst-font-family-base: {family}, var(--pst-font-family-base-system);\n"
              f"  --pst-font-family-heading: {family}, var(--pst-font-family-base-system);\n"
              f"  --pst-font-family-monospace: {family}, var(--pst-font-family-monospace-system);\n}}\n")


# The widget renderer checks the saved widget state with ajv, whose strict mode logged "strict mode: use
# allowUnionTypes" to the console of every page with a widget, once per union type in the widget schema. The
# renderer constructs ajv without options; its bundles are set to ajv's own option for union types instead.
UNION_TYPES = re.compile(r"\b[A-Za-z_$][\w$]*\.opts\.allowUnionTypes\|\|")
UNION_TYPES_MARK = "/* scripts/build_book.py: ajv allowUnionTypes */\n"


def allow_union_types(dist: Path) -> list[Path]:
    """Set ajv's allowUnionTypes in every bundle of the widget renderer that carries ajv (fails if none does)."""
    patched = []
    for path in sorted(dist.glob("*.js")):
        text = path.read_text(encoding="utf-8")
        if text.startswith(UNION_TYPES_MARK):
            patched.append(path)
            continue
        text, count = UNION_TYPES.subn("!0||", text)
        if count:
            path.write_text(UNION_TYPES_MARK + text, encoding="utf-8")
            patched.append(path)
    if not any(p.name == "embed-amd.js" for p in patched):
        sys.exit(f"{dist}/embed-amd.js: ajv's allowUnionTypes check not found (a new widget renderer?)")
    return patched


def generate(folder: Path = GENERATED) -> None:
    build_slides.vendor(folder / "vendor", BOOK / "vendor.json")
    allow_union_types(folder / "vendor" / "html-manager" / "dist")
    (folder / "cjk.css").write_text(cjk_css(), encoding="utf-8")


def sphinx(out: Path, folder: Path = GENERATED) -> None:
    from sphinx.cmd.build import build_main

    os.environ["DPTEACH_BOOK_GENERATED"] = str(folder)
    # -E: read every notebook afresh (book/_ext changes what is read). -W: a warning (a broken reference, a
    # missing image, a notebook left out of the table of contents) fails the build.
    status = build_main(["-b", "html", "-E", "-c", str(BOOK), "-d", str(DOCTREES), "-W", "--keep-going", "-q",
                         str(ROOT), str(out)])
    if status:
        sys.exit(f"sphinx-build failed ({status})")


def copy_slides(slides: Path, out: Path) -> None:
    decks = course_notebooks(slides, ".slides.html")
    if not decks:
        sys.exit(f"no slide decks in {slides}: run `make slides` first")
    shutil.copytree(slides, out / "slides", dirs_exist_ok=True)


def write_redirect(out: Path) -> None:
    (out / "index.html").write_text(
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>dpteach</title>\n'
        f'<meta http-equiv="refresh" content="0; url={LANDING}"></head>\n'
        f'<body><p><a href="{LANDING}">Start here: the course\'s landing page</a></p></body></html>\n',
        encoding="utf-8")


def outside_loads(out: Path) -> list[str]:
    """Every place in the site's pages, style sheets and scripts that would load from another host."""
    found, skip = [], {out / "slides", out / "_static" / "vendor"}
    for path in sorted(out.rglob("*")):
        if path.suffix not in {".html", ".css", ".js"} or skip & {*path.parents}:
            continue  # the decks are checked by scripts/build_slides.py; the npm packages by the browser tests
        found += [f"{path.relative_to(out)}: {hit}"
                  for hit in build_slides.outside_loads(path.read_text(encoding="utf-8", errors="replace"))]
    return found


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "_build" / "book")
    parser.add_argument("--slides", type=Path, default=ROOT / "_build" / "slides")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    generate()
    sphinx(args.out)
    copy_slides(args.slides, args.out)
    write_redirect(args.out)
    bad = outside_loads(args.out)
    if bad:
        sys.exit("the site would load from other hosts:\n  " + "\n  ".join(bad))
    pages = len(list((args.out / "notebooks").glob("*.html")))
    print(f"{pages} notebook pages in {time.perf_counter() - start:.1f} s; open {args.out / 'index.html'}")


if __name__ == "__main__":
    main()
