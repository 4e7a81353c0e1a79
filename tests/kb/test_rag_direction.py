"""A move asked the wrong way round (kb.rag.direction) and how the evidence check uses it."""

from __future__ import annotations

from kb.rag import AskPipeline
from kb.rag.answerability import check
from kb.rag.direction import reversed_moves
from kb.rag.polarity import Contradiction
from kb.rag.verify import PassageSentences
from kb.search.options import SearchOptions
from kb.types import Hit, Locator, Span
from tests.kb.test_rag_pipeline import FakeRetriever
from tests.kb.test_rag_verified import bow_embed, cfg

DECISION = "1. We move the payment provider from Stripe to Adyen in Q1; Omar owns the migration."


def hit(n: int, text: str) -> Hit:
    loc = Locator(f"notes/n{n}.md", "md", ("Weekly sync", "Decisions"), Span(line_start=7))
    return Hit(chunk_id=n, text=text, locator=loc, score=1.0 / n)


def test_a_move_asked_the_other_way_round_is_a_contradiction() -> None:
    said = "from Stripe to Adyen"
    assert reversed_moves("When do we move to Stripe?", DECISION) == [
        Contradiction("to Stripe", said)
    ]
    assert reversed_moves("When do we move from Adyen?", DECISION) == [
        Contradiction("from Adyen", said)
    ]
    assert reversed_moves("Who owns the migration into the Stripe account?", DECISION) == [
        Contradiction("into the Stripe", said)
    ]


def test_a_move_asked_the_right_way_or_with_both_ends_is_none() -> None:
    for q in (
        "When do we move to Adyen?",
        "When do we move from Stripe?",
        "When do we move from Stripe to Adyen?",
        "Why move to Stripe when Adyen is cheaper?",  # names the other end
        "Do we move to Stripe?",  # yes/no: the sentence answers "no"
        "Do we move to Stripe or to Adyen?",  # an alternative
    ):
        assert reversed_moves(q, DECISION) == [], q
    # ends in small letters, or numbers, are no names
    assert reversed_moves("When do we switch to cash?", "We switch from cash to card.") == []
    assert reversed_moves("What happens to 9?", "Open from 9 to 5.") == []
    # several moves: each is read on its own
    two = "Mail moves from Gmail to Fastmail; DNS from Gandi to Cloudflare."
    assert reversed_moves("When does DNS move to Gandi?", two) == [
        Contradiction("to Gandi", "from Gandi to Cloudflare")
    ]
    assert reversed_moves("When does DNS move to Cloudflare?", two) == []


def test_only_a_question_about_a_move_between_named_places_is_checked() -> None:
    # a span of time is no move
    rota = "Anna covers the rota from Monday to Friday."
    assert reversed_moves("Who covers the rota from Friday?", rota) == []
    assert reversed_moves("Who moves the rota to May?", "We move it from May to June.") == []
    # a question without a move word asks what holds both ways
    km = "The distance from London to Paris is 340 km."
    assert reversed_moves("What is the distance to London?", km) == []
    # any form of a move word; a possessive; a sentence that starts with "From"
    for q in ("When are we migrating to Stripe?", "Who owns the migration to Stripe's platform?"):
        assert reversed_moves(q, DECISION) != [], q
    assert reversed_moves("When do we move to Stripe?", "From Stripe to Adyen: the plan.") == [
        Contradiction("to Stripe", "From Stripe to Adyen")
    ]
    flight = "Outbound: BA 5 from London Heathrow to Tokyo Haneda, 2 April."
    assert reversed_moves("When do we fly to Tokyo?", flight) == []
    assert reversed_moves("When do we fly to London?", flight) == [
        Contradiction("to London", "from London Heathrow to Tokyo Haneda")
    ]


def test_the_evidence_check_refuses_a_reversed_move_with_require_keys() -> None:
    ps = [PassageSentences.of(1, hit(1, DECISION))]
    q = "When do we move to Stripe?"
    loose = check(q, ps, None, 0.0)
    assert loose.answerable and loose.coverage == 1.0  # every word is there
    strict = check(q, ps, None, 0.0, require_keys=True)
    assert not strict.answerable
    assert strict.contradictions == [Contradiction("to Stripe", "from Stripe to Adyen")]
    assert check("When do we move to Adyen?", ps, None, 0.0, require_keys=True).answerable


def test_the_pipeline_refuses_a_reversed_move_before_loading_the_model() -> None:
    def factory():  # type: ignore[no-untyped-def]
        raise AssertionError("the model must not be loaded")

    pipe = AskPipeline(
        FakeRetriever([hit(1, DECISION)]), factory, cfg(min_answerable=0.01), embed=bow_embed
    )
    rec = pipe.ask("When do we move to Stripe?", SearchOptions(k=1)).result()
    assert rec.refused and rec.refusal_reason == "no_support"
    assert rec.answerability is not None
    assert rec.answerability["contradictions"] == [
        {"question": "to Stripe", "passage": "from Stripe to Adyen", "rule": "reversed-move"}
    ]
