"""The exercises of notebook 04 (smooth sensitivity from scratch): the right answers and the mistakes each one must
catch."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from dpteach import smooth
from dpteach.exercises.core import (
    Example,
    Exercise,
    Invalid,
    Language,
    Mistake,
    Number,
    describe,
    read_number,
    register,
    say,
)
from dpteach.queries import evaluate

TABLE_UNIVERSE = (1, 2, 3, 10, 11)  # notebook 03's median table: releases of three
X = (1, 2, 3)


def curve(release: Sequence[float], query: str = "median", relation: str = "bounded") -> list[float]:
    """A^(0), A^(1), ... of ``release`` in the table universe, from dpteach."""
    return [float(a) for a in smooth.local_sensitivity_by_distance(release, TABLE_UNIVERSE, query, relation=relation)]


def smooth_from(values: Sequence[float], beta: float, start: int = 0) -> float:
    """max over k >= start of e^(-βk) A^(k); start = 1 is the book chapter's Definition 19."""
    return max(math.exp(-beta * k) * a for k, a in enumerate(values) if k >= start)


# --- Exercise 1: one row of the table at two values of β --------------------------------------------------------------

ROW, BETAS = (2, 3, 10), (0.5, 0.05)


def row_smooth(beta: float) -> float:
    return smooth.smooth_sensitivity(ROW, TABLE_UNIVERSE, "median", beta=beta)


# --- Exercise 2: the β from which on S*(x) is LS(x) -------------------------------------------------------------------


def threshold(values: Sequence[float], terms: Iterable[int] | None = None) -> float:
    """The smallest β with e^(-βk) A^(k) <= A^(0) for every k >= 1 (or only for ``terms``): max_k ln(A^(k)/A^(0))/k.

    S* = A^(0) exactly when every discounted term is at most A^(0), that is β >= ln(A^(k)/A^(0))/k for each k.
    """
    ks = range(1, len(values)) if terms is None else terms
    return max(0.0, *(math.log(values[k] / values[0]) / k for k in ks))


# --- Exercise 3: the heavy-tail multiplier for pure ε-DP --------------------------------------------------------------

PURE_EPSILON = 2.0
NOTEBOOK_DELTA = 1e-3  # the δ notebook 04 pairs with Laplace noise


def multiplier(beta: float, epsilon: float = PURE_EPSILON) -> float:
    """10 S*/ε (γ = 4) with S* of x at ``beta``."""
    return smooth.heavy_tail_scale(smooth.smooth_sensitivity(X, TABLE_UNIVERSE, "median", beta=beta), epsilon)


def pure_s_star() -> float:
    return smooth.smooth_sensitivity(X, TABLE_UNIVERSE, "median", beta=smooth.heavy_tail_beta(PURE_EPSILON))


# --- Exercise 5: β and the edge t of the stretch, for a smaller δ ---------------------------------------------------

SMALL_DELTA = 1e-6  # with ε = 1


def stretch_edge(beta: float, epsilon: float = 1.0) -> float:
    """t = (ε/2 + β)/(e^β - 1): up to |z| = t the stretch by e^β costs Laplace at most ε/2."""
    return (epsilon / 2 + beta) / math.expm1(beta)


def beta_and_edge(beta: float) -> tuple[float, float]:
    return beta, stretch_edge(beta)


@dataclass(frozen=True)
class EitherEdge(Number):
    """t to 2 decimals, from the unrounded β (``expected``) or from β rounded to 4 decimals (``rounded``)."""

    rounded: Callable[[], float] = lambda: math.nan

    def judge(self, mine: object, language: Language) -> tuple[bool, str | None]:
        return self.same(mine, self.truth()) or self.same(mine, float(self.rounded())), None


@dataclass(frozen=True)
class BetaHints(Exercise):
    """Names a declared mistake by its β alone when the rest of the answer matches none (a wrong β, any t)."""

    def recognise(self, mine: tuple[object, ...], language: Language) -> str | None:
        hint = super().recognise(mine, language)
        if hint is not None or self.parts[0].judge(mine[0], language)[0]:
            return hint
        for mistake in self.mistakes:
            if self.parts[0].same(mine[0], self.read(mistake.answer, language)[0]):
                return say(mistake.hint, language)
        return None


# --- Exercise 4: neighbours under add/remove, A^(1) and S* of the mean ----------------------------------------------

SYM_BETA = 0.25  # a β at which S*(x) is neither LS(x) nor the k = 1 term: the smoothing step is tested
SYM_QUERY = "mean"
NEIGHBOUR_CASES: tuple[tuple[float, ...], ...] = ((1, 2, 3), (2,), (10, 11), (1, 3, 10), (1, 2, 3, 10, 11))

Neighbours = Callable[[tuple], Iterable[Sequence[float]]]


def as_dataset(data: Sequence[float]) -> tuple[float, ...]:
    return tuple(sorted(float(v) for v in data))


