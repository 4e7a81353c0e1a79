"""One query's drill-down (:mod:`eval.drilldown`) as rich terminal lines and Markdown
table rows, plus the text helpers the HTML form (:mod:`eval.render_drill_html`) shares.

Text from the run (questions, answers, passages, paths) is never markup: the terminal
form builds :class:`rich.text.Text` (no markup parsing), Markdown backslash-escapes
every punctuation character Markdown or inline HTML could act on, and HTML goes
through :func:`html.escape`. Unsupported sentences are marked in every form (✗, bold
``UNSUPPORTED`` / ``unsupported`` class).
"""

from __future__ import annotations

import re
from typing import Any

from rich.console import Group
from rich.text import Text

from eval.drilldown import PREVIEW

MARK = {"supported": "✓", "unsupported": "✗", "uncited": "·"}
_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>~&])")  # "|": escaped by the table writer


def one_line(text: str, limit: int | None = None) -> str:
    """White space folded to single spaces; cut to ``limit`` characters with "…"."""
    t = " ".join(str(text).split())
    return t if limit is None or len(t) <= limit else t[: limit - 1].rstrip() + "…"


def scored(e: dict[str, Any]) -> str:
    """`` (0.88)`` when the evidence/suggestion has a score, else empty."""
    return f" ({num(e['score'])})" if e.get("score") is not None else ""


def num(v: Any) -> str:
    return "—" if v is None else f"{v:.2f}" if isinstance(v, float) else str(v)


def answer_head(a: dict[str, Any]) -> str:
    """``answer (mode generate · citation support 0.50 · truncated: max_tokens)``."""
    parts = [
        f"mode {a['mode'] or '—'}",
        f"grounded {'yes' if a['grounded'] else 'no'}",
        f"citation support {num(a['citation_support_rate'])}",
    ]
    if a["refused"]:
        parts.append(f"refused: {a['refusal_reason'] or 'yes'}")
    if a["truncated"]:
        parts.append(f"truncated: {a['truncated']}")
    if a["contexts_cut"]:
        parts.append("contexts cut to fit the prompt")
    if a["error"]:
        parts.append(f"error: {a['error']}")
    ab = a.get("answerability")
    if ab:
        missing = ", ".join(map(str, ab.get("missing") or []))
        if ab.get("score") is None:  # runs stored before p(answerable): coverage only
            head = f"answerability coverage {num(ab.get('coverage'))}"
        else:
            head = (
                f"answerability {num(ab.get('score'))} (coverage {num(ab.get('coverage'))}, "
                f"cosine {num(ab.get('cosine'))})"
            )
        parts.append(
            f"{head} vs threshold {num(ab.get('threshold'))}"
            + (f", missing: {missing}" if missing else "")
        )
    return "answer (" + " · ".join(parts) + ")"


def check_items(c: dict[str, Any]) -> list[str]:
    """``any_of "Paris" ✓`` per item; a forbidden text passes when absent."""
    out = []
    for key in ("any_of", "must_contain", "forbidden"):
        for it in c[key]:
            ok = not it["found"] if key == "forbidden" else it["found"]
            state = ("found" if it["found"] else "absent") + (" ✓" if ok else " ✗")
            out.append(f'{key} "{one_line(it["text"])}" {state}')
    return out


def support_text(s: dict[str, Any]) -> str:
    parts = [f"#{s['index']} {s['path']}"]
    if s.get("heading"):
        parts.append(f"heading {s['heading']!r}")
    for key in ("page", "lines", "seconds"):
        if s.get(key) is not None:
            parts.append(f"{key} {s[key]}")
    if s.get("snippet"):
        parts.append(f'snippet "{one_line(s["snippet"], 160)}"')
    return " · ".join(parts)


def support_state(s: dict[str, Any], answered: bool = True) -> str:
    """``retrieved at rank 2, 4; cited [#1]`` / ``not retrieved; not cited`` (the
    citation part only for a query that has an answer)."""
    ranks = ", ".join(map(str, s["hit_ranks"]))
    cited = ", ".join(f"[#{n}]" for n in s["cited"])
    out = f"retrieved at rank {ranks}" if ranks else "not retrieved"
    if answered:
        out += f"; cited {cited}" if cited else "; not cited"
    return out


def verdict_head(s: dict[str, Any], upper: bool = True) -> str:
    """``✗ UNSUPPORTED 0.12`` / ``✓ supported 0.93`` / ``· uncited``."""
    v = s["verdict"]
    label = v.upper() if upper and v == "unsupported" else v
    score = f" {num(s['score'])}" if s["score"] is not None else ""
    return f"{MARK.get(v, '?')} {label}{score}"


def matches_text(m: list[int]) -> str:
    return "support " + ", ".join(f"#{i}" for i in m) if m else "no support"


# ---------------------------------------------------------------- terminal


