"""Short excerpts of hit text for display, centred on the first query-term match.

``excerpt(text, query, width)``: white space is folded to single spaces; if a query
term (as :func:`kb.search.keyword.query_terms` sees it, compared case-insensitively,
whole words) occurs, the window of about ``width`` characters starts a little before
its first occurrence, else at the start (a word is also found as written with a
hyphen, *e-mail* for *email*, and the other way round: :mod:`kb.search.compounds`);
cut ends get ``…`` and cuts snap to word boundaries. ``spans`` returns the ``(start,
end)`` of every term occurrence inside the excerpt, for highlighting.
"""

from __future__ import annotations

import re

from kb.search.compounds import HYPHENS, joined, splits_of
from kb.search.keyword import query_terms

ELLIPSIS = "…"


def _term_pattern(query: str) -> re.Pattern[str] | None:
    words: list[str] = []
    for term in query_terms(query):
        words.extend(w for w in re.findall(r"\w+", term) if len(w) > 1 or w.isdigit())
        whole = joined(term)
        if whole is not None:
            words.append(whole)
    if not words:
        return None
    alts = sorted({_spelled(w) for w in words}, key=len, reverse=True)
    return re.compile(r"(?<!\w)(?:" + "|".join(alts) + r")(?!\w)", re.IGNORECASE)


def _spelled(word: str) -> str:
    """The pattern of ``word`` as the text may write it: with a hyphen where
    :func:`kb.search.compounds.splits_of` may split it (``email``: anywhere; ``KC88213``:
    between ``KC`` and ``88213``)."""
    cuts = {len(a) for a, _ in splits_of(word)}
    if not cuts:
        return re.escape(word)
    return "".join(
        (f"[{HYPHENS}]?" if i in cuts else "") + re.escape(c) for i, c in enumerate(word)
    )


def excerpt(text: str, query: str = "", width: int = 240) -> str:
    """About ``width`` characters of ``text`` around the first match of ``query``."""
    flat = " ".join(text.split())
    if len(flat) <= width:
        return flat
    pattern = _term_pattern(query)
    m = pattern.search(flat) if pattern else None
    start = 0
    if m is not None and m.end() > width:  # the match is not already in the first window
        start = max(0, m.start() - width // 4)
        space = flat.find(" ", start, m.start())  # snap to a word start before the match
        start = space + 1 if space != -1 else start
    end = min(len(flat), start + width)
    if end < len(flat):
        space = flat.rfind(" ", start, end)
        end = space if space > start + width // 2 else end
    out = flat[start:end].strip()
    return (ELLIPSIS if start > 0 else "") + out + (ELLIPSIS if end < len(flat) else "")


def spans(shown: str, query: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each query-term occurrence in ``shown`` (non-overlapping)."""
    pattern = _term_pattern(query)
    if pattern is None:
        return []
    return [(m.start(), m.end()) for m in pattern.finditer(shown)]
