"""The exercises of lesson 01 (what differential privacy promises): the right answers and the mistakes each catches."""

from __future__ import annotations

import math

from dpteach.exercises.core import Choice, Exercise, Function, Mistake, Number, Scale, register
from dpteach.promise import group_epsilon, laplace_scale, odds_bound, posterior_bound, sequential_composition
from dpteach.sensitivity import neighbours_of

# Exercise 1: the neighbours of x in a universe of five values
RELEASE, UNIVERSE = (1, 2, 3), (1, 2, 3, 10, 11)


def neighbour_count(relation: str) -> int:
    """How many distinct datasets are neighbours of RELEASE under ``relation`` ("symmetric": add/remove,
    "bounded": replace-one)."""
    return len(neighbours_of(RELEASE, UNIVERSE, "sum", relation=relation))


# Exercise 2: a sum of absence days, each at most 10; the student writes privacy_loss(z, sum_x, sum_x_prime, scale)
SUM_DELTA, SUM_EPSILON = 10, 0.5
# outputs below, between and above both sums, the two sums either way round, and scales other than the exercise's
LOSS_CASES = ((0, 6, 10, 5), (30, 6, 16, 10), (8, 6, 16, 10), (11, 6, 16, 10), (-5, 16, 6, 2.5), (12, 10, 6, 4))
# Exercise 3: a prior of 10 % and epsilon = 1
PRIOR, ODDS_EPSILON = 0.1, 1.0
# Exercise 4: a sum at 0.5 and a count at 0.25 (the likely slip charges the mean again, at the count's 0.25),
# then a budget of 1 split over four counts
MEAN_SPEND, BUDGET, COUNTS = (0.5, 0.25), 1.0, 4
# Exercise 5: a family of three, 0.5-DP under replace-one; a sum with one-record sensitivity 10
FAMILY, FAMILY_EPSILON = 3, 0.5


def _from_odds(odds: float) -> float:
    """The probability whose odds are ``odds``."""
    return odds / (1 + odds)


def privacy_loss(z: float, sum_x: float, sum_x_prime: float, scale: float) -> float:
    """The privacy loss ln(p_x(z) / p_x'(z)) between Laplace noises of ``scale`` centred at the two sums."""
    return (abs(z - sum_x_prime) - abs(z - sum_x)) / scale


def _loss_upside_down(z: float, sum_x: float, sum_x_prime: float, scale: float) -> float:
    return -privacy_loss(z, sum_x, sum_x_prime, scale)


def _ratio_without_log(z: float, sum_x: float, sum_x_prime: float, scale: float) -> float:
    return math.exp(privacy_loss(z, sum_x, sum_x_prime, scale))


def _loss_at_a_fixed_scale(z: float, sum_x: float, sum_x_prime: float, scale: float) -> float:
    return privacy_loss(z, sum_x, sum_x_prime, SUM_DELTA / SUM_EPSILON)


def prior_times(factor: float) -> float:
    """The probability an observer reaches when its prior odds are multiplied by ``factor``."""
    odds = factor * PRIOR / (1 - PRIOR)
    return odds / (1 + odds)


