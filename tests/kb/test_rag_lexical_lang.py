"""kb.rag.lexical reads a German or French question's function words from kb.lang."""

from __future__ import annotations

import threading

from kb.lang.detect import question_language
from kb.rag.lexical import content_stems, foreign_function_words, is_stopword, question_in


def test_german_question_words_are_no_content_words() -> None:
    q = "Wie hoch ist der Berg, den man sich ansehen kann?"
    assert {"wie", "hoch", "ist", "sich", "den"} <= content_stems(q)  # English reading
    with question_in(question_language(q)):
        assert content_stems(q) == {"berg", "anseh"}  # German stems (kb.lang.inflection)
        assert not is_stopword("Zugspitze")


def test_french_question_words_and_elisions() -> None:
    q = "Quel est le nom de la rivière, est-ce qu'elle est longue ?"
    with question_in("fr"):
        got = content_stems(q)
    assert got == {"nom", "rivi", "longu"}  # French stems (kb.lang.inflection)


def test_english_is_unchanged_and_the_block_ends() -> None:
    q = "Which war did the soldiers die in?"
    before = content_stems(q)
    assert "war" in before and "die" in before
    with question_in("en"):
        assert content_stems(q) == before
    with question_in("de"):
        assert "war" not in content_stems(q)
    assert content_stems(q) == before  # reset after the block


def test_undetected_uses_every_language_and_is_context_local() -> None:
    assert foreign_function_words("und") >= foreign_function_words("de") | foreign_function_words(
        "fr"
    )
    assert foreign_function_words("en") == frozenset()
    seen: list[bool] = []
    with question_in("de"):
        t = threading.Thread(target=lambda: seen.append(is_stopword("hoch")))
        t.start()
        t.join()
        assert is_stopword("hoch")
    assert seen == [False]
