"""Swapped names and numbers (kb.rag.substitution) and how the evidence check uses them."""

from __future__ import annotations

from kb.rag import AskPipeline
from kb.rag.answerability import check
from kb.rag.lexical import content_stems
from kb.rag.polarity import Contradiction
from kb.rag.stemmer import number_value, stem
from kb.rag.substitution import (
    initials_of,
    neighbour,
    prefixed,
    spelled_by,
    swaps,
    tokenised,
    word_swaps,
    written_in,
)
from kb.rag.verify import PassageSentences
from kb.search.options import SearchOptions
from kb.types import Hit, Locator, Span
from tests.kb.test_rag_pipeline import FakeRetriever
from tests.kb.test_rag_verified import bow_embed, cfg

AMAZON = (
    "The first European to travel the length of the Amazon River was Francisco de "
    "Orellana in 1542. The river carries more water than any other."
)


def hit(n: int, text: str, heading: tuple[str, ...] = ("Rivers",)) -> Hit:
    loc = Locator(f"notes/n{n}.md", "md", heading, Span(line_start=1, line_end=2))
    return Hit(chunk_id=n, text=text, locator=loc, score=1.0 / n)


def test_tokens_know_names_and_numbers_but_not_a_sentence_start() -> None:
    toks = tokenised("The first European sailed in 1,542. Later Orellana left.")
    kinds = {t.text: t.kind for t in toks}
    assert kinds["European"] == "name" and kinds["Orellana"] == "name"
    assert kinds["The"] is None and kinds["Later"] is None  # they start a sentence
    assert [t.stem for t in toks if t.kind == "number"] == ["1542"]
    assert neighbour(toks, 2, -1) == "first" and neighbour(toks, 2, 1) == "sail"
    assert neighbour(toks, 0, -1) is None


def test_a_name_in_the_slot_of_the_asked_one_is_a_swap() -> None:
    q = "Who was the first American to travel the Amazon River?"
    assert swaps(q, AMAZON, set(), {"american"}) == [Contradiction("American", "European")]
    # the asked name is there: no swap
    assert (
        swaps("Who was the first European to travel the Amazon River?", AMAZON, set(), set()) == []
    )


def test_a_number_in_the_slot_of_the_asked_one_is_a_swap() -> None:
    s = "Newton's Second Law asserts the proportionality of acceleration to force."
    q = "Newton's Third Law asserts the proportionality of acceleration to what?"
    assert swaps(q, s, set(), {"third"}) == [Contradiction("Third", "Second")]
    s2 = "The bridge opened in 1932 after six years of work."
    assert swaps("What opened in 1936 after six years?", s2, set(), {"1936"}) == [
        Contradiction("1936", "1932")
    ]


def test_ordinal_and_number_words_are_keys_of_their_own_kind() -> None:
    """ "the *fifth* session" over "the *fourth* session", "four-dimensional" over
    "three-dimensional"; an ordinal does not swap with a number word or a name, nor a
    number word with a year."""
    s = "The committees of the fourth session are listed here."
    assert swaps("Which committees of the fifth session are listed?", s, set(), {"fifth"}) == [
        Contradiction("fifth", "fourth")
    ]
    v = "Orthogonal force vectors can be three-dimensional with a third component."
    q = "Orthogonal force vectors can be four-dimensional with what?"
    assert swaps(q, v, set(), {"4"}) == [Contradiction("four", "three")]
    assert (
        swaps(
            "Which two sessions are listed?",
            "Three committees of Parliament are listed.",
            set(),
            {"2"},
        )
        == []
    )
    assert (
        swaps("What happened in the fifth year?", "In 1932 Smith's year began.", set(), {"fifth"})
        == []
    )


def test_greek_letters_are_keys_of_their_own_kind() -> None:
    """ "*Alpha* decay" over "*beta* decay": a letter swaps with a letter, not with a
    name; a capitalised one inside a sentence is a name ("flew Delta"), a two-letter
    one no key."""
    s = "Its most familiar effect is beta decay and the associated radioactivity."
    q = "Alpha decay is the most familiar effect of what force?"
    assert [t.kind for t in tokenised(q)][0] == "letter"
    assert swaps(q, s, set(), {"alpha"}) == [Contradiction("Alpha", "beta")]
    assert swaps("What is the most familiar effect of gamma decay?", s, set(), {"gamma"}) == [
        Contradiction("gamma", "beta")
    ]
    assert [t.kind for t in tokenised("We flew Delta to Boston.")][2] == "name"
    assert [t.kind for t in tokenised("The pi constant.")][1] is None
    named = "Its most familiar effect is Rutherford decay."
    assert swaps(q, named, set(), {"alpha"}) == []


