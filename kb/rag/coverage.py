"""Coverage: the share of a question's words one passage sentence holds.

For the question's content stems ``T`` (:mod:`kb.rag.terms`, less the words that frame
a question) with weights ``idf(t)`` (:func:`kb.rag.terms.idf`), and each passage sentence
``s`` (with the words of its chunk's heading path: a note's title names what its
sentences are about)::

    coverage(s) = Σ_{t ∈ T, t found in s} idf(t) / Σ_{t ∈ T, t found in s or t ∉ L} idf(t)

with ``L`` the light verbs a question is phrased with (:data:`kb.rag.terms.LIGHT_VERBS`:
*get*, *go*, *need* …), which count when the sentence holds them and are left out when
not, and where *found* tolerates typos and derivations (:func:`kb.rag.lexical.found`:
``pacakges`` meets ``packages``) and a number with a unit stands for its quantity
(:func:`kb.rag.units.unit_words`: ``30 °C`` says *temperature*, ``375 g`` says *grams*;
a sentence that holds some terms only so, and writes none of them out, counts for none:
"valid from 3 April" is not about "When does the RAC cover *start*?", :func:`standing`);
``coverage`` is the maximum over sentences, and the missing terms are those of the best
sentence, rarest first. One sentence, not a window of three: a swapped word is usually
missing from the very sentence the question paraphrases, while its neighbours often
hold it. A question that needs two documents ("Which band formed first, X or Y?") has no
such sentence, so two sentences of two *different documents* also count, together, at
their joint share less :data:`PAIR_PENALTY` (0.2), when each writes out a term the other
lacks::

    coverage = max(max_s coverage(s), max_{s, s' in two documents} coverage(s ∪ s') - 0.2)

On squad-dev this refuses 18% of HotpotQA's (answerable) multi-hop questions instead of
35%, and leaves every SQuAD refusal as it was. Two *adjacent* sentences of one passage
do not pair (a note's "Brake pads are B05S. Spare set is in the drawer." would): at the
same penalty they answer 4 more of squad-dev's 160 unanswerable SQuAD questions (at 0.3:
1 more) and no more answerable ones. A list item's later sentences hold its first
sentence's words instead (:func:`kb.rag.passage.PassageSentences.of`). A question that
cannot be answered without a number, an amount of money or a point in time asked for by
name ("In what year …?", :func:`kb.rag.answer_type.strict_type`) counts only the
sentences that can give one (alone, or one of a pair: :data:`Eligible`). Edge cases: a
question without content stems (all stop words) has coverage 1 (there is nothing to
check).

Also here: the sentences ranked by coverage, then cosine (:func:`ranked_sentences`, which
the contradiction detectors read), and the best sentence and chunk cosines
(:func:`best_cosine`, :func:`chunk_cosine`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from kb.rag.lexical import found
from kb.rag.passage import PassageSentences
from kb.rag.polarity import cosines_of, rank_sentences
from kb.rag.term_match import found_terms
from kb.rag.terms import Terms, asked_terms, weighted_share

#: per passage, per sentence: the question's stems it holds (:func:`kb.rag.term_match.found_terms`)
Matches = list[list[frozenset[str]]]
#: per passage, per sentence: whether it can give the answer type the question cannot
#: be answered without (:func:`kb.rag.answer_type.strict_type`)
Eligible = list[list[bool]]


def sentence_matches(terms: Terms, passages: Sequence[PassageSentences]) -> Matches:
    """:func:`kb.rag.term_match.found_terms` of every sentence of every passage, computed once for
    :func:`coverage` and :func:`ranked_sentences`."""
    return [[frozenset(found_terms(terms, p, j)) for j in range(len(p.stems))] for p in passages]


def ranked_sentences(
    terms: dict[str, tuple[str, float]],
    passages: Sequence[PassageSentences],
    matches: Matches,
    qvec: np.ndarray | None,
) -> list[tuple[PassageSentences, int]]:
    """Every passage sentence as ``(passage, sentence index)``, best match to the
    question first: by coverage (with its chunk's headings, as :func:`coverage` counts
    it), then cosine to ``qvec``."""
    places: list[tuple[PassageSentences, int]] = []
    covs: list[float] = []
    coss: list[float | None] = []
    asked = asked_terms(terms)
    for p, held in zip(passages, matches, strict=True):
        coss += cosines_of(p.vectors, qvec, len(held))
        places += [(p, j) for j in range(len(held))]
        covs += [
            weighted_share(terms, standing(asked, got, written_out(p, j, got)))
            for j, got in enumerate(held)
        ]
    return rank_sentences(places, covs, coss)


def written_out(p: PassageSentences, j: int, got: frozenset[str]) -> frozenset[str]:
    """The terms of ``got`` (those sentence ``j`` of ``p`` holds,
    :func:`kb.rag.term_match.found_terms`) that the sentence or its chunk's headings write
    out, not only say by a date, a value or an acronym's initials."""
    written = p.stems[j] | p.heading_stems
    return frozenset(s for s in got if found(s, written))


