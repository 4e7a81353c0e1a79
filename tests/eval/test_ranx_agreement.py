"""Retrieval metrics equal ranx's on the same judgements (random runs, to 1e-4).

The random runs go through the whole path: stored hits are matched to golden supports
by text (:mod:`eval.matching`), credited (:mod:`eval.judgements`) and scored; ranx gets
the qrels/run that :func:`eval.export.ranx_dicts` derives (support units), which are
also what ``kb eval export --format trec`` writes.
"""

from __future__ import annotations

import numpy as np
import pytest

from eval.export import ranx_dicts, trec_lines
from eval.metrics import compute_table
from eval.result import QueryResult
from tests.eval.builders import hit, query, result, sup

pytestmark = [
    pytest.mark.filterwarnings("ignore:unsafe cast from"),
]

K = 10
CUTOFFS = (1, 3, 5, 10)
FAMILIES = {
    "hit": "hit_rate",
    "mrr": "mrr",
    "recall": "recall",
    "precision": "precision",
    "map": "map",
    "ndcg": "ndcg",
}


def random_results(seed: int, n: int = 150) -> list[QueryResult]:
    """Queries with 1-4 graded supports; 0-K hits, each matching a random subset of the
    supports (0, 1 or 2 of them, repeats allowed) or nothing."""
    rng = np.random.default_rng(seed)
    out = []
    cid = 0
    for qi in range(n):
        m = int(rng.integers(1, 5))
        sups = [
            sup("d.md", snippet=f"tok{qi}x{j} end", grade=int(rng.integers(1, 4))) for j in range(m)
        ]
        hits = []
        for _ in range(int(rng.integers(0, K + 1))):
            cid += 1
            r = rng.random()
            if r < 0.55:
                picked: list[int] = []
            elif r < 0.9:
                picked = [int(rng.integers(0, m))]
            else:
                picked = [int(x) for x in rng.choice(m, size=min(2, m), replace=False)]
            text = " ".join(["filler"] + [f"tok{qi}x{j} end" for j in picked])
            hits.append(hit("d.md", text, cid=cid))
        out.append(result(query(f"q{qi}", sups), hits, qi))
    return out


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_metrics_equal_ranx(seed: int) -> None:
    from ranx import Qrels, Run, evaluate

    results = random_results(seed)
    names = [f"{f}@{k}" for f in FAMILIES for k in CUTOFFS]
    ours = compute_table(results, K, names=names).summary()["metrics"]
    qrels, run = ranx_dicts(results, K)
    run = {q: docs for q, docs in run.items() if docs}  # ranx: a query needs a document
    theirs = evaluate(
        Qrels(qrels),
        Run(run),
        [f"{FAMILIES[n.split('@')[0]]}@{n.split('@')[1]}" for n in names],
        make_comparable=True,
    )
    for n in names:
        ranx_name = f"{FAMILIES[n.split('@')[0]]}@{n.split('@')[1]}"
        assert ours[n] == pytest.approx(float(theirs[ranx_name]), abs=1e-4), n


def test_trec_files_read_by_ranx_give_the_same_numbers(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from ranx import Qrels, Run, evaluate

    results = random_results(7, n=60)
    run_lines, qrel_lines = trec_lines(results, K, "test")
    (tmp_path / "r.run").write_text("\n".join(run_lines) + "\n")
    (tmp_path / "r.qrels").write_text("\n".join(qrel_lines) + "\n")
    qrels = Qrels.from_file(str(tmp_path / "r.qrels"), kind="trec")
    run = Run.from_file(str(tmp_path / "r.run"), kind="trec")
    theirs = evaluate(qrels, run, ["ndcg@10", "map@10", "mrr@10"], make_comparable=True)
    ours = compute_table(results, K, names=["ndcg@10", "map@10", "mrr@10"]).summary()["metrics"]
    assert ours["ndcg@10"] == pytest.approx(theirs["ndcg@10"], abs=1e-4)
    assert ours["map@10"] == pytest.approx(theirs["map@10"], abs=1e-4)
    assert ours["mrr@10"] == pytest.approx(theirs["mrr@10"], abs=1e-4)
    # every run line: QID Q0 DOCNO RANK SCORE TAG, scores strictly decreasing per query
    for line in run_lines:
        qid, q0, doc, rank, score, tag = line.split()
        assert q0 == "Q0" and tag == "test" and int(rank) >= 1 and float(score) > 0
