"""kb.lang.inflection: a word's stem in its own language, and the answer checks that
read a German or French question in it (kb.rag.stemmer.stemming_in)."""

from __future__ import annotations

import threading

import pytest

from kb.lang.inflection import stem_word
from kb.rag.lexical import question_in, stem
from kb.rag.stemmer import stemming_in


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("gekostet", "kostet"),
        ("gebacken", "backen"),
        ("gewartet", "wartet"),
        ("geschrieben", "schrieben"),
        ("Gebäude", "Gebäuden"),
        ("Jahrhunderts", "Jahrhundert"),
        ("Nachzahlung", "Nachzahlungen"),
    ],
)
def test_german_forms_meet(a: str, b: str) -> None:
    assert stem_word("de", a) == stem_word("de", b)


@pytest.mark.parametrize(
    ("a", "b"),
    [("coûté", "coûte"), ("réservée", "réserver"), ("mangées", "manger"), ("l'île", "île")],
)
def test_french_forms_meet(a: str, b: str) -> None:
    assert stem_word("fr", a) == stem_word("fr", b)


def test_capitalised_nouns_and_false_participles_keep_their_ge() -> None:
    # a noun is written with a capital: Gesicht is no participle of "sicht"
    assert stem_word("de", "Gesicht") != stem_word("de", "Sicht")
    assert stem_word("de", "Gewicht").startswith("gew")
    # "lten" starts as no German word does: gelten keeps its ge
    assert stem_word("de", "gelten").startswith("gelt")
    # too short without it
    assert stem_word("de", "gehen").startswith("geh")


def test_numbers_and_codes_are_not_stemmed() -> None:
    assert stem_word("de", "4417") == "4417"
    assert stem_word("fr", "2025") == "2025"


def test_elision_only_for_the_language_that_writes_it() -> None:
    assert stem_word("fr", "qu'il") == stem_word("fr", "il")
    assert stem_word("de", "l'île") != stem_word("de", "île")


def test_rag_stem_follows_the_question_language_and_resets() -> None:
    assert stem("gekostet") != stem("kostet")  # English rules: no ge- prefix
    with question_in("de"):
        assert stem("gekostet") == stem("kostet") == "kost"
    assert stem("running") == "run"
    with question_in("fr"):
        assert stem("coûté") == stem("coûte")
    with stemming_in("en"):
        assert stem("running") == "run"  # English keeps its own light rules
    assert stem("gekostet") == "gekostet"


def test_stemming_language_is_context_local() -> None:
    seen: list[str] = []
    with stemming_in("de"):
        t = threading.Thread(target=lambda: seen.append(stem("gekostet")))
        t.start()
        t.join()
        assert stem("gekostet") == "kost"
    assert seen == ["gekostet"]
