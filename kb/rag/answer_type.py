"""What kind of answer a question asks for, and whether a sentence can hold one.

Quote mode (:mod:`kb.rag.quote`) ranks passage sentences by how closely they match the
question, and a small model mostly copies the first. The sentence that names a note's
topic ("The boiler is a Viessmann Vitodens 100.") matches a question about that topic
best, by cosine and by its rare words, while the one that answers it comes next ("the
last service was on 12 October 2026"). A *when* question cannot be answered by a
sentence without a date, nor a *how many* question by one without a quantity: the
"expected answer type" of the TREC-era question answering systems, used here only as a
small bonus, since a sentence can answer in words ("overnight", "every Monday").

Types, from the question's wording (case-insensitive), first match wins:

- ``"money"``: *how much* with *cost, price, pay, spend, charge, earn, owe, worth,
  fee* after it, unless it asks *how much time* ("How much did the service cost?");
  *what is / what's the (…) price, cost, fee, fare, rent, salary*; *what does … cost*;
  *how much is / was / are the (a, my …)* ("How much is the DELE exam?": a price, not
  the quantity *how much* alone asks for);
- ``"time"``: a question that starts or ends with *when* ("When …?", "And when …?",
  "… ended when?"; not "How much did it cost when the boiler broke?", nor a leading
  *when* clause before the question's own wh-word: "When forces act on a body, what
  must be specified?"), *what/which
  year, decade, century, month, date, time* ("In what year …"; not *what time zone*,
  *which day pass*);
- ``"quantity"``: *how many/much/long/far/old/big/large/tall/high/fast/often/deep/
  wide/heavy*, *what percentage/percent/number/amount/proportion/fraction/size*;
- ``"name"``: *who is / was / are / were* followed by *the, my, our, your, his, her,
  their* or a name's possessive ("Who is my tax adviser?", "Who's the landlord?", "Who
  is Miso's vet?"): a question of identity, asked for a person or a body by name;
- ``None`` otherwise (what, why, which X, other *who* questions …: too varied to check
  by shape). A *name* type for every *who* question was measured and left out: on
  squad-dev's 26 *who* questions the first candidate held the answer 13 times instead
  of 15, as "Who can be in the Victorian cabinet?" and "Who is on the IPCC Panel?" are
  answered by descriptions ("representatives appointed by governments"). The 4 squad-dev
  questions of identity keep their first candidate.

**Languages.** The patterns and words are language data (:mod:`kb.lang`: each
language's ``type_questions``, ``named_time``, ``when_words`` and ``quantity_words``).
A question is read in the answer checks' language (:func:`kb.rag.stemmer.stem_language`,
set from the question's) and then in English: "Wann wurde die Heizung gewartet?" asks a
time, "Was hat die Reparatur gekostet?" and "Wie hoch ist die Nachzahlung?" an amount,
"Combien de personnes …" a number; a German sentence holds a time in "am Dienstag" and a
number in "zwölf". English questions are read as above in any language's block. German
has no ``"name"`` pattern: it writes every noun with a capital, so no sentence's shape
tells a name.

A *where* question ("Where is the Airbnb?", "… kept where?") is not one of these types
(a place is asked of sentences of every kind, and the section and list answers of
untyped questions serve it), but :func:`asks_place` tells it, and :func:`says_place`
whether a sentence can say where: a locative preposition before a word ("Airbnb *in
Alfama*, Rua dos Remédios 42", "the key is *in the glovebox*"). Quote mode gives such a
sentence its small bonus: the budget row "| Airbnb (7 nights) | £640 |" tied with the
address, by words and cosine, and was quoted for "Where is the Airbnb?". Measured on
squad-dev's and the fresh set's 23 answerable *where* questions: the first candidate
holds the answer as often as without it (18); Wikipedia's sentences nearly all say where.

A sentence holds

- a ``"time"`` when it has a year (1000–2199 or a decade, "1990s", not part of a code,
  a size or an amount: "Room 1204", "1920x1080", "1500 euros", "2000 W"), a clock time
  ("14:00", "9 am", "9.30 h"), an ISO or day/month/year date, a month and year with a
  leading zero ("expires 04/27"), a day's ordinal ("the
  12th"), a duration from now ("in 3 days"), a numbered period of a plan ("from week
  3", "Day 2", "Sprint 14", "Q3"), or a time word (:data:`TIME_WORDS`:
  months, weekdays, seasons, *today*, *ago*, *weekly*…; not *may*, *mar*, *march* or
  *fall*, more often verbs, nor *spring*, but *March* and *May* capitalised after *in*,
  *by*, *until*, *since*, …: "The salary review will be done in March.");
- a ``"money"`` when it has an amount: a currency sign or code before or after a number
  ("£90", "145 €", "EUR 950", "145 euros");
- a ``"quantity"`` when it has a number (a digit or a fraction sign that starts a word,
  after a currency sign at most: "£1,325", "70Ah", "12th", "½ cup"; not the digits
  inside a code or a reference, "DPS-7714-2209", "B05S", "web-01"), a number word or a
  word of frequency or duration
  (:data:`QUANTITY_WORDS`: "three", "a dozen", "overnight", "annually");
- a ``"name"`` when it has a capitalised word that is not its first word (after a
  list marker or a table bar), not a time word ("April", "Monday"), not a stop word
  or "I", and not a word of the question ("Adviser: Frau Keller." holds one for "Who is
  my tax adviser?"; "Deadline for filing through the adviser is 30 April 2027." does
  not). A sentence that opens with the name ("Lena recommended it.") is missed: its
  first word cannot be told from any sentence's capital.
"""

