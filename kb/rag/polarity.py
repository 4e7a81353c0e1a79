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
from dataclasses import dataclass, field
from typing import Any, TypeVar

import numpy as np

from kb.rag.lexical import (
    END_WORDS,
    START_WORDS,
    bounds,
    found,
    is_stopword,
    key_tokens,
    stem,
    token_matches,
    tokens,
)
from kb.rag.superlative import asked_extreme, is_item, measure
from kb.sentence_spans import AUXILIARIES, TASK_BOX

T = TypeVar("T")

#: negation words a question uses; with contractions (``didn't``) by :func:`_contracted`
QUESTION_NEGATIONS = frozenset(
    [
        "not",
        "never",
        "no",
        "none",
        "nor",
        "neither",
        "nobody",
        "nothing",
        "nowhere",
        "cannot",
        "without",
        "unable",
        "fail",
        "fails",
        "failed",
    ]
)

#: passage words that exclude or leave out (also in :data:`_PASSAGE_NEGATIONS`)
_EXCLUDING = frozenset(
    ["lack", "lacks", "lacked", "lacking", "absent", "absence", "except", "missing", "pending"]
)
#: passage-side negation words, beyond :data:`QUESTION_NEGATIONS`
_PASSAGE_NEGATIONS = _EXCLUDING | frozenset(
    [
        "failure",
        "instead",
        "rather",
        "only",
        "little",
        "few",
        "against",
        "neither",
        "incapable",
        "inability",
        "insufficient",
        "incomplete",
        "inadequate",
        "ineffective",
        "incorrect",
        "inaccurate",
        "invalid",
    ]
)

#: passage-side word beginnings that negate (refused, denies, prevented, prohibits ...)
_PASSAGE_PREFIXES = (
    "refus",
    "deni",
    "deny",
    "prevent",
    "avoid",
    "neglect",
    "ignor",
    "reject",
    "prohibit",
    "forbid",
    "forbad",
    "exclu",
)
#: an ``un-``/``non-`` word written with its hyphen ("the back door key is
#: *un-labelled*", "*non-refundable*"), which the tokens split
_HYPHEN_NEGATION = re.compile(r"\b(?:[Uu]n|[Nn]on)-(?P<word>[a-z]{3,})")  # not "UN-backed"
#: ``un``/``non`` words that do not negate
_NOT_NEGATING = ("unit", "univers", "uniq", "uniform", "union", "unix", "unic", "nonetheless")

#: how many best-matching sentences may hold the negation a question asks about
NEGATION_SENTENCES = 2

_PAIRS = """
first last | largest smallest | large small | biggest smallest | big small | most least
more less | more fewer | highest lowest | high low | higher lower | before after
increase decrease | increased decreased | earliest latest | early late | oldest youngest
old young | older younger | longest shortest | long short | best worst | better worse
major minor | maximum minimum | positive negative | north south | east west
northern southern | eastern western | win lose | won lost | top bottom | upper lower
inside outside | internal external | begin end | start end | started ended | rise fall
rose fell | import export | imports exports | imported exported | strong weak
strongest weakest | stronger weaker | fast slow | faster slower | fastest slowest
hot cold | warm cool | heavy light | rich poor | richest poorest | wealthy poor
success failure | successful unsuccessful | accept reject | accepted rejected
allow forbid | allowed forbidden | legal illegal | public private | modern ancient
open closed | opened closed | gain loss | gained lost | buy sell | bought sold
push pull | attack defend | victory defeat | male female | men women | above below
over under | entrance exit | wide narrow | widest narrowest | deep shallow
deepest shallowest | thick thin | dark light | true false | same different
similar different | common rare | frequent rare | always never | everything nothing
all none | include exclude | included excluded | agree disagree | support oppose
supported opposed | love hate | peace war | friend enemy | ally enemy | allies enemies
birth death | born died | create destroy | created destroyed | build destroy
built destroyed | cheap expensive | cheapest expensive | allow prohibit | permit prohibit
permit forbid | simple complex | inner outer | front rear | arrive depart
arrival departure | easy difficult | increase reduce | increase decline | rise decline
summer winter | absorb release | absorbed released | larger smaller | bigger smaller
longer shorter | wider narrower | deeper shallower | thicker thinner | hotter colder
warmer cooler | heavier lighter | richer poorer | wealthier poorer | cheaper dearer
easier harder | cheaper expensive | grow decline | grew declined | growth decline
advance retreat | advanced retreated | urban rural | domestic foreign | majority minority
wet dry | full empty | alive dead | forward backward | upstream downstream
inbound outbound | horizontal vertical | input output | ascend descend | appear disappear
remember forget | approve reject | approved rejected | offensive defensive
offense defense | superior inferior | temporary permanent | conservative liberal
stop begin | stop start | stopped began | stopped started
"""
#: a compass direction's other forms, read as the direction for the antonym check
#: ("the *westward* flow" asked, "the *easterly* flow" written); by the word, not its
#: stem ("Easter" is no direction)
DIRECTION_FORMS = {
    base + end: base
    for base in ("north", "south", "east", "west")
    for end in ("ward", "wards", "erly", "bound")
}


