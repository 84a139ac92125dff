"""JupyterLab in a real browser, as a student and as an instructor uses it.

A student opens notebook 02, runs every cell and plays with the explorer widget. An instructor presents the same
notebook with jupyterlab-slideshow on a 1280x720 screen, the smallest a projector gives: the slideshow opens on
the selected cell's slide, the keys a presentation clicker sends move it, the explorer stays live and on screen,
body text is at least 24 px, and afterwards JupyterLab opens normally. The Chinese notebook renders every Chinese
character with the bundled web font on a machine without a Chinese system font.
JupyterLab serves a throwaway copy of the course (see conftest.py), so nothing here touches the repository.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import cjk_webfont  # noqa: E402

sys.path.pop(0)

NOTEBOOK = "notebooks/02_global_sensitivity.ipynb"
ZH_NOTEBOOK = "notebooks/05_propose_test_release.zh.ipynb"
SCREEN = {"width": 1280, "height": 720}  # a projector's usual size; larger screens only scale up
TIMEOUT = 60_000  # ms, for every ordinary wait
RUN_ALL_TIMEOUT = 240_000  # ms, for running the whole notebook on a slow machine
# Readable from the back of a classroom on a 1280x720 projection: body text >= 24 px, code >= 20 px.
MIN_BODY_PX, MIN_CODE_PX = 24, 20
EXPLORER_CODE = "sensitivity_explorer("

PRESENTING = "body[data-jp-deck-mode='presenting']"
ONSCREEN = ".jp-Notebook .jp-Cell.jp-deck-mod-onscreen"
# Where the deck is: the indices of the cells on screen.
POSITION = """() => [...document.querySelectorAll('.jp-Notebook .jp-Cell')]
  .map((c, i) => c.classList.contains('jp-deck-mod-onscreen') ? i : -1).filter(i => i >= 0).join(',')"""
# Where the deck is, fragments included: the active cell and the cells shown. A clicker's key steps through a
# slide's fragments before it changes slide, so POSITION alone stays put while a fragment hides or shows.
STEP = """() => window.jupyterapp.shell.currentWidget.content.activeCellIndex + ':' +
  [...document.querySelectorAll('.jp-Notebook .jp-Cell')]
  .map((c, i) => c.classList.contains('jp-deck-mod-visible') ? i : -1).filter(i => i >= 0).join(',')"""
# Boxes of the cells on screen, in CSS pixels.
SHOWN_BOXES = """() => [...document.querySelectorAll('.jp-Notebook .jp-Cell.jp-deck-mod-onscreen')]
  .filter(c => c.getBoundingClientRect().height > 0)
  .map(c => { const b = c.getBoundingClientRect();
              return {text: c.innerText.slice(0, 40), top: b.top, bottom: b.bottom, left: b.left, right: b.right}; })"""
# The rendered size of an element's text: computed font size times any scaling transform on the way up.
RENDERED_PX = """(el) => {
  const scale = el.offsetWidth ? el.getBoundingClientRect().width / el.offsetWidth : 1;
  return parseFloat(getComputedStyle(el).fontSize) * scale;
}"""


def _wait_idle(page: Any, timeout: int = TIMEOUT) -> None:
    page.wait_for_function("() => window.jupyterapp && window.jupyterapp.shell.currentWidget"
                           " && window.jupyterapp.shell.currentWidget.sessionContext"
                           " && window.jupyterapp.shell.currentWidget.sessionContext.session"
                           " && window.jupyterapp.shell.currentWidget.sessionContext.session.kernel"
                           " && window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.status === 'idle'",
                           timeout=timeout)


def _loopback_only(context: Any, lab: Any) -> list[str]:
    outside: list[str] = []

    def route(r: Any) -> None:
        if r.request.url.startswith((lab.url, "data:", "blob:")):
            r.continue_()
        else:
            outside.append(r.request.url)
            r.abort("internetdisconnected")

    context.route("**/*", route)
    return outside


@pytest.fixture(scope="module")
def notebook_page(browser: Any, lab: Any) -> Iterator[tuple[Any, list[str]]]:
    """Notebook 02 open in JupyterLab at 1280x720 with all cells run, and the requests that left loopback."""
    context = browser.new_context(viewport=SCREEN)
    outside = _loopback_only(context, lab)
    page = context.new_page()
    page.set_default_timeout(TIMEOUT)
    page.goto(lab.notebook_url(NOTEBOOK), wait_until="domcontentloaded")
    page.wait_for_selector(".jp-NotebookPanel .jp-Notebook .jp-Cell")
    _wait_idle(page)
    # Run → Run All Cells, through the menu bar as a student would.
    page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
    page.get_by_role("menuitem", name="Run All Cells", exact=True).click()
    _explorer(page).wait_for(state="visible", timeout=RUN_ALL_TIMEOUT)
    _wait_idle(page, RUN_ALL_TIMEOUT)
    try:
        yield page, outside
    finally:
        context.close()


def _explorer(page: Any) -> Any:
    return page.locator(".jp-OutputArea-output .jupyter-widgets.widget-vbox").filter(
        has=page.locator(".widget-slider")).first


def _nudge_k(page: Any, explorer: Any) -> tuple[str, str]:
    """Move the explorer's k slider one step right, as a student would; the result text before and after."""
    result = explorer.locator(".widget-html-content").first
    page.wait_for_function("(el) => el.innerText.startsWith('sensitivity = ')", arg=result.element_handle())
    before = result.inner_text()
    slider = explorer.locator(".widget-slider").filter(has=page.locator("label", has_text="k")).first
    readout = slider.locator(".widget-readout")
    start = int(readout.inner_text().strip())
    slider.locator(".noUi-handle").first.focus()
    page.keyboard.press("ArrowRight")
    page.wait_for_function("([el, k]) => el.innerText.trim() === k", arg=[readout.element_handle(), str(start + 1)])
    page.wait_for_function("([el, before]) => el.innerText !== before && el.innerText.startsWith('sensitivity = ')",
                           arg=[result.element_handle(), before])
    return before, result.inner_text()