from __future__ import annotations

import functools
import re
from typing import Literal, cast

from kb.lang import language
from kb.rag.dates import DAY_DATE
from kb.rag.lexical import STOPWORDS
from kb.rag.stemmer import stem_language
from kb.sentence_spans import AUXILIARIES, ITEM_NUMBER

AnswerType = Literal["time", "money", "quantity", "name"]


@functools.cache
def _type_questions(code: str) -> tuple[tuple[AnswerType, re.Pattern[str]], ...]:
    """The language ``code``'s answer-type patterns (:attr:`kb.lang.base.Lang.
    type_questions`), compiled."""
    return tuple(
        (cast(AnswerType, kind), re.compile(rx, re.IGNORECASE))
        for kind, rx in language(code).type_questions
    )


def _reading() -> tuple[str, ...]:
    """The languages a question is read in: the answer checks' language
    (:func:`kb.rag.stemmer.stem_language`, set from the question's) before English, or
    English alone."""
    code = stem_language()
    return ("en",) if code is None or code == "en" else (code, "en")


#: a leading *when* clause before the question's own wh-word: "When forces act on an
#: extended body, what must be specified?" asks *what*, not *when* (a *when* before an
#: auxiliary asks: "When did the war end, and why?")
_WHEN_CLAUSE = re.compile(
    r"^\W*when\s+(?!(?:"
    + "|".join(w.replace("'", "['’]") for w in sorted(AUXILIARIES, key=len, reverse=True))
    + r")\b)[^,?]*,\s*(?:\w+\s+){0,2}(?:what|which|who|whom|whose|where|why|how)\b",
    re.IGNORECASE,
)

