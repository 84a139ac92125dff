"""Every exercise of every notebook goes through ``dpteach.exercises``: its folded solution is accepted, every
mistake it declares is rejected (with its hint), malformed answers get a message instead of a traceback, and the
answer never shows in what the check prints.

The notebook test executes each notebook with exercises in a kernel, cell by cell; at each check cell it checks that
the cell as committed gives no verdict of "right", then runs the folded solution's code and the check line and
requires "right".
"""

from __future__ import annotations

import itertools
import math
import tempfile
from collections import Counter
from pathlib import Path

import nbformat
import pytest

from dpteach.course import course_notebooks
from dpteach.exercises import EXERCISES, judge
from dpteach.exercises.core import MESSAGES, Exercise, Function, Mistake, Number, Scale, say
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
    least = 2 if path.name.startswith("A") else 4  # a lesson has four; an optional appendix may have two
    assert len(keys) >= least, f"{path.name} has {len(keys)} exercises; at least {least}"
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


# --- a function that raises on some inputs: a declared mistake is still recognised where both ran --------------

def _halve_or_fail(a: float) -> float:
    if a == 0:
        raise ZeroDivisionError("a is zero")
    return a / 2


RAISING = Exercise(
    "99.1", "double a number",
    (Function(lambda: [(0.0,), (1.0,), (2.0,), (3.0,)], lambda a: 2 * a),),
    (Mistake(lambda a: a * 3, "a triple"), Mistake(_halve_or_fail, "a half")),
)


def test_a_function_that_raises_where_a_mistake_raises_is_recognised() -> None:
    def halve(a: float) -> float:  # the second mistake, written again: raises on 0, like it
        return 1 / a * a * a / 2

    verdict = RAISING.judge(halve)
    assert verdict.status == "not yet" and "a half" in verdict.message
    assert "raised ZeroDivisionError" in verdict.message and "(0.0,)" in verdict.message


def test_a_mistake_is_recognised_on_the_inputs_where_the_function_ran() -> None:
    def triple_but_fails_on_3(a: float) -> float:
        if a == 3:
            raise KeyError("three")
        return 3 * a

    verdict = RAISING.judge(triple_but_fails_on_3)
    assert verdict.status == "not yet" and "a triple" in verdict.message and "KeyError" in verdict.message


def test_a_function_that_raises_elsewhere_is_neither_right_nor_a_mistake() -> None:
    def double_but_fails_on_2(a: float) -> float:  # right where it runs: no mistake to recognise
        if a == 2:
            raise ValueError("two")
        return 2 * a

    def half_but_fails_on_1(a: float) -> float:  # a half where it runs, but raises another type on another input
        if a in (0, 1):
            raise ValueError("small")
        return a / 2

    for answer in (double_but_fails_on_2, half_but_fails_on_1):
        verdict = RAISING.judge(answer)
        assert verdict.status == "invalid" and "cannot be checked" in verdict.message, verdict


def test_lesson_02_3_recognises_slips_written_with_the_notebooks_local() -> None:
    """The notebook's ``local`` is ``max`` over the neighbours, so it raises on a dataset without any."""
    def local(f, x, neighbours):
        return max(abs(f(x) - f(y)) for y in neighbours)

    def replacements(x, universe):
        kept_lists = itertools.combinations(x, len(x) - 1)
        return [k + (v,) for k in kept_lists for v in sorted((Counter(universe) - Counter(k)).elements())
                if sorted(k + (v,)) != sorted(x)]

    def refill_not_in_x(f, universe, n):
        return max(local(f, x, [k + (v,) for k in itertools.combinations(x, n - 1) for v in universe if v not in x])
                   for x in itertools.combinations(universe, n))

    def distinct_values(f, universe, n):
        return max(local(f, x, replacements(x, universe)) for x in itertools.combinations(sorted(set(universe)), n))

    hints = {say(m.hint, "en") for m in EXERCISES["02.3"].mistakes}
    refill = next(h for h in hints if "v not in x" in h)
    distinct = next(h for h in hints if "distinct values" in h)
    for answer, hint in ((refill_not_in_x, refill), (distinct_values, distinct)):
        verdict = judge("02.3", answer)
        assert verdict.status == "not yet" and hint in verdict.message and "ValueError" in verdict.message, verdict


