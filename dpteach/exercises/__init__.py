"""The course's exercises: ``check("02.2", answer)`` in a notebook's check cell (see :mod:`dpteach.exercises.core`).

Each lesson's exercises, their right answers and the mistakes they must catch live in ``lesson<NN>.py``;
importing this package registers them all in :data:`EXERCISES`.
"""

from dpteach.exercises import (
    lesson01,
    lesson02,
    lesson03,
    lesson04,
    lesson05,
    lesson06,
    lesson07,
    lesson08,
    lesson09,
    lesson10,
    lessonA1,
    lessonA2,
    lessonA3,
)
from dpteach.exercises.core import EXERCISES, RECORDED, Exercise, Mistake, Verdict, check, checker, judge

LESSONS = (lesson01, lesson02, lesson03, lesson04, lesson05, lesson06, lesson07, lesson08, lesson09, lesson10,
           lessonA1, lessonA2, lessonA3)

__all__ = ["EXERCISES", "LESSONS", "RECORDED", "Exercise", "Mistake", "Verdict", "check", "checker", "judge"]
