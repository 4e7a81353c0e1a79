"""A context passage cut into sentences, with the signals the verifier and quote mode read.

:class:`PassageSentences` holds, for each sentence of a retrieved passage
(:func:`kb.rag.sentences.split_sentences`), its content stems, the stems of its window
(the sentence before and after it) and its key tokens, and (on first use) its vector,
tokens, acronyms and unit words. A sentence that depends on what stands around it
borrows those words into its own stems, so "Vet: Parkside" answers "What is the vet
called?":

- a Markdown table row gets its header cells (:func:`_add_table_headers`);
- a list item gets its item's lead words and the lead-in that introduces the list
  (:func:`list_leads`: "Follow-ups:" / "- call Sam");
- a task item gets *task*/*todo*, and *open* when unticked (:data:`OPEN_TASK_STEMS`);
- a ``Key: value`` line gets its key (:func:`_add_record_keys`);
- a sentence that starts by referring back ("He", "This", "There") gets the names of the
  sentence it refers to (:func:`_add_antecedents`).

The passage's heading path and file name name what its sentences are about
(:func:`heading_stems_of`). Edge cases: a passage without a sentence boundary is one
sentence; an empty passage has one empty span.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from kb.rag.acronyms import has_acronym, written_acronyms
from kb.rag.lexical import (
    content_stems,
    date_words,
    is_stopword,
    key_tokens,
    stem,
    token_matches,
    tokens,
    unit_words,
)
from kb.rag.sentences import split_sentences
from kb.sentence_spans import (
    BLANK_LINE,
    FIELD_LINE,
    TASK_BOX,
    sentence_inputs,
    starts_item,
    table_cells,
    table_rows,
)
from kb.types import Hit

EmbedFn = Callable[[Sequence[str]], np.ndarray]


@dataclass
class PassageSentences:
    """A context passage cut into sentences, with the signals the verifier needs."""

    n: int
    hit: Hit
    spans: list[tuple[int, int]]
    stems: list[set[str]]
    window_stems: list[set[str]]
    window_keys: list[set[str]]
    vectors: np.ndarray | None = None
    #: content stems of the chunk's heading path (its title and sections) and of its
    #: file's name (``meeting-2024-03-12.md`` -> meeting, 2024, 03, 12): both name
    #: what the chunk's sentences are about
    heading_stems: set[str] = field(default_factory=set)
    #: the lists a lead-in introduces, ``(lead, items)`` sentence indexes
    #: (:func:`list_leads`)
    lists: list[tuple[int, tuple[int, ...]]] = field(default_factory=list)
    #: :func:`kb.rag.lexical.unit_words` of each sentence, made on first use (:meth:`units`)
    _units: list[set[str]] | None = field(default=None, repr=False, compare=False)
    #: each sentence's tokens, made on first use (:meth:`words`)
    _words: dict[int, list[str]] = field(default_factory=dict, repr=False, compare=False)
    #: whether each sentence writes something shaped like an acronym (:meth:`acronymic`)
    _acronymic: list[bool] | None = field(default=None, repr=False, compare=False)
    #: each sentence's acronyms as written, made on first use (:meth:`acronyms`)
    _acronyms: dict[int, list[str]] = field(default_factory=dict, repr=False, compare=False)

    def words(self, j: int) -> list[str]:
        """Sentence ``j``'s tokens (:func:`kb.rag.lexical.tokens`), computed once (the
        acronym check reads them for every question)."""
        if j not in self._words:
            self._words[j] = tokens(self.sentence(j))
        return self._words[j]

    def acronymic(self, j: int) -> bool:
        """Sentence ``j`` writes something shaped like an acronym
        (:func:`kb.rag.acronyms.has_acronym`), computed once for all sentences."""
        if self._acronymic is None:
            self._acronymic = [has_acronym(self.sentence(k)) for k in range(len(self.spans))]
        return self._acronymic[j]

    def acronyms(self, j: int) -> list[str]:
        """Sentence ``j``'s acronyms as it writes them
        (:func:`kb.rag.acronyms.written_acronyms`: "TP1331" is a code), computed once."""
        if j not in self._acronyms:
            self._acronyms[j] = written_acronyms(self.sentence(j))
        return self._acronyms[j]

    def units(self, j: int) -> set[str]:
        """What sentence ``j``'s quantities and values say ("30 °C": temperature),
        computed once for all sentences of the passage."""
        if self._units is None:
            self._units = [unit_words(self.sentence(k)) for k in range(len(self.spans))]
        return self._units[j]

    @classmethod
    def of(cls, n: int, hit: Hit) -> PassageSentences:
        spans = split_sentences(hit.text) or [(0, len(hit.text))]
        stems = [content_stems(hit.text[s:e], joined=True) for s, e in spans]
        _add_table_headers(hit.text, spans, stems)
        _add_item_leads(hit.text, spans, stems)
        lists = list_leads(hit.text, spans)
        _add_list_leads(stems, lists)
        _add_record_keys(hit.text, spans, stems)
        _add_antecedents(hit.text, spans, stems)
        _add_task_boxes(hit.text, spans, stems)
        keys = [key_tokens(hit.text[s:e], names=False) for s, e in spans]
        window = [set().union(*stems[max(0, j - 1) : j + 2]) for j in range(len(stems))]
        wkeys = [window[j].union(*keys[max(0, j - 1) : j + 2]) for j in range(len(stems))]
        return cls(
            n, hit, spans, stems, window, wkeys, heading_stems=heading_stems_of(hit), lists=lists
        )

    def sentence(self, j: int) -> str:
        s, e = self.spans[j]
        return self.hit.text[s:e]

    def inputs(self) -> list[str]:
        """What is embedded for each sentence (:func:`kb.sentence_spans.sentence_inputs`:
        a table row is read with its header), in span order."""
        return sentence_inputs(self.hit.text, self.spans)


def heading_stems_of(hit: Hit) -> set[str]:
    """The content stems of ``hit``'s heading path and of its file's name
    (``meeting-2024-03-12.md`` -> meeting, 2024, 3, 12, and the month of the date,
    march: :func:`kb.rag.lexical.date_words`): what its sentences are about;
    and the words that name its kind of source (:data:`SOURCE_WORDS`: a recording's
    sentences are what "What does the *recording* say about the scanners?" asks for)."""
    name = hit.locator.path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    headings = " ".join(hit.locator.heading_path)
    stems = content_stems(headings + " " + _words(name), joined=True)
    stems |= date_words(headings + " " + name)  # "## 2026-11-02", "2026-11-02.md"
    return stems | SOURCE_WORDS.get(hit.locator.doc_type, frozenset())


def section_heading(hit: Hit) -> str:
    """The section heading ``hit``'s text stands under: the last of its heading path
    when the path has a section under a title; "" for a title alone or no heading (a
    title speaks for the whole note, not for the sentences of one section)."""
    path = hit.locator.heading_path
    return path[-1] if len(path) >= 2 else ""


#: per document type, the stems of the words a question names such a source by
SOURCE_WORDS: dict[str, frozenset[str]] = {
    kind: frozenset(stem(w) for w in words.split())
    for kind, words in (
        ("md", "note notes"),
        ("txt", "note notes"),
        ("pdf", "pdf paper document"),
        ("audio", "recording audio voice memo transcript"),
    )
}


def _add_table_headers(text: str, spans: Sequence[tuple[int, int]], stems: list[set[str]]) -> None:
    """Give each Markdown table row (a sentence of its own, :func:`split_sentences`) the
    content stems of its table's header row, as a chunk's headings are counted for its
    sentences: "| Travel | Staysure |" says *provider* under "| Policy | Provider |".
    A row says the header of the cells it fills only: "| Middlemarch | George Eliot |
    reading | |" says no *rating* ("What rating did I give Middlemarch?" is not
    answered by it). Which lines are rows under which header:
    :func:`kb.sentence_spans.table_rows`, the reading the row's vector is made from
    (:func:`kb.sentence_spans.read_row`, which leaves empty cells out too)."""
    for j, lines in enumerate(table_rows(text, spans)):
        heads = [
            head
            for line, header in lines
            if header
            for head, cell in zip(header, table_cells(line), strict=False)
            if cell
        ]
        if heads:
            stems[j] |= content_stems(" ".join(heads), joined=True)


def _add_item_leads(text: str, spans: Sequence[tuple[int, int]], stems: list[set[str]]) -> None:
    """Give each later sentence of a list item the content stems of the item's first
    sentence, its lead, as a table row gets its header's (:func:`_add_table_headers`):
    in "- Tomasz: 2 September. Wants a new bike helmet (size L)." the second sentence
    is about Tomasz, and "What should I get Tomasz?" is answered by it. An item is a
    sentence that starts with a bullet or an item number, and the sentences after it
    on its line or on indented continuation lines, up to the next item (a PDF's
    paragraph after a bullet starts at the margin: it is not part of the item)."""
    lead: set[str] | None = None
    prev_end = 0
    for j, (a, b) in enumerate(spans):
        gap, piece = text[prev_end:a], text[a:b]
        prev_end = b
        if starts_item(piece):
            lead = set(stems[j])
        elif lead is None or piece.startswith(("#", "|", ">")) or not _continues(gap):
            lead = None
        else:
            stems[j] |= lead


def list_leads(text: str, spans: Sequence[tuple[int, int]]) -> list[tuple[int, tuple[int, ...]]]:
    """The lists of ``text`` that a lead-in introduces: ``(lead, items)`` sentence
    indexes, the lead a sentence ending with a colon right before the first item
    ("Follow-ups:" / "1. Add a check ...", "We agreed on three changes:" / "- ..."),
    the items the sentences after it that start with a list marker
    (:func:`kb.sentence_spans.starts_item`) or continue an item on its line or indented
    below it. A lead-in not followed by an item leads no list."""
    out: list[tuple[int, tuple[int, ...]]] = []
    lead: int | None = None
    items: list[int] = []
    prev_end = 0
    for j, (a, b) in enumerate(spans):
        gap, piece = text[prev_end:a], text[a:b]
        prev_end = b
        if lead is not None and (starts_item(piece) or (items and _continues(gap))):
            items.append(j)
            continue
        if lead is not None and items:
            out.append((lead, tuple(items)))
        items = []
        lead = j if piece.endswith(":") and not starts_item(piece) else None
    if lead is not None and items:
        out.append((lead, tuple(items)))
    return out


def _add_list_leads(stems: list[set[str]], lists: Sequence[tuple[int, tuple[int, ...]]]) -> None:
    """Give each item of a list (:func:`list_leads`) the content stems of its lead-in,
    as a section's sentences get its heading's: "What follow-ups came out of the
    incident?" is answered by the items, which do not say *follow-up*."""
    for lead, items in lists:
        for j in items:
            stems[j] |= stems[lead]