def test_the_private_join_referee_of_0805_is_exact() -> None:
    """Exercise 08.5's referee tries every protected change, brand-new rows included (a review found copies of
    existing rows alone rejected a right answer): it agrees with the private join itself on small random tables."""
    import itertools

    import numpy as np
    import pandas as pd

    from dpteach import transformations as tr
    from dpteach.exercises.lesson08 import A5, B5, largest_join_count_change, read_join_tables

    def joined(users: list[int], purchases: list[int]) -> int:
        frame = lambda ids: pd.DataFrame({"user_id": ids})  # noqa: E731
        return len(tr.private_join(frame(users), frame(purchases), "user_id", A5, B5, protect="row").table)

    def changes(ids: list[int]) -> list[list[int]]:
        return [ids, *(ids[:i] + ids[i + 1:] for i in range(len(ids))), *(ids + [k] for k in range(1, 5))]

    rng = np.random.default_rng(8)
    for _ in range(30):
        users, purchases = ([int(v) for v in rng.integers(1, 4, size=rng.integers(0, 4))] for _ in range(2))
        base = joined(users, purchases)
        brute = max(abs(joined(u, p) - base) for u, p in itertools.product(changes(users), changes(purchases)))
        tables = read_join_tables((pd.DataFrame({"user_id": users}), pd.DataFrame({"user_id": purchases})), "en")
        assert largest_join_count_change(tables) == brute, (users, purchases)
    right = (pd.DataFrame({"user_id": [1, 2, 2]}), pd.DataFrame({"user_id": [1]}))
    assert largest_join_count_change(read_join_tables(right, "en")) == A5 + B5


def test_lesson_02_3_recognises_a_reuse_of_global_by_hand() -> None:
    """``global_by_hand`` loops over the small universe's datasets of three: reused as the answer, it must get its
    hint, not a bare "not right"."""
    U, n = (1, 2, 3, 10), 3
    datasets = list(itertools.combinations(U, n))

    def local(f, x, neighbours):
        return max(abs(f(x) - f(y)) for y in neighbours)

    def removals(x):
        return list(itertools.combinations(x, len(x) - 1))

    def additions(x, universe):
        left = Counter(universe) - Counter(x)
        return [x + (v,) for v in sorted(left.elements())]

    def replacements(x, universe):
        return [y for kept in removals(x) for y in additions(kept, universe) if sorted(y) != sorted(x)]

    def global_by_hand(f, neighbours_of, datasets):
        return max(local(f, x, neighbours_of(x)) for x in datasets)

    def reuse(f, universe, n):
        return global_by_hand(f, lambda x: replacements(x, universe), datasets)

    verdict = judge("02.3", reuse)
    assert verdict.status == "not yet" and "Step 1's `datasets` are the small universe's" in verdict.message, verdict


@pytest.mark.parametrize(("key", "wrong_column_answer"), [("02.1", 19.0), ("02.5", 100.0)])
def test_lesson_02_absence_days_instead_of_school_years_gets_its_hint(key: str, wrong_column_answer: float) -> None:
    """Exercises 1 and 5 ask about `years`; `median_gs` in the notebook uses `days`, whose values are 9.5 / 0.5 = 19
    (exercise 1) and 50 / 0.5 = 100 (exercise 5): the slip must be named, not met with a bare "not yet"."""
    verdict = judge(key, wrong_column_answer)
    assert verdict.status == "not yet" and "that is absence_days" in verdict.message, verdict


def test_the_key_of_10_3_is_the_worst_case_of_sorted_chunks_one_record_chunks_included() -> None:
    """Exercise 10.3's key is the largest number of chunk answers one replacement can change once the data are
    sorted (the loss in multiples of ε), found by trying every dataset of up to 6 records on 4 values. A review found
    the key gave c for chunks of one record, where sorting only reorders the answers and the worst case is 1: the
    naive c must now get its hint, and a solution that handles that case must pass."""
    import math

    from dpteach.exercises.lesson10 import sorted_loss_truth
    from dpteach.saa import contiguous_layout

    def chunk_answers(data: tuple[int, ...], size: int) -> Counter:
        ordered = sorted(data)
        return Counter(tuple(ordered[i:i + size]) for i in range(0, len(ordered), size))

    for n in range(1, 7):
        for k in range(1, n + 1):
            size = contiguous_layout(n, k)[0]
            worst = max(sum((chunk_answers(x, size) - chunk_answers(x[:i] + (v,) + x[i + 1:], size)).values())
                        for x in itertools.combinations_with_replacement(range(4), n) for i in range(n)
                        for v in range(4))
            assert sorted_loss_truth(n, k) == worst, (n, k)

    def right(n_records, n_chunks):
        size = math.ceil(n_records / n_chunks)
        return 1 if size == 1 else math.ceil(n_records / size)

    def naive(n_records, n_chunks):
        return math.ceil(n_records / math.ceil(n_records / n_chunks))

    assert judge("10.3", right).status == "right"
    verdict = judge("10.3", naive)
    assert verdict.status == "not yet" and "one record per chunk" in verdict.message, verdict


