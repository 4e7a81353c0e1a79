"""What an ingest did, per file and in total, and the progress callbacks it reports to."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

OUTCOMES = ("added", "updated", "rechunked", "moved", "unchanged", "removed", "failed")


@dataclass
class FileOutcome:
    path: str
    root: str
    outcome: str  # one of OUTCOMES
    chunks: int = 0
    error: str | None = None
    warnings: list[str] = field(default_factory=list)
    moved_from: str | None = None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"path": self.path, "root": self.root, "outcome": self.outcome}
        if self.chunks:
            d["chunks"] = self.chunks
        if self.error:
            d["error"] = self.error
        if self.warnings:
            d["warnings"] = self.warnings
        if self.moved_from:
            d["moved_from"] = self.moved_from
        return d


@dataclass
class IngestReport:
    files: list[FileOutcome] = field(default_factory=list)
    chunks_embedded: int = 0
    vectors_removed: int = 0
    audio_seconds: float = 0.0
    seconds: float = 0.0
    # stored chunkings (not live) that this run left out of date: spec -> documents
    stale_chunkings: dict[str, int] = field(default_factory=dict)
    # stored chunkings an older version of their chunker made (kb.store.chunkings)
    outdated_chunkings: list[str] = field(default_factory=list)
    # one line per source with documents a chunker change could not re-chunk (gone)
    not_rechunked: list[str] = field(default_factory=list)
    # what this run did to the ANN vector index (kb.store.ann.maintain), if anything
    ann_index: str | None = None
    # what it did to the derived keyword index (kb.store.keyword_index.maintain)
    keyword_index: str | None = None

    def count(self, outcome: str) -> int:
        return sum(1 for f in self.files if f.outcome == outcome)

    @property
    def failed(self) -> list[FileOutcome]:
        return [f for f in self.files if f.outcome == "failed"]

    @property
    def exit_code(self) -> int:
        """0 when every file succeeded, 1 when at least one failed."""
        return 1 if self.failed else 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "counts": {o: self.count(o) for o in OUTCOMES},
            "chunks_embedded": self.chunks_embedded,
            "vectors_removed": self.vectors_removed,
            "audio_seconds": round(self.audio_seconds, 2),
            "seconds": round(self.seconds, 3),
            "stale_chunkings": dict(self.stale_chunkings),
            "outdated_chunkings": list(self.outdated_chunkings),
            "not_rechunked": list(self.not_rechunked),
            "ann_index": self.ann_index,
            "keyword_index": self.keyword_index,
            "exit_code": self.exit_code,
            "files": [f.to_dict() for f in self.files if f.outcome != "unchanged"],
        }


class IngestProgress:
    """Callbacks the pipeline reports to; the default does nothing."""

    def files_total(self, n: int) -> None:
        """``n`` candidate files were found."""

    def file_started(self, path: str) -> None:
        """Loading of ``path`` begins."""

    def file_done(self, outcome: FileOutcome) -> None:
        """One file finished (any outcome, including failure)."""

    def embed_total(self, n: int) -> None:
        """``n`` chunks are waiting to be embedded (may grow while files load)."""

    def embedded(self, n: int) -> None:
        """``n`` more chunks were embedded."""

    def audio_seconds(self, seconds: float) -> None:
        """``seconds`` more of audio were transcribed."""
