"""Negation in English sentences: which words a sentence denies, and its cues.

The primitives the contradiction rules (:mod:`kb.rag.polarity` for questions,
:mod:`kb.rag.claim_polarity` for the verifier's claims) are built on:

- **strict negations** (:data:`QUESTION_NEGATIONS`: *not, never, no, n't, without, unable,
  fail* ...), what a question says when it asks about what is not so;
- the **broad passage set** (:func:`negates`): also *lack, refuse, deny, prevent, only,
  few, missing*, *un-*/*non-* words, and an unticked task box ``[ ]``, because a text
  says "relatively unaffected" where a question says "not badly hit";
- the **words a sentence denies** (:func:`negations`): the word after *not*, *never*,
  *no longer*, *n't* or *nor* (one adverb may stand between: "not always agree"; of a
  negated *have*, what is had: "does not have a *codified* constitution"), and the word
  of a hyphenated *un-*/*non-* prefix ("non-refundable");
- the **words a text negates** (:func:`says_denied`): "did *not claim*", "has *no
  impact*", "*never expanded*", against a sentence that says the word plainly, not next to
  a negation cue.

Edge cases: *No* before a number ("the No. 1 single") or capitalised inside a question
("Dr. No") is a name; *un*/*non* words that do not negate (*unit, universe, union*) are
listed in :data:`_NOT_NEGATING`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from kb.rag.contradiction import Contradiction
from kb.rag.lexical import found, is_stopword, stem, token_matches, tokens
from kb.sentence_spans import TASK_BOX

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


#: a word a question negates: "did *not claim*", "is *not dependent*", "has *no
#: impact*", "*never expanded*"; one adverb may stand between ("not generally allow"),
#: and of a negated *have* the word is what is had ("never had *supply* issues")
_ASKED_NEGATED = re.compile(
    rf"\b(?:not|never|n't|no)\s+(?:(?:{_NEGATION_ADVERBS}|generally|originally|usually|often)"
    rf"\s+)?{_HAD}(?P<word>[^\W\d_]+)",
    re.IGNORECASE,
)


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
    said = plainly_said(sentence) if strict else {stem(t): t for t in tokens(sentence)[::-1]}
    for m in asked:
        w = m.group("word")
        if is_stopword(w) or w.lower() in ("only", "just", "least", "to", "longer"):
            continue
        s = stem(w)
        word = next((said[p] for p in said if found(s, {p})), None)
        if word is not None:
            return Contradiction(m.group(0), word)
    return None


def plainly_said(sentence: str) -> dict[str, str]:
    """The words ``sentence`` says plainly, by stem (the first of each as written): not
    within :data:`_CUE_REACH` tokens of a negation cue (:func:`_cue`) on either side
    ("*only needs*", "*needs* water *only*", "*refused* to *pay*"), nor after a strict
    negation among the :data:`_NEGATION_REACH` tokens before it (:func:`_strict_before`:
    "did not formally *agree*"). Empty for a sentence without words."""
    toks = tokens(sentence)
    said: dict[str, str] = {}
    for i, t in enumerate(toks):
        if _strict_before(toks, i):
            continue
        if not any(_cue(b) for b in toks[max(0, i - _CUE_REACH) : i + _CUE_REACH + 1]):
            said.setdefault(stem(t), t)
    return said


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


def open_task(sentence: str) -> bool:
    """``sentence`` is an unticked Markdown task item (``- [ ] call the bank``,
    :data:`kb.sentence_spans.TASK_BOX`)."""
    return any(m.group("tick") == " " for m in TASK_BOX.finditer(sentence))


def excludes(sentence: str, prefixes: tuple[str, ...] = _PASSAGE_PREFIXES) -> bool:
    """``sentence`` holds a word that excludes or refuses (:data:`_EXCLUDING`, or a
    word that starts like one of ``prefixes``: *excludes, refused, prohibits*)."""
    return any(t.lower() in _EXCLUDING or t.lower().startswith(prefixes) for t in tokens(sentence))


def makes_exception(sentence: str) -> bool:
    """``sentence`` states what is left out (*excludes*, *except*, *lacks*, *missing*:
    :func:`excludes` with *exclu-* words only), so it may answer a negated question
    while it says the denied word too: "The warranty covers parts but excludes labour."
    Not *refused*, *prevented* and the like, which tell of another act ("two importers
    claimed that the law, which prevented them selling beer, was unlawful")."""
    return excludes(sentence, ("exclu",))


def strictly_negates(sentence: str) -> bool:
    """``sentence`` holds a question-side negation word or an unticked task box."""
    if open_task(sentence):
        return True
    return any(t.lower() in QUESTION_NEGATIONS or _contracted(t) for t in tokens(sentence))


#: what may precede an imperative's negation ("Please do not ...", "- Never ...")
_IMPERATIVE_LEAD = frozenset(["do", "please", "and", "but", "so", "then"])


def imperative(before: str) -> bool:
    """The negation that follows ``before`` (the sentence up to it) starts an
    imperative: nothing but :data:`_IMPERATIVE_LEAD` words (or a list marker) precede
    it ("Never water it ...", "Do not feed the dog after 8pm")."""
    return all(t.lower() in _IMPERATIVE_LEAD for t in tokens(before))
