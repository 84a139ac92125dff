"""The course website's own Sphinx extension (book/conf.py): the links under each title, the table of contents.

It changes only the text Sphinx parses; the notebooks on disk stay as committed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from dpteach.course import PARTS, course_notebooks, number_of

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
SLIDES_DIR = "slides"  # where scripts/build_book.py copies the decks, relative to the site's root


def jupyterlab_slug(text: str) -> str:
    """JupyterLab's anchor for a heading: its text with each space replaced by a hyphen."""
    return text.replace(" ", "-")


def _table_of_contents(landing: str) -> str:
    """The sidebar: one toctree per part of the course map (:data:`dpteach.course.PARTS`), captioned with the
    part's title, its notebooks in file-name order (a Chinese edition right after its English lesson)."""
    names = [p.name.removesuffix(".ipynb") for p in course_notebooks(NOTEBOOKS)]
    trees = []
    for part in PARTS:
        members = [n for n in names if number_of(n) in part.numbers and f"notebooks/{n}" != landing]
        if members:
            trees.append("\n".join(["```{toctree}", ":hidden:", ":maxdepth: 1", f":caption: {part.title}", "",
                                     *members, "```"]))
    return "\n\n".join(trees)


def _markdown_cell(source: str, name: str) -> dict[str, Any]:
    return {"cell_type": "markdown", "id": f"dpteach-book-{name}", "metadata": {}, "source": source}


def page_links(docname: str) -> str:
    """The notebook to download and its slide deck, shown under the page's title."""
    stem = Path(docname).name
    zh = stem.endswith(".zh")
    # Chinese words here must be in scripts/cjk_webfont.py's SITE_TEXT (tests/test_webfont.py checks).
    download, deck = ("下载笔记本", "幻灯片") if zh else ("Download the notebook", "Slides")
    return ("{.dpteach-page-links}\n"
            f"{{download}}`{download} ({stem}.ipynb) <{stem}.ipynb>` · "
            f'<a class="dpteach-slides-link" href="../{SLIDES_DIR}/{stem}.slides.html">{deck}</a>')


def _add_page_furniture(app: Any, docname: str, source: list[str]) -> None:
    """Give every notebook page its download and slide links, and the landing page the table of contents."""
    if not docname.startswith("notebooks/"):
        return
    nb = json.loads(source[0])
    first = nb["cells"][0]
    text = "".join(first["source"])
    title, _, rest = text.partition("\n")
    if first["cell_type"] != "markdown" or not title.startswith("# "):
        raise ValueError(f"{docname}: the first cell must open with the notebook's '# ' title")
    first["source"] = f"{title}\n\n{page_links(docname)}\n\n{rest}"
    if docname == app.config.root_doc:
        nb["cells"].append(_markdown_cell(_table_of_contents(docname), "toc"))
    source[0] = json.dumps(nb)


def setup(app: Any) -> dict[str, Any]:
    app.connect("source-read", _add_page_furniture)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
