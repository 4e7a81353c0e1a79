"""The keyword leg of a big KB: LanceDB's native full-text index instead of FTS5.

When it is used (:func:`keyword_index_state`): ``[search] keyword_index_threshold >
0``, the live chunking has at least that many chunks, and the derived index
(:mod:`kb.store.keyword_index`) was built for exactly the live chunks (its recorded
fingerprint equals the live one). Past the threshold with a missing or stale index,
the keyword leg falls back to FTS5 and the retriever says so in one line: slower,
never wrong. Searching another chunking (``kb eval run --chunker``) always uses FTS5.

The query keeps :func:`kb.search.keyword.fts_query`'s guarantees:

- the terms are :func:`kb.search.keyword.query_terms` (white-space split, possessive
  ``'s`` removed, punctuation-only terms dropped, stop words dropped unless every term
  is one, at most 64), accents folded (:func:`kb.store.keyword_index.fold`);
- user text is never parsed as query syntax: each term becomes a ``MatchQuery`` or
  ``PhraseQuery`` object that LanceDB only tokenizes (``AND``, ``"``, ``*``, ``(``
  are plain characters); the index's tokenizer lower-cases and stems, so ``running``
  matches ``run``;
- a term that splits into one token joins one ``OR`` match of all such terms; a term
  that splits into several (``ZX-4417`` -> ``zx 4417``) is a phrase (adjacent tokens,
  as inside FTS5's double quotes); the parts are combined with ``SHOULD`` (OR);
- the query's other spellings are searched too, as
  :func:`kb.search.keyword.keyword_search` would (:func:`kb.search.keyword.respellings`,
  read from FTS5's index, which is kept current in every KB and whose words are listed,
  unlike this index's): a hyphenated term joined (``e-mail`` -> ``email``), a word the
  notes write hyphenated (the query's *email*, the notes' *e-mail*:
  :mod:`kb.search.compounds`) and, in a short query, the corrections of a word no chunk
  holds (:mod:`kb.search.typos`).

Score: LanceDB's BM25 (higher is better), reported as the keyword score; score fusion
divides it by the query's best, so only its shape matters. Order: score descending,
chunk id ascending.

A scoped search (``--path``/``--type``/``--tag``) still returns ``limit`` hits when the
scope has them. A scope of at most :data:`PREFILTER_DOCS` documents prefilters the
index by ``document_id IN (...)`` (a B-tree scalar index); a wider one (where that
list costs more than the search) takes the index's top ``fetch`` unscoped and keeps
the in-scope rows, ``fetch`` starting at ``limit`` divided by the scope's share of the
documents and growing four-fold until ``limit`` are kept, then, past
:data:`MAX_FETCH`, prefiltering after all. BM25 statistics are the whole index's in
both ways, so both give the same ranking.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from typing import Any

_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)
PREFILTER_DOCS = 1000
MAX_FETCH = 4096


def tokens(term: str) -> list[str]:
    """The tokens the ``simple`` tokenizer makes of ``term`` (runs of letters/digits)."""
    from kb.store.keyword_index import fold

    return _TOKEN.findall(fold(term))


def lance_query(text: str, column: str = "text", extra: Sequence[str] = ()) -> Any | None:
    """The LanceDB full-text query for ``text`` (see the module docs), ``extra`` terms
    (other spellings: :func:`kb.search.keyword.respellings`) searched beside its own;
    ``None`` when nothing is searchable."""
    from lancedb import query as lq

    from kb.search.keyword import query_terms

    # pydantic dataclasses: their keyword-only defaults are invisible to mypy
    match: Any = lq.MatchQuery
    phrase: Any = lq.PhraseQuery
    words: list[str] = []
    phrases: list[str] = []
    for term in [*query_terms(text), *extra]:
        toks = tokens(term)
        if len(toks) == 1:
            if toks[0] not in words:
                words.append(toks[0])
        elif toks and " ".join(toks) not in phrases:
            phrases.append(" ".join(toks))
    parts: list[Any] = []
    if words:
        parts.append(match(" ".join(words), column))
    parts.extend(phrase(p, column) for p in phrases)
    if not parts:
        return None
    if len(parts) == 1:
        return parts[0]
    return lq.BooleanQuery([(lq.Occur.SHOULD, p) for p in parts])


def search(
    store: Any,
    text: str,
    limit: int,
    document_ids: Collection[int] | None = None,
    table: Any = None,
    corrected: dict[str, list[str]] | None = None,
) -> list[tuple[int, float]]:
    """Top ``limit`` live chunks for ``text`` as ``(chunk_id, bm25)``, best first.

    ``document_ids``: as in :func:`kb.search.keyword.keyword_search` (``None``: no
    restriction; empty: no results). ``table``: the open index table, when the caller
    keeps one (opening it costs a directory listing and a manifest read). The query's
    other spellings are searched too (:func:`kb.search.keyword.respellings`: a word the
    KB writes hyphenated, a typo in a short query); ``corrected`` receives the typos'
    corrections."""
    from kb.search.keyword import respellings
    from kb.store import keyword_index

    if limit < 1 or (document_ids is not None and not document_ids):
        return []
    q = lance_query(text, extra=respellings(store.conn, text, corrected))
    t = table if table is not None else keyword_index.table(store)
    if q is None or t is None:
        return []
    if document_ids is None:
        return _ranked(_query(t, q, limit, None))
    if len(document_ids) > PREFILTER_DOCS:
        allowed = {int(i) for i in document_ids}
        total = max(int(store.conn.execute("SELECT count(*) FROM documents").fetchone()[0]), 1)
        fetch = min(MAX_FETCH, max(limit, int(limit * 1.25 * total / len(allowed))))
        while True:
            arrow = _query(t, q, fetch, None)
            docs = arrow.column("document_id").to_pylist()
            ids, scores = arrow.column("chunk_id").to_pylist(), arrow.column("_score").to_pylist()
            kept = [(i, s) for i, d, s in zip(ids, docs, scores, strict=True) if d in allowed]
            if len(kept) >= limit or len(ids) < fetch:
                return _sorted(kept)[:limit]
            if fetch >= MAX_FETCH:
                break
            fetch = min(fetch * 4, MAX_FETCH)
    return _ranked(_query(t, q, limit, document_ids))


def _query(t: Any, q: Any, limit: int, document_ids: Collection[int] | None) -> Any:
    """The index's top ``limit`` as an Arrow table of ``chunk_id``, ``document_id``,
    ``_score``. Unscoped, the query asks for row ids and scores only and the ids come
    from :func:`_map_rows`: taking the two columns of the 50 rows found from the table's
    data files cost about as much as the search itself (14 vs 7 ms at a million
    chunks)."""
    import pyarrow as pa

    builder = t.search(q, query_type="fts")
    if document_ids is not None:
        ids = ",".join(str(int(i)) for i in sorted(document_ids))
        builder = builder.where(f"document_id IN ({ids})", prefilter=True)
    else:
        version = t.version
        found = builder.with_row_id(True).select(["_score"]).limit(int(limit)).to_arrow()
        mapped = _map_rows(t, version, found.column("_rowid").to_numpy())
        if mapped is not None and t.version == version:
            return pa.table(
                {"chunk_id": mapped[0], "document_id": mapped[1], "_score": found["_score"]}
            )
        builder = t.search(q, query_type="fts")  # the table moved on: read the columns
    cols = ["chunk_id", "document_id", "_score"]
    return builder.select(cols).limit(int(limit)).to_arrow()


#: per open index table: its version, row ids (ascending), their chunk and document ids
_ROWS: dict[int, tuple[Any, int, Any, Any, Any]] = {}


def _map_rows(t: Any, version: int, rowids: Any) -> tuple[Any, Any] | None:
    """Chunk and document ids of the given row ids of ``t`` at ``version``; ``None``
    when some row is not in the map (the caller then reads the columns).

    The map of every row is read once per table version (one scan of two integer
    columns, 24 bytes a row): a row id names a row of one version only (an update can
    give an old id to another row), so a query whose table changed version while it ran
    is not mapped."""
    import numpy as np

    hit = _ROWS.get(id(t))
    if hit is None or hit[0] is not t or hit[1] != version:
        arrow = t.search().select(["chunk_id", "document_id"]).with_row_id(True).limit(None)
        arrow = arrow.to_arrow()
        if t.version != version:
            return None
        keys = arrow.column("_rowid").to_numpy()
        order = np.argsort(keys, kind="stable")
        chunks = arrow.column("chunk_id").to_numpy()[order]
        hit = (t, version, keys[order], chunks, arrow.column("document_id").to_numpy()[order])
        if len(_ROWS) >= 4:
            _ROWS.clear()
        _ROWS[id(t)] = hit
    _, _, keys, chunks, docs = hit
    if not len(rowids):
        return chunks[:0], docs[:0]
    if not len(keys):
        return None
    at = np.minimum(np.searchsorted(keys, rowids), len(keys) - 1)
    if not bool(np.all(keys[at] == rowids)):
        return None
    return chunks[at], docs[at]


def _ranked(arrow: Any) -> list[tuple[int, float]]:
    ids, scores = arrow.column("chunk_id").to_pylist(), arrow.column("_score").to_pylist()
    return _sorted(list(zip(ids, scores, strict=True)))


def _sorted(pairs: list[tuple[int, float]]) -> list[tuple[int, float]]:
    return sorted(((int(i), float(s)) for i, s in pairs), key=lambda p: (-p[1], p[0]))


def keyword_index_state(store: Any, threshold: int) -> str:
    """``"index"`` (search the LanceDB index), ``"fts5"`` (below the threshold or
    switched off) or ``"stale"`` (past the threshold, index missing or out of date:
    FTS5 is searched and the user is told)."""
    from kb.store import keyword_index

    if threshold <= 0:
        return "fts5"
    live = keyword_index.fingerprint(store.conn)
    if live[1] < threshold:
        return "fts5"
    return "index" if keyword_index.is_current(store, live) else "stale"


STALE_NOTICE = (
    "kb: the keyword index is missing or out of date; searching with SQLite FTS5 "
    "(slower); run `kb reindex --keyword`"
)


def describe(store: Any, threshold: int) -> dict[str, object]:
    """``kb status``'s ``keyword_search``: ``{"engine": "lancedb-fts"|"fts5", "chunks",
    "threshold", "index"}`` (``index``: the record with ``current``, or ``None``)."""
    from kb.store import keyword_index

    state = keyword_index_state(store, threshold)
    return {
        "engine": "lancedb-fts" if state == "index" else "fts5",
        "chunks": keyword_index.fingerprint(store.conn)[1],
        "threshold": threshold,
        "index": keyword_index.info(store),
    }


def describe_line(ks: dict[str, object]) -> str:
    """One ``kb status`` line for :func:`describe`'s dict."""
    n, t, rec = ks["chunks"], ks["threshold"], ks["index"]
    if ks["engine"] == "lancedb-fts" and isinstance(rec, dict):
        return f"keyword search: LanceDB full-text index ({n} chunks, built {rec['built_at']})"
    if isinstance(t, int) and isinstance(n, int) and t > 0 and n >= t:
        why = "out of date" if rec else "not built"
        return (
            f"keyword search: SQLite FTS5 ({n} chunks; over keyword_index_threshold {t}, "
            f"the index is {why}: `kb reindex --keyword`)"
        )
    return f"keyword search: SQLite FTS5 ({n} chunks)"
