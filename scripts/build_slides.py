"""Build one reveal.js slide deck per notebook that opens offline, straight from disk.

Used by ``make slides``. nbconvert's stock slides load reveal.js, require.js, jQuery, MathJax, Mermaid and the
widget renderer from CDNs. Here every one of them is fetched once from the npm registry (versions pinned in
``slides/vendor.json``) into ``<out>/vendor/``, the template in ``slides/templates/dpteach-reveal`` drops
Mermaid, and nbconvert is pointed at the local copies. Widgets are drawn from the widget state saved in each
notebook's metadata (``make figures`` saves it; ``--execute`` runs a temporary copy first instead).

    python scripts/build_slides.py [--notebooks notebooks] [--out _build/slides] [--execute]

A deck that still names an outside script, style sheet or font fails the build.
"""

from __future__ import annotations

import argparse
import base64
import html
import json
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

import nbformat
from nbconvert import SlidesExporter
from traitlets.config import Config

from dpteach.course import course_notebooks

ROOT = Path(__file__).resolve().parent.parent
SLIDES = ROOT / "slides"
VENDOR_SPEC = SLIDES / "vendor.json"
TEMPLATES = SLIDES / "templates"
TEMPLATE = "dpteach-reveal"
SLIDE_SIZE = (1280, 720)  # reveal.js's layout size in CSS px, before it scales the deck to the window
# A figure cell shows its figure without its code in a deck, so the figure gets the slide's width (its text must be
# legible on a 1280x720 projector: tests/browser/test_static_slides.py); the notebook and the website keep the code.
FIGURE_CELL_TAG = "dpteach-deck-figure"

# What a deck may not contain: anything the browser would fetch from another host when the page loads.
OUTSIDE_LOAD = re.compile(
    r"""<script[^>]*\ssrc=["'](?:https?:)?//"""
    r"""|<link[^>]*\shref=["'](?:https?:)?//"""
    r"""|\bimport\s*(?:[\w{}*\s,]+from\s*)?["'](?:https?:)?//"""
    r"""|@import\s+(?:url\()?["']?(?:https?:)?//"""
    r"""|url\(\s*["']?(?:https?:)?//""",
    re.IGNORECASE,
)


def _stamp(folder: Path) -> Path:
    return folder / ".dpteach-vendor.json"


def vendor(out: Path, spec_path: Path = VENDOR_SPEC) -> dict[str, Path]:
    """Unpack each pinned npm package into ``out/<folder>`` unless that exact version is already there."""
    spec = json.loads(spec_path.read_text())["packages"]
    npm = shutil.which("npm")
    out.mkdir(parents=True, exist_ok=True)
    folders: dict[str, Path] = {}
    for package in spec:
        target = out / package["folder"]
        folders[package["name"]] = target
        if _stamp(target).exists() and json.loads(_stamp(target).read_text()) == package:
            continue
        if npm is None:
            sys.exit("npm is needed once to fetch the slides' JavaScript (Debian: apt-get install npm)")
        with tempfile.TemporaryDirectory() as tmp:
            wanted = f"{package['name']}@{package['version']}"
            done = subprocess.run([npm, "pack", wanted, "--silent", "--pack-destination", tmp],
                                  capture_output=True, text=True, timeout=300, check=False)
            if done.returncode != 0:
                sys.exit(f"npm pack {wanted} failed:\n{done.stderr}")
            [tarball] = Path(tmp).glob("*.tgz")
            shutil.rmtree(target, ignore_errors=True)
            _unpack(tarball, target, tuple(package.get("drop", [])))
        _stamp(target).write_text(json.dumps(package))
        print(f"vendored {wanted} into {target.relative_to(out.parent)}")
    return folders


