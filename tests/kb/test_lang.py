"""kb.lang: every language module has the same shape and its data is usable."""

from __future__ import annotations

import dataclasses
import re

import pytest

from kb.lang import KNOWN, Lang, all_languages, language
from kb.months import MONTH_NAMES, month_number
from kb.search.stopwords import STOPWORDS, stopwords_for


@pytest.mark.parametrize("code", KNOWN)
def test_every_language_fills_every_field(code: str) -> None:
    lang = language(code)
    assert isinstance(lang, Lang) and lang.code == code
    for f in dataclasses.fields(Lang):
        if f.name in (
            "ordinal_nouns",
            "ordinal_leads",
            "elisions",
            "participle_prefix",
            "onsets",
            "capitalised_nouns",
            "ambiguous_months",
            "strict_types",
            "compound_min_part",
            "compound_linkers",
        ):
            # only languages that write ordinals with a dot, elide, prefix, write
            # compounds as one word, or whose month names are other words too
            continue
        assert getattr(lang, f.name), f"{code}.{f.name} is empty"
    assert len(lang.months) == 12 and len(set(lang.months)) == 12
    assert len(lang.weekdays) == 7
    assert all(w == w.lower() for w in lang.stop_words | lang.function_words)
    assert lang.stop_words <= lang.function_words | lang.stop_words
    for pattern in (
        lang.ordinal_pattern,
        *lang.date_patterns,
        *lang.question_frames,
        lang.named_time,
        *(rx for _, rx in lang.type_questions),
    ):
        re.compile(pattern)
    assert {kind for kind, _ in lang.type_questions} <= {"money", "time", "quantity", "name"}
    assert lang.ambiguous_months <= {*lang.months, *lang.month_abbreviations}
    with pytest.raises(dataclasses.FrozenInstanceError):
        lang.code = "xx"  # type: ignore[misc]


def test_month_and_weekday_names_per_language() -> None:
    assert language("de").month_number("März") == 3
    assert language("de").month_number("Okt.") == 10
    assert language("fr").month_number("août") == 8
    assert language("fr").month_number("Déc") == 12
    assert language("en").month_number("Sept") == 9
    assert language("de").month_number("March") is None
    assert language("fr").weekday_number("dimanche") == 7
    assert language("de").weekday_number("Mo") == 1


def test_registry_codes() -> None:
    assert language("DE") is language("de") is language("de-AT")
    with pytest.raises(KeyError, match="known are en, de, fr"):
        language("it")
    assert [x.code for x in all_languages()] == list(KNOWN)


def test_question_and_function_words() -> None:
    de, fr = language("de"), language("fr")
    assert {"wie", "hoch", "ist", "hat", "sich", "den"} <= de.function_words
    assert {"quel", "est-ce"} <= fr.function_words
    assert "wer" in de.question_words and "pourquoi" in fr.question_words
    assert {"z.b", "bzw", "nr", "ca", "usw"} <= de.abbreviations
    assert {"p.ex", "mme", "etc"} <= fr.abbreviations


def test_english_lists_unchanged_through_the_old_modules() -> None:
    assert MONTH_NAMES[0] == "january" and MONTH_NAMES[-1] == "december"
    assert month_number("Nov") == 11 and month_number("sept") == 9
    assert month_number("Montag") is None
    assert {"the", "what", "of"} <= STOPWORDS and "also" not in STOPWORDS
    assert len(STOPWORDS) == 125
    assert stopwords_for("de") is language("de").stop_words
    assert stopwords_for("xx") is STOPWORDS
