"""kb eval rules: per-rule wins and losses (eval.rules), and the command's bad input."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from eval.golden_types import AnswerCheck, GoldenQuery
from eval.result import AnswerResult, QueryResult
from eval.rules import fired, measure, right, sign_test
from kb.cli import app
from tests.cli.clirun import kb

runner = CliRunner()


def result(qid: str, answerable: bool, text: str, refused: bool, **a: object) -> QueryResult:
    q = GoldenQuery(qid, "q?", answerable, answer=AnswerCheck(("blue",)) if answerable else None)
    check = {"contradictions": a.pop("contradictions", []), **a}
    ans = AnswerResult(text=text, refused=refused, answerability=check)
    return QueryResult(query=q, position=0, answer=ans)


NEG = [{"question": "not", "passage": None, "rule": "negation"}]


def test_fired_reads_the_rule_ids_of_the_record() -> None:
    r = result("a", True, "blue", False, contradictions=NEG, every_term=True)
    r.answer.selector = "rows"  # type: ignore[union-attr]
    assert fired(r) == {"negation", "every-term", "rows"}
    # quote mode's refusal before the model when no candidate would be responsive
    v = result("u", False, "", True)
    v.answer.refusal_reason = "not_responsive"  # type: ignore[union-attr]
    assert fired(v) == {"no-responsive-quote"}


def test_right_is_a_correct_answer_or_an_honest_refusal() -> None:
    assert right(result("a", True, "It is blue.", False)) is True
    assert right(result("a", True, "It is red.", False)) is False
    assert right(result("a", True, "", True)) is False
    assert right(result("u", False, "", True)) is True
    assert right(result("u", False, "It is blue.", False)) is False


def test_a_veto_that_refuses_unanswerable_questions_pays() -> None:
    base = [
        result("u1", False, "", True, contradictions=NEG),  # refused by the rule: right
        result("u2", False, "", True, contradictions=NEG),
        result("a1", True, "", True, contradictions=NEG),  # refused wrongly
        result("a2", True, "blue", False),  # the rule did not fire: never asked again
    ]
    asked: list[str] = []

    def rerun(rule: str, hit: list[QueryResult]) -> list[QueryResult]:
        asked.extend(r.query.id for r in hit)
        # without the rule every question is answered "blue"
        return [result(r.query.id, r.query.answerable, "blue", False) for r in hit]

    (rep,) = measure(base, [("negation", "veto")], rerun)
    assert asked == ["u1", "u2", "a1"]
    assert rep.fired == 3 and rep.wins == 2 and rep.losses == 1 and rep.pays
    assert rep.delta == pytest.approx(1 / 4)
    assert rep.counts_on == {"answer_correct": 1, "abstained": 2, "over_refused": 1}
    assert rep.counts_off == {"answer_correct": 2, "abstained": 0, "over_refused": 0}


def test_sign_test_is_exact() -> None:
    assert sign_test(0, 0) == 1.0
    assert sign_test(5, 0) == pytest.approx(2 / 32)
    assert sign_test(3, 3) == 1.0


def test_an_unknown_rule_id_is_one_line_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    r = kb(capsys, "eval", "rules", "g.yaml", "--rule", "nope")
    assert r.code == 2
    assert "--rule 'nope': unknown rule id" in r.err and len(r.err.strip().splitlines()) == 1


def test_a_golden_set_without_unanswerable_queries_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    g = tmp_path / "g.yaml"
    g.write_text(
        "schema_version: 1\nqueries:\n  - id: a\n    question: What is blue?\n"
        "    supports: [{path: a.md}]\n",
        encoding="utf-8",
    )
    r = kb(capsys, "eval", "rules", str(g), "--kb", str(tmp_path / "kb"))
    assert r.code == 2, r
    assert "no unanswerable query" in r.err and len(r.err.strip().splitlines()) == 1
    assert not (tmp_path / "kb").exists()  # nothing written


def test_list_names_every_rule() -> None:
    from kb.rag.rules import RULES

    r = runner.invoke(app, ["eval", "rules", "--list"])
    assert r.exit_code == 0
    assert [line.split()[0] for line in r.output.splitlines()] == [x.id for x in RULES]
