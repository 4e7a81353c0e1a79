"""Input limits: one bound for every question and query, wherever it comes from (stdlib only).

``kb search``, ``kb ask``, ``kb serve``'s API (HTTP 413), ``kb mcp`` (a JSON-RPC
``-32602`` error) and golden entries at load all call :func:`check_question`, so a
question is refused the same way everywhere, with one line and before any work.

Why a bound: no real question comes near 4,000 characters (a long paragraph is about
1,000), while several steps of answering cost more than linear time in the length of
the text (a 10k-character question took 5 s in ``kb ask``, a 200 KB one held
``kb serve``'s answer lock for 44 s). Characters are counted as Python ``len``
(code points), after nothing is stripped.
"""

from __future__ import annotations

from kb.errors import QuestionTooLongError

#: the most characters a question, query or golden-entry question may have
MAX_QUESTION_CHARS = 4_000

#: the most characters of a name a request may carry (an eval run's id or name in
#: ``kb serve``'s eval API): run names are short, and a long one is refused before the
#: store is read
MAX_NAME_CHARS = 200

#: JSON-RPC's error code for bad parameters (kb mcp)
JSONRPC_INVALID_PARAMS = -32602


def too_long_message(n: int, what: str = "question", limit: int = MAX_QUESTION_CHARS) -> str:
    """``the question is 10,000 characters, over the limit of 4,000; shorten it``."""
    return f"the {what} is {n:,} characters, over the limit of {limit:,}; shorten it"


def check_question(text: str, what: str = "question", limit: int = MAX_QUESTION_CHARS) -> str:
    """``text`` unchanged, or :class:`QuestionTooLongError` (exit 5, HTTP 413) when it
    has more than ``limit`` characters. ``what`` names it: ``question`` or ``query``."""
    if len(text) > limit:
        raise QuestionTooLongError(too_long_message(len(text), what, limit))
    return text


def check_name(text: str, what: str) -> str:
    """``text`` unchanged, or :class:`QuestionTooLongError` (HTTP 413) when it has more
    than :data:`MAX_NAME_CHARS` characters; ``what`` names the parameter (``run a``)."""
    return check_question(text, what, MAX_NAME_CHARS)
