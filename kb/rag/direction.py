"""A move asked the wrong way round: "When do we move *to* Stripe?" over "We move the
payment provider *from* Stripe to Adyen in Q1."

Every word of such a question is in the sentence, so coverage, cosine and the name
checks (:mod:`kb.rag.substitution`, which needs a missing word) all let it through, and
the answer quoted is the sentence that says the opposite. The rule reads the sentence
that best matches the question (as :func:`kb.rag.answerability.ranked_sentences`
ranks them) for a move between two named ends::

    from <A> to <B>        ("to" may be "into", "toward", "towards")

where an end is a name: one to three capitalised words (``Stripe``, ``New York``,
``AWS Frankfurt``), after an optional "the". The question contradicts it when

- it asks about a move *to* ``A`` ("to Stripe", "into the Stripe account") and never
  names ``B``, or
- it asks about a move *from* ``B`` and never names ``A``.

Ends compare by their first word, case-folded ("the Stripe account" and "Stripe" are
one end). Not for a yes/no question ("Do we move to Stripe?", which the sentence
answers with *no*), nor an alternative one ("to Stripe or to Adyen?"). Edge cases: a
sentence with several moves is read move by move; ends written in small letters
("from cash to card") are not names and give no contradiction, as a number range
("from 9 to 5") gives none.
"""

from __future__ import annotations

import re

from kb.rag.lexical import tokens
from kb.rag.polarity import Contradiction, yes_no

_END = r"(?:the\s+)?(?P<{0}>[A-Z][\w&'-]*(?:\s+[A-Z][\w&'-]*){{0,2}})"
_TO = r"(?:to|into|towards?)"
#: a move between two named ends in a sentence
MOVE = re.compile(rf"\bfrom\s+{_END.format('a')}\s+{_TO}\s+{_END.format('b')}")
_ASKED_TO = re.compile(rf"\b{_TO}\s+{_END.format('x')}")
_ASKED_FROM = re.compile(rf"\bfrom\s+{_END.format('x')}")


def _first(end: str) -> str:
    return end.split()[0].casefold().rstrip(".'")


def reversed_moves(question: str, sentence: str) -> list[Contradiction]:
    """The question's move that ``sentence`` says the other way round (module
    docstring), each as a :class:`~kb.rag.polarity.Contradiction` of the question's
    words ("to Stripe") and the sentence's ("from Stripe to Adyen")."""
    words = {t.casefold() for t in tokens(question)}
    if "or" in words or yes_no(question):
        return []
    out: list[Contradiction] = []
    for m in MOVE.finditer(sentence):
        a, b = _first(m["a"]), _first(m["b"])
        if a == b:
            continue
        for asked, here, other in ((_ASKED_TO, a, b), (_ASKED_FROM, b, a)):
            if other in words:
                continue
            for q in asked.finditer(question):
                if _first(q["x"]) == here:
                    out.append(Contradiction(q.group().strip(), m.group().strip()))
                    break
    return out
