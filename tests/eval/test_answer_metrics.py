"""Answer metrics on hand-worked answers (each judgement commented)."""

from __future__ import annotations

import math

from eval.metrics import compute_table
from eval.metrics.answers import FUNCS, AnswerView, check_answer
from tests.eval.builders import answer, check, hit, query, result, sup

SUP = sup("a.md", snippet="alpha")
C1 = hit("a.md", "the alpha fact", cid=1)  # matches SUP
C2 = hit("x.md", "unrelated", cid=2)  # matches nothing
C3 = hit("b.md", "the beta fact", cid=3)
CTX = [C1, C2, C3]
PARIS = check(any_of=["Paris"])


def value(name: str, res: object) -> float | None:
    v = AnswerView.of(res)  # type: ignore[arg-type]
    return None if v is None else FUNCS[name](v)


def test_check_answer() -> None:
    assert check_answer("It is PARIS.", PARIS) is True  # case-insensitive
    assert check_answer("It is Lyon.", PARIS) is False
    c = check(any_of=["Paris", "the capital"], must_contain=["France"], forbidden=["Lyon"])
    assert check_answer("Paris,  France", c) is True
    assert check_answer("Paris", c) is False  # must_contain missing
    assert check_answer("Paris, France, not Lyon", c) is False  # forbidden present
    assert check_answer("anything", None) is None and check_answer("x", check()) is None


def test_good_cited_answer() -> None:
    # cites [#1] (matches the support) and [#2] (does not); both numbers valid
    r = result(query("a1", [SUP], answer=PARIS), [C1], answer=answer("Paris [#1][#2]", CTX, [1, 2]))
    assert value("citation_validity", r) == 1.0  # 2 valid / 2 cited
    assert value("attribution_hit_rate", r) == 1.0  # a cited chunk matches the support
    assert value("citation_precision", r) == 0.5  # 1 of 2 cited chunks matches
    assert value("answer_correct", r) == 1.0  # contains "Paris", not refused
    assert value("answered_precision", r) == 1.0  # correct, valid citations, cites support
    assert value("over_refusal_rate", r) == 0.0
    assert value("abstention_accuracy", r) is None  # answerable: not in its denominator


def test_wrong_answer_with_an_invalid_citation() -> None:
    # cites [#2] (valid, no support) and [#9] (out of range: invalid)
    r = result(
        query("a2", [SUP], answer=PARIS),
        [C1],
        answer=answer("Lyon [#2] [#9]", CTX, [2], invalid=[9]),
    )
    assert value("citation_validity", r) == 0.5  # 1 valid of 2 cited numbers
    assert value("attribution_hit_rate", r) == 0.0  # the only cited chunk matches nothing
    assert value("citation_precision", r) == 0.0  # 0 of 1 cited chunks
    assert value("answer_correct", r) == 0.0  # no "Paris"
    assert value("answered_precision", r) == 0.0  # shipped but wrong


def test_refusal_of_an_answerable_query() -> None:
    r = result(
        query("a3", [SUP], answer=PARIS), [C1], answer=answer("not in context", CTX, refused=True)
    )
    assert value("citation_validity", r) is None  # no citation at all
    assert value("attribution_hit_rate", r) == 0.0  # answerable: a refusal cites nothing
    assert value("citation_precision", r) is None  # no cited chunk
    assert value("answer_correct", r) == 0.0  # refused
    assert value("answered_precision", r) is None  # not shipped
    assert value("over_refusal_rate", r) == 1.0
    assert value("empty_answer_rate", r) == 0.0  # refusals are not empty answers


def test_unanswerable_queries() -> None:
    refused = result(
        query("u1", [], answerable=False), [C2], answer=answer("not in context", CTX, refused=True)
    )
    answered = result(
        query("u2", [], answerable=False), [C2], answer=answer("Maybe [#1]", CTX, [1])
    )
    assert value("abstention_accuracy", refused) == 1.0
    assert value("hallucination_rate_unanswerable", refused) == 0.0
    assert value("abstention_accuracy", answered) == 0.0
    assert value("hallucination_rate_unanswerable", answered) == 1.0
    assert value("answered_precision", answered) == 0.0  # shipping an answer here is wrong
    assert value("attribution_hit_rate", answered) is None  # unanswerable: outside
    assert value("over_refusal_rate", refused) is None


def test_errors_and_no_answer_are_outside_every_answer_metric() -> None:
    failed = result(
        query("e", [SUP], answer=PARIS),
        [C1],
        answer=answer("", CTX, error="generation failed"),
        error="generation failed",
        error_stage="answer",
    )
    no_answer = result(query("n", [SUP]), [C1])
    for name in FUNCS:
        assert value(name, failed) is None and value(name, no_answer) is None


