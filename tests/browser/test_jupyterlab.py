"""A student's path through JupyterLab: open notebook 02, run every cell, play with the explorer widget.

And an instructor's: the same notebook as a jupyterlab-deck presentation, with the widget still live.
JupyterLab serves a throwaway copy of the course (see conftest.py), so nothing here touches the repository.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

NOTEBOOK = "notebooks/02_local_sensitivity.ipynb"
TIMEOUT = 60_000  # ms, for every ordinary wait
RUN_ALL_TIMEOUT = 240_000  # ms, for running the whole notebook on a slow machine


@pytest.fixture(scope="module")
def notebook_page(browser: Any, lab: Any) -> Iterator[tuple[Any, list[str]]]:
    """Notebook 02 open in JupyterLab with all cells run, and the requests that left loopback."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    outside: list[str] = []

    def loopback_only(route: Any) -> None:
        if route.request.url.startswith(lab.url) or route.request.url.startswith(("data:", "blob:")):
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort("internetdisconnected")

    context.route("**/*", loopback_only)
    page = context.new_page()
    page.set_default_timeout(TIMEOUT)
    page.goto(lab.notebook_url(NOTEBOOK), wait_until="domcontentloaded")
    page.wait_for_selector(".jp-NotebookPanel .jp-Notebook .jp-Cell")
    # The kernel has started once the toolbar's status says idle.
    page.wait_for_function("() => window.jupyterapp && window.jupyterapp.shell.currentWidget"
                           " && window.jupyterapp.shell.currentWidget.sessionContext"
                           " && window.jupyterapp.shell.currentWidget.sessionContext.session"
                           " && window.jupyterapp.shell.currentWidget.sessionContext.session.kernel"
                           " && window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.status === 'idle'")
    # Run → Run All Cells, through the menu bar as a student would.
    page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
    page.get_by_role("menuitem", name="Run All Cells", exact=True).click()
    try:
        yield page, outside
    finally:
        context.close()


def _explorer(page: Any) -> Any:
    return page.locator(".jp-OutputArea-output .jupyter-widgets.widget-vbox").filter(
        has=page.locator(".widget-slider")).first


def test_explorer_appears_and_reacts_to_the_slider(notebook_page: tuple[Any, list[str]], screenshots: Path) -> None:
    page, outside = notebook_page
    explorer = _explorer(page)
    explorer.wait_for(state="visible", timeout=RUN_ALL_TIMEOUT)
    result = explorer.locator(".widget-html-content").first
    page.wait_for_function("(el) => el.innerText.startsWith('sensitivity = ')", arg=result.element_handle())
    before = result.inner_text()
    explorer.scroll_into_view_if_needed()
    page.screenshot(path=str(screenshots / "jupyterlab_02_explorer_before.png"))

    slider = explorer.locator(".widget-slider").filter(has=page.locator("label", has_text="k")).first
    readout = slider.locator(".widget-readout")
    assert readout.inner_text().strip() == "1"
    slider.locator(".noUi-handle").first.focus()
    page.keyboard.press("ArrowRight")  # k: 1 -> 2, as a student would nudge it
    page.wait_for_function("(el) => el.innerText.trim() === '2'", arg=readout.element_handle())
    page.wait_for_function("([el, before]) => el.innerText !== before && el.innerText.startsWith('sensitivity = ')",
                           arg=[result.element_handle(), before])
    after = result.inner_text()
    assert after != before
    explorer.scroll_into_view_if_needed()
    page.screenshot(path=str(screenshots / "jupyterlab_02_explorer_after_k2.png"))

    failed = page.locator(".jp-OutputArea-output", has_text="Traceback (most recent call last)").count()
    assert failed == 0, f"{failed} cell(s) raised an error"
    assert outside == [], f"JupyterLab asked other hosts: {outside}"


def test_deck_mode_keeps_the_widget_live(notebook_page: tuple[Any, list[str]], screenshots: Path) -> None:
    page, _ = notebook_page
    explorer = _explorer(page)
    explorer.wait_for(state="visible", timeout=RUN_ALL_TIMEOUT)
    # The deck button jupyterlab-deck adds to the notebook toolbar (same as Command Palette → "Start Deck").
    button = page.locator('.jp-NotebookPanel-toolbar [data-command="deck:toggle"]').first
    button.wait_for(state="visible")
    button.click()
    page.wait_for_selector("body[data-jp-deck-mode='presenting']", state="attached")
    # The deck opens at the active cell (the last one after Run All); go back to the explorer's slide,
    # whose heading is "Explore it yourself", with the remote an instructor uses.
    heading = page.locator(".jp-Cell.jp-deck-mod-onscreen h2", has_text="Explore it yourself")
    back = page.locator(".jp-Deck-Remote .jp-deck-mod-direction-back").first
    for _ in range(10):
        if heading.count():
            break
        back.click()  # the remote's "previous" arrow, bottom right (arrow keys only moved once in Chromium)
        page.wait_for_timeout(300)
    assert heading.count() == 1, "never reached the explorer's slide"
    # jupyterlab-deck only shows cells whose slide_type it knows: "" continues a slide, "-" would hide the cell.
    cell = page.locator(".jp-CodeCell").filter(has=page.locator(".widget-slider")).first
    assert "jp-deck-mod-onscreen" in (cell.get_attribute("class") or ""), "the explorer's code cell is hidden"
    assert explorer.is_visible()
    page.wait_for_timeout(1000)  # let the deck finish scrolling to the slide before the picture
    page.screenshot(path=str(screenshots / "jupyterlab_deck_02_explorer_slide.png"))
    # The widget is live in the deck: nudging k changes the result.
    result = explorer.locator(".widget-html-content").first
    before = result.inner_text()
    slider = explorer.locator(".widget-slider").filter(has=page.locator("label", has_text="k")).first
    slider.locator(".noUi-handle").first.focus()
    page.keyboard.press("ArrowRight")
    page.wait_for_function("([el, before]) => el.innerText !== before && el.innerText.startsWith('sensitivity = ')",
                           arg=[result.element_handle(), before])
    assert page.locator("body[data-jp-deck-mode='presenting']").count() == 1
    page.screenshot(path=str(screenshots / "jupyterlab_deck_02_explorer_after_k2.png"))
