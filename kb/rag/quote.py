"""Quote mode: every answer sentence is a sentence copied from a cited passage.

For small models that paraphrase badly, the answer is assembled from source text. The
prompt lists numbered *candidate sentences* (:func:`candidates_block`; which and in what
order: :mod:`kb.rag.candidates`); the grammar admits only the refusal phrase or 1 to
``max_quotes`` candidate numbers (the items of a section, list or record the question
names, :mod:`kb.rag.selectors`: all of them, in order, :func:`quote_grammar`'s
``every``); kb writes each chosen sentence verbatim, followed by the citation of the
passage it comes from (``<sentence> [#n]``, :func:`quote_line`, :class:`LabelExpander`),
with what is quoted around it (:mod:`kb.rag.quote_context`). The model chooses which
sentences; it cannot change a word, so every quote is real source text with provenance
by construction (Verbatim RAG).

Why numbers and not the sentences themselves in the grammar: grammar-constrained
sampling is greedy token by token, so a small model asked to copy one of several
sentences picks the one whose *first word* it likes best ("The ..."), not the one that
answers (measured on squad-dev: 7.5% correct answers when the grammar held the
sentences). Choosing a number puts the whole decision on one token that the model
makes after reading every candidate.

Sentences are written into the grammar as literals; characters a GBNF literal
cannot hold are escaped.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

# re-exported (__all__): kb.rag.pipeline imports quote mode's candidates (kb.rag.candidates)
# and selectors (kb.rag.selectors) from here
from kb.rag.candidates import Candidate, asks_steps, rank_candidates
from kb.rag.grammar import _literal, refusal_forms
from kb.rag.selectors import (
    SECTION_QUOTES,
    STEP_QUOTES,
    asks_one,
    asks_rows,
    asks_several,
    counts_items,
    list_candidates,
    listed,
    record_candidates,
    row_candidates,
    section_candidates,
    step_candidates,
    task_candidates,
)
from kb.sentence_spans import read_row

__all__ = [
    "Candidate",
    "LabelExpander",
    "SECTION_QUOTES",
    "STEP_QUOTES",
    "asks_one",
    "asks_rows",
    "asks_several",
    "asks_steps",
    "candidates_block",
    "counts_items",
    "list_candidates",
    "listed",
    "quote_grammar",
    "quote_line",
    "rank_candidates",
    "record_candidates",
    "row_candidates",
    "section_candidates",
    "step_candidates",
    "task_candidates",
]


def quote_line(c: Candidate, *, lead: bool = True) -> str:
    """What the model writes for candidate ``c``: the sentence it refers back to
    (:func:`kb.rag.quote_context.lead_before`; not with ``lead=False``), then the sentence,
    a space, its citation; then what follows it (a lead-in's command, a question's answer),
    each with the same citation."""
    line = f"{c.text} [#{c.n}]"
    if c.lead and lead:
        line = f"{c.lead} [#{c.n}] {line}"
    return f"{line} {c.follow} [#{c.n}]" if c.follow else line


def quote_grammar(
    cands: Sequence[Candidate], refusal_phrase: str, max_quotes: int, *, every: bool = False
) -> str:
    """GBNF: the refusal phrase, or 1..``max_quotes`` candidate numbers separated by a
    space (``"1"``, ``"3 1"``). The model picks sentences by number; kb writes them. With
    ``every`` (the candidates are the items of a section, list or record the question names,
    :func:`kb.rag.selectors.section_candidates`, or the task items a question about tasks
    asks for, :func:`kb.rag.selectors.task_candidates`), the answer is the first
    ``max_quotes`` of them in order (``"1 2 3"``): the model answers or refuses, and cannot
    drop an item ("What were the decisions?" quoted two of three)."""
    if not cands:
        raise ValueError("quote mode needs at least one candidate sentence")
    head = [
        "root ::= refusal | answer",
        f'refusal ::= ({refusal_forms(refusal_phrase)}) "."?',
    ]
    if every:
        answer = _literal(" ".join(str(i) for i in range(1, min(len(cands), max_quotes) + 1)))
        return "\n".join([*head, f"answer ::= {answer}"])
    labels = " | ".join(_literal(str(i)) for i in range(1, len(cands) + 1))
    return "\n".join(
        [
            *head,
            f'answer ::= label (" " label){{0,{max(0, max_quotes - 1)}}}',
            f"label ::= {labels}",
        ]
    )


def candidates_block(cands: Sequence[Candidate]) -> str:
    """The numbered candidate list shown in the prompt, one per line: ``1. sentence``. A
    table row is shown read with its header ("Service: Spotify Duo; Monthly: £16.99;
    Renews: 3rd; Card: Amex", :func:`kb.sentence_spans.read_row`): alone, "| Spotify
    Duo | £16.99 | 3rd | Amex |" does not say which cell renews, and the bundled model
    chose the Netflix row above it for "What date does Spotify renew?". The answer
    still quotes the row as the note writes it."""
    return "\n".join(
        " ".join(f"{i}. {c.lead} {_shown(c)} {c.follow}".split()) for i, c in enumerate(cands, 1)
    )


def _shown(c: Candidate) -> str:
    """``c``'s text as the prompt shows it: a table row read with its header."""
    return read_row(c.columns, c.text) if c.columns else c.text


class LabelExpander:
    """Turns the model's streamed choice (``"2"``, ``"2 1"``, or the refusal phrase) into
    the answer text: each chosen candidate as ``sentence [#n]``, repeats skipped, after
    a space, or after a line break between two list items or table rows.

    ``feed`` returns the text to emit for a piece. A label is complete once a space or
    the end follows it, or as soon as no longer label exists (``"2"`` of 8 candidates:
    no ``"2x"`` is a label, so the sentence streams one model step earlier).
    ``finish`` returns the rest. Anything that is not a label (the refusal phrase) is
    passed through unchanged.
    """

    def __init__(self, cands: Sequence[Candidate]) -> None:
        self.cands = list(cands)
        self.raw = ""
        self._done = 0
        self._chosen: list[int] = []
        self._passthrough = False

    def feed(self, piece: str) -> str:
        self.raw += piece
        if self._passthrough or (self.raw.strip() and not self.raw.strip()[0].isdigit()):
            self._passthrough = True
            text = self.raw[self._done :]
            self._done = len(self.raw)
            return text
        out: list[str] = []
        while True:
            tail = self.raw[self._done :]
            m = re.match(r"\s*(\d+)(?=\s)", tail) or self._final_label(tail)
            if m is None:
                return "".join(out)
            self._done += m.end()
            out.append(self._emit(int(m.group(1))))

    def _final_label(self, tail: str) -> re.Match[str] | None:
        """``tail``'s trailing digits when no candidate number extends them."""
        m = re.match(r"\s*(\d+)$", tail)
        return m if m is not None and int(m.group(1)) * 10 > len(self.cands) else None

    def finish(self) -> str:
        if self._passthrough:
            return ""
        m = re.match(r"\s*(\d+)\s*$", self.raw[self._done :])
        self._done = len(self.raw)
        return self._emit(int(m.group(1))) if m else ""

    @property
    def chosen(self) -> list[int]:
        """The 1-based candidate numbers the model chose, in order."""
        return list(self._chosen)

    def _emit(self, label: int) -> str:
        if not 1 <= label <= len(self.cands) or label in self._chosen:
            return ""
        c = self.cands[label - 1]
        chosen = [self.cands[k - 1] for k in self._chosen]
        written = {t for d in chosen for t in (d.lead, d.text, d.follow) if t}
        if c.text in written:  # a command already quoted after its lead-in
            return ""
        sep = ""
        if self._chosen:  # items of a list one per line, as the note writes them (an
            # item's later sentence stays on its line: "- Piranesi: 5/5. Strange.")
            before = self.cands[self._chosen[-1] - 1]
            sep = "\n" if c.item and (before.item or before.continues) else " "
        self._chosen.append(label)
        lead = not (c.lead and c.lead in written)  # the sentence it refers to: once
        if c.follow and c.follow in written:
            # its lead-in after the command: once each
            return sep + quote_line(replace(c, follow=""), lead=lead)
        return sep + quote_line(c, lead=lead)
