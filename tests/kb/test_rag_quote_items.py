"""Quote candidates from a person's notes: a list item's later sentences, a labelled
line that names what is asked, and question words a note need not write."""

from __future__ import annotations

from kb.rag.answerability import check
from kb.rag.candidates import rank_candidates
from kb.rag.quote_context import item_head
from kb.rag.terms import question_terms
from kb.rag.verify import PassageSentences
from kb.types import Hit, Locator, Span

BOOKS = (
    "- Piranesi by Susanna Clarke: 5/5. Strange and beautiful.\n"
    "- Tomorrow, and Tomorrow, and Tomorrow by Gabrielle Zevin: 4/5. Lent to Sam in "
    "September.\n"
    "- Project Hail Mary by Andy Weir: 4/5. Read it on the flight to Lisbon.\n"
)


def note(text: str, *headings: str) -> PassageSentences:
    loc = Locator("notes/n.md", "md", headings or ("Note",), Span(line_start=1))
    return PassageSentences.of(1, Hit(chunk_id=1, text=text, locator=loc, score=1.0))


def hit(n: int, text: str, path: str, heading: str, score: float, **ranks: int) -> Hit:
    """Hit ``n`` (its chunk id too) of ``text`` under one ``heading`` of ``path``."""
    loc = Locator(path, "md", (heading,), Span(line_start=3))
    return Hit(chunk_id=n, text=text, locator=loc, score=score, ranks=dict(ranks))


def test_a_list_items_later_sentence_is_quoted_after_its_head() -> None:
    """ "Which book did I read on the flight to Lisbon?" quoted "Read it on the flight to
    Lisbon." alone, which names no book: the item's first sentence now leads it, and
    the words the head says count for the sentence."""
    p = note(BOOKS, "Books read in 2026")
    heads = [item_head(p, j) for j in range(len(p.spans))]
    assert heads == [None, 0, None, 2, None, 4]
    top = rank_candidates("Which book did I read on the flight to Lisbon?", [p], None, 5)[0]
    assert (top.lead, top.text) == (
        "Project Hail Mary by Andy Weir: 4/5.",
        "Read it on the flight to Lisbon.",
    )
    # not across lines, nor for a sentence outside a list
    p = note("Piranesi: 5/5.\nStrange and beautiful.\n- Dune: 4/5.\n\nRead in May.")
    assert all(item_head(p, j) is None for j in range(len(p.spans)))


def test_a_line_whose_label_is_what_is_asked_comes_first() -> None:
    """ "Who is Maya's teacher?" quoted "Teaching assistant: Mrs Bell." (tied with
    "Teacher: Mr Okafor."): a line labelled with what the question asks is its answer,
    as a heading would be."""
    p = note("Teacher: Mr Okafor. Teaching assistant: Mrs Bell.", "Maya's school")
    assert rank_candidates("Who is Maya's teacher?", [p], None, 5)[0].text == "Teacher: Mr Okafor."
    q = "Who is Maya's teaching assistant?"
    assert rank_candidates(q, [p], None, 5)[0].text == "Teaching assistant: Mrs Bell."


def test_an_opinion_of_something_needs_no_word_of_its_own() -> None:
    """ "What did I think of The Ministry for the Future?" was refused for *think*: a
    note says the judgement ("3/5. Important but a slog in the middle."). *think*
    before a clause still counts ("Why did they think the Earth was older?")."""
    assert "think" not in question_terms("What did I think of Piranesi?", None)
    assert "think" not in question_terms("What do you think about the plan?", None)
    assert "think" in question_terms("Why did they think the Earth was older?", None)
    p = note(BOOKS, "Books read in 2026")
    assert check("What did I think of Piranesi?", [p], None, 0.0).missing == []


