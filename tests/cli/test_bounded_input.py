"""One length limit for questions and queries (kb.limits): the CLI (exit 5) and golden
sets. The API (413) and MCP (-32602) are in tests/serve/test_input_guards.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kb.errors import GoldenError, QuestionTooLongError
from kb.limits import MAX_QUESTION_CHARS, check_question
from tests.cli.clirun import kb

Cap = pytest.CaptureFixture[str]
LONG = "x" * (MAX_QUESTION_CHARS + 1)


def test_the_limit_is_exact() -> None:
    at = "y" * MAX_QUESTION_CHARS
    assert check_question(at) is at
    with pytest.raises(QuestionTooLongError) as e:
        check_question(LONG, "query")
    assert str(e.value) == "the query is 4,001 characters, over the limit of 4,000; shorten it"
    assert e.value.exit_code == 5


@pytest.mark.parametrize(("command", "what"), [("search", "query"), ("ask", "question")])
def test_search_and_ask_refuse_a_long_question_with_exit_5(
    capsys: Cap, kb_home: Path, command: str, what: str
) -> None:
    r = kb(capsys, command, LONG)
    assert r.code == 5
    assert r.err.splitlines() == [
        f"kb: error: the {what} is 4,001 characters, over the limit of 4,000; shorten it"
    ]
    assert not kb_home.exists()  # refused before anything is opened


def test_a_golden_question_over_the_limit_names_file_line_and_id(tmp_path: Path) -> None:
    from eval.golden import load_golden

    g = tmp_path / "g.jsonl"
    g.write_text(
        json.dumps({"id": "ok", "question": "short?", "answerable": False})
        + "\n"
        + json.dumps({"id": "huge", "question": LONG, "answerable": False})
        + "\n",
        encoding="utf-8",
    )
    with pytest.raises(GoldenError) as e:
        load_golden(g)
    assert str(e.value) == (
        f"{g}:2: query 'huge': question: the question is 4,001 characters, over the limit "
        "of 4,000; shorten it"
    )
