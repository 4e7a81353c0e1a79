"""``kb ingest``: walk → hash → load → chunk → SQLite (pending) → embed → LanceDB → embedded.

Incremental rules, per ingest root (the folder given on the command line):

- same path, same content hash, same chunker (name, version, params) → unchanged:
  no parsing, no embedding;
- same path, new hash → reloaded; its chunks are replaced in both stores;
- same hash, chunker changed → re-chunked (audio reuses its cached transcript);
- a new path whose hash equals a document that disappeared from the same root
  → moved: only the path changes, chunks and vectors stay;
- a document whose file is gone (or no longer selected by include/exclude) →
  removed from both stores;
- a failed file is retried on every run.

Embedding is interleaved with loading whenever a full batch is pending, so
memory stays flat as the corpus grows and a crash loses at most one batch of
work. The embedding model is loaded only when something needs embedding.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ingest.embedding import apply_tombstones, embed_pending
from ingest.report import FileOutcome, IngestProgress, IngestReport
from ingest.walk import Candidate, single_file, walk
from kb.backends.embedder import Embedder, embedding_model_id
from kb.config import Settings
from kb.errors import IngestError, UsageError
from kb.hashing import sha256_file
from kb.store import Store
from kb.store.sqlite import DocumentRow

if TYPE_CHECKING:
    from kb.backends.transcriber import Transcriber


@dataclass
class _Factories:
    embedder: Callable[[], Embedder]
    transcriber: Callable[[], Transcriber]


class Ingestor:
    """One ingest run over a store. Create, then call :meth:`run`."""

    def __init__(
        self,
        store: Store,
        settings: Settings,
        embedder: Embedder | Callable[[], Embedder] | None = None,
        transcriber: Transcriber | Callable[[], Transcriber] | None = None,
        progress: IngestProgress | None = None,
    ) -> None:
        from ingest.chunkers import make_chunker

        self.store = store
        self.settings = settings
        self.progress = progress or IngestProgress()
        self.chunker = make_chunker(settings.ingest.chunker, settings)
        self._embedder: Embedder | None = None
        self._transcriber: Transcriber | None = None
        self._factories = _Factories(
            embedder=_factory(embedder, self._default_embedder),
            transcriber=_factory(transcriber, self._default_transcriber),
        )
        self.report = IngestReport()
        self._pending_since_flush = 0

    # -- lazy models -------------------------------------------------------------------------
    def _default_embedder(self) -> Embedder:
        from kb.backends.embedder import make_embedder

        return make_embedder(
            self.settings.embedding, batch_size=64, home=self.store.home, purpose="ingest"
        )

    def _default_transcriber(self) -> Transcriber:
        from kb.backends.transcriber import make_transcriber

        return make_transcriber(self.settings.whisper, self.settings.home)

    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = self._factories.embedder()
        return self._embedder

    def transcriber(self) -> Transcriber:
        if self._transcriber is None:
            self._transcriber = self._factories.transcriber()
        return self._transcriber

    # -- the run -----------------------------------------------------------------------------
    def run(self, paths: Sequence[Path]) -> IngestReport:
        from ingest.loaders import SUPPORTED_EXTENSIONS

        started = time.perf_counter()
        self.store.check_embedding_model(embedding_model_id(self.settings.embedding))
        self.report.vectors_removed += apply_tombstones(self.store)
        groups: list[tuple[Path, list[Candidate], bool]] = []
        for p in paths:
            if not p.exists() and not p.is_symlink():
                raise UsageError(f"{p}: no such file or folder")
            if p.is_dir():
                inc, exc = self.settings.ingest.include, self.settings.ingest.exclude
                cands = list(walk(p, SUPPORTED_EXTENSIONS, inc, exc))
                groups.append((p.resolve(), cands, True))
            else:
                if p.suffix.lower() not in SUPPORTED_EXTENSIONS:
                    raise UsageError(
                        f"{p}: unsupported file type; supported: "
                        + ", ".join(sorted(SUPPORTED_EXTENSIONS))
                    )
                c = single_file(p)
                groups.append((c.root, [c], False))
        self.progress.files_total(sum(len(c) for _, c, _ in groups))
        self.progress.embed_total(self.store.count_chunks("pending"))
        for root, cands, is_walk in groups:
            self._ingest_root(root, cands, is_walk)
        self._flush(final=True)
        self.report.vectors_removed += apply_tombstones(self.store)
        self.report.seconds = time.perf_counter() - started
        return self.report

    def _ingest_root(self, root: Path, cands: list[Candidate], is_walk: bool) -> None:
        root_s = str(root)
        known = self.store.documents_under(root_s)
        seen = {c.rel for c in cands}
        vanished = {p: d for p, d in known.items() if p not in seen} if is_walk else {}
        by_hash: dict[str, DocumentRow] = {
            d.content_hash: d for d in vanished.values() if d.content_hash and d.status == "indexed"
        }
        for cand in cands:
            self.progress.file_started(cand.rel)
            outcome = self._ingest_file(cand, known.get(cand.rel), by_hash, vanished)
            self.report.files.append(outcome)
            self.progress.file_done(outcome)
        if vanished:
            self.store.delete_documents(d.id for d in vanished.values())
            for path in sorted(vanished):
                out = FileOutcome(path, root_s, "removed")
                self.report.files.append(out)
                self.progress.file_done(out)

    def _ingest_file(
        self,
        cand: Candidate,
        existing: DocumentRow | None,
        by_hash: dict[str, DocumentRow],
        vanished: dict[str, DocumentRow],
    ) -> FileOutcome:
        from ingest.loaders import loader_for

        root_s = str(cand.root)
        loader = loader_for(cand.abs_path)
        doc_type = loader.doc_type if loader else "unknown"
        if cand.problem:
            return self._fail(cand, doc_type, cand.problem)
        try:
            st = cand.abs_path.stat()
            digest = sha256_file(cand.abs_path)
        except FileNotFoundError:
            return self._fail(cand, doc_type, "file vanished during ingest")
        except OSError as e:
            return self._fail(cand, doc_type, f"cannot read: {e.strerror or e}")
        info = self.chunker.info
        params = _params_json(info.params)
        if (
            existing is not None
            and existing.status == "indexed"
            and existing.content_hash == digest
            and (existing.chunker, existing.chunker_version, existing.chunker_params)
            == (info.name, info.version, params)
        ):
            return FileOutcome(cand.rel, root_s, "unchanged")
        if existing is None and digest in by_hash:
            moved = by_hash.pop(digest)
            vanished.pop(moved.path, None)
            if (moved.chunker, moved.chunker_version, moved.chunker_params) == (
                info.name,
                info.version,
                params,
            ):
                self.store.rename_document(moved.id, cand.rel, st.st_mtime)
                return FileOutcome(cand.rel, root_s, "moved", moved_from=moved.path)
            self.store.delete_documents([moved.id])
        try:
            if loader is None:  # pragma: no cover - walk only yields supported files
                raise IngestError(cand.rel, "unsupported file type")
            doc = loader.load(cand.abs_path, cand.rel, self._load_context())
            drafts = self.chunker.chunk(doc)
            if not drafts:
                raise IngestError(cand.rel, "no text could be extracted; nothing to index")
        except IngestError as e:
            return self._fail(cand, doc_type, e.reason, digest, st.st_size, st.st_mtime)
        except FileNotFoundError:
            return self._fail(cand, doc_type, "file vanished during ingest")
        except OSError as e:
            return self._fail(cand, doc_type, f"cannot read: {e.strerror or e}")
        self.store.save_document(
            root=root_s,
            path=cand.rel,
            doc_type=doc.doc_type,
            content_hash=digest,
            size=st.st_size,
            mtime=st.st_mtime,
            chunks=drafts,
            chunker=info,
            tags=doc.tags,
            warnings=doc.warnings,
            meta=doc.meta,
        )
        if existing is None:
            kind = "added"
        elif existing.content_hash == digest and existing.status == "indexed":
            kind = "rechunked"
        else:
            kind = "updated"
        self.progress.embed_total(len(drafts))
        self._pending_since_flush += len(drafts)
        self._flush(final=False)
        return FileOutcome(cand.rel, root_s, kind, chunks=len(drafts), warnings=doc.warnings)

    def _fail(
        self,
        cand: Candidate,
        doc_type: str,
        reason: str,
        digest: str | None = None,
        size: int | None = None,
        mtime: float | None = None,
    ) -> FileOutcome:
        self.store.mark_failed(
            root=str(cand.root),
            path=cand.rel,
            doc_type=doc_type,
            error=reason,
            content_hash=digest,
            size=size,
            mtime=mtime,
        )
        return FileOutcome(cand.rel, str(cand.root), "failed", error=reason)

    def _load_context(self):  # type: ignore[no-untyped-def]
        from ingest.loaders import LoadContext

        def on_audio(seconds: float) -> None:
            self.report.audio_seconds += seconds
            self.progress.audio_seconds(seconds)

        return LoadContext(
            settings=self.settings,
            transcriber=self.transcriber,
            cache_dir=self.settings.home / "cache",
            on_audio_progress=on_audio,
        )

    def _flush(self, final: bool) -> None:
        """Embed pending chunks once a full batch is waiting (or everything, at the end)."""
        batch = self.settings.ingest.embed_batch_size
        if not final and self._pending_since_flush < batch:
            return
        if self.store.count_chunks("pending") == 0:
            self._pending_since_flush = 0
            return
        n = embed_pending(self.store, self.embedder(), batch, on_batch=self._on_batch)
        self.report.chunks_embedded += n
        self._pending_since_flush = 0

    def _on_batch(self, n: int) -> None:
        self.progress.embedded(n)


def _params_json(params: dict[str, object]) -> str:
    import json

    return json.dumps(params, sort_keys=True)


def _factory(value, default):  # type: ignore[no-untyped-def]
    if value is None:
        return default
    if callable(value) and not hasattr(value, "embed_batch") and not hasattr(value, "transcribe"):
        return value
    return lambda: value


def ingest_paths(
    store: Store,
    settings: Settings,
    paths: Sequence[Path],
    *,
    embedder: Embedder | Callable[[], Embedder] | None = None,
    transcriber: Transcriber | Callable[[], Transcriber] | None = None,
    progress: IngestProgress | None = None,
) -> IngestReport:
    """Ingest ``paths`` (folders are walked; files are taken as given) into ``store``."""
    return Ingestor(store, settings, embedder, transcriber, progress).run(paths)
