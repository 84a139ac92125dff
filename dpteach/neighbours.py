"""Datasets as multisets, and their neighbours under the bounded, unbounded and symmetric relations.

Notebook 02 teaches the relations; this module gives them two implementations:

* **by position** (the blog's way, :func:`positional_neighbours`): ``itertools.combinations`` over the
  *positions* of a list, so a value that occurs twice yields the same dataset twice;
* **by multiplicity** (the fast engine's way): a multiset over the distinct values
  :math:`v_1 < \\dots < v_d` of a universe with multiplicities :math:`m_i` is a count vector
  :math:`c` with :math:`0 \\le c_i \\le m_i`; :func:`submultisets` lists each distinct one exactly once.

Neighbours at Hamming distance :math:`k` of a release :math:`x` (a sub-multiset of the universe :math:`U`):

* unbounded: :math:`x' = x - r` with :math:`r \\subseteq x,\\ |r| = k`, or :math:`x' = x + a` with
  :math:`a \\subseteq U - x,\\ |a| = k`;
* bounded: :math:`x' = C + a` with a core :math:`C \\subseteq x,\\ |C| = |x| - k` and
  :math:`a \\subseteq U - C,\\ |a| = k` (so up to :math:`k` records are replaced);
* symmetric (group privacy under add/remove DP, OpenDP's ``SymmetricDistance``): :math:`x' = x - r + a` with
  :math:`r \\subseteq x`, :math:`a \\subseteq U - x`, :math:`1 \\le |r| + |a| \\le k` and :math:`x'` non-empty
  (:math:`|a| \\ge 1` when :math:`r = x`). Equivalently: the non-empty multisets :math:`y \\subseteq U` with
  :math:`1 \\le |x \\triangle y| \\le k` (take :math:`r = x - y`, :math:`a = y - x`), including those that share
  no record with :math:`x` (:math:`|x \\triangle y| = |x| + |y|`). Empty datasets are left out: the queries are
  undefined on them. This relation is symmetric, and its distances run up to :math:`|x| + (|U| - |x|) = |U|`
  (remove every record and add every other one), or :math:`|U| - 1` when :math:`x = U`.

The blog's "unbounded at distance k" (exactly k added or exactly k removed, never a mix) is *not* the
symmetric distance: it rebuilds the blog's figures, but noise for a group of k people must use ``symmetric``.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter, OrderedDict
from collections.abc import Iterable, Iterator

import numpy as np

RELATIONS: tuple[str, ...] = ("unbounded", "bounded", "symmetric")


def check_relation(relation: str) -> str:
    """Return ``relation`` if it is one of :data:`RELATIONS`, else raise ``ValueError``."""
    if relation not in RELATIONS:
        raise ValueError(f"relation must be one of {RELATIONS}, got {relation!r}")
    return relation


def distinct_counts(sorted_values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Split a sorted multiset into its distinct values and their multiplicities."""
    values, counts = np.unique(sorted_values, return_counts=True)
    return values, counts.astype(np.int64)


