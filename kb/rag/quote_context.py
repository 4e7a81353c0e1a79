"""What quote mode quotes with a candidate sentence, so that the quote says it whole.

Each is a sentence of the same passage, quoted verbatim with its citation: the fenced
one-line command a lead-in announces, quoted after it (:func:`command_after`), the
sentence that answers a question the note asks (:func:`answer_after`: "Does she need a
production login? Security said not before the probation review."), the sentence a
sentence that starts by pointing back refers to, quoted before it (:func:`lead_before`:
"He had been replaced by Abercrombie ..."), the start of the list item a later sentence
goes on (:func:`item_head`) and the dated heading of a journal's entry for a *when*
question (:func:`dated_heading`). None of them makes a quote longer than
:data:`MAX_QUOTE_CHARS`.
"""

from __future__ import annotations

import re

from kb.rag.answer_type import has_name
from kb.rag.dates import DAY_DATE
from kb.rag.passage import PassageSentences
from kb.sentence_spans import BLANK_LINE, is_question, starts_item

MAX_QUOTE_CHARS = 600
#: a Markdown bullet or block-quote marker at the start of a sentence
MARKER = re.compile(r"^(?:[-*+•>]\s+)+")


#: a fenced code block of one line: ```` ```bash\nrestic restore latest\n``` ````
_ONE_LINE_FENCE = re.compile(r"^(`{3,}|~{3,})[^\n`]*\n(?P<body>[^\n]+)\n\1[ \t]*$")


def command_after(p: PassageSentences, j: int, text: str) -> str:
    """The fenced one-line command that follows sentence ``j`` of ``p`` (``text``,
    folded) when that sentence is a lead-in (it ends with ``:``), as the passage has it
    (folded, so it stays on the answer's line: "```bash restic -r b2:bk restore latest
    ```"); "" otherwise. A how-to note puts the answer in the block, and the lead-in
    alone ("To restore a single file:") answers nothing. The block is its own sentence
    of the passage, so quoting it after the lead-in keeps every answer sentence a
    verbatim copy that the verifier finds. A longer block is not taken."""
    if not text.endswith(":") or j + 1 >= len(p.spans):
        return ""
    block = p.sentence(j + 1).strip()
    m = _ONE_LINE_FENCE.match(block)
    if m is None or not m.group("body").strip():
        return ""
    folded = " ".join(block.split())
    return folded if len(folded) <= MAX_QUOTE_CHARS else ""


def answer_after(p: PassageSentences, j: int, text: str) -> str:
    """The sentence that answers sentence ``j`` of ``p`` (``text``, folded) when that
    sentence is a question the note asks and answers itself, folded; "" otherwise. The
    answer is the next sentence on the same line ("- Does she need a production login?
    Security said not before the probation review.") or the next line when it is
    labelled as one ("Q: How do I reset the router?" / "A: Hold the button for 10 s.").
    A question alone answers nothing (:func:`kb.sentence_spans.is_question`); the
    next line of a list of questions, or a paragraph after a blank line, is no answer,
    nor a question, a heading or a table row."""
    if not is_question(text) or j + 1 >= len(p.spans):
        return ""
    gap = p.hit.text[p.spans[j][1] : p.spans[j + 1][0]]
    nxt = p.sentence(j + 1).strip()
    if "\n" in gap and not (gap.count("\n") == 1 and _ANSWER_LABEL.match(nxt)):
        return ""
    if not nxt or nxt.startswith(("#", "|")) or is_question(nxt) or starts_item(nxt):
        return ""
    folded = MARKER.sub("", " ".join(nxt.split()))
    return folded if len(text) + len(folded) <= MAX_QUOTE_CHARS else ""


#: a sentence that starts by referring back to the one before it (:func:`lead_before`)
_REFERS_BACK = re.compile(r"(?:It|Its|They|Their|He|His|She|Her|This|These|Those)\b")


#: how many sentences a lead goes back at most (:func:`lead_before`)
LEAD_HOPS = 3


