"""German compounds split into their parts (kb.lang.compounds): the frequency-based
split against a caller's word counts, its linkers, limits and tie-breaks."""

from __future__ import annotations

from collections.abc import Callable

from kb.lang import all_languages
from kb.lang.compounds import MAX_PARTS, compounding, split


def counts(**known: int) -> Callable[[str], int]:
    return lambda w: known.get(w, 0)


def test_a_compound_splits_into_the_words_the_text_uses() -> None:
    assert split("Laubwald", "de", counts(laub=2, wald=5)) == ("laub", "wald")
    # a part the text never uses alone: no split
    assert split("Laubwald", "de", counts(wald=5)) == ()


def test_a_linker_between_parts_is_no_part() -> None:
    c = counts(gericht=3, verfahren=4, sonne=2, schein=1)
    assert split("Gerichtsverfahren", "de", c) == ("gericht", "verfahren")
    assert split("Sonnenschein", "de", c) == ("sonne", "schein")


def test_the_most_used_parts_win_by_their_geometric_mean() -> None:
    # autobahn|raststätte (sqrt(4*4) = 4) beats auto|bahn|raststätte ((1*1*4)^(1/3))
    c = counts(auto=1, bahn=1, autobahn=4, raststätte=4)
    assert split("Autobahnraststätte", "de", c) == ("autobahn", "raststätte")
    c = counts(auto=9, bahn=9, autobahn=1, raststätte=9)
    assert split("Autobahnraststätte", "de", c) == ("auto", "bahn", "raststätte")
    assert MAX_PARTS == 3


def test_short_parts_stop_words_digits_and_other_languages_do_not_split() -> None:
    assert split("Bahnhof", "de", counts(bahn=3, hof=3)) == ()  # "hof": 3 letters
    assert split("Unterricht", "de", counts(unter=9, richt=9)) == ()  # "unter": a stop word
    assert split("Wald2026", "de", counts(wald=3)) == ()
    assert split("Walder", "de", counts(wald=3)) == ()  # under 2 * 4 letters
    assert split("portefeuille", "fr", counts(porte=3, feuille=3)) == ()
    assert split("football", "en", counts(foot=3, ball=3)) == ()


def test_only_german_writes_its_compounds_as_one_word() -> None:
    assert {lang.code for lang in all_languages() if compounding(lang.code)} == {"de"}
