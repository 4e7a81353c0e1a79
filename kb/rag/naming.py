"""A passage's own labels that name what the question asks about.

A section heading (:func:`names_section`: "What are the Q3 risks?" over the sentences
under "Q3 planning > Risks"), a list's lead-in (:func:`named_lists`: "Follow-ups:"), a
record's key (:func:`named_records`: "Risk: ..."), and a record whose value is a name of
the kind the question asks (:func:`named_kind`: "Removals: Swift Movers" for the removals
*company*). The evidence check's ``section-named`` floor (:mod:`kb.rag.rules`) reads the
heading; quote mode's ``section``, ``list`` and ``record`` selectors quote what is named
(:mod:`kb.rag.selectors`). A label that negates ("## Not decided") names only for a
negated question, and one that does not only for a question that is not.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from collections.abc import Set as AbstractSet

from kb.rag.dates import date_words
from kb.rag.lexical import content_stems, found, glued_codes
from kb.rag.passage import PassageSentences, heading_stems_of
from kb.rag.polarity import heading_negates
from kb.rag.stemmer import stem
from kb.rag.terms import Terms, asked_terms
from kb.sentence_spans import BULLET, FIELD_LINE
from kb.types import Hit


def named_kind(
    terms: Terms, lacking: Sequence[str], p: PassageSentences, sentences: range
) -> list[str]:
    """The nouns of ``lacking`` for the kind of thing a name is (:data:`_CLASS_NOUNS`:
    *company*, *bank* …) when one of ``sentences`` is a record whose key names the rest
    of the question and whose value opens with a name: "What's the removals company?"
    over "Removals: Swift Movers, booked for 4 December" (:func:`_names_line`)."""
    kinds = [s for s in lacking if s in _CLASS_NOUNS]
    if not kinds:
        return []
    asked = asked_terms(terms)
    for k in sentences:
        if any(_names_line(terms, asked, line, p) for line in p.sentence(k).splitlines()):
            return kinds
    return []


def names_section(terms: Terms, hit: Hit, heading: AbstractSet[str] | None = None) -> bool:
    """``hit``'s own section heading names what the question asks about: the question
    has content terms (light verbs aside), the last heading of the hit's path holds one
    of them at least, a word (not a number: squad-dev's "Part 3" names nothing for
    "What is 3?"), and the path with the file's name (``heading``:
    :func:`kb.rag.passage.heading_stems_of`, computed when not given) holds them all.
    "What are the Q3 risks?" over the sentences under "Q3 planning > Risks", which
    name no risk and have a cosine of 0.24 to it: the section is the answer, as a
    reader would take it. A document's title alone counts when it is its only heading
    ("What are my plants?" over a note headed "Plants"); squad-dev's sections ("Part
    4") name nothing a question asks. A journal's date heading names its day by the
    month it is in ("What did I do on 16 November?" over "## 2026-11-16":
    :func:`kb.rag.dates.date_words`), and so does a daily note without a heading by
    its file's name (``2026-11-09.md``: :func:`_file_title`). A heading that negates
    (:func:`kb.rag.polarity.heading_negates`: "## Not decided") names its section only
    for a negated question ("What was not decided?"), and one that does not, only for
    a question that is not ("What was decided?" is not answered by "Not decided"). A
    code the question writes as one word names a heading that writes it too ("When was
    v3.1 released?" over "## v3.1 (2 October 2026)"), though its number alone does not."""
    path = hit.locator.heading_path or _file_title(hit)
    asked = asked_terms(terms)
    if not path or not asked:
        return False
    last = content_stems(path[-1], joined=True) | date_words(path[-1])  # "## 2026-11-16"
    named = any(found(s, last) for s in asked if not s[:1].isdigit())
    if not named and not (terms.codes and terms.codes & set(glued_codes(path[-1]))):
        return False  # "Part 3" names no section for "What is 3?"; "## v3.1 (…)" does
    if heading_negates(path[-1]) != terms.negated:
        return False  # "## Not decided" is no answer to "What was decided?", nor the reverse
    held = heading if heading is not None else heading_stems_of(hit)
    return all(found(s, held) for s in asked)


def named_lists(terms: Terms, ps: PassageSentences) -> list[int]:
    """The items of the lists in ``ps`` whose lead-in names what the question asks
    about (:func:`kb.rag.passage.list_leads`), as :func:`names_section` reads a section's
    heading: the lead-in holds one of the question's words at least (not a number),
    and with the chunk's headings and file name it holds them all. "What are the
    follow-ups?" over "Follow-ups:" / "1. Add a check ..." / "2. Alert on ...": the
    list is the answer. A lead-in that negates names its list only for a negated
    question, and one that does not only for a question that is not. Sentence indexes
    in passage order; empty when no lead-in is named."""
    asked = asked_terms(terms)
    out: list[int] = []
    if not asked:
        return out
    for lead, items in ps.lists:
        label = ps.sentence(lead)
        if _label_names(terms, asked, label, heading_negates(label), ps.heading_stems):
            out.extend(items)
    return out


def _label_names(
    terms: Terms,
    asked: frozenset[str],
    label: str,
    negates: bool,
    heading: AbstractSet[str],
) -> bool:
    """A label (a list's lead-in, a record's key) names what the question asks about:
    it holds one of the ``asked`` words at least (not a number), it negates
    (``negates``) exactly when the question does, and with the chunk's ``heading``
    stems it holds every asked word (:func:`named_lists`, :func:`named_records`)."""
    said = content_stems(label, joined=True)
    if not any(found(s, said) for s in asked if not s[:1].isdigit()):
        return False
    if negates != terms.negated:
        return False
    return all(found(s, said | heading) for s in asked)


def _file_title(hit: Hit) -> tuple[str, ...]:
    """A daily note's file name as its title, when the note has no heading: a name
    that holds an ISO date (``2026-11-09.md``), of a Markdown or text note. Other names
    are no title ("risks.md" names no section for "What are the risks?"), nor is a
    recording's or a PDF's."""
    name = hit.locator.path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    if hit.locator.doc_type not in ("md", "txt") or not date_words(name):
        return ()
    return (name,)


def named_records(terms: Terms, ps: PassageSentences) -> list[int]:
    """The ``key: value`` lines of ``ps`` whose key names what the question asks about,
    as :func:`names_section` reads a heading: the key holds one of the question's words
    at least (not a number), with the chunk's headings and file name it holds them all,
    and it is a label: each of its words (numbers aside) is a word of the question or
    of the headings. "What is the risk?" over a standup note's "Risk: the payments team
    has not signed off the webhook changes." (sentence cosine 0.24, chunk 0.09: the
    label is the only word in common, and it is the answer's name, as a heading is);
    "Which hotel?" over "Hotel: Casa do Príncipe". Not named:

    - a key that says more than the question asks ("Password reset needed: ..." for
      "What is the password?", "Still to be decided: ..." for "What was decided?");
    - any key for a *where*, *why* or *how* question (not *how many* or *how much*):
      "Where is the hotel?" is answered by "Address: ...", not by "Hotel: ...";
    - a key that negates ("Not decided: ...", "No decision: ...") unless the question
      does, and one that does not for a negated question.

    A key is at most 30 characters (:data:`kb.sentence_spans.FIELD_LINE`): "Risk",
    "**Owner**", "Next step"; each line of a sentence is read ("Owner: Sofia" may end
    the sentence before it when the splitter joins short lines). Sentence indexes in
    passage order; empty when no key is named."""
    asked = asked_terms(terms)
    out: list[int] = []
    if not asked or _asks_manner(terms.words):
        return out
    for j in range(len(ps.spans)):
        if any(_names_line(terms, asked, line, ps) for line in ps.sentence(j).splitlines()):
            out.append(j)
    return out


#: nouns for the kind of thing a name is: "What's the removals *company*?" over
#: "Removals: Swift Movers", "Which *bank* is the mortgage with?" over "Mortgage:
#: Nationwide, 4.19% fixed": a record whose value opens with a name names it
#: (:func:`_names_line`)
_CLASS_NOUNS_TEXT = (
    "company firm business provider supplier agency bank brand manufacturer shop store"
)
_CLASS_NOUNS = frozenset(stem(w) for w in _CLASS_NOUNS_TEXT.split())
#: a record's value that opens with a name (capitalised, not a number)
_NAME_VALUE = re.compile(r"\s*(?:\*\*|__)?[A-Z][\w&'’.-]*")
#: a key that opens with *no* says what is not so ("No decision: ..."); "No. of guests"
#: is a number
_NO_KEY = re.compile(r"\s*no\b(?!\.)", re.IGNORECASE)


def _names_line(terms: Terms, asked: frozenset[str], line: str, ps: PassageSentences) -> bool:
    """``line`` is a ``key: value`` line whose key names the question (:func:`named_records`)."""
    text = line.strip()
    if bullet := BULLET.match(text):
        text = text[bullet.end() :].lstrip()
    if not FIELD_LINE.match(text):
        return False
    key = text[: text.index(":")]
    negates = heading_negates(key) or _NO_KEY.match(key) is not None
    if _NAME_VALUE.match(text, len(key) + 1) and (asked - _CLASS_NOUNS):
        asked = asked - _CLASS_NOUNS  # "Removals: Swift Movers" names the company
    if not _label_names(terms, asked, key, negates, ps.heading_stems):
        return False
    known = set(terms) | ps.heading_stems
    # a label, not a clause: "Password reset needed:" says more than "What is the password?"
    return all(found(k, known) for k in content_stems(key, joined=True) if not k[:1].isdigit())


def _asks_manner(words: Sequence[str]) -> bool:
    """The question opens with *where*, *why* or *how*, but not *how many* / *how
    much*: a place, a reason or a way, which a record's key does not name."""
    if not words:
        return False
    first = words[0].lower()
    if first == "how":
        return len(words) < 2 or words[1].lower() not in ("many", "much")
    return first in ("where", "why")
