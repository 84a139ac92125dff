"""Every Chinese edition (notebooks/*.zh.ipynb) stays in step with its English twin, and its Chinese renders.

The twins share every code cell except the one tagged ``language-switch``, which sets ``LANG`` and may hold
literal tables of figure labels (the same keys and placeholders in both editions); the figures each edition saves
are the same, the Chinese ones with ``_zh`` names; every Chinese string the figures draw (the language-switch
values) is in the subset CJK font; the browser renders the rest with its web font.
"""

import ast
import io
import json
import re
import string
import warnings
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402
from fontTools.ttLib import TTFont  # noqa: E402

import dpteach.plotting  # noqa: E402
from dpteach.exercises.core import MESSAGES  # noqa: E402
from dpteach.exercises.notebooks import CHECK_LINE  # noqa: E402

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
IMAGES = NOTEBOOKS.parent / "images"
SWITCH = "language-switch"
PAIRS = [(path.with_name(path.name.replace(".zh.ipynb", ".ipynb")), path)
         for path in sorted(NOTEBOOKS.glob("*.zh.ipynb"))]
IDS = [zh.name.removesuffix(".zh.ipynb") for _, zh in PAIRS]
SAVED = re.compile(r"""save_fig\(\s*f?["']([^"'{]+)""")


def _cells(path):
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def _code(path, *, switch):
    return ["".join(c["source"]) for c in _cells(path)
            if c["cell_type"] == "code" and (SWITCH in c["metadata"].get("tags", [])) == switch]


def _switch_values(path):
    """The names the single language-switch cell assigns, read without running it (literals only)."""
    [source] = _code(path, switch=True)
    values = {}
    for node in ast.parse(source).body:
        assert isinstance(node, ast.Assign) and len(node.targets) == 1, "the language-switch cell only assigns"
        values[node.targets[0].id] = ast.literal_eval(node.value)
    return values


def _strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item)


def _fields(template):
    return sorted((name, spec) for _, name, spec, _ in string.Formatter().parse(template) if name is not None)


def test_every_chinese_edition_has_an_english_twin():
    assert PAIRS, "no Chinese edition found"
    for en, zh in PAIRS:
        assert en.exists(), f"{zh.name} has no English twin {en.name}"


@pytest.mark.parametrize(("en", "zh"), PAIRS, ids=IDS)
def test_code_cells_are_identical_apart_from_the_language_switch(en, zh):
    assert _code(en, switch=False) == _code(zh, switch=False)
    assert len(_code(en, switch=False)) >= 5


@pytest.mark.parametrize(("en", "zh"), PAIRS, ids=IDS)
def test_language_switch_cells_define_the_same_names_and_placeholders(en, zh):
    english, chinese = _switch_values(en), _switch_values(zh)
    assert (english.pop("LANG"), chinese.pop("LANG")) == ("en", "zh")
    assert english.keys() == chinese.keys()
    for name, value in english.items():
        if isinstance(value, dict):
            assert value.keys() == chinese[name].keys(), name
            for key, text in value.items():
                if isinstance(text, str):  # the same placeholders, so the same .format() calls work
                    assert _fields(text) == _fields(chinese[name][key]), (name, key)


@pytest.mark.parametrize(("en", "zh"), PAIRS, ids=IDS)
def test_same_cell_layout_and_slide_metadata(en, zh):
    for path in (en, zh):
        for cell in _cells(path):
            assert cell["metadata"]["slideshow"]["slide_type"] in {"slide", "subslide", "fragment", "skip", "", "-"}
    assert ([(c["cell_type"], c["metadata"]["slideshow"]["slide_type"]) for c in _cells(en)]
            == [(c["cell_type"], c["metadata"]["slideshow"]["slide_type"]) for c in _cells(zh)])


@pytest.mark.parametrize(("en", "zh"), PAIRS, ids=IDS)
def test_both_editions_wrote_the_same_figures(en, zh):
    names = sorted({name for source in _code(en, switch=False) for name in SAVED.findall(source)})
    for name in names:
        prefix = name if name.endswith("_") else None  # f-string names: every file with that prefix
        english = sorted(p.stem for p in IMAGES.glob(f"{prefix}*.png") if not p.stem.endswith("_zh")) if prefix \
            else [name]
        assert english, f"no image saved as {name}*: run the notebooks first (make figures)"
        for stem in english:
            assert (IMAGES / f"{stem}.png").exists(), f"{stem}.png missing: run {en.name}"
            assert (IMAGES / f"{stem}_zh.png").exists(), f"{stem}_zh.png missing: run {zh.name}"


