"""The exercises of notebook 05 (propose-test-release, smooth sensitivity, sample-and-aggregate): the right answers
and the mistakes each one must catch."""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import cache

import numpy as np

from dpteach import datasets, ptr, saa, smooth
from dpteach.exercises.core import Exercise, Function, Mistake, Number, register

LOWER, UPPER = 0, 100                # the notebook's clipping range for ages and its median examples
PUBLIC_SIZE = 48_842                 # the public bound N on n; the notebook's delta is 1/N^2
FIVE = {"x": (0, 50, 50, 50, 100), "x'": (0, 0, 50, 50, 100)}


# --- Exercise 1: the size behind a published sensitivity -------------------------------------------------------

HOURS_CAP = 99                       # weekly hours, capped at u = 99
PUBLISHED_LS = 0.0045731707          # the published u/(n + 1), to ten decimals
NOTEBOOK_SIZE = 32_561               # the size of the notebook's own data (Adult training file)


# --- Exercise 2: a threshold that keeps delta --------------------------------------------------------------------

TEST_EPSILON, TEST_DELTA = 0.5, 1e-6


# --- Exercise 3: smooth_median(data, beta) from its definition ---------------------------------------------------

def _distance_curve(data: Sequence[float], ks: np.ndarray) -> np.ndarray:
    return np.asarray(ptr.median_ls_at_distance(data, LOWER, UPPER, ks), dtype=float)


def smooth_median_truth(data: Sequence[float], beta: float) -> float:
    return smooth.smooth_sensitivity_median(data, LOWER, UPPER, beta)


def mistake_from_k_1(data: Sequence[float], beta: float) -> float:
    """The chapter's Definition 19: the maximum over k = 1, ..., n, leaving out the local sensitivity itself."""
    ks = np.arange(1, len(data) + 1)
    return float(np.max(np.exp(-beta * ks) * _distance_curve(data, ks)))


def mistake_stop_before_n(data: Sequence[float], beta: float) -> float:
    """Stops at k = n - 1 (``np.arange(len(data))``), before the window reaches both paddings."""
    ks = np.arange(len(data))
    return float(np.max(np.exp(-beta * ks) * _distance_curve(data, ks)))


def mistake_local_only(data: Sequence[float], beta: float) -> float:
    """The local sensitivity A(0) alone: no look at the datasets k steps away."""
    return float(_distance_curve(data, np.arange(1))[0])


def mistake_no_discount(data: Sequence[float], beta: float) -> float:
    """The largest A(k) over 0 <= k <= n without the factor exp(-beta k): always the width of the range."""
    return float(np.max(_distance_curve(data, np.arange(len(data) + 1))))


NOTEBOOK_BETA = smooth.laplace_beta(1.0, 1 / PUBLIC_SIZE**2)


@cache
def smooth_median_cases() -> tuple[tuple[tuple[int, ...], float], ...]:
    """Small adversarial multisets (one record, duplicates, extremes, an even size, A(0) = A(1) with the maximum
    at k = 0, the maximum at k = n), the notebook's five numbers, and samples of ages, at several beta."""
    ages = datasets.load_adult()["Age"].to_numpy()
    rng = np.random.default_rng(303)
    samples = [tuple(int(v) for v in rng.choice(ages, size=size, replace=False)) for size in (9, 14, 25)]
    return (
        ((37,), 0.5),                                   # one record: A(0) = 63 beats A(1) discounted
        ((0, 100, 0, 100, 0), NOTEBOOK_BETA),           # A(0) = A(1): starting at k = 1 falls below A(0)
        ((50, 50, 50), 0.1),                            # duplicates: A(n - 1) = 50, A(n) = 100, maximum at k = n
        ((0, 0, 0), 1.0),                               # extremes: A(0) = A(1) = 0
        ((20, 20, 80, 80), 0.05),                       # even size, two pairs of duplicates
        ((12, 30, 45, 71, 88), 0.3),                    # distinct values
        (FIVE["x"], NOTEBOOK_BETA),
        (FIVE["x'"], NOTEBOOK_BETA),
        (samples[0], NOTEBOOK_BETA),
        (samples[1], 0.2),
        (samples[2], 0.02),
    )


def show_smooth_case(case: tuple) -> str:
    data, beta = case
    return f"data = {data}, beta = {beta:.6g}"


