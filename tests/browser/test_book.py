"""The course website (`make book`) in a real browser with the network blocked, as a student reads it.

Every page opens from disk without a console error and without asking another host for anything; its formulas
are typeset by the vendored MathJax and no raw TeX is left; every image loads; the site's links all lead
somewhere (the whole site crawled, anchors included); search, served from 127.0.0.1, finds "sensitivity"; the
Chinese edition draws each of its characters with the bundled font. Each notebook page offers its .ipynb and
its deck, folds its solutions, chains to the next page in file order, and shows its figures at a readable size. A
phone held upright follows a page's Slides link and can read the deck.
"""

from __future__ import annotations

import functools
import http.server
import json
import re
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urldefrag, urlparse

import pytest

from dpteach.course import course_notebooks

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "_build" / "book"
sys.path.insert(0, str(ROOT / "scripts"))
import cjk_webfont  # noqa: E402

sys.path.pop(0)

LOCAL_SCHEMES = ("file:", "data:", "blob:", "about:")
TIMEOUT = 30_000  # ms, for every wait below
SCREEN = {"width": 1440, "height": 900}  # a common laptop screen
# A figure shown at less than this share of the size it was drawn at has labels too small to read (the course's
# figures use 11 pt text at 100 dpi: 15 px drawn, 9 px at 0.6).
MIN_FIGURE_SCALE = 0.6
ZH_PAGE = "notebooks/05_propose_test_release.zh.html"


def _notebooks() -> list[Path]:
    return course_notebooks(ROOT / "notebooks")


@pytest.fixture(scope="session")
def site(decks: list[Path]) -> Path:
    """Build the site as `make book` does, after the decks it links to (the decks fixture builds them)."""
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import build_book
    finally:
        sys.path.pop(0)
    build_book.main(["--out", str(SITE)])
    return SITE


def _pages(site: Path) -> list[Path]:
    """Every HTML page of the site itself (the decks and the vendored packages are tested elsewhere)."""
    return sorted(p for p in site.rglob("*.html")
                  if not {site / "slides", site / "_static"} & {*p.parents})


@pytest.fixture(scope="session")
def server(site: Path) -> Iterator[str]:
    """The site over HTTP on 127.0.0.1 (Sphinx's search reads its index with a request that file:// refuses)."""
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(site)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    finally:
        httpd.shutdown()
        httpd.server_close()


class Visit:
    """A fresh browser context that aborts and records every request leaving the machine, and keeps the page's
    console errors and uncaught exceptions."""

    def __init__(self, browser: Any, allowed: tuple[str, ...] = LOCAL_SCHEMES, viewport: dict | None = None,
                 phone: bool = False):
        self.outside: list[str] = []
        self.errors: list[str] = []
        # A phone honours the page's viewport tag (without one it lays a page out 980 px wide), has touch, 2x pixels.
        self.context = browser.new_context(viewport=viewport or SCREEN,
                                           **({"is_mobile": True, "has_touch": True, "device_scale_factor": 2}
                                              if phone else {}))

        def route(route: Any) -> None:
            if route.request.url.startswith(allowed):
                route.continue_()
            else:
                self.outside.append(route.request.url)
                route.abort("internetdisconnected")

        self.context.route("**/*", route)
        self.page = self.context.new_page()
        self.page.set_default_timeout(TIMEOUT)
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))

    def open(self, url: str) -> Any:
        self.page.goto(url, wait_until="load")
        self.page.wait_for_function("() => document.fonts.status === 'loaded'")
        return self.page

    def close(self) -> None:
        self.context.close()


# Wait for MathJax (when the page has math), then report what a reader would see of it.
MATH_JS = """async () => {
    const math = [...document.querySelectorAll('.math')];
    if (math.length && window.MathJax && MathJax.startup) await MathJax.startup.promise;
    const untypeset = math.filter(m => !m.querySelector('mjx-container')).map(m => m.textContent.slice(0, 60));
    const walker = document.createTreeWalker(document.querySelector('main') || document.body, NodeFilter.SHOW_TEXT);
    const raw = [];
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        if (n.parentElement.closest('pre, code, script, style, mjx-container, .math, .highlight')) continue;
        const t = n.textContent;
        if (/\\\\[(\\[]|\\\\begin\\{|\\$[^$\\s][^$]*\\$/.test(t)) raw.push(t.trim().slice(0, 80));
    }
    return {math: math.length, typeset: document.querySelectorAll('mjx-container').length, untypeset, raw,
            mathjax: !!window.MathJax};
}"""