@pytest.mark.parametrize(("en", "zh"), PAIRS, ids=IDS)
def test_subset_font_has_every_character_of_the_chinese_text(en, zh):
    cmap = TTFont(dpteach.plotting.CJK_FONT).getBestCmap()
    missing = {ch for ch in "".join(_strings(_switch_values(zh))) if ord(ch) > 0x2E7F and ord(ch) not in cmap}
    assert not missing, f"regenerate dpteach/fonts (see its README): missing {''.join(sorted(missing))}"


@pytest.mark.parametrize(("en", "zh"), PAIRS, ids=IDS)
def test_chinese_labels_render_without_missing_glyph_warnings(en, zh, tmp_path):
    save_fig = dpteach.plotting.setup(tmp_path, language="zh")
    try:
        fig, ax = plt.subplots()
        for i, text in enumerate(_strings(_switch_values(zh))):
            ax.text(0, i, text)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            save_fig("glyphs", fig)
            fig.savefig(io.BytesIO(), format="png")
        assert [p.name for p in tmp_path.iterdir()] == ["glyphs_zh.png"]
    finally:
        plt.close("all")
        dpteach.plotting.setup()


def test_missing_glyphs_do_warn_without_the_cjk_font(tmp_path):
    dpteach.plotting.setup(tmp_path)
    matplotlib.rcParams["font.family"] = ["DejaVu Sans"]
    fig, ax = plt.subplots()
    ax.set_title("平滑敏感度")
    try:
        with pytest.warns(UserWarning, match="missing from font"):
            fig.savefig(io.BytesIO(), format="png")
    finally:
        plt.close("all")
        dpteach.plotting.setup()


def test_setup_rejects_unknown_languages():
    with pytest.raises(ValueError, match="language must be one of"):
        dpteach.plotting.setup(language="fr")


def test_english_setup_keeps_plain_file_names(tmp_path):
    save_fig = dpteach.plotting.setup(tmp_path)
    fig, _ = plt.subplots()
    try:
        save_fig("plain", fig)
        assert [p.name for p in tmp_path.iterdir()] == ["plain.png"]
    finally:
        plt.close("all")


@pytest.mark.parametrize("path", [p for pair in PAIRS for p in pair], ids=lambda p: p.name)
def test_no_progress_bar_or_widget_state_in_the_stored_notebook(path):
    """A progress bar is stored at whatever state the widget model last held ("0%| 0/6" in static views)."""
    notebook = json.loads(path.read_text(encoding="utf-8"))
    assert "widgets" not in notebook["metadata"]
    for cell in notebook["cells"]:
        assert "tqdm" not in "".join(cell["source"])
        for output in cell.get("outputs", []):
            assert "application/vnd.jupyter.widget-view+json" not in output.get("data", {})


@pytest.mark.parametrize("path", [p for pair in PAIRS for p in pair], ids=lambda p: p.name)
def test_stored_checks_show_no_answer_in_the_editions_language(path):
    language = _switch_values(path)["LANG"]
    cells = _cells(path)
    checks = [c for c in cells if c["cell_type"] == "code" and CHECK_LINE.search("".join(c["source"]))]
    assert len(checks) >= 4
    for cell in checks:
        key = CHECK_LINE.search("".join(cell["source"])).group(1)
        printed = "".join("".join(o.get("text", "")) for o in cell.get("outputs", []))
        assert printed.startswith(f"{key} · ")
        assert MESSAGES["unanswered"][language] in printed or MESSAGES["invalid"][language] in printed


@pytest.mark.parametrize(("en", "zh"), PAIRS, ids=IDS)
def test_chinese_edition_avoids_known_mistranslations(en, zh):
    """截断 is truncation, not clipping (裁剪); ages are in 岁, not 年; lessons are 第 NN 课, not 第 NN 个笔记本."""
    text = "".join("".join(c["source"]) for c in _cells(zh) if c["cell_type"] == "markdown")
    assert "截断" not in text
    assert not re.search(r"\d\s*年", text), "ages are given in 岁"
    assert not re.search(r"第\s*\d+\s*个笔记本", text), "say 第 NN 课"
    assert "本来的做法" not in text, "the default is 默认做法"
