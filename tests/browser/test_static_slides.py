"""The static decks open from file:// with the network blocked, show slides, ask no other host for anything,
and every slide fits the screen: nothing lies where no scrolling can bring it, at 1280x720 and 1920x1080."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

LOCAL_SCHEMES = ("file:", "data:", "blob:", "about:")
TIMEOUT = 30_000  # ms, for every wait below
SIZES = [(1280, 720), (1920, 1080)]
TOLERANCE = 2  # screen px of a glyph or image that may be cut (antialiasing, MathJax's glyph boxes)
FIT_JS = (Path(__file__).parent / "slide_fit.js").read_text()


def _open_offline(browser: Any, deck: Path, fragment: str = "",
                  size: tuple[int, int] = (1280, 800)) -> tuple[Any, Any, list[str]]:
    """A page on ``deck`` in a fresh context where every non-file request is recorded and aborted."""
    context = browser.new_context(viewport={"width": size[0], "height": size[1]})
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



def test_a_slide_opened_by_its_address_shows_each_formula_once(browser: Any, decks: list[Path]) -> None:
    """Jumping straight to a slide full of formulas (a link, the overview, a typed address) while MathJax is still
    typesetting the deck: each formula must be drawn once. Three fresh pages, as the race did not always show."""
    deck = next((d for d in decks if d.name.startswith("05_")), None)
    assert deck is not None, "no deck for notebook 05 (the book chapter, the course's densest formulas)"
    for _ in range(3):
        context, page, _requests = _open_offline(browser, deck)
        try:
            page.wait_for_function("() => window.MathJax && window.MathJax.isReady === true")
            middle = page.evaluate(MOST_FORMULAS_JS)  # the slide with the most formulas, wherever it lies
            page.evaluate(GOTO_JS, middle)
            assert page.evaluate("() => document.querySelectorAll('.reveal section.present .mjx-chtml').length")
            assert page.evaluate(DOUBLED_JS) == 0, f"a formula is drawn twice at #/{middle[0]}/{middle[1]}"
        finally:
            context.close()

def test_explorer_widget_renders_from_saved_state(browser: Any, decks: list[Path], screenshots: Path) -> None:
    deck = next((d for d in decks if d.name.startswith("02_")), None)
    assert deck is not None, "no deck for notebook 02 (the explorer's first lesson)"
    context, page, requests = _open_offline(browser, deck)
    try:
        # Find the slide holding the explorer, go there through reveal.js's own URL scheme (#/h/v) and show its
        # fragments (the explorer may be one).
        where = page.evaluate("""() => {
            const view = document.querySelector('script[type="application/vnd.jupyter.widget-view+json"]');
            let section = view.closest('section');
            const parent = section.parentElement.closest('section');
            const top = parent || section;
            const h = [...top.parentElement.children].filter(e => e.tagName === 'SECTION').indexOf(top);
            const v = parent ? [...parent.children].filter(e => e.tagName === 'SECTION').indexOf(section) : 0;
            return [h, v];
        }""")
        page.evaluate(GOTO_JS, where)
        slider = page.locator("section.present .jupyter-widgets .widget-slider").first
        slider.wait_for(state="visible")
        text = page.locator("section.present .jupyter-widgets .widget-html-content").first.inner_text()
        assert text.startswith("sensitivity = "), text[:80]
        page.screenshot(path=str(screenshots / "slides_02_explorer_widget.png"))
        assert _outside(requests) == [], f"asked other hosts: {_outside(requests)}"
    finally:
        context.close()


@dataclass(frozen=True)
class Cut:
    deck: str
    where: str  # reveal.js's own address of the slide, h/v
    down: int  # screen px that no scrolling brings on screen, vertically
    across: int  # the same, sideways
    examples: tuple[str, ...]

    def __str__(self) -> str:
        amounts = ", ".join(f"{px} px {name}" for name, px in (("down", self.down), ("sideways", self.across)) if px)
        return f"{self.deck} #/{self.where}: {amounts} — " + "; ".join(self.examples)


# Each slide address (h, v) in document order: a horizontal slide with sub-slides is a stack of sections.
ADDRESSES_JS = """() => [...document.querySelectorAll('.reveal .slides > section')].flatMap((top, h) => {
    const subs = [...top.children].filter(e => e.tagName === 'SECTION');
    return subs.length ? subs.map((_, v) => [h, v]) : [[h, 0]];
})"""

# The address [h, v] of the slide holding the most formulas, typeset or not yet (TeX delimiters in its text).
MOST_FORMULAS_JS = r"""() => {
    let best = [0, 0], most = -1;
    [...document.querySelectorAll('.reveal .slides > section')].forEach((top, h) => {
        const subs = [...top.children].filter(e => e.tagName === 'SECTION');
        (subs.length ? subs : [top]).forEach((slide, v) => {
            const tex = (slide.textContent.match(/\\\(|\\\[|\$\$/g) || []).length;
            const found = tex + slide.querySelectorAll('.mjx-chtml').length;
            if (found > most) { most = found; best = [h, v]; }
        });
    });
    return best;
}"""

# Go to a slide through the URL, show all its fragments, and let MathJax and the deck's layout settle.
GOTO_JS = """async ([h, v]) => {
    window.location.hash = `#/${h}/${v}`;
    const frame = () => new Promise(r => requestAnimationFrame(() => r()));
    for (let i = 0; i < 50; i++) {
        const present = [...document.querySelectorAll('.reveal .slides section.present')].pop();
        const top = [...document.querySelectorAll('.reveal .slides > section')][h];
        if (present && (present === top || present.parentElement === top)) break;
        await frame();
    }
    for (const f of document.querySelectorAll('.reveal .slides section.present .fragment')) {
        f.classList.add('visible');
    }
    window.dispatchEvent(new Event('resize'));
    if (window.MathJax && MathJax.Hub) await new Promise(r => MathJax.Hub.Queue(r));
    await document.fonts.ready;  // MathJax's glyphs are invisible until its web fonts have loaded
    await frame(); await frame();
}"""

# Formulas drawn twice: MathJax 2 re-typesets a slide's formulas when it is shown; run outside its queue, that
# left two copies of a formula side by side ("K = 5K = 5").
DOUBLED_JS = """() => [...document.querySelectorAll('.reveal section.present .mjx-chtml')]
    .filter(f => f.querySelectorAll(':scope > .mjx-math').length > 1).length"""


def _every_slide(browser: Any, deck: Path, size: tuple[int, int]) -> Iterator[tuple[str, int, int, Any]]:
    """Open ``deck`` offline at ``size`` and show each slide in turn, all its fragments visible and its formulas
    typeset: yields the deck's name, the slide's address (h, v) and the page."""
    context, page, _ = _open_offline(browser, deck, size=size)
    try:
        page.wait_for_function("() => window.MathJax && window.MathJax.isReady === true")
        for h, v in page.evaluate(ADDRESSES_JS):
            page.evaluate(GOTO_JS, [h, v])
            yield deck.name.removesuffix(".slides.html"), h, v, page
    finally:
        context.close()


def _cut_slides(browser: Any, deck: Path, size: tuple[int, int], shots: Path,
                scrolling: list[str] | None = None, covered: list[str] | None = None) -> tuple[list[Cut], int]:
    """Visit every slide of ``deck`` with all fragments shown and list those with content out of reach.

    Slides that fit only by scrolling are added to ``scrolling`` (how far, and their notebook cell ids), slides
    with text under reveal.js's arrows or slide number to ``covered``."""
    cuts: list[Cut] = []
    scrolling = [] if scrolling is None else scrolling
    covered = [] if covered is None else covered
    slides = 0
    for name, h, v, page in _every_slide(browser, deck, size):
        slides += 1
        found = page.evaluate(FIT_JS, TOLERANCE)
        assert "error" not in found, f"{name} #/{h}/{v}: {found}"
        assert page.evaluate(DOUBLED_JS) == 0, f"{name} #/{h}/{v}: a formula is drawn twice"
        shot = shots / f"{name}_{h:02d}-{v}.png"
        if found["scrolls"]:
            scrolling.append(f"{name} #/{h}/{v}: scrolls {found['scrolls']} px; cells {' '.join(found['cells'])}")
            page.screenshot(path=str(shots / f"scrolls_{shot.name}"))
        if found["covered"]:
            covered.append(f"{name} #/{h}/{v}: under the arrows: {found['covered']}")
            page.screenshot(path=str(shots / f"covered_{shot.name}"))
        if found["y"]["worst"] or found["x"]["worst"]:
            cuts.append(Cut(name, f"{h}/{v}", found["y"]["worst"], found["x"]["worst"],
                            tuple(found["y"]["examples"] + found["x"]["examples"])))
            page.screenshot(path=str(shot))
        elif h % 7 == 0 and v == 0:  # a sample of slides that fit, for a person to look at
            page.screenshot(path=str(shots / f"ok_{shot.name}"))
    return cuts, slides


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_every_slide_fits_the_screen(browser: Any, decks: list[Path], screenshots: Path,
                                     size: tuple[int, int]) -> None:
    """Content beyond the screen must be reachable by a visible scrollbar; nothing may be cut at all sideways
    unless a visible scrollbar reaches it. No slide may need scrolling at all (a class sees the whole slide), and
    no text may lie under reveal.js's arrows or slide number. Screenshots of every cut, scrolling or covered slide
    (and a sample of good ones) are kept in _build/screenshots/static/<size>/, the list in report.txt there, the
    slides that scroll in scrolling.txt."""
    shots = screenshots / "static" / f"{size[0]}x{size[1]}"
    shutil.rmtree(shots, ignore_errors=True)
    shots.mkdir(parents=True)
    lines, cuts, total, scrolling, covered = [], [], 0, [], []
    for deck in decks:
        found, slides = _cut_slides(browser, deck, size, shots, scrolling, covered)
        total += slides
        cuts += found
        lines.append(f"{deck.name}: {len(found)} of {slides} slides cut")
        lines += [f"  {cut}" for cut in found]
    report = f"{size[0]}x{size[1]}: {len(cuts)} of {total} slides cut\n" + "\n".join(lines)
    (shots / "report.txt").write_text(report + "\n", encoding="utf-8")
    (shots / "scrolling.txt").write_text("\n".join(scrolling) + "\n", encoding="utf-8")
    print(report)
    assert not cuts, report
    assert not scrolling, "slides that scroll (split them into sub-slides):\n" + "\n".join(scrolling)
    assert not covered, "text under reveal.js's controls:\n" + "\n".join(covered)


# Every figure of the present slide: where it is drawn (screen px) and its PNG (a data: URL, as nbconvert embeds it).
FIGURES_JS = """() => [...[...document.querySelectorAll('.reveal .slides section.present')].pop()
    .querySelectorAll('.jp-RenderedImage img')]
    .filter(img => !img.closest('.jupyter-widgets') && img.getBoundingClientRect().width > 0)
    .map(img => ({src: img.src, shown: img.getBoundingClientRect().width, natural: img.naturalWidth,
                  cell: (img.closest('[id^="cell-id="]') || {id: ''}).id.slice('cell-id='.length)}))"""
MIN_FIGURE_TEXT_PX = 14  # the smallest text of a figure, as drawn on a 1280x720 projector


def _smallest_text_px(src: str) -> float | None:
    """What dpteach.plotting recorded in the PNG: its smallest text in pixels of the PNG itself."""
    import base64
    from io import BytesIO

    from PIL import Image

    from dpteach.plotting import SMALLEST_TEXT_KEY

    assert src.startswith("data:image/png;base64,"), src[:40]
    recorded = Image.open(BytesIO(base64.b64decode(src.split(",", 1)[1]))).text.get(SMALLEST_TEXT_KEY)
    return None if recorded is None else float(recorded)


def test_every_figure_is_legible_on_a_1280x720_slide(browser: Any, decks: list[Path], screenshots: Path) -> None:
    """On a 1280x720 projector the smallest text of every figure of every deck is drawn at 14 px or more: the size
    matplotlib drew it at (recorded in the PNG by dpteach.plotting) times the figure's shown/natural width. Every
    figure is listed in _build/screenshots/static/legibility.txt."""
    rows, small, unrecorded = [], [], []
    for deck in decks:
        for name, h, v, page in _every_slide(browser, deck, (1280, 720)):
            for figure in page.evaluate(FIGURES_JS):
                recorded = _smallest_text_px(figure["src"])
                where = f"{name} #/{h}/{v} cell {figure['cell']}"
                if recorded is None:
                    unrecorded.append(where)
                    continue
                px = recorded * figure["shown"] / figure["natural"]
                rows.append((px, where, figure["shown"], figure["natural"]))
                if px < MIN_FIGURE_TEXT_PX:
                    small.append(f"{where}: {px:.1f} px ({figure['shown']:.0f} of {figure['natural']} px wide)")
                    page.screenshot(path=str(screenshots / f"illegible_{name}_{h:02d}-{v}.png"))
    report = [f"{len(rows)} figures; smallest text below {MIN_FIGURE_TEXT_PX} px: {len(small)}"]
    report += [f"{px:5.1f} px  {where} (shown {shown:.0f} of {natural} px)"
               for px, where, shown, natural in sorted(rows)]
    (screenshots / "static").mkdir(parents=True, exist_ok=True)
    (screenshots / "static" / "legibility.txt").write_text("\n".join(report) + "\n", encoding="utf-8")
    print(report[0])
    assert rows, "no figure found in the decks"
    assert not unrecorded, f"figures without a recorded text size (not drawn after plotting.setup()): {unrecorded}"
    assert not small, "figures whose smallest text is too small on a 1280x720 slide:\n" + "\n".join(small)


# The prose of the present slide: every paragraph, list item and table cell of its rendered markdown with text of
# its own, and the size it is drawn at on the screen (its font size times the slide's zoom and reveal.js's scale),
# and whether the slide shows a figure.
BODY_TEXT_JS = """() => {
    const slide = [...document.querySelectorAll('.reveal .slides section.present')].pop();
    const scale = Reveal.getScale() * (parseFloat(slide.style.zoom) || 1);
    const texts = [...slide.querySelectorAll('.jp-RenderedMarkdown :is(p, li, td, th)')]
        .filter(el => el.getBoundingClientRect().width > 0 && [...el.childNodes].some(
            n => n.nodeType === Node.TEXT_NODE && n.textContent.trim()))
        .map(el => ({px: parseFloat(getComputedStyle(el).fontSize) * scale,
                     text: el.textContent.trim().slice(0, 40)}));
    const figure = [...slide.querySelectorAll('.jp-RenderedImage img')].some(img => !img.closest('.jupyter-widgets'));
    return {texts, figure};
}"""
MIN_BODY_TEXT_PX = 18  # prose on a 1280x720 projector


def test_every_slides_prose_is_drawn_at_18_px_or_more(browser: Any, decks: list[Path], screenshots: Path) -> None:
    """On every slide, every paragraph, list item and markdown table cell is drawn at 18 px or more at 1280x720
    (reveal.js zooms a tall slide out, so a dense slide is split rather than shrunk). A figure is drawn for the
    slide and shrinks (down to its 14 px limit) before the slide's text is zoomed out. Every slide's smallest prose
    is listed in _build/screenshots/static/body_text.txt, and each slide below 18 px is kept as a screenshot."""
    rows, small = [], []
    for deck in decks:
        for name, h, v, page in _every_slide(browser, deck, (1280, 720)):
            found = page.evaluate(BODY_TEXT_JS)
            smallest = min(found["texts"], key=lambda t: t["px"], default=None)
            if smallest is None:
                continue
            where = f"{name} #/{h}/{v}{' (figure)' if found['figure'] else ''}"
            rows.append((round(smallest["px"], 1), where, smallest["text"]))
            if round(smallest["px"], 1) < MIN_BODY_TEXT_PX:  # 18.0 is 18, not 17.99...
                small.append(f"{where}: {smallest['px']:.1f} px ({smallest['text']!r})")
                page.screenshot(path=str(screenshots / f"small_prose_{name}_{h:02d}-{v}.png"))
    report = [f"{len(rows)} slides with prose; smallest prose below {MIN_BODY_TEXT_PX} px: {len(small)}"]
    report += [f"{px:5.1f} px  {where}  {text!r}" for px, where, text in sorted(rows)]
    (screenshots / "static").mkdir(parents=True, exist_ok=True)
    (screenshots / "static" / "body_text.txt").write_text("\n".join(report) + "\n", encoding="utf-8")
    print(report[0])
    assert any("(figure)" in where for _, where, _ in rows), "no slide with a figure and prose found"
    assert not small, f"slides whose prose is drawn below {MIN_BODY_TEXT_PX} px:\n" + "\n".join(small)