# Make every image load now (none waits for scrolling), then list those that failed.
IMAGES_JS = """async () => {
    const imgs = [...document.images];
    for (const img of imgs) img.loading = 'eager';
    await Promise.all(imgs.map(img => img.decode().catch(() => null)));
    return {count: imgs.length,
            broken: imgs.filter(img => !(img.complete && img.naturalWidth > 0)).map(img => img.src)};
}"""


def test_every_page_loads_offline_with_math_typeset_and_images(browser: Any, site: Path,
                                                              screenshots: Path) -> None:
    pages = _pages(site)
    notebook_pages = [p for p in pages if p.parent.name == "notebooks"]
    assert len(notebook_pages) == len(_notebooks()), f"pages {notebook_pages} for notebooks {_notebooks()}"
    typeset_total = 0
    for path in pages:
        visit = Visit(browser)
        try:
            page = visit.open(path.as_uri())
            if path == site / "index.html":  # leads on to the landing page
                page.wait_for_url("**/notebooks/00_index.html")
                page.wait_for_load_state("load")
            math = page.evaluate(MATH_JS)
            images = page.evaluate(IMAGES_JS)
            name = path.relative_to(site).as_posix()
            assert visit.errors == [], f"{name}: console errors {visit.errors}"
            assert visit.outside == [], f"{name} asked other hosts: {visit.outside}"
            assert math["untypeset"] == [], f"{name}: math left untypeset: {math['untypeset'][:5]}"
            assert math["raw"] == [], f"{name}: raw TeX in the text: {math['raw'][:5]}"
            assert math["typeset"] >= math["math"], f"{name}: {math}"
            assert images["broken"] == [], f"{name}: images that did not load: {images['broken']}"
            typeset_total += math["typeset"]
            if path in notebook_pages:
                assert math["math"] > 0 and math["mathjax"], f"{name}: no math typeset on a notebook page"
                page.screenshot(path=str(screenshots / f"book_{path.stem}.png"))
        finally:
            visit.close()
    print(f"{len(pages)} pages, {typeset_total} formulas typeset")
    assert typeset_total > 100, f"only {typeset_total} formulas typeset in the whole site"


def _is_internal(url: str, site: Path) -> bool:
    return url.startswith("file:") and Path(unquote(urlparse(url).path)).is_relative_to(site)


def test_every_internal_link_resolves(browser: Any, site: Path) -> None:
    """Crawl from index.html: every link into the site names an existing file, every #anchor an existing id."""
    start = (site / "index.html").as_uri()
    queue, seen, ids = [start], {start}, {}
    links: list[tuple[str, str]] = []  # (page, target)
    visit = Visit(browser)
    try:
        while queue:
            url = queue.pop()
            page = visit.open(url)
            if url == start:
                page.wait_for_url("**/notebooks/00_index.html")
                page.wait_for_load_state("load")
            here = urldefrag(page.url).url
            ids[here] = set(page.evaluate("() => [...document.querySelectorAll('[id]')].map(e => e.id)"))
            for target in page.evaluate("() => [...document.querySelectorAll('a[href]')].map(a => a.href)"):
                if not _is_internal(target, site):
                    continue
                links.append((here, target))
                base = urldefrag(target).url.split("?")[0]
                path = Path(unquote(urlparse(base).path))
                crawlable = path.suffix == ".html" and not {site / "slides", site / "_static"} & {*path.parents}
                if crawlable and path.exists() and base not in seen:
                    seen.add(base)
                    queue.append(base)
        assert visit.errors == [] and visit.outside == [], (visit.errors, visit.outside)
    finally:
        visit.close()
    broken, bad_anchor = [], []
    for page, target in links:
        base, fragment = urldefrag(target)
        path = Path(unquote(urlparse(base.split("?")[0]).path))
        if not path.exists():
            broken.append(f"{page} -> {target}")
        elif fragment and base in ids and unquote(fragment) not in ids[base]:
            bad_anchor.append(f"{page} -> {target}")
    crawled = {Path(unquote(urlparse(u).path)) for u in ids}
    print(f"crawled {len(ids)} pages, {len(links)} internal links, {len(broken)} broken, {len(bad_anchor)} bad anchors")
    unreached = {p for p in _pages(site) if p.parent.name == "notebooks"} - crawled
    assert unreached == set(), f"notebook pages no link reaches: {unreached}"
    assert broken == [], f"{len(broken)} of {len(links)} links broken:\n" + "\n".join(broken[:20])
    assert bad_anchor == [], f"{len(bad_anchor)} anchors missing:\n" + "\n".join(bad_anchor[:20])
    assert len(links) > 200, f"only {len(links)} internal links found"


