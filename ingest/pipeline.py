"""``kb ingest``: walk → hash → load → chunk → SQLite (pending) → embed → LanceDB → embedded.

Sources and documents (:mod:`kb.store.sources`): a document is identified by its
resolved absolute path and belongs to the deepest known source containing it; it is
stored and shown as ``source-name/relative/path``. A path given on the command line
that lies in a known source (the source itself, a subfolder or a single file) updates
those documents in place; a path outside every source becomes a new source. No path:
every known source is re-scanned (a source whose folder is gone is reported, its
documents kept).

Incremental rules, per path looked at:

- same file, same content hash, same chunker (name, version, params) → unchanged:
  no parsing, no embedding;
- same file, new hash → reloaded; its chunks are replaced in both stores;
- same hash, chunker changed → re-chunked (audio reuses its cached transcript);
- a new file whose hash equals a document that disappeared under the same path
  → moved: only its paths change, chunks and vectors stay;
- a document under the path looked at whose file is gone → removed from both stores.
  ``--include``/``--exclude`` narrow what a run looks at: documents they do not
  select are kept, never removed. A file its source's own patterns leave out is
  removed;
- a failed file is retried on every run.

Embedding is interleaved with loading whenever a full batch is pending, so
memory stays flat as the corpus grows and a crash loses at most one batch of
work. The embedding model is loaded only when something needs embedding.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ingest.embedding import apply_tombstones, embed_pending
from ingest.fileio import max_bytes_of, stat_and_hash
from ingest.report import FileOutcome, IngestProgress, IngestReport
from ingest.walk import Candidate, candidate, single_file, walk
from kb.backends.embedder import Embedder, embedding_model_id
from kb.config import Settings
from kb.errors import IngestError, UsageError
from kb.globs import path_selected
from kb.store import Store, ann, keyword_index
from kb.store.sources import Source, abs_key, add_source, list_sources, owner, touch_sources
from kb.store.sqlite import DocumentRow
from kb.types import LoadedDocument

if TYPE_CHECKING:
    from kb.backends.transcriber import Transcriber


@dataclass(frozen=True)
class _Where:
    """Where a file belongs: its source, absolute path and display path."""

    source: Source
    abs_path: str
    display: str


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
        self.chunking_id = 0

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
        """Ingest ``paths`` (no paths: re-scan every known source); see the module doc."""
        from ingest.loaders import SUPPORTED_EXTENSIONS
        from kb.store import chunkings

        started = time.perf_counter()
        self.store.check_embedding_model(embedding_model_id(self.settings.embedding))
        from ingest.chunkers import spec_label

        label = spec_label(self.settings.ingest.chunker, self.chunker.info)
        self.chunking_id = chunkings.ensure(self.store, label, self.chunker.info)
        chunkings.set_live(self.store, self.chunking_id)
        self.report.vectors_removed += apply_tombstones(self.store)
        sources = list_sources(self.store)
        scopes: list[tuple[str, bool]] = []
        if not paths:
            if not sources:
                raise UsageError("no sources yet; run `kb ingest PATH` with a folder or file")
            for src in sources:
                if Path(src.path).exists():
                    scopes.append((src.path, src.kind == "folder"))
                else:
                    self._missing_source(src)
        else:
            for p in paths:
                raw = Path(p)
                if raw.is_symlink() and not raw.is_dir():
                    # a link named directly is checked as a link (ingest.fileio), not
                    # silently replaced by its target: the target may be a device
                    key = (Path(os.path.abspath(raw.parent)).resolve() / raw.name).as_posix()
                else:
                    key = abs_key(p)
                target = Path(key)
                if not target.exists():
                    was = next((s for s in sources if s.path == key), None)
                    hint = (
                        f"; it was the source {was.name!r}: `kb sources move {was.name} "
                        f"NEW_PATH` or `kb sources remove {was.name}`"
                        if was
                        else ""
                    )
                    raise UsageError(f"{p}: no such file or folder{hint}")
                if not target.is_dir() and target.suffix.lower() not in SUPPORTED_EXTENSIONS:
                    raise UsageError(
                        f"{p}: unsupported file type; supported: "
                        + ", ".join(sorted(SUPPORTED_EXTENSIONS))
                    )
                scopes.append((key, target.is_dir()))
            for key, _ in scopes:
                if owner(sources, key) is None:
                    sources.append(add_source(self.store, key))
        groups: list[tuple[str, bool, list[Candidate]]] = []
        inc, exc = self.settings.ingest.include, self.settings.ingest.exclude
        for key, is_dir in scopes:
            if is_dir:
                groups.append((key, True, list(walk(Path(key), SUPPORTED_EXTENSIONS, inc, exc))))
            else:
                groups.append((key, False, [single_file(Path(key))]))
        self.progress.files_total(sum(len(c) for _, _, c in groups))
        self.progress.embed_total(self.store.count_chunks("pending", chunking="all"))
        touched: set[int] = set()
        for key, is_dir, cands in groups:
            touched |= self._ingest_scope(key, is_dir, cands, sources)
        touched |= self._catch_up(sources, sum(len(c) for _, _, c in groups))
        self._flush(final=True)
        self.report.vectors_removed += apply_tombstones(self.store)
        search = self.settings.search
        self.report.ann_index = ann.maintain(self.store, search.ann_threshold, search.ann_index)
        self.report.keyword_index = keyword_index.maintain(
            self.store, self.settings.search.keyword_index_threshold
        )
        touch_sources(self.store, touched)
        chunkings.mark_built(self.store, self.chunking_id)
        from ingest.chunkings import with_outdated

        for ch in with_outdated(self.store):
            if ch.live:
                continue
            if ch.outdated:
                self.report.outdated_chunkings.append(f"{ch.spec} (version {ch.version})")
            elif ch.stale:
                self.report.stale_chunkings[ch.spec] = ch.total - ch.current
        self.report.seconds = time.perf_counter() - started
        return self.report

    def _catch_up(self, sources: list[Source], looked_at: int) -> set[int]:
        """Bring into the live chunking the indexed documents this run did not look at
        (other sources, files its ``--include``/``--exclude`` left out) that it has no
        chunks of: after a chunker change (``--chunker``, or a kb version whose chunker
        cuts differently) ``kb ingest notes/`` would otherwise leave every other source
        out of search. Each is handled as ``kb ingest FILE`` would: re-chunked
        (an unchanged file; audio from its cached transcript) or reloaded (a changed
        one). A document whose file or source folder is gone is left as it is (the run
        did not look at its folder, so it does not remove it) and counted in one note
        per source (:attr:`IngestReport.not_rechunked`), not as a failure: it stays out
        of search until its source is moved, removed or ingested again.
        Returns the ids of the sources touched."""
        from kb.store import chunkings

        todo = chunkings.documents_to_build(self.store, self.chunking_id)
        if not todo:
            return set()
        gone: dict[int, int] = {}  # source id -> documents whose file is gone
        work: list[tuple[int, str, Source]] = []
        for doc_id, abs_path, _, _ in todo:
            src = owner(sources, abs_path)
            if src is None:  # pragma: no cover - every document lies in a source
                continue
            if os.path.lexists(abs_path):
                work.append((doc_id, abs_path, src))
            else:
                gone[src.id] = gone.get(src.id, 0) + 1
        for src in sources:
            if src.id in gone:
                self.report.not_rechunked.append(_gone_note(src, gone[src.id]))
        self.progress.files_total(looked_at + len(work))
        touched: set[int] = set()
        for doc_id, abs_path, src in work:
            self.progress.file_started(src.display(abs_path))
            outcome = self._ingest_file(
                candidate(Path(src.path), Path(abs_path), is_root=src.kind == "folder"),
                src,
                abs_path,
                self.store.document(doc_id),
                {},
                {},
            )
            touched.add(src.id)
            self.report.files.append(outcome)
            self.progress.file_done(outcome)
        return touched

    def _missing_source(self, src: Source) -> None:
        """A known source whose folder or file is gone: reported, its documents kept."""
        out = FileOutcome(
            src.name,
            src.path,
            "failed",
            error=f"source folder or file {src.path} is missing; `kb sources move "
            f"{src.name} NEW_PATH` or `kb sources remove {src.name}`",
        )
        self.report.files.append(out)
        self.progress.file_done(out)

    def _ingest_scope(
        self, key: str, is_dir: bool, cands: list[Candidate], sources: list[Source]
    ) -> set[int]:
        """Ingest the files found under ``key``; remove documents under it that are gone.

        Only documents this run looked at can be removed: those under ``key`` that the
        run's include/exclude patterns select. A file that its source's own patterns
        leave out is not part of the source and is removed too.
        """
        known = self.store.documents_within(key)
        work: list[tuple[Candidate, Source, str]] = []
        for cand in cands:
            abs_path = f"{key}/{cand.rel}" if is_dir else key
            src = owner(sources, abs_path)
            if src is None:  # pragma: no cover - every scope lies in a source
                continue
            rel = src.relative(abs_path)
            if rel and not path_selected(rel, src.include, src.exclude):
                continue
            work.append((cand, src, abs_path))
        seen = {a for _, _, a in work}
        inc, exc = self.settings.ingest.include, self.settings.ingest.exclude

        def looked_at(abs_path: str) -> bool:
            rel = abs_path[len(key) + 1 :] if abs_path != key else Path(key).name
            return path_selected(rel, inc, exc)

        vanished = {a: d for a, d in known.items() if a not in seen and looked_at(a)}
        by_hash: dict[str, DocumentRow] = {
            d.content_hash: d for d in vanished.values() if d.content_hash and d.status == "indexed"
        }
        for cand, src, abs_path in work:
            self.progress.file_started(src.display(abs_path))
            outcome = self._ingest_file(cand, src, abs_path, known.get(abs_path), by_hash, vanished)
            self.report.files.append(outcome)
            self.progress.file_done(outcome)
        if vanished:
            self.store.delete_documents(d.id for d in vanished.values())
            for d in sorted(vanished.values(), key=lambda d: d.path):
                out = FileOutcome(d.path, d.root, "removed")
                self.report.files.append(out)
                self.progress.file_done(out)
        return {src.id for _, src, _ in work} | {
            s.id for s in sources if s.contains(key) or key == s.path
        }

    def _ingest_file(
        self,
        cand: Candidate,
        src: Source,
        abs_path: str,
        existing: DocumentRow | None,
        by_hash: dict[str, DocumentRow],
        vanished: dict[str, DocumentRow],
    ) -> FileOutcome:
        from ingest.loaders import loader_for

        display = src.display(abs_path)
        where = _Where(src, abs_path, display)
        loader = loader_for(cand.abs_path)
        doc_type = loader.doc_type if loader else "unknown"
        if cand.problem:
            return self._fail(where, doc_type, cand.problem)
        try:  # regular files only, opened without blocking (ingest.fileio)
            max_bytes = max_bytes_of(self.settings.ingest.max_file_mb)
            st, digest = stat_and_hash(cand.abs_path, cand.rel, max_bytes, cand.root)
        except IngestError as e:
            return self._fail(where, doc_type, e.reason)
        except OSError as e:
            return self._fail(where, doc_type, f"cannot read: {e.strerror or e}")
        info = self.chunker.info

        def current(doc: DocumentRow) -> bool:
            """The live chunking holds chunks of this document at this version."""
            row = self.store.conn.execute(
                "SELECT 1 FROM chunking_docs WHERE chunking_id = ? AND document_id = ? "
                "AND content_hash = ? AND error IS NULL",
                (self.chunking_id, doc.id, digest),
            ).fetchone()
            return row is not None

        def relabel(doc_id: int) -> None:
            """Point a stored document at this file (renamed source or moved file)."""
            self.store.move_document(
                doc_id,
                source_id=src.id,
                root=src.path,
                path=display,
                abs_path=abs_path,
                mtime=st.st_mtime,
            )

        if (
            existing is not None
            and existing.status == "indexed"
            and existing.content_hash == digest
            and current(existing)
        ):
            if existing.path != display:  # the source was renamed: only the label changes
                relabel(existing.id)
            return FileOutcome(display, src.path, "unchanged")
        if existing is None and digest in by_hash:
            moved = by_hash.pop(digest)
            vanished.pop(moved.abs_path or "", None)
            if current(moved):
                relabel(moved.id)
                return FileOutcome(display, src.path, "moved", moved_from=moved.path)
            self.store.delete_documents([moved.id])
        try:
            if loader is None:  # pragma: no cover - walk only yields supported files
                raise IngestError(display, "unsupported file type")
            doc = loader.load(cand.abs_path, display, self._load_context())
            drafts = self.chunker.chunk(doc)
            if not drafts:
                raise IngestError(display, "no text could be extracted; nothing to index")
        except IngestError as e:
            return self._fail(where, doc_type, e.reason, digest, st.st_size, st.st_mtime)
        except FileNotFoundError:
            return self._fail(where, doc_type, "file vanished during ingest")
        except OSError as e:
            return self._fail(where, doc_type, f"cannot read: {e.strerror or e}")
        lang, lang_note = document_language(doc)
        if lang_note:
            doc.warnings.append(lang_note)
        self.store.save_document(
            root=src.path,
            path=display,
            doc_type=doc.doc_type,
            content_hash=digest,
            size=st.st_size,
            mtime=st.st_mtime,
            chunks=drafts,
            chunker=info,
            tags=doc.tags,
            warnings=doc.warnings,
            meta=doc.meta,
            abs_path=abs_path,
            source_id=src.id,
            chunking_id=self.chunking_id,
            lang=lang,  # before the chunks: the keyword index stems them in it
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
        return FileOutcome(display, src.path, kind, chunks=len(drafts), warnings=doc.warnings)

    def _fail(
        self,
        where: _Where,
        doc_type: str,
        reason: str,
        digest: str | None = None,
        size: int | None = None,
        mtime: float | None = None,
    ) -> FileOutcome:
        self.store.mark_failed(
            root=where.source.path,
            path=where.display,
            doc_type=doc_type,
            error=reason,
            content_hash=digest,
            size=size,
            mtime=mtime,
            abs_path=where.abs_path,
            source_id=where.source.id,
        )
        return FileOutcome(where.display, where.source.path, "failed", error=reason)

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
        if self.store.count_chunks("pending", chunking="all") == 0:
            self._pending_since_flush = 0
            return
        n = embed_pending(
            self.store,
            self.embedder(),
            batch,
            on_batch=self._on_batch,
            sentences=self.settings.embedding.sentence_vectors,
        )
        self.report.chunks_embedded += n
        self._pending_since_flush = 0

    def _on_batch(self, n: int) -> None:
        self.progress.embedded(n)


def remembered_chunker(
    store: Store, settings: Settings, requested: str | None
) -> tuple[Settings, str | None]:
    """The KB's chunker: recorded (name and parameters) in the store's ``meta`` table.

    ``requested`` (``kb ingest --chunker NAME``) changes it, with that chunker's
    parameters from ``settings``, and returns a one-line note saying so when it differs
    from the recorded one. Without it the recorded chunker is used, whatever the
    configuration says; a KB without a record takes the configured chunker and
    records it. Returns the settings to ingest with and the note (or None).
    """
    import json
    from dataclasses import asdict

    from ingest.chunkers import CHUNKERS
    from ingest.chunkers.spec import parse_spec
    from kb.config import override

    raw = store.meta_get("chunker")
    if requested is None and raw is not None:
        rec = json.loads(raw)
        if "spec" in rec:  # a plug-in: its spec (name and params) is its identity
            return override(settings, **{"ingest.chunker": rec["spec"]}), None
        flags = {f"chunkers.{rec['name']}.{k}": v for k, v in rec["params"].items()}
        return override(settings, **{"ingest.chunker": rec["name"], **flags}), None
    spec = requested or settings.ingest.chunker
    parsed = parse_spec(spec)
    new: dict[str, Any]
    if parsed.name in CHUNKERS:
        flags = {f"chunkers.{parsed.name}.{k}": v for k, v in parsed.params.items()}
        try:
            settings = override(settings, **{"ingest.chunker": parsed.name, **flags})
        except Exception as e:  # noqa: BLE001 - a bad param of a built-in is a usage error
            raise UsageError(f"--chunker {spec!r}: {e}") from None
        new = {"name": parsed.name, "params": asdict(getattr(settings.chunkers, parsed.name))}
    else:  # a plug-in (installed entry point or path.py#function); loading it checks it
        from ingest.chunkers import make_chunker

        make_chunker(spec, settings)
        settings = override(settings, **{"ingest.chunker": spec})
        new = {"name": parsed.name, "params": dict(parsed.params), "spec": spec}
    note = None
    if raw is not None and json.loads(raw) != new:
        old = json.loads(raw)
        note = (
            f"chunker changed from {_describe(old)} to {_describe(new)}; documents are "
            "re-chunked (only texts not embedded before are embedded; the old chunking stays "
            "stored), and later ingests keep using it"
        )
    if raw is None or note is not None:
        with store.tx():
            store.meta_set("chunker", json.dumps(new, sort_keys=True))
    return settings, note


def _describe(rec: Mapping[str, Any]) -> str:
    params = rec.get("params") or {}
    assert isinstance(params, dict)
    inner = ", ".join(f"{k}={v}" for k, v in sorted(params.items()))
    return f"{rec['name']} ({inner})" if inner else str(rec["name"])


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
    """Ingest ``paths`` (folders are walked; files are taken as given; none: re-scan every
    known source) into ``store``."""
    return Ingestor(store, settings, embedder, transcriber, progress).run(paths)


def document_language(doc: LoadedDocument) -> tuple[str, str | None]:
    """A loaded document's language code and the note for a bad ``lang:`` value.

    The front matter's ``lang:`` (``de``, ``fr-CA``, ``German``) wins; an unknown value
    gives a one-line note naming the known languages, and the language is detected
    from the text (:func:`kb.lang.detect.detect`: stop-word hits over the sections'
    text, ``"und"`` without enough evidence), as it is without ``lang:``."""
    from kb.lang import KNOWN
    from kb.lang.detect import MAX_WORDS, detect, parse_lang

    front = doc.meta.get("front_matter") or {}
    note = None
    if "lang" in front:
        code = parse_lang(front["lang"])
        if code is not None:
            return code, None
        note = (
            f"front matter lang: {str(front['lang'])[:40]!r} is no known language "
            f"({', '.join(KNOWN)}); detected from the text instead"
        )
    text = " ".join(s.text for s in doc.sections[:200])[: MAX_WORDS * 12]
    return detect(text), note


def _gone_note(src: Source, n: int) -> str:
    """The note for ``n`` documents of ``src`` that a chunker change could not re-chunk
    because their files (or the whole source) are gone, with what to do."""
    from kb.types import plural

    docs = plural(n, "document")
    if not os.path.lexists(src.path):
        return (
            f"source {src.name!r} ({src.path}) is missing, so its {docs} could not be "
            f"re-chunked for the new chunker and are out of search; `kb sources move "
            f"{src.name} NEW_PATH` or `kb sources remove {src.name}`"
        )
    return (
        f"{docs} of source {src.name!r} could not be re-chunked for the new chunker: "
        f"their files are gone; `kb ingest {src.path}` removes them"
    )