_CURRENCY_CODE = r"usd|eur|gbp|chf|jpy|inr|sek|nok|dkk|pln|cad|aud"
#: an amount of money: a currency sign or code before or after a number, or a number
#: with a currency word
_MONEY_SHAPE = re.compile(
    rf"(?:[$£€¥₹]|\b(?:{_CURRENCY_CODE})\b)\s*\d"
    rf"|\d\s*(?:[$£€¥₹]|(?:k|bn|m|million|billion)?\s*(?:{_CURRENCY_CODE}|dollars?|euros?|"
    r"pounds?|cents?|pence|yen|francs?|rupees?|zł|zloty)\b)",
    re.IGNORECASE,
)
#: a year, a clock time, a date, a day's ordinal, a time from now (module docstring)
_TIME_SHAPE = re.compile(
    r"(?<![\w.,/x×-])(?:1\d{3}|2[01]\d{2})(?:s|'s)?"
    r"(?![\w/x×°%-]|[.,]\d|\s*(?:[$£€¥₹]|(?:w|kw|kwh|v|mah|mg|kg|g|mm|cm|m|km|ml|l|mb|gb|tb|"
    r"px|rpm|hz|mhz|ghz|euros?|dollars?|pounds?)\b))"
    r"|\b\d{1,2}:\d{2}\b|\b\d{1,2}(?:[.:]\d{2})?\s*(?:[ap]\.?m\b\.?|h\b)"
    r"|\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}/\d{1,2}/(?:\d{4}|\d{2})\b"
    # a card's or a document's month and year: "expires 04/27"
    r"|(?<![\d/.])(?:0[1-9]|1[0-2])/\d{2}(?![\d/])"
    r"|\b\d{1,2}(?:st|nd|rd|th)\b(?!\s+floor)"
    r"|\b(?:in|for|after|within)\s+\d+\s*(?:days?|weeks?|months?|years?|hours?)\b"
    # a numbered period of a plan: "the on-call rota from week 3", "Day 2: Belém",
    # "Sprint 14", "in Q3"
    r"|\b(?:week|day|month|sprint|quarter|term|semester)\s+\d{1,2}(?![\d.,:/-]\d)\b"
    r"|\bQ[1-4]\b"
    # *March* and *May* after a word that says when ("done in March", "by May"), as
    # written: alone they are more often verbs (:data:`TIME_WORDS`)
    r"|\b(?:in|by|until|till|since|before|after|from|during|early|late|mid|of)\s+"
    r"(?-i:March|May)\b",
    re.IGNORECASE,
)

#: English's words that say *when* without a digit (:attr:`kb.lang.base.Lang.when_words`)
TIME_WORDS = language("en").when_words
#: English's words that say *how many / how long / how often* without a digit
QUANTITY_WORDS = language("en").quantity_words


def time_words() -> frozenset[str]:
    """The words that say *when* without a digit in the languages read (:func:`_reading`)."""
    return _vocabulary(_reading())[0]


def quantity_words() -> frozenset[str]:
    """The words that say a number without a digit in the languages read."""
    return _vocabulary(_reading())[1]


@functools.cache
def _vocabulary(codes: tuple[str, ...]) -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """(when words, quantity words, stop words) of the languages ``codes``; the stop
    words with English's function words (:data:`kb.rag.lexical.STOPWORDS`)."""
    langs = [language(c) for c in codes]
    return (
        frozenset().union(*(x.when_words for x in langs)),
        frozenset().union(*(x.quantity_words for x in langs)),
        frozenset().union(*(x.stop_words for x in langs)) | STOPWORDS,
    )


_WORD = re.compile(r"[^\W\d_]+")
#: a number: a digit that starts a word (after a currency sign or a minus at most), not
#: one inside a code ("B05S", "DPS-7714-2209"): "-15 °C" is a quantity
_NUMBER = re.compile(r"(?<!\w)(?<!\w-)[$£€¥₹]?(?:\d|[\u00bc-\u00be\u2150-\u215e])")
#: a word of two letters or more (an apostrophe or hyphen inside); a name when its
#: first letter is a capital (any script's: "Ólafur"); one letter is a unit, "21 °C"
_CAPITALISED = re.compile(r"(?<![\w'’-])[^\W\d_]+(?:['’-][^\W\d_]+)*")


def expected_type(question: str) -> AnswerType | None:
    """The answer type ``question`` asks for (module docstring), or ``None``: the first
    of the question's language's patterns that matches (:attr:`kb.lang.base.Lang.
    type_questions`: German "Wann …", "Was hat … gekostet?", "Wie hoch ist die
    Nachzahlung?"; French "Combien coûte …", "À quelle heure …"), then English's."""
    return _asked(question)[0]


def _asked(question: str) -> tuple[AnswerType | None, str | None]:
    """(the answer type ``question`` asks for, the code of the language whose pattern
    found it), or ``(None, None)``."""
    for code in _reading():
        for kind, rx in _type_questions(code):
            m = rx.search(question)
            if kind == "time" and m and m.start() == 0 and _WHEN_CLAUSE.match(question):
                m = rx.search(question, m.end())  # the clause's *when* asks nothing
            if m:
                return kind, code
    return None, None


