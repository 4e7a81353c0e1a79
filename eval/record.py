"""``kb eval record GOLDEN``: grow a golden set interactively.

Loop: the user types a question; the top-k hits are shown, numbered; the user picks
the correct ones (``1 3``), ``u`` (unanswerable), ``s`` (skip) or an empty line (skip);
for an answerable question an optional expected answer phrase is asked. The entry is
appended to the golden file with a new unique id (``rec-0001``...) and, per picked
hit, a support: the path (mapped back to the golden corpus root), the chunk's heading
and a *distinctive sentence* of the chunk as the snippet (audio: the time range
instead, since transcripts change; PDF: the page too). An empty question or end of
input stops.

Distinctive sentence: among the chunk's sentences of 30-200 characters, the longest
one found in no other document of the KB; else the longest; else the first 120
characters of the chunk (cut at a word boundary).

Appending keeps the file as written (comments included) when the new entry can be
added at the end of the ``queries`` list; otherwise the file is rewritten from its
parsed form. Either way the result is validated before it replaces the file.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from eval.golden import load_golden
from eval.matching import StoredHit, fold
from kb.errors import GoldenError

Read = Callable[[str], str | None]
Write = Callable[[str], None]
Search = Callable[[str], list[StoredHit]]
_SENT = re.compile(r"(?<=[.!?])\s+")
_ID = re.compile(r"^rec-(\d+)$")


def distinctive_sentence(conn: sqlite3.Connection | None, hit: StoredHit) -> str:
    text = " ".join(hit.text.split())
    cands = sorted(
        {s.strip() for s in _SENT.split(text) if 30 <= len(s.strip()) <= 200},
        key=lambda s: (-len(s), s),
    )
    for s in cands:
        if conn is None or _documents_with(conn, s) <= 1:
            return s
    if cands:
        return cands[0]
    if len(text) <= 120:
        return text
    cut = text[:120].rsplit(" ", 1)[0]
    return cut or text[:120]


def _documents_with(conn: sqlite3.Connection, s: str) -> int:
    row = conn.execute(
        "SELECT count(DISTINCT document_id) FROM chunks WHERE instr(lower(text), lower(?)) > 0",
        (s,),
    ).fetchone()
    return int(row[0])


def support_for(
    hit: StoredHit, golden_path: str, conn: sqlite3.Connection | None
) -> dict[str, Any]:
    sup: dict[str, Any] = {"path": golden_path}
    if hit.heading:
        sup["heading"] = hit.heading
    if hit.doc_type == "audio" and hit.seconds:
        sup["seconds"] = [round(hit.seconds[0], 1), round(hit.seconds[1], 1)]
        return sup
    if hit.pages:
        sup["page"] = hit.pages[0]
    snippet = distinctive_sentence(conn, hit)
    if snippet and fold(snippet) in fold(hit.text):
        sup["snippet"] = snippet
    return sup


def next_id(existing: set[str]) -> str:
    n = max([int(m.group(1)) for i in existing if (m := _ID.match(i))] + [0]) + 1
    while f"rec-{n:04d}" in existing:
        n += 1
    return f"rec-{n:04d}"


def append_query(path: Path, entry: dict[str, Any], corpus: str | None = None) -> None:
    """Append ``entry`` to the golden file (created when missing), validated first."""
    import yaml

    jsonl = path.suffix.lower() == ".jsonl"
    if not path.exists():
        if jsonl:
            new = json.dumps(entry, ensure_ascii=False) + "\n"
        else:
            head: dict[str, Any] = {"schema_version": 1}
            if corpus:
                head["corpus"] = corpus
            new = yaml.safe_dump(head, sort_keys=False) + "queries:\n" + _yaml_item(entry, "")
        _replace_validated(path, new, 1)
        return
    text = path.read_text(encoding="utf-8")
    before = len(load_golden(path).queries)
    if text and not text.endswith("\n"):
        text += "\n"
    if jsonl:
        _replace_validated(path, text + json.dumps(entry, ensure_ascii=False) + "\n", before + 1)
        return
    m = re.findall(r"^( *)- id:", text, flags=re.M)
    try:
        _replace_validated(path, text + _yaml_item(entry, m[-1] if m else ""), before + 1)
    except GoldenError:
        data = yaml.safe_load(text) or {}
        data.setdefault("queries", []).append(entry)
        new = yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=1000)
        _replace_validated(path, new, before + 1)


def _yaml_item(entry: dict[str, Any], indent: str) -> str:
    import yaml

    block = yaml.safe_dump([entry], sort_keys=False, allow_unicode=True, width=1000)
    return "".join(indent + line for line in block.splitlines(keepends=True))


def _replace_validated(path: Path, text: str, expect: int) -> None:
    tmp = path.with_name(f".{path.stem}.tmp{os.getpid()}{path.suffix}")
    tmp.write_text(text, encoding="utf-8")
    try:
        got = len(load_golden(tmp).queries)
        if got != expect:
            raise GoldenError(f"{path}: appending did not add exactly one query")
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    os.replace(tmp, path)


def record_loop(
    path: Path,
    search: Search,
    read: Read,
    write: Write,
    golden_path_of: Callable[[str], str] = lambda p: p,
    conn: sqlite3.Connection | None = None,
    corpus: str | None = None,
) -> int:
    """Run the loop (see module docs); returns the number of entries appended."""
    existing = {q.id for q in load_golden(path).queries} if path.exists() else set()
    added = 0
    while True:
        question = read("question (empty to finish): ")
        if question is None or not question.strip():
            break
        question = question.strip()
        hits = search(question)
        if not hits:
            write("no hits.")
        for i, h in enumerate(hits, start=1):
            preview = " ".join(h.text.split())[:160]
            write(f"{i:>2}. {h.locator_text()}\n    {preview}")
        picked = _pick(read, write, len(hits))
        if picked is None:
            write("skipped.")
            continue
        entry: dict[str, Any] = {"id": next_id(existing), "question": question}
        if isinstance(picked, str):  # "u"
            entry.update(answerable=False, category="unanswerable", tags=["recorded"], supports=[])
        else:
            entry.update(
                answerable=True,
                category="factual",
                tags=["recorded"],
                supports=[
                    support_for(hits[n - 1], golden_path_of(hits[n - 1].path), conn) for n in picked
                ],
            )
            phrase = read("expected answer phrase (optional): ")
            if phrase and phrase.strip():
                entry["answer"] = {"any_of": [phrase.strip()]}
        append_query(path, entry, corpus)
        existing.add(entry["id"])
        added += 1
        write(f"added {entry['id']} to {path}")
    return added


def _pick(read: Read, write: Write, n: int) -> list[int] | str | None:
    """Numbers (1-based), ``"u"``, or ``None`` to skip; re-asks on bad input."""
    while True:
        raw = read("correct hits (e.g. 1 3), u = unanswerable, s = skip: ")
        if raw is None:
            return None
        raw = raw.strip().lower()
        if raw in ("", "s"):
            return None
        if raw == "u":
            return "u"
        parts = [p for p in re.split(r"[\s,]+", raw) if p]
        if parts and all(p.isdigit() and 1 <= int(p) <= n for p in parts):
            return list(dict.fromkeys(int(p) for p in parts))
        write(f"enter numbers between 1 and {n}, u or s")
