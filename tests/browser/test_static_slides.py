"""The static decks open from file:// with the network blocked, show slides, and ask no other host for anything."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

LOCAL_SCHEMES = ("file:", "data:", "blob:", "about:")
TIMEOUT = 30_000  # ms, for every wait below


def _open_offline(browser: Any, deck: Path, fragment: str = "") -> tuple[Any, Any, list[str]]:
    """A page on ``deck`` in a fresh context where every non-file request is recorded and aborted."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    requests: list[str] = []

    def block(route: Any) -> None:
        if route.request.url.startswith(LOCAL_SCHEMES):
            route.continue_()
        else:
            route.abort("internetdisconnected")

    context.route("**/*", block)
    page = context.new_page()
    page.set_default_timeout(TIMEOUT)
    page.on("request", lambda request: requests.append(request.url))
    page.goto(deck.as_uri() + fragment, wait_until="load")
    page.wait_for_selector(".reveal.ready")  # reveal.js adds this once the deck is laid out
    return context, page, requests


def _outside(requests: list[str]) -> list[str]:
    return [url for url in requests if not url.startswith(LOCAL_SCHEMES)]


def test_every_deck_shows_slides_offline(browser: Any, decks: list[Path], screenshots: Path) -> None:
    for deck in decks:
        context, page, requests = _open_offline(browser, deck)
        try:
            slides = page.locator(".reveal .slides section").count()
            assert slides > 3, f"{deck.name}: only {slides} slide sections"
            page.wait_for_function("() => window.MathJax && window.MathJax.isReady === true")
            current = page.locator(".reveal .slides section.present").first
            assert current.is_visible()
            assert current.inner_text().strip(), f"{deck.name}: the first slide is empty"
            page.screenshot(path=str(screenshots / f"slides_{deck.name.removesuffix('.slides.html')}.png"))
            assert _outside(requests) == [], f"{deck.name} asked other hosts: {_outside(requests)}"
            assert any(url.endswith("reveal.js/dist/reveal.js") for url in requests), "reveal.js not loaded locally"
        finally:
            context.close()


def test_keyboard_moves_to_the_next_slide(browser: Any, decks: list[Path]) -> None:
    context, page, requests = _open_offline(browser, decks[0])
    try:
        first = page.locator(".reveal .slides section.present").first.inner_text()
        page.keyboard.press("ArrowRight")
        page.wait_for_function("(first) => document.querySelector('.reveal .slides section.present')"
                               ".innerText !== first", arg=first)
        assert _outside(requests) == []
    finally:
        context.close()


def test_explorer_widget_renders_from_saved_state(browser: Any, decks: list[Path], screenshots: Path) -> None:
    deck = next((d for d in decks if d.name.startswith("02_")), None)
    if deck is None:
        pytest.skip("no deck for notebook 02")
    context, page, requests = _open_offline(browser, deck)
    try:
        # Find the slide holding the explorer and go there through reveal.js's own URL scheme (#/h/v).
        where = page.evaluate("""() => {
            const view = document.querySelector('script[type="application/vnd.jupyter.widget-view+json"]');
            let section = view.closest('section');
            const parent = section.parentElement.closest('section');
            const top = parent || section;
            const h = [...top.parentElement.children].filter(e => e.tagName === 'SECTION').indexOf(top);
            const v = parent ? [...parent.children].filter(e => e.tagName === 'SECTION').indexOf(section) : 0;
            return `#/${h}/${v}`;
        }""")
        page.evaluate("(hash) => { window.location.hash = hash; }", where)
        slider = page.locator("section.present .jupyter-widgets .widget-slider").first
        slider.wait_for(state="visible")
        text = page.locator("section.present .jupyter-widgets .widget-html-content").first.inner_text()
        assert text.startswith("sensitivity = "), text[:80]
        page.screenshot(path=str(screenshots / "slides_02_explorer_widget.png"))
        assert _outside(requests) == [], f"asked other hosts: {_outside(requests)}"
    finally:
        context.close()