def _antonyms() -> dict[str, frozenset[str]]:
    out: dict[str, set[str]] = {}
    for pair in re.split(r"[|\n]", _PAIRS):
        if not pair.strip():
            continue
        a, b = (stem(w) for w in pair.split())
        out.setdefault(a, set()).add(b)
        out.setdefault(b, set()).add(a)
    return {k: frozenset(v) for k, v in out.items()}


#: stem -> the stems of its antonyms (``lowest`` -> ``{highest}``)
ANTONYMS = _antonyms()
#: words whose stem is an antonym's but which mean something else: *close* (near) has
#: the stem of *closed*, the opposite of *open*
NOT_ANTONYM_FORMS = frozenset(["close", "closer", "closest", "closely"])


@dataclass(frozen=True)
class Contradiction:
    """A question word its best evidence contradicts: ``passage`` is the antonym the
    sentence says instead, ``None`` for a negation the sentences lack."""

    question: str
    passage: str | None = None
    #: the id of the rule that found it (:mod:`kb.rag.rules`), set by the evidence check
    rule: str = field(default="", compare=False)

    def to_dict(self) -> dict[str, Any]:
        return {"question": self.question, "passage": self.passage, "rule": self.rule}


def _contracted(word: str) -> bool:
    w = word.lower().replace("’", "'")
    return w.endswith("n't")


def asks_negated(question: str) -> str | None:
    """The question's first negation word (``not``, ``didn't``), if any. ``No``
    before a number ("the No. 1 single") or capitalised inside the question ("Dr. No")
    is a name, not a negation."""
    toks = tokens(question)
    for i, t in enumerate(toks):
        if t.lower() == "no" and i + 1 < len(toks) and toks[i + 1][0].isdigit():
            continue
        if t == "No" and i > 0:
            continue
        if t.lower() in QUESTION_NEGATIONS or _contracted(t):
            return t
    return None


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


def negates(sentence: str) -> bool:
    """``sentence`` holds a negation cue (module docstring: the broad passage set), or
    an unticked task box (``- [ ] call the bank``: not done yet)."""
    if open_task(sentence) or _HYPHEN_NEGATION.search(sentence):
        return True
    for t in tokens(sentence):
        w = t.lower()
        if w in QUESTION_NEGATIONS or w in _PASSAGE_NEGATIONS or _contracted(w):
            return True
        if w.startswith(_PASSAGE_PREFIXES):
            return True
        if w.startswith(_NOT_NEGATING):
            continue
        if (w.startswith("un") or w.startswith("non")) and len(w) >= 6:
            return True
    return False


def all_stems(text: str) -> set[str]:
    """:func:`kb.rag.lexical.stem` of every token of ``text``, stop words included."""
    return {stem(t) for t in tokens(text)}


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
    best = all_stems(ranked[0])
    best |= {DIRECTION_FORMS[w] for w in map(str.lower, tokens(ranked[0])) if w in DIRECTION_FORMS}
    bounded = bounds(ranked[0])  # "until June 2026" says *end*, "since 2019" *start*
    best |= set(bounded)
    seen: set[str] = set()
    framed = {m.start(1) for m in _INTERVAL.finditer(question)}
    compared = asks_comparison(question)
    extreme = asked_extreme(question)
    measured = (
        extreme is not None and is_item(ranked[0]) and measure(ranked[0], extreme) is not None
    )
    for m in token_matches(question):
        t = m.group()
        s = DIRECTION_FORMS.get(t.lower()) or stem(t)
        if t.lower() in NOT_ANTONYM_FORMS or m.start() in framed:
            continue
        if s in seen or s not in ANTONYMS or s in best or _said_otherwise(s, best):
            continue
        seen.add(s)
        said = sorted(ANTONYMS[s] & best)
        if said and negated_in(ranked[0], said[0]):
            continue  # "does not permit atoms to pass" says what *prohibits* them
        if (
            said
            and t[0].isupper()
            and m.start() > 0
            and not _written(ranked[0], said[0])[:1].isupper()
        ):
            continue  # a name's word ("Old Trafford") against a plain "young": no antonym
        if said and not compared and compares(ranked[0], said[0]):
            continue  # "A is heavier than B" says which is lighter
        if said and measured and extreme is not None and t.lower() == extreme.word:
            continue  # "- XPS: heavier at 1.24 kg": a list's values say which is lighter
        if said:
            out.append(Contradiction(t, bounded.get(said[0]) or _written(ranked[0], said[0])))
    return out


