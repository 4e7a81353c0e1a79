"""Stored sentence vectors: every chunk text's sentences, each embedded on its own.

One SQLite row per ``(model, sha)`` in ``sentence_vectors`` (migration 6), where
``sha`` is the chunk's ``embed_sha256`` (the embedding cache's key, :mod:`kb.store.
embeddings`): chunks that two chunkings or two ingests share have one row. A row holds
``n`` sentences of the chunk's *text* (not its heading path), split by
:func:`kb.sentence_spans.split_sentences`:

- ``spans``: ``int32[n, 2]`` character offsets ``(start, end)`` into the chunk text;
- ``vectors``: ``float16[n, dim]``, L2-normalised before the cast (half precision is
  enough for a cosine used in ranking: its error is below 1e-3).

Read by the sentence rerank (:mod:`kb.search.rerank`) and the evidence check of
``kb ask`` (:mod:`kb.rag.verify`), which reuses a row only when its spans are the ones
it cut itself. Rows whose text no chunk has any more, or of another model, are
*unused* (:func:`unused_keys`); ``kb doctor --repair`` drops them like unused cached
chunk vectors.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

    from kb.store.sqlite import Store

# numpy dtypes by name: numpy is imported in the functions that decode, so ``kb status``
# and ``kb doctor`` count rows without it
_SPAN = "<i4"
_VEC = "<f2"


@dataclass(frozen=True)
class SentenceVectors:
    """One chunk text's sentences: ``spans`` ``[(start, end), ...]`` and ``vectors``
    ``float32[n, dim]`` (decoded from half precision)."""

    spans: list[tuple[int, int]]
    vectors: np.ndarray


def encode(spans: Sequence[tuple[int, int]], vectors: np.ndarray) -> tuple[bytes, bytes]:
    """The ``(spans, vectors)`` blobs of one row."""
    import numpy as np

    sp = np.asarray(spans, dtype=_SPAN).reshape(-1, 2)
    return sp.tobytes(), np.asarray(vectors, dtype=np.float32).astype(_VEC).tobytes()


def decode_spans(n: int, spans: bytes) -> list[tuple[int, int]]:
    """The ``n`` spans of a row's ``spans`` blob."""
    import numpy as np

    return [(int(a), int(b)) for a, b in np.frombuffer(spans, dtype=_SPAN).reshape(n, 2)]


def decode(n: int, dim: int, spans: bytes, vectors: bytes) -> SentenceVectors:
    import numpy as np

    vec = np.frombuffer(vectors, dtype=_VEC).reshape(n, dim).astype(np.float32)
    return SentenceVectors(decode_spans(n, spans), vec)


def add(
    store: Store,
    model: str,
    rows: Iterable[tuple[str, Sequence[tuple[int, int]], np.ndarray]],
) -> int:
    """Store ``(sha, spans, vectors)`` rows under ``model`` in one transaction; a row
    already stored is kept (insert-if-absent: the same text gives the same vectors).
    Returns how many rows were given."""
    import numpy as np

    out = []
    for sha, spans, vecs in rows:
        v = np.asarray(vecs, dtype=np.float32)
        sp, vb = encode(spans, v)
        out.append((model, sha, len(spans), int(v.shape[1]) if v.ndim == 2 else 0, sp, vb))
    if out:
        with store.tx() as c:
            c.executemany(
                "INSERT OR IGNORE INTO sentence_vectors (model, sha, n, dim, spans, vectors) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                out,
            )
    return len(out)


def have(store: Store, model: str, shas: Sequence[str]) -> set[str]:
    """Which of ``shas`` have sentence vectors under ``model``."""
    got: set[str] = set()
    keys = list(dict.fromkeys(shas))
    for start in range(0, len(keys), 500):
        part = keys[start : start + 500]
        got.update(
            str(r[0])
            for r in store.conn.execute(
                f"SELECT sha FROM sentence_vectors WHERE model = ? AND sha IN "
                f"({','.join('?' * len(part))})",
                [model, *part],
            )
        )
    return got