def _unpack(tarball: Path, target: Path, drop: tuple[str, ...]) -> None:
    """Extract an npm tarball (members under ``package/``) without the dropped prefixes or source maps."""
    with tarfile.open(tarball) as tar:
        members = []
        for member in tar.getmembers():
            inner = member.name.split("/", 1)[1] if "/" in member.name else ""
            if not inner or inner.startswith(drop) or inner.endswith(".map") or not member.isfile():
                continue
            member.name = inner
            members.append(member)
        target.mkdir(parents=True)
        tar.extractall(target, members=members, filter="data")


def exporter() -> SlidesExporter:
    """nbconvert's slides exporter with every URL pointing into ``vendor/`` beside the deck."""
    c = Config()
    c.SlidesExporter.extra_template_basedirs = [str(TEMPLATES)]
    c.SlidesExporter.template_name = TEMPLATE
    c.SlidesExporter.reveal_url_prefix = "vendor/reveal.js"
    c.SlidesExporter.reveal_theme = "white"
    c.SlidesExporter.reveal_transition = "none"
    c.SlidesExporter.reveal_number = "c/t"
    # 16:9 like the screens and projectors of today, so wide code and tables get the room; the deck scales to
    # the window. The stock scroll fix is off: the template makes tall slides scroll at every size and load.
    c.SlidesExporter.reveal_width = str(SLIDE_SIZE[0])
    c.SlidesExporter.reveal_height = str(SLIDE_SIZE[1])
    c.SlidesExporter.reveal_scroll = False
    c.SlidesExporter.require_js_url = "vendor/requirejs/require.js"
    c.SlidesExporter.jquery_url = "vendor/jquery/dist/jquery.min.js"
    c.SlidesExporter.mathjax_url = "vendor/mathjax/MathJax.js?config=TeX-AMS_CHTML-full,Safe"
    c.SlidesExporter.widget_renderer_url = "vendor/html-manager/dist/embed-amd.js"
    c.SlidesExporter.exclude_input_prompt = True
    c.SlidesExporter.exclude_output_prompt = True
    c.SlidesExporter.mermaid_js_url = ""
    c.SlidesExporter.mermaid_layout_elk_js_url = ""
    c.TagRemovePreprocessor.enabled = True
    c.TagRemovePreprocessor.remove_input_tags = {FIGURE_CELL_TAG}
    return SlidesExporter(config=c)


def tag_figure_cells(nb: nbformat.NotebookNode) -> int:
    """Tag (in memory) every code cell that shows a figure, so the deck drops its code; returns how many."""
    tagged = 0
    for cell in nb.cells:
        if cell.cell_type == "code" and any("image/png" in out.get("data", {}) for out in cell.get("outputs", [])):
            cell.metadata["tags"] = [*cell.metadata.get("tags", []), FIGURE_CELL_TAG]
            tagged += 1
    return tagged


def execute(nb: nbformat.NotebookNode, folder: Path) -> None:
    """Run a notebook in memory (its folder as working directory), keeping the widget state for the deck."""
    from nbclient import NotebookClient

    NotebookClient(nb, timeout=600, kernel_name="python3", store_widget_state=True,
                   resources={"metadata": {"path": str(folder)}}).execute()


def outside_loads(page: str) -> list[str]:
    return [page[max(m.start() - 20, 0):m.end() + 60] for m in OUTSIDE_LOAD.finditer(page)]


MARKDOWN_IMAGE = re.compile(r'<img([^>]*?) src="(?!data:|https?:)([^"]+)"')


def embed_markdown_images(page: str, notebook_dir: Path) -> str:
    """Inline, as data URLs, the figures a notebook's markdown shows from the repository (``../images/…``), so the
    deck shows them wherever it is opened; a missing file stops the build rather than leaving a broken image."""

    def inline(match: re.Match[str]) -> str:
        path = (notebook_dir / html.unescape(match.group(2))).resolve()
        if path.suffix != ".png" or not path.is_file():
            sys.exit(f"the deck shows an image that is not a PNG file of the repository: {match.group(2)}")
        data = base64.b64encode(path.read_bytes()).decode("ascii")
        return f'<img{match.group(1)} src="data:image/png;base64,{data}"'

    return MARKDOWN_IMAGE.sub(inline, page)


