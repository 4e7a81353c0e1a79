"""Single-file offline HTML reports: inline CSS and inline SVG charts, no scripts, no
external assets (the file opens anywhere, with no network)."""

from __future__ import annotations

from html import escape
from typing import Any

from eval import svg
from eval.render_terminal import fmt, fmt_delta, when
from eval.report import breakdown_columns

CSS = """
body{font-family:system-ui,sans-serif;margin:2rem auto;max-width:960px;color:#222;padding:0 1rem}
table{border-collapse:collapse;margin:0.5rem 0 1.5rem}
th,td{border-bottom:1px solid #ddd;padding:4px 10px;text-align:right}
th:first-child,td:first-child{text-align:left}
th{background:#f5f5f5}
.good{color:#2e7d32}.bad{color:#c62828}.note{color:#555}
code{background:#f3f3f3;padding:0 3px}
"""


def _page(title: str, body: list[str]) -> str:
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{escape(title)}</title><style>{CSS}</style></head><body>"
        + "\n".join(body)
        + "</body></html>\n"
    )


def _table(head: list[str], rows: list[list[str]]) -> str:
    """``rows`` cells are already-escaped HTML."""
    h = "".join(f"<th>{escape(x)}</th>" for x in head)
    b = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in r) + "</tr>" for r in rows)
    return f"<table><thead><tr>{h}</tr></thead><tbody>{b}</tbody></table>"


def compare_html(c: dict[str, Any]) -> str:
    a, b = c["a"], c["b"]
    title = f"kb eval compare: run {a['id']} → run {b['id']}"
    body = [
        f"<h1>{escape(title)}</h1>",
        f"<p>A: run {a['id']} <code>{escape(a['name'])}</code> "
        f"({escape(', '.join(a['chunkers']) or '—')}) · B: run {b['id']} "
        f"<code>{escape(b['name'])}</code> ({escape(', '.join(b['chunkers']) or '—')})</p>",
        f"<p>k = {c['k']} · chunker_version_match: <b>{c['chunker_version_match']}</b> · "
        f"{escape(c['test']['kind'])}, {c['test']['permutations']} permutations, seed "
        f"{c['test']['seed']}</p>",
        "<h2>Metric deltas (B − A) with 95% CI</h2>",
        svg.delta_chart([r for r in c["metrics"] if not r["metric"].startswith("latency")]),
    ]
    rows = []
    for r in c["metrics"] + c["judge"]:
        cls = "good" if r["improved"] is True else ("bad" if r["improved"] is False else "")
        ci = r["ci95"]
        rows.append(
            [
                escape(r["metric"]),
                str(r["n"]),
                fmt(r["a"]),
                fmt(r["b"]),
                f'<span class="{cls}">{fmt_delta(r["delta"])}</span>',
                "—" if ci[0] is None else f"[{ci[0]:+.4f}, {ci[1]:+.4f}]",
                fmt(r["p_value"]),
            ]
        )
    body.append(_table(["metric", "n", "A", "B", "Δ", "95% CI", "p"], rows))
    body += [
        "<h2>Wins, losses and regressions per category</h2>",
        svg.outcome_chart(c["outcomes"]["by_category"]),
    ]
    keys = ("win", "loss", "draw", "regression")
    orows = [
        [escape(cat), *(str(r[k]) for k in keys)] for cat, r in c["outcomes"]["by_category"].items()
    ]
    orows.append(["<b>total</b>", *(str(c["outcomes"]["totals"][k]) for k in keys)])
    body.append(_table(["category", *keys], orows))
    if c["regressions"]:
        body.append(
            "<h2>Regressions</h2><ul>"
            + "".join(
                f"<li><code>{escape(r['query_id'])}</code> ({escape(r['category'])}), A rank "
                f"{r['rank_a']}</li>"
                for r in c["regressions"]
            )
            + "</ul>"
        )
    if c["notes"]:
        body.append(
            "<h2>Notes</h2><ul>"
            + "".join(f'<li class="note">{escape(n)}</li>' for n in c["notes"])
            + "</ul>"
        )
    return _page(title, body)


def run_html(rep: dict[str, Any]) -> str:
    run, m = rep["run"], rep["metrics"]
    title = f"kb eval run {run['id']}: {run['name']}"
    o = m["overall"]
    body = [
        f"<h1>{escape(title)}</h1>",
        f"<p>{escape(run['status'])} · {run['queries']} queries · k = {m.get('k')} · "
        f"{when(run['created_at'])} · golden <code>{escape(run['golden_path'])}</code></p>",
        svg.metric_bars({n: v for n, v in o["metrics"].items() if not n.startswith("latency")}),
    ]
    desc = rep.get("descriptions", {})
    body.append(
        _table(
            ["metric", "value", "n", "definition"],
            [
                [escape(n), fmt(v), str(o["n"][n]), escape(desc.get(n, ""))]
                for n, v in o["metrics"].items()
            ],
        )
    )
    cols = breakdown_columns(list(o["metrics"]), int(m.get("k", 10)))
    for dim, groups in m.get("by", {}).items():
        body.append(f"<h2>By {escape(dim)}</h2>")
        body.append(
            _table(
                [dim, "queries", *cols],
                [
                    [escape(label), str(g["queries"]), *(fmt(g["metrics"].get(c)) for c in cols)]
                    for label, g in groups.items()
                ],
            )
        )
    return _page(title, body)