def standing(asked: frozenset[str], got: frozenset[str], written: frozenset[str]) -> frozenset[str]:
    """The terms of ``got`` (those a sentence holds; ``written``: those it writes out,
    :func:`written_out`) that count for the sentence on its own: all of them when it writes
    one out or holds every term ``asked`` (:func:`kb.rag.terms.asked_terms`: "How much does
    it cost?" over "It's £40 a month."), none when it holds some only by what its dates and
    values say ("valid from 3 April" for "When does the RAC cover *start*?": about something
    else)."""
    return got if (written or asked <= got) else frozenset()


#: what a pair of sentences from two documents loses against one sentence (module
#: docstring): the smallest value that left squad-dev's SQuAD refusals unchanged on
#: both halves (bench/verify.py), while it halves the refusals of HotpotQA's multi-hop
#: questions, which no single sentence answers
PAIR_PENALTY = 0.2


def coverage(
    terms: Terms,
    passages: Sequence[PassageSentences],
    matches: Matches | None = None,
    eligible: Eligible | None = None,
) -> tuple[float, list[str]]:
    """The best idf-weighted share of ``terms`` that one sentence holds (as
    :func:`standing` counts it: a sentence that holds a rare *start* only by its date,
    "valid from 3 April", is about something else), or two
    sentences of two documents together less :data:`PAIR_PENALTY` (each must write out,
    in its words or its chunk's headings, a term the other lacks: what a value says is
    no such term, so "When does the RAC cover *start*?" does not pair "cover is with the
    RAC until June" with another note's "valid from 3 April"), and the surface words
    the best lacks, rarest first; 1.0 and none when there are no terms. ``matches``:
    :func:`sentence_matches`, if computed. With ``eligible`` (:data:`Eligible`), only
    the sentences it marks count alone, and a pair needs one of them: "In what year was
    the Haensch study released?" is not covered by "The results of the Haensch study
    have since been confirmed", which names no year; a pair still joins a sentence that
    names what is asked with another document's that gives the year; 0 when no sentence
    is marked."""
    if sum(w for _, w in terms.values()) <= 0:
        return 1.0, []
    if matches is None:
        matches = sentence_matches(terms, passages)
    best, best_got = -1.0, frozenset[str]()
    asked = asked_terms(terms)
    # per distinct (document, terms held): the terms a sentence or its headings write out
    seen: dict[tuple[str, frozenset[str]], frozenset[str]] = {}
    typed: set[tuple[str, frozenset[str]]] = set()  # keys a sentence holding the type has
    for i, (p, sentences) in enumerate(zip(passages, matches, strict=True)):
        for j, got in enumerate(sentences):
            written = written_out(p, j, got)
            key = (p.hit.locator.path, got)
            seen[key] = seen.get(key, frozenset()) | written
            if eligible is not None and not eligible[i][j]:
                continue
            typed.add(key)
            held = standing(asked, got, written)
            cov = weighted_share(terms, held)
            if cov > best:
                best, best_got = cov, held
    distinct = list(seen.items())
    for i, ((path_a, a), own_a) in enumerate(distinct):
        for (path_b, b), own_b in distinct[i + 1 :]:
            if path_a == path_b or not (own_a - b) or not (own_b - a):
                continue
            if eligible is not None and (path_a, a) not in typed and (path_b, b) not in typed:
                continue
            both = a | b
            cov = weighted_share(terms, both) - PAIR_PENALTY
            if cov > best:
                best, best_got = cov, both
    lacking = asked - best_got
    missing = sorted((s for s in terms if s in lacking), key=lambda s: -terms[s][1])
    return max(best, 0.0), [terms[s][0] for s in missing]


def best_cosine(qvec: np.ndarray | None, passages: Sequence[PassageSentences]) -> float | None:
    """Largest cosine of ``qvec`` and a passage sentence; ``None`` without vectors."""
    if qvec is None:
        return None
    best: float | None = None
    for p in passages:
        if p.vectors is None or len(p.vectors) == 0:
            continue
        m = float(np.max(p.vectors @ qvec))
        best = m if best is None else max(best, m)
    return best


def chunk_cosine(passages: Sequence[PassageSentences]) -> float | None:
    """Largest vector-search cosine of a passage (``hit.scores["vector"]``), if any."""
    got = [p.hit.scores["vector"] for p in passages if "vector" in p.hit.scores]
    return max(got) if got else None
