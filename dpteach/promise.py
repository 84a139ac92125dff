r"""What an :math:`\varepsilon`-DP guarantee promises, as arithmetic (lesson 01, ``01_what_dp_promises.ipynb``).

* :func:`laplace_scale` — the Laplace mechanism's noise scale :math:`b = \Delta/\varepsilon`;
* :func:`odds_bound` and :func:`posterior_bound` — what one output can do to an observer's odds;
* :func:`sequential_composition` — the total cost of several releases about the same people;
* :func:`group_epsilon` — the guarantee of an :math:`\varepsilon`-DP mechanism for a group of :math:`k` records.

Each function states its math; none adds noise (the mechanisms are in :mod:`dpteach.mechanisms`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from numbers import Real

from dpteach.mechanisms import check_epsilon, check_sensitivity
from dpteach.queries import check_int


def laplace_scale(sensitivity: float, epsilon: float) -> float:
    r"""The scale :math:`b = \Delta / \varepsilon` of the Laplace noise that makes a query of sensitivity
    :math:`\Delta` (under a neighbour relation) :math:`\varepsilon`-DP under that same relation. Lesson 01."""
    return check_sensitivity(sensitivity) / check_epsilon(epsilon)


def odds_bound(epsilon: float) -> float:
    r""":math:`e^{\varepsilon}`: the largest factor by which one output of an :math:`\varepsilon`-DP mechanism
    can multiply an observer's odds between two neighbouring datasets,

    .. math:: \frac{\Pr[x \mid o]}{\Pr[x' \mid o]} = \frac{\Pr[x]}{\Pr[x']} \cdot \frac{p_x(o)}{p_{x'}(o)}
              \le e^{\varepsilon} \frac{\Pr[x]}{\Pr[x']}

    (Bayes' rule, then the definition). Refuses :math:`\varepsilon > 700`, where :math:`e^\varepsilon`
    overflows a double. Lesson 01."""
    epsilon = check_epsilon(epsilon)
    if epsilon > 700:
        raise ValueError(f"epsilon must be <= 700 (e**epsilon overflows beyond 709.78), got {epsilon!r}")
    return math.exp(epsilon)


def posterior_bound(prior: float, epsilon: float) -> float:
    r"""The highest probability an observer can give to :math:`x` (rather than its neighbour :math:`x'`) after
    one output of an :math:`\varepsilon`-DP mechanism, when it gave ``prior`` :math:`= p` before:

    .. math:: p' = \frac{e^{\varepsilon} o}{1 + e^{\varepsilon} o}, \qquad o = \frac{p}{1 - p}.

    Odds are multiplied by at most :math:`e^\varepsilon`; a probability is not (:math:`p e^\varepsilon` can
    exceed 1). ``prior`` must lie in :math:`(0, 1)`. Lesson 01."""
    if isinstance(prior, bool) or not isinstance(prior, Real):
        raise TypeError(f"prior must be a real number in (0, 1), got {type(prior).__name__}")
    if not 0 < prior < 1:
        raise ValueError(f"prior must be in (0, 1), got {prior!r}")
    odds = odds_bound(epsilon) * prior / (1 - prior)
    return odds / (1 + odds)


def sequential_composition(guarantees: Sequence[float | tuple[float, float]]) -> tuple[float, float]:
    r"""The total :math:`(\varepsilon, \delta)` of running mechanisms one after the other on the same data
    (each may see the earlier outputs): :math:`(\sum_i \varepsilon_i, \sum_i \delta_i)`.

    Each guarantee is an :math:`\varepsilon` (pure DP, :math:`\delta_i = 0`) or a pair
    :math:`(\varepsilon_i, \delta_i)` with :math:`0 \le \delta_i < 1`; all must hold under the same neighbour
    relation. This is the basic composition theorem (Dwork & Roth 2014, Theorem 3.16); post-processing an
    output adds nothing. Lesson 01."""
    if isinstance(guarantees, str | bytes) or not isinstance(guarantees, Sequence) or not guarantees:
        raise ValueError(f"guarantees must be a non-empty sequence of epsilons or (epsilon, delta) pairs, "
                         f"got {guarantees!r}")
    total_epsilon = total_delta = 0.0
    for guarantee in guarantees:
        epsilon, delta = guarantee if isinstance(guarantee, tuple) else (guarantee, 0.0)
        if isinstance(delta, bool) or not isinstance(delta, Real) or not 0 <= delta < 1:
            raise ValueError(f"each delta must be a number in [0, 1), got {delta!r}")
        total_epsilon += check_epsilon(epsilon)
        total_delta += float(delta)
    return total_epsilon, min(total_delta, 1.0)


def group_epsilon(epsilon: float, k: int) -> float:
    r""":math:`k\varepsilon`: the guarantee an :math:`\varepsilon`-DP mechanism gives a group of :math:`k`
    records, where :math:`k` counts steps of the mechanism's own neighbour relation (records added or removed
    under add/remove, records *replaced* under replace-one). Walking :math:`x = x_0, x_1, \dots, x_k = x'`
    one neighbour at a time multiplies the bound :math:`e^{\varepsilon}` :math:`k` times. Lesson 01."""
    return check_int("k", k, 1) * check_epsilon(epsilon)
