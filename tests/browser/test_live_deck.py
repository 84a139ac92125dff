"""The live deck (jupyterlab-slideshow in JupyterLab, set up as `make lab` does) as an instructor presents it.

The notebook with the median neighbour table and the explorer widget, all cells run, presented at 1280x720 (and
the slides the issue named also at 1920x1080): every slide opens at its top, no slide has a horizontal scrollbar,
no "Jupyter news" prompt covers the deck, and after a click anywhere on a slide but an input widget the clicker's
keys still move the deck, while a double click on code opens its editor (type, run, Escape, and the keys move on).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_jupyterlab import PRESENTING, RUN_ALL_TIMEOUT, STEP, TIMEOUT, _loopback_only, _wait_idle

from dpteach.course import course_notebooks

ROOT = Path(__file__).resolve().parents[2]
SCREENS = ({"width": 1280, "height": 720}, {"width": 1920, "height": 1080})
SCROLLER = ".jp-Deck .jp-Notebook .jp-WindowedPanel-outer"


def _cells(notebook: Path) -> list[dict]:
    return json.loads(notebook.read_text(encoding="utf-8"))["cells"]


def _code_index(cells: list[dict], needle: str) -> int:
    return next(i for i, c in enumerate(cells) if c["cell_type"] == "code" and needle in "".join(c["source"]))


def _tall_notebook() -> Path:
    """The lesson with the median neighbour table and the explorer (found by its code, not by its file name)."""
    for notebook in course_notebooks(ROOT / "notebooks"):
        sources = ["".join(c["source"]) for c in _cells(notebook) if c["cell_type"] == "code"]
        if any("draw_neighbour_table" in s for s in sources) and any("sensitivity_explorer(" in s for s in sources):
            return notebook
    pytest.fail("no notebook draws the median neighbour table and shows the explorer")


# What a screenshot shows of the deck: the cells of the slide, their boxes, where the notebook is scrolled, and
# every element that has a horizontal scrollbar (the notebook's panel included).
DECK_STATE = f"""() => {{
    const panel = document.querySelector('.jp-Deck.jp-NotebookPanel');
    const scroller = document.querySelector('{SCROLLER}');
    const cells = [...panel.querySelectorAll('.jp-Notebook .jp-Cell')];
    const onscreen = cells.map((c, i) => [c, i]).filter(([c]) => c.classList.contains('jp-deck-mod-onscreen'));
    const sideways = [panel, ...panel.querySelectorAll('*')].filter(e => {{
        if (!e.checkVisibility() || e.clientWidth === 0) return false;
        const s = getComputedStyle(e);
        return ['auto', 'scroll'].includes(s.overflowX) && e.scrollWidth > e.clientWidth + 1;
    }}).map(e => `${{e.className.toString().slice(0, 60)}} (${{e.scrollWidth}} in ${{e.clientWidth}} px)`);
    const top = scroller.getBoundingClientRect().top;
    return {{slide: onscreen.map(([, i]) => i).join(','), scrollTop: scroller.scrollTop,
             first: onscreen.length ? onscreen[0][0].getBoundingClientRect().top - top : null,
             height: onscreen.length ? onscreen.at(-1)[0].getBoundingClientRect().bottom
                                       - onscreen[0][0].getBoundingClientRect().top : 0,
             first_text: onscreen.length ? onscreen[0][0].innerText.slice(0, 40) : '', sideways}};
}}"""


@pytest.fixture(scope="module")
def tall_deck(browser: Any, lab: Any) -> Iterator[tuple[Any, Path]]:
    """The notebook open in JupyterLab at 1280x720, every cell run (Run All, as a student would)."""
    notebook = _tall_notebook()
    context = browser.new_context(viewport=SCREENS[0])
    outside = _loopback_only(context, lab)
    page = context.new_page()
    page.set_default_timeout(TIMEOUT)
    page.goto(lab.notebook_url(notebook.relative_to(ROOT).as_posix()) + "&reset", wait_until="domcontentloaded")
    page.wait_for_selector(".jp-NotebookPanel .jp-Notebook .jp-Cell")
    _wait_idle(page)
    page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
    page.get_by_role("menuitem", name="Run All Cells", exact=True).click()
    page.locator(".jp-OutputArea-output .widget-slider").first.wait_for(state="visible", timeout=RUN_ALL_TIMEOUT)
    _wait_idle(page, RUN_ALL_TIMEOUT)
    try:
        yield page, notebook
        assert outside == [], f"JupyterLab asked other hosts: {outside}"
    finally:
        if page.locator(PRESENTING).count():  # stopped, so that the next page does not open presenting
            page.locator(".jp-Deck-Remote .jp-deck-mod-stop").first.click()
            page.wait_for_selector(PRESENTING, state="detached")
        context.close()


def _present_from(page: Any, index: int) -> None:
    """Select cell ``index`` and press the deck button, as an instructor starts the deck where they point."""
    if page.locator(PRESENTING).count():
        page.locator(".jp-Deck-Remote .jp-deck-mod-stop").first.click()
        page.wait_for_selector(PRESENTING, state="detached")
    page.evaluate(f"() => {{ const nb = window.jupyterapp.shell.currentWidget.content;"
                  f" nb.activeCellIndex = {index}; nb.mode = 'command'; }}")
    page.locator('.jp-NotebookPanel-toolbar [data-command="deck:toggle"]').first.click()
    page.wait_for_selector(PRESENTING, state="attached")
    page.wait_for_timeout(1500)  # the deck lays the slide out and scrolls


def _assert_at_top(state: dict, where: str) -> None:
    assert state["scrollTop"] <= 1 and state["first"] is not None and state["first"] >= -1, \
        f"{where}: the slide opens scrolled by {state['scrollTop']:.0f} px, its first cell" \
        f" ({state['first_text']!r}) at {state['first']} px"
    assert state["sideways"] == [], f"{where}: horizontal scrollbars: {state['sideways']}"


def test_named_slides_open_at_their_top(tall_deck: tuple[Any, Path], screenshots: Path) -> None:
    """The three slides the issue saw cut: the opening slide (title and import cell), the median table (its code),
    the explorer (its heading), each started from the cell an instructor would select, at 1280x720 and 1920x1080."""
    page, notebook = tall_deck
    cells = _cells(notebook)
    named = {"opening": 0, "table": _code_index(cells, "draw_neighbour_table"),
             "explorer": _code_index(cells, "sensitivity_explorer(")}
    try:
        for screen in SCREENS:
            page.set_viewport_size(screen)
            for name, index in named.items():
                _present_from(page, index)
                size = f"{screen['width']}x{screen['height']}"
                page.screenshot(path=str(screenshots / f"live_deck_{name}_{size}.png"))
                state = page.evaluate(DECK_STATE)
                assert str(index) in state["slide"].split(","), f"{name}: the deck opened on cells {state['slide']}"
                _assert_at_top(state, f"{name} slide at {size}")
    finally:
        page.set_viewport_size(SCREENS[0])


def test_every_slide_opens_at_its_top_without_a_sideways_scrollbar(tall_deck: tuple[Any, Path]) -> None:
    """From the first slide to the last with the clicker's PageDown (fragments included): each new slide starts at
    its top, and no step shows a horizontal scrollbar."""
    page, _ = tall_deck
    _present_from(page, 0)
    page.evaluate("() => document.activeElement && document.activeElement.blur()")
    state = page.evaluate(DECK_STATE)
    _assert_at_top(state, f"slide {state['slide']}")
    slides, tall = {state["slide"]}, 0
    for _ in range(300):
        step = page.evaluate(STEP)
        page.keyboard.press("PageDown")
        try:
            page.wait_for_function(f"(start) => ({STEP})() !== start", arg=step, timeout=3000)
        except Exception:  # noqa: BLE001 - the last step: PageDown no longer moves
            break
        page.wait_for_timeout(250)  # the deck lays the step out
        now = page.evaluate(DECK_STATE)
        assert now["sideways"] == [], f"cells {now['slide']}: horizontal scrollbars: {now['sideways']}"
        if now["slide"] != state["slide"]:
            _assert_at_top(now, f"slide of cells {now['slide']}")
            slides.add(now["slide"])
            tall += now["height"] > SCREENS[0]["height"]
        state = now
    else:
        pytest.fail("300 PageDowns never reached the last slide")
    print(f"{len(slides)} slides opened at their top, {tall} of them taller than the screen")
    assert len(slides) > 20 and tall > 0, (len(slides), tall)


def test_keys_move_the_deck_after_a_click_on_the_slide(tall_deck: tuple[Any, Path], screenshots: Path) -> None:
    """On the median table's slide: a click in the empty right half of its full-width code cell, on its output and
    on its text each leave the clicker's keys working (Right moves on, Left back)."""
    page, notebook = tall_deck
    index = _code_index(_cells(notebook), "draw_neighbour_table")
    _present_from(page, index)
    cell = page.locator(".jp-Notebook .jp-Cell").nth(index)
    editor = cell.locator(".jp-InputArea-editor")
    box = editor.bounding_box()
    spots = {"code, right half": (box["x"] + 0.8 * box["width"], box["y"] + box["height"] / 2),
             "code, on its text": (box["x"] + 40, box["y"] + 10)}
    out = cell.locator(".jp-OutputArea-output").first.bounding_box()
    spots["output"] = (out["x"] + out["width"] / 2, out["y"] + min(out["height"] / 2, 200))
    for name, (x, y) in spots.items():
        page.mouse.click(x, y)
        start = page.evaluate(STEP)
        page.keyboard.press("ArrowRight")
        page.wait_for_function(f"(start) => ({STEP})() !== start", arg=start, timeout=5000)
        page.keyboard.press("ArrowLeft")
        page.wait_for_function(f"(start) => ({STEP})() === start", arg=start, timeout=5000)
        assert page.evaluate(DECK_STATE)["slide"].split(",").count(str(index)) == 1, f"{name}: back elsewhere"
    page.screenshot(path=str(screenshots / "live_deck_after_clicks.png"))