def neighbours_reference(data: tuple) -> set[tuple]:
    """One record of the universe added (a value data lacks: U has no repeats) or one removed, never empty."""
    added = {as_dataset(data + (v,)) for v in TABLE_UNIVERSE if v not in data}
    removed = {as_dataset(data[:i] + data[i + 1:]) for i in range(len(data))} if len(data) > 1 else set()
    return added | removed


def mistake_replacements(data: tuple) -> set[tuple]:
    """Bounded neighbours (one record replaced): two steps of add/remove DP."""
    spare = [v for v in TABLE_UNIVERSE if v not in data]
    return {as_dataset(data[:i] + data[i + 1:] + (v,)) for i in range(len(data)) for v in spare}


def mistake_repeats(data: tuple) -> set[tuple]:
    """Adds any value of U, also one data already holds: datasets the universe cannot form."""
    added = {as_dataset(data + (v,)) for v in TABLE_UNIVERSE}
    removed = {as_dataset(data[:i] + data[i + 1:]) for i in range(len(data))} if len(data) > 1 else set()
    return added | removed


def from_scratch(neighbours: Neighbours, beta: float) -> tuple[float, float]:
    """A^(1)(x) and S*(x) of the mean with the notebook's solution code and ``neighbours``, k up to |U|."""
    def ls(data: tuple) -> float:
        return max(abs(evaluate(SYM_QUERY, data) - evaluate(SYM_QUERY, y)) for y in neighbours(data))

    balls = [{as_dataset(X)}]
    for _ in TABLE_UNIVERSE:
        balls.append(balls[-1] | {as_dataset(y) for z in balls[-1] for y in neighbours(z)})
    values = [max(ls(y) for y in ball) for ball in balls]
    return values[1], smooth_from(values, beta)


def read_neighbours(answer: object, language: Language) -> tuple[frozenset[tuple[float, ...]], ...]:
    """The student's ``neighbours_sym`` run on every case: one set of sorted datasets per case."""
    if not callable(answer):
        raise Invalid({"en": f"the first answer must be your function neighbours_sym, got {describe(answer)}",
                       "zh": f"第一个答案应当是你的函数 neighbours_sym，得到的是 {describe(answer)}"}[language])
    sets = []
    for data in NEIGHBOUR_CASES:
        try:
            output = answer(tuple(data))
        except Exception as error:  # the student's code: report it, never a traceback
            raise Invalid({"en": f"neighbours_sym raised {type(error).__name__}: {error} on the input {data}",
                           "zh": f"neighbours_sym 在输入 {data} 上抛出了 {type(error).__name__}：{error}"}[language]
                          ) from None
        if isinstance(output, str | bytes) or not isinstance(output, Iterable):
            raise Invalid({"en": f"neighbours_sym{data} returned {describe(output)}; it should return a set of "
                                 "datasets (sorted tuples)",
                           "zh": f"neighbours_sym{data} 返回了 {describe(output)}；它应当返回数据集（排好序的元组）"
                                 "组成的集合"}[language])
        datasets = []
        for y in output:
            if isinstance(y, str | bytes) or not isinstance(y, Iterable):
                raise Invalid({"en": f"neighbours_sym{data} holds {describe(y)}, which is not a dataset (a tuple)",
                               "zh": f"neighbours_sym{data} 里有 {describe(y)}，它不是数据集（元组）"}[language])
            datasets.append(tuple(sorted(read_number(v, language) for v in y)))
        sets.append(frozenset(datasets))
    return tuple(sets)


def neighbours_right(sets: object, language: Language) -> str | None:
    for data, mine in zip(NEIGHBOUR_CASES, sets, strict=True):  # type: ignore[call-overload]
        truth = neighbours_reference(data)
        if () in mine:
            return {"en": f"neighbours_sym{data} holds the empty dataset; a dataset is never empty",
                    "zh": f"neighbours_sym{data} 里有空数据集；数据集永远不为空"}[language]
        extra = sorted(mine - truth)
        if extra:
            return {"en": f"neighbours_sym{data} holds {extra[0]}, which is not one addition or removal away",
                    "zh": f"neighbours_sym{data} 里的 {extra[0]} 不是加一条或删一条记录得到的"}[language]
        if mine != truth:
            missing = len(truth - mine)
            return {"en": f"neighbours_sym{data} misses {missing} of its {len(truth)} neighbours",
                    "zh": f"neighbours_sym{data} 漏掉了它的 {len(truth)} 个邻居中的 {missing} 个"}[language]
    return None


def sym_truth() -> tuple[float, float]:
    return (smooth.local_sensitivity_at_distance(X, TABLE_UNIVERSE, SYM_QUERY, 1, relation="symmetric"),
            smooth.smooth_sensitivity(X, TABLE_UNIVERSE, SYM_QUERY, beta=SYM_BETA, relation="symmetric"))


def sym_mistake(values: Callable[[list[float]], float]) -> tuple[Neighbours, float, float]:
    """The right function and A^(1), with S* replaced by ``values`` of the symmetric curve."""
    return neighbours_reference, sym_truth()[0], values(curve(X, SYM_QUERY, "symmetric"))


