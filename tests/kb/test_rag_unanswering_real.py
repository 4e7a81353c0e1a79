"""Rule no-responsive-quote on the real parts (the ingest pipeline, SQLite, LanceDB, the
bundled all-MiniLM-L6-v2): a question whose every quotable sentence is about another
entry of the same note (another year's section of a running log, another row) is
refused before the model writes, in the user's words; the entry that is there is
answered.

The generator is scripted to pick the first quote candidate, so each test reads what the
pipeline offers and refuses, not what a model makes of it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from kb.rag.reasons import outcome
from tests.kb.test_rag_daily_real import ask, notes_kb

NOTES = {
    "running-log.md": (
        "# Running log\n\nStarted in spring 2023. Newest entries at the bottom.\n\n"
        "## 2023\n\n"
        "- 2023-06-25 — **Dreisamlauf 10 km**, my first race! 58:12. Entry fee €18.\n"
        "- 2023-11-19 — thought about the Freiburg half for this year but it was long "
        "gone in March. Next year.\n\n"
        "## 2024\n\n"
        "- 2024-03-24 — **Freiburg Half Marathon**: 2:09:37. Entry fee was €49.\n"
        "- 2024-10-13 — **Kaiserstuhl trail 15 km**: 1:52:10, entry €35.\n\n"
        "## 2025\n\n"
        "- 2025-03-30 — **Freiburg Half Marathon**: 2:01:48, new PB. Entry fee €54.\n"
        "- 2025-09-14 — **Hochschwarzwald trail 25 km**: 3:21:05. 900 m up.\n"
    ),
    "boiler.md": (
        "# Boiler\n\nGas boiler in the kitchen cupboard, installed 2016. The previous "
        "owner's service papers (up to 2023) are in the green folder.\n\n## Service log\n\n"
        "| Date | Who | What | Cost |\n| --- | --- | --- | --- |\n"
        "| 2024-10-09 | Herr Kessler | annual service | €176.00 |\n"
        "| 2025-10-14 | Herr Kessler | annual service, cleaned burner | €189.50 |\n"
    ),
}


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory, real_embedder: Any) -> Iterator[Any]:
    yield from notes_kb(tmp_path_factory.mktemp("unanswering"), NOTES, real_embedder)


@pytest.mark.slow
def test_another_years_entry_of_the_log_is_refused_before_the_model(kb: Any) -> None:
    out = ask(kb, "What was my Freiburg Half Marathon time in 2023?")
    assert out.refused and out.refusal_reason == "not_responsive", (out.text, out.answerability)
    o = outcome(out.to_dict())
    assert (o.kind, o.rule) == ("other_subject", "no-responsive-quote"), o
    assert out.responsive is not None and out.responsive.lacking
    assert out.to_dict()["trace"]["rules"][-1]["rule"] == "no-responsive-quote"


@pytest.mark.slow
def test_a_year_is_no_amount_so_the_boiler_note_does_not_answer_for_2023(kb: Any) -> None:
    # the boiler note's 2023 is in "service papers (up to 2023)", with "installed 2016":
    # neither is an amount; what is left of 2023 is the running log's, another subject
    out = ask(kb, "How much did the boiler service cost in 2023?")
    assert "2016" not in out.text and "2023)" not in out.text, out.text
    assert out.refused or (out.responsive is not None and not out.grounded), out.text


@pytest.mark.slow
@pytest.mark.parametrize(
    ("question", "quote"),
    [
        ("What was my Freiburg Half Marathon time in 2025?", "2:01:48"),
        ("How much did the boiler service cost in 2025?", "€189.50"),
    ],
)
def test_the_entry_that_is_there_is_answered(kb: Any, question: str, quote: str) -> None:
    out = ask(kb, question)
    assert not out.refused, (question, out.refusal_reason, out.answerability)
    assert quote in out.text and out.grounded, (question, out.text)
