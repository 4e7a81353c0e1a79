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
- a compound of a language that writes them as one word (German) that no chunk holds as
  written is searched by its parts (:func:`kb.lang.compounds.split`), each part's index
  form one more phrase: *Sportportfolio* -> ``"sportportfolio" OR "sport" OR
  "portfolio"``. The words it may split into are the KB's indexed words, counted by how
  many chunks hold each (FTS5's ``fts5vocab``): :func:`compound_parts`, a few index
  lookups per long word. A compound the KB holds is searched as written only: a German
  chunk's index form holds its compounds' parts as well (:mod:`kb.store.stemming`), so
  the query's *Wachstum* finds *Wirtschaftswachstum*; but searching the parts of the
  query's *Wirtschaftswachstum* beside it would count one word of the question three
  times in bm25 (each phrase adds its weight), and the chunk that matches the
  question's other words fell behind those that repeat the compound (on xquad-de-dev's
  first 12 articles, mrr@10 0.917 with the parts, 0.924 without them where the KB
  holds the compound);
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
from collections.abc import Callable
from dataclasses import dataclass

from kb.lang import UNKNOWN, language
from kb.lang.compounds import compounding, split
from kb.lang.detect import question_language
from kb.search.exact_terms import stems
from kb.search.stopwords import STOPWORDS
from kb.store.stemming import STEMMED, index_form, stop_words


@dataclass(frozen=True)
class Searched:
    """What a query is searched in: ``raw`` (chunks indexed as written), the
    ``stemmed`` languages the KB holds, ``question``, the query's language where the
    KB holds it (``"und"`` otherwise), and ``parts``: ``(code, word, parts)`` for each
    word of the query that is a compound in a stemmed language (:func:`compound_parts`)."""

    raw: bool = True
    stemmed: tuple[str, ...] = ()
    question: str = UNKNOWN
    parts: tuple[tuple[str, str, tuple[str, ...]], ...] = ()

    def parts_of(self, word: str, code: str) -> tuple[str, ...]:
        """The parts of ``word`` (small letters) in the language ``code``; ``()``."""
        for c, w, found in self.parts:
            if c == code and w == word:
                return found
        return ()

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
    return Searched(raw, stemmed, q if held else UNKNOWN, compound_parts(conn, text, stemmed))


_TOKEN = re.compile(r"[^\W_]+")


def _chunk_counts(conn: sqlite3.Connection, code: str) -> Callable[[str], int]:
    """How many chunks of the live index hold a word's index form in ``code`` (one
    token; 0 for a word whose form is none or several)."""
    conn.execute(
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.chunks_fts_rows "
        "USING fts5vocab(main, chunks_fts, 'row')"
    )

    def count(word: str) -> int:
        toks = stems(index_form(word, code))
        if len(toks) != 1:
            return 0
        row = conn.execute(
            "SELECT doc FROM temp.chunks_fts_rows WHERE term = ?", (toks[0],)
        ).fetchone()
        return 0 if row is None else int(row[0])

    return count


def compound_parts(
    conn: sqlite3.Connection, text: str, stemmed: tuple[str, ...]
) -> tuple[tuple[str, str, tuple[str, ...]], ...]:
    """``(code, word, parts)`` for each word of ``text`` (small letters) that
    :func:`kb.lang.compounds.split` splits in a compounding language of ``stemmed``,
    against the words of the KB's index (module docstring). ``()`` where SQLite has no
    index to read (a test's bare table)."""
    out: list[tuple[str, str, tuple[str, ...]]] = []
    for code in stemmed:
        if not compounding(code):
            continue
        shortest = 2 * language(code).compound_min_part
        try:
            count = _chunk_counts(conn, code)
            for word in dict.fromkeys(m.group().lower() for m in _TOKEN.finditer(text)):
                if len(word) < shortest or count(word) > 0:
                    continue  # short, or held as written: its chunks hold its parts too
                found = split(word, code, count)
                if found:
                    out.append((code, word, found))
        except sqlite3.Error:
            return ()
    return tuple(out)


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
            for word in _TOKEN.findall(term.lower()) if s.parts else ():
                out += [phrase(index_form(p, code)) for p in s.parts_of(word, code)]
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