def for_chunks(store: Store, model: str, chunk_ids: Sequence[int]) -> dict[int, SentenceVectors]:
    """The sentence vectors of ``chunk_ids`` under ``model`` (one query; chunks without
    a row are left out). ``CROSS JOIN`` keeps SQLite's plan to "chunks by id, then their
    row by primary key" (~0.1 ms for 20 chunks): left to itself the planner may scan every
    row of the model instead (hundreds of ms at 100k chunks)."""
    ids = list(dict.fromkeys(int(i) for i in chunk_ids))
    if not ids:
        return {}
    rows = store.conn.execute(
        "SELECT c.id, s.n, s.dim, s.spans, s.vectors FROM chunks c CROSS JOIN "
        "sentence_vectors s "
        "ON s.model = ? AND s.sha = c.embed_sha256 "
        f"WHERE c.id IN ({','.join('?' * len(ids))})",
        [model, *ids],
    ).fetchall()
    return {int(r[0]): decode(int(r[1]), int(r[2]), r[3], r[4]) for r in rows}


def coverage(store: Store, model: str | None) -> dict[str, int]:
    """``kb status``: live chunks, and how many of them have sentence vectors under
    ``model`` (0 without a model)."""
    total = int(store.conn.execute("SELECT count(*) FROM live_chunks").fetchone()[0])
    if model is None:
        return {"chunks": total, "with_sentence_vectors": 0}
    done = store.conn.execute(
        "SELECT count(*) FROM live_chunks c WHERE EXISTS (SELECT 1 FROM sentence_vectors s "
        "WHERE s.model = ? AND s.sha = c.embed_sha256)",
        (model,),
    ).fetchone()[0]
    return {"chunks": total, "with_sentence_vectors": int(done)}


def outdated(store: Store, model: str, batch: int = 2000) -> list[str]:
    """The ``sha`` of each row stored under ``model`` whose spans are not the ones
    :func:`kb.sentence_spans.split_sentences` cuts from its chunk text today (a KB
    ingested by an older kb): search and ``kb ask`` never use such a row, they embed
    those sentences at every query. Rows no chunk has are :func:`unused_keys`'. Reads
    every row once, ``batch`` at a time."""
    from kb.sentence_spans import split_sentences

    stale: list[str] = []
    last = ""
    while True:
        rows = store.conn.execute(
            "SELECT s.sha, s.n, s.spans, (SELECT c.text FROM chunks c "
            "WHERE c.embed_sha256 = s.sha LIMIT 1) FROM sentence_vectors s "
            "WHERE s.model = ? AND s.sha > ? ORDER BY s.sha LIMIT ?",
            (model, last, batch),
        ).fetchall()
        if not rows:
            return stale
        last = str(rows[-1][0])
        for sha, n, spans, text in rows:
            if text is None:
                continue
            today = split_sentences(str(text)) or [(0, len(str(text)))]
            if decode_spans(int(n), spans) != today:
                stale.append(str(sha))


def unused_keys(store: Store) -> list[tuple[str, str]]:
    """Stored ``(model, sha)`` rows that no chunk of any chunking embeds under the
    KB's model (rows of other models are all unused)."""
    model = store.embedding_model()
    current = "" if model is None else model.model_id
    rows = store.conn.execute(
        "SELECT model, sha FROM sentence_vectors s WHERE model != ? OR NOT EXISTS "
        "(SELECT 1 FROM chunks c WHERE c.embed_sha256 = s.sha)",
        (current,),
    )
    return [(str(m), str(h)) for m, h in rows]


def delete(store: Store, keys: Sequence[tuple[str, str]]) -> int:
    """Delete ``(model, sha)`` rows; returns how many were asked for."""
    with store.tx() as c:
        c.executemany("DELETE FROM sentence_vectors WHERE model = ? AND sha = ?", list(keys))
    return len(keys)


def delete_model(store: Store, model: str) -> None:
    """Forget every row of ``model`` (``kb reindex`` embeds them again)."""
    with store.tx() as c:
        c.execute("DELETE FROM sentence_vectors WHERE model = ?", (model,))
