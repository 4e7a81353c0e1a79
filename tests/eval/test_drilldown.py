"""citation_support_rate, the per-query drill-down and its three renderings, the
compare report's regressions/improvements, and the matching mode on every table.

Answers carry verifier sentences as fixture dicts in the shape of
``AnswerRecord.to_dict()["sentences"]``; each judgement is commented.
"""

from __future__ import annotations

import io
import json
import re
from typing import Any

import numpy as np
import pytest
from rich.console import Console

from eval.compare import compare_loaded
from eval.drilldown import details, query_detail
from eval.gates import parse_gates
from eval.metrics import compute_table
from eval.metrics.answers import AnswerView, citation_support_rate
from eval.names import default_names
from eval.render_drill import answer_head
from eval.render_html import compare_html, run_html
from eval.render_markdown import compare_markdown, run_markdown
from eval.render_terminal import render_compare, render_queries, render_run
from eval.report import RunReport, breakdown_columns, comparison_json
from eval.result import AnswerResult
from kb.errors import UsageError
from tests.eval.builders import answer, check, hit, query, result, sup
from tests.eval.test_stats_compare import run_row

SUP = sup("wiki/Normans.md", snippet="Normandy is a region in France")
C1 = hit("wiki/Normans.md", "Normandy is a region in France. The Normans ruled it.", cid=12)
C2 = hit("wiki/Other.md", "Vikings sailed <script>alert(1)</script> from Denmark.", cid=40)
CTX = [C1, C2]
LOC1 = {
    "path": "wiki/Normans.md",
    "type": "markdown",
    "heading": "History",
    "page": None,
    "lines": [3, 3],
    "seconds": None,
    "display": "wiki/Normans.md › History · lines 3–3",
}


def sentence(i: int, text: str, cites: list[int], verdict: str, **kw: Any) -> dict[str, Any]:
    return {
        "i": i,
        "text": text,
        "claim": re.sub(r"\s*\[#\d+\]", "", text),
        "citations": cites,
        "support": {str(n): kw.pop("s", 0.1) for n in cites},
        "verdict": verdict,
        "score": kw.pop("score", None),
        "evidence": kw.pop("evidence", None),
        "suggested": kw.pop("suggested", None),
    }


S_OK = sentence(
    0,
    "Normandy is in France. [#1]",
    [1],
    "supported",
    s=0.93,
    score=0.93,
    evidence={
        "n": 1,
        "chunk_id": 12,
        "path": "wiki/Normans.md",
        "quote": "Normandy is a region in France.",
        "locator": LOC1,
    },
)
S_BAD = sentence(
    1,
    "The Normans came from Denmark. [#2]",
    [2],
    "unsupported",
    s=0.12,
    score=0.12,
    suggested={
        "n": 1,
        "chunk_id": 12,
        "path": "wiki/Normans.md",
        "score": 0.88,
        "quote": "The Normans ruled it.",
        "locator": LOC1,
    },
)
S_UNCITED = sentence(2, "That is all.", [], "uncited")


def verified(sentences: list[dict[str, Any]], **kw: Any) -> AnswerResult:
    text = " ".join(s["text"] for s in sentences)
    cited = sorted({n for s in sentences for n in s["citations"]})
    return answer(text, CTX, cited, sentences=sentences, mode="generate", **kw)


def test_citation_support_rate_per_query_and_aggregate() -> None:
    q = query("q1", [SUP], answer=check(any_of=["France"]))
    # 1 supported of 2 cited sentences; the uncited one is outside the denominator
    r1 = result(q, [C1], 0, verified([S_OK, S_BAD, S_UNCITED]))
    assert citation_support_rate(AnswerView.of(r1)) == 0.5  # type: ignore[arg-type]
    # recomputed from the sentences, not the stored (stale) rate
    r2 = result(q, [C1], 1, verified([S_OK], citation_support_rate=0.0))
    # no cited sentence: empty denominator -> None (not 0)
    r3 = result(q, [C1], 2, verified([S_UNCITED]))
    # refused: outside the metric
    r4 = result(q, [C1], 3, verified([S_OK], refused=True))
    # a run stored before the verifier: no sentences, no rate -> None
    r5 = result(q, [C1], 4, answer("Normandy [#1]", CTX, [1]))
    # no sentences but a stored rate (the record computed it): used as is
    r6 = result(q, [C1], 5, answer("x [#1]", CTX, [1], citation_support_rate=0.25))
    t = compute_table([r1, r2, r3, r4, r5, r6], 2)
    vals = t.values["citation_support_rate"]
    assert np.array_equal(np.isnan(vals), [False, False, True, True, True, False])
    # mean over the three queries with a value: (0.5 + 1 + 0.25) / 3
    assert t.aggregate("citation_support_rate") == (round(1.75 / 3, 4), 3)
    assert "citation_support_rate" in default_names(5, answers=True)
    assert "citation_support_rate" not in default_names(5, answers=False)
    assert "citation_support_rate" in breakdown_columns(t.names, 2)
    by = t.to_json()["by"]["answerable"]["answerable"]
    assert by["metrics"]["citation_support_rate"] == round(1.75 / 3, 4)
    gate = parse_gates(["citation_support_rate>=0.6"], 5)[0]
    assert gate.spec.group == "answer" and not gate.passes(round(1.75 / 3, 4))
    with pytest.raises(UsageError, match="needs answers"):
        parse_gates(["citation_support_rate>=0.6"], 5, answers=False)


