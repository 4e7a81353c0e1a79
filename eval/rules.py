"""What each answer rule is worth on a golden set (``kb eval rules``).

A run with every rule on (the *base*) records, per query, which rules fired: the
evidence check's vetoes (each contradiction names its rule; ``absent-keys``), its floors
(``every-term``, ``section-named``) and quote mode's selector (:mod:`kb.rag.rules`).
A rule that did not fire on a query changed nothing there, so turning it off changes
only the queries it fired on: those are asked again with ``[answer] rules_off = [rule]``,
and every other query keeps its base outcome. The comparison is therefore exact, at the
cost of re-asking only the affected queries.

Per query, the decision is *right* (:func:`right`) when an answerable query is answered
correctly (its ``answer`` check passes and it was not refused) or an unanswerable one is
refused. Per rule:

- ``fired``: queries it fired on; ``changed``: of those, whose right/wrong changed;
- ``wins``: queries right with the rule and wrong without; ``losses``: the reverse;
- ``delta``: (wins - losses) / all queries, the decision accuracy the rule adds;
- answer_correct, abstention and over-refusal counts with and without it;
- ``p``: the exact two-sided sign test on wins vs losses (McNemar's exact test):
  ``p = min(1, 2 * sum(C(n, i) for i <= min(wins, losses)) / 2**n)``, ``n = wins +
  losses``; 1.0 when nothing changed.

A rule *pays* when it wins more than it loses. Edge case: a query whose base answer
failed (an error) is left out.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from eval.metrics.answers import check_answer
from eval.result import QueryResult
from kb.rag.superlative import lifted_extreme


def fired(r: QueryResult) -> set[str]:
    """The rule ids that fired on query result ``r`` (empty without an answer)."""
    a = r.answer
    if a is None:
        return set()
    out: set[str] = set()
    check = a.answerability or {}
    if check.get("absent_keys"):
        out.add("absent-keys")
    for c in check.get("contradictions") or []:
        if c.get("rule"):
            out.add(str(c["rule"]))
    if check.get("every_term"):
        out.add("every-term")
    if check.get("section"):
        out.add("section-named")
    if a.selector and a.selector != "ranked":
        out.add(a.selector)
    if a.refusal_reason == "not_responsive":
        out.add("no-responsive-quote")  # refused before the model: no candidate answers
    if lifted_extreme(r.query.question, a.selector) is not None:
        out.add("extreme-value")  # quote mode's ranking lifted the extreme value asked
    for v in a.sentences:
        if (c := v.get("contradiction")) and c.get("rule"):
            out.add(str(c["rule"]))
    return out


def right(r: QueryResult) -> bool | None:
    """Was the decision right? (module docstring); ``None`` without an answer, or for an
    answerable query without an answer check."""
    a = r.answer
    if a is None or not r.answer_ok:
        return None
    if not r.query.answerable:
        return a.refused
    ok = check_answer(a.text, r.query.answer)
    return None if ok is None else (ok and not a.refused)


def sign_test(wins: int, losses: int) -> float:
    """Exact two-sided sign test (module docstring)."""
    n = wins + losses
    if n == 0:
        return 1.0
    k = min(wins, losses)
    return min(1.0, 2 * sum(math.comb(n, i) for i in range(k + 1)) / 2**n)


@dataclass
class RuleReport:
    rule: str
    kind: str
    fired: int = 0
    changed: list[str] = field(default_factory=list)
    wins: int = 0
    losses: int = 0
    n: int = 0
    counts_on: dict[str, int] = field(default_factory=dict)
    counts_off: dict[str, int] = field(default_factory=dict)

    @property
    def delta(self) -> float:
        return (self.wins - self.losses) / self.n if self.n else 0.0

    @property
    def p(self) -> float:
        return sign_test(self.wins, self.losses)

    @property
    def pays(self) -> bool:
        return self.wins > self.losses

    def to_dict(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "kind": self.kind,
            "fired": self.fired,
            "changed": list(self.changed),
            "wins": self.wins,
            "losses": self.losses,
            "delta": round(self.delta, 4),
            "p": round(self.p, 4),
            "pays": self.pays,
            "with": dict(self.counts_on),
            "without": dict(self.counts_off),
        }


def counts(results: Iterable[QueryResult]) -> dict[str, int]:
    """answer_correct, abstained and over_refused counts of ``results``."""
    out = {"answer_correct": 0, "abstained": 0, "over_refused": 0}
    for r in results:
        if r.answer is None:
            continue
        if r.query.answerable:
            out["over_refused"] += int(r.answer.refused)
            out["answer_correct"] += int(right(r) is True)
        else:
            out["abstained"] += int(r.answer.refused)
    return out


def measure(
    base: Sequence[QueryResult],
    rules: Sequence[tuple[str, str]],
    rerun: Callable[[str, list[QueryResult]], list[QueryResult]],
) -> list[RuleReport]:
    """One :class:`RuleReport` per ``(rule id, kind)``; ``rerun(rule, results)`` asks the
    queries of ``results`` again with that rule off and returns their results in order."""
    kept = [r for r in base if r.answer is not None and r.answer_ok]
    out: list[RuleReport] = []
    for rule, kind in rules:
        rep = RuleReport(rule, kind, n=len(kept))
        hit = [r for r in kept if rule in fired(r)]
        rep.fired = len(hit)
        again = rerun(rule, hit) if hit else []
        by_id = {r.query.id: r for r in again}
        for r in hit:
            other = by_id.get(r.query.id)
            if other is None:
                continue
            a, b = right(r), right(other)
            if a is None or b is None or a == b:
                continue
            rep.changed.append(r.query.id)
            rep.wins += int(a)
            rep.losses += int(b)
        rest = [r for r in kept if r.query.id not in by_id]
        rep.counts_on = counts(kept)
        rep.counts_off = counts([*rest, *again])
        out.append(rep)
    return out
