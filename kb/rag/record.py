"""The answer record and the events an :class:`~kb.rag.stream.AnswerStream` yields.

Events, in order: one :class:`SourcesEvent` (the retrieved passages ``[#1]..[#k]``,
as soon as retrieval has found passages worth answering from; none when it found
none; :meth:`kb.rag.AskPipeline.ask` may hand it to its caller instead), any number
of :class:`TokenEvent` (text pieces as the model writes them), each
:class:`CitationEvent` right after the token that closed its ``]`` (one per
occurrence, repeats included), a :class:`VerdictEvent` for each answer
sentence once the verifier has judged it (shortly after the sentence ended; the last
ones may follow the final token), then exactly one :class:`DoneEvent` carrying the
:class:`AnswerRecord`.

Definitions used by the record:

- ``refused``: no hit passed the threshold (``refusal_reason="no_hits"``; the model
  was never loaded) or the whole answer is the refusal phrase
  (``refusal_reason="model"``), see :func:`is_refusal`.
- ``citations``: the distinct valid ``[#n]`` (``1 <= n <= k``) in order of first
  appearance, each resolved to its chunk; ``invalid_citations``: the distinct
  out-of-range ``n``, never linked to a source.
- ``refusal_reason``: ``no_hits`` (retrieval found nothing), ``no_support`` (the
  passages do not hold the question's words together, see
  :mod:`kb.rag.answerability`; the model was not run) or ``model`` (the model wrote
  the refusal phrase).
- ``sentences``: the verifier's verdict on every answer sentence
  (:class:`kb.rag.verify.SentenceVerdict`), empty when verification is off.
- ``grounded``: not refused, at least one valid citation, (with verification on)
  every sentence ``supported`` by one of its citations, and ``responsive``: the answer
  gives what the question asks (:mod:`kb.rag.responsive`; a *partial* or *not
  responsive* answer is not grounded). An answer without a valid citation is
  *ungrounded* and must never be shown as cited.
- ``responsive``: the verdict of :func:`kb.rag.responsive.judge` (``None`` for a
  refusal).
- ``nearest``: for a ``no_hits`` refusal with hits below the threshold, the best of
  them, so the user can look: its ``path``, ``locator`` (as citations give it, with
  its ``display``), and the ``cosine``
  of the closest passage and ``sentence`` of the closest sentence in the search's
  scope (either ``None`` when not measured); ``None`` otherwise.
- ``truncated``: ``"max_tokens"`` when generation hit ``--max-tokens``; the text is
  then trimmed to its last complete sentence. ``contexts_cut`` records the passages
  the context window forced out (dropped chunk ids, the one cut short).
"""

from __future__ import annotations

import string
from dataclasses import dataclass, field
from typing import Any

from kb.rag.reasons import outcome
from kb.rag.responsive import Responsiveness
from kb.rag.trace import trace
from kb.rag.verify import Evidence, SentenceVerdict, support_rate
from kb.types import Hit

_STRIP = string.whitespace + string.punctuation + "“”‘’«»…"


def normalise_refusal(text: str) -> str:
    """Lower case, inner white space folded, punctuation/white space trimmed at both ends."""
    return " ".join(text.strip(_STRIP).lower().split())


def is_refusal(text: str, phrase: str) -> bool:
    """True when ``text`` is the refusal phrase, ignoring case and surrounding
    punctuation or white space (``"Not in context."`` counts; ``"It is not in
    context"`` does not)."""
    return bool(normalise_refusal(phrase)) and normalise_refusal(text) == normalise_refusal(phrase)


@dataclass(frozen=True)
class SourceRef:
    """A valid citation resolved to the context it names."""

    n: int
    chunk_id: int
    path: str
    locator: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return {"n": self.n, "chunk_id": self.chunk_id, "path": self.path, "locator": self.locator}


