"""A question that asks two facts gets both, each quoted, or says which one the notes lack.

"When does Mum arrive for Christmas, and when is her birthday?" asks two things; ranked
as one question, the sentence that best matches the whole (the arrival) wins and the
birthday is never quoted. :func:`asked_facts` reads such a question as its two *parts*,
and :func:`two_fact_candidates` picks one sentence for each.

**Parts.** The question is cut at the first coordinating conjunction of a shipped
language (:attr:`kb.lang.base.Lang.conjunctions`: *and*, *und*, *et*), with or without a
comma before it, that a question word or an auxiliary of the same language follows
(:attr:`~kb.lang.base.Lang.question_words`, :attr:`~kb.lang.base.Lang.auxiliaries`:
"…, and *when* is…", "… and *did* we…", "…, et *combien*…", "… und *wann*…"). Each
part must hold a content word of its own. Not cut: "and back", "and now" (no question
word), "the risks and the mitigations" (a list the list selectors answer), a conjunction
inside the first
three words ("When and where …": one fact asked two ways), a first part that opens with
no question word or auxiliary ("The connection between energy and what …"), nor a
second part that opens with a question word the first part already holds inside ("the
university whose campus is …, and whose branches …": one clause twice). A second part that is a
question word alone asks it of the first part's clause: "Who founded the company, and
when?" -> "when founded the company?".

**Picking.** Both parts read the same ranked candidates, every sentence of the passages
in the order the whole question ranks them (:func:`kb.rag.candidates.rank_candidates`),
so a part whose words point back at the other ("her birthday", "that friend") still
prefers the sentences about the question's subject. For each part, the candidate that
holds the largest idf-weighted share of the part's own asked terms
(:func:`kb.rag.terms.weighted_share` of :func:`kb.rag.term_match.found_terms`, the
sentence read with its chunk's headings) and, when the part asks for a type (a date for
*when*, an amount for *how much*: :func:`kb.rag.answer_type.expected_type`), gives it
(:func:`kb.rag.answer_type.holds`); ties go to the better-ranked one. A part is
**answered** when its pick holds at least :data:`MIN_SHARE` of its weight, or when the
other part's pick gives the type it asks for (one line may answer both: "When was the
boiler serviced, and what did it cost?" over "12 May: boiler service, £95"). The answer
quotes the two picks in the question's order (one, when one sentence answers both); when
one part is not answered, the answer quotes the other part's pick and names the part the
notes do not answer (the record's ``responsive.unanswered``; the verdict is *partial*).
When neither part is answered, the selector gives nothing and the other selectors run.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from kb.lang import all_languages
from kb.rag.answer_type import expected_type, holds
from kb.rag.candidates import Candidate
from kb.rag.lexical import is_stopword, tokens
from kb.rag.passage import PassageSentences
from kb.rag.term_match import found_terms
from kb.rag.terms import DocFreq, Terms, asked_terms, question_terms, weighted_share

#: the share of a part's asked weight its pick must hold for the part to count as answered
MIN_SHARE = 0.5
#: a conjunction among a question's first words coordinates two question words ("When and
#: where is the meeting?"), not two questions
_MIN_FIRST_WORDS = 3


@dataclass(frozen=True)
class Facts:
    """The two parts of a two-fact question (as written, the second without its
    conjunction), and the conjunction that joined them."""

    first: str
    second: str
    conjunction: str


@dataclass(frozen=True)
class Picked:
    """The candidates quoted for a two-fact question, in the question's order, and the
    part no candidate answers (``None`` when both are answered)."""

    candidates: list[Candidate]
    unanswered: str | None


def _openers() -> dict[str, frozenset[str]]:
    """conjunction -> the words that open a question after it, per shipped language."""
    out: dict[str, frozenset[str]] = {}
    for lang in all_languages():
        opens = lang.question_words | lang.auxiliaries
        for c in lang.conjunctions:
            out[c] = out.get(c, frozenset()) | opens
    return out


_OPENERS = _openers()
#: the words a question opens with, in every shipped language, and its question words
_OPENING = frozenset().union(*_OPENERS.values())
_ASKING = frozenset().union(*(lang.question_words for lang in all_languages()))
_CUT = re.compile(
    r"(?:,\s*|\s+)(" + "|".join(sorted(map(re.escape, _OPENERS), key=len, reverse=True)) + r")\s+",
    re.IGNORECASE,
)


def _has_content(text: str) -> bool:
    return any(not is_stopword(w) for w in tokens(text))


def asked_facts(question: str) -> Facts | None:
    """The two parts of ``question`` when it asks two facts (module docstring), else
    ``None``."""
    for m in _CUT.finditer(question):
        conj = m.group(1).lower()
        first = question[: m.start()].strip()
        rest = question[m.end() :].strip()
        opener = rest.split(maxsplit=1)[0].lower().strip("?,.;:") if rest else ""
        if opener.split("-")[0] not in _OPENERS[conj]:
            continue
        words = [w.lower().strip("?,.;:") for w in first.split()]
        if len(words) < _MIN_FIRST_WORDS or words[0].split("-")[0] not in _OPENING:
            continue  # "The connection between energy and what …" asks no first question
        if opener in words[1:] and opener in _ASKING:
            continue  # "… whose main campus is …, and whose branch …": one clause twice
        if not _has_content(first):
            continue
        if not _has_content(rest):
            if rest.strip("?,.;: ").lower() != opener:
                continue
            # "Who founded it, and when?": the second part asks its word of the first's
            # clause ("when founded it?")
            rest = f"{opener} {first.split(maxsplit=1)[1].rstrip(',;?')}?"
        return Facts(first.rstrip(",;") + "?", rest, conj)
    return None


def _share(terms: Terms, c: Candidate, p: PassageSentences) -> float:
    """The share of the part's asked weight candidate ``c`` holds (with its headings)."""
    asked = asked_terms(terms)
    got = [s for s in found_terms(terms, p, c.j) if s in asked]
    return weighted_share({s: terms[s] for s in asked}, got)


