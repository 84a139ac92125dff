"""Every exercise of every notebook goes through ``dpteach.exercises``: its folded solution is accepted, every
mistake it declares is rejected (with its hint), malformed answers get a message instead of a traceback, and the
answer never shows in what the check prints.

The notebook test executes each notebook with exercises in a kernel, cell by cell; at each check cell it checks that
the cell as committed gives no verdict of "right", then runs the folded solution's code and the check line and
requires "right".
"""

from __future__ import annotations

import math
import tempfile
from pathlib import Path

import nbformat
import pytest

from dpteach.course import course_notebooks
from dpteach.exercises import EXERCISES, judge
from dpteach.exercises.core import Function, Number, say
from dpteach.exercises.notebooks import check_cells, is_solution, kernel, student_version

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = course_notebooks(ROOT / "notebooks")
WITH_EXERCISES = [p for p in NOTEBOOKS if check_cells(nbformat.read(p, as_version=4))]
MALFORMED = [None, "seven", object(), float("nan"), math.inf, True, [], (1, 2, 3, 4, 5), lambda *args: None,
             lambda *args: 1 / 0]


def test_every_lesson_has_exercises_and_every_exercise_is_in_a_notebook() -> None:
    lessons = [p for p in NOTEBOOKS if not p.name.startswith("00_")]
    assert lessons == WITH_EXERCISES, "every lesson has check cells"
    used = {c.key for p in WITH_EXERCISES for c in check_cells(nbformat.read(p, as_version=4))}
    assert used == set(EXERCISES), f"registered, unused: {set(EXERCISES) - used}; unregistered: {used - set(EXERCISES)}"


@pytest.mark.parametrize("path", WITH_EXERCISES, ids=lambda p: p.name)
def test_each_notebook_checks_each_exercise_once_with_a_solution(path: Path) -> None:
    cells = check_cells(nbformat.read(path, as_version=4))
    keys = [c.key for c in cells]
    assert len(keys) == len(set(keys)), f"an exercise is checked twice: {keys}"
    assert len(keys) >= 4, "a lesson has at least four exercises"
    prefix = path.name[:2]
    assert all(key.startswith(prefix + ".") for key in keys), f"keys of {path.name} start with {prefix}."
    assert all(c.solution.strip() for c in cells), "every check cell is followed by a folded solution with code"


@pytest.mark.parametrize("key", sorted(EXERCISES))
def test_every_declared_mistake_is_rejected_with_its_hint(key: str) -> None:
    exercise = EXERCISES[key]
    assert len(exercise.mistakes) >= 2, f"{key} declares {len(exercise.mistakes)} mistakes; at least two"
    for mistake in exercise.mistakes:
        verdict = judge(key, mistake.answer)
        assert verdict.status == "not yet", f"{key}: the mistake {mistake.answer!r} gives {verdict.status}"
        assert say(mistake.hint, "en") in verdict.message, f"{key}: the mistake {mistake.answer!r} is not recognised"


@pytest.mark.parametrize("key", sorted(EXERCISES))
def test_malformed_answers_get_a_message_never_a_traceback(key: str) -> None:
    for answer in MALFORMED:
        for language in ("en", "zh"):
            verdict = judge(key, answer, language)
            assert verdict.status in {"unanswered", "invalid", "not yet"}, (key, answer, verdict)
            assert verdict.message


@pytest.mark.parametrize("key", sorted(EXERCISES))
def test_no_message_shows_the_answer(key: str) -> None:
    exercise = EXERCISES[key]
    truths = [part.truth() for part in exercise.parts if isinstance(part, Number | Function)]
    numbers = [t for truth in truths for t in (truth if isinstance(truth, tuple) else (truth,))]
    shown = {f"{t:.2f}" for t in numbers if abs(t) >= 0.1} | {f"{t:g}" for t in numbers if abs(t) >= 10}
    answers = [m.answer for m in exercise.mistakes] + MALFORMED
    for answer in answers:
        message = judge(key, answer).message
        assert not [s for s in shown if s in message], f"{key}: a message shows the answer: {message}"


@pytest.mark.parametrize("path", WITH_EXERCISES, ids=lambda p: p.name)
def test_student_version_has_no_solutions_and_no_outputs(path: Path) -> None:
    nb = student_version(nbformat.read(path, as_version=4))
    text = nbformat.writes(nb)
    assert not [c for c in nb.cells if is_solution(c)] and "<details><summary>Solution" not in text
    assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code")
    assert [c.key for c in check_cells(nb)] == [c.key for c in check_cells(nbformat.read(path, as_version=4))]


@pytest.mark.parametrize("path", WITH_EXERCISES, ids=lambda p: p.name)
def test_every_folded_solution_passes_its_check_in_the_notebook(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    exercises = {c.index: c for c in check_cells(nb)}
    with tempfile.TemporaryDirectory() as images, kernel(path, Path(images)) as live:
        for index, cell in enumerate(nb.cells):
            if cell.cell_type != "code":
                continue
            _, error = live.run("".join(cell.source))
            assert error is None, f"cell {index} of {path.name} failed: {error}"
            if index in exercises:
                exercise = exercises[index]
                assert live.recorded()[exercise.key] != "right", f"{exercise.key} is right before any answer"
                _, error = live.run(exercise.solution)
                assert error is None, f"the solution of {exercise.key} failed: {error}"
                printed, error = live.run(exercise.check_line)
                assert error is None and live.recorded()[exercise.key] == "right", \
                    f"{exercise.key}: the folded solution is not accepted: {printed}{error or ''}"
