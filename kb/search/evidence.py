"""The refusal decision: is there anything in the KB worth answering from?

Ranking decides *which* chunks come first; this module decides whether the best of
them is close enough to the question that ``kb ask`` should run its model at all.
The two are separate on purpose: a keyword match of a rare word (a name, a code) is
a good search hit even when the embedding model sees little in common, but a
question nothing in the KB resembles should be refused without spending seconds
on generation.

Rule (``min_score`` is ``[search] min_score``, tuned by ``kb eval tune``)::

    has_evidence(result, min_score) =
        result.hits is not empty
        and (min_score <= -1                      # the check is off
             or result.best_cosine is None         # keyword mode: no cosine to judge by
             or result.best_cosine >= min_score)

``best_cosine`` is the highest cosine similarity of *any* chunk in the search's scope
to the query (not only of the returned hits), so the decision does not depend on
``k``, the fusion settings or which leg ranked what. Chunks without a vector yet do
not count towards it.
"""

from __future__ import annotations

from typing import Any


def passes(best_cosine: float | None, min_score: float) -> bool:
    """The threshold part of the rule: ``True`` when the check is off, there is no
    cosine to judge (keyword mode) or ``best_cosine >= min_score``."""
    return min_score <= -1 or best_cosine is None or best_cosine >= min_score


def has_evidence(result: Any, min_score: float) -> bool:
    """Whether ``kb ask`` should answer from ``result`` (a
    :class:`~kb.search.SearchResult`, or anything with ``hits`` and optionally
    ``best_cosine``; see the module docs). ``False`` means: refuse without running
    the model. The ask pipeline's use::

        result = retriever.search(question, opts)
        if not has_evidence(result, opts.min_score):
            ...  # refuse, reason "no_hits"
    """
    return bool(result.hits) and passes(getattr(result, "best_cosine", None), min_score)
