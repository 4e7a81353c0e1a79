"""Answer metrics, one function each: per query a value in [0, 1] or ``None``.

``None`` means the query is outside the metric's denominator. Queries whose answer
failed (an error; counted by ``error_rate``) or were run with ``--no-answer`` are
outside every answer metric. A cited chunk is a context named by a valid ``[#n]``;
it "matches a support" by the rules of :mod:`eval.matching` (same mode as the run's
retrieval metrics).
"""

from __future__ import annotations

from dataclasses import dataclass

from eval.golden import AnswerCheck
from eval.matching import fold, matched_supports
from eval.result import AnswerResult, QueryResult

# Words that signal an answer acknowledges disagreeing sources (acknowledge_both).
CONFLICT_CUES = (
    "conflict",
    "disagree",
    "differ",
    "contradict",
    "inconsistent",
    "however",
    "whereas",
    "on the other hand",
    "other source",
    "another source",
    "sources say",
    "according to",
)


@dataclass(frozen=True)
class AnswerView:
    """A query's answer with its cited chunks matched against the supports."""

    result: QueryResult
    answer: AnswerResult
    cited_matches: list[list[int]]  # per distinct cited chunk: matched support indexes

    @classmethod
    def of(cls, res: QueryResult, mode: str = "strict") -> AnswerView | None:
        if not res.answer_ok or res.answer is None:
            return None
        q = res.query
        cited = [
            matched_supports(h, q.supports, res.resolved, mode) for h in res.answer.cited_hits()
        ]
        return cls(res, res.answer, cited)

    @property
    def answerable(self) -> bool:
        return self.result.query.answerable

    @property
    def has_supports(self) -> bool:
        return bool(self.result.query.supports)


def check_answer(text: str, check: AnswerCheck | None) -> bool | None:
    """Case- and white-space-insensitive substring checks; ``None`` when no check given."""
    if check is None or check.empty:
        return None
    t = fold(text)
    if check.any_of and not any(fold(x) in t for x in check.any_of):
        return False
    if not all(fold(x) in t for x in check.must_contain):
        return False
    return not any(fold(x) in t for x in check.forbidden)


def citation_validity(v: AnswerView) -> float | None:
    """valid / (valid + invalid) distinct cited numbers; None without any citation.

    Example: cites [#1] and [#9] with 5 contexts -> 1 / 2 = 0.5.
    """
    total = len(v.answer.citations) + len(v.answer.invalid_citations)
    return None if total == 0 else len(v.answer.citations) / total


def attribution_hit(v: AnswerView) -> float | None:
    """1 if some cited chunk matches a support (a refusal cites nothing: 0); answerable
    queries with supports only."""
    if not (v.answerable and v.has_supports):
        return None
    return 1.0 if any(v.cited_matches) else 0.0


def citation_precision(v: AnswerView) -> float | None:
    """Cited chunks matching a support / cited chunks; answerable queries with supports
    and at least one valid citation."""
    if not (v.answerable and v.has_supports) or not v.cited_matches:
        return None
    return sum(1 for m in v.cited_matches if m) / len(v.cited_matches)


def answer_correct(v: AnswerView) -> float | None:
    """1 if not refused and the text passes the query's answer check; answerable queries
    with an answer check only."""
    ok = check_answer(v.answer.text, v.result.query.answer)
    if not v.answerable or ok is None:
        return None
    return 1.0 if ok and not v.answer.refused else 0.0


def properly_cited(v: AnswerView) -> bool:
    """No invalid citation and at least one valid one; with supports, a cited chunk
    must match one."""
    if v.answer.invalid_citations or not v.answer.citations:
        return False
    return any(v.cited_matches) if v.has_supports else True


def answered_precision(v: AnswerView) -> float | None:
    """Among shipped (non-refused) answers: 1 if the query is answerable, the answer
    passes its check (when it has one) and is properly cited, else 0. An answer to an
    unanswerable query is always 0. An answerable query with neither an answer check
    nor supports cannot be judged (None)."""
    if v.answer.refused:
        return None
    if not v.answerable:
        return 0.0
    ok = check_answer(v.answer.text, v.result.query.answer)
    if ok is None and not v.has_supports:
        return None
    return 1.0 if ok is not False and properly_cited(v) else 0.0


