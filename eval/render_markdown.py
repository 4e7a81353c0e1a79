"""Markdown rendering of run reports and comparisons (GitHub-flavoured tables)."""

from __future__ import annotations

from typing import Any

from eval import render_drill
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


def _table(head: list[str], rows: list[list[str]], right_from: int = 1) -> list[str]:
    out = [
        "| " + " | ".join(head) + " |",
        "| " + " | ".join("---:" if i >= right_from else "---" for i in range(len(head))) + " |",
    ]
    out += ["| " + " | ".join(c.replace("|", "\\|") for c in r) + " |" for r in rows]
    return out + [""]


def run_markdown(rep: dict[str, Any]) -> str:
    run, m = rep["run"], rep["metrics"]
    lines = [
        f"# Eval run {run['id']}: {run['name']}",
        "",
        f"- status: {run['status']}, {run['queries']} queries, k = {m.get('k')}",
        f"- created: {when(run['created_at'])}",
        f"- golden: `{run['golden_path']}` (sha256 {run['golden_hash'][:12]}…)",
        "",
    ]
    idx = run.get("config", {}).get("index", {})
    if idx:
        ch = ", ".join(f"{c['name']} {c['version']}" for c in idx.get("chunkers", []))
        emb = (idx.get("embedding") or {}).get("model_id", "—")
        lines += [
            f"- chunkers: {ch or '—'}; embedding: {emb}",
            f"- corpus fingerprint: `{idx.get('corpus_fingerprint', '')[:16]}`",
            "",
        ]
    match = f"matching: {matching_of(m)}"
    lines += [f"## Metrics ({match})", ""]
    desc = rep.get("descriptions", {})
    o = m["overall"]
    lines += _table(
        ["metric", "value", "n", "definition"],
        [[n, fmt(v), str(o["n"][n]), desc.get(n, "")] for n, v in o["metrics"].items()],
        right_from=1,
    )
    if m.get("split_evidence") is not None:
        lines += [f"- {split_text(m['split_evidence'], shown=50)}", ""]
    if m.get("judge"):
        j = m["judge"]
        lines += [f"## LLM judge (reported apart, never gated; {match})", ""]
        lines += _table(
            ["metric", "value", "n"], [[n, fmt(v), str(j["n"][n])] for n, v in j["metrics"].items()]
        )
    cols = breakdown_columns(list(o["metrics"]), int(m.get("k", 10)))
    for dim, groups in m.get("by", {}).items():
        lines += [f"## By {dim} ({match})", ""]
        lines += _table(
            [dim, "queries", *cols],
            [
                [label, str(b["queries"]), *(fmt(b["metrics"].get(c)) for c in cols)]
                for label, b in groups.items()
            ],
        )
    cov = idx.get("coverage")
    if cov:
        tok = cov.get("chunk_tokens", {})
        lines += [
            "## Index coverage",
            "",
            f"- {cov['documents']} documents, {cov['chunks']} chunks",
            f"- documents without chunks: {cov['documents_without_chunks']}",
            f"- failed documents: {cov['failed_documents']}",
            f"- chunk tokens: min {fmt(tok.get('min'))}, mean {fmt(tok.get('mean'))}, "
            f"p95 {fmt(tok.get('p95'))}, max {fmt(tok.get('max'))}",
            "",
        ]
    if rep.get("warnings"):
        lines += ["## Warnings", ""] + [f"- {w}" for w in rep["warnings"]] + [""]
    if rep.get("queries"):
        lines += [f"## Queries ({match})", ""]
        for d in rep["queries"]:
            lines += [f"### {render_drill.md(render_drill.summary(d))}", ""]
            lines += [f"**Q:** {render_drill.md(d['query']['question'])}", ""]
            lines += _table(["", "value"], [list(r) for r in render_drill.markdown_rows(d)], 9)
    return "\n".join(lines)


def compare_markdown(c: dict[str, Any]) -> str:
    a, b = c["a"], c["b"]
    lines = [
        f"# Eval compare: run {a['id']} ({a['name']}) → run {b['id']} ({b['name']})",
        "",
        f"- A chunkers: {', '.join(a['chunkers']) or '—'}; B chunkers: "
        f"{', '.join(b['chunkers']) or '—'}",
        f"- chunker_version_match: **{c['chunker_version_match']}**; "
        f"matching: **{c['matching']}**; k = {c['k']}",
        f"- {c['test']['kind']}: {c['test']['permutations']} permutations, "
        f"{c['test']['bootstrap']} resamples, seed {c['test']['seed']}",
        "- MDD: the smallest Δ the set can detect at alpha 0.05 and power 0.8 "
        "((z_0.975 + z_0.8) · SD(B − A) / sqrt(n))",
        "",
    ]
    for title, rows in (("Metrics (B − A)", c["metrics"]), ("LLM judge (not gated)", c["judge"])):
        if not rows:
            continue
        lines += [f"## {title} (matching: {c['matching']})", ""]
        lines += _table(
            ["metric", "n", "A", "B", "Δ", "95% CI", "p", "MDD"],
            [
                [
                    r["metric"],
                    str(r["n"]),
                    fmt(r["a"]),
                    fmt(r["b"]),
                    fmt_delta(r["delta"]),
                    "—" if r["ci95"][0] is None else f"[{r['ci95'][0]:+.4f}, {r['ci95'][1]:+.4f}]",
                    fmt(r["p_value"]),
                    fmt(r.get("mdd")),
                ]
                for r in rows
            ],
        )
    notes = own_notes(c["metrics"] + c["judge"])
    if notes:
        lines += [f"- {n}" for n in notes] + [""]
    lines += [f"## Per query (rank of the first matching chunk; matching: {c['matching']})", ""]
    cats = c["outcomes"]["by_category"]
    keys = ("win", "loss", "draw", "regression")
    rows = [[cat, *(str(r[k]) for k in keys)] for cat, r in cats.items()]
    rows.append(["**total**", *(str(c["outcomes"]["totals"][k]) for k in keys)])
    lines += _table(["category", *keys], rows)
    if c["regressions"]:
        lines += ["## Retrieval regressions (A matched, B did not)", ""]
        lines += [
            f"- `{r['query_id']}` ({r['category']}): A rank {r['rank_a']}" for r in c["regressions"]
        ] + [""]
    lines += _changes(c)
    if c["notes"]:
        lines += ["## Notes", ""] + [f"- {n}" for n in c["notes"]] + [""]
    return "\n".join(lines)


def _changes(c: dict[str, Any]) -> list[str]:
    """Regressions and improvements, each with its drill-down, A beside B."""
    lines: list[str] = []
    for direction, title in CHANGE_TITLES:
        rows = [x for x in c["changes"] if x["direction"] == direction]
        if not rows:
            continue
        lines += [f"## {title} (matching: {c['matching']})", ""]
        for x in rows:
            lines += [
                f"### `{x['query_id']}` · {render_drill.md(x['category'])} · "
                f"{render_drill.md(change_text(x))}",
                "",
            ]
            if "a" not in x:
                continue
            lines += [f"**Q:** {render_drill.md(x['a']['query']['question'])}", ""]
            ra = dict(render_drill.markdown_rows(x["a"]))
            rb = dict(render_drill.markdown_rows(x["b"]))
            keys = list(dict.fromkeys([*ra, *rb]))
            lines += _table(
                ["", f"A: run {c['a']['id']}", f"B: run {c['b']['id']}"],
                [[k, ra.get(k, "—"), rb.get(k, "—")] for k in keys],
                9,
            )
    return lines
