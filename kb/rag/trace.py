"""An answer's decision, step by step: what ``kb ask --explain`` prints and ``--json`` carries.

:func:`trace` reads an answer record (:meth:`kb.rag.AnswerRecord.to_dict`) and gives the
path the decision took, in order:

1. ``passages``: the retrieved passages by number, place and fused score;
2. ``evidence``: the evidence check's features (coverage, the best sentence's and the
   passages' cosines), ``p(answerable)`` against its threshold, and the fitted score
   before a floor rule lifted it (:mod:`kb.rag.answerability`);
3. ``rules``: every rule (:mod:`kb.rag.rules`) that fired, with the words it read;
   ``rules_off``: those turned off;
4. ``selector``: quote mode's rule whose candidate sentences the model chose from;
5. ``responsive``: the verdict of :mod:`kb.rag.responsive`;
6. ``decided``: the outcome's kind and the rule or threshold that decided
   (:func:`kb.rag.reasons.outcome`).

:func:`render` turns it into lines a person reads. A refusal before the evidence check
(``no_hits``) has no evidence step; a refusal by the check has no selector or verdict.
"""

from __future__ import annotations

from typing import Any

from kb.rag.rules import BY_ID, RANKED
from kb.rag.superlative import lifted_extreme


def _fired(a: dict[str, Any]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    if a.get("absent_keys"):
        out.append({"rule": "absent-keys", "kind": "veto", "read": list(a["absent_keys"])})
    for c in a.get("contradictions") or []:
        rule = c.get("rule") or "contradiction"
        read = {"question": c.get("question"), "passage": c.get("passage")}
        out.append({"rule": rule, "kind": "veto", "read": read})
    if a.get("every_term"):
        out.append({"rule": "every-term", "kind": "floor", "read": None})
    if a.get("section"):
        out.append({"rule": "section-named", "kind": "floor", "read": None})
    return out


def _lifted(d: dict[str, Any], rules_off: list[str]) -> list[dict[str, Any]]:
    """Quote mode's ``extreme-value`` lift, when the question asks for an extreme."""
    word = lifted_extreme(str(d.get("question") or ""), d.get("selector"), rules_off)
    return [] if word is None else [{"rule": "extreme-value", "kind": "lift", "read": [word]}]


def _unanswering(d: dict[str, Any]) -> list[dict[str, Any]]:
    """Rule ``no-responsive-quote``, when it refused: the words no candidate's passage
    holds (another subject), or the answer type none gives."""
    r = d.get("responsive") or {}
    if d.get("refusal_reason") != "not_responsive":
        return []
    read = list(r.get("lacking") or []) if r.get("reason") == "subject" else [r.get("asks")]
    return [{"rule": "no-responsive-quote", "kind": "veto", "read": [w for w in read if w]}]


def _verified(d: dict[str, Any]) -> list[dict[str, Any]]:
    """The verifier's rules that fired (:mod:`kb.rag.claim_polarity`), one per sentence."""
    out: list[dict[str, Any]] = []
    for v in d.get("sentences") or []:
        c = v.get("contradiction")
        if c:
            read = {"claim": c.get("claim"), "evidence": c.get("evidence")}
            out.append({"rule": c.get("rule"), "kind": "verify", "read": read})
    return out


def trace(d: dict[str, Any], rules_off: list[str] | None = None) -> dict[str, Any]:
    """The decision of record ``d`` (module docstring), as plain JSON values."""
    a = d.get("answerability")
    passages = [
        {
            "n": c.get("n"),
            "place": (c.get("locator") or {}).get("display") or c.get("path"),
            "score": c.get("score"),
        }
        # a refusal gave the model no context: the passages the evidence check read
        for c in d.get("contexts") or d.get("retrieved") or []
    ]
    evidence = None
    if a is not None:
        evidence = {
            k: a.get(k)
            for k in (
                "score",
                "fitted",
                "threshold",
                "coverage",
                "cosine",
                "chunk_cosine",
                "held",
                "missing",
                "lacks",
            )
        }
    out = d.get("outcome") or {}
    return {
        "passages": passages,
        "evidence": evidence,
        "rules": (_fired(a) if a is not None else [])
        + _lifted(d, rules_off or [])
        + _unanswering(d)
        + _verified(d),
        "rules_off": list(rules_off or []),
        "selector": d.get("selector"),
        "responsive": d.get("responsive"),
        "decided": {"kind": out.get("kind"), "rule": out.get("rule")},
    }


def _read(r: dict[str, Any]) -> str:
    read = r.get("read")
    if not read:
        return ""
    if isinstance(read, list):
        return " (read " + ", ".join(f"'{w}'" for w in read) + ")"
    if "claim" in read:
        return f" (the answer says '{read['claim']}', its evidence '{read['evidence']}')"
    q, p = read.get("question"), read.get("passage")
    said = f", the passage says '{p}'" if p else ", no matching sentence says so"
    return f" (the question says '{q}'{said})"


def render(t: dict[str, Any]) -> list[str]:
    """The trace as lines for a terminal (``kb ask --explain``)."""
    lines = ["Why:"]
    if t["passages"]:
        shown = "; ".join(
            f"[#{p['n']}] {p['place']}"
            + (f" ({p['score']:.3f})" if isinstance(p.get("score"), int | float) else "")
            for p in t["passages"]
        )
        lines.append(f"  passages: {shown}")
    else:
        lines.append("  passages: none retrieved")
    e = t.get("evidence")
    if e is not None:
        line = f"  evidence check: p(answerable) {e['score']:.2f}"
        verdict = "passes" if e["score"] >= e["threshold"] else "below"
        line += f" {verdict} threshold {e['threshold']:g} ([answer] min_answerable)"
        feats = [f"coverage {e['coverage']:.2f}"]
        if e.get("cosine") is not None:
            feats.append(f"sentence cosine {e['cosine']:.2f}")
        if e.get("chunk_cosine") is not None:
            feats.append(f"passage cosine {e['chunk_cosine']:.2f}")
        if e.get("fitted") is not None and e["fitted"] != e["score"]:
            feats.append(f"fitted {e['fitted']:.2f} before a floor rule")
        lines.append(line + " — " + ", ".join(feats))
        if e.get("held") or e.get("missing"):
            held = ", ".join(f"'{w}'" for w in e.get("held") or []) or "none"
            missing = ", ".join(f"'{w}'" for w in e.get("missing") or []) or "none"
            lines.append(f"    best sentence holds {held}; lacks {missing}")
        if e.get("lacks"):
            lines.append(f"    the sentences that match best give no {e['lacks']}")
    elif t["decided"].get("kind") == "no_hits":
        lines.append("  evidence check: not run (nothing passed retrieval's threshold)")
    for r in t["rules"]:
        rule = BY_ID.get(r["rule"])
        purpose = f": {rule.purpose}" if rule is not None else ""
        lines.append(f"  rule {r['rule']} ({r['kind']}) fired{_read(r)}{purpose}")
    if not t["rules"] and e is not None:
        lines.append("  rules: no veto or floor fired")
    if t.get("rules_off"):
        lines.append("  rules off: " + ", ".join(t["rules_off"]))
    sel = t.get("selector")
    if sel is not None:
        rule = BY_ID.get(sel)
        why = rule.purpose if rule is not None else "the candidates as ranked"
        name = sel if sel != RANKED else "ranked"
        lines.append(f"  quote chosen from: {name} ({why})")
    r = t.get("responsive")
    if r is not None:
        v = r["verdict"].replace("_", " ")
        parts = [f"asks {r['asks']}" if r.get("asks") else "untyped question"]
        if r.get("held"):
            parts.append("passages hold " + ", ".join(f"'{w}'" for w in r["held"]))
        if r.get("lacking"):
            parts.append("lack " + ", ".join(f"'{w}'" for w in r["lacking"]))
        lines.append(f"  responsive: {v} ({'; '.join(parts)})")
    dec = t["decided"]
    if dec.get("kind"):
        by = f" by {dec['rule']}" if dec.get("rule") else ""
        lines.append(f"  decided: {dec['kind'].replace('_', ' ')}{by}")
    return lines
