"""What kind of answer a question asks for, and whether a sentence can hold one.

Quote mode (:mod:`kb.rag.quote`) ranks passage sentences by how closely they match the
question, and a small model mostly copies the first. The sentence that names a note's
topic ("The boiler is a Viessmann Vitodens 100.") matches a question about that topic
best, by cosine and by its rare words, while the one that answers it comes next ("the
last service was on 12 October 2026"). A *when* question cannot be answered by a
sentence without a date, nor a *how many* question by one without a quantity: the
"expected answer type" of the TREC-era question answering systems, used here only as a
small bonus, since a sentence can answer in words ("overnight", "every Monday").

Types, from the question's wording (case-insensitive):

- ``"time"``: *when*, *what/which year, decade, century, month, day, date, time,
  era, period* ("In what year ...");
- ``"money"``: *how much* with *cost, price, pay, spend, charge, earn, owe, worth,
  fee, budget* ("How much did the service cost?"), *what is the price/cost/fee/fare/
  rent/salary*;
- ``"quantity"``: *how many/much/long/far/old/big/large/tall/high/fast/often/deep/
  wide/heavy*, *what percentage/percent/number/amount/proportion/fraction/size*;
- ``None`` otherwise (who, what, why, which X ...: too varied to check by shape).

A sentence holds a ``"time"`` when it has a year, a clock time, a numeric date or a
day's ordinal (:data:`_TIME_SHAPE`; "100" is none) or a month, weekday, season or
relative-day word (:data:`TIME_WORDS`; not *may*, *mar* or *fall*, which are more
often verbs), a ``"money"`` when it has an amount (a currency sign or word by a
number: "£90", "145 euros"), a ``"quantity"`` when it has a number, a
number word or a unit of time (:data:`QUANTITY_WORDS`: "three", "a dozen",
"overnight").
"""

from __future__ import annotations

import re
from typing import Literal

AnswerType = Literal["time", "money", "quantity"]

_TIME_Q = re.compile(
    r"\bwhen\b|\b(?:what|which)\s+(?:year|decade|century|month|day|date|time|era|period)s?\b",
    re.IGNORECASE,
)
_MONEY_Q = re.compile(
    r"\bhow\s+much\b.*\b(?:cost|costs|costing|price|priced|pay|paid|spend|spent|charge|"
    r"charged|earn|earned|earns|owe|owed|worth|fee|fees|budget)\b"
    r"|\bwhat\s+(?:was|is|were|are|will\s+be)\s+the\s+(?:price|cost|fee|fare|rent|salary)\b",
    re.IGNORECASE,
)
#: an amount of money: a currency sign by a number, or a number with a currency word
_MONEY_SHAPE = re.compile(
    r"[$£€¥₹]\s*\d|\d\s*(?:k|m|bn|million|billion)?\s*(?:dollars?|euros?|pounds?|usd|eur|gbp|"
    r"chf|cents?|pence|p\b|yen|francs?|marks?|rupees?|kr|sek|nok|dkk|pln|zł)",
    re.IGNORECASE,
)
_QUANTITY_Q = re.compile(
    r"\bhow\s+(?:many|much|long|far|old|big|large|tall|high|fast|often|deep|wide|heavy)\b"
    r"|\bwhat\s+(?:percentage|percent|number|amount|proportion|fraction|size)\b",
    re.IGNORECASE,
)

_TIME_WORDS_TEXT = """january february march april june july august september october november
    december jan feb apr jun jul aug sep sept oct nov dec monday tuesday wednesday
    thursday friday saturday sunday weekday weekend spring summer autumn winter
    century centuries decade decades today tomorrow yesterday tonight morning evening
    night overnight noon midnight"""
#: words that say *when* without a digit
TIME_WORDS = frozenset(_TIME_WORDS_TEXT.split())
_QUANTITY_WORDS_TEXT = """one two three four five six seven eight nine ten eleven twelve
    thirteen fourteen
    fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy
    eighty ninety hundred hundreds thousand thousands million millions billion billions
    trillion dozen dozens half quarter once twice several few overnight second seconds
    minute minutes hour hours day days week weeks month months year years"""
#: words that say *how many / how long* without a digit
QUANTITY_WORDS = frozenset(_QUANTITY_WORDS_TEXT.split())
_WORD = re.compile(r"[^\W\d_]+")
_DIGIT = re.compile(r"\d")
#: a year (1000-2199, or a decade: "1990s"), a clock time ("14:00", "9 am", "9pm"), a
#: numeric date ("2026-12-01", "1/3/2027"), or a day's ordinal ("the 12th"); a bare
#: "100" is no time
_TIME_SHAPE = re.compile(
    r"(?<![\d.,])(?:1\d{3}|2[01]\d{2})(?:s|'s)?(?![\d.,]\d)"
    r"|\b\d{1,2}[:.]\d{2}\b|\b\d{1,2}\s*[ap]\.?m\b\.?"
    r"|\b\d{1,4}[-/]\d{1,2}[-/]\d{1,4}\b|\b\d{1,2}(?:st|nd|rd|th)\b",
    re.IGNORECASE,
)


def expected_type(question: str) -> AnswerType | None:
    """The answer type ``question`` asks for (module docstring), or ``None``."""
    if _TIME_Q.search(question):
        return "time"
    if _MONEY_Q.search(question):
        return "money"
    if _QUANTITY_Q.search(question):
        return "quantity"
    return None


def holds(kind: AnswerType | None, sentence: str) -> bool:
    """``sentence`` can hold an answer of ``kind`` (module docstring); True for
    ``None`` (nothing expected)."""
    if kind is None:
        return True
    if kind == "money":
        return bool(_MONEY_SHAPE.search(sentence))
    if kind == "time":
        if _TIME_SHAPE.search(sentence):
            return True
    elif _DIGIT.search(sentence):
        return True
    words = TIME_WORDS if kind == "time" else QUANTITY_WORDS
    return any(w.lower() in words for w in _WORD.findall(sentence))
