"""Real-browser fixtures: Debian's Chromium driven by Playwright (no browser download), JupyterLab on loopback.

These tests need `playwright` (pip) and `/usr/bin/chromium` (Debian). Without them they are skipped, unless
DPTEACH_REQUIRE_BROWSER=1 (set by `make test-browser`), in which case a missing piece fails the run.
Screenshots go to _build/screenshots/ for a person to look at.
"""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from dpteach.course import course_notebooks

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "_build" / "screenshots"
SLIDES_OUT = ROOT / "_build" / "slides"
CHROMIUM = Path(os.environ.get("DPTEACH_CHROMIUM", "/usr/bin/chromium"))
REQUIRED = os.environ.get("DPTEACH_REQUIRE_BROWSER") == "1"
# As root in a container Chromium needs --no-sandbox; the rest keep it from calling home on a closed network.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-dev-shm-usage",
]
LAB_START_TIMEOUT = 90  # seconds

sys.path.insert(0, str(ROOT / "scripts"))
import cjk_webfont  # noqa: E402

sys.path.pop(0)


def _missing(what: str) -> None:
    if REQUIRED:
        pytest.fail(f"browser tests required (DPTEACH_REQUIRE_BROWSER=1) but {what}", pytrace=False)
    pytest.skip(what)


@pytest.fixture(scope="session")
def screenshots() -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    """One headless Chromium for the session (Playwright gives each launch a fresh, empty profile)."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("playwright is not installed (pip install -e '.[browser]')")
    if not CHROMIUM.exists():
        _missing(f"{CHROMIUM} is missing (apt-get install chromium)")
    with sync_playwright() as pw:
        # Playwright hides scrollbars in headless mode; a person's browser shows them, and the slide tests
        # judge whether a scrollbar is there to reach content beyond the screen.
        chromium = pw.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS,
                                      ignore_default_args=["--hide-scrollbars"], timeout=60_000)
        try:
            yield chromium
        finally:
            chromium.close()


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Lab:
    url: str
    token: str
    root: Path  # the throwaway copy JupyterLab serves
    log: Path
    restart: Callable[[], None]  # stop the server, run the set-up as `make lab` does, start it again

    def notebook_url(self, relative: str) -> str:
        return f"{self.url}lab/tree/{relative}?token={self.token}"


def _wait_until_up(url: str, proc: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + LAB_START_TIMEOUT
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"JupyterLab exited with {proc.returncode}:\n{log.read_text()[-3000:]}", pytrace=False)
        try:
            with urllib.request.urlopen(url, timeout=5) as reply:  # noqa: S310 - loopback only
                if reply.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(0.5)
    pytest.fail(f"JupyterLab did not answer within {LAB_START_TIMEOUT} s:\n{log.read_text()[-3000:]}", pytrace=False)


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is not None:
        return
    os.killpg(proc.pid, signal.SIGTERM)  # the server and the kernels it started share its process group
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=15)


@pytest.fixture(scope="session")
def lab(browser: object) -> Iterator[Lab]:
    """JupyterLab on 127.0.0.1 with a random token, serving a throwaway copy of the course.

    The copy holds dpteach/, notebooks/ and data/, and the kernel imports that dpteach (PYTHONPATH), so
    running a notebook writes its figures into the copy (notebooks/images/ beside the notebook, where
    save_fig writes by default), never into the repository.
    """
    jupyter = Path(sys.executable).parent / "jupyter"
    if not jupyter.exists():
        _missing(f"{jupyter} is missing")
    with tempfile.TemporaryDirectory(prefix="dpteach-lab-") as tmp:
        root = Path(tmp) / "course"
        for folder in ("dpteach", "notebooks", "data"):
            shutil.copytree(ROOT / folder, root / folder,
                            ignore=shutil.ignore_patterns("__pycache__", ".ipynb_checkpoints"))
        home = Path(tmp) / "home"
        env = {
            **os.environ,
            "PYTHONPATH": str(root),
            "HOME": str(home),
            "JUPYTER_CONFIG_DIR": str(home / "config"),
            "JUPYTER_RUNTIME_DIR": str(home / "runtime"),
            "JUPYTERLAB_SETTINGS_DIR": str(home / "settings"),
            "JUPYTERLAB_WORKSPACES_DIR": str(home / "workspaces"),
            "JUPYTER_PATH": str(home / "data"),  # where lab_setup installs the course's presentation extension
            "MPLBACKEND": "module://matplotlib_inline.backend_inline",
        }
        # What `make lab` installs: the Chinese web font in custom.css, the presentation mode's classroom defaults,
        # its extension (every slide opens at its top) and no "get Jupyter news?" prompt, which would cover the
        # deck's controls (a test checks that it does not show).
        sys.path.insert(0, str(ROOT / "scripts"))
        try:
            import lab_setup
        finally:
            sys.path.pop(0)
        port, token = _free_port(), secrets.token_hex(16)
        url, log = f"http://127.0.0.1:{port}/", Path(tmp) / "lab.log"
        procs: list[subprocess.Popen[bytes]] = []

        def start() -> None:
            lab_setup.install(home / "config", home / "settings", home / "data")
            with log.open("ab") as out:
                procs.append(subprocess.Popen(
                    [str(jupyter), "lab", "--no-browser", "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}",
                     "--ServerApp.port_retries=0", f"--IdentityProvider.token={token}",
                     f"--ServerApp.root_dir={root}",
                     "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
                     "--LabApp.extension_manager=readonly", "--LabApp.expose_app_in_browser=True",
                     "--LabApp.custom_css=True",
                     *(["--allow-root"] if os.geteuid() == 0 else [])],
                    cwd=root, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
                ))
            _wait_until_up(f"{url}api/status?token={token}", procs[-1], log)

        def restart() -> None:
            _stop(procs[-1])
            start()

        try:
            start()
            yield Lab(url=url, token=token, root=root, log=log, restart=restart)
        finally:
            for proc in procs:
                _stop(proc)


@pytest.fixture(scope="session")
def decks() -> list[Path]:
    """Build the static decks (the npm downloads are cached in _build/slides/vendor) and list them."""
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import build_slides
    finally:
        sys.path.pop(0)
    build_slides.main(["--out", str(SLIDES_OUT)])
    built = course_notebooks(SLIDES_OUT, ".slides.html")
    assert built, "scripts/build_slides.py built no deck"
    return built


# Each character's width at 100 px in a font stack: Noto Sans CJK draws CJK characters one em wide, a Latin
# font's missing-glyph box is narrower.
MEASURE = """async ([chars, stacks, family]) => {
    await document.fonts.load(`100px "${family}"`, chars.join(''));
    const span = document.createElement('span');
    span.style.cssText = 'position:absolute; font-size:100px; white-space:pre; visibility:hidden';
    document.body.appendChild(span);
    const out = {check: document.fonts.check(`100px "${family}"`, chars.join(''))};
    for (const [name, stack] of Object.entries(stacks)) {
        out[name] = chars.map(c => { span.style.fontFamily = stack; span.textContent = c;
                                     return span.getBoundingClientRect().width; });
    }
    span.remove();
    return out;
}"""


def _assert_no_tofu(page: Any, chars: list[str], stack: str) -> None:
    """Every character draws one em wide in `stack`, and would not without the bundled font.

    Where the stack without the bundled font also draws ideographs full width, the machine has a Chinese system
    font and the check would prove nothing: the test says so instead of passing.
    """
    assert cjk_webfont.FAMILY in stack, f"the text does not use the bundled font: {stack}"
    without = ", ".join(f for f in (s.strip() for s in stack.split(",")) if cjk_webfont.FAMILY not in f)
    widths = page.evaluate(MEASURE, [chars, {"with": stack, "without": without}, cjk_webfont.FAMILY])
    full_width_elsewhere = [c for c, w in zip(chars, widths["without"], strict=True)
                            if abs(w - 100) < 1 and "\u4e00" <= c <= "\u9fff"]  # ideographs only
    assert not full_width_elsewhere, (
        f"this machine has a Chinese system font ({len(full_width_elsewhere)} characters drawn without the bundled"
        " one), so the test cannot tell the bundled font works; run it where `fc-list :lang=zh` is empty")
    tofu = [c for c, w in zip(chars, widths["with"], strict=True) if abs(w - 100) >= 1]
    assert tofu == [], f"{len(tofu)} characters fall back to a missing glyph: {''.join(tofu)}"
    assert widths["check"], "document.fonts.check: the bundled font is not ready for the characters"


@pytest.fixture(scope="session")
def no_tofu() -> Callable[[Any, list[str], str], None]:
    """The check above, for the JupyterLab, deck and website tests of the Chinese edition."""
    return _assert_no_tofu


# Every kind of text that holds Chinese characters on the page, with its computed font: bold and italic spans,
# code, headings and plain text each get their own font matching in the browser (bold CJK text fell back to
# empty boxes while regular text was fine). Up to `limit` distinct characters of each kind.
CJK_KINDS_JS = """([root, limit]) => {
    const cjk = /[\\u2e80-\\u9fff\\uf900-\\ufaff\\ufe30-\\ufe4f\\uff00-\\uffef]/g;
    const kinds = {bold: 'strong, b', italic: 'em, i', code: 'code, pre', h1: 'h1', h2: 'h2',
                   h3: 'h3', text: 'p, li'};
    const out = {};
    for (const [kind, selector] of Object.entries(kinds)) {
        const chars = new Set();
        let style = null;
        let marked = null;
        for (const el of document.querySelectorAll(`${root} :is(${selector})`)) {
            const found = (el.textContent.match(cjk) || []);
            if (!found.length) continue;
            if (!style) {
                const s = getComputedStyle(el);
                style = {family: s.fontFamily, weight: s.fontWeight, style: s.fontStyle};
            }
            const s = getComputedStyle(el);
            if (s.fontFamily !== style.family || s.fontWeight !== style.weight || s.fontStyle !== style.style) continue;
            // the element the in-place check looks at: the first that is laid out (not in a folded solution)
            const box = el.getBoundingClientRect();
            if (!marked && box.width > 0 && box.height > 0 && !el.closest('details:not([open])')
                && el.checkVisibility({checkOpacity: true, checkVisibilityCSS: true})) {
                el.setAttribute('data-dpteach-cjk', kind);
                marked = el;
            }
            found.forEach(c => chars.add(c));
            if (chars.size >= limit) break;
        }
        if (style && !marked) {  // a deck lays out the present slide only: mark the first, the test shows it
            const first = [...document.querySelectorAll(`${root} :is(${selector})`)].find(
                e => (e.textContent.match(cjk) || []).length);
            first.setAttribute('data-dpteach-cjk', kind);
        }
        if (style) out[kind] = {...style, chars: [...chars].slice(0, limit)};
    }
    return out;
}"""

# Two rows of 64 px cells, the characters in the element's own font, then in the bundled font alone (same weight
# and style): the test compares what the browser draws, pixel for pixel.
CJK_ROWS_JS = """async ([kind, family]) => {
    const fonts = [kind.family, `"${family}"`];
    for (const f of fonts) await document.fonts.load(`${kind.style} ${kind.weight} 48px ${f}`, kind.chars.join(''));
    const board = document.createElement('div');
    board.id = 'dpteach-cjk-board';
    board.style.cssText = 'position:fixed; left:0; top:0; z-index:2147483647; background:#fff; padding:0;'
                        + `width:${64 * kind.chars.length}px; line-height:64px; color:#000`;
    for (const f of fonts) {
        const row = document.createElement('div');
        row.style.cssText = 'display:flex; height:64px';
        for (const c of kind.chars) {
            const cell = document.createElement('span');
            cell.textContent = c;
            cell.style.cssText = `display:block; width:64px; height:64px; overflow:hidden; font-size:48px;`
                + `font-family:${f}; font-weight:${kind.weight}; font-style:${kind.style}; text-align:center`;
            row.appendChild(cell);
        }
        board.appendChild(row);
    }
    document.body.appendChild(board);
    await document.fonts.ready;
    await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
}"""


def _ink(cell: Any) -> Any:
    """A glyph's cell cropped to its ink: the two rows' line boxes may sit a pixel apart (their font stacks differ)."""
    from PIL import ImageOps

    inverted = ImageOps.invert(cell)
    return inverted.crop(inverted.getbbox() or (0, 0, 1, 1))


# The box, in page pixels, of the first run of up to six Chinese characters of an element (one line of it).
CJK_RUN_JS = """(el) => {
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const m = /[\\u2e80-\\u9fff\\uf900-\\ufaff\\ufe30-\\ufe4f\\uff00-\\uffef]{1,6}/.exec(node.nodeValue);
        if (!m) continue;
        const range = document.createRange();
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].length);
        const r = range.getClientRects()[0];
        return {x: Math.floor(r.left), y: Math.floor(r.top),
                width: Math.ceil(r.width) + 1, height: Math.ceil(r.height) + 1};
    }
    return null;
}"""


# Wait until fonts, MathJax (in a deck) and two frames have passed.
SETTLE_JS = """async () => {
    await document.fonts.ready;
    if (window.MathJax && MathJax.Hub) await new Promise(r => MathJax.Hub.Queue(r));
    await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
}"""


def ink_difference(a: Any, b: Any) -> float:
    """How differently two screenshots of one text are inked, 0 (alike) to 1: their ink boxes, blurred (a copy
    may sit a fraction of a pixel away) and brought to one size, compared pixel by pixel. The same glyphs measure
    up to about 0.12 (slanted italics clipped by their upright box); boxes against glyphs differ in ink box, 1."""
    from PIL import ImageChops, ImageFilter

    a, b = _ink(a), _ink(b)
    if abs(a.width - b.width) > 3 or abs(a.height - b.height) > 3:
        return 1.0
    size = (max(a.width, b.width), max(a.height, b.height))
    a, b = (im.resize(size).filter(ImageFilter.GaussianBlur(1)) for im in (a, b))
    diff = ImageChops.difference(a, b).histogram()
    return sum(count * level for level, count in enumerate(diff)) / (255 * size[0] * size[1])


def _assert_cjk_drawn_in_every_kind(page: Any, root: str, kinds: tuple[str, ...], limit: int = 24,
                                    show: Callable[[Any], None] | None = None) -> dict:
    """Every kind of text in ``kinds`` (bold, italic, code, h1-h3, text) holds Chinese under ``root``, and each of
    its characters looks exactly as the bundled font draws it at that weight and style, and not like a box
    (distinct characters draw differently). Then, in place: the first element of each kind looks as a fresh copy
    of it does (Chromium kept bold Chinese text as boxes after the font arrived when the font came last in its
    stack, while a copy laid out later was fine). ``show(element)`` brings an element on screen (a deck's slide).
    Returns the kinds found with their fonts, for the message."""
    from io import BytesIO

    from PIL import Image, ImageChops

    found = page.evaluate(CJK_KINDS_JS, [root, limit])
    missing = [k for k in kinds if k not in found]
    assert not missing, f"no Chinese {missing} under {root!r} to check; found {sorted(found)}"
    failures = []
    for name in kinds:
        kind = found[name]
        assert cjk_webfont.FAMILY in kind["family"], f"{name} text does not use the bundled font: {kind['family']}"
        page.evaluate(CJK_ROWS_JS, [kind, cjk_webfont.FAMILY])
        try:
            shot = Image.open(BytesIO(page.locator("#dpteach-cjk-board").screenshot())).convert("L")
        finally:
            page.evaluate("() => document.getElementById('dpteach-cjk-board').remove()")
        scale = shot.width / (64 * len(kind["chars"]))
        boxes = [[(round(64 * i * scale), round(64 * row * scale), round(64 * (i + 1) * scale),
                   round(64 * (row + 1) * scale)) for i in range(len(kind["chars"]))] for row in (0, 1)]
        cells = [[_ink(shot.crop(box)) for box in row] for row in boxes]
        differ = [c for c, a, b in zip(kind["chars"], *cells, strict=True)
                  if a.size != b.size or ImageChops.difference(a, b).getbbox()]
        bundled = {cell.tobytes() for cell in cells[1]}
        if differ:
            failures.append(f"{name} ({kind['weight']} {kind['style']}, {kind['family']}): {''.join(differ)} not drawn"
                            " from the bundled font")
        if len(bundled) < len(kind["chars"]):
            failures.append(f"{name}: {len(kind['chars']) - len(bundled)} characters draw alike (boxes)")
    from io import BytesIO as _BytesIO

    for name in kinds:
        element = page.locator(f"{root} [data-dpteach-cjk='{name}']").first
        try:
            (show or (lambda e: e.scroll_into_view_if_needed(timeout=10_000)))(element)
        except Exception as error:  # noqa: BLE001 - name the kind in the failure
            raise AssertionError(f"{name}: cannot bring {element.evaluate('e => e.outerHTML.slice(0, 200)')} on"
                                 f" screen: {error}") from error
        # The page is left still first (a deck re-zooms a slide when MathJax is done) and the original taken before
        # the copy goes in: inserting the copy lays the original's line out again, which would hide stale boxes.
        page.evaluate(SETTLE_JS)
        shown = Image.open(_BytesIO(page.screenshot(clip=element.evaluate(CJK_RUN_JS)))).convert("L")
        fresh = element.evaluate_handle("(el) => { const c = el.cloneNode(true); c.removeAttribute('data-dpteach-cjk');"
                                        " el.after(c); return c; }")
        try:
            page.evaluate(SETTLE_JS)
            fresh.scroll_into_view_if_needed()
            copy = Image.open(_BytesIO(page.screenshot(clip=fresh.evaluate(CJK_RUN_JS)))).convert("L")
        finally:
            fresh.evaluate("(c) => c.remove()")
        if ink_difference(shown, copy) > 0.25:
            failures.append(f"{name}: the Chinese text on the page ({kind_text(found[name])}) is not drawn as a fresh"
                            f" copy of it is (boxes?): ink difference {ink_difference(shown, copy):.2f}")
    assert not failures, "\n".join(failures)
    return found


def kind_text(kind: dict) -> str:
    return f"{kind['weight']} {kind['style']} {kind['family'][:60]}"


@pytest.fixture(scope="session")
def cjk_in_every_kind() -> Callable[..., dict]:
    """The check above, for the zh deck, the index deck, JupyterLab and the website."""
    return _assert_cjk_drawn_in_every_kind
