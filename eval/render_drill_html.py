"""One query's drill-down (:mod:`eval.drilldown`) as an HTML fragment.

Every text from the run (question, answer, passages, paths, quotes) goes through
:func:`html.escape`; unsupported sentences get the ``unsupported`` class. No script,
no external asset: the fragment lives inside the one offline report file.
"""

from __future__ import annotations

from html import escape
from typing import Any

from eval.drilldown import PREVIEW
from eval.render_drill import (
    answer_head,
    check_items,
    matches_text,
    num,
    one_line,
    scored,
    support_state,
    support_text,
    verdict_head,
)


def _quote(text: str, limit: int = PREVIEW, full: bool = True) -> str:
    """The passage in a blockquote; a longer one is cut at ``limit`` characters, with
    the whole text behind a click when ``full`` (else only the cut form)."""
    t = one_line(text)
    if len(t) <= limit or not full:
        return f"<blockquote>{escape(one_line(t, limit))}</blockquote>"
    return (
        f"<details><summary>{escape(one_line(t, limit))}</summary>"
        f"<blockquote>{escape(t)}</blockquote></details>"
    )


def html_block(d: dict[str, Any], question: bool = True) -> str:
    """The drill-down as an HTML fragment (every run text escaped); ``question=False``
    leaves the question out (a caller showing two runs prints it once)."""
    q = d["query"]
    out = [f'<p class="q"><b>Q:</b> {escape(q["question"])}</p>'] if question else []
    if d["error"]:
        out.append(
            f'<p class="bad">error ({escape(str(d["error_stage"]))}): {escape(d["error"])}</p>'
        )
    a = d["answer"]
    if a is not None:
        out.append(f"<h4>{escape(answer_head(a))}</h4>")
        if a["sentences"]:
            out.append('<ol class="sents">')
            for s in a["sentences"]:
                v = s["verdict"]
                item = (
                    f'<li class="{escape(v)}"><span class="tag">'
                    f"{escape(verdict_head(s, upper=False))}</span> {escape(s['text'])}"
                )
                for key in ("evidence", "suggested"):
                    e = s[key]
                    if e is not None:
                        item += (
                            f'<div class="{key}">{key} [#{escape(str(e["n"]))}]{scored(e)} '
                            f"<code>{escape(e['where'])}</code>: “{escape(e['quote'])}”</div>"
                        )
                out.append(item + "</li>")
            out.append("</ol>")
        else:
            out.append(f"<p>{escape(a['text']) or '(empty)'}</p>")
        if a["cited"]:
            out.append("<h4>Cited passages</h4>")
        for c in a["cited"]:
            out.append(
                f"<p>[#{c['n']}] <code>{escape(c['where'])}</code> · "
                f"{escape(matches_text(c['matches']))}</p>" + _quote(c["text"])
            )
        if a["invalid_citations"]:
            out.append(
                f'<p class="bad">invalid citations: {escape(str(a["invalid_citations"]))}</p>'
            )
        if a["checks"] is not None:
            ok = a["checks"]["pass"]
            items = "".join(f"<li>{escape(x)}</li>" for x in check_items(a["checks"]))
            out.append(
                f'<h4>Answer checks: <span class="{"good" if ok else "bad"}">'
                f"{'PASS' if ok else 'FAIL'}</span></h4><ul>{items}</ul>"
            )
    out.append(f"<h4>Golden supports (first matching rank: {num(d['first_rank'])})</h4>")
    answered = d["answer"] is not None
    sup = "".join(
        f"<li>{escape(support_text(s))}<br><small>{escape(support_state(s, answered))}</small></li>"
        for s in d["supports"]
    )
    out.append(f"<ul>{sup}</ul>" if sup else "<p>none</p>")
    out.append("<h4>Retrieved</h4><ol>")
    for h in d["hits"]:
        cls = ' class="good"' if h["matches"] else ""
        out.append(
            f"<li{cls}>{h['score']:.3f} <code>{escape(h['where'])}</code> · "
            f"{escape(matches_text(h['matches']))}{_quote(h['text'], 240, full=False)}</li>"
        )
    out.append("</ol>")
    return '<div class="drill">' + "".join(out) + "</div>"