def test_truncated_reads_old_and_new_forms() -> None:
    cut = {"dropped_chunk_ids": [104], "cut": {"chunk_id": 103}}
    old = AnswerResult.from_dict({"text": "a", "truncated": cut})
    assert old.truncated is None and old.contexts_cut == cut
    new = AnswerResult.from_dict(
        {"text": "a", "truncated": "max_tokens", "contexts_cut": cut, "answerability": {"a": 1}}
    )
    assert new.truncated == "max_tokens" and new.contexts_cut == cut
    assert AnswerResult.from_dict(new.to_dict()) == new  # round trip through storage
    plain = AnswerResult.from_dict({"text": "a"})
    assert (plain.truncated, plain.contexts_cut, plain.sentences, plain.mode) == (
        None,
        None,
        [],
        None,
    )


def drill_result() -> Any:
    q = query(
        "q<1>",
        [SUP, sup("wiki/Absent.md")],
        answer=check(any_of=["France", "Gaul"], must_contain=["Denmark"], forbidden=["Rome"]),
        category="factual",
    )
    ans = verified(
        [S_OK, S_BAD, S_UNCITED],
        truncated="max_tokens",
        answerability={"coverage": 0.75, "answerable": True, "threshold": 0.5, "missing": ["x"]},
    )
    return result(q, [C2, C1], 0, ans)


def test_query_detail() -> None:
    d = query_detail(drill_result(), K=2)
    # retrieval: the support is matched by the chunk at rank 2; the second support by none
    assert [h["matches"] for h in d["hits"]] == [[], [0]] and d["first_rank"] == 2
    assert d["supports"][0]["hit_ranks"] == [2] and d["supports"][1]["hit_ranks"] == []
    a = d["answer"]
    # cited [#1] matches support 0, [#2] matches nothing
    assert [(c["n"], c["matches"]) for c in a["cited"]] == [(1, [0]), (2, [])]
    assert d["supports"][0]["cited"] == [1]
    assert a["cited"][0]["quotes"] == ["Normandy is a region in France."]
    assert [s["verdict"] for s in a["sentences"]] == ["supported", "unsupported", "uncited"]
    assert a["sentences"][0]["evidence"]["where"] == LOC1["display"]
    assert a["sentences"][1]["suggested"]["n"] == 1 and a["sentences"][1]["suggested"]["score"]
    assert a["citation_support_rate"] == 0.5 and a["truncated"] == "max_tokens"
    # any_of "France" found (Gaul absent), must_contain "Denmark" found, "Rome" absent
    checks = a["checks"]
    assert checks["pass"] is True
    assert [i["found"] for i in checks["any_of"]] == [True, False]
    assert checks["must_contain"][0]["found"] and not checks["forbidden"][0]["found"]
    assert a["values"]["citation_support_rate"] == 0.5
    assert a["values"]["citation_precision"] == 0.5  # 1 of 2 cited chunks matches
    with pytest.raises(UsageError, match="'nope' is not in this run"):
        details([drill_result()], 2, "strict", ["nope"])


