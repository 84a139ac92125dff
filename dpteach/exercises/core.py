"""The course's exercise mechanism: a check names its exercise and passes the student's answer.

``check("02.2", scale_sum)`` looks the exercise up in :data:`EXERCISES`, judges the answer against a value or a
test computed here, out of sight of the notebook, its decks and the website, prints *right* or *not yet* (with a
hint when the answer is a mistake the lesson teaches against) and returns a :class:`Verdict`. Malformed input (a
wrong type, a value outside the universe, a function that returns ``None`` or raises) gets a message saying what
is wrong with it: never a traceback, never the expected answer.

An exercise has one or more **parts** (a number, a choice among options, a function run on several inputs, or an
example that must have a property) and declares at least two **mistakes**: whole wrong answers, each with the hint
the student sees when they give it. ``tests/test_exercises.py`` checks, for every exercise, that its folded
solution in the notebook is accepted and every declared mistake is rejected; ``scripts/grade.py`` grades completed
notebooks with the same checks.
"""

from __future__ import annotations

import math
import numbers
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

Language = Literal["en", "zh"]
LANGUAGES: tuple[Language, ...] = ("en", "zh")
Text = str | Mapping[str, str]
Status = Literal["right", "not yet", "invalid", "unanswered"]

MESSAGES: dict[str, dict[str, str]] = {
    "right": {"en": "right ✔", "zh": "正确 ✔"},
    "not yet": {"en": "not yet ✘: try again", "zh": "还不对 ✘：再试一次"},
    "unanswered": {"en": "no answer yet: replace None and run the cell again",
                   "zh": "还没有答案：把 None 换成你的答案，再运行这个单元"},
    "invalid": {"en": "this answer cannot be checked", "zh": "这个答案无法检查"},
    "parts": {"en": "parts right: {right}", "zh": "正确的部分：{right}"},
    "number": {"en": "expected a number (int or float), got {got}",
               "zh": "应当是一个数（int 或 float），得到的是 {got}"},
    "finite": {"en": "expected a finite number, got {got}", "zh": "应当是一个有限的数，得到的是 {got}"},
    "choice": {"en": "expected one of {options}, got {got}", "zh": "应当是 {options} 之一，得到的是 {got}"},
    "callable": {"en": "expected a function, got {got}", "zh": "应当是一个函数，得到的是 {got}"},
    "raised": {"en": "your function raised {error} on the input {case}",
               "zh": "你的函数在输入 {case} 上抛出了 {error}"},
    "returned": {"en": "your function returned {got} on the input {case}; it should return a number",
                 "zh": "你的函数在输入 {case} 上返回了 {got}；它应当返回一个数"},
    "wrong on": {"en": "on the input {case} your function returns {got}, which is not right",
                 "zh": "在输入 {case} 上你的函数返回 {got}，这不对"},
    "count": {"en": "expected {count} answers, got {got}", "zh": "应当有 {count} 个答案，得到的是 {got}"},
    "values": {"en": "{name} must be a tuple or list of numbers, got {got}",
               "zh": "{name} 应当是由数组成的元组或列表，得到的是 {got}"},
    "size": {"en": "{name} must hold {size} values, it holds {got}", "zh": "{name} 应当有 {size} 个值，它有 {got} 个"},
    "empty": {"en": "{name} is empty: a dataset holds at least one record",
              "zh": "{name} 是空的：数据集至少有一条记录"},
    "outside": {"en": "the universe does not hold {values} (that many times)",
                "zh": "全集里没有（这么多个）{values}"},
    "round up": {"en": "round a noise scale up, never down: {got} is just below the exact value, and less noise "
                       "than that breaks the promise",
                 "zh": "噪声尺度只能向上取整，不能向下：{got} 略小于准确值，噪声比它少就不能兑现隐私承诺"},
}


def say(text: Text, language: Language, **values: object) -> str:
    """``text`` in ``language`` (a plain string is the same in every language), with ``values`` filled in."""
    chosen = text if isinstance(text, str) else text.get(language, text["en"])
    return chosen.format(**values) if values else chosen


def describe(value: object, limit: int = 60) -> str:
    """A short, safe description of a student's value for a message (type and a clipped repr; no memory
    address, so the message is the same on every run)."""
    if callable(value) or " at 0x" in repr(value):
        return f"a {type(value).__name__}"
    text = repr(value)
    text = text if len(text) <= limit else text[: limit - 1] + "…"
    return f"{text} ({type(value).__name__})"


