"""Dates as patterns, and what a date says: the bounds in time a span sets, the month
an ISO date is in.

The month names are :mod:`kb.lang.en`'s (:data:`MONTH_NAME`, a capitalised name or its
short form as a date writes it), and so are the weekdays a date may name. :func:`bounds`
reads the bounds a sentence sets ("warranty until March 2026" ends, "since 2019" starts:
:data:`END_WORDS`, :data:`START_WORDS`), and :func:`date_words` the month of an ISO date
("2026-11-02" -> *november*), so that a question's words meet what a date says.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from kb.lang import language
from kb.months import MONTH_NAMES
from kb.rag.stemmer import stem

_EN = language("en")


def _names(words: Iterable[str]) -> str:
    """An alternation of ``words`` capitalised, the longest first (so a month matches
    whole, as greedy optional endings did: "Sept" before "Sep")."""
    alts = sorted({w.capitalize() for w in words}, key=lambda w: (-len(w), w))
    return "|".join(alts)


#: a month's name as a date writes it: capitalised, as a month always is and "may",
#: "march" or "sun" as words are not; the names and short forms of :mod:`kb.lang.en`
#: ("Jan", "January", "Sept")
MONTH_NAME = rf"(?:{_names([*MONTH_NAMES, *_EN.month_abbreviations])})\b\.?"
#: a month's name in any case
ANY_CASE_MONTH = rf"(?i:{MONTH_NAME})"
#: a date as a pattern: ISO, or a day with its month's name ("3 May", "May 3", "3rd May")
DAY_DATE = (
    rf"\b\d{{4}}-\d{{2}}-\d{{2}}\b|\b\d{{1,2}}(?:st|nd|rd|th)?\s+{ANY_CASE_MONTH}"
    rf"|{ANY_CASE_MONTH}\s+\d{{1,2}}\b"
)


_YEAR = r"(?:1[5-9]|20)\d\d\b(?![.,]\d)"
_DAY = r"\d{1,2}(?:st|nd|rd|th)?\b"
_NUMERIC_DATE = r"\d{4}-\d{2}-\d{2}\b|\d{1,2}[./]\d{1,2}[./]\d{2,4}\b"
#: a date: a day and a month, a month (with its day) and a year, an ISO or numeric date,
#: a weekday (:mod:`kb.lang.en`'s names), a quarter
_DATE = (
    rf"{_DAY}\s+{MONTH_NAME}(?:,?\s+{_YEAR})?|{MONTH_NAME}(?:\s+{_DAY})?(?:,?\s+{_YEAR})?"
    rf"|{_NUMERIC_DATE}|(?:{_names(_EN.weekdays)})\b|Q[1-4]\b"
)
_AROUND = r"(?i:in|on)\s+"
#: a point in time after a word that bounds a span: a date (above) or a year, after "in"
#: or "on", "the end of", "mid", "early" or "late" at most
_WHEN = (
    rf"(?:{_AROUND})?(?:(?i:(?:the\s+)?(?:end|start|beginning)\s+of\s+|mid-?\s*|early\s+"
    rf"|late\s+))?(?:{_DATE}|{_YEAR})"
)
#: after "from" or "between", which also name people ("an e-mail from June", "from
#: Jan"), a month alone is no point in time: the date needs its day or year there, or a
#: range's end after it ("from March to April"); a month no one is named after, written
#: out, is one ("Priya hosts from January")
_FROM_WHEN = (
    rf"(?:{_AROUND})?(?:{_DAY}\s+{MONTH_NAME}(?:,?\s+{_YEAR})?"
    rf"|{MONTH_NAME}\s+(?:{_DAY}(?:,?\s+{_YEAR})?|{_YEAR})|{_NUMERIC_DATE}|{_YEAR}"
    r"|(?:January|February|March|July|September|October|November|December)\b(?!\s*\d))"
)
_RANGE = (
    rf"\b(?i:from|between)\s+(?:{_FROM_WHEN}|{MONTH_NAME})\s*(?i:to|and|until|till|-|–)\s*"
    rf"(?:{_WHEN}|{_DAY})"
)
#: two dates with their years, a span without *from*: "Period of cover: 1 February 2026
#: to 31 January 2027", "March 2025 – June 2026", "2026-02-01 to 2027-01-31" ("When does
#: the insurance end?"); a year alone is no date here ("2019 to 2021 prices")
_DATED = (
    rf"(?:{_DAY}\s+{MONTH_NAME},?\s+{_YEAR}|{MONTH_NAME}\s+(?:{_DAY},?\s+)?{_YEAR}"
    rf"|{_NUMERIC_DATE})"
)
_BARE_RANGE = rf"(?<![\w/.-]){_DATED}\s*(?i:to|until|till|-|–|—)\s*{_DATED}"
#: the words a span's end and start say ("When does the course *finish*?")
END_WORDS = frozenset(stem(w) for w in ["end", "expire", "expiry", "finish"])
#: what an end in time says beside :data:`END_WORDS`: "When is the car insurance up for
#: *renewal*?" over "with Direct Line until June 2026" (and, as
#: :func:`kb.rag.lexical.found` forgives derivations, *renew*, *renewed*), and "When is
#: Elena *back*?" over "on holiday until Thursday" (an absence that ends: *back*,
#: *return*). Not end words themselves: "its renewal is yearly" says no end that would
#: answer "When did the policy end?"
_END_SAYS = END_WORDS | {stem("renewal"), stem("back"), stem("return")}
START_WORDS = frozenset(stem(w) for w in ["start", "begin", "commence"])
#: a span's bound in time says what the question asks about it: "warranty until March
#: 2026" answers "When does the warranty *end*?", "since 2019" "When did it *start*?",
#: "from 1939 to 1945" both. Each pattern needs its bounding word right before the point
#: in time ("from Stripe to Adyen" bounds nothing); the bounding words are matched in
#: any case, the dates as written
_BOUND_WORDS: tuple[tuple[re.Pattern[str], frozenset[str]], ...] = (
    (
        re.compile(
            r"\b(?i:until|till|til|through|thru|expires?|expired|expiring|ends?|ended|ending"
            rf"|valid\s+(?:to|until|through)|runs?\s+(?:to|until))\s+{_WHEN}|{_RANGE}"
            rf"|{_BARE_RANGE}"
        ),
        _END_SAYS,
    ),
    (
        re.compile(
            r"\b(?i:since|starting|starts?|started|begins?|began|beginning|effective|as\s+of)"
            rf"\s+{_WHEN}|\b(?i:from|between)\s+{_FROM_WHEN}|{_RANGE}|{_BARE_RANGE}"
        ),
        START_WORDS,
    ),
)


def bounds(text: str) -> dict[str, str]:
    """The bounds in time ``text`` sets (:data:`_BOUND_WORDS`), each stem of
    :data:`END_WORDS` and :data:`START_WORDS` it says -> the words that say it, as
    written: ``"valid from 3 April until 16 April"`` -> start: "from 3 April", end:
    "until 16 April"."""
    out: dict[str, str] = {}
    for pattern, stems in _BOUND_WORDS:
        m = pattern.search(text)
        if m is not None:
            out |= dict.fromkeys(stems, m.group().strip().rstrip("."))
    return out


_ISO_DATE = re.compile(r"(?<!\d)\d{4}-(0?[1-9]|1[0-2])-(?:0?[1-9]|[12]\d|3[01])(?!\d)")


def date_words(text: str) -> set[str]:
    """The month names of ``text``'s ISO dates ("2026-11-02" -> *november*; its day
    is the number ``2`` already, :func:`kb.rag.lexical.content_stems`), so "What did I do on 2
    November?" finds a journal's "## 2026-11-02" or a daily note's file name."""
    return {stem(MONTH_NAMES[int(m.group(1)) - 1]) for m in _ISO_DATE.finditer(text)}
