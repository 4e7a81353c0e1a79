"""The named rules that decide whether kb answers, and which sentence it quotes.

Every decision after retrieval is one of these rules, by id. A rule that fires is
recorded in the answer's trace (:mod:`kb.rag.trace`) with the words it read, so
``kb ask --explain`` can name the rule that decided; ``[answer] rules_off`` (a list of
ids) turns rules off, which is how ``kb eval rules`` measures what each one is worth
(the golden set once with every rule, then once without each).

Kinds:

- ``veto``: refuses before the model runs (with ``[answer] require_key_terms``), one
  :class:`~kb.rag.polarity.Contradiction` or an absent key per finding;
- ``floor``: lifts ``p(answerable)`` to :data:`kb.rag.answerability.EVERY_TERM_FLOOR`;
- ``selector``: quote mode's choice of the candidate sentences the model may copy
  (the first selector that gives candidates wins; ``ranked`` is the fallback and cannot
  be turned off);
- ``lift``: raises some candidates above the others in quote mode's ranking
  (:func:`kb.rag.candidates.rank_candidates`), without removing any;
- ``judge``: a verdict on the answer once written (:mod:`kb.rag.responsive`);
- ``verify``: the citation verifier's verdict on one answer sentence against its
  evidence (:mod:`kb.rag.claim_polarity`: a claim that negates or reverses its
  evidence is unsupported by it).

``lang`` is the language whose words a rule reads: ``"en"`` for the rules built on
English word lists and grammar, ``"*"`` for rules on numbers, names and structure.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

RuleKind = Literal["veto", "floor", "selector", "lift", "judge", "verify"]


@dataclass(frozen=True)
class Rule:
    """One named decision: ``id`` (what ``rules_off`` and the trace say), its kind, the
    module that holds it, the language it reads and a one-line purpose."""

    id: str
    kind: RuleKind
    module: str
    lang: str
    purpose: str


RULES: tuple[Rule, ...] = (
    # -- vetoes: the evidence check's contradiction detectors, in the order they run --
    Rule(
        "absent-keys",
        "veto",
        "kb.rag.keys",
        "*",
        "a number, code or name of the question is in no retrieved passage",
    ),
    Rule(
        "negation",
        "veto",
        "kb.rag.polarity",
        "en",
        "the question's negation or antonym is contradicted by its best sentences",
    ),
    Rule(
        "swapped-key",
        "veto",
        "kb.rag.substitution",
        "*",
        "the best sentence holds another key (name, number) where the question has its own",
    ),
    Rule(
        "swapped-word",
        "veto",
        "kb.rag.substitution",
        "en",
        "a common word of the question is replaced by another inside the same noun phrase",
    ),
    Rule(
        "reversed-move",
        "veto",
        "kb.rag.direction",
        "en",
        "the best sentence says the question's move the other way round (from/to)",
    ),
    Rule(
        "other-period",
        "veto",
        "kb.rag.periods",
        "en",
        "the best sentence states a rate only for periods the question does not ask",
    ),
    Rule(
        "denied",
        "veto",
        "kb.rag.polarity",
        "en",
        "the best sentence negates a content word the question asks without negation",
    ),
    Rule(
        "prefixed",
        "veto",
        "kb.rag.substitution",
        "en",
        "the best sentence writes a question word only with a prefix that changes it",
    ),
    Rule(
        "affirmed",
        "veto",
        "kb.rag.polarity",
        "en",
        "the best sentence states plainly what the question negates",
    ),
    # -- floors --
    Rule(
        "every-term",
        "floor",
        "kb.rag.every_term",
        "*",
        "one passage sentence holds every content word of the question",
    ),
    Rule(
        "section-named",
        "floor",
        "kb.rag.naming",
        "*",
        "a passage's own section heading names what the question asks about",
    ),
    # -- quote mode's selectors, in the order they are tried --
    Rule(
        "two-facts",
        "selector",
        "kb.rag.two_facts",
        "*",
        "a question that asks two facts quotes one sentence for each, or says which one "
        "the notes do not answer",
    ),
    Rule(
        "period",
        "selector",
        "kb.rag.asked_period",
        "*",
        "a question that names a year quotes only sentences of that year's entry or section",
    ),
    Rule(
        "typed-candidates",
        "selector",
        "kb.rag.answer_type",
        "en",
        "a question for a date, amount or number quotes only sentences that give one",
    ),
    Rule(
        "extreme-value",
        "lift",
        "kb.rag.candidates",
        "*",
        "a superlative question (latest, last, cheapest, longest) lifts the item, row or "
        "entry holding that extreme value above the others",
    ),
    Rule(
        "steps",
        "selector",
        "kb.rag.selectors",
        "en",
        "a how-to question quotes the procedure's steps in order",
    ),
    Rule(
        "rows",
        "selector",
        "kb.rag.selectors",
        "en",
        "a question for several things quotes every table row holding what it picks",
    ),
    Rule(
        "record-one",
        "selector",
        "kb.rag.selectors",
        "en",
        "one value asked of a section that labels it quotes the labelled line",
    ),
    Rule(
        "section",
        "selector",
        "kb.rag.selectors",
        "*",
        "a question whose words name a section quotes the section's sentences",
    ),
    Rule(
        "list",
        "selector",
        "kb.rag.selectors",
        "*",
        "a question a list's lead-in names quotes the list's items",
    ),
    Rule(
        "record",
        "selector",
        "kb.rag.selectors",
        "*",
        "a question a line's key names quotes the lines under that key",
    ),
    Rule(
        "tasks",
        "selector",
        "kb.rag.selectors",
        "en",
        "a question about tasks quotes the task items",
    ),
    Rule(
        "no-responsive-quote",
        "veto",
        "kb.rag.responsive",
        "en",
        "no candidate sentence gives what the question asks about its subject: refuse "
        "before the model quotes one",
    ),
    # -- judges --
    Rule(
        "responsive",
        "judge",
        "kb.rag.responsive",
        "*",
        "the answer gives what the question asks (its answer type) about its subject",
    ),
    # -- the verifier's --
    Rule(
        "claim-negated",
        "verify",
        "kb.rag.claim_polarity",
        "en",
        "an answer sentence denies a word its evidence says plainly, or says one it denies",
    ),
    Rule(
        "claim-reversed",
        "verify",
        "kb.rag.claim_polarity",
        "en",
        "an answer sentence says a word where its evidence says the word's antonym",
    ),
)

BY_ID: dict[str, Rule] = {r.id: r for r in RULES}
#: the fallback selector: the candidates as ranked (no rule to turn off)
RANKED = "ranked"


def ids(kind: RuleKind | None = None) -> list[str]:
    """Rule ids in registry order, of one kind or all."""
    return [r.id for r in RULES if kind is None or r.kind == kind]


def unknown(names: Iterable[str]) -> list[str]:
    """The names of ``names`` that are no rule id, in their order."""
    return [n for n in names if n not in BY_ID]


def on(rule_id: str, off: Iterable[str]) -> bool:
    """Is ``rule_id`` on with the rules ``off`` turned off? (An unknown id is a bug.)"""
    assert rule_id in BY_ID, rule_id
    return rule_id not in set(off)