def test_drilldown_renderings_escape_and_mark_unsupported() -> None:
    r = drill_result()
    metrics = compute_table([r], 2).to_json()
    rep = RunReport(run_row(1, k=2), metrics, queries=details([r], 2, "strict")).to_json()
    assert rep["matching"] == "exact" and rep["metrics"]["matching"] == "exact"
    buf = io.StringIO()
    render_queries(rep["queries"], rep["matching"], Console(file=buf, width=200))
    text = buf.getvalue()
    assert "✗ UNSUPPORTED 0.12 The Normans came from Denmark. [#2]" in text
    assert 'suggested [#1] (0.88) wiki/Normans.md › History · lines 3–3: "The Normans' in text
    assert "matching: exact" in text and 'forbidden "Rome" absent ✓' in text
    assert "answerability coverage 0.75 vs threshold 0.50, missing: x" in text  # an old run
    a = dict(rep["queries"][0]["answer"])
    a["answerability"] = {"score": 0.3, "coverage": 0.75, "cosine": 0.5, "threshold": 0.4}
    assert "answerability 0.30 (coverage 0.75, cosine 0.50) vs threshold 0.40" in answer_head(a)
    # the passage's markup is printed literally, not interpreted
    assert "<script>alert(1)</script>" in text
    md = run_markdown(rep)
    assert "## Queries (matching: exact)" in md and "**UNSUPPORTED**" in md
    assert "<script>" not in md and r"\<script\>" in md
    html = run_html(rep)
    assert "<script" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "q&lt;1&gt;" in html and 'class="unsupported"' in html
    assert not re.search(r"<link|\ssrc=|url\(", html)
    assert html.count("(matching: exact)") >= 3  # metrics, each breakdown, queries


def pair() -> tuple[list[Any], list[Any]]:
    q1 = query("q1", [SUP], answer=check(any_of=["France"]))
    q2 = query("q2", [SUP], answer=check(any_of=["France"]))
    ra = [
        result(q1, [C1], 0, verified([S_OK])),  # correct, supported
        result(q2, [C2], 1, verified([S_BAD])),  # wrong, unsupported, retrieval miss
    ]
    rb = [
        result(q1, [C2], 0, verified([S_BAD])),  # B worse on retrieval and answer
        result(q2, [C1], 1, verified([S_OK])),  # B better on both
    ]
    return ra, rb


def test_compare_lists_regressions_and_improvements_a_beside_b() -> None:
    ra, rb = pair()
    c = compare_loaded(run_row(1, k=2), ra, run_row(2, k=2), rb, n_perm=50, n_boot=50)
    assert [(x.query_id, x.direction) for x in c.changes] == [
        ("q1", "regression"),
        ("q2", "improvement"),
    ]
    moved = {ch.metric: (ch.a, ch.b) for ch in c.changes[0].changes}
    assert moved["first_rank"] == (1.0, None) and moved["citation_support_rate"] == (1.0, 0.0)
    assert moved["answer_correct"] == (1.0, 0.0)
    data = comparison_json(c)
    assert json.loads(json.dumps(data)) == data
    assert data["matching"] == "exact"
    reg = data["changes"][0]
    assert reg["a"]["answer"]["sentences"][0]["verdict"] == "supported"
    assert reg["b"]["answer"]["sentences"][0]["verdict"] == "unsupported"
    csr = next(m for m in data["metrics"] if m["metric"] == "citation_support_rate")
    assert (csr["a"], csr["b"], csr["n"]) == (0.5, 0.5, 2)  # paired test ran on it
    buf = io.StringIO()
    render_compare(data, Console(file=buf, width=220))
    text = buf.getvalue()
    assert "Regressions: B worse than A" in text and "Improvements: B better" in text
    assert "answer metric) · matching: exact" in text
    assert "A: run 1" in text and "B: run 2" in text and "UNSUPPORTED" in text
    md = compare_markdown(data)
    assert "## Regressions: B worse than A (first matching rank or an answer metric) " in md
    assert "## Improvements: B better than A, worse on nothing (matching: exact)" in md
    assert "| | A: run 1 | B: run 2 |" in md.replace("|  |", "| |")
    html = compare_html(data)
    assert html.count('class="ab"') == 2 and "<script" not in html
    assert "&lt;script&gt;" in html


def test_show_under_doc_span_reproduces_compare() -> None:
    """Different chunkers: compare scores both runs with doc_span matching; a run's
    table under doc_span has the same numbers as compare's column A."""
    from eval.matching import ResolvedSupport

    s = sup("a.md", snippet="alpha beta gamma")
    res = [ResolvedSupport("a.md", doc_span=(10, 26))]
    # the snippet is cut by the chunk boundary at 20: strict misses, doc_span matches
    cut = hit("a.md", "xx alpha beta", cid=1, chars=(0, 20))
    ra = [result(query(f"q{i}", [s]), [cut], i, resolved=res) for i in range(2)]
    rb = [result(query(f"q{i}", [s]), [hit("o.md", cid=9)], i, resolved=res) for i in range(2)]
    c = compare_loaded(run_row(1), ra, run_row(2, "window"), rb, n_perm=50, n_boot=50)
    data = comparison_json(c)
    assert data["matching"] == "doc_span"
    exact = compute_table(ra, 5, "strict").to_json()
    span = compute_table(ra, 5, "span").to_json()
    assert exact["overall"]["metrics"]["hit@1"] == 0.0 and exact["matching"] == "exact"
    assert span["matching"] == "doc_span"
    for m in data["metrics"]:
        assert span["overall"]["metrics"][m["metric"]] == m["a"] == m["own_a"]["value"]
    buf = io.StringIO()
    render_run(RunReport(run_row(1), span).to_json(), Console(file=buf, width=160))
    assert buf.getvalue().count("matching: doc_span") >= 3


