"""The course website's Sphinx extension (book/_ext/dpteach_book.py) rewrites what Sphinx reads as intended."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from dpteach.course import PARTS, course_notebooks, number_of

ROOT = Path(__file__).resolve().parent.parent
SPEC = importlib.util.spec_from_file_location("dpteach_book", ROOT / "book" / "_ext" / "dpteach_book.py")
BOOK = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(BOOK)
APP = SimpleNamespace(config=SimpleNamespace(root_doc="notebooks/00_index"))


def _read(docname: str) -> dict:
    """What Sphinx parses for ``docname`` after the extension's source-read handler."""
    source = [(ROOT / f"{docname}.ipynb").read_text(encoding="utf-8")]
    BOOK._add_page_furniture(APP, docname, source)
    return json.loads(source[0])


def test_the_sidebar_lists_every_other_course_notebook_once_under_its_part() -> None:
    toc = "".join(_read("notebooks/00_index")["cells"][-1]["source"])
    listed = [line for line in toc.splitlines() if line and not line.startswith((":", "```"))]
    on_disk = [p.name.removesuffix(".ipynb") for p in course_notebooks(ROOT / "notebooks")]
    assert sorted(listed) == sorted(name for name in on_disk if name != "00_index")
    assert "05_propose_test_release.zh" in listed and "A1_exact_sensitivity_at_scale" in listed
    captions = [line.removeprefix(":caption: ") for line in toc.splitlines() if line.startswith(":caption:")]
    assert captions == [part.title for part in PARTS if part.title != "Start here"]
    assert toc.count(":hidden:") == len(captions)
    for tree, part in zip(toc.split("```{toctree}")[1:], (p for p in PARTS if p.title != "Start here"), strict=True):
        members = [line for line in tree.splitlines() if line and not line.startswith((":", "```"))]
        assert members and all(number_of(m) in part.numbers for m in members), part.title


def test_each_page_gets_its_download_and_slide_links_under_its_title() -> None:
    for notebook in course_notebooks(ROOT / "notebooks"):
        stem = notebook.name.removesuffix(".ipynb")
        first = _read(f"notebooks/{stem}")["cells"][0]["source"]
        title, blank, attrs, links = first.splitlines()[:4]
        assert title.startswith("# ") and blank == "" and attrs == "{.dpteach-page-links}"
        assert f"<{stem}.ipynb>" in links and f'href="../slides/{stem}.slides.html"' in links
        original = json.loads(notebook.read_text(encoding="utf-8"))
        assert len(_read(f"notebooks/{stem}")["cells"]) == len(original["cells"]) + (stem == "00_index")


def test_a_notebook_without_a_title_is_refused(tmp_path: Path) -> None:
    source = [json.dumps({"cells": [{"cell_type": "code", "source": "x = 1", "metadata": {}, "outputs": []}]})]
    with pytest.raises(ValueError, match="title"):
        BOOK._add_page_furniture(APP, "notebooks/99_untitled", source)


def test_other_documents_are_left_alone() -> None:
    source = ["not json"]
    BOOK._add_page_furniture(APP, "elsewhere/page", source)
    assert source == ["not json"]


def test_jupyterlab_anchors() -> None:
    assert BOOK.jupyterlab_slug("The Laplace mechanism") == "The-Laplace-mechanism"
