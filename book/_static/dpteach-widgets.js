// Loaded between require.js and the widget renderer (book/conf.py, nb_ipywidgets_js) on pages with widgets.
(() => {
  // The renderer finds its own files (the icon fonts) beside the page unless require.js knows where it lives.
  const here = document.currentScript.src.replace(/[^/]*$/, "");
  require.config({paths: {"@jupyter-widgets/html-manager/dist": `${here}vendor/html-manager/dist`}});
  // The renderer typesets widget labels with MathJax 2's MathJax.Hub.Queue; the site has MathJax 3.
  const hub = {Queue: (...commands) => {
    for (const command of commands) {
      const element = Array.isArray(command) ? command[2] : null;
      if (element && window.MathJax && MathJax.typesetPromise) MathJax.typesetPromise([element]);
    }
  }};
  const config = window.MathJax || (window.MathJax = {});
  config.Hub = hub;
  const ready = config.startup && config.startup.ready;
  config.startup = {...config.startup, ready() {
    if (ready) ready(); else MathJax.startup.defaultReady();
    MathJax.Hub = hub;
  }};
})();
