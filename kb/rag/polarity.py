"""Contradiction cues: the question says "not" or "lowest", its best evidence does not.

Most of SQuAD 2.0's adversarial unanswerable questions (Rajpurkar, Jia and Liang 2018,
"Know What You Don't Know", table 2) are answerable questions with one edit that
leaves every content word in place: a **negation** inserted ("What did the TEU *not*
do?", 9% of them) or a word swapped for its **antonym** ("the *lowest* point" where
the text says "highest", 20%). Word coverage and cosine barely move under such an edit,
so :mod:`kb.rag.answerability`'s score lets them through. Personal notes see the same
questions: "Which tasks did I *not* finish?" over a note that lists what was done.

Both cues look only at the sentences that best match the question: the passage
sentences ranked by the question's idf-weighted coverage, ties broken by cosine
(:func:`rank_sentences`):

- **negation**: the question carries a negation (:data:`QUESTION_NEGATIONS`: *not,
  never, no, n't, without, unable, fail* ...) and none of the
  :data:`NEGATION_SENTENCES` best sentences carries one. The passage side accepts a
  broader set (:func:`negates`: also *lack, refuse, deny, prevent, only, few,
  missing*, *un-*/*non-* words, and an unticked task box ``[ ]``), because a text says
  "relatively unaffected" where a question says "not badly hit", and a to-do list
  says "[ ] call the bank" for a task not done: a false cue there only lets a question
  through, as before. A sentence under a section heading that negates (*not, never,
  n't*: "## Why it was not caught"; a note's title does not count) carries the
  heading's negation: "Why was the change not caught?" is answered by the section's
  sentences, which need not repeat it. When the best sentence is a task-list item,
  an unticked box in any matching sentence counts, not just the best two: "Which tasks did I not
  finish?" ranks "[x] finished the tax report" first (:func:`open_tasks_answer`).
  Not for a yes/no question ("Didn't the committee approve the
  budget?"), whose negation is rhetorical.
- **antonym**: a question word of :data:`ANTONYMS` is missing from the best sentence
  while its antonym is in it ("lowest" asked, "highest" written). Not for an
  alternative question ("Which is older, A or B?"), which the antonym answers ("B is
  younger than A"), nor when the sentence's antonym compares two things (*than*
  follows it: "Which son is older?" over "Ben is younger than Tom") and the question
  compares nothing ("What is older than Tom?" is contradicted), nor when the sentence
  is a list item or table row with a value of the kind a superlative or comparative
  question compares ("Which laptop is lighter?" over "- Dell XPS 13: heavier at 1.24
  kg": the list's values answer it, :mod:`kb.rag.superlative`), nor for a yes/no
  question, which the antonym answers ("Is the shop open on Sundays?" over "The shop
  is closed on Sundays": no). The lexicon holds
  common English antonym pairs (direction, size, order, time, quantity, success),
  compared as :func:`kb.rag.lexical.stem` stems of every token, stop words included
  (*before*/*after*, *most*/*least*). A bound in time is the end or start it says
  (:func:`kb.rag.lexical.bounds`): "When does the RAC cover *start*?" over "cover is
  with the RAC *until June 2026*" is contradicted, with that phrase as the reason; and
  a start or end the sentence says in other words is no contradiction ("When did the
  war *start*?" over "it *began* in 1939 and *ended* in 1945").

A question with either cue is refused like one naming a number or name that no
passage holds (``[answer] require_key_terms``). Measured with ``bench/verify.py
--answerability-only`` on squad-dev's 394 SQuAD questions (two halves by id): with
both cues the defaults refuse 53% of the unanswerable questions instead of 44% (halves:
40% -> 53%, 49% -> 53%), and the same 12.4% of the answerable ones (no answerable
question more). Edge cases: a question with no cue, or passages without sentences,
give no contradiction; ties keep passage order.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TypeVar

import numpy as np

from kb.rag.antonyms import ANTONYMS as ANTONYMS
from kb.rag.antonyms import all_stems, reversals
from kb.rag.antonyms import asks_comparison as asks_comparison
from kb.rag.antonyms import compares as compares
from kb.rag.contradiction import Contradiction as Contradiction
from kb.rag.lexical import found, is_stopword, key_tokens, stem, tokens
from kb.rag.negation import asks_negated as asks_negated
from kb.rag.negation import (
    excludes,
    imperative,
    makes_exception,
    negations,
    strictly_negates,
)
from kb.rag.negation import heading_negates as heading_negates
from kb.rag.negation import negates as negates
from kb.rag.negation import open_task as open_task
from kb.rag.negation import says_denied as says_denied
from kb.sentence_spans import AUXILIARIES, TASK_BOX

T = TypeVar("T")


#: how many best-matching sentences may hold the negation a question asks about
NEGATION_SENTENCES = 2


def negation_asked(question: str) -> str | None:
    """:func:`asks_negated`, but ``None`` for a yes/no question, whose negation is
    rhetorical ("Didn't the committee approve the budget?")."""
    return None if yes_no(question) else asks_negated(question)


def yes_no(question: str) -> bool:
    """``question`` starts with an auxiliary verb, or does after a leading phrase set
    off by a comma ("In 1972, did Norway join?"): a yes/no question, whose negation is
    rhetorical ("Didn't the committee approve the budget?" is answered by "The committee
    approved the budget")."""
    head, comma, rest = question.partition(",")
    starts = [question]
    if comma and len(tokens(head)) <= _LEADING_PHRASE:
        starts.append(rest)
    for text in starts:
        toks = tokens(text)
        if toks and toks[0].lower().replace("’", "'") in AUXILIARIES:
            return True
    return False


#: the most words of a leading phrase before a yes/no question's auxiliary
_LEADING_PHRASE = 6


def alternative(question: str) -> bool:
    """``question`` offers alternatives ("Which is older, A or B?"): its best sentence
    is about one of them, and the other stands where the asked one would."""
    return "or" in {t.lower() for t in tokens(question)}


def rank_sentences(
    sentences: Sequence[T], coverages: Sequence[float], cosines: Sequence[float | None]
) -> list[T]:
    """``sentences`` (texts, or anything standing for them) best first: by coverage,
    then cosine (missing = 0); stable."""
    order = sorted(range(len(sentences)), key=lambda i: (-coverages[i], -(cosines[i] or 0.0)))
    return [sentences[i] for i in order]


def contradictions(
    question: str, ranked: Sequence[str], headings: Sequence[str] = ()
) -> list[Contradiction]:
    """The negation and antonym cues of ``question`` against its ``ranked`` best
    sentences (module docstring); empty without sentences. ``headings``: the section
    heading each of ``ranked`` stands under, in the same order ("" for none); one that
    negates holds a negated question's cue for its sentence."""
    if not ranked:
        return []
    out: list[Contradiction] = []
    neg = negation_asked(question)
    if neg is not None and not (
        any(negates(s) for s in ranked[:NEGATION_SENTENCES])
        or any(heading_negates(h) for h in headings[:NEGATION_SENTENCES])
        or open_tasks_answer(ranked)
    ):
        out.append(Contradiction(neg))
    if alternative(question) or yes_no(question):
        # "Which is older, A or B?" is answered by "B is younger than A"; "Is the shop
        # open on Sundays?" by "The shop is closed on Sundays" (no)
        return out
    out.extend(reversals(question, ranked[0]))
    return out


#: "not ... *until* Newton": the negation dates the act, it does not deny it
_UNTIL = re.compile(r"[^.;:!?,]*?\b(?:until|till)\b", re.IGNORECASE)


#: a question asked in the past tense: "no longer used" says that it *was* used
_PAST = re.compile(r"\b(?:was|were|did|had|used\s+to)\b", re.IGNORECASE)


_NO_LONGER = re.compile(r"no\s+longer\b", re.IGNORECASE)


def denied(question: str, sentence: str) -> list[Contradiction]:
    """A question word that its best ``sentence`` negates, asked without a negation:
    "The laws of physics *change* from being at rest when travelling in a what?" over
    "while travelling at a constant velocity, the laws of physics do *not change* from
    being at rest". SQuAD 2.0 deletes a negation as well as inserting one (Rajpurkar,
    Jia and Liang 2018, table 2). The negated word must be a content word of the
    question (as stems; not a stop word: "not be", "not only" say nothing), and the
    question must not be negated (the negation rule reads that case) nor yes/no ("Does
    the law change?", answered *no*) or an alternative; a sentence that also says the
    word without a negation ("did not approve the server but approved the budget")
    contradicts nothing, nor does a negation that dates the act ("was *not identified*
    as a force *until* Newton": Newton identified it) or a *no longer* against a question
    in the past tense ("In what decade *were* injectors widely used?" over "... but are
    *no longer* widely used": they were). Returns one contradiction: the question's word,
    and the sentence's negated phrase."""
    if yes_no(question) or alternative(question) or asks_negated(question) is not None:
        return []
    asked = {stem(t): t for t in tokens(question) if not is_stopword(t)}
    # a prefix negates its word too: "indistinguishable from *non-zero* velocity"
    negated, plain = negations(sentence)
    if not negated:
        return []
    for m in negated.values():
        w = m.group("word")
        if is_stopword(w) or w.lower() in ("only", "just", "least", "to"):
            continue
        if imperative(sentence[: m.start()]):
            continue  # "Never water it more than once a month": a rule, not a denial
        if m.group(0).lower() in question.lower():
            continue  # the question says it so too: "What non-peer-reviewed sources ...?"
        if _UNTIL.match(sentence, m.end()):
            continue  # "was not identified as a force until Newton": Newton identified it
        if _NO_LONGER.match(m.group(0)) and _PAST.search(question):
            continue  # "are no longer widely used" answers when they *were* widely used
        s = stem(w)
        if found(s, plain):  # "did not approve X but approved Y" says both
            continue
        match = next((a for a in asked if found(s, {a})), None)
        if match is not None:
            return [Contradiction(asked[match], m.group(0))]
    return []


def affirmed(question: str, ranked: Sequence[str]) -> list[Contradiction]:
    """A word the question negates that its best sentence (``ranked[0]``) states
    plainly (:func:`says_denied`): "Which two importers did *not claim* ...?" over "two
    importers *claimed* that their prosecution ... which prevented them selling ...",
    "What type of income is the population *not dependent* on?" over "the population is
    *dependent* on income in the form of a wage". The negation rule
    (:func:`contradictions`) lets these through because a broad passage cue
    ("prevented", "only", *un-* words) stands somewhere in the best two sentences.

    The answer may be the next best sentence (``ranked[1]``) when it holds the names
    the question asks about ("What did Maria not claim?" is not answered by "We did
    not agree on the stand-up"), so nothing is affirmed when that one holds a strict
    negation or a word that excludes (:data:`_EXCLUDING`: *excludes, refused, lacks,
    except* ...): "What is not covered by the warranty?" over
    "The warranty covers the engine. It excludes tyres."; or a weak cue (*only, few,
    un-* words) and the denied word too: "Which plant does not need water every week?"
    over "The fig needs water once a week. The snake plant only needs water every three
    weeks." A weak cue alone there does not count: in squad-dev it stood in 2 of the 4
    next sentences of negated unanswerable questions and said nothing of the asked
    word. An unticked task box among the matching sentences answers "Which tasks did I
    not finish?" over "[x] finished the report" (:func:`open_tasks_answer`), and a best
    sentence that itself makes an exception ("The warranty covers parts but excludes
    labour": :func:`makes_exception`) may answer. Only for a question
    :func:`negation_asked` calls negated (not "Dr. No", not a yes/no question), not an
    alternative, and not a *why* question, which asks for a cause ("Why does the car not
    start?" over "The car starts only when ..."). Returns one contradiction: the
    question's negated phrase, and the sentence's word. The mirror of :func:`denied`."""
    if not ranked or negation_asked(question) is None or alternative(question):
        return []
    if _WHY.match(question) or open_tasks_answer(ranked) or makes_exception(ranked[0]):
        return []
    said = says_denied(question, ranked[0])
    if said is None:
        return []
    names = {t for t in key_tokens(question) if not t[0].isdigit()}
    for other in ranked[1:NEGATION_SENTENCES]:
        other_stems = all_stems(other)
        if not all(found(n, other_stems) for n in names):
            continue  # about someone else: "We did not agree ..." for "What did Maria not claim?"
        if strictly_negates(other) or excludes(other):
            return []
        if negates(other) and says_denied(question, other, strict=False) is not None:
            return []
    return [said]


#: a question that asks for a cause: its negation is what happened, not what a note denies
_WHY = re.compile(r"\s*(?:and\s+)?why\b", re.IGNORECASE)


def open_tasks_answer(ranked: Sequence[str]) -> bool:
    """The best sentence is a task-list item and an open one (``[ ]``) is among the
    :data:`OPEN_TASK_SENTENCES` best: "Which tasks did I not finish?" ranks "[x]
    finished the tax report" first, and "[ ] call the bank" answers it. A to-do list
    that merely comes along with other notes does not answer "What did Maria not
    claim?", nor "What did I not pack?" over a packing list of ticked items."""
    if not ranked or TASK_BOX.search(ranked[0]) is None:
        return False
    return any(map(open_task, ranked[:OPEN_TASK_SENTENCES]))


#: how many best-matching sentences :func:`open_tasks_answer` looks through
OPEN_TASK_SENTENCES = 5


def cosines_of(vectors: np.ndarray | None, qvec: np.ndarray | None, n: int) -> list[float | None]:
    """Each sentence's cosine to ``qvec`` (``None`` without vectors)."""
    if vectors is None or qvec is None or len(vectors) != n:
        return [None] * n
    return [float(v) for v in vectors @ qvec]
