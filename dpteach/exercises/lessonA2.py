"""The exercises of appendix A2 (Gaussian noise and rho-zCDP): the right answers and the mistakes each one must
catch."""

from __future__ import annotations

import math

from dpteach import transformations as tr
from dpteach.exercises.core import Choice, Exercise, Mistake, Number, register
from dpteach.mechanisms import analytic_gaussian_sigma

# --- Exercise 1: L1 for Laplace noise, L2 for Gaussian noise ---------------------------------------------------

GROUPS_1, ROWS_1, EPSILON_1, RHO_1 = 4, 3, 1.0, 2.0


def noise_1(laplace: str = "laplace", gaussian: str = "gaussian", variance: bool = True) -> tuple[float, float]:
    """(Laplace scale, Gaussian variance) for the per-clinic counts under G = 4, R = 3 caps, with the factor of
    each noise taken from the norm named (``"laplace"`` is L1, ``"gaussian"`` L2); ``variance=False`` gives the
    standard deviation instead, the slip the exercise warns about."""
    l_factor = tr.grouped_truncation_factor(GROUPS_1, ROWS_1, laplace)  # type: ignore[arg-type]
    g_factor = tr.grouped_truncation_factor(GROUPS_1, ROWS_1, gaussian)  # type: ignore[arg-type]
    spread = tr.gaussian_variance(g_factor, RHO_1)
    return tr.laplace_scale(l_factor, EPSILON_1), spread if variance else math.sqrt(spread)


# --- Exercise 3: both noises at one (epsilon, delta) promise -----------------------------------------------------

GROUPS_3, EPSILON_3, DELTA_3 = 16, 1.0, 1e-6


def sds_3(laplace_sd: bool = True, l2: bool = True, exact: bool = True) -> tuple[float, float]:
    """(standard deviation of Laplace noise, of Gaussian noise) on each clinic count at G = 16, R = 1 and
    (epsilon, delta) = (1, 1e-6). ``laplace_sd=False`` reports the Laplace scale instead of its standard
    deviation, ``l2=False`` calibrates the Gaussian to the L1 norm G, ``exact=False`` takes the zCDP route. The check
    asks for one decimal, so the sigma printed in section 3 (4.22, two decimals) gives an accepted answer too."""
    scale = tr.laplace_scale(tr.grouped_truncation_factor(GROUPS_3, 1, "laplace"), EPSILON_3)
    factor = tr.grouped_truncation_factor(GROUPS_3, 1, "gaussian" if l2 else "laplace")
    if exact:
        sigma = analytic_gaussian_sigma(1.0, EPSILON_3, DELTA_3)
    else:
        sigma = math.sqrt(tr.gaussian_variance(1.0, tr.zcdp_rho_for(EPSILON_3, DELTA_3)))
    return (math.sqrt(2) * scale if laplace_sd else scale), sigma * factor


# --- Exercise 4: where Gaussian noise wins, exact and loose ----------------------------------------------------

EPSILON_4, DELTA_4, DELTA_SECTION_3 = 1.0, 1e-9, 1e-6


def crossovers(delta: float) -> tuple[int, int]:
    """(first G with the analytic Gaussian, first G with the zCDP route) at epsilon = 1 and ``delta``, R = 1."""
    exact = analytic_gaussian_sigma(1.0, EPSILON_4, delta)
    loose = math.sqrt(tr.gaussian_variance(1.0, tr.zcdp_rho_for(EPSILON_4, delta)))
    return (tr.gaussian_beats_laplace_from(exact, EPSILON_4),
            tr.gaussian_beats_laplace_from(loose, EPSILON_4))


def floor_crossovers() -> tuple[int, int]:
    """The integer parts of (epsilon sigma)^2 / 2 for both calibrations: the last G at which Laplace noise still
    wins."""
    exact, loose = crossovers(DELTA_4)
    return exact - 1, loose - 1


register(
    Exercise(
        "A2.1", "L1 for Laplace noise, L2 for Gaussian noise",
        (Number(lambda: noise_1()[0]), Number(lambda: noise_1()[1])),
        (Mistake(noise_1("gaussian", "laplace"),
                 "the two norms are swapped: Laplace noise follows the L1 norm (the sum of the moves), Gaussian "
                 "noise the L2 norm (the root of the sum of their squares)"),
         Mistake(noise_1("laplace", "laplace"),
                 "the Gaussian variance uses the L2 norm of the change, √(G·R²), not its L1 norm R·G"),
         Mistake(noise_1("gaussian", "gaussian"),
                 "Laplace noise for pure ε-DP is calibrated to the L1 norm, R·G, not to the L2 norm"),
         Mistake(noise_1(variance=False),
                 "that is the standard deviation σ; the question asks for the variance σ² = Δ₂²/(2ρ)")),
    ),
    Exercise(
        "A2.2", "what rho-zCDP promises",
        (Choice(("a", "b", "c", "d"), "b"),),
        (Mistake("a", "ρ is not an ε, and Gaussian noise is never pure ε-DP: the ratio of two normal densities "
                      "grows without bound in the tails"),
         Mistake("c", "the variance is Δ₂²/(2ρ): it depends on the L2 sensitivity, not on ρ alone"),
         Mistake("d", "pure ε-DP implies ε²/2-zCDP, but not the other way round: Gaussian noise is never pure "
                      "ε-DP")),
    ),
    Exercise(
        "A2.3", "Laplace and Gaussian noise at one (epsilon, delta)",
        (Number(lambda: sds_3()[0], decimals=1), Number(lambda: sds_3()[1], decimals=1)),
        (Mistake(sds_3(laplace_sd=False),
                 "that is the Laplace scale λ; a Laplace variable of scale λ has standard deviation √2·λ"),
         Mistake(sds_3(l2=False),
                 "the Gaussian is calibrated to the L2 norm of the change, √G when each of G counts moves by 1"),
         Mistake(sds_3(exact=False),
                 "that σ comes from the zCDP route, a sufficient condition; the exact calibration is the analytic "
                 "Gaussian (analytic_gaussian_sigma), whose σ is smaller")),
    ),
    Exercise(
        "A2.4", "when Gaussian noise wins at δ = 10⁻⁹",
        (Number(lambda: crossovers(DELTA_4)[0]), Number(lambda: crossovers(DELTA_4)[1])),
        (Mistake((crossovers(DELTA_4)[1],) * 2,
                 "the first number uses the zCDP route; the exact calibration is the analytic Gaussian "
                 "(analytic_gaussian_sigma), whose σ is smaller"),
         Mistake(crossovers(DELTA_4)[::-1], "the two are swapped: the loose zCDP σ is larger, so its crossover "
                                            "comes later"),
         Mistake(crossovers(DELTA_SECTION_3), "those are section 3's crossovers at δ = 10⁻⁶; a smaller δ needs "
                                              "more Gaussian noise"),
         Mistake(floor_crossovers(), "the Gaussian wins for G > (εσ)²/2: the first whole number above that "
                                     "value, not its integer part")),
    ),
)
