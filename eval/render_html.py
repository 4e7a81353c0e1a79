"""Single-file offline HTML reports: inline CSS and inline SVG charts, no scripts, no
external assets (the file opens anywhere, with no network)."""

from __future__ import annotations

from html import escape
from typing import Any

from eval import render_drill, render_drill_html, svg
from eval.render_terminal import (
    CHANGE_TITLES,
    change_text,
    fmt,
    fmt_delta,
    own_notes,
    split_text,
    when,
)
from eval.report import breakdown_columns, matching_of

CSS = """
body{font-family:system-ui,sans-serif;margin:2rem auto;max-width:960px;color:#222;padding:0 1rem}
table{border-collapse:collapse;margin:0.5rem 0 1.5rem}
th,td{border-bottom:1px solid #ddd;padding:4px 10px;text-align:right}
th:first-child,td:first-child{text-align:left}
th{background:#f5f5f5}
.good{color:#2e7d32}.bad{color:#c62828}.note{color:#555}
code{background:#f3f3f3;padding:0 3px}
.tw{overflow-x:auto}
.match{font-size:0.8em;color:#555;font-weight:normal}
details.query{border:1px solid #ddd;border-radius:4px;margin:0.4rem 0;padding:0.3rem 0.6rem}
details.query>summary{cursor:pointer}
.drill h4{margin:0.8rem 0 0.3rem}.drill blockquote{margin:0.2rem 0 0.4rem 1rem;color:#444;
border-left:3px solid #ddd;padding-left:0.5rem}
.drill ol,.drill ul{margin:0.2rem 0;padding-left:1.5rem}
.sents li{margin:0.2rem 0}.sents .tag{font-size:0.85em;color:#555}
.sents li.supported .tag{color:#2e7d32}
.sents li.unsupported{background:#fdecea}.sents li.unsupported .tag{color:#c62828;font-weight:bold}
.evidence,.suggested{font-size:0.9em;color:#555;margin-left:1rem}.suggested{color:#8a5a00}
.ab{display:grid;grid-template-columns:1fr 1fr;gap:1rem}.ab>div{min-width:0;overflow-wrap:anywhere}
.ab h3{margin:0.3rem 0}
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
    h = "".join(f"<th>{escape(x).replace('_', '_<wbr>')}</th>" for x in head)
    b = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in r) + "</tr>" for r in rows)
    return f'<div class="tw"><table><thead><tr>{h}</tr></thead><tbody>{b}</tbody></table></div>'


def _match(name: str) -> str:
    return f' <span class="match">(matching: {escape(name)})</span>'


def _queries(details: list[dict[str, Any]], matching: str) -> list[str]:
    out = [f"<h2>Queries{_match(matching)}</h2>"]
    for d in details:
        out.append(
            f'<details class="query"><summary>{escape(render_drill.summary(d))}</summary>'
            f"{render_drill_html.html_block(d)}</details>"
        )
    return out


def _changes(c: dict[str, Any]) -> list[str]:
    out: list[str] = []
    for direction, title in CHANGE_TITLES:
        rows = [x for x in c["changes"] if x["direction"] == direction]
        if not rows:
            continue
        out.append(f"<h2>{title}{_match(c['matching'])}</h2>")
        for x in rows:
            head = f"<code>{escape(x['query_id'])}</code> · {escape(x['category'])} · " + escape(
                change_text(x)
            )
            body = ""
            if "a" in x:
                body = (
                    f'<p class="q"><b>Q:</b> {escape(x["a"]["query"]["question"])}</p>'
                    f'<div class="ab"><div><h3>A: run {c["a"]["id"]}</h3>'
                    f"{render_drill_html.html_block(x['a'], question=False)}</div>"
                    f"<div><h3>B: run {c['b']['id']}</h3>"
                    f"{render_drill_html.html_block(x['b'], question=False)}</div></div>"
                )
            out.append(f'<details class="query"><summary>{head}</summary>{body}</details>')
    return out


def compare_html(c: dict[str, Any]) -> str:
    a, b = c["a"], c["b"]
    title = f"kb eval compare: run {a['id']} → run {b['id']}"
    body = [
        f"<h1>{escape(title)}</h1>",
        f"<p>A: run {a['id']} <code>{escape(a['name'])}</code> "
        f"({escape(', '.join(a['chunkers']) or '—')}) · B: run {b['id']} "
        f"<code>{escape(b['name'])}</code> ({escape(', '.join(b['chunkers']) or '—')})</p>",
        f"<p>k = {c['k']} · chunker_version_match: <b>{c['chunker_version_match']}</b> · "
        f"matching: <b>{escape(c['matching'])}</b> · "
        f"{escape(c['test']['kind'])}, {c['test']['permutations']} permutations, seed "
        f"{c['test']['seed']}</p>",
        f"<h2>Metric deltas (B − A) with 95% CI{_match(c['matching'])}</h2>",
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
                fmt(r.get("mdd")),
            ]
        )
    body.append(_table(["metric", "n", "A", "B", "Δ", "95% CI", "p", "MDD"], rows))
    notes = own_notes(c["metrics"] + c["judge"])
    if notes:
        body.append("<ul>" + "".join(f'<li class="note">{escape(n)}</li>' for n in notes) + "</ul>")
    body += [
        f"<h2>Wins, losses and regressions per category{_match(c['matching'])}</h2>",
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
            "<h2>Retrieval regressions (A matched, B did not)</h2><ul>"
            + "".join(
                f"<li><code>{escape(r['query_id'])}</code> ({escape(r['category'])}), A rank "
                f"{r['rank_a']}</li>"
                for r in c["regressions"]
            )
            + "</ul>"
        )
    body += _changes(c)
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
    match = matching_of(m)
    body = [
        f"<h1>{escape(title)}</h1>",
        f"<p>{escape(run['status'])} · {run['queries']} queries · k = {m.get('k')} · "
        f"matching: <b>{escape(match)}</b> · "
        f"{when(run['created_at'])} · golden <code>{escape(run['golden_path'])}</code></p>",
        f"<h2>Metrics{_match(match)}</h2>",
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
    if m.get("split_evidence") is not None:
        body.append(f'<p class="note">{escape(split_text(m["split_evidence"], shown=50))}</p>')
    cols = breakdown_columns(list(o["metrics"]), int(m.get("k", 10)))
    for dim, groups in m.get("by", {}).items():
        body.append(f"<h2>By {escape(dim)}{_match(match)}</h2>")
        body.append(
            _table(
                [dim, "queries", *cols],
                [
                    [escape(label), str(g["queries"]), *(fmt(g["metrics"].get(c)) for c in cols)]
                    for label, g in groups.items()
                ],
            )
        )
    if rep.get("queries"):
        body += _queries(rep["queries"], match)
    return _page(title, body)