def test_each_notebook_page_has_its_notebook_deck_solutions_and_neighbours(browser: Any, site: Path) -> None:
    """Download and slide links under the title, solutions folded until clicked, prev/next in file order."""
    notebooks = _notebooks()
    visit = Visit(browser)
    try:
        for i, notebook in enumerate(notebooks):
            stem = notebook.stem
            page = visit.open((site / "notebooks" / f"{stem}.html").as_uri())
            links = page.locator(".dpteach-page-links")
            download = links.locator("a.download").get_attribute("href")
            assert download.endswith(f"/{stem}.ipynb"), download
            downloaded = (site / "notebooks" / unquote(download)).resolve()
            assert downloaded.read_bytes() == notebook.read_bytes(), f"{stem}: the download is not the notebook"
            assert links.locator("a.dpteach-slides-link").get_attribute("href") == f"../slides/{stem}.slides.html"
            assert (site / "slides" / f"{stem}.slides.html").is_file()

            expected = json.dumps(json.loads(notebook.read_text(encoding="utf-8"))["cells"]).count("<details")
            details = page.locator("article details")
            assert details.count() == expected, f"{stem}: {details.count()} <details>, notebook has {expected}"
            for k in range(details.count()):
                fold = details.nth(k)
                assert fold.get_attribute("open") is None, f"{stem}: solution {k} starts open"
                hidden = fold.evaluate("(d) => [...d.children].filter(c => c.tagName !== 'SUMMARY')"
                                       ".every(c => !c.checkVisibility())")
                assert hidden, f"{stem}: solution {k} shows its content while folded"
            if expected:
                details.first.locator("summary").click()
                assert details.first.get_attribute("open") is not None
                assert details.first.evaluate("(d) => d.innerText.length") > len("Solution") + 20

            nxt, prev = page.locator("a.right-next"), page.locator("a.left-prev")
            if i + 1 < len(notebooks):
                assert nxt.get_attribute("href") == f"{notebooks[i + 1].stem}.html", f"{stem}: next page"
            else:
                assert nxt.count() == 0
            if i > 0:
                assert prev.get_attribute("href") == f"{notebooks[i - 1].stem}.html", f"{stem}: previous page"
        assert visit.errors == [] and visit.outside == [], (visit.errors, visit.outside)
    finally:
        visit.close()


def test_saved_widgets_render(browser: Any, site: Path) -> None:
    """The explorer widget is drawn from the state the notebook saved (no kernel: it shows, it does not react)."""
    with_widgets = [nb for nb in _notebooks()
                    if json.loads(nb.read_text(encoding="utf-8"))["metadata"].get("widgets")]
    assert with_widgets, "no notebook saved widget state"
    visit = Visit(browser)
    try:
        for notebook in with_widgets:
            page = visit.open((site / "notebooks" / f"{notebook.stem}.html").as_uri())
            page.locator(".jupyter-widgets .widget-slider").first.wait_for(state="visible")
            text = page.locator(".jupyter-widgets .widget-html-content").first.inner_text()
            # the sensitivity explorer (notebooks 02, 03) or the smooth-sensitivity explorer (notebook 04)
            assert text.startswith(("sensitivity = ", "S* = ")), f"{notebook.stem}: {text[:80]}"
        assert visit.errors == [] and visit.outside == [], (visit.errors, visit.outside)
    finally:
        visit.close()


