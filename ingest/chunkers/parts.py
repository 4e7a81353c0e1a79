"""Building blocks shared by the chunkers: splitting text under a token limit, and
turning a run of section parts into a :class:`~kb.types.ChunkDraft` with exact spans.

A *part* is ``(section index, start, end)``: the characters ``start:end`` of one
section's text. A chunk is one or more consecutive parts. Its text is the parts' text
joined by :func:`joiner` (a blank line, or a single space for audio transcripts), so a
chunk inside one section is exactly ``section.text[start:end]`` and therefore exactly
``document text[char_start:char_end]``; headings are never injected.

Token counts come from a :class:`~ingest.chunkers.counting.SliceCounter` per section
(one tokenisation per section); every count equals the counter's ``count`` on the
counted text, so the results are those of counting each text afresh.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ingest.chunkers.counting import SliceCounter
from ingest.tokens import TokenCounter
from kb.types import ChunkDraft, LoadedDocument, Section, Span

Part = tuple[int, int, int]

# Split levels, coarsest first: paragraphs, lines, sentences, words.
SEPARATORS = (
    re.compile(r"\n[ \t]*\n\s*"),
    re.compile(r"\n\s*"),
    re.compile(r"(?<=[.!?;:])\s+"),
    re.compile(r"\s+"),
)


def joiner(doc: LoadedDocument) -> str:
    """What separates parts of different sections in a chunk's text."""
    return " " if doc.doc_type == "audio" else "\n\n"


def trim(text: str, a: int, b: int) -> tuple[int, int] | None:
    """``(a, b)`` without outer whitespace, or ``None`` if only whitespace is left."""
    while a < b and text[a].isspace():
        a += 1
    while b > a and text[b - 1].isspace():
        b -= 1
    return (a, b) if a < b else None


