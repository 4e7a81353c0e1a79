"""Chunk-level metrics (eval.metrics.chunks), hand-worked: each count is explained.

Intervals are token indexes ``[start, end)`` of one document ``d`` unless said."""

from __future__ import annotations

import numpy as np
import pytest

from eval.matching import ResolvedSupport
from eval.metrics import chunks as cm
from eval.metrics import intervals as iv
from eval.metrics.table import compute_table
from eval.metrics.token_views import token_view
from eval.names import parse_metric
from tests.eval.builders import hit, query, result, sup


def view(evidence, hits=(), supports=None):  # type: ignore[no-untyped-def]
    ev = tuple(
        cm.EvidenceSpan(("d", s, e), None if ch is None else tuple(("d", a, b) for a, b in ch))
        for s, e, ch in evidence
    )
    hs = tuple(None if h is None else ("d", h[0], h[1]) for h in hits)
    return cm.TokenView(len(evidence) if supports is None else supports, ev, hs)


def test_interval_arithmetic() -> None:
    # 0..3 and 2..5 merge, 5..6 touches and merges; e is another document
    assert iv.union([("d", 0, 3), ("d", 2, 5), ("d", 5, 6), ("e", 0, 1)]) == [
        ("d", 0, 6),
        ("e", 0, 1),
    ]
    assert iv.size([("d", 0, 3), ("d", 2, 5)]) == 5  # tokens 0..4 once each
    assert iv.total([("d", 0, 3), ("d", 2, 5)]) == 6  # 3 + 3: the overlap counts twice
    assert iv.intersect([("d", 0, 10)], [("d", 5, 15), ("e", 0, 3)]) == [("d", 5, 10)]
    assert iv.head([("d", 0, 4), ("d", 10, 20)], 6) == [("d", 0, 4), ("d", 10, 12)]
    assert iv.head([("d", 0, 4)], 0) == []
    assert iv.union([("d", 3, 3)]) == []  # empty intervals vanish


def test_token_recall_precision_iou() -> None:
    # evidence 10..19 (10 tokens); hit 1 = 0..14 holds 10..14 (5 evidence tokens),
    # hit 2 = 30..39 holds none; hit 3 = 15..24 holds 15..19
    v = view([(10, 20, None)], [(0, 15), (30, 40), (15, 25)])
    assert cm.token_recall(v, 1) == pytest.approx(5 / 10)
    assert cm.token_recall(v, 2) == pytest.approx(5 / 10)  # hit 2 adds nothing
    assert cm.token_recall(v, 3) == pytest.approx(10 / 10)
    # precision: 5 evidence tokens / (15 + 10) retrieved tokens
    assert cm.token_precision(v, 2) == pytest.approx(5 / 25)
    # IoU: 5 / (25 retrieved + 5 evidence tokens left out)
    assert cm.token_iou(v, 2) == pytest.approx(5 / 30)
    # k = 3: 10 / (35 + 0)
    assert cm.token_iou(v, 3) == pytest.approx(10 / 35)


def test_overlapping_hits_cost_twice_in_precision() -> None:
    # evidence 0..9; hits 0..9 and 5..14 (a sliding window): 10 evidence tokens found,
    # 10 + 10 = 20 tokens retrieved although only 15 distinct ones
    v = view([(0, 10, None)], [(0, 10), (5, 15)])
    assert cm.token_precision(v, 2) == pytest.approx(10 / 20)
    assert cm.token_iou(v, 2) == pytest.approx(10 / 20)


def test_edge_cases() -> None:
    # no located evidence: undefined everywhere (None, never 0)
    v = view([], [(0, 5)], supports=1)
    assert cm.token_recall(v, 5) is None and cm.precision_omega(v) is None
    assert cm.evidence_resolved(v) == 0.0  # one support, nothing located
    # nothing retrieved: recall 0, precision 0 (no retrieved tokens), IoU 0
    v = view([(0, 4, [])], [])
    assert (cm.token_recall(v, 5), cm.token_precision(v, 5), cm.token_iou(v, 5)) == (0, 0, 0)
    # a hit without a token span adds no tokens
    v = view([(0, 4, None)], [None, (0, 2)])
    assert cm.token_recall(v, 1) == 0.0 and cm.token_recall(v, 2) == pytest.approx(0.5)
    # no supports at all: resolved is undefined
    assert cm.evidence_resolved(cm.TokenView(0, ())) is None


def test_budget_recall_cuts_the_last_chunk() -> None:
    # hits 0..99 (100 tokens) then 100..119; evidence 110..119
    v = view([(110, 120, None)], [(0, 100), (100, 120)])
    assert cm.budget_recall(v, 110) == 0.0  # second hit cut to 100..109: no evidence
    assert cm.budget_recall(v, 115) == pytest.approx(5 / 10)  # 110..114
    assert cm.budget_recall(v, 120) == 1.0
    # a big chunk cannot win by size: with budget 50 the 100-token hit gives 0..49
    v = view([(60, 70, None)], [(0, 100)])
    assert cm.budget_recall(v, 50) == 0.0