def test_compare_notes_when_a_paired_value_covers_fewer_queries() -> None:
    ra, rb = pair()
    # B's answer to q2 cites nothing: citation_support_rate is defined for q1 only in B
    rb[1] = result(rb[1].query, rb[1].hits, 1, verified([S_UNCITED]))
    data = comparison_json(
        compare_loaded(run_row(1, k=2), ra, run_row(2, k=2), rb, n_perm=50, n_boot=50),
        details=False,
    )
    csr = next(m for m in data["metrics"] if m["metric"] == "citation_support_rate")
    # paired: q1 only (A 1.0, B 0.0); A alone: q1 and q2 -> (1 + 0) / 2
    assert (csr["n"], csr["a"], csr["b"]) == (1, 1.0, 0.0)
    assert csr["own_a"] == {"value": 0.5, "n": 2} and csr["own_b"] == {"value": 0.0, "n": 1}
    assert all("a" not in x for x in data["changes"])  # details=False: no drill-downs
    note = (
        "citation_support_rate: paired over 1 queries defined in both runs; "
        "run A alone: 0.5000 over 2"
    )
    buf = io.StringIO()
    render_compare(data, Console(file=buf, width=220))
    assert note in buf.getvalue() and note in compare_markdown(data)
    assert note in compare_html(data)


def test_show_on_a_real_store_refreshes_an_old_cache_and_drills_down(tmp_path: Any) -> None:
    """Real SQLite: a run whose cached metrics predate citation_support_rate is
    recomputed by `kb eval show`; --matching doc_span never overwrites the cache."""
    from typer.testing import CliRunner

    from eval.store import EvalStore
    from kb.cli import app
    from kb.store import Store

    home = tmp_path / "kb"
    ra, _ = pair()
    res = [drill_result(), *ra[1:]]
    with Store.open(home) as store:
        es = EvalStore(store)
        rid = es.create_run("old", "g.yaml", "h", {}, {"k": 2, "answers": True})
        for r in res:
            es.save_result(rid, r)
        cache = compute_table(res, 2).to_json()
        for block in (cache["overall"], *cache["by"]["answerable"].values()):
            del block["metrics"]["citation_support_rate"]
        del cache["matching"]  # caches from before it was stored carry match_mode only
        es.finish_run(rid, "complete", cache)

    def show(*args: str) -> tuple[int, str]:
        r = CliRunner().invoke(app, ["eval", "show", "old", "--kb", str(home), *args])
        return r.exit_code, r.stdout

    code, out = show("--matching", "doc_span", "--json")
    assert code == 0 and json.loads(out)["matching"] == "doc_span"
    with Store.open(home) as store:  # doc_span is shown, not cached
        assert (
            "citation_support_rate"
            not in EvalStore(store).find_run("old").metrics["overall"]["metrics"]
        )  # type: ignore[index]
    code, out = show("--json")
    rep = json.loads(out)
    # q<1>: 1 of 2 cited sentences supported; q2: 0 of 1 -> mean 0.25
    assert rep["metrics"]["overall"]["metrics"]["citation_support_rate"] == 0.25
    assert rep["matching"] == "exact" and "queries" not in rep
    with Store.open(home) as store:
        cached = EvalStore(store).find_run("old").metrics
        assert cached is not None and cached["overall"]["metrics"]["citation_support_rate"] == 0.25
    code, out = show("--query", "q<1>")
    assert code == 0 and "✗ UNSUPPORTED 0.12 The Normans came from Denmark. [#2]" in out
    assert "By answerable" not in out  # the drill-down replaces the tables
    page = tmp_path / "r.html"
    code, _ = show("--html", str(page))
    html = page.read_text()
    assert code == 0 and html.count('<details class="query">') == 2 and "<script" not in html
