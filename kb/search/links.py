"""Documents named by title: the query's, or its best hit's (stdlib and SQLite only).

A question often names a document by its title without the words that rank it: "Are
Local H and *For Against* both from the United States?" (*for* and *against* are stop
words to the keyword leg, and the vector of the whole question leans to Local H), or it
asks about a thing its best passage names: "When did the rock band that sang 'All Join
Hands' rise to prominence?" is answered by the note titled *Slade*, which the best hit
("'All Join Hands' is a song by the British rock band Slade ...") names; a personal note
that names another note ("see *Boiler service*") links them the same way. Neither is
found by matching the question's words alone.

:class:`TitleIndex` maps each document's title to the document: the first part of its
first chunk's heading path (a Markdown note's ``# Title``, a PDF's title), and the same
before a comma or a bracket ("Concord, California" is also *Concord*, "Mercury (planet)"
also *Mercury*). A title is matched as a whole run of words, case as written (*Slade*,
not *slade*), and only when it starts with a capital letter or a digit and is not one
word of fewer than 3 letters. A title more than :data:`MAX_SHARED` documents share names
none of them (a folder of notes all titled "Notes"), and a one-word title is not matched
by the first word of a sentence ("Work starts at 9." names no note titled *Work*: any
word has a capital there). Words are runs of letters and digits, with inner apostrophes
("men's"); punctuation between them is ignored ("2011–12 VCU Rams" matches "2011-12 VCU
Rams").

:func:`linked` is the retriever's use of it (:mod:`kb.search.retriever`, ``[search]
links``): the documents the query names, then those the best hit's text names (not its
own), up to ``links`` of them that have no chunk among the first two hits, each get
one chunk at rank :data:`POSITION` (3): their best-ranked chunk moved up, or, when none
was ranked, their chunk closest to the query. Measured on squad-dev (300 answerable
questions, 60 of them HotpotQA two-document questions): recall_all@5 0.923 -> 0.967
(p = 0.0002), every hit@k and mrr@10 unchanged, and no change at all on the 234
answerable questions of the fresh set (none names a document). Edge cases: no titles,
or a query and a best hit that name none, change nothing; a document already in the
first two hits is not placed again.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from kb.search.fusion import Fused
from kb.search.vector_cache import live_chunking
from kb.types import HEADING_SEP

#: a title that more documents than this share names none of them
MAX_SHARED = 3
#: the longest title matched, in words
MAX_WORDS = 12
#: a named document's chunk is placed at this rank (the two best hits stay first)
POSITION = 3
#: ``Fused.ranks`` key of a placed chunk: 0 named by the query, 1 by the best hit
LINK = "link"

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
_ALIAS_CUT = re.compile(r"\s*(?:,|\()")
#: what precedes the first word of a sentence: the text's start, a stop, a colon, a line
#: break or a line's bullet, then only white space, quote marks or brackets (searched in
#: ``text[:word start]``)
_SENTENCE_START = re.compile(r"(?:\A|[.!?:\n]|^\s*[-*+>#])[\s\"“‘'(]*\Z", re.M)


def words(text: str) -> list[str]:
    """``text``'s words: runs of letters and digits, inner apostrophes kept."""
    return [w.replace("’", "'") for w in _WORD.findall(text)]


def title_keys(title: str) -> set[str]:
    """The keys ``title`` is matched by: its words joined by one space, and the same of
    its part before a comma or an opening bracket. A key that does not start with a
    capital letter or a digit, or is one word of fewer than 3 characters, is left
    out."""
    keys: set[str] = set()
    cut = _ALIAS_CUT.search(title)
    for part in (title, title[: cut.start()] if cut else ""):
        ws = words(part)
        if not ws or len(ws) > MAX_WORDS:
            continue
        if not (ws[0][0].isupper() or ws[0][0].isdigit()):
            continue
        if len(ws) == 1 and len(ws[0]) < 3:
            continue
        keys.add(" ".join(ws))
    return keys


@dataclass(frozen=True)
class TitleIndex:
    """Title keys (:func:`title_keys`) -> the documents titled so."""

    keys: dict[str, frozenset[int]]
    longest: int = 0  # the most words of a key

    @classmethod
    def of(cls, titles: Iterable[tuple[int, str]]) -> TitleIndex:
        """The index of ``(document id, title)`` pairs; a key shared by more than
        :data:`MAX_SHARED` documents is dropped."""
        found: dict[str, set[int]] = {}
        for doc, title in titles:
            for key in title_keys(title):
                found.setdefault(key, set()).add(doc)
        keys = {k: frozenset(v) for k, v in found.items() if len(v) <= MAX_SHARED}
        return cls(keys, max((k.count(" ") + 1 for k in keys), default=0))

    def named(self, text: str) -> list[int]:
        """The documents whose title ``text`` holds as a run of words, in the order of
        their first mention (longest title first at one place)."""
        out: dict[int, None] = {}
        if not self.keys:
            return []
        found = [(m.group().replace("’", "'"), m.start()) for m in _WORD.finditer(text)]
        ws = [w for w, _ in found]
        for i, (w, at) in enumerate(found):
            if not (w[0].isupper() or w[0].isdigit()):
                continue  # every key starts so
            for n in range(min(self.longest, len(ws) - i), 0, -1):
                if n == 1 and _SENTENCE_START.search(text, 0, at):
                    continue  # "Work starts at 9.": any word has a capital there
                docs = self.keys.get(" ".join(ws[i : i + n]))
                if docs:
                    out.update(dict.fromkeys(sorted(docs)))
        return list(out)


