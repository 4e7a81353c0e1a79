"""Terminal rendering (rich tables) of run reports, run lists and comparisons.

Every function takes the JSON form (:mod:`eval.report`) and a rich ``Console``.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from eval import render_drill
from eval.report import breakdown_columns, group_of, matching_of
from eval.store import RunRow

CHANGE_TITLES = (
    ("regression", "Regressions: B worse than A (first matching rank or an answer metric)"),
    ("improvement", "Improvements: B better than A, worse on nothing"),
)
GROUP_TITLES = {
    "retrieval": "Retrieval",
    "chunk": "Retrieval, chunk level (evidence tokens, embedder's tokenizer; Chroma)",
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
    match = f"matching: {matching_of(m)}"
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
        t = Table(title=f"{GROUP_TITLES.get(g, g)} · {match}", title_justify="left")
        t.add_column("metric")
        t.add_column("value", justify="right")
        t.add_column("n", justify="right")
        for name in names:
            t.add_row(name, fmt(block["metrics"][name]), str(block["n"][name]))
        console.print(t)
        if g == "chunk" and m.get("split_evidence") is not None:
            console.print(split_text(m["split_evidence"]), highlight=False)
    cols = breakdown_columns(list(overall["metrics"]), int(m.get("k", 10)))
    for dim, groups in m.get("by", {}).items():
        if len(groups) < 2 and dim != "answerable":
            continue
        t = Table(title=f"By {dim} · {match}", title_justify="left")
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


def split_text(split: list[dict[str, Any]], shown: int = 5) -> str:
    """One line naming the evidence spans the run's chunking splits (the first few)."""
    if not split:
        return "evidence split across chunks: none"
    names = ", ".join(f"{x['query_id']}#{x['support']}" for x in split[:shown])
    more = f" (+{len(split) - shown} more)" if len(split) > shown else ""
    return f"evidence split across chunks: {len(split)} span(s): {names}{more}"


def render_queries(details: list[dict[str, Any]], matching: str, console: Console) -> None:
    """Each query's drill-down (:mod:`eval.render_drill`), under a one-line summary."""
    for d in details:
        console.print(
            Text(f"query {render_drill.summary(d)} · matching: {matching}", style="bold cyan")
        )
        console.print(render_drill.terminal(d, hits=len(d["hits"])))
        console.print()


def render_changes(c: dict[str, Any], console: Console, limit: int = 10) -> None:
    """Regressions and improvements: what changed, then the drill-down A beside B."""
    for direction, title in CHANGE_TITLES:
        rows = [x for x in c["changes"] if x["direction"] == direction]
        if not rows:
            continue
        console.print(Text(f"{title} · matching: {c['matching']}", style="bold"))
        for x in rows[:limit]:
            console.print(
                Text(f"{x['query_id']} · {x['category']} · {change_text(x)}", style="cyan")
            )
            if "a" in x:
                console.print(Text(f"Q: {x['a']['query']['question']}", style="bold"))
                t = Table(show_header=True, expand=True)
                t.add_column(f"A: run {c['a']['id']}", ratio=1)
                t.add_column(f"B: run {c['b']['id']}", ratio=1)
                t.add_row(
                    render_drill.terminal(x["a"], question=False),
                    render_drill.terminal(x["b"], question=False),
                )
                console.print(t)
        if len(rows) > limit:
            console.print(f"... and {len(rows) - limit} more (see --md/--html)", highlight=False)


def change_text(x: dict[str, Any]) -> str:
    """``first_rank 1 → —, answer_correct 1 → 0``."""
    return ", ".join(
        f"{ch['metric']} {fmt_value(ch['a'])} → {fmt_value(ch['b'])}" for ch in x["changes"]
    )


def fmt_value(v: float | None) -> str:
    return "—" if v is None else (f"{v:.0f}" if float(v).is_integer() else f"{v:.2f}")


def own_notes(rows: list[dict[str, Any]]) -> list[str]:
    """A note per metric whose paired value differs in ``n`` from a run's own value."""
    out = []
    for r in rows:
        for side in ("a", "b"):
            own = r.get(f"own_{side}")
            if own and own["n"] != r["n"]:
                out.append(
                    f"{r['metric']}: paired over {r['n']} queries defined in both runs; "
                    f"run {side.upper()} alone: {fmt(own['value'])} over {own['n']}"
                )
    return out


def render_list(runs: list[RunRow], console: Console) -> None:
    t = Table(title="eval runs · matching: exact", title_justify="left")
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
        f"matching: {c['matching']} · "
        f"{c['test']['permutations']} permutations, seed {c['test']['seed']} · "
        "MDD: smallest Δ detectable at alpha 0.05, power 0.8"
    )
    for title, rows in (("Metrics (B − A)", c["metrics"]), ("LLM judge (not gated)", c["judge"])):
        if not rows:
            continue
        t = Table(title=f"{title} · matching: {c['matching']}", title_justify="left")
        for col in ("metric", "n", "A", "B", "Δ", "95% CI", "p", "MDD"):
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
                fmt(r.get("mdd")),
            )
        console.print(t)
    for note in own_notes(c["metrics"] + c["judge"]):
        console.print(f"note: {note}", highlight=False)
    t = Table(title=f"First matching rank · matching: {c['matching']}", title_justify="left")
    for col in ("category", "win", "loss", "draw", "regression"):
        t.add_column(col, justify="left" if col == "category" else "right")
    for cat, row in c["outcomes"]["by_category"].items():
        t.add_row(cat, *(str(row[k]) for k in ("win", "loss", "draw", "regression")))
    tot = c["outcomes"]["totals"]
    t.add_row("[bold]total[/bold]", *(str(tot[k]) for k in ("win", "loss", "draw", "regression")))
    console.print(t)
    render_changes(c, console)
    for note in c["notes"]:
        console.print(f"note: {note}", highlight=False)
