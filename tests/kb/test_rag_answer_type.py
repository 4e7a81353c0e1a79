"""Expected answer types (kb.rag.answer_type) and quote mode's use of them."""

from __future__ import annotations

import pytest

from kb.rag.answer_type import expected_type, gives, holds, strict_type
from kb.rag.answerability import check
from kb.rag.candidates import TYPE_BONUS, doer_and_verb, rank_candidates
from kb.rag.coverage import PAIR_PENALTY
from kb.rag.verify import PassageSentences, embed_passages
from kb.types import Hit, Locator, Span
from tests.kb.test_rag_verified import hit

HEATING = (
    "The boiler is a Viessmann Vitodens 100. Annual service is due in October; the last "
    "service was on 12 October 2026 and cost 145 euros. The radiator key is in the drawer."
)


def test_question_wording_names_the_answer_type() -> None:
    assert expected_type("When was the boiler last serviced?") == "time"
    assert expected_type("In what year did the war end?") == "time"
    assert expected_type("How much did the boiler service cost?") == "money"
    assert expected_type("What is the price of a day pass?") == "money"
    assert expected_type("How much is the DELE exam?") == "money"  # a price
    assert expected_type("How much is left?") == "quantity"
    assert expected_type("How much flour goes in?") == "quantity"
    assert expected_type("How many pages should chapter 2 have?") == "quantity"
    assert expected_type("How long does the dough proof?") == "quantity"
    assert expected_type("Who is my advisor?") == "name"
    assert expected_type("Who's the landlord?") == "name"
    assert expected_type("Who is Miso's vet?") == "name"  # a name's possessive
    assert expected_type("Who is Sofia?") is None
    # other who questions are often answered by a description ("representatives ...")
    assert expected_type("Who is on the IPCC Panel?") is None
    assert expected_type("Who can be in the cabinet?") is None
    assert expected_type("What does the borrow checker reject?") is None
    # "when" as a conjunction, "how much time", "what time zone", a modifier, a contraction
    assert expected_type("How much did the repair cost when the boiler broke?") == "money"
    assert expected_type("What should I do when the router drops?") is None
    assert expected_type("How much time did I spend on the tax return?") == "quantity"
    assert expected_type("How much RAM does the budget laptop have?") == "quantity"
    assert expected_type("What time zone is Tokyo in?") is None
    assert expected_type("Which day pass is cheapest?") is None
    assert expected_type("What time does the last ferry leave?") == "time"
    assert expected_type("What's the price of a day pass?") == "money"
    assert expected_type("What is the total cost of the trip?") == "money"
    assert expected_type("What does the day pass cost?") == "money"
    assert expected_type("And when is the dentist?") == "time"
    assert expected_type("The civil war ended when?") == "time"
    # a leading "when" clause before the question's own wh-word asks nothing; a "when"
    # before an auxiliary asks
    q = "When forces act on an extended body, what must be specified?"
    assert expected_type(q) is None
    assert expected_type("When I moved in, who was the landlord?") is None
    assert expected_type("When the boiler broke, which year was it?") == "time"
    assert expected_type("When did the war end, and why?") == "time"
    assert expected_type("When's the MOT, and where?") == "time"


