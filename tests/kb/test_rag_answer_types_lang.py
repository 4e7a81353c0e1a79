"""Answer types read in the question's language (issue 53: "answer types" are language
data, :attr:`kb.lang.base.Lang.type_questions`): German and French questions get the
type they ask for, sentences in those languages hold it, and English is read as before."""

from __future__ import annotations

import pytest

from kb.lang import language
from kb.rag import answer_type
from kb.rag.answer_type import expected_type, has_name, holds, strict_type
from kb.rag.responsive import FRAME_WORDS, kind_words
from kb.rag.stemmer import stemming_in


@pytest.mark.parametrize(
    ("code", "question", "kind", "strict"),
    [
        ("de", "Wie hoch ist die Nachzahlung für 2025?", "money", None),
        ("de", "Was hat die Reparatur gekostet?", "money", None),
        ("de", "Wie teuer war das Hotel?", "money", None),
        ("de", "Wann wurde die Gasheizung gewartet?", "time", None),
        ("de", "Seit wann wohnt sie in Köln?", "time", None),
        ("de", "In welchem Jahr wurde die Firma gegründet?", "time", None),
        ("de", "Um wie viel Uhr beginnt das Treffen?", "time", None),
        ("de", "Wie viele Einwohner hat Berlin?", "quantity", None),
        ("de", "Wie lange dauert die Fahrt?", "quantity", None),
        ("de", "Wie hoch ist der Berg?", "quantity", None),
        # German writes every noun with a capital: no shape tells a name
        ("de", "Wer ist der Vermieter?", None, None),
        ("de", "Wie heißt der Hund?", None, None),
        ("fr", "À quelle heure part le TGV pour Lyon ?", "time", None),
        ("fr", "Quand arrive Marie ?", "time", None),
        ("fr", "En quelle année a été construit le pont ?", "time", None),
        ("fr", "Combien coûte le billet ?", "money", None),
        ("fr", "Quel est le prix du loyer ?", "money", None),
        ("fr", "Combien de personnes viennent ?", "quantity", None),
        ("fr", "Qui est le médecin de Paul ?", "name", None),
        ("fr", "Où dormons-nous à Lyon ?", None, None),
    ],
)
def test_a_question_asks_its_type_in_its_own_language(
    code: str, question: str, kind: str | None, strict: str | None
) -> None:
    with stemming_in(code):
        assert expected_type(question) == kind
        assert strict_type(question) == strict


def test_only_english_types_are_strict() -> None:
    """A strict type makes the evidence check count only the sentences that give it;
    German's and French's types only choose candidates (measured: strict German types
    refused answerable questions and answered none more rightly)."""
    with stemming_in("de"):
        assert strict_type("How much did the boiler service cost?") == "money"
        assert strict_type("In what year was the firm founded?") == "time"
        assert strict_type("In welchem Jahr wurde die Firma gegründet?") is None
    assert language("en").strict_types
    assert not language("de").strict_types and not language("fr").strict_types


def test_a_german_question_read_as_english_asks_no_type() -> None:
    """Outside its language's block the question is read as English: the German
    patterns are the language's data, not English's."""
    assert expected_type("Wie hoch ist die Nachzahlung für 2025?") is None
    assert expected_type("Wann wurde die Gasheizung gewartet?") is None


def test_english_questions_keep_their_types_in_any_block() -> None:
    """English is read after the question's language, so an English question keeps its
    type (and the leading *when* clause rule) in a German or French block too."""
    for code in (None, "de", "fr"):
        with stemming_in(code):
            assert expected_type("How much did the boiler service cost?") == "money"
            assert expected_type("When did I last run?") == "time"
            assert expected_type("When forces act on a body, what must be specified?") is None
            assert expected_type("Who is my tax adviser?") == "name"


def test_sentences_hold_times_and_numbers_written_in_words_of_their_language() -> None:
    with stemming_in("de"):
        assert holds("time", "Die Heizung wird jeden Dienstag geprüft.")
        assert holds("quantity", "Es kamen zwölf Leute.")
        assert holds("money", "Die Nachzahlung beträgt 312,40 €.")
        assert not holds("quantity", "Es kamen viele Leute.")
    with stemming_in("fr"):
        assert holds("time", "Le marché a lieu le mardi.")
        assert holds("quantity", "Nous serons douze.")
        # a French month or weekday is no name
        assert not has_name("Le rendez-vous est en Mars.", "Qui est le médecin ?")
        assert has_name("Le rendez-vous est avec Dupont.", "Qui est le médecin ?")
    # read as English, the German words say nothing
    assert not holds("time", "Die Heizung wird jeden Dienstag geprüft.")
    assert not holds("quantity", "Es kamen zwölf Leute.")


def test_english_vocabularies_are_the_english_data() -> None:
    en = language("en")
    assert en.when_words == answer_type.TIME_WORDS
    assert en.quantity_words == answer_type.QUANTITY_WORDS
    assert en.kind_words == FRAME_WORDS
    # "may" and "march" are more often a verb and a verb or name: no time alone
    assert {"may", "march", "mar"}.isdisjoint(en.when_words)
    assert {"june", "jun", "monday", "tomorrow"} <= en.when_words


def test_kind_words_add_the_question_language() -> None:
    assert kind_words() == FRAME_WORDS
    with stemming_in("de"):
        assert {"gekostet", "preis", "letzte", "cost"} <= kind_words()
    with stemming_in("fr"):
        assert {"prix", "dernière", "date"} <= kind_words()
