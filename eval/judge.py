"""Optional LLM judge (``kb eval run --judge MODEL.gguf``): simple, reported apart.

For every answered, non-refused query the judge model (temperature 0, through the
generator backend; the caller passes a ``complete(messages) -> text`` function) is
asked for two scores, each a single digit 0-5 (a GBNF grammar, :data:`GRAMMAR`, keeps
the output to one digit where the backend supports grammars):

- groundedness: how well every statement of the answer is supported by the context
  passages the answer was given;
- correctness: how well the answer agrees with the reference answers (only for
  queries with ``answer.any_of`` / ``must_contain``).

Spot-check: every ``spot_every``-th judged answer is scored for groundedness again
with a second, differently worded prompt; ``judge_disagreement_rate`` reports how
often the two differ by 2 or more. Stored per answer in ``answer.judge``: the scores,
the judge model hash, :data:`PROMPT_VERSION` and the exact prompts (inputs) and raw
outputs. Judge metrics never gate.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from eval.result import QueryResult

PROMPT_VERSION = "judge-v1"
GRAMMAR = "root ::= [0-5]"
Messages = list[dict[str, str]]
Complete = Callable[[Messages], str]

SYSTEM = "You are a strict grader. Reply with a single digit from 0 to 5 and nothing else."
GROUNDEDNESS = (
    "Context passages:\n{contexts}\n\nAnswer:\n{answer}\n\n"
    "How well is every statement in the answer supported by the context passages? "
    "0 = not supported at all, 5 = fully supported. Reply with one digit 0-5."
)
GROUNDEDNESS_ALT = (
    "Read the answer, then the sources.\nAnswer: {answer}\n\nSources:\n{contexts}\n\n"
    "Score from 0 (the sources do not back the answer, or contradict it) to 5 (the "
    "sources back every claim in the answer). One digit only."
)
CORRECTNESS = (
    "Question: {question}\nReference answer(s): {reference}\nCandidate answer: {answer}\n\n"
    "How correct is the candidate answer compared with the reference? 0 = wrong, "
    "5 = fully correct. Reply with one digit 0-5."
)
_DIGIT = re.compile(r"[0-5]")


def parse_score(text: str) -> int | None:
    """The first digit 0-5 in the judge's output, or ``None``."""
    m = _DIGIT.search(text or "")
    return int(m.group(0)) if m else None


def _messages(user: str) -> Messages:
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]


class Judge:
    """Callable on a :class:`QueryResult`; returns the ``answer.judge`` dict or ``None``."""

    def __init__(
        self,
        complete: Complete,
        model_hash: str | None,
        spot_every: int = 5,
        max_context_chars: int = 4000,
    ) -> None:
        self.complete = complete
        self.model_hash = model_hash
        self.spot_every = max(1, spot_every)
        self.max_context_chars = max_context_chars
        self.judged = 0

    def _ask(self, prompt: str, raw: dict[str, str], key: str) -> int | None:
        try:
            out = self.complete(_messages(prompt))
        except Exception as e:  # noqa: BLE001 - a judge failure must not stop the run
            raw[key] = f"error: {type(e).__name__}: {e}"
            return None
        raw[key] = out
        return parse_score(out)

    def __call__(self, r: QueryResult) -> dict[str, Any] | None:
        a = r.answer
        if a is None or a.refused or a.error or not a.text.strip():
            return None
        contexts = "\n".join(f"[#{n}] {h.text}" for n, h in enumerate(a.contexts, start=1))
        contexts = contexts[: self.max_context_chars]
        inputs = {"groundedness": GROUNDEDNESS.format(contexts=contexts, answer=a.text)}
        check = r.query.answer
        reference = list(check.any_of) + list(check.must_contain) if check else []
        if reference:
            inputs["correctness"] = CORRECTNESS.format(
                question=r.query.question, reference=" | ".join(reference), answer=a.text
            )
        spot = self.judged % self.spot_every == 0
        if spot:
            inputs["groundedness_alt"] = GROUNDEDNESS_ALT.format(contexts=contexts, answer=a.text)
        self.judged += 1
        raw: dict[str, str] = {}
        scores = {key: self._ask(prompt, raw, key) for key, prompt in inputs.items()}
        return {
            "groundedness": scores.get("groundedness"),
            "correctness": scores.get("correctness"),
            "groundedness_alt": scores.get("groundedness_alt"),
            "model_hash": self.model_hash,
            "prompt_version": PROMPT_VERSION,
            "inputs": inputs,
            "raw": raw,
        }
