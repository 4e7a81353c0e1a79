"""``kb eval tune``'s second refusal decision: ``[answer] min_answerable``.

``kb ask`` refuses before running the model when the evidence check
(:mod:`kb.rag.answerability`) gives ``p(answerable)`` below ``min_answerable`` or, with
``require_key_terms``, when a number or name of the question is in no passage. Both
depend only on the top ``k`` passages, so the check is computed once per golden query
over the passages the tuned fusion settings retrieve (no model runs), and every
threshold of the grid is scored in memory.

Choice on the train queries: the threshold refusing the most unanswerable queries
while refusing at most ``max_over_refusal`` of the answerable ones (refusing what the
KB can answer is the costlier mistake); ties take the lowest threshold; a threshold no
better than the current one on train keeps the current one. The test queries get the
abstention / over-refusal of both, and the paired test of the decision's balanced
accuracy ``(abstention + 1 - over-refusal) / 2``. Edge cases: without answerable and
unanswerable train queries nothing is chosen (``None``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from eval.stats import PairedResult
from eval.tune import Gathered, RefusalOutcome, TuneReport, paired_decisions, ranking, split
from kb.rag.answerability import assess
from kb.rag.terms import DocFreq
from kb.search.options import SearchOptions
from kb.store import Store

EmbedFn = Callable[[Sequence[str]], np.ndarray]
#: thresholds tried: 0 (never refuse on the score) to 0.8
GRID = tuple(round(0.05 * i, 2) for i in range(17))
MAX_OVER_REFUSAL = 0.15


@dataclass(frozen=True)
class Evidence:
    """One query's evidence check: ``p(answerable)``, and whether the key-term check
    (``[answer] require_key_terms``) refuses it: a number or name in no passage, or a
    negation or antonym its best sentences contradict."""

    score: float
    keys_fail: bool

    def refused(self, threshold: float, require_keys: bool) -> bool:
        return self.score < threshold or (require_keys and self.keys_fail)


@dataclass
class AnswerableTune:
    current: float
    best: float
    train: tuple[RefusalOutcome, RefusalOutcome]  # current, best
    test: tuple[RefusalOutcome, RefusalOutcome]
    paired: PairedResult | None

    def to_json(self) -> dict[str, object]:
        def o(r: RefusalOutcome) -> dict[str, object]:
            return {
                "min_answerable": r.threshold,
                "abstention": r.abstention,
                "over_refusal": r.over_refusal,
            }

        return {
            "current": self.current,
            "best": self.best,
            "train": {"current": o(self.train[0]), "best": o(self.train[1])},
            "test": {"current": o(self.test[0]), "best": o(self.test[1])},
            "balanced_accuracy": None if self.paired is None else vars(self.paired),
            "to_apply": self.to_apply(),
        }

    def to_apply(self) -> dict[str, float]:
        """``{"min_answerable": best}`` when it changed and did not lose on test."""
        r = self.paired
        if self.best == self.current or (r is not None and r.delta is not None and r.delta < 0):
            return {}
        return {"min_answerable": self.best}


def evidence(
    store: Store,
    gathered: Sequence[Gathered],
    opts: SearchOptions,
    embed: EmbedFn | None,
    doc_freq: DocFreq | None,
) -> list[Evidence]:
    """The evidence check of every gathered query over the top ``opts.k`` chunks that
    ``opts`` ranks, as ``kb ask`` would see them (vector cosines from the candidates)."""
    out: list[Evidence] = []
    for g in gathered:
        ids = ranking(g, opts, k=opts.k)
        rows = store.hits_for(ids)
        hits = []
        for cid in ids:
            if cid not in rows:
                continue
            h = rows[cid]
            if cid in g.cands.cosine:
                h = replace(h, scores={**h.scores, "vector": g.cands.cosine[cid]})
            hits.append(h)
        a = assess(g.query.question, hits, embed, doc_freq, 0.0).answerability
        out.append(Evidence(a.score, bool(a.absent_keys or a.contradictions)))
    return out


def outcome(
    ev: Sequence[Evidence],
    gathered: Sequence[Gathered],
    rows: Sequence[int],
    threshold: float,
    require_keys: bool,
) -> RefusalOutcome:
    """Abstention and over-refusal over ``rows`` at ``threshold``."""
    ans = [ev[i].refused(threshold, require_keys) for i in rows if gathered[i].query.answerable]
    una = [ev[i].refused(threshold, require_keys) for i in rows if not gathered[i].query.answerable]
    return RefusalOutcome(
        threshold,
        None if not una else sum(una) / len(una),
        None if not ans else sum(ans) / len(ans),
    )


def tune_min_answerable(
    ev: Sequence[Evidence],
    gathered: Sequence[Gathered],
    train: Sequence[int],
    test: Sequence[int],
    current: float,
    require_keys: bool,
    max_over_refusal: float = MAX_OVER_REFUSAL,
    grid: Sequence[float] = GRID,
) -> AnswerableTune | None:
    """Choose ``min_answerable`` on ``train`` and report both on ``test`` (module docs)."""
    cur = outcome(ev, gathered, train, current, require_keys)
    if cur.abstention is None or cur.over_refusal is None:
        return None
    best, best_abst = current, -1.0
    for t in sorted(grid):
        o = outcome(ev, gathered, train, t, require_keys)
        assert o.over_refusal is not None and o.abstention is not None
        if o.over_refusal <= max_over_refusal and o.abstention > best_abst:
            best, best_abst = t, o.abstention
    if best_abst <= cur.abstention and cur.over_refusal <= max_over_refusal:
        best = current  # no gain on train: keep what the user has
    return AnswerableTune(
        current,
        best,
        (cur, outcome(ev, gathered, train, best, require_keys)),
        (
            outcome(ev, gathered, test, current, require_keys),
            outcome(ev, gathered, test, best, require_keys),
        ),
        _paired(ev, gathered, test, current, best, require_keys),
    )


def attach(
    report: TuneReport,
    store: Store,
    gathered: Sequence[Gathered],
    embed: EmbedFn | None,
    doc_freq: DocFreq | None,
    current: float,
    require_keys: bool,
    test_fraction: float,
    max_over_refusal: float = MAX_OVER_REFUSAL,
) -> None:
    """Tune ``min_answerable`` on the same split as ``report`` (the fusion settings it
    chose rank the passages) and store the outcome in ``report.answerable``."""
    train, test = split([g.query for g in gathered], test_fraction)
    ev = evidence(store, gathered, report.best, embed, doc_freq)
    report.answerable = tune_min_answerable(
        ev, gathered, train, test, current, require_keys, max_over_refusal
    )
    if report.answerable is None:
        report.warnings.append(
            "the train split needs answerable and unanswerable queries to tune min_answerable: kept"
        )


def _paired(
    ev: Sequence[Evidence],
    gathered: Sequence[Gathered],
    rows: Sequence[int],
    a: float,
    b: float,
    require_keys: bool,
) -> PairedResult | None:
    """:func:`eval.tune.paired_decisions` of thresholds ``a`` vs ``b``."""
    return paired_decisions(
        [gathered[i].query.answerable for i in rows],
        [ev[i].refused(a, require_keys) for i in rows],
        [ev[i].refused(b, require_keys) for i in rows],
    )
