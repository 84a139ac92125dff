"""Interactive explorers (ipywidgets): sensitivity for notebooks 02 and 03, smooth sensitivity for notebook 04.

The computation lives in :func:`explain`, a plain function the tests call; the widget only wires
controls to it. Without a widget front end (CI, nbconvert) the notebooks still run: the static figures
never depend on the explorer.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import ipywidgets as w
import numpy as np
import pandas as pd

from dpteach.neighbours import RELATIONS, as_tuple, check_relation, counts_to_rows, distinct_counts, submultisets
from dpteach.queries import QUERIES, as_dataset, check_int
from dpteach.sensitivity import (
    global_sensitivity,
    local_sensitivity,
    neighbours_of,
)
from dpteach.smooth import SMOOTH_RELATIONS, discounted_up, local_sensitivity_by_distance, smooth_sensitivity

SCOPES: tuple[str, ...] = ("global", "local")


@dataclass(frozen=True)
class Explanation:
    """A sensitivity and the datasets that attain it."""

    sensitivity: float
    release: tuple[float, ...]
    witnesses: pd.DataFrame

    def to_html(self) -> str:
        return (f"<b>sensitivity = {self.sensitivity:g}</b>, attained from release {self.release} by these "
                f"neighbours:{self.witnesses.to_html(index=False)}")


def explain(
    universe: Sequence[float] | np.ndarray,
    query: str,
    *,
    relation: str,
    k: int,
    scope: str,
    size: int | None = None,
    release: Sequence[float] | None = None,
) -> Explanation:
    """Sensitivity for one choice of the explorer's controls, with the neighbours that attain it.

    Local scope needs ``release``; global scope needs ``size`` and explains the first release (in sorted
    order) whose local sensitivity reaches the global one. Releases are tried one at a time and the search stops
    there, so the explorer answers quickly even where the local sensitivities of all releases take seconds.
    """
    if scope not in SCOPES:
        raise ValueError(f"scope must be one of {SCOPES}, got {scope!r}")
    if scope == "local":
        if release is None:
            raise ValueError("release is required for scope='local'")
        value = local_sensitivity(release, universe, query, k=k, relation=relation)
        chosen = as_tuple(release)
    else:
        if size is None:
            raise ValueError("size is required for scope='global'")
        value = global_sensitivity(universe, size, query, k=k, relation=relation)
        values, capacity = distinct_counts(np.sort(np.asarray(universe, dtype=float)))
        releases = sorted(as_tuple(row) for row in counts_to_rows(values, submultisets(capacity, size)))
        chosen = next(r for r in releases if local_sensitivity(r, universe, query, k=k, relation=relation) == value)
    neighbours = neighbours_of(chosen, universe, query, k=k, relation=relation)
    return Explanation(value, chosen, neighbours[neighbours["L1"] == value].reset_index(drop=True))


def largest_k(relation: str, size: int, universe_size: int) -> int:
    """The largest distance the explorer offers for ``relation`` (at least 1).

    Unbounded (the blog's: exactly k removed or exactly k added) needs ``k <= size - 1`` and
    ``k <= universe_size - size``; bounded replaces up to ``size - 1`` records; symmetric mixes up to ``size``
    removals with up to ``universe_size - size`` additions (never leaving an empty dataset).
    """
    size = check_int("size", size, 1)
    universe_size = check_int("universe_size", universe_size, size)
    room = {"unbounded": min(size - 1, universe_size - size), "bounded": size - 1,
            "symmetric": universe_size if universe_size > size else universe_size - 1}[check_relation(relation)]
    return max(1, room)


def sensitivity_explorer(universe: pd.DataFrame | Mapping[str, Sequence[float]], size: int) -> w.VBox:
    """Controls for column, query, relation, scope and k; shows the sensitivity and its witnesses.

    It opens where notebook 02 starts: global scope, the first column, the median, the first relation, k = 1.
    Local scope uses the first ``size`` values of the chosen column as the release (as the blog posts do).
    """
    if not isinstance(universe, pd.DataFrame | Mapping) or len(universe.keys()) == 0:
        raise TypeError(f"universe must be a DataFrame or a non-empty mapping of column name to values, "
                        f"got {universe!r}")
    smallest = min(as_dataset(np.asarray(universe[c]), f"universe[{c!r}]").size for c in universe.keys())
    check_int("size", size, 1, smallest, high_label=f"{smallest} (the shortest column)")
    columns = list(universe.keys())
    column = w.Dropdown(options=columns, description="column")
    query = w.Dropdown(options=list(QUERIES), value="median", description="query")
    relation = w.ToggleButtons(options=list(RELATIONS), description="relation")
    scope = w.ToggleButtons(options=list(SCOPES), description="scope")
    k = w.IntSlider(value=1, min=1, max=max(1, size - 1), description="k")
    out = w.HTML()

    def refresh(_: object = None) -> None:
        values = np.sort(np.asarray(universe[column.value], dtype=float))
        first = np.asarray(universe[column.value], dtype=float)[:size]
        k.max = largest_k(relation.value, size, values.size)
        try:
            result = explain(values, query.value, relation=relation.value, k=k.value, scope=scope.value,
                             size=size, release=first)
            out.value = result.to_html()
        except ValueError as error:
            out.value = f"<i>{error}</i>"

    for control in (column, query, relation, scope, k):
        control.observe(refresh, names="value")
    refresh()
    return w.VBox([w.HBox([column, query]), relation, scope, k, out])


# --------------------------------------------------------------------------------------------- smooth (notebook 04)
@dataclass(frozen=True)
class SmoothExplanation:
    r"""One release's curve :math:`A^{(k)}`, its discounted values :math:`e^{-\beta k} A^{(k)}` and :math:`S^*`."""

    release: tuple[float, ...]
    beta: float
    curve: pd.DataFrame  # columns k, A(k), e^(-beta k) A(k)
    smooth: float

    @property
    def attained_at(self) -> int:
        """The smallest distance :math:`k` whose discounted value is :math:`S^*`."""
        return int(self.curve["k"][self.curve["discounted"] == self.smooth].min())

    def to_html(self) -> str:
        shown = self.curve.set_index("k").rename(columns={"A": "A⁽ᵏ⁾", "discounted": "e^(−βk)·A⁽ᵏ⁾"}).T
        return (f"<b>S* = {self.smooth:.4g}</b> for release {self.release} at β = {self.beta:g}, attained at "
                f"k = {self.attained_at} (LS = A⁽⁰⁾ = {self.curve['A'][0]:.4g}):"
                f"{shown.to_html(float_format=lambda v: f'{v:.4g}')}")


def explain_smooth(
    release: Sequence[float], universe: Sequence[float] | np.ndarray, query: str, *, beta: float,
    relation: str = "bounded",
) -> SmoothExplanation:
    r"""The smooth explorer's computation: :math:`A^{(k)}` for every distance and :math:`S^*`
    (:func:`dpteach.smooth.local_sensitivity_by_distance`, :func:`dpteach.smooth.smooth_sensitivity`)."""
    curve = local_sensitivity_by_distance(release, universe, query, relation=relation)
    s = smooth_sensitivity(release, universe, query, beta=beta, relation=relation)
    discounted = [discounted_up(a, beta, k) for k, a in enumerate(curve)]  # as smooth_sensitivity computes them
    table = pd.DataFrame({"k": np.arange(curve.size), "A": curve, "discounted": discounted})
    return SmoothExplanation(as_tuple(release), float(beta), table, s)


def smooth_explorer(universe: Sequence[float] | np.ndarray, size: int) -> w.VBox:
    """Controls for query, release (every distinct release of ``size`` records), relation and β; shows
    :math:`A^{(k)}`, :math:`e^{-\\beta k} A^{(k)}` and :math:`S^*`. It opens on the median of the first release,
    bounded, β = 0.5. Notebook 04."""
    values = as_dataset(universe, "universe")
    size = check_int("size", size, 2, values.size, high_label=f"|universe| = {values.size}")
    distinct, capacity = distinct_counts(values)
    releases = sorted(as_tuple(row) for row in counts_to_rows(distinct, submultisets(capacity, size)))
    query = w.Dropdown(options=list(QUERIES), value="median", description="query")
    release = w.Dropdown(options=[(str(r), r) for r in releases], value=releases[0], description="release")
    relation = w.ToggleButtons(options=list(SMOOTH_RELATIONS), description="relation")
    beta = w.FloatSlider(value=0.5, min=0.01, max=2.0, step=0.01, readout_format=".2f", description="β")
    out = w.HTML()

    def refresh(_: object = None) -> None:
        try:
            out.value = explain_smooth(release.value, values, query.value, beta=beta.value,
                                       relation=relation.value).to_html()
        except ValueError as error:
            out.value = f"<i>{error}</i>"

    for control in (query, release, relation, beta):
        control.observe(refresh, names="value")
    refresh()
    return w.VBox([w.HBox([query, release]), relation, beta, out])
