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
             or result.best_cosine >= min_score
             or result.best_sentence >= min_score + SENTENCE_MARGIN)

``best_cosine`` is the highest cosine similarity of *any* chunk in the search's scope
to the query (not only of the returned hits), so the decision does not depend on
``k``, the fusion settings or which leg ranked what. Chunks without a vector yet do
not count towards it.

``best_sentence`` is the highest cosine of the query and one *sentence* of the
sentence rerank's candidates (``None`` without the rerank or sentence vectors). A
meeting note that covers five topics has a whole-chunk cosine of 0.16 to "What did
the committee reject?" while its sentence "The committee ... rejected the request
for a second build server" scores 0.54: the chunk alone would refuse a question the
note answers word for word. A single sentence matches a question more closely than a
whole chunk does, also by chance, so it must clear ``min_score`` by
:data:`SENTENCE_MARGIN` (0.2). ``bench/refusal.py`` asks 30 everyday questions: on the
squad-dev KB they pass as often as under the chunk rule alone (60%; every answerable
question passes either way); on a three-note personal KB 10% instead of 7% (one more:
"How many vacation days do I have left this year?" meets "... it lasted nine days"),
which ``kb ask``'s evidence check (:mod:`kb.rag.answerability`) then refuses.

``kb ask`` waives the margin (``best_sentence >= min_score`` is enough) when one
sentence of its hits holds every content word of the question
(:func:`kb.rag.answerability.says_every_term`): a short question ("How many transport
bolts are there?") has a low cosine to everything, also to the sentence that says it
word for word (0.44; its chunk 0.22). A raised ``min_score`` stays as strict as it says
for that waiver. And it answers, whatever the cosines and ``min_score``, when a hit's
own section heading names what the question asks about
(:func:`kb.rag.naming.names_section`): the sentences under a note's "## Risks"
name no risk, and "What are the risks?" has a cosine of 0.2 to them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

#: how much more than ``min_score`` one sentence's cosine must reach (module docs)
SENTENCE_MARGIN = 0.2


def passes(
    best_cosine: float | None,
    min_score: float,
    best_sentence: float | None = None,
    margin: float = SENTENCE_MARGIN,
) -> bool:
    """The threshold part of the rule: ``True`` when the check is off, there is no
    cosine to judge (keyword mode), ``best_cosine >= min_score``, or
    ``best_sentence >= min_score + margin`` (``kb ask`` waives the margin, 0, when a
    sentence holds every word of the question; see the module docs)."""
    if min_score <= -1 or best_cosine is None or best_cosine >= min_score:
        return True
    return best_sentence is not None and best_sentence >= min_score + margin


def ask_passes(
    best_cosine: float | None,
    min_score: float,
    best_sentence: float | None,
    says_every_term: Callable[[], bool],
    names_section: Callable[[], bool] | None = None,
) -> bool:
    """``kb ask``'s rule: :func:`passes`, or :func:`passes` with no margin when
    ``says_every_term()`` (one sentence of the hits holds every content word of the
    question; asked only then, see the module docs), or ``names_section()`` (a hit's
    own section heading names what the question asks about, whatever the cosines:
    :func:`kb.rag.naming.names_section`). ``kb ask``, the note of ``kb search``
    and ``kb eval tune`` all judge with it."""
    if passes(best_cosine, min_score, best_sentence):
        return True
    if passes(best_cosine, min_score, best_sentence, margin=0.0) and says_every_term():
        return True
    return names_section is not None and names_section()


def has_evidence(result: Any, min_score: float) -> bool:
    """Whether ``kb ask`` should answer from ``result`` (a
    :class:`~kb.search.SearchResult`, or anything with ``hits`` and optionally
    ``best_cosine``; see the module docs). ``False`` means: refuse without running
    the model. The ask pipeline's use::

        result = retriever.search(question, opts)
        if not has_evidence(result, opts.min_score):
            ...  # refuse, reason "no_hits"
    """
    best_sentence = getattr(result, "best_sentence", None)
    return bool(result.hits) and passes(
        getattr(result, "best_cosine", None), min_score, best_sentence
    )


def weak_hit(scores: dict[str, float], min_score: float) -> bool:
    """A hit that only the vector leg brought, with a cosine under ``min_score`` and no
    sentence (``scores["sentence"]``) at ``min_score`` + :data:`SENTENCE_MARGIN`: near
    nothing the query says. ``kb search`` and the web search page show it (no threshold
    removes a hybrid hit) marked as weak, so a search for a word one note of five holds
    does not present the other four as matches. ``False`` with ``min_score`` -1 (off),
    for a keyword match, a task item found for a question about tasks
    (:mod:`kb.search.tasks`) and a hit without a cosine (keyword mode)."""
    if "keyword" in scores or "task" in scores or "vector" not in scores:
        return False
    return not passes(scores["vector"], min_score, scores.get("sentence"))


def weak_note(min_score: float) -> str:
    """How ``kb search`` and the web search page mark a :func:`weak_hit`."""
    return f"weak: no word of the query, cosine under {min_score:g}"
