"""Sentence splitting: passages into sentences with offsets, answers as they stream.

Passage sentences (:func:`split_sentences`) are spans ``(start, end)`` into the
passage text; the splitter and its rules live in :mod:`kb.sentence_spans` (stdlib
only, shared with ingest and search) and are re-exported here.

Answer sentences (:class:`AnswerSplitter`) are split on the stream. The grammar makes a
sentence end with its citations and end punctuation in either order (``... France
[#1].`` or ``... France. [#1]``), so a sentence is only *complete* once the next
non-space character is known not to be another citation: the splitter holds back the
tail until then, and :meth:`AnswerSplitter.finish` flushes it at the end of the answer.
A piece without a letter ("3." numbering a quoted heading) never ends a sentence.

In quote mode (``AnswerSplitter(cited_only=True)``) every answer sentence is a passage
sentence kb wrote followed by its citation, and a quote may itself hold a full stop
("...written notice. 5. Credits." is one passage sentence): there a sentence ends
only after its citations, so a quote is never cut in two and its first half left
uncited.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kb.sentence_spans import (
    ABBREVIATIONS,
    MIN_SENTENCE_CHARS,
    split_sentences,
)
from kb.sentence_spans import is_abbreviation as _is_abbreviation

__all__ = [
    "ABBREVIATIONS",
    "MIN_SENTENCE_CHARS",
    "AnswerSentence",
    "AnswerSplitter",
    "cited_numbers",
    "split_sentences",
    "strip_citations",
]

_CITE = re.compile(r"\[#(\d{1,9})\]")
_CITE_TAIL = re.compile(r"(?:\s*\[#\d{1,9}\])+\s*[.!?]?\s*$|\s*[.!?]\s*(?:\[#\d{1,9}\]\s*)+$")


def strip_citations(sentence: str) -> str:
    """The claim of an answer sentence: its text without ``[#n]`` markers.

    ``"Paris is in France [#1]."`` -> ``"Paris is in France."``.
    """
    end = ""
    m = _CITE_TAIL.search(sentence)
    if m:
        tail = m.group(0)
        end = next((c for c in tail if c in ".!?"), "")
        sentence = sentence[: m.start()]
    claim = _CITE.sub("", sentence)
    return (" ".join(claim.split()) + end).strip()


def cited_numbers(sentence: str) -> list[int]:
    """The ``[#n]`` numbers in ``sentence``, in order, repeats removed."""
    return list(dict.fromkeys(int(m.group(1)) for m in _CITE.finditer(sentence)))


@dataclass(frozen=True)
class AnswerSentence:
    """One complete answer sentence: ``start``/``end`` index the whole answer text."""

    index: int
    text: str
    start: int
    end: int


_ANSWER_END = re.compile(r"(?:[.!?](?:\s*\[#\d{1,9}\])*|(?:\[#\d{1,9}\]\s*)+[.!?]?)(?=\s)")


class AnswerSplitter:
    """Incremental sentence splitter for a streamed answer (see the module docstring).

    ``feed(piece)`` returns the sentences that became complete; ``finish()`` returns
    the rest. Splitting the same text at any boundaries yields the same sentences.
    """

    def __init__(self, *, cited_only: bool = False) -> None:
        self.cited_only = cited_only
        self.text = ""
        self._done = 0  # offset where the next sentence starts
        self._count = 0
        self._last_end = 0

    def feed(self, piece: str) -> list[AnswerSentence]:
        self.text += piece
        out: list[AnswerSentence] = []
        while True:
            tail = self.text[self._done :]
            m = None
            for cand in _ANSWER_END.finditer(tail):
                after = tail[cand.end() :]
                rest = after.lstrip()
                if not rest or "[#".startswith(rest):
                    break  # not known yet whether another citation follows
                if rest.startswith("[#"):
                    continue  # another citation of this sentence
                # anything else starts the next sentence, a task item's "[ ]" too
                if self.cited_only and "[#" not in cand.group(0):
                    continue  # quote mode: a quote ends with its citation
                if _is_cited_or_final(tail[: cand.end()]):
                    m = cand
                    break
            if m is None:
                return out
            out.append(self._emit(self._done, self._done + m.end()))

    @property
    def completed_end(self) -> int:
        """End offset of the last sentence returned by :meth:`feed` (0 before any)."""
        return self._last_end

    @staticmethod
    def is_complete(sentence: str) -> bool:
        """True when ``sentence`` ends the way a finished sentence does: with a
        citation, or with end punctuation that is not an abbreviation's dot."""
        t = sentence.rstrip()
        return bool(t) and t[-1] in ".!?]" and _is_cited_or_final(t)

    def finish(self) -> list[AnswerSentence]:
        if self.text[self._done :].strip():
            return [self._emit(self._done, len(self.text))]
        return []

    def _emit(self, start: int, end: int) -> AnswerSentence:
        raw = self.text[start:end]
        s = start + (len(raw) - len(raw.lstrip()))
        e = start + len(raw.rstrip())
        self._done = end
        self._last_end = e
        sent = AnswerSentence(self._count, self.text[s:e], s, e)
        self._count += 1
        return sent


def _is_cited_or_final(text: str) -> bool:
    """A candidate end closes a sentence when it carries a citation or end punctuation
    that is not an abbreviation's dot."""
    stripped = text.rstrip()
    if stripped.endswith("]"):
        return True
    if not any(c.isalpha() for c in stripped):
        return False  # "3." numbers a heading or list item: it is not a sentence
    return not _is_abbreviation(stripped, len(stripped) - 1)
