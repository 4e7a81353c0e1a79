"""Retrieval's refusal rule for ``kb ask``, and what a refusal before the model reports."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def nearest_of(result: Any) -> dict[str, Any]:
    """The best hit of a search ``kb ask`` refused to answer from
    (:attr:`kb.rag.record.AnswerRecord.nearest`): where it is, and how close the
    closest passage and sentence came, rounded to 3 places."""
    top = result.hits[0]

    def r3(x: float | None) -> float | None:
        return None if x is None else round(float(x), 3)

    return {
        "path": top.path,
        "locator": top.locator.to_dict(),
        "cosine": r3(getattr(result, "best_cosine", None)),
        "sentence": r3(getattr(result, "best_sentence", None)),
    }


def has_evidence(
    result: Any,
    min_score: float,
    says_every_term: Callable[[], bool],
    names_section: Callable[[], bool],
) -> bool:
    """Retrieval's refusal rule for ``kb ask`` (:func:`kb.search.evidence.ask_passes`).
    Results without ``best_cosine`` (fakes, keyword mode) pass."""
    from kb.search.evidence import ask_passes

    best_cosine = getattr(result, "best_cosine", None)
    best_sentence = getattr(result, "best_sentence", None)
    return ask_passes(best_cosine, min_score, best_sentence, says_every_term, names_section)
