"""Exact empirical sensitivity: global and local, bounded, unbounded and symmetric, at distance k.

Taught in notebook 02 (global) and notebook 03 (local). Definitions, for a query :math:`f`, a universe
multiset :math:`U` and the neighbour relation of :mod:`dpteach.neighbours`:

.. math::

    LS_k(x) = \\max_{x' \\sim_k x} |f(x) - f(x')|, \\qquad
    GS_k = \\max_{x \\subseteq U,\\ |x| = n} LS_k(x).

Three methods; ``naive`` and ``enumerate`` give the same numbers, and ``fast`` gives them too wherever it can
certify that, else a value rounded up from them (the rounding promise of :mod:`dpteach.exact`):

* ``method="naive"`` mirrors the blog: releases and neighbours from ``itertools.combinations`` over
  positions, one L1 norm per (release, neighbour) pair. Readable, and the benchmark baseline.
* ``method="enumerate"`` lists each *distinct* multiset once (count vectors), evaluates the query on whole
  batches with numpy, and replaces "all pairs" by a max and a min:

  - unbounded: every pair is a dataset :math:`B` and a part :math:`B - r` with :math:`|r| = k`, where
    either :math:`|B| = n` (removal) or :math:`|B| = n + k` (addition), and
    :math:`\\max_r |f(B) - f(B - r)| = \\max(f(B) - \\min_r f(B - r),\\ \\max_r f(B - r) - f(B))`;
  - bounded: two datasets of size :math:`n` are neighbours exactly when they extend a common core
    :math:`C` of size :math:`n - k`, so :math:`GS_k = \\max_C (\\max_a f(C + a) - \\min_a f(C + a))`.

  - symmetric: every pair :math:`(x, y)` at distance at most k (:math:`y` non-empty) is
    :math:`x = C + r`, :math:`y = C + a` with a core :math:`C` of :math:`c \\ge 0` records,
    :math:`|r| = n - c`, :math:`|a| = j`, :math:`(n - c) + j \\le k`, :math:`c + j \\ge 1`, each of :math:`C + r`
    and :math:`C + a` inside :math:`U` (take :math:`C = x \\cap y`; conversely any such pair is at distance at most
    :math:`|r| + |a|`, and :math:`y` is non-empty). The empty core :math:`c = 0` occurs only when
    :math:`n \\le k - 1`: then :math:`x` is any release and :math:`y` any dataset of :math:`1 \\dots k - n` records. So
    :math:`GS_k = \\max_C \\max(\\max_r f(C + r) - \\min_{j, a} f(C + a),\\ \\max_{j, a} f(C + a) - \\min_r f(C + r))`.

  Correctly rounded subtraction is monotone, so these max/min forms equal the pairwise maxima bit for bit.
* ``method="fast"`` (the default) uses the closed forms of :mod:`dpteach.exact` for ``count``, ``sum``,
  ``mean``, ``median`` and ``percentile_<p>`` (a few candidate datasets read off the sorted universe, so
  universes of a million values take well under a second), the closed forms of :mod:`dpteach.spread` for the
  *local* ``var`` and ``std``, the candidates of :mod:`dpteach.global_spread` for the *global* ``var`` under
  ``relation="bounded"`` (used only when certified equal to enumeration, else it enumerates) and
  ``relation="unbounded"`` (certified equal to enumeration, else a proved upper bound; fractions enumerate), and
  ``"enumerate"`` for everything else (the global ``std``, the symmetric global ``var``, and callables, for which
  no exact shortcut is proved). Notebook A1. The closed forms of ``exact`` and ``spread`` cover all three relations;
  each shortcut is proved in the docstring of its module.

Fail safe: a query value that overflows float64 (or is NaN) raises ``ValueError`` wherever it is computed
(:func:`dpteach.queries.resolve_query`), so no NaN ever reaches a ``max``; integers beyond :math:`2^{53}` are
refused on input, and so are whole-number universes whose sums would be rounded
(:func:`dpteach.queries.check_exact_sums`).

Before enumerating, both enumerating methods count the work. Above :data:`PROGRESS_ABOVE` pairs a tqdm bar shows
progress; above :data:`dpteach.budget.MAX_WORK` a ``ValueError`` says how many pairs the call would take. The closed
forms count theirs under the same budget (:mod:`dpteach.budget`).

"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Mapping, Sequence
from functools import partial

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from dpteach import budget, global_spread, neighbours
from dpteach.budget import MAX_WORK, WorkLimitError, check_work, first_count, held, planned
from dpteach.exact import (
    Plan,
    global_exact,
    global_plan,
    has_closed_form,
    local_exact,
    local_plan,
    local_plan_records,
    matched_positions,
    run_plans,
)
from dpteach.global_spread import bounded_global_var, candidate_count, unbounded_global_var
from dpteach.neighbours import (
    RELATIONS,
    as_tuple,
    check_relation,
    comb_above,
    count_submultisets,
    counts_of,
    counts_to_rows,
    distinct_counts,
    missing_from,
    positional_neighbours,
    submultisets,
)
from dpteach.queries import QUERIES, Query, ResolvedQuery, as_dataset, check_exact_sums, check_int, resolve_query
from dpteach.spread import has_local_closed_form, local_spread

METHODS: tuple[str, ...] = ("fast", "enumerate", "naive")
PROGRESS_ABOVE = 2_000_000
_CHUNK_CELLS = 2_000_000

Data = Sequence[float] | np.ndarray | pd.Series
BLOG_RELATIONS: tuple[str, ...] = ("unbounded", "bounded")


# --------------------------------------------------------------------------------------------- checks
def _check_method(method: str) -> str:
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    return method


def _distance_limit(size: int, universe_size: int, relation: str) -> tuple[int, str]:
    """The largest valid k of :func:`_check_distance` at this size (below 1: none), and the rule in words."""
    if relation == "unbounded":
        return (min(size - 1, universe_size - size),
                f"1 <= k < size ({size}) and k <= |universe| - size ({universe_size - size})")
    if relation == "symmetric":
        if universe_size > size:
            return universe_size, (f"1 <= k <= size + (|universe| - size) = |universe| ({universe_size}): at most "
                                   "size records removed plus |universe| - size added")
        return universe_size - 1, (f"1 <= k <= |universe| - 1 ({universe_size - 1}) when the release is the whole "
                                   "universe: a neighbour keeps at least one record")
    return size - 1, f"1 <= k < size ({size})"


def _check_distance(k: object, size: int, universe_size: int, relation: str) -> int:
    """The blog's input rule: 0 < k < size, and (unbounded) k <= |U| - size so k records can be added.

    Symmetric: up to ``size`` removals mixed with up to ``|U| - size`` additions (a neighbour is never empty), so
    ``1 <= k <= |U|``, or ``|U| - 1`` when the release is the whole universe (beyond that no new neighbour
    appears).
    """
    high, why = _distance_limit(size, universe_size, relation)
    if high < 1:
        raise ValueError(f"k has no valid value here: it must satisfy {why}")
    return check_int("k", k, 1, high, high_label=f"{high} ({why})")


def _largest_dataset(size: int, k: int, relation: str, universe_size: int) -> int:
    """The most records a release or a neighbour can hold (for :func:`dpteach.queries.check_exact_sums`)."""
    if relation == "bounded":
        return size
    return size + min(k, universe_size - size)


def _count(capacity: np.ndarray, size: int) -> int:
    """:func:`count_submultisets` capped at :data:`dpteach.budget.MAX_WORK`: exact up to it, a lower bound above it,
    always fast."""
    return count_submultisets(capacity, size, cap=MAX_WORK)


def _candidates_pay(capacity: np.ndarray, size: int, k: int, universe_size: int) -> bool:
    """Whether :func:`dpteach.global_spread.bounded_global_var` scores fewer than half as many candidates as the
    bounded enumeration compares pairs. Both answers are exact; on the blog grid's universes the candidates' fixed
    cost (about 0.3 ms) only pays off below that ratio, so smaller cases keep enumerating."""
    top = min(k, universe_size - size)
    return 2 * candidate_count(capacity, top) < _count(capacity, size - k) * _count(capacity, k)


def _check_budget(pairs: int, kind: str = "unit") -> None:
    """Refuse enumerations above the work budget (:func:`dpteach.budget.check_work`: one unit per pair, times the
    weight of ``kind``: ``"naive pair"`` for pairs compared by position)."""
    check_work(pairs, "compare {} (dataset, neighbour) pairs", kind=kind)


def _progress(iterable: Iterable, total: int, pairs: int, label: str) -> Iterable:
    if pairs > PROGRESS_ABOVE:
        return tqdm(iterable, total=total, desc=label, unit="chunk")
    return iterable


def _local_inputs(
    release: Data, universe: Data, query: Query, k: object, relation: str
) -> tuple[ResolvedQuery, np.ndarray, np.ndarray, int]:
    """Check the arguments every local computation shares; return (query, release, universe, k)."""
    resolved = resolve_query(query)
    check_relation(relation)
    universe_data = as_dataset(universe, "universe")
    release_data = as_dataset(release, "release")
    return resolved, release_data, universe_data, _local_checks(release_data, universe_data, k, relation)


def _local_checks(release_data: np.ndarray, universe_data: np.ndarray, k: object, relation: str) -> int:
    """The checks of :func:`_local_inputs` on data that passed :func:`dpteach.queries.as_dataset`; return k."""
    if matched_positions(release_data, universe_data) is None:
        raise ValueError(
            "release must be a sub-multiset of universe; the universe cannot supply these release "
            f"values: {missing_from(release_data, universe_data)}"
        )
    k = _check_distance(k, release_data.size, universe_data.size, relation)
    check_exact_sums(universe_data, _largest_dataset(release_data.size, k, relation, universe_data.size), "universe")
    return k


def _global_checks(universe_data: np.ndarray, size: object, k: object, relation: str) -> tuple[int, int]:
    """The checks of :func:`global_sensitivity` on a universe that passed :func:`dpteach.queries.as_dataset`;
    return (size, k)."""
    size = check_int("size", size, 1, universe_data.size, high_label=f"|universe| = {universe_data.size}")
    k = _check_distance(k, size, universe_data.size, relation)
    check_exact_sums(universe_data, _largest_dataset(size, k, relation, universe_data.size), "universe")
    return size, k


# --------------------------------------------------------------------------------------------- public API
def clear_caches() -> None:
    """Forget the kept lists of sub-multisets and candidate tables (pure functions of integers, kept for speed), so
    a benchmark can time a cold call as well as a warm one."""
    neighbours.clear_cache()
    global_spread.clear_cache()


@held
def replicate(values: Data, size: int) -> np.ndarray:
    """Scenario (b) universe: every value of a range repeated ``size`` times (sorted).

    With a range of values instead of a known dataset, a dataset of n records may repeat one value n times.
    Replace-one neighbours never hold more than n records, so ``size = n`` copies suffice; add/remove
    neighbours at distance k may add k more of the same value, so pass ``size = n + k`` (lesson 02).
    """
    base = as_dataset(values, "values")
    size = check_int("size", size, 1)
    check_work(base.size * size, "build {} records of a replicated universe")
    return np.repeat(base, size)


@held
def global_sensitivity(
    universe: Data,
    size: int,
    query: Query,
    *,
    k: int = 1,
    relation: str = "unbounded",
    method: str = "fast",
) -> float:
    """Global sensitivity :math:`GS_k = \\max_{x \\subseteq U, |x| = size} LS_k(x)` (notebook 02).

    ``universe`` is a multiset of numbers (duplicates allowed); every release of ``size`` records drawn
    from it is considered. ``relation`` is ``"unbounded"`` (the blog's: exactly k records added or exactly k
    removed), ``"bounded"`` (up to k records replaced) or ``"symmetric"`` (any mix of r removals and a
    additions with r + a <= k: group privacy, :mod:`dpteach.neighbours`). ``method`` is one of
    :data:`METHODS` (module docstring).
    """
    resolved = resolve_query(query)
    check_relation(relation)
    _check_method(method)
    universe_data = as_dataset(universe, "universe")
    size, k = _global_checks(universe_data, size, k, relation)
    if method == "naive":
        return _naive_global(universe_data, size, k, relation, resolved)
    if method == "fast" and has_closed_form(query):
        return global_exact(universe_data, size, k, relation, query, resolved)
    if method == "fast" and query == "var":
        certified = _global_var_by_candidates(universe_data, size, k, relation, resolved)
        if certified is not None:
            return certified
    return _global_by_enumeration(universe_data, size, k, relation, resolved)


def sensitivity_by_distance(
    universe: Data,
    size: int | str,
    query: Query,
    *,
    k_max: int,
    relations: Sequence[str] = ("unbounded", "symmetric"),
) -> pd.DataFrame:
    """:math:`GS_k` for :math:`k = 1, \\dots, k_{max}` under each relation: one column per relation, one row per k
    (lesson 02, the blog's distance k against a group's).

    Row k, column r holds :func:`global_sensitivity` ``(universe, size, query, k=k, relation=r)``:

    .. math::

        GS_k^r = \\max_{x \\subseteq U,\\ |x| = n}\\ \\max_{x' \\sim_k^r x} |f(x) - f(x')|,

    where :math:`x' \\sim_k^r x` means exactly k additions or exactly k removals for ``"unbounded"`` (the blog's
    k), any mix of r removals and a additions with r + a <= k for ``"symmetric"`` (a group of k), and up to k
    replacements for ``"bounded"``. With ``size="every"`` (the size is secret) it is the largest of these over
    every size :math:`n` at which the relation's distance k is defined (:math:`k < n \\le |U| - k` for the
    blog's k). Every k must be valid for every relation: at ``size``, or at some size for ``"every"``.
    """
    resolve_query(query)
    if isinstance(relations, str) or not isinstance(relations, Sequence) or not relations:
        raise TypeError(f"relations must be a non-empty list or tuple of relation names {RELATIONS}, "
                        f"got {relations!r}")
    for relation in relations:
        if not isinstance(relation, str) or relation not in RELATIONS:
            raise ValueError(f"relations must hold names from {RELATIONS}, got {relation!r}")
    universe_data = as_dataset(universe, "universe")
    total = universe_data.size
    if isinstance(size, str):
        if size != "every":
            raise ValueError(f"size must be a whole number in [1, |universe| = {total}] or 'every', got {size!r}")
        sizes = range(1, total + 1)
    else:
        sizes = range(check_int("size", size, 1, total, high_label=f"|universe| = {total}"), size + 1)
    for relation in relations:  # the size allowing the largest k decides (the only size unless "every")
        widest = max(sizes, key=lambda n: _distance_limit(n, total, relation)[0])
        try:
            _check_distance(k_max, widest, total, relation)
        except (TypeError, ValueError) as error:
            raise type(error)(f"k_max must be a distance valid under relation {relation!r} at size {widest}: "
                              f"{error}") from None
    ks = range(1, k_max + 1)

    def largest(k: int, relation: str) -> float:
        return max(global_sensitivity(universe_data, n, query, k=k, relation=relation)
                   for n in sizes if _distance_limit(n, total, relation)[0] >= k)

    return pd.DataFrame({relation: [largest(k, relation) for k in ks] for relation in relations},
                        index=pd.Index(ks, name="k"))


def _global_var_by_candidates(universe: np.ndarray, size: int, k: int, relation: str,
                              resolved: ResolvedQuery) -> float | None:
    """The global variance from the candidates of :mod:`dpteach.global_spread` (exact, as enumeration), or ``None``
    where they do not apply (symmetric), do not pay (:func:`_candidates_pay`) or stop at their own limits; the
    caller then enumerates. Inputs checked."""
    if relation == "unbounded":
        return unbounded_global_var(universe, size, k, resolved)
    if relation == "bounded" and _candidates_pay(distinct_counts(universe)[1], size, k, universe.size):
        return bounded_global_var(universe, size, k, resolved)
    return None


def _global_by_enumeration(universe: np.ndarray, size: int, k: int, relation: str, resolved: ResolvedQuery) -> float:
    """:math:`GS_k` by enumerating the datasets and their neighbours (``method="enumerate"``). Inputs checked."""
    values, capacity = distinct_counts(universe)
    if relation == "unbounded":  # both sizes counted together first, so the call is refused before either runs
        planned(sum(_count(capacity, whole) * _count(capacity, k) for whole in (size, size + k)),
                "compare {} (dataset, neighbour) pairs")
        return max(_largest_gap_to_parts(values, capacity, whole, k, resolved) for whole in (size, size + k))
    if relation == "symmetric":
        return _largest_gap_symmetric(values, capacity, size, k, resolved)
    return _largest_range_over_cores(values, capacity, size, k, resolved)


@held
def local_sensitivity(
    release: Data,
    universe: Data,
    query: Query,
    *,
    k: int = 1,
    relation: str = "unbounded",
    method: str = "fast",
) -> float:
    """Local sensitivity :math:`LS_k(x) = \\max_{x' \\sim_k x} |f(x) - f(x')|` of one release (notebook 03).

    ``release`` must be a sub-multiset of ``universe``; neighbours draw added or replacement records
    from what the universe holds beyond the release (unbounded, symmetric) or beyond the kept core (bounded).
    """
    _check_method(method)
    resolved, release_data, universe_data, k = _local_inputs(release, universe, query, k, relation)
    if method == "naive":
        _check_budget(_naive_pairs_per_release(release_data.size, universe_data.size, k, relation), "naive pair")
        return _naive_local(tuple(release_data), tuple(universe_data), k, relation, resolved)
    if method == "fast" and has_closed_form(query):
        return local_exact(release_data, universe_data, k, relation, resolved)
    if method == "fast" and has_local_closed_form(query):
        return local_spread(release_data, universe_data, k, relation, resolved)
    f_release, f_neighbours = _fast_local_values(release_data, universe_data, k, relation, resolved)
    return float(max(f_release - f_neighbours.min(), f_neighbours.max() - f_release))


@held
def blog_bounded_local(release: Data, universe: Data, query: Query, *, k: int = 1) -> float:
    r"""What the blog's bounded-local function returns (notebook 03 teaches why it is not :math:`LS_k(x)`).

    The blog keeps a core :math:`C` of :math:`n - k` records of the release :math:`x`, refills it with every
    :math:`a \subseteq U - C` of :math:`k` records, and compares the refilled datasets *with each other*,
    never with :math:`x`; it returns the largest gap found in any one group:

    .. math:: B_k(x) = \max_{C \subseteq x,\ |C| = n - k}\ \Big(\max_{a} f(C + a) - \min_{a} f(C + a)\Big).

    (The largest :math:`|f_i - f_j|` over pairs of a group is its max minus its min. Positions or values:
    equal values give equal datasets, so enumerating distinct multisets gives the same number, up to rounding
    for float data: each dataset is evaluated sorted, the blog's in core-then-fill order, so the two can differ
    in the last bits.) Inputs must meet the blog's rule :math:`1 \le k < n` and :math:`k \le |U| - n`, the
    rule its ``verify_sensitivity_inputs`` enforces; anything else raises :class:`ValueError`.

    **Bounds.** :math:`LS_k(x) \le B_k(x) \le GS_k` (bounded). Any bounded neighbour :math:`y` of :math:`x`
    shares at least :math:`n - k` records with it; a core :math:`C` of :math:`n - k` of them puts :math:`x` and
    :math:`y` in the same group, so :math:`|f(x) - f(y)| \le B_k(x)`. And two members :math:`C + a`, :math:`C + a'`
    of a group share the core :math:`C`, so they are bounded neighbours of each other and their gap is at most
    :math:`GS_k`. Hence :math:`\max_x B_k(x) = GS_k`: over all releases the blog's quantity finds the global
    sensitivity, but for one release it can exceed the local one (8 against 7 on four rows of the median
    table, universe {1, 2, 3, 10, 11}, size 3: the pair (1, 2, 10), (1, 10, 11) shares the core (1, 10) of
    (1, 3, 10) yet neither is that release).
    """
    resolved, release_data, universe_data, k = _local_inputs(release, universe, query, k, "bounded")
    room = universe_data.size - release_data.size
    if k > room:
        raise ValueError(f"k must satisfy the blog's input rule 1 <= k < size ({release_data.size}) and "
                         f"k <= |universe| - size ({room}), got k={k}")
    values, capacity = distinct_counts(universe_data)
    own = counts_of(release_data, values)
    _check_budget(_count(own, k) * _count(capacity, k))
    fills = submultisets(capacity, k)
    best = 0.0
    for core in own - submultisets(own, k):
        group = core + fills[(core + fills <= capacity).all(axis=1)]
        f_group = resolved.on_rows(counts_to_rows(values, group))
        best = max(best, float(f_group.max() - f_group.min()))
    return best


@held
def neighbours_of(
    release: Data, universe: Data, query: Query, *, k: int = 1, relation: str = "unbounded"
) -> pd.DataFrame:
    """Every distinct neighbour of ``release`` with its query value and L1 norm, largest norm first.

    The first rows are the neighbours that attain :math:`LS_k(x)`: what the explorer of notebook 03 shows.
    The release itself (a bounded "replacement" of a record by an equal one) is left out. Each neighbour is
    evaluated and written alone, so it counts against the work budget with the weight ``"listed neighbour"``.
    """
    resolved, release_data, universe_data, k = _local_inputs(release, universe, query, k, relation)
    values, capacity = distinct_counts(universe_data)
    own = counts_of(release_data, values)
    check_work(_local_enumeration_pairs(own, capacity - own, k, relation), "list {} neighbours with their query "
               "values", kind="listed neighbour")
    values, own, neighbours = local_neighbour_counts(release_data, universe_data, k, relation)
    neighbours = neighbours[(neighbours != own).any(axis=1)]
    f_release = float(resolved.on_rows(release_data[np.newaxis, :])[0])
    records = []
    for counts in neighbours:
        data = np.repeat(values, counts)
        f_value = float(resolved.on_rows(data[np.newaxis, :])[0])
        records.append((as_tuple(data), f_value, abs(f_release - f_value)))
    table = pd.DataFrame(records, columns=["neighbour", resolved.name, "L1"])
    return table.sort_values("L1", ascending=False, kind="stable").reset_index(drop=True)


@held
def local_sensitivities(
    universe: Data, size: int, query: Query, *, k: int = 1, relation: str = "unbounded"
) -> pd.DataFrame:
    """The local sensitivity of every distinct release of ``size`` records (notebook 03).

    Its maximum is the global sensitivity: that is the definition of :math:`GS_k`, and a test checks it. Where
    the global sensitivity is enumerated (``var``, ``std``, callables) the local ones are too, so both are the
    same rounded numbers (the local closed forms of :mod:`dpteach.spread` may round up off whole numbers).

    The whole call is one work budget (:mod:`dpteach.budget`), counted before any release is listed: one unit per
    record listed, the fixed cost of each local sensitivity (weight ``"release"``) and the work of each one (its
    candidates' records, or its enumerated neighbours); above :data:`dpteach.budget.MAX_WORK` nothing runs.
    """
    resolve_query(query)
    check_relation(relation)
    universe_data = as_dataset(universe, "universe")
    size = check_int("size", size, 1, universe_data.size, high_label=f"|universe| = {universe_data.size}")
    k = _check_distance(k, size, universe_data.size, relation)
    check_exact_sums(universe_data, _largest_dataset(size, k, relation, universe_data.size), "universe")
    values, capacity = distinct_counts(universe_data)
    n_releases = _count(capacity, size)
    method = "fast" if has_closed_form(query) else "enumerate"
    planned(_releases_work(capacity, size, k, relation, method),
            "take {} work units to list every distinct release and compute its local sensitivity")
    check_work(n_releases, "compute the local sensitivity of {} releases", kind="release")
    check_work(n_releases * size, "list {} records of releases (every distinct release)")
    releases = sorted(as_tuple(row) for row in counts_to_rows(values, submultisets(capacity, size)))
    local = [local_sensitivity(r, universe_data, query, k=k, relation=relation, method=method) for r in releases]
    return pd.DataFrame({"release": releases, "local sensitivity": local})


@held
def _releases_work(capacity: np.ndarray, size: int, k: int, relation: str, method: str) -> int:
    """The weighted work units of :func:`local_sensitivities`, counted before it runs (a partial sum once above
    :data:`dpteach.budget.MAX_WORK`): the listing, each release's fixed cost, and each release's local work."""
    n_releases = _count(capacity, size)
    total = n_releases * (size + budget.WEIGHTS["release"])
    if method == "fast":
        spare_size = int(capacity.sum()) - size
        return total + n_releases * local_plan_records(size, spare_size, k, relation)
    if total > MAX_WORK:
        return total
    for own in submultisets(capacity, size):
        total += _local_enumeration_pairs(own, capacity - own, k, relation)
        if total > MAX_WORK:
            break
    return total


@held
def releases_attaining_global(
    universe: Data, size: int, query: Query, *, k: int = 1, relation: str = "unbounded"
) -> pd.DataFrame:
    """The distinct releases whose local sensitivity equals the global one (notebooks 02 and 03)."""
    table = local_sensitivities(universe, size, query, k=k, relation=relation)
    best = global_sensitivity(universe, size, query, k=k, relation=relation)
    return table[table["local sensitivity"] == best].reset_index(drop=True)


# --------------------------------------------------------------------------------------------- naive
def _scalar(resolved: ResolvedQuery, data: tuple[float, ...]) -> float:
    return float(resolved.on_rows(np.sort(np.asarray(data, dtype=float))[np.newaxis, :])[0])


def _comb(n: int, j: int) -> int:
    """:math:`\\binom{n}{j}`, exact up to :data:`dpteach.budget.MAX_WORK` and a fast lower bound above it."""
    return comb_above(n, j, MAX_WORK)


def _naive_pairs_per_release(size: int, universe_size: int, k: int, relation: str) -> int:
    if relation == "unbounded":
        return _comb(size, k) + _comb(universe_size - size, k)
    if relation == "symmetric":
        return sum(_comb(size, i) * _comb(universe_size - size, j)
                   for i in range(min(k, size) + 1) for j in range(1 if i in (0, size) else 0, k - i + 1))
    return _comb(size, k) * _comb(universe_size - size + k, k)


def _naive_local(
    release: tuple[float, ...], universe: tuple[float, ...], k: int, relation: str, resolved: ResolvedQuery
) -> float:
    f_release = _scalar(resolved, release)
    norms = [abs(f_release - _scalar(resolved, nb)) for nb in positional_neighbours(release, universe, k, relation)]
    return max(norms)


def _naive_global(universe: np.ndarray, size: int, k: int, relation: str, resolved: ResolvedQuery) -> float:
    n_releases = _comb(universe.size, size)
    pairs = n_releases * _naive_pairs_per_release(size, universe.size, k, relation)
    _check_budget(pairs, "naive pair")
    universe_tuple = tuple(universe.tolist())
    releases = itertools.combinations(universe_tuple, size)
    progress = _progress(releases, n_releases, pairs, "naive releases")
    return max(_naive_local(release, universe_tuple, k, relation, resolved) for release in progress)


# --------------------------------------------------------------------------------------------- fast
def _weights(capacity: np.ndarray) -> np.ndarray:
    """Mixed-radix weights: ``counts @ weights`` is a unique, additive key for each count vector."""
    return np.concatenate([[1], np.cumprod(capacity[:-1] + 1)]).astype(np.int64)


def _lookup(values: np.ndarray, counts: np.ndarray, weights: np.ndarray, resolved: ResolvedQuery):
    """Evaluate the query once per distinct dataset and return (sorted keys, values in key order)."""
    keys = counts @ weights
    order = np.argsort(keys)
    return keys[order], resolved.on_rows(counts_to_rows(values, counts))[order]


def _chunks(n_rows: int, n_cols: int) -> Iterator[slice]:
    step = max(1, _CHUNK_CELLS // max(1, n_cols))
    for start in range(0, n_rows, step):
        yield slice(start, min(n_rows, start + step))


def _largest_gap_to_parts(
    values: np.ndarray, capacity: np.ndarray, whole: int, k: int, resolved: ResolvedQuery
) -> float:
    """:math:`\\max_{|B| = whole} \\max_{r \\subseteq B, |r| = k} |f(B) - f(B - r)|` over ``B`` within the universe."""
    n_whole = _count(capacity, whole)
    n_removed = _count(capacity, k)
    _check_budget(n_whole * n_removed)
    weights = _weights(capacity)
    wholes = submultisets(capacity, whole)
    removed = submultisets(capacity, k)
    f_whole = resolved.on_rows(counts_to_rows(values, wholes))
    part_keys, f_parts = _lookup(values, submultisets(capacity, whole - k), weights, resolved)
    whole_keys, removed_keys = wholes @ weights, removed @ weights
    best = 0.0
    chunks = list(_chunks(wholes.shape[0], removed.shape[0]))
    for rows in _progress(chunks, len(chunks), n_whole * n_removed, "global (unbounded)"):
        fits = (wholes[rows, None, :] >= removed[None, :, :]).all(axis=2)
        index = np.searchsorted(part_keys, whole_keys[rows, None] - removed_keys[None, :])
        f_part = f_parts[np.minimum(index, part_keys.size - 1)]
        lowest = np.where(fits, f_part, np.inf).min(axis=1)
        highest = np.where(fits, f_part, -np.inf).max(axis=1)
        gaps = np.maximum(f_whole[rows] - lowest, highest - f_whole[rows])
        best = max(best, float(gaps.max()))
    return best


class _Extensions:
    """Query values of every dataset ``C + a`` (a core plus a fill from ``U - C``), by size, evaluated once."""

    def __init__(self, values: np.ndarray, capacity: np.ndarray, resolved: ResolvedQuery, bar: tqdm) -> None:
        self.values, self.capacity, self.resolved, self.bar = values, capacity, resolved, bar
        self.weights = _weights(capacity)
        self._tables: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    def extremes(self, cores: np.ndarray, fill_size: int) -> tuple[np.ndarray, np.ndarray]:
        """Per core (one count vector per row): max and min of :math:`f(C + a)` over fills of ``fill_size``."""
        size = int(cores[0].sum()) + fill_size
        if size not in self._tables:
            self._tables[size] = _lookup(self.values, submultisets(self.capacity, size), self.weights, self.resolved)
        keys, f_sized = self._tables[size]
        fills = submultisets(self.capacity, fill_size)
        core_keys, fill_keys = cores @ self.weights, fills @ self.weights
        highest, lowest = np.empty(len(cores)), np.empty(len(cores))
        for rows in _chunks(cores.shape[0], fills.shape[0]):
            fits = (cores[rows, None, :] + fills[None, :, :] <= self.capacity).all(axis=2)
            index = np.searchsorted(keys, core_keys[rows, None] + fill_keys[None, :])
            f_ext = f_sized[np.minimum(index, keys.size - 1)]
            highest[rows] = np.where(fits, f_ext, -np.inf).max(axis=1)
            lowest[rows] = np.where(fits, f_ext, np.inf).min(axis=1)
            self.bar.update((rows.stop - rows.start) * fills.shape[0])
        return highest, lowest


def _pair_bar(pairs: int, label: str) -> tqdm:
    """A progress bar over (dataset, neighbour) pairs, shown above :data:`PROGRESS_ABOVE` of them."""
    return tqdm(total=pairs, desc=label, unit="pair", unit_scale=True, disable=pairs <= PROGRESS_ABOVE)


def _largest_range_over_cores(
    values: np.ndarray, capacity: np.ndarray, size: int, k: int, resolved: ResolvedQuery
) -> float:
    """:math:`\\max_{|C| = size - k} (\\max_a f(C + a) - \\min_a f(C + a))`, ``a`` of size k from ``U - C``."""
    pairs = _count(capacity, size - k) * _count(capacity, k)
    _check_budget(pairs)
    with _pair_bar(pairs, "global (bounded)") as bar:
        highest, lowest = _Extensions(values, capacity, resolved, bar).extremes(submultisets(capacity, size - k), k)
    return max(0.0, float((highest - lowest).max()))


def _largest_gap_symmetric(
    values: np.ndarray, capacity: np.ndarray, size: int, k: int, resolved: ResolvedQuery
) -> float:
    """Symmetric :math:`GS_k` over cores (module docstring): for each core :math:`C` of :math:`c \\ge 0` records,
    the release is :math:`C + r` with :math:`|r| = n - c \\le k` and the neighbour :math:`C + a` with
    :math:`|a| = j \\le k - (n - c)` and :math:`c + j \\ge 1` (the neighbour is never empty)."""
    total = int(capacity.sum())
    plan = [(c, [j for j in range(0 if c else 1, k - (size - c) + 1) if c + j <= total])
            for c in range(max(0, size - k), size + 1)]
    plan = [(c, js) for c, js in plan if js]
    pairs = 0
    for c, js in plan:  # stop counting once above the limit: the message then gives a lower bound
        pairs += _count(capacity, c) * sum(_count(capacity, t) for t in [size - c, *js])
        if pairs > MAX_WORK:
            break
    _check_budget(pairs)  # one count for the whole plan, before any of it runs
    best = 0.0
    with _pair_bar(pairs, "global (symmetric)") as bar:
        extensions = _Extensions(values, capacity, resolved, bar)
        for c, js in plan:
            cores = submultisets(capacity, c)
            high_x, low_x = extensions.extremes(cores, size - c)
            high_y, low_y = np.full(len(cores), -np.inf), np.full(len(cores), np.inf)
            for j in js:
                high_j, low_j = extensions.extremes(cores, j)
                high_y, low_y = np.maximum(high_y, high_j), np.minimum(low_y, low_j)
            best = max(best, float(np.maximum(high_x - low_y, high_y - low_x).max()))
    return best


def _local_families(own: np.ndarray, k: int, relation: str) -> list[tuple[int, int]]:
    """``(i, j)``: the sizes of ``r`` (removed) and ``a`` (added) of :func:`local_neighbour_counts` (bounded and
    symmetric)."""
    if relation == "symmetric":
        n = int(own.sum())
        return [(i, j) for i in range(min(k, n) + 1) for j in range(1 if i in (0, n) else 0, k - i + 1)]
    return [(j, j) for j in range(k + 1)]


def _local_enumeration_pairs(own: np.ndarray, spare: np.ndarray, k: int, relation: str) -> int:
    """The (release, neighbour) pairs :func:`local_neighbour_counts` lists, counted before it runs."""
    if relation == "unbounded":
        return _count(own, k) + _count(spare, k)
    return sum(_count(own, i) * _count(spare, j) for i, j in _local_families(own, k, relation))


def local_neighbour_counts(
    release: np.ndarray, universe: np.ndarray, k: int, relation: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distinct neighbours of ``release`` as count vectors: returns (values, release counts, neighbour counts).

    Unbounded: the release minus each distinct ``r`` of size k, and plus each distinct ``a`` of size k
    from ``U - x``. Bounded: ``x - r + a`` with ``|r| = |a| = j <= k``, ``r`` from ``x``, ``a`` from
    ``U - x`` and no value both removed and added (so each neighbour appears once; ``j = 0`` is ``x``).
    Symmetric: ``x - r + a`` the same way with ``|r| = i <= size``, ``|a| = j``, ``1 <= i + j <= k`` and
    ``j >= 1`` when ``i = size`` (never empty).
    """
    values, capacity = distinct_counts(universe)
    own = counts_of(release, values)
    spare = capacity - own
    _check_budget(_local_enumeration_pairs(own, spare, k, relation))
    if relation == "unbounded":
        return values, own, np.vstack([own - submultisets(own, k), own + submultisets(spare, k)])
    blocks = []
    for i, j in _local_families(own, k, relation):
        removed, added = submultisets(own, i), submultisets(spare, j)
        pick_removed, pick_added = np.meshgrid(np.arange(len(removed)), np.arange(len(added)), indexing="ij")
        r, a = removed[pick_removed.ravel()], added[pick_added.ravel()]
        disjoint = ~((r > 0) & (a > 0)).any(axis=1)
        blocks.append(own - r[disjoint] + a[disjoint])
    return values, own, np.vstack(blocks)


def _fast_local_values(
    release: np.ndarray, universe: np.ndarray, k: int, relation: str, resolved: ResolvedQuery
) -> tuple[float, np.ndarray]:
    values, own, neighbours = local_neighbour_counts(release, universe, k, relation)
    f_release = float(resolved.on_rows(release[np.newaxis, :])[0])
    sizes = neighbours.sum(axis=1)
    f_neighbours = np.concatenate(  # one batch per neighbour size (a batch is a rectangular array)
        [resolved.on_rows(counts_to_rows(values, neighbours[sizes == s])) for s in np.unique(sizes)]
    )
    return f_release, f_neighbours


# --------------------------------------------------------------------------------------------- tables
Universe = pd.DataFrame | Mapping[str, Data]


def _as_list(name: str, values: object) -> list:
    """A non-empty list from a sequence argument of :func:`sensitivity_grid` (a lone string is refused)."""
    if isinstance(values, (str, bytes)) or not isinstance(values, (Sequence, np.ndarray, pd.Index, range)):
        raise TypeError(f"{name} must be a list (or tuple) of values, got {type(values).__name__}")
    if len(values) == 0:
        raise ValueError(f"{name} must hold at least one value, got an empty sequence")
    return list(values)


def _columns_of(universe: Universe, columns: Sequence[str] | None, name: str = "universe") -> dict[str, np.ndarray]:
    if not isinstance(universe, (pd.DataFrame, Mapping)):
        raise TypeError(f"{name} must be a DataFrame or a mapping of column name to values, got "
                        f"{type(universe).__name__}")
    if len(universe.keys()) == 0:
        raise ValueError(f"{name} must have at least one column, got none")
    names = list(universe.keys()) if columns is None else _as_list("columns", columns)
    unknown = [c for c in names if c not in universe]
    if unknown:
        raise ValueError(f"columns {unknown} are not in the universe; it has {list(universe.keys())}")
    if not names:
        raise ValueError("columns must name at least one column")
    return {c: as_dataset(universe[c], f"{name}[{c!r}]") for c in names}


GridCell = tuple[str, int, Query, str]


def _grid_cell(cell: GridCell, data: dict[str, np.ndarray], released: dict[str, np.ndarray] | None, size: int | None,
               method: str) -> float:
    """One cell ``(relation, k, query, column)`` of :func:`sensitivity_grid`, by the public functions; a
    ``ValueError`` names the cell."""
    relation, k, query, column = cell
    try:
        if released is None:
            return global_sensitivity(data[column], size, query, k=k, relation=relation, method=method)
        return local_sensitivity(released[column], data[column], query, k=k, relation=relation, method=method)
    except ValueError as error:  # say which cell of the grid (which entry of ks, ...) was invalid
        raise type(error)(f"grid cell (relation={relation!r}, ks entry k={k}, column={column!r}): {error}") from None


def _refuse_unless_cells_fit(cells: list[GridCell], chosen: list[int], methods: dict[int, str],
                             data: dict[str, np.ndarray], released: dict[str, np.ndarray] | None,
                             size: int | None) -> None:
    """Refuse the grid at once unless the first counts of the ``chosen`` cells (:func:`dpteach.budget.first_count`,
    each cell by its method in ``methods``) fit the call's work budget beside what it has already counted."""
    counts = [first_count(partial(_grid_cell, cells[index], data, released, size, methods[index]))
              for index in chosen]
    planned(sum(counts), "do {} weighted work units in the grid's cells without a closed form")


def _grid_values(cells: list[GridCell], data: dict[str, np.ndarray], released: dict[str, np.ndarray] | None,
                 size: int | None, method: str) -> list[float]:
    """Every cell's value. A closed-form cell under ``method="fast"`` passes the checks of
    :func:`global_sensitivity` (or :func:`local_sensitivity`; the columns already passed
    :func:`dpteach.queries.as_dataset`, the relations and queries :func:`sensitivity_grid`'s own checks) and
    contributes its :class:`dpteach.exact.Plan`; the plans of one query are then evaluated together
    (:func:`dpteach.exact.run_plans`: numpy's row functions give each row the same bits in any batch, so every value
    equals the single call's). Other cells are computed alone, after every plan is built (and so counted against
    the call's work budget) and after their first counts together (:func:`dpteach.budget.first_count`) are known
    to fit it: a grid too large is refused before any cell runs. The global variance cells are the exception:
    their candidates (:mod:`dpteach.global_spread`, bounded by their own limits and not counted) either answer or
    leave the cell to enumeration, whose count is known only then. So the other cells are counted first, the
    variances then try their candidates (once), and the cells left, the variances' enumerations included, are
    counted together before any of them runs.
    """
    answers: dict[int, float] = {}
    pending: dict[Query, tuple[ResolvedQuery, list[tuple[int, Plan]]]] = {}
    alone = []
    for index, cell in enumerate(cells):
        relation, k, query, column = cell
        if method != "fast" or not has_closed_form(query):
            alone.append(index)
            continue
        if released is None:
            n, k = _global_checks(data[column], size, k, relation)
            plan = global_plan(data[column], n, k, relation, query)
        else:
            k = _local_checks(released[column], data[column], k, relation)
            plan = local_plan(released[column], data[column], k, relation, query)
        pending.setdefault(query, (resolve_query(query), []))[1].append((index, plan))
    methods = dict.fromkeys(alone, method)
    variances = [index for index in alone if released is None and method == "fast" and cells[index][2] == "var"]
    _refuse_unless_cells_fit(cells, [index for index in alone if index not in variances], methods, data, released,
                             size)
    for index in variances:  # their candidates, once; a cell they leave is enumerated
        relation, k, query, column = cells[index]
        n, k = _global_checks(data[column], size, k, relation)
        certified = _global_var_by_candidates(data[column], n, k, relation, resolve_query(query))
        if certified is None:
            methods[index] = "enumerate"
        else:
            answers[index] = certified
    left = [index for index in alone if index not in answers]
    _refuse_unless_cells_fit(cells, left, methods, data, released, size)
    for index in left:
        answers[index] = _grid_cell(cells[index], data, released, size, methods[index])
    for resolved, items in pending.values():
        for (index, _), value in zip(items, run_plans(resolved, [plan for _, plan in items]), strict=True):
            answers[index] = value
    return [answers[index] for index in range(len(cells))]


@held
def sensitivity_grid(
    universe: Universe,
    *,
    size: int | None = None,
    release: Universe | None = None,
    columns: Sequence[str] | None = None,
    queries: Sequence[Query] = QUERIES,
    ks: Sequence[int] = (1,),
    relations: Sequence[str] = BLOG_RELATIONS,
    method: str = "fast",
) -> pd.DataFrame:
    """Tidy table of sensitivities: one row per (relation, k, query, column) — what notebooks 02/03 plot.

    Global scope: give ``size`` (the release size). Local scope: give ``release`` (a DataFrame or mapping
    whose columns are sub-multisets of the universe's). ``relations`` defaults to the blog's two; add
    ``"symmetric"`` for group privacy. Columns of the result: ``relation``, ``scope``,
    ``k``, ``query``, ``column``, ``sensitivity``.

    With ``method="fast"`` the candidate datasets of every closed-form cell (:mod:`dpteach.exact`) are evaluated
    together, one numpy call per query and dataset size (:func:`_grid_values`); each value is the one
    :func:`global_sensitivity` or :func:`local_sensitivity` returns for that cell. The whole grid is one work
    budget (:func:`dpteach.budget.held`): the cells' counts add up, and the count that would take their total above
    :data:`dpteach.budget.MAX_WORK` is refused before its cell runs.
    """
    if (size is None) == (release is None):
        raise ValueError("give exactly one of size (global sensitivity) or release (local sensitivity)")
    data = _columns_of(universe, columns)
    released = _columns_of(release, list(data), "release") if release is not None else None
    relations, queries, ks = (_as_list(n, v) for n, v in (("relations", relations), ("queries", queries), ("ks", ks)))
    for relation in relations:
        if relation not in RELATIONS:
            raise ValueError(f"relations must hold only {RELATIONS}, got {relation!r}")
    for query in queries:
        try:
            resolve_query(query)
        except (TypeError, ValueError) as error:
            raise type(error)(f"queries: {error}") from None
    for k in ks:
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
            raise ValueError(f"ks must hold whole numbers >= 1 (Hamming distances), got {k!r}")
    cells = list(itertools.product(relations, ks, queries, data))
    try:
        values = _grid_values(cells, data, released, size, method)
    except WorkLimitError:  # the whole grid is one budget: recomputing cell by cell would not fit either
        raise
    except (TypeError, ValueError):  # batches name no cell: recompute one cell at a time to say which one failed
        values = [_grid_cell(cell, data, released, size, method) for cell in cells]
    scope = "global" if released is None else "local"
    labels = itertools.product(relations, ks, [resolve_query(query).name for query in queries], data)
    rows = [(relation, scope, k, label, column, value)
            for (relation, k, label, column), value in zip(labels, values, strict=True)]
    return pd.DataFrame(rows, columns=["relation", "scope", "k", "query", "column", "sensitivity"])


@held
def neighbour_table(
    universe: Data, size: int, query: Query = "median", *, k: int = 1, relation: str = "unbounded"
) -> pd.DataFrame:
    """The hand-worked neighbour table of the local-sensitivity post (notebook 03).

    One row per distinct release of ``size`` records from ``universe``: the release, its query value,
    then for each distinct neighbour (other than the release itself) the neighbour, its query value and
    the L1 norm :math:`|f(x) - f(x')|`; finally the row's local sensitivity, the first neighbour that
    attains it (``argmax``, 1-based), and whether the row attains the global sensitivity. The global
    sensitivity is also stored in ``table.attrs["global_sensitivity"]``.
    """
    resolved = resolve_query(query)
    check_relation(relation)
    universe_data = as_dataset(universe, "universe")
    size = check_int("size", size, 1, universe_data.size, high_label=f"|universe| = {universe_data.size}")
    k = _check_distance(k, size, universe_data.size, relation)
    check_exact_sums(universe_data, _largest_dataset(size, k, relation, universe_data.size), "universe")
    check_work(_comb(universe_data.size, size) * _naive_pairs_per_release(size, universe_data.size, k, relation),
               "write {} (release, neighbour) pairs into the table", kind="table pair")
    universe_tuple = tuple(universe_data.tolist())
    records = []
    for release in dict.fromkeys(itertools.combinations(universe_tuple, size)):
        neighbours = [nb for nb in dict.fromkeys(tuple(sorted(nb)) for nb in
                                                 positional_neighbours(release, universe_tuple, k, relation))
                      if nb != release]
        f_release = _scalar(resolved, release)
        row: dict[str, object] = {"release": as_tuple(release), f"{resolved.name}(release)": f_release}
        norms = []
        for j, nb in enumerate(neighbours, start=1):
            f_nb = _scalar(resolved, nb)
            norms.append(abs(f_release - f_nb))
            row.update({f"neighbour {j}": as_tuple(nb), f"{resolved.name} {j}": f_nb, f"L1 {j}": norms[-1]})
        row["local sensitivity"] = max(norms)
        row["argmax"] = int(np.argmax(norms)) + 1
        records.append(row)
    table = pd.DataFrame.from_records(records)
    global_value = float(table["local sensitivity"].max())
    table["attains global"] = table["local sensitivity"] == global_value
    table.attrs["global_sensitivity"] = global_value
    return table