#: what any task box says, and what an open one says besides
#: what a task box says (:func:`_add_task_boxes`), and an open one besides
TASK_STEMS = frozenset(stem(w) for w in ("task", "todo", "item", "done", "finish", "complete"))


OPEN_TASK_STEMS = frozenset(stem(w) for w in ("open", "pending", "outstanding", "remain", "left"))


def _add_task_boxes(text: str, spans: Sequence[tuple[int, int]], stems: list[set[str]]) -> None:
    """Give the sentences of a task-list item (``- [ ] call the bank``, ``- [x] booked
    the train``; :data:`kb.sentence_spans.TASK_BOX` on any line the sentence is on) the
    words its box says: *task, done, finish, complete* (an open box: also *open,
    pending, outstanding*). "Which tasks are done?" and "What is still
    open on my to-do list?" are answered by the items, which say neither word. Whether
    the task is done is for :mod:`kb.rag.polarity`: an open box is a negation there."""
    boxes = [(m.start(), m.group("tick")) for m in TASK_BOX.finditer(text)]
    if not boxes:
        return
    for j, (a, b) in enumerate(spans):
        line_start = text.rfind("\n", 0, a) + 1  # a box on any line the sentence is on
        ticks = {t for at, t in boxes if line_start <= at < b}
        if ticks:
            stems[j] |= TASK_STEMS | (OPEN_TASK_STEMS if " " in ticks else frozenset())