def test_figures_are_shown_at_a_readable_size(browser: Any, site: Path) -> None:
    """On a 1440 px wide screen every output figure is drawn at >= 60% of its size, and links to its full size."""
    scales = {}
    visit = Visit(browser)
    try:
        for notebook in _notebooks():
            page = visit.open((site / "notebooks" / f"{notebook.stem}.html").as_uri())
            page.evaluate(IMAGES_JS)
            for shown, natural, linked in page.evaluate(
                    "() => [...document.querySelectorAll('.cell_output img')].map(i => ["
                    "i.getBoundingClientRect().width, i.naturalWidth, i.closest('a.dpteach-figure-link') !== null])"):
                scales[f"{notebook.stem} ({natural} px)"] = min(shown / natural, 1.0)
                assert linked, f"{notebook.stem}: a figure without a link to its full size"
    finally:
        visit.close()
    assert len(scales) > 20, f"only {len(scales)} figures found"
    small = {name: round(s, 2) for name, s in scales.items() if s < MIN_FIGURE_SCALE}
    print(f"smallest figure scale at {SCREEN['width']} px: {min(scales.values()):.2f}")
    assert small == {}, f"figures shown too small: {small}"


def test_search_finds_sensitivity(browser: Any, server: str, screenshots: Path) -> None:
    visit = Visit(browser, allowed=(*LOCAL_SCHEMES, server))
    try:
        page = visit.open(f"{server}search.html?q=sensitivity")
        page.wait_for_function("() => document.querySelectorAll('#search-results ul.search li').length > 0")
        page.wait_for_function("() => document.querySelector('#search-results p.search-summary')"
                               " && !/Searching/.test(document.querySelector('#search-results h2')?.innerText"
                               " || '')")
        hits = page.evaluate("() => [...document.querySelectorAll('#search-results ul.search li a')]"
                             ".map(a => a.getAttribute('href'))")
        page.screenshot(path=str(screenshots / "book_search.png"))
        pages_hit = {h.split("?")[0].split("#")[0] for h in hits}
        assert {f"notebooks/{nb.stem}.html" for nb in _notebooks() if not nb.stem.endswith(".zh")} <= pages_hit, hits
        assert visit.errors == [], visit.errors
        assert visit.outside == [], f"search asked other hosts: {visit.outside}"
    finally:
        visit.close()


def test_chinese_page_renders_with_the_bundled_font(browser: Any, site: Path, no_tofu: Any,
                                                    screenshots: Path, cjk_in_every_kind: Any) -> None:
    """Every Chinese character the zh page shows has a glyph in the bundled subset and is drawn from it, in every
    weight and style (bold, italic, code, headings, plain text)."""
    visit = Visit(browser)
    try:
        page = visit.open((site / ZH_PAGE).as_uri())
        text = page.evaluate("() => document.body.innerText")
        chars = sorted({c for c in text if cjk_webfont.is_cjk(c)})
        assert len(chars) > 100, f"only {len(chars)} Chinese characters on {ZH_PAGE}"
        missing = set(chars) - cjk_webfont.covered_characters()
        assert not missing, f"not in the bundled font: {''.join(sorted(missing))} (scripts/cjk_webfont.py)"
        page.screenshot(path=str(screenshots / "book_zh.png"))
        for selector in ("article h1", "article p", "article .cell_output pre", ".bd-sidebar-primary nav a"):
            stack = page.locator(selector).first.evaluate("(el) => getComputedStyle(el).fontFamily")
            no_tofu(page, chars, stack)
        cjk_in_every_kind(page, "article", ("bold", "italic", "code", "h1", "h2", "h3", "text"))
        assert visit.errors == [] and visit.outside == [], (visit.errors, visit.outside)
    finally:
        visit.close()


def test_landing_page_screenshot(browser: Any, site: Path, screenshots: Path) -> None:
    """The README's picture of the landing page, taken from this build (copied to images/ by hand)."""
    visit = Visit(browser, viewport={"width": 1280, "height": 800})
    try:
        page = visit.open((site / "index.html").as_uri())
        page.wait_for_url("**/notebooks/00_index.html")
        page.wait_for_load_state("load")
        assert page.evaluate(MATH_JS)["typeset"] > 0
        page.screenshot(path=str(screenshots / "book_landing.png"))
        title = page.locator("article h1").first.inner_text()
        assert re.match(r"00 · Start here", title), title
        assert visit.errors == [] and visit.outside == []
    finally:
        visit.close()


