"""Passage sentence spans (stdlib only): one splitter for ingest, search and kb.rag.

Spans ``(start, end)`` index the passage text, white space trimmed, so
``text[start:end]`` is always real source text. A boundary is:

- ``.``, ``!`` or ``?`` (optionally followed by closing quotes or brackets) then white
  space, unless the word before the dot is a known abbreviation (``Mr.``, ``e.g.``,
  ``St.``), a short form of notes before a value (``reg. LK19 XZP``, ``tel. 01632``)
  or a single capital letter (an initial, ``J. Smith``); but an abbreviation that ends
  a name or a list (``Ltd.``, ``etc.``) at the end of a line, before a line that
  starts with a capital, does end the sentence;
- a line break that ends a paragraph (a blank line), ends a Markdown heading line, or
  precedes a heading or list item, so headings and bullet lines never glue onto prose;
- a line break that ends a line of a list written without bullets (a ``todo.txt``, a
  PDF table extracted one cell per line, ``Router: 192.168.1.1`` lines), told from a
  line wrapped inside a paragraph by its width (:func:`line_breaks`);
- a line break before or after a Markdown table row (``| Car | Direct Line | £612 |``):
  each row is a piece of its own, so a quote or an evidence sentence is the row that
  holds the answer, not the whole table (the header row keeps its ``| --- |`` line,
  which has no letters or digits to stand alone).

Pieces shorter than :data:`MIN_SENTENCE_CHARS` visible characters are merged into the
previous sentence (``"(b)"`` is not a sentence), but a list item stands alone
(``"- 1 egg, beaten"``, ``"- milk"``: an ingredient, a thing to buy; ``"2. Run restic."``
on a line of its own: a step), and so does a
label that opens a paragraph of its own and ends with a colon (``"Follow-ups:"`` before
a list: the list's lead-in, not the previous paragraph's tail); a short sentence that
opens a paragraph is never the tail of the one before either: it joins the sentence
after it in its own paragraph ("Called Mum. Her operation is on 9 January."), or
stands alone when nothing of its paragraph follows (a list item always stands alone,
also as the text's first line: "1. Unplug it."); a Markdown
heading line stays a piece of its own, and a short table line joins the table line
before it only (a rule line its header; a short row ``| x | 1 |`` the row above in a
table without a rule line), never a paragraph, so a short header ``| Item | Cost |``
after a paragraph starts its own piece; a row under a header and rule line is a record
and stands alone however short (``| Eggs | 6 |``, read as "Item: Eggs; Qty: 6"). A
numbered line is one item: the dot of its number (``"6."`` at the start of a line) is
not a boundary, and a short numbered title (``"5. Credits."``) joins the sentence after
it on the same line, the text it titles, not the one before (a contract's or a paper's
PDF page: ``"5. Credits.
For each 0.1% below ..."``). Edge cases: empty or blank text gives no spans; text
without any boundary is one span.

What is *embedded* for a sentence (:func:`sentence_inputs`) is its text, except for a
Markdown table row under a header row: a row alone ("| Netflix Standard | €13.99 |
19th | Visa |") says nothing of what its cells are, so it is embedded as read with its
header ("service: Netflix Standard; monthly: €13.99; renews: 19th; card: Visa"), and
"How much is Netflix per month?" meets the row, not a prose sentence that merely names
Netflix. The span stays the row's own text: quotes and evidence are still source text.

It lives in the base layer because three layers cut passages the same way: ingest
stores a vector per sentence (:mod:`kb.store.sentences`), search re-ranks by them
(:mod:`kb.search.rerank`) and the evidence check reuses them (:mod:`kb.rag.verify`);
a stored vector is only reused for identical spans.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from kb.lang import all_languages, language

MIN_SENTENCE_CHARS = 12

_EN = language("en")
#: English's abbreviations and its months' short forms ("Sept.", not "May"), whose dot
#: ends no sentence (:mod:`kb.lang.en`)
ABBREVIATIONS = _EN.abbreviations | (frozenset(_EN.month_abbreviations) - frozenset(_EN.months))
#: every shipped language's abbreviations (:mod:`kb.lang`: "bzw.", "usw.", "Mme",
#: "z.b" for "z. B.", "p.ex" for "p. ex."): all at once, as a German or French
#: abbreviation is no English sentence's last word; short forms keep their own rule
FOREIGN_ABBREVIATIONS = (
    frozenset().union(*(x.abbreviations for x in all_languages() if x.code != "en")) - ABBREVIATIONS
)
_MONTH_WORDS = frozenset(m for x in all_languages() for m in (*x.months, *x.month_abbreviations))
_ORDINAL_NOUNS = frozenset().union(*(x.ordinal_nouns for x in all_languages()))
_ORDINAL_LEADS = frozenset().union(*(x.ordinal_leads for x in all_languages()))
_WORD_AT = re.compile(r"\s*[\"'(“‘\[]*([^\W\d_]+)")
#: short forms of notes that are also words or names ("Reg", "40 pp. It covers ..."):
#: an abbreviation only before what no sentence starts with (:func:`_value_follows`)
SHORT_FORMS = frozenset(["reg", "ref", "tel", "incl", "excl", "nr", "cf", "pp"])
#: abbreviations that end a name or a list rather than stand before one ("HeatRight
#: Ltd.", "pens, paper etc."): at the end of a line, before a line that starts with a
#: capital, their dot ends the sentence too (:func:`_line_end_abbreviation`); a title
#: ("Dr.", "Mr.") at a line's end still runs on to the name on the next line
ENDING_ABBREVIATIONS = frozenset(["etc", "ltd", "inc", "corp", "co", "al", "jr", "sr"])
_NEXT_LINE = re.compile(r"[ \t]*\n[ \t]*[\"'(“‘\[]*[A-Z]")
#: words that open a sentence and are no part of a name: after "Ltd." mid-line they
#: say the sentence ended there (:func:`_line_end_abbreviation`)
_OPENERS_TEXT = (
    "The A An It He She We They I This That These Those There In On At Our My His Her"
    " Its Their Your"
)
_OPENERS = frozenset(_OPENERS_TEXT.split())
_NEXT_TOKEN = re.compile(r"\s+[\"'(“‘\[]*([^\s\"')”’\]]+)")

_END = re.compile(r"[.!?][\"'”’)\]]*(?=\s)")
#: what starts a piece of structure, not prose: a heading, a list item, a quote, a row
_STRUCTURE = r"#{1,6}\s|[-*+]\s|\d+[.)]\s|>|\|"
_BLOCK = re.compile(rf"\n[ \t]*\n|\n(?=[ \t]*(?:{_STRUCTURE}))|(?<=\|)[ \t]*\n")
#: a paragraph break: a line with nothing but white space
BLANK_LINE = re.compile(r"\n[ \t]*\n")
#: the same at a piece's start, a "•" bullet too (:data:`BULLET`)
_STRUCTURE_START = re.compile(rf"{_STRUCTURE}|•\s")
_HEADING_LINE = re.compile(r"(?m)^[ \t]*#{1,6}\s[^\n]*$")
#: a line's item number: "6. Governing law." (its dot is not a sentence end)
ITEM_NUMBER = re.compile(r"(?m)^[ \t]*\d{1,3}[.)](?=[ \t])")
_SPACE = re.compile(r"\s*")
#: a bulleted list item's marker
BULLET = re.compile(r"[-*+•][ \t]")
#: a Markdown task box at the start of a line or a sentence, after a list marker or
#: none (a quote drops the marker): ``- [ ] call the bank``, ``[x] booked the train``;
#: ``tick`` is `` `` for an open task. Not a box inside a line ("see [x] in the diagram")
TASK_BOX = re.compile(r"^[ \t]*(?:(?:[-*+•]|\d+[.)])[ \t]+)?\[(?P<tick>[ xX])\](?=[ \t])", re.M)


#: the words a yes/no question starts with ("Didn't the committee approve it?"), with
#: a straight apostrophe
_AUXILIARIES_TEXT = """
    is are was were am do does did can could will would shall should has have had may
    might must isn't aren't wasn't weren't don't doesn't didn't can't couldn't won't
    wouldn't shouldn't hasn't haven't hadn't"""