# --- Exercise 4: saa_scale(n_records, n_chunks, width, epsilon) --------------------------------------------------

SAA_CASES: tuple[tuple[int, int, float, float], ...] = (
    (1000, 300, 60, 1.0),      # slices of 4 rows: 250 chunks, not 300
    (32_561, 600, 60, 0.5),
    (10, 4, 30, 2.0),          # slices of 3 rows: 4 chunks, the last one shorter
    (7, 7, 60, 1.0),           # K = n: one row per chunk
    (100, 99, 10, 0.25),       # slices of 2 rows: 50 chunks
    (1, 1, 40, 2.0),           # the smallest data: one row, one chunk
    (5, 1, 45, 1.0),           # K = 1: a single chunk
    (32_561, 6000, 60, 1.0),
)


def saa_scale_truth(n_records: int, n_chunks: int, width: float, epsilon: float) -> float:
    return width / (saa.contiguous_layout(n_records, n_chunks)[1] * epsilon)


def mistake_divide_by_k(n_records: int, n_chunks: int, width: float, epsilon: float) -> float:
    """The chapter's scale: the number of chunks asked for, K, not the number formed."""
    return width / (n_chunks * epsilon)


def mistake_no_epsilon(n_records: int, n_chunks: int, width: float, epsilon: float) -> float:
    """The sensitivity of the average, width / c, without dividing by epsilon."""
    size = math.ceil(n_records / n_chunks)
    return width / math.ceil(n_records / size)


