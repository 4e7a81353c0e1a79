"""Superlative questions over a list: which item has the most or least of a quantity.

"Which laptop is cheapest?" over a shortlist

    - ThinkPad X1 Carbon: 1.12 kg, £1,349.
    - Dell XPS 13: heavier at 1.24 kg, but cheaper than the ThinkPad at £1,099.
    - MacBook Air M2: £999 on the education store.

was answered from the item that says *cheaper*, the closest match by words, while the
answer is the item with the smallest price. Words and cosines cannot compare values;
this module does, for the quote candidates that are items of one list or rows of one
table.

The question names the extreme (:data:`SCALE_WORDS`): a superlative word (*cheapest*,
*heaviest*, *longest* ...), or a comparative asked between the items ("Which laptop is
*lighter*?"), or *most*/*least* (*more*/*less*) before
*expensive* or *costly*, with the
kind of quantity it compares (:func:`kb.rag.units.quantities`' kinds: *cheapest*
compares money, *lightest* weight, *coldest* temperature, *longest* a distance or a
time) and whether the largest or the smallest value wins. *highest*, *lowest*,
*largest*, *biggest* and *smallest* compare whatever quantity with a unit, or score
out of a total ("4/5"), the items hold (bare numbers, often years or counts of
something else, are not compared); *most*
and *least* alone are too common ("the most famous") to read as a comparison.
*latest*, *newest*, *most recent*, *the last* (*my last* …; not the verb: "How long
did the outage *last*?") and *last* said of what someone did ("When did I *last* run?",
"When was the boiler *last* serviced?", "When was *the last time* …?") ask for the
latest date, *earliest* for the first, among the rows of a table ("How much was the
last service?" over a service history whose rows start "| 2026-03-20 |") or the dated
items of a list ("1. 2026-05-20 at Skoda Barnet: major service") or the lines or
paragraphs of a log that open with their day ("On 3 November 2026 the annual service
…", :func:`starts_dated`). A table is a record
of like things, while a log's list items are not ("When was my last run?" over a
running log whose latest item is a visit to the physio): quote mode compares a list's
items (and a log's lines) by date only among those that say what the question asks
(:func:`kb.rag.candidates.rank_candidates`).

A journal's entries are passages of their own under dated headings ("## 2026-11-09" /
"Ran 10 km, 58 minutes."): :func:`entry_value` gives such a sentence its value (its
heading's day, or its quantity), compared across the entries that say what the
question asks ("When did I last run?", "What was my longest run?").

Among the items of one passage (list items or table rows, :func:`is_item`), those that
hold a quantity of that kind are compared by the first such quantity's value, when
there are two at least and all are written in the same unit (the text around the
digits: "£", "kg"; "1.2 kg" and "900 g" are not compared, nor are "£999" and "999
euros"). The item(s) with the extreme value are the answer's candidates. Edge cases: a
question with no superlative, or items without such a quantity, or one item only,
give nothing; ties give every tied item; values compare as numbers ("1,349" is 1349).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from kb.lang import all_languages
from kb.months import month_number
from kb.rag.dates import MONTH_NAME
from kb.rag.lexical import tokens
from kb.rag.units import quantities
from kb.sentence_spans import TABLE_RULE, starts_item

_MONEY = frozenset({"money"})
_WEIGHT = frozenset({"weight"})
_TEMPERATURE = frozenset({"temperature"})
_DISTANCE = frozenset({"distance"})
_LENGTH = frozenset({"distance", "time"})
#: a calendar date, compared by :func:`date_value` (not a quantity kind of
#: :func:`kb.rag.units.quantities`)
DATE = frozenset({"date"})
#: the superlatives and comparatives (asked between a list's items: "Which laptop is
#: *lighter*?", read as the superlative) of each scale, the kind of quantity they
#: compare (``None``: any) and which end wins (+1 the largest value, -1 the smallest);
#: not *further* ("further details"), nor *most*/*least* alone ("the most famous")
_SCALES: tuple[tuple[str, frozenset[str] | None, int], ...] = (
    ("cheapest cheaper", _MONEY, -1),
    ("dearest dearer priciest pricier costliest costlier", _MONEY, 1),
    ("lightest lighter", _WEIGHT, -1),
    ("heaviest heavier", _WEIGHT, 1),
    ("hottest hotter warmest warmer", _TEMPERATURE, 1),
    ("coldest colder coolest cooler", _TEMPERATURE, -1),
    ("longest longer", _LENGTH, 1),
    ("shortest shorter", _LENGTH, -1),
    ("nearest nearer closest closer", _DISTANCE, -1),
    ("farthest farther furthest", _DISTANCE, 1),
    ("highest higher largest larger biggest bigger", None, 1),
    ("lowest lower smallest smaller", None, -1),
    ("latest newest", DATE, 1),
    ("earliest", DATE, -1),
)
#: word -> (the kinds it compares, the end that wins), from :data:`_SCALES`
SCALE_WORDS: dict[str, tuple[frozenset[str] | None, int]] = {
    w: (kinds, direction) for words, kinds, direction in _SCALES for w in words.split()
}
#: *most* / *least* (*more* / *less*) before these compare money ("the most expensive",
#: "less costly")
_PRICE_WORDS = frozenset(["expensive", "costly", "pricey"])
_MOST_LEAST = {"most": 1, "more": 1, "least": -1, "less": -1}
#: the words before *last* that make it "the latest" ("How much was *the last*
#: service?", "my last run"), not a verb ("How long did the outage *last*?") nor "at
#: last"
_OWNERS = frozenset(["the", "my", "our", "your", "his", "her", "their"])
#: after *the last*, a span of time or a thing that is no record ("the last 6 months",
#: "the last year", "my last name", "the last day to pay")
_NOT_LAST_TEXT = (
    "day days week weeks month months year years decade decades century hour hours minute"
    " minutes time times name names few couple"
)
_NOT_LAST = frozenset(_NOT_LAST_TEXT.split())


#: every shipped language's words that ask for the latest entry
#: (:attr:`kb.lang.base.Lang.latest_words`: *recently*, *aktuell*, *letzte*, *dernière*)
LATEST_WORDS = frozenset().union(*(x.latest_words for x in all_languages()))

#: subject pronouns before an adverb *last*: "When did *I last* run?"
_SUBJECTS = frozenset(["i", "we", "you", "he", "she", "they"])


def _asks_latest(before: str, after: str) -> bool:
    """*last* between ``before`` and ``after`` (lower-cased words) asks for the latest
    date: after an owner ("my last run", "the last service"; not "the last 6 months",
    "my last name"), or "the last time"; or as an adverb after a subject pronoun ("did
    I last run") or before a past participle ("was the boiler last serviced"); not the
    verb ("How long did the outage last?" has no word after it) nor "at last"."""
    if before in _OWNERS:
        return after == "time" or not (after.isdigit() or after in _NOT_LAST)
    if before == "at" or after.isdigit() or after in _NOT_LAST:
        return False
    return before in _SUBJECTS or (len(after) > 4 and after.endswith("ed"))


@dataclass(frozen=True)
class Extreme:
    """What a superlative question compares: the quantity kinds (``None``: any), the
    direction (+1 largest, -1 smallest), and the question's word that asks it
    (*cheapest*; *expensive* of "most expensive"), which plays no part in equality."""

    kinds: frozenset[str] | None
    direction: int
    word: str = field(default="", compare=False)


def asked_extreme(question: str) -> Extreme | None:
    """The extreme ``question`` asks for (module docstring), or ``None``."""
    words = [w.lower() for w in tokens(question)]
    dated: Extreme | None = None
    for i, w in enumerate(words):
        after = words[i + 1] if i + 1 < len(words) else ""
        if w in _MOST_LEAST and after in _PRICE_WORDS:
            return Extreme(_MONEY, _MOST_LEAST[w], after)
        if w in SCALE_WORDS and SCALE_WORDS[w][0] != DATE:
            kinds, direction = SCALE_WORDS[w]
            return Extreme(kinds, direction, w)
        if dated is not None:
            continue  # another scale may still come: "over the last year, which … highest?"
        if w == "most" and after in ("recent", "recently"):  # "the most recent service"
            dated = Extreme(DATE, 1, after)
        elif w in LATEST_WORDS or (  # "What did I buy recently?", "aktuell", "dernière"
            w == "last" and i > 0 and after and _asks_latest(words[i - 1], after)
        ):
            dated = Extreme(DATE, 1, w)
        elif w in SCALE_WORDS:
            dated = Extreme(*SCALE_WORDS[w], w)
    return dated


def is_item(sentence: str) -> bool:
    """``sentence`` is a list item or a table row (not a table's rule line)."""
    text = sentence.lstrip()
    return starts_item(text) or (text.startswith("|") and TABLE_RULE.search(text) is None)


_DIGITS = re.compile(r"[\d.,]+")


#: a rating or score out of a total: "4/5", "8.5 / 10" (not a date, "12/03/2026")
_SCORE = re.compile(r"(?<![\d/.])(\d+(?:\.\d+)?)\s*/\s*(\d+)(?![\d/])")


#: an ISO date, a day before its month's name, or a month's name before its day, each
#: with a year or not ("2025-03-14", "14 March 2025", "3 Oct", "March 14, 2025")
_DATE_RE = re.compile(
    r"(?<!\d)(?P<y>\d{4})-(?P<m>\d{2})-(?P<d>\d{2})(?!\d)"
    r"|(?<!\d)(?P<d2>\d{1,2})(?:st|nd|rd|th)?\s+"
    + rf"(?P<m2>{MONTH_NAME})"
    + r"(?:,?\s+(?P<y2>\d{4}))?\b"
    + rf"|\b(?P<m3>{MONTH_NAME})"
    + r"\s+(?P<d3>\d{1,2})(?:st|nd|rd|th)?\b"
    r"(?:,?\s+(?P<y3>\d{4}))?"
)


def date_value(sentence: str) -> tuple[float, str] | None:
    """The first date of ``sentence`` as (``year*10000 + month*100 + day``, unit): the
    unit is "ymd" when it writes its year and "md" when not, so that a list of days
    without years is compared only with itself (the same rule as a quantity's unit);
    ``None`` without one, or for a day or month out of range."""
    m = _DATE_RE.search(sentence)
    return None if m is None else _value(m)


def _value(m: re.Match[str]) -> tuple[float, str] | None:
    """A :data:`_DATE_RE` match's value and unit (:func:`date_value`)."""
    if m.group("y"):
        year, month, day = int(m.group("y")), int(m.group("m")), int(m.group("d"))
    else:
        name = m.group("m2") or m.group("m3")
        month = month_number(name[:3]) or 0
        day = int(m.group("d2") or m.group("d3"))
        year = int(m.group("y2") or m.group("y3") or 0)
    if not (1 <= month <= 12 and 1 <= day <= 31):
        return None
    return float(year * 10000 + month * 100 + day), ("ymd" if year else "md")


def says_day(question: str, sentence: str) -> bool:
    """``sentence`` writes the day ``question`` asks about ("What happens on 4
    December?" over "completion is set for 4 December 2026"; the years agree when both
    write one); False when the question names no day. Its day's number alone is no
    match: "Maya's school (Year 4)" / "Autumn term ends on 18 December" holds a 4 and
    December."""
    asked = date_value(question)
    if asked is None:
        return False
    for m in _DATE_RE.finditer(sentence):
        v = _value(m)
        if v is None or v[0] % 10000 != asked[0] % 10000:
            continue  # another day
        if not (v[1] == asked[1] == "ymd" and v[0] != asked[0]):
            return True  # the same day, in the same year when both write one
    return False


def starts_dated(sentence: str) -> bool:
    """``sentence`` opens with a day's date, alone or after *On* ("On 3 November 2026
    the annual service found a weak igniter.", "3 Nov: fixed the tap"): a log written
    as lines or paragraphs, whose records compare by date as a list's items do."""
    m = _DATE_RE.search(sentence, 0, 40)
    return m is not None and sentence[: m.start()].strip(" \t*_-").lower() in ("", "on")


def measure(sentence: str, extreme: Extreme) -> tuple[float, str] | None:
    """The first quantity of ``sentence`` of the compared kind, as (value, unit): the
    unit is the quantity as written without its digits ("£", "kg"). ``None`` when it
    holds none; for any kind (``extreme.kinds`` is ``None``), a number with a unit, or
    else a score out of a total ("4/5": 4 in unit "/5"; "Which book did I rate
    highest?"); for a date (:data:`DATE`: *latest*, *the last*), the first date of a
    table row or list item, or of a sentence that starts with it (:func:`starts_dated`),
    :func:`date_value`."""
    if extreme.kinds == DATE:  # records only: rows, items, dated lines (module docstring)
        return date_value(sentence) if is_item(sentence) or starts_dated(sentence) else None
    if extreme.kinds is None and (score := _SCORE.search(sentence)) is not None:
        return float(score.group(1)), "/" + score.group(2)
    for value, kinds, written in quantities(sentence):
        if extreme.kinds is None and not kinds:
            continue
        if extreme.kinds is not None and not (kinds & extreme.kinds):
            continue
        try:
            number = float(value)
        except ValueError:
            continue
        unit = " ".join(_DIGITS.sub(" ", written).split()).lower()
        return number, unit
    return None


def extremes(question: str, items: Sequence[tuple[int, str]]) -> set[int]:
    """The keys of ``items`` (key, sentence: the quote candidates of one passage) that
    hold the extreme value ``question`` asks for (module docstring); empty when it
    asks for none or the items do not compare."""
    extreme = asked_extreme(question)
    if extreme is None:
        return set()
    measured = [
        (key, m)
        for key, text in items
        if (is_item(text) or extreme.kinds == DATE) and (m := measure(text, extreme))
    ]
    if len(measured) < 2 or len({unit for _, (_, unit) in measured}) != 1:
        return set()
    best = max(extreme.direction * value for _, (value, _) in measured)
    return {key for key, (value, _) in measured if extreme.direction * value == best}


def heading_date(heading_path: Sequence[str]) -> tuple[float, str] | None:
    """The date (:func:`date_value`) of the passage's own section heading when it is a
    day's ("## 2026-11-09", "## Thursday 20 November": a journal's entry), else ``None``;
    a year or a month alone ("1973 oil crisis") is no day."""
    return date_value(heading_path[-1]) if heading_path else None


def entry_value(
    sentence: str, heading_path: Sequence[str], extreme: Extreme
) -> tuple[float, str] | None:
    """The value of ``sentence`` of a journal's entry (a passage under a dated heading,
    :func:`heading_date`) for ``extreme``: for a date, its heading's ("## 2026-11-09" /
    "Ran 10 km." is a run on 9 November; a date the sentence writes is often another
    day's: "Booked the dentist for 3 December"); for a quantity, the sentence's
    (:func:`measure`, which any sentence of an entry may hold: "Ran 10 km, 58
    minutes."). ``None`` outside an entry or without a value."""
    dated = heading_date(heading_path)
    if dated is None:
        return None
    return dated if extreme.kinds == DATE else measure(sentence, extreme)


def lifted_extreme(question: str, selector: str | None, off: Iterable[str] = ()) -> str | None:
    """The word of the extreme that quote mode's ranking lifted for (rule
    ``extreme-value``, :func:`kb.rag.candidates.rank_candidates`): a quote-mode answer
    (``selector`` set) to a question that asks for an extreme, with the rule on; else
    ``None``. What the trace and ``kb eval rules`` record as the rule having fired."""
    if not selector or "extreme-value" in set(off):
        return None
    extreme = asked_extreme(question)
    return None if extreme is None else extreme.word
