"""Notebook 05's English and Chinese editions stay in step, and Chinese text renders without missing glyphs."""

import ast
import io
import json
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
EN = NOTEBOOKS / "05_local_sensitivity_frameworks.ipynb"
ZH = NOTEBOOKS / "05_local_sensitivity_frameworks.zh.ipynb"
SWITCH = "language-switch"


def _cells(path):
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def _code(path, *, switch):
    return ["".join(c["source"]) for c in _cells(path)
            if c["cell_type"] == "code" and (SWITCH in c["metadata"].get("tags", [])) == switch]


def _switch_values(path):
    """LANG and the text table T of the single language-switch cell, read without running it."""
    [source] = _code(path, switch=True)
    values = {}
    for node in ast.parse(source).body:
        assert isinstance(node, ast.Assign), "the language-switch cell may only assign LANG and T"
        values[node.targets[0].id] = ast.literal_eval(node.value)
    return values


def test_code_cells_are_identical_apart_from_the_language_switch():
    assert _code(EN, switch=False) == _code(ZH, switch=False)
    assert len(_code(EN, switch=False)) >= 10


def _fields(template):
    return sorted((name, spec) for _, name, spec, _ in string.Formatter().parse(template) if name is not None)


def test_language_switch_cells_define_the_same_keys():
    en, zh = _switch_values(EN), _switch_values(ZH)
    assert (en["LANG"], zh["LANG"]) == ("en", "zh")
    assert set(en["T"]) == set(zh["T"])
    for key, text in en["T"].items():  # same placeholders, so the same .format() calls work
        assert _fields(text) == _fields(zh["T"][key]), key


def test_every_cell_has_slide_metadata_and_the_same_layout():
    for path in (EN, ZH):
        for cell in _cells(path):
            assert cell["metadata"]["slideshow"]["slide_type"] in {"slide", "subslide", "fragment", "skip", ""}
    assert [c["cell_type"] for c in _cells(EN)] == [c["cell_type"] for c in _cells(ZH)]


def test_subset_font_has_every_character_of_the_chinese_text():
    cmap = TTFont(dpteach.plotting.CJK_FONT).getBestCmap()
    text = "".join(_switch_values(ZH)["T"].values())
    missing = {ch for ch in text if ord(ch) > 0x2E7F and ord(ch) not in cmap}
    assert not missing, f"regenerate dpteach/fonts (see its README): missing {''.join(sorted(missing))}"


def test_chinese_labels_render_without_missing_glyph_warnings(tmp_path):
    save_fig = dpteach.plotting.setup(tmp_path, language="zh")
    try:
        fig, ax = plt.subplots()
        for i, text in enumerate(_switch_values(ZH)["T"].values()):
            ax.text(0, i, text)
        ax.set(title="平滑敏感度", xlabel="百分比误差", ylabel="运行次数")
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


def test_both_editions_wrote_their_figures():
    images = NOTEBOOKS.parent / "images"
    english = sorted(p.stem for p in images.glob("03_*.png") if not p.stem.endswith("_zh"))
    assert english, "run the notebooks first (make figures)"
    assert all((images / f"{stem}_zh.png").exists() for stem in english)


@pytest.mark.parametrize("path", [EN, ZH], ids=["en", "zh"])
def test_no_progress_bar_or_widget_state_in_the_stored_notebook(path):
    """A progress bar is stored at whatever state the widget model last held ("0%| 0/6" in static views)."""
    notebook = json.loads(path.read_text(encoding="utf-8"))
    assert "widgets" not in notebook["metadata"]
    for cell in notebook["cells"]:
        assert "tqdm" not in "".join(cell["source"])
        for output in cell.get("outputs", []):
            assert "application/vnd.jupyter.widget-view+json" not in output.get("data", {})


@pytest.mark.parametrize("path", [EN, ZH], ids=["en", "zh"])
def test_exercises_have_a_self_check_and_a_folded_solution(path):
    cells = _cells(path)
    answers = [i for i, c in enumerate(cells) if c.get("id", "").endswith("-answer")]
    assert len(answers) >= 4
    coding = [i for i in answers if "def " in "".join(cells[i]["source"])]
    assert len(coding) >= 2
    for i in answers:
        source = "".join(cells[i]["source"])
        assert "check(" in source and "None" in source
        assert "".join(cells[i + 1]["source"]).startswith("<details>"), cells[i + 1].get("id")
        printed = "".join("".join(o.get("text", "")) for o in cells[i].get("outputs", []))
        key = CHECK_LINE.search(source).group(1)
        language = _switch_values(path)["LANG"]
        assert printed.startswith(f"{key} · ")  # the stored notebook shows no answer, in the edition's language
        assert MESSAGES["unanswered"][language] in printed or MESSAGES["invalid"][language] in printed


def test_chinese_edition_says_clipping_not_truncation():
    """裁剪 is clipping, as the book's translation has it; 截断 means truncation, a different operation."""
    text = "".join("".join(c["source"]) for c in _cells(ZH))
    assert "裁剪" in text
    assert "截断" not in text
