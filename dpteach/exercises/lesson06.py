"""The exercises of lesson 06 (smooth sensitivity in practice): the right answers and the mistakes each one must
catch."""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import cache

import numpy as np

from dpteach import datasets, ptr, smooth
from dpteach.exercises.core import Exercise, Function, Mistake, Number, register

LOWER, UPPER = 0, 100                # the lesson's clipping range for ages and its median examples
EPSILON = 1.0
PUBLIC_SIZE = 48_842                 # the public size bound N of the Adult data; delta = 1/N^2
ADULT_SIZE = 32_561                  # the private size n of the lesson's data (the chapter's delta uses it)


def _beta(size: int, epsilon: float = EPSILON) -> float:
    return smooth.laplace_beta(epsilon, 1 / size**2)


# --- Exercise 1: what Definition 19 guarantees unrepaired: epsilon (1 + e^beta) / 2 at epsilon = 0.5 ------------

EPSILON_1 = 0.5                      # the lesson prints the value at epsilon = 1; the exercise asks for 0.5


def unrepaired(epsilon: float = EPSILON_1, size: int = PUBLIC_SIZE) -> float:
    """The smallest epsilon lesson 04's proof gives for Definition 19's release used as is: the slide's epsilon/2
    pays e^beta, the stretch's does not (beta at ``epsilon``, delta = 1/size^2). Any larger epsilon holds too."""
    return epsilon * (1 + math.exp(_beta(size, epsilon))) / 2


# --- Exercise 2: the smooth bound of a small mean ---------------------------------------------------------------

SURVEY_SIZE, SURVEY_BOUND = 50, 100  # n = 50 answers in [0, 100]; published size bound N = 100


def _smoothed_mean_bound(beta: float, ls_at_distance: np.ndarray) -> float:
    return float(np.max(np.exp(-beta * np.arange(ls_at_distance.size)) * ls_at_distance))


def survey_final(beta: float, book: bool = False, factor: float = 2.0, last: int = SURVEY_SIZE) -> tuple[float, int]:
    """``factor`` times the maximum over k = 0..last of exp(-beta k) A(k), with the bound (u - l)/max(n - k, 1) or
    the chapter's u/(n - k + 1), and the k where it is reached."""
    ks = np.arange(last + 1)
    curve = np.asarray(ptr.book_mean_ls_at_distance(SURVEY_SIZE, ks, UPPER) if book
                       else ptr.mean_ls_at_distance(SURVEY_SIZE, ks, LOWER, UPPER), dtype=float)
    terms = np.exp(-beta * ks) * curve
    return factor * _smoothed_mean_bound(beta, curve), int(np.argmax(terms))


# --- Exercise 3: the ratio of standard deviations on the first 100 ages -----------------------------------------

FIRST = 100


@cache
def _first_ages() -> tuple[int, ...]:
    return tuple(int(v) for v in datasets.load_adult()["Age"].to_numpy()[:FIRST])


def _s(beta: float) -> float:
    return smooth.smooth_sensitivity_median(_first_ages(), LOWER, UPPER, beta)


def _sd_laplace(beta: float) -> float:
    return math.sqrt(2) * 2 * _s(beta) / EPSILON


def _sd_heavy(beta: float) -> float:
    return smooth.heavy_tail_std() * smooth.heavy_tail_scale(_s(beta), EPSILON)


# --- Exercise 4: smooth_median(data, beta) from the closed formula ----------------------------------------------

def _padded(data: Sequence[float]) -> list[float]:
    return [LOWER, *sorted(min(max(float(v), LOWER), UPPER) for v in data), UPPER]


