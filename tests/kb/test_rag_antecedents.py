"""A sentence that starts with *It* or *They* holds the lead of the one before."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kb.rag.answerability import check
from kb.rag.stemmer import stem
from kb.rag.verify import PassageSentences, lead_words, names_in
from kb.sentence_spans import split_sentences
from tests.kb.test_rag_verified import hit

FIG = (
    "The fiddle-leaf fig needs water once a week, about 500 ml.\n"
    "It dropped three leaves in October after I moved it next to the radiator."
)


def test_the_lead_is_the_first_content_words_up_to_a_stop_word() -> None:
    assert lead_words("The fiddle-leaf fig needs water once a week.") == [
        "fiddle",
        "leaf",
        "fig",
        "needs",
    ]
    assert lead_words("The payment provider migration could slip.") == [
        "payment",
        "provider",
        "migration",
    ]
    assert lead_words("In 1854 there was a rebellion.") == ["rebellion"]  # "it" = it
    assert lead_words("It is 42.") == []
    assert lead_words("") == []


def test_a_pronoun_sentence_holds_the_lead_of_the_sentence_before() -> None:
    p = PassageSentences.of(1, hit(1, FIG))
    assert stem("fig") in p.stems[1] and stem("radiator") in p.stems[1]
    assert stem("radiator") not in p.stems[0]  # nothing flows backwards
    got = check("Why did the fig drop leaves?", [p], None, 0.4)
    assert got.coverage == 1.0 and got.missing == []


def test_a_blank_line_a_list_item_or_no_pronoun_breaks_the_reference() -> None:
    apart = PassageSentences.of(1, hit(1, FIG.replace("\n", "\n\n")))
    assert stem("fig") not in apart.stems[1]
    listed = PassageSentences.of(1, hit(1, "- The fig needs water.\n- It dropped leaves."))
    assert stem("fig") not in listed.stems[1]
    plain = PassageSentences.of(1, hit(1, "The fig needs water. The palm dropped leaves."))
    assert stem("fig") not in plain.stems[1]
    # only a sentence that starts with the pronoun: an "it" inside may mean anything
    inside = PassageSentences.of(1, hit(1, "The fig needs water. I moved it to the hall."))
    assert stem("fig") not in inside.stems[1]


def test_a_run_of_pronoun_sentences_keeps_the_first_lead_and_a_tab_line_breaks_it() -> None:
    chain = PassageSentences.of(1, hit(1, FIG + " It also yellowed."))
    assert stem("fig") in chain.stems[2]
    tabbed = PassageSentences.of(1, hit(1, FIG.replace("\n", "\n\t\n")))
    assert stem("fig") not in tabbed.stems[1]


def test_a_sentence_that_starts_with_he_or_she_holds_the_person_before() -> None:
    team = "Maria joined the company in March.\nShe leads the design team now."
    p = PassageSentences.of(1, hit(1, team))
    assert stem("maria") in p.stems[1]
    got = check("Which team does Maria lead?", [p], None, 0.4)
    assert got.coverage == 1.0 and got.missing == []
    his = PassageSentences.of(1, hit(1, "Tom fixed the boiler. His invoice came to £90."))
    assert stem("tom") in his.stems[1]
    # "Here" and "Hers" are no reference back; nor a pronoun inside the sentence
    for text in (
        "Tom fixed the boiler. Here is the invoice.",
        "Tom fixed the boiler. We paid him in cash.",
    ):
        assert stem("tom") not in PassageSentences.of(1, hit(1, text)).stems[1], text


def test_a_subject_pronoun_after_a_short_leading_phrase_refers_back_too() -> None:
    """ "Better than anyone else she represented the Art Deco style": the pronoun is the
    subject after a leading phrase; after a subject of its own ("I moved it") it is not."""
    for second in (
        "Better than anyone else she represented the Art Deco style.",
        "In March it dropped three leaves.",
        "Later, they moved to Paris.",
    ):
        p = PassageSentences.of(1, hit(1, "Tamara Lempicka painted portraits. " + second))
        assert stem("lempicka") in p.stems[1], second
    for second in (
        "I moved it to the hall.",
        "Yesterday we saw it again.",
        # after a word that joins clauses the pronoun is the second clause's subject,
        # named in the first: *they* is BuildRight ("What worktop did we pick?" was
        # answered by this sentence with *chose* taken from the one before)
        "BuildRight was cheapest but they could not guarantee the worktop.",
        "Sales fell so they closed the shop.",
    ):
        p = PassageSentences.of(1, hit(1, "Tamara Lempicka painted portraits. " + second))
        assert stem("lempicka") not in p.stems[1], second


def test_a_person_reference_holds_the_names_the_sentence_before_writes() -> None:
    """ "Lunch with Tomás at the Lebanese place on Carver Street. He is moving to Porto
    in March." refused "Where is Tomás moving?": the lead of the first sentence is
    *lunch*, not Tomás. A person's pronoun now also gets the names before it, but not a
    place's name, and *it* (a thing) gets none."""
    lunch = "Lunch with Tomás at the Lebanese place on Carver Street. He is moving to Porto."
    p = PassageSentences.of(1, hit(1, lunch))
    assert stem("tomás") in p.stems[1] and stem("lebanese") in p.stems[1]
    assert stem("carver") not in p.stems[1] and stem("street") not in p.stems[1]
    got = check("Where is Tomás moving?", [p], None, 0.4)
    assert got.coverage == 1.0 and got.missing == []
    assert names_in("Lunch with Tomás at Kings Hospital on Carver Street.") == {stem("tomás")}
    thing = PassageSentences.of(
        1, hit(1, "Lunch with Tomás at the cafe. It was closed for a private party.")
    )
    assert stem("tomás") not in thing.stems[1]


