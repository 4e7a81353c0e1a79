"""A question that names a year answers from that year's entry.

"How much did I pay to sign up for the *2024* half marathon?" over a running log with a
section per year retrieves the 2025 and 2026 sections first (they say more of the
question's words), and quote mode quoted the 2025 entry fee. A person who names a year
wants that year's row, entry or section, or to hear that the notes have none.

:func:`asked_years` reads the years a question names (four digits from 1000 to 2099, not
part of a longer number, a clock time or a code: "in 2025", "the 2024 half marathon",
"2025-03-30"); :func:`in_period` says whether a candidate sentence is of one of them: the
year is written in the sentence, in the heading or lead quoted before it, or in the
section heading path or file name of its passage ("## 2024", "2024-taxes.md"). The
``period`` selector (:mod:`kb.rag.rules`) keeps only such candidates when some are and
some are not. Edge cases: a question without a year, or with years no candidate holds,
changes nothing here (the responsiveness judge then reads the year as a key the cited
passages lack); a span of years ("2019–2021") names both ends only.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from kb.types import Hit

#: a year: four digits 1000-2099, not inside a longer number, a decimal, a clock time
#: ("20:15") or a code glued to letters ("A2024")
_YEAR = re.compile(r"(?<![\w.,:/])(1\d{3}|20\d{2})(?![\w:]|[.,]\d)")


def asked_years(question: str) -> frozenset[str]:
    """The years ``question`` names, as written (module docstring)."""
    return frozenset(_YEAR.findall(question))


def _says(years: frozenset[str], text: str) -> bool:
    return any(re.search(rf"(?<!\d){y}(?!\d)", text) for y in years)


def in_period(years: frozenset[str], texts: Sequence[str], hit: Hit) -> bool:
    """One of ``years`` is written in ``texts`` (a sentence and what is quoted with it),
    in ``hit``'s section heading path, or in its file name."""
    if not years:
        return False
    place = " ".join(hit.locator.heading_path) + " " + hit.locator.path.rsplit("/", 1)[-1]
    return _says(years, place) or any(_says(years, t) for t in texts)
