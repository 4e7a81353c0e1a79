"""Build a stored chunking (``kb chunkers use``, ``kb eval run --chunker``) without
touching the live one.

:func:`build_chunking` brings the chunking of ``spec`` up to date: each indexed
document it has no chunks of at the document's present version (content hash) is
loaded again from its file (audio from the cached transcript), chunked, and its
chunks stored under that chunking (:mod:`kb.store.chunkings`). Then its pending
chunks are embedded through the cache: only texts no earlier chunking produced reach
the model (:func:`ingest.embedding.embed_pending`). A chunking already current costs
one query.

A file that changed since the last ``kb ingest`` is not chunked (its chunks would not
match the document the live chunking describes): it is reported in ``skipped`` and
the chunking stays stale for it until ``kb ingest`` and the next build. A chunker that
fails on a document records the failure for that version (reported in ``failed``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ingest.embedding import EmbedStats, embed_pending
from kb.config import Settings
from kb.errors import IngestError
from kb.progress import step
from kb.store import Store, chunkings
from kb.store.sqlite import insert_chunks

if TYPE_CHECKING:
    from kb.backends.embedder import Embedder


@dataclass
class BuildReport:
    """What :func:`build_chunking` did. ``texts``: distinct embedded texts of the
    chunking; ``embedded`` of them went to the model in this build, the rest came from
    the cache (``cached = texts - embedded``)."""

    spec: str
    chunking_id: int
    documents: int = 0
    chunks: int = 0
    texts: int = 0
    embedded: int = 0
    failed: list[tuple[str, str]] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    #: (display path, chunks) of each document chunked by this build
    built: list[tuple[str, int]] = field(default_factory=list)
    seconds_chunk: float = 0.0
    seconds_embed: float = 0.0

    @property
    def cached(self) -> int:
        return max(self.texts - self.embedded, 0)

    def to_dict(self) -> dict[str, Any]:
        return {
            "spec": self.spec,
            "chunking_id": self.chunking_id,
            "documents_chunked": self.documents,
            "chunks": self.chunks,
            "texts": self.texts,
            "texts_embedded": self.embedded,
            "texts_cached": self.cached,
            "failed": [{"path": p, "error": e} for p, e in self.failed],
            "skipped": [{"path": p, "reason": r} for p, r in self.skipped],
            "seconds_chunk": round(self.seconds_chunk, 3),
            "seconds_embed": round(self.seconds_embed, 3),
        }


def build_chunking(
    store: Store,
    settings: Settings,
    spec: str,
    embedder: Callable[[], Embedder],
    on_progress: Callable[[str], None] | None = None,
    *,
    keep_failed: bool = True,
) -> BuildReport:
    """Bring the chunking of ``spec`` up to date (see the module docs); returns what
    it cost. Raises :class:`kb.errors.UsageError` for a spec that cannot be loaded.

    ``keep_failed=False`` (a try, :func:`try_chunking`): when the chunker fails on any
    document, nothing is embedded, and a chunking this build created is dropped again,
    so a failed try leaves the KB as it was (``failed`` lists what went wrong)."""
    from ingest.chunkers import make_chunker, spec_label
    from ingest.loaders import LoadContext, loader_for
    from kb.hashing import sha256_file

    started = time.perf_counter()
    chunker = make_chunker(spec, settings)
    try:
        info = chunker.info
        created = chunkings.find(store, info) is None
        cid = chunkings.ensure(store, spec_label(spec, info), info)
        rep = BuildReport(spec, cid)

        def transcriber():  # type: ignore[no-untyped-def]
            from kb.backends.transcriber import make_transcriber

            return make_transcriber(settings.whisper, settings.home)

        ctx = LoadContext(settings, transcriber, settings.home / "cache")
        todo = chunkings.documents_to_build(store, cid)
        with step(f"cutting documents into chunks ({spec})", len(todo), "documents") as cutting:
            for n, (doc_id, abs_path, display, content_hash) in enumerate(todo):
                cutting.reach(n)
                path = Path(abs_path)
                loader = loader_for(path)
                try:
                    if loader is None or sha256_file(path) != content_hash:
                        rep.skipped.append(
                            (display, "changed since the last ingest; run kb ingest")
                        )
                        continue
                    doc = loader.load(path, display, ctx)
                    drafts = chunker.chunk(doc)
                    if not drafts:
                        raise IngestError(display, "no text could be extracted; nothing to index")
                except IngestError as e:
                    chunkings.record_failure(store, cid, doc_id, content_hash, e.reason)
                    rep.failed.append((display, e.reason))
                    continue
                except OSError as e:
                    rep.skipped.append((display, f"cannot read: {e.strerror or e}"))
                    continue
                with store.tx() as c:
                    c.execute(
                        "DELETE FROM chunks WHERE chunking_id = ? AND document_id = ?",
                        (cid, doc_id),
                    )
                    insert_chunks(c, doc_id, cid, content_hash, drafts, info)
                rep.documents += 1
                rep.built.append((display, len(drafts)))
                if on_progress is not None:
                    on_progress(display)
            cutting.reach(len(todo))
    finally:
        close = getattr(chunker, "close", None)
        if close is not None:
            close()
    rep.seconds_chunk = time.perf_counter() - started
    if rep.failed and not keep_failed:
        if created:
            chunkings.remove(store, cid)
        return rep
    if store.count_chunks("pending", chunking=cid):
        stats = EmbedStats()
        model = embedder()
        pending = store.count_chunks("pending", chunking=cid)
        with step("embedding chunks", pending, "chunks") as embedding:
            embed_pending(
                store,
                model,
                settings.ingest.embed_batch_size,
                on_batch=embedding.advance,
                chunking_id=cid,
                stats=stats,
                sentences=settings.embedding.sentence_vectors,
            )
        rep.embedded, rep.seconds_embed = stats.embedded, stats.seconds
    rep.chunks = store.count_chunks(chunking=cid)
    rep.texts = int(
        store.conn.execute(
            "SELECT count(DISTINCT embed_sha256) FROM chunks WHERE chunking_id = ?", (cid,)
        ).fetchone()[0]
    )
    chunkings.mark_built(store, cid)
    return rep


def needs_try(store: Store, settings: Settings, spec: str) -> bool:
    """``spec`` names another chunking than the live one and the KB has indexed
    documents to try it on (a first ingest has no live chunking to protect)."""
    from ingest.chunkers import make_chunker

    live = chunkings.live_id(store)
    if live is None:
        return False
    chunker = make_chunker(spec, settings)
    try:
        if chunkings.find(store, chunker.info) == live:
            return False
    finally:
        close = getattr(chunker, "close", None)
        if close is not None:
            close()
    return indexed_documents(store) > 0


def indexed_documents(store: Store) -> int:
    row = store.conn.execute("SELECT count(*) FROM documents WHERE status = 'indexed'").fetchone()
    return int(row[0])


def try_chunking(
    store: Store,
    settings: Settings,
    spec: str,
    embedder: Callable[[], Embedder],
    on_progress: Callable[[str], None] | None = None,
) -> BuildReport:
    """A chunker change tried on every indexed document before it goes live
    (``kb ingest --chunker SPEC``, ``kb chunkers use SPEC``; see :func:`needs_try`).

    The chunking of ``spec`` is built beside the live one (:func:`build_chunking`,
    ``keep_failed=False``); search keeps reading the live one meanwhile. The caller
    makes it live only when ``failed`` is empty; otherwise the live chunking and the
    recorded chunker are as they were, and a chunking the try created is gone."""
    return build_chunking(store, settings, spec, embedder, on_progress, keep_failed=False)


def try_failed_message(store: Store, rep: BuildReport) -> str:
    """The one line after a failed try's per-document lines."""
    from kb.types import plural

    live = chunkings.live_id(store)
    live_spec = chunkings.get(store, live).spec if live is not None else "none"
    total = indexed_documents(store)
    return (
        f"chunker {rep.spec} failed on {len(rep.failed)} of {plural(total, 'document')} "
        f"(listed above), so it was not made live: search still uses {live_spec} and "
        f"nothing else changed; fix the chunker (`kb chunkers check {rep.spec} PATH` "
        "shows each failure) and run again"
    )


def with_outdated(store: Store) -> list[chunkings.Chunking]:
    """:func:`kb.store.chunkings.list_all`, with ``outdated`` set on each stored (not
    live) chunking that another version of its chunker made than the one installed
    now (:func:`ingest.chunkers.installed_version`; one that is not installed any more
    is not called outdated: it may come back)."""
    from dataclasses import replace

    from ingest.chunkers import installed_version

    out = []
    for ch in chunkings.list_all(store):
        now = None if ch.live else installed_version(ch.name)
        out.append(replace(ch, outdated=now is not None and now != ch.version))
    return out


def find_chunking(store: Store, settings: Settings, spec: str) -> int | None:
    """The stored chunking ``spec`` names (same chunker identity), if any."""
    from ingest.chunkers import make_chunker

    chunker = make_chunker(spec, settings)
    try:
        return chunkings.find(store, chunker.info)
    finally:
        close = getattr(chunker, "close", None)
        if close is not None:
            close()
