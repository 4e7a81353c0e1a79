"""kb.rag.responsive: does the answer give what the question asks, about its subject?

Unit tests on hand-built passages (no models); the pipeline's use of the verdict is
tested in test_rag_verified.py and test_reasons.py.
"""

from __future__ import annotations

from kb.rag.responsive import NO_QUOTE, judge, no_responsive_quote, unanswering
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


class _Cand:
    """A quote candidate: passage ``n``, sentence ``j``, its text and lead."""

    def __init__(self, n: int, j: int, text: str, lead: str = "") -> None:
        self.n, self.j, self.text, self.lead = n, j, text, lead
        self.columns: tuple[str, ...] = ()


def test_no_quote_answering_refuses_with_the_first_quotes_verdict() -> None:
    # the log's 2024 section is quoted while its 2025 section holds the race asked
    log24 = passage(1, "Kaiserstuhl trail on 13 October: entry €35.", "log.md", "Log")
    log25 = passage(2, "Hochschwarzwald trail on 14 September: 3:21:05.", "log.md", "Log")
    q = "What was the entry fee for the Hochschwarzwald trail race?"
    terms = question_terms(q, None)
    v = unanswering(q, terms, [_Cand(1, 0, log24.sentence(0))], [log24, log25])
    assert v is not None and v.reason == "subject" and "Hochschwarzwald" in v.lacking, v
    # one candidate that gives an amount about it is enough to go on
    log25b = passage(2, "Hochschwarzwald trail on 14 September: entry €40.", "log.md", "Log")
    quotes = [_Cand(1, 0, log24.sentence(0)), _Cand(2, 0, log25b.sentence(0))]
    assert unanswering(q, terms, quotes, [log24, log25b]) is None
    # another file that holds the word may be a chain's first step: no refusal here
    # (the written answer is still judged against every passage)
    other = passage(2, log25.hit.text, "other.md", "Other")
    assert unanswering(q, terms, [_Cand(1, 0, log24.sentence(0))], [log24, other]) is None
    v = verdict(q, log24.sentence(0), [log24], [other])
    assert v is not None and v.verdict == "not_responsive", v


def test_a_list_item_answers_for_what_it_says_not_for_its_neighbours() -> None:
    # one section holds both lines: the half marathon's fee is no answer for the trail
    # race, though its passage names the race on the next line
    log = passage(
        1,
        "- 2025-03-30 — Freiburg Half Marathon: 2:01:48. Entry fee €54.\n"
        "- 2025-09-14 — Hochschwarzwald trail 25 km: 3:21:05.\n",
        "log.md",
        "Log",
    )
    q = "What was the entry fee for the Hochschwarzwald trail race?"
    terms = question_terms(q, None)
    fee = _Cand(1, 0, log.sentence(0))
    v = unanswering(q, terms, [fee], [log])
    assert v is not None and v.reason == "subject" and "Hochschwarzwald" in v.lacking, v
    # the same words as prose are one passage's sentences: its subject is the passage's
    prose = passage(1, log.hit.text.replace("- ", "").replace(".\n", ". "), "log.md", "Log")
    assert unanswering(q, terms, [_Cand(1, 0, prose.sentence(0))], [prose]) is None
    # an item's own line holds its head: "Entry fee €54." answers for the half marathon
    q2 = "What was the entry fee for the Freiburg Half Marathon?"
    assert unanswering(q2, question_terms(q2, None), [fee], [log]) is None


def test_no_quote_giving_the_type_refuses_by_type() -> None:
    q = "How much did the boiler service cost?"
    cand = _Cand(2, 1, "It was serviced in October.")
    v = unanswering(q, question_terms(q, None), [cand], [BOILER])
    assert v is not None and v.reason == "type" and v.asks == "amount"


def test_the_rule_reads_candidates_with_their_leads_and_can_be_turned_off() -> None:
    q = "How much did the boiler service cost?"
    cands = [_Cand(2, 1, "It was serviced in October.")]
    assert no_responsive_quote(q, None, cands, [BOILER]) is not None
    assert no_responsive_quote(q, None, cands, [BOILER], off=[NO_QUOTE]) is None
    assert no_responsive_quote(q, None, [], [BOILER]) is None
    # the lead quoted before the sentence gives the amount
    led = [_Cand(2, 1, "It was serviced in October.", lead="Boiler service: £120.")]
    assert no_responsive_quote(q, None, led, [BOILER]) is None


def test_a_passage_that_names_the_cited_documents_title_is_a_bridge() -> None:
    # "the company that Sachin Warrier worked for": his page names the company, whose
    # page answers; his name, lacking in the cited passage, is a step, not a subject
    tcs = passage(
        1,
        "Tata Consultancy Services is headquartered in Mumbai.",
        "hotpot/Tata_Consultancy_Services.md",
        "Tata Consultancy Services",
    )
    sachin = passage(
        2,
        "Sachin Warrier worked as a software engineer at Tata Consultancy Services.",
        "hotpot/Sachin_Warrier.md",
        "Sachin Warrier",
    )
    q = "Where is the company that Sachin Warrier worked for headquartered?"
    answer = "Tata Consultancy Services is headquartered in Mumbai."
    v = verdict(q, answer, [tcs], [sachin])
    assert v is not None and v.verdict == "responsive", v
    # without the bridge (the other page does not name the company) it is another subject
    other = passage(2, "Sachin Warrier worked as a software engineer.", "hotpot/S.md", "S")
    v = verdict(q, answer, [tcs], [other])
    assert v is not None and v.verdict == "not_responsive" and v.reason == "subject", v
    # another chunk of the cited passage's own file is a near miss, never a bridge
    same = passage(2, sachin.hit.text, tcs.hit.locator.path, "Tata Consultancy Services")
    v = verdict(q, answer, [tcs], [same])
    assert v is not None and v.verdict == "not_responsive", v


def test_the_veto_reads_only_languages_whose_answer_types_are_strict() -> None:
    # German's types are expected, not required: "Wann tritt eine Immunschwäche auf?" is
    # answered by a condition, so no type or subject miss refuses a German question
    from kb.rag.stemmer import stemming_in

    q = "Wie viel hat die Wartung des Kessels gekostet?"
    cands = [_Cand(2, 1, "It was serviced in October.")]
    with stemming_in("de"):
        assert no_responsive_quote(q, None, cands, [BOILER]) is None
    english = "How much did the boiler service cost?"
    assert no_responsive_quote(english, None, cands, [BOILER]) is not None


def test_an_acronym_the_passage_spells_out_is_held() -> None:
    # "EU law" asked, "European Union law" written: another chunk that writes "EU" is
    # no other subject
    text = (
        "Proportionality is recognised one of the general principles of European Union "
        "law by the European Court of Justice since the 1950s."
    )
    law = passage(1, text, "law.md", "Law")
    other = passage(2, "The EU treaties state the general principles of EU law.", "law.md", "Law")
    q = "How long has Proportionality been recognized as one of the general principles of EU law?"
    v = verdict(q, text, [law], [other])
    assert v is not None and "EU" in v.held and v.verdict == "responsive", v
    quotes = [_Cand(1, 0, text)]
    assert unanswering(q, question_terms(q, None), quotes, [law, other]) is None