def _add_record_keys(text: str, spans: Sequence[tuple[int, int]], stems: list[set[str]]) -> None:
    """Give each line that follows a ``key: value`` line in a block of one-line
    sentences (:func:`kb.sentence_spans.line_breaks`: a log, a list of records) the
    content stems of that key, as a list item's later sentences get its lead's
    (:func:`_add_item_leads`): in "Deck oven: Rational iCombi Pro" / "Installed 2023,
    warranty until March 2026" the second line is about the deck oven, and "When does
    the oven warranty end?" is answered by it. The key rules the lines up to the next
    ``key:`` line, a blank line or a line that is not a sentence of its own; the later
    sentences of the key's own line are about it too ("Dentist: Dr Ahmed, every six
    months. Next check-up due March 2027." answers "When is the next dentist
    check-up?")."""
    key: set[str] | None = None
    on_key_line = False  # the sentence before was the key's line or on it
    prev_end = 0
    for j, (a, b) in enumerate(spans):
        gap, piece = text[prev_end:a], text[a:b]
        prev_end = b
        line = "\n" not in piece and (a == 0 or text[:a].rstrip(" \t").endswith("\n"))
        if line and FIELD_LINE.match(piece):
            key, on_key_line = content_stems(piece[: piece.index(":")], joined=True), True
        elif key is not None and on_key_line and gap and "\n" not in gap:
            stems[j] |= key  # a later sentence of the key's own line
        elif key is not None and line and gap.count("\n") == 1 and _ends_line(text, b):
            stems[j] |= key  # a line of its own under the key's
            on_key_line = False
        else:
            key, on_key_line = None, False


