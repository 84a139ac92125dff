"""Execute every notebook of a folder (or the notebooks named) in order, store its outputs, and list the figures it
wrote.

Used by ``make figures``. Each notebook runs top to bottom in a fresh kernel, with its own folder as the working
directory and ``DPTEACH_IMAGES_DIR`` set to the repository's ``images/`` (``save_fig`` would otherwise write
beside the notebook); a failing cell stops the run with the notebook's name and the error.

The stored file depends only on the notebook's code, so running ``make figures`` again leaves ``git status`` empty:

* no timing metadata (``record_timing=False``), and consecutive stream outputs merged (``coalesce_streams``), so
  how the kernel happened to split one ``print`` under load does not show;
* object addresses (``<Styler at 0x7f…>``) and tqdm's rates and clocks, in text outputs and in widget state, are
  written as the sanitisers of ``notebooks/sanitize.cfg`` show them, the same rules nbval applies;
* widget models get ids numbered in the order the outputs reach them, and models no output reaches are dropped
  (static decks still render every widget an output shows).

``tests/test_reproducibility.py`` executes each notebook with :func:`execute` and compares the bytes with the
committed file.
"""

from __future__ import annotations

import configparser
import hashlib
import os
import re
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path

import nbformat
from jupyter_client.manager import KernelManager
from nbclient import NotebookClient

from dpteach.course import course_notebooks

ROOT = Path(__file__).resolve().parent.parent
IMAGES = ROOT / "images"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
MODEL_REFERENCE = re.compile(r"IPY_MODEL_([0-9a-f]{32})")


def sanitisers() -> list[tuple[re.Pattern, str]]:
    """The rules of ``notebooks/sanitize.cfg``: outputs that would otherwise vary from run to run."""
    config = configparser.ConfigParser()
    config.read(ROOT / "notebooks" / "sanitize.cfg")
    return [(re.compile(config[s]["regex"]), config[s]["replace"]) for s in config.sections()]


def _sanitise(text: str | list[str], rules: list[tuple[re.Pattern, str]]) -> str:
    text = "".join(text) if isinstance(text, list) else text
    for pattern, replacement in rules:
        text = pattern.sub(replacement, text)
    return text


def _sanitise_widget_state(state: object, rules: list[tuple[re.Pattern, str]]) -> object:
    """Every string of a widget's state sanitised (a progress bar's label holds tqdm's clock)."""
    if isinstance(state, str):
        return _sanitise(state, rules)
    if isinstance(state, Mapping):
        return {key: _sanitise_widget_state(value, rules) for key, value in state.items()}
    if isinstance(state, list):
        return [_sanitise_widget_state(item, rules) for item in state]
    return state


def _sanitise_outputs(nb: nbformat.NotebookNode) -> None:
    rules = sanitisers()
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            if output.output_type == "stream":
                output.text = _sanitise(output.text, rules)
            elif "data" in output and "text/plain" in output.data:
                output.data["text/plain"] = _sanitise(output.data["text/plain"], rules)
    models = nb.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    for model in models.values():
        model["state"] = _sanitise_widget_state(model["state"], rules)


def _references(state: object) -> list[str]:
    """Model ids a widget's state refers to, in the order its (sorted) fields list them."""
    if isinstance(state, str):
        return MODEL_REFERENCE.findall(state)
    if isinstance(state, Mapping):
        return [ref for key in sorted(state) for ref in _references(state[key])]
    if isinstance(state, list):
        return [ref for item in state for ref in _references(item)]
    return []


def _renumber_widgets(nb: nbformat.NotebookNode, name: str) -> None:
    """Replace the kernel's random widget ids by ids derived from the notebook's name and the order of use."""
    store = nb.metadata.get("widgets", {}).get(WIDGET_STATE)
    if not store:
        return
    models = store["state"]
    shown = [o.data[WIDGET_VIEW]["model_id"] for cell in nb.cells for o in cell.get("outputs", [])
             if WIDGET_VIEW in o.get("data", {})]
    order: list[str] = []
    pending = list(shown)
    while pending:
        model = pending.pop(0)
        if model in models and model not in order:
            order.append(model)
            pending += _references(models[model]["state"])
    new_id = {old: hashlib.md5(f"{name}:{i}".encode()).hexdigest() for i, old in enumerate(order)}
    text = nbformat.writes(nb)
    text = re.sub("|".join(order), lambda m: new_id[m.group(0)], text) if order else text
    renumbered = nbformat.reads(text, as_version=4)
    renumbered.metadata["widgets"][WIDGET_STATE]["state"] = {
        new_id[old]: renumbered.metadata["widgets"][WIDGET_STATE]["state"][new_id[old]] for old in order}
    nb.cells, nb.metadata = renumbered.cells, renumbered.metadata


def execute(notebook: Path, env: Mapping[str, str] | None = None) -> nbformat.NotebookNode:
    """Run ``notebook`` in a fresh kernel (working directory: its folder) and return it, outputs made stable."""
    nb = nbformat.read(notebook, as_version=4)
    # IPC sockets in a private folder: the kernel talks to this process only (no warning about unencrypted
    # TCP), and no socket file is left beside the notebook.
    with tempfile.TemporaryDirectory() as sockets:
        kernel = KernelManager(kernel_name="python3", transport="ipc", ip=str(Path(sockets) / "kernel"))
        client = NotebookClient(nb, km=kernel, timeout=600, record_timing=False, coalesce_streams=True,
                                resources={"metadata": {"path": str(notebook.parent)}})
        try:
            client.execute(env=dict(env) if env is not None else None)
        finally:  # nbclient leaves a kernel manager it was given running: stop the kernel here
            if kernel.has_kernel:
                kernel.shutdown_kernel(now=True)
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
    _sanitise_outputs(nb)
    _renumber_widgets(nb, notebook.name)
    return nb


def snapshot() -> dict[Path, int]:
    return {p: p.stat().st_mtime_ns for p in IMAGES.glob("*.png")}


def run(notebook: Path) -> list[Path]:
    before = snapshot()
    nbformat.write(execute(notebook, env={**os.environ, "DPTEACH_IMAGES_DIR": str(IMAGES)}), notebook)
    after = snapshot()
    return sorted(p for p, mtime in after.items() if before.get(p) != mtime)


def main(targets: list[str]) -> None:
    """Run the notebooks named NN_*.ipynb in each folder of ``targets``, and each notebook file named there."""
    notebooks = []
    for target in map(Path, targets):
        notebooks += [target] if target.suffix == ".ipynb" else course_notebooks(target)
    if not notebooks:
        sys.exit(f"no notebooks named NN_*.ipynb in {' '.join(targets)}")
    total = 0
    for notebook in notebooks:
        start = time.perf_counter()
        written = run(notebook)
        total += len(written)
        print(f"{notebook.name}: executed in {time.perf_counter() - start:.1f} s, wrote {len(written)} figure(s)")
        for path in written:
            print(f"  {path.relative_to(ROOT)}")
    print(f"{len(notebooks)} notebook(s) executed, {total} figure(s) written to images/")


if __name__ == "__main__":
    main(sys.argv[1:] or ["notebooks"])
