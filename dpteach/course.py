"""The course map: which notebooks make up the course, and the part each belongs to.

Lessons are ``NN_topic.ipynb`` (``00`` is the start page), appendices ``A<N>_topic.ipynb``; a Chinese edition is
``NN_topic.zh.ipynb`` beside its English lesson. Every script and test that walks the course (running the
notebooks, the slide decks, the website and its sidebar, the exercise and reproducibility tests) lists them
through :func:`course_notebooks`, so a new lesson or appendix joins all of them by its file name alone.
"""

from __future__ import annotations

import numbers
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

PATTERNS = ("[0-9][0-9]_*", "A[0-9]_*")
"""Glob patterns (without the suffix) of the course's notebooks: numbered lessons and appendices."""


@dataclass(frozen=True)
class Part:
    """A part of the course: its title and the numbers (``"01"``, ``"A1"``) of the notebooks in it."""

    title: str
    numbers: tuple[str, ...]


PARTS = (
    Part("Start here", ("00",)),
    Part("Part I · Foundations", ("01", "02", "03", "04")),
    Part("Part II · The book's chapter: using local sensitivity safely", ("05", "06", "07")),
    Part("Part III · Practice", ("08", "09", "10")),
    Part("Appendices", ("A1", "A2", "A3")),
)


def course_notebooks(folder: Path, suffix: str = ".ipynb") -> list[Path]:
    """The course's notebooks in ``folder`` (lessons ``NN_*`` then appendices ``A<N>_*``), in file-name order.

    ``suffix`` selects other files named after the notebooks, such as ``".slides.html"`` for the decks.
    """
    if not isinstance(folder, Path):
        raise TypeError(f"folder must be a pathlib.Path, got {type(folder).__name__}")
    found = {p for pattern in PATTERNS for p in folder.glob(pattern + suffix)}
    return sorted(found, key=lambda p: p.name)


def number_of(name: str) -> str:
    """The course number of a notebook or deck file name: ``"03"`` for ``03_local_sensitivity.ipynb``."""
    match = re.match(r"(\d\d|A\d)_", name)
    if match is None:
        raise ValueError(f"name must start with NN_ or A<N>_ (a course notebook), got {name!r}")
    return match.group(1)


def part_of(name: str) -> Part:
    """The part a notebook (by file name) belongs to."""
    number = number_of(name)
    for part in PARTS:
        if number in part.numbers:
            return part
    raise ValueError(f"notebook number {number} of {name!r} is in no part of the course map (dpteach.course.PARTS)")


# --- The lesson format -------------------------------------------------------------------------------------------

MAX_WORDS = 2_200
"""Words of markdown prose in a lesson, outside folded ``<details>`` blocks (solutions, expert notes)."""
MAX_SLIDES = 35
"""Slides and sub-slides of a lesson's deck."""
MIN_EXERCISES = 4
"""Exercises checked through :mod:`dpteach.exercises` (distinct keys of ``check("NN.M", ...)`` calls)."""

_DETAILS = re.compile(r"<details>.*?</details>", re.S)
_CHECK_KEY = re.compile(r"""check\(\s*["'](\w\w\.\d+)["']""")