def test_answerable_without_check_or_supports_is_not_judged() -> None:
    r = result(query("x", []), [], answer=answer("Something [#1]", CTX, [1]))
    assert value("answered_precision", r) is None
    # with supports but no answer check: properly cited decides
    r2 = result(query("y", [SUP]), [C1], answer=answer("Something [#1]", CTX, [1]))
    assert value("answered_precision", r2) == 1.0
    assert value("answer_correct", r2) is None


def test_empty_answer() -> None:
    r = result(query("z", [SUP]), [C1], answer=answer("   ", CTX))
    assert value("empty_answer_rate", r) == 1.0


def conflict(rule: str, cited: list[int], text: str = "x", dated: bool = False) -> object:
    old = sup("b.md", snippet="beta", **({"extra": {"date": "2024-05-01"}} if dated else {}))
    new = sup("a.md", snippet="alpha", **({"extra": {"date": "2023-01-01"}} if dated else {}))
    # without dates the last support listed is the newest (a.md); with dates b.md is
    return result(
        query("c", [old, new], conflict_rule=rule), [C1, C3], answer=answer(text, CTX, cited)
    )


def test_conflict_rules() -> None:
    # cite_newer: newest = last listed = a.md (C1)
    assert value("conflict_rule_pass_rate", conflict("cite_newer", [1])) == 1.0
    assert value("conflict_rule_pass_rate", conflict("cite_newer", [3])) == 0.0  # only old
    assert value("conflict_rule_pass_rate", conflict("cite_newer", [1, 3])) == 0.0  # old too
    # with dates on every support, b.md (2024) is newest
    assert value("conflict_rule_pass_rate", conflict("cite_newer", [3], dated=True)) == 1.0
    # cite_both: both supports cited
    assert value("conflict_rule_pass_rate", conflict("cite_both", [1, 3])) == 1.0
    assert value("conflict_rule_pass_rate", conflict("cite_both", [1])) == 0.0
    # acknowledge_both: both cited and a conflict cue in the text
    assert (
        value(
            "conflict_rule_pass_rate",
            conflict("acknowledge_both", [1, 3], "A says x; however B says y"),
        )
        == 1.0
    )
    assert value("conflict_rule_pass_rate", conflict("acknowledge_both", [1, 3], "x")) == 0.0
    # no rule -> outside the denominator
    r = result(query("n", [SUP]), [C1], answer=answer("x [#1]", CTX, [1]))
    assert value("conflict_rule_pass_rate", r) is None


def test_table_aggregates_answer_metrics() -> None:
    good = result(query("a1", [SUP], answer=PARIS), [C1], 0, answer("Paris [#1]", CTX, [1]))
    bad = result(query("a2", [SUP], answer=PARIS), [C1], 1, answer("Lyon [#2]", CTX, [2]))
    unans = result(
        query("u", [], answerable=False), [C2], 2, answer("not in context", CTX, refused=True)
    )
    t = compute_table([good, bad, unans], 5)
    m = t.summary()["metrics"]
    assert m["answer_correct"] == 0.5  # 1 of the 2 answerable queries with a check
    assert m["abstention_accuracy"] == 1.0 and m["hallucination_rate_unanswerable"] == 0.0
    assert m["answered_precision"] == 0.5  # 2 shipped answers, 1 correct and cited
    assert m["attribution_hit_rate"] == 0.5
    assert m["conflict_rule_pass_rate"] is None
    assert not any(isinstance(v, float) and math.isnan(v) for v in m.values())
    by = t.to_json()["by"]["answerable"]
    assert by["unanswerable"]["metrics"]["abstention_accuracy"] == 1.0
    assert by["answerable"]["metrics"]["abstention_accuracy"] is None


def test_a_set_asked_in_two_languages_is_broken_down_by_language() -> None:
    from dataclasses import replace

    en = replace(query("e", [SUP], answer=PARIS), question="What is the capital of France?")
    de = replace(
        query("d", [SUP], answer=PARIS), question="Wie heißt die Hauptstadt von Frankreich?"
    )
    good = result(en, [C1], 0, answer("Paris [#1]", CTX, [1]))
    bad = result(de, [C1], 1, answer("Lyon [#2]", CTX, [2]))
    by = compute_table([good, bad], 5).to_json()["by"]
    assert by["lang"]["en"]["metrics"]["answer_correct"] == 1.0
    assert by["lang"]["de"]["metrics"]["answer_correct"] == 0.0
    # one language only: no breakdown
    assert "lang" not in compute_table([good], 5).to_json()["by"]
