"""scripts/build_slides.py: the figures a notebook's markdown shows travel inside its deck."""

from __future__ import annotations

import base64
import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _build_slides():
    spec = importlib.util.spec_from_file_location("build_slides", ROOT / "scripts" / "build_slides.py")
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    return module


def test_a_markdown_figure_is_inlined_and_a_missing_one_stops_the_build(tmp_path: Path) -> None:
    embed = _build_slides().embed_markdown_images
    (tmp_path / "images").mkdir()
    (tmp_path / "notebooks").mkdir()
    png = b"\x89PNG\r\n\x1a\n not a real picture"
    (tmp_path / "images" / "fig.png").write_bytes(png)
    page = '<p><img alt="a figure" src="../images/fig.png"/> <img src="data:image/png;base64,AAAA"/></p>'
    inlined = embed(page, tmp_path / "notebooks")
    assert f'<img alt="a figure" src="data:image/png;base64,{base64.b64encode(png).decode()}"' in inlined
    assert 'src="data:image/png;base64,AAAA"' in inlined and "../images" not in inlined
    with pytest.raises(SystemExit, match="missing.png"):
        embed('<img src="../images/missing.png">', tmp_path / "notebooks")
