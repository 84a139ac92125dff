"""The exercises of lesson 05 (propose-test-release): the right answers and the mistakes each one must catch."""

from __future__ import annotations

import math
from dataclasses import dataclass

from dpteach import ptr
from dpteach.exercises.core import Exercise, Language, Mistake, Number, register, say

UPPER = 100                          # the lesson's cap on ages


# --- Exercise 1: the size behind a published bound -----------------------------------------------------------------

HOURS_CAP = 99                       # weekly hours, capped at u = 99
PUBLISHED_LS = 0.0045731707          # the published u/(n + 1), to ten decimals
LESSON_SIZE = 32_561                 # the size of the lesson's own data (Adult training file)


# --- Exercise 2: the median's distance to instability, read off printed A^(k) ----------------------------------

FIVE = (20, 30, 40, 50, 60)          # five ages in [0, 100], replace-one neighbours, median = the third value
FIVE_BS = (25, 60)                   # two proposed bounds; 60 equals A^(2): a tie, not yet above


@dataclass(frozen=True)
class Count(Number):
    """A whole number of steps: compared exactly, and a value with a fractional part is the slip it names."""

    decimals: int | None = None

    def judge(self, mine: object, language: Language) -> tuple[bool, str | None]:
        if not float(mine).is_integer():  # type: ignore[arg-type]
            return False, say(NOT_WHOLE, language)
        return super().judge(mine, language)


NOT_WHOLE = {"en": "D counts replacements, so it is a whole number: read it off as the k of an A^(k)",
             "zh": "D 数的是替换的次数，所以是整数：它是某个 A^(k) 的下标 k"}


def median_a(data: tuple[int, ...], k: int) -> float:
    """A^(k) of the median under replace-one neighbours (:func:`dpteach.ptr.median_ls_at_distance`)."""
    return float(ptr.median_ls_at_distance(data, 0, UPPER, k))


def median_distance(data: tuple[int, ...], b: float, strict: bool = True) -> int:
    """The first k with A^(k) > b (``strict=False``: the slip A^(k) >= b); n if there is none."""
    return next((k for k in range(len(data) + 1)
                 if median_a(data, k) > b or (not strict and median_a(data, k) >= b)), len(data))


def five_distances(shift: int = 0, strict: bool = True) -> tuple[int, ...]:
    """D(x, b) for the exercise's two bounds, each shifted by ``shift`` (a slip of one step either way)."""
    return tuple(median_distance(FIVE, b, strict) + shift for b in FIVE_BS)


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


# --- Exercise 4: the textbook test's threshold, and how far data must be to pass half the time --------------------

PUBLIC_SIZE = 48_842                 # UCI's published size of the whole Adult data set
PUBLIC_DELTA = 1 / PUBLIC_SIZE**2    # the lesson's delta, from that public bound
TEST_EPSILON = 0.5                   # the test's budget in the exercise


def threshold_answer(threshold: float) -> tuple[float, int]:
    """The threshold and the smallest whole distance D with Pr[D + Lap(1/eps_t) >= threshold] >= 1/2, that is
    D >= threshold (Laplace noise has median 0)."""
    return threshold, math.ceil(threshold)


def threshold_truth() -> tuple[float, int]:
    return threshold_answer(ptr.ptr_threshold(TEST_EPSILON, PUBLIC_DELTA))