def test_a_swap_is_the_only_term_the_sentence_lacks() -> None:
    # a question joining two documents: its best sentence is about one of them, lacks
    # more than the other's name, and has another name where that one stood
    s = "Nikolay Krylov was a Russian mathematician who held the title of academician."
    q = "Nikolay Krylov and Anatoly Fomenko both held what academic title?"
    assert swaps(q, s, set(), {stem("Anatoly"), "fomenko"}) == []
    assert swaps(q, s, set(), {stem("Anatoly")}) == [Contradiction("Anatoly", "Russian")]
    # a one-letter name is no key
    assert (
        swaps("Which services did ISS A/S offer?", "ISS UK offered cleaning.", set(), {"s"}) == []
    )


def test_numbers_compare_by_value_and_short_ones_are_no_keys() -> None:
    # "9" / "09", "four" / "4", "3.5" / "3.50": short numbers are too often written
    # another way to be keys
    s = "The Nara train leaves at 09:05 from platform 4."
    assert swaps("Which train leaves at 9:05?", s, set(), {"9"}) == []
    team = "The design team has four people and the data team has 6."
    assert swaps("Which team has 4 people?", team, set(), {"4"}) == []
    assert number_value("09") == "9" and number_value("3.50") == "3.5"
    assert number_value("1,500") == "1500" and number_value("0.0") == "0"
    # a longer number written with other separators is still the same number
    assert written_in("9.05", "leaves at 09:05") and not written_in("1936", "in 1932")
    assert swaps("Which train leaves at 9.05?", s, set(), {"9.05"}) == []


def test_a_repeated_key_is_reported_once_and_initials_need_adjacent_capitals() -> None:
    s = "The Karasuma line runs from Tokyo station to the Tokyo tower."
    q = "Which line runs from Kyoto station to the Kyoto tower?"
    assert swaps(q, s, set(), {"kyoto"}) == [Contradiction("Kyoto", "Tokyo")]
    assert not initials_of("US", tokenised("Later, Ursula met Sam at the cafe."))
    assert initials_of("EU", tokenised("Talks with the European Union resumed."))


def test_a_number_key_is_present_by_its_value() -> None:
    server = [PassageSentences.of(1, hit(1, "server-03 address: 10.0.0.3"))]
    got = check("What's the address of server-3?", server, None, 0.0, require_keys=True)
    assert got.absent_keys == [] and got.answerable
    other = check("What's the address of server-4?", server, None, 0.0, require_keys=True)
    assert other.absent_keys == ["4"] and not other.answerable


def test_only_a_question_term_is_swapped() -> None:
    # "Long" frames the question (QUESTION_FRAME): it is no term, so nothing is lacking
    s = "The Staten Island office's phone number is 555 0100."
    assert swaps("What is the Long Island office's phone number?", s, set(), set()) == []


def test_an_identifier_is_one_token_and_can_be_swapped() -> None:
    toks = tokenised("Policy HX-42 renews; check db-02 and api.example.org, e.g. today.")
    assert [(t.text, t.kind) for t in toks if t.kind] == [
        ("HX-42", "code"),
        ("db-02", "code"),
        ("api.example.org", "code"),
    ]
    plain = tokenised("a well-known co-op, version 2.0.1, 35-years-old")
    assert all(t.kind is None for t in plain)
    # a hyphenated year or long number stays a word and a number key ("mid-2025")
    assert [(t.text, t.kind) for t in tokenised("in mid-2025 on server-123") if t.kind] == [
        ("2025", "number"),
        ("123", "number"),
    ]
    roof = "In mid 2026 we spent 4,000 euros on the roof."
    assert swaps("What did we spend on the roof in mid-2025?", roof, set(), {"2025"}) == [
        Contradiction("2025", "2026")
    ]
    # a code ending a sentence: the next word starts one, it is no name
    assert [t.kind for t in tokenised("Check web-01. Restart Nginx.")] == [
        None,
        "code",
        None,
        "name",
    ]
    cert = "The TLS certificate for api.example.org expires on 14 March 2027."
    q = "When does the TLS certificate for web-01 expire?"
    # the evidence check's terms of "web-01" are its parts: web, 1 (a number's leading
    # zeros dropped)
    assert content_stems("web-01") == {"web", "1"}
    assert swaps(q, cert, set(), {"web", "1"}) == [Contradiction("web-01", "api.example.org")]
    assert swaps(q, cert, set(), {"web", "1", "renewal"}) == []  # lacks more than it
    same = "The TLS certificate for web-01 expires on 2 May 2027."
    assert swaps(q, same, set(), set()) == []


