"""Golden set data types (format v1): supports, answer checks, queries, sets.

See :mod:`eval.golden` for reading files and :mod:`eval.golden_validate` for the rules.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SCHEMA_VERSION = 1
CONFLICT_RULES = ("cite_newer", "cite_both", "acknowledge_both")
QUERY_KEYS = {
    "id",
    "question",
    "answerable",
    "category",
    "difficulty",
    "tags",
    "supports",
    "support_groups",
    "answer",
    "conflict_rule",
    "pending",
}
SUPPORT_KEYS = {"path", "heading", "snippet", "page", "lines", "seconds", "grade"}


@dataclass(frozen=True)
class Support:
    """Gold evidence: a document path plus optional anchors that narrow it to chunks."""

    path: str
    heading: str | None = None
    snippet: str | None = None
    page: int | None = None
    lines: tuple[int, int] | None = None
    seconds: tuple[float, float] | None = None
    grade: int = 1
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"path": self.path}
        for key in ("heading", "snippet", "page"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        if self.lines is not None:
            out["lines"] = list(self.lines)
        if self.seconds is not None:
            out["seconds"] = list(self.seconds)
        if self.grade != 1:
            out["grade"] = self.grade
        out.update(self.extra)
        return out


@dataclass(frozen=True)
class AnswerCheck:
    """Checks on the answer text, all case-insensitive substring tests."""

    any_of: tuple[str, ...] = ()
    must_contain: tuple[str, ...] = ()
    forbidden: tuple[str, ...] = ()

    @property
    def empty(self) -> bool:
        return not (self.any_of or self.must_contain or self.forbidden)

    def to_dict(self) -> dict[str, Any]:
        return {
            k: list(getattr(self, k))
            for k in ("any_of", "must_contain", "forbidden")
            if getattr(self, k)
        }


@dataclass(frozen=True)
class GoldenQuery:
    id: str
    question: str
    answerable: bool = True
    category: str | None = None
    difficulty: str | None = None
    tags: tuple[str, ...] = ()
    supports: tuple[Support, ...] = ()
    support_groups: tuple[tuple[int, ...], ...] | None = None
    answer: AnswerCheck | None = None
    conflict_rule: str | None = None
    pending: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    def groups(self) -> tuple[tuple[int, ...], ...]:
        """The support groups; without ``support_groups`` all supports form one group
        (any one of them fully supports the query)."""
        if self.support_groups:
            return self.support_groups
        return (tuple(range(len(self.supports))),) if self.supports else ()

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id,
            "question": self.question,
            "answerable": self.answerable,
        }
        if self.category is not None:
            out["category"] = self.category
        if self.difficulty is not None:
            out["difficulty"] = self.difficulty
        if self.tags:
            out["tags"] = list(self.tags)
        out["supports"] = [s.to_dict() for s in self.supports]
        if self.support_groups is not None:
            out["support_groups"] = [list(g) for g in self.support_groups]
        if self.answer is not None and not self.answer.empty:
            out["answer"] = self.answer.to_dict()
        if self.conflict_rule is not None:
            out["conflict_rule"] = self.conflict_rule
        if self.pending:
            out["pending"] = True
        out.update(self.extra)
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any], where: str = "stored query") -> GoldenQuery:
        """Parse one query object (validating it); ``where`` prefixes error messages."""
        from eval.golden_validate import Where, parse_query

        return parse_query(data, Where(where, None, {}), 0)


@dataclass(frozen=True)
class GoldenSet:
    path: Path
    queries: tuple[GoldenQuery, ...]
    sha256: str
    schema_version: int = SCHEMA_VERSION
    corpus: str | None = None
    format: str = "yaml"

    @property
    def corpus_dir(self) -> Path | None:
        """The absolute source folder support paths are relative to (``corpus``, resolved
        against the golden file's folder), or ``None`` when the file does not say."""
        if self.corpus is None:
            return None
        return (self.path.parent / self.corpus).resolve()

    def by_id(self) -> dict[str, GoldenQuery]:
        return {q.id: q for q in self.queries}
