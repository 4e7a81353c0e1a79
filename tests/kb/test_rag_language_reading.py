"""A German or French question is read in its own language: names, frame words and a
short question's language (kb.lang data read by kb.rag)."""

from __future__ import annotations

from kb.lang.detect import question_language
from kb.rag.lexical import key_tokens, question_in
from kb.rag.terms import question_terms


def test_a_german_capital_marks_no_name_but_an_acronym_does() -> None:
    q = "Wie viele NTL-Dienste hat die Einrichtung in Kenia verlangt?"
    english = key_tokens(q)
    assert {"einrichtung", "kenia"} <= english  # read as English: capitals are names
    with question_in("de"):
        german = key_tokens(q)
    assert "ntl" in german
    assert not german & {"einricht", "einrichtung", "kenia", "dienst"}
    with question_in("de"):
        assert key_tokens("Wann gewann McLaren das Rennen?") == {"mclar"}  # a capital inside


def test_french_capitals_are_still_names() -> None:
    with question_in("fr"):
        assert key_tokens("Quand arrive Hélène à Lyon ?") >= {"lyon"}


def test_frame_words_of_the_question_language_are_no_terms() -> None:
    q = "Wie lautet der Begriff für diese Art von Aufgabe?"
    assert {"lautet", "begriff", "art"} & {w.lower() for w, _ in question_terms(q, None).values()}
    with question_in("de"):
        words = {w.lower() for w, _ in question_terms(q, None).values()}
    assert words == {"aufgabe"}
    with question_in("fr"):
        words = {
            w.lower() for w, _ in question_terms("Quel type de pain a-t-il acheté ?", None).values()
        }
    assert "type" not in words and "pain" in words


def test_english_frames_are_unchanged() -> None:
    words = {w for w, _ in question_terms("What kind of bread did Tom buy?", None).values()}
    assert "kind" not in words and "bread" in words


def test_a_short_question_takes_the_language_of_its_question_word() -> None:
    assert question_language("Wann startete Sky Digital?") == "de"
    assert question_language("Worüber stritten sie?") == "de"
    assert question_language("Quand part le TGV ?") == "fr"
    # "Was" is English's past tense too; English question words stay English
    assert question_language("Was the meeting moved?") != "de"
    assert question_language("Who is Tom?") == "en"


def test_a_german_quote_is_verified_in_german() -> None:
    """The verifier thread reads the claim in the question's language, as the passages
    were read: a quoted German sentence is supported by the sentence it copies."""
    from kb.rag import AskPipeline
    from kb.search.options import SearchOptions
    from kb.types import Hit, Locator, Span
    from tests.kb.test_rag_pipeline import FakeRetriever
    from tests.kb.test_rag_verified import Scripted, bow_embed, cfg

    loc = Locator("rezepte/kuchen.md", "md", ("Zwetschgenkuchen", "Zubereitung"), Span())
    text = (
        "5. Den Teig auf dem Blech verteilen und die Zwetschgen darauf legen.\n"
        "6. Bei 180 °C Umluft ca. 35 bis 40 Minuten backen."
    )
    hit = Hit(chunk_id=1, text=text, locator=loc, score=1.0)
    pipe = AskPipeline(
        FakeRetriever([hit]), Scripted(["1 2"]), cfg(mode="quote"), embed=bow_embed, doc_freq=None
    )
    q = "Bei welcher Temperatur wird der Zwetschgenkuchen gebacken?"
    rec = pipe.ask(q, SearchOptions(k=1)).result().to_dict()
    assert "180 °C" in rec["text"]
    assert rec["sentences"] and all(s["verdict"] == "supported" for s in rec["sentences"])