@pytest.mark.parametrize("typed", ["(b)", "b)", "b.", " (B) "])
def test_a_choice_copied_with_its_brackets_is_read_as_the_letter(typed: str) -> None:
    assert judge("02.4", typed).status == "right"
    assert judge("02.4", typed.replace("b", "a").replace("B", "A")).status == "not yet"


@pytest.mark.parametrize("typed", ["(e)", "()", "bb", "b or c"])
def test_a_choice_that_names_no_option_stays_invalid(typed: str) -> None:
    assert judge("02.4", typed).status == "invalid"


def test_lesson_02_3_refill_from_set_of_universe_gets_the_multiset_hint() -> None:
    """Refilling from ``set(universe)`` ignores multiplicities (a review found it met a bare "not right")."""
    def local(f, x, neighbours):
        return max(abs(f(x) - f(y)) for y in neighbours)

    def refill_from_set(f, universe, n):
        return max(local(f, x, [k + (v,) for k in itertools.combinations(x, n - 1) for v in set(universe)
                                if sorted(k + (v,)) != sorted(x)])
                   for x in itertools.combinations(universe, n))

    def refill_from_list(f, universe, n):  # the review's variant: the whole list, no set
        return max(local(f, x, [k + (v,) for k in itertools.combinations(x, n - 1) for v in universe])
                   for x in itertools.combinations(universe, n))

    for slip in (refill_from_set, refill_from_list):
        verdict = judge("02.3", slip)
        assert verdict.status == "not yet" and "copies the universe does not hold" in verdict.message, verdict


def test_lesson_02_3_placeholder_reads_as_no_answer_yet() -> None:
    placeholder = judge("02.3", lambda f, universe, n: None)
    assert placeholder.status == "unanswered" and placeholder.message == MESSAGES["unanswered"]["en"]
    partly = judge("02.3", lambda f, universe, n: None if n == 6 else 1.0)  # None on some inputs only
    assert partly.status in {"invalid", "not yet"} and partly.status != "unanswered"


def test_a1_3_and_a1_4_reject_a_function_that_never_sorts() -> None:
    """A review found that A1.3 and A1.4 passed the student's function sorted arrays, so the folded solutions with
    their np.sort line removed were accepted. The checks shuffle every case: written without the sort, each function
    is rejected with the hint to sort first; with it, accepted."""
    import numpy as np

    def sum_unsorted(x, spare, k):
        return max(x[-k:].sum(), -x[:k].sum(), spare[-k:].sum(), -spare[:k].sum())

    def sum_sorted(x, spare, k):
        return sum_unsorted(np.sort(x), np.sort(spare), k)

    def mean_unsorted(x, spare, k):  # the folded solution of A1.4 without its sort line
        f_x, best = np.mean(x), 0.0
        for r in range(min(k, len(x)) + 1):
            first = 1 if r in (0, len(x)) else 0
            for a in range(first, min(k - r, len(spare)) + 1):
                high = np.concatenate([x[r:], spare[len(spare) - a:]])
                low = np.concatenate([x[:len(x) - r], spare[:a]])
                best = max(best, np.mean(high) - f_x, f_x - np.mean(low))
        return best

    def mean_sorted(x, spare, k):
        return mean_unsorted(np.sort(x), np.sort(spare), k)

    for key, unsorted, right in [("A1.3", sum_unsorted, sum_sorted), ("A1.4", mean_unsorted, mean_sorted)]:
        assert judge(key, right).status == "right"
        verdict = judge(key, unsorted)
        assert verdict.status == "not yet" and "sort both first" in verdict.message, (key, verdict)


def test_lesson_05_2_rejects_a_distance_that_is_not_whole() -> None:
    """D counts replacements: a fractional answer within the usual two-decimal tolerance (2.004 for 2) is not
    right, and gets the hint that D is whole; whole numbers given as floats still pass."""
    from dpteach.exercises.lesson05 import NOT_WHOLE

    truth = tuple(int(part.truth()) for part in EXERCISES["05.2"].parts)
    assert judge("05.2", tuple(float(d) for d in truth)).status == "right"
    for answer in ((truth[0] + 0.004, truth[1]), (truth[0], truth[1] - 0.5)):
        for language in ("en", "zh"):
            verdict = judge("05.2", answer, language)
            assert verdict.status == "not yet" and say(NOT_WHOLE, language) in verdict.message, (answer, verdict)