class Invalid(Exception):
    """An answer that cannot be judged: its message (already in the student's language) says why."""


@dataclass(frozen=True)
class Verdict:
    """The outcome of one check: printed for the student, returned for tests and the grader."""

    key: str
    status: Status
    message: str

    @property
    def accepted(self) -> bool:
        return self.status == "right"

    def _ipython_display_(self) -> None:
        """Show nothing: :func:`check` has printed the message already (a check is a cell's last line)."""


@dataclass(frozen=True)
class Failed:
    """A case on which a function gave no number: ``error`` is the exception's type name (``None`` when it returned
    something else) and ``message`` says so in the student's language."""

    error: str | None
    message: str
    returned_none: bool = False


class Unanswered(Invalid):
    """A function that still returns ``None`` everywhere: the placeholder of an exercise not yet attempted."""


class Raised(Invalid):
    """A function that raised on some case: the message names the first such case, ``outcomes`` holds every
    case's outcome, and ``part`` (set by :meth:`Exercise.read`) the index of the part it answers."""

    def __init__(self, message: str, outcomes: tuple[float | Failed, ...]) -> None:
        super().__init__(message)
        self.outcomes = outcomes
        self.part = 0


# ---------------------------------------------------------------------------------------------------------------
# Parts: how one component of an answer is read ("normalised") and compared.
# ---------------------------------------------------------------------------------------------------------------


class Part:
    """One component of an answer. ``read`` turns the student's value into a comparable form or raises
    :class:`Invalid`; ``same`` compares two read forms; ``truth`` is the read form of the right answer."""

    def read(self, answer: object, language: Language) -> object:
        raise NotImplementedError

    def same(self, mine: object, other: object) -> bool:
        return mine == other

    def truth(self) -> object:
        raise NotImplementedError

    def judge(self, mine: object, language: Language) -> tuple[bool, str | None]:
        """Whether the read answer is right, and a message about it where one helps."""
        return self.same(mine, self.truth()), None


def read_number(answer: object, language: Language) -> float:
    """A real, finite number (Python or numpy, a 0-d array included; ``bool`` is not a number here) as a float,
    else :class:`Invalid`."""
    if isinstance(answer, np.ndarray) and answer.ndim == 0:
        answer = answer.item()
    if isinstance(answer, bool | np.bool_) or not isinstance(answer, numbers.Real):
        raise Invalid(say(MESSAGES["number"], language, got=describe(answer)))
    value = float(answer)
    if not math.isfinite(value):
        raise Invalid(say(MESSAGES["finite"], language, got=describe(answer)))
    return value


def read_values(answer: object, name: str, language: Language) -> tuple[float, ...]:
    """A sequence of real numbers named ``name`` (the student's variable), sorted: a multiset, else
    :class:`Invalid`."""
    if isinstance(answer, str | bytes) or not isinstance(answer, Sequence | np.ndarray):
        raise Invalid(say(MESSAGES["values"], language, name=name, got=describe(answer)))
    try:
        return tuple(sorted(read_number(v, language) for v in answer))
    except Invalid as reason:
        raise Invalid(f"{name}: {reason}") from None


def whole(values: Sequence[float]) -> list[float | int]:
    """Values for a message, whole numbers without their ``.0``."""
    return [int(v) if float(v).is_integer() else v for v in values]


def read_sub_multiset(answer: object, name: str, universe: Sequence[float], language: Language,
                      size: int | None = None) -> tuple[float, ...]:
    """A dataset the ``universe`` holds (with multiplicity), of ``size`` records when given, at least one
    otherwise, sorted; else :class:`Invalid` saying what is wrong."""
    values = read_values(answer, name, language)
    if size is not None and len(values) != size:
        raise Invalid(say(MESSAGES["size"], language, name=name, size=size, got=len(values)))
    if not values:
        raise Invalid(say(MESSAGES["empty"], language, name=name))
    outside = Counter(values) - Counter(float(v) for v in universe)
    if outside:
        raise Invalid(say(MESSAGES["outside"], language, values=whole(sorted(outside.elements()))))
    return values


