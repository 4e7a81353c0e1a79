"""The verifier's polarity rules: a claim that negates or reverses its evidence is not
supported by it.

The verifier's support score (:mod:`kb.rag.verify`) is word overlap and cosine, which an
inserted *not* barely moves: "The committee did not approve the budget" shares every
content word with "The committee approved the budget". Two named rules
(:mod:`kb.rag.rules`) read the claim against its evidence sentence (the cited passage's
best-supporting sentence):

- ``claim-negated``: the claim denies a word its evidence says plainly ("did *not
  approve*", "*never* reached", "has *no* children", "*isn't* the capital"), or says
  plainly a word its evidence denies ("the laws *change*" over "the laws do *not
  change*"). A word is *denied* when a negation (*not, never, no, n't, cannot, nor*)
  stands before it with at most :data:`_SKIP` stop words or numbers between ("was not
  *the* first", :func:`denials`); it is *said plainly* when no negation cue stands
  within two tokens of it nor a strict negation in the three before it
  (:func:`kb.rag.negation.plainly_said`: "*only needs*", "*refused* to *pay*" say
  nothing plainly). Not flagged: stop words
  ("not be", "not only"), a negation that dates the act ("did not sign *until* 1990"),
  *no longer* (it says the word held before), an imperative ("Never water it ..."), and a
  word the other side says both ways.
- ``claim-reversed``: the claim says a word where its evidence says its antonym
  (:func:`kb.rag.antonyms.reversals`: *decreased* for *increased*, *after* for *before*,
  *north* for *south*), with the same exceptions as for a question (a name's word, a
  start said in other words); a comparison counts only when both compare with the same
  thing after *than* ("*more* commonly used than the newton" over "*less* commonly used
  than the newton"), as one turned round says the same ("Ben is younger than Tom").

Either gives a :class:`Reversal` naming the rule and both phrases; the verifier then
calls the sentence unsupported by that passage. Measured by ``bench/polarity.py`` on
perturbed golden sentences (the figures are in the CHANGELOG and the docs' measurements
page). Edge cases: an empty claim or evidence gives ``None``; a quoted claim (a copy of
its evidence) never contradicts it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from kb.rag.antonyms import reversals
from kb.rag.lexical import found, is_stopword, stem, token_matches, tokens
from kb.rag.negation import imperative, plainly_said

#: the rule ids (:mod:`kb.rag.rules`)
NEGATED = "claim-negated"
REVERSED = "claim-reversed"

#: a negation: *not, never, no, cannot, nor* and the *n't* of a contraction
_NEGATION = re.compile(r"\b(?:not|never|no|cannot|nor)\b|n['’]t\b", re.IGNORECASE)
#: at most this many stop words or numbers may stand between a negation and the word it
#: denies ("was not *the* first", "isn't a 2017 ... series")
_SKIP = 3
#: words after a negation that make it deny nothing of its own ("not only", "not just",
#: "no longer", "not until", "not least", "no more than", "not one of")
_EMPTY = frozenset(
    ["only", "just", "least", "longer", "more", "less", "one", "until", "till", "unless"]
    + ["merely", "simply", "necessarily", "yet"]
)
#: "did not sign *until* 1990": the negation dates the act, it does not deny it
_UNTIL = re.compile(r"[^.;:!?,]*?\b(?:until|till|unless)\b", re.IGNORECASE)
#: a mark that ends a negation's reach (a comma, a colon, a bracket, a dash)
_MARK = re.compile(r"[,;:.!?()\[\]—–]")


@dataclass(frozen=True)
class Reversal:
    """What a claim says against its evidence: ``claim`` and ``evidence`` are the two
    phrases as written ("did not approve", "approved")."""

    rule: str
    claim: str
    evidence: str

    def line(self, n: int | None = None) -> str:
        """The user's words: ``says "did not approve" where [#1] says "approved"``."""
        where = f"[#{n}]" if n is not None else "the source"
        return f'says "{self.claim}" where {where} says "{self.evidence}"'

    def to_dict(self, n: int | None = None) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "claim": self.claim,
            "evidence": self.evidence,
            "line": self.line(n),
        }


