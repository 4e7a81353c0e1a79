"""Terminal rendering (rich tables) of run reports, run lists and comparisons.

Every function takes the JSON form (:mod:`eval.report`) and a rich ``Console``.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from rich.console import Console
from rich.table import Table

from eval.report import breakdown_columns, group_of
from eval.store import RunRow

GROUP_TITLES = {
    "retrieval": "Retrieval",
    "answer": "Answers",
    "ops": "Operations",
    "judge": "LLM judge (not gated)",
}


def fmt(v: Any) -> str:
    if v is None:
        return "—"
    if isinstance(v, float):
        return f"{v:.4f}"
    return str(v)


def fmt_delta(v: float | None) -> str:
    return "—" if v is None else f"{v:+.4f}"


def when(ts: float | None) -> str:
    if ts is None:
        return "—"
    return dt.datetime.fromtimestamp(ts).strftime("%Y-%m-%d %H:%M")


def render_run(rep: dict[str, Any], console: Console) -> None:
    run, m = rep["run"], rep["metrics"]
    console.print(
        f"[bold]eval run {run['id']}[/bold] {run['name']} · {run['status']} · "
        f"{run['queries']} queries · k={m.get('k')} · {when(run['created_at'])}"
    )
    console.print(f"golden: {run['golden_path']}", highlight=False)
    overall = m["overall"]
    by_group: dict[str, list[str]] = {}
    for name in overall["metrics"]:
        by_group.setdefault(group_of(name), []).append(name)
    sections = [(g, overall, names) for g, names in by_group.items()]
    if m.get("judge"):
        sections.append(("judge", m["judge"], list(m["judge"]["metrics"])))
    for g, block, names in sections:
        t = Table(title=GROUP_TITLES.get(g, g), title_justify="left")
        t.add_column("metric")
        t.add_column("value", justify="right")
        t.add_column("n", justify="right")
        for name in names:
            t.add_row(name, fmt(block["metrics"][name]), str(block["n"][name]))
        console.print(t)
    cols = breakdown_columns(list(overall["metrics"]), int(m.get("k", 10)))
    for dim, groups in m.get("by", {}).items():
        if len(groups) < 2 and dim != "answerable":
            continue
        t = Table(title=f"By {dim}", title_justify="left")
        t.add_column(dim)
        t.add_column("queries", justify="right")
        for c in cols:
            t.add_column(c, justify="right")
        for label, block in groups.items():
            t.add_row(label, str(block["queries"]), *(fmt(block["metrics"].get(c)) for c in cols))
        console.print(t)
    cov = run.get("config", {}).get("index", {}).get("coverage")
    if cov:
        tok = cov.get("chunk_tokens", {})
        console.print(
            f"index: {cov['documents']} documents, {cov['chunks']} chunks; "
            f"{cov['documents_without_chunks']} without chunks, {cov['failed_documents']} "
            f"failed; chunk tokens min {fmt(tok.get('min'))} mean {fmt(tok.get('mean'))} "
            f"p95 {fmt(tok.get('p95'))} max {fmt(tok.get('max'))}",
            highlight=False,
        )


def render_list(runs: list[RunRow], console: Console) -> None:
    t = Table(title="eval runs", title_justify="left")
    for c in ("id", "name", "created", "status", "queries", "k", "hit@5", "mrr@10"):
        t.add_column(c, justify="right" if c in ("id", "queries", "k") else "left")
    for r in runs:
        mm = (r.metrics or {}).get("overall", {}).get("metrics", {})
        k = r.k
        t.add_row(
            str(r.id),
            r.name,
            when(r.created_at),
            r.status,
            str(r.n_results),
            str(k),
            fmt(mm.get(f"hit@{min(5, k)}")),
            fmt(mm.get(f"mrr@{min(10, k)}")),
        )
    console.print(t)


def render_compare(c: dict[str, Any], console: Console) -> None:
    a, b = c["a"], c["b"]
    console.print(
        f"[bold]A[/bold] run {a['id']} {a['name']} ({', '.join(a['chunkers'])})  vs  "
        f"[bold]B[/bold] run {b['id']} {b['name']} ({', '.join(b['chunkers'])})",
        highlight=False,
    )
    console.print(
        f"k={c['k']} · chunker_version_match: {c['chunker_version_match']} · "
        f"{c['test']['permutations']} permutations, seed {c['test']['seed']}"
    )
    for title, rows in (("Metrics (B − A)", c["metrics"]), ("LLM judge (not gated)", c["judge"])):
        if not rows:
            continue
        t = Table(title=title, title_justify="left")
        for col in ("metric", "n", "A", "B", "Δ", "95% CI", "p"):
            t.add_column(col, justify="left" if col == "metric" else "right")
        for r in rows:
            style = "green" if r["improved"] is True else ("red" if r["improved"] is False else "")
            ci = r["ci95"]
            ci_text = "—" if ci[0] is None else f"[{ci[0]:+.4f}, {ci[1]:+.4f}]"
            t.add_row(
                r["metric"],
                str(r["n"]),
                fmt(r["a"]),
                fmt(r["b"]),
                f"[{style}]{fmt_delta(r['delta'])}[/{style}]" if style else fmt_delta(r["delta"]),
                ci_text,
                fmt(r["p_value"]),
            )
        console.print(t)
    t = Table(title="Per query (first matching rank)", title_justify="left")
    for col in ("category", "win", "loss", "draw", "regression"):
        t.add_column(col, justify="left" if col == "category" else "right")
    for cat, row in c["outcomes"]["by_category"].items():
        t.add_row(cat, *(str(row[k]) for k in ("win", "loss", "draw", "regression")))
    tot = c["outcomes"]["totals"]
    t.add_row("[bold]total[/bold]", *(str(tot[k]) for k in ("win", "loss", "draw", "regression")))
    console.print(t)
    for note in c["notes"]:
        console.print(f"note: {note}", highlight=False)
