"""Superlative questions over a list (kb.rag.superlative) and how quote mode and the
evidence check use them."""

from __future__ import annotations

from kb.rag.answerability import check
from kb.rag.quote import rank_candidates
from kb.rag.superlative import Extreme, asked_extreme, extremes, is_item, measure
from kb.rag.verify import PassageSentences
from tests.kb.test_rag_verified import hit

LAPTOPS = (
    "# Laptop shortlist\n\n"
    "- ThinkPad X1 Carbon: 1.12 kg, £1,349.\n"
    "- Dell XPS 13: heavier at 1.24 kg, but cheaper than the ThinkPad at £1,099.\n"
    "- MacBook Air M2: £999 on the education store.\n"
)


def test_the_question_names_the_extreme_and_what_it_compares() -> None:
    assert asked_extreme("Which laptop is cheapest?") == Extreme(frozenset({"money"}), -1)
    assert asked_extreme("Which is the most expensive?") == Extreme(frozenset({"money"}), 1)
    assert asked_extreme("Which one is least costly?") == Extreme(frozenset({"money"}), -1)
    assert asked_extreme("Which run was the longest?") == Extreme(
        frozenset({"distance", "time"}), 1
    )
    assert asked_extreme("Which policy has the highest premium?") == Extreme(None, 1)
    # a comparative asked between the items reads as the superlative
    assert asked_extreme("Which laptop is lighter?") == Extreme(frozenset({"weight"}), -1)
    assert asked_extreme("Which is less expensive?") == Extreme(frozenset({"money"}), -1)
    # "most" alone is too common to compare anything; no superlative, nothing
    assert asked_extreme("What is the most famous bridge?") is None
    assert asked_extreme("Which laptop did we choose?") is None


def test_items_are_compared_by_value_in_one_unit() -> None:
    items = [(0, "- A: £1,349."), (1, "- B: £1,099."), (2, "- C: £999 on offer.")]
    assert extremes("Which is cheapest?", items) == {2}
    assert extremes("Which is the most expensive?", items) == {0}
    assert measure("- C: £999 on offer.", Extreme(frozenset({"money"}), -1)) == (999.0, "£")
    # ties give each tied item; one item, or none of the kind, gives nothing
    tied = [(0, "- A: £5."), (1, "- B: £5."), (2, "- C: £7.")]
    assert extremes("Which is cheapest?", tied) == {0, 1}
    assert extremes("Which is cheapest?", items[:1]) == set()
    assert extremes("Which is heaviest?", items) == set()
    # units differ: "1.2 kg" and "900 grams" are not compared
    mixed = [(0, "- A: 1.2 kg."), (1, "- B: 900 grams.")]
    assert extremes("Which is lightest?", mixed) == set()
    # only list items and table rows, not prose, nor a table's rule line
    prose = [(0, "The tour costs £40."), (1, "The museum costs £12.")]
    assert extremes("Which is cheapest?", prose) == set()
    assert is_item("| Car | Admiral | £540 a year |") and not is_item("| --- | --- |")
    # a score out of a total compares for "highest"/"lowest", not a date; an empty
    # cell is no score
    books = [
        (0, "| The Overstory | finished | 5/5 |"),
        (1, "| Middlemarch | reading | |"),
        (2, "| The Dawn of Everything | abandoned | 2/5 |"),
    ]
    assert extremes("Which title has the highest rating?", books) == {0}
    assert extremes("Which title has the lowest rating?", books) == {2}
    assert measure("| Dentist | 12/03/2026 |", Extreme(None, 1)) is None
    assert extremes("Which is cheapest?", books) == set()  # a score is no price


def test_quote_mode_offers_the_item_with_the_extreme_value_first() -> None:
    """The XPS item says *cheaper* and matches the question's words best; the
    MacBook's price is the lowest."""
    ps = [PassageSentences.of(1, hit(1, LAPTOPS))]
    assert rank_candidates("Which laptop is cheapest?", ps, None, 5)[0].text.startswith(
        "MacBook Air M2"
    )
    most = rank_candidates("Which laptop is the most expensive?", ps, None, 5)
    assert most[0].text.startswith("ThinkPad X1 Carbon")
    assert rank_candidates("Which laptop is heaviest?", ps, None, 5)[0].text.startswith(
        "Dell XPS 13"
    )