def lead_before(p: PassageSentences, j: int, text: str) -> str:
    """The sentence before sentence ``j`` of ``p`` (folded) when ``text`` starts by
    referring back to it (*He, She, It, They, His, Her, Its, Their, This, These,
    Those*) in the same paragraph; "" otherwise. "He had been replaced by Abercrombie
    as commander in chief." says nothing of who without "Loudoun ... was ...": a quote
    that starts with a pronoun is quoted with the sentence it points to, both
    verbatim, each with its citation. When that sentence refers back too ("Spoke to
    Priya Nair. She said the deadline is 31 January. Her fee is £350."), and names
    nobody past its first word (:func:`kb.rag.answer_type.has_name`; "He embarked on a
    plan … developed by Loudoun. He had been replaced …": the second *He* is Loudoun),
    the lead is the sentence the chain starts from, :data:`LEAD_HOPS` sentences back at
    most ("Spoke to Priya Nair. [#1] Her fee is £350. [#1]": who *she* is, not what else
    she said); a chain that reaches no such sentence is no lead. Not across a blank line, nor from
    or to a list item, a table row, a heading or a question, nor when the lead and the
    sentence are longer than :data:`MAX_QUOTE_CHARS` together."""
    if j == 0 or _REFERS_BACK.match(text) is None:
        return ""
    for k in range(j - 1, max(-1, j - 1 - LEAD_HOPS), -1):
        here = p.sentence(k + 1).strip()
        before = p.sentence(k).strip()
        if BLANK_LINE.search(p.hit.text, p.spans[k][1], p.spans[k + 1][0]) is not None:
            return ""
        for piece in (here, before):
            if not piece or piece.startswith(("#", "|")) or starts_item(piece):
                return ""
        folded = " ".join(before.split())
        if is_question(folded):
            return ""
        if _REFERS_BACK.match(folded) is None or has_name(folded):
            return folded if len(folded) + len(text) + 1 <= MAX_QUOTE_CHARS else ""
    return ""


#: the document types whose lines are the writer's (:func:`item_head`)
_NOTE_TYPES = frozenset(["md", "txt"])


def item_head(p: PassageSentences, j: int) -> int | None:
    """The sentence that starts the list item sentence ``j`` of ``p`` goes on, on the
    same line ("- Tomorrow, and Tomorrow, and Tomorrow: 4/5. Lent to Sam in
    September." for its second sentence), :data:`LEAD_HOPS` sentences back at most;
    ``None`` for an item's first sentence or a sentence outside a list. Quote mode
    quotes the head before such a sentence, and counts the question's words the head
    says as the sentence's own: "Which book did I read on the flight to Lisbon?" over
    "- Project Hail Mary by Andy Weir: 4/5. Read it on the flight to Lisbon." quotes
    both, as the second names no book. A note's only (Markdown or text): a PDF's lines
    are the layout's, and its numbered clauses ("4. Termination. Either party may …")
    are no list."""
    if p.hit.locator.doc_type not in _NOTE_TYPES or starts_item(p.sentence(j).lstrip()):
        return None
    for k in range(j - 1, max(-1, j - 1 - LEAD_HOPS), -1):
        if "\n" in p.hit.text[p.spans[k][1] : p.spans[k + 1][0]]:
            return None
        if starts_item(p.sentence(k).lstrip()):
            return k
    return None


_DAY_DATE = re.compile(DAY_DATE, re.IGNORECASE)
#: a part of the day or a clock time, which say when on a day but not which day
#: ("Evening: fixed the tap", "Dentist at 14:30"): the dated heading still says the day
#: (:func:`dated_heading`)
PART_OF_DAY = re.compile(
    r"\b(?:morning|afternoon|evening|night|tonight|today|lunchtime|midday)\b"
    r"|\b\d{1,2}[:.]\d{2}(?:\s?[ap]\.?m\.?)?(?!\d)|\b\d{1,2}\s?[ap]\.?m\b\.?",
    re.IGNORECASE,
)


def dated_heading(p: PassageSentences) -> str:
    """The passage's own section heading (folded) when it holds a day's date ("Thursday
    20 November", "2026-11-20", "v3.1 (2 October 2026)"); "" otherwise. A *when*
    question over a journal is answered by an entry that says no time: "When did I fix
    the kitchen tap?" over "# Thursday 20 November" / "Evening: fixed the dripping
    kitchen tap." quoted only the entry, and the day stood only in Sources. Quote mode
    quotes the heading before such a sentence (one that says no time, or only a part
    of the day or a clock time: :data:`PART_OF_DAY`), both verbatim, each with its citation; the
    verifier reads a heading quoted whole as supported by its passage
    (:meth:`kb.rag.verify.Verifier.best`). Not before a sentence that says a time of its
    own ("Bought the car in 2019", written on 20 November: the heading's day is when
    the entry was written). A year or a month alone ("1973 oil crisis", "Lisbon, March
    2027") is no day; a daily note's file name is no heading."""
    path = p.hit.locator.heading_path
    if not path or _DAY_DATE.search(path[-1]) is None:
        return ""
    return " ".join(path[-1].split())


#: a line that labels itself an answer: "A: ...", "**A:** ...", "Answer: ..."
_ANSWER_LABEL = re.compile(r"^(?:\*\*|__|[*_])?(?:A|Answer)[ \t]*[:.]", re.IGNORECASE)
