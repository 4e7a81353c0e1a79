"""A rate asked per one period, written per another: "How many projects does the Centre
realize *a month*?" over "The Centre currently realizes about 500 projects *a year*."

Every content word of such a question but its period is in the sentence (and *year*
frames a question, :data:`kb.rag.terms.QUESTION_FRAME`), so coverage, cosine
and the name checks let it through, and the answer quoted gives a number for another
period. SQuAD 2.0 builds unanswerable questions this way (Rajpurkar,
Jia and Liang 2018: "mutual exclusion" and number swaps), and a note that says "£480 a
year" does not say what is paid a month.

A *rate period* is written as ``per``, ``each`` or ``every`` followed by a period word
(*hour*, *day*, *night*, *week*, *fortnight*, *month*, *quarter*, *year*, with *annum*
for year), as ``a`` or ``an`` and a period word after a quantity a few words before it
(:func:`rate_periods`: "500 projects a year", "twice a week", "how many ... a month";
not "a year ago"), or as an adverb of one (*hourly*, *daily*, *nightly*, *weekly*,
*monthly*, *quarterly*, *yearly*, *annually*). The rule reads the sentence that best
matches the question (as :func:`kb.rag.coverage.ranked_sentences` ranks them): it
contradicts the question when the question asks at one or more periods, the sentence
states a rate at some period, and the sentence states none of the question's. Edge
cases: "every other week" and "twice a week" read as per week; a sentence with no rate
("500 projects so far") says nothing either way; a yes/no question ("Do we pay
monthly?") is answered by the sentence, so it is left alone, as an alternative one
("monthly or yearly?").
"""

from __future__ import annotations

import re

from kb.rag.polarity import Contradiction, alternative, yes_no
from kb.rag.stemmer import NUMBER_WORDS

#: a period word (singular) -> its period
_PERIOD_WORDS = {
    "hour": "hour",
    "day": "day",
    "night": "day",
    "week": "week",
    "fortnight": "fortnight",
    "month": "month",
    "quarter": "quarter",
    "year": "year",
    "annum": "year",
}
#: an adverb of a period -> its period
_ADVERBS = {
    "hourly": "hour",
    "daily": "day",
    "nightly": "day",
    "weekly": "week",
    "fortnightly": "fortnight",
    "monthly": "month",
    "quarterly": "quarter",
    "yearly": "year",
    "annually": "year",
}
_RATE = re.compile(
    r"\b(?P<lead>a|an|per|each|every)\s+(?:other\s+)?(?P<word>"
    + "|".join(_PERIOD_WORDS)
    + r")\b|\b(?P<adverb>"
    + "|".join(_ADVERBS)
    + r")\b",
    re.IGNORECASE,
)


#: the quantity words :data:`kb.rag.stemmer.NUMBER_WORDS` leaves out, and count words
_COUNT_WORDS: tuple[str, ...] = ("one", "hundred", "thousand", "million", "billion", "dozen")
_COUNT_WORDS += ("once", "twice", "thrice", "times", "several", "many", "much", "few")
#: a quantity: digits, a number word or a count word ("twice", "several")
_QUANTITY = re.compile(
    r"\d|\b(?:" + "|".join([*NUMBER_WORDS, *_COUNT_WORDS]) + r")\b", re.IGNORECASE
)
#: how many words before "a <period>" its quantity may stand
_QUANTITY_WINDOW = 6


#: a question that asks for an amount, a count or a frequency
_ASKS_AMOUNT = re.compile(r"\bhow\s+(?:many|much|often)\b", re.IGNORECASE)


def rate_periods(text: str, *, question: bool = False) -> dict[str, str]:
    """The rate periods ``text`` states (module docs): period -> the words that say it
    ("a month"). "a"/"an" and a period count only after a quantity at most
    :data:`_QUANTITY_WINDOW` words before ("500 projects a year", "twice a week", "how
    many ... a month"), so "a year ago", "a day trip" and "a month later" state no
    rate. In a ``question``, "how many", "how much" or "how often" anywhere before it
    is the quantity."""
    out: dict[str, str] = {}
    for m in _RATE.finditer(text):
        lead = (m.group("lead") or "").lower()
        if lead in ("a", "an"):
            before = text[: m.start()]
            asked = question and _ASKS_AMOUNT.search(before) is not None
            if not asked and not _QUANTITY.search(" ".join(before.split()[-_QUANTITY_WINDOW:])):
                continue
        if m.group("word"):
            period = _PERIOD_WORDS[m.group("word").lower()]
        else:
            period = _ADVERBS[m.group("adverb").lower()]
        out.setdefault(period, m.group(0))
    return out


def other_periods(question: str, sentence: str) -> list[Contradiction]:
    """A contradiction when ``sentence`` states a rate only at periods ``question`` does
    not ask about (module docs): the question's period words, and what the sentence
    says instead."""
    if yes_no(question) or alternative(question):
        return []
    asked = rate_periods(question, question=True)
    if not asked:
        return []
    said = rate_periods(sentence)
    if not said or set(asked) & set(said):
        return []
    return [Contradiction(next(iter(asked.values())), next(iter(said.values())))]