@dataclass(frozen=True)
class Number(Part):
    """A number compared with ``expected()``: the course accepts an answer given exactly or rounded to
    ``decimals`` places (half a unit of the last place, so a correctly rounded answer passes; the course's
    numeric answers are all whole or at least 0.1). ``decimals=0`` asks for a whole number: 49.4 is not 49 (the
    exact value, within ``rtol``, passes too). ``decimals=None`` asks for ``rtol`` instead."""

    expected: Callable[[], float]
    decimals: int | None = 2
    rtol: float = 1e-9

    def read(self, answer: object, language: Language) -> float:
        return read_number(answer, language)

    def same(self, mine: object, other: object) -> bool:
        a, b = float(mine), float(other)  # type: ignore[arg-type]
        if math.isclose(a, b, rel_tol=self.rtol, abs_tol=1e-12):
            return True
        if self.decimals == 0 and not a.is_integer():
            return False
        return self.decimals is not None and abs(a - b) <= 0.5 * 10.0**-self.decimals + 1e-12 * max(1.0, abs(b))

    def truth(self) -> float:
        return float(self.expected())


@dataclass(frozen=True)
class Scale(Number):
    """A noise scale, or the sensitivity it is calibrated to: like :class:`Number`, but an answer rounded *down*
    is not yet right, since it adds less noise than the guarantee needs (within ``rtol`` either way, for floating
    point), and its message says so. Declared mistakes are still recognised when rounded either way."""

    def judge(self, mine: object, language: Language) -> tuple[bool, str | None]:
        value, truth = float(mine), self.truth()  # type: ignore[arg-type]
        if value < truth and not math.isclose(value, truth, rel_tol=self.rtol, abs_tol=1e-12):
            close = self.same(value, truth)
            return False, say(MESSAGES["round up"], language, got=f"{value:g}") if close else None
        return self.same(value, truth), None


@dataclass(frozen=True)
class Choice(Part):
    """One option among ``options`` (case and surrounding spaces ignored, and the brackets or full stop a student
    copies from a list such as "(b)", "b)" or "b.")."""

    options: tuple[str, ...]
    expected: str

    def read(self, answer: object, language: Language) -> str:
        text = answer.strip().lower() if isinstance(answer, str) else None
        if text is not None and text not in self.options and text.strip("().").strip() in self.options:
            text = text.strip("().").strip()
        if text not in self.options:
            raise Invalid(say(MESSAGES["choice"], language, options=", ".join(map(repr, self.options)),
                              got=describe(answer)))
        return text

    def truth(self) -> str:
        return self.expected


@dataclass(frozen=True)
class Function(Part):
    """A function judged on several inputs (``cases()``, each a tuple of arguments) against ``reference``.

    Its read form is the tuple of its outputs, so two functions are "the same" when they agree on every case:
    that is how a student's function is recognised as one of the declared mistakes. Outputs are compared as
    numbers within ``rtol``.
    """

    cases: Callable[[], Sequence[tuple]]
    reference: Callable[..., float]
    rtol: float = 1e-9
    show: Callable[[tuple], str] = repr

    def outcomes(self, answer: Callable[..., object], language: Language) -> tuple[float | Failed, ...]:
        """The function's outcome on every case: a number, or a :class:`Failed` when it raised or returned
        something else (every case is run, so that a mistake can be recognised on the cases that ran)."""
        outcomes: list[float | Failed] = []
        for case in self.cases():
            try:
                output = answer(*case)
            except Exception as error:  # the student's code: report it, never a traceback
                outcomes.append(Failed(type(error).__name__, say(MESSAGES["raised"], language, case=self.show(case),
                                                                 error=f"{type(error).__name__}: {error}")))
                continue
            try:
                outcomes.append(read_number(output, language))
            except Invalid:
                outcomes.append(Failed(None, say(MESSAGES["returned"], language, case=self.show(case),
                                                 got=describe(output)), returned_none=output is None))
        return tuple(outcomes)

    def read(self, answer: object, language: Language) -> tuple[float, ...]:
        if not callable(answer):
            raise Invalid(say(MESSAGES["callable"], language, got=describe(answer)))
        outcomes = self.outcomes(answer, language)
        # None on every case is the notebook's placeholder (`return None`): no answer yet, not a wrong one
        if all(isinstance(o, Failed) and o.returned_none for o in outcomes):
            raise Unanswered(say(MESSAGES["unanswered"], language))
        failed = next((o for o in outcomes if isinstance(o, Failed)), None)
        if failed is None:
            return outcomes  # type: ignore[return-value]
        if failed.error is None:
            raise Invalid(failed.message)
        raise Raised(failed.message, outcomes)

    def agreement(self, mine: Sequence[float | Failed], theirs: Sequence[float | Failed]) -> int:
        """How many cases two outcome tuples share, or 0 when they disagree. They agree when, on every case where
        both returned a number, the numbers match (within ``rtol``), and on every case where both failed, both
        raised the same type of exception; a case where only one of them ran says nothing. The count is of the
        shared cases, and is 0 unless one of them sets ``theirs`` apart from the right answer (a shared raise, or a
        shared number other than the right one): agreeing only where the right answer does too recognises
        nothing."""
        shared, evidence = 0, False
        for got, other, want in zip(mine, theirs, self.truth(), strict=True):
            if isinstance(got, Failed) and isinstance(other, Failed):
                if got.error is None or got.error != other.error:
                    return 0
                shared, evidence = shared + 1, True
            elif isinstance(got, Failed) or isinstance(other, Failed):
                continue
            elif not math.isclose(got, other, rel_tol=self.rtol, abs_tol=1e-12):
                return 0
            else:
                shared += 1
                evidence = evidence or not math.isclose(other, want, rel_tol=self.rtol, abs_tol=1e-12)
        return shared if evidence else 0

    def same(self, mine: object, other: object) -> bool:
        return all(math.isclose(a, b, rel_tol=self.rtol, abs_tol=1e-12)
                   for a, b in zip(mine, other, strict=True))  # type: ignore[call-overload]

    def truth(self) -> tuple[float, ...]:
        return tuple(float(self.reference(*case)) for case in self.cases())

    def judge(self, mine: object, language: Language) -> tuple[bool, str | None]:
        for case, got, want in zip(self.cases(), mine, self.truth(), strict=True):  # type: ignore[call-overload]
            if not math.isclose(got, want, rel_tol=self.rtol, abs_tol=1e-12):
                return False, say(MESSAGES["wrong on"], language, case=self.show(case), got=f"{got:.6g}")
        return True, None


