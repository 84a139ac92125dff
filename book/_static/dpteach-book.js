// The course website's own script (book/conf.py adds it to every page).

// Each figure of a notebook's output opens at full size when clicked, and tells the style sheet its drawn
// width (on a phone a wide figure is shown at 60% of it, in a box that scrolls sideways).
document.addEventListener("DOMContentLoaded", () => {
  for (const img of document.querySelectorAll(".cell_output img")) {
    if (!img.closest("a")) {
      const link = document.createElement("a");
      link.href = img.getAttribute("src");
      link.className = "dpteach-figure-link";
      link.title = "Open the figure at full size";
      img.replaceWith(link);
      link.appendChild(img);
    }
    const natural = () => img.style.setProperty("--dpteach-natural-width", `${img.naturalWidth}px`);
    if (img.complete && img.naturalWidth) natural();
    else img.addEventListener("load", natural, {once: true});
  }
});

// Search excerpts: Sphinx cuts them from each page's HTML as it was served, before MathJax typesets it, so they
// showed raw TeX (\(x\), \max_{...}) and the theme's buttons ("Settings Light Dark"). Formulas become plain text
// and only the article's own text is kept.
const TEX_SYMBOLS = {
  alpha: "α", beta: "β", gamma: "γ", delta: "δ", Delta: "Δ", epsilon: "ε", varepsilon: "ε", eta: "η",
  theta: "θ", lambda: "λ", mu: "μ", pi: "π", rho: "ρ", sigma: "σ", Sigma: "Σ", tau: "τ", xi: "ξ", phi: "φ",
  infty: "∞", le: "≤", leq: "≤", ge: "≥", geq: "≥", ne: "≠", neq: "≠", cdot: "·", times: "×", in: "∈",
  approx: "≈", to: "→", mid: "|", ldots: "…", dots: "…", cdots: "…", sum: "Σ", lfloor: "⌊", rfloor: "⌋",
  lceil: "⌈", rceil: "⌉", left: "", right: "", big: "", Big: "", quad: " ", qquad: " ",
};

function plainMath(tex) {
  return tex
    .replace(/\\[()[\]]/g, "")  // the \( \) \[ \] delimiters
    .replace(/\\([A-Za-z]+)/g, (_, name) => (name in TEX_SYMBOLS ? TEX_SYMBOLS[name] : name))
    .replace(/\\([{}|,;:! ])/g, (_, c) => ("{}|".includes(c) ? c : " "))
    .replace(/[{}]/g, "")
    .replace(/\s+/g, " ")
    .trim();
}

// searchtools.js defines Search after this file runs, and asks for excerpts later still.
document.addEventListener("DOMContentLoaded", () => {
  if (typeof Search === "undefined" || !Search.htmlToText) return;
  const sphinxToText = Search.htmlToText;
  Search.htmlToText = (htmlString, anchor) => {
    const html = new DOMParser().parseFromString(htmlString, "text/html");
    const main = html.querySelector('[role="main"]');
    const article = main && main.querySelector("article");
    if (article) {
      for (const child of [...main.querySelectorAll("*")]) {
        if (!child.contains(article) && !article.contains(child)) child.remove();
      }
    }
    for (const math of html.querySelectorAll(".math")) {
      math.replaceWith(` ${plainMath(math.textContent)} `);
    }
    return sphinxToText(html.documentElement.outerHTML, anchor);
  };
});
