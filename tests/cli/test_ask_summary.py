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
    _summary(refused(missing=["dinner"], cosine=0.31), Settings())
    line = capsys.readouterr().out.strip()
    assert "(closest sentence lacks: 'dinner'); p(answerable) 0.30 < 0.4" in line
    assert line.endswith("the model was not run (--min-answerable 0 answers anyway)")


def test_a_refusal_with_every_word_present_says_the_meaning_is_far(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # "How long does the ALTER take?" over a long bullet that holds every word
    _summary(refused(cosine=0.3948, coverage=1.0), Settings())
    line = capsys.readouterr().out.strip()
    assert "its words are there, but no sentence is close to it: cosine 0.39" in line
    assert "lacks" not in line and "\n" not in line