@dataclass(frozen=True)
class Example(Part):
    """An example that must have a property: ``read`` validates and canonicalises it (raising :class:`Invalid`
    with a message), ``test`` returns ``None`` when the example is right, else the reason it is not."""

    reader: Callable[[object, Language], object]
    test: Callable[[object, Language], str | None]

    def read(self, answer: object, language: Language) -> object:
        return self.reader(answer, language)

    def truth(self) -> object:
        return None  # an example has no single right value: judge() decides

    def judge(self, mine: object, language: Language) -> tuple[bool, str | None]:
        reason = self.test(mine, language)
        return reason is None, reason


# ---------------------------------------------------------------------------------------------------------------
# Exercises
# ---------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Mistake:
    """A plausible wrong answer (the whole answer: a tuple when the exercise has several parts) and its hint."""

    answer: object
    hint: Text


@dataclass(frozen=True)
class Exercise:
    """An exercise: its key (``"<notebook>.<number>"``), a short title, its parts and its declared mistakes."""

    key: str
    title: str
    parts: tuple[Part, ...]
    mistakes: tuple[Mistake, ...] = field(default_factory=tuple)

    def split(self, answer: object, language: Language) -> tuple[object, ...]:
        """The answer as one value per part (an exercise with several parts takes a tuple or list)."""
        if len(self.parts) == 1:
            return (answer,)
        if not isinstance(answer, tuple | list) or len(answer) != len(self.parts):
            raise Invalid(say(MESSAGES["count"], language, count=len(self.parts), got=describe(answer)))
        return tuple(answer)

    def read(self, answer: object, language: Language) -> tuple[object, ...]:
        values = []
        for index, (part, value) in enumerate(zip(self.parts, self.split(answer, language), strict=True)):
            try:
                values.append(part.read(value, language))
            except Raised as raised:
                raised.part = index
                raise
        return tuple(values)

    def judge(self, answer: object, language: Language = "en") -> Verdict:
        """Judge ``answer``: right, not yet (with a hint), invalid (with the reason) or unanswered."""
        if unanswered(answer):
            return Verdict(self.key, "unanswered", say(MESSAGES["unanswered"], language))
        try:
            mine = self.read(answer, language)
        except Invalid as reason:
            if isinstance(reason, Unanswered):
                return Verdict(self.key, "unanswered", str(reason))
            hint = self.recognise_raised(answer, reason, language) if isinstance(reason, Raised) else None
            if hint is not None:
                return Verdict(self.key, "not yet", "\n".join([say(MESSAGES["not yet"], language), hint, str(reason)]))
            colon = "：" if language == "zh" else ": "
            return Verdict(self.key, "invalid", f"{say(MESSAGES['invalid'], language)}{colon}{reason}")
        results = [part.judge(value, language) for part, value in zip(self.parts, mine, strict=True)]
        if all(ok for ok, _ in results):
            return Verdict(self.key, "right", say(MESSAGES["right"], language))
        lines = [say(MESSAGES["not yet"], language)]
        hint = self.recognise(mine, language)
        if hint is not None:
            lines.append(hint)
        else:
            lines += [reason for ok, reason in results if not ok and reason]
        if len(self.parts) > 1:
            marks = " ".join("✔" if ok else "✘" for ok, _ in results)
            lines.append(say(MESSAGES["parts"], language, right=marks))
        return Verdict(self.key, "not yet", "\n".join(lines))

    def recognise(self, mine: tuple[object, ...], language: Language) -> str | None:
        """The hint of the first declared mistake the read answer equals, if any."""
        for mistake in self.mistakes:
            try:
                theirs = self.read(mistake.answer, language)
            except Invalid:
                continue
            if all(part.same(a, b) for part, a, b in zip(self.parts, mine, theirs, strict=True)):
                return say(mistake.hint, language)
        return None

    def recognise_raised(self, answer: object, raised: Raised, language: Language) -> str | None:
        """When the student's function raised on some cases: the hint of the declared mistake that agrees with it
        on the most cases (:meth:`Function.agreement`: the same number where both ran, the same type of exception
        where both raised, and at least one such case that sets the mistake apart from the right answer) and
        equals the answer's other parts; ``None`` when none does, so the answer stays one that cannot be
        checked."""
        function = self.parts[raised.part]
        if not isinstance(function, Function):
            return None
        values = self.split(answer, language)
        try:
            others = {i: part.read(values[i], language) for i, part in enumerate(self.parts) if i != raised.part}
        except Invalid:
            return None
        best, hint = 0, None
        for mistake in self.mistakes:
            theirs = self.split(mistake.answer, language)
            if not callable(theirs[raised.part]):
                continue
            try:
                shared = function.agreement(raised.outcomes, function.outcomes(theirs[raised.part], language))
                same = all(self.parts[i].same(mine, self.parts[i].read(theirs[i], language))
                           for i, mine in others.items())
            except Invalid:
                continue
            if same and shared > best:
                best, hint = shared, say(mistake.hint, language)
        return hint


