"""The verifier's polarity rules (kb.rag.claim_polarity): a claim that negates or
reverses its evidence is not supported by it."""

from __future__ import annotations

import pytest

from kb.rag.claim_polarity import NEGATED, REVERSED, denials, reversal
from kb.rag.rules import BY_ID
from kb.rag.verify import Verifier
from tests.kb.test_rag_verified import bow_embed, hit

BUDGET = "The committee approved the harbour budget in March after a long debate."


@pytest.mark.parametrize(
    ("claim", "evidence", "phrases"),
    [
        # the claim denies what the evidence says
        (
            "The committee did not approve the harbour budget in March.",
            BUDGET,
            ("not approve", "approved"),
        ),
        ("The committee didn't approve the harbour budget.", BUDGET, ("n't approve", "approved")),
        ("The expedition never reached the summit.", "The expedition reached the summit.", None),
        ("Warsaw is not the capital of Poland.", "Warsaw is the capital of Poland.", None),
        ("RCO was not in the catering business.", "RCO was in the catering business.", None),
        ("He had no children.", "He had three children with his first wife.", None),
        # the claim says what the evidence denies
        (
            "The laws of physics change when travelling at constant velocity.",
            "The laws of physics do not change when travelling at constant velocity.",
            ("change", "not change"),
        ),
    ],
)
def test_a_negated_claim_is_found(
    claim: str, evidence: str, phrases: tuple[str, str] | None
) -> None:
    r = reversal(claim, evidence)
    assert r is not None and r.rule == NEGATED
    if phrases is not None:
        assert (r.claim, r.evidence) == phrases


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        ("Exports increased by 4% in 2019.", "Exports decreased by 4% in 2019."),
        ("The bridge was built after the war.", "The bridge was built before the war."),
        ("It flows to the north of the city.", "It flows to the south of the city."),
        ("Lyon is the largest city of the region.", "Lyon is the smallest city of the region."),
    ],
)
def test_a_reversed_claim_is_found(claim: str, evidence: str) -> None:
    r = reversal(claim, evidence)
    assert r is not None and r.rule == REVERSED


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        (BUDGET, BUDGET),  # a quote of its evidence
        ("The committee approved the harbour budget.", BUDGET),  # a clause of it
        # the evidence denies it too, in its own words
        ("The plan was not approved.", "The council did not approve the plan."),
        # "not only", "no longer", "until": no denial of the word
        ("It is not only a port.", "It is a port and a market town."),
        (
            "The treaty was signed in 1990.",
            "The treaty was not signed until 1990, after years of talks.",
        ),
        ("Injectors were widely used.", "Injectors are no longer widely used."),
        # an imperative's never is a rule, not a denial
        ("Water it once a month.", "Never water it more than once a month."),
        # a comparison turned round says the same
        ("Ben is younger than Tom.", "Tom is older than Ben."),
        # a name's word is no antonym
        ("He played at Old Trafford.", "He played at Old Trafford as a young man."),
        # the evidence says the word both ways
        (
            "The council approved the budget.",
            "The council did not approve the server but approved the budget.",
        ),
        ("", BUDGET),
        (BUDGET, ""),
    ],
)
def test_no_reversal(claim: str, evidence: str) -> None:
    assert reversal(claim, evidence) is None


def test_rules_off_skip_each_rule() -> None:
    negated = ("The committee did not approve the harbour budget.", BUDGET)
    assert reversal(*negated, off=[NEGATED]) is None
    assert reversal(*negated, off=[REVERSED]) is not None
    swapped = ("Exports increased in 2019.", "Exports decreased in 2019.")
    assert reversal(*swapped, off=[REVERSED]) is None


def test_denials_leave_out_stop_words_and_dated_acts() -> None:
    assert denials("It is not the case. She did not sign until 1990.") == [("not the case", "case")]
    assert denials("He was not to blame.") == [("not to blame", "blame")]
    assert denials("It is not only a port, and no longer a market.") == []
    assert denials("It was not, in the end, approved.") == []


def test_a_comparison_with_the_same_thing_is_reversed() -> None:
    r = reversal(
        "It is more commonly used than the newton.", "It is less commonly used than the newton."
    )
    assert r is not None and r.rule == REVERSED


def test_the_rules_are_registered() -> None:
    for rid in (NEGATED, REVERSED):
        assert BY_ID[rid].kind == "verify"
        assert BY_ID[rid].module == "kb.rag.claim_polarity"


def test_the_verifier_does_not_support_a_negated_claim() -> None:
    note = hit(1, BUDGET + " The vote was close.")
    v = Verifier([note], bow_embed)
    plain = v.verify(0, "The committee approved the harbour budget in March [#1].")
    assert plain.verdict == "supported" and plain.contradiction is None
    negated = v.verify(0, "The committee did not approve the harbour budget in March [#1].")
    assert negated.verdict == "unsupported"
    assert negated.contradiction is not None
    assert negated.contradiction["rule"] == NEGATED
    assert negated.contradiction["line"] == 'says "not approve" where [#1] says "approved"'
    assert negated.to_dict()["contradiction"] == negated.contradiction
    # with the rule off the old verdict comes back (how kb eval rules measures it)
    off = Verifier([note], bow_embed, off=[NEGATED]).verify(
        0, "The committee did not approve the harbour budget in March [#1]."
    )
    assert off.verdict == "supported" and off.contradiction is None


def test_another_cited_passage_that_agrees_still_supports() -> None:
    other = hit(2, "In March the committee did not approve the harbour budget in the end.")
    v = Verifier([hit(1, BUDGET), other], bow_embed)
    r = v.verify(0, "The committee did not approve the harbour budget in March [#1][#2].")
    assert r.verdict == "supported" and r.evidence is not None and r.evidence.n == 2
