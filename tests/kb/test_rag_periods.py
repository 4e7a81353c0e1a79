"""A rate asked per one period over a sentence that states it per another."""

from __future__ import annotations

from kb.rag.answerability import check
from kb.rag.periods import other_periods, rate_periods
from kb.rag.polarity import Contradiction
from kb.rag.verify import PassageSentences
from tests.kb.test_rag_verified import hit

CENTRE = "The Centre currently realizes about 500 projects a year."


def test_rate_periods_need_a_quantity_before_a_or_an() -> None:
    assert rate_periods("It costs £40 a month") == {"month": "a month"}
    assert rate_periods("Physio twice a week, every other week") == {"week": "a week"}
    assert rate_periods("4% per annum, paid quarterly") == {
        "year": "per annum",
        "quarter": "quarterly",
    }
    assert rate_periods("We took a day trip a year ago, a month later.") == {}
    assert rate_periods("the annual meeting") == {}
    assert rate_periods("How many projects does it realize a month?", question=True) == {
        "month": "a month"
    }
    assert rate_periods("What projects does the Centre realize a month?", question=True) == {}


def test_another_period_contradicts_and_the_asked_one_anywhere_does_not() -> None:
    q = "How many projects does the Centre currently realize a month?"
    assert other_periods(q, CENTRE) == [Contradiction("a month", "a year")]
    assert other_periods("How much do I pay per month?", "It is £480 a year (£40 a month).") == []
    assert other_periods("How many visitors per year?", "2 million visitors annually.") == []
    assert other_periods("How many projects so far?", CENTRE) == []  # no period asked
    assert other_periods(q, "The Centre has realized 500 projects.") == []  # no rate said
    assert other_periods("Do we pay monthly?", "We pay £480 a year.") == []  # yes/no
    assert other_periods("Is it paid monthly or yearly?", "£480 a year.") == []


def test_the_evidence_check_refuses_a_rate_of_another_period() -> None:
    p = [PassageSentences.of(1, hit(1, CENTRE))]
    q = "How many projects does the Centre currently realize a month?"
    got = check(q, p, None, 0.0, require_keys=True)
    assert Contradiction("a month", "a year") in got.contradictions and not got.answerable
    ok = check("How many projects does the Centre realize a year?", p, None, 0.0, require_keys=True)
    assert ok.contradictions == [] and ok.answerable