def test_a_record_names_the_company_its_value_names() -> None:
    """ "What's the removals company?" over "Removals: Swift Movers, booked for 4
    December" was refused twice: by the retrieval rule (passage cosine 0.23) and for
    *company*. A record whose key names the rest of the question and whose value opens
    with a name says the kind of thing a name is (company, bank, provider …); a value
    that is no name does not ("Removals: booked for 4 December")."""
    from kb.rag.answerability import section_named

    p = note("Solicitor: Harper & Lowe.\nRemovals: Swift Movers, booked for 4 December.", "Move")
    for q in ("What's the removals company?", "Which removals firm is it?"):
        assert check(q, [p], None, 0.0).missing == [], q
        assert section_named(q, [p.hit]), q
    bank = note("Mortgage: Nationwide, 4.19% fixed for 5 years.", "Move")
    assert check("Which bank is the mortgage with?", [bank], None, 0.0).missing == []
    plain = note("Removals: booked for 4 December.", "Move")
    assert "company" in check("What's the removals company?", [plain], None, 0.0).missing


def test_one_value_asked_of_a_section_is_its_labelled_line() -> None:
    """ "What is Miso's vet called?" over "## Vet" / "Vet: Parkside Veterinary, Dr
    Ellis." / three dated visits quoted the whole section: a question for one thing
    that a record labels is answered by the record."""
    from kb.rag.selectors import asks_one, record_candidates

    assert asks_one("What is Miso's vet called?")
    assert asks_one("What's the vet's name?")
    assert not asks_one("What are the vet visits?")
    assert not asks_one("Which vaccinations has Miso had?")
    vet = (
        "Vet: Parkside Veterinary, Dr Ellis.\n- 2025-06-10: annual vaccinations.\n"
        "- 2026-02-02: tooth extraction, £420."
    )
    p = note(vet, "Miso (cat)", "Vet")
    cands = rank_candidates("What is Miso's vet called?", [p], None, 8)
    got = record_candidates("What is Miso's vet called?", [p], cands)
    assert [c.text for c in got] == ["Vet: Parkside Veterinary, Dr Ellis."]


def test_supposed_to_asks_what_should_be() -> None:
    """ "What is the boiler pressure supposed to be?" was refused for *supposed*."""
    assert "suppos" not in question_terms("What is the pressure supposed to be?", None)
    assert "supposed" not in question_terms("What is the pressure supposed to be?", None)


def test_a_yes_no_questions_day_or_month_is_answered_by_another() -> None:
    """ "Is PE on Mondays?" over "PE is on Tuesdays and Thursdays" was refused for
    *Mondays* (a name no passage holds): the note answers it (no), as an antonym
    answers "Is the shop closed on Sunday?". Only for a yes/no question: "When is PE on
    Mondays?" still lacks it."""
    from kb.rag.keys import absent_keys

    pe = note("PE is on Tuesdays and Thursdays, so she needs her kit on those days.", "School")
    assert check("Is PE on Mondays?", [pe], None, 0.0).missing == []
    assert absent_keys("Is PE on Mondays?", [pe]) == []  # a name-like key, yet answered
    assert absent_keys("When is PE on Mondays?", [pe]) == ["monday"]
    assert check("When is PE on Mondays?", [pe], None, 0.0).missing == ["Mondays"]
    mot = note("MOT due 11 June 2027.", "Car")
    assert check("Is the MOT due in May?", [mot], None, 0.0).missing == []


def test_the_sentence_that_writes_the_day_asked_about_comes_first() -> None:
    """ "What happens on 4 December?" ranked "Autumn term ends on 18 December." first:
    it held *December*, and its heading "Maya's school (Year 4)" a 4. The sentence
    that writes the day itself now comes first."""
    from kb.rag.superlative import says_day

    school = PassageSentences.of(
        1,
        hit(
            1,
            "- Autumn term ends on 18 December.\n- Spring term starts on 5 January.",
            "notes/school.md",
            "Maya's school (Year 4)",
            1.0,
        ),
    )
    move = PassageSentences.of(
        2,
        hit(
            2,
            "We exchanged on 6 November 2026; completion is set for 4 December 2026.",
            "notes/move.md",
            "House move",
            0.5,
        ),
    )
    top = rank_candidates("What happens on 4 December?", [school, move], None, 5)[0]
    assert top.n == 2
    assert says_day("What happens on 4 December?", "completion is set for 4 December 2026")
    assert says_day("What is due on 2026-12-04?", "Due 4 December 2026.")
    assert not says_day("What is due on 4 December 2025?", "Due 4 December 2026.")
    assert not says_day("What happens on 4 December?", "Year 4 ends on 18 December.")
    assert not says_day("What happens in December?", "Due 4 December.")


