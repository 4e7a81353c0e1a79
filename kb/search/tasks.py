"""The task leg: a question about your to-dos finds the chunks that hold task boxes.

Notes keep tasks as Markdown task items (``- [ ] order compost``, ``- [x] fix the shed
door``) anywhere: in a garden plan, a daily note, a project page. A question such as
"What is still on my to-do list?" shares no word with ``- [ ] order compost`` and is
not near it in meaning (cosine 0.10 in a KB of a few notes), and neither leg indexes the
box itself (FTS5 and the embedder drop ``[ ]``), so the garden plan was found while the
KB held five notes and lost once a sixth, nearer in meaning, came in.

:func:`asks_tasks` reads the question: it names a to-do list or tasks, or asks what is
left, still open or not done (``to-do``, ``todo``, ``tasks``, ``what is left to do``,
``still to do``, ``unfinished``, ``outstanding``). :func:`task_chunks` then lists the
chunks in scope whose text holds a task box (an open box first when the question asks
what is open), newest document first; the retriever puts them at the head of the keyword
leg, with its best score, so fusion weighs them as the chunks that hold the query's
words best, and ``kb ask``'s retrieval rule lets such a chunk through
(:func:`kb.rag.answerability.section_named`).

Cost: one scan of the scope's chunk texts for a box (``LIKE``), made only for a
question that asks about tasks: about 0.1 s per 100,000 chunks of 130 words here.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Collection

from kb.sentence_spans import TASK_BOX

#: how a question asks about tasks: a to-do list, tasks, or what is left / open / not done
_ASKS = re.compile(
    r"\b(?:to-?dos?|to[- ]do\s+list|tasks?|task\s+list|checklist"
    r"|(?:left|still|remain\w*)\s+to\s+do|unfinished|undone|outstanding|not\s+(?:yet\s+)?done"
    r"|not\s+(?:yet\s+)?(?:finished|completed|ticked))\b",
    re.IGNORECASE,
)
#: the question asks what is open (not what is done)
_OPEN = re.compile(
    r"\b(?:still|left|open|remain\w*|outstanding|pending|unfinished|undone|not|yet)\b",
    re.IGNORECASE,
)

#: the question asks what is done
_DONE = re.compile(r"\b(?:done|finished|completed|ticked|did)\b", re.IGNORECASE)

#: the most task chunks one query adds to the keyword leg
MAX_TASK_CHUNKS = 20


def asks_tasks(question: str) -> bool:
    """``question`` asks about the user's tasks (module docs)."""
    return _ASKS.search(question) is not None


def asks_open(question: str) -> bool:
    """``question`` asks what is still open (``- [ ]``), not what is done."""
    return _OPEN.search(question) is not None


def asks_done(question: str) -> bool:
    """``question`` asks what is done (``- [x]``), not what is still open: "Which tasks
    have I done?", not "What have I not done yet?"."""
    return _DONE.search(question) is not None and not asks_open(question)


def task_ticks(text: str) -> set[str]:
    """The boxes of ``text``'s task items: ``" "`` for an open one, ``"x"``/``"X"`` for a
    ticked one; empty when it holds none."""
    return {m["tick"] for m in TASK_BOX.finditer(text)}


def holds_task(text: str, *, open_only: bool = False) -> bool:
    """``text`` holds a task item; with ``open_only``, an open one (``[ ]``)."""
    ticks = task_ticks(text)
    return " " in ticks if open_only else bool(ticks)


def task_chunks(
    conn: sqlite3.Connection,
    question: str,
    chunking_id: int | None,
    allowed: Collection[int] | None,
    limit: int = MAX_TASK_CHUNKS,
) -> list[int]:
    """Ids of the chunks in scope (the live chunking, or ``chunking_id``; documents in
    ``allowed`` when given) that hold a task item, those with an open box first when
    the question asks what is open, then the newest document first; at most
    ``limit``. ``LIKE`` finds the candidates (case-blind: ``[X]`` too; faster here than
    ``instr`` or ``GLOB``), :data:`TASK_BOX` confirms each (a ``[ ]`` inside a sentence
    is no task)."""
    table = "live_chunks" if chunking_id is None else "chunks"
    where = "" if chunking_id is None else f" AND chunking_id = {int(chunking_id)}"
    rows = conn.execute(
        f"SELECT id, document_id, text FROM {table} WHERE (text LIKE '%[ ]%' "
        f"OR text LIKE '%[x]%'){where} ORDER BY document_id DESC, id"
    ).fetchall()
    want_open = asks_open(question)
    found: list[tuple[bool, int]] = []
    for cid, doc, text in rows:
        ticks = task_ticks(str(text))
        if ticks and (allowed is None or int(doc) in allowed):
            found.append((want_open and " " not in ticks, int(cid)))
    found.sort(key=lambda f: f[0])  # stable: open boxes first, then the scan's order
    return [cid for _, cid in found[:limit]]


def with_tasks(
    keyword: list[tuple[int, float]], tasks: list[int], depth: int
) -> list[tuple[int, float]]:
    """The keyword leg's ``(chunk_id, score)`` list, best first, with the ``tasks``
    chunks at its head, each at the leg's best score (1.0 when the leg found nothing),
    the rest after them in their order; ``depth`` entries at most. A task chunk the leg
    found already moves up."""
    if not tasks:
        return keyword
    best = max((s for _, s in keyword), default=1.0)
    head = set(tasks)
    return ([(i, best) for i in tasks] + [(i, s) for i, s in keyword if i not in head])[:depth]
