"""Which shipped language a text is written in (stdlib only), from stop-word data.

Why not a PyPI detector: the three shipped languages have long, distinct lists of
function words (:mod:`kb.lang`), and counting them is exact, deterministic, offline and
fast, and it gives "unknown" when the evidence is thin instead of guessing. A library
that knows 50+ languages would name Dutch or Catalan for a short German or French
note, which kb cannot stem or search any better.

For each language ``L``, with ``N`` the text's words (letters, small letters, at most
:data:`MAX_WORDS` of them) and ``hits(L)`` how many are in ``L``'s word set (stop
words for a document, the wider function words for a question):

    share(L) = hits(L) / N

The language with the largest ``hits`` wins when ``hits >= min_hits`` (default
:data:`MIN_HITS` for a document, :data:`MIN_QUESTION_HITS` for a question),
``share >= MIN_SHARE``, and it has strictly more hits than the runner-up; otherwise
the result is :data:`~kb.lang.UNKNOWN` ("und"). Edge cases: empty text, text with no
letters, code or a list of names give "und"; a tie (an English note quoting German)
gives "und" too, never a coin toss.
"""

from __future__ import annotations

import re

from kb.lang import KNOWN, UNKNOWN, language

#: the most words read (a long document's start says its language)
MAX_WORDS = 4000
#: fewest stop-word hits a document needs for a verdict
MIN_HITS = 3
#: fewest function-word hits a question needs ("Wie hoch ist der Berg?": wie, ist, der)
MIN_QUESTION_HITS = 2
#: least share of the words that are the winner's stop words (prose is 30 % to 50 %)
MIN_SHARE = 0.08

_WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)?")


def words_of(text: str, limit: int = MAX_WORDS) -> list[str]:
    """The first ``limit`` words of ``text``, in small letters (``l'eau`` is one)."""
    out: list[str] = []
    for m in _WORD.finditer(text):
        out.append(m.group().lower().replace("’", "'"))
        if len(out) >= limit:
            break
    return out


def scores(text: str, *, question: bool = False) -> dict[str, int]:
    """Hits per known language (see the module docstring); French elisions
    (``l'``, ``qu'``, ``d'``) count their head."""
    ws = words_of(text)
    heads = [w.split("'", 1)[0] if "'" in w else w for w in ws]
    out: dict[str, int] = {}
    for code in KNOWN:
        lang = language(code)
        vocab = lang.function_words if question else lang.stop_words
        out[code] = sum(1 for w, h in zip(ws, heads, strict=True) if w in vocab or h in vocab)
    return out


def detect(text: str, *, question: bool = False, min_hits: int | None = None) -> str:
    """The code of the language ``text`` is written in (``"en"``, ``"de"``, ``"fr"``),
    or ``"und"`` when the evidence is too thin or tied (module docstring)."""
    n = len(words_of(text))
    if n == 0:
        return UNKNOWN
    need = min_hits if min_hits is not None else (MIN_QUESTION_HITS if question else MIN_HITS)
    ranked = sorted(scores(text, question=question).items(), key=lambda kv: -kv[1])
    (best, hits), (_, second) = ranked[0], ranked[1]
    if hits < need or hits / n < MIN_SHARE or hits == second:
        return UNKNOWN
    return best


def question_language(question: str) -> str:
    """The language of a question (``"en"``, ``"de"``, ``"fr"`` or ``"und"``), read
    from its function words: what the answer pipeline calls to pick the words that
    are no content words of the question (:mod:`kb.rag.lexical`) and the stemmer.

    A question too short for the function-word evidence ("Wann startete Sky Digital?")
    takes the language of its first word when that is a question word of one shipped
    language only and no English function word (*was* is German's *what* and English's
    past tense): "Wann", "Wozu", "Worüber" -> ``"de"``, "Quand" -> ``"fr"``."""
    found = detect(question, question=True)
    if found != UNKNOWN:
        return found
    ws = words_of(question, 1)
    if not ws:
        return found
    first = ws[0].split("'", 1)[0]
    if first in language("en").function_words:
        return found
    asking = [code for code in KNOWN if first in language(code).question_words]
    return asking[0] if len(asking) == 1 else found


def parse_lang(value: object) -> str | None:
    """A front matter ``lang:`` value as a known code (``"de"``, ``"DE"``, ``"fr-CA"``,
    ``"german"``, ``"Deutsch"``), or ``None`` when it names no shipped language."""
    if not isinstance(value, str) or not value.strip():
        return None
    v = value.strip().lower()
    for code in KNOWN:
        lang = language(code)
        if v in (lang.name.lower(), lang.stemmer):
            return code
    try:
        return language(v).code
    except KeyError:
        return None