PHONE = {"width": 390, "height": 844}  # a phone held upright
# What runs off a phone's screen: the page's own width, and every laid-out element of the article whose right edge
# passes the screen's without a box of its own that scrolls sideways (a figure's) or clips it.
OFF_PAGE_JS = """() => {
    const vw = document.documentElement.clientWidth;
    const off = [];
    for (const el of document.querySelectorAll('.bd-article *')) {
        const box = el.getBoundingClientRect();
        if (box.width === 0 || box.right <= vw + 0.5 || !el.checkVisibility()) continue;
        let held = false;
        for (let a = el.parentElement; a && !held; a = a.parentElement) {
            held = getComputedStyle(a).overflowX !== 'visible' && a.getBoundingClientRect().right <= vw + 0.5;
        }
        if (!held) off.push(`${el.tagName.toLowerCase()}.${el.className.toString().slice(0, 40)}`
                            + ` to ${Math.round(box.right)} px`);
    }
    const controls = [...document.querySelectorAll('.cell_output .jupyter-widgets :is(select, input, button,'
        + ' .widget-slider, .widget-readout, .widget-label)')]
        .filter(e => e.checkVisibility()).map(e => e.getBoundingClientRect())
        .filter(b => b.width > 0 && (b.left < -0.5 || b.right > vw + 0.5))
        .map(b => [Math.round(b.left), Math.round(b.right)]);
    const figures = [...document.querySelectorAll('.cell_output img')].map(i => {
        const box = i.getBoundingClientRect(), frame = i.parentElement.getBoundingClientRect();
        return {src: i.getAttribute('src').split('/').pop(), scale: box.width / i.naturalWidth, natural: i.naturalWidth,
                frame: [Math.round(frame.left), Math.round(frame.right)],
                scrolls: getComputedStyle(i.parentElement).overflowX === 'auto'};
    });
    return {width: document.documentElement.scrollWidth, vw, off: off.slice(0, 8), controls, figures};
}"""


def test_phone_pages_fit_figures_readable_no_console_warnings(browser: Any, site: Path, screenshots: Path) -> None:
    """At 390x844 every page is as wide as the screen: long names wrap, widgets fit, and each figure is drawn at
    >= 60% of its size (readable labels) in a box of its own that scrolls sideways, inside the screen. No page
    logs a console warning or error (the widget renderer logged six "strict mode" warnings a page)."""
    warnings: dict[str, list[str]] = {}
    figures = 0
    for path in _pages(site):
        visit = Visit(browser, viewport=PHONE)
        visit.page.on("console", lambda m, v=visit: v.errors.append(f"{m.type}: {m.text}")
                      if m.type == "warning" else None)
        try:
            page = visit.open(path.as_uri())
            page.evaluate(IMAGES_JS)
            if page.locator("script[type='application/vnd.jupyter.widget-view+json']").count():
                page.locator(".jupyter-widgets .widget-slider").first.wait_for(state="visible")
            page.wait_for_timeout(300)  # the widget renderer's last layout
            fit = page.evaluate(OFF_PAGE_JS)
            name = path.relative_to(site).as_posix()
            if path.name == Path(ZH_PAGE).name.replace(".zh", ""):  # the book chapter: long names, wide tables
                page.screenshot(path=str(screenshots / f"book_{path.stem[:2]}_390x844.png"))
            assert fit["width"] <= fit["vw"], f"{name}: the page is {fit['width']} px wide on a {fit['vw']} px screen"
            assert fit["off"] == [], f"{name}: runs off the screen: {fit['off']}"
            assert fit["controls"] == [], f"{name}: widget controls cut off at (left, right): {fit['controls']}"
            for figure in fit["figures"]:
                figures += 1
                assert figure["scale"] >= min(0.6, fit["vw"] / figure["natural"]) - 0.005, f"{name}: {figure}"
                assert figure["frame"][0] >= 0 and figure["frame"][1] <= fit["vw"], f"{name}: {figure}"
                if figure["scale"] * figure["natural"] > fit["vw"]:
                    assert figure["scrolls"], f"{name}: a figure wider than the screen in no scrolling box: {figure}"
            if visit.errors:
                warnings[name] = visit.errors
        finally:
            visit.close()
    assert figures > 20, f"only {figures} figures measured"
    assert warnings == {}, f"console warnings or errors: {warnings}"