AUXILIARIES = frozenset(_AUXILIARIES_TEXT.split())
_WH_WORDS = "who whom whose what when where which why how"
#: what a question starts with, after a list marker, bold marks and a "Q:" label: a
#: wh-word or an auxiliary verb ("Does she need ...?", "**Q: How do I ...?**")
_QUESTION_START = re.compile(
    r"^(?:[-*+•>][ \t]+|\d{1,3}[.)][ \t]+)*(?:\*\*|__|[*_])?(?:Q[ \t]*[:.][ \t]*)?"
    r"(?:\*\*|__|[*_])?(?:"
    + "|".join(w.replace("'", "['’]") for w in sorted({*_WH_WORDS.split(), *AUXILIARIES}))
    + r")\b",
    re.IGNORECASE,
)


def is_question(sentence: str) -> bool:
    """``sentence`` asks a question: it ends with ``?`` (closing bold marks aside) and
    starts with a wh-word or an auxiliary verb. "Venue: Town Hall, 7pm?" (a value to
    confirm), "Dentist: 14 March (tbc?)" and 'Tom asked "Can I pay later?"' state
    something; "- Does she need a login?" and "**Q: How do I reset it?**" ask."""
    text = sentence.strip()
    return text.rstrip("*_ \t").endswith("?") and _QUESTION_START.match(text) is not None


