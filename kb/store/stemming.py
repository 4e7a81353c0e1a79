"""What the keyword index holds of a chunk written in German or French: its words
stemmed in their own language, without that language's stop words.

FTS5's tokenizer (``porter unicode61 remove_diacritics 2``) stems English only: a
German note's *Gebäuden* was indexed as ``gebauden``, so the question's *Gebäude*
(``gebaud``) missed it, and ``die``, ``der``, ``und`` filled every posting list. SQLite's
Python module cannot register a tokenizer, so a chunk of a language with its own
Snowball stemmer (:data:`STEMMED`: every shipped language but English) is indexed by
its *index form* (:func:`index_form`), kept in ``chunks.stem_text`` and
``chunks.stem_heading`` beside the text; the index's content view ``live_chunks_fts``
reads ``coalesce(stem_text, text)`` (:mod:`kb.store.migrations`, ``m008``).

The index form of a text in language ``L``:

1. split into tokens as FTS5's ``unicode61`` does: runs of letters and digits
   (``ZX-4417`` -> ``zx`` ``4417``; ``l'eau`` -> ``l`` ``eau``);
2. each token in small letters; a stop word or question word of ``L``
   (:attr:`kb.lang.base.Lang.stop_words`, :attr:`~kb.lang.base.Lang.question_words`:
   :func:`stop_words`) is left out;
3. each other token stemmed by ``L``'s Snowball stemmer (PyStemmer:
   :attr:`kb.lang.base.Lang.stemmer`): *Gebäude*, *Gebäuden* -> ``gebaud``;
   *mangées*, *manger* -> ``mang``;
4. joined by single spaces;
5. in a language that writes compounds as one word (German: :func:`kb.lang.compounds.
   compounding`), each token that :func:`kb.lang.compounds.split` splits, with the
   chunk's document as the words it knows (:func:`lexicon`: how often each stem occurs
   among the document's tokens, stop words aside), is followed by its parts' stems, in
   a tail after the last token: *Laubwald* -> ``laubwald`` ... ``laub wald``, so
   *Wald* finds the chunk that writes *Laubwald*, and the query's *Laubwald* (split
   the same way against the KB's words: :mod:`kb.search.languages`) finds one that
   writes *Wald*. The parts stand after every token, not beside their compound, so
   a phrase of the text's own words still matches; each occurrence of a compound adds
   its parts once (their term frequency is the compound's). A document is split
   against its own words alone, so its index forms do not depend on what else the KB
   holds or the order documents were ingested in.

FTS5 then tokenizes that as it tokenizes any text: its porter step runs over the stems
too. Both sides of a match go through the same two steps (a query term is turned into
the same form: :mod:`kb.search.languages`), so a match is exact; porter merges a few
stems more (on XQuAD German's 3,964 stems, 51 pairs: ``warschaus`` / ``warschau``,
``radios`` / ``radio``), mostly a genitive or plural ``s`` Snowball German keeps.

Chunks in English, undetermined or not yet detected (``documents.lang`` ``en``,
``und``, ``NULL``) have ``stem_text IS NULL`` and are indexed as written, exactly as
before. (Pre-stemming them with PyStemmer's ``porter`` would not be the same: it
differs from FTS5's porter on 38 of squad-dev's 14,236 words, ``anthology`` ->
``anthologi`` / ``antholog``, ``as`` -> ``a`` / ``as``.)

:data:`FORM` names this recipe and the stemmer library's version; it is recorded in
meta (``fts_stemming``) when the index forms are (re)computed, and ``kb doctor``
reports a KB whose record differs (``--repair`` recomputes them: :func:`restem`).
PyStemmer is imported on first use.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections import Counter
from collections.abc import Iterable, Mapping
from functools import cache

from kb.lang import KNOWN, language
from kb.lang.compounds import compounding, split
from kb.lang.inflection import snowball

#: the languages whose chunks are indexed by their index form (all but English)
STEMMED: tuple[str, ...] = tuple(c for c in KNOWN if language(c).stemmer != "english")
#: the index form's recipe version (bump when :func:`index_form` changes; 2: compounds'
#: parts)
RECIPE = 2
META_KEY = "fts_stemming"
_TOKEN = re.compile(r"[^\W_]+")


def stemmed_code(lang: str | None) -> str | None:
    """The code of :data:`STEMMED` that ``lang`` (a ``documents.lang`` value) names, or
    ``None`` for English, undetermined, unknown or ``NULL``."""
    if not lang:
        return None
    base = lang.strip().lower().split("-")[0]
    return base if base in STEMMED else None


@cache
def stop_words(code: str) -> frozenset[str]:
    """The words the keyword index leaves out of a chunk in the language ``code`` of
    :data:`STEMMED`, and a query leaves out for it: its stop words and question words
    (*wann*, *warum*, *quand*, *pourquoi*; English's stop words list its own)."""
    lang = language(code)
    return lang.stop_words | lang.question_words


def _tokens(text: str, code: str) -> list[str]:
    stop = stop_words(code)
    return [t for t in (m.group().lower() for m in _TOKEN.finditer(text)) if t not in stop]


def lexicon(texts: Iterable[str], code: str) -> Counter[str]:
    """How often each stem occurs among the tokens of ``texts`` in the language
    ``code``, stop words left out: the words a document's compounds are split into
    (module docstring, step 5)."""
    out: Counter[str] = Counter()
    for text in texts:
        toks = _tokens(text, code)
        if toks:
            out.update(snowball(code).stemWords(toks))
    return out


def index_form(text: str, code: str, words: Mapping[str, int] | None = None) -> str:
    """``text`` as the keyword index holds it for the language ``code`` of
    :data:`STEMMED` (module docstring): tokens, small letters, stop words out, stemmed,
    joined by spaces; with ``words`` (a :func:`lexicon`) and a compounding language,
    the parts of its compounds after them. ``""`` when every token is a stop word."""
    toks = _tokens(text, code)
    if not toks:
        return ""
    stemmer = snowball(code)
    out = stemmer.stemWords(toks)
    if words is not None and compounding(code):

        def count(part: str) -> int:
            return int(words.get(stemmer.stemWord(part), 0))

        for t in toks:
            parts = split(t, code, count)
            if parts:
                out += stemmer.stemWords(list(parts))
    return " ".join(out)


def stems_of(
    text: str, heading: str, lang: str | None, words: Mapping[str, int] | None = None
) -> tuple[str | None, str | None]:
    """``(stem_text, stem_heading)`` of a chunk of a document in ``lang``: both
    ``None`` (indexed as written) unless ``lang`` is one of :data:`STEMMED`; ``words``:
    the document's :func:`lexicon` (:func:`document_words`)."""
    code = stemmed_code(lang)
    if code is None:
        return None, None
    return index_form(text, code, words), index_form(heading, code, words)


def document_words(chunks: Iterable[tuple[str, str]], lang: str | None) -> Counter[str] | None:
    """The :func:`lexicon` of a document's ``(text, heading)`` chunks (of one chunking)
    in ``lang``; ``None`` where ``lang`` is not stemmed or writes compounds apart."""
    code = stemmed_code(lang)
    if code is None or not compounding(code):
        return None
    return lexicon((part for pair in chunks for part in pair), code)


def form() -> str:
    """The recorded identity of the index forms: recipe and PyStemmer version."""
    import Stemmer

    return json.dumps({"recipe": RECIPE, "pystemmer": str(Stemmer.version())})


def stemmed_rows(conn: sqlite3.Connection) -> bool:
    """Whether any chunk of the KB is indexed by its index form."""
    q = "SELECT EXISTS (SELECT 1 FROM chunks WHERE stem_text IS NOT NULL)"
    return bool(conn.execute(q).fetchone()[0])


def consistent(conn: sqlite3.Connection) -> bool:
    """Whether every chunk's index form agrees with its document's language (present
    exactly for the :data:`STEMMED` languages) and, where any chunk has one, the
    recorded :data:`META_KEY` is this kb's :func:`form`."""
    marks = ",".join("?" * len(STEMMED))
    bad = conn.execute(
        "SELECT EXISTS (SELECT 1 FROM chunks c JOIN documents d ON d.id = c.document_id "
        f"WHERE (coalesce(lower(d.lang), '') IN ({marks})) != (c.stem_text IS NOT NULL))",
        STEMMED,
    ).fetchone()[0]
    if bad:
        return False
    if not stemmed_rows(conn):
        return True
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (META_KEY,)).fetchone()
    return row is not None and str(row[0]) == form()