def test_a_different_name_elsewhere_in_the_sentence_is_no_swap() -> None:
    # "Jacksonville" is not in the sentence, whose names sit in other slots
    s = (
        "Led by Isaiah D. Hart, residents wrote a charter for a town government, which "
        "was approved by the Florida Legislative Council on February 9, 1832."
    )
    assert (
        swaps("When was the Jacksonville town charter approved?", s, set(), {"jacksonville"}) == []
    )


def test_headings_acronyms_and_alternative_questions_are_not_swaps() -> None:
    s = "Since 1972 more member states have joined, Greece in 1979 and Spain in 1985."
    q = "In 1972, did Norway end up joining the European Union?"
    # "Norway" is in no slot of a name here; "European" is the chunk's title
    assert swaps(q, s, {"european", "union"}, {"norway"}) == []
    commission = "The European Commission is the main executive body of the European Union."
    assert initials_of("EU", tokenised(commission)) and not initials_of("EC", tokenised(s))
    assert swaps("What is the main executive body of the EU?", commission, set(), {"eu"}) == []
    # a yes/no question is answered by the swap: "no"
    yoga = "Yoga on Monday and Thursday at 18:00."
    assert swaps("Is there yoga on Tuesday?", yoga, set(), {"tuesday"}) == []
    assert swaps("What time is yoga on Tuesday?", yoga, set(), {"tuesday"}) == [
        Contradiction("Tuesday", "Monday")
    ]
    both = "The first European to travel the Amazon was Orellana."
    assert (
        swaps(
            "Was the first American or the first Briton to travel the Amazon?",
            both,
            set(),
            {"american", "briton"},
        )
        == []
    )


def test_the_evidence_check_reports_the_swap_and_refuses_with_require_keys() -> None:
    ps = [
        PassageSentences.of(1, hit(1, AMAZON)),
        PassageSentences.of(2, hit(2, "American rivers are long.")),
    ]
    q = "Who was the first American to travel the Amazon River?"
    assert check(q, ps, None, 0.0).answerable  # reported, not enforced
    strict = check(q, ps, None, 0.0, require_keys=True)
    assert not strict.answerable and strict.absent_keys == []  # "American" is in passage 2
    assert strict.contradictions == [Contradiction("American", "European")]
    ok = check(
        "Who was the first European to travel the Amazon River?", ps, None, 0.0, require_keys=True
    )
    assert ok.answerable and ok.contradictions == []


def test_the_pipeline_refuses_a_swapped_name_before_loading_the_model() -> None:
    def factory():  # type: ignore[no-untyped-def]
        raise AssertionError("the model must not be loaded")

    pipe = AskPipeline(
        FakeRetriever([hit(1, AMAZON)]),
        factory,
        cfg(min_answerable=0.01),
        embed=bow_embed,
        doc_freq=None,
    )
    rec = pipe.ask(
        "Who was the first American to travel the Amazon River?", SearchOptions(k=1)
    ).result()
    assert rec.refused and rec.refusal_reason == "no_support"
    assert rec.answerability is not None
    assert rec.answerability["contradictions"] == [
        {"question": "American", "passage": "European", "rule": "swapped-key"}
    ]


def test_an_acronym_the_question_writes_out_is_no_swapped_name() -> None:
    q = "What is the brand of the personal video recorder that BSkyB offers?"
    s = "This extends to the Personal video recorder (PVR) offering, branded Sky+."
    assert spelled_by("PVR", tokenised(q))
    assert not spelled_by("PVR", tokenised("What is the brand of the recorder?"))
    assert not spelled_by("Pvr", tokenised(q))  # not all capitals
    assert swaps(q, s, set(), {stem("BSkyB")}) == []
    # another name in the slot is still a swap
    other = "This extends to the Personal video recorder Humax offering, branded Sky+."
    assert swaps(q, other, set(), {stem("BSkyB")}) == [Contradiction("BSkyB", "Humax")]


def test_an_ordinal_in_digits_swapped_for_another_is_a_swap() -> None:
    q = "In the 19th century, the development of quantum mechanics led to what?"
    s = "In the 20th century, the development of quantum mechanics led to a new view."
    assert [t.kind for t in tokenised(q) if t.text == "19th"] == ["nth"]
    assert swaps(q, s, set(), {"19"}) == [Contradiction("19th", "20th")]
    # the same ordinal, or one written as a word, is no swap
    assert swaps(q, s.replace("20th", "19th"), set(), set()) == []
    assert swaps(q, s.replace("20th", "nineteenth"), set(), {"19"}) == []