def starts_item(text: str) -> bool:
    """``text`` starts with a list item's marker: a bullet or an item number."""
    return bool(BULLET.match(text) or ITEM_NUMBER.match(text))


def is_abbreviation(text: str, dot: int) -> bool:
    """True when the ``.`` at ``dot`` ends an abbreviation or an initial."""
    if text[dot] != ".":
        return False
    start, word = _word_before(text, dot)
    if not word:
        return False
    if word in ABBREVIATIONS:
        return True
    if _split_abbreviation(text, start, dot, word):
        return True
    if word in SHORT_FORMS:
        return _value_follows(text, dot + 1)
    return len(word) == 1 and text[start].isupper()


def _split_abbreviation(text: str, start: int, dot: int, word: str) -> bool:
    """The ``.`` at ``dot`` ends a foreign abbreviation (:data:`FOREIGN_ABBREVIATIONS`):
    ``word`` itself ("bzw", "mme"), or written with a space after an inner dot, as
    its second part ("z. B." -> "z.b", "p. ex." -> "p.ex") or its first ("z." before
    "B.")."""
    if word in FOREIGN_ABBREVIATIONS:
        return True
    if start >= 2 and text[start - 1] == " " and text[start - 2] == ".":
        head = _word_before(text, start - 2)[1]
        if head and f"{head}.{word}" in FOREIGN_ABBREVIATIONS:
            return True
    m = re.match(r" ([^\W\d_]+)\.", text[dot + 1 : dot + 12])
    return m is not None and f"{word}.{m.group(1).lower()}" in FOREIGN_ABBREVIATIONS


def is_ordinal_dot(text: str, dot: int) -> bool:
    """The ``.`` at ``dot`` ends an ordinal or a day, not a sentence: a number of one to
    three digits ("3.", "18.") before a month name of any shipped language ("3.
    September 2026", "1. Januar"), before an ordinal's noun ("18. Jahrhunderts", "2.
    Weltkrieg", :mod:`kb.lang`), or after a word that leads an ordinal ("am 3.", "des
    18."). "in 2019. The" and "I counted 3. Then" stay sentence ends."""
    start = dot
    while start > 0 and text[start - 1].isdigit():
        start -= 1
    if not 1 <= dot - start <= 3 or (start > 0 and text[start - 1] not in " \t\n("):
        return False
    nxt = _WORD_AT.match(text, dot + 1)
    after = nxt.group(1).lower() if nxt is not None else ""
    if after in _MONTH_WORDS or after in _ORDINAL_NOUNS:
        return True
    before = _word_before(text, start - 1)[1] if start >= 2 and text[start - 1] == " " else ""
    return before in _ORDINAL_LEADS