def test_a_sentence_holds_a_type_by_shape_or_word() -> None:
    assert holds("time", "The last service was on 12 October 2026.")
    assert holds("time", "Next meeting at 14:00.") and holds("time", "every Monday")
    assert holds("time", "in the 1990s") and holds("time", "Proof it overnight.")
    assert not holds("time", "The boiler is a Viessmann Vitodens 100.")
    assert not holds("time", "It may rain.")  # "may" is taken for a verb
    # capitalised after a word that says when, *March* and *May* are months
    assert holds("time", "The salary review will be done in March.")
    assert holds("time", "Back by May.") and not holds("time", "They may march on.")
    # a numbered period of a plan ("When does Priya join the on-call rota?" quoted her
    # start date, not "the on-call rota from week 3")
    assert holds("time", "Access: AWS read-only, the on-call rota from week 3.")
    assert holds("time", "Day 3: day trip to Sintra") and holds("time", "ships in Q3")
    assert holds("time", "Sprint 14 retro") and not holds("time", "Room Q12")
    assert not holds("time", "The day 2.5 hours long")
    assert holds("money", "It cost 145 euros.") and holds("money", "£90 for the pads")
    assert not holds("money", "The boiler is a Viessmann Vitodens 100.")
    assert holds("quantity", "Use three very ripe bananas.") and holds("quantity", "about 40")
    assert holds("quantity", "Let it rest for a few hours.")
    assert not holds("quantity", "Use ripe bananas.")
    # a fraction sign is a number; a numbered list item's number is not
    assert holds("quantity", "½ cup light brown sugar") and holds("quantity", "- ¾ tsp salt")
    assert holds("quantity", "⅙ cup")
    assert not holds("quantity", "1. Mix the butter into the mashed bananas, then the sugar.")
    assert holds("quantity", "3. Bake for 55 mins.")
    # the digits of a code or a reference are no quantity
    assert holds("quantity", "The tenant pays a deposit of £1,325.") and holds("quantity", "70Ah")
    assert holds("quantity", "It fell to -15 °C overnight") and holds("quantity", "at -430 m")
    for code in ("The deposit reference is DPS-7714-2209.", "Pads B05S fit.", "web-01 is down"):
        assert not holds("quantity", code), code
    assert holds(None, "anything")
    # amounts: a sign or code before or after; a word that starts like a currency is none
    for amount in ("The heater cost 145 €.", "Rent: EUR 950 a month.", "CHF 120 a day", "$4.2bn"):
        assert holds("money", amount), amount
    for other in (
        "The shelf is 80 centimetres wide.",
        "Visited 3 European capitals.",
        "We opened 3 franchises.",
        "The meeting is at 3 p.m. sharp.",
        "The phone has a 12 MP camera.",
        "18 marks out of 20",
    ):
        assert not holds("money", other), other
    # a year is not part of a code, a size, a power or an amount
    for other in (
        "The heater draws 2000 W.",
        "It cost 1500 euros.",
        "Policy HX-1234 renews.",
        "The screen is 1920x1080.",
        "The pads cost 12.50 euros.",
        "Call 030-12-3456.",
        "Meet on the 2nd floor.",
        "We march on.",
        "The spring in the mattress broke.",
    ):
        assert not holds("time", other), other
    for when in (
        "on 12 October 2026 and cost",
        "in 1998 the",
        "consolidated in 1968.",
        "in about 1300, by the river",
        "It arrives in 3 days.",
        "two weeks ago",
    ):
        assert holds("time", when), when
    assert holds("quantity", "serviced annually") and holds("quantity", "Bins go out weekly.")
    assert not holds("quantity", "The acceleration of every object was constant.")


def _passages(text: str) -> list[PassageSentences]:
    loc = Locator("home/heating.md", "md", ("Heating",), Span(line_start=1, line_end=3))
    return [PassageSentences.of(1, Hit(chunk_id=1, text=text, locator=loc, score=1.0))]


def test_the_questions_own_numbers_hold_no_answer() -> None:
    """ "How many parts does Stage 3 have?" is not answered by "Stage 3 is the final
    stage": a number (or number word) the question gives is no answer to it."""
    q = "How many parts does the consideration of a bill in Stage 3 have?"
    assert not holds("quantity", "Stage 3 is the final stage of the bill.", q)
    assert holds("quantity", "It has two parts.", q)
    votes = "How many votes out of the 352 total votes are needed for a majority?"
    assert not holds("quantity", "In total there are 352 votes.", votes)
    assert holds("quantity", "A qualified majority needs 260 votes.", votes)
    assert not holds("time", "The fort fell in 1565.", "When did the fort fall, in 1565?")
    # a number word of the question is blanked too, not a unit word after it
    assert holds("quantity", "It takes three hours.", "How long do the three stages take?")
    assert not holds(
        "quantity", "The three stages are listed.", "How long do the three stages take?"
    )
    # another number of the same digits is kept ("13" is not "3")
    assert holds("quantity", "Stage 13 has 4 parts.", q)
    # a count of things is no year, date or clock time; a count of years may be
    fire = "How many buildings were razed by the fire?"
    assert not holds("quantity", "On May 3, 1901, the city was ravaged by a fire.", fire)
    assert not holds("quantity", "It burned from 12:30 on 3 May.", fire)
    assert holds("quantity", "The fire destroyed over 2,000 buildings.", fire)
    assert holds("quantity", "It lasted from 1947 to 1967.", "How many years did it last?")


