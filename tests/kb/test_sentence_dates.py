"""kb.sentence_spans over German and French text: dates, ordinals and abbreviations
of every shipped language are no sentence ends; English splits as before."""

from __future__ import annotations

import pytest

from kb.sentence_spans import is_ordinal_dot, split_sentences

TAIL = " Danach gingen wir alle zusammen nach Hause."


def pieces(text: str) -> list[str]:
    return [text[a:b] for a, b in split_sentences(text)]


@pytest.mark.parametrize(
    "first",
    [
        "Das Fest ist am 3. September 2026 in Berlin.",
        "Wir treffen uns am 3. Mai im Stadtpark.",
        "Das Haus wurde Mitte des 18. Jahrhunderts gebaut.",
        "Er wurde am 12. Juni 1950 in Köln geboren.",
        "Die Rechnung ist bis 12.03.2026 zu zahlen.",
        "Die Rechnung ist bis 2026-03-12 zu zahlen.",
        "Wir bringen z. B. Brot und Käse mit.",
        "Das kostet ca. 20 Euro bzw. etwas mehr.",
        "Wir kauften Obst, Gemüse usw. für die Woche.",
        "Sie wohnt in Nr. 5 neben der Schule.",
        "Nach dem 2. Weltkrieg zog die Familie um.",
        "Die Wohnung liegt im 3. OG links.",
        "Der Keller ist im 1. UG neben dem Fahrradraum.",
    ],
)
def test_german_dates_ordinals_abbreviations_do_not_split(first: str) -> None:
    assert pieces(first + TAIL) == [first, TAIL.strip()]


@pytest.mark.parametrize(
    "first",
    [
        "Le rendez-vous est le 12 mars à midi.",
        "Il y a des fruits, p. ex. des pommes et des poires.",
        "Je parle avec M. Dupont et Mme Martin du projet.",
        "Nous avons acheté du pain, du lait, etc. pour la semaine.",
    ],
)
def test_french_text(first: str) -> None:
    tail = " Ensuite nous sommes rentrés à la maison."
    assert pieces(first + tail) == [first, tail.strip()]


def test_english_unchanged() -> None:
    assert pieces("It happened in 2019. The next year was better for everyone.") == [
        "It happened in 2019.",
        "The next year was better for everyone.",
    ]
    assert pieces("Meet Mon 3 Nov at noon at the café. Then we have lunch together.") == [
        "Meet Mon 3 Nov at noon at the café.",
        "Then we have lunch together.",
    ]
    text = "The final score was 3. Everyone in the stadium cheered loudly."
    assert pieces(text) == ["The final score was 3.", "Everyone in the stadium cheered loudly."]


def test_is_ordinal_dot() -> None:
    t = "am 3. Mai"
    assert is_ordinal_dot(t, t.index("."))
    t = "Mitte des 18. Jahrhunderts"
    assert is_ordinal_dot(t, t.index("."))
    t = "in 2019. The"
    assert not is_ordinal_dot(t, t.index("."))
    t = "v1.2. Then"
    assert not is_ordinal_dot(t, t.rindex("."))


@pytest.mark.parametrize("n", range(1, 32))
def test_every_day_before_every_month(n: int) -> None:
    from kb.lang import language

    for month in language("de").months:
        first = f"Der Termin ist am {n}. {month.capitalize()} im Rathaus."
        assert pieces(first + TAIL) == [first, TAIL.strip()]