def asks_comparison(question: str) -> bool:
    """The question compares two things itself ("What is older than Tom?"): a sentence's
    comparison turned round (:func:`compares`) does not answer it."""
    return any(t.lower() == "than" for t in tokens(question))


def compares(sentence: str, word_stem: str) -> bool:
    """Every word of ``sentence`` with stem ``word_stem`` compares two things: *than*
    follows it within :data:`COMPARISON_GAP` tokens ("heavier at 1.5 kg than",
    "slower than"). Such a sentence answers the opposite question by turning it
    round ("Which laptop is lighter?" over "The XPS is heavier than the X1"), unless
    the question compares too ("What is lighter than the X1?")."""
    toks = [t.lower() for t in tokens(sentence)]
    at = [i for i, t in enumerate(toks) if stem(t) == word_stem]
    return bool(at) and all("than" in toks[i + 1 : i + 1 + COMPARISON_GAP] for i in at)


#: how many tokens after a comparative its *than* may come (:func:`compares`)
COMPARISON_GAP = 4


def _written(sentence: str, word_stem: str) -> str:
    """The word of ``sentence`` whose stem (or compass direction,
    :data:`DIRECTION_FORMS`) is ``word_stem``, as written ("released" for *releas*),
    one in small letters first (not the name in "The South Africa office ... on the
    south side"); ``word_stem`` itself when none is."""
    words = [t for t in tokens(sentence) if word_stem in (stem(t), DIRECTION_FORMS.get(t.lower()))]
    return next((t for t in words if t.islower()), words[0] if words else word_stem)


#: a section heading's negation (:func:`contradictions`): *not*, *never*, *n't*
_HEADING_NEGATION = re.compile(r"\b(?:not|never)\b|n['’]t\b", re.IGNORECASE)


def heading_negates(heading: str) -> bool:
    """A section heading says *not*, *never* or *n't* ("## Not decided", "## Why it
    wasn't caught"): its section is about what is not so."""
    return _HEADING_NEGATION.search(heading) is not None


#: a verb a sentence negates: "do *not change*", "*never* reached", "did*n't* sign",
#: "*no longer* apply"; one adverb may stand between ("not always agree"). Of a negated
#: *have* the word is what is had: "does not have a *codified* constitution"
_NEGATION_ADVERBS = "always|really|yet|even|actually|fully"
_HAD = r"(?:(?:have|has|had)\s+(?:(?:a|an|the|any)\s+)?)?"
#: *nor* before the verb it denies, with the inverted auxiliary and subject between:
#: "does not carry out research *nor does it monitor* climate data"
_NOR = (
    r"\bnor(?:\s+(?:does|do|did|is|are|was|were|has|have|had|can|could|will|would|should)"
    r"\s+(?:it|he|she|they|we|you|i|this|that|these|those))?"
)
_DENIED = re.compile(
    rf"(?:\b(?:not|never|no\s+longer)|n['’]t|{_NOR})\s+(?:(?:{_NEGATION_ADVERBS})\s+)?{_HAD}"
    r"(?P<word>[^\W\d_]+)",
    re.IGNORECASE,
)


def negations(sentence: str) -> tuple[dict[int, re.Match[str]], set[str]]:
    """The words ``sentence`` negates, by where each starts (their match, of
    :data:`_DENIED`: "does *not permit*", or of a negating prefix: "*non-zero*"), and the
    stems of every other word, said plainly."""
    negated = {m.start("word"): m for m in _DENIED.finditer(sentence)}
    negated.update({m.start("word"): m for m in _HYPHEN_NEGATION.finditer(sentence)})
    plain = {stem(t.group()) for t in token_matches(sentence) if t.start() not in negated}
    return negated, plain


def negated_in(sentence: str, word_stem: str) -> bool:
    """``sentence`` writes the word of ``word_stem`` only under a negation
    (:func:`negations`): an antonym said so states the asked word's sense ("What
    prohibits atoms from passing?" over "... which does not permit atoms to pass"), as
    two negations do."""
    negated, plain = negations(sentence)
    return not found(word_stem, plain) and any(
        found(word_stem, {stem(m.group("word"))}) for m in negated.values()
    )


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
        if _imperative(sentence[: m.start()]):
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


