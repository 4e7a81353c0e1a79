"""Markdown loader: YAML front matter, then one section per heading.

- Front matter is a ``---`` block on the first line, parsed with ``yaml.safe_load``;
  ``tags`` (a list, or a comma-separated string) become the document's tags and the
  whole mapping is kept, JSON-safe, in ``meta["front_matter"]``. Invalid YAML raises
  :class:`IngestError` naming the file line; a ``---`` first line that is never closed
  is indexed as text with a warning.
- Inline ``#tags`` in the text (``#work``, ``#project-heron``, ``#Küche``) are document
  tags too, after the front matter's: a ``#`` after white space, a bracket or a line's
  start, then a letter, then letters, digits, ``-``, ``_`` or ``/``. Not a heading's
  (``# Title``, or a ``#word`` in a heading's text), not in code spans or code blocks,
  not a URL's fragment (``page#section``: a letter or ``/`` before the ``#``), not a
  number (``#1``, ``issue #42``), not an HTML entity (``&#39;``). A line holding only
  tags at a section's start or end is left out of its text (it is no chunk); a section
  of nothing but tag lines gives no section; the tags still count.
- Every top-level ATX or setext heading starts a section. A section's heading path is
  the chain of enclosing headings by level (``# A``, ``### B``, ``## C`` gives
  ``(A, B)`` then ``(A, C)``). Content before the first heading has the empty path.
  Headings inside lists or block quotes are content, not structure.
- A section's text is the verbatim source of the lines *below* its heading up to the
  next heading, without blank lines at either end; the heading line itself is not in
  the text (it is in the heading path). Headings with no content produce no section;
  a file made only of headings gets one section per heading line.
- ``span.line_start``/``line_end`` are 1-based inclusive lines of the original file
  (front matter lines count) and ``text == document_text[char_start:char_end]``.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml
from markdown_it import MarkdownIt
from markdown_it.token import Token

from ingest.fileio import max_bytes_of
from ingest.loaders.base import LoadContext
from ingest.loaders.textio import LineIndex, read_text, trimmed_block
from kb.errors import IngestError
from kb.types import LoadedDocument, Section, Span


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    from mdit_py_plugins.front_matter import front_matter_plugin

    return MarkdownIt("commonmark").use(front_matter_plugin)


def _inline_text(token: Token) -> str:
    parts: list[str] = []
    for child in token.children or []:
        if child.type in ("text", "code_inline"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
        elif child.children:
            parts.append(_inline_text(child))
    return "".join(parts)


def _heading_text(inline: Token) -> str:
    text = " ".join(_inline_text(inline).split())
    return text or " ".join(inline.content.split()) or "(untitled)"


def parse_front_matter(content: str, rel_path: str) -> dict[str, Any]:
    """Parse the YAML between the ``---`` lines; line numbers in errors are file lines."""
    try:
        data = yaml.safe_load(content) if content.strip() else {}
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        problem = getattr(e, "problem", None) or str(e).splitlines()[0]
        where = f" at line {mark.line + 2}" if mark is not None else ""
        raise IngestError(
            rel_path, f"invalid YAML front matter{where}: {problem}; fix or remove it"
        ) from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise IngestError(
            rel_path, "front matter must be a YAML mapping (e.g. `tags: [a, b]`) at line 2"
        )
    return data


def tags_from(front_matter: dict[str, Any]) -> list[str]:
    """``tags`` as a clean list: a YAML list or a comma-separated string; ``#`` prefixes
    dropped, blanks and duplicates removed, order kept."""
    raw = front_matter.get("tags")
    if raw is None:
        return []
    items: list[Any] = raw if isinstance(raw, list) else str(raw).split(",")
    out: list[str] = []
    for item in items:
        tag = str(item).strip().lstrip("#").strip()
        if tag and tag not in out:
            out.append(tag)
    return out


#: an inline tag: ``#`` not after a word character, ``&``, ``/`` or ``#``, then a letter
INLINE_TAG = re.compile(r"(?<![\w&/#])#([^\W\d_](?:[\w/-]*\w)?)")
#: a line of nothing but tags
_TAG_LINE = re.compile(r"[ \t]*(?:#[^\W\d_](?:[\w/-]*\w)?[ \t,]*)+")


def inline_tags(tokens: list[Token]) -> list[str]:
    """The inline ``#tags`` of a parsed Markdown body, in order, without duplicates:
    from its text only (headings, code spans and code blocks skipped)."""
    out: list[str] = []

    def walk(children: list[Token]) -> None:
        for child in children:
            if child.type == "text":
                for m in INLINE_TAG.finditer(child.content):
                    if m.group(1) not in out:
                        out.append(m.group(1))
            elif child.children:
                walk(child.children)

    for i, tok in enumerate(tokens):
        if tok.type == "inline" and not (i and tokens[i - 1].type == "heading_open"):
            walk(tok.children or [])
    return out


def is_tag_line(line: str) -> bool:
    """``line`` holds tags and nothing else (``#work #2026-plans`` is not one: a number
    is no tag)."""
    return bool(line.strip()) and _TAG_LINE.fullmatch(line) is not None


def _json_safe(data: dict[str, Any]) -> dict[str, Any] | None:
    try:
        safe = json.loads(json.dumps(data, default=str))
    except (TypeError, ValueError):
        return None
    return safe if isinstance(safe, dict) else None


class MarkdownLoader:
    doc_type = "md"

    def load(self, abs_path: Path, rel_path: str, ctx: LoadContext) -> LoadedDocument:
        text = read_text(abs_path, rel_path, max_bytes_of(ctx.settings.ingest.max_file_mb))
        index = LineIndex(text)
        tokens = _parser().parse(text)
        warnings: list[str] = []
        meta: dict[str, Any] = {}
        front: dict[str, Any] = {}
        body_first = 1
        for tok in tokens:
            if tok.type == "front_matter" and tok.map:
                front = parse_front_matter(tok.content, rel_path)
                body_first = tok.map[1] + 1
                safe = _json_safe(front)
                if safe:
                    meta["front_matter"] = safe
                break
        else:
            if text.split("\n", 1)[0].strip() == "---":
                warnings.append(
                    "line 1: '---' opens front matter that is never closed; indexed as text"
                )
        headings: list[tuple[int, int, int, str]] = []  # first line, last line, level, text
        for i, tok in enumerate(tokens):
            if tok.type == "heading_open" and tok.level == 0 and tok.map:
                level = int(tok.tag[1:])
                headings.append((tok.map[0] + 1, tok.map[1], level, _heading_text(tokens[i + 1])))
        sections = _sections(index, body_first, headings)
        if not sections and headings:
            sections = _heading_only_sections(index, headings)
        if not sections:
            raise IngestError(rel_path, "no text after the front matter; nothing to index")
        return LoadedDocument(
            path=rel_path,
            doc_type=self.doc_type,
            sections=sections,
            tags=list(dict.fromkeys([*tags_from(front), *inline_tags(tokens)])),
            warnings=warnings,
            meta=meta,
            text=text,
        )


def _sections(
    index: LineIndex, body_first: int, headings: list[tuple[int, int, int, str]]
) -> list[Section]:
    regions: list[tuple[tuple[str, ...], int, int]] = []
    first_heading = headings[0][0] if headings else index.n_lines + 1
    regions.append(((), body_first, first_heading - 1))
    stack: list[tuple[int, str]] = []
    for n, (_, h_last, level, title) in enumerate(headings):
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, title))
        end = headings[n + 1][0] - 1 if n + 1 < len(headings) else index.n_lines
        regions.append((tuple(t for _, t in stack), h_last + 1, end))
    out: list[Section] = []
    for path, first, last in regions:
        first, last = _without_tag_lines(index, first, last)
        block = trimmed_block(index, first, last)
        if block is None:
            continue
        line_start, line_end, cs, ce = block
        out.append(Section(index.text[cs:ce], path, Span(line_start, line_end), cs, ce))
    return out


def _without_tag_lines(index: LineIndex, first: int, last: int) -> tuple[int, int]:
    """Lines ``first..last`` without tag-only and blank lines at either end."""

    def skip(line: int) -> bool:
        text = index.text[index.line_start(line) : index.line_end(line)]
        return not text.strip() or is_tag_line(text)

    while first <= last and skip(first):
        first += 1
    while last >= first and skip(last):
        last -= 1
    return first, last


def _heading_only_sections(
    index: LineIndex, headings: list[tuple[int, int, int, str]]
) -> list[Section]:
    out: list[Section] = []
    stack: list[tuple[int, str]] = []
    for h_first, h_last, level, title in headings:
        while stack and stack[-1][0] > level - 1:
            stack.pop()
        parent = tuple(t for _, t in stack)
        stack.append((level, title))
        block = trimmed_block(index, h_first, h_last)
        if block is not None:
            ls, le, cs, ce = block
            out.append(Section(index.text[cs:ce], parent, Span(ls, le), cs, ce))
    return out