def _units(text: str, a: int, b: int, sep: re.Pattern[str]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    pos = a
    for m in sep.finditer(text, a, b):
        piece = trim(text, pos, m.start())
        if piece:
            out.append(piece)
        pos = m.end()
    piece = trim(text, pos, b)
    if piece:
        out.append(piece)
    return out


def split_to_limit(
    counts: SliceCounter, a: int, b: int, limit: int, level: int = 0
) -> list[tuple[int, int]]:
    """Trimmed ranges covering every non-whitespace character of ``text[a:b]`` (``text``
    is ``counts.text``), in order, each of at most ``limit`` tokens: split at paragraphs,
    then lines, sentences and words, and only as a last resort between tokens (then
    characters)."""
    text = counts.text
    span = trim(text, a, b)
    if span is None:
        return []
    a, b = span
    if counts.count(a, b) <= limit:
        return [(a, b)]
    if level >= len(SEPARATORS):
        return _hard_split(counts, a, b, limit)
    units = _units(text, a, b, SEPARATORS[level])
    out: list[tuple[int, int]] = []
    for s, e in units:
        out.extend(split_to_limit(counts, s, e, limit, level + 1))
    return out


def _hard_split(counts: SliceCounter, a: int, b: int, limit: int) -> list[tuple[int, int]]:
    text = counts.text
    offs = [(a + s, a + e) for s, e in counts.counter.offsets(text[a:b]) if e > s]
    if not offs:  # no tokens at all: nothing a counter can object to
        return [(a, b)]
    out: list[tuple[int, int]] = []
    i = 0
    while i < len(offs):
        j = min(len(offs), i + limit)
        while j > i + 1 and counts.count(offs[i][0], offs[j - 1][1]) > limit:
            j -= 1
        s, e = offs[i][0], offs[j - 1][1]
        if j == i + 1 and counts.count(s, e) > limit:
            out.extend(_char_split(counts, s, e, limit))
        else:
            out.append((s, e))
        i = j
    # characters between tokens (none for sane tokenizers) stay covered: extend each
    # range to the start of the next one when the gap holds non-whitespace
    fixed: list[tuple[int, int]] = []
    for n, (s, e) in enumerate(out):
        nxt = out[n + 1][0] if n + 1 < len(out) else b
        if trim(text, e, nxt) is not None:
            e = nxt
        fixed.append((s if n else a, e))
    return fixed


def _char_split(counts: SliceCounter, a: int, b: int, limit: int) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    s = a
    for e in range(a + 1, b + 1):
        if e > s + 1 and counts.count(s, e) > limit:
            out.append((s, e - 1))
            s = e - 1
    out.append((s, b))
    return out


#: the end of a sentence: its stop, then any closing quotes or brackets
_SENTENCE_END = re.compile(r"[.!?][\"'”’)\]]*\Z")


def pack(
    counts: SliceCounter,
    pieces: Sequence[tuple[int, int]],
    limit: int,
    *,
    carry: bool = False,
) -> list[list[tuple[int, int]]]:
    """Greedily group consecutive pieces while ``text[first.start:last.end]`` stays within
    ``limit`` tokens (counted on the real text, so non-additive tokenizers are safe).

    With ``carry``, a group that starts inside a line (no line break between the
    previous group's end and its first piece) starts with the previous group's last
    sentence again (:func:`carried`), so no two neighbouring sentences of a paragraph
    end up only in different groups: a passage that runs across the cut ("... and
    political integration. Today the Court of Justice ... is the main judicial body")
    is whole in one of them. Each group still adds at least one new piece."""
    groups: list[list[tuple[int, int]]] = []
    for piece in pieces:
        if groups and counts.count(groups[-1][0][0], piece[1]) <= limit:
            groups[-1].append(piece)
            continue
        tail = carried(counts, groups[-1], piece, limit) if carry and groups else []
        groups.append([*tail, piece])
    return groups


def carried(
    counts: SliceCounter, prev: Sequence[tuple[int, int]], piece: tuple[int, int], limit: int
) -> list[tuple[int, int]]:
    """The pieces at the end of group ``prev`` that the group starting with ``piece``
    repeats: those of ``prev``'s last sentence (pieces split at a colon or a semicolon
    go back to the sentence's start, so a chunk never opens with the fragment
    '"The Capital City of Warsaw").'; a line break starts a sentence too, so a line
    without a stop, such as a label, is not taken for its beginning), when it does not
    start ``prev`` (else the new group would hold all of it), it is at most
    ``limit // 2`` tokens (the text a cut repeats stays under half a chunk), it fits within
    ``limit`` with ``piece``, and no line break comes between them (a hard-wrapped PDF
    line is a fragment of a sentence, a list item or a table row stands alone). ``[]``
    otherwise: a sentence over ``limit // 2`` (or one cut at its words) is not
    repeated."""
    text = counts.text
    k = len(prev) - 1
    while (
        k > 0
        and "\n" not in text[prev[k - 1][1] : prev[k][0]]
        and not _SENTENCE_END.search(text, max(0, prev[k - 1][1] - 4), prev[k - 1][1])
    ):
        k -= 1
    start = prev[k][0]
    if (
        k == 0
        or "\n" in text[start : piece[0]]
        or counts.count(start, prev[-1][1]) > limit // 2
        or counts.count(start, piece[1]) > limit
    ):
        return []
    return list(prev[k:])


def slice_counters(doc: LoadedDocument, counter: TokenCounter) -> list[SliceCounter]:
    """One :class:`SliceCounter` per section of ``doc``, in order (one tokenisation each)."""
    return [SliceCounter(s.text, counter) for s in doc.sections]


def count_parts(doc: LoadedDocument, parts: Sequence[Part], slices: Sequence[SliceCounter]) -> int:
    """Tokens of :func:`chunk_text` of ``parts`` (exactly the counter's count of it):
    with an additive counter the sum of the parts' counts (the joiner is whitespace, see
    :mod:`ingest.tokens`), otherwise the count of the joined text."""
    if len(parts) == 1 or all(slices[i].additive for i, _, _ in parts):
        return sum(slices[i].count(a, b) for i, a, b in parts)
    return slices[parts[0][0]].counter.count(chunk_text(doc, parts))


def _line_of(section: Section, offset: int) -> int | None:
    if section.span.line_start is None:
        return None
    return section.span.line_start + section.text.count("\n", 0, offset)


def chunk_text(doc: LoadedDocument, parts: Sequence[Part]) -> str:
    return joiner(doc).join(doc.sections[i].text[a:b] for i, a, b in parts)


def make_draft(doc: LoadedDocument, parts: Sequence[Part], token_count: int) -> ChunkDraft:
    """A draft for ``parts``: text, heading path of the first part's section, and spans
    from the first character of the first part to the last character of the last.
    ``token_count`` is the caller's :func:`count_parts` of ``parts``."""
    first_i, first_a, _ = parts[0]
    last_i, _, last_b = parts[-1]
    first, last = doc.sections[first_i], doc.sections[last_i]
    span = Span(
        line_start=_line_of(first, first_a),
        line_end=_line_of(last, max(last_b - 1, 0)),
        page_start=first.span.page_start,
        page_end=last.span.page_end,
        seconds_start=first.span.seconds_start,
        seconds_end=last.span.seconds_end,
    )
    return ChunkDraft(
        text=chunk_text(doc, parts),
        heading_path=first.heading_path,
        span=span,
        char_start=first.char_start + first_a,
        char_end=last.char_start + last_b,
        token_count=token_count,
    )