def test_the_bonus_decides_between_sentences_that_match_alike() -> None:
    # both sentences hold "boiler" and "serviced"; without the bonus, passage order
    ps = _passages("The boiler was serviced by Hans. The boiler was serviced on 12 October.")
    when = rank_candidates("When was the boiler serviced?", ps, None, 2)
    assert [c.text for c in when] == [
        "The boiler was serviced on 12 October.",
        "The boiler was serviced by Hans.",
    ]
    assert when[0].relevance - when[1].relevance == pytest.approx(TYPE_BONUS)
    who = rank_candidates("Who serviced the boiler?", ps, None, 2)
    assert who[0].text == "The boiler was serviced by Hans."
    assert who[0].relevance == who[1].relevance  # no type asked: no bonus


def test_a_where_question_prefers_a_sentence_that_says_where() -> None:
    """ "Where is the Airbnb?" quoted the budget row "| Airbnb (7 nights) | £640 |",
    tied by words and cosine with the sentence that gives the address; a sentence with
    a place after a locative preposition now gets the type bonus."""
    from kb.rag.answer_type import asks_place, says_place

    assert asks_place("Where is the Airbnb?") and asks_place("The spare key is kept where?")
    assert asks_place("And where did they meet?")
    assert not asks_place("Which is where the war began?")
    assert not asks_place("When is the flight?")
    assert says_place("Airbnb in Alfama, Rua dos Remédios 42.")
    assert says_place("The locking wheel nut key is in the glovebox.")
    assert says_place("The stopcock is next to the boiler.")
    assert not says_place("| Airbnb (7 nights) | £640 |")
    assert not says_place("Check-in is at 15:00.")  # a time, not a place
    ps = _passages("Airbnb costs £640 for 7 nights. Airbnb is in Alfama, Rua dos Remédios 42.")
    where = rank_candidates("Where is the Airbnb?", ps, None, 2)
    assert where[0].text == "Airbnb is in Alfama, Rua dos Remédios 42."
    assert where[0].relevance - where[1].relevance == pytest.approx(TYPE_BONUS, abs=0.05)
    # a typed question gets no place bonus: "When ...?" keeps its own
    when = rank_candidates("How much is the Airbnb?", ps, None, 2)
    assert when[0].text == "Airbnb costs £640 for 7 nights."


def test_a_name_is_a_capital_past_the_first_word_that_the_question_lacks() -> None:
    q = "Who is my tax adviser?"
    assert holds("name", "Adviser: Frau Keller, Steuerbüro Keller & Partner.", q)
    assert holds("name", "Recommended by Lena.", q) and holds("name", "It was O'Brien's idea.")
    assert holds("name", "| Billing | 8080 | Mei |")
    # a month, a weekday, "I", the first word, or the question's own name are no answer
    assert not holds("name", "Deadline for filing through the adviser is 30 April 2027.", q)
    assert not holds("name", "I meet the adviser on Monday.", q)
    assert not holds("name", "Taxes are due soon.", q)
    assert not holds("name", "The Keller office is closed.", "Who is the Keller's clerk?")
    assert not holds("name", "Lena said so.")  # a sentence that opens with the name
    assert holds("name", "Landlord: Ólafur.") and not holds("name", "Keep it at 21 °C.")


def test_identity_and_amount_questions_prefer_the_sentence_that_can_answer() -> None:
    ps = _passages(
        "The tax adviser sends the deadline for filing on 30 April. "
        "The tax adviser is Frau Keller of Steuerbüro Keller."
    )
    assert rank_candidates("Who is my tax adviser?", ps, None, 2)[0].text.endswith("Keller.")
    ps = _passages("The deposit reference is DPS-7714-2209. The deposit is 1,325 pounds.")
    first = rank_candidates("How much is the deposit?", ps, None, 2)[0]
    assert first.text == "The deposit is 1,325 pounds."


