"""What one search returns: the ranked hits, how close the best came, and the timings."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from kb.search.evidence import has_evidence
from kb.types import Hit

TIMING_KEYS = ("embed", "vector", "keyword", "fuse", "rerank", "total")


@dataclass
class SearchResult:
    """Ranked hits (``len(hits) <= k``) with per-stage timings in seconds.

    ``best_cosine``: the highest cosine similarity of any in-scope chunk to the query
    (``None`` in keyword mode or when no chunk in scope has a vector); the input of
    the refusal decision :meth:`has_evidence`. ``query_vector``: the query's vector
    (``None`` in keyword mode), which ``kb ask``'s evidence check reuses.
    """

    query: str
    hits: list[Hit]
    timings: dict[str, float] = field(default_factory=dict)
    mode: str = "hybrid"
    best_cosine: float | None = None
    query_vector: np.ndarray | None = None
    #: the best sentence cosine among the sentence rerank's candidates (``None``
    #: without the rerank), the refusal decision's second input
    best_sentence: float | None = None
    #: query words no chunk holds -> the index's words searched instead
    #: (:mod:`kb.search.typos`)
    corrections: dict[str, list[str]] = field(default_factory=dict)

    def has_evidence(self, min_score: float) -> bool:
        """Whether ``kb ask`` should answer from these hits: :func:`kb.search.evidence.
        has_evidence` (hits exist and ``best_cosine >= min_score``, or a sentence
        clears it by the margin, or no cosine)."""
        return has_evidence(self, min_score)

    @property
    def worded(self) -> int:
        """How many hits the keyword leg found (it may leave out a word that half the
        KB holds when a rarer one matches, :func:`kb.search.keyword.useful_terms`); 0
        when it found none of them: they are only near in meaning."""
        return sum(1 for h in self.hits if "keyword" in h.scores)

    def found_by(self) -> str:
        """What the hits are, in words, for a note under a list below the refusal
        threshold (``kb search``, the web search page): all, some or none of them
        found by the query's words (:attr:`worded`), the rest only near in meaning."""
        n = self.worded
        if n == 0:
            return "none of these hits was found by your words; they are only near in meaning"
        if n == len(self.hits):
            return "these hits match your words"
        return f"{n} of these hits were found by your words, the others only by meaning"

    def to_dict(self, k: int | None = None) -> dict[str, Any]:
        """The ``kb search --json`` shape: ``{query, mode, k, timings, best_cosine,
        best_sentence, corrections, hits}``."""
        return {
            "query": self.query,
            "mode": self.mode,
            "k": k,
            "timings": {name: round(v, 6) for name, v in self.timings.items()},
            "best_cosine": None if self.best_cosine is None else round(self.best_cosine, 6),
            "best_sentence": (None if self.best_sentence is None else round(self.best_sentence, 6)),
            "corrections": dict(self.corrections),
            "hits": [h.to_dict() for h in self.hits],
        }
