"""Build the answer prompt: numbered context blocks ``[#1]..[#k]`` that fit the window.

Token budget (all counts from the generator's own tokenizer)::

    budget = n_ctx - max_tokens - fixed
    fixed  = tokens of the chat-formatted prompt with an empty context list
             (system text, question, template text, chat markup)

Contexts are taken in rank order. Each block (``context_template`` filled with
``n``, the locator and the text) costs its tokens plus the separator's. The first
block that no longer fits is truncated to the remaining budget when at least
:data:`MIN_CONTEXT_TOKENS` remain, otherwise dropped, and every lower-ranked
block is dropped: lowest-ranked contexts go first, then the last kept one is cut.
What was cut is returned as :class:`Truncation` and recorded with the answer.

A question that leaves fewer than :data:`MIN_CONTEXT_TOKENS` for even one
context raises :class:`ContextOverflowError` naming its token count and the window.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from kb.config import PromptSettings
from kb.errors import ContextOverflowError
from kb.types import Hit

MIN_CONTEXT_TOKENS = 32
SEPARATOR = "\n\n"
Message = dict[str, str]


class TokenCounter(Protocol):
    n_ctx: int

    def count_tokens(self, text: str) -> int: ...

    def count_prompt_tokens(self, prompt: str | Sequence[Message]) -> int: ...


@dataclass
class Truncation:
    """What the window forced out: dropped chunk ids and the one cut short (if any)."""

    dropped: list[int] = field(default_factory=list)
    cut_chunk_id: int | None = None
    cut_kept_chars: int = 0
    cut_original_chars: int = 0

    def __bool__(self) -> bool:
        return bool(self.dropped) or self.cut_chunk_id is not None

    def to_dict(self) -> dict[str, Any]:
        return {
            "dropped_chunk_ids": list(self.dropped),
            "cut": (
                None
                if self.cut_chunk_id is None
                else {
                    "chunk_id": self.cut_chunk_id,
                    "kept_chars": self.cut_kept_chars,
                    "original_chars": self.cut_original_chars,
                }
            ),
        }


@dataclass
class BuiltPrompt:
    """The messages to send, the hits they number 1..k, and what was cut.

    ``quote_candidates`` (quote mode only): the numbered sentences the prompt offers, in
    the order the model numbers them (:class:`kb.rag.candidates.Candidate`)."""

    messages: list[Message]
    contexts: list[Hit]
    truncation: Truncation
    prompt_tokens: int
    version: str
    quote_candidates: list[Any] | None = None

    def uncandidated(self) -> list[int]:
        """Quote mode: chunk ids of the contexts none of whose sentences is offered."""
        offered = {c.n for c in self.quote_candidates or ()}
        return [h.chunk_id for i, h in enumerate(self.contexts, 1) if i not in offered]


def render_block(settings: PromptSettings, n: int, hit: Hit, text: str | None = None) -> str:
    return settings.context_template.format(
        n=n, locator=hit.locator.render(), text=hit.text if text is None else text
    )


def messages_for(settings: PromptSettings, question: str, blocks: Sequence[str]) -> list[Message]:
    user = settings.question_template.format(contexts=SEPARATOR.join(blocks), question=question)
    return [{"role": "system", "content": settings.system}, {"role": "user", "content": user}]


def _cut_to_fit(counter: TokenCounter, render: Any, text: str, budget: int) -> str:
    """Longest prefix of ``text`` (cut at a word boundary when possible) whose block fits."""
    lo, hi = 0, len(text)
    while lo < hi:  # largest prefix length whose rendered block costs <= budget
        mid = (lo + hi + 1) // 2
        if counter.count_tokens(render(text[:mid] + " …")) <= budget:
            lo = mid
        else:
            hi = mid - 1
    prefix = text[:lo]
    space = prefix.rfind(" ")
    if space > lo * 0.8:
        prefix = prefix[:space]
    return prefix.rstrip() + " …"


def build_prompt(
    counter: TokenCounter,
    settings: PromptSettings,
    question: str,
    hits: Sequence[Hit],
    max_tokens: int,
) -> BuiltPrompt:
    """Number the hits that fit; see the module docstring for the budget."""
    n_ctx = counter.n_ctx
    fixed = counter.count_prompt_tokens(messages_for(settings, question, []))
    budget = n_ctx - max_tokens - fixed
    if budget < MIN_CONTEXT_TOKENS:
        q_tokens = counter.count_tokens(question)
        raise ContextOverflowError(
            f"the question is {q_tokens} tokens; with the instructions ({fixed} tokens in all) "
            f"and {max_tokens} tokens reserved for the answer it leaves no room for context "
            f"in the {n_ctx}-token window; shorten the question, lower --max-tokens or raise --ctx"
        )
    sep_cost = counter.count_tokens(SEPARATOR)
    blocks: list[str] = []
    kept: list[Hit] = []
    cut = Truncation()
    remaining = budget
    for i, hit in enumerate(hits):
        n = len(kept) + 1
        block = render_block(settings, n, hit)
        cost = counter.count_tokens(block) + (sep_cost if blocks else 0)
        if cost <= remaining:
            blocks.append(block)
            kept.append(hit)
            remaining -= cost
            continue
        room = remaining - (sep_cost if blocks else 0)
        if room >= MIN_CONTEXT_TOKENS:
            short = _cut_to_fit(
                counter, lambda t, n=n, hit=hit: render_block(settings, n, hit, t), hit.text, room
            )
            if short.strip(" …"):
                blocks.append(render_block(settings, n, hit, short))
                kept.append(hit)
                cut.cut_chunk_id = hit.chunk_id
                cut.cut_kept_chars = len(short) - 2
                cut.cut_original_chars = len(hit.text)
                cut.dropped = [h.chunk_id for h in hits[i + 1 :]]
                break
        cut.dropped = [h.chunk_id for h in hits[i:]]
        break
    messages = messages_for(settings, question, blocks)
    total = counter.count_prompt_tokens(messages)
    # block-by-block counts can differ from the joined prompt by a token at each seam
    while kept and total + max_tokens > n_ctx:
        dropped = kept.pop()
        blocks.pop()
        cut.dropped.insert(0, dropped.chunk_id)
        if cut.cut_chunk_id == dropped.chunk_id:
            cut.cut_chunk_id, cut.cut_kept_chars, cut.cut_original_chars = None, 0, 0
        messages = messages_for(settings, question, blocks)
        total = counter.count_prompt_tokens(messages)
    return BuiltPrompt(messages, kept, cut, total, settings.version)