@pytest.mark.slow
def test_with_the_real_embedder_the_answer_outranks_the_topic_sentence(real_embedder) -> None:  # type: ignore[no-untyped-def]
    # all-MiniLM puts "The boiler is a Viessmann Vitodens 100." closest to any boiler
    # question (cosine 0.57 against 0.39); the small model copies the first candidate
    ps = _passages(HEATING)
    embed = real_embedder.embed_batch
    embed_passages(ps, embed)  # sentence vectors, as the evidence check leaves them

    def doc_freq(word: str) -> tuple[int, int]:  # a KB of 9 chunks: "service" is in 2
        return (2 if word.lower().startswith("servic") else 1), 9

    for q in ("When was the boiler last serviced?", "How much did the boiler service cost?"):
        first = rank_candidates(q, ps, embed, 3, doc_freq=doc_freq)[0]
        assert first.text.startswith("Annual service"), q


def test_a_sentence_two_passages_hold_is_offered_once() -> None:
    # a chunk that starts inside a paragraph repeats the sentence before the cut
    loc = Locator("home/heating.md", "md", ("Heating",), Span(line_start=1, line_end=1))
    first = "The boiler is a Viessmann. The boiler was serviced on 12 October."
    second = "The boiler was serviced on 12 October. It cost 145 euros."
    ps = [
        PassageSentences.of(n, Hit(chunk_id=n, text=t, locator=loc, score=1.0))
        for n, t in ((1, first), (2, second))
    ]
    got = rank_candidates("When was the boiler serviced?", ps, None, 8)
    texts = [c.text for c in got]
    assert texts.count("The boiler was serviced on 12 October.") == 1
    assert len(texts) == 3 and got[0].text == "The boiler was serviced on 12 October."


def test_a_question_that_ends_with_what_its_doer_does_names_both() -> None:
    assert doer_and_verb("What did Dr Lindqvist suggest?") == (
        frozenset({"doctor", "lindqvist"}),
        frozenset({"suggest"}),
    )
    assert doer_and_verb("What book did Lena recommend?") == (
        frozenset({"lena"}),
        frozenset({"recommend"}),
    )
    assert doer_and_verb("What did I say?") is None  # a doer of stop words
    assert doer_and_verb("Why did Warsaw become the capital of the Commonwealth?") is None
    assert doer_and_verb("How much is the hotel?") is None


def test_the_sentence_where_the_doer_does_it_outranks_the_one_that_names_the_doer() -> None:
    """ "What did Dr Lindqvist suggest?" quoted the attendee line "With Prof. Okafor and
    Dr Lindqvist.", whose cosine is higher; the sentence where she suggests now gets
    the bonus, and a passive one ("was suggested by") does not."""
    ps = _passages(
        "With Prof. Okafor and Dr Lindqvist. Dr Lindqvist suggested reading Gelman and Hill. "
        "Dr Lindqvist was suggested as the second examiner."
    )
    ranked = rank_candidates("What did Dr Lindqvist suggest?", ps, None, 3)
    assert ranked[0].text == "Dr Lindqvist suggested reading Gelman and Hill."
    rel = {c.text: c.relevance for c in ranked}
    passive = rel["Dr Lindqvist was suggested as the second examiner."]
    assert rel[ranked[0].text] - passive == pytest.approx(TYPE_BONUS)


def test_a_word_met_only_by_its_synonym_ranks_below_the_word_itself() -> None:
    """ "In what century did the history of the clock begin?": a sentence that says
    *starting* (a synonym of *begin*) and lacks *history* holds as many of the question's
    words as one that says *history* and lacks *begin*; the synonym counts half, so the
    sentence with the question's own word comes first."""
    text = (
        "Quartz clocks were starting to spread in the late 20th century. "
        "The history of the clock stretches back to the first century AD."
    )
    best = rank_candidates(
        "In what century did the history of the clock begin?", _passages(text), None, 5
    )
    assert best[0].text.startswith("The history of the clock"), [c.text for c in best]