_PLACE_Q = re.compile(r"^\W*(?:\w+\s+)?where\b|\bwhere\W*$", re.IGNORECASE)
#: a locative preposition before a word, after an article or a possessive at most; not
#: the end of a compound ("Check-in is at 15:00")
_PLACE = re.compile(
    r"(?<![\w'’-])(?:in|at|on|near|under|behind|inside|beside|outside|above|below|opposite|across"
    r"|within|into|next\s+to)\s+(?:(?:the|a|an|my|our|his|her|their|its|this|that)\s+)?"
    r"[^\W\d_]",
    re.IGNORECASE,
)


def asks_place(question: str) -> bool:
    """``question`` asks *where*: it starts (after one word at most: "And where …?") or
    ends with it ("The spare key is kept where?"); not "Which is where the war began?"."""
    return _PLACE_Q.search(question) is not None


def says_place(sentence: str) -> bool:
    """``sentence`` can say where (module docstring): a locative preposition before a
    word ("in Alfama", "in the glovebox", "next to the boiler")."""
    return _PLACE.search(sentence) is not None


def holds(kind: AnswerType | None, sentence: str, question: str = "") -> bool:
    """``sentence`` can hold an answer of ``kind`` (module docstring); True for
    ``None`` (nothing expected). ``question``'s own words are no ``"name"`` answer, and
    its own numbers no other: "How many parts does Stage *3* have?" is not answered by
    "Stage 3 is the final stage", nor "How many of the *352* votes are needed?" by "In
    total there are 352 votes"."""
    if kind is None:
        return True
    if kind == "name":
        return has_name(sentence, question)
    sentence = _without_numbers_of(question, sentence)
    if kind == "quantity" and _COUNT_OF_THINGS.search(question):
        sentence = _DATE_PARTS.sub("_", sentence)  # a count of buildings is no year
    if kind == "money":
        return bool(_MONEY_SHAPE.search(sentence))
    if kind == "time":
        if _TIME_SHAPE.search(sentence):
            return True
    elif _NUMBER.search(sentence, _item_number_end(sentence)):
        return True
    words = time_words() if kind == "time" else quantity_words()
    return any(w.lower() in words for w in _WORD.findall(sentence))


#: "how many" before a noun that is no unit of time: a count of things, which a year, a
#: date or a clock time does not give ("How many buildings were razed by the fire?" is
#: not answered by "On May 3, 1901, downtown Jacksonville was ravaged by a fire")
_COUNT_OF_THINGS = re.compile(
    r"\bhow\s+many\s+(?!(?:years?|months?|weeks?|days?|hours?|minutes?|seconds?|decades?"
    r"|centuries|century|times?)\b)[^\W\d_]",
    re.IGNORECASE,
)
#: a year, a date's parts and a clock time (:func:`holds` for a count of things)
_DATE_PARTS = re.compile(
    r"(?<![\w.,])(?:1\d{3}|2[01]\d{2})(?:s|'s)?(?![\w.,]\d|\w)"
    r"|\b\d{1,2}/\d{1,2}/(?:\d{4}|\d{2})\b|\b\d{1,2}:\d{2}\b|" + DAY_DATE,
    re.IGNORECASE,
)
#: a number as a question writes it: digits with their separators ("352", "1,435")
_QUESTION_NUMBER = re.compile(r"(?<![\w.,])\d+(?:[.,]\d+)*(?![\w])")


def _without_numbers_of(question: str, sentence: str) -> str:
    """``sentence`` with the numbers and number words ``question`` holds blanked out."""
    numbers = {m.group() for m in _QUESTION_NUMBER.finditer(question)}
    words = {w.lower() for w in _WORD.findall(question)} & quantity_words()
    for n in sorted(numbers, key=len, reverse=True):
        sentence = re.sub(rf"(?<![\w.,]){re.escape(n)}(?![\w]|[.,]\d)", "_", sentence)
    if words:
        alt = "|".join(sorted(map(re.escape, words), key=len, reverse=True))
        sentence = re.sub(rf"\b(?:{alt})\b", "_", sentence, flags=re.IGNORECASE)
    return sentence


