"""Month names (stdlib only): the one list the keyword leg and the evidence check share.

A journal heads its days "## 2026-11-09" and a question says "9 November": the keyword
leg turns a named day into its ISO form (:func:`kb.search.keyword.date_terms`) and the
evidence check reads an ISO date's month (:func:`kb.rag.dates.date_words`), both
with these names.
"""

from __future__ import annotations

from kb.lang import language

_EN = language("en")
#: the months in order, in small letters (English: :mod:`kb.lang.en`)
MONTH_NAMES = _EN.months

_NUMBERS = (
    {m: i for i, m in enumerate(MONTH_NAMES, 1)}
    | {m[:3]: i for i, m in enumerate(MONTH_NAMES, 1)}
    | _EN.month_abbreviations
)


def month_number(name: str) -> int | None:
    """1 to 12 for a month's name, whole or short ("November", "nov", "Sept"), in any
    case; ``None`` for anything else."""
    return _NUMBERS.get(name.lower())
