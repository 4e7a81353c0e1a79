"""The sweep leaderboard (eval.sweep): Holm correction, the minimum detectable
difference and win/tie/loss verdicts, on hand-built runs (hit at rank 1 or a miss)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from eval.render_sweep import sweep_html, sweep_markdown, sweep_text
from eval.store import RunRow
from eval.sweep import SweepEntry, holm, leaderboard, min_detectable
from tests.conftest import FIXTURES
from tests.eval.builders import hit, miss, query, result, sup


def test_holm_adjusts_step_down_and_keeps_order() -> None:
    # m = 3: sorted 0.01, 0.02, 0.04 -> 0.03, max(0.03, 0.04) = 0.04, max(0.04, 0.04) = 0.04
    assert holm([0.04, 0.01, 0.02]) == [0.04, 0.03, 0.04]
    assert holm([0.5, None, 0.9]) == [1.0, None, 1.0]  # m = 2; capped at 1
    assert holm([]) == []


def test_min_detectable_difference() -> None:
    diff = np.array([0.0, 1.0, 0.0, 1.0])  # sd (ddof 1) = 0.57735, n = 4
    assert min_detectable(diff) == pytest.approx(2.801585 * 0.57735 / 2, abs=1e-4)
    assert min_detectable(np.array([1.0])) is None
    assert min_detectable(np.zeros(10)) == 0.0


def entry(spec: str, found: list[bool], rid: int) -> SweepEntry:
    """A run where query i finds its support at rank 1 when ``found[i]``, else misses."""
    results = []
    for i, ok in enumerate(found):
        q = query(f"q{i}", [sup(f"d{i}.md")])
        hits = [hit(f"d{i}.md", "text", cid=i)] if ok else [miss(100 + i)]
        results.append(result(q, hits, pos=i))
    cfg = {"index": {"chunkers": [{"name": spec, "version": "1", "params": {}}]}}
    row = RunRow(rid, spec, 0.0, 1.0, "complete", "g.yaml", "h", cfg, {"k": 10}, None)
    build = {
        "texts_embedded": 3,
        "texts_cached": 7,
        "seconds_chunk": 1.0,
        "seconds_eval": 0.5,
        "lint": {"too_long": 0, "short": rid, "broken_fence": 0},
    }
    return SweepEntry(spec, row, results, build, 10, 50.0, 90.0)


def test_only_a_significant_difference_wins_or_loses() -> None:
    n = 60
    base = [i % 2 == 0 for i in range(n)]  # hit@1 = 0.5
    better = [True] * n  # +0.5 on 30 queries: significant
    same = list(base)  # identical: tie, p = 1
    slightly = [*base[:-2], True, True]  # one more hit: not significant
    board = leaderboard(
        [
            entry("base", base, 1),
            entry("better", better, 2),
            entry("same", same, 3),
            entry("slightly", slightly, 4),
        ],
        "hit@1",
        n_perm=2000,
        n_boot=500,
    )
    verdicts = {r.spec: r.verdict for r in board.rows}
    assert verdicts == {"base": "baseline", "better": "win", "same": "tie", "slightly": "tie"}
    better_row = board.rows[1]
    assert better_row.delta == 0.5 and better_row.p_holm is not None and better_row.p_holm < 0.05
    assert better_row.p_holm >= better_row.p_value  # type: ignore[operator]
    assert better_row.ci95[0] is not None and better_row.ci95[0] > 0
    assert board.rows[2].delta == 0.0 and board.rows[2].p_value == 1.0
    sd = float(np.std(np.array(better, float) - np.array(base, float), ddof=1))
    assert better_row.mdd == pytest.approx(2.801585 * sd / math.sqrt(n), abs=1e-3)
    assert board.warnings and "fewer than 200" in board.warnings[0]
    assert board.rows[0].seconds == 1.5 and board.rows[0].texts_cached == 7
    assert board.rows[1].extra["lint short"] == 2  # each chunking's own lint
    # a loss is a significant move the wrong way
    worse = leaderboard([entry("b", better, 1), entry("w", base, 2)], "hit@1", n_perm=2000)
    assert worse.rows[1].verdict == "loss"


def test_renderings_show_the_same_rows() -> None:
    board = leaderboard(
        [entry("base", [True, False] * 5, 1), entry("x<y>", [True] * 10, 2)],
        n_perm=500,
        n_boot=200,
    ).to_json()
    text, md, html = sweep_text(board), sweep_markdown(board), sweep_html(board)
    for out in (text, md):
        assert "base" in out and "x<y>" in out and "baseline" in out
    assert "x&lt;y&gt;" in html and "<svg" in html and "x<y>" not in html
    assert "| chunking | verdict |" in md


def test_sweep_usage_errors_stop_before_any_work(
    capsys: pytest.CaptureFixture[str], kb_home: Path
) -> None:
    from tests.cli.clirun import kb

    golden = str(FIXTURES / "golden" / "demo.yaml")
    r = kb(capsys, "eval", "sweep", golden, "--chunker", "structure")
    assert r.code == 2 and "at least two chunkings" in r.err
    r = kb(capsys, "eval", "sweep", golden, "--chunker", "structure", "--chunker", "nope")
    assert r.code == 2 and "unknown chunker 'nope'" in r.err
    same = ["--chunker", "window", "--chunker", "window:size=128"]
    r = kb(capsys, "eval", "sweep", golden, *same)
    assert r.code == 2 and "names the same chunking as window" in r.err
    r = kb(
        capsys, "eval", "sweep", golden, *same[:2], "--chunker", "b", "--metric", "answer_correct"
    )
    assert r.code == 2 and "ranked retrieval metric" in r.err
    assert not kb_home.exists()  # nothing was opened or built
