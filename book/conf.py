"""Sphinx configuration of the course website (``make book``, built by scripts/build_book.py).

The source folder is the repository root, so the notebooks' own relative links (``../images``, each other) keep
working; ``include_patterns`` admits only lessons ``notebooks/NN_*.ipynb`` and appendices ``A<N>_*.ipynb``, so a
new one joins the site, the table of contents and the prev/next chain without any edit here. myst-nb renders the
committed outputs and never runs a notebook (``nb_execution_mode = "off"``). Everything a page loads comes from the
site itself: MathJax and the widget renderer are vendored by scripts/build_book.py into ``_static/vendor``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Written by scripts/build_book.py before Sphinx starts: vendor/ (npm packages) and cjk.css (the Chinese font).
GENERATED = Path(os.environ.get("DPTEACH_BOOK_GENERATED", ROOT / "_build" / "book-generated"))

project = "dpteach: sensitivity in differential privacy"
author = "the dpteach authors"
copyright = "the dpteach authors; text and code MIT"  # noqa: A001 - Sphinx's name
language = "en"

sys.path.insert(0, str(Path(__file__).parent / "_ext"))
extensions = ["myst_nb", "dpteach_book"]
root_doc = "notebooks/00_index"  # the landing page
include_patterns = ["notebooks/[0-9][0-9]_*.ipynb", "notebooks/A[0-9]_*.ipynb"]  # dpteach.course.PATTERNS
exclude_patterns = [".git", ".venv", ".venv-tumult", "_build", "**/.ipynb_checkpoints"]

nb_execution_mode = "off"
nb_merge_streams = True
myst_enable_extensions = ["dollarmath", "amsmath", "attrs_block"]
myst_heading_anchors = 3
# Links between notebooks use JupyterLab's anchors (the heading with spaces as hyphens); Sphinx resolves them.
myst_heading_slug_func = "dpteach_book.jupyterlab_slug"
# myst-nb would load require.js and the widget renderer from CDNs; these are the vendored copies.
nb_ipywidgets_js = {
    "vendor/requirejs/require.js": {},
    "dpteach-widgets.js": {},  # where the renderer's files are, and MathJax 2's typeset call for MathJax 3
    "vendor/html-manager/dist/embed-amd.js": {},
}

html_theme = "sphinx_book_theme"
html_title = "dpteach · sensitivity in differential privacy"
html_static_path = ["_static", str(GENERATED)]
# cjk.css carries the bundled Chinese font; its unicode-range keeps it to CJK characters (the zh edition, and its
# title in every page's sidebar).
html_css_files = ["dpteach-book.css", "cjk.css"]
html_js_files = ["dpteach-book.js"]
# The theme logs a console error for an empty mode (nothing stored yet, as in a fresh browser): start light.
html_context = {"default_mode": "light"}
html_sourcelink_suffix = ""  # the theme's download button then offers the .ipynb itself
html_last_updated_fmt = None
html_theme_options = {
    "home_page_in_toc": True,
    "show_navbar_depth": 1,
    "use_download_button": True,
    "use_fullscreen_button": False,
    "use_repository_button": False,
    "use_issues_button": False,
    "use_edit_page_button": False,
    "show_toc_level": 2,
    "navigation_with_keys": True,
}
mathjax_path = "vendor/mathjax/es5/tex-mml-chtml.js"  # relative to _static/