def terminal(d: dict[str, Any], hits: int = 5, question: bool = True) -> Group:
    """The drill-down as rich renderables (the top ``hits`` retrieved chunks)."""
    q = d["query"]
    out: list[Text] = [Text(f"Q: {q['question']}", style="bold")] if question else []
    if d["error"]:
        out.append(Text(f"error ({d['error_stage']}): {d['error']}", style="red"))
    a = d["answer"]
    if a is not None:
        out.append(Text(answer_head(a), style="bold"))
        if a["sentences"]:
            for s in a["sentences"]:
                style = {"supported": "green", "unsupported": "bold red"}.get(s["verdict"], "")
                out.append(Text.assemble((f"  {verdict_head(s)} ", style), one_line(s["text"])))
                for key in ("evidence", "suggested"):
                    e = s[key]
                    if e is not None:
                        out.append(
                            Text(
                                f"      {key} [#{e['n']}]{scored(e)} {e['where']}: "
                                f'"{one_line(e["quote"], 200)}"',
                                style="dim" if key == "evidence" else "yellow",
                            )
                        )
        else:
            out.append(Text("  " + (one_line(a["text"]) or "(empty)")))
        for c in a["cited"]:
            out.append(Text(f"  cited [#{c['n']}] {c['where']} · {matches_text(c['matches'])}"))
            out.append(Text(f'      "{one_line(c["text"], 240)}"', style="dim"))
        if a["invalid_citations"]:
            out.append(Text(f"  invalid citations: {a['invalid_citations']}", style="red"))
        if a["checks"] is not None:
            ok = a["checks"]["pass"]
            out.append(Text(f"answer checks: {'PASS' if ok else 'FAIL'}", style="bold"))
            out += [Text("  " + x) for x in check_items(a["checks"])]
    out.append(Text(f"supports (first matching rank: {num(d['first_rank'])})", style="bold"))
    if not d["supports"]:
        out.append(Text("  none (unanswerable or no evidence given)"))
    for s in d["supports"]:
        out.append(Text(f"  {support_text(s)}"))
        out.append(Text(f"      {support_state(s, d['answer'] is not None)}", style="dim"))
    out.append(
        Text(f"retrieved (top {min(hits, len(d['hits']))} of {len(d['hits'])})", style="bold")
    )
    for h in d["hits"][:hits]:
        style = "green" if h["matches"] else ""
        out.append(
            Text(
                f"  {h['rank']:>2}. {h['score']:.3f} {h['where']} · {matches_text(h['matches'])}",
                style,
            )
        )
    return Group(*out)


# ---------------------------------------------------------------- Markdown


def md(text: Any) -> str:
    """Inline Markdown for run text: one line, Markdown/HTML punctuation escaped."""
    return _MD_SPECIAL.sub(r"\\\1", one_line(str(text)))


def code(text: Any) -> str:
    """A Markdown code span (literal inside; back ticks become quotes)."""
    return "`" + one_line(str(text)).replace("`", "'") + "`"


def markdown_rows(d: dict[str, Any]) -> list[tuple[str, str]]:
    """``(aspect, cell)`` rows; cells are inline Markdown, lines joined by ``<br>``."""
    rows: list[tuple[str, str]] = []
    if d["error"]:
        rows.append(("error", md(f"{d['error_stage']}: {d['error']}")))
    a = d["answer"]
    if a is not None:
        rows.append(("answer", md(answer_head(a)[len("answer ") :])))
        if a["sentences"]:
            lines = []
            for s in a["sentences"]:
                head = verdict_head(s)
                if s["verdict"] == "unsupported":
                    head = head.replace("UNSUPPORTED", "**UNSUPPORTED**")
                line = f"{head}: {md(s['text'])}"
                for key in ("evidence", "suggested"):
                    e = s[key]
                    if e is not None:
                        line += (
                            f"<br>&nbsp;&nbsp;{key} \\[#{e['n']}\\]{scored(e)} {code(e['where'])}: "
                            f"“{md(one_line(e['quote'], 300))}”"
                        )
                lines.append(line)
            rows.append(("sentences", "<br>".join(lines)))
        else:
            rows.append(("text", md(a["text"]) or "(empty)"))
        cited = [
            f"\\[#{c['n']}\\] {code(c['where'])} ({matches_text(c['matches'])}): "
            f"“{md(one_line(c['text'], PREVIEW))}”"
            for c in a["cited"]
        ]
        rows.append(("cited passages", "<br>".join(cited) or "none"))
        if a["checks"] is not None:
            head = "**PASS**" if a["checks"]["pass"] else "**FAIL**"
            rows.append(
                ("answer checks", "<br>".join([head] + [md(x) for x in check_items(a["checks"])]))
            )
    sup = [
        f"{md(support_text(s))} — {md(support_state(s, d['answer'] is not None))}"
        for s in d["supports"]
    ]
    rows.append(("golden supports", "<br>".join(sup) or "none"))
    rows.append(("first matching rank", num(d["first_rank"])))
    hits = [
        f"{h['rank']}. {h['score']:.3f} {code(h['where'])} — {matches_text(h['matches'])}"
        for h in d["hits"]
    ]
    rows.append(("retrieved", "<br>".join(hits) or "none"))
    return rows


def summary(d: dict[str, Any]) -> str:
    """One line: ``id · category · first rank 2 · answer_correct 1 · support 0.50``."""
    q = d["query"]
    parts = [q["id"], q["category"] or "(none)"]
    parts.append("answerable" if q["answerable"] else "unanswerable")
    parts.append(f"first rank {num(d['first_rank'])}")
    a = d["answer"]
    if a is not None:
        if a["refused"]:
            parts.append(f"refused ({a['refusal_reason'] or 'model'})")
        for key in ("answer_correct", "citation_support_rate"):
            if a["values"].get(key) is not None:
                parts.append(f"{key} {num(a['values'][key])}")
    if d["error"]:
        parts.append("error")
    return " · ".join(parts)
