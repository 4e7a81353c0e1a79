"""The keyword leg: SQLite FTS5 with ``bm25()`` over ``chunks_fts(text, heading_path)``.

User text is never passed to ``MATCH`` as FTS5 syntax. :func:`fts_query` turns any
string into a query that cannot raise an FTS5 syntax error:

1. the text is split on white space into terms; a possessive ``'s``/``’s`` at a
   term's end is removed (``BSkyB's`` -> ``BSkyB``: quoted, ``"BSkyB's"`` would be
   the phrase ``bskyb s`` and miss every plain ``BSkyB``); a term without a letter
   or digit (``*``, ``-``, ``"``) is dropped; terms are deduplicated
   case-insensitively;
2. stop words (``the``, ``what``, ``of`` ...; in a KB of German or French notes also
   ``die``, ``und``, ``le`` ...) are dropped unless *every* term is one (they match most
   chunks, cost time and add nothing to bm25's ranking);
3. each remaining term becomes one FTS5 string per form it is searched in
   (:mod:`kb.search.languages`): as typed for the chunks indexed as written (English,
   undetermined), and stemmed in each other language the KB holds for the chunks
   indexed by their index form (:mod:`kb.store.stemming`: *Gebäude* and *Gebäuden*
   are both ``gebaud``), ``OR``-ed. Each is wrapped in double quotes, inner ``"``
   doubled; FTS5 tokenizes inside the quotes with the table's tokenizer (porter +
   unicode61), so ``ZX-4417`` becomes the phrase ``zx 4417`` (adjacent tokens) and
   ``running`` matches ``run``; operators like ``AND``/``NEAR`` are plain words inside
   quotes;
4. the terms are joined with ``OR`` (at most :data:`MAX_TERMS`, first ones kept).

In a KB of English notes alone the query is what it was before languages: one form per
term, English stop words out.

Ranking: ``bm25(chunks_fts)`` ascending (FTS5's bm25 is *lower is better*, negative);
the score reported to users is ``-bm25`` so that higher is better.

Pruning very common terms (exact): FTS5's bm25 gives a phrase matching ``n_hit`` of
``N`` rows the weight ``idf = log((N - n_hit + 0.5) / (n_hit + 0.5))`` and clamps
``idf <= 0`` to ``1e-6``, i.e. a term in at least half of all chunks carries no
weight, yet scoring its posting list is what makes a query slow (about 2 µs per
matching row). :func:`keyword_search` therefore counts each term's rows first (a
cheap posting-list walk, capped at ``N/2``) and leaves out terms with ``n_hit >= N/2``
and terms with no match. Scores change by at most ``2.2e-6`` per dropped term and
only chunks matching *nothing but* such terms disappear (their score was ~0). If
every term is that common, all are kept.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Callable, Collection

from kb.months import month_number
from kb.search import compounds, exact_terms, typos
from kb.search.languages import ENGLISH, Searched, is_content, match_expr, searched
from kb.search.stopwords import STOPWORDS  # noqa: F401  (bench/_synthetic.py reads it here)

#: a term's FTS5 expression (its forms ``OR``-ed), ``None`` when it has none
Expr = Callable[[str], str | None]

MAX_TERMS = 64

_WORD = re.compile(r"\w", re.UNICODE)
_POSSESSIVE = re.compile(r"(?<=\w)['’][sS](?=\W*$)")


def _clean(text: str) -> str:
    """Drop characters SQLite cannot bind (lone surrogates, NUL)."""
    text = text.encode("utf-8", "replace").decode("utf-8")
    return text.replace("\x00", " ")


def query_terms(text: str, langs: Searched = ENGLISH) -> list[str]:
    """The terms :func:`fts_query` will search for, in order, deduplicated (case-folded);
    ``langs``: the languages searched (:func:`kb.search.languages.searched`), which say
    what a stop word is (English's by default)."""
    terms: list[str] = []
    seen: set[str] = set()
    for raw in _clean(text).split():
        raw = _POSSESSIVE.sub("", raw)
        if not _WORD.search(raw):
            continue
        key = raw.casefold()
        if key in seen:
            continue
        seen.add(key)
        terms.append(raw)
    content = [t for t in terms if is_content(t, langs)]
    dates = [d for d in date_terms(text) if d.casefold() not in seen]
    return ((content or terms) + dates)[:MAX_TERMS]


_MONTH = r"([A-Z][a-z]{2,8})\.?"  # capitalised, as in a date: "may 9" is none
_DAY = r"([0-3]?\d)(?:st|nd|rd|th)?"
_DAY_MONTH = re.compile(rf"\b{_DAY}(?:\s+of)?\s+{_MONTH}|\b{_MONTH}\s+{_DAY}\b")


def date_terms(text: str) -> list[str]:
    """For each day of a month ``text`` names ("9 November", "the 9th of November",
    "Nov 9"), the term ``MM-DD`` ("11-09"): FTS5 reads it as the phrase ``11 09``,
    which a journal's "## 2026-11-09" or a daily note's ``2026-11-09.md`` holds, though
    neither writes "9" or "November". A month's name is capitalised, as in a date
    ("may 9" is no date); days run 1 to 31."""
    out: list[str] = []
    for m in _DAY_MONTH.finditer(text):
        day, month = (int(m[1]), month_number(m[2])) if m[1] else (int(m[4]), month_number(m[3]))
        if month is not None and 1 <= day <= 31 and f"{month:02d}-{day:02d}" not in out:
            out.append(f"{month:02d}-{day:02d}")
    return out


def fts_query(text: str, langs: Searched = ENGLISH) -> str | None:
    """A safe FTS5 ``MATCH`` expression for ``text``; ``None`` when nothing is searchable."""
    found = [e for e in map(expr_for(text, langs), query_terms(text, langs)) if e]
    return " OR ".join(found) if found else None


def expr_for(text: str, langs: Searched) -> Expr:
    """The FTS5 expression of each term of ``text`` (or of another spelling of one):
    its forms in ``langs`` (:func:`kb.search.languages.match_expr`). A content word of
    ``text`` loses the forms in which it is a stop word; in a query of stop words only,
    and for any other spelling, every form is kept."""
    primary = query_terms(text, langs)
    every = not any(is_content(t, langs) for t in primary)
    content = set() if every else set(primary)
    return lambda t: match_expr(t, langs, every=t not in content)


def _phrase(term: str) -> str:
    return '"' + term.replace('"', '""') + '"'


def _raw(term: str) -> str | None:
    return _phrase(term)


def useful_terms(
    conn: sqlite3.Connection,
    terms: list[str],
    fts: str = "chunks_fts",
    absent: list[str] | None = None,
    expr: Expr = _raw,
) -> list[str]:
    """``terms`` without those that match no chunk or at least half of all chunks
    (zero bm25 weight; see the module docs). All-common input is returned whole.
    ``absent``, when given, receives the terms that match no chunk (and those without
    a form: ``expr`` gives each term's FTS5 expression, by default the term as typed)."""
    n_rows = int(conn.execute(f"SELECT count(*) FROM {fts}_docsize").fetchone()[0])
    cap = (n_rows + 1) // 2  # df >= cap  <=>  2 * df >= n_rows  <=>  FTS5 idf clamped
    rare: list[str] = []
    common: list[str] = []
    for t in terms:
        e = expr(t)
        df = 0
        if e is not None:
            df = conn.execute(
                f"SELECT count(*) FROM (SELECT 1 FROM {fts} WHERE {fts} MATCH ? LIMIT ?)",
                (e, cap),
            ).fetchone()[0]
        if df == 0:
            if absent is not None:
                absent.append(t)
            continue
        (common if df >= cap else rare).append(t)
    return rare or common


def keyword_search(
    conn: sqlite3.Connection,
    text: str,
    limit: int,
    document_ids: Collection[int] | None = None,
    fts: str = "chunks_fts",
    corrected: dict[str, list[str]] | None = None,
) -> list[tuple[int, float]]:
    """Top ``limit`` chunks for ``text`` as ``(chunk_id, -bm25)``, best first.

    ``document_ids`` restricts the search to chunks of those documents *inside* the
    query (before the limit), so a scoped search still finds ``limit`` matches when
    they exist; ``None`` means no restriction, an empty collection means no results.
    ``fts`` is the index searched: ``chunks_fts`` (the live chunking) or one that
    :mod:`kb.search.chunking_fts` built for another chunking.
    bm25 statistics (idf) are always those of the whole KB. Ties in bm25 are broken by
    chunk id, so results are deterministic. Each term is also searched as the KB may
    write it with or without a hyphen (*email* / *e-mail*: :mod:`kb.search.compounds`;
    a word is split only in a query of at most
    :data:`kb.search.compounds.MAX_QUERY_TERMS` terms).
    In a query of at most
    :data:`kb.search.typos.MAX_QUERY_TERMS` terms, a word no chunk holds is searched by
    the nearest spellings the index has (:mod:`kb.search.typos`); ``corrected``, when
    given, receives ``{term: [those words, as the KB writes them]}``.
    Each term is searched in the forms of the languages the KB holds
    (:mod:`kb.search.languages`).
    """
    if limit < 1 or (document_ids is not None and not document_ids):
        return []
    langs = searched(conn, text)
    expr = expr_for(text, langs)
    every = query_terms(text, langs)
    # a word porter folds into English stop words is found by its spelling; only
    # chunks indexed as written (porter alone) are stemmed that way
    exact = [t for t in every if langs.raw and exact_terms.collapsed(t)]
    rest = [t for t in every if t not in exact]
    terms = _searched(conn, fts, rest, len(every), corrected, expr) if rest else []
    if not exact:
        return _match(conn, fts, terms, limit, document_ids, expr=expr) if terms else []
    # terms the stemmer folds into a stop word: matched by their spelling (exact_terms)
    n_rows = int(conn.execute(f"SELECT count(*) FROM {fts}_docsize").fetchone()[0])
    extra: dict[int, float] = {}
    keep = None
    if document_ids is not None:
        keep = {
            int(r[0])
            for r in conn.execute(
                "SELECT id FROM chunks WHERE document_id IN (SELECT value FROM json_each(?))",
                (json.dumps(sorted(int(i) for i in document_ids)),),
            )
        }
    for t in exact:
        found = exact_terms.exact_matches(conn, fts, t)
        if found is None:  # a common word: no weight
            continue
        for cid, score in exact_terms.scores(found, n_rows, keep).items():
            extra[cid] = extra.get(cid, 0.0) + score
    base = (
        dict(_match(conn, fts, terms, limit + len(extra), document_ids, expr=expr)) if terms else {}
    )
    missing = [cid for cid in extra if cid not in base]
    if terms and missing:
        base.update(_match(conn, fts, terms, len(missing), document_ids, rowids=missing, expr=expr))
    total = {cid: base.get(cid, 0.0) + extra.get(cid, 0.0) for cid in {*base, *extra}}
    ranked = sorted(total.items(), key=lambda kv: (-kv[1], kv[0]))
    return ranked[:limit]


def _searched(
    conn: sqlite3.Connection,
    fts: str,
    rest: list[str],
    n_terms: int,
    corrected: dict[str, list[str]] | None,
    expr: Expr = _raw,
) -> list[str]:
    """The terms to match for ``rest`` (of a query of ``n_terms`` terms): with their
    hyphen variants (:mod:`kb.search.compounds`), without those :func:`useful_terms`
    drops, and, in a short query, a word no chunk holds (nor any of its variants) by its
    typo corrections (:mod:`kb.search.typos`), which ``corrected`` receives."""
    split = n_terms <= compounds.MAX_QUERY_TERMS
    variants = {t: compounds.variants(conn, fts, t, split) for t in rest}
    seen = {t.casefold() for t in rest}
    other = [v for vs in variants.values() for v in vs if v.casefold() not in seen]
    absent: list[str] = []
    terms = useful_terms(conn, rest + list(dict.fromkeys(other)), fts, absent, expr)
    kept = set(terms)
    for t in absent if n_terms <= typos.MAX_QUERY_TERMS else ():
        if t not in variants or kept.intersection(variants[t]):
            continue  # a variant, or a word found by its variant
        terms += _corrections(conn, fts, t, corrected)
    return terms


def _corrections(
    conn: sqlite3.Connection, fts: str, term: str, corrected: dict[str, list[str]] | None
) -> list[str]:
    """:func:`kb.search.typos.corrections` of ``term``, recorded in ``corrected``."""
    fixes = typos.corrections(conn, fts, term)
    if fixes and corrected is not None:
        corrected[term] = fixes
    return fixes


def respellings(
    conn: sqlite3.Connection,
    text: str,
    corrected: dict[str, list[str]] | None = None,
    fts: str = "chunks_fts",
) -> list[str]:
    """The spellings :func:`keyword_search` would search beside the terms of ``text``,
    read from ``fts`` (the live FTS5 index, kept current in every KB): for an index
    whose words are not listed (the LanceDB keyword index of big KBs). Each term's
    hyphen variants (:mod:`kb.search.compounds`) and, in a query of at most
    :data:`kb.search.typos.MAX_QUERY_TERMS` terms, a word no chunk holds (nor any of its
    variants) by its corrections, which ``corrected`` receives as there."""
    every = query_terms(text)
    split = len(every) <= compounds.MAX_QUERY_TERMS
    out: list[str] = []
    for t in every:
        if exact_terms.collapsed(t):
            continue
        found = compounds.variants(conn, fts, t, split)
        out += found
        if found or len(every) > typos.MAX_QUERY_TERMS:
            continue
        held = conn.execute(
            f"SELECT 1 FROM {fts} WHERE {fts} MATCH ? LIMIT 1", (_phrase(t),)
        ).fetchone()
        if held is None:
            out += _corrections(conn, fts, t, corrected)
    return list(dict.fromkeys(out))


def _match(
    conn: sqlite3.Connection,
    fts: str,
    terms: list[str],
    limit: int,
    document_ids: Collection[int] | None,
    rowids: Collection[int] | None = None,
    expr: Expr = _raw,
) -> list[tuple[int, float]]:
    """The top ``limit`` chunks for ``terms`` (their ``expr`` joined with ``OR``) as
    ``(id, -bm25)``; only ``rowids`` when given."""
    found = [e for e in map(expr, terms) if e]
    if not found:
        return []
    sql = f"SELECT rowid, bm25({fts}) AS s FROM {fts} WHERE {fts} MATCH ?"
    params: list[object] = [" OR ".join(found)]
    if document_ids is not None:
        # ``+rowid``: without the unary plus SQLite hands the IN list to FTS5 as rowid
        # lookups and re-runs the MATCH once per value (seconds at 100k chunks)
        sql += (
            " AND +rowid IN (SELECT id FROM chunks WHERE document_id IN "
            "(SELECT value FROM json_each(?)))"
        )
        params.append(json.dumps(sorted(int(i) for i in document_ids)))
    if rowids is not None:
        sql += " AND +rowid IN (SELECT value FROM json_each(?))"
        params.append(json.dumps(sorted(int(i) for i in rowids)))
    sql += " ORDER BY s, rowid LIMIT ?"
    params.append(int(limit))
    rows = conn.execute(sql, params).fetchall()
    return [(int(r[0]), -float(r[1])) for r in rows]