def count_submultisets(capacity: np.ndarray, size: int, cap: int | None = None) -> int:
    """Number of distinct sub-multisets of ``size`` elements of the multiset with multiplicities ``capacity``.

    It is the coefficient of :math:`t^{size}` in :math:`P(t) = \\prod_i (1 + t + \\dots + t^{m_i})`. Without ``cap``
    it is computed exactly with Python integers, one value at a time. With ``cap`` the answer is exact whenever it
    is at most ``cap``; otherwise a *lower bound* above ``cap`` comes back at once (a work budget needs no more):

    * :math:`P` is palindromic (:math:`t^N P(1/t) = P(t)`, :math:`N = \\sum m_i`) and its coefficients are
      log-concave without internal zeros (each factor's are, and convolution keeps both properties), so they
      rise up to :math:`\\lfloor N/2 \\rfloor`: the count at ``size`` is at least the count at every
      :math:`j \\le s' = \\min(size, N - size)`;
    * choosing :math:`j \\le d` distinct values gives :math:`\\binom{d}{j}` sub-multisets of size :math:`j`
      (:math:`d` distinct values), so the count is at least :math:`\\binom{d}{\\min(s', \\lfloor d/2 \\rfloor)}`;
    * otherwise, for :math:`s' \\le 64`, the values are grouped by capacity :math:`m` (capped at :math:`s'`) and a
      group of :math:`c` values contributes
      :math:`[t^j] (1 + \\dots + t^m)^c = \\sum_i (-1)^i \\binom{c}{i} \\binom{j - i(m+1) + c - 1}{c - 1}`;
    * for larger :math:`s'` the bound above leaves at most a few dozen distinct values, and a numpy pass of
      :math:`O(d \\cdot s')` keeps every coefficient capped at ``cap + 1``: a coefficient that feeds the answer
      never exceeds the answer, so the result is exact, or ``cap + 1`` when it is larger.
    """
    total = int(np.sum(capacity))
    if size < 0 or size > total:
        return 0
    if cap is None:
        poly = [1] + [0] * size
        for m in capacity:
            m = int(m)
            prefix = list(itertools.accumulate(poly))
            poly = [prefix[j] - (prefix[j - m - 1] if j - m - 1 >= 0 else 0) for j in range(size + 1)]
        return poly[size]
    size = min(size, total - size)  # the coefficients are palindromic
    distinct = len(capacity)
    if _log10_comb(distinct, min(size, distinct // 2)) > math.log10(cap) + 1:
        return comb_above(distinct, min(size, distinct // 2), cap)
    if size <= 64:  # group the values by capacity (capped at size): a closed form per group, exact integers
        poly = [1] + [0] * size
        groups, sizes = np.unique(np.minimum(np.asarray(capacity, dtype=np.int64), size), return_counts=True)
        for m, c in zip(groups.tolist(), sizes.tolist(), strict=True):
            group = [sum((-1) ** i * math.comb(c, i) * math.comb(j - i * (m + 1) + c - 1, c - 1)
                         for i in range(j // (m + 1) + 1)) for j in range(size + 1)]
            poly = [sum(poly[i] * group[j - i] for i in range(j + 1)) for j in range(size + 1)]
        return poly[size]
    poly = np.zeros(size + 1, dtype=np.int64)  # here few distinct values (the bound above is small)
    poly[0] = 1
    for m in np.asarray(capacity, dtype=np.int64):
        prefix = np.cumsum(poly)
        shifted = np.concatenate([np.zeros(min(int(m) + 1, size + 1), dtype=np.int64), prefix])[: size + 1]
        poly = np.minimum(prefix - shifted, cap + 1)
    return int(poly[size])


def _log10_comb(n: int, j: int) -> float:
    return (math.lgamma(n + 1) - math.lgamma(j + 1) - math.lgamma(n - j + 1)) / math.log(10)


def comb_above(n: int, j: int, cap: int) -> int:
    """:math:`\\binom{n}{j}` when it is at most ``cap`` (or cheap), else a lower bound above ``cap``: a power of ten
    read from ``lgamma`` (whose error is far below the one decade given away), at once for any size."""
    if j < 64 or n < 4096 or _log10_comb(n, j) <= math.log10(cap) + 2:
        return math.comb(n, j)
    return max(10 ** math.floor(_log10_comb(n, j) - 1), cap + 1)


_SMALL_LISTS: OrderedDict[tuple[tuple[int, ...], int], np.ndarray] = OrderedDict()
_SMALL_LIST_ENTRIES = 100_000  # lists up to this many entries are kept (64 of them: at most 51 MB)


def submultisets(capacity: np.ndarray, size: int) -> np.ndarray:
    """All distinct count vectors ``c`` with ``0 <= c <= capacity`` and ``sum(c) == size``.

    Returns an ``(N, d)`` int array, one sub-multiset per row, ``N = count_submultisets(capacity, size)``.
    Built one value at a time, keeping only partial vectors that can still reach ``size``. The answer depends on
    the integers ``capacity`` and ``size`` alone, so small lists are kept (least recently used first out) and
    handed back **read-only**: the grids of notebooks 02 and 03 ask for the same lists many times.
    """
    capacity = np.asarray(capacity, dtype=np.int64)
    key = (tuple(capacity.tolist()), int(size))
    if key in _SMALL_LISTS:
        _SMALL_LISTS.move_to_end(key)
        return _SMALL_LISTS[key]
    rows = _build_submultisets(capacity, size)
    if rows.size <= _SMALL_LIST_ENTRIES:
        rows.flags.writeable = False
        _SMALL_LISTS[key] = rows
        if len(_SMALL_LISTS) > 64:
            _SMALL_LISTS.popitem(last=False)
    return rows


def clear_cache() -> None:
    """Forget the kept lists of :func:`submultisets`."""
    _SMALL_LISTS.clear()


def _build_submultisets(capacity: np.ndarray, size: int) -> np.ndarray:
    d = capacity.size
    room_after = np.concatenate([np.cumsum(capacity[::-1])[::-1][1:], [0]])
    rows = np.zeros((1, 0), dtype=np.int64)
    totals = np.zeros(1, dtype=np.int64)
    for i in range(d):
        choices = np.arange(capacity[i] + 1, dtype=np.int64)
        new_totals = (totals[:, None] + choices[None, :]).ravel()
        parent = np.repeat(np.arange(rows.shape[0]), choices.size)
        picks = np.tile(choices, rows.shape[0])
        keep = (new_totals <= size) & (new_totals + room_after[i] >= size)
        rows = np.column_stack([rows[parent[keep]], picks[keep]])
        totals = new_totals[keep]
    return rows.reshape(-1, d)


def counts_to_rows(values: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Turn count vectors (one per row, all with the same total ``s``) into sorted datasets, shape ``(N, s)``."""
    counts = np.atleast_2d(counts)
    n_rows = counts.shape[0]
    size = int(counts[0].sum()) if n_rows else 0
    flat = np.repeat(np.tile(values, n_rows), counts.ravel())
    return flat.reshape(n_rows, size)


def counts_of(sorted_data: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Count vector of a sorted dataset over the distinct ``values`` (every datum must be one of them)."""
    return np.bincount(np.searchsorted(values, sorted_data), minlength=values.size).astype(np.int64)


def as_tuple(data: Iterable[float]) -> tuple[float, ...]:
    """A dataset as a sorted tuple for display, whole numbers shown as ``int`` (``(1, 2, 10)``)."""
    return tuple(int(v) if float(v).is_integer() else float(v) for v in sorted(data))


def missing_from(release: np.ndarray, universe: np.ndarray) -> list[float]:
    """Values of ``release`` (with multiplicity) that the multiset ``universe`` cannot supply."""
    excess = Counter(release.tolist()) - Counter(universe.tolist())
    return list(as_tuple(excess.elements()))


def multiset_difference(universe: tuple[float, ...], taken: tuple[float, ...]) -> list[float]:
    """``universe - taken`` as multisets (each value removed as often as it is taken), sorted."""
    return sorted((Counter(universe) - Counter(taken)).elements())


def positional_neighbours(
    release: tuple[float, ...], universe: tuple[float, ...], k: int, relation: str
) -> Iterator[tuple[float, ...]]:
    """The blog's enumeration: neighbours of ``release`` built from combinations of *positions*.

    A value that occurs several times is picked once per position, so the same neighbour can appear
    several times; that is the wasted work the fast engine removes.
    """
    size = len(release)
    if relation == "unbounded":
        yield from itertools.combinations(release, size - k)
        for added in itertools.combinations(multiset_difference(universe, release), k):
            yield release + added
    elif relation == "symmetric":
        spare = multiset_difference(universe, release)
        for n_removed in range(min(k, size) + 1):
            for kept in itertools.combinations(release, size - n_removed):
                least = 1 if n_removed in (0, size) else 0  # a neighbour differs from x and is never empty
                for n_added in range(least, k - n_removed + 1):
                    for added in itertools.combinations(spare, n_added):
                        yield kept + added
    else:
        for core in itertools.combinations(release, size - k):
            for filled in itertools.combinations(multiset_difference(universe, core), k):
                yield core + filled