def test_a1_4_names_the_negative_slice_slip() -> None:
    """A review found that A1.4's common slip, ``low = np.concatenate([x[:-r], spare[:a]])`` (empty at r = 0), got
    only a counterexample. It is a declared mistake: its hint names ``x[:-0]`` and the fix ``x[:len(x) - r]``."""
    import numpy as np

    def ls_mean_symmetric(x, spare, k, slip=True):  # the exercise's skeleton, its one line written
        x, spare, f_x, changes = np.sort(x), np.sort(spare), np.mean(x), []
        for r in range(min(k, len(x)) + 1):
            for a in range(1 if r in (0, len(x)) else 0, min(k - r, len(spare)) + 1):
                high = np.concatenate([x[r:], spare[len(spare) - a:]])
                low = np.concatenate([x[:-r] if slip else x[:len(x) - r], spare[:a]])
                changes += [np.mean(high) - f_x, f_x - np.mean(low)]
        return max(changes) if changes else None

    verdict = judge("A1.4", ls_mean_symmetric)
    assert verdict.status == "not yet" and "x[:-0] is empty" in verdict.message, verdict
    assert judge("A1.4", lambda x, spare, k: ls_mean_symmetric(x, spare, k, slip=False)).status == "right"


def test_lesson_06_1_asks_for_the_smallest_epsilon_and_calls_a_looser_one_true() -> None:
    """06.1's answer eps (1 + e^beta)/2 is the smallest epsilon lesson 04's proof gives; eps e^beta is a true but
    looser guarantee, so the prompt asks for the smallest one and the hint says the looser one holds too."""
    from dpteach.exercises.lesson06 import EPSILON_1, PUBLIC_SIZE, _beta, unrepaired

    looser = EPSILON_1 * math.exp(_beta(PUBLIC_SIZE, EPSILON_1))
    assert EPSILON_1 < unrepaired() < looser
    for path in [p for p in WITH_EXERCISES if p.name.startswith("06_")]:
        cells = nbformat.read(path, as_version=4).cells
        prompt = next(c.source for c in cells if c.source.startswith(("### Exercise 1", "### 练习 1")))
        assert "smallest" in prompt or "最小" in prompt, path.name
    for language, words in (("en", "holds too"), ("zh", "也成立")):
        verdict = judge("06.1", looser, language)
        assert verdict.status == "not yet" and words in verdict.message, verdict


def test_lesson_06_1_names_the_printed_value_and_the_missing_epsilon() -> None:
    """The lesson prints the unrepaired epsilon at epsilon = 1 to 4 decimals (1.0113); copied, it gets the hint on
    epsilon = 1. The factor (1 + e^beta)/2 without the leading epsilon gets its own hint. Neither is right."""
    from dpteach.exercises.lesson06 import unrepaired

    for answer, words in ((round(unrepaired(1.0), 4), "ε = 1"), (unrepaired() / 0.5, "multiply it by ε = 0.5")):
        verdict = judge("06.1", answer, "en")
        assert verdict.status == "not yet" and words in verdict.message, (answer, verdict)
    assert judge("06.1", round(unrepaired(), 5), "en").status == "right"


def test_lesson_06_4_names_a_long_case_briefly() -> None:
    """A review found 06.4's feedback printing all 301 ages of its last case. A function wrong on that case only
    gets a short message that still names the case: its size, its first values and its beta."""
    from dpteach.exercises.lesson06 import smooth_median_cases, smooth_median_truth

    data, beta = smooth_median_cases()[-1]
    assert len(data) > 200  # the case this test is about

    def wrong_on_long_data(values, b):
        return smooth_median_truth(values, b) + (1.0 if len(values) > 200 else 0.0)

    for language in ("en", "zh"):
        verdict = judge("06.4", wrong_on_long_data, language)
        assert verdict.status == "not yet", verdict
        assert len(verdict.message) < 300, verdict.message
        assert f"len(data) = {len(data)}" in verdict.message and f"beta = {beta:.6g}" in verdict.message
        assert ", ".join(str(v) for v in data[:3]) in verdict.message, verdict.message
    short = judge("06.4", lambda values, b: smooth_median_truth(values, b) + (len(values) == 3), "en")
    assert "data = (" in short.message and "len(data)" not in short.message, short.message  # short data in full