def unanswered(answer: object) -> bool:
    """``None``, or a tuple or list of the student's variables with ``None`` still in it."""
    return answer is None or (isinstance(answer, tuple | list) and any(a is None for a in answer))


EXERCISES: dict[str, Exercise] = {}
RECORDED: dict[str, Verdict] = {}


def register(*exercises: Exercise) -> None:
    """Add exercises to :data:`EXERCISES` (each lesson module registers its own)."""
    for exercise in exercises:
        if exercise.key in EXERCISES:
            raise ValueError(f"exercise {exercise.key!r} is registered twice")
        EXERCISES[exercise.key] = exercise


def judge(key: str, answer: object, language: Language = "en") -> Verdict:
    """The verdict on ``answer`` for exercise ``key``, without printing (for tests and graders)."""
    if key not in EXERCISES:
        raise ValueError(f"key must name a course exercise such as '02.1'; {key!r} is not one")
    if language not in LANGUAGES:
        raise ValueError(f"language must be one of {LANGUAGES}, got {language!r}")
    return EXERCISES[key].judge(answer, language)


def check(key: str, answer: object, language: Language = "en") -> Verdict:
    """Judge ``answer`` for exercise ``key``, print the verdict, record it for grading and return it."""
    verdict = judge(key, answer, language)
    RECORDED[key] = verdict
    print(f"{key} · {verdict.message}")
    return verdict


def checker(language: Language = "en") -> Callable[[str, object], Verdict]:
    """``check`` with its language fixed, for a notebook's set-up cell: ``check = checker("zh")``."""
    if language not in LANGUAGES:
        raise ValueError(f"language must be one of {LANGUAGES}, got {language!r}")

    def check_in_language(key: str, answer: object) -> Verdict:
        return check(key, answer, language)

    return check_in_language
