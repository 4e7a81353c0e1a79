"""Half-open token intervals ``(doc, start, end)`` and the set arithmetic the chunk-level
metrics need (Chroma's ``union_ranges``/``intersect_two_ranges``/``sum_of_ranges``,
keyed by document).

An interval covers token indexes ``start .. end - 1`` of document ``doc`` (indexes into
that document's token list, see :mod:`eval.token_space`); ``end <= start`` is empty.
Every function takes and returns plain tuples so rows stored as JSON read back as-is.
"""

from __future__ import annotations

from collections.abc import Iterable

Interval = tuple[str, int, int]


def union(items: Iterable[Interval]) -> list[Interval]:
    """The union as sorted, disjoint, non-touching intervals (empties dropped).

    Example: ``[(d,0,3), (d,2,5), (d,5,6), (e,0,1)]`` -> ``[(d,0,6), (e,0,1)]``.
    """
    out: list[Interval] = []
    for doc, s, e in sorted(i for i in items if i[2] > i[1]):
        if out and out[-1][0] == doc and s <= out[-1][2]:
            if e > out[-1][2]:
                out[-1] = (doc, out[-1][1], e)
        else:
            out.append((doc, s, e))
    return out


def size(items: Iterable[Interval]) -> int:
    """Tokens in the union of ``items`` (each token once)."""
    return sum(e - s for _, s, e in union(items))


def total(items: Iterable[Interval]) -> int:
    """Sum of the lengths, a token in two intervals counting twice (Chroma's
    ``sum_of_ranges`` over retrieved chunks: overlapping windows cost twice)."""
    return sum(max(0, e - s) for _, s, e in items)


def intersect(a: Iterable[Interval], b: Iterable[Interval]) -> list[Interval]:
    """``union(a) ∩ union(b)`` as disjoint intervals.

    Example: ``[(d,0,10)] ∩ [(d,5,15), (e,0,3)]`` -> ``[(d,5,10)]``.
    """
    ua, ub = union(a), union(b)
    out: list[Interval] = []
    i = j = 0
    while i < len(ua) and j < len(ub):
        (da, sa, ea), (db, sb, eb) = ua[i], ub[j]
        if da != db:
            if da < db:
                i += 1
            else:
                j += 1
            continue
        lo, hi = max(sa, sb), min(ea, eb)
        if lo < hi:
            out.append((da, lo, hi))
        if ea <= eb:
            i += 1
        else:
            j += 1
    return out


def overlaps(a: Interval, b: Interval) -> bool:
    """Same document and at least one token in common."""
    return a[0] == b[0] and max(a[1], b[1]) < min(a[2], b[2])


def contains(outer: Interval, inner: Interval) -> bool:
    """``inner`` lies wholly inside ``outer`` (same document)."""
    return outer[0] == inner[0] and outer[1] <= inner[1] and inner[2] <= outer[2]


def head(items: Iterable[Interval], budget: int) -> list[Interval]:
    """The first ``budget`` tokens of ``items`` taken in order (the last one cut).

    Example: ``[(d,0,4), (d,10,20)]`` with budget 6 -> ``[(d,0,4), (d,10,12)]``.
    """
    out: list[Interval] = []
    left = budget
    for doc, s, e in items:
        if left <= 0:
            break
        n = max(0, e - s)
        take = min(n, left)
        if take:
            out.append((doc, s, s + take))
        left -= take
    return out