def with_function(neighbours: Neighbours) -> tuple[Neighbours, float, float]:
    return (neighbours, *from_scratch(neighbours, SYM_BETA))


register(
    Exercise(
        "04.1", "S* of one row at two values of β",
        tuple(Number(lambda b=b: row_smooth(b)) for b in BETAS),
        (Mistake(tuple(smooth_from(curve(ROW), b, start=1) for b in BETAS),
                 "that starts the maximum at k = 1 (the book chapter's Definition 19): the k = 0 term, LS(x), "
                 "belongs to it, so S* is never below LS"),
         Mistake((curve(ROW)[0],) * 2, "that is LS(x) at both β: the datasets a few steps away count too, "
                 "discounted by e^(-βk)"),
         Mistake((max(curve(ROW)),) * 2, "that leaves out the discount e^(-βk): a dataset k steps away demands "
                 "only e^(-βk) times its local sensitivity")),
    ),
    Exercise(
        "04.2", "the β from which on S* is LS",
        (Number(lambda: threshold(curve(X))),),
        (Mistake(threshold(curve(X), terms=[2]),
                 "that makes the k = 2 term equal to LS(x); another term stays above it longer"),
         Mistake(math.log10(curve(X)[1] / curve(X)[0]),
                 "that uses the base-10 logarithm; e^(-β) calls for the natural one"),
         Mistake(curve(X)[1] / curve(X)[0], "that is the ratio A^(1)/LS; β sits in the exponent")),
    ),
    Exercise(
        "04.3", "the heavy-tail multiplier for pure ε-DP",
        (Number(lambda: multiplier(smooth.heavy_tail_beta(PURE_EPSILON))),),
        (Mistake(multiplier(smooth.laplace_beta(PURE_EPSILON, NOTEBOOK_DELTA)),
                 "that computes S* with the Laplace β = ε/(2 ln(2/δ)) at δ = 10⁻³; the heavy-tailed noise for "
                 "pure ε-DP has no δ and its own β"),
         Mistake(smooth.heavy_tail_scale(pure_s_star(), 1.0), "you forgot to divide by ε"),
         Mistake(2 * pure_s_star() / PURE_EPSILON,
                 "that is Laplace's scale 2S*/ε, and at ε = 2 also S* alone, with no multiplier; the "
                 "heavy-tailed Z is multiplied by 2(γ + 1)S*/ε"),
         Mistake(smooth.heavy_tail_scale(curve(X)[0], PURE_EPSILON),
                 "that scales LS(x), not S*(x): the noise of lesson 03's leak"),
         Mistake(8 * pure_s_star() / PURE_EPSILON,
                 "valid, but not the lesson's constants: that multiplier takes α = ε/8 (still within ε/2 for the "
                 "slide); the question fixes α = β = ε/10")),
    ),
    Exercise(
        "04.4", "smooth sensitivity from scratch under add/remove",
        (Example(read_neighbours, neighbours_right),
         Number(lambda: sym_truth()[0]),
         Number(lambda: sym_truth()[1])),
        (Mistake(sym_mistake(lambda values: values[0]),
                 "your S* is LS(x), the k = 0 term: at this β a dataset farther away demands more"),
         Mistake(sym_mistake(lambda values: smooth_from(values[:2], SYM_BETA)),
                 "your S* stops at k = 1: the maximum runs over every distance, up to 5"),
         Mistake(sym_mistake(max), "your S* leaves out the discount e^(-βk)"),
         Mistake(with_function(mistake_replacements),
                 "neighbours_sym replaces a record: under add/remove DP that is two steps, one removal and one "
                 "addition"),
         Mistake(with_function(mistake_repeats),
                 "neighbours_sym adds values the data already holds: the universe holds each value once")),
    ),
    BetaHints(
        "04.5", "the Laplace β and the edge of the stretch for a smaller δ",
        (Number(lambda: smooth.laplace_beta(1.0, SMALL_DELTA), decimals=4),
         # t moves by about -420 per unit of β: from the unrounded β 15.243, from the 4-decimal β 15.227
         EitherEdge(lambda: stretch_edge(smooth.laplace_beta(1.0, SMALL_DELTA)),
                    rounded=lambda: stretch_edge(round(smooth.laplace_beta(1.0, SMALL_DELTA), 4)))),
        (Mistake(beta_and_edge(1 / (2 * math.log(1 / SMALL_DELTA))),
                 "that β is valid, but not the β derived here: it charges the tail δ, not δ/2"),
         Mistake(beta_and_edge(1 / math.log(2 / SMALL_DELTA)),
                 "that gives the stretch the whole ε; the slide takes the other half (α = ε/2)"),
         Mistake(beta_and_edge(1 / (2 * math.log10(2 / SMALL_DELTA))),
                 "that uses the base-10 logarithm; the Laplace tail e^(-t) calls for the natural one"),
         Mistake((smooth.laplace_beta(1.0, SMALL_DELTA), math.log(2 / SMALL_DELTA)),
                 "that t is ln(2/δ), what the first-order choice of β aims at; compute t from its formula")),
    ),
)