def _line_end_abbreviation(text: str, dot: int, end: int) -> bool:
    """The ``.`` at ``dot`` (closing quotes or brackets after it up to ``end``) ends one
    of :data:`ENDING_ABBREVIATIONS` at the end of a line, and the next line starts with
    a capital: "... installed by HeatRight Ltd." / "Annual service is due every
    September." are two sentences of a note written one per line, as are "(by HeatRight
    Ltd.)" / "Annual ...". Mid-line it ends the sentence before a word that starts
    sentences, not names (:data:`_OPENERS`: "… by HeatRight Ltd. The warranty runs …";
    not "Acme Ltd. Spain"); before a small letter it is not an end."""
    if _word_before(text, dot)[1] not in ENDING_ABBREVIATIONS:
        return False
    if _NEXT_LINE.match(text, end) is not None:
        return True
    m = _NEXT_TOKEN.match(text, end)
    return m is not None and m.group(1) in _OPENERS


def _word_before(text: str, dot: int) -> tuple[int, str]:
    """Where the word that the ``.`` at ``dot`` ends starts, and the word (letters and
    inner dots: "e.g"), in small letters."""
    start = dot
    while start > 0 and (text[start - 1].isalpha() or text[start - 1] == "."):
        start -= 1
    return start, text[start:dot].lower()


def _value_follows(text: str, pos: int) -> bool:
    """The token after ``pos`` is a value or a word in small letters, which no sentence
    starts with: a number ("tel. 01632 960 431"), a code ("reg. LK19 XZP", "ref.
    KC-88213"), capitals ("incl. VAT"), "incl. delivery"; not a capitalised word
    ("I called Reg. He was out.")."""
    m = _NEXT_TOKEN.match(text, pos)
    if m is None:
        return False
    tok = m.group(1)
    return tok[0].isdigit() or tok[0].islower() or tok.isupper() or any(c.isdigit() for c in tok)


#: words that tie a line to the next: a line ending with one, or a line starting with
#: one, continues a sentence ("... between the landlord and the" / "tenant, Ms ...")
_JOIN_TEXT = """
    a an the and or but nor of to in on at by for from with into onto as than that which
    who whose whom where when while if because so is are was were be been has have had do
    does did will would can could shall should may might must not its their his her our
    your my this these those per via after before until since without about over through
    during under between against among upon within across behind beyond toward towards
    along around despite unless whether although though whereas then also it they he she
    we i you them him us"""
_JOIN_WORDS = frozenset(_JOIN_TEXT.split())
_LINE_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)?")
#: a "key: value" line (``NAS: 192.168.1.20``, ``Adviser: Frau Keller``), its key
#: perhaps in bold or italics (``**Duration:** 47 minutes``, ``**Owner**: Sofia``)
FIELD_LINE = re.compile(r"^(?:\*\*|__|[*_])?[^\W_][^:\n]{0,29}:(?:\*\*|__|[*_])?\s+\S")
#: a sentence end inside a line (``statistics. The hourly``): the line is prose
_INNER_END = re.compile(r"[.!?][\"'”’)\]]*\s+[\"'“‘(\[]*[A-Z0-9]")
_FENCE_LINE = re.compile(r"^\s*(?:```|~~~)")
#: a line ends short when it and the next line's first word fill at most this share of
#: the block's longest line: a line wrapper would have put that word on it
SHORT_LINE = 0.8
#: the fewest lines a block of capitalised lines needs to be a list of records
MIN_RECORDS = 3