def test_search_excerpts_are_plain_text(browser: Any, server: str, screenshots: Path) -> None:
    """Each search result's excerpt (cut by Sphinx from the page's HTML over HTTP) shows no raw TeX and none of
    the theme's buttons ("Settings Light Dark")."""
    visit = Visit(browser, allowed=(*LOCAL_SCHEMES, server))
    try:
        page = visit.open(f"{server}search.html?q=sensitivity")
        page.wait_for_function("() => document.querySelector('#search-results p.search-summary')"
                               " && !/Searching/.test(document.querySelector('#search-results h2')?.innerText || '')")
        page.wait_for_function("() => { const li = document.querySelectorAll('#search-results ul.search li');"
                               " return li.length && [...li].every(l => l.querySelector('p.context')); }")
        excerpts = page.evaluate("() => [...document.querySelectorAll('#search-results p.context')]"
                                 ".map(p => p.innerText)")
        page.screenshot(path=str(screenshots / "book_search_excerpts.png"))
        assert len(excerpts) >= 5, excerpts
        tex = [e[:120] for e in excerpts if re.search(r"\\[A-Za-z()\[\]]|\$", e)]
        theme = [e[:120] for e in excerpts if re.search(r"Settings|Light\s+Dark|Color mode", e)]
        assert tex == [], f"raw TeX in excerpts: {tex}"
        assert theme == [], f"the theme's text in excerpts: {theme}"
        assert visit.errors == [], visit.errors
    finally:
        visit.close()


# On the present slide: each line of text as drawn on the phone's screen (its font size in screen px, measured from
# its line box against the same font at 100 px outside the deck, times the page's pinch scale), whether the slide
# scrolls, and where the arrows and the slide's text lie.
DRAWN_TEXT_JS = """() => {
    const slide = [...document.querySelectorAll('.reveal .slides section.present')].at(-1);
    const probe = document.createElement('span');
    document.body.appendChild(probe);
    const lines = [];
    const walker = document.createTreeWalker(slide, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        const el = n.parentElement;
        const skip = '.MathJax, .mjx-chtml, .MJX_Assistive_MathML, .MathJax_Display, table, .jupyter-widgets';
        if (!n.nodeValue.trim() || el.closest(skip)
            || !el.checkVisibility({checkOpacity: true, checkVisibilityCSS: true})) continue;
        const range = document.createRange();
        range.selectNodeContents(n);
        const box = range.getClientRects()[0];
        if (!box || !box.height) continue;
        const s = getComputedStyle(el);
        probe.style.cssText = 'position:absolute; visibility:hidden; white-space:pre; font-size:100px;'
            + `line-height:normal; font-family:${s.fontFamily}; font-weight:${s.fontWeight}; font-style:${s.fontStyle}`;
        probe.textContent = n.nodeValue.trim().slice(0, 12);
        const ref = document.createRange();
        ref.selectNodeContents(probe);
        const drawn = box.height * 100 / ref.getClientRects()[0].height * window.visualViewport.scale;
        lines.push({kind: el.closest('pre') ? 'code' : el.closest('p, li') ? 'body' : 'other',
                    px: Math.round(drawn * 10) / 10, text: n.nodeValue.trim().slice(0, 40),
                    left: box.left, right: box.right, bottom: box.bottom});
    }
    probe.remove();
    const arrows = [...document.querySelectorAll('.reveal .controls button.enabled')]
        .map(b => b.getBoundingClientRect());
    const frame = slide.getBoundingClientRect();
    return {slide: location.hash, vw: document.documentElement.clientWidth,
            pageWidth: document.documentElement.scrollWidth, lines,
            overflow: slide.scrollHeight - slide.clientHeight,
            slideBottom: frame.bottom, arrowsTop: Math.min(...arrows.map(a => a.top)), arrows: arrows.length};
}"""
# Body text is 20 slide px; on a 390 px phone held upright the deck's scale is 0.78 (15.6 px), and a slide a little
# too tall is zoomed out to 85% at least (13.2 px). Code is drawn a little smaller (12.5 px on a zoomed slide).
PHONE_MIN_BODY_PX = 13
PHONE_MIN_CODE_PX = 12
SCROLL_TEST_PX = 60  # a drag of 300 px must scroll such a slide by more than 50 px


