"""The ``absent-keys`` veto: the question's numbers, codes and names that no passage holds.

"the first *American*" when every passage says "European" (:func:`absent_keys`), and
numbers with a unit that the passages hold only as another kind of quantity ("30 °C"
over "30 minutes": :func:`other_quantities`). With ``[answer] require_key_terms`` a
question with an absent key is not answerable (:func:`kb.rag.answerability.check`).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence

from kb.rag.acronyms import question_acronyms, spelled_in, spelled_out
from kb.rag.lexical import found, glued_codes, key_tokens, written_codes
from kb.rag.passage import PassageSentences
from kb.rag.polarity import yes_no
from kb.rag.stemmer import number_value, stem
from kb.rag.term_match import siblings
from kb.rag.units import quantities


def absent_keys(question: str, passages: Sequence[PassageSentences]) -> list[str]:
    """The question's numbers and names (:func:`kb.rag.lexical.key_tokens`, single
    words only) that appear in no passage: "the first *American*" when every passage
    says "European". Numbers are compared by value ("3" and "03", "3.5" and "3.50"),
    names as stems that
    forgive a typo or a derivation (:func:`kb.rag.lexical.found`: "Goverment",
    "Buddhist" for "Buddhism"). A value's shape counts as its word: "What is the
    printer's *IP*?" over "192.168.178.40" (:func:`kb.rag.units.unit_words`). An
    acronym is there when a passage spells it out ("BP": "blood pressure",
    :mod:`kb.rag.acronyms`), and names that spell an acronym a passage writes ("European
    Union": "EU"). A code of letters and digits (:func:`kb.rag.lexical.glued_codes`:
    *Q2*, *P0101*, *v2*) must be written whole in a passage, its headings or its file's
    path (glued, with subscript digits, "CO₂", or apart, "Q 2":
    :func:`kb.rag.lexical.written_codes`): "Who presented the *Q2* roadmap?" over "the
    *Q1* roadmap" and "two weeks" is not answerable. A yes/no question's day or month
    is there when a passage names another of its kind ("Is PE on *Mondays*?" over "PE
    is on Tuesdays": no, :data:`kb.rag.term_match.SIBLINGS`)."""
    seen: set[str] = set()
    for p in passages:
        seen |= p.heading_stems
        for j, st in enumerate(p.stems):
            seen |= st | p.units(j)
    values = {number_value(s) for s in seen if s[:1].isdigit()}
    keys = [k for k in key_tokens(question) if " " not in k]
    seen |= spelled_out(question, [p.hit.text for p in passages])
    acronyms = question_acronyms(question)
    yes = yes_no(question)
    absent = sorted(
        k
        for k in keys
        if not found(k, seen)
        and not (k[:1].isdigit() and number_value(k) in values)
        and not (k in acronyms and any(spelled_in(acronyms[k], p.hit.text) for p in passages))
        and not (yes and not siblings(stem(k)).isdisjoint(seen))
    )
    codes = glued_codes(question)
    if codes:  # "the Q2 roadmap" where the notes say "Q1": the code, not its digit
        written: set[str] = set()
        for p in passages:
            place = " ".join(
                (*p.hit.locator.heading_path, re.sub(r"[-_/.]", " ", p.hit.locator.path))
            )
            written |= written_codes(f"{p.hit.text} {place}")
        absent += sorted(shown for code, shown in codes.items() if code not in written)
    return absent + other_quantities(question, passages, set(absent))


def other_quantities(
    question: str, passages: Sequence[PassageSentences], absent: Collection[str] = ()
) -> list[str]:
    """The question's numbers with a unit (as it writes them: ``30 °C``) whose value
    the passages hold only as another kind of quantity (:func:`kb.rag.units.
    quantities`): "How long does the dough proof at *30 °C*?" over "chilling *30
    minutes* between folds" and "proof at 26 °C". A value the passages also hold bare
    ("set the oven to 200"), or with a unit of one of its kinds, or not at all (the
    plain key check's case; ``absent`` lists those already named), is not one."""
    asked: dict[str, tuple[set[str], str]] = {}
    for value, kinds, shown in quantities(question):
        if kinds and value not in absent:
            asked.setdefault(value, (set(), shown))[0].update(kinds)
    if not asked:
        return []
    held: dict[str, list[frozenset[str]]] = {}
    for p in passages:
        for value, kinds, _ in quantities(p.hit.text):
            if value in asked:
                held.setdefault(value, []).append(kinds)
    return [
        shown
        for value, (kinds, shown) in asked.items()
        if held.get(value) and all(k and not k & kinds for k in held[value])
    ]