def abstention_accuracy(v: AnswerView) -> float | None:
    """1 if an unanswerable query was refused, else 0; unanswerable queries only."""
    return None if v.answerable else float(v.answer.refused)


def hallucination_unanswerable(v: AnswerView) -> float | None:
    """1 if an unanswerable query got an answer (not refused); unanswerable only."""
    return None if v.answerable else float(not v.answer.refused)


def over_refusal(v: AnswerView) -> float | None:
    """1 if an answerable query was refused; answerable queries only."""
    return float(v.answer.refused) if v.answerable else None


def newest_support(supports: list[dict[str, object]] | None, n: int) -> int:
    """Index of the newest support: the largest ``date`` when every support has one,
    else the last one listed (list conflicting supports oldest first)."""
    if supports and len(supports) == n and all("date" in s for s in supports):
        return max(range(n), key=lambda i: str(supports[i]["date"]))
    return n - 1


def conflict_rule_pass(v: AnswerView) -> float | None:
    """Queries with a ``conflict_rule``; a refusal fails. Rules:

    - cite_newer: a cited chunk matches the newest support and no cited chunk matches
      only older supports;
    - cite_both: every support is matched by some cited chunk;
    - acknowledge_both: cite_both, and the text contains a conflict cue
      (:data:`CONFLICT_CUES`).
    """
    q = v.result.query
    rule = q.conflict_rule
    if rule is None:
        return None
    if v.answer.refused or not q.supports:
        return 0.0
    covered = {i for m in v.cited_matches for i in m}
    if rule == "cite_newer":
        newest = newest_support([s.extra for s in q.supports], len(q.supports))
        only_old = any(m and newest not in m for m in v.cited_matches)
        return 1.0 if newest in covered and not only_old else 0.0
    both = all(i in covered for i in range(len(q.supports)))
    if rule == "cite_both":
        return float(both)
    t = fold(v.answer.text)
    return float(both and any(c in t for c in CONFLICT_CUES))


def citation_support_rate(v: AnswerView) -> float | None:
    """Cited sentences the verifier judged ``supported`` / cited sentences, per answer.

    Recomputed from the answer's ``sentences`` when stored (a sentence is cited when
    it names a valid context and its verdict is not ``uncited``), else the stored
    ``citation_support_rate`` (runs made before the verifier have neither: None).
    Refused answers and answers without a cited sentence are outside the denominator
    (None). Any query, answerable or not: it measures the citations, not the answer.

    Example: sentences supported [#1], unsupported [#2], uncited -> 1 / 2 = 0.5.
    """
    return v.answer.support_rate()


def responsive_rate(v: AnswerView) -> float | None:
    """1 if a shipped (non-refused) answer is *responsive*: it gives what the question
    asks about its subject (:mod:`kb.rag.responsive`), 0 if *partial* or *not
    responsive*; refused answers and runs stored without the verdict are outside (None).
    Any query, answerable or not.

    Example: responsive, not responsive, refused -> 1 / 2 = 0.5.
    """
    r = v.answer.responsive
    if v.answer.refused or r is None:
        return None
    return float(r.get("verdict") == "responsive")


def not_responsive_grounded(v: AnswerView) -> float | None:
    """1 if a shipped answer judged *not responsive* is still marked ``grounded`` (a
    wrong answer that looks verified; target 0), else 0; over shipped answers with a
    verdict (None otherwise)."""
    r = v.answer.responsive
    if v.answer.refused or r is None:
        return None
    return float(r.get("verdict") == "not_responsive" and v.answer.grounded)


def empty_answer(v: AnswerView) -> float | None:
    """1 if the answer is not a refusal and its text is blank; every answer."""
    return float(not v.answer.refused and not v.answer.text.strip())


FUNCS = {
    "citation_validity": citation_validity,
    "attribution_hit_rate": attribution_hit,
    "citation_precision": citation_precision,
    "answer_correct": answer_correct,
    "answered_precision": answered_precision,
    "abstention_accuracy": abstention_accuracy,
    "hallucination_rate_unanswerable": hallucination_unanswerable,
    "over_refusal_rate": over_refusal,
    "conflict_rule_pass_rate": conflict_rule_pass,
    "citation_support_rate": citation_support_rate,
    "responsive_rate": responsive_rate,
    "not_responsive_grounded_rate": not_responsive_grounded,
    "empty_answer_rate": empty_answer,
}