def test_an_adverb_does_not_hide_the_slot_a_name_fills() -> None:
    q = "In what year did OPEC pull out of the Bretton Woods Accord?"
    s = "In 1971, the United States unilaterally pulled out of the Bretton Woods Accord."
    assert swaps(q, s, set(), {stem("OPEC")}) == [Contradiction("OPEC", "States")]
    # an -ly word that is no adverb still stands between
    toks = tokenised("the Central Supply depot")
    assert neighbour(toks, 1, 1) == stem("Supply")


def test_a_word_written_only_with_a_prefix_is_another_word() -> None:
    s = "The strong force acts between subatomic particles, including nucleons."
    assert prefixed(["atomic"], s) == [Contradiction("atomic", "subatomic")]
    assert prefixed(["national"], "It is an international body.") == [
        Contradiction("national", "international")
    ]
    assert prefixed(["atomic"], "Atomic particles are small.") == []
    assert prefixed(["form"], "The platform is new.") == []  # "plat" is no prefix
    # compounds that name the thing asked
    assert prefixed(["market"], "The supermarket opens at 8.") == []
    assert prefixed(["virus"], "We use Sophos antivirus on every laptop.") == []


def test_a_common_word_swapped_in_a_noun_phrase_is_a_swap() -> None:
    """ "… where stones and *rocks* were rolled …" over "… stones and *cannonballs*
    were both rolled …", and "launch as a *free* service" over "launch in March as a
    *subscription* service": the one word the sentence lacks, another word between the
    same two tokens."""
    q = "Who constructed an experiment where stones and rocks were rolled down an incline?"
    s = (
        "Galileo constructed an experiment in which stones and cannonballs were both "
        "rolled down an incline."
    )
    assert word_swaps(q, s, set(), {stem("rocks")}) == [Contradiction("rocks", "cannonballs")]
    free = "When did Setanta say it would launch as a free service on the platform?"
    said = "Setanta confirmed that it would launch in March as a subscription service on it."
    assert word_swaps(free, said, set(), {stem("free")}) == [Contradiction("free", "subscription")]
    # a predicate noun after a form of *be*, but not a verb's -ing or -ed form
    minions = "Since electrons are minions, they cannot occupy the same what?"
    fermions = "Since electrons are fermions, they cannot occupy the same quantum state."
    assert word_swaps(minions, fermions, set(), {stem("minions")}) == [
        Contradiction("minions", "fermions")
    ]
    placing = "How much were French placing in North America?"
    putting = "How much were French putting in North America?"
    assert word_swaps(placing, putting, set(), {stem("placing")}) == []
    # the sentence lacks more than the one word: no swap (a paraphrase, or two documents)
    assert word_swaps(q, s, set(), {stem("rocks"), stem("incline")}) == []
    # a verb's slot is a paraphrase's: "infiltrate" for "reached", "obtain" for "took"
    plague = "How did the plague infiltrate Alexandria?"
    reached = "By autumn 1347, the plague reached Alexandria in Egypt."
    assert word_swaps(plague, reached, set(), {stem("infiltrate")}) == []
    seats = "Who did the SNP obtain 16 seats from?"
    assert word_swaps(seats, "The SNP took 16 seats from Labour.", set(), {stem("obtain")}) == []
    # other neighbours, a synonym, or a yes/no question: no swap
    assert word_swaps(q, "Stones and cannonballs rolled down.", set(), {stem("rocks")}) == []
    flights = "When do the flights leave for Lisbon?"
    depart = "When the flights depart for Lisbon, …"
    assert word_swaps(flights, depart, set(), {stem("leave")}) == []
    yes = "Were stones and rocks rolled down the incline?"
    assert word_swaps(yes, s, set(), {stem("rocks")}) == []


def test_the_evidence_check_refuses_a_common_word_swapped() -> None:
    q = "Who constructed an experiment where stones and rocks were rolled down an incline?"
    ps = [
        PassageSentences.of(
            1,
            hit(
                1,
                "Galileo constructed an experiment in which stones and cannonballs were both "
                "rolled down an incline to disprove the Aristotelian theory of motion.",
                ("Force",),
            ),
        )
    ]
    got = check(q, ps, None, 0.0, require_keys=True)
    assert not got.answerable and got.contradictions == [Contradiction("rocks", "cannonballs")]
    asked = "Who constructed an experiment where stones and cannonballs were rolled down?"
    assert check(asked, ps, None, 0.0, require_keys=True).contradictions == []