register(
    Exercise(
        "01.1", "the neighbours of x = {1, 2, 3}",
        (Number(lambda: neighbour_count("symmetric")), Number(lambda: neighbour_count("bounded")),
         Choice(("a", "b", "c"), "c")),
        (Mistake((3, 6, "c"), "you counted the removals only: adding a value the universe holds beyond x also "
                              "makes a neighbour"),
         Mistake((2, 6, "c"), "you counted the additions only: removing one of x's records also makes a neighbour"),
         Mistake((5, 2, "c"), "count datasets, not values: each of x's records can be replaced by 10 or by 11"),
         Mistake((5, 3 * (len(UNIVERSE) - 1), "c"),
                 "each record is one person, present at most once: a replacement brings in a record from the "
                 "universe that x does not already hold, and 2 is Kelly, who is already in x"),
         Mistake((5, 6, "b"), "a replacement keeps the size; {1, 2, 10, 11} has four records"),
         Mistake((5, 6, "a"), "one record more is not enough: compare the records themselves, which ones left x "
                              "and which came in?")),
    ),
    Exercise(
        "01.2", "a Laplace scale, and the privacy loss in code",
        (Scale(lambda: laplace_scale(SUM_DELTA, SUM_EPSILON)), Function(lambda: LOSS_CASES, privacy_loss)),
        (Mistake((SUM_DELTA * SUM_EPSILON, privacy_loss), "the scale divides the sensitivity by ε; it does not "
                                                          "multiply it"),
         Mistake((SUM_EPSILON / SUM_DELTA, privacy_loss), "ε / Δ is upside down: a larger sensitivity needs more "
                                                          "noise"),
         Mistake((SUM_DELTA, privacy_loss), "the scale is Δ / ε: a smaller ε needs more noise"),
         Mistake((laplace_scale(SUM_DELTA, SUM_EPSILON), _loss_upside_down),
                 "the density under x goes on top: ln(p_x(z) / p_x'(z)), positive where x is the likelier"),
         Mistake((laplace_scale(SUM_DELTA, SUM_EPSILON), _ratio_without_log),
                 "that is the ratio of the densities; the privacy loss is its logarithm (np.log)"),
         Mistake((laplace_scale(SUM_DELTA, SUM_EPSILON), _loss_at_a_fixed_scale),
                 "use the argument scale, not a fixed number: the check tries other scales too")),
    ),
    Exercise(
        "01.3", "what ε = 1 does to a 10 % guess",
        (Number(lambda: odds_bound(ODDS_EPSILON)), Number(lambda: posterior_bound(PRIOR, ODDS_EPSILON))),
        (Mistake((ODDS_EPSILON, prior_times(ODDS_EPSILON)),
                 "ε is the logarithm of the factor: the factor is e to the power ε"),
         Mistake((1 + ODDS_EPSILON, prior_times(1 + ODDS_EPSILON)),
                 "1 + ε is close to e^ε only when ε is small"),
         Mistake((odds_bound(ODDS_EPSILON), PRIOR * odds_bound(ODDS_EPSILON)),
                 "the bound multiplies the odds p / (1 − p), not the probability p"),
         Mistake((odds_bound(ODDS_EPSILON), _from_odds(PRIOR * odds_bound(ODDS_EPSILON))),
                 "0.1 is a probability, not odds: its odds are 0.1 / 0.9")),
    ),
    Exercise(
        "01.4", "the cost of a mean, and a budget split four ways",
        (Number(lambda: sequential_composition(list(MEAN_SPEND))[0]),
         Scale(lambda: laplace_scale(1, BUDGET / COUNTS))),
        (Mistake((max(MEAN_SPEND), laplace_scale(1, BUDGET / COUNTS)),
                 "both releases are about the same students: their ε add up"),
         Mistake((sum(MEAN_SPEND) + min(MEAN_SPEND), laplace_scale(1, BUDGET / COUNTS)),
                 "the mean is not a third release: dividing the two noisy outputs touches no data"),
         Mistake((2 * sum(MEAN_SPEND), laplace_scale(1, BUDGET / COUNTS)),
                 "the mean is computed from the two noisy outputs only: post-processing costs nothing"),
         Mistake((sum(MEAN_SPEND), laplace_scale(1, BUDGET)), "each count gets a quarter of the budget"),
         Mistake((sum(MEAN_SPEND), BUDGET / COUNTS), "that is each count's ε; the scale is Δ / ε")),
    ),
    Exercise(
        "01.5", "a family of three",
        (Number(lambda: group_epsilon(FAMILY_EPSILON, FAMILY)), Scale(lambda: FAMILY * SUM_DELTA)),
        (Mistake((2 * group_epsilon(FAMILY_EPSILON, FAMILY), FAMILY * SUM_DELTA),
                 "that counts each replacement as two steps, a removal and an addition: ε was stated under "
                 "replace-one, where a replacement is one step"),
         Mistake((FAMILY_EPSILON, FAMILY * SUM_DELTA),
                 "the noise was set for one record; three records can move the output three times as far"),
         Mistake((group_epsilon(FAMILY_EPSILON, FAMILY), SUM_DELTA),
                 "each of the three records can move the sum by up to Δ₁ on its own")),
    ),
    Exercise(
        "01.6", "a δ for ten thousand people",
        (Choice(("a", "b", "c", "d"), "c"),),
        (Mistake("a", "with δ = 0.01 a mechanism may publish a hundred records drawn at random, in full"),
         Mistake("b", "under replace-one, a mechanism that publishes one of n records drawn at random is "
                      "(0, 1/n)-DP: δ must be far smaller than 1/n"),
         Mistake("d", "ε does not limit what δ allows: publishing one of n records at random in full is "
                      "(0, 1/n)-DP, with an ε of 0")),
    ),
)
