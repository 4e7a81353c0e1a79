"""Search options: one object for ``kb search``, ``kb ask`` and ``kb eval run``."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from kb.config import SearchSettings
from kb.errors import UsageError
from kb.types import DOC_TYPES

MODES = ("hybrid", "vector", "keyword")
FUSIONS = ("score", "rrf")
_DEFAULTS = SearchSettings()  # one source of truth for defaults; the TOML may override them


@dataclass(frozen=True)
class SearchOptions:
    """How to retrieve (see :mod:`kb.search` for the full contract).

    ``paths``: path prefixes or globs (``notes/``, ``**/*.md``, ``wiki/*``); a hit's
    document path must match one (:mod:`kb.search.filters`). ``types``: document types
    (md, txt, pdf, audio); a hit must have one of them. ``tags``: front-matter tags; a
    hit's document must carry at least one (case-insensitive). Different filter kinds
    combine with AND. ``min_score``: the refusal threshold on cosine similarity:
    ``kb ask`` answers only when some in-scope chunk reaches it
    (:mod:`kb.search.evidence`); it never removes a hybrid or keyword hit (ranking and
    refusal are separate), while vector mode, where the cosine is a hit's only
    evidence, drops hits below it; ``-1`` turns it off. ``candidates``: how many
    chunks each retriever contributes to fusion (at least ``k`` are always taken).
    ``fusion``: ``score`` (convex combination of max-normalised cosine and bm25) or
    ``rrf`` (reciprocal rank fusion, ``sum(w / (rrf_k + rank))``); ``vector_weight``,
    ``keyword_weight`` weigh the legs in both, ``rrf_k`` is RRF's constant
    (:mod:`kb.search.candidates`). ``sentence_weight`` (0 = off, at most 1) and
    ``rerank_depth``: the sentence rerank of the top candidates in modes hybrid and
    vector (:mod:`kb.search.rerank`). ``links``: how many documents the query or its
    best hit names by title get a chunk placed at rank 3 (modes hybrid and vector;
    :mod:`kb.search.links`; 0 = off).
    """

    k: int = _DEFAULTS.k
    mode: str = _DEFAULTS.mode
    paths: tuple[str, ...] = ()
    types: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    min_score: float = _DEFAULTS.min_score
    candidates: int = _DEFAULTS.candidates
    fusion: str = _DEFAULTS.fusion
    rrf_k: int = _DEFAULTS.rrf_k
    vector_weight: float = _DEFAULTS.vector_weight
    keyword_weight: float = _DEFAULTS.keyword_weight
    sentence_weight: float = _DEFAULTS.sentence_weight
    rerank_depth: int = _DEFAULTS.rerank_depth
    links: int = _DEFAULTS.links

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise UsageError(f"--mode {self.mode!r}: expected one of {', '.join(MODES)}")
        if self.k < 1:
            raise UsageError(f"-k {self.k}: must be at least 1")
        # ``--type PDF`` means pdf
        object.__setattr__(self, "types", tuple(t.strip().lower() for t in self.types))
        bad = [t for t in self.types if t not in DOC_TYPES]
        if bad:
            raise UsageError(
                f"--type {bad[0]!r}: unknown document type; expected one of {', '.join(DOC_TYPES)}"
            )
        if self.candidates < 1:
            raise UsageError(f"candidates {self.candidates}: must be at least 1")
        if self.fusion not in FUSIONS:
            raise UsageError(f"fusion {self.fusion!r}: expected one of {', '.join(FUSIONS)}")
        if self.vector_weight < 0 or self.keyword_weight < 0:
            raise UsageError("vector_weight and keyword_weight must be 0 or more")
        if self.rrf_k < 0:
            raise UsageError(f"rrf_k {self.rrf_k}: must be 0 or more")
        if not 0 <= self.sentence_weight <= 1:
            raise UsageError(f"sentence_weight {self.sentence_weight}: must be from 0 to 1")
        if self.rerank_depth < 1:
            raise UsageError(f"rerank_depth {self.rerank_depth}: must be at least 1")
        if self.links < 0:
            raise UsageError(
                f"[search] links {self.links}: must be 0 or more (0 turns title links off)"
            )

    @property
    def reranks(self) -> bool:
        """Whether the sentence rerank runs (:mod:`kb.search.rerank`)."""
        return self.mode != "keyword" and self.sentence_weight > 0 and self.rerank_depth > 1

    @property
    def scoped(self) -> bool:
        return bool(self.paths or self.types or self.tags)

    @classmethod
    def from_settings(cls, s: SearchSettings, **overrides: Any) -> SearchOptions:
        base = cls(
            k=s.k,
            mode=s.mode,
            min_score=s.min_score,
            candidates=s.candidates,
            fusion=s.fusion,
            rrf_k=s.rrf_k,
            vector_weight=s.vector_weight,
            keyword_weight=s.keyword_weight,
            sentence_weight=s.sentence_weight,
            rerank_depth=s.rerank_depth,
            links=s.links,
        )
        return replace(base, **{k: v for k, v in overrides.items() if v is not None})