def test_noise_scales_are_never_accepted_rounded_down() -> None:
    """A Scale part (a noise scale or the sensitivity it is calibrated to) accepts rounding up only: an answer just
    below the exact value would add too little noise, and its message says to round up."""
    scales = [(key, part) for key, exercise in EXERCISES.items() for part in exercise.parts
              if isinstance(part, Scale)]
    assert {key for key, _ in scales} == {"01.2", "01.4", "01.5", "02.1", "02.5", "08.1", "A3.2"}
    for key, part in scales:
        truth, unit = part.truth(), 10.0 ** -(part.decimals or 9)
        assert part.judge(truth, "en") == (True, None), key
        assert part.judge(truth + 0.4 * unit, "en") == (True, None), key
        below, message = part.judge(truth - 0.4 * unit, "en")
        assert not below and "round a noise scale up" in message, key
        assert part.judge(truth - 3 * unit, "en") == (False, None), key


def test_lesson_06_4_names_the_slips_of_its_scaffold() -> None:
    """06.4's scaffold leaves only the ``pairs`` line to write. The likeliest slips in its two ranges, and the
    pairs within the data only, are each recognised with their hint; the solution's ranges are right."""
    def scaffold(i_range, j_range):
        def smooth_median(data, beta):  # the notebook's scaffold with one line filled in
            xs = [0] + sorted(min(max(v, 0), 100) for v in data) + [100]
            m, last = math.ceil(len(data) / 2), len(xs) - 1
            pairs = [(i, j) for i in i_range(m, last) for j in j_range(m, last)]
            assert all(0 <= i <= m <= j <= last for i, j in pairs)
            return max((xs[j] - xs[i]) * math.exp(-beta * (j - i - 1)) for i, j in pairs)
        return smooth_median

    def i_right(m, last):
        return range(m + 1)

    def j_right(m, last):
        return range(m, last + 1)

    assert judge("06.4", scaffold(i_right, j_right), "en").status == "right"
    slips = ((scaffold(lambda m, last: range(m), j_right), "range(m + 1)"),
             (scaffold(i_right, lambda m, last: range(m, last)), "range(m, last + 1)"),
             (scaffold(i_right, lambda m, last: range(m + 1, last + 1)), "j runs from m"),
             (scaffold(lambda m, last: range(1, m + 1), j_right), "i runs from 0"),
             (scaffold(lambda m, last: range(1, m + 1), lambda m, last: range(m, last)), "pad the sorted data"))
    for function, hint in slips:
        verdict = judge("06.4", function, "en")
        assert verdict.status == "not yet" and hint in verdict.message, verdict


def test_a_whole_number_part_refuses_fractions() -> None:
    """A review found 06.2 accepting k = 49.4 for 49 (``decimals=0`` took any answer within half a unit). A part
    with ``decimals=0`` asks for a whole number; the exact value of 05.1 (a size computed from a rounded bound,
    21647.00015) still passes, as does its whole-number rounding."""
    from dpteach.exercises.lesson05 import HOURS_CAP, PUBLISHED_LS
    from dpteach.exercises.lesson06 import SURVEY_BOUND, _beta, survey_final

    final, k = survey_final(_beta(SURVEY_BOUND))
    assert judge("06.2", (round(final, 2), k), "en").status == "right"
    assert judge("06.2", (round(final, 2), k + 0.4), "en").status == "not yet"
    exact = HOURS_CAP / PUBLISHED_LS - 1
    assert judge("05.1", exact, "en").status == "right"
    assert judge("05.1", round(exact), "en").status == "right"
    assert judge("05.1", round(exact) + 0.4, "en").status == "not yet"


def test_a3_2_one_hint_names_both_slips_that_give_its_value() -> None:
    """A3.2: the mean x̄ in place of M(x̄) and the denominator n − k give the same value (both caps saturate at
    u − l by k = 16), so the one declared mistake's hint must name both."""
    from dpteach.exercises import lessonA3

    assert lessonA3.cap_variant(mean_as_top=True) == lessonA3.cap_variant(shift=0) != lessonA3.cap_truth()
    verdict = judge("A3.2", math.ceil(lessonA3.cap_variant(mean_as_top=True) * 1000) / 1000)
    assert verdict.status == "not yet" and "M(x̄)" in verdict.message and "n − k − 1" in verdict.message