def test_a_count_of_things_of_a_kind() -> None:
    """ "How many books …?" asks for the items of a list to count; "How many miles …?"
    over one sentence is an ordinary number question until such items are named."""
    from kb.rag.selectors import counts_items

    assert counts_items("How many books did I read in 2026?")
    assert counts_items("How many action items came out of the standup?")
    assert not counts_items("How many is too many?")
    assert not counts_items("How much was the boiler service?")
    assert not counts_items("What books did I read?")


def test_a_count_of_a_tables_things_gets_its_rows() -> None:
    """ "How many medicines do I take?" over a medication table quoted one row: a count
    of the things a table's header names gets every row, as "Which medicines …?" does."""
    from kb.rag.selectors import row_candidates

    meds = note(
        "| Medicine | Dose | When |\n| --- | --- | --- |\n| Ramipril | 5 mg | morning |\n"
        "| Atorvastatin | 20 mg | evening |\n| Vitamin D | 1000 IU | morning |",
        "Medication",
    )
    cands = rank_candidates("How many medicines do I take?", [meds], None, 20)
    got = row_candidates("How many medicines do I take?", [meds], cands)
    assert [c.text.split(" | ")[0] for c in got] == ["| Ramipril", "| Atorvastatin", "| Vitamin D"]
    assert row_candidates("How much ramipril do I take?", [meds], cands) == []
    # a question not for one thing gets every row that holds what it picks: "What do I
    # take in the morning?" quoted one of the two morning rows
    q = "What do I take in the morning?"
    got = row_candidates(q, [meds], rank_candidates(q, [meds], None, 20))
    assert [c.text.split(" | ")[0] for c in got] == ["| Ramipril", "| Vitamin D"]
    q = "What do I take in the evening?"  # one row: the usual quote
    assert row_candidates(q, [meds], rank_candidates(q, [meds], None, 20)) == []
    q = "What is taken in the morning?"  # what one thing is: a row, or a record
    assert row_candidates(q, [meds], rank_candidates(q, [meds], None, 20)) == []


def test_a_point_in_time_asked_by_name_needs_no_word_of_its_own() -> None:
    """ "What date does Spotify renew?" over a subscriptions table was refused: *date*
    was a term, which the row's "3rd" does not write, and the best match became "Insurance
    with Admiral, renews 2 September." (Admiral for Spotify). *date, day, month, decade,
    century* right after *what*/*which* ask when, as *what year* does; elsewhere they
    count ("What is on day 2?")."""
    assert list(question_terms("What date does Spotify renew?", None)) == ["spotify", "renew"]
    assert "month" not in question_terms("In which month do we fly?", None)
    assert "day" in question_terms("What is on day 2?", None)
    assert "date" in question_terms("Is the due date fixed?", None)
    subs = note(
        "| Service | Monthly | Renews | Card |\n| --- | --- | --- | --- |\n"
        "| Netflix Standard | £10.99 | 19th | Visa |\n| Spotify Duo | £16.99 | 3rd | Amex |",
        "Subscriptions",
    )
    got = check("What date does Spotify renew?", [subs], None, 0.0)
    assert got.missing == [] and got.contradictions == []


def test_a_race_time_says_time() -> None:
    """ "What was my parkrun time?" over "Parkrun at Hampstead Heath: 24:31, a personal
    best." was refused for *time*: minutes and seconds past 23:59 say it too."""
    p = note("Parkrun at Hampstead Heath: 24:31, a personal best.", "November 2026")
    assert check("What was my parkrun time?", [p], None, 0.0).missing == []
    assert check(
        "What was my parkrun time?", [note("Parkrun at Hampstead Heath.")], None, 0.0
    ).missing == ["time"]


