"""The exercises of lesson 05 (propose-test-release): the right answers and the mistakes each one must catch."""

from __future__ import annotations

import math

from dpteach import ptr
from dpteach.exercises.core import Exercise, Function, Mistake, Number, register

UPPER = 100                          # the lesson's cap on ages


# --- Exercise 1: the size behind a published bound -----------------------------------------------------------------

HOURS_CAP = 99                       # weekly hours, capped at u = 99
PUBLISHED_LS = 0.0045731707          # the published u/(n + 1), to ten decimals
LESSON_SIZE = 32_561                 # the size of the lesson's own data (Adult training file)


# --- Exercise 2: a threshold that keeps delta ----------------------------------------------------------------------

TEST_EPSILON, TEST_DELTA = 0.5, 1e-6


# --- Exercise 3: the local sensitivity of a mean at one dataset, not the bound ------------------------------------

FOUR = (20, 22, 25, 90)              # four ages in [0, 100], add/remove-one neighbours


def _mean(data: tuple[int, ...]) -> float:
    return sum(data) / len(data)


def mean_ls_adding(data: tuple[int, ...], lower: float = 0, upper: float = UPPER) -> float:
    """The largest move of the mean when one value in [lower, upper] is added: |v - mean| / (n + 1)."""
    m = _mean(data)
    return max(m - lower, upper - m) / (len(data) + 1)


def mean_ls_removing(data: tuple[int, ...], denominator_offset: int = -1) -> float:
    """The largest move when one record is removed: |mean - x_i| / (n - 1) (offset -1; 0 is the slip of dividing
    by n)."""
    m = _mean(data)
    return max(m - min(data), max(data) - m) / (len(data) + denominator_offset)


def mean_ls(data: tuple[int, ...]) -> float:
    r"""The local sensitivity of the mean at ``data`` under add/remove-one neighbours, values in :math:`[0, u]`.

    Cross-checked against :func:`dpteach.ptr.mean_ls_at_distance`, the bound it never exceeds."""
    value = max(mean_ls_adding(data), mean_ls_removing(data))
    assert value <= ptr.mean_ls_at_distance(len(data), 0, 0, UPPER)
    return value


# --- Exercise 4: distance_mean(n, lower, upper, b) ----------------------------------------------------------------

DISTANCE_CASES: tuple[tuple[int, float, float, float], ...] = (
    (1000, 20, 80, 0.1),      # l > 0: 60/(1000 - k) > 0.1 first at k = 401
    (32_561, 0, 100, 0.005),  # the lesson's mean
    (100, 0, 10, 0.5),        # a tie at k = 80: (u - l)/(n - k) = b exactly, not yet above
    (50, 10, 60, 2.5),        # a tie with l > 0
    (7, 0, 100, 200),         # b above u - l: never unstable, return n
    (5, 0, 100, 1),           # unstable at once: 0
)


def distance_truth(n: int, lower: float, upper: float, b: float) -> float:
    return ptr.distance_to_instability(lambda k: ptr.mean_ls_at_distance(n, k, lower, upper), b, n)


def _first_above(n: int, bound_at: object, b: float, strict: bool = True) -> int:
    for k in range(n + 1):
        a = bound_at(k)  # type: ignore[operator]
        if a > b or (not strict and a >= b):
            return k
    return n


def mistake_chapter_distance(n: int, lower: float, upper: float, b: float) -> float:
    """The chapter's bound u/(n - k + 1): additions only, l ignored, one step too far."""
    return _first_above(n, lambda k: upper / (n - k + 1), b)


def mistake_at_least(n: int, lower: float, upper: float, b: float) -> float:
    """A(k) >= b instead of A(k) > b: at a tie the local sensitivity is still within b."""
    return _first_above(n, lambda k: (upper - lower) / max(n - k, 1), b, strict=False)


def mistake_ignore_lower(n: int, lower: float, upper: float, b: float) -> float:
    """u/(n - k) instead of (u - l)/(n - k): the width of the range is u - l."""
    return _first_above(n, lambda k: upper / max(n - k, 1), b)


def show_distance_case(case: tuple) -> str:
    n, lower, upper, b = case
    return f"distance_mean(n={n}, lower={lower}, upper={upper}, b={b})"


