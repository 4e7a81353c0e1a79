"""Inline SVG charts for the offline HTML report (no scripts, no external assets)."""

from __future__ import annotations

from html import escape
from typing import Any

GREEN, RED, DARK_RED, GREY, BLUE = "#2e7d32", "#c62828", "#7f0000", "#9e9e9e", "#1565c0"


def _text(
    x: float, y: float, s: str, anchor: str = "start", size: int = 12, fill: str = "#222"
) -> str:
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" '
        f'fill="{fill}" font-family="sans-serif">{escape(s)}</text>'
    )


def delta_chart(rows: list[dict[str, Any]], width: int = 720) -> str:
    """Horizontal bars: each metric's delta (B − A) with its 95% CI as an error bar.

    Bars are green when B is better (by the metric's direction), red when worse. The
    axis spans the largest |delta| or |CI bound| (at least 0.05)."""
    rows = [r for r in rows if r["delta"] is not None]
    if not rows:
        return "<p>No metric deltas to chart.</p>"
    label_w, pad, bar_h, gap = 240, 20, 16, 8
    extent = max([0.05] + [abs(v) for r in rows for v in (r["delta"], *r["ci95"]) if v is not None])
    plot_w = width - label_w - 2 * pad - 60
    zero = label_w + pad + plot_w / 2

    def x(v: float) -> float:
        return zero + v / extent * plot_w / 2

    height = pad * 2 + len(rows) * (bar_h + gap) + 20
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'role="img" aria-label="metric deltas with 95% confidence intervals">'
    ]
    top = pad + 10
    parts.append(
        f'<line x1="{zero:.1f}" y1="{pad}" x2="{zero:.1f}" y2="{height - pad}" '
        f'stroke="#444" stroke-width="1"/>'
    )
    parts.append(_text(x(-extent), pad, f"{-extent:+.3f}", "start", 10, GREY))
    parts.append(_text(x(extent), pad, f"{extent:+.3f}", "end", 10, GREY))
    for i, r in enumerate(rows):
        y = top + i * (bar_h + gap)
        d = r["delta"]
        color = GREEN if r["improved"] is True else (RED if r["improved"] is False else GREY)
        x0, x1 = sorted((x(0), x(d)))
        parts.append(_text(label_w, y + bar_h - 3, r["metric"], "end"))
        parts.append(
            f'<rect x="{x0:.1f}" y="{y}" width="{max(x1 - x0, 1):.1f}" '
            f'height="{bar_h}" fill="{color}" opacity="0.75"><title>'
            f"{escape(r['metric'])}: {d:+.4f} (p={r['p_value']})</title></rect>"
        )
        lo, hi = r["ci95"]
        if lo is not None and hi is not None:
            cy = y + bar_h / 2
            parts.append(
                f'<line x1="{x(lo):.1f}" y1="{cy}" x2="{x(hi):.1f}" y2="{cy}" '
                f'stroke="#111" stroke-width="1.5"/>'
            )
            for v in (lo, hi):
                parts.append(
                    f'<line x1="{x(v):.1f}" y1="{cy - 5}" x2="{x(v):.1f}" '
                    f'y2="{cy + 5}" stroke="#111" stroke-width="1.5"/>'
                )
        parts.append(_text(width - pad, y + bar_h - 3, f"{d:+.4f}", "end", 11))
    parts.append("</svg>")
    return "".join(parts)


def outcome_chart(by_category: dict[str, dict[str, int]], width: int = 720) -> str:
    """Per category: stacked bars of wins / draws / losses, and under them a thin bar of
    regressions on the same scale; the counts are written after the bars."""
    if not by_category:
        return "<p>No queries with supports to compare.</p>"
    label_w, pad, bar_h, gap = 150, 20, 18, 14
    biggest = max(sum(r[k] for k in ("win", "draw", "loss")) for r in by_category.values()) or 1
    plot_w = width - label_w - 2 * pad - 170
    height = pad * 2 + 24 + len(by_category) * (bar_h + 6 + gap)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'role="img" aria-label="wins, draws, losses and regressions per category">'
    ]
    lx = label_w + pad
    legend = (("win", GREEN), ("draw", GREY), ("loss", RED), ("regression", DARK_RED))
    for i, (name, color) in enumerate(legend):
        parts.append(
            f'<rect x="{lx + i * 110}" y="{pad - 10}" width="12" height="12" fill="{color}"/>'
        )
        parts.append(_text(lx + i * 110 + 16, pad, name, size=11))
    top = pad + 16
    for j, (cat, row) in enumerate(by_category.items()):
        y = top + j * (bar_h + 6 + gap)
        parts.append(_text(label_w, y + bar_h - 4, cat, "end"))
        x = float(lx)
        for key, color in (("win", GREEN), ("draw", GREY), ("loss", RED)):
            w = row[key] / biggest * plot_w
            if row[key]:
                parts.append(
                    f'<rect x="{x:.1f}" y="{y}" width="{w:.1f}" height="{bar_h}" '
                    f'fill="{color}"><title>{escape(cat)}: {row[key]} {key}</title></rect>'
                )
            x += w
        if row["regression"]:
            w = row["regression"] / biggest * plot_w
            parts.append(
                f'<rect x="{lx}" y="{y + bar_h + 1}" width="{max(w, 1):.1f}" height="5" '
                f'fill="{DARK_RED}"><title>{escape(cat)}: {row["regression"]} regressions'
                f"</title></rect>"
            )
        label = f"{row['win']} / {row['draw']} / {row['loss']}, {row['regression']} regr."
        parts.append(_text(lx + plot_w + 8, y + bar_h - 4, label, size=11))
    parts.append("</svg>")
    return "".join(parts)


def metric_bars(values: dict[str, float | None], width: int = 720) -> str:
    """Horizontal bars of metric values in [0, 1] (a run report's overview)."""
    rows = [(n, v) for n, v in values.items() if v is not None and 0 <= v <= 1]
    if not rows:
        return ""
    label_w, pad, bar_h, gap = 230, 16, 14, 6
    plot_w = width - label_w - 2 * pad - 60
    height = pad * 2 + len(rows) * (bar_h + gap)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'role="img" aria-label="metric values">'
    ]
    for i, (n, v) in enumerate(rows):
        y = pad + i * (bar_h + gap)
        parts.append(_text(label_w, y + bar_h - 2, n, "end", 11))
        parts.append(
            f'<rect x="{label_w + pad}" y="{y}" width="{plot_w}" height="{bar_h}" fill="#eee"/>'
        )
        parts.append(
            f'<rect x="{label_w + pad}" y="{y}" width="{v * plot_w:.1f}" '
            f'height="{bar_h}" fill="{BLUE}"/>'
        )
        parts.append(_text(width - pad, y + bar_h - 2, f"{v:.4f}", "end", 11))
    parts.append("</svg>")
    return "".join(parts)
