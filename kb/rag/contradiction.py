"""A contradiction one rule found between a question (or a claim) and its evidence."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Contradiction:
    """A question word its best evidence contradicts: ``passage`` is the antonym the
    sentence says instead, ``None`` for a negation the sentences lack."""

    question: str
    passage: str | None = None
    #: the id of the rule that found it (:mod:`kb.rag.rules`), set by the evidence check
    rule: str = field(default="", compare=False)

    def to_dict(self) -> dict[str, Any]:
        return {"question": self.question, "passage": self.passage, "rule": self.rule}
