"""Is there evidence to answer from? Decided before the model runs.

Retrieval finds the passages closest to a question, also when the question asks about
something the KB does not hold (SQuAD 2.0's unanswerable questions share their
article, often their very sentence, with answerable ones, with one word swapped:
"the first *American* to travel the Amazon" where the text says "European"). So
beyond retrieval's threshold, kb checks that the question's terms are present
*together* in one place of the retrieved text.

For the question's content stems ``T`` (:func:`kb.rag.lexical.content_stems`, less the
words that frame a question, :data:`QUESTION_FRAME`) with
weights ``idf(t) = ln(1 + (N - n_t + 0.5) / (n_t + 0.5))`` (``N`` chunks in the KB,
``n_t`` of them containing ``t``; the BM25 weight, always positive, so rare words, names
and numbers count most), and each window ``W`` (a passage sentence with its neighbours,
plus the words of the chunk's heading path: a note's title names what its sentences are
about):

    coverage(W) = Σ_{t ∈ T ∩ W} idf(t) / Σ_{t ∈ T} idf(t)

``coverage`` is the maximum over all windows of the contexts; the missing terms are
those of the best window, rarest first. The question is *answerable* when
``coverage >= min_coverage`` (``[answer] min_coverage``; ``kb eval tune`` and
``bench/verify.py`` measure it). Edge cases: a question without content stems (all
stop words) is answerable (there is nothing to check); no contexts -> not answerable.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from kb.rag.lexical import content_stems, key_tokens, tokens
from kb.rag.verify import PassageSentences

DocFreq = Callable[[str], tuple[int, int]]  # word -> (n_t, N)

#: words that frame a question rather than name what it is about ("how *long*", "what
#: *year*", "what is it *called*", "*tell* me about"): the answer rarely repeats them
QUESTION_FRAME = frozenset(
    [
        "long",
        "many",
        "much",
        "often",
        "far",
        "old",
        "big",
        "large",
        "year",
        "years",
        "name",
        "named",
        "called",
        "kind",
        "type",
        "happen",
        "happened",
        "mean",
        "means",
        "refer",
        "refers",
        "term",
        "tell",
        "explain",
        "describe",
        "list",
        "give",
        "show",
    ]
)


@dataclass
class Answerability:
    """The evidence check's outcome; ``missing`` are the question words no window has."""

    coverage: float
    answerable: bool
    threshold: float
    missing: list[str] = field(default_factory=list)
    #: the question's numbers and names that no passage contains at all
    absent_keys: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "coverage": round(self.coverage, 4),
            "answerable": self.answerable,
            "threshold": self.threshold,
            "missing": list(self.missing),
            "absent_keys": list(self.absent_keys),
        }


def idf(n_t: int, n: int) -> float:
    """BM25's idf, shifted to stay positive: ``ln(1 + (N - n_t + 0.5) / (n_t + 0.5))``."""
    return math.log(1.0 + (max(n, n_t) - n_t + 0.5) / (n_t + 0.5))


def question_terms(question: str, doc_freq: DocFreq | None) -> dict[str, tuple[str, float]]:
    """stem -> (a surface word, idf weight); weight 1 for every term without ``doc_freq``."""
    out: dict[str, tuple[str, float]] = {}
    for word in tokens(question):
        if word.lower() in QUESTION_FRAME:
            continue
        stems = content_stems(word)
        if not stems:
            continue
        s = next(iter(stems))
        if s in out:
            continue
        w = 1.0
        if doc_freq is not None:
            n_t, n = doc_freq(word)
            w = idf(n_t, n)
        out[s] = (word, w)
    return out


def absent_keys(question: str, passages: Sequence[PassageSentences]) -> list[str]:
    """The question's numbers and names (:func:`kb.rag.lexical.key_tokens`, single
    words only) that appear in no passage: "the first *American*" when every passage
    says "European". Numbers are compared normalised, names as stems."""
    seen: set[str] = set()
    for p in passages:
        seen |= p.heading_stems
        for st in p.stems:
            seen |= st
    keys = [k for k in key_tokens(question) if " " not in k]
    return sorted(k for k in keys if k not in seen)


def check(
    question: str,
    passages: Sequence[PassageSentences],
    doc_freq: DocFreq | None,
    min_coverage: float,
    *,
    require_keys: bool = False,
) -> Answerability:
    """Coverage of the question's terms by the best window (module docstring); with
    ``require_keys`` a question whose number or name is in no passage is not
    answerable either."""
    result = _coverage(question, passages, doc_freq, min_coverage)
    result.absent_keys = absent_keys(question, passages)
    if require_keys and result.absent_keys:
        result.answerable = False
    return result


def _coverage(
    question: str,
    passages: Sequence[PassageSentences],
    doc_freq: DocFreq | None,
    min_coverage: float,
) -> Answerability:
    terms = question_terms(question, doc_freq)
    if not passages:
        return Answerability(0.0, False, min_coverage, [w for w, _ in terms.values()])
    total = sum(w for _, w in terms.values())
    if total <= 0:
        return Answerability(1.0, True, min_coverage)
    best, best_missing = -1.0, list(terms)
    for p in passages:
        for sentences in p.window_stems:
            window = sentences | p.heading_stems  # the chunk's headings belong to it
            got = sum(w for s, (_, w) in terms.items() if s in window)
            cov = got / total
            if cov > best:
                best = cov
                best_missing = [s for s in terms if s not in window]
    best_missing.sort(key=lambda s: -terms[s][1])
    return Answerability(
        best, best >= min_coverage, min_coverage, [terms[s][0] for s in best_missing]
    )