def line_breaks(text: str) -> list[int]:
    """Offsets of the line breaks in ``text`` that end a line of a list, not a line
    wrapped inside a paragraph. Per block of lines (between blank lines; a block with a
    code fence is left alone), with ``W`` the length of its longest line of two words or
    more (a long URL alone on its line does not set it), the break after line ``i`` is
    one when

    - line ``i`` ends short: ``len(line_i) + 1 + len(first word of line_i+1) <= 0.8 W``
      (a wrapper breaks a line only when the next word does not fit), or
    - the block is a list (at least two lines end short, and at least half of them do)
      and line ``i`` holds no sentence end inside it and comes before the last line or
      a line that ends short (the list's longest line cannot end short), or
    - every line of the block is a ``key: value`` line, or the block is a list of
      records (:func:`_records`: three lines or more, each starting with a capital or a
      digit, no sentence end inside a line, not wrapped greedily: a log of dates and
      parts in a ``.txt``);

    and the break does not sit inside a phrase: the line does not end with ``, ; ( / &``
    or a dash, and neither the line's last word nor the next line's first is a function
    word (:data:`_JOIN_WORDS`). Wrapped prose (greedy wrapping fills every line but the
    last) gives none; lines of equal length (a poem) give none either."""
    lines: list[tuple[int, str]] = []
    pos = 0
    for raw in text.split("\n"):
        lines.append((pos, raw.strip()))
        pos += len(raw) + 1
    out: list[int] = []
    block: list[tuple[int, str]] = []
    for off, line in [*lines, (pos, "")]:
        if line:
            block.append((off, line))
            continue
        if len(block) >= 2 and not any(_FENCE_LINE.match(x) for _, x in block):
            out.extend(_list_breaks(text, block))
        block = []
    return out


def _records(block: list[tuple[int, str]], filled: list[int], width: int) -> bool:
    """Whether ``block`` is a list of records: at least :data:`MIN_RECORDS` lines, each
    after the first starting with a capital or a digit, none holding a sentence end
    inside it (``Installed 14 March 2023, warranty until March 2026`` /
    ``Last service 2 October 2025``), and one line at least that the next line's first
    word would have fitted on within ``width`` (the block's longest line; ``filled``:
    each line's length with that word on it). Wrapped prose
    continues a sentence on its next line (a small letter, but also a name or, in
    German, any noun: "... aus der" / "Nachbarschaft geprüft"), ends one inside a long
    line, or is wrapped greedily, where no line could have taken the next word."""
    if len(block) < MIN_RECORDS:
        return False
    if any(_INNER_END.search(x) for _, x in block):
        return False
    if not all(x[0].isupper() or x[0].isdigit() for _, x in block[1:]):
        return False
    return any(n <= width for n in filled)


def _list_breaks(text: str, block: list[tuple[int, str]]) -> list[int]:
    """:func:`line_breaks` for one block of stripped lines ``(offset, line)``."""
    # the width lines are wrapped at: a one-word line (a long URL that no wrapper can
    # break) does not set it, unless every line is one word (a table's cells)
    wide = [len(x) for _, x in block if " " in x] or [len(x) for _, x in block]
    width = max(wide)
    words = [_LINE_WORD.findall(x) for _, x in block]
    # each line's length with the next line's first word on it
    filled = [len(block[i][1]) + 1 + len(block[i + 1][1].split()[0]) for i in range(len(block) - 1)]
    short = [n <= SHORT_LINE * width for n in filled]
    is_list = sum(short) >= 2 and 2 * sum(short) >= len(short)
    fields = all(FIELD_LINE.match(x) for _, x in block) or _records(block, filled, width)
    out: list[int] = []
    for i in range(len(block) - 1):
        off, line = block[i]
        listed = is_list and not _INNER_END.search(line) and (i + 2 == len(block) or short[i + 1])
        if not (fields or short[i] or listed):
            continue
        before, after = words[i], words[i + 1]
        if not before or not after or line[-1] in ",;(/&-–—":
            continue
        if before[-1].lower() in _JOIN_WORDS or after[0].lower() in _JOIN_WORDS:
            continue
        out.append(text.index("\n", off))
    return out


