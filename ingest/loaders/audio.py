"""Audio loader: transcribe with the configured :class:`~kb.backends.transcriber.Transcriber`,
one section per transcript segment.

- Sections carry ``seconds_start``/``seconds_end``; the document text is the segment
  texts joined by single spaces and ``char_start``/``char_end`` index it.
- Transcripts are cached as JSON in
  ``<cache_dir>/transcripts/<sha256 of the file>-<model id slug>.json`` (written to a
  temporary file, then renamed), so re-chunking or re-ingesting the same bytes with the
  same transcriber never transcribes again. The model id includes language and beam
  size. The transcriber factory is called for its ``model_id`` (WhisperTranscriber loads
  its model lazily, so that is cheap); ``transcribe`` runs only on a cache miss.
- Failures raise :class:`IngestError`: an empty file, bytes PyAV cannot decode, a
  0-second stream, or audio in which no speech was recognised.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import re
from pathlib import Path
from typing import Any

from ingest.fileio import stat_and_hash
from ingest.loaders.base import LoadContext
from ingest.loaders.textio import require_nonempty
from kb.errors import DiskFullError, IngestError
from kb.store.health import disk_full_message
from kb.types import LoadedDocument, Section, Span

CACHE_VERSION = 1


def file_sha256(path: Path) -> str:
    """The transcript cache key: the audio file's SHA-256, read without blocking."""
    return stat_and_hash(path, path.name)[1]


def cache_path(cache_dir: Path, digest: str, model_id: str) -> Path:
    """``transcripts/<sha256>-<slug>.json``; the slug is readable and ends in a short hash
    of the full model id, so two ids never share a file."""
    slug = re.sub(r"[^a-z0-9]+", "-", model_id.lower()).strip("-")[:48]
    tag = hashlib.sha1(model_id.encode()).hexdigest()[:8]
    return cache_dir / "transcripts" / f"{digest}-{slug}-{tag}.json"


def _read_cache(path: Path, model_id: str) -> tuple[float, list[tuple[float, float, str]]] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("version") != CACHE_VERSION or data.get("model_id") != model_id:
            return None
        segs = [(float(s["start"]), float(s["end"]), str(s["text"])) for s in data["segments"]]
        return float(data["duration"]), segs
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def _write_cache(
    path: Path, model_id: str, duration: float, segs: list[tuple[float, float, str]]
) -> None:
    data: dict[str, Any] = {
        "version": CACHE_VERSION,
        "model_id": model_id,
        "duration": duration,
        "segments": [{"start": s, "end": e, "text": t} for s, e, t in segs],
    }
    tmp = path.with_name(f"{path.name}.tmp{os.getpid()}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")
        os.replace(tmp, path)
    except OSError as e:
        tmp.unlink(missing_ok=True)
        if e.errno == errno.ENOSPC:  # a full disk stops the ingest with one line
            home = path.parent.parent.parent
            msg = disk_full_message(home, f"the transcript cache {path.name}")
            raise DiskFullError(msg) from None
        raise


def sections_from(segs: list[tuple[float, float, str]]) -> list[Section]:
    """One section per non-empty segment; offsets index the space-joined transcript."""
    out: list[Section] = []
    offset = 0
    for start, end, raw in segs:
        text = raw.strip()
        if not text:
            continue
        if out:
            offset += 1
        span = Span(seconds_start=start, seconds_end=end)
        out.append(Section(text, (), span, offset, offset + len(text)))
        offset += len(text)
    return out


class AudioLoader:
    doc_type = "audio"

    def load(self, abs_path: Path, rel_path: str, ctx: LoadContext) -> LoadedDocument:
        require_nonempty(abs_path, rel_path)
        transcriber = ctx.transcriber()
        model_id = transcriber.model_id
        cached_at = (
            cache_path(ctx.cache_dir, file_sha256(abs_path), model_id) if ctx.cache_dir else None
        )
        cached = _read_cache(cached_at, model_id) if cached_at else None
        if cached is not None:
            duration, segs = cached
        else:
            covered = [0.0]

            def progress(seconds: float) -> None:
                covered[0] += seconds
                if ctx.on_audio_progress is not None:
                    ctx.on_audio_progress(seconds)

            try:
                result = transcriber.transcribe(abs_path, on_progress=progress)
            except IngestError as e:
                raise IngestError(rel_path, e.reason) from None
            segs = [(s.start, s.end, s.text) for s in result]
            duration = round(max([covered[0], *(e for _, e, _ in segs)]), 3)
            if cached_at is not None:
                _write_cache(cached_at, model_id, duration, segs)
        sections = sections_from(segs)
        if not sections:
            raise IngestError(
                rel_path, f"no speech recognised in {duration:.1f} s of audio; nothing to index"
            )
        return LoadedDocument(
            path=rel_path,
            doc_type=self.doc_type,
            sections=sections,
            meta={"duration_seconds": duration, "transcriber": model_id},
        )
