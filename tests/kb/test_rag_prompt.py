"""Prompt building and the context-window budget (word-count tokenizer fake)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from kb.config import PromptSettings
from kb.errors import ContextOverflowError
from kb.rag.prompt import MIN_CONTEXT_TOKENS, build_prompt, messages_for
from kb.types import Hit, Locator, Span

P = PromptSettings()


class WordCounter:
    """One token per whitespace-separated word, plus ``per_message`` per chat message."""

    def __init__(self, n_ctx: int, per_message: int = 4) -> None:
        self.n_ctx, self.per_message = n_ctx, per_message

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def count_prompt_tokens(self, prompt: str | Sequence[dict[str, str]]) -> int:
        if isinstance(prompt, str):
            return self.count_tokens(prompt)
        return sum(self.count_tokens(m["content"]) + self.per_message for m in prompt)


def hit(i: int, words: int) -> Hit:
    text = " ".join(f"h{i}w{j}" for j in range(words))
    return Hit(i, text, Locator(f"d{i}.md", "md", ("T",), Span(page_start=i)), 1.0)


def fixed_cost(counter: WordCounter, question: str) -> int:
    return counter.count_prompt_tokens(messages_for(P, question, []))


def test_everything_fits_numbered_in_rank_order() -> None:
    c = WordCounter(4096)
    built = build_prompt(c, P, "why?", [hit(7, 20), hit(3, 20)], max_tokens=100)
    assert [h.chunk_id for h in built.contexts] == [7, 3] and not built.truncation
    user = built.messages[1]["content"]
    assert user.index("[#1] h7w0") < user.index("[#2] h3w0")
    assert "d7.md" not in user and "p. 7" not in user  # no locator for the model to copy
    assert built.messages[0] == {"role": "system", "content": P.system}
    assert built.prompt_tokens == c.count_prompt_tokens(built.messages)
    assert "Question: why?" in user and built.version == "v2"


def test_top_hit_too_long_is_cut_and_the_rest_dropped() -> None:
    c = WordCounter(0)
    c.n_ctx = fixed_cost(c, "q") + 50 + 100  # 100 tokens for contexts, 50 for the answer
    built = build_prompt(c, P, "q", [hit(1, 500), hit(2, 10)], max_tokens=50)
    assert [h.chunk_id for h in built.contexts] == [1]
    t = built.truncation.to_dict()
    assert t["dropped_chunk_ids"] == [2] and t["cut"]["chunk_id"] == 1
    assert t["cut"]["original_chars"] == len(hit(1, 500).text)
    assert built.prompt_tokens + 50 <= c.n_ctx
    body = built.messages[1]["content"]
    assert " …\n\nQuestion: q" in body  # the cut is marked where the block ends
    assert "h1w0" in body and "h1w499" not in body


def test_a_block_that_does_not_fit_with_too_little_room_is_dropped() -> None:
    c = WordCounter(0)
    first = len(f"[#1] {hit(1, 40).text}".split())
    c.n_ctx = fixed_cost(c, "q") + 10 + first + MIN_CONTEXT_TOKENS - 2
    built = build_prompt(c, P, "q", [hit(1, 40), hit(2, 80), hit(3, 5)], max_tokens=10)
    assert [h.chunk_id for h in built.contexts] == [1]
    assert built.truncation.to_dict() == {"dropped_chunk_ids": [2, 3], "cut": None}


def test_seams_costing_more_than_blocks_drop_the_last_block() -> None:
    class SeamCounter(WordCounter):
        def count_prompt_tokens(self, prompt: str | Sequence[dict[str, str]]) -> int:
            base = super().count_prompt_tokens(prompt)
            text = prompt if isinstance(prompt, str) else prompt[-1]["content"]
            return base + 30 * text.count("[#")  # each block costs 30 more when joined

    c = SeamCounter(0)
    c.n_ctx = fixed_cost(c, "q") + 10 + 3 * 20
    built = build_prompt(c, P, "q", [hit(1, 10), hit(2, 10), hit(3, 10)], max_tokens=10)
    assert built.prompt_tokens + 10 <= c.n_ctx
    assert built.truncation.dropped and built.contexts
    kept = [h.chunk_id for h in built.contexts]
    assert kept == [1, 2, 3][: len(kept)]
    assert built.truncation.dropped == [h for h in [1, 2, 3] if h not in kept]


def test_question_that_leaves_no_room_names_its_size_and_the_window() -> None:
    c = WordCounter(300)
    with pytest.raises(ContextOverflowError) as e:
        build_prompt(c, P, "word " * 400, [hit(1, 5)], max_tokens=50)
    msg = str(e.value)
    assert "question is 400 tokens" in msg and "300-token window" in msg and "--ctx" in msg