def _item_number_end(sentence: str) -> int:
    """Where ``sentence`` starts past a numbered list item's number ("1. Mix the butter
    ..."): a place in a list, no quantity the sentence says; 0 without one."""
    m = ITEM_NUMBER.match(sentence)
    return m.end() if m else 0


def has_name(sentence: str, question: str = "") -> bool:
    """``sentence`` has a capitalised word past its first that is not a time word, a
    stop word, "I" or a word of ``question`` (case-insensitive; a possessive "'s" is
    dropped on both sides)."""
    asked = {_bare(w) for w in _WORD.findall(question)}
    when, _, stop = _vocabulary(_reading())
    first = _WORD.search(sentence)
    for m in _CAPITALISED.finditer(sentence):
        w = m.group()
        if len(w) < 2 or not w[0].isupper() or (first is not None and m.start() == first.start()):
            continue
        word = _bare(m.group())
        if word == "i" or word in when or word in stop or word in asked:
            continue
        return True
    return False


def _bare(word: str) -> str:
    w = word.lower()
    return w[:-2] if w.endswith(("'s", "’s")) else w


@functools.cache
def _named_time(code: str) -> re.Pattern[str] | None:
    """*what/which year, decade, century, date, month* (also "In what year …") in the
    language ``code`` (:attr:`kb.lang.base.Lang.named_time`): a point in time asked for
    by its name, which an event does not give."""
    rx = language(code).named_time
    return re.compile(rx, re.IGNORECASE) if rx else None


def _asks_named_time(question: str) -> bool:
    return any((rx := _named_time(c)) is not None and rx.search(question) for c in _reading())


#: a price without a number ("Parking is free.", "Breakfast is included.")
_NO_CHARGE = re.compile(r"\b(?:free|nothing|no\s+charge|included)\b", re.IGNORECASE)


def strict_type(question: str) -> AnswerType | None:
    """The answer type ``question`` cannot be answered without, or ``None``: a
    quantity (*how many, how much, how long* …), an amount of money, or a point in time
    asked for by its name (*what year, which decade, in what century, what date, what
    month*). The evidence check counts only the sentences that can give it
    (:func:`gives`; :func:`kb.rag.answerability.check`), and quote mode offers only
    those when any can. A *when* question is not strict: an event answers it ("until
    the oil shock", "at the beginning of each parliamentary session", two of the fresh
    set's answerable *when* questions), nor a *who* question (a description answers
    it: :data:`expected_type`'s notes).

    Measured on squad-dev's SQuAD questions and the fresh set (pipeline screens, no
    model): "In what year was the Haensch study released?" over "The results of the
    Haensch study have since been confirmed and amended." is refused; no answerable
    question of either set is.

    Only a language whose ``strict_types`` is set (:attr:`kb.lang.base.Lang.
    strict_types`: English) has strict types; German's and French's types choose
    candidates (:func:`expected_type`) but refuse nothing. Measured on XQuAD's German
    development half (12 articles, the 32 questions whose pipeline screen changed,
    through the model): strict German types refused 3 more answerable questions ("Wie
    wurde festgelegt, wie viele …" asks *how*, not *how many*) and answered none more
    rightly."""
    kind, code = _asked(question)
    if code is None or not language(code).strict_types:
        return None
    if kind == "time":
        return kind if _asks_named_time(question) else None
    return kind if kind in ("quantity", "money") else None


def gives(kind: AnswerType, sentence: str, question: str) -> bool:
    """``sentence`` can give the answer of the strict ``kind`` (:func:`strict_type`)
    ``question`` asks for: :func:`holds`, and for money also a number ("less than two
    percent per year" answers "how much did the price of oil increase?", "4.19% fixed
    for 5 years" answers "How much is the mortgage fixed for?") or a price in words
    ("free", "included"), but not a year, a date or a clock time alone ("installed
    2016", "on 12/03/2024", "at 14:40"): those give when, not how much."""
    if kind == "money":  # an amount is a number too: holds("money") implies this
        if holds("money", sentence, question) or _NO_CHARGE.search(sentence) is not None:
            return True
        # but a year, a date or a clock time is no amount ("installed 2016" does not say
        # what the service cost)
        return holds("quantity", _DATE_PARTS.sub("_", sentence), question)
    return holds(kind, sentence, question)
