"""Which of a question's terms a passage sentence holds: :func:`found_terms`.

A term is held when the sentence, its chunk's headings or its file name writes it, up
to a typo, a derivation or a plain synonym (:func:`kb.rag.lexical.found`), or says it
without the word: by a number's unit or a value's shape (:func:`kb.rag.units.unit_words`:
``30 °C`` says *temperature*), by an acronym or its spelled-out form
(:func:`kb.rag.acronyms.aliases`), by a plain negation for a word of inability
("*incapable*" over "could *not*"), by an opposite that answers the question (a yes/no
question, or a comparison turned round: :func:`opposites_said`; another weekday or
month answers a yes/no question about one, :data:`SIBLINGS`), by the measured extreme a
superlative asks (:func:`measured_extreme`) and by a record naming the kind of name
asked (:func:`kb.rag.naming.named_kind`). A cue of cause ("because") does not say the
cause of what it explains (:func:`_cause_of_the_asked`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from kb.lang import language
from kb.months import MONTH_NAMES
from kb.rag.acronyms import aliases, is_acronym
from kb.rag.lexical import content_stems, found
from kb.rag.naming import named_kind
from kb.rag.passage import PassageSentences
from kb.rag.polarity import ANTONYMS, compares
from kb.rag.stemmer import stem
from kb.rag.superlative import DATE, Extreme, entry_value, is_item, measure
from kb.rag.terms import Terms, asked_terms
from kb.rag.units import CAUSE_STEMS, effect_clause


def found_terms(
    terms: Terms,
    p: PassageSentences,
    j: int,
    *,
    window: bool = False,
    acronyms: bool = True,
    synonyms: bool = True,
) -> list[str]:
    """The stems of ``terms`` found in sentence ``j`` of ``p`` (or its window: the
    sentence and its neighbours), with the chunk's headings and file name, and the
    quantities its numbers with units name ("30 °C" says "temperature"), and the terms
    it says by an acronym or spells one out (:func:`kb.rag.acronyms.aliases`: "BP" over
    "blood pressure"), and a word of inability (:data:`INABILITY`) when it negates a
    verb (:data:`_NOT`). Without ``synonyms``, a term a plain synonym alone says
    (:func:`kb.rag.lexical.found`) is not found."""
    here = (p.window_stems[j] if window else p.stems[j]) | p.heading_stems
    lo, hi = (max(0, j - 1), min(len(p.spans), j + 2)) if window else (j, j + 1)
    asks = acronyms and _asks_acronym(terms)
    for k in range(lo, hi):
        here = here | p.units(k)
        if asks or (acronyms and p.acronymic(k)):
            here = here | aliases(terms, p.words(k), terms.words, p.acronyms(k))
    out = [s for s in terms if found(s, here, synonyms=synonyms)]
    out = _cause_of_the_asked(terms, out, p, range(lo, hi))
    out += opposites_said(terms, [s for s in terms if s not in out], p, range(lo, hi))
    out += measured_extreme(terms, [s for s in terms if s not in out], p, range(lo, hi))
    out += named_kind(terms, [s for s in terms if s not in out], p, range(lo, hi))
    unable = [s for s in terms if s not in out and terms[s][0].lower() in INABILITY]
    if unable and any(_NOT.search(p.sentence(k)) for k in range(lo, hi)):
        out += unable
    return out


#: closed sets of values, any other of which answers a yes/no question about one (no):
#: the weekdays and the months (:mod:`kb.lang.en`)
SIBLINGS = (
    frozenset(map(stem, language("en").weekdays)),
    frozenset(map(stem, MONTH_NAMES)),
)


def siblings(s: str) -> frozenset[str]:
    """The other days of the week, or months, when the stem ``s`` is one (empty
    otherwise): any of them answers a yes/no question about ``s`` (:data:`SIBLINGS`)."""
    return next((kind - {s} for kind in SIBLINGS if s in kind), frozenset())


def opposites_said(
    terms: Terms, lacking: Sequence[str], p: PassageSentences, sentences: range
) -> list[str]:
    """The stems of ``lacking`` whose opposite (:data:`kb.rag.polarity.ANTONYMS`) the
    ``sentences`` of ``p`` say in a way that answers the question: any opposite for a
    yes/no question ("Is the recycling centre *closed* on Tuesday?" over "open every
    day except Tuesday"; "Is Maya *younger* than her class?" over "She is *older*
    than most of her class"), and for another question an opposite that compares two
    things, which answers it turned round ("Which pharmacy is more *expensive*?" over
    "The pharmacy in the high street is *cheaper than* the one in the retail park"),
    unless the question compares too. A yes/no question's day of the week or month
    is answered (no) by another of its kind ("Is PE on *Mondays*?" over "PE is on
    Tuesdays and Thursdays", "Is the MOT due in May?" over "MOT due 11 June 2027",
    :data:`SIBLINGS`)."""
    out: list[str] = []
    for s in lacking:
        opposite = ANTONYMS.get(s)
        if terms.yes_no and not opposite:
            opposite = siblings(s)
        if not opposite:
            continue
        for k in sentences:
            said = sorted(opposite & p.stems[k])
            if said and (terms.yes_no or (not terms.compares and compares(p.sentence(k), said[0]))):
                out.append(s)
                break
    return out


def _cause_of_the_asked(
    terms: Terms, out: list[str], p: PassageSentences, sentences: range
) -> list[str]:
    """``out`` (the terms found in ``sentences`` of ``p``) less *cause*/*reason* when
    only a cue of cause says them (:data:`kb.rag.units.CAUSE_STEMS`: "because") and
    the clause it explains (:func:`kb.rag.units.effect_clause`; not the headings)
    holds less than half of the question's other words: "What caused the certificate
    to expire?" over "Staging was down because the TLS certificate expired" asks the
    cause of the cause."""
    asked = [s for s in out if s in CAUSE_STEMS]
    if not asked:
        return out
    written = p.heading_stems.union(*(p.stems[k] for k in sentences))
    if all(found(s, written) for s in asked):
        return out
    others = [s for s in asked_terms(terms) if s not in CAUSE_STEMS]
    for k in sentences:
        effect = effect_clause(p.sentence(k))
        if effect is None:
            continue
        said = content_stems(effect, joined=True)
        if 2 * sum(found(s, said) for s in others) >= len(others):
            return out
    return [s for s in out if s not in asked or found(s, written)]


def measured_extreme(
    terms: Terms, lacking: Sequence[str], p: PassageSentences, sentences: range
) -> list[str]:
    """The word of ``lacking`` that asks the question's extreme (*cheapest*, *most
    expensive*'s *expensive*: :func:`kb.rag.superlative.asked_extreme`) when one of
    ``sentences`` is a list item or table row that holds a quantity of the kind it
    compares: "Which policy is cheapest?" over "| Home contents | Aviva | £212 a year
    |", whose price says how cheap it is (quote mode picks the row with the extreme
    value); or when ``p`` is a journal's entry (a passage under a dated heading) and
    one of ``sentences`` has a value there (:func:`kb.rag.superlative.entry_value`):
    its heading's day for *last*, "10 km" for *longest* (quote mode compares the
    entries)."""
    extreme = terms.extreme
    wanted = [s for s in lacking if extreme is not None and terms[s][0].lower() == extreme.word]
    if extreme is None or not wanted:
        return []
    path = p.hit.locator.heading_path
    if any(entry_value(p.sentence(k), path, extreme) is not None for k in sentences):
        return wanted  # a journal's entry: "## 2026-11-09" / "Ran 10 km" for "last run"
    for k in sentences:
        text = p.sentence(k)
        # a date compares only among rows, items or a log's dated lines: one dated row
        # is no "last" one (a chunk of a long table may hold only an old row)
        if (
            (is_item(text) or extreme.kinds == DATE)
            and measure(text, extreme) is not None
            and (extreme.kinds != DATE or _dated_records(p) >= 2)
        ):
            return wanted
    return []


def _dated_records(p: PassageSentences) -> int:
    """How many of ``p``'s sentences are table rows, list items or a log's lines with a
    date (:data:`DATE`, :func:`kb.rag.superlative.measure`)."""
    extreme = Extreme(DATE, 1)
    return sum(measure(p.sentence(k), extreme) is not None for k in range(len(p.spans)))


#: question words that a sentence with a plain negation of a verb (:data:`_NOT`) says
#: ("What was the governor *incapable* of doing?" over "The governor could *not*
#: actually hold a set speed"; not *without* or *no*, which negate a noun)
INABILITY = frozenset(["unable", "incapable", "inability", "cannot", "can't", "couldn't"])
_NOT = re.compile(r"\b(?:not|never|cannot)\b|n't\b|n’t\b", re.IGNORECASE)


def _asks_acronym(terms: dict[str, tuple[str, float]]) -> bool:
    """A question term is written as an acronym (:func:`kb.rag.acronyms.is_acronym`)."""
    return any(is_acronym(word) for word, _ in terms.values())