#: a word a question negates: "did *not claim*", "is *not dependent*", "has *no
#: impact*", "*never expanded*"; one adverb may stand between ("not generally allow"),
#: and of a negated *have* the word is what is had ("never had *supply* issues")
_ASKED_NEGATED = re.compile(
    rf"\b(?:not|never|n't|no)\s+(?:(?:{_NEGATION_ADVERBS}|generally|originally|usually|often)"
    rf"\s+)?{_HAD}(?P<word>[^\W\d_]+)",
    re.IGNORECASE,
)


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
    labour": :func:`_makes_exception`) may answer. Only for a question
    :func:`negation_asked` calls negated (not "Dr. No", not a yes/no question), not an
    alternative, and not a *why* question, which asks for a cause ("Why does the car not
    start?" over "The car starts only when ..."). Returns one contradiction: the
    question's negated phrase, and the sentence's word. The mirror of :func:`denied`."""
    if not ranked or negation_asked(question) is None or alternative(question):
        return []
    if _WHY.match(question) or open_tasks_answer(ranked) or _makes_exception(ranked[0]):
        return []
    said = says_denied(question, ranked[0])
    if said is None:
        return []
    names = {t for t in key_tokens(question) if not t[0].isdigit()}
    for other in ranked[1:NEGATION_SENTENCES]:
        other_stems = all_stems(other)
        if not all(found(n, other_stems) for n in names):
            continue  # about someone else: "We did not agree ..." for "What did Maria not claim?"
        if _strictly_negates(other) or _excludes(other):
            return []
        if negates(other) and says_denied(question, other, strict=False) is not None:
            return []
    return [said]


def says_denied(question: str, sentence: str, *, strict: bool = True) -> Contradiction | None:
    """``sentence`` says a word that ``question`` negates (*not claim*, *no impact*,
    *never expanded*; one adverb may stand between: "not generally allow"; a stop word
    there says nothing: "not as correct", "not one of").

    With ``strict`` (the default) only a plain statement counts: the word not within
    :data:`_CUE_REACH` tokens of a negation cue (:func:`_cue`) on either side ("The
    snake plant *only needs* water", "*needs* water *only* every three weeks", "*refused*
    to *pay*", "*Avoid eating*"; "*Only* four main interactions are *known*" says it),
    nor a strict negation of a verb (:data:`QUESTION_NEGATIONS`, *n't*) in the three
    tokens before it (:func:`_strict_before`; another word the sentence denies leaves
    it said: "The Court of Justice *acknowledged* that the duty … *cannot* contradict
    …" for "What did the Court of Justice not acknowledge?"), and no negation of a noun
    phrase (:data:`_NOUN_NEGATION`: *no*, *nothing*, *without* …) nor an open task box
    in the sentence; with ``strict=False`` any mention. A negated contraction in the question
    ("What *didn't* Maria claim?") is not read: the word after it is the subject.
    Returns the question's phrase and the sentence's word, ``None`` otherwise."""
    asked = list(_ASKED_NEGATED.finditer(question))
    if not asked or (strict and (open_task(sentence) or _NOUN_NEGATION.search(sentence))):
        return None
    toks = tokens(sentence)
    said: dict[str, str] = {}
    for i, t in enumerate(toks):  # not next to a cue: "only *needs*", "*needs* water only"
        near_cue = any(_cue(b) for b in toks[max(0, i - _CUE_REACH) : i + _CUE_REACH + 1])
        if strict and _strict_before(toks, i):
            continue  # "did not *agree*", "cannot *contradict*": the word is denied
        if not strict or not near_cue:
            said.setdefault(stem(t), t)
    for m in asked:
        w = m.group("word")
        if is_stopword(w) or w.lower() in ("only", "just", "least", "to", "longer"):
            continue
        s = stem(w)
        word = next((said[p] for p in said if found(s, {p})), None)
        if word is not None:
            return Contradiction(m.group(0), word)
    return None


def _strict_before(toks: Sequence[str], i: int) -> bool:
    """A strict negation (:data:`QUESTION_NEGATIONS`, a contraction: *not*, *never*,
    *cannot*, *didn't*) stands among the :data:`_NEGATION_REACH` tokens before token
    ``i``: "did *not* formally *agree*" denies *agree*; "acknowledged that the duty
    *cannot* contradict …" does not deny *acknowledged*."""
    before = toks[max(0, i - _NEGATION_REACH) : i]
    return any(b.lower() in QUESTION_NEGATIONS or _contracted(b) for b in before)


#: a negation of a noun phrase, whose reach a word count cannot tell ("there are *no*
#: internal forces that are unbalanced"): the sentence may deny any word after it
_NOUN_NEGATION = re.compile(
    r"\b(?:no|none|nor|neither|nobody|nothing|nowhere|without)\b", re.IGNORECASE
)
#: how many tokens before a word a strict negation denies it ("did not formally agree")
_NEGATION_REACH = 3
#: how many tokens before or after a word a negation cue qualifies it ("only
#: *needs*", "*needs* water only")
_CUE_REACH = 2
#: a question that asks for a cause: its negation is what happened, not what a note denies
_WHY = re.compile(r"\s*(?:and\s+)?why\b", re.IGNORECASE)


def _cue(token: str) -> bool:
    """``token`` is a negation cue: a word of :data:`QUESTION_NEGATIONS` or
    :data:`_PASSAGE_NEGATIONS`, a contraction (*didn't*), a word that starts like one of
    :data:`_PASSAGE_PREFIXES` (*refused*, *avoid*, *excludes*), or the ``un``/``non``
    a hyphenated word splits off ("un-labelled")."""
    w = token.lower()
    if w in ("un", "non"):
        return True
    if w in QUESTION_NEGATIONS or w in _PASSAGE_NEGATIONS or _contracted(w):
        return True
    return w.startswith(_PASSAGE_PREFIXES)


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


def open_task(sentence: str) -> bool:
    """``sentence`` is an unticked Markdown task item (``- [ ] call the bank``,
    :data:`kb.sentence_spans.TASK_BOX`)."""
    return any(m.group("tick") == " " for m in TASK_BOX.finditer(sentence))


def _excludes(sentence: str, prefixes: tuple[str, ...] = _PASSAGE_PREFIXES) -> bool:
    """``sentence`` holds a word that excludes or refuses (:data:`_EXCLUDING`, or a
    word that starts like one of ``prefixes``: *excludes, refused, prohibits*)."""
    return any(t.lower() in _EXCLUDING or t.lower().startswith(prefixes) for t in tokens(sentence))


def _makes_exception(sentence: str) -> bool:
    """``sentence`` states what is left out (*excludes*, *except*, *lacks*, *missing*:
    :func:`_excludes` with *exclu-* words only), so it may answer a negated question
    while it says the denied word too: "The warranty covers parts but excludes labour."
    Not *refused*, *prevented* and the like, which tell of another act ("two importers
    claimed that the law, which prevented them selling beer, was unlawful")."""
    return _excludes(sentence, ("exclu",))


def _strictly_negates(sentence: str) -> bool:
    """``sentence`` holds a question-side negation word or an unticked task box."""
    if open_task(sentence):
        return True
    return any(t.lower() in QUESTION_NEGATIONS or _contracted(t) for t in tokens(sentence))


#: what may precede an imperative's negation ("Please do not ...", "- Never ...")
_IMPERATIVE_LEAD = frozenset(["do", "please", "and", "but", "so", "then"])


def _imperative(before: str) -> bool:
    """The negation that follows ``before`` (the sentence up to it) starts an
    imperative: nothing but :data:`_IMPERATIVE_LEAD` words (or a list marker) precede
    it ("Never water it ...", "Do not feed the dog after 8pm")."""
    return all(t.lower() in _IMPERATIVE_LEAD for t in tokens(before))


#: "how long *before*", "how soon *after*", "how many minutes *before*": the word asks
#: for an interval, and a note says "paged *after* fifteen minutes" for "How long
#: *before* the secondary is paged?" (not "How many goals *after* half-time?")
_INTERVAL = re.compile(
    r"\bhow\s+(?:long|soon|much\s+time|far|many\s+(?:seconds|minutes|mins|hours|days|weeks"
    r"|months|years|miles|km|kilometres|kilometers|stops))\s+(before|after)\b",
    re.IGNORECASE,
)


def _said_otherwise(s: str, best: set[str]) -> bool:
    """The sentence says a start or an end as ``s`` asks, in other words ("When did the
    war *start*?" over "it *began* in 1939 and lasted till 1945"), so the antonym it also
    says contradicts nothing."""
    for group in (START_WORDS, END_WORDS):
        if s in group and any(found(w, best) for w in group):
            return True
    return False


def cosines_of(vectors: np.ndarray | None, qvec: np.ndarray | None, n: int) -> list[float | None]:
    """Each sentence's cosine to ``qvec`` (``None`` without vectors)."""
    if vectors is None or qvec is None or len(vectors) != n:
        return [None] * n
    return [float(v) for v in vectors @ qvec]
