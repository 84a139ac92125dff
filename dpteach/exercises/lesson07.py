"""The exercises of lesson 07 (sample-and-aggregate): the right answers and the mistakes each one must catch."""

from __future__ import annotations

import math

import numpy as np

from dpteach import saa
from dpteach.exercises.core import Choice, Exercise, Function, Mistake, Number, register

# --- Exercise 1: the standard deviation of contiguous sample-and-aggregate's noise -------------------------------

SD_CASES: tuple[tuple[int, int, float, float], ...] = (
    (1000, 300, 60, 1.0),      # slices of 4 rows: 250 chunks, not 300
    (32_561, 6000, 60, 1.0),   # the chapter's largest K: 5,427 chunks
    (10, 4, 30, 2.0),          # slices of 3 rows: 4 chunks, the last one shorter
    (7, 7, 60, 1.0),           # K = n: one row per chunk
    (100, 99, 10, 0.25),       # slices of 2 rows: 50 chunks
    (1, 1, 40, 2.0),           # the smallest data: one row, one chunk
    (32_561, 600, 60, 0.5),    # the chapter's chunks of 55 rows: 593 chunks
)


def contiguous_sd_truth(n_records: int, n_chunks: int, width: float, epsilon: float) -> float:
    """sqrt(2) (u - l) / (c epsilon), c the chunks that slices of ceil(n/K) rows form."""
    return math.sqrt(2) * width / (saa.contiguous_layout(n_records, n_chunks)[1] * epsilon)


def mistake_planned_chunks(n_records: int, n_chunks: int, width: float, epsilon: float) -> float:
    """Divides by K, the chunks asked for (the chapter), not the chunks formed."""
    return math.sqrt(2) * width / (n_chunks * epsilon)


def mistake_scale_not_sd(n_records: int, n_chunks: int, width: float, epsilon: float) -> float:
    """The Laplace scale b = (u - l)/(c epsilon), not its standard deviation sqrt(2) b."""
    return width / (saa.contiguous_layout(n_records, n_chunks)[1] * epsilon)


