"""Reciprocal rank fusion, hand-worked: score(d) = sum_r w_r / (rrf_k + rank_r(d))."""

from __future__ import annotations

import pytest

from kb.search.fusion import rrf


def test_rrf_equal_weights_hand_worked() -> None:
    fused = rrf({"vector": [10, 20, 30], "keyword": [30, 40]}, {}, rrf_k=60)
    got = {f.id: f.score for f in fused}
    # 10: vector rank 1 only           -> 1/61
    assert got[10] == pytest.approx(1 / 61)
    # 20: vector rank 2 only           -> 1/62
    assert got[20] == pytest.approx(1 / 62)
    # 30: vector rank 3, keyword rank 1 -> 1/63 + 1/61 (found by both: best overall)
    assert got[30] == pytest.approx(1 / 63 + 1 / 61)
    # 40: keyword rank 2 only           -> 1/62, ties with 20
    assert got[40] == pytest.approx(1 / 62)
    # order: 30 first; 10 next; 20 and 40 tie on score and best rank (2), id breaks it
    assert [f.id for f in fused] == [30, 10, 20, 40]
    assert fused[0].ranks == {"vector": 3, "keyword": 1}
    assert fused[1].ranks == {"vector": 1}


def test_rrf_weights_change_the_order() -> None:
    fused = rrf({"vector": [10, 20, 30], "keyword": [30, 40]}, {"keyword": 2.0}, rrf_k=60)
    got = {f.id: f.score for f in fused}
    # 30: 1/63 + 2/61 = 0.04866; 40: 2/62 = 0.03226; 10: 1/61 = 0.01639; 20: 1/62 = 0.01613
    assert got[30] == pytest.approx(1 / 63 + 2 / 61)
    assert got[40] == pytest.approx(2 / 62)
    assert [f.id for f in fused] == [30, 40, 10, 20]


def test_rrf_k_zero_and_tie_break() -> None:
    # rrf_k = 0 gives w / rank: 1 -> 1/1 + 1/2 = 1.5; 2 -> 1/2 + 1/1 = 1.5 (a tie);
    # both have a best rank of 1, so the smaller id comes first
    fused = rrf({"vector": [1, 2], "keyword": [2, 1]}, {}, rrf_k=0)
    assert [(f.id, f.score) for f in fused] == [(1, 1.5), (2, 1.5)]


def test_rrf_zero_weight_keeps_the_entry_with_no_score() -> None:
    # a zero-weighted ranking contributes 0 but its ranks are still reported
    fused = rrf({"vector": [5], "keyword": [6]}, {"keyword": 0.0}, rrf_k=60)
    assert [f.id for f in fused] == [5, 6]
    assert fused[1].score == 0.0 and fused[1].ranks == {"keyword": 1}


def test_rrf_duplicates_keep_first_rank_and_empty_inputs() -> None:
    # id 7 appears twice in one ranking: only its first (best) rank counts -> 1/61
    fused = rrf({"vector": [7, 8, 7]}, {}, rrf_k=60)
    assert fused[0].id == 7 and fused[0].score == pytest.approx(1 / 61)
    assert fused[0].ranks == {"vector": 1}
    assert rrf({"vector": [], "keyword": []}, {}, rrf_k=60) == []


def test_rrf_rejects_negative_k() -> None:
    with pytest.raises(ValueError):
        rrf({"vector": [1]}, {}, rrf_k=-1)


def test_search_options_validate_fusion_and_weights() -> None:
    from kb.errors import UsageError
    from kb.search import SearchOptions

    assert SearchOptions().fusion == "score"
    with pytest.raises(UsageError, match="fusion 'borda'"):
        SearchOptions(fusion="borda")
    with pytest.raises(UsageError, match="must be 0 or more"):
        SearchOptions(keyword_weight=-1.0)