def _pick(
    part: str,
    ranked: Sequence[Candidate],
    passages: Sequence[PassageSentences],
    doc_freq: DocFreq | None,
) -> tuple[Candidate | None, float]:
    """The best candidate for one part and the share of its weight it holds."""
    terms = question_terms(part, doc_freq)
    kind = expected_type(part)
    best: Candidate | None = None
    best_share = -1.0
    for c in ranked:
        if kind is not None and not holds(kind, f"{c.lead} {c.text}", part):
            continue
        share = _share(terms, c, passages[c.n - 1])
        if share > best_share:
            best, best_share = c, share
    return best, max(best_share, 0.0)


def _gives(part: str, c: Candidate | None) -> bool:
    """``c`` gives the answer type ``part`` asks for (a part that asks none: no)."""
    kind = expected_type(part)
    return c is not None and kind is not None and holds(kind, f"{c.lead} {c.text}", part)


def two_fact_candidates(
    facts: Facts,
    ranked: Sequence[Candidate],
    passages: Sequence[PassageSentences],
    doc_freq: DocFreq | None,
) -> Picked | None:
    """One candidate per part (module docstring); ``None`` when neither part is
    answered by any candidate."""
    one, s1 = _pick(facts.first, ranked, passages, doc_freq)
    two, s2 = _pick(facts.second, ranked, passages, doc_freq)
    ok1 = one is not None and s1 >= MIN_SHARE
    ok2 = two is not None and s2 >= MIN_SHARE
    # one line may answer both: "When was the boiler serviced, and what did it cost?"
    # over "12 May: boiler service, £95"; a part whose own words no sentence holds is
    # answered by the other part's pick when that gives the type the part asks for
    if ok1 and not ok2 and _gives(facts.second, one):
        two, ok2 = one, True
    if ok2 and not ok1 and _gives(facts.first, two):
        one, ok1 = two, True
    if not ok1 and not ok2:
        return None
    if ok1 and ok2:
        assert one is not None and two is not None
        same = (one.n, one.j) == (two.n, two.j)
        return Picked([one] if same else [one, two], None)
    if ok1:
        assert one is not None
        return Picked([one], facts.second)
    assert two is not None
    return Picked([two], facts.first)
