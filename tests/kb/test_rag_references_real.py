"""Reading notes, a running log and a car note on the real parts (the ingest pipeline,
SQLite, LanceDB, the bundled all-MiniLM-L6-v2): a reference line under a book's title
says who wrote it, a one-word question is answered by the sentence that writes its verb,
an insurer is found in the insurance line, a cause in a sentence that says *because*, and
the last service in the table row with the latest date.

The generator is scripted to pick the first quote candidate, so each test reads what the
pipeline offers and refuses, not what a model makes of it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.kb.test_rag_daily_real import ask, notes_kb

NOTES = {
    "books.md": (
        "# Book notes\n\n## The Dispossessed\n\nUrsula K. Le Guin, 1974. Shevek, a physicist "
        "from the anarchist moon Anarres, travels to the propertarian planet Urras.\n\n"
        "## Thinking, Fast and Slow\n\nDaniel Kahneman, 2011. System 1 is fast and "
        "intuitive; System 2 is slow and deliberate.\n"
    ),
    "health/running.md": (
        "# Running log\n\n## November 2026\n\n- 2 Nov: 10 km, 58:30.\n"
        "- 9 Nov: intervals, 6 x 400 m at 1:45 each.\n"
        "- 21 Nov: physio said the knee pain is patellar tendinopathy; reduce hills for "
        "four weeks.\n"
    ),
    "work/retro.md": (
        "# Sprint 42 retro\n\n## What did not go well\n\n- The staging environment was down "
        "for most of Tuesday because the TLS certificate expired.\n"
        "- Code review took too long; median time to first review was 26 hours.\n\n"
        "## Actions\n\n- Lena to write the postmortem for the staging outage.\n"
    ),
    "car.md": (
        "# Car\n\nThe MOT is due on 18 March 2027. The tyre pressure is 36 psi front.\n"
        "Insurance renews in July with Admiral; the policy number is ADM-5531-9920.\n\n"
        "## Service history\n\n| Date | Mileage | Work | Garage | Cost |\n"
        "| --- | --- | --- | --- | --- |\n"
        "| 2025-03-14 | 61,200 | Annual service, brake fluid | Hillside Motors | £289 |\n"
        "| 2026-03-20 | 72,450 | Annual service, cambelt | Hillside Motors | £745 |\n"
        "| 2025-09-02 | 66,870 | Two front tyres | Tyre Town | £212 |\n"
    ),
}


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory, real_embedder: Any) -> Iterator[Any]:
    yield from notes_kb(tmp_path_factory.mktemp("references"), NOTES, real_embedder)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("question", "quote"),
    [
        ("Who wrote The Dispossessed?", "Ursula K. Le Guin, 1974."),
        ("Who wrote Thinking, Fast and Slow?", "Daniel Kahneman, 2011."),
        ("What did the physio say?", "physio said the knee pain"),
        ("Who is the insurer?", "with Admiral"),
        ("What caused the staging outage?", "because the TLS certificate expired"),
        ("How much was the last service?", "| 2026-03-20 |"),
        ("When was the earliest service?", "| 2025-03-14 |"),
    ],
)
def test_a_question_is_answered_from_the_line_that_says_it(
    kb: Any, question: str, quote: str
) -> None:
    out = ask(kb, question)
    assert not out.refused, (question, out.answerability)
    assert quote in out.text and out.grounded, (question, out.text)


@pytest.mark.slow
@pytest.mark.parametrize(
    "question",
    [
        "Who wrote Dune?",
        "Who translated The Dispossessed?",
        "Who published The Dispossessed?",
        "What did the dentist say?",
        "Who is the insurer of the house?",
        "What caused the power cut?",
        "What caused the certificate to expire?",  # the cause of the cause
        "When was my last physio appointment?",
    ],
)
def test_a_question_the_notes_do_not_answer_is_refused(kb: Any, question: str) -> None:
    out = ask(kb, question)
    assert out.refused, (question, out.text)
