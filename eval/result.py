"""One query's stored outcome: the golden query as run, its hits, its answer.

This is what an ``eval_query_results`` row holds (see :mod:`eval.store`) and what
every metric is computed from, so metrics can always be recomputed from the rows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from eval.golden import GoldenQuery
from eval.matching import ResolvedSupport, StoredHit


@dataclass
class AnswerResult:
    """The parts of a :class:`kb.rag.AnswerRecord` the eval needs, plus its contexts as
    :class:`StoredHit` (so cited chunks can be matched to supports later)."""

    text: str = ""
    refused: bool = False
    refusal_reason: str | None = None
    grounded: bool = False
    citations: list[dict[str, Any]] = field(default_factory=list)
    invalid_citations: list[int] = field(default_factory=list)
    contexts: list[StoredHit] = field(default_factory=list)
    timings: dict[str, float | None] = field(default_factory=dict)
    truncated: Any = None
    interrupted: bool = False
    error: str | None = None
    model_hash: str | None = None
    prompt_version: str | None = None
    judge: dict[str, Any] | None = None
    # the verifier's per-sentence verdicts (kb.rag.verify.SentenceVerdict.to_dict())
    sentences: list[dict[str, Any]] = field(default_factory=list)
    mode: str | None = None
    contexts_cut: dict[str, Any] | None = None
    answerability: dict[str, Any] | None = None

    def cited_hits(self) -> list[StoredHit]:
        """The distinct contexts named by valid citations, in citation order."""
        out: list[StoredHit] = []
        seen: set[int] = set()
        for c in self.citations:
            n = int(c["n"])
            if 1 <= n <= len(self.contexts) and n not in seen:
                seen.add(n)
                out.append(self.contexts[n - 1])
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "refused": self.refused,
            "refusal_reason": self.refusal_reason,
            "grounded": self.grounded,
            "citations": self.citations,
            "invalid_citations": self.invalid_citations,
            "contexts": [h.to_dict() for h in self.contexts],
            "timings": self.timings,
            "truncated": self.truncated,
            "interrupted": self.interrupted,
            "error": self.error,
            "model_hash": self.model_hash,
            "prompt_version": self.prompt_version,
            "judge": self.judge,
            "sentences": self.sentences,
            "mode": self.mode,
            "contexts_cut": self.contexts_cut,
            "answerability": self.answerability,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> AnswerResult:
        return cls(
            text=str(d.get("text") or ""),
            refused=bool(d.get("refused")),
            refusal_reason=d.get("refusal_reason"),
            grounded=bool(d.get("grounded")),
            citations=list(d.get("citations") or []),
            invalid_citations=[int(x) for x in d.get("invalid_citations") or []],
            contexts=[StoredHit.from_dict(h) for h in d.get("contexts") or []],
            timings=dict(d.get("timings") or {}),
            truncated=d.get("truncated"),
            interrupted=bool(d.get("interrupted")),
            error=d.get("error"),
            model_hash=d.get("model_hash"),
            prompt_version=d.get("prompt_version"),
            judge=d.get("judge"),
            sentences=list(d.get("sentences") or []),
            mode=d.get("mode"),
            contexts_cut=d.get("contexts_cut"),
            answerability=d.get("answerability"),
        )


@dataclass
class QueryResult:
    """``error_stage`` is ``"retrieval"`` or ``"answer"`` when ``error`` is set."""

    query: GoldenQuery
    position: int
    hits: list[StoredHit] = field(default_factory=list)
    resolved: list[ResolvedSupport] | None = None
    answer: AnswerResult | None = None
    timings: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    error_stage: str | None = None

    @property
    def query_id(self) -> str:
        return self.query.id

    @property
    def retrieval_ok(self) -> bool:
        return not (self.error and self.error_stage == "retrieval")

    @property
    def answer_ok(self) -> bool:
        return self.answer is not None and self.error is None and not self.answer.error

    def query_json(self) -> dict[str, Any]:
        return {
            "golden": self.query.to_dict(),
            "resolved": None if self.resolved is None else [r.to_dict() for r in self.resolved],
        }

    @classmethod
    def from_row(
        cls,
        position: int,
        query: dict[str, Any],
        hits: list[dict[str, Any]],
        answer: dict[str, Any] | None,
        timings: dict[str, Any],
        error: str | None,
    ) -> QueryResult:
        golden = GoldenQuery.from_dict(query["golden"])
        res = query.get("resolved")
        return cls(
            query=golden,
            position=position,
            hits=[StoredHit.from_dict(h) for h in hits],
            resolved=None if res is None else [ResolvedSupport.from_dict(r) for r in res],
            answer=None if answer is None else AnswerResult.from_dict(answer),
            timings=timings,
            error=error,
            error_stage=timings.get("error_stage") if error else None,
        )
