"""Renderings of a sweep leaderboard (:mod:`eval.sweep`): plain text for the terminal,
Markdown, and one offline HTML file with a chart of each challenger's delta and 95%
interval on the primary metric (:func:`eval.svg.delta_chart`). All take the
``Leaderboard.to_json()`` dict, so every rendering shows the same numbers."""

from __future__ import annotations

from html import escape
from typing import Any

from eval.svg import delta_chart


def _f(v: Any, digits: int = 4) -> str:
    if v is None:
        return "—"
    if isinstance(v, float):
        return f"{v:.{digits}f}"
    return str(v)


def _ci(ci: list[Any]) -> str:
    lo, hi = ci
    return "—" if lo is None or hi is None else f"[{lo:+.4f}, {hi:+.4f}]"


def table_rows(board: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """Header and cells: one row per chunking, baseline first."""
    names = list(board["rows"][0]["metrics"]) if board["rows"] else []
    extra = sorted({k for r in board["rows"] for k in (r.get("extra") or {})})
    head = [
        "chunking",
        "verdict",
        *names,
        *extra,
        "chunks",
        "tokens mean/p95",
        "embedded/cached",
        "seconds",
        f"Δ {board['metric']}",
        "95% CI",
        "p (Holm)",
        "min. detectable",
    ]
    cells = []
    for r in board["rows"]:
        tokens = f"{_f(r['mean_tokens'], 1)}/{_f(r['p95_tokens'], 0)}"
        p = "—" if r["p_value"] is None else f"{r['p_value']:.4f} ({r['p_holm']:.4f})"
        cells.append(
            [
                r["spec"],
                r["verdict"],
                *(_f(r["metrics"][n]) for n in names),
                *(_f((r.get("extra") or {}).get(k)) for k in extra),
                str(r["chunks"]),
                tokens,
                f"{r['texts_embedded']}/{r['texts_cached']}",
                f"{r['seconds']:.1f}",
                "—" if r["delta"] is None else f"{r['delta']:+.4f}",
                _ci(r["ci95"]),
                p,
                _f(r["min_detectable_difference"]),
            ]
        )
    return head, cells


def _notes(board: dict[str, Any]) -> list[str]:
    return [
        f"{board['queries']} queries, k={board['k']}, matching doc_span; a chunking wins or "
        f"loses only when its Holm-corrected p < {board['alpha']} on {board['metric']}, "
        "otherwise it ties with the baseline (the first row).",
        *(f"warning: {w}" for w in board["warnings"]),
    ]


def sweep_text(board: dict[str, Any]) -> str:
    """Aligned columns, no colour (fine in a pipe)."""
    head, cells = table_rows(board)
    widths = [max(len(h), *(len(c[i]) for c in cells)) for i, h in enumerate(head)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(head, widths, strict=True))]
    for c in cells:
        lines.append("  ".join(v.ljust(w) for v, w in zip(c, widths, strict=True)))
    return "\n".join([*lines, "", *_notes(board)])


def sweep_markdown(board: dict[str, Any]) -> str:
    head, cells = table_rows(board)
    out = [f"# Chunking sweep: {board['metric']}", ""]
    out.append("| " + " | ".join(head) + " |")
    out.append("|" + "---|" * len(head))
    for c in cells:
        out.append("| " + " | ".join(v.replace("|", "\\|") for v in c) + " |")
    out += ["", *(f"- {n}" for n in _notes(board)), ""]
    return "\n".join(out)


def sweep_html(board: dict[str, Any]) -> str:
    """One self-contained page: the chart, the table, the notes (all text escaped)."""
    head, cells = table_rows(board)
    chart_rows = [
        {
            "metric": r["spec"],
            "delta": r["delta"],
            "ci95": tuple(r["ci95"]),
            "improved": None if r["verdict"] == "tie" else r["verdict"] == "win",
            "p_value": r["p_holm"],
        }
        for r in board["rows"][1:]
    ]
    rows = "".join("<tr>" + "".join(f"<td>{escape(v)}</td>" for v in c) + "</tr>" for c in cells)
    notes = "".join(f"<li>{escape(n)}</li>" for n in _notes(board))
    return (
        '<!doctype html><html><head><meta charset="utf-8"><title>Chunking sweep</title>'
        "<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}"
        "td,th{border:1px solid #ccc;padding:4px 8px;text-align:right}"
        "td:first-child,th:first-child{text-align:left}</style></head><body>"
        f"<h1>Chunking sweep: {escape(board['metric'])}</h1>"
        f"<h2>Δ {escape(board['metric'])} against {escape(board['rows'][0]['spec'])}, "
        "with 95% intervals (green: significant win, red: significant loss, grey: tie)</h2>"
        f"{delta_chart(chart_rows)}"
        "<table><tr>"
        + "".join(f"<th>{escape(h)}</th>" for h in head)
        + f"</tr>{rows}</table><ul>{notes}</ul></body></html>"
    )
