"""Renderings of ``kb chunks show``: terminal (rich), HTML (one offline file) and JSON.

Every rendering walks the segments of :mod:`kb.cli.chunks_view` in order and writes
each segment's text unchanged, adding only markers around it: ``⟦n`` where chunk ``n``
(1-based) starts and ``n⟧`` where it ends, ``‹En`` / ``En›`` around golden evidence
``n`` (a legend maps numbers to query ids). Text outside every ``⟦ ⟧`` is a gap; text
inside two is an overlap (styled as such on a terminal and in HTML).
"""

from __future__ import annotations

from html import escape
from typing import Any

from rich.text import Text

from kb.cli.chunks_view import Chunking, EvidenceMark, Segment, segments, summarize

_STYLES = ("on grey19", "on grey30")


def evidence_numbers(evidence: list[EvidenceMark]) -> dict[str, int]:
    """Query id -> 1-based evidence number, in order of first appearance."""
    out: dict[str, int] = {}
    for m in evidence:
        out.setdefault(m.query_id, len(out) + 1)
    return out


def _open_marks(seg: Segment, prev: Segment | None, nums: dict[str, int]) -> list[str]:
    started = [q for q in seg.evidence if prev is None or q not in prev.evidence]
    return [f"‹E{nums[q]}" for q in started]


def _close_marks(seg: Segment, nxt: Segment | None, nums: dict[str, int]) -> list[str]:
    ended = [q for q in seg.evidence if nxt is None or q not in nxt.evidence]
    return [f"E{nums[q]}›" for q in ended]


def terminal_text(text: str, col: Chunking, evidence: list[EvidenceMark]) -> Text:
    """One column as a rich :class:`Text` (markers bold; gaps red, overlaps magenta,
    evidence underlined; chunks on alternating backgrounds)."""
    nums = evidence_numbers(evidence)
    segs = segments(text, col.spans, evidence)
    out = Text()
    for i, seg in enumerate(segs):
        prev = segs[i - 1] if i else None
        nxt = segs[i + 1] if i + 1 < len(segs) else None
        for k in seg.opens:
            out.append(f"⟦{k + 1}", style="bold cyan")
        for m in _open_marks(seg, prev, nums):
            out.append(m, style="bold yellow")
        style = "red" if seg.gap else ("magenta" if seg.overlap else _STYLES[seg.chunks[-1] % 2])
        if seg.evidence:
            style += " underline"
        out.append(seg.text, style=style)
        for m in _close_marks(seg, nxt, nums):
            out.append(m, style="bold yellow")
        for k in seg.closes:
            out.append(f"{k + 1}⟧", style="bold cyan")
    return out


def summary_line(text: str, col: Chunking, evidence: list[EvidenceMark]) -> str:
    s = summarize(text, col.spans, evidence)
    split = f"; evidence split: {len(s.split_evidence)} of {len(evidence)}" if evidence else ""
    return (
        f"{col.label}: {s.chunks} chunks, {s.overlap_chars} characters in overlaps, "
        f"{s.gap_chars} non-space characters in gaps{split}"
    )


def legend(evidence: list[EvidenceMark]) -> list[str]:
    nums = evidence_numbers(evidence)
    return [f"E{n} = {q}" for q, n in nums.items()]


def to_json(
    path: str, text: str, cols: list[Chunking], evidence: list[EvidenceMark]
) -> dict[str, Any]:
    out_cols = []
    for col in cols:
        s = summarize(text, col.spans, evidence)
        out_cols.append(
            {
                "label": col.label,
                "chunks": [{"start": a, "end": b} for a, b in col.spans],
                "overlap_chars": s.overlap_chars,
                "gap_chars": s.gap_chars,
                "split_evidence": list(s.split_evidence),
                "segments": [
                    {
                        "start": g.start,
                        "end": g.end,
                        "chunks": list(g.chunks),
                        "evidence": list(g.evidence),
                    }
                    for g in segments(text, col.spans, evidence)
                ],
            }
        )
    return {
        "path": path,
        "chars": len(text),
        "evidence": [{"query_id": m.query_id, "start": m.start, "end": m.end} for m in evidence],
        "columns": out_cols,
    }


_CSS = """
body{font-family:system-ui,sans-serif;margin:1.5em}
.cols{display:grid;grid-template-columns:repeat(var(--n),1fr);gap:1em}
pre{white-space:pre-wrap;word-wrap:break-word;font-size:13px;line-height:1.5;margin:0}
.c0{background:#e8f0fe}.c1{background:#fdf0d5}.ov{background:#e4c1f9}
.gap{background:#ffd6d6;text-decoration:line-through}
.ev{text-decoration:underline;text-decoration-color:#d00;text-decoration-thickness:2px}
.b{color:#06c;font-weight:bold;font-size:11px}.e{color:#b60;font-weight:bold;font-size:11px}
"""


def html_page(path: str, text: str, cols: list[Chunking], evidence: list[EvidenceMark]) -> str:
    """A single offline HTML file: the columns side by side."""
    nums = evidence_numbers(evidence)
    parts = []
    for col in cols:
        segs = segments(text, col.spans, evidence)
        body: list[str] = []
        for i, seg in enumerate(segs):
            prev = segs[i - 1] if i else None
            nxt = segs[i + 1] if i + 1 < len(segs) else None
            body += [f'<span class="b">⟦{k + 1}</span>' for k in seg.opens]
            body += [f'<span class="e">{m}</span>' for m in _open_marks(seg, prev, nums)]
            cls = "gap" if seg.gap else ("ov" if seg.overlap else f"c{seg.chunks[-1] % 2}")
            if seg.evidence:
                cls += " ev"
            tip = ", ".join(f"chunk {k + 1}" for k in seg.chunks) or "gap: no chunk"
            if seg.evidence:
                tip += "; evidence " + ", ".join(seg.evidence)
            body.append(
                f'<span class="{cls}" title="{escape(tip)}" data-start="{seg.start}">'
                f"{escape(seg.text)}</span>"
            )
            body += [f'<span class="e">{m}</span>' for m in _close_marks(seg, nxt, nums)]
            body += [f'<span class="b">{k + 1}⟧</span>' for k in seg.closes]
        parts.append(
            f"<div><h2>{escape(col.label)}</h2><p>{escape(summary_line(text, col, evidence))}"
            f"</p><pre>{''.join(body)}</pre></div>"
        )
    leg = "".join(f"<li>{escape(x)}</li>" for x in legend(evidence))
    return (
        '<!doctype html><html><head><meta charset="utf-8">'
        f"<title>kb chunks show {escape(path)}</title><style>{_CSS}</style></head><body>"
        f"<h1>{escape(path)}</h1><p>⟦n … n⟧ chunk n; struck-out red: gap (no chunk); "
        "purple: overlap (two or more chunks); underlined: golden evidence ‹En … En›.</p>"
        f"{'<ul>' + leg + '</ul>' if leg else ''}"
        f'<div class="cols" style="--n:{len(cols)}">{"".join(parts)}</div></body></html>'
    )