def _cjk_webfont():
    import importlib.util

    spec = importlib.util.spec_from_file_location("cjk_webfont", Path(__file__).with_name("cjk_webfont.py"))
    cjk_webfont = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cjk_webfont)
    return cjk_webfont


def embed_cjk_font(page: str) -> str:
    """Give a deck with Chinese text the bundled web font (scripts/cjk_webfont.py), so it needs no Chinese system
    font. Any deck whose page holds a CJK character gets it: the zh deck, and the index deck naming 中文版."""
    cjk_webfont = _cjk_webfont()
    if not any(cjk_webfont.is_cjk(ch) for ch in page):
        return page
    return page.replace("</head>", f"<style>\n{cjk_webfont.deck_css()}</style>\n</head>", 1)


def build_deck(notebook: Path, out: Path, slides: SlidesExporter, *, run: bool) -> Path:
    nb = nbformat.read(notebook, as_version=4)
    if run:
        with tempfile.TemporaryDirectory() as tmp:  # figures a run writes go nowhere near the repo's images/
            work = Path(tmp) / "notebooks"
            shutil.copytree(notebook.parent, work, ignore=shutil.ignore_patterns("*.ipynb", ".ipynb_checkpoints"))
            if (notebook.parent.parent / "data").is_dir():
                shutil.copytree(notebook.parent.parent / "data", Path(tmp) / "data")
            execute(nb, work)
    tag_figure_cells(nb)
    body, _ = slides.from_notebook_node(nb, resources={"metadata": {"name": notebook.stem, "path": str(out)}})
    bad = outside_loads(body)
    if bad:
        sys.exit(f"{notebook.name}: the deck would load from another host:\n  " + "\n  ".join(bad))
    body = embed_cjk_font(embed_markdown_images(body, notebook.parent))
    deck = out / f"{notebook.stem}.slides.html"
    deck.write_text(body, encoding="utf-8")
    return deck


def _title(notebook: Path) -> str:
    nb = nbformat.read(notebook, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                if line.startswith("# "):
                    return line[2:].strip()
    return notebook.stem


def write_index(out: Path, notebooks: list[Path]) -> Path:
    rows = "\n".join(
        f'<li><a href="{html.escape(nb.stem)}.slides.html">{html.escape(_title(nb))}</a>'
        f" <code>{html.escape(nb.name)}</code></li>"
        for nb in notebooks
    )
    page = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>dpteach slides</title>
<style>body {{ font-family: "{_cjk_webfont().FAMILY}", sans-serif; max-width: 50em; margin: 2em auto;
line-height: 1.6; }}</style></head>
<body><h1>dpteach: sensitivity in differential privacy, the slides</h1>
<p>One deck per notebook. Arrow keys or space move between slides, <kbd>Esc</kbd> shows an overview,
<kbd>S</kbd> opens the speaker notes. Everything here works offline.</p>
<ul>
{rows}
</ul></body></html>
"""
    index = out / "index.html"
    index.write_text(embed_cjk_font(page), encoding="utf-8")
    return index


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--notebooks", type=Path, default=ROOT / "notebooks")
    parser.add_argument("--out", type=Path, default=ROOT / "_build" / "slides")
    parser.add_argument("--execute", action="store_true",
                        help="run each notebook first instead of using its saved outputs")
    args = parser.parse_args(argv)

    notebooks = course_notebooks(args.notebooks)
    if not notebooks:
        sys.exit(f"no notebooks named NN_*.ipynb in {args.notebooks}")
    out: Path = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    vendor(out / "vendor")
    slides = exporter()
    start = time.perf_counter()
    for notebook in notebooks:
        deck = build_deck(notebook, out, slides, run=args.execute)
        print(f"{notebook.name} -> {deck.relative_to(out.parent)}")
    write_index(out, notebooks)
    print(f"{len(notebooks)} deck(s) in {time.perf_counter() - start:.1f} s; open {out / 'index.html'}")


if __name__ == "__main__":
    main()
