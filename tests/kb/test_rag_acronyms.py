"""Acronyms in the evidence check: "BP" is "blood pressure", and the other way round."""

from __future__ import annotations

from kb.rag.acronyms import (
    aliases,
    is_acronym,
    letters,
    question_acronyms,
    spelled_out,
    spells,
    written_acronyms,
)
from kb.rag.answerability import check
from kb.rag.lexical import tokens
from kb.rag.stemmer import stem
from kb.rag.terms import question_terms
from kb.rag.verify import PassageSentences
from tests.kb.test_rag_verified import hit


def test_an_acronym_is_two_to_six_capitals_with_an_optional_plural() -> None:
    assert is_acronym("BP") and is_acronym("NHS") and is_acronym("GPs")
    assert not is_acronym("A") and not is_acronym("Gp") and not is_acronym("ABCDEFG")
    # a stop word in capitals is shouting, and times of day are no initials
    assert not is_acronym("IT") and not is_acronym("ON") and not is_acronym("AM")
    assert is_acronym("US")  # "us" is no stop word: US is the United States
    assert letters("GPs") == "gp" and letters("NHS") == "nhs"


def test_a_run_spells_an_acronym_by_its_initials_and_may_skip_inner_stop_words() -> None:
    words = ["the", "United", "States", "of", "America", "and", "more"]
    assert spells("USA", words) == [(1, 5)]
    assert spells("bp", ["Blood", "pressure"]) == [(0, 2)]  # case aside
    # a stop word whose initial is the next letter is taken: "Department of Defense"
    assert spells("DOD", ["Department", "of", "Defense"]) == [(0, 3)]
    # a run must end on a non-stop word and not skip a content word
    assert spells("BP", ["blood", "test", "pressure"]) == []
    assert spells("US", ["under", "the"]) == []
    # only a joining word may stand inside: "is more" breaks the run
    assert spells("PE", ["pharmacy", "is", "more", "expensive"]) == []
    assert spells("FDA", ["Food", "and", "Drug", "Administration"]) == [(0, 4)]
    # one word is not its own acronym, nor is a one-letter acronym anything
    assert spells("NHS", ["NHS"]) == [] and spells("A", ["Apple"]) == []


def test_aliases_go_both_ways_and_need_a_whole_run() -> None:
    asked = question_terms("What was my BP on 1 Nov?", None)
    assert "bp" in aliases(asked, tokens("Blood pressure on 1 Nov: 128/82."))
    assert "bp" not in aliases(asked, tokens("Blood tests on 1 Nov."))
    spelled = question_terms("What was my blood pressure in November?", None)
    got = aliases(spelled, tokens("BP 128/82 on 1 Nov."))
    assert {stem("blood"), stem("pressure")} <= got
    assert aliases(spelled, tokens("blood was taken")) == set()
    # the question's words as written: terms the question keeps apart spell nothing
    apart = question_terms("Which pharmacy is more expensive?", None)
    assert aliases(apart, tokens("PE kit on Tuesdays."), apart.words) == set()
    assert aliases(spelled, tokens("BP 128/82 on 1 Nov."), spelled.words) == got
    assert question_acronyms("Did the NHS app and my GP agree?") == {"nhs": "NHS", "gp": "GP"}


def test_the_evidence_check_reads_an_acronym_as_its_words() -> None:
    note = [PassageSentences.of(1, hit(1, "Blood pressure on 1 Nov: 128/82. Weight 71 kg."))]
    got = check("What was my BP on 1 Nov?", note, None, 0.4, require_keys=True)
    assert got.absent_keys == [] and got.coverage == 1.0 and got.answerable
    # without the spelled-out words the acronym is still missing, and the check refuses
    other = [PassageSentences.of(1, hit(1, "Blood tests on 1 Nov: all normal."))]
    miss = check("What was my BP on 1 Nov?", other, None, 0.4, require_keys=True)
    assert miss.absent_keys == ["bp"] and not miss.answerable
    short = [PassageSentences.of(1, hit(1, "BP on 1 Nov: 128/82."))]
    back = check("What was my blood pressure on 1 Nov?", short, None, 0.4, require_keys=True)
    assert back.coverage == 1.0 and back.answerable


def test_initials_alone_do_not_make_every_word_held() -> None:
    """A run with the right initials may be chance ("Bob paid" for *BP*): it counts for
    the word share, but not for the every-word floor of p(answerable)."""
    rent = [PassageSentences.of(1, hit(1, "Bob paid the rent in March."))]
    got = check("What was my BP in March?", rent, None, 0.4, require_keys=True)
    assert not got.every_term
    note = [PassageSentences.of(1, hit(1, "Blood pressure on 1 Nov: 128/82."))]
    assert not check("What was my BP on 1 Nov?", note, None, 0.4).every_term
    # a time of day spells nothing
    dentist = [PassageSentences.of(1, hit(1, "Dentist at 10 AM."))]
    assert check("When is the annual meeting?", dentist, None, 0.4).coverage == 0.0


def test_names_that_spell_a_passage_acronym_are_not_absent_keys() -> None:
    eu = [PassageSentences.of(1, hit(1, "The EU decided to ban it in 2019."))]
    got = check("What did the European Union decide?", eu, None, 0.0, require_keys=True)
    assert got.absent_keys == [] and got.coverage == 1.0
    assert spelled_out("Did the European Union act?", ["The EU acted."]) == {
        stem("European"),
        stem("Union"),
    }
    assert spelled_out("Did the European Union act?", ["Nothing here."]) == set()


def test_capitals_glued_to_a_number_are_a_code_not_initials() -> None:
    """The flight "TP1331" spelled "translated Piranesi": "Who translated Piranesi?" over
    a reading list and a flight booking was answered from the booking (coverage 1.0)."""
    assert written_acronyms("Flights booked with TAP: out (TP1331, 06:50)") == ["TAP"]
    assert written_acronyms("A4 paper, an MP3, the COVID-19 rules, the NHS") == ["COVID", "NHS"]
    assert written_acronyms("BP120/80 this morning") == ["BP"]  # a reading, not a code
    flight = [PassageSentences.of(1, hit(1, "Flights booked with TAP: out on 12 March (TP1331)."))]
    got = check("Who translated Piranesi?", flight, None, 0.0)
    assert got.coverage == 0.0
    # a code's capitals spell no passage acronym for spelled_out either
    assert spelled_out("Who translated Piranesi?", ["Flight TP1331 is late."]) == set()
    # an acronym standing alone still spells the question's words
    tap = [PassageSentences.of(1, hit(1, "Flights booked with TP: out on 12 March."))]
    assert check("Who translated Piranesi?", tap, None, 0.0).coverage == 1.0
