"""Quote mode's selectors: the candidates a question's shape picks, all of them, in order.

Each selector (a rule of :mod:`kb.rag.rules`, run in the registry's order by
:class:`kb.rag.pipeline.AskPipeline`; the first that gives candidates wins) answers with
every item of what the question names, which the model then quotes whole: the steps of
a procedure a how-to question names (:func:`step_candidates`, ``steps``), the rows of a
table that hold what the question picks (:func:`row_candidates`, ``rows``), the line
that labels the one value asked (:func:`record_candidates`, ``record-one``), the
sentences of a section the question names (:func:`section_candidates`, ``section``),
the items of a list whose lead-in it names (:func:`list_candidates`, ``list``), the
lines a key names (:func:`record_candidates`, ``record``) and the task items a question
about tasks asks for (:func:`task_candidates`, ``tasks``). A prose section gives at most
:data:`SECTION_QUOTES` sentences, a list, a table or a procedure :data:`STEP_QUOTES`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from collections.abc import Set as AbstractSet

from kb.rag.candidates import Candidate, asks_steps, doer_and_verb
from kb.rag.every_term import does
from kb.rag.lexical import content_stems, found, is_stopword
from kb.rag.naming import named_lists, named_records, names_section
from kb.rag.passage import PassageSentences
from kb.rag.terms import asked_terms, question_terms
from kb.rag.units import unit_words
from kb.search.tasks import asks_done, asks_tasks
from kb.sentence_spans import (
    BLANK_LINE,
    ITEM_NUMBER,
    TASK_BOX,
    starts_item,
    table_cells,
    table_rows,
)

#: the most sentences one answer quotes from a section the question names
#: (:func:`section_candidates`) when they are prose; a list's or a table's items are
#: quoted up to :data:`STEP_QUOTES` ("What are the ingredients?" over seven of them)
SECTION_QUOTES = 5


def section_candidates(
    question: str,
    passages: Sequence[PassageSentences],
    cands: Sequence[Candidate],
) -> list[Candidate]:
    """The candidates from the passages whose own section heading names what the
    question asks about (:func:`kb.rag.naming.names_section`), in passage order: "What were
    the decisions?" over a note's "## Decisions" is answered by the section's items, not by
    the one a one-sentence answer would pick. Empty when no passage's section is named, or
    when the question ends with what its doer does and one of the section's sentences says
    the doer did it (:func:`kb.rag.candidates.doer_and_verb`: "What did the vet say?" under
    "## Vet" is answered by "The vet said ...", not by the section)."""
    terms = question_terms(question, None)  # the weights play no part
    named = {p.n for p in passages if names_section(terms, p.hit, p.heading_stems)}
    by_n = {p.n: p for p in passages}
    asked = doer_and_verb(question)
    if asked is not None and any(c.n in named and does(*asked, by_n[c.n], c.j) for c in cands):
        return []  # one sentence says what the doer did
    return sorted((c for c in cands if c.n in named), key=lambda c: (c.n, c.j))


def list_candidates(
    question: str,
    passages: Sequence[PassageSentences],
    cands: Sequence[Candidate],
) -> list[Candidate]:
    """The candidates that are items of a list whose lead-in names what the question
    asks about (:func:`kb.rag.naming.named_lists`: "What are the follow-ups?"
    over "Follow-ups:" and its items), in passage order; empty when none is named."""
    terms = question_terms(question, None)
    named = {(p.n, j) for p in passages for j in named_lists(terms, p)}
    return sorted((c for c in cands if (c.n, c.j) in named), key=lambda c: (c.n, c.j))


#: a form of *be* in the singular, and in the plural
_IS = re.compile(r"\b(?:is|was|(?:what|who|where|when|which|that|it)['’]s)\b", re.IGNORECASE)
_ARE = re.compile(r"\b(?:are|were)\b", re.IGNORECASE)


def asks_one(question: str) -> bool:
    """``question`` asks what one thing is ("What is Miso's vet called?", "Who is the
    GP?"): *is*/*was* and no *are*/*were*, nor a plural asked for (:func:`asks_several`).
    A record that labels it (:func:`record_candidates`) answers it before the section
    the question names does: the section's other lines are the vet's visits."""
    return (
        _IS.search(question) is not None
        and _ARE.search(question) is None
        and not asks_several(question)
    )


def record_candidates(
    question: str,
    passages: Sequence[PassageSentences],
    cands: Sequence[Candidate],
) -> list[Candidate]:
    """The candidates that are ``key: value`` lines whose key names what the question
    asks about (:func:`kb.rag.naming.named_records`: "What is the risk?" over
    "Risk: the payments team has not signed off the webhook changes."), in passage
    order; empty when none is named. A table row that holds the word in a cell ("|
    Hotel | €980 |") is no record of the key "Hotel"."""
    terms = question_terms(question, None)
    named = {(p.n, j) for p in passages for j in named_records(terms, p)}
    return sorted((c for c in cands if (c.n, c.j) in named), key=lambda c: (c.n, c.j))


def task_candidates(question: str, cands: Sequence[Candidate]) -> list[Candidate]:
    """For a question about tasks (:func:`kb.search.tasks.asks_tasks`), the candidates
    that are task items of the kind it asks for, in passage order: the ticked ones
    (``[x]``) when it asks what is done ("Which tasks have I done?"), else the open
    ones ("What is still on my to-do list?", "What is on my to-do list?": a to-do list
    is what is left to do). Empty when the question is about something else or no
    candidate is such an item."""
    if not asks_tasks(question):
        return []
    done = asks_done(question)
    items = [c for c in cands if (m := TASK_BOX.match(c.text)) and (m["tick"] != " ") == done]
    return sorted(items, key=lambda c: (c.n, c.j))


#: the most steps one answer quotes from a numbered procedure (:func:`step_candidates`),
#: or items from a list or table (:data:`SECTION_QUOTES`)
STEP_QUOTES = 10


def step_run(p: PassageSentences, j: int) -> list[int]:
    """The sentences of the numbered list one of whose items holds sentence ``j`` of
    ``p``, in order: each item starts with an item number (``"1."``, ``"2)"``), and an
    item's later sentences on its line or on lines indented below it belong to it. A
    blank line, a bulleted item or an unindented line that starts no item ends the
    list. Empty when sentence ``j`` is in no such list, or the list has one item."""
    text = p.hit.text

    def numbered(k: int) -> bool:
        return ITEM_NUMBER.match(p.sentence(k)) is not None

    def joins(k: int) -> bool:  # sentence k goes on after sentence k - 1
        gap = text[p.spans[k - 1][1] : p.spans[k][0]]
        if BLANK_LINE.search(gap):
            return False
        if numbered(k):
            return True
        if starts_item(p.sentence(k)):
            return False
        return "\n" not in gap or gap.rsplit("\n", 1)[-1] != ""  # same line or indented

    runs: list[list[int]] = []
    for k in range(len(p.spans)):
        if runs and runs[-1][-1] == k - 1 and joins(k):
            runs[-1].append(k)
        elif numbered(k):
            runs.append([k])
    for run in runs:
        if j in run:
            return run if sum(1 for k in run if numbered(k)) >= 2 else []
    return []


def step_candidates(
    question: str,
    passages: Sequence[PassageSentences],
    cands: Sequence[Candidate],
) -> list[Candidate]:
    """For a question that asks how to do something (:func:`kb.rag.candidates.asks_steps`)
    whose best candidate is a step of a numbered list ("1. Fry the cumin seeds ..."), every
    sentence of that list (:func:`step_run`) in order, when the question names the procedure
    (:func:`names_procedure`), not one step: a procedure's answer is its steps, and the
    bundled model quoted the first alone. ``cands`` must hold every sentence of the passage
    that may be a step (ranked with a limit past the passage's length); a step that is no
    candidate (too long to quote) is left out. Empty when the question asks something else
    or the best candidate is no step."""
    if not cands or not asks_steps(question):
        return []
    best = cands[0]
    p = next((ps for ps in passages if ps.n == best.n), None)
    run = step_run(p, best.j) if p is not None else []
    if p is None or not run or not names_procedure(question, p, run):
        return []
    steps = set(run)
    return sorted((c for c in cands if c.n == best.n and c.j in steps), key=lambda c: c.j)


def names_procedure(question: str, p: PassageSentences, run: Sequence[int]) -> bool:
    """``question`` asks for the procedure as a whole, not for one of its steps: each of
    its terms (light verbs aside) is in the passage's heading path or file name, or in
    the lead-in of the list ("To restore:"): "How do I restore the Nextcloud backup?"
    under "# Restoring the Nextcloud backup", "How do I make the dal?" under "# Red
    lentil dal"; not "How do I fix the ownership after a restore?" (one step says it)."""
    asked = asked_terms(question_terms(question, None))
    named = set(p.heading_stems)
    for lead, items in p.lists:
        if run[0] in items:
            named |= set(content_stems(p.sentence(lead)))
    return bool(asked) and all(found(s, named) for s in asked)


_OPENER = re.compile(r"^\W*(?:which|what)\s+(\S+)(?:\s+(\S+))?", re.IGNORECASE)


def _plural(word: str) -> bool:
    """``word`` reads as a plural noun: 4 letters or more, ends with *s* but not *ss*,
    *us* or *is* ("class", "bus", "analysis"), and no stop word ("does", "was")."""
    w = word.strip("?,.!").lower()
    return (
        len(w) >= 4
        and w.isalpha()
        and w.endswith("s")
        and not w.endswith(("ss", "us", "is"))
        and not is_stopword(w)
    )


def asks_several(question: str) -> bool:
    """``question`` asks for several things of a kind: *which* or *what* before a plural
    noun, or before a word and a plural noun ("Which subscriptions are on the Amex?",
    "What new jobs came in?"); not "What is the bus number?", "Which class is it?"."""
    return _plural_after(_OPENER.search(question))


def _plural_after(m: re.Match[str] | None) -> bool:
    """The one or two words ``m`` caught after a question's opener name a plural:
    the first word ("subscriptions"), or a word and a plural ("new jobs")."""
    if m is None:
        return False
    first, second = m.group(1), m.group(2) or ""
    return _plural(first) or (not is_stopword(first.lower()) and _plural(second))


#: "how many" and the one or two words after it
_HOW_MANY = re.compile(r"^\W*how\s+many\s+(\S+)(?:\s+(\S+))?", re.IGNORECASE)


def counts_items(question: str) -> bool:
    """``question`` asks how many things of a kind there are ("How many books did I
    read in 2026?", "How many action items came out of it?"): over a list, a table or
    a section that the question names, the answer is every item, which the reader
    counts; one item quoted alone ("Dune by Frank Herbert: 4/5.") reads as a number
    it is not. Not "How many miles …" over one sentence: only when such items are
    named (:func:`kb.rag.pipeline.AskPipeline`)."""
    return _plural_after(_HOW_MANY.search(question))


def matching_rows(question: str, p: PassageSentences) -> list[int]:
    """The rows of a Markdown table in ``p`` that hold, in their cells, every word of
    ``question`` that picks rows: a content word (light verbs aside) found in the
    cells of some rows but not all, and not in the header ("Which subscriptions are on
    the Amex?": *amex*, in two rows' Card cells of four), when its other words are in
    the headings, the header or those rows; every row when no word picks
    and the question's words are the table's header and headings ("What items are in
    the Lisbon budget?" over "## Budget" and "| Item | Cost |"). Empty otherwise, or
    when fewer than two rows would be chosen (one row is an ordinary answer)."""
    asked = asked_terms(question_terms(question, None))
    text = p.hit.text
    rows: list[tuple[int, frozenset[str]]] = []
    header: set[str] = set()
    for j, lines in enumerate(table_rows(text, p.spans)):
        cells = [(line, columns) for line, columns in lines if columns is not None]
        if not cells:
            continue  # no row: a header with its rule line, prose
        for _, columns in cells:
            header |= content_stems(" ".join(columns))
        words = " ".join(" ".join(table_cells(line)) for line, _ in cells)
        rows.append((j, frozenset(content_stems(words))))
    if len(rows) < 2:
        return []

    def held(s: str, cells: AbstractSet[str]) -> bool:
        return found(s, cells, synonyms=False)

    picks = [
        s for s in asked if not held(s, header) and 0 < sum(held(s, c) for _, c in rows) < len(rows)
    ]
    named = header | p.heading_stems
    if picks:
        chosen = [j for j, c in rows if all(held(s, c) for s in picks)]
        # the question's other words name the table ("Which *films* are on the Amex?"
        # over subscriptions names none)
        said = named.union(*(c for j, c in rows if j in chosen))
        said |= set().union(*(unit_words(p.sentence(j)) for j in chosen))  # "£10.99": paid
        return chosen if len(chosen) >= 2 and all(found(s, said) for s in asked) else []
    # no word picks: every row, when the question names the table by its header and
    # its headings ("What items are in the Lisbon budget?" over "## Budget" and "| Item
    # | Cost |"), as a named section answers with all its items
    if any(held(s, header) for s in asked) and all(found(s, named) for s in asked):
        return [j for j, _ in rows]
    return []


def asks_rows(question: str) -> bool:
    """``question`` may be answered by several rows of a table: it asks for several
    things (:func:`asks_several`), counts them (:func:`counts_items`), or does not ask
    what one thing is (:func:`asks_one`: "What do I take in the morning?", "Where do we
    go in May?")."""
    return asks_several(question) or counts_items(question) or not asks_one(question)


def row_candidates(
    question: str,
    passages: Sequence[PassageSentences],
    cands: Sequence[Candidate],
) -> list[Candidate]:
    """For a question that does not ask what one thing is (:func:`asks_one`), the table
    rows of the best candidate's passage that hold what it asks for
    (:func:`matching_rows`), in order: "Which subscriptions are on the Amex?" is
    answered by both Amex rows (the bundled model quoted "The Amex card expires in
    04/27."), "How many medicines do I take?" by every row, and "What do I take in the
    morning?" by both morning rows of a medication table (one was quoted). ``cands``
    must hold every sentence of the passages (ranked with a limit past their length).
    Empty when the question asks what one thing is ("Who is the GP?": its row, or a
    record) or no two rows of one table hold it."""
    if not cands or not asks_rows(question):
        return []
    by_n = {p.n: p for p in passages}
    for n in dict.fromkeys(c.n for c in cands):  # passages by their best candidate
        rows = set(matching_rows(question, by_n[n])) if n in by_n else set()
        if rows:
            return sorted((c for c in cands if c.n == n and c.j in rows), key=lambda c: c.j)
    return []


def listed(c: Candidate) -> bool:
    """``c`` is a list item or table row, or a list item's later sentence
    (:func:`kb.rag.quote_context.item_head`): part of a list, whose items an answer may quote up to
    :data:`STEP_QUOTES`."""
    return c.item or c.continues