def _pairs_max(data: Sequence[float], beta: float, *, padded: bool = True, smallest_gap: int = 0,
               largest_gap: float = math.inf, j_from_m: bool = True, i_to_m: bool = True,
               j_to_end: bool = True, i_from: int = 0) -> float:
    """max over i <= m <= j of (x_(j) - x_(i)) exp(-beta (j - i - 1)) with smallest_gap <= j - i - 1 < largest_gap
    (and j > m when not ``j_from_m``, i < m when not ``i_to_m``, j <= n when not ``j_to_end``)."""
    xs = _padded(data) if padded else [math.nan, *sorted(min(max(float(v), LOWER), UPPER) for v in data)]
    m = math.ceil(len(data) / 2)
    first = i_from if padded else 1
    end = len(xs) if j_to_end else len(xs) - 1
    scores = [(xs[j] - xs[i]) * math.exp(-beta * (j - i - 1))
              for i in range(first, m + 1 if i_to_m else m) for j in range(m if j_from_m else m + 1, end)
              if smallest_gap <= j - i - 1 < largest_gap]
    return max(scores, default=0.0)


def smooth_median_truth(data: Sequence[float], beta: float) -> float:
    return smooth.smooth_sensitivity_median(data, LOWER, UPPER, beta)


def mistake_no_padding(data: Sequence[float], beta: float) -> float:
    """The pairs within the data only, without x_(0) = l and x_(n+1) = u."""
    return _pairs_max(data, beta, padded=False)


def mistake_from_k_1(data: Sequence[float], beta: float) -> float:
    """Definition 19: k >= 1, that is only the pairs with j - i - 1 >= 1."""
    return _pairs_max(data, beta, smallest_gap=1)


def mistake_j_after_m(data: Sequence[float], beta: float) -> float:
    """j from m + 1 (``range(m + 1, n + 2)``): the pairs that end at the median itself are left out."""
    return _pairs_max(data, beta, j_from_m=False)


def mistake_k_below_200(data: Sequence[float], beta: float) -> float:
    """The chapter's loop over k < 200 only: the pairs with j - i - 1 >= 200 are left out."""
    return _pairs_max(data, beta, largest_gap=200)


def mistake_i_before_m(data: Sequence[float], beta: float) -> float:
    """i in ``range(m)``: the pairs that start at the median itself are left out."""
    return _pairs_max(data, beta, i_to_m=False)


def mistake_i_from_1(data: Sequence[float], beta: float) -> float:
    """i in ``range(1, m + 1)``: the pairs that start at the padded x_(0) = l are left out."""
    return _pairs_max(data, beta, i_from=1)


def mistake_j_before_end(data: Sequence[float], beta: float) -> float:
    """j in ``range(m, last)``: the pairs that end at the padded end x_(n+1) = u are left out."""
    return _pairs_max(data, beta, j_to_end=False)


def mistake_local_only(data: Sequence[float], beta: float) -> float:
    """The local sensitivity A^(0)(x) alone: the pairs with j - i - 1 = 0."""
    xs = _padded(data)
    m = math.ceil(len(data) / 2)
    return max(xs[m] - xs[m - 1], xs[m + 1] - xs[m])


@cache
def smooth_median_cases() -> tuple[tuple[tuple[int, ...], float], ...]:
    """Small adversarial multisets (one record, duplicates, extremes, an even size, A(0) = A(1) with the maximum
    at k = 0), lesson 05's five numbers, and samples of ages, at several beta."""
    ages = datasets.load_adult()["Age"].to_numpy()
    rng = np.random.default_rng(606)
    samples = [tuple(int(v) for v in rng.choice(ages, size=size, replace=False)) for size in (9, 14, 40, 301)]
    beta = _beta(PUBLIC_SIZE)
    return (
        ((37,), 0.5),                                   # one record: only the padding gives a gap
        ((0, 100, 0, 100, 0), beta),                    # A(0) = A(1) = 100: starting at k = 1 falls short
        ((50, 50, 50), 0.1),                            # duplicates
        ((0, 0, 0), 1.0),                               # the lower end repeated
        ((20, 20, 80, 80), 0.05),                       # even size, two pairs of duplicates
        ((12, 30, 45, 71, 88), 0.3),                    # distinct values
        ((0, 50, 50, 50, 100), beta),
        ((0, 0, 50, 50, 100), beta),
        ((-5, 30, 120), 0.2),                           # values outside [0, 100] are clipped first
        (samples[0], beta),
        (samples[1], 0.2),
        (samples[2], 0.02),
        ((0, 100, 100), 0.1),                           # the best pair ends at the median: j = m counts
        ((30, 60, 61), 0.5),                            # the same, inside the range
        (samples[3], 0.001),                            # 301 ages, small beta: the best pair is >= 200 apart
    )


