"""Is there evidence to answer from? Decided before the model runs.

Retrieval finds the passages closest to a question, also when the question asks about
something the KB does not hold (SQuAD 2.0's unanswerable questions share their
article, often their very sentence, with answerable ones, with one word swapped:
"the first *American* to travel the Amazon" where the text says "European"). So
beyond retrieval's threshold, kb checks that one place of the retrieved text says what
the question asks about, with these signals:

- **coverage**: the best idf-weighted share of the question's content words
  (:mod:`kb.rag.terms`) that one passage sentence holds, with its chunk's headings, or
  two sentences of two documents together less a penalty (:mod:`kb.rag.coverage`: the
  formula, the light verbs, the pairs and the edge cases); a question that cannot be
  answered without a number, an amount of money or a point in time asked for by name
  ("In what year …?", :func:`kb.rag.answer_type.strict_type`) counts only the sentences
  that can give one;
- **cosine**: the largest cosine between the question's vector and a passage
  sentence's vector (the KB's embedder): how closely one sentence paraphrases the
  question;
- **chunk cosine**: the largest cosine of the question and a whole passage, as the
  vector search scored it (``hit.scores["vector"]``; the sentence cosine when the
  search had no vector leg). Notes written as lists ("Attendees: Dana, Omar") have
  sentences that paraphrase nothing, while their chunk still matches.

They are combined by a logistic model fitted by ``bench/verify.py`` on squad-dev::

    p(answerable) = sigmoid(b + w_cov · coverage + w_cos · cosine + w_chunk · chunk_cosine)

When one sentence (with its chunk's headings) holds every content word of a question
of two or more (:func:`kb.rag.every_term.holds_every_term`), ``p`` is at least
:data:`EVERY_TERM_FLOOR` (0.5): a short question over a long sentence that says several
things has a low cosine however plainly the sentence answers it; so it is when a
passage's own section heading names what the question asks about
(:func:`kb.rag.naming.names_section`: "What are the Q3 risks?" over the sentences under
"Q3 planning > Risks"). The question is *answerable* when ``p >= min_answerable``
(``[answer] min_answerable``; ``kb eval run --min-answerable`` measures another value on
a golden set). Without vectors (no embedder) the coverage-only model
:data:`LEXICAL_MODEL` is used. With ``require_keys``, a question whose number or name
appears in no passage at all is not answerable either (:mod:`kb.rag.keys`), nor one
whose negation or antonym the best-matching sentences contradict ("What did the TEU
*not* do?" over sentences that say what it does; "the *lowest* point" where the text
says "highest": :mod:`kb.rag.polarity`), nor one whose one missing word is a name or
number the best sentence has another in place of ("the first *American*" over "the
first *European*": :mod:`kb.rag.substitution`), or a common word between the same two
tokens of a noun phrase ("stones and *rocks* were" over "stones and *cannonballs*
were"), nor one that asks about a move the other way round ("When do we move *to*
Stripe?" over "from Stripe to Adyen": :mod:`kb.rag.direction`), nor one that asks for a
rate per another period than its best sentence states ("a month" over "500 projects a
year": :mod:`kb.rag.periods`), nor one whose word that sentence negates ("change" over
"do not change": :func:`kb.rag.polarity.denied`). Edge cases: a question without
content stems (all stop words) has coverage 1 (there is nothing to check); no passages
-> not answerable.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from kb.rag.answer_type import AnswerType, gives, strict_type
from kb.rag.coverage import (
    Eligible,
    best_cosine,
    chunk_cosine,
    coverage,
    ranked_sentences,
    sentence_matches,
)
from kb.rag.direction import reversed_moves
from kb.rag.every_term import holds_every_term, says_what_it_is
from kb.rag.keys import absent_keys
from kb.rag.naming import named_records, names_section
from kb.rag.passage import EmbedFn, PassageSentences, embed_passages, section_heading
from kb.rag.periods import other_periods
from kb.rag.polarity import (
    NEGATION_SENTENCES,
    Contradiction,
    affirmed,
    contradictions,
    denied,
    heading_negates,
)
from kb.rag.substitution import prefixed, swaps, word_swaps
from kb.rag.superlative import heading_date
from kb.rag.term_match import found_terms
from kb.rag.terms import DocFreq as DocFreq  # re-export: kb.rag.pipeline imports it here
from kb.rag.terms import Terms, asked_terms, word_parts
from kb.rag.terms import question_terms as question_terms  # re-export (kb.rag.pipeline)
from kb.rag.two_facts import asked_facts
from kb.search.tasks import asks_tasks, holds_task
from kb.types import Hit


@dataclass(frozen=True)
class AnswerabilityModel:
    """Logistic weights of ``p(answerable)`` (module docstring)."""

    bias: float
    w_cov: float
    w_cos: float
    w_chunk: float = 0.0

    def score(self, coverage: float, cosine: float | None, chunk: float | None = None) -> float:
        """``chunk`` defaults to ``cosine``; a missing cosine counts as 0."""
        cos = cosine or 0.0
        z = self.bias + self.w_cov * coverage + self.w_cos * cos
        z += self.w_chunk * (cos if chunk is None else chunk)
        return 1.0 / (1.0 + math.exp(-z))


# Fitted by bench/verify.py (logistic regression) on the calibration half of squad-dev's
# 394 SQuAD questions (234 answerable vs 160 of SQuAD 2.0's adversarial unanswerable
# ones, top-5 hits each). ROC AUC 0.72 on the calibration half, 0.80 on the held-back
# half (the old window-coverage rule: 0.63). Held-back half at min_answerable 0.4 with
# require_key_terms: 14% of answerable and 51% of unanswerable questions refused.
DEFAULT_MODEL = AnswerabilityModel(bias=-5.115, w_cov=2.707, w_cos=3.671, w_chunk=1.724)
#: the same fit without the cosines (AUC 0.67 / 0.72), for a pipeline without an embedder
LEXICAL_MODEL = AnswerabilityModel(bias=-2.171, w_cov=3.302, w_cos=0.0)


@dataclass
class Answerability:
    """The evidence check's outcome; ``missing`` are the question words the best
    sentence lacks."""

    score: float
    answerable: bool
    threshold: float
    coverage: float
    cosine: float | None = None
    chunk_cosine: float | None = None
    missing: list[str] = field(default_factory=list)
    #: the question's numbers and names that no passage contains at all
    absent_keys: list[str] = field(default_factory=list)
    #: a negation or antonym of the question its best sentences contradict
    #: (:mod:`kb.rag.polarity`)
    contradictions: list[Contradiction] = field(default_factory=list)
    #: one sentence holds every content word of the question
    #: (:func:`kb.rag.every_term.holds_every_term`), so ``score`` is at least
    #: :data:`EVERY_TERM_FLOOR`
    every_term: bool = False
    #: a passage's own section heading names what the question asks about
    #: (:func:`kb.rag.naming.names_section`), so ``score`` is at least :data:`EVERY_TERM_FLOOR`
    section: bool = False
    #: what the question cannot be answered without and the passages' best match does
    #: not give (:func:`kb.rag.answer_type.strict_type`: "date or year", "number",
    #: "amount"), when the sentences that give one match it less; else ``None``
    lacks: str | None = None
    #: the fitted model's ``p(answerable)`` before a floor rule lifted it
    fitted: float | None = None
    #: the question's words the best sentence holds (as the question writes them)
    held: list[str] = field(default_factory=list)
    #: the question's terms the check weighed (reused by :mod:`kb.rag.responsive`)
    terms: Terms | None = field(default=None, repr=False, compare=False)
    #: a question that asks two facts (:mod:`kb.rag.two_facts`): its two parts, each
    #: checked on its own; the check is the better part's
    parts: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "score": round(self.score, 4),
            "answerable": self.answerable,
            "threshold": self.threshold,
            "coverage": round(self.coverage, 4),
            "cosine": None if self.cosine is None else round(self.cosine, 4),
            "chunk_cosine": None if self.chunk_cosine is None else round(self.chunk_cosine, 4),
            "missing": list(self.missing),
            "absent_keys": list(self.absent_keys),
            "contradictions": [c.to_dict() for c in self.contradictions],
            "every_term": self.every_term,
            "section": self.section,
            "lacks": self.lacks,
            "fitted": None if self.fitted is None else round(self.fitted, 4),
            "held": list(self.held),
            "parts": list(self.parts),
        }


@dataclass
class Assessed:
    """:func:`assess`'s outcome: the check, and the passages (with their sentence
    vectors when an embedder was given) and question vector it used, for reuse."""

    answerability: Answerability
    passages: list[PassageSentences]
    qvec: np.ndarray | None


def assess(
    question: str,
    hits: Sequence[Hit],
    embed: EmbedFn | None,
    doc_freq: DocFreq | None,
    min_answerable: float,
    *,
    require_keys: bool = False,
    off: frozenset[str] = frozenset(),
) -> Assessed:
    """The evidence check of ``question`` over ``hits`` as ``kb ask`` runs it: the hits
    cut into sentences, their sentences and the question embedded (when ``embed`` is
    given; without it the lexical model decides), then :func:`check`."""
    passages = [PassageSentences.of(n, h) for n, h in enumerate(hits, 1)]
    qvec = None
    if embed is not None:
        embed_passages(passages, embed)
        qvec = np.asarray(embed([question]), dtype=np.float32)[0]
    checked = check(
        question,
        passages,
        doc_freq,
        min_answerable,
        qvec=qvec,
        require_keys=require_keys,
        off=off,
    )
    return Assessed(checked, passages, qvec)


def check(
    question: str,
    passages: Sequence[PassageSentences],
    doc_freq: DocFreq | None,
    min_answerable: float,
    *,
    qvec: np.ndarray | None = None,
    require_keys: bool = False,
    model: AnswerabilityModel | None = None,
    off: frozenset[str] = frozenset(),
) -> Answerability:
    """``p(answerable)`` from the best sentence's coverage and the best cosine
    (module docstring). ``qvec`` is the question's normalised vector; the cosine needs
    it and the passages' sentence vectors (``PassageSentences.vectors``), else the
    lexical model decides. ``min_answerable`` 0 never refuses on the score. ``off``:
    ids of :mod:`kb.rag.rules` vetoes and floors not to run; each contradiction found
    carries the id of the rule that found it. A question that asks two facts
    (:func:`kb.rag.two_facts.asked_facts`, rule ``two-facts``) is checked part by part,
    with the whole question's vector: one sentence seldom holds both parts' words, and
    quote mode quotes a sentence for each part or names the part the notes lack. The
    outcome is the part with the higher ``p(answerable)``, with the whole question's
    terms (for :mod:`kb.rag.responsive`) and ``parts`` set."""
    facts = asked_facts(question) if "two-facts" not in off and passages else None
    if facts is not None:
        each = [
            check(
                part,
                passages,
                doc_freq,
                min_answerable,
                qvec=qvec,
                require_keys=require_keys,
                model=model,
                off=off | {"two-facts"},
            )
            for part in (facts.first, facts.second)
        ]
        better = max(each, key=lambda a: (a.answerable, a.score))
        better.terms = question_terms(question, doc_freq)
        better.parts = [facts.first, facts.second]
        return better
    terms = question_terms(question, doc_freq)
    if not passages:
        missing = [w for w, _ in terms.values()]
        return Answerability(0.0, False, min_answerable, 0.0, missing=missing)
    matches = sentence_matches(terms, passages)
    kind = strict_type(question)
    eligible = _typed(kind, question, passages)
    cov, missing = coverage(terms, passages, matches, eligible)
    lacks = None
    if kind is not None:
        # when the sentences that give no answer of the kind match better, the reason is
        # what they do not give (and the words the best of them lacks, as without a kind)
        anywhere, missing_anywhere = coverage(terms, passages, matches)
        if anywhere > cov:
            lacks, missing = _LACKS[kind], missing_anywhere
    cos = best_cosine(qvec, passages)
    chunk = chunk_cosine(passages) if cos is not None else None
    if model is None:
        model = DEFAULT_MODEL if cos is not None else LEXICAL_MODEL
    p = model.score(cov, cos, chunk)
    fitted = p
    every = "every-term" not in off and holds_every_term(terms, passages, matches, eligible)
    named = [
        section_heading(ps.hit) for ps in passages if names_section(terms, ps.hit, ps.heading_stems)
    ]
    section = "section-named" not in off and bool(named)
    if every or section:
        p = max(p, EVERY_TERM_FLOOR)
    result = Answerability(
        p,
        p >= min_answerable,
        min_answerable,
        cov,
        cos,
        chunk,
        missing,
        every_term=every,
        section=section,
        lacks=lacks,
        fitted=fitted,
        held=[w for s, (w, _) in terms.items() if w not in missing and s in asked_terms(terms)],
        terms=terms,
    )
    if "absent-keys" not in off:
        result.absent_keys = absent_keys(question, passages)
    ranked = ranked_sentences(terms, passages, matches, qvec)
    best_sentences = [p.sentence(j) for p, j in ranked]
    headings = [section_heading(p.hit) for p, _ in ranked[:NEGATION_SENTENCES]]
    # a named section whose heading negates holds the cue: "What was not decided?" over
    # "## Not decided" (its sentences need not say *not*)
    headings = [h for h in named if heading_negates(h)][:1] + headings
    found = result.contradictions

    def run(rule: str, detect: Callable[[], list[Contradiction]]) -> None:
        if rule not in off:
            found.extend(replace(c, rule=rule) for c in detect())

    run("negation", lambda: contradictions(question, best_sentences, headings))
    if ranked:
        best, j = ranked[0]
        sentence = best.sentence(j)
        got = set(found_terms(terms, best, j))
        known = best.stems[j] | best.heading_stems | best.units(j)
        lacking = word_parts(asked_terms(terms) - got, known)
        run("swapped-key", lambda: swaps(question, sentence, known, lacking))
        if not found:
            run("swapped-word", lambda: word_swaps(question, sentence, known, lacking))
        run("reversed-move", lambda: reversed_moves(question, sentence))
        run("other-period", lambda: other_periods(question, sentence))
        run("denied", lambda: denied(question, sentence))
        lacking_words = [terms[s][0] for s in lacking if s in terms]
        run("prefixed", lambda: prefixed(lacking_words, sentence))
        if not found:
            run("affirmed", lambda: affirmed(question, best_sentences))
    if require_keys and (result.absent_keys or result.contradictions):
        result.answerable = False
    return result


#: ``p(answerable)`` is at least this when one sentence holds every content word of a
#: question of two or more (:func:`kb.rag.every_term.holds_every_term`). On squad-dev, 97 of
#: the 122 SQuAD questions whose retrieved passages have such a sentence are answerable
#: (0.80), and the model gives every one of them 0.4 or more anyway; a short question over a
#: long sentence is what it lifts: "What does make dev start?" over "Local setup: run `make
#: dev`, which starts Postgres 16 and Redis 7 in Docker." has cosine 0.38 and p 0.37
EVERY_TERM_FLOOR = 0.5


#: what a strict answer type is called in a refusal's reason
_LACKS = {"time": "date or year", "quantity": "number", "money": "amount"}


def _typed(
    kind: AnswerType | None, question: str, passages: Sequence[PassageSentences]
) -> Eligible | None:
    """Which passage sentences can give the answer type ``kind`` that ``question``
    cannot be answered without (:func:`kb.rag.answer_type.strict_type`,
    :func:`~kb.rag.answer_type.gives`), or ``None`` when it asks for none. For a point
    in time, every sentence of a passage under a day's heading
    (:func:`kb.rag.superlative.heading_date`) can."""
    if kind is None:
        return None
    return [
        # a journal's entry gives its heading's day ("## 2026-11-14" / "Bought new
        # running shoes"), which quote mode quotes before it
        [True] * len(p.stems)
        if kind == "time" and heading_date(p.hit.locator.heading_path) is not None
        else [gives(kind, p.sentence(j), question) for j in range(len(p.stems))]
        for p in passages
    ]


def section_named(question: str, hits: Sequence[Hit]) -> bool:
    """:func:`kb.rag.naming.names_section` or :func:`kb.rag.naming.named_records` for one of
    ``hits``, or one of their sentences says what the question's term is
    (:func:`kb.rag.every_term.says_what_it_is`: "Who is the GP?" over "The GP, Dr Farah,
    said …", sentence cosine 0.20, as "GP: Dr Farah" would), or the question asks about
    tasks and a hit holds a task item (:mod:`kb.search.tasks`: "What is still on my to-do
    list?" over "- [ ] order compost"): the lexical pass of ``kb ask``'s retrieval rule that
    needs no cosine (:func:`kb.search.evidence.ask_passes`)."""
    if asks_tasks(question) and any(holds_task(h.text) for h in hits):
        return True
    terms = question_terms(question, None)  # the weights play no part
    if not terms:
        return False
    if any(names_section(terms, h) for h in hits):
        return True
    passages = [PassageSentences.of(n, h) for n, h in enumerate(hits, 1)]
    if any(named_records(terms, p) for p in passages):
        return True
    asked = asked_terms(terms)
    return any(
        says_what_it_is(terms, asked, p.sentence(j)) for p in passages for j in range(len(p.spans))
    )


def ask_would_answer(result: Any, min_score: float, doc_freq: DocFreq | None) -> bool:
    """Whether ``kb ask`` would pass its retrieval rule on ``result`` (a
    :class:`~kb.search.SearchResult`): the cosine rules, or a sentence at ``min_score``
    when one sentence of the hits holds every content word of the question
    (:func:`says_every_term`), or :func:`section_named` (a section heading, a record's
    key, a task item for a question about tasks). ``kb search`` and the web search page
    say that ``kb ask`` would refuse only when this is false."""
    from kb.search.evidence import ask_passes

    return ask_passes(
        result.best_cosine,
        min_score,
        result.best_sentence,
        lambda: says_every_term(result.query, result.hits, doc_freq),
        lambda: section_named(result.query, result.hits),
    )


def says_every_term(question: str, hits: Sequence[Hit], doc_freq: DocFreq | None) -> bool:
    """The lexical pass of ``kb ask``'s retrieval refusal rule: one sentence of one
    hit (with its chunk's headings and file name, as :func:`kb.rag.coverage.coverage` reads
    it) holds every content term of the question (light verbs it lacks aside). "How many
    transport bolts are there?" over a manual's "remove the three transport bolts" has a
    chunk cosine of 0.22 and a sentence cosine of 0.44, below the cosine rule
    (:mod:`kb.search.evidence`), yet the KB plainly holds what it asks about. Such a
    question goes on to the evidence check (:func:`check`), which still decides. ``False``
    for a question without content terms (nothing to hold) and without hits."""
    terms = question_terms(question, doc_freq)
    if not terms or not hits:
        return False
    passages = [PassageSentences.of(n, h) for n, h in enumerate(hits, 1)]
    asked = asked_terms(terms)
    for p in passages:
        for j in range(len(p.stems)):
            got = set(found_terms(terms, p, j))
            if asked and asked <= got:
                return True
    return False