def truncated(value: float) -> float:
    """The slip of cutting a value off after two decimals instead of rounding it."""
    return math.floor(value * 100) / 100


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
        "05.2", "the median's distance to instability",
        tuple(Count(lambda b=b: ptr.median_distance_to_instability(FIVE, 0, UPPER, b)) for b in FIVE_BS),
        (Mistake(five_distances(shift=-1),
                 {"en": "D is the first k at which A^(k) exceeds b, not the last k at which it stays within b",
                  "zh": "D 是 A^(k) 第一次超过 b 时的 k，而不是 A^(k) 最后一次不超过 b 时的 k"}),
         Mistake(five_distances(strict=False),
                 {"en": "D asks for A^(k) > b, strictly: where A^(k) equals b, the local sensitivity that many "
                        "steps away is still within b",
                  "zh": "D 要求 A^(k) > b（严格大于）：A^(k) 恰好等于 b 时，那么多步之外的局部敏感度仍不超过 b"}),
         Mistake(five_distances(shift=1),
                 {"en": "the printout starts at k = 0: its first entry is A^(0) = LS(x), zero steps away",
                  "zh": "打印从 k = 0 开始：第一个数是 A^(0) = LS(x)，也就是零步之外"}),
         Mistake(tuple(median_a(FIVE, d) for d in five_distances()),
                 {"en": "those are local sensitivities A^(k), in years; D counts replacements",
                  "zh": "那些是局部敏感度 A^(k)，单位是岁；D 数的是替换的次数"})),
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
         Mistake(round(mean_ls(FOUR), 1),
                 {"en": "close, but give two decimals, not one",
                  "zh": "很接近了，但请保留两位小数，而不是一位"}),
         Mistake(truncated(mean_ls(FOUR)),
                 {"en": "close, but round to two decimals rather than cutting the rest off",
                  "zh": "很接近了，但请四舍五入到两位小数，不要直接截掉后面的位数"}),
         Mistake(mean_ls_removing(FOUR, denominator_offset=0),
                 {"en": "after a removal the mean is over n − 1 records: |x̄ − x_i|/(n − 1), not /n",
                  "zh": "删除之后均值是 n − 1 条记录的均值：|x̄ − x_i|/(n − 1)，而不是除以 n"})),
    ),
    Exercise(
        "05.4", "the test's threshold",
        (Number(lambda: threshold_truth()[0]), Number(lambda: threshold_truth()[1])),
        (Mistake(threshold_answer(ptr.book_threshold(TEST_EPSILON, PUBLIC_DELTA)),
                 {"en": "that is the chapter's threshold ln(2/δ)/(2ε): too low, it lets data at distance 0 pass "
                        "far more often than δ",
                  "zh": "那是书中的阈值 ln(2/δ)/(2ε)：它太低，距离为 0 的数据通过的概率远大于 δ"}),
         Mistake(threshold_answer(math.log(1 / PUBLIC_DELTA) / TEST_EPSILON),
                 {"en": "Pr[Lap(1/ε) ≥ t] is ½·e^(−εt), not e^(−εt): the ½ belongs inside the logarithm",
                  "zh": "Pr[Lap(1/ε) ≥ t] 等于 ½·e^(−εt)，而不是 e^(−εt)：这个 ½ 要放进对数里"}),
         Mistake(threshold_answer(ptr.ptr_threshold(1.0, PUBLIC_DELTA)),
                 {"en": "the test's noise is Lap(1/ε_t) with ε_t = 0.5: divide by ε_t",
                  "zh": "测试的噪声是 Lap(1/ε_t)，其中 ε_t = 0.5：要除以 ε_t"}),
         Mistake((threshold_truth()[0], math.floor(threshold_truth()[0])),
                 {"en": "the threshold is right; Laplace noise is symmetric around 0, so data at D = t pass exactly "
                        "half the time, and data below t less often",
                  "zh": "阈值对了；拉普拉斯噪声关于 0 对称，所以 D = t 的数据恰好以一半的概率通过，"
                        "D 小于 t 时概率更小"}),
         Mistake((truncated(threshold_truth()[0]), threshold_truth()[1]),
                 {"en": "close, but round the threshold to two decimals rather than cutting the rest off",
                  "zh": "很接近了，但请把阈值四舍五入到两位小数，不要直接截掉后面的位数"}),
         Mistake(threshold_answer(ptr.ptr_threshold_discrete(TEST_EPSILON, PUBLIC_DELTA)),
                 {"en": "that is the discrete test's integer threshold (the snapping section); this exercise asks "
                        "for the continuous t",
                  "zh": "那是离散测试的整数阈值（吸附机制那一节）；这道练习问的是连续测试的 t"}),
         Mistake(threshold_answer(ptr.ptr_threshold(TEST_EPSILON, 1 / LESSON_SIZE**2)),
                 {"en": "δ = 1/n² uses the private size n = 32,561; this lesson's δ comes from UCI's published size N",
                  "zh": "δ = 1/n² 用的是需保密的数据量 n = 32,561；本课的 δ 来自 UCI 公布的记录数 N"})),
    ),
)
