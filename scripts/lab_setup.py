"""Set JupyterLab up for the course: Chinese text without system fonts, and a presentation mode for a classroom.

    python scripts/lab_setup.py CONFIG_DIR    # `make lab` runs JupyterLab with JUPYTER_CONFIG_DIR=CONFIG_DIR
                                              # and JUPYTER_PATH=CONFIG_DIR/data

It writes, before every start:
- CONFIG_DIR/custom/custom.css (loaded with ``--LabApp.custom_css=True``): the bundled Chinese web font added to
  JupyterLab's font stacks, and type sizes for jupyterlab-slideshow's presentation mode (body text 24 px, code
  20 px; see docs/instructors.md), and the notebook's hidden toolbar kept inside the slide (it kept its width from
  before the deck and ran 62 px past the notebook's right edge: a horizontal scrollbar under every slide at 1280x720);
- CONFIG_DIR/data/labextensions/dpteach-present (found through JUPYTER_PATH): scripts/lab_extension, a prebuilt
  extension that opens every slide at its top and keeps the clicker's keys working after a click on code;
- in the user settings (CONFIG_DIR/lab/user-settings unless told otherwise):
  - jupyterlab-slideshow's ``"active"`` set back to false, so JupyterLab never starts in presentation mode
    (the extension saves ``true`` there while presenting);
  - the keys a presentation clicker sends (PageDown/PageUp, Right/Left) bound to the deck's next and previous
    step also when nothing inside the notebook has the focus (the extension binds them only when a cell has it);
  - no windowing of the notebook (the deck lays out every cell), unless the user chose otherwise;
  - no "get notified about official Jupyter news?" prompt (it sat over the deck's controls) and no update
    check, unless the user chose otherwise.
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

import json5  # comes with JupyterLab (jupyterlab-server reads its settings with it)
from cjk_webfont import lab_css

EXTENSION = Path(__file__).resolve().parent / "lab_extension"
EXTENSION_NAME = "dpteach-present"
PRESENTING = "body[data-jp-deck-mode='presenting']"
# Type sizes while presenting (1280x720 and up).
PRESENTATION_SIZES = {
    "--jp-content-font-size1": "24px",
    "--jp-content-font-size2": "26px",
    "--jp-content-font-size3": "30px",
    "--jp-content-font-size4": "36px",
    "--jp-content-font-size5": "44px",
    "--jp-content-font-size6": "52px",
    "--jp-code-font-size": "20px",
    "--jp-widgets-font-size": "20px",
    "--jp-widgets-inline-height": "36px",
    "--jp-widgets-inline-label-width": "120px",
}
# Nothing focused (a click on the slide's background), or the notebook itself focused.
CLICKER_SELECTORS = (f"{PRESENTING}:not(:focus-within)", f"{PRESENTING} .jp-Notebook:focus")
CLICKER_KEYS = {  # key: (command, arguments)
    "PageDown": ("deck:go", {"direction": "down", "alternate": "forward"}),  # as Space: next fragment, ...
    "PageUp": ("deck:go", {"direction": "up", "alternate": "back"}),
    "ArrowRight": ("deck:forward", {}),
    "ArrowLeft": ("deck:back", {}),
}


# While presenting, long code lines wrap instead of running off the slide's right edge behind a scrollbar.
WRAP_CODE = (f"{PRESENTING} .jp-Notebook .cm-content {{ white-space: pre-wrap; word-break: break-word;"
             " overflow-wrap: anywhere; flex-shrink: 1; min-width: 0; }\n")
# jupyterlab-slideshow keeps the notebook's toolbar, invisible until hovered, along the slide's bottom edge. Its
# children keep the width JupyterLab gave them before the deck started (the side bars then took room from the
# notebook), 62 px wider than the deck's notebook at 1280x720: a horizontal scrollbar under every slide.
CLIP_TOOLBAR = (f"{PRESENTING} .jp-Deck.jp-NotebookPanel > .lm-Widget {{ max-width: 100%; }}\n"
                f"{PRESENTING} .jp-Deck .jp-NotebookPanel-toolbar {{ overflow: hidden; }}\n")


def custom_css() -> str:
    sizes = "".join(f"  {var}: {value};\n" for var, value in PRESENTATION_SIZES.items())
    return lab_css() + f"{PRESENTING} {{\n{sizes}}}\n" + WRAP_CODE + CLIP_TOOLBAR


def _settings(path: Path) -> dict:
    """A user-settings file as JupyterLab writes it: JSON5, with comments (plain JSON would fail on it)."""
    return json5.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def _write(path: Path, value: dict) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=2) + "\n", encoding="utf-8")
    return path


def install(config_dir: Path, settings_dir: Path | None = None, data_dir: Path | None = None) -> list[Path]:
    settings_dir = settings_dir or config_dir / "lab" / "user-settings"
    data_dir = data_dir or config_dir / "data"
    extension = data_dir / "labextensions" / EXTENSION_NAME
    shutil.rmtree(extension, ignore_errors=True)
    shutil.copytree(EXTENSION, extension)
    css = config_dir / "custom" / "custom.css"
    css.parent.mkdir(parents=True, exist_ok=True)
    css.write_text(custom_css(), encoding="utf-8")

    deck = settings_dir / "jupyterlab-slideshow" / "plugin.jupyterlab-settings"
    _write(deck, {**_settings(deck), "active": False})

    shortcuts = settings_dir / "@jupyterlab" / "shortcuts-extension" / "shortcuts.jupyterlab-settings"
    current = _settings(shortcuts)
    ours = [{"command": command, "args": args, "keys": [key], "selector": selector}
            for key, (command, args) in CLICKER_KEYS.items() for selector in CLICKER_SELECTORS]
    mine = [b for b in current.get("shortcuts", []) if b not in ours]
    _write(shortcuts, {**current, "shortcuts": mine + ours})

    tracker = settings_dir / "@jupyterlab" / "notebook-extension" / "tracker.jupyterlab-settings"
    _write(tracker, {"windowingMode": "none", **_settings(tracker)})

    notification = settings_dir / "@jupyterlab" / "apputils-extension" / "notification.jupyterlab-settings"
    _write(notification, {"fetchNews": "false", "checkForUpdates": False, **_settings(notification)})
    return [css, extension, deck, shortcuts, tracker, notification]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("config_dir", type=Path, help="the JUPYTER_CONFIG_DIR JupyterLab runs with")
    parser.add_argument("--settings-dir", type=Path, help="JupyterLab's user settings (default: under CONFIG_DIR)")
    parser.add_argument("--data-dir", type=Path, help="JUPYTER_PATH of JupyterLab (default: CONFIG_DIR/data)")
    args = parser.parse_args(argv)
    print(*install(args.config_dir, args.settings_dir, args.data_dir), sep="\n")


if __name__ == "__main__":
    main()