def test_explorer_appears_and_reacts_to_the_slider(notebook_page: tuple[Any, list[str]], screenshots: Path) -> None:
    page, outside = notebook_page
    explorer = _explorer(page)
    explorer.scroll_into_view_if_needed()
    page.screenshot(path=str(screenshots / "jupyterlab_02_explorer_before.png"))
    before, after = _nudge_k(page, explorer)
    assert after != before
    explorer.scroll_into_view_if_needed()
    page.screenshot(path=str(screenshots / "jupyterlab_02_explorer_after_k2.png"))
    failed = page.locator(".jp-OutputArea-output", has_text="Traceback (most recent call last)").count()
    assert failed == 0, f"{failed} cell(s) raised an error"
    assert outside == [], f"JupyterLab asked other hosts: {outside}"


@pytest.fixture(scope="module")
def slideshow(notebook_page: tuple[Any, list[str]]) -> Any:
    """Notebook 02 presented with jupyterlab-slideshow at 1280x720, started right after Run All.

    Run All leaves the last cell selected; the instructor presses the deck button in the notebook toolbar.
    """
    page, _ = notebook_page
    page.evaluate("() => { const nb = window.jupyterapp.shell.currentWidget.content;"
                  " nb.activeCellIndex = nb.widgets.length - 1; nb.mode = 'command'; }")
    page.locator('.jp-NotebookPanel-toolbar [data-command="deck:toggle"]').first.click()
    page.wait_for_selector(PRESENTING, state="attached")
    page.wait_for_timeout(1500)  # let the deck scroll to the slide before measuring it
    return page


def test_slideshow_opens_on_the_selected_cells_slide_fully(slideshow: Any, screenshots: Path) -> None:
    page = slideshow
    page.screenshot(path=str(screenshots / "deck_02_start.png"))
    last = page.evaluate("() => window.jupyterapp.shell.currentWidget.content.widgets.length - 1")
    on_screen = [int(i) for i in page.evaluate(POSITION).split(",") if i]
    assert last in on_screen, f"the deck opened on cells {on_screen}, not on the selected cell {last}"
    boxes = page.evaluate(SHOWN_BOXES)
    assert boxes and any(box["text"].strip() for box in boxes), "the first slide is blank"
    for box in boxes:
        assert box["top"] >= 0 and box["bottom"] <= SCREEN["height"] + 0.5, f"cut vertically: {box}"
        assert box["left"] >= 0 and box["right"] <= SCREEN["width"] + 0.5, f"cut sideways: {box}"