def restem(conn: sqlite3.Connection, doc_ids: Iterable[int] | None = None) -> int:
    """Recompute the index forms of the chunks (of every chunking) of ``doc_ids``
    (``None``: all documents) from ``documents.lang``, inside the caller's transaction,
    one document's chunking at a time (its chunks are split against its own words:
    :func:`document_words`); rows whose forms change are updated (the FTS5 triggers
    follow them). When any chunk has a form, :data:`META_KEY` records this kb's
    :func:`form` (over a different one only when every document was restemmed).
    Returns how many chunks changed."""
    sql = (
        "SELECT DISTINCT c.document_id, c.chunking_id, d.lang FROM chunks c "
        "JOIN documents d ON d.id = c.document_id"
    )
    scope: list[object] = []
    if doc_ids is not None:
        sql += " WHERE d.id IN (SELECT value FROM json_each(?))"
        scope.append(json.dumps(sorted({int(i) for i in doc_ids})))
    groups = conn.execute(sql + " ORDER BY 1, 2", scope).fetchall()
    n = 0
    for doc_id, chunking_id, lang in groups:
        rows = conn.execute(
            "SELECT id, text, heading_path, stem_text, stem_heading FROM chunks "
            "WHERE document_id = ? AND chunking_id = ? ORDER BY id",
            (doc_id, chunking_id),
        ).fetchall()
        words = document_words(((str(r[1]), str(r[2] or "")) for r in rows), lang)
        changed: list[tuple[str | None, str | None, int]] = []
        for cid, text, heading, old_t, old_h in rows:
            new_t, new_h = stems_of(str(text), str(heading or ""), lang, words)
            if (new_t, new_h) != (old_t, old_h):
                changed.append((new_t, new_h, int(cid)))
        conn.executemany("UPDATE chunks SET stem_text = ?, stem_heading = ? WHERE id = ?", changed)
        n += len(changed)
    if stemmed_rows(conn):
        record_form(conn, replace=doc_ids is None)
    return n


def record_form(conn: sqlite3.Connection, replace: bool) -> None:
    """Record :func:`form` under :data:`META_KEY`; with ``replace=False`` only where no
    form is recorded yet (chunks stemmed now must not hide older ones stemmed by another
    version: ``kb doctor`` tells them apart by the record)."""
    conflict = "DO UPDATE SET value = excluded.value" if replace else "DO NOTHING"
    conn.execute(
        f"INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) {conflict}",
        (META_KEY, form()),
    )
