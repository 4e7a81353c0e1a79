"""Edit distance between two words (stdlib only): the typo tolerance of the evidence
check (:func:`kb.rag.lexical.near`) and of search (:mod:`kb.search.typos`)."""

from __future__ import annotations


def within(a: str, b: str, d: int) -> bool:
    """The optimal-string-alignment distance of ``a`` and ``b`` (insert, delete,
    substitute, or swap two neighbours) is at most ``d``. Stops as soon as a whole row
    of the table exceeds ``d``; strings whose lengths differ by more than ``d`` are
    rejected at once."""
    if abs(len(a) - len(b)) > d:
        return False
    before: list[int] = []
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb))
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                cur[j] = min(cur[j], before[j - 2] + 1)
        if min(cur) > d:
            return False
        before, prev = prev, cur
    return prev[-1] <= d