def test_explorer_is_live_and_on_screen_in_the_slideshow(slideshow: Any, screenshots: Path) -> None:
    page = slideshow
    explorer = page.locator(ONSCREEN).locator(".jupyter-widgets.widget-vbox").filter(
        has=page.locator(".widget-slider")).first
    # Stop, select the explorer's cell and start again: the deck opens where the instructor points.
    page.locator(".jp-Deck-Remote .jp-deck-mod-stop").first.click()
    page.wait_for_selector(PRESENTING, state="detached")
    cell = page.locator(".jp-Notebook .jp-CodeCell").filter(has_text=EXPLORER_CODE).first
    cell.locator(".jp-InputPrompt").click()
    page.keyboard.press("Escape")
    page.locator('.jp-NotebookPanel-toolbar [data-command="deck:toggle"]').first.click()
    page.wait_for_selector(PRESENTING, state="attached")
    page.wait_for_timeout(1500)  # the deck scrolls to the slide
    page.screenshot(path=str(screenshots / "deck_02_explorer.png"))
    explorer.wait_for(state="visible")
    for control in explorer.locator(".widget-slider, .widget-dropdown, .widget-toggle-buttons").all():
        box = control.bounding_box()
        assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= SCREEN["height"], \
            f"a control of the explorer is off screen: {box}"
        assert box["x"] >= 0 and box["x"] + box["width"] <= SCREEN["width"], f"off screen sideways: {box}"
    position = page.evaluate(POSITION)
    before, after = _nudge_k(page, explorer)
    assert after != before
    assert page.evaluate(POSITION) == position, "nudging the slider moved the deck"
    page.screenshot(path=str(screenshots / "deck_02_explorer_after_k2.png"))


PROSE = f"{ONSCREEN} .jp-RenderedMarkdown :is(p, li):visible"
CODE = f"{ONSCREEN} .jp-InputArea-editor .cm-content:visible"


def test_text_is_large_enough_for_a_classroom(slideshow: Any, screenshots: Path) -> None:
    """Measure prose and code on a slide that shows both, stepping back with PageUp from wherever the deck is.

    The earlier tests leave the deck on the explorer's slide, which holds code and a widget but no prose.
    """
    page = slideshow
    page.evaluate("() => document.activeElement && document.activeElement.blur()")
    for _ in range(15):
        if page.locator(PROSE).count() and page.locator(CODE).count():
            break
        start = page.evaluate(STEP)
        page.keyboard.press("PageUp")
        page.wait_for_function(f"(start) => ({STEP})() !== start", arg=start)
        page.wait_for_timeout(300)  # the deck scrolls to the slide
    else:
        pytest.fail("no slide with both prose and code within 15 steps back")
    page.screenshot(path=str(screenshots / "deck_02_text_size.png"))
    wide = page.evaluate(f"""() => [...document.querySelectorAll('{ONSCREEN} .cm-scroller')]
        .filter(s => s.scrollWidth > s.clientWidth + 1).map(s => s.innerText.slice(0, 60))""")
    assert wide == [], f"code runs off the slide sideways: {wide}"
    body_px = page.locator(PROSE).first.evaluate(RENDERED_PX)
    code_px = page.locator(CODE).first.evaluate(RENDERED_PX)
    # 0.1 px of slack for the sub-pixel rounding of the layout (24 px measures 23.99)
    assert body_px >= MIN_BODY_PX - 0.1, f"body text is {body_px:.2f} px"
    assert code_px >= MIN_CODE_PX - 0.1, f"code is {code_px:.2f} px"


def test_clicker_keys_move_the_slideshow(slideshow: Any, screenshots: Path) -> None:
    """A clicker sends Right/Left or PageDown/PageUp to whatever has the focus: each must step forward or back.
    The deck opens on the last cell (Run All leaves it selected), so each pair steps back, then forward again."""
    page = slideshow
    page.evaluate("() => document.activeElement && document.activeElement.blur()")  # nothing focused, as after
    for back, forward in (("ArrowLeft", "ArrowRight"), ("PageUp", "PageDown")):  # a click on the background
        start = page.evaluate(STEP)
        page.keyboard.press(back)
        page.wait_for_function(f"(start) => ({STEP})() !== start", arg=start)
        page.screenshot(path=str(screenshots / f"deck_02_after_{back}.png"))
        page.keyboard.press(forward)
        page.wait_for_function(f"(start) => ({STEP})() === start", arg=start)