def mistake_full_slices(n_records: int, n_chunks: int, width: float, epsilon: float) -> float:
    """Counts only full slices, n // size, leaving out the shorter last chunk."""
    size = math.ceil(n_records / n_chunks)
    return math.sqrt(2) * width / ((n_records // size) * epsilon)


def show_sd_case(case: tuple) -> str:
    n_records, n_chunks, width, epsilon = case
    return f"n_records = {n_records}, n_chunks = {n_chunks}, width = {width}, epsilon = {epsilon}"


# --- Exercise 2: how full shuffled chunks are --------------------------------------------------------------------

ADULT_SIZE, LABELS = 32_561, 6000     # the Adult ages and the chapter's largest K


def binomial_pmf(count: int, trials: int, p: float) -> float:
    """P(Bin(trials, p) = count), through log-gamma so large ``trials`` stay exact to double precision."""
    log = (math.lgamma(trials + 1) - math.lgamma(count + 1) - math.lgamma(trials - count + 1)
           + count * math.log(p) + (trials - count) * math.log1p(-p))
    return math.exp(log)


def share_holding(counts: tuple[int, ...]) -> float:
    """Percent of the K chunks expected to hold exactly one of ``counts`` records when n records draw labels."""
    return 100 * sum(binomial_pmf(c, ADULT_SIZE, 1 / LABELS) for c in counts)


def one_draw_share(seed: int = 2024) -> float:
    """Percent of the chunks holding 5 or 6 records in ONE draw of the labels: the draw the lesson prints (its seed,
    the generator's first use), a sample of the share rather than its expectation."""
    sizes = np.bincount(np.random.default_rng(seed).integers(0, LABELS, size=ADULT_SIZE), minlength=LABELS)
    return round(100 * float(np.isin(sizes, [5, 6]).mean()), 1)


# --- Exercise 3: the midpoint's pull ------------------------------------------------------------------------------

PULL_RECORDS, PULL_LABELS, PULL_LOWER, PULL_UPPER, PULL_ANSWERS = 500, 400, 0, 100, 30


def expected_empty(records: int, labels: int) -> float:
    """K (1 - 1/K)^n: the expected number of labels no record draws."""
    return labels * (1 - 1 / labels) ** records


def midpoint_pull() -> float:
    """(E/K) ((l + u)/2 - a): the shift of the expected release when empty chunks answer the midpoint."""
    share_empty = expected_empty(PULL_RECORDS, PULL_LABELS) / PULL_LABELS
    return share_empty * ((PULL_LOWER + PULL_UPPER) / 2 - PULL_ANSWERS)


def poisson_pull() -> float:
    """The pull with the share of empty labels approximated by e^(-n/K), off in the second decimal at n = 500."""
    return math.exp(-PULL_RECORDS / PULL_LABELS) * ((PULL_LOWER + PULL_UPPER) / 2 - PULL_ANSWERS)


# --- Exercise 4: which neighbours each layout protects ---------------------------------------------------------

RELATIONS = ("both", "replace-one only", "neither")  # both: add/remove-one and replace-one


register(
    Exercise(
        "07.1", "the spread contiguous chunks add",
        (Function(lambda: SD_CASES, contiguous_sd_truth, show=show_sd_case),),
        (Mistake(mistake_planned_chunks,
                 {"en": "that divides by K, the chunks asked for, as the chapter does; slices of ⌈n/K⌉ rows can "
                        "form fewer",
                  "zh": "这是像书中那样除以 K（要求的块数）；每片 ⌈n/K⌉ 行时实际形成的块可能更少"}),
         Mistake(mistake_scale_not_sd,
                 {"en": "that is the Laplace scale b; the question asks for the standard deviation of Lap(b)",
                  "zh": "那是拉普拉斯尺度 b；题目问的是 Lap(b) 的标准差"}),
         Mistake(mistake_full_slices,
                 {"en": "the last, shorter slice is a chunk too: count ⌈n/size⌉ chunks, not n // size",
                  "zh": "最后那片较短的也是一块：块数是 ⌈n/size⌉，而不是 n // size"})),
    ),
    Exercise(
        "07.2", "how full shuffled chunks are",
        (Number(lambda: share_holding((5, 6)), decimals=1),),
        (Mistake(100.0,
                 {"en": "that holds for contiguous chunks of ⌈n/K⌉ rows; shuffled labels are drawn one record at a "
                        "time, so a chunk's size is a random count",
                  "zh": "那是每片 ⌈n/K⌉ 行的连续分块；随机分块的标签逐条独立抽取，块的大小是一个随机计数"}),
         Mistake(round(share_holding((5,)), 1),
                 {"en": "that counts the chunks with exactly 5 records; add those with 6",
                  "zh": "那只算了恰好有 5 条记录的块；还要加上有 6 条的"}),
         Mistake(round(share_holding((6,)), 1),
                 {"en": "that counts the chunks with exactly 6 records; add those with 5",
                  "zh": "那只算了恰好有 6 条记录的块；还要加上有 5 条的"}),
         Mistake(round(share_holding((5, 6)) / 100, 1),
                 {"en": "that is a fraction; give the share in percent (multiply by 100)",
                  "zh": "这是一个比例；请以百分数给出（乘以 100）"}),
         Mistake(one_draw_share(),
                 {"en": "that is the share in one draw of the labels; the question asks for the expected share",
                  "zh": "那是某一次抽取标签得到的比例；题目问的是比例的期望"})),
    ),
    Exercise(
        "07.3", "the midpoint's pull",
        (Number(midpoint_pull),),
        (Mistake(-round(midpoint_pull(), 2),
                 {"en": "the sign: empty chunks answer 50, above the other answers, so they pull the release up",
                  "zh": "符号反了：空块回答 50，比其他答案大，所以把发布结果往上拉"}),
         Mistake(round(expected_empty(PULL_RECORDS, PULL_LABELS) * (50 - PULL_ANSWERS), 2),
                 {"en": "each empty chunk is one of K terms in the average: divide the expected count E by K",
                  "zh": "每个空块只是平均值中 K 项之一：要把期望个数 E 除以 K"}),
         Mistake(0,
                 {"en": "more records than labels does not fill every label: some labels are drawn by no record",
                  "zh": "记录比标签多，并不意味着每个标签都被抽到：有些标签没有任何记录抽中"}),
         Mistake(round(poisson_pull(), 2),
                 {"en": "the Poisson form e^(-n/K) is off in the second decimal with only 500 records: use "
                        "(1 - 1/K)^n exactly",
                  "zh": "只有 500 条记录时，泊松近似 e^(-n/K) 在第二位小数上有偏差：请精确地用 (1 - 1/K)^n"}),
         Mistake(round(PULL_ANSWERS + midpoint_pull(), 2),
                 {"en": "that is where the expected release lands; the question asks how far it moves from 30",
                  "zh": "那是发布结果期望落到的位置；题目问的是它离 30 移动了多少"})),
    ),
    Exercise(
        "07.4", "which neighbours each layout protects",
        (Choice(RELATIONS, "replace-one only"), Choice(RELATIONS, "both"), Choice(RELATIONS, "neither")),
        (Mistake(("both", "both", "replace-one only"),
                 {"en": "inserting a record into contiguous chunks shifts every later chunk boundary",
                  "zh": "在连续分块中插入一条记录，会移动其后所有块的边界"}),
         Mistake(("replace-one only", "both", "replace-one only"),
                 {"en": "in data sorted by value, one replacement moves a record and shifts every chunk between its "
                        "old and new place",
                  "zh": "在按值排序的数据中，一次替换会让一条记录换位置，其新旧位置之间的每个块都会错位"}),
         Mistake(("replace-one only", "replace-one only", "neither"),
                 {"en": "a shuffled record's label does not depend on the other records: adding one touches one "
                        "chunk",
                  "zh": "随机分块中一条记录的标签与其他记录无关：添加一条只影响一个块"})),
    ),
)