SOURCE = "() => window.jupyterapp.shell.currentWidget.content.activeCell.model.sharedModel.getSource()"
EDITOR_STATE = """() => { const nb = window.jupyterapp.shell.currentWidget.content;
    return {mode: nb.mode, active: nb.activeCellIndex,
            focused: !!document.activeElement && !!document.activeElement.closest('.jp-Cell .cm-editor')}; }"""


def test_double_click_edits_code_while_presenting(tall_deck: tuple[Any, Path], screenshots: Path) -> None:
    """On the median table's slide a double click on the code puts the cursor in its editor (deck still on): typed
    text lands in the cell, the deck stays on, Ctrl+Enter runs it, Escape leaves the editor and the clicker's Right
    moves on. The cell's source is put back afterwards."""
    page, notebook = tall_deck
    index = _code_index(_cells(notebook), "draw_neighbour_table")
    _present_from(page, index)
    cell = page.locator(".jp-Notebook .jp-Cell").nth(index)
    line = cell.locator(".cm-line").first
    original = None
    try:
        line.dblclick()
        page.wait_for_timeout(300)
        state = page.evaluate(EDITOR_STATE)
        assert state == {"mode": "edit", "active": index, "focused": True}, f"after a double click: {state}"
        original = page.evaluate(SOURCE)
        page.keyboard.press("Control+End")  # the end of the cell (End would stop at a wrapped line's edge)
        page.keyboard.type("  # edited live")
        assert page.evaluate(SOURCE).rstrip().endswith("# edited live"), page.evaluate(SOURCE)[-200:]
        assert page.locator(PRESENTING).count() == 1, "typing left the deck"
        page.screenshot(path=str(screenshots / "live_deck_editing.png"))
        count = f"() => window.jupyterapp.shell.currentWidget.content.widgets[{index}].model.executionCount"
        before = page.evaluate(count)
        page.keyboard.press("Control+Enter")  # runs the cell in place
        page.wait_for_function(f"(before) => ({count})() !== before && ({count})() !== null", arg=before)
        _wait_idle(page)
        assert page.locator(PRESENTING).count() == 1, "running the cell left the deck"
        page.keyboard.press("Escape")
        page.wait_for_function("() => window.jupyterapp.shell.currentWidget.content.mode === 'command'")
        start = page.evaluate(STEP)
        page.keyboard.press("ArrowRight")
        page.wait_for_function(f"(start) => ({STEP})() !== start", arg=start, timeout=5000)
    finally:
        if original is not None:
            page.evaluate(f"(src) => window.jupyterapp.shell.currentWidget.content.widgets[{index}]"
                          ".model.sharedModel.setSource(src)", original)


def test_no_news_prompt_over_the_deck(browser: Any, lab: Any, screenshots: Path) -> None:
    """JupyterLab as `make lab` sets it up (scripts/lab_setup.py; the fixture writes no setting of its own) asks
    nothing about Jupyter news: no toast over the deck's controls, a while after opening."""
    notebook = _tall_notebook()
    context = browser.new_context(viewport=SCREENS[0])
    try:
        page = context.new_page()
        page.set_default_timeout(TIMEOUT)
        page.goto(lab.notebook_url(notebook.relative_to(ROOT).as_posix()) + "&reset", wait_until="domcontentloaded")
        page.wait_for_selector(".jp-NotebookPanel .jp-Notebook .jp-Cell")
        page.wait_for_timeout(5000)  # JupyterLab asks a few seconds after start
        page.screenshot(path=str(screenshots / "lab_no_news_prompt.png"))
        toasts = page.evaluate("() => [...document.querySelectorAll('.Toastify__toast')].map(t => t.innerText)")
        assert toasts == [], f"notifications over JupyterLab: {toasts}"
    finally:
        context.close()