def test_a_measured_item_holds_the_superlative_for_the_evidence_check() -> None:
    table = hit(
        1,
        "| Policy | Insurer | Premium |\n| --- | --- | --- |\n"
        "| Home contents | Aviva | £212 a year |\n| Car | Admiral | £540 a year |",
    )
    ps = [PassageSentences.of(1, table)]
    assert "cheapest" not in check("Which policy is cheapest?", ps, None, 0.0).missing
    prose = hit(2, "The policy was renewed with Aviva in March.")
    got = check("Which policy is cheapest?", [PassageSentences.of(1, prose)], None, 0.0)
    assert "cheapest" in got.missing


def test_a_list_item_with_a_value_is_no_contradiction_of_a_comparative() -> None:
    """ "Which laptop is lighter?" over "- Dell XPS 13: heavier at 1.24 kg": the list's
    values answer it; prose that says the opposite still contradicts."""
    from kb.rag.polarity import Contradiction, contradictions

    item = ["- Dell XPS 13: heavier at 1.24 kg, but cheaper at £1,099."]
    assert contradictions("Which laptop is lighter?", item) == []
    prose = ["The Dell XPS 13 is the heavier one."]
    assert contradictions("Which laptop is lighter?", prose) == [
        Contradiction("lighter", "heavier")
    ]
    ps = [PassageSentences.of(1, hit(1, LAPTOPS))]
    top = rank_candidates("Which laptop is lighter?", ps, None, 5)[0]
    assert top.text.startswith("ThinkPad X1 Carbon")


SERVICES = (
    "# Car\n\n## Service history\n\n"
    "| Date | Mileage | Work | Cost |\n| --- | --- | --- | --- |\n"
    "| 2025-03-14 | 61,200 | Annual service, brake fluid | £289 |\n"
    "| 2026-03-20 | 72,450 | Annual service, cambelt | £745 |\n"
    "| 2025-09-02 | 66,870 | Two front tyres | £212 |\n"
)


def test_the_last_row_of_a_dated_table_answers_the_last_one() -> None:
    """ "How much was the last service?" over a service history was refused for *last*:
    the row with the latest date says it, whatever its place in the table; a list's
    items are not compared by date (a log's latest item need not be what is asked)."""
    date = frozenset({"date"})
    assert asked_extreme("How much was the last service?") == Extreme(date, 1)
    assert asked_extreme("When was my most recent MOT?") == Extreme(date, 1)
    assert asked_extreme("Which is the earliest booking?") == Extreme(date, -1)
    # the verb, and "at last", ask for no date
    assert asked_extreme("How long did the outage last?") is None
    assert asked_extreme("At last, who won?") is None
    # a span of time, a name; another scale the question asks wins (review findings)
    assert asked_extreme("What is my last name?") is None
    assert asked_extreme("Over the last 6 months, which bill was highest?") == Extreme(None, 1)
    assert asked_extreme("Over the last year, which repair was the most expensive?") == Extreme(
        frozenset({"money"}), 1
    )
    ps = [PassageSentences.of(1, hit(1, SERVICES))]
    first = rank_candidates("How much was the last service?", ps, None, 5)[0]
    assert first.text.startswith("| 2026-03-20")
    assert rank_candidates("When was the earliest service?", ps, None, 5)[0].text.startswith(
        "| 2025-03-14"
    )
    assert "last" not in check("How much was the last service?", ps, None, 0.0).missing
    # one dated row is no "last" one: a chunk of a long table may hold only an old row
    one = hit(2, "| Date | Work |\n| --- | --- |\n| 2019-04-02 | Annual service |")
    got = check("How much was the last service?", [PassageSentences.of(2, one)], None, 0.0)
    assert "last" in got.missing
    # days without a year compare among themselves; with and without a year do not
    rows = [(0, "| 3 Oct | 5 km |"), (1, "| 10 Oct | 8 km |"), (2, "| 9 Nov | 6 km |")]
    assert extremes("When was the latest run?", rows) == {2}
    mixed = [(0, "| 3 Oct 2025 | 5 km |"), (1, "| 9 Nov | 8 km |")]
    assert extremes("When was the latest run?", mixed) == set()
    log = [(0, "- 3 Oct: 5 km easy."), (1, "- 21 Nov: physio said rest.")]
    assert extremes("When was my last run?", log) == set()
