"""`kb ask`'s refusal lines for the evidence check (unit tests: a record, no models)."""

from __future__ import annotations

import pytest

from kb.cli.ask_cmd import _summary
from kb.config import Settings
from kb.rag.record import AnswerRecord


def refused(**answerability: object) -> AnswerRecord:
    a = {"score": 0.3, "threshold": 0.4, "missing": [], "absent_keys": [], "contradictions": []}
    a.update(answerability)
    return AnswerRecord("q", refused=True, refusal_reason="no_support", answerability=a)


def test_a_refusal_names_the_missing_words_and_how_to_answer_anyway(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _summary(refused(missing=["dinner"], cosine=0.31, coverage=0.5), Settings())
    first, hint = capsys.readouterr().out.strip().splitlines()
    assert first == (
        "refused: no retrieved passage says what the question asks about (the closest "
        "sentence does not mention 'dinner'); the model was not run"
    )
    # the internals (p(answerable) against its threshold) are for --explain only
    assert "p(answerable)" not in first and "0.4" not in first
    assert hint.strip() == "(--explain shows why; --min-answerable 0 answers anyway)"


def test_explain_prints_the_score_against_its_threshold(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _summary(refused(missing=["dinner"], cosine=0.31, coverage=0.5), Settings(), explain=True)
    out = capsys.readouterr().out
    assert "evidence check: p(answerable) 0.30 below threshold 0.4" in out
    assert "sentence cosine 0.31" in out and "lacks 'dinner'" in out
    assert "decided: missing terms by answer.min_answerable" in out


def test_a_refusal_with_every_word_present_says_the_meaning_is_far(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # "How long does the ALTER take?" over a long bullet that holds every word
    _summary(refused(cosine=0.3948, coverage=1.0), Settings())
    line = capsys.readouterr().out.strip().splitlines()[0]
    assert "the question's words are in the passages, but no sentence says what it asks" in line
    assert "cosine" not in line


def test_a_missing_type_says_what_the_notes_mention(capsys: pytest.CaptureFixture[str]) -> None:
    # "How much did the boiler service cost?" over notes about the boiler that give no price
    _summary(refused(lacks="amount", held=["boiler", "service"], missing=["cost"]), Settings())
    line = capsys.readouterr().out.strip().splitlines()[0]
    assert line.startswith("refused: your notes mention 'boiler' and 'service' but give no amount")
