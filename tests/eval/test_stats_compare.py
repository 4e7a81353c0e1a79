"""Paired tests, bootstrap CIs, win/loss/draw/regression and gates."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from eval import stats
from eval.compare import compare_loaded, outcome_of
from eval.gates import check_gates, enforce, parse_gate, parse_gates
from eval.store import RunRow
from kb.errors import GateFailedError, UsageError
from tests.eval.builders import hit, miss, query, result, sup


def exact_p(a: np.ndarray, b: np.ndarray) -> float:
    """Exact two-sided paired permutation p-value by enumerating every swap pattern."""
    d = b - a
    obs = abs(d.mean())
    signs = itertools.product((1, -1), repeat=len(d))
    vals = [abs((np.array(s) * d).mean()) for s in signs]
    return sum(v >= obs - 1e-12 for v in vals) / len(vals)


def test_randomization_test_agrees_with_exact_enumeration() -> None:
    a = np.array([0.0, 1, 0, 0, 1, 0, 0, 1, 0, 0])
    b = np.array([1.0, 1, 1, 0, 1, 1, 0, 1, 1, 0])
    p = stats.paired_randomization(a, b, n_perm=20000)
    assert p == pytest.approx(exact_p(a, b), abs=0.01)  # exact: 5 of 5 flips -> 0.0625
    assert stats.paired_randomization(a, a) == 1.0  # nothing differs
    assert stats.paired_randomization(np.array([]), np.array([])) is None
    # fixed seed: the same inputs give the same p
    assert stats.paired_randomization(a, b) == stats.paired_randomization(a, b)


def test_bootstrap_ci_brackets_the_delta() -> None:
    rng = np.random.default_rng(0)
    a = rng.random(200)
    b = a + 0.1 + rng.normal(0, 0.05, 200)
    lo, hi = stats.bootstrap_ci(a, b)  # type: ignore[misc]
    assert lo < 0.1 < hi and hi - lo < 0.05
    r = stats.paired(a, b)
    assert r.n == 200 and r.delta == pytest.approx(b.mean() - a.mean(), abs=1e-4)
    assert r.p_value is not None and r.p_value < 0.001
    # percentiles (latency metrics) use the same machinery
    r95 = stats.paired(a, b, "p95", n_perm=500, n_boot=500)
    assert r95.delta == pytest.approx(np.percentile(b, 95) - np.percentile(a, 95), abs=1e-4)


@pytest.mark.parametrize(
    ("rank_a", "rank_b", "outcome", "regression"),
    [
        (None, 3, "win", False),  # B found a support A missed
        (4, 2, "win", False),  # B ranks it better
        (2, 4, "loss", False),  # B ranks it worse
        (2, None, "loss", True),  # A hit, B missed within k: a regression
        (3, 3, "draw", False),
        (None, None, "draw", False),
    ],
)
def test_outcomes(rank_a: int | None, rank_b: int | None, outcome: str, regression: bool) -> None:
    assert outcome_of(rank_a, rank_b) == (outcome, regression)


def run_row(rid: int, chunker: str = "structure", version: str = "1", k: int = 5) -> RunRow:
    cfg = {
        "index": {
            "chunkers": [{"name": chunker, "version": version, "params": {}}],
            "corpus_fingerprint": "f",
            "embedding": {"model_id": "m", "dim": 3},
        }
    }
    return RunRow(rid, f"r{rid}", 0.0, 1.0, "complete", "g.yaml", "h", cfg, {"k": k}, None)


S = sup("a.md", snippet="alpha")


def runs() -> tuple[list, list]:
    match = hit("a.md", "alpha", cid=1)
    qs = [query(f"q{i}", [S], category="c1" if i < 2 else "c2") for i in range(4)]
    ra = [
        result(qs[0], [match]),
        result(qs[1], [miss(2), match]),
        result(qs[2], [match]),
        result(qs[3], [miss(3)]),
    ]
    rb = [
        result(qs[0], [match]),  # draw (1 vs 1)
        result(qs[1], [match]),  # win (2 -> 1)
        result(qs[2], [miss(4)]),  # regression (1 -> none)
        result(qs[3], [miss(5)]),
    ]  # draw (none vs none)
    return ra, rb


def test_compare_counts_outcomes_and_deltas() -> None:
    ra, rb = runs()
    c = compare_loaded(run_row(1), ra, run_row(2), rb, n_perm=200, n_boot=200)
    assert c.chunker_version_match == "exact" and c.match_mode == "strict"
    assert c.totals() == {"win": 1, "loss": 1, "draw": 2, "regression": 1}
    assert c.by_category()["c2"] == {"win": 0, "loss": 1, "draw": 1, "regression": 1}
    assert [o.query_id for o in c.regressions()] == ["q2"]
    hit1 = next(d for d in c.metrics if d.spec.name == "hit@1")
    # hit@1: A = [1, 0, 1, 0] -> 0.5; B = [1, 1, 0, 0] -> 0.5; delta 0
    assert (hit1.result.a, hit1.result.b, hit1.result.delta) == (0.5, 0.5, 0.0)
    mrr = next(d for d in c.metrics if d.spec.name == "mrr@5")
    # A rr = [1, .5, 1, 0] -> .625; B = [1, 1, 0, 0] -> .5
    assert mrr.result.delta == -0.125 and mrr.improved is False


def test_different_chunkers_fall_back_to_spans_or_are_refused() -> None:
    ra, rb = runs()
    c = compare_loaded(run_row(1), ra, run_row(2, "window"), rb, n_perm=50, n_boot=50)
    assert c.chunker_version_match == "fallback_doc_span" and c.match_mode == "span"
    with pytest.raises(UsageError, match="different chunkers"):
        compare_loaded(
            run_row(1), ra, run_row(2, "structure", "2"), rb, strict_chunker_version=True
        )


def test_compare_pairs_only_shared_queries_and_notes_it() -> None:
    ra, rb = runs()
    c = compare_loaded(run_row(1), ra, run_row(2), rb[:3], n_perm=50, n_boot=50)
    assert len(c.outcomes) == 3
    assert any("1 queries only in A" in n for n in c.notes)


def test_gates() -> None:
    g = parse_gate(" hit@5 >= 0.8 ")
    assert (g.spec.name, g.op, g.threshold) == ("hit@5", ">=", 0.8)
    assert check_gates([g], {"hit@5": 0.8}) == []
    assert check_gates([g], {"hit@5": 0.79}) == ["hit@5 >= 0.8 (got 0.79)"]
    # no value (empty denominator) fails: nothing was measured
    assert "n/a" in check_gates([g], {"hit@5": None})[0]
    h = parse_gate("hallucination_rate_unanswerable<=0.05")
    with pytest.raises(GateFailedError, match="hallucination_rate_unanswerable <= 0.05"):
        enforce([g, h], {"hit@5": 0.9, "hallucination_rate_unanswerable": 0.2})
    for bad, msg in (
        ("hit@5 => 0.8", "expected METRIC OP NUMBER"),
        ("hitt@5>=0.8", "unknown metric"),
        ("judge_correctness>=3", "cannot gate"),
        ("hit@5>=high", "expected METRIC OP NUMBER"),
    ):
        with pytest.raises(UsageError, match=msg):
            parse_gate(bad)
    with pytest.raises(UsageError, match="needs --k 20"):
        parse_gates(["hit@20>=0.5"], 10)
    with pytest.raises(UsageError, match="needs answers"):
        parse_gates(["answer_correct>=0.5"], 10, answers=False)
