"""Bring the embedding cache in line with SQLite: embed the texts of pending chunks
that the cache does not hold yet.

Vectors are keyed by ``(model, SHA-256 of the embedded text)`` (:mod:`kb.store.
vectors`), so per batch of pending chunks (crash-safe at every step):

1. chunks whose text hash is already cached under the model are *cache hits*: marked
   ``embedded`` without embedding anything (a text two chunkings share, a chunking
   built again);
2. the distinct remaining texts are embedded once each and added to the cache
   (insert-if-absent, idempotent), then every pending chunk with one of those hashes
   is marked ``embedded`` — a crash in between leaves them ``pending`` and the next
   run finds their vectors cached.

With ``sentences`` (``[embedding] sentence_vectors``, on by default), every chunk text
of the batch, cache hit or not, whose sentence vectors are not stored yet gets them in
the *same* ``embed_batch`` call as the batch's chunk texts
(:mod:`ingest.sentence_vectors`); they are stored before the chunks are marked
``embedded``, so a crash leaves nothing half done.

Deleted chunks leave their vectors in the cache (another chunking may use them, or
use them again); ``kb doctor --repair`` drops vectors no chunking uses. The
``vector_tombstones`` kept by SQLite for deleted chunk ids are just cleared.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from ingest.sentence_vectors import embed_with_chunks, jobs_for
from kb.backends.embedder import Embedder
from kb.errors import EmbeddingMismatchError
from kb.store import Store
from kb.store.sentences import add as add_sentences
from kb.store.sqlite import EmbeddingModelInfo
from kb.store.stats import remember_vector_count


def apply_tombstones(store: Store) -> int:
    """Clear the deleted-chunk ids SQLite recorded (vectors are keyed by text, not by
    chunk, so there is nothing to delete per chunk); returns how many."""
    ids = store.tombstones()
    if ids:
        store.clear_tombstones(ids)
    return len(ids)


def record_model_files(store: Store, embedder: Embedder) -> None:
    """Record in the KB's ``meta`` (key ``model_files``) the model cache entry its
    vectors come from (:mod:`kb.backends.model_cache`), register the KB in the cache's
    registry, and move the KB's old model copies out of ``<KB>/cache/models``. Written
    only when it changes; best effort (a cache that cannot be written changes nothing)."""
    import json

    from kb.backends import model_cache
    from kb.backends.bundled import move_old_copies

    move_old_copies(store.home)
    entry = getattr(embedder, "cache_entry", None)
    if entry is None:
        return
    raw = store.meta_get("model_files")
    files = json.loads(raw) if raw else {}
    want = {**files, "embedding": entry, "cache": str(model_cache.root())}
    if want != files:
        store.meta_set("model_files", json.dumps(want, sort_keys=True))
    model_cache.register(store.home, [entry])


def ensure_model_recorded(store: Store, embedder: Embedder) -> None:
    """Record the embedder that builds the vectors (and the model files it uses,
    :func:`record_model_files`); refuse a dimension clash."""
    store.check_embedding_model(embedder.model_id)
    current = store.embedding_model()
    table_dim = store.vectors.dim()
    if table_dim is not None and table_dim != embedder.dim:
        raise EmbeddingMismatchError(
            f"{store.home}: the vector table has dimension {table_dim} but the embedder "
            f"'{embedder.model_id}' gives {embedder.dim}; run `kb reindex`"
        )
    if current is None or current.model_id != embedder.model_id:
        store.set_embedding_model(EmbeddingModelInfo(embedder.model_id, embedder.dim))
    record_model_files(store, embedder)


@dataclass
class EmbedStats:
    """What one :func:`embed_pending` call did: ``embedded`` distinct texts sent to the
    model, ``cached`` distinct texts taken from the cache, ``chunks`` chunks marked
    embedded, ``seconds`` spent (model and cache writes, sentence vectors included)."""

    embedded: int = 0
    cached: int = 0
    chunks: int = 0
    seconds: float = 0.0
    #: chunk texts whose sentences were embedded (and stored), and those sentences
    sentence_texts: int = 0
    sentences: int = 0


class RunSizer:
    """How many chunk texts to embed in one ``embed_batch`` call, so progress moves:
    runs start at :attr:`first` texts and are then sized to take about
    :attr:`target_s` seconds at the throughput measured so far
    (``size = clamp(rate x target_s, first, most)``, ``rate`` = texts per second of the
    last run). Small runs cost a little packing (the ONNX runtime sorts texts by length
    within a call), which is why they are not smaller than needed."""

    def __init__(self, first: int = 8, most: int = 256, target_s: float = 1.0) -> None:
        self.first, self.most, self.target_s = first, most, target_s
        self.size = first

    def took(self, texts: int, seconds: float) -> None:
        rate = texts / max(seconds, 1e-3)
        self.size = max(self.first, min(self.most, int(rate * self.target_s)))


def embed_pending(
    store: Store,
    embedder: Embedder,
    batch_size: int = 256,
    on_batch: Callable[[int], None] | None = None,
    chunking_id: int | None = None,
    stats: EmbedStats | None = None,
    sentences: bool = True,
) -> int:
    """Embed every pending chunk (of one chunking, or all); returns how many distinct
    texts were embedded (cache hits are not counted; ``stats`` gets both). With
    ``sentences``, their sentence vectors too (module docs). Each batch is embedded in
    runs of about a second (:class:`RunSizer`), each stored and marked before the next,
    and ``on_batch`` hears of every run's chunks: progress moves within a batch."""
    started = time.perf_counter()
    ensure_model_recorded(store, embedder)
    model = embedder.model_id
    st = stats if stats is not None else EmbedStats()
    cached: set[str] | None = None
    done = 0
    runs = RunSizer()
    for batch in store.iter_pending(batch_size, chunking_id):
        if cached is None:
            cached = store.vectors.hashes(model)
        hits = {sha for _, _, sha in batch if sha in cached}
        todo: dict[str, str] = {}
        rows_of: dict[str, int] = {}
        for _, text, sha in batch:
            rows_of[sha] = rows_of.get(sha, 0) + 1
            if sha not in cached and sha not in todo:
                todo[sha] = text
        jobs = {j.sha: j for j in jobs_for(store, model, [*hits, *todo])} if sentences else {}
        order = [*hits, *todo]
        at = 0
        while at < len(order):
            t0 = time.perf_counter()
            part = order[at : at + runs.size]
            at += len(part)
            part_todo = {sha: todo[sha] for sha in part if sha in todo}
            part_jobs = [jobs[sha] for sha in part if sha in jobs]
            if part_todo or part_jobs:
                vecs, rows = embed_with_chunks(embedder, part_todo, part_jobs)
                if part_todo:
                    store.vectors.add(model, list(part_todo), vecs)
                    cached.update(part_todo)
                add_sentences(store, model, rows)
                st.sentence_texts += len(rows)
                st.sentences += sum(len(j.spans) for j in part_jobs)
            store.mark_hashes_embedded(part)
            done += len(part_todo)
            st.embedded += len(part_todo)
            st.cached += len(part) - len(part_todo)
            st.chunks += sum(rows_of[sha] for sha in part)
            if part_todo or part_jobs:
                runs.took(len(part), time.perf_counter() - t0)
            if on_batch is not None:
                on_batch(sum(rows_of[sha] for sha in part))
    if done:
        remember_vector_count(store)
    st.seconds += time.perf_counter() - started
    return done
