"""A question that names a year answers from that year's entry (kb.rag.asked_period)."""

from __future__ import annotations

import re

from kb.rag import AskPipeline
from kb.rag.asked_period import asked_years, in_period
from kb.rag.rules import BY_ID
from kb.search.options import SearchOptions
from kb.types import Hit, Locator, Span
from tests.kb.test_rag_pipeline import FakeRetriever
from tests.kb.test_rag_verified import Scripted, bow_embed, cfg


def test_asked_years() -> None:
    assert asked_years("How much did I pay for the 2024 half marathon?") == {"2024"}
    assert asked_years("In 1999, who won?") == {"1999"}
    assert asked_years("What happened on 2025-03-30?") == {"2025"}
    assert asked_years("Who won from 2019 to 2021?") == {"2019", "2021"}
    # no year: a clock time, a longer number, a decimal, a code, an amount
    assert not asked_years("Is the 20:15 train on time?")
    assert not asked_years("Is model A2024 still sold?")
    assert not asked_years("Did it cost 1,999 or 2024.5?")
    assert not asked_years("How many were sold?")


def section(n: int, year: str, text: str) -> Hit:
    loc = Locator("notes/running-log.md", "md", ("Running log", year), Span())
    return Hit(chunk_id=n, text=text, locator=loc, score=1.0 / n)


LOG = [
    section(1, "2025", "- 2025-03-30: Freiburg half marathon, 2:01:48. Entry fee €54 this time."),
    section(2, "2026", "- 2026-03-29: Freiburg half marathon, 1:58:55. Entry fee €57."),
    section(3, "2024", "- 2024-03-24: Freiburg half marathon, 2:09:37. Entry fee €49."),
]


def test_in_period_reads_the_sentence_its_lead_and_its_section() -> None:
    years = frozenset({"2024"})
    assert in_period(years, ("Entry fee €49.",), LOG[2])  # the section heading "2024"
    assert in_period(years, ("", "Paid on 2024-01-10."), LOG[0])
    assert not in_period(years, ("Entry fee €54 this time.",), LOG[0])
    assert not in_period(frozenset(), ("2024",), LOG[2])


def offered(question: str, **answer: object) -> list[str]:
    gen = Scripted(["1"])
    pipe = AskPipeline(
        FakeRetriever(LOG), gen, cfg(mode="quote", **answer), embed=bow_embed, doc_freq=None
    )
    rec = pipe.ask(question, SearchOptions(k=3)).result()
    user = gen.calls[0]["prompt"][1]["content"]  # type: ignore[index]
    lines = [ln[3:] for ln in user.splitlines() if re.match(r"\d\. ", ln)]
    assert rec.to_dict()["selector"] == ("period" if "rules_off" not in answer else "ranked")
    return lines


def test_a_question_with_a_year_is_offered_only_that_years_entry() -> None:
    lines = offered("How much was the entry fee for the 2024 half marathon?")
    assert lines and all("2024" in ln or "€49" in ln for ln in lines)
    assert BY_ID["period"].kind == "selector"


def test_the_period_rule_can_be_turned_off() -> None:
    lines = offered("How much was the entry fee for the 2024 half marathon?", rules_off=["period"])
    assert any("€54" in ln or "€57" in ln for ln in lines)
