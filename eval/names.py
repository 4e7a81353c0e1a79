"""Metric names, parsed in one place: ``hit@5``, ``ndcg@10``, ``abstention_accuracy``...

Every metric is a per-query value averaged over the queries where it is *defined*
(its denominator), except latencies, which are percentiles over the queries that
have that timing. Values are rounded to 4 decimals; an empty denominator gives
``None`` (never NaN, never 0).

Ranked metrics take ``@k`` (1 <= k <= the run's ``--k``); ``recall_any@k`` is an alias
of ``hit@k``. Judge metrics (``judge_*``) are reported apart and can never gate.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kb.errors import UsageError

RETRIEVAL, ANSWER, OPS, JUDGE = "retrieval", "answer", "ops", "judge"
CHUNK = "chunk"  # retrieval, chunk level: evidence tokens (eval.metrics.chunks)

_SUP = "over queries with supports whose retrieval ran"
AT_K: dict[str, str] = {
    "hit": "1 if any of the top k hits matches a support, else 0; " + _SUP,
    "mrr": "1/rank of the first matching hit if it is within the top k, else 0; " + _SUP,
    "recall": "supports credited in the top k / number of supports (support units, "
    "each credited once); " + _SUP,
    "recall_all": "1 if every support group has a matched support in the top k, else 0; " + _SUP,
    "precision": "supports credited in the top k / k; " + _SUP,
    "map": "sum of precision@r over ranks r <= k that credit a support / number of "
    "supports; " + _SUP,
    "ndcg": "DCG@k / ideal DCG@k, gain = credited support grade, discount log2(r + 1); " + _SUP,
}
ALIASES = {"recall_any": "hit"}

_TOK = "in the embedder's word pieces over located evidence spans; over queries with them"
CHUNK_AT_K: dict[str, str] = {
    "token_recall": "evidence tokens inside the top k chunks / evidence tokens; " + _TOK,
    "token_precision": "evidence tokens inside the top k chunks / tokens of the top k "
    "chunks (overlaps counted twice); " + _TOK,
    "token_iou": "evidence tokens inside the top k chunks / (tokens of the top k chunks + "
    "evidence tokens outside them); " + _TOK,
}
CHUNK_BUDGET: dict[str, str] = {
    "budget_recall": "token recall of the first B retrieved tokens (chunks in rank order, "
    "the last one cut), B = the number after @; " + _TOK,
}


@dataclass(frozen=True)
class Scalar:
    group: str
    higher_is_better: bool
    aggregate: str  # mean | p50 | p95
    description: str


SCALARS: dict[str, Scalar] = {
    "empty_result_rate": Scalar(
        RETRIEVAL, False, "mean", "queries with no hit / queries whose retrieval ran"
    ),
    "scope_miss_rate": Scalar(
        RETRIEVAL,
        False,
        "mean",
        "queries whose every support lies outside the --path/--type/--tag scope / queries "
        "with supports (only when the run was scoped)",
    ),
    "citation_validity": Scalar(
        ANSWER,
        True,
        "mean",
        "per answer: cited numbers naming a provided context / cited numbers; over answers "
        "with at least one citation",
    ),
    "attribution_hit_rate": Scalar(
        ANSWER,
        True,
        "mean",
        "answerable queries whose cited chunks include one matching a support / answerable "
        "queries with supports and an answer",
    ),
    "citation_precision": Scalar(
        ANSWER,
        True,
        "mean",
        "per answer: cited chunks matching a support / cited chunks; over answerable "
        "queries with supports and at least one valid citation",
    ),
    "citation_support_rate": Scalar(
        ANSWER,
        True,
        "mean",
        "per answer: cited sentences the verifier judged supported by a cited passage / "
        "cited sentences; over non-refused answers with at least one cited sentence",
    ),
    "responsive_rate": Scalar(
        ANSWER,
        True,
        "mean",
        "shipped answers that give what the question asks about its subject (kb.rag."
        "responsive) / shipped answers with a verdict",
    ),
    "not_responsive_grounded_rate": Scalar(
        ANSWER,
        False,
        "mean",
        "shipped answers judged not responsive yet marked grounded / shipped answers with "
        "a verdict (target 0)",
    ),
    "answer_correct": Scalar(
        ANSWER,
        True,
        "mean",
        "not refused, contains one of any_of, all of must_contain, none of forbidden "
        "(case-insensitive) / answerable queries with an answer check",
    ),
    "answered_precision": Scalar(
        ANSWER,
        True,
        "mean",
        "answers that are correct and properly cited / shipped (non-refused) answers",
    ),
    "abstention_accuracy": Scalar(
        ANSWER, True, "mean", "unanswerable queries refused / unanswerable queries with an answer"
    ),
    "hallucination_rate_unanswerable": Scalar(
        ANSWER,
        False,
        "mean",
        "unanswerable queries answered (not refused) / unanswerable queries with an answer",
    ),
    "over_refusal_rate": Scalar(
        ANSWER, False, "mean", "answerable queries refused / answerable queries with an answer"
    ),
    "conflict_rule_pass_rate": Scalar(
        ANSWER,
        True,
        "mean",
        "answers satisfying the query's conflict_rule / queries with a conflict_rule",
    ),
    "precision_omega": Scalar(
        CHUNK,
        True,
        "mean",
        "Precision_Ω: evidence tokens / tokens of the chunks overlapping evidence (plus "
        "evidence no chunk covers); the best precision the chunking allows; " + _TOK,
    ),
    "evidence_split_rate": Scalar(
        CHUNK,
        False,
        "mean",
        "evidence spans no single chunk contains / evidence spans; over queries with them",
    ),
    "evidence_resolved_rate": Scalar(
        CHUNK,
        True,
        "mean",
        "supports whose snippet was located as a span / supports; over queries with "
        "supports (runs that recorded token spans)",
    ),
    "error_rate": Scalar(OPS, False, "mean", "queries that failed / queries run"),
    "empty_answer_rate": Scalar(
        OPS, False, "mean", "non-refused answers with empty text / answers"
    ),
    "judge_groundedness": Scalar(
        JUDGE,
        True,
        "mean",
        "LLM judge score 0-5: statements supported by the contexts; over judged answers",
    ),
    "judge_correctness": Scalar(
        JUDGE,
        True,
        "mean",
        "LLM judge score 0-5: answer agrees with the reference; over judged answers",
    ),
    "judge_disagreement_rate": Scalar(
        JUDGE,
        False,
        "mean",
        "spot-checked answers where a second judge prompt's groundedness differs by >= 2 / "
        "spot-checked answers",
    ),
}
for _stage, _what in (
    ("retrieval", "retrieval"),
    ("first_token", "first answer token"),
    ("total", "whole answer"),
):
    for _p in ("p50", "p95"):
        SCALARS[f"latency_{_stage}_{_p}"] = Scalar(
            OPS,
            False,
            _p,
            f"{_p[1:]}th percentile (linear) of seconds to the {_what}; over "
            "queries with that timing",
        )

_NAME = re.compile(r"^([a-z_][a-z0-9_]*)(?:@(\d+))?$")


@dataclass(frozen=True)
class MetricSpec:
    name: str
    family: str
    k: int | None
    group: str
    higher_is_better: bool
    aggregate: str
    description: str
    budget: int | None = None  # budget_recall@B: B tokens

    @property
    def gateable(self) -> bool:
        return self.group != JUDGE


def parse_metric(name: str) -> MetricSpec:
    """Parse ``hit@5`` / ``abstention_accuracy``; raises :class:`UsageError` naming it."""
    text = name.strip().lower()
    m = _NAME.match(text)
    if m is None:
        raise UsageError(f"unknown metric {name!r}; see `kb eval run --help` for names")
    family, k = ALIASES.get(m.group(1), m.group(1)), m.group(2)
    if family in AT_K:
        if k is None:
            raise UsageError(f"metric {name!r} needs a cutoff, e.g. {family}@5")
        if int(k) < 1:
            raise UsageError(f"metric {name!r}: the cutoff must be at least 1")
        return MetricSpec(
            f"{family}@{int(k)}", family, int(k), RETRIEVAL, True, "mean", AT_K[family]
        )
    if family in CHUNK_AT_K or family in CHUNK_BUDGET:
        if k is None or int(k) < 1:
            raise UsageError(f"metric {name!r} needs a positive cutoff, e.g. {family}@5")
        if family in CHUNK_BUDGET:
            desc = CHUNK_BUDGET[family]
            return MetricSpec(f"{family}@{int(k)}", family, None, CHUNK, True, "mean", desc, int(k))
        desc = CHUNK_AT_K[family]
        return MetricSpec(f"{family}@{int(k)}", family, int(k), CHUNK, True, "mean", desc)
    if family in SCALARS and k is None:
        s = SCALARS[family]
        return MetricSpec(
            family, family, None, s.group, s.higher_is_better, s.aggregate, s.description
        )
    raise UsageError(f"unknown metric {name!r}; known: {', '.join(known_families())}")


def known_families() -> list[str]:
    return (
        [f"{f}@k" for f in AT_K]
        + [f"{a}@k" for a in ALIASES]
        + [f"{f}@k" for f in CHUNK_AT_K]
        + [f"{f}@B" for f in CHUNK_BUDGET]
        + list(SCALARS)
    )


def retrieval_names(K: int) -> list[str]:
    """The ranked metrics reported for a run of depth ``K`` (cutoffs capped at ``K``)."""
    want = [
        "hit@1",
        "hit@3",
        "hit@5",
        "hit@10",
        "mrr@10",
        "recall@5",
        "recall@10",
        "recall_all@5",
        "recall_all@10",
        "precision@5",
        "map@10",
        "ndcg@10",
    ]
    out: list[str] = []
    for w in want:
        fam, k = w.split("@")
        name = f"{fam}@{min(int(k), K)}"
        if name not in out:
            out.append(name)
    return out + ["empty_result_rate", "scope_miss_rate"]


BUDGET_TOKENS = 512  # budget_recall's default budget: about two 256-token chunks


def chunk_names(K: int) -> list[str]:
    """The chunk-level metrics reported for a run that recorded token spans."""
    k = min(5, K)
    return [
        f"token_recall@{k}",
        f"token_precision@{k}",
        f"token_iou@{k}",
        f"budget_recall@{BUDGET_TOKENS}",
        "precision_omega",
        "evidence_split_rate",
        "evidence_resolved_rate",
    ]


def default_names(K: int, answers: bool, chunks: bool = False) -> list[str]:
    """Every non-judge metric reported for a run (answer metrics only with answers,
    chunk-level ones only when the run recorded token spans)."""
    names = retrieval_names(K) + (chunk_names(K) if chunks else [])
    if answers:
        names += [n for n, s in SCALARS.items() if s.group == ANSWER]
    names += ["error_rate", "latency_retrieval_p50", "latency_retrieval_p95"]
    if answers:
        names += [
            "empty_answer_rate",
            "latency_first_token_p50",
            "latency_first_token_p95",
            "latency_total_p50",
            "latency_total_p95",
        ]
    return names


JUDGE_NAMES = [n for n, s in SCALARS.items() if s.group == JUDGE]