def test_clicker_keys_step_back_from_the_last_slide(slideshow: Any, screenshots: Path) -> None:
    """At the end of a talk the instructor steps back: from the last slide, Left and PageUp must each move."""
    page = slideshow
    page.locator(".jp-Deck-Remote .jp-deck-mod-stop").first.click()
    page.wait_for_selector(PRESENTING, state="detached")
    page.evaluate("() => { const nb = window.jupyterapp.shell.currentWidget.content;"
                  " nb.activeCellIndex = nb.widgets.length - 1; nb.mode = 'command'; }")
    page.locator('.jp-NotebookPanel-toolbar [data-command="deck:toggle"]').first.click()
    page.wait_for_selector(PRESENTING, state="attached")
    page.wait_for_timeout(1500)  # the deck scrolls to the slide
    last_slide = page.evaluate(POSITION)
    page.evaluate("() => document.activeElement && document.activeElement.blur()")
    # the last slide's fragments hide one by one, then the previous slide shows: one step back per cell on the
    # slide (its fragments, then the slide itself), alternating the two keys, and each step must move
    cells_on_slide = len(last_slide.split(","))
    for step in range(cells_on_slide):
        start = page.evaluate(STEP)
        page.keyboard.press(("ArrowLeft", "PageUp")[step % 2])
        page.wait_for_function(f"(start) => ({STEP})() !== start", arg=start)
    assert page.evaluate(POSITION) != last_slide, f"{cells_on_slide} steps back never left the last slide"
    page.screenshot(path=str(screenshots / "deck_02_two_back_from_the_end.png"))


@contextmanager
def _fresh_page(browser: Any, lab: Any) -> Iterator[Any]:
    """A new browser page on notebook 02, closed afterwards."""
    context = browser.new_context(viewport=SCREEN)
    try:
        page = context.new_page()
        page.set_default_timeout(TIMEOUT)
        page.goto(lab.notebook_url(NOTEBOOK), wait_until="domcontentloaded")
        page.wait_for_selector(".jp-NotebookPanel .jp-Notebook .jp-Cell")
        yield page
    finally:
        context.close()


def _assert_a_fresh_page_is_normal(browser: Any, lab: Any, screenshot: Path) -> None:
    """A new page on notebook 02 shows JupyterLab's menu bar and no presentation, even given time to restore one."""
    with _fresh_page(browser, lab) as fresh:
        fresh.wait_for_timeout(2000)  # time for a saved deck mode to come back, if it were saved
        fresh.screenshot(path=str(screenshot))
        assert fresh.locator("#jp-menu-panel .lm-MenuBar-itemLabel", has_text="File").is_visible()
        assert fresh.locator(PRESENTING).count() == 0, "JupyterLab opened in presentation mode"

def test_leaving_the_slideshow_leaves_jupyterlab_normal(slideshow: Any, lab: Any, browser: Any,
                                                        screenshots: Path) -> None:
    """The remote's stop button ends the deck; JupyterLab, opened afresh, shows its menu bar and no deck.

    jupyterlab-slideshow saves ``"active": true`` in the user settings while presenting; `make lab` (and the
    fixture, through scripts/lab_setup.py) resets it before JupyterLab starts, so what is asserted here about a
    fresh page holds after a restart as well.
    """
    page = slideshow
    page.locator(".jp-Deck-Remote .jp-deck-mod-stop").first.click()
    page.wait_for_selector(PRESENTING, state="detached")
    assert page.locator("#jp-menu-panel").is_visible()
    settings = lab.root.parent / "home" / "settings" / "jupyterlab-slideshow" / "plugin.jupyterlab-settings"
    assert '"active": true' not in settings.read_text().replace(" ", "").replace('":t', '": t'), \
        f"presentation mode saved for the next start: {settings.read_text()}"
    _assert_a_fresh_page_is_normal(browser, lab, screenshots / "jupyterlab_after_deck.png")


def test_chinese_notebook_renders_with_the_bundled_font(browser: Any, lab: Any, screenshots: Path,
                                                         no_tofu: Any, cjk_in_every_kind: Any) -> None:
    """Every Chinese character of the zh notebook is drawn from a real glyph in JupyterLab, in every weight and
    style: bold, italic, code, headings and plain text."""
    chars = sorted(cjk_webfont.needed_characters([lab.root / ZH_NOTEBOOK]))
    assert len(chars) > 100
    context = browser.new_context(viewport=SCREEN)
    outside = _loopback_only(context, lab)
    try:
        page = context.new_page()
        page.set_default_timeout(TIMEOUT)
        page.goto(lab.notebook_url(ZH_NOTEBOOK), wait_until="domcontentloaded")
        page.wait_for_selector(".jp-NotebookPanel .jp-RenderedMarkdown h1")
        page.wait_for_function("() => document.fonts.status === 'loaded'")
        page.screenshot(path=str(screenshots / "jupyterlab_zh_notebook.png"))
        for selector in (".jp-RenderedMarkdown p", ".jp-InputArea-editor .cm-content"):
            stack = page.locator(selector).first.evaluate("(el) => getComputedStyle(el).fontFamily")
            no_tofu(page, chars, stack)
        cjk_in_every_kind(page, ".jp-NotebookPanel .jp-Notebook", ("bold", "italic", "code", "h1", "h2", "text"))
    finally:
        context.close()
    assert outside == [], f"JupyterLab asked other hosts: {outside}"


