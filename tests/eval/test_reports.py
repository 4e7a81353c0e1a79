"""One report object, several renderings: terminal, JSON, Markdown, offline HTML."""

from __future__ import annotations

import io
import json
import re

from rich.console import Console

from eval.compare import compare_loaded
from eval.metrics import compute_table
from eval.render_html import compare_html, run_html
from eval.render_markdown import compare_markdown, run_markdown
from eval.render_terminal import render_compare, render_run
from eval.report import RunReport, comparison_json
from tests.eval.builders import hit, miss, query, result, sup
from tests.eval.test_stats_compare import run_row, runs


def test_run_report_renderings_agree() -> None:
    s = sup("a.md", snippet="alpha")
    res = [
        result(query("q1", [s], category="x"), [hit("a.md", "alpha", cid=1)], 0),
        result(query("q2", [s], category="y", tags=("t",)), [miss(2)], 1),
    ]
    metrics = compute_table(res, 5).to_json()
    rep = RunReport(run_row(1), metrics, ["a warning"]).to_json()
    assert json.loads(json.dumps(rep)) == rep  # plain JSON
    assert rep["descriptions"]["hit@1"].startswith("1 if any of the top k hits")
    buf = io.StringIO()
    render_run(rep, Console(file=buf, width=140))
    text = buf.getvalue()
    assert "hit@1" in text and "0.5000" in text and "By category" in text
    md = run_markdown(rep)
    assert "| hit@1 | 0.5000 | 2 |" in md and "## By category" in md and "a warning" in md
    html = run_html(rep)
    assert html.startswith("<!DOCTYPE html>") and "<svg" in html and "<script" not in html


def test_compare_renderings() -> None:
    ra, rb = runs()
    c = comparison_json(compare_loaded(run_row(1), ra, run_row(2), rb, n_perm=100, n_boot=100))
    buf = io.StringIO()
    render_compare(c, Console(file=buf, width=160))
    assert "Metrics (B − A)" in buf.getvalue() and "regression" in buf.getvalue()
    md = compare_markdown(c)
    assert "chunker_version_match: **exact**" in md and "`q2`" in md
    html = compare_html(c)
    # offline: inline SVG charts, no scripts, stylesheets or external sources
    assert html.count("<svg") == 2
    assert not re.search(r"<script|<link|\ssrc=|url\(", html)
    # the deltas chart draws a CI error bar (three lines) per metric with a CI
    assert html.count('stroke="#111"') >= 3