@dataclass
class AnswerRecord:
    """Everything about one answer; the same object for the CLI, eval and tests."""

    question: str
    text: str = ""
    contexts: list[Hit] = field(default_factory=list)
    citations: list[SourceRef] = field(default_factory=list)
    invalid_citations: list[int] = field(default_factory=list)
    grounded: bool = False
    refused: bool = False
    refusal_reason: str | None = None
    truncated: str | None = None
    contexts_cut: dict[str, Any] | None = None
    sentences: list[SentenceVerdict] = field(default_factory=list)
    answerability: dict[str, Any] | None = None
    nearest: dict[str, Any] | None = None
    mode: str = "generate"
    verifier: str | None = None
    quote_choice: list[int] | None = None
    timings: dict[str, float | None] = field(default_factory=dict)
    model_hash: str | None = None
    model_path: str | None = None
    prompt_version: str | None = None
    grammar: bool = False
    interrupted: bool = False
    error: str | None = None
    #: does the answer give what the question asks (:mod:`kb.rag.responsive`)? ``None``
    #: for a refusal
    responsive: Responsiveness | None = None
    #: quote mode: the selector rule (:mod:`kb.rag.rules`) whose candidates were offered
    selector: str | None = None
    #: the search's min-score, for a ``no_hits`` refusal's reason
    min_score: float | None = None
    #: the answer rules turned off (``[answer] rules_off``)
    rules_off: list[str] = field(default_factory=list)
    #: a refusal: the passages retrieval found, which the evidence check read (no context
    #: went to the model, so ``contexts`` is empty); shown by the trace
    retrieved: list[Hit] = field(default_factory=list)

    @property
    def citation_support_rate(self) -> float | None:
        """Supported cited sentences / cited sentences (None: none cited or not verified)."""
        return support_rate(self.sentences)

    @property
    def unsupported(self) -> list[SentenceVerdict]:
        return [v for v in self.sentences if v.verdict != "supported"]

    def evidence_by_n(self) -> dict[int, Evidence]:
        """Per cited passage number, the best evidence of a *supported* sentence (the
        quote Sources shows under that source); of equal scores, the later sentence's:
        a quote written after the sentence it points back to, a command after its
        lead-in and an answer after the note's question are what answers; a quoted
        heading (a journal entry's date) only when no sentence of the passage is. A
        passage that only unsupported sentences cite has none: their closest sentence
        is not evidence, and showing it under Sources would read as if it were."""
        best: dict[int, Evidence] = {}

        def rank(e: Evidence) -> tuple[bool, float]:
            return (not e.heading, e.score)

        for v in self.sentences:
            e = v.evidence
            if v.verdict != "supported" or e is None:
                continue
            if e.n not in best or rank(e) >= rank(best[e.n]):
                best[e.n] = e
        return best

    def to_dict(self) -> dict[str, Any]:
        """The record as JSON; ``outcome`` is :func:`kb.rag.reasons.outcome` of it (what
        the CLI, the web page and MCP all say)."""
        out: dict[str, Any] = {
            "question": self.question,
            "text": self.text,
            "contexts": [{"n": i, **h.to_dict()} for i, h in enumerate(self.contexts, 1)],
            "citations": [c.to_dict() for c in self.citations],
            "invalid_citations": list(self.invalid_citations),
            "grounded": self.grounded,
            "refused": self.refused,
            "refusal_reason": self.refusal_reason,
            "truncated": self.truncated,
            "contexts_cut": self.contexts_cut,
            "mode": self.mode,
            "quote_choice": self.quote_choice,
            "verifier": self.verifier,
            "sentences": [v.to_dict() for v in self.sentences],
            "citation_support_rate": self.citation_support_rate,
            "answerability": self.answerability,
            "nearest": self.nearest,
            "timings": {k: (None if v is None else round(v, 6)) for k, v in self.timings.items()},
            "model_hash": self.model_hash,
            "model_path": self.model_path,
            "prompt_version": self.prompt_version,
            "grammar": self.grammar,
            "interrupted": self.interrupted,
            "error": self.error,
            "responsive": None if self.responsive is None else self.responsive.to_dict(),
            "selector": self.selector,
            "min_score": self.min_score,
            "retrieved": [
                {"n": n, "chunk_id": h.chunk_id, "path": h.path, "score": round(h.score, 6)}
                | {"locator": h.locator.to_dict()}
                for n, h in enumerate(self.retrieved, 1)
            ],
        }
        out["outcome"] = outcome(out).to_dict()
        out["trace"] = trace(out, self.rules_off)
        return out


@dataclass(frozen=True)
class SourcesEvent:
    """The retrieved passages, numbered ``[#1]..[#k]`` as the answer cites them, sent
    before the evidence check, the model load and the first token (a person reads where
    the answer will come from while the model decides). ``retrieval_s`` is the search's
    time and ``at_s`` the time the event was made, both from the start of the ask."""

    hits: tuple[Hit, ...]
    retrieval_s: float = 0.0
    at_s: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "event": "sources",
            "sources": [{"n": i, **h.to_dict()} for i, h in enumerate(self.hits, 1)],
            "retrieval_s": round(self.retrieval_s, 6),
            "at_s": round(self.at_s, 6),
        }


@dataclass(frozen=True)
class TokenEvent:
    text: str

    def to_dict(self) -> dict[str, Any]:
        return {"event": "token", "text": self.text}


@dataclass(frozen=True)
class CitationEvent:
    """``hit`` is the cited context, or ``None`` when ``n`` is out of range (invalid)."""

    n: int
    valid: bool
    hit: Hit | None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"event": "citation", "n": self.n, "valid": self.valid}
        if self.hit is not None:
            out["chunk_id"] = self.hit.chunk_id
            out["path"] = self.hit.path
            out["locator"] = self.hit.locator.to_dict()
        return out


@dataclass(frozen=True)
class VerdictEvent:
    """The verifier's verdict on one answer sentence, as soon as the sentence ended."""

    verdict: SentenceVerdict

    def to_dict(self) -> dict[str, Any]:
        return {"event": "verdict", **self.verdict.to_dict()}


@dataclass(frozen=True)
class DoneEvent:
    record: AnswerRecord

    def to_dict(self) -> dict[str, Any]:
        return {"event": "done", "answer": self.record.to_dict()}


Event = SourcesEvent | TokenEvent | CitationEvent | VerdictEvent | DoneEvent
