"""Everyday questions over personal notes, on the real parts (the ingest pipeline,
SQLite, LanceDB, the bundled all-MiniLM-L6-v2): negated questions, to-do lists, a
contacts table and a question that names its kind of source.

The generator is scripted to pick the first quote candidate, so each test reads what
the pipeline offers and refuses, not what a model makes of it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ingest.pipeline import ingest_paths
from kb.config import load_settings
from kb.rag import AskPipeline
from kb.search import Retriever, SearchOptions
from kb.store import Store
from tests.kb.test_rag_pipeline import ScriptedGenerator

NOTES = {
    "home/warranty.md": (
        "# Dishwasher warranty\n\n## Cover\n\n"
        "The extended warranty covers the pump, the control board and the door seal for "
        "five years.\nIt excludes the baskets, the cutlery tray and any damage from "
        "limescale.\n"
    ),
    "work/todo.md": (
        "# Week 48 tasks\n\n- [x] finished the quarterly tax report\n"
        "- [x] booked the train to Leeds\n- [ ] call the bank about the mortgage offer\n"
        "- [ ] renew the passport\n"
    ),
    "work/retro.md": (
        "# Sprint 14 retro\n\nThe team agreed that the release checklist worked well.\n"
        "We did not agree on moving the stand-up to 10am; it stays at 9:30.\n"
        "Maria claimed the flaky test was caused by the clock change.\n"
    ),
    "home/plants.md": (
        "# Plants\n\nThe fiddle-leaf fig needs water once a week, about 500 ml.\n"
        "The snake plant only needs water every three weeks.\n"
    ),
    "contacts.md": (
        "# Contacts\n\n| name | role | phone |\n| --- | --- | --- |\n"
        "| Dr Hannah Reid | GP | 0161 496 0321 |\n| Tom Baxter | plumber | 07700 900123 |\n"
    ),
    "keys.md": "# House keys\n\nThe back door key is un-labelled; the shed key has a red tag.\n",
    "work/onboarding.md": (
        "# Onboarding plan for Lena\n\nLena starts on 12 January in the payments team.\n\n"
        "## Open questions\n\n- Does she need a production database login? Security said "
        "not before the probation review.\n- Who pays for the conference in Lisbon?\n"
    ),
    "work/incident.md": (
        "# Incident review: checkout outage\n\n**Duration:** 47 minutes (10:12 to 10:59 UTC)\n"
        "**Impact:** about 3,100 failed checkouts; no data loss.\n\n"
        "## Why it was not caught\n\nThe change skipped the canary stage because the deploy "
        "tool treated config files as low risk.\nAlerts fired at 10:14 but paged the wrong "
        "rota.\n"
    ),
    "journal.md": (
        "# Journal\n\n## 2026-11-02\n\nRan 8 km along the canal in 46 minutes.\n\n"
        "## 2026-11-09\n\nDentist at 14:30: one small filling.\n"
    ),
    "runbook.md": (
        "# Database runbook\n\n## Restore a snapshot\n\n"
        "Snapshots are taken every 6 hours and kept for 14 days.\n"
        "Restores take about 25 minutes for the main database.\n\n"
        "## Rota\n\nElena: on holiday until Thursday.\n"
    ),
    "home/local.md": (
        "# Local shops\n\nThe corner shop is closed on Sundays and opens at 7:00 on weekdays.\n"
        "The recycling centre on Mill Lane is open every day except Tuesday.\n"
        "The pharmacy in the high street is cheaper than the one in the retail park.\n"
    ),
    "home/kids.md": (
        "# Kids\n\n## Maya\n\nShe is older than most of her class by almost a year.\n"
        "PE kit on Tuesdays and Thursdays.\n"
    ),
    "home/laptops.md": (
        "# Laptop shortlist for Maya\n\n- ThinkPad X1 Carbon: 1.12 kg, £1,349.\n"
        "- Dell XPS 13: heavier at 1.24 kg, but cheaper than the ThinkPad at £1,099.\n"
        "- MacBook Air M2: £999 on the education store.\n"
    ),
    "work/budget.md": (
        "# Budget meeting, 3 November\n\nAttendees: Priya, Tom, Elena.\n\n## Decisions\n"
        "- Marketing budget for Q1 is cut by 15%.\n- The new CRM is postponed to Q3.\n\n"
        "## Not decided\n- Whether the offsite goes ahead in Porto.\n"
    ),
    "reading.md": (
        "# Reading list 2026\n\n| Title | Author | Status | Rating |\n| --- | --- | --- | --- |\n"
        "| The Overstory | Richard Powers | finished | 5/5 |\n"
        "| Middlemarch | George Eliot | reading | |\n"
        "| The Dawn of Everything | Graeber and Wengrow | abandoned | 2/5 |\n"
    ),
    "home/boiler.md": (
        "# Boiler\n\nWorcester Bosch Greenstar 30i, installed March 2019 by HeatRight Ltd.\n"
        "Annual service is due every September; the last one cost £95.\n"
    ),
}


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory, real_embedder: Any) -> Iterator[Any]:
    yield from notes_kb(tmp_path_factory.mktemp("daily"), NOTES, real_embedder)


def notes_kb(root: Path, notes: dict[str, str], real_embedder: Any) -> Iterator[Any]:
    """Write ``notes`` (path -> text) under ``root / "notes"``, ingest them into a KB
    under ``root / "kb"`` with the real embedder, and yield ``(retriever, settings)``."""
    for rel, text in notes.items():
        path = root / "notes" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    settings = load_settings(root / "kb", user_file=root / "none.toml")
    store = Store.open(settings.home)
    ingest_paths(store, settings, [root / "notes"], embedder=real_embedder)
    try:
        yield Retriever(store, lambda: real_embedder), settings
    finally:
        store.close()


def ask(kb: Any, question: str) -> Any:
    r, settings = kb
    opts = SearchOptions.from_settings(settings.search)
    return AskPipeline(r, ScriptedGenerator(["1"]), settings).ask(question, opts).result()


@pytest.mark.slow
@pytest.mark.parametrize(
    ("question", "quote"),
    [
        ("Which tasks did I not finish?", "[ ] "),
        ("Which tasks are not done yet?", "[ ] "),
        ("What did the team not agree on?", "We did not agree on moving the stand-up"),
        ("Which plant does not need water every week?", "The snake plant only needs water"),
        ("Which key is not labelled?", "The back door key is un-labelled"),
        ("Who is the GP?", "Dr Hannah Reid"),
        ("What is the plumber's number?", "07700 900123"),
        ("What do my notes say about the snake plant?", "snake plant"),
        ("Why was the config change not caught?", "skipped the canary stage"),
        ("Does Lena get a production database login?", "Security said not before"),
        ("How far did I run on 2 November?", "Ran 8 km along the canal"),
        ("What is on my to-do list?", "] "),  # a task item, open or ticked
        ("What is still on my to-do list?", "[ ] "),
        ("When is Elena back?", "on holiday until Thursday"),
        ("What did I do on 9 November?", "Dentist at 14:30"),  # "## 2026-11-09"
        # a yes/no question answered by the opposite; a comparison turned round (and
        # "pharmacy ... expensive" spells no "PE")
        ("Is the corner shop open on Sundays?", "closed on Sundays"),
        ("Is the recycling centre closed on Tuesday?", "open every day except Tuesday"),
        ("Is Maya younger than her classmates?", "older than most of her class"),
        ("Which pharmacy is more expensive?", "cheaper than the one in the retail park"),
        # a superlative over a list: the item with the extreme value
        ("Which laptop is cheapest?", "MacBook Air M2: £999"),
        ("Which laptop is the most expensive?", "ThinkPad X1 Carbon"),
        ("Which laptop is lighter?", "ThinkPad X1 Carbon"),  # "heavier at 1.24 kg"
        ("Which title has the lowest rating?", "The Dawn of Everything"),  # "2/5"
    ],
)
def test_an_everyday_question_is_answered_from_the_sentence_that_says_it(
    kb: Any, question: str, quote: str
) -> None:
    out = ask(kb, question)
    assert not out.refused, (question, out.refusal_reason)
    assert quote in out.text, (question, out.text)


@pytest.mark.slow
def test_a_negated_question_is_answered_by_the_exclusion_not_the_cover(kb: Any) -> None:
    out = ask(kb, "What is not covered by the warranty?")
    assert not out.refused, out.refusal_reason
    # the exclusion is the quote chosen; "It" is quoted after the sentence it points to
    assert out.text.startswith("The extended warranty covers the pump"), out.text
    assert out.text.endswith(
        "It excludes the baskets, the cutlery tray and any damage from limescale. [#1]"
    )
    # Sources shows the quote that answers, not the sentence it points back to
    assert out.evidence_by_n()[1].quote.startswith("It excludes the baskets")


@pytest.mark.slow
def test_a_negated_question_its_notes_answer_plainly_is_refused(kb: Any) -> None:
    """The note says what Maria claimed; a to-do list with open boxes, retrieved too,
    answers no negated question that is not about tasks."""
    out = ask(kb, "What did Maria not claim about the flaky test?")
    assert out.refused, out.text
    assert out.answerability["contradictions"][0]["question"] in ("not", "not claim")


@pytest.mark.slow
@pytest.mark.parametrize(
    ("question", "quote", "not_quoted"),
    [
        ("How many checkouts failed?", "3,100 failed checkouts", "Duration"),
        ("When was the boiler installed?", "installed March 2019", "Annual service"),
    ],
)
def test_a_note_written_a_line_a_record_is_quoted_one_line(
    kb: Any, question: str, quote: str, not_quoted: str
) -> None:
    """ "**Impact:** ..." under "**Duration:** ..." and a line ending "HeatRight Ltd."
    were glued to the line next to them, so the quote said two things."""
    out = ask(kb, question)
    assert not out.refused, (question, out.refusal_reason)
    assert quote in out.text and not_quoted not in out.text, (question, out.text)


@pytest.mark.slow
def test_a_question_one_value_answers_quotes_one_sentence_of_a_named_section(kb: Any) -> None:
    """ "How long does a restore take?" names the section "Restore a snapshot", but one
    duration answers it: one sentence, not the section item by item."""
    r, settings = kb
    gen = ScriptedGenerator(["1"])
    opts = SearchOptions.from_settings(settings.search)
    out = AskPipeline(r, gen, settings).ask("How long does a restore take?", opts).result()
    assert not out.refused, out.refusal_reason
    assert out.text.startswith("Restores take about 25 minutes"), out.text
    assert '(" " label){0,0}' in str(gen.calls[-1]["grammar"])  # one quote at most


@pytest.mark.slow
def test_a_when_question_over_a_journal_quotes_the_entry_with_its_day(kb: Any) -> None:
    """ "When did I go to the dentist?" over "## 2026-11-09" / "Dentist at 14:30: one
    small filling." quoted the entry alone: its clock time names no day."""
    out = ask(kb, "When did I go to the dentist?")
    assert not out.refused, out.refusal_reason
    assert out.text.startswith("2026-11-09 [#1] Dentist at 14:30"), out.text
    assert out.grounded and all(v.verdict == "supported" for v in out.sentences)
    assert out.evidence_by_n()[1].quote.startswith("Dentist at 14:30")


@pytest.mark.slow
def test_a_day_the_journal_has_no_entry_for_is_refused(kb: Any) -> None:
    """ "## 2026-11-09" names 9 November; no heading names the 20th."""
    out = ask(kb, "What did I do on 20 November?")
    assert out.refused, out.text


@pytest.mark.slow
def test_a_section_headed_not_answers_only_the_negated_question(kb: Any) -> None:
    """ "## Not decided" names *decided*, but what it lists was not decided."""
    out = ask(kb, "What was decided at the budget meeting?")
    assert not out.refused, out.refusal_reason
    assert "Marketing budget for Q1" in out.text and "offsite" not in out.text, out.text
    out = ask(kb, "What was not decided at the budget meeting?")
    assert not out.refused, out.refusal_reason
    assert "Whether the offsite goes ahead in Porto" in out.text, out.text
    assert "Marketing budget" not in out.text, out.text