@dataclass(frozen=True)
class LessonStats:
    """The size of one notebook, measured as the lesson format counts it."""

    words: int
    slides: int
    exercises: int
    longest_code_cell: int

    @property
    def classes(self) -> int:
        """How many one-class lessons this much material fills: the larger of words / 2,200 and slides / 35,
        rounded up (at least 1)."""
        return max(1, -(-self.words // MAX_WORDS), -(-self.slides // MAX_SLIDES))

    def faults(self) -> list[str]:
        """What breaks the lesson format, one phrase each (empty when the notebook fits)."""
        found = []
        if self.words > MAX_WORDS:
            found.append(f"{self.words:,} words > {MAX_WORDS:,}")
        if self.slides > MAX_SLIDES:
            found.append(f"{self.slides} slides > {MAX_SLIDES}")
        if self.exercises < MIN_EXERCISES:
            found.append(f"{self.exercises} exercises < {MIN_EXERCISES}")
        return found


def lesson_stats(notebook: Path) -> LessonStats:
    """Words of prose outside ``<details>``, slides (cells whose slide type is ``slide`` or ``subslide``),
    checked exercises and the longest code cell (non-blank lines) of ``notebook``.

    Words are whitespace-separated tokens, so this counts English editions; a Chinese edition has no word count.
    """
    import json  # noqa: PLC0415 - only this function reads notebooks

    cells = json.loads(Path(notebook).read_text(encoding="utf-8"))["cells"]
    words = slides = longest = 0
    keys: set[str] = set()
    for cell in cells:
        source = "".join(cell["source"])
        kind = cell.get("metadata", {}).get("slideshow", {}).get("slide_type")
        slides += kind in ("slide", "subslide")
        if cell["cell_type"] == "markdown":
            words += len(_DETAILS.sub("", source).split())
        elif cell["cell_type"] == "code":
            longest = max(longest, sum(1 for line in source.splitlines() if line.strip()))
            keys.update(_CHECK_KEY.findall(source))
    return LessonStats(words, slides, len(keys), longest)


HELD_TO_FORMAT = ("01", "02", "03", "04", "05", "06", "07", "08", "09", "10")
"""Lessons that ``tests/test_course.py`` holds to the lesson format; the others are reported with their faults
until they are rewritten (a rewritten lesson joins this tuple)."""


def title_of(notebook: Path) -> str:
    """The notebook's title: its first ``# `` heading, without the ``#``."""
    import json  # noqa: PLC0415

    for cell in json.loads(Path(notebook).read_text(encoding="utf-8"))["cells"]:
        for line in "".join(cell["source"]).splitlines():
            if cell["cell_type"] == "markdown" and line.startswith("# "):
                return line.removeprefix("# ").strip()
    raise ValueError(f"notebook {notebook} has no '# ' title")


MAX_MINUTES = 75
"""The longest time a lesson may state for a student working through it alone (one class)."""

_TIME = re.compile(r"\*{1,2}Time\*{1,2}:?\*{0,2}\s*about\s+(\d+)\s+minutes")
_PREREQUISITES = re.compile(r"\*{1,2}Prerequisites?\*{1,2}:?(.*?)(?:\*{1,2}Time\*{1,2}|\n\n|$)", re.S)
_LINKED_NOTEBOOK = re.compile(r"\]\(((?:\d\d|A\d)_[\w-]+)\.ipynb")


def _opening(notebook: Path) -> str:
    """The markdown cells before the notebook's first code cell, where a lesson states its goals, prerequisites and
    time (the title slide, and the slide after it when the goals fill the first)."""
    import itertools  # noqa: PLC0415
    import json  # noqa: PLC0415

    cells = json.loads(Path(notebook).read_text(encoding="utf-8"))["cells"]
    opening = itertools.takewhile(lambda cell: cell["cell_type"] == "markdown", cells)
    return "\n\n".join("".join(cell["source"]) for cell in opening)


def stated_minutes(notebook: Path) -> int | None:
    """The time the lesson states at its top (``*Time*: about N minutes``), or None if it states none."""
    match = _TIME.search(_opening(notebook))
    return None if match is None else int(match.group(1))


# Any whitespace, a line break included, may separate the words: notebooks wrap their prose at any word.
_PRESENT = re.compile(r"(\d+)(?:\s+minutes)?\s+to\s+present")
_EXTRA = re.compile(r"about\s+(\d+)(?:\s+minutes)?\s+more")


def presenting_minutes(notebook: Path) -> int | None:
    """The time the lesson states at its top for presenting it (``…, 45 to present``), or None if it states none."""
    match = _PRESENT.search(_opening(notebook))
    return None if match is None else int(match.group(1))


def optional_minutes(notebook: Path) -> int | None:
    """The optional time the lesson states at its top beyond :func:`stated_minutes` (``… optional (about 15
    minutes more)``, or A1's Part 2: ``takes about N minutes more``), or None if it states none."""
    match = _EXTRA.search(_opening(notebook))
    return None if match is None else int(match.group(1))


def prerequisites_of(notebook: Path) -> tuple[str, ...]:
    """The course numbers of the notebooks linked from the lesson's *Prerequisites* paragraph, in order of first
    link, or ``()`` when it states none (or names no notebook)."""
    match = _PREREQUISITES.search(_opening(notebook))
    found = [] if match is None else [number_of(name) for name in _LINKED_NOTEBOOK.findall(match.group(1))]
    return tuple(dict.fromkeys(found))


def needs(folder: Path, number: str) -> tuple[str, ...]:
    """The course numbers of every notebook that notebook ``number`` in ``folder`` builds on, directly or through the
    notebooks it builds on (:func:`prerequisites_of`, followed to the end), sorted: what a student must have taken
    before it."""
    notebooks = {number_of(p.name): p for p in course_notebooks(folder) if not p.name.endswith(".zh.ipynb")}
    if number not in notebooks:
        raise ValueError(f"number must be one of the course's notebooks in {folder} ({', '.join(notebooks)}), "
                         f"got {number!r}")
    found: set[str] = set()
    todo = [number]
    while todo:  # each notebook is expanded once, so this ends even if the links formed a cycle
        todo += [n for n in prerequisites_of(notebooks[todo.pop()]) if n not in found and n in notebooks]
        found.update(todo)
    return tuple(sorted(found - {number}))


def duration(minutes: int) -> str:
    """A whole number of minutes as hours and minutes, ``"2 h 25 min"`` for 145 (``"45 min"`` under an hour):
    exact, where a rounded decimal such as 2.4 h is not."""
    if isinstance(minutes, bool) or not isinstance(minutes, numbers.Integral):
        raise TypeError(f"minutes must be a whole number, got {type(minutes).__name__}")
    if minutes < 0:
        raise ValueError(f"minutes must be >= 0, got {minutes}")
    hours, rest = divmod(int(minutes), 60)
    return f"{hours} h {rest} min" if hours else f"{rest} min"


def course_map(folder: Path) -> pd.DataFrame:
    """One row per English lesson and appendix in ``folder``: its part, number, title, the lessons it builds on
    (:func:`prerequisites_of`), the minutes it states (:func:`stated_minutes`), its optional minutes beyond them
    (:func:`optional_minutes`) and its minutes to present (:func:`presenting_minutes`), and its measured size (words,
    slides, checked exercises) with the number of one-class lessons that size fills (:attr:`LessonStats.classes`).
    """
    import pandas as pd  # noqa: PLC0415 - the rest of this module needs no pandas

    rows = []
    for path in course_notebooks(folder):
        if path.name.endswith(".zh.ipynb") or number_of(path.name) == "00":
            continue
        stats = lesson_stats(path)
        rows.append({"part": part_of(path.name).title, "number": number_of(path.name), "notebook": path.name,
                     "title": title_of(path), "builds on": ", ".join(prerequisites_of(path)) or "–",
                     "minutes": stated_minutes(path), "optional": optional_minutes(path),
                     "to present": presenting_minutes(path), "words": stats.words, "slides": stats.slides,
                     "exercises": stats.exercises, "classes": stats.classes})
    table = pd.DataFrame(rows)
    for column in ("minutes", "optional", "to present"):  # whole minutes; <NA> where a notebook states none
        table[column] = table[column].astype("Int64")
    return table


def course_table(folder: Path) -> pd.DataFrame:
    """The map as lesson 00 shows it, indexed by number: each lesson's and appendix's part (without its subtitle),
    title (without its number or an ``(optional …)`` note: the part says it is an appendix), what it builds on, the
    minutes it states, the optional minutes beyond them, the minutes to present it, its checked exercises and the
    classes its size fills (:func:`course_map`)."""
    table = course_map(folder).set_index("number")
    table["part"] = table["part"].str.split(" · ").str[0]
    table["title"] = table["title"].str.split(" · ", n=1).str[1].str.replace(r"\s*\(optional[^)]*\)$", "", regex=True)
    return table[["part", "title", "builds on", "minutes", "optional", "to present", "exercises", "classes"]]
