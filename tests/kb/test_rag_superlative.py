"""Superlative questions over a list (kb.rag.superlative) and how quote mode and the
evidence check use them."""

from __future__ import annotations

from kb.rag.answerability import check
from kb.rag.candidates import rank_candidates
from kb.rag.superlative import (
    DATE,
    Extreme,
    asked_extreme,
    entry_value,
    extremes,
    is_item,
    measure,
    starts_dated,
)
from kb.rag.verify import PassageSentences
from kb.types import Hit, Locator, Span
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
    # with the extreme-value lift off, the words decide: the XPS item says *cheaper*
    off = rank_candidates("Which laptop is cheapest?", ps, None, 5, off=["extreme-value"])
    assert not off[0].text.startswith("MacBook Air M2")


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
    items compare by date too, but quote mode compares only those that say what is
    asked (a log's latest item need not be it: :func:`test_a_dated_list_...`)."""
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
    assert extremes("When was my last run?", log) == {1}


def test_a_dated_list_compares_only_the_items_about_what_is_asked() -> None:
    """ "When was the car last serviced?" over a numbered service history (list items
    that start with their dates) was refused for *last*; and a log's latest item is not
    the last run when it is about something else."""
    date = frozenset({"date"})
    # *last* said of what someone did, or "the last time"
    assert asked_extreme("When did I last run?") == Extreme(date, 1)
    assert asked_extreme("When was the boiler last serviced?") == Extreme(date, 1)
    assert asked_extreme("When was the last time I saw the dentist?") == Extreme(date, 1)
    assert asked_extreme("When did we last meet?") == Extreme(date, 1)
    assert asked_extreme("How long did the battery last?") is None
    assert asked_extreme("Which team came last?") is None
    car = (
        "# Car\n\nLog:\n"
        "1. 2025-05-12 at Kwik Fit: annual service, 84,200 miles.\n"
        "2. 2026-05-20 at Skoda Barnet: major service and cambelt, 93,950 miles.\n"
        "3. 2026-07-02 at Halfords: new wiper blades.\n"
    )
    ps = [PassageSentences.of(1, hit(1, car))]
    first = rank_candidates("When was the car last serviced?", ps, None, 5)[0]
    assert first.text.startswith("2. 2026-05-20")
    assert "last" not in check("When was the car last serviced?", ps, None, 0.0).missing
    # under a lead-in that names them, every item is a service: the latest one wins
    history = car.replace("Log:", "Service history:")
    ps = [PassageSentences.of(1, hit(1, history))]
    first = rank_candidates("When was the car last serviced?", ps, None, 5)[0]
    assert first.text.startswith("3. 2026-07-02")
    log = "# Runs\n\n- 3 Oct: ran 5 km easy.\n- 9 Nov: ran 8 km.\n- 21 Nov: physio said rest.\n"
    ps = [PassageSentences.of(1, hit(1, log))]
    assert rank_candidates("When did I last run?", ps, None, 5)[0].text == "9 Nov: ran 8 km."


def entry(n: int, day: str, text: str) -> Hit:
    """A journal's entry: a passage under a dated heading."""
    loc = Locator("notes/journal.md", "md", ("November 2026", day), Span(line_start=n))
    return Hit(chunk_id=100 + n, text=text, locator=loc, score=1.0 / n)


JOURNAL = [
    entry(1, "2026-11-02", "Ran 8 km along the canal in 46 minutes. Knee felt fine."),
    entry(2, "2026-11-05", "Physio: she said to cut back to three runs a week."),
    entry(3, "2026-11-09", "Ran 10 km, 58 minutes. Left knee sore after 7 km."),
    entry(4, "2026-11-14", "Bought new running shoes at Runners Need."),
    entry(5, "2026-11-16", "Dentist at 14:30: one filling."),
]


def test_a_journals_entries_are_compared_across_their_dated_headings() -> None:
    """ "When did I last run?" and "What was my longest run?" over a journal whose
    entries are passages under dated headings were refused for *last* and *longest*:
    each entry's sentence takes its heading's day (or its own quantity), and the
    entries that say what is asked are compared; "running shoes" is about shoes."""
    ps = [PassageSentences.of(k + 1, h) for k, h in enumerate(JOURNAL)]
    for q in ("When did I last run?", "When was the last time I ran?"):
        assert "last" not in check(q, ps, None, 0.0).missing, q
        top = rank_candidates(q, ps, None, 5)[0]
        assert (top.n, top.text, top.lead) == (3, "Ran 10 km, 58 minutes.", "2026-11-09"), q
    assert rank_candidates("When did I last see the dentist?", ps, None, 5)[0].n == 5
    longest = rank_candidates("What was my longest run?", ps, None, 5)[0]
    assert longest.text == "Ran 10 km, 58 minutes."
    assert "longest" not in check("What was my longest run?", ps, None, 0.0).missing
    # outside a journal (no dated heading) a sentence has no entry value
    assert entry_value("Ran 10 km.", ("Runs",), Extreme(frozenset({"date"}), 1)) is None
    assert entry_value("Ran 10 km.", ("Log", "2026-11-09"), Extreme(frozenset({"date"}), 1)) == (
        20261109.0,
        "ymd",
    )


def test_a_logs_dated_paragraphs_compare_by_date() -> None:
    """ "When was the boiler last serviced?" over a service log written as paragraphs
    that open with their day quoted the boiler's introduction; the paragraph with the
    latest day that says what is asked is the answer. A sentence with a date inside is
    no record of the log (one that opens with a date is)."""
    boiler = (
        "# Boiler\n\n## Service log\n\n"
        "On 14 October 2024 the engineer replaced the condensate trap. Cost £95.\n\n"
        "On 9 October 2025 Dave did the annual service. Cost £85.\n\n"
        "On 3 November 2026 the annual service found a weak igniter. Cost £85.\n\n"
        "The pressure was topped up on 5 November 2026.\n"
    )
    ps = [PassageSentences.of(1, hit(1, boiler))]
    q = "When was the boiler last serviced?"
    assert rank_candidates(q, ps, None, 5)[0].text.startswith("On 3 November 2026")
    assert "last" not in check(q, ps, None, 0.0).missing
    assert starts_dated("On 3 November 2026 the annual service found a weak igniter.")
    assert starts_dated("- 3 Nov: fixed the tap.")
    assert not starts_dated("The pressure was topped up on 5 November 2026.")


def test_the_latest_line_of_a_log_cut_into_chunks_is_compared_across_them() -> None:
    """One running log, a chunk per year: the first chunk says more of the question's
    words, the latest run is in the second; dates compare across one file's chunks."""

    def part(n: int, year: str, text: str) -> Hit:
        loc = Locator("notes/running-log.md", "md", ("Running log", year), Span())
        return Hit(chunk_id=n, text=text, locator=loc, score=1.0 / n)

    ps = [
        PassageSentences.of(1, part(1, "2025", "- 2025-08-02 — ran 10 km by the river.")),
        PassageSentences.of(2, part(2, "2026", "- 2026-11-27 — ran 8 km.")),
    ]
    top = rank_candidates("When did I last run by the river?", ps, None, 5)[0]
    assert top.text.startswith("2026-11-27")
    # other files' logs are not one log: each is compared on its own
    other = [ps[0], PassageSentences.of(2, hit(2, "- 2026-11-27 — ran 8 km."))]
    assert rank_candidates("When did I last run by the river?", other, None, 5)[0].n == 1


def test_words_that_ask_for_the_latest_entry_in_each_language() -> None:
    from kb.rag.terms import question_terms

    for q, word in (
        ("Which race did I run most recently?", "recently"),
        ("What did I read lately?", "lately"),
        ("Wie hoch ist das Hausgeld aktuell?", "aktuell"),
        ("Wann war meine letzte Zahnreinigung?", "letzte"),
        ("Quelle est la dernière visite chez Hélène ?", "dernière"),
    ):
        extreme = asked_extreme(q)
        assert extreme is not None and extreme.kinds == DATE and extreme.direction == 1, q
        assert extreme.word == word
        # not what the question is about: no passage says "recently"
        assert all(w.lower() != word for w, _ in question_terms(q, None).values()), q
    assert asked_extreme("Which race did I run?") is None


def test_the_one_log_line_that_says_what_is_asked_is_its_latest() -> None:
    """ "When did I last buy running shoes?" over a running log: the older "new shoes"
    line says less of the question than "bought new shoes" (no *buy*), so only one
    dated line says what is asked, and it is the latest of those, lifted above the
    older line that ranked higher (by its cosine, in a real run)."""
    from kb.rag.candidates import Candidate, _lift_extremes
    from kb.rag.terms import question_terms

    log = (
        "# Running log\n\n"
        "- 2025-08-02 — new shoes: Hoka Clifton 9, €150.\n"
        "- 2025-09-14 — trail 25 km: 3:21:05.\n"
        "- 2026-11-27 — bought new shoes: Saucony Ride 18, €135.\n"
    )
    p = PassageSentences.of(1, hit(1, log))
    q = "When did I last buy running shoes?"
    cands = [Candidate(1, j, p.sentence(j), rel) for j, rel in ((1, 0.86), (2, 0.6), (3, 0.83))]
    assert [c.text[2:12] for c in cands] == ["2025-08-02", "2025-09-14", "2026-11-27"]
    # *buy* is in 1 chunk of 20, *shoes* in 8: "new shoes" says less than half of it
    terms = question_terms(q, lambda w: (1, 20) if w.startswith("b") else (8, 20))
    out = _lift_extremes(q, terms, cands, [p])
    assert "2026-11-27" in max(out, key=lambda c: c.relevance).text
    # with one dated line only there is nothing to compare: the ranking stands
    alone = _lift_extremes(q, terms, cands[:1], [p])
    assert alone == cands[:1]
