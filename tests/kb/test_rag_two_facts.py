"""A question that asks two facts quotes one sentence for each, or says which one the
notes do not answer (kb.rag.two_facts)."""

from __future__ import annotations

import re

import pytest

from kb.rag import AskPipeline
from kb.rag.reasons import outcome
from kb.rag.rules import BY_ID
from kb.rag.two_facts import asked_facts
from kb.search.options import SearchOptions
from kb.types import Hit, Locator, Span
from tests.kb.test_rag_pipeline import FakeRetriever
from tests.kb.test_rag_verified import Scripted, bow_embed, cfg


@pytest.mark.parametrize(
    ("question", "first", "second"),
    [
        (
            "When does Tom arrive in Leeds, and when is his birthday?",
            "When does Tom arrive in Leeds?",
            "when is his birthday?",
        ),
        (
            "When was the roof repaired and did the insurer pay for it?",
            "When was the roof repaired?",
            "did the insurer pay for it?",
        ),
        (
            "Who built the shed, and when?",
            "Who built the shed?",
            "when built the shed?",
        ),
        (
            "Wann wurde der Ofen geliefert und was hat er gekostet?",
            "Wann wurde der Ofen geliefert?",
            "was hat er gekostet?",
        ),
        (
            "Où dort-on à Nantes, et combien coûte la chambre ?",
            "Où dort-on à Nantes?",
            "combien coûte la chambre ?",
        ),
    ],
)
def test_two_facts_are_read_as_two_parts(question: str, first: str, second: str) -> None:
    facts = asked_facts(question)
    assert facts is not None
    assert (facts.first, facts.second) == (first, second)


@pytest.mark.parametrize(
    "question",
    [
        "When and where is the book club?",  # one fact asked two ways
        "What time do the trains to York and back leave?",  # no question word after it
        "What are the risks and the mitigations?",  # a list
        "What did Tesla and Edison disagree about?",
        "The link between heat and what makes the engine turn?",  # no first question
        "Which city has a campus whose library is old, and whose gym is new?",  # one clause twice
        "How long is the cold proof?",
    ],
)
def test_one_fact_questions_are_not_cut(question: str) -> None:
    assert asked_facts(question) is None


def _hit(n: int, heading: str, text: str) -> Hit:
    loc = Locator("notes/family.md", "md", ("Family", heading), Span())
    return Hit(chunk_id=n, text=text, locator=loc, score=1.0 / n)


FAMILY = [
    _hit(1, "Christmas", "Tom arrives in Leeds on 21 December by train. He stays a week."),
    _hit(2, "Birthdays", "Tom's birthday is on 14 February. Anna's is in June."),
    _hit(3, "Garden", "The shed was painted green in May."),
]


def _ask(
    question: str, script: list[str], hits: list[Hit] = FAMILY, **answer: object
) -> tuple[dict, list[str]]:  # type: ignore[type-arg]
    gen = Scripted(script)
    pipe = AskPipeline(
        FakeRetriever(hits), gen, cfg(mode="quote", **answer), embed=bow_embed, doc_freq=None
    )
    rec = pipe.ask(question, SearchOptions(k=3)).result().to_dict()
    user = gen.calls[0]["prompt"][1]["content"] if gen.calls else ""  # type: ignore[index]
    lines = [ln[3:] for ln in str(user).splitlines() if re.match(r"\d\. ", ln)]
    return rec, lines


def test_both_facts_are_offered_and_quoted_each_cited() -> None:
    rec, lines = _ask("When does Tom arrive in Leeds, and when is his birthday?", ["1 2"])
    assert rec["selector"] == "two-facts"
    assert len(lines) == 2
    assert "21 December" in lines[0] and "14 February" in lines[1]
    assert "21 December" in rec["text"] and "14 February" in rec["text"]
    assert {c["n"] for c in rec["citations"]} == {1, 2}
    assert rec["responsive"]["verdict"] == "responsive"
    assert BY_ID["two-facts"].kind == "selector"


def test_a_fact_the_notes_lack_is_named_not_quoted() -> None:
    rec, lines = _ask("When does Tom arrive in Leeds, and what is his shoe size?", ["1"])
    assert rec["selector"] == "two-facts"
    assert len(lines) == 1 and "21 December" in lines[0]
    assert rec["responsive"]["verdict"] == "partial"
    assert rec["responsive"]["unanswered"] == "what is his shoe size?"
    assert not rec["grounded"]
    o = outcome(rec)
    assert o.kind.value == "partial" and "shoe size" in o.message


def test_the_two_facts_rule_can_be_turned_off() -> None:
    rec, _ = _ask(
        "When does Tom arrive in Leeds, and when is his birthday?", ["1"], rules_off=["two-facts"]
    )
    assert rec["selector"] != "two-facts"


def test_the_evidence_check_reads_each_part_on_its_own() -> None:
    from kb.rag.answerability import check
    from kb.rag.passage import PassageSentences

    passages = [PassageSentences.of(n, h) for n, h in enumerate(FAMILY, 1)]
    q = "When does Tom arrive in Leeds, and when is his birthday?"
    whole = check(q, passages, None, 0.0, off=frozenset({"two-facts"}))
    parted = check(q, passages, None, 0.0)
    assert parted.parts == ["When does Tom arrive in Leeds?", "when is his birthday?"]
    assert parted.score > whole.score
    assert parted.terms is not None and {"leed", "birthday"} <= set(parted.terms)
    assert parted.to_dict()["parts"] == parted.parts


def test_one_line_can_answer_both_parts() -> None:
    log = [
        _hit(1, "Boiler", "12 May 2025: boiler service by Hughes, £95. Next one is due in May."),
        _hit(2, "Garden", "The shed was painted green in May."),
    ]
    q = "When was the boiler serviced, and how much did it cost?"
    assert asked_facts(q) is not None
    rec, lines = _ask(q, ["1"], log)
    assert rec["selector"] == "two-facts"
    assert len(lines) == 1 and "£95" in lines[0]
    assert rec["responsive"]["unanswered"] is None