def _ends_line(text: str, end: int) -> bool:
    """Nothing but white space follows ``end`` on its line."""
    nl = text.find("\n", end)
    return not text[end : len(text) if nl < 0 else nl].strip()


#: words that join two clauses: the pronoun after one is the subject of the second clause,
#: whose referent the first clause names ("BuildRight was cheapest but they could not
#: guarantee the worktop delivery": *they* is BuildRight, not the sentence before)
_JOINS = "and|but|or|so|yet|because|although|though|while|whereas|as|since|if|when"


#: a sentence that starts by referring back to what the sentence before is about
_BACK_REFERENCE = re.compile(
    r"(?:It|Its|They|Their|He|His|She|Her)\b"
    rf"|(?!(?:I|We|You)\b)[A-Z][\w-]*(?:[ \t]+(?!(?:I|we|you|{_JOINS})\b)[\w-]+){{0,3}},?[ \t]+"
    r"(?:it|they|he|she)\b"
)


#: a back reference to a person (*he*, *she*, *his*, *her*), who is often not the
#: sentence's first words: "Lunch with Tomás at the Lebanese place. He is moving to
#: Porto in March."
_PERSON = re.compile(r"\b(?:[Hh]e|[Hh]is|[Ss]he|[Hh]er)$|^(?:He|His|She|Her)\b")


def names_in(sentence: str) -> set[str]:
    """The stems of the names of people ``sentence`` may write
    (:func:`kb.rag.lexical.key_tokens`: capitalised words that do not start it),
    numbers aside, and not a place's name: a capitalised word of :data:`PLACE_WORDS`
    or right before one ("Carver Street", "St Mary's Hospital")."""
    places = {stem(m.group(1)) for m in _PLACE_NAME.finditer(sentence)} | PLACE_WORDS
    keys = key_tokens(sentence)
    return {k for k in keys if not k[:1].isdigit() and " " not in k and k not in places}


_PLACE_TEXT = (
    "street road avenue lane square park place way drive close bridge station river "
    "lake mountain hill hospital school church hotel"
)


#: the nouns that make the capitalised word before them a place's name
PLACE_WORDS = frozenset(stem(w) for w in _PLACE_TEXT.split())


_PLACE_NAME = re.compile(
    r"\b([A-Z][\w'-]*)[ \t]+(?=(?:"
    + "|".join(w.capitalize() for w in _PLACE_TEXT.split())
    + r")\b)"
)


#: the most content words of a sentence's lead (:func:`lead_words`)
LEAD_WORDS = 4