def _raw_boundaries(text: str) -> list[int]:
    cuts: set[int] = set(line_breaks(text)) if "\n" in text else set()
    numbers = {m.end() - 1 for m in ITEM_NUMBER.finditer(text)}
    for m in _END.finditer(text):
        dot = m.start()
        if (
            dot not in numbers
            and not is_ordinal_dot(text, dot)
            and (not is_abbreviation(text, dot) or _line_end_abbreviation(text, dot, m.end()))
        ):
            cuts.add(m.end())
    for m in _BLOCK.finditer(text):
        cuts.add(m.start())
    for m in _HEADING_LINE.finditer(text):
        cuts.add(m.end())
    return sorted(cuts)


def _runs_on(text: str, end: int) -> bool:
    """The paragraph goes on after ``end`` with prose: no blank line, heading, list
    item, quote or table row follows."""
    gap = _SPACE.match(text, end)
    after = gap.end() if gap is not None else end
    if after >= len(text) or BLANK_LINE.search(text, end, after + 1):
        return False
    return _STRUCTURE_START.match(text, after) is None


def split_sentences(text: str) -> list[tuple[int, int]]:
    """Sentence spans of ``text`` (see the module docstring)."""
    spans: list[tuple[int, int]] = []
    prev = 0
    carry: int | None = None  # start of a short numbered title waiting for its text
    rows = False  # the pieces before were a table's header and rule line (and rows)
    cuts = [*_raw_boundaries(text), len(text)]
    for i, cut in enumerate(cuts):
        piece = text[prev:cut]
        s = prev + (len(piece) - len(piece.lstrip()))
        e = prev + len(piece.rstrip())
        prev = cut
        if e <= s:
            continue
        if carry is not None:
            s, carry = carry, None
        short = sum(c.isalnum() for c in text[s:e]) < MIN_SENTENCE_CHARS
        if short and i + 1 < len(cuts) and ITEM_NUMBER.match(text, s):
            gap = _SPACE.match(text, e)  # the white space up to the next piece
            if gap is None or "\n" not in gap.group():
                carry = s  # its text follows on the same line
                continue
        before = text[spans[-1][0]] if spans else ""
        if BULLET.match(text, s) or ITEM_NUMBER.match(text, s):
            short = False  # a list item stands alone however short: "- 1 egg, beaten"
        elif (
            short
            and spans
            and _STRUCTURE_START.match(text, s) is None
            and BLANK_LINE.search(text, spans[-1][1], s)
        ):
            # a paragraph's short first sentence is no tail of the paragraph before:
            # a lead-in label ("Follow-ups:") stands alone, "Called Mum." joins the
            # sentence after it in its own paragraph ("Her operation is booked ...")
            if text[e - 1] != ":" and i + 1 < len(cuts) and _runs_on(text, e):
                carry = s
                continue
            short = False
        is_row = text[s] == "|"
        rule = is_row and TABLE_RULE.match(text, s) is not None
        rows = rows and is_row and not BLANK_LINE.search(text, spans[-1][1], s)
        if rows and not rule:
            short = False  # a row under a header is a record however short: "| Eggs | 6 |"
        rows = rows or rule
        if spans and short and "#" not in (text[s], before) and is_row == (before == "|"):
            spans[-1] = (spans[-1][0], e)  # a table line joins table lines only
            continue
        spans.append((s, e))
    first = spans[0] if spans else (0, 0)
    if (
        len(spans) >= 2
        and text[first[0]] not in "#|"
        and not starts_item(text[first[0] : first[1]])  # "- milk", "1. Unplug it."
        and text[spans[1][0]] != "|"
        and (sum(c.isalnum() for c in text[first[0] : first[1]]) < MIN_SENTENCE_CHARS)
        and not _lead_in(text, first[1], spans[1][0])
    ):
        spans[0:2] = [(first[0], spans[1][1])]
    return spans


def _lead_in(text: str, end: int, nxt: int) -> bool:
    """The short first sentence ending at ``end`` is a lead-in label ("Follow-ups:")
    whose list starts at ``nxt``: it stands alone, as it does after a paragraph."""
    return text[end - 1] == ":" and bool(ITEM_NUMBER.match(text, nxt) or BULLET.match(text, nxt))