def test_deck_from_the_slides_link_is_readable_on_a_phone_held_upright(browser: Any, site: Path,
                                                                       screenshots: Path) -> None:
    """A phone (390x844, touch, pinch scale as the page asks) follows a lesson page's Slides link: on each of its
    first slides (fragments included) body text is drawn at >= 13 px and code at >= 12 px on the screen, no text
    runs past the screen's edges, the arrows lie below the slide, and a slide taller than the screen scrolls under
    a finger (a touch drag up) instead of changing slide (the first slide more than SCROLL_TEST_PX taller than its
    frame, however far: one a few px too tall can only scroll those few px). On the 16:9 layout
    the same text was drawn at ~5 px."""
    # appendix A1: its slides hold code, tables and figures, some taller than a phone (the lessons' slides are cut
    # to fit a 1280x720 screen, and the median table's lesson has none taller than a phone)
    lesson = next(nb for nb in _notebooks() if nb.name.startswith("A1_"))
    visit = Visit(browser, viewport=PHONE, phone=True)
    try:
        page = visit.open((site / "notebooks" / f"{lesson.stem}.html").as_uri())
        page.locator("a.dpteach-slides-link").first.click()
        page.wait_for_selector(".reveal.ready")
        page.wait_for_function("() => window.MathJax && window.MathJax.isReady === true")
        page.evaluate("() => document.fonts.ready")
        body, code, scrolled, seen = [], [], None, set()
        for step in range(60):  # the first 12 steps, then on to the first slide that scrolls
            if step >= 12 and scrolled is not None:
                break
            if step:
                forward = page.locator(".reveal .controls .navigate-right.enabled, .reveal .controls"
                                       " .navigate-down.enabled")
                if not forward.count():
                    break  # the deck's last slide
                forward.last.click()
            page.wait_for_timeout(400)  # the deck lays the step out (fit, MathJax)
            state = page.evaluate(DRAWN_TEXT_JS)
            seen.add(state["slide"])
            if step == 2:
                page.screenshot(path=str(screenshots / "book_deck_390x844.png"))
            where = f"{lesson.stem} deck, slide {state['slide']}"
            assert state["pageWidth"] <= state["vw"] == PHONE["width"], \
                f"{where}: laid out {state['pageWidth']} px wide on a {state['vw']} px screen"
            assert state["arrows"] and state["arrowsTop"] >= state["slideBottom"] - 1, \
                f"{where}: the arrows (top {state['arrowsTop']:.0f} px) lie over the slide (bottom" \
                f" {state['slideBottom']:.0f} px)"
            off = [line["text"] for line in state["lines"] if line["left"] < -0.5 or line["right"] > state["vw"] + 0.5]
            assert off == [], f"{where}: text past the screen's edge: {off}"
            body += [(line["px"], line["text"], where) for line in state["lines"] if line["kind"] == "body"]
            code += [(line["px"], line["text"], where) for line in state["lines"] if line["kind"] == "code"]
            if state["overflow"] > SCROLL_TEST_PX and scrolled is None:
                section = page.locator(".reveal .slides section.present:not(.stack)").last
                box = section.bounding_box()
                x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] * 0.75
                cdp = visit.context.new_cdp_session(page)  # a finger: down, ten moves up 30 px apart, lifted
                cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
                for i in range(1, 11):
                    cdp.send("Input.dispatchTouchEvent",
                             {"type": "touchMove", "touchPoints": [{"x": x, "y": y - 30 * i}]})
                    page.wait_for_timeout(16)
                cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
                page.wait_for_timeout(400)
                scrolled = (section.evaluate("s => s.scrollTop"), page.evaluate("() => location.hash"), where)
                page.screenshot(path=str(screenshots / "book_deck_390x844_scrolled.png"))
        page.screenshot(path=str(screenshots / "book_deck_390x844_last.png"))
        assert len(seen) >= 4 and len(body) > 20 and code, (seen, len(body), len(code))
        small = sorted(b for b in body if b[0] < PHONE_MIN_BODY_PX)[:5]
        assert small == [], f"body text drawn below {PHONE_MIN_BODY_PX} px: {small}"
        small = sorted(c for c in code if c[0] < PHONE_MIN_CODE_PX)[:5]
        assert small == [], f"code drawn below {PHONE_MIN_CODE_PX} px: {small}"
        assert scrolled is not None, "none of the first slides is taller than the phone: the scroll is not checked"
        top, hash_after, where = scrolled
        assert top > 50 and hash_after == where.split("slide ")[1], \
            f"{where}: a touch drag up scrolled the slide by {top} px and left it at {hash_after}"
        print(f"{lesson.stem} at 390x844: body text {min(b[0] for b in body)}-{max(b[0] for b in body)} px,"
              f" code from {min(c[0] for c in code)} px, over {len(seen)} slides")
        assert visit.errors == [] and visit.outside == [], (visit.errors, visit.outside)
    finally:
        visit.close()
