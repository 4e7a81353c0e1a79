"""A move asked the wrong way round: "When do we move *to* Stripe?" over "We move the
payment provider *from* Stripe to Adyen in Q1."

Every word of such a question is in the sentence, so coverage, cosine and the name
checks (:mod:`kb.rag.substitution`, which needs a missing word) all let it through, and
the answer quoted is the sentence that says the opposite. The rule reads the sentence
that best matches the question (as :func:`kb.rag.coverage.ranked_sentences`
ranks them) for a move between two named ends::

    from <A> to <B>        ("to" may be "into", "toward", "towards")

where an end is a name: one to three capitalised words (``Stripe``, ``New York``,
``AWS Frankfurt``), after an optional "the", and not a time word (a month or a weekday:
"from Monday to Friday" is a span of time). The question contradicts it when it asks
about a move (one of :data:`MOVE_WORDS`: *move*, *migrate*, *switch*, *fly* ...) and

- the move is *to* ``A`` ("to Stripe", "into the Stripe account") and the question
  never names ``B``, or
- the move is *from* ``B`` and the question never names ``A``.

A question without a move word asks about something that holds both ways ("What is
the distance to London?" over "the distance from London to Paris"), so it is left
alone. Ends compare by their first word, case-folded, without a possessive ("Stripe's
platform" and "Stripe" are one end). Not for a yes/no question ("Do we move to
Stripe?", which the sentence answers with *no*), nor an alternative one ("to Stripe
or to Adyen?"). Edge cases: a sentence with several moves is read move by move; ends
written in small letters ("from cash to card") are not names and give no
contradiction, as a number range ("from 9 to 5") gives none.
"""

from __future__ import annotations

import re

from kb.rag.answer_type import TIME_WORDS
from kb.rag.lexical import found, tokens
from kb.rag.polarity import Contradiction, alternative, yes_no
from kb.rag.stemmer import stem

_END = r"(?:the\s+)?(?P<{0}>[A-Z][\w&'’-]*(?:\s+[A-Z][\w&'’-]*){{0,2}})"
_TO = r"(?:to|into|towards?)"
#: a move between two named ends in a sentence
MOVE = re.compile(rf"\b[Ff]rom\s+{_END.format('a')}\s+{_TO}\s+{_END.format('b')}")
_ASKED_TO = re.compile(rf"\b{_TO}\s+{_END.format('x')}")
_ASKED_FROM = re.compile(rf"\b[Ff]rom\s+{_END.format('x')}")
_MOVE_WORDS_TEXT = """move moving migrate migration switch change transfer go goes went
    travel fly flight drive ship send relocate convert upgrade downgrade port shift"""
#: the words that ask about a move, as stems (*moved*, *migrating*, *flights* count:
#: :func:`_moves`)
MOVE_WORDS = frozenset(stem(w) for w in _MOVE_WORDS_TEXT.split())
#: month and weekday names, and their short forms, as ends of a span of time
_TIME_ENDS = TIME_WORDS | {"mar", "may", "march"}


def _moves(word: str) -> bool:
    """``word`` is one of :data:`MOVE_WORDS`, in any form (*migrating*, *upgraded*)."""
    return found(stem(word), MOVE_WORDS)


def _first(end: str) -> str:
    word = end.split()[0].casefold().replace("’", "'")
    return word[:-2] if word.endswith("'s") else word.rstrip(".'")


def reversed_moves(question: str, sentence: str) -> list[Contradiction]:
    """The question's move that ``sentence`` says the other way round (module
    docstring), each as a :class:`~kb.rag.polarity.Contradiction` of the question's
    words ("to Stripe") and the sentence's ("from Stripe to Adyen")."""
    words = {t.casefold() for t in tokens(question)}
    if alternative(question) or yes_no(question) or not any(_moves(w) for w in words):
        return []
    out: list[Contradiction] = []
    for m in MOVE.finditer(sentence):
        a, b = _first(m["a"]), _first(m["b"])
        if a == b or a in _TIME_ENDS or b in _TIME_ENDS:
            continue
        for asked, here, other in ((_ASKED_TO, a, b), (_ASKED_FROM, b, a)):
            if other in words:
                continue
            for q in asked.finditer(question):
                if _first(q["x"]) == here:
                    out.append(Contradiction(q.group().strip(), m.group().strip()))
                    break
    return out