def lead_words(sentence: str) -> list[str]:
    """The words a sentence starts with, what it is usually about: leading stop words
    and numbers skipped, then content words up to the next stop word or token written
    with digits, at most :data:`LEAD_WORDS` ("The fiddle-leaf fig needs water once a
    week": *fiddle*, *leaf*, *fig*, *needs*). A number word is a content word here
    (read later as its value: *three* is 3)."""
    out: list[str] = []
    for m in token_matches(sentence):
        w = m.group()
        if w[0].isdigit() or is_stopword(w):
            if out:
                break
            continue
        out.append(w)
        if len(out) >= LEAD_WORDS:
            break
    return out


def _add_antecedents(text: str, spans: Sequence[tuple[int, int]], stems: list[set[str]]) -> None:
    """Give a sentence that starts by referring back (*It*, *Its*, *They*, *Their*, *He*,
    *His*, *She*, *Her*: "Maria joined in March. She leads the design team."; or whose
    subject is *it*, *they*, *he* or *she* after a leading phrase of at most four words
    that has no subject of its own: "In March it dropped leaves", "Better than anyone
    else she represented ...", not "I moved it to the hall", nor after a word that joins
    two clauses, :data:`_JOINS`: "BuildRight was cheapest but they could not …") the
    content stems of the lead of the sentence before it in the same paragraph
    (:func:`lead_words`): in "The fiddle-leaf fig needs water once a week. It dropped
    three leaves in October." the second sentence is about the fig, and "Why did the
    fig drop leaves?" is answered by it. A run of such sentences all get the lead of
    the one that started it ("... It dropped three leaves. It also yellowed."). A
    reference to a person (*he*, *she*, *his*, *her*) also gets the names the sentence
    before writes, as :func:`names_in` reads them: in "Lunch with Tomás at the Lebanese
    place. He is moving to Porto in March." the second sentence is about Tomás, who is
    not the first sentence's lead. Any
    other pronoun inside a sentence is left alone (read that way too, one more
    squad-dev unanswerable question was answered, and so it was when only *him* and
    *her* inside a sentence took the names before: "traversed and mapped by *him*"
    made "How many times did Maclure cross the Union states?" answerable; the
    leading-phrase form answered one answerable question more and no unanswerable
    one), and a blank line between the
    two, or a list item or table row on either side, breaks the reference. The lead is
    the sentence's first words, not its parsed subject: "Dr Patel prescribed
    amoxicillin. It caused a rash." gives the second sentence *Patel* too."""
    lead: set[str] = set()
    source = ""  # the sentence the lead comes from, whose names a person reference takes
    for j in range(len(spans)):
        a, b = spans[j]
        piece = text[a:b]
        listed = piece.startswith(("|", "#")) or starts_item(piece)
        ref = _BACK_REFERENCE.match(piece)
        follows = (
            j > 0
            and not listed
            and ref is not None
            and BLANK_LINE.search(text, spans[j - 1][1], a) is None
            and bool(lead or names_in(source))  # names read only when a reference needs them
        )
        if follows and ref is not None:
            stems[j] |= lead  # and the lead carries on to the next sentence
            if _PERSON.search(ref.group()):
                stems[j] |= names_in(source)
        else:
            lead = set() if listed else content_stems(" ".join(lead_words(piece)))
            source = "" if listed else piece


def _continues(gap: str) -> bool:
    """The white space between two sentences keeps them in one list item: no line
    break, or one line break followed by indentation."""
    return "\n" not in gap or (gap.count("\n") == 1 and gap.rsplit("\n", 1)[1] != "")


def _words(name: str) -> str:
    """A file name's words: ``weekly_sync-notes`` -> ``weekly sync notes``."""
    return name.replace("_", " ").replace("-", " ")


def embed_passages(passages: Sequence[PassageSentences], embed: EmbedFn) -> None:
    """Set ``vectors`` of every passage that has none, in one ``embed`` batch (of
    :meth:`PassageSentences.inputs`, as ingest stores them)."""
    todo = [p for p in passages if p.vectors is None]
    texts = [t for p in todo for t in p.inputs()]
    if not texts:
        return
    vecs = np.asarray(embed(texts), dtype=np.float32)
    at = 0
    for p in todo:
        p.vectors = vecs[at : at + len(p.spans)]
        at += len(p.spans)
