"""kb.rag.responsive: does the answer give what the question asks, about its subject?

Unit tests on hand-built passages (no models); the pipeline's use of the verdict is
tested in test_rag_verified.py and test_reasons.py.
"""

from __future__ import annotations

from kb.rag.responsive import judge
from kb.rag.terms import question_terms
from kb.rag.verify import PassageSentences
from kb.types import Hit, Locator, Span


def passage(n: int, text: str, path: str, heading: str) -> PassageSentences:
    loc = Locator(path, "md", (heading,), Span(line_start=3))
    return PassageSentences.of(n, Hit(chunk_id=n, text=text, locator=loc, score=1.0 / n))


CAR = passage(
    1,
    "| Item | Cost |\n| --- | --- |\n| Service | £289 |\n| MOT | £54 |",
    "notes/car.md",
    "Car",
)
BOILER = passage(
    2,
    "The boiler is a Viessmann Vitodens 100. It was serviced in October.",
    "notes/home.md",
    "Home",
)


def verdict(question: str, answer: str, cited: list[PassageSentences], others=()):  # type: ignore[no-untyped-def]
    return judge(question, question_terms(question, None), [answer], cited, list(others))


def test_a_quote_from_another_things_passage_is_not_responsive() -> None:
    # the boiler note is retrieved too, so the notes do talk about the boiler: the car's
    # service row does not answer for it
    # with idf weights: "boiler" is in 1 of 20 chunks, "service" in 8
    q = "How much did the boiler service cost?"
    terms = question_terms(q, lambda w: (1 if w.startswith("boiler") else 8, 20))
    v = judge(q, terms, ["| Service | £289 |"], [CAR], [BOILER])
    assert v is not None and v.verdict == "not_responsive" and v.reason == "subject"
    assert "boiler" in v.lacking and "service" in v.held


def test_a_common_word_held_elsewhere_is_not_another_subject() -> None:
    # with equal weights the lacking word carries half the question: not enough
    v = verdict("How much did the boiler service cost?", "| Service | £289 |", [CAR], [BOILER])
    assert v is not None and v.verdict == "responsive", v


def test_a_word_no_passage_holds_is_a_paraphrase_not_another_subject() -> None:
    # nothing retrieved says "boiler": the check cannot tell it from a paraphrase
    v = verdict("How much did the boiler service cost?", "| Service | £289 |", [CAR])
    assert v is not None and v.verdict == "responsive"


def test_an_answer_without_the_asked_type_is_not_responsive() -> None:
    v = verdict(
        "How much did the boiler service cost?",
        "It was serviced in October.",
        [BOILER],
    )
    assert v is not None and v.verdict == "not_responsive" and v.reason == "type"
    assert v.asks == "amount"


def test_a_name_held_only_elsewhere_is_another_subject() -> None:
    dinner = passage(1, "Birthday dinner for Tom at Dishoom.", "notes/j.md", "2026-10-18")
    people = passage(2, "Maria lives in Leeds.", "notes/people.md", "People")
    v = verdict(
        "When is Maria's birthday?", "2026-10-18 Birthday dinner for Tom.", [dinner], [people]
    )
    assert v is not None and v.verdict == "not_responsive" and v.lacking == ["Maria's"]


def test_frame_words_need_not_be_repeated() -> None:
    run = passage(
        1, "Parkrun at Hampstead Heath: 24:31, a personal best.", "notes/j.md", "2026-11-21"
    )
    other = passage(2, "Time to book the physio.", "notes/todo.md", "To do")
    v = verdict("What was my parkrun time?", "Parkrun at Hampstead Heath: 24:31.", [run], [other])
    assert v is not None and v.verdict == "responsive", v


def test_cut_short_is_partial_and_a_refusal_has_no_verdict() -> None:
    v = judge("How long?", question_terms("How long?", None), ["Overnight."], [BOILER], cut=True)
    assert v is not None and v.verdict == "partial" and v.reason == "cut"
    assert judge("q", question_terms("q", None), [" "], [BOILER]) is None


def test_a_german_questions_function_words_are_not_missing_words() -> None:
    """ "Wie hoch ist die Nachzahlung für 2025?" was refused naming 'Wie', 'hoch', 'ist':
    the pipeline reads a German question's checks in German (kb.rag.pipeline)."""
    from kb.rag.answerability import check
    from kb.rag.pipeline import _language_of

    q = "Wie hoch ist die Nachzahlung für 2025?"
    ps = [passage(1, "Die Nachzahlung für 2025 beträgt 412 Euro.", "notes/steuer.md", "Steuer")]
    plain = check(q, ps, None, 0.4)
    with _language_of(q):
        german = check(q, ps, None, 0.4)
    assert {"Wie", "ist"} & set(plain.missing)
    assert not {"Wie", "hoch", "ist", "die"} & set(german.missing), german.missing
    assert german.score > plain.score