#: a Markdown table's rule line (``| --- | :-: |``, ``|:--|--:|``: only bars, dashes,
#: colons and spaces, a dash in every cell), which ends its header row
TABLE_RULE = re.compile(r"(?m)^[ \t]*\|?(?:[ \t]*:?-+:?[ \t]*\|)+(?:[ \t]*:?-+:?)?[ \t]*$")
_CELL_BAR = re.compile(r"(?<!\\)\|")


def table_cells(line: str) -> list[str]:
    """The cells of one Markdown table row line: split at the bars (``\\|`` is an
    escaped bar inside a cell), the outer bars dropped, each cell stripped."""
    body = line.strip()
    body = body[1:] if body.startswith("|") else body
    body = body[:-1] if body.endswith("|") and not body.endswith("\\|") else body
    return [c.strip().replace("\\|", "|") for c in _CELL_BAR.split(body)]


def read_row(header: Sequence[str], row: str) -> str:
    """``row`` read with its table's ``header`` cells: ``"head: cell; head: cell"``.
    Empty cells are left out; a cell under an empty header, or past the header's last
    cell, is kept as it is. A row with no cell text gives ``row`` unchanged."""
    parts: list[str] = []
    for i, cell in enumerate(table_cells(row)):
        if not cell:
            continue
        head = header[i] if i < len(header) else ""
        parts.append(f"{head}: {cell}" if head else cell)
    return "; ".join(parts) if parts else row


def table_rows(
    text: str, spans: Sequence[tuple[int, int]]
) -> list[list[tuple[str, list[str] | None]]]:
    """For each span, its lines, each with the header cells it is read with when it is
    a table row (else ``None``). A header is the line above a rule line, in the same
    span or the one before (a short header is a span of its own); its rows are the ``|``
    lines after the rule, in this span or the next ones; a line that does not start
    with ``|``, or a blank line between spans, ends the table. Header and rule lines,
    and rows of a table without a rule line, get ``None``."""
    out: list[list[tuple[str, list[str] | None]]] = []
    header: list[str] | None = None
    prev: str | None = None  # the line before, while it may head a table
    prev_end = 0
    for a, b in spans:
        if BLANK_LINE.search(text, prev_end, a):
            header, prev = None, None
        prev_end = b
        lines = text[a:b].split("\n")
        read: list[tuple[str, list[str] | None]] = []
        for i, line in enumerate(lines):
            is_row = line.lstrip().startswith("|")
            next_rule = i + 1 < len(lines) and TABLE_RULE.match(lines[i + 1]) is not None
            if TABLE_RULE.match(line):
                header = table_cells(prev) if prev is not None else header
                read.append((line, None))
            elif is_row and header is not None and not next_rule:
                read.append((line, header))
            else:
                if not is_row:
                    header = None
                read.append((line, None))
            prev = line if is_row else None
        out.append(read)
    return out


def sentence_inputs(text: str, spans: Sequence[tuple[int, int]]) -> list[str]:
    """The text to embed for each span of ``text`` (module docstring): the span's text,
    with each Markdown table row line under a header read with it (:func:`read_row`;
    which lines are rows under which header: :func:`table_rows`)."""
    out: list[str] = []
    for (a, b), lines in zip(spans, table_rows(text, spans), strict=True):
        if all(h is None for _, h in lines):
            out.append(text[a:b])
        else:
            out.append("\n".join(line if h is None else read_row(h, line) for line, h in lines))
    return out


def row_columns(text: str, spans: Sequence[tuple[int, int]], j: int) -> list[str] | None:
    """The header cells of the table whose row span ``j`` is (one ``|`` line read with a
    header: :func:`table_rows`), or ``None`` when span ``j`` is not such a row. Shown
    beside a quoted row, which alone does not say what its cells are."""
    return rows_columns(text, spans[: j + 1])[j]


def rows_columns(text: str, spans: Sequence[tuple[int, int]]) -> list[list[str] | None]:
    """:func:`row_columns` of every span, read in one pass."""
    return [lines[0][1] if len(lines) == 1 else None for lines in table_rows(text, spans)]
