"""Words the porter stemmer folds into a stop word, found by their exact spelling.

The keyword index (FTS5, ``porter unicode61 remove_diacritics 2``) stems every word,
and a few names and words stem to a stop word: *Andes* -> ``and``, *Inês* / *Ines* ->
``in``, *Wills* -> ``will``, *Dos* -> ``do``, *Ames* -> ``am``. Searched through the
index, "Andes" matched 1,128 of squad-dev's 1,241 chunks (every chunk with *and*) at
a weight of ~0, so the keyword leg could not find the six chunks that name the
mountains, the very case it exists for (a rare name).

Such a term is *collapsed* (:func:`collapsed`): every token FTS5 makes of it is a stop
word (:data:`kb.search.stopwords.STOPWORDS`) while the term itself is not one. It is
left out of the ``MATCH`` and found instead by :func:`exact_matches`: a ``LIKE`` scan of
the index's text and heading columns for the term as typed and without its diacritics
(the only cost: one pass over the chunk text, about 0.1 s per 100,000 chunks, paid only
by a query that has such a term; a word in half the chunks or more, or that more than
:data:`MAX_CANDIDATES` chunks hold as a substring, is a common word, "one" -> ``on``, and
is left out, as bm25 would weigh it at ~0), kept where it stands as a whole word (letters and
digits around it do not count: *Andes* in "Andes-Mushuk" counts, *ines* in "lines"
does not), case and diacritics folded. Each match scores as bm25 scores one term
(``idf · tf·(k1 + 1)/(tf + k1)``, ``k1 = 1.2``, no length normalisation), with FTS5's
``idf = ln((N - n + 0.5)/(n + 0.5))`` over the ``n`` matching chunks of ``N``, clamped
at ``1e-6`` as FTS5 clamps it.

Edge cases: a term typed without its diacritics ("Ines") does not find text that has
them ("Inês"): ``LIKE`` does not fold them (the index did); the term is looked for as
typed, folded, in capitals and capitalised (``LIKE`` folds ASCII case only). The
LanceDB keyword index of big KBs (:mod:`kb.search.keyword_lance`) has its own stemmer
and no such fallback.
"""

from __future__ import annotations

import math
import re
import sqlite3
import threading
from collections.abc import Collection
from functools import lru_cache

from kb.search.stopwords import STOPWORDS
from kb.store.keyword_index import fold as fold_accents

K1 = 1.2
#: a term held (as a substring) by more chunks than this is too common to spell out
MAX_CANDIDATES = 20_000
_lock = threading.Lock()
_stemmer: sqlite3.Connection | None = None  # made on first use: most queries never stem


def fold(text: str) -> str:
    """``text`` case-folded, without diacritics (as the index folds them:
    :func:`kb.store.keyword_index.fold`)."""
    return fold_accents(text.casefold())


@lru_cache(maxsize=4096)
def stems(term: str) -> tuple[str, ...]:
    """The tokens FTS5's ``porter unicode61 remove_diacritics 2`` makes of ``term``
    (one shared in-memory table: calls are serialised)."""
    global _stemmer
    with _lock:
        if _stemmer is None:
            _stemmer = sqlite3.connect(":memory:", check_same_thread=False)
            _stemmer.execute(
                "CREATE VIRTUAL TABLE stems USING fts5(x, "
                "tokenize = 'porter unicode61 remove_diacritics 2')"
            )
            _stemmer.execute("CREATE VIRTUAL TABLE stems_vocab USING fts5vocab(stems, 'instance')")
        with _stemmer:
            _stemmer.execute("DELETE FROM stems")
            _stemmer.execute("INSERT INTO stems (x) VALUES (?)", (term,))
            rows = _stemmer.execute("SELECT term FROM stems_vocab ORDER BY offset").fetchall()
            _stemmer.execute("DELETE FROM stems")
    return tuple(str(r[0]) for r in rows)


_WORDS = re.compile(r"\w+")


#: inflections of a stop word, which stem to it because they are that word: *others* is
#: *other* (the stemmer is right), unlike *Andes* and *and*
INFLECTED_STOPWORDS = frozenset(["others", "owns", "owned", "owning"])


