"""Why kb answered as it did: one enumeration of outcomes, one message table, one renderer.

The CLI (``kb ask``), the web page (``kb serve``: the answer record's ``outcome``) and MCP
(``answer_summary``) all show :func:`outcome` of the same record, so their reasons cannot
drift apart. ``message`` is in the user's words ("your notes mention 'boiler' and
'service' but give no amount"); ``detail`` holds the internals (``p(answerable) 0.38 <
0.4``, cosines) that only ``kb ask --explain`` prints; ``rule`` names the rule
(:mod:`kb.rag.rules`) or threshold that decided.

Kinds, in the order :func:`outcome` tests them:

- refusals: ``no_hits`` (nothing passed retrieval's threshold), ``contradicted`` (a veto
  rule: the best sentences contradict the question), ``absent_keys`` (a number or name of
  the question is in no passage), ``lacks_type`` (the matching sentences give no date,
  amount or number; also rule ``no-responsive-quote`` when no sentence quote mode could
  offer gives it), ``other_subject`` (rule ``no-responsive-quote``: the sentences that
  could answer are about something else, :mod:`kb.rag.responsive`), ``missing_terms``
  (the closest sentence lacks words of the question), ``far_meaning`` (the words are
  there, the meaning is not), ``model`` (the model wrote the refusal phrase);
- answers: ``error``, ``ungrounded`` (no valid citation), ``unsupported`` (a sentence its
  passages do not support), ``not_responsive`` (the answer does not give what is asked,
  :mod:`kb.rag.responsive`), ``partial`` (cut short), ``grounded``.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any


class Kind(StrEnum):
    NO_HITS = "no_hits"
    CONTRADICTED = "contradicted"
    ABSENT_KEYS = "absent_keys"
    LACKS_TYPE = "lacks_type"
    OTHER_SUBJECT = "other_subject"
    MISSING_TERMS = "missing_terms"
    FAR_MEANING = "far_meaning"
    MODEL = "model"
    ERROR = "error"
    UNGROUNDED = "ungrounded"
    UNSUPPORTED = "unsupported"
    NOT_RESPONSIVE = "not_responsive"
    PARTIAL = "partial"
    GROUNDED = "grounded"


#: refusal kinds (the others are answers)
REFUSALS = frozenset(
    {
        Kind.NO_HITS,
        Kind.CONTRADICTED,
        Kind.ABSENT_KEYS,
        Kind.LACKS_TYPE,
        Kind.OTHER_SUBJECT,
        Kind.MISSING_TERMS,
        Kind.FAR_MEANING,
        Kind.MODEL,
    }
)

#: one message per kind; ``{…}`` fields come from the record (see :func:`outcome`)
MESSAGES: dict[Kind, str] = {
    Kind.NO_HITS: "nothing in the KB is close enough to the question",
    Kind.CONTRADICTED: "{contradiction}",
    Kind.ABSENT_KEYS: "the question names {keys}, which no retrieved passage contains",
    Kind.LACKS_TYPE: "your notes mention {held} but give no {lacks}",
    Kind.OTHER_SUBJECT: "the passages that could give {asks} do not mention {lacking}",
    Kind.MISSING_TERMS: "no retrieved passage says what the question asks about "
    "(the closest sentence does not mention {missing})",
    Kind.FAR_MEANING: "the question's words are in the passages, but no sentence says what it asks",
    Kind.MODEL: "the model found no answer in the retrieved passages",
    Kind.ERROR: "{error}",
    Kind.UNGROUNDED: "the answer cites no source",
    Kind.UNSUPPORTED: "some sentences are not supported by the passages they cite",
    Kind.NOT_RESPONSIVE: "{responsive}",
    Kind.PARTIAL: "the answer was cut short: the quotes after the last one shown were dropped",
    Kind.GROUNDED: "{grounded}",
}

#: what the web page and the CLI call each kind in front of its message
LABELS: dict[Kind, str] = {
    **{k: "Refused" for k in REFUSALS},
    Kind.ERROR: "Error",
    Kind.UNGROUNDED: "Ungrounded",
    Kind.UNSUPPORTED: "Not grounded",
    Kind.NOT_RESPONSIVE: "Not responsive",
    Kind.PARTIAL: "Partial",
    Kind.GROUNDED: "Grounded",
}


@dataclass(frozen=True)
class Outcome:
    """What happened, in words: ``kind``, the user's ``message``, the internals
    (``detail``, for ``--explain``) and the ``rule`` or threshold that decided."""

    kind: Kind
    message: str
    detail: str
    rule: str

    @property
    def label(self) -> str:
        return LABELS[self.kind]

    @property
    def refused(self) -> bool:
        return self.kind in REFUSALS

    def line(self) -> str:
        """``"Refused: <message>; the model was not run."`` as the web page and MCP
        show it (a refusal before the model says so)."""
        ran = "; the model was not run" if self.refused and self.kind != Kind.MODEL else ""
        return f"{self.label}: {self.message}{ran}."

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": str(self.kind),
            "label": self.label,
            "message": self.message,
            "detail": self.detail,
            "rule": self.rule,
            "line": self.line(),
        }


def _words(ws: list[str], n: int = 5) -> str:
    """``'a', 'b' and 'c'`` of the first ``n``."""
    q = [f"'{w}'" for w in ws[:n]]
    if len(q) <= 1:
        return "".join(q)
    return ", ".join(q[:-1]) + " and " + q[-1]


def _contradiction(c: dict[str, Any]) -> str:
    if c.get("passage") is None:
        return (
            f"the question says '{c['question']}', but no passage sentence that matches it says so"
        )
    return (
        f"the question asks about '{c['question']}', but the passage sentence that matches "
        f"it best says '{c['passage']}'"
    )


def _score_detail(a: dict[str, Any]) -> str:
    parts = [f"p(answerable) {a.get('score', 0):.2f} vs threshold {a.get('threshold', 0):g}"]
    if a.get("fitted") is not None and a.get("fitted") != a.get("score"):
        floor = "every-term" if a.get("every_term") else "section-named"
        parts.append(f"fitted {a['fitted']:.2f}, lifted by {floor}")
    parts.append(f"coverage {a.get('coverage', 0):.2f}")
    if a.get("cosine") is not None:
        parts.append(f"sentence cosine {a['cosine']:.2f}")
    if a.get("chunk_cosine") is not None:
        parts.append(f"passage cosine {a['chunk_cosine']:.2f}")
    return ", ".join(parts)


def _refusal(d: dict[str, Any], min_score: float | None) -> Outcome:
    reason = d.get("refusal_reason")
    a = d.get("answerability") or {}
    if reason == "no_hits":
        detail = "no passage passed the retrieval threshold"
        if min_score is not None:
            from kb.search.evidence import SENTENCE_MARGIN

            detail += (
                f" (min-score {min_score:g} for a passage, {min_score + SENTENCE_MARGIN:g} "
                "for one sentence)"
            )
        near = d.get("nearest")
        if near is not None:
            scores = [
                f"{label} {near[key]:.3f}"
                for key, label in (("cosine", "passage cosine"), ("sentence", "best sentence"))
                if near.get(key) is not None
            ]
            if scores:
                detail += "; closest: " + ", ".join(scores)
        return Outcome(Kind.NO_HITS, MESSAGES[Kind.NO_HITS], detail, "search.min_score")
    if reason == "model":
        return Outcome(
            Kind.MODEL, MESSAGES[Kind.MODEL], "the model wrote the refusal phrase", "model"
        )
    score_ok = a.get("score", 0) >= a.get("threshold", 0)
    detail = _score_detail(a)
    if reason == "not_responsive":
        return _unanswering(d.get("responsive") or {}, detail)
    contradicted = a.get("contradictions") or []
    if contradicted and score_ok:
        c = contradicted[0]
        msg = MESSAGES[Kind.CONTRADICTED].format(contradiction=_contradiction(c))
        return Outcome(Kind.CONTRADICTED, msg, detail, c.get("rule") or "contradiction")
    absent = a.get("absent_keys") or []
    if absent and score_ok:
        msg = MESSAGES[Kind.ABSENT_KEYS].format(keys=_words(absent))
        return Outcome(Kind.ABSENT_KEYS, msg, detail, "absent-keys")
    rule = "answer.min_answerable"
    if a.get("lacks"):
        return _lacks_type(a.get("held") or [], a["lacks"], detail, rule)
    missing = a.get("missing") or []
    if missing:
        msg = MESSAGES[Kind.MISSING_TERMS].format(missing=_words(missing))
        return Outcome(Kind.MISSING_TERMS, msg, detail, rule)
    return Outcome(Kind.FAR_MEANING, MESSAGES[Kind.FAR_MEANING], detail, rule)


def _lacks_type(held: list[str], lacks: str, detail: str, rule: str) -> Outcome:
    """``lacks_type``: the passages mention ``held`` (the question's words) but give no
    answer of the kind ``lacks`` (the evidence check's, or rule ``no-responsive-quote``'s)."""
    what = _words(held) if held else "what the question asks about"
    msg = MESSAGES[Kind.LACKS_TYPE].format(held=what, lacks=lacks)
    return Outcome(Kind.LACKS_TYPE, msg, detail, rule)


def _unanswering(r: dict[str, Any], detail: str) -> Outcome:
    """Rule ``no-responsive-quote``'s refusal: no sentence quote mode could offer gives
    the kind of answer asked, or they are about something else."""
    rule = "no-responsive-quote"
    if r.get("reason") == "type":
        return _lacks_type(r.get("held") or [], r.get("asks") or "answer", detail, rule)
    kind = r.get("asks")  # "an amount", "a date or time"; "an answer" when untyped
    asks = f"{'an' if kind[0] in 'aeiou' else 'a'} {kind}" if kind else "an answer"
    lacking = _words(r.get("lacking") or []) or "what the question asks about"
    msg = MESSAGES[Kind.OTHER_SUBJECT].format(asks=asks, lacking=lacking)
    return Outcome(Kind.OTHER_SUBJECT, msg, detail, rule)


def _responsive_message(r: dict[str, Any], quote: bool) -> str:
    what = "the quote" if quote else "the answer"
    if r.get("reason") == "type":
        held = r.get("held") or []
        asks = r.get("asks") or "answer of the kind asked"
        if held:  # "your notes mention 'boiler' and 'service', but the quote gives no amount"
            return f"your notes mention {_words(held)}, but {what} gives no {asks}"
        return f"{what} gives no {asks}"
    lacking = r.get("lacking") or []
    return f"the passage {what} comes from does not mention {_words(lacking)}"


def outcome(d: dict[str, Any]) -> Outcome:
    """The outcome of an answer record (:meth:`kb.rag.AnswerRecord.to_dict`, whose
    ``outcome`` it is)."""
    if d.get("refused"):
        return _refusal(d, d.get("min_score"))
    if d.get("error"):
        return Outcome(Kind.ERROR, str(d["error"]), "", "error")
    quote = d.get("mode") == "quote"
    if not d.get("citations"):
        return Outcome(Kind.UNGROUNDED, MESSAGES[Kind.UNGROUNDED], "", "citations")
    sentences = d.get("sentences") or []
    if any(v.get("verdict") != "supported" for v in sentences):
        return Outcome(Kind.UNSUPPORTED, MESSAGES[Kind.UNSUPPORTED], "", "answer.verify")
    r = d.get("responsive") or {}
    share = f"lacking share {r.get('lacking_share', 0):.2f}" if r else ""
    if r.get("verdict") == "not_responsive":
        msg = _responsive_message(r, quote)
        return Outcome(Kind.NOT_RESPONSIVE, msg, share, "responsive")
    if r.get("verdict") == "partial" and r.get("reason") == "fact":
        msg = f"your notes do not answer one part of the question: {r.get('unanswered')}"
        return Outcome(Kind.PARTIAL, msg, share, "two-facts")
    if r.get("verdict") == "partial":
        msg = MESSAGES[Kind.PARTIAL]
        if not quote:
            msg = "the answer was cut short: its unfinished sentence was dropped"
        return Outcome(Kind.PARTIAL, msg, share, "llm.max_tokens")
    if quote:
        grounded = "each sentence is quoted from the passage it cites"
    elif sentences:
        grounded = "every sentence is supported by the passage it cites"
    else:
        grounded = "the answer cites its sources (not verified: --no-verify)"
    return Outcome(Kind.GROUNDED, MESSAGES[Kind.GROUNDED].format(grounded=grounded), share, "")