def test_a_strict_type_is_one_no_other_answer_gives() -> None:
    """A year asked for by name, a quantity and an amount cannot be answered without
    one; a *when* question can (by an event: "until the oil shock"), and so can *who*."""
    assert strict_type("In what year was the study released?") == "time"
    assert strict_type("Which decade saw the most growth?") == "time"
    assert strict_type("What date does Spotify renew?") == "time"
    assert strict_type("When are subject committees established?") is None
    assert strict_type("The price was stable until when?") is None
    assert strict_type("How many frames does a nucleus have?") == "quantity"
    assert strict_type("How much did the service cost?") == "money"
    assert strict_type("Who is the GP?") is None
    assert strict_type("What did the Court decide?") is None
    study = "In what year was the Haensch study released?"
    assert not gives("time", "The results of the Haensch study have since been confirmed.", study)
    assert gives("time", "The Haensch study was published in 2010.", study)
    # a card's month and year is a year
    assert gives("time", "The Amex card expires in 04/27.", "What year does the Amex expire?")
    assert not gives("time", "Mix 1/2 cup of flour.", "What year was it baked?")


def test_a_price_can_be_given_by_a_number_or_in_words() -> None:
    """An amount asked with *how much … price/cost/is the* is also given by a rise in
    percent, a term in years, or a price in words."""
    oil = "From 1947 to 1967, how much did the price of oil increase?"
    assert strict_type(oil) == "money"
    assert gives("money", "The price of oil had risen by less than two percent per year.", oil)
    mortgage = "How much is the mortgage fixed for?"
    assert gives("money", "Mortgage: Nationwide, 4.19% fixed for 5 years.", mortgage)
    assert gives("money", "Parking at the venue is free.", "How much is the parking?")
    assert not gives("money", "Parking is behind the station.", "How much is the parking?")


def test_the_evidence_check_counts_only_sentences_that_give_the_strict_type() -> None:
    """ "In what year was the Haensch study released?" over a sentence that names the
    study and no year: nothing the passages say can answer it. A pair of documents
    still can, when one of the two gives the year."""
    q = "In what year was the Haensch study released?"
    ps = [PassageSentences.of(1, hit(1, "The Haensch study was released by the Institute."))]
    assert check(q, ps, None, 0.5).coverage == 0.0
    assert not check(q, ps, None, 0.5).every_term
    # the reason says what the matching sentence does not give, not words it holds
    got = check(q, ps, None, 0.5)
    assert got.lacks == "date or year" and got.to_dict()["lacks"] == "date or year"
    assert got.missing == []
    # the same words, asked without a type, are covered
    assert check("Who released the Haensch study?", ps, None, 0.5).coverage == 1.0
    dated = [PassageSentences.of(1, hit(1, "The Haensch study was released in 2010."))]
    assert check(q, dated, None, 0.5).coverage == 1.0
    led = hit(1, "The Haensch study was led by the Institute.")
    paired = [
        PassageSentences.of(1, led),
        PassageSentences.of(2, hit(2, "It was released in 2010.")),
    ]
    undated = [
        PassageSentences.of(1, led),
        PassageSentences.of(2, hit(2, "It was released later.")),
    ]
    assert check(q, paired, None, 0.5).coverage == pytest.approx(1.0 - PAIR_PENALTY)
    assert check(q, undated, None, 0.5).coverage == 0.0


def test_a_journal_entry_gives_its_headings_day() -> None:
    """ "On what date did I buy new running shoes?" over a journal's "## 2026-11-14" /
    "Bought new running shoes …" was refused once a date was required of the sentence:
    an entry under a day's heading gives that day, as quote mode quotes it first."""
    loc = Locator("notes/journal.md", "md", ("November 2026", "2026-11-14"), Span(line_start=9))
    text = "Bought new running shoes (Brooks Ghost 16, £120) at Runners Need."
    entry = [PassageSentences.of(1, Hit(chunk_id=1, text=text, locator=loc, score=1.0))]
    q = "On what date did I buy new running shoes?"
    assert check(q, entry, None, 0.5).coverage == 1.0
    # under a heading that is no day, the sentence gives none
    month = Locator("notes/journal.md", "md", ("November 2026",), Span(line_start=9))
    plain = [PassageSentences.of(1, Hit(chunk_id=1, text=text, locator=month, score=1.0))]
    assert check(q, plain, None, 0.5).coverage == 0.0
    assert not gives("money", "Gas boiler in the kitchen cupboard, installed 2016.", q)
    assert not gives("money", "Serviced on 12/03/2024 at 14:40.", q)
    assert gives("money", "It cost 300 in 2016.", q)
    assert gives("money", "| 2025-02-11 | chimney sweep | €56.10 |", q)
    assert gives("money", "less than two percent per year", "How much did the price rise?")
