"""One query's stored outcome: the golden query as run, its hits, its answer.

This is what an ``eval_query_results`` row holds (see :mod:`eval.store`) and what
every metric is computed from, so metrics can always be recomputed from the rows.

Answer fields added with the sentence verifier (``sentences``,
``citation_support_rate``, ``contexts_cut``, ``mode``, ``verifier``,
``answerability``) are optional: runs stored
before them load with empty/``None`` values. ``truncated`` used to hold the dict of
contexts cut to fit the prompt; it now holds ``"max_tokens"`` (the answer was cut by
the token limit) or ``None``, and the dict moved to ``contexts_cut``.
:meth:`AnswerResult.from_dict` reads both forms.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypeGuard

from eval.golden import GoldenQuery
from eval.matching import ResolvedSupport, StoredHit

VERDICTS = ("supported", "unsupported", "uncited")


@dataclass(frozen=True)
class Sentence:
    """One answer sentence as the verifier judged it (see ``AnswerRecord.sentences``).

    ``citations``: the valid cited context numbers (1-based into the answer's
    contexts); ``support``: verifier score in [0, 1] per cited number; ``verdict``:
    ``supported`` | ``unsupported`` | ``uncited``; ``score``: the best support among
    its citations (``None`` when uncited); ``evidence`` / ``suggested``: the
    supporting passage sentence (``n``, ``chunk_id``, ``path``, ``quote``,
    ``locator``) and a better-supporting context, each ``None`` when absent.
    """

    i: int
    text: str
    claim: str
    citations: tuple[int, ...] = ()
    support: dict[int, float] = field(default_factory=dict)
    verdict: str = "uncited"
    score: float | None = None
    evidence: dict[str, Any] | None = None
    suggested: dict[str, Any] | None = None

    @property
    def cited(self) -> bool:
        """Whether the sentence cites a context (an ``uncited`` verdict never does)."""
        return bool(self.citations) and self.verdict != "uncited"

    @property
    def supported(self) -> bool:
        return self.verdict == "supported"

    @classmethod
    def from_dict(cls, d: dict[str, Any], i: int = 0) -> Sentence:
        """Lenient: missing fields take their defaults, bad numbers are dropped."""
        support: dict[int, float] = {}
        for k, v in (d.get("support") or {}).items():
            if str(k).isdigit() and _is_num(v):
                support[int(k)] = float(v)
        cits = tuple(int(n) for n in d.get("citations") or [] if _is_int(n))
        verdict = str(d.get("verdict") or ("unsupported" if cits else "uncited"))
        text = str(d.get("text") or "")
        return cls(
            i=int(d["i"]) if _is_int(d.get("i")) else i,
            text=text,
            claim=str(d.get("claim") or text),
            citations=cits,
            support=support,
            verdict=verdict,
            score=float(d["score"]) if _is_num(d.get("score")) else None,
            evidence=d.get("evidence") if isinstance(d.get("evidence"), dict) else None,
            suggested=d.get("suggested") if isinstance(d.get("suggested"), dict) else None,
        )


def _is_int(v: Any) -> TypeGuard[int]:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_num(v: Any) -> TypeGuard[int | float]:
    return isinstance(v, int | float) and not isinstance(v, bool)


def support_rate(sentences: list[Sentence]) -> float | None:
    """Supported / cited sentences; ``None`` when no sentence cites a context."""
    cited = [s for s in sentences if s.cited]
    return None if not cited else sum(s.supported for s in cited) / len(cited)


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
    truncated: str | None = None
    interrupted: bool = False
    error: str | None = None
    model_hash: str | None = None
    prompt_version: str | None = None
    judge: dict[str, Any] | None = None
    sentences: list[dict[str, Any]] = field(default_factory=list)
    citation_support_rate: float | None = None
    contexts_cut: dict[str, Any] | None = None
    mode: str | None = None
    verifier: str | None = None
    answerability: dict[str, Any] | None = None
    #: :mod:`kb.rag.responsive`'s verdict dict (``None``: refused, or an older run)
    responsive: dict[str, Any] | None = None
    #: quote mode's selector rule, and the outcome (:func:`kb.rag.reasons.outcome`)
    selector: str | None = None
    outcome: dict[str, Any] | None = None

    def sentence_views(self) -> list[Sentence]:
        return [Sentence.from_dict(d, i) for i, d in enumerate(self.sentences)]

    def support_rate(self) -> float | None:
        """Share of cited sentences the verifier accepted, recomputed from
        ``sentences`` when the record has them, else the stored
        ``citation_support_rate``; ``None`` when refused or nothing was cited."""
        if self.refused:
            return None
        if self.sentences:
            return support_rate(self.sentence_views())
        return self.citation_support_rate

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
            "citation_support_rate": self.citation_support_rate,
            "contexts_cut": self.contexts_cut,
            "mode": self.mode,
            "verifier": self.verifier,
            "answerability": self.answerability,
            "responsive": self.responsive,
            "selector": self.selector,
            "outcome": self.outcome,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> AnswerResult:
        """Read a stored answer; ``truncated`` in its old dict form (contexts cut to fit
        the prompt) becomes ``contexts_cut``."""
        trunc = d.get("truncated")
        cut = d.get("contexts_cut")
        if isinstance(trunc, dict):
            cut = cut if isinstance(cut, dict) else trunc
            trunc = None
        rate = d.get("citation_support_rate")
        return cls(
            text=str(d.get("text") or ""),
            refused=bool(d.get("refused")),
            refusal_reason=d.get("refusal_reason"),
            grounded=bool(d.get("grounded")),
            citations=list(d.get("citations") or []),
            invalid_citations=[int(x) for x in d.get("invalid_citations") or []],
            contexts=[StoredHit.from_dict(h) for h in d.get("contexts") or []],
            timings=dict(d.get("timings") or {}),
            truncated=str(trunc) if trunc else None,
            interrupted=bool(d.get("interrupted")),
            error=d.get("error"),
            model_hash=d.get("model_hash"),
            prompt_version=d.get("prompt_version"),
            judge=d.get("judge"),
            sentences=[x for x in d.get("sentences") or [] if isinstance(x, dict)],
            citation_support_rate=float(rate) if _is_num(rate) else None,
            contexts_cut=cut if isinstance(cut, dict) else None,
            mode=d.get("mode"),
            verifier=d.get("verifier"),
            answerability=d.get("answerability")
            if isinstance(d.get("answerability"), dict)
            else None,
            responsive=d.get("responsive") if isinstance(d.get("responsive"), dict) else None,
            selector=d.get("selector") if isinstance(d.get("selector"), str) else None,
            outcome=d.get("outcome") if isinstance(d.get("outcome"), dict) else None,
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