SHOWN = 40                           # a case with more records is shown by its size and first values


def show_smooth_case(case: tuple) -> str:
    """The case as a feedback message names it: the data in full when short, else its size and first values."""
    data, beta = case
    if len(data) <= SHOWN:
        return f"data = {data}, beta = {beta:.6g}"
    head = ", ".join(str(v) for v in data[:3])
    return f"data = ({head}, ...), len(data) = {len(data)}, beta = {beta:.6g}"


register(
    Exercise(
        "06.1", "Definition 19, unrepaired",
        (Number(unrepaired, decimals=5),),
        (Mistake(EPSILON_1,
                 {"en": "that is the ε promised; with k from 1, S can fall below LS by a factor e^(−β), and the slide "
                        "pays for it",
                  "zh": "那是名义上的 ε；k 从 1 开始时，S 可能比 LS 小一个因子 e^(−β)，平移要为此付出代价"}),
         Mistake(EPSILON_1 * math.exp(_beta(PUBLIC_SIZE, EPSILON_1)),
                 # a true but looser guarantee: the prompt asks for the smallest epsilon the proof gives
                 {"en": "that ε holds too, but it is not the smallest: it multiplies all of ε by e^β, while only the "
                        "slide (ε/2) pays e^β and the stretch keeps its ε/2",
                  "zh": "这个 ε 也成立，但不是最小的：它把整个 ε 都乘以 e^β，而只有平移（ε/2）要乘 e^β，伸缩仍是 ε/2"}),
         Mistake(unrepaired(1.0),
                 {"en": "that is the lesson's ε = 1; the exercise asks for ε = 0.5, and β changes with ε",
                  "zh": "那是课文里 ε = 1 时的值；本题的 ε 是 0.5，而 β 随 ε 而变"}),
         Mistake(round(unrepaired(1.0), 4),  # the lesson prints it to 4 decimals
                 {"en": "that is the lesson's ε = 1; the exercise asks for ε = 0.5, and β changes with ε",
                  "zh": "那是课文里 ε = 1 时的值；本题的 ε 是 0.5，而 β 随 ε 而变"}),
         Mistake(unrepaired(EPSILON_1) / EPSILON_1,
                 {"en": "that is (1 + e^β)/2, the factor on ε; multiply it by ε = 0.5",
                  "zh": "那是 (1 + e^β)/2，即 ε 要乘的因子；还要乘以 ε = 0.5"}),
         Mistake(EPSILON_1 * (1 + math.exp(_beta(PUBLIC_SIZE, EPSILON))) / 2,
                 {"en": "that takes the lesson's β, computed at ε = 1; at ε = 0.5 β is smaller, as β changes with ε",
                  "zh": "那用的是课文里 ε = 1 时算出的 β；ε = 0.5 时 β 更小，因为 β 随 ε 而变"}),
         Mistake(math.exp(_beta(PUBLIC_SIZE, EPSILON_1)),
                 {"en": "that is e^β, the factor that repairs S; the question asks for the ε of the unrepaired release",
                  "zh": "那是修正 S 的因子 e^β；题目问的是不加修正时发布的 ε"}),
         Mistake(EPSILON_1 / 2 * (1 + math.exp(-_beta(PUBLIC_SIZE, EPSILON_1))),
                 {"en": "that is below ε: S too small means more privacy loss, so the factor is e^β, not e^(−β)",
                  "zh": "那比 ε 还小：S 偏小意味着隐私损失更大，所以因子是 e^β，而不是 e^(−β)"}),
         Mistake(unrepaired(size=ADULT_SIZE),
                 {"en": "that β comes from δ = 1/n² with n = 32,561; the lesson's convention is δ = 1/N², "
                        "N = 48,842",
                  "zh": "那个 β 来自 n = 32,561 时的 δ = 1/n²；本课约定取 δ = 1/N²，N = 48,842"})),
    ),
    Exercise(
        "06.2", "the smooth bound of a small mean",
        (Number(lambda: survey_final(_beta(SURVEY_BOUND))[0]),
         Number(lambda: survey_final(_beta(SURVEY_BOUND))[1], decimals=0)),
        (Mistake((2 * (UPPER - LOWER) / SURVEY_SIZE, 0),
                 {"en": "that is 2(u − l)/n, the k = 0 term: with only 50 records the maximum is no longer at k = 0",
                  "zh": "那是 k = 0 那一项 2(u − l)/n：只有 50 条记录时，最大值已经不在 k = 0 处"}),
         Mistake(survey_final(_beta(SURVEY_SIZE)),
                 {"en": "that β uses δ = 1/n² from the private n = 50; take δ from the published size bound N = 100",
                  "zh": "那个 β 用的是由私有的 n = 50 得到的 δ = 1/n²；δ 应当取自公开的数据量上界 N = 100"}),
         Mistake(survey_final(_beta(PUBLIC_SIZE)),
                 {"en": "that β uses the lesson's δ = 1/48,842²; δ must come from this survey's public N = 100",
                  "zh": "那个 β 用的是课文的 δ = 1/48,842²；δ 应当取自这项调查公开的 N = 100"}),
         Mistake(survey_final(_beta(SURVEY_BOUND), book=True),
                 {"en": "that uses the chapter's u/(n − k + 1), which leaves out removals; use (u − l)/max(n − k, 1)",
                  "zh": "那用的是书中的 u/(n − k + 1)，它没有算删除；应当用 (u − l)/max(n − k, 1)"}),
         Mistake(survey_final(_beta(SURVEY_BOUND), last=SURVEY_SIZE - 2),
                 {"en": "k runs to n: the datasets with the fewest records can give the maximum",
                  "zh": "k 要一直取到 n：记录最少的那些数据集可能给出最大值"}),
         Mistake(survey_final(_beta(SURVEY_BOUND), factor=1.0),
                 {"en": "that is S; the final sensitivity of the chapter is 2S",
                  "zh": "那是 S；书中的最终敏感度是 2S"})),
    ),
    Exercise(
        "06.3", "which noise is larger?",
        (Number(lambda: _sd_heavy(smooth.heavy_tail_beta(EPSILON)) / _sd_laplace(_beta(PUBLIC_SIZE))),),
        (Mistake(smooth.heavy_tail_scale(_s(smooth.heavy_tail_beta(EPSILON)), EPSILON)
                 / (2 * _s(_beta(PUBLIC_SIZE)) / EPSILON),
                 {"en": "that compares the noise scales 10S/ε and 2S/ε; Laplace's standard deviation is √2 times "
                        "its scale",
                  "zh": "那比较的是噪声尺度 10S/ε 和 2S/ε；拉普拉斯噪声的标准差是其尺度的 √2 倍"}),
         Mistake(_sd_heavy(_beta(PUBLIC_SIZE)) / _sd_laplace(_beta(PUBLIC_SIZE)),
                 {"en": "the heavy tail's S must be computed at its own β = ε/10, not at Laplace's",
                  "zh": "重尾噪声的 S 必须用它自己的 β = ε/10 计算，而不是拉普拉斯的 β"}),
         Mistake(_sd_laplace(_beta(PUBLIC_SIZE)) / _sd_heavy(smooth.heavy_tail_beta(EPSILON)),
                 {"en": "that is Laplace over the heavy tail; the question divides the other way",
                  "zh": "那是拉普拉斯除以重尾噪声；题目要的是反过来相除"}),
         Mistake(_sd_heavy(smooth.heavy_tail_beta(EPSILON)) / _sd_laplace(_beta(FIRST)),
                 {"en": "that is δ = 1/n² with n = 100; the exercise keeps the lesson's convention δ = 1/N², "
                        "N = 48,842",
                  "zh": "那是 n = 100 时的 δ = 1/n²；本题仍按本课的约定取 δ = 1/N²，N = 48,842"}),
         Mistake(_sd_heavy(smooth.heavy_tail_beta(EPSILON)) / _sd_laplace(_beta(ADULT_SIZE)),
                 # 0.3968: a right answer rounded to 1 decimal (0.4) lands here too, so the hint names both
                 {"en": "either the Laplace β uses δ = 1/n² with n = 32,561 (the lesson's convention is "
                        "δ = 1/N², N = 48,842), "
                        "or the ratio is rounded to 1 decimal (give 2)",
                  "zh": "要么拉普拉斯的 β 用了 n = 32,561 时的 δ = 1/n²（本课约定取 δ = 1/N²，N = 48,842），"
                        "要么比值只保留了 1 位小数（请保留 2 位）"})),
    ),
    Exercise(
        "06.4", "the smooth median from its formula",
        (Function(smooth_median_cases, smooth_median_truth, show=show_smooth_case),),
        (Mistake(mistake_no_padding,
                 {"en": "pad the sorted data with both ends of the clipping range, and let i reach 0 and j reach "
                        "n + 1: a replacement can bring either end in",
                  "zh": "要在排序后的数据两端补上裁剪范围的两个端点，并让 i 取到 0、j 取到 n + 1："
                        "替换可能带进来任何一端"}),
         Mistake(mistake_from_k_1,
                 {"en": "that is Definition 19, k from 1: it leaves out the pairs with j − i − 1 = 0, the local "
                        "sensitivity itself",
                  "zh": "那是书中框架的做法，k 从 1 开始：它漏掉了 j − i − 1 = 0 的那些对，也就是局部敏感度本身"}),
         Mistake(mistake_j_after_m,
                 {"en": "j runs from m, not m + 1: a pair may end at the median itself",
                  "zh": "j 从 m 开始，而不是 m + 1：下标对的右端 j 可以就是中位数所在的位置 m"}),
         Mistake(mistake_k_below_200,
                 {"en": "that stops at j − i − 1 < 200, like the chapter's loop over k: S is the maximum over every "
                        "k, and with a small β far pairs can win",
                  "zh": "那在 j − i − 1 < 200 处就停了，和书中对 k 的循环一样：S 是对所有 k 取的最大值，"
                        "β 很小时远处的对也可能胜出"}),
         Mistake(mistake_i_before_m,
                 {"en": "i runs to m inclusive, range(m + 1): a pair may start at the median itself",
                  "zh": "i 要取到 m（含 m），即 range(m + 1)：下标对的左端 i 可以就是中位数所在的位置 m"}),
         Mistake(mistake_i_from_1,
                 {"en": "i runs from 0: x_(0) = l is a pair end too, range(m + 1)",
                  "zh": "i 从 0 开始：x_(0) = l 也可以是下标对的一端，即 range(m + 1)"}),
         Mistake(mistake_j_before_end,
                 {"en": "j runs to the padded end n + 1 inclusive, range(m, last + 1): a replacement can bring u in",
                  "zh": "j 要取到补齐后的末端 n + 1（含），即 range(m, last + 1)：替换可能带进来上端 u"}),
         Mistake(mistake_local_only,
                 {"en": "that is the local sensitivity A^(0)(x): the smooth sensitivity also looks at pairs farther "
                        "from the median, discounted",
                  "zh": "那是局部敏感度 A^(0)(x)：平滑敏感度还要看离中位数更远、打了折扣的那些对"})),
    ),
)
