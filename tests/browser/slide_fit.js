// What a screenshot of the current slide cannot show, even after scrolling: run by test_static_slides.py.
//
// Every "atom" of the present slide (each line box of text, every image, svg, canvas and form control) is
// clipped by the viewport and by each ancestor whose overflow is not visible. Per axis, an ancestor that a
// person can scroll (overflow auto/scroll, more content than box, a scrollbar of non-zero width) may move the
// atom into its box: the atom counts as reachable if its near edge and its far edge can each be brought inside
// that box's visible part within the scroll range. Clips between the atom and that scroller move with the atom.
// Returns, per axis, how far (screen px) the content that can never be seen reaches beyond what can, and examples.
(tolerance) => {
  const slide = [...document.querySelectorAll('.reveal .slides section.present')].pop();
  if (!slide) return {error: 'no present slide'};
  const vw = window.innerWidth;
  const vh = window.innerHeight;
  const SKIP = 'script, style, aside.notes, .MJX_Assistive_MathML, .MathJax_Preview, .MathJax_SVG_Hidden';

  const styleCache = new Map();
  const style = (e) => {
    if (!styleCache.has(e)) styleCache.set(e, getComputedStyle(e));
    return styleCache.get(e);
  };
  const visible = (el) => {
    for (let e = el; e && e !== document.body; e = e.parentElement) {
      // the folded part of a closed <details> (a solution) is not on the slide until opened
      if (e.tagName === 'DETAILS' && !e.open && e.querySelector(':scope > summary') !== el.closest('summary')) {
        return false;
      }
      const s = style(e);
      if (s.display === 'none' || s.visibility === 'hidden' || parseFloat(s.opacity) === 0) return false;
    }
    return true;
  };

  const atoms = [];
  const walker = document.createTreeWalker(slide, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (!node.nodeValue.trim() || node.parentElement.closest(SKIP) || !visible(node.parentElement)) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    for (const r of range.getClientRects()) {
      if (r.width > 0.5 && r.height > 0.5) {
        atoms.push({r, text: node.nodeValue.trim(), isText: true, clipFrom: node.parentElement});
      }
    }
  }
  for (const el of slide.querySelectorAll('img, svg, canvas, video, iframe, input, select, textarea, button')) {
    if (el.tagName === 'svg' && el.parentElement.closest('svg')) continue;
    if (el.closest(SKIP) || !visible(el)) continue;
    const r = el.getBoundingClientRect();
    // an element's own overflow clips what is inside it, not its border: start the clip chain at its parent
    if (r.width > 0.5 && r.height > 0.5) {
      atoms.push({r, text: '<' + el.tagName.toLowerCase() + '>', isText: false, clipFrom: el.parentElement});
    }
  }

  // The padding box of an element in screen pixels (reveal.js scales the slides with a CSS transform).
  const box = (el) => {
    const b = el.getBoundingClientRect();
    const sx = el.offsetWidth ? b.width / el.offsetWidth : 1;
    const sy = el.offsetHeight ? b.height / el.offsetHeight : 1;
    const left = b.left + el.clientLeft * sx;
    const top = b.top + el.clientTop * sy;
    return {left, top, right: left + el.clientWidth * sx, bottom: top + el.clientHeight * sy, sx, sy};
  };
  const AXES = {
    y: {lo: 'top', hi: 'bottom', ov: 'overflowY', pos: 'scrollTop', full: 'scrollHeight', view: 'clientHeight',
        bar: (e) => e.offsetWidth - e.clientWidth, size: vh},
    x: {lo: 'left', hi: 'right', ov: 'overflowX', pos: 'scrollLeft', full: 'scrollWidth', view: 'clientWidth',
        bar: (e) => e.offsetHeight - e.clientHeight, size: vw},
  };
  const scrollable = (e, a) => {
    const s = style(e);
    const borders = a === AXES.y
      ? parseFloat(s.borderLeftWidth) + parseFloat(s.borderRightWidth)
      : parseFloat(s.borderTopWidth) + parseFloat(s.borderBottomWidth);
    return ['auto', 'scroll'].includes(s[a.ov]) && e[a.full] > e[a.view] + 1 && a.bar(e) - borders > 0;
  };

  // How many screen pixels of the atom can never be seen along one axis.
  const unreachable = (atom, a) => {
    const chain = [];
    for (let e = atom.clipFrom; e && e !== document.documentElement; e = e.parentElement) {
      // overflow does not apply to inline boxes, so they clip nothing
      if (style(e)[a.ov] !== 'visible' && !['inline', 'contents'].includes(style(e).display)) chain.push(e);
    }
    const scroller = chain.find((e) => scrollable(e, a));
    let lo = atom.r[a.lo];
    let hi = atom.r[a.hi];
    let winLo = 0;
    let winHi = a.size;
    let inside = true;  // clips inside the scroller travel with the atom
    for (const e of chain) {
      const b = box(e);
      if (e === scroller) inside = false;
      if (inside) {
        lo = Math.max(lo, b[a.lo]);
        hi = Math.min(hi, b[a.hi]);
      } else {
        winLo = Math.max(winLo, b[a.lo]);
        winHi = Math.min(winHi, b[a.hi]);
      }
    }
    const size = atom.r[a.hi] - atom.r[a.lo];
    if (hi <= lo) return {lost: size, over: size};
    let lost = (lo - atom.r[a.lo]) + (atom.r[a.hi] - hi);
    let dMin = 0;
    let dMax = 0;
    if (scroller) {
      const scale = a === AXES.y ? box(scroller).sy : box(scroller).sx;
      dMin = -scroller[a.pos] * scale;
      dMax = (scroller[a.full] - scroller[a.view] - scroller[a.pos]) * scale;
    }
    // Moving the content by d (screen px) shows the near edge if lo - d >= winLo, the far edge if hi - d <= winHi.
    const before = Math.max(0, winLo - (lo - dMin));
    const after = Math.max(0, (hi - dMax) - winHi);
    // lost: pixels of this atom never seen; over: how far beyond the reachable window it reaches
    return {lost: Math.min(lost + before + after, size), over: Math.max(lost, before, after)};
  };

  const result = {};
  for (const [name, a] of Object.entries(AXES)) {
    let worst = 0;
    const examples = [];
    for (const atom of atoms) {
      const {lost, over} = unreachable(atom, a);
      // A line of text is as tall as its font's ascent plus descent, a little more than its glyphs reach.
      const slack = atom.isText && name === 'y' ? 0.08 * (atom.r.bottom - atom.r.top) : 0;
      if (lost > Math.max(tolerance, slack)) {
        worst = Math.max(worst, over, lost);
        const text = atom.text.replace(/\s+/g, ' ').slice(0, 40);
        if (examples.length < 3) examples.push(`${name}: "${text}" (${Math.round(over)} px)`);
      }
    }
    result[name] = {worst: Math.round(worst), examples};
  }
  result.atoms = atoms.length;
  // Text under reveal.js's navigation arrows or slide number: each line of text, as far as it is on screen inside
  // the slide, that one of them overlaps.
  const controls = [...document.querySelectorAll('.reveal .controls button .controls-arrow, .reveal .slide-number')]
    .filter((e) => visible(e)).map((e) => e.getBoundingClientRect()).filter((r) => r.width > 0 && r.height > 0);
  const shown = slide.getBoundingClientRect();
  result.covered = atoms.filter((atom) => atom.isText).filter((atom) => controls.some((c) => {
    const left = Math.max(atom.r.left, shown.left, 0);
    const right = Math.min(atom.r.right, shown.right, vw);
    const top = Math.max(atom.r.top, shown.top, 0);
    const bottom = Math.min(atom.r.bottom, shown.bottom, vh);
    return left < right && top < bottom && left < c.right && right > c.left && top < c.bottom && bottom > c.top;
  })).slice(0, 3).map((atom) => atom.text.replace(/\s+/g, ' ').slice(0, 40));
  // Not a failure, but a slide to split when there is time: how far (slide px) it scrolls, and its cells.
  result.scrolls = Math.max(0, slide.scrollHeight - slide.clientHeight);
  result.cells = [...slide.querySelectorAll('[id^="cell-id="]')].map((e) => e.id.slice('cell-id='.length));
  result.scrollers = [...slide.querySelectorAll('*')].concat([slide]).filter(
    (e) => scrollable(e, AXES.y) || scrollable(e, AXES.x)).length;
  return result;
}