#: the most characters the stemmer takes off a word that it folds into a stop word
#: (*Andes* -> *and*: 2; *-ing*: 3); a longer word is not checked
MAX_SUFFIX = 4
_STOP_BY_FIRST: dict[str, tuple[str, ...]] = {}
for _w in sorted(STOPWORDS):
    _STOP_BY_FIRST[_w[0]] = (*_STOP_BY_FIRST.get(_w[0], ()), _w)


def _may_fold(word: str) -> bool:
    """``word`` (folded) starts with a stop word and is at most :data:`MAX_SUFFIX`
    characters longer: the stemmer only takes suffixes off (and a stop word ends in none
    of the endings it puts back), so no other word can stem to a stop word. A cheap
    test before asking the stemmer (about 0.1 ms a word)."""
    return any(
        word.startswith(w) and len(word) - len(w) <= MAX_SUFFIX
        for w in _STOP_BY_FIRST.get(word[:1], ())
    )


def collapsed(term: str) -> bool:
    """``term`` stems to stop words only, while it is not made of stop words itself nor
    of their inflections (:data:`INFLECTED_STOPWORDS`)."""
    words = _WORDS.findall(fold(term))
    if not words or not all(_may_fold(w) for w in words):
        return False
    toks = stems(term)
    return (
        bool(toks)
        and all(t in STOPWORDS for t in toks)
        and not all(w in STOPWORDS or w in INFLECTED_STOPWORDS for w in words)
    )


def exact_matches(
    conn: sqlite3.Connection,
    fts: str,
    term: str,
) -> dict[int, int] | None:
    """``chunk id -> occurrences`` of ``term`` as a whole word in the text or heading
    path (as written: ``chunks``) of the chunks indexed by ``fts`` (module docstring),
    or ``None`` for a common
    word: held by at least half the chunks (bm25 weighs it at ~0, as FTS5 clamps its
    idf), or more than :data:`MAX_CANDIDATES` chunks hold it as a substring (not worth
    reading them all). Counted over the whole index, so a scoped search weighs the
    word as an unscoped one does (the caller keeps the chunks in scope)."""
    bare = re.sub(r"^\W+|\W+$", "", term)
    key = fold(bare)
    if not key:
        return {}
    # LIKE folds ASCII case only: the term as typed, folded, in capitals and capitalised
    spellings = {bare.casefold(), key, bare.upper(), bare[:1].upper() + bare[1:].casefold()}
    patterns = sorted({_like(x) for x in spellings})
    one = "c.text LIKE ? ESCAPE '\\' OR c.heading_path LIKE ? ESCAPE '\\'"
    where = " OR ".join(one for _ in patterns)
    params: list[object] = [p for p in patterns for _ in (0, 1)]
    # the chunks' own text: the index holds a German or French chunk by its stems
    sql = (
        f"SELECT c.id, c.text, c.heading_path FROM {fts}_docsize f CROSS JOIN chunks c "
        f"ON c.id = f.id WHERE ({where})"
    )
    sql += f" LIMIT {MAX_CANDIDATES + 1}"
    rows = conn.execute(sql, params).fetchall()
    if len(rows) > MAX_CANDIDATES:
        return None
    word = re.compile(rf"(?<![^\W_]){re.escape(key)}(?![^\W_])")
    out: dict[int, int] = {}
    for rowid, text, heading in rows:
        n = len(word.findall(fold(f"{text or ''}\n{heading or ''}")))
        if n:
            out[int(rowid)] = n
    n_rows = int(conn.execute(f"SELECT count(*) FROM {fts}_docsize").fetchone()[0])
    return None if out and 2 * len(out) >= n_rows else out


def _like(s: str) -> str:
    return "%" + s.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def scores(
    matches: dict[int, int], n_rows: int, keep: Collection[int] | None = None
) -> dict[int, float]:
    """bm25's score of one term for each matching chunk (module docstring), its idf from
    all ``matches``; only the chunks in ``keep`` when given (a scoped search)."""
    n = len(matches)
    idf = max(1e-6, math.log((n_rows - n + 0.5) / (n + 0.5))) if n else 0.0
    return {
        cid: idf * tf * (K1 + 1) / (tf + K1)
        for cid, tf in matches.items()
        if keep is None or cid in keep
    }
