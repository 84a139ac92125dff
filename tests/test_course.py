"""The course map (dpteach.course) and the lesson format: every notebook sits in a part, and every lesson held to
the format fits it (words, slides, exercises); the others are printed with their faults (``pytest -s``)."""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path

import pytest

from dpteach.course import (
    HELD_TO_FORMAT,
    MAX_MINUTES,
    MAX_SLIDES,
    MAX_WORDS,
    MIN_EXERCISES,
    PARTS,
    course_map,
    course_notebooks,
    course_table,
    duration,
    lesson_stats,
    needs,
    number_of,
    optional_minutes,
    part_of,
    prerequisites_of,
    presenting_minutes,
    stated_minutes,
)

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
LESSONS = [p for p in course_notebooks(NOTEBOOKS) if not p.name.endswith(".zh.ipynb") and number_of(p.name) != "00"]


def test_every_notebook_is_in_exactly_one_part_and_the_map_lists_each_lesson() -> None:
    numbers = [n for part in PARTS for n in part.numbers]
    assert len(numbers) == len(set(numbers))
    for path in course_notebooks(NOTEBOOKS):
        part_of(path.name)  # raises for a notebook outside the map
    table = course_map(NOTEBOOKS)
    assert list(table["notebook"]) == [p.name for p in LESSONS]
    assert (table["classes"] >= 1).all()
    shown = course_table(NOTEBOOKS)
    assert list(shown.index) == [number_of(p.name) for p in LESSONS]
    assert list(shown.columns) == ["part", "title", "builds on", "minutes", "optional", "to present", "exercises",
                                   "classes"]
    assert not shown["title"].str.match(r"(\d\d|A\d) ").any() and shown["part"].str.match("Part|Appendices").all()
    assert not shown["title"].str.contains("optional").any(), list(shown["title"])


def test_course_notebooks_finds_lessons_then_appendices_and_nothing_else(tmp_path: Path) -> None:
    for name in ("A1_x.ipynb", "10_y.ipynb", "02_z.ipynb", "02_z.zh.ipynb", "notes.ipynb", "1_w.ipynb"):
        (tmp_path / name).write_text("{}")
    assert [p.name for p in course_notebooks(tmp_path)] == ["02_z.ipynb", "02_z.zh.ipynb", "10_y.ipynb", "A1_x.ipynb"]
    with pytest.raises(TypeError, match="folder"):
        course_notebooks(str(tmp_path))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="NN_"):
        number_of("notes.ipynb")
    with pytest.raises(ValueError, match="no part"):
        part_of("11_unplanned.ipynb")


def test_lesson_stats_counts_prose_outside_details_slides_and_distinct_checks(tmp_path: Path) -> None:
    def cell(kind: str, source: str, slide: str | None = None) -> dict:
        meta = {"slideshow": {"slide_type": slide}} if slide else {}
        return {"cell_type": kind, "metadata": meta, "source": source}

    cells = [cell("markdown", "# Title\n\nfive words of prose here", "slide"),
             cell("markdown", "two words\n<details>not counted at all</details>", "subslide"),
             cell("code", 'x = 1\n\ncheck("02.1", x)\ncheck("02.1", x)\ncheck("02.2", x)', "fragment")]
    path = tmp_path / "02_t.ipynb"
    path.write_text(json.dumps({"cells": cells}))
    stats = lesson_stats(path)
    assert (stats.words, stats.slides, stats.exercises, stats.longest_code_cell) == (9, 2, 2, 4)
    assert stats.faults() == [f"2 exercises < {MIN_EXERCISES}"]


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.stem)
def test_lessons_held_to_the_format_fit_it(lesson: Path) -> None:
    stats = lesson_stats(lesson)
    if number_of(lesson.name) not in HELD_TO_FORMAT:
        held = "an appendix, not held" if lesson.name.startswith("A") else "not yet held to the format"
        print(f"{lesson.name}: {held}; {stats} -> {stats.faults() or 'fits'}")
        return
    assert stats.words <= MAX_WORDS and stats.slides <= MAX_SLIDES and stats.exercises >= MIN_EXERCISES, stats.faults()
    minutes = stated_minutes(lesson)
    assert minutes is not None and minutes <= MAX_MINUTES, f"{lesson.name} states {minutes} minutes (one class: <= 75)"
    number = number_of(lesson.name)
    assert all(earlier < number for earlier in prerequisites_of(lesson)), prerequisites_of(lesson)
    assert number == "01" or prerequisites_of(lesson), f"{lesson.name} links no earlier lesson as a prerequisite"


