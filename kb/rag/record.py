"""The answer record and the events an :class:`~kb.rag.stream.AnswerStream` yields.

Events, in order: any number of :class:`TokenEvent` (text pieces as the model
writes them), each :class:`CitationEvent` right after the token that closed its
``]`` (one per occurrence, repeats included), then exactly one :class:`DoneEvent`
carrying the :class:`AnswerRecord`.

Definitions used by the record:

- ``refused``: no hit passed the threshold (``refusal_reason="no_hits"``; the model
  was never loaded) or the whole answer is the refusal phrase
  (``refusal_reason="model"``), see :func:`is_refusal`.
- ``citations``: the distinct valid ``[#n]`` (``1 <= n <= k``) in order of first
  appearance, each resolved to its chunk; ``invalid_citations``: the distinct
  out-of-range ``n``, never linked to a source.
- ``grounded``: at least one valid citation and not refused. An answer without a
  valid citation is *ungrounded* and must never be shown as cited.
"""

from __future__ import annotations

import string
from dataclasses import dataclass, field
from typing import Any

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
    truncated: dict[str, Any] | None = None
    timings: dict[str, float | None] = field(default_factory=dict)
    model_hash: str | None = None
    model_path: str | None = None
    prompt_version: str | None = None
    grammar: bool = False
    interrupted: bool = False
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "question": self.question,
            "text": self.text,
            "contexts": [{"n": i, **h.to_dict()} for i, h in enumerate(self.contexts, 1)],
            "citations": [c.to_dict() for c in self.citations],
            "invalid_citations": list(self.invalid_citations),
            "grounded": self.grounded,
            "refused": self.refused,
            "refusal_reason": self.refusal_reason,
            "truncated": self.truncated,
            "timings": {k: (None if v is None else round(v, 6)) for k, v in self.timings.items()},
            "model_hash": self.model_hash,
            "model_path": self.model_path,
            "prompt_version": self.prompt_version,
            "grammar": self.grammar,
            "interrupted": self.interrupted,
            "error": self.error,
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
class DoneEvent:
    record: AnswerRecord

    def to_dict(self) -> dict[str, Any]:
        return {"event": "done", "answer": self.record.to_dict()}


Event = TokenEvent | CitationEvent | DoneEvent