def test_precision_omega_follows_chroma() -> None:
    # evidence 10..19 overlapped by chunks 0..14 and 15..29: 10 / |0..29| = 10/30
    v = view([(10, 20, [(0, 15), (15, 30)])])
    assert cm.precision_omega(v) == pytest.approx(10 / 30)
    # evidence 10..39, only chunk 0..29 covers part: numerator 20 (10..29), denominator
    # |0..29 ∪ 30..39| = 40 (the uncovered evidence stays, Chroma's unused_highlights)
    v = view([(10, 40, [(0, 30)])])
    assert cm.precision_omega(v) == pytest.approx(20 / 40)
    # two evidence spans sharing chunk 0..19: chunks 0..19 and 20..29 counted once
    v = view([(2, 6, [(0, 20)]), (18, 22, [(0, 20), (20, 30)])])
    assert cm.precision_omega(v) == pytest.approx((4 + 4) / 30)
    # chunks unknown: undefined
    assert cm.precision_omega(view([(0, 5, None)])) is None


def test_split_evidence() -> None:
    # span 10..19 lies across chunks 0..14 and 15..29: split; 40..49 inside 30..59: not
    v = view([(10, 20, [(0, 15), (15, 30)]), (40, 50, [(30, 60)])])
    assert cm.evidence_split(v) == pytest.approx(1 / 2)
    assert [cm.is_split(e) for e in v.evidence] == [True, False]
    # evidence no chunk covers at all also counts as split (no one chunk holds it)
    assert cm.evidence_split(view([(5, 8, [])])) == 1.0


def test_metric_names_parse_in_one_place() -> None:
    s = parse_metric("token_iou@5")
    assert (s.group, s.k, s.budget) == ("chunk", 5, None)
    b = parse_metric("budget_recall@512")
    assert (b.name, b.k, b.budget) == ("budget_recall@512", None, 512)
    assert parse_metric("precision_omega").higher_is_better
    assert not parse_metric("evidence_split_rate").higher_is_better
    from kb.errors import UsageError

    with pytest.raises(UsageError, match="cutoff"):
        parse_metric("token_recall")


def _resolved(span, chunks):  # type: ignore[no-untyped-def]
    return ResolvedSupport("d", True, (0, 1), "chunk", None, span, chunks)


def test_table_reads_token_spans_from_stored_rows() -> None:
    # q1: evidence 10..19, chunking 0..14, 15..29; hits 0..14 then 15..29
    q1 = query("q1", [sup("d", snippet="x")])
    r1 = result(
        q1,
        [hit("d", cid=1, tokens=(0, 15)), hit("d", cid=2, tokens=(15, 30))],
        resolved=[_resolved((10, 20), ((0, 15), (15, 30)))],
    )
    # q2: two supports, one located (0..4 inside chunk 0..9), one hit 50..59 (a miss)
    q2 = query("q2", [sup("d", snippet="y"), sup("d", snippet="z")])
    r2 = result(
        q2,
        [hit("d", cid=3, tokens=(50, 60))],
        pos=1,
        resolved=[_resolved((0, 4), ((0, 10),)), ResolvedSupport("d", True, None, "missing")],
    )
    # q3: unanswerable, never counts
    r3 = result(query("q3", [], answerable=False), [hit("d", cid=4, tokens=(0, 5))], pos=2)
    t = compute_table([r1, r2, r3], 2)
    assert "precision_omega" in t.names and "token_iou@2" in t.names
    # token_recall@2: q1 10/10 (both hits), q2 0/4 (50..59 misses 0..3)
    np.testing.assert_allclose(t.values["token_recall@2"][:2], [1.0, 0.0])
    # Ω: q1 10/30, q2 4/10
    np.testing.assert_allclose(t.values["precision_omega"][:2], [10 / 30, 4 / 10])
    assert np.isnan(t.values["precision_omega"][2])
    # resolved: q1 1/1, q2 1/2 -> 0.75; split: q1 1/1 (10..19 across two chunks), q2 0/1
    assert t.aggregate("evidence_resolved_rate") == (0.75, 2)
    assert t.aggregate("evidence_split_rate") == (0.5, 2)
    assert token_view(r2).supports == 2
    # the split span is listed by query and support index
    assert t.to_json()["split_evidence"] == [{"query_id": "q1", "support": 0, "path": "d"}]
    # token_precision@2: q1 10 / (15 + 15), q2 0 / 10
    np.testing.assert_allclose(t.values["token_precision@2"][:2], [10 / 30, 0.0])


def test_runs_without_token_spans_report_no_chunk_metrics() -> None:
    q = query("q1", [sup("d", snippet="x")])
    r = result(q, [hit("d", cid=1)], resolved=[ResolvedSupport("d", True, (0, 3), "chunk")])
    t = compute_table([r], 5)
    assert not any(parse_metric(n).group == "chunk" for n in t.names)
    # asked for explicitly, they are undefined (None), not 0
    t = compute_table([r], 5, names=["precision_omega", "token_recall@5"])
    assert t.aggregate("precision_omega") == (None, 0)


def test_stored_rows_round_trip_token_fields() -> None:
    from eval.matching import StoredHit

    h = hit("d", cid=1, chars=(0, 9), tokens=(0, 3))
    assert StoredHit.from_dict(h.to_dict()) == h
    assert "tokens" not in hit("d").to_dict()  # older rows keep their shape
    r = _resolved((1, 2), ((0, 3),))
    assert ResolvedSupport.from_dict(r.to_dict()) == r