def load_titles(conn: sqlite3.Connection, chunking_id: int | None) -> TitleIndex:
    """The title of every document of the live chunking (or ``chunking_id``): the first
    part of the heading path of its first chunk (``ord`` 0)."""
    if chunking_id is None:
        sql, params = "SELECT document_id, heading_path FROM live_chunks WHERE ord = 0", []
    else:
        sql = "SELECT document_id, heading_path FROM chunks WHERE chunking_id = ? AND ord = 0"
        params = [chunking_id]
    rows = conn.execute(sql, params).fetchall()
    titles = [(int(d), str(h).split(HEADING_SEP)[0].strip()) for d, h in rows]
    return TitleIndex.of((d, t) for d, t in titles if t)


def linked(
    fused: Sequence[Fused],
    named: Sequence[tuple[int, int]],
    doc_of: Mapping[int, int],
    closest: Callable[[int], int | None],
    limit: int,
    position: int = POSITION,
) -> list[Fused]:
    """``fused`` with the chunks of up to ``limit`` documents of ``named`` (``(document
    id, 0 named by the query | 1 by the best hit)``, in order) placed at rank
    ``position`` (or at the end of a shorter list), in that order. A document with a
    chunk above ``position`` is already placed, and is skipped; one with a chunk lower
    in ``fused`` has its best-ranked chunk moved up; one with none has its chunk
    ``closest`` to the query (``None``: none is known, skipped) inserted. ``doc_of``:
    the document of each chunk of ``fused``. A placed entry scores as the entry above
    it (order and scores agree), keeps the score fusion gave it in ``fused``, and has
    ``ranks[LINK]`` saying who named it."""
    head = max(0, min(position - 1, len(fused)))
    placed_docs = {doc_of.get(f.id) for f in fused[:head]}
    by_doc: dict[int, Fused] = {}
    for f in fused[head:]:
        d = doc_of.get(f.id)
        if d is not None:
            by_doc.setdefault(d, f)
    out: list[Fused] = []
    for doc, who in named:
        if len(out) >= limit:
            break
        if doc in placed_docs:
            continue
        placed_docs.add(doc)
        if doc in by_doc:
            f = by_doc[doc]
            ranks = {**f.ranks, LINK: who}
            out.append(Fused(f.id, f.score, ranks, f.score if f.fused is None else f.fused))
        elif (chunk := closest(doc)) is not None:
            out.append(Fused(chunk, 0.0, {LINK: who}))
    if not out:
        return list(fused)
    moved = {f.id for f in out}
    rest = [f for f in fused[head:] if f.id not in moved]
    above = fused[head - 1].score if head else (rest[0].score if rest else 0.0)
    for f in out:
        f.score = above
    return [*fused[:head], *out, *rest]


def chunk_documents(conn: sqlite3.Connection, ids: Sequence[int]) -> dict[int, tuple[int, str]]:
    """Each chunk's ``(document id, text)`` (a chunk deleted meanwhile is left out)."""
    if not ids:
        return {}
    marks = ",".join("?" * len(ids))
    sql = f"SELECT id, document_id, text FROM chunks WHERE id IN ({marks})"
    return {int(i): (int(d), str(t)) for i, d, t in conn.execute(sql, list(ids))}


def document_chunks(
    conn: sqlite3.Connection, document_id: int, chunking_id: int | None
) -> list[int]:
    """The chunk ids of one document in the live chunking (or ``chunking_id``)."""
    if chunking_id is None:
        sql, params = "SELECT id FROM live_chunks WHERE document_id = ?", [document_id]
    else:
        sql = "SELECT id FROM chunks WHERE chunking_id = ? AND document_id = ?"
        params = [chunking_id, document_id]
    return [int(r[0]) for r in conn.execute(sql, params)]


def titles_state(conn: sqlite3.Connection, chunking_id: int | None) -> tuple[object, ...]:
    """Changes whenever a document's title may have: a document added, removed or
    re-ingested (``documents.updated_at``), or another chunking made live. Cheaper to
    read than the chunks, and unmoved by writes that touch neither (an eval run storing
    its rows between two searches)."""
    docs = conn.execute("SELECT count(*), max(updated_at), max(id) FROM documents").fetchone()
    return (chunking_id, live_chunking(conn), *docs)