def test_stated_time_and_prerequisites_are_read_from_the_opening_cells(tmp_path: Path) -> None:
    def notebook(*opening: str) -> Path:
        path = tmp_path / "05_t.ipynb"
        cells = [{"cell_type": "markdown", "metadata": {}, "source": text} for text in opening]
        cells += [{"cell_type": "code", "metadata": {}, "source": "import dpteach", "outputs": []},
                  {"cell_type": "markdown", "metadata": {}, "source": "*Time*: about 99 minutes"}]
        path.write_text(json.dumps({"cells": cells}))
        return path

    lesson = notebook("# 05 · T\n\n*Prerequisites*: [lesson 01](01_a.ipynb) (see [its end](01_a.ipynb#End)) and\n"
                      "[lesson 03](03_b.ipynb). *Time*: about 70 minutes, 40 to present; the notes are optional\n"
                      "(about 10 more).\n\nNext: [lesson 06](06_c.ipynb).")
    assert stated_minutes(lesson) == 70 and prerequisites_of(lesson) == ("01", "03")
    assert presenting_minutes(lesson) == 40 and optional_minutes(lesson) == 10
    bold = notebook("# 05 · T\n\n**Prerequisites**: [A1](A1_x.ipynb), Python.\n**Time**: about 65 minutes alone, "
                    "50 minutes to present. Part 2 takes about 80 minutes more.")
    assert stated_minutes(bold) == 65 and prerequisites_of(bold) == ("A1",)
    assert presenting_minutes(bold) == 50 and optional_minutes(bold) == 80
    split = notebook("# 05 · T\n\n1. a goal;\n2. another.", "**Prerequisites**: [lesson 02](02_b.ipynb).\n"
                     "**Time**: about 75 minutes, 45 to present.")
    assert stated_minutes(split) == 75 and prerequisites_of(split) == ("02",) and presenting_minutes(split) == 45
    silent = notebook("# 05 · T\n\nNo prerequisites stated, and the time only in a later cell.")
    assert stated_minutes(silent) is None and prerequisites_of(silent) == ()
    assert presenting_minutes(silent) is None and optional_minutes(silent) is None


def test_a_statement_broken_across_lines_is_read(tmp_path: Path) -> None:
    path = tmp_path / "A1_t.ipynb"
    opening = ("# A1 · T\n\n*Prerequisites*: [lesson 02](02_b.ipynb).\n*Time*: about\n85 minutes for Part 1; "
               "40 minutes to\npresent. Part 2 takes about 105\nminutes  more.")
    path.write_text(json.dumps({"cells": [{"cell_type": "markdown", "metadata": {}, "source": opening}]}))
    assert (stated_minutes(path), presenting_minutes(path), optional_minutes(path)) == (85, 40, 105)


def test_every_notebook_that_mentions_a_time_to_present_gets_one() -> None:
    for notebook in LESSONS:  # the opening: the markdown cells before the first code cell
        cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
        opening = "".join("".join(c["source"]) for c in itertools.takewhile(lambda c: c["cell_type"] == "markdown",
                                                                          cells))
        if re.search(r"to\s+present", opening):
            assert presenting_minutes(notebook) is not None, notebook.name


def test_needs_follows_the_prerequisites_to_the_end(tmp_path: Path) -> None:
    def lesson(name: str, *links: str) -> None:
        linked = ", ".join(f"[{n}]({n}_x.ipynb)" for n in links)
        source = f"# {name}\n\n*Prerequisites*: {linked}.\n*Time*: about 60 minutes."
        (tmp_path / f"{name}_x.ipynb").write_text(json.dumps({"cells": [{"cell_type": "markdown", "metadata": {},
                                                                          "source": source}]}))

    lesson("01")
    lesson("02", "01")
    lesson("03", "02")
    lesson("04", "01")
    lesson("05", "03", "04")
    assert needs(tmp_path, "05") == ("01", "02", "03", "04")
    assert needs(tmp_path, "04") == ("01",) and needs(tmp_path, "01") == ()
    with pytest.raises(ValueError, match="number"):
        needs(tmp_path, "06")
    assert set(needs(NOTEBOOKS, "10")) >= set(prerequisites_of(NOTEBOOKS / "10_auditing_privacy.ipynb"))


def test_duration_prints_hours_and_minutes_exactly() -> None:
    assert duration(145) == "2 h 25 min" and duration(135) == "2 h 15 min" and duration(45) == "45 min"
    assert duration(120) == "2 h 0 min" and duration(0) == "0 min"
    with pytest.raises(ValueError, match="minutes"):
        duration(-1)
    with pytest.raises(TypeError, match="minutes"):
        duration(2.25)  # type: ignore[arg-type]