def test_the_kind_of_answer_asked_for_needs_no_word_of_its_own() -> None:
    """ "What entity owns V/Line?" and "What was Robert Watson's role in the IPCC?" were
    refused for *entity* and *role*: the answer names the owner or the role, not the
    word. Elsewhere the words count ("Is the role open?")."""
    assert list(question_terms("What entity owns V/Line?", None)) == ["own", "v", "line"]
    assert "role" not in question_terms("What was Robert Watson's role in the IPCC?", None)
    assert "organization" not in question_terms("Which organization covers the cost?", None)
    assert "role" in question_terms("Is the role open?", None)
    assert "organization" in question_terms("What does the organization do?", None)
    p = note("V/Line, which is now owned by the Victorian Government, runs regional trains.")
    assert check("What entity owns V/Line?", [p], None, 0.0).missing == []


def test_the_model_is_shown_a_table_row_read_with_its_header() -> None:
    """The bundled model chose "| Netflix Standard | … |" for "What date does Spotify
    renew?" when offered the bare rows: a row alone does not say which cell renews. The
    prompt shows each row read with its header; the answer quotes the row as written."""
    from kb.rag.quote import candidates_block

    subs = note(
        "| Service | Monthly | Renews | Card |\n| --- | --- | --- | --- |\n"
        "| Netflix Standard | £10.99 | 19th | Visa |\n| Spotify Duo | £16.99 | 3rd | Amex |",
        "Subscriptions",
    )
    cands = rank_candidates("What date does Spotify renew?", [subs], None, 2)
    assert cands[0].text == "| Spotify Duo | £16.99 | 3rd | Amex |"
    assert cands[0].columns == ("Service", "Monthly", "Renews", "Card")
    assert candidates_block(cands).splitlines()[0] == (
        "1. Service: Spotify Duo; Monthly: £16.99; Renews: 3rd; Card: Amex"
    )
    # a sentence is shown as it is
    prose = note("Spotify renews on the 3rd.")
    assert candidates_block(rank_candidates("When does Spotify renew?", [prose], None, 1)) == (
        "1. Spotify renews on the 3rd."
    )


def test_a_linked_passage_that_completes_the_naming_sentence_comes_first() -> None:
    """ "When did the rock band that sang All Join Hands rise to prominence?": search
    placed the page titled *Slade* because the best hit names it (kb.search.links), and
    the bundled model quoted the best hit's "... a song by the British rock band Slade
    ...", which says who, not when. The linked page's sentence that says what the
    naming one leaves out now ranks first; without the link it does not."""
    from dataclasses import replace

    song = hit(
        1,
        '"All Join Hands" is a song by the British rock band Slade, released in 1984. '
        "It reached No. 15 in the UK.",
        "hotpot/All_Join_Hands.md",
        "All Join Hands",
        1.0,
    )
    band = hit(
        2,
        "Slade are an English glam rock band from Wolverhampton. They rose to "
        "prominence during the early 1970s with 17 consecutive top 20 hits.",
        "hotpot/Slade.md",
        "Slade",
        0.9,
        link=1,
    )
    q = "When did the rock band that sang All Join Hands rise to prominence?"
    both = [PassageSentences.of(1, song), PassageSentences.of(2, band)]
    top = rank_candidates(q, both, None, 5)[0]
    assert (top.n, top.text) == (
        2,
        "They rose to prominence during the early 1970s with 17 consecutive top 20 hits.",
    )
    unlinked = [both[0], PassageSentences.of(2, replace(band, ranks={}))]
    assert rank_candidates(q, unlinked, None, 5)[0].n == 1
    # a linked sentence that adds nothing to the naming one is not lifted
    q = "Which rock band sang All Join Hands?"
    assert rank_candidates(q, both, None, 5)[0].n == 1