def denials(text: str) -> list[tuple[str, str]]:
    """``(phrase, word)`` for each word ``text`` denies (module docstring): the first
    content word within :data:`_SKIP` stop words or numbers after a negation ("did not
    approve" -> ``("not approve", "approve")``, "was not in the catering business" ->
    ``"catering"``). None when an :data:`_EMPTY` word comes first ("not only", "no
    longer"), a mark ends the reach ("not, through the process,"), the negation dates
    the act (*until* follows) or starts an imperative ("Never water it ...")."""
    out: list[tuple[str, str]] = []
    for m in _NEGATION.finditer(text):
        if _UNTIL.match(text, m.end()) or imperative(text[: m.start()]):
            continue
        at = m.end()
        for n, t in enumerate(token_matches(text[m.end() :])):
            w, gap = t.group(), text[at : m.end() + t.start()]
            at = m.end() + t.end()
            if n > _SKIP or _MARK.search(gap) or w.lower() in _EMPTY:
                break
            if w[0].isdigit() or is_stopword(w) or _NEGATION.fullmatch(w):
                continue
            out.append((text[m.start() : at], w))
            break
    return out


def _denied_stems(text: str) -> set[str]:
    return {stem(w) for _, w in denials(text)}


def _negated(claim: str, evidence: str) -> Reversal | None:
    """The ``claim-negated`` rule (module docstring), both ways."""
    evidence_denies = _denied_stems(evidence)
    evidence_says = plainly_said(evidence)
    for phrase, w in denials(claim):
        s = stem(w)
        if any(found(s, {d}) for d in evidence_denies):
            continue  # the evidence denies it too
        word = next((evidence_says[p] for p in evidence_says if found(s, {p})), None)
        if word is not None:
            return Reversal(NEGATED, phrase, word)
    claim_denies = _denied_stems(claim)
    claim_says = plainly_said(claim)
    for phrase, w in denials(evidence):
        s = stem(w)
        if any(found(s, {d}) for d in claim_denies) or found(s, set(evidence_says)):
            continue  # the claim denies it too, or the evidence also says it plainly
        word = next((claim_says[p] for p in claim_says if found(s, {p})), None)
        if word is not None:
            return Reversal(NEGATED, word, phrase)
    return None


def _same_comparison(claim: str, evidence: str) -> bool:
    """Both compare with the same thing after *than* ("more commonly used than the
    newton" / "less commonly used than the newton"): then an antonym before it reverses
    the claim. Otherwise a comparison may be turned round ("Ben is younger than Tom" says
    what "Tom is older than Ben" does), which is not read."""

    def after_than(text: str) -> list[str] | None:
        words = [t.lower() for t in tokens(text)]
        if "than" not in words:
            return None
        i = words.index("than")
        return words[i + 1 : i + 3]

    a, b = after_than(claim), after_than(evidence)
    return a is not None and a == b


def reversal(claim: str, evidence: str, off: Iterable[str] = ()) -> Reversal | None:
    """The first of the two rules (``claim-negated``, then ``claim-reversed``) that finds
    ``claim`` saying the opposite of ``evidence``, skipping the ids in ``off``; ``None``
    when neither does, or either text is empty."""
    if not claim.strip() or not evidence.strip():
        return None
    skip = set(off)
    if " ".join(claim.split()).lower() == " ".join(evidence.split()).lower():
        return None  # a quote of its evidence
    if NEGATED not in skip and (found_negated := _negated(claim, evidence)) is not None:
        return found_negated
    if REVERSED not in skip:
        for c in reversals(claim, evidence, compared=_same_comparison(claim, evidence)):
            return Reversal(REVERSED, c.question, c.passage or "")
    return None