register(
    Exercise(
        "05.1", "the size behind a bound",
        (Number(lambda: HOURS_CAP / PUBLISHED_LS - 1, decimals=0),),
        (Mistake(LESSON_SIZE,
                 {"en": "that is the size of this lesson's data; the published number belongs to another "
                        "dataset, with u = 99",
                  "zh": "那是本课数据的大小；公布的数属于另一个数据集，其 u = 99"}),
         Mistake(HOURS_CAP / PUBLISHED_LS,
                 {"en": "u/LS solves LS = u/n; the chapter's bound is u/(n + 1)",
                  "zh": "u/LS 解的是 LS = u/n；书中的界是 u/(n + 1)"}),
         Mistake(UPPER / PUBLISHED_LS - 1,
                 {"en": "u = 100 is the cap of the ages; these hours are capped at u = 99",
                  "zh": "u = 100 是年龄的上限；这里的工作时长上限是 u = 99"}),
         Mistake(HOURS_CAP / PUBLISHED_LS + 1,
                 {"en": "check the algebra: LS = u/(n + 1) gives n + 1 = u/LS",
                  "zh": "检查一下代数：由 LS = u/(n + 1) 得 n + 1 = u/LS"})),
    ),
    Exercise(
        "05.2", "a threshold that keeps its promise",
        (Number(lambda: ptr.ptr_threshold(TEST_EPSILON, TEST_DELTA)),),
        (Mistake(ptr.book_threshold(TEST_EPSILON, TEST_DELTA),
                 {"en": "that is the chapter's threshold ln(2/δ)/(2ε); at distance 0 it passes far more often "
                        "than δ",
                  "zh": "那是书中的阈值 ln(2/δ)/(2ε)；在距离 0 处它通过的概率远大于 δ"}),
         Mistake(math.log(1 / TEST_DELTA) / TEST_EPSILON,
                 {"en": "Pr[Lap(1/ε) ≥ t] is ½·e^(−εt): the ½ is missing",
                  "zh": "Pr[Lap(1/ε) ≥ t] 等于 ½·e^(−εt)：漏掉了 ½"}),
         Mistake(math.log(2 / TEST_DELTA) / TEST_EPSILON,
                 {"en": "½·e^(−εt) = δ gives e^(−εt) = 2δ, not δ/2",
                  "zh": "由 ½·e^(−εt) = δ 得 e^(−εt) = 2δ，而不是 δ/2"}),
         Mistake(ptr.ptr_threshold(1.0, TEST_DELTA),
                 {"en": "the test here spends ε_test = 0.5, not the lesson's ε = 1",
                  "zh": "这里的测试用 ε_test = 0.5，而不是本课中的 ε = 1"}),
         Mistake(ptr.ptr_threshold_discrete(TEST_EPSILON, TEST_DELTA),
                 {"en": "that is the integer threshold for discrete noise; the question asks for Laplace noise and "
                        "a pass probability of exactly δ",
                  "zh": "那是离散噪声的整数阈值；本题问的是拉普拉斯噪声、通过概率恰好为 δ 的阈值"})),
    ),
    Exercise(
        "05.3", "the local sensitivity, not the bound",
        (Number(lambda: mean_ls(FOUR)),),
        (Mistake(ptr.mean_ls_at_distance(len(FOUR), 0, 0, UPPER),
                 {"en": "that is the bound (u − l)/n, the worst case over every dataset of size 4; the question "
                        "asks about these four ages",
                  "zh": "那是上界 (u − l)/n，即大小为 4 的所有数据集中的最坏情况；题目问的是这四个年龄"}),
         Mistake(ptr.book_mean_ls_at_distance(len(FOUR), 0, UPPER),
                 {"en": "that is the chapter's bound u/(n + 1): a worst case, and one that forgets removals",
                  "zh": "那是书中的界 u/(n + 1)：它是最坏情况，而且忘了删除记录"}),
         Mistake(mean_ls_adding(FOUR),
                 {"en": "you looked at additions only; removing a record can move this mean further",
                  "zh": "你只看了添加记录；删除一条记录能让这个均值移动得更多"}),
         Mistake(mean_ls_removing(FOUR, denominator_offset=0),
                 {"en": "after a removal the mean is over n − 1 records: |x̄ − x_i|/(n − 1), not /n",
                  "zh": "删除之后均值是 n − 1 条记录的均值：|x̄ − x_i|/(n − 1)，而不是除以 n"})),
    ),
    Exercise(
        "05.4", "the distance to instability of the mean",
        (Function(lambda: DISTANCE_CASES, distance_truth, show=show_distance_case),),
        (Mistake(mistake_chapter_distance,
                 {"en": "that is the chapter's u/(n − k + 1): it counts additions only and ignores l, so its "
                        "distance comes one step too late",
                  "zh": "那是书中的 u/(n − k + 1)：它只算添加记录、又忽略了 l，所以得到的距离晚了一步"}),
         Mistake(mistake_at_least,
                 {"en": "D asks for A(k) > b, strictly: where A(k) = b exactly the local sensitivity is still "
                        "within b",
                  "zh": "D 要求 A(k) > b（严格大于）：在 A(k) = b 恰好成立时，局部敏感度仍不超过 b"}),
         Mistake(mistake_ignore_lower,
                 {"en": "the width of the range is u − l, not u: a lower end above 0 matters",
                  "zh": "范围的宽度是 u − l，而不是 u：下限大于 0 时这一点很重要"})),
    ),
)