# reveal.js's address (h, v) of the slide holding an element.
SLIDE_OF = """(el) => { const section = el.closest('section'); const parent = section.parentElement.closest('section');
    const top = parent || section;
    const h = [...top.parentElement.children].filter(e => e.tagName === 'SECTION').indexOf(top);
    const v = parent ? [...parent.children].filter(e => e.tagName === 'SECTION').indexOf(section) : 0;
    return [h, v]; }"""


def _deck_shows(page: Any) -> Any:
    from test_static_slides import GOTO_JS

    return lambda element: page.evaluate(GOTO_JS, element.evaluate(SLIDE_OF))


def test_chinese_deck_renders_with_the_bundled_font(browser: Any, decks: list[Path], screenshots: Path,
                                                    no_tofu: Any, cjk_in_every_kind: Any) -> None:
    """The same for the static zh deck, opened from disk, in every weight and style (each on its own slide)."""
    deck = next(d for d in decks if d.name.startswith(Path(ZH_NOTEBOOK).stem))
    chars = sorted(cjk_webfont.needed_characters([ROOT / ZH_NOTEBOOK]))
    context = browser.new_context(viewport=SCREEN)
    try:
        page = context.new_page()
        page.set_default_timeout(TIMEOUT)
        page.goto(deck.as_uri(), wait_until="load")
        page.wait_for_function("() => document.fonts.status === 'loaded'")
        page.screenshot(path=str(screenshots / "deck_zh_first_slide.png"))
        for selector in (".reveal h1", ".reveal .jp-RenderedMarkdown p"):
            stack = page.locator(selector).first.evaluate("(el) => getComputedStyle(el).fontFamily")
            no_tofu(page, chars, stack)
        cjk_in_every_kind(page, ".reveal", ("bold", "italic", "code", "h1", "h2", "h3", "text"),
                          show=_deck_shows(page))
    finally:
        context.close()


def test_english_decks_draw_their_chinese_words(browser: Any, decks: list[Path], cjk_in_every_kind: Any) -> None:
    """The index deck names the Chinese edition (中文版): it carries the bundled font too, and so does every deck
    with a Chinese character; the decks' index page lists the Chinese title."""
    with_chinese = [d for d in decks if not d.name.startswith(Path(ZH_NOTEBOOK).stem)
                    and any(cjk_webfont.is_cjk(c) for c in d.read_text(encoding="utf-8"))]
    assert any(d.name.startswith("00_") for d in with_chinese), "the index deck no longer names the Chinese edition"
    context = browser.new_context(viewport=SCREEN)
    try:
        page = context.new_page()
        page.set_default_timeout(TIMEOUT)
        for deck in with_chinese:
            page.goto(deck.as_uri(), wait_until="load")
            page.wait_for_selector(".reveal.ready")
            cjk_in_every_kind(page, ".reveal", ("text",), show=_deck_shows(page))
        page.goto((decks[0].parent / "index.html").as_uri(), wait_until="load")
        cjk_in_every_kind(page, "body", ("text",))
    finally:
        context.close()


def test_jupyterlab_restarted_during_a_presentation_opens_normally(lab: Any, browser: Any,
                                                                    screenshots: Path) -> None:
    """The worst case for a sticky presentation mode: JupyterLab is stopped while the deck is still on screen.

    jupyterlab-slideshow has then saved ``"active": true``; the server is restarted the way `make lab` starts it
    (scripts/lab_setup.py first), and a fresh page must show the normal interface. Runs last: it restarts the
    server under the other tests' pages.
    """
    settings = lab.root.parent / "home" / "settings" / "jupyterlab-slideshow" / "plugin.jupyterlab-settings"
    with _fresh_page(browser, lab) as page:
        page.locator('.jp-NotebookPanel-toolbar [data-command="deck:toggle"]').first.click()
        page.wait_for_selector(PRESENTING, state="attached")
        deadline = time.monotonic() + TIMEOUT / 1000
        while '"active":true' not in settings.read_text().replace(" ", "") and time.monotonic() < deadline:
            time.sleep(0.2)
        assert '"active":true' in settings.read_text().replace(" ", ""), \
            "the extension no longer saves its mode: this test no longer exercises a sticky presentation mode"
    lab.restart()
    _assert_a_fresh_page_is_normal(browser, lab, screenshots / "jupyterlab_after_restart.png")
