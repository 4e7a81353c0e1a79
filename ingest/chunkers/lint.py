"""Lint of a whole chunking: :func:`~ingest.chunkers.check.check_chunking` over many
documents, totalled, for ``kb chunkers check`` and a chunker sweep's leaderboard.

Per chunk (rules in :mod:`ingest.chunkers.check`): longer than the embedder reads
(all-MiniLM-L6-v2 reads 256 word pieces, ``[CLS]`` and ``[SEP]`` included, and drops
the rest silently), crossing a heading boundary, under 32 tokens, a broken code fence.
Per document: content characters no chunk covers. Token counts are the drafts' own
(the embedder's tokenizer). Totals: ``chunks`` and each lint count add up over the
documents; ``coverage = covered content / content`` pooled over all documents (1.0
without content); ``flagged`` = chunks with at least one lint.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ingest.chunkers.check import SHORT_TOKENS, ChunkingCheck, check_chunking
from kb.types import ChunkDraft, LoadedDocument

EMBEDDER_READS = 256  # all-MiniLM-L6-v2's max_seq_length, when the model does not say
LINTS = ("too_long", "crosses_heading", "short", "broken_fence")


def read_limit(embedding_model: str) -> int:
    """Tokens of its own a chunk may have before the embedder drops the rest: the
    model's ``max_seq_length`` (``sentence_bert_config.json``; 256 for all-MiniLM-L6-v2)
    minus 2 for ``[CLS]`` and ``[SEP]`` (254 for the bundled model)."""
    from kb.backends.bundled import embedding_model_dir

    folder = embedding_model_dir() if embedding_model == "bundled" else Path(embedding_model)
    reads = EMBEDDER_READS
    try:
        cfg = json.loads((folder / "sentence_bert_config.json").read_text(encoding="utf-8"))
        reads = int(cfg.get("max_seq_length", reads))
    except (OSError, ValueError, TypeError):
        pass
    return reads - 2


@dataclass
class LintReport:
    """Totals of a chunking's lint (module docs) and the per-document checks."""

    read_limit: int
    documents: int = 0
    chunks: int = 0
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(LINTS, 0))
    flagged: int = 0
    content: int = 0
    uncovered: int = 0
    checks: list[ChunkingCheck] = field(default_factory=list)

    @property
    def coverage(self) -> float:
        return (self.content - self.uncovered) / self.content if self.content else 1.0

    def add(
        self, doc: LoadedDocument, drafts: Sequence[ChunkDraft], min_tokens: int = SHORT_TOKENS
    ) -> ChunkingCheck:
        """Check one document's chunks, fold them into the totals, return the check."""
        c = check_chunking(doc, drafts, self.read_limit, min_tokens)
        self.checks.append(c)
        self.documents += 1
        self.chunks += c.chunks
        for key in LINTS:
            self.counts[key] += len(c.lint.get(key, []))
        self.flagged += len({k for key in LINTS for k in c.lint.get(key, [])})
        self.uncovered += c.uncovered
        self.content += c.content
        return c

    def to_dict(self) -> dict[str, Any]:
        return {
            "read_limit": self.read_limit,
            "documents": self.documents,
            "chunks": self.chunks,
            **self.counts,
            "flagged_chunks": self.flagged,
            "uncovered_chars": self.uncovered,
            "coverage": round(self.coverage, 6),
        }


def lint_chunking(
    docs: Iterable[tuple[LoadedDocument, Sequence[ChunkDraft]]],
    read_limit: int,
    min_tokens: int = SHORT_TOKENS,
) -> LintReport:
    """Check each ``(document, its drafts)`` pair and total the lint."""
    rep = LintReport(read_limit)
    for doc, drafts in docs:
        rep.add(doc, drafts, min_tokens)
    return rep
