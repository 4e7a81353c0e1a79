"""`kb eval tune` end to end: the demo corpus ingested with the real pipeline and the
bundled embedder, the demo golden set, in process (the session's embedder)."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from kb.config import load_settings
from tests.eval.conftest import GOLDEN
from tests.eval.test_cli_eval import invoke

pytestmark = pytest.mark.slow


def test_tune_reports_on_held_out_queries_and_writes_only_with_apply(
    demo_kb: Path, use_session_embedder: None
) -> None:
    cfg = demo_kb / "config.toml"
    # a poor start: rank fusion that all but ignores the keyword leg, no sentence rerank
    start = (
        '# my settings\n[search]\nk = 7 # keep me\nfusion = "rrf"\nkeyword_weight = 0.1\n'
        "sentence_weight = 0.0\n"
    )
    cfg.write_text(start, encoding="utf-8")
    code, out, err = invoke("eval", "tune", str(GOLDEN), "--kb", str(demo_kb), "--json")
    assert code == 0, err
    rep = json.loads(out)
    n = rep["split"]["train"] + rep["split"]["test"]
    assert n == 20 and rep["split"]["test"] == 10  # 17 answerable + 3 unanswerable, halved
    assert rep["current"]["fusion"] == "rrf" and rep["current"]["min_score"] == 0.25
    assert rep["train_mrr@10"]["best"] > rep["train_mrr@10"]["current"]
    assert rep["grid_size"] == 100 + 6  # fusion points, then 6 sentence weights
    mrr = rep["test"]["mrr@10"]
    assert mrr["n"] > 0 and 0 <= mrr["a"] <= 1 and 0 <= mrr["b"] <= 1
    assert mrr["p_value"] is not None and mrr["ci_low"] <= mrr["delta"] <= mrr["ci_high"]
    assert rep["applied"] is None
    assert cfg.read_text(encoding="utf-8") == start  # dry run: untouched
    # the evidence check's threshold, tuned on the same split without running a model
    ans = rep["answer"]
    assert ans["current"] == 0.4 and 0 <= ans["best"] <= 0.8
    for side in ("current", "best"):
        o = ans["test"][side]
        assert 0 <= o["abstention"] <= 1 and 0 <= o["over_refusal"] <= 1
    assert ans["train"]["best"]["over_refusal"] <= 0.15 or ans["best"] == ans["current"]

    code, out, err = invoke("eval", "tune", str(GOLDEN), "--kb", str(demo_kb), "--json", "--apply")
    assert code == 0, err
    rep = json.loads(out)
    text = cfg.read_text(encoding="utf-8")
    assert text.startswith("# my settings\n") and "k = 7 # keep me" in text  # kept
    written = tomllib.loads(text)["search"]
    assert rep["to_apply"]["keyword_weight"] > 0.1 and rep["applied"] == str(cfg)
    for key, value in rep["to_apply"].items():
        assert written[key] == value
    # the KB's settings now carry them
    s = load_settings(demo_kb).search
    for key, value in rep["to_apply"].items():
        assert getattr(s, key) == value
    answer = rep["answer"]["to_apply"]
    if answer:
        assert tomllib.loads(text)["answer"] == answer
        assert load_settings(demo_kb).answer.min_answerable == answer["min_answerable"]


def test_tune_rejects_a_bad_split(demo_kb: Path) -> None:
    code, _, err = invoke(
        "eval", "tune", str(GOLDEN), "--kb", str(demo_kb), "--test-fraction", "1.5"
    )
    assert code == 2 and "--test-fraction" in err