def mistake_full_chunks_only(n_records: int, n_chunks: int, width: float, epsilon: float) -> float:
    """Counts only full slices (n // size), leaving out the shorter last chunk."""
    size = math.ceil(n_records / n_chunks)
    return width / ((n_records // size) * epsilon)


def show_saa_case(case: tuple) -> str:
    n_records, n_chunks, width, epsilon = case
    return f"n_records = {n_records}, n_chunks = {n_chunks}, width = {width}, epsilon = {epsilon}"


# --- Exercise 5: the heavy-tailed multiplier on x' ---------------------------------------------------------------

PURE_EPSILON = 2.0


def pure_multiplier(data: Sequence[float], beta: float, epsilon: float = PURE_EPSILON) -> float:
    """The noise multiplier 10 S / epsilon (gamma = 4) with S the beta-smooth sensitivity of the median of data."""
    return smooth.heavy_tail_scale(smooth.smooth_sensitivity_median(data, LOWER, UPPER, beta), epsilon)


def pure_smooth(data: Sequence[float], beta: float) -> float:
    return smooth.smooth_sensitivity_median(data, LOWER, UPPER, beta)


register(
    Exercise(
        "05.1", "the size behind a published sensitivity",
        (Number(lambda: HOURS_CAP / PUBLISHED_LS - 1, decimals=0),),
        (Mistake(NOTEBOOK_SIZE,
                 {"en": "that is the size of this notebook's data; the published number belongs to another "
                        "dataset, with u = 99",
                  "zh": "那是本笔记本数据的大小；公布的数属于另一个数据集，其 u = 99"}),
         Mistake(HOURS_CAP / PUBLISHED_LS,
                 {"en": "u/LS solves LS = u/n; the chapter's bound is u/(n + 1)",
                  "zh": "u/LS 解的是 LS = u/n；书中的界是 u/(n + 1)"}),
         Mistake(UPPER / PUBLISHED_LS - 1,
                 {"en": "u = 100 is the cap of the ages; these hours are capped at u = 99",
                  "zh": "u = 100 是年龄的上界；这里的工作时长上界是 u = 99"}),
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
                 {"en": "the test here spends ε_test = 0.5, not the notebook's ε = 1",
                  "zh": "这里的测试用 ε_test = 0.5，而不是笔记本中的 ε = 1"}),
         Mistake(ptr.ptr_threshold_discrete(TEST_EPSILON, TEST_DELTA),
                 {"en": "that is the integer threshold for discrete noise; the question asks for Laplace noise and "
                        "a pass probability of exactly δ",
                  "zh": "那是离散噪声的整数阈值；本题问的是拉普拉斯噪声、通过概率恰好为 δ 的阈值"})),
    ),
    Exercise(
        "05.3", "smooth sensitivity of the median from its definition",
        (Function(smooth_median_cases, smooth_median_truth, show=show_smooth_case),),
        (Mistake(mistake_from_k_1,
                 {"en": "that is the chapter's Definition 19, k from 1: it leaves out k = 0, the local sensitivity "
                        "itself, and can fall below it",
                  "zh": "那是书中的定义 19，k 从 1 开始：它漏掉了 k = 0，即局部敏感度本身，结果可能比它还小"}),
         Mistake(mistake_stop_before_n,
                 {"en": "your k stops at n − 1: np.arange(len(data)) leaves out k = n, where the window first "
                        "reaches both ends of the range",
                  "zh": "你的 k 停在 n − 1：np.arange(len(data)) 漏掉了 k = n，"
                        "而窗口正是在 k = n 时才同时够到范围的两端"}),
         Mistake(mistake_local_only,
                 {"en": "that is the local sensitivity A(0): the smooth sensitivity also looks k steps away, "
                        "discounted by exp(−βk)",
                  "zh": "那是局部敏感度 A(0)：平滑敏感度还要看 k 步之外的数据集，并乘以折扣 exp(−βk)"}),
         Mistake(mistake_no_discount,
                 {"en": "the largest A(k) without the discount exp(−βk) is always the width of the range",
                  "zh": "不乘折扣 exp(−βk) 时，最大的 A(k) 总是整个范围的宽度"})),
    ),
    Exercise(
        "05.4", "the noise contiguous chunks need",
        (Function(lambda: SAA_CASES, saa_scale_truth, show=show_saa_case),),
        (Mistake(mistake_divide_by_k,
                 {"en": "that divides by K, the chunks asked for, as the chapter does; slices of ⌈n/K⌉ rows can "
                        "form fewer",
                  "zh": "这是像书中那样除以 K（要求的块数）；每片 ⌈n/K⌉ 行时实际形成的块可能更少"}),
         Mistake(mistake_no_epsilon,
                 {"en": "that is the sensitivity of the average; the Laplace scale divides it by ε",
                  "zh": "那是平均值的敏感度；拉普拉斯尺度还要再除以 ε"}),
         Mistake(mistake_full_chunks_only,
                 {"en": "the last, shorter slice is a chunk too: count ⌈n/size⌉ chunks, not n // size",
                  "zh": "最后那片较短的也是一块：块数是 ⌈n/size⌉，而不是 n // size"})),
    ),
    Exercise(
        "05.5", "the price of pure epsilon",
        (Number(lambda: pure_multiplier(FIVE["x'"], smooth.heavy_tail_beta(PURE_EPSILON))),),
        (Mistake(pure_smooth(FIVE["x'"], smooth.heavy_tail_beta(PURE_EPSILON)),
                 {"en": "that is S itself (with ε = 2, numerically also 2S/ε for this S); the heavy-tailed noise uses "
                        "10S/ε",
                  "zh": "那是 S 本身（ε = 2 时，数值上也等于这个 S 的 2S/ε）；重尾噪声用的是 10S/ε"}),
         Mistake(10 * pure_smooth(FIVE["x'"], smooth.heavy_tail_beta(PURE_EPSILON)),
                 {"en": "that is 10S: divide by ε = 2",
                  "zh": "那是 10S：还要除以 ε = 2"}),
         Mistake(round(pure_multiplier(FIVE["x'"], smooth.laplace_beta(PURE_EPSILON, 1 / PUBLIC_SIZE**2)), 2),
                 {"en": "that S uses Laplace's β = ε/(2 ln(2/δ)); the heavy-tailed noise needs β = ε/10",
                  "zh": "那个 S 用的是拉普拉斯的 β = ε/(2 ln(2/δ))；重尾噪声需要 β = ε/10"}),
         Mistake(round(pure_multiplier(FIVE["x'"], smooth.heavy_tail_beta(1.0)), 2),
                 {"en": "that S uses β = 0.1, from the notebook's ε = 1; here ε = 2",
                  "zh": "那个 S 用的是由笔记本中 ε = 1 得到的 β = 0.1；这里 ε = 2"}),
         Mistake(round(pure_multiplier(FIVE["x"], smooth.heavy_tail_beta(PURE_EPSILON)), 2),
                 {"en": "that is the multiplier for x = (0, 50, 50, 50, 100); the question asks for x'",
                  "zh": "那是 x = (0, 50, 50, 50, 100) 的倍数；题目问的是 x'"})),
    ),
)
