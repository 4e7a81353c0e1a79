"""The languages the keyword leg searches, and the forms it searches each query term in.

The keyword index holds a German or French chunk by its *index form* (its words
stemmed by that language's Snowball stemmer, its stop words left out:
:mod:`kb.store.stemming`), and any other chunk as written (FTS5 stems it with porter).
A query term must be turned into the form each kind of chunk is held in, or
*Gebäude* would miss *Gebäuden* and *mangées* miss *manger*.

Which languages (:func:`searched`): those of the KB's documents (``documents.lang``,
a few index lookups per query): ``raw`` when any document is English, undetermined or
not yet detected, and each of :data:`kb.store.stemming.STEMMED` that some document is
written in. A KB without documents is searched as English. The question's language
(:func:`kb.lang.detect.question_language`) counts only where the KB holds it.

A term's forms (:func:`forms`), each an FTS5 phrase, ``OR``-ed together
(:func:`match_expr`):

- ``raw``: the term as typed (FTS5's porter stems it), unless it is an English stop
  word (:data:`kb.search.stopwords.STOPWORDS`), as before;
- for each stemmed language ``L``: the term's index form in ``L``, unless that is
  empty (the term is a stop word of ``L``: ``die``, ``der``, ``und``, ``le``);
- a stop word of the question's language (when the KB holds it) is left out of every
  form: the German question's *die* is no English verb. An English question (or a
  keyword query, whose language is undetermined) keeps *die* for the English chunks
  while a German chunk never holds the article;
- forms FTS5 would read as the same tokens (``"Jahrhunderts"`` and ``jahrhundert``)
  are searched once, or bm25 would count the term twice.

A term with no form is no content word of the query (:func:`is_content`); as before,
when no term of a query is one, every term is searched by the forms it has (``The
Who``; in a KB of German notes a query of German stop words then finds nothing by its
words). In a KB of English notes alone this is exactly the old query: one raw form
per term, English stop words out.
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass

from kb.lang import UNKNOWN
from kb.lang.detect import question_language
from kb.search.exact_terms import stems
from kb.search.stopwords import STOPWORDS
from kb.store.stemming import STEMMED, index_form, stop_words


@dataclass(frozen=True)
class Searched:
    """What a query is searched in: ``raw`` (chunks indexed as written), the
    ``stemmed`` languages the KB holds, and ``question``, the query's language where the
    KB holds it (``"und"`` otherwise)."""

    raw: bool = True
    stemmed: tuple[str, ...] = ()
    question: str = UNKNOWN

    def question_stop_words(self) -> frozenset[str]:
        if self.question == UNKNOWN:
            return frozenset()
        return stop_words(self.question) if self.question in STEMMED else STOPWORDS


#: a KB of English (or undetermined) notes: the query as before this module
ENGLISH = Searched()


def kb_languages(conn: sqlite3.Connection) -> tuple[bool, tuple[str, ...]]:
    """``(raw, stemmed)`` of the KB's indexed documents (module docstring); ``(True,
    ())`` for a KB without documents or without ``documents.lang``."""
    codes = ("en", UNKNOWN, *STEMMED)
    one = "EXISTS (SELECT 1 FROM documents WHERE lang = ? AND status = 'indexed')"
    sql = (
        "SELECT EXISTS (SELECT 1 FROM documents WHERE lang IS NULL AND status = 'indexed'), "
        + ", ".join(one for _ in codes)
    )
    try:
        row = conn.execute(sql, codes).fetchone()
    except sqlite3.OperationalError:  # no documents.lang (a test's bare FTS table)
        return True, ()
    stemmed = tuple(c for c, held in zip(STEMMED, row[3:], strict=True) if held)
    raw = bool(row[0] or row[1] or row[2])
    return (raw or not stemmed), stemmed


def searched(conn: sqlite3.Connection, text: str) -> Searched:
    """The languages ``text`` is searched in over this KB (module docstring)."""
    raw, stemmed = kb_languages(conn)
    if not stemmed:
        return ENGLISH
    q = question_language(text)
    held = q in stemmed or (q == "en" and raw)
    return Searched(raw, stemmed, q if held else UNKNOWN)


_EDGES = re.compile(r"^\W+|\W+$")


def _bare(term: str) -> str:
    return _EDGES.sub("", term).casefold()


def phrase(text: str) -> str:
    """``text`` as one FTS5 string (double quotes, inner ``"`` doubled)."""
    return '"' + text.replace('"', '""') + '"'


def forms(term: str, s: Searched, every: bool = False) -> list[str]:
    """The FTS5 phrases ``term`` is searched by (module docstring); with ``every``
    (a query of stop words only) stop words keep the forms they have."""
    bare = _bare(term)
    other = s.question_stop_words()
    if not every and bare in other:
        return []
    out: list[str] = []
    if s.raw and (every or bare not in STOPWORDS):
        out.append(phrase(term))
    for code in s.stemmed:
        f = index_form(term, code)
        if f:
            out.append(phrase(f))
    if len(out) < 2:
        return out
    seen: set[tuple[str, ...]] = set()
    kept: list[str] = []
    for p in out:
        toks = stems(p[1:-1].replace('""', '"'))
        if toks and toks not in seen:
            seen.add(toks)
            kept.append(p)
    return kept


def is_content(term: str, s: Searched) -> bool:
    """Whether ``term`` has a form to search outside a query of stop words only."""
    if s is ENGLISH or s == ENGLISH:
        return _bare(term) not in STOPWORDS
    return bool(forms(term, s))


def match_expr(term: str, s: Searched, every: bool = False) -> str | None:
    """``term``'s forms as one FTS5 expression (``"a"`` or ``("a" OR "b")``), ``None``
    without a form."""
    found = forms(term, s, every)
    if not found:
        return None
    return found[0] if len(found) == 1 else "(" + " OR ".join(found) + ")"