def test_a_short_first_sentence_of_a_paragraph_joins_its_own_paragraph() -> None:
    """ "Called Mum." after a blank line was glued to the paragraph before ("... a jar
    of honey. Called Mum."), so "When is Mum's operation?" met no sentence that held
    both words. A short sentence opens its own paragraph's first sentence instead."""
    note = (
        "Farmers' market: bought sourdough and a jar of honey.\n\n"
        "Called Mum. Her hip operation is booked for 9 January.\n\nOk.\n\n- eggs"
    )
    said = [note[a:b] for a, b in split_sentences(note)]
    assert said == [
        "Farmers' market: bought sourdough and a jar of honey.",
        "Called Mum. Her hip operation is booked for 9 January.",
        "Ok.",
        "- eggs",
    ]


_PIECES = [
    "Called Mum.",
    "Ok.",
    "Follow-ups:",
    "- eggs",
    "1. Add a check here now.",
    "# Head",
    "| a | b |",
    "This is a longer sentence that goes on.",
    "Dr. Smith came.",
    "12",
    "> quoted line here",
]


@given(
    st.lists(
        st.tuples(st.sampled_from(_PIECES), st.sampled_from(["\n\n", " ", "\n", "\n\n\n"])),
        min_size=1,
        max_size=10,
    )
)
@settings(max_examples=300, deadline=None)
def test_sentence_spans_are_ordered_slices_that_lose_no_word(
    pieces: list[tuple[str, str]],
) -> None:
    """However short pieces, labels, items and blank lines mix, the spans are ordered,
    disjoint real slices, and every letter or digit of the text is in one of them (a
    short piece joins a neighbour or stands alone; it is never dropped)."""
    text = "".join(p + sep for p, sep in pieces)
    spans = split_sentences(text)
    prev = 0
    for a, b in spans:
        assert prev <= a < b <= len(text)
        prev = b
    covered = {i for a, b in spans for i in range(a, b)}
    assert all(i in covered for i, c in enumerate(text) if c.isalnum())
