// dpteach's helpers for presenting a notebook with jupyterlab-slideshow (scripts/lab_setup.py installs this folder
// as a prebuilt JupyterLab extension; it has no build step and imports nothing, so it needs no npm).
//
// 1. Every slide opens at its top. The slideshow scrolls the active cell into view and focuses it, so a slide
//    taller than the screen opened scrolled to its last cell (its heading or the top of its code out of sight).
//    When the cells on screen change (a new slide), the notebook is scrolled back to the slide's top; stepping
//    through a slide's fragments keeps the slideshow's own scrolling, which brings each new fragment into view.
// 2. A single click on a slide, anywhere but on an input widget, a link or a form control, focuses nothing, as a
//    click on the slide's background does, so the keys a presentation clicker sends still move the deck (a click
//    in the right half of a full-width code cell put the cursor in its editor, and the next key presses moved the
//    cursor instead). The second click of a double click goes through to the editor.
(function () {
  "use strict";

  const ONSCREEN = "jp-deck-mod-onscreen";

  const presenting = () => document.body.getAttribute("data-jp-deck-mode") === "presenting";
  const deckPanel = () => document.querySelector(".jp-Deck.jp-NotebookPanel");

  function toSlideTop(panel) {
    const scroller = panel.querySelector(".jp-WindowedPanel-outer");
    if (scroller) scroller.scrollTop = 0;
  }

  function openSlidesAtTheirTop() {
    let shown = "";
    const check = () => {
      const panel = presenting() && deckPanel();
      if (!panel) {
        shown = "";
        return;
      }
      const cells = panel.querySelectorAll(".jp-Notebook .jp-Cell");
      const now = [...cells].map((c, i) => (c.classList.contains(ONSCREEN) ? i : -1)).filter((i) => i >= 0).join();
      if (now === shown) return;
      shown = now;
      // now, and again once the slide is laid out (its outputs and formulas may change its height)
      toSlideTop(panel);
      requestAnimationFrame(() => requestAnimationFrame(() => toSlideTop(panel)));
    };
    new MutationObserver((records) => {
      if (records.some((r) => r.target === document.body || r.target.classList.contains("jp-Cell"))) check();
    }).observe(document.body, {subtree: true, attributes: true, attributeFilter: ["class", "data-jp-deck-mode"]});
  }

  // What a click may focus while presenting: input widgets, links, form controls, the deck's remote.
  const INTERACTIVE = ".jupyter-widgets, input, select, textarea, button, a[href], summary, label, .jp-Deck-Remote";

  function keepTheKeysAfterAClick(app) {
    document.addEventListener("mousedown", (event) => {
      if (!presenting() || event.button !== 0 || event.detail > 1) return;  // a double click goes through
      const target = event.target instanceof Element ? event.target : null;
      const cell = target && target.closest(".jp-Deck .jp-Notebook .jp-Cell");
      if (!cell || target.closest(INTERACTIVE)) return;
      const notebook = app.shell.currentWidget && app.shell.currentWidget.content;
      if (!notebook || !notebook.node.contains(cell)) return;
      if (notebook.mode === "edit" && cell.classList.contains("jp-mod-active")) return;  // editing it: place the cursor
      event.preventDefault();  // no focus for the editor or the cell
      event.stopPropagation();
      notebook.mode = "command";
      if (document.activeElement instanceof HTMLElement) document.activeElement.blur();
    }, true);
  }

  const plugin = {
    id: "dpteach-present:plugin",
    description: "Each slide opens at its top; a single click on a slide keeps the clicker's keys for the deck.",
    autoStart: true,
    activate: (app) => {
      openSlidesAtTheirTop();
      keepTheKeysAfterAClick(app);
    },
  };

  // The module-federation container JupyterLab expects of a prebuilt extension (see its bootstrap.js).
  const containers = (window._JUPYTERLAB = window._JUPYTERLAB || {});
  containers["dpteach-present"] = {
    init: () => Promise.resolve(),
    get: (module) => (module === "./extension"
      ? Promise.resolve(() => ({__esModule: true, default: plugin}))
      : Promise.reject(new Error(`dpteach-present has no module ${module}`))),
  };
})();
