"""One reason per outcome kind, said the same way by `kb ask`, the web page and MCP."""

from __future__ import annotations

import pytest

from kb.cli.ask_cmd import _summary
from kb.config import Settings
from kb.rag.reasons import REFUSALS, Kind, outcome
from kb.rag.record import AnswerRecord, SourceRef
from kb.rag.responsive import Responsiveness
from kb.rag.verify import SentenceVerdict
from kb.serve.mcp_server import answer_summary

SCORE_OK = {"score": 0.7, "threshold": 0.4, "coverage": 0.8, "cosine": 0.6}


def _check(**a: object) -> dict[str, object]:
    base: dict[str, object] = {
        "score": 0.3,
        "threshold": 0.4,
        "coverage": 0.5,
        "missing": [],
        "absent_keys": [],
        "contradictions": [],
    }
    base.update(a)
    return base


def _refused(reason: str, **a: object) -> AnswerRecord:
    return AnswerRecord(
        "q", refused=True, refusal_reason=reason, answerability=_check(**a) if a else None
    )


def _answer(**kw: object) -> AnswerRecord:
    r = AnswerRecord("q", text="It costs £289. [#1]", mode="quote")
    r.citations = [SourceRef(1, 7, "notes/car.md", {"display": "notes/car.md › Service"})]
    r.sentences = [SentenceVerdict(0, r.text, "It costs £289.", [1], {1: 1.0}, "supported")]
    for k, v in kw.items():
        setattr(r, k, v)
    return r


CASES: dict[Kind, AnswerRecord] = {
    Kind.NO_HITS: AnswerRecord("q", refused=True, refusal_reason="no_hits", min_score=0.25),
    Kind.CONTRADICTED: _refused(
        "no_support",
        **SCORE_OK,
        contradictions=[{"question": "lowest", "passage": "highest", "rule": "negation"}],
    ),
    Kind.ABSENT_KEYS: _refused("no_support", **SCORE_OK, absent_keys=["Q2"]),
    Kind.LACKS_TYPE: _refused("no_support", lacks="amount", held=["boiler"], missing=["cost"]),
    Kind.OTHER_SUBJECT: AnswerRecord(
        "q",
        refused=True,
        refusal_reason="not_responsive",
        answerability=_check(**SCORE_OK),
        responsive=Responsiveness("not_responsive", "amount", ["cost"], ["Pepper's"], "subject"),
    ),
    Kind.MISSING_TERMS: _refused("no_support", missing=["dinner"]),
    Kind.FAR_MEANING: _refused("no_support", coverage=1.0, cosine=0.3),
    Kind.MODEL: AnswerRecord("q", text="Not in context.", refused=True, refusal_reason="model"),
    Kind.UNGROUNDED: AnswerRecord("q", text="It is blue."),
    Kind.NOT_RESPONSIVE: _answer(
        responsive=Responsiveness("not_responsive", "amount", ["service"], ["boiler"], "subject")
    ),
    Kind.GROUNDED: _answer(responsive=Responsiveness("responsive")),
}


def test_every_refusal_kind_has_a_case() -> None:
    assert set(CASES) >= REFUSALS


@pytest.mark.parametrize("kind", list(CASES), ids=str)
def test_cli_web_and_mcp_give_the_same_reason(
    kind: Kind, capsys: pytest.CaptureFixture[str]
) -> None:
    record = CASES[kind]
    d = record.to_dict()  # what the web page receives (kb serve's done event)
    o = outcome(d)
    assert o.kind == kind
    assert d["outcome"]["kind"] == str(kind) and d["outcome"]["line"] == o.line()
    assert answer_summary(record)["reason"] == o.line()  # MCP
    _summary(record, Settings())
    out = capsys.readouterr().out
    if kind != Kind.GROUNDED:  # `kb ask` prints the same message after its label
        assert o.message in out, out
    # internals stay in --explain
    assert "p(answerable)" not in out and "cosine" not in o.message


def test_the_contradiction_names_its_rule_in_the_trace() -> None:
    d = CASES[Kind.CONTRADICTED].to_dict()
    assert d["outcome"]["rule"] == "negation"
    fired = d["trace"]["rules"]
    assert fired == [
        {"rule": "negation", "kind": "veto", "read": {"question": "lowest", "passage": "highest"}}
    ]


def test_a_quote_is_not_called_supported_on_the_web_page() -> None:
    d = CASES[Kind.GROUNDED].to_dict()
    assert d["sentences"][0]["quoted"] is False  # the record's verdicts carry the flag
    assert outcome(d).message == "each sentence is quoted from the passage it cites"


def test_a_not_responsive_answer_is_not_grounded_in_words() -> None:
    o = outcome(CASES[Kind.NOT_RESPONSIVE].to_dict())
    assert o.label == "Not responsive"
    assert o.message == "the passage the quote comes from does not mention 'boiler'"


def test_no_responsive_quote_refuses_in_the_users_words() -> None:
    # rule no-responsive-quote: no candidate is about the subject, or none gives the type
    o = outcome(CASES[Kind.OTHER_SUBJECT].to_dict())
    assert o.refused and o.rule == "no-responsive-quote"
    assert o.message == "the passages that could give an amount do not mention 'Pepper's'"
    typed = AnswerRecord(
        "When does Jonas's passport expire?",
        refused=True,
        refusal_reason="not_responsive",
        answerability=_check(**SCORE_OK),
        responsive=Responsiveness("not_responsive", "date or time", ["passport"], [], "type"),
    ).to_dict()
    o = outcome(typed)
    assert (o.kind, o.rule) == (Kind.LACKS_TYPE, "no-responsive-quote")
    assert o.message == "your notes mention 'passport' but give no date or time"
    assert typed["trace"]["decided"] == {"kind": "lacks_type", "rule": "no-responsive-quote"}
    assert typed["trace"]["responsive"]["reason"] == "type"
    fired = typed["trace"]["rules"][-1]
    assert fired == {"rule": "no-responsive-quote", "kind": "veto", "read": ["date or time"]}
    other = CASES[Kind.OTHER_SUBJECT].to_dict()["trace"]["rules"]
    assert {"rule": "no-responsive-quote", "kind": "veto", "read": ["Pepper's"]} in other


def test_a_refusals_trace_lists_the_passages_the_evidence_check_read() -> None:
    from kb.rag.trace import render
    from kb.types import Hit, Locator

    hit = Hit(7, "Pottery class every Thursday.", Locator("notes/week.md", "md"), 0.8)
    rec = AnswerRecord(
        question="Which day is my ceramics course?",
        refused=True,
        refusal_reason="no_support",
        answerability=_check(),
        retrieved=[hit],
    )
    d = rec.to_dict()
    assert d["contexts"] == [] and d["retrieved"][0]["chunk_id"] == 7
    assert d["trace"]["passages"] == [{"n": 1, "place": "notes/week.md", "score": 0.8}]
    assert "none retrieved" not in "\n".join(render(d["trace"]))
