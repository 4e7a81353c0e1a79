"""The ``every-term`` floor: one sentence holds every content word of the question.

:func:`holds_every_term` lifts ``p(answerable)`` to
:data:`kb.rag.answerability.EVERY_TERM_FLOOR`: a short question over a long sentence
that says several things has a low cosine however plainly the sentence answers it. The
sentence must write one of the words out, and a question of one term needs more: a
record that names it (:func:`written_alone`: "| Dr Hannah Reid | GP | ... |" for "Who is
the GP?"), the question's light verb said by its doer (:func:`verb_said`, :func:`does`:
"physio said ..."), a clause that says what it is (:func:`says_what_it_is`: "the host is
Giulia"), or a reference for who wrote it ("Ursula K. Le Guin, 1974.").
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence

from kb.rag.answer_type import holds
from kb.rag.authors import AUTHOR_STEMS, cited
from kb.rag.coverage import Eligible, Matches
from kb.rag.lexical import content_stems, found
from kb.rag.passage import OPEN_TASK_STEMS, TASK_STEMS, PassageSentences
from kb.rag.stemmer import stem
from kb.rag.term_match import found_terms
from kb.rag.terms import Terms, asked_terms, is_light
from kb.sentence_spans import BULLET, FIELD_LINE, TABLE_RULE, TASK_BOX


def holds_every_term(
    terms: Terms,
    passages: Sequence[PassageSentences],
    matches: Matches,
    eligible: Eligible | None = None,
) -> bool:
    """True when one passage sentence (its words, what its quantities and values say,
    and its chunk's headings and file name: :func:`kb.rag.term_match.found_terms`, as
    ``matches`` holds them, :func:`kb.rag.coverage.sentence_matches`) holds every question
    term but the light verbs, and the sentence itself holds one of them at least, written
    out: "What is the car's registration?" over "The Skoda Octavia (reg. LK19 XZP) ..."
    under the heading "Car". A question of one term needs it written out in a record's cell
    or key (:func:`written_alone`: "Who is the GP?" over the table row "| Dr Hannah Reid |
    GP | 0161 496 0321 |"); a heading that holds it ("Who is our accountant?" over a table
    under "Suppliers and accountant") says too little, as do headings alone (they hold the
    same words for every sentence of the chunk), words held only by an acronym's initials
    (:mod:`kb.rag.acronyms`: "Bob paid" is no *BP* for sure) and what a sentence's values
    say alone ("When did the dispute end?" over "The school bus runs until June" holds *end*
    only by its date). With ``eligible``, only the sentences it marks
    (:data:`kb.rag.coverage.Eligible`)."""
    asked = asked_terms(terms)
    if not asked:
        return False
    for i, (p, held) in enumerate(zip(passages, matches, strict=True)):
        for j, got in enumerate(held):
            if eligible is not None and not eligible[i][j]:
                continue
            if (
                asked <= got
                and (
                    len(asked) >= 2
                    or written_alone(asked, p, j)
                    or verb_said(terms, p, j)
                    or says_what_it_is(terms, asked, p.sentence(j))
                )
                and (any(found(s, p.stems[j]) for s in asked) or _reference(asked, p, j))
                and asked <= set(found_terms(terms, p, j, acronyms=False))
            ):
                return True
    return False


#: "the host is Giulia", "our guide was called Marco": a possessive or *the*, the
#: subject in one or two words, a form of *be* (and *called*/*named*), and what it is
_WHAT_IT_IS = re.compile(
    r"\b(?:the|my|our|your|his|her|their)\s+(?P<subject>(?:[\w'’-]+\s+)?[\w'’-]+)\s+"
    r"(?:is|was|are|were)\s+(?:(?:called|named)\s+)?(?!not\b|no\b|never\b)"
    r"(?P<what>[^\s,;.]+(?:\s+[^\s,;.]+){0,5})",
    re.IGNORECASE,
)


#: an appositive names what a role is, as a clause with *is* does: "their fitter, Dave
#: Morris, did the Patels' kitchen", "The GP, Dr Farah, said …" (role first, the name
#: closed by a comma, a bracket or the sentence's end) and "Priya Nair, our accountant,
#: said …" (name first, its possessive or *the* before the role). The name is one to four
#: capitalised words, a title (Dr, Mrs …) allowed before them.
_NAME = r"(?:(?:Dr|Mr|Mrs|Ms|Miss|Prof|Sir|Dame)\.?\s+)?[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*){0,3}"
#: capitalised words that open a sentence's phrase of time or place, not a name ("In
#: March, the fitter, …")
_OPENER = (
    r"(?:In|On|At|By|For|From|After|Before|During|Since|Until|When|While|Then|Last|Next"
    r"|This|That|The|A|An)\b"
)
_ROLE = r"(?P<subject>(?:[\w'’-]+\s+)?[\w'’-]+)"
_OWNER = r"(?i:the|my|our|your|his|her|their)"
_CLOSE = r"\s*(?:[,(]|[.;]?$)"  # the appositive's comma, a bracket or the sentence's end
_APPOSITIVES = (
    re.compile(rf"\b{_OWNER}\s+{_ROLE},\s+(?P<what>{_NAME}){_CLOSE}"),
    re.compile(rf"(?<![\w'’-])(?!{_OPENER})(?P<what>{_NAME}),\s+{_OWNER}\s+{_ROLE}{_CLOSE}"),
)


def says_what_it_is(terms: Terms, asked: frozenset[str], sentence: str) -> bool:
    """``sentence`` says what the question's one term is, in a clause whose subject
    is that term ("Who is the host?" over "…; check-in is from 15:00 and the host is
    Giulia.", a long sentence whose cosine to the short question is 0.33; "What is the
    guide called?" over "the guide is called Marco"; "Who is the GP?" over "The GP, Dr
    Farah, said …": an appositive, :data:`_APPOSITIVES`), as a ``key: value`` line would
    (:func:`written_alone`), and what follows can be what is asked
    (:func:`kb.rag.answer_type.holds`: "When is the exam?" is not answered by "the exam
    is hard"). Only for a question that asks what something is ("What did the physio
    say?" is not answered by "I said the physio was too expensive"), and not a negated
    clause ("the host is not …")."""
    if not terms.asks_is:
        return False
    question = " ".join(terms.words)
    for m in _WHAT_IT_IS.finditer(sentence):
        if content_stems(m.group("subject")) == set(asked) and holds(
            terms.kind, m.group(), question
        ):
            return True
    return any(
        content_stems(m.group("subject")) == asked and holds(terms.kind, m.group("what"), question)
        for pattern in _APPOSITIVES
        for m in pattern.finditer(sentence)
    )


def _reference(asked: frozenset[str], p: PassageSentences, j: int) -> bool:
    """Sentence ``j`` of ``p`` is a reference (:func:`kb.rag.authors.cited`: "Ursula K.
    Le Guin, 1974.") and the question asks who wrote it: the line says it whole, as a
    sentence writes a word out, while the work's title is its heading."""
    return not asked.isdisjoint(AUTHOR_STEMS) and cited(p.sentence(j))


def verb_said(terms: Terms, p: PassageSentences, j: int) -> bool:
    """Sentence ``j`` of ``p`` writes out a light verb the question asks with
    (:data:`kb.rag.terms.LIGHT_VERBS`): with the question's one other term it says what was done
    ("What did the physio say?" over "21 Nov: physio said the knee pain is patellar
    tendinopathy", whose cosine is 0.29: a short question, a sentence saying more),
    as a second term would, when that word stands at most :data:`_VERB_REACH` words
    before the verb, as the one who does it ("I said the physio was too expensive"
    says nothing the physio said; nor does a passive verb: "the physio was said to be
    good" says what was said of the physio, not what the physio said). Not the
    headings: they hold the same words for every sentence of the chunk."""
    verbs = [s for s in terms if is_light(terms, s) and found(s, p.stems[j])]
    return bool(verbs) and does(asked_terms(terms), verbs, p, j)


def does(doers: Collection[str], verbs: Collection[str], p: PassageSentences, j: int) -> bool:
    """Sentence ``j`` of ``p`` writes one of ``verbs`` (stems) with one of ``doers``
    (stems) at most :data:`_VERB_REACH` words before it, and not after a form of *be*
    (a passive verb says what was done to it): "Dr Lindqvist suggested reading Gelman"
    for the doer *lindqvist* and the verb *suggest*; or with *he*, *she* or *they* right
    before it and the doer anywhere before that ("Physio with Anna: she said to keep
    stretching")."""
    raw = p.words(j)
    words = [stem(w) for w in raw]
    for i, w in enumerate(words):
        if i and raw[i - 1].lower() in _PASSIVE:
            continue  # "the physio was said to be good": said of it, not by it
        if any(found(v, {w}) for v in verbs):
            before = set(words[max(0, i - _VERB_REACH) : i])
            if any(found(s, before) for s in doers):
                return True
            # "Physio with Anna: she said …": a pronoun right before the verb stands for
            # the doer the sentence named before it
            if i and raw[i - 1].lower() in _SUBJECT_PRONOUNS:
                named = set(words[: i - 1])
                if any(found(s, named) for s in doers):
                    return True
    return False


#: the pronouns that can stand, as a verb's subject, for a doer named before them
_SUBJECT_PRONOUNS = frozenset({"he", "she", "they"})


#: forms of *be* before a verb that make it passive ("were found", "was said")
_PASSIVE = frozenset({"be", "is", "are", "was", "were", "been", "being"})
#: how many words before its verb the question's word may stand ("physio said", "the
#: physio has said"), so that it is the one that did it
_VERB_REACH = 3


def written_alone(asked: frozenset[str] | set[str], p: PassageSentences, j: int) -> bool:
    """Sentence ``j`` of ``p`` is a record that the one term ``asked`` holds names: a
    table row with a cell of that word alone ("| Dr Hannah Reid | GP | 0161 ... |" for
    "Who is the GP?", not its header row), or a ``key: value`` line with that key
    ("Plumber: Tom Baxter", "- **Plumber**: Tom Baxter", "**Plumber:** Tom Baxter"),
    or a task item whose box says it (:data:`kb.rag.passage.TASK_STEMS`: "What is on
    my to-do list?" over "- [ ] renew the passport").
    A sentence that mentions the word in passing ("... starts Postgres 16 and Redis 7"
    for "What is Redis?") is not about it."""
    text = p.sentence(j).strip()
    if TASK_BOX.search(text) and asked <= TASK_STEMS | OPEN_TASK_STEMS:
        return asked <= p.stems[j]  # an open box says *open*, a ticked one does not
    if bullet := BULLET.match(text):  # a list item: "- Plumber: Tom Baxter"
        text = text[bullet.end() :].lstrip()
    if text.startswith("|"):
        if TABLE_RULE.search(text):
            return False  # the header row: its cells name columns, not a record
        fields = text.strip("|").split("|")
    elif FIELD_LINE.match(text):
        fields = [text[: text.index(":")]]
    else:
        return False
    return any(content_stems(f, joined=True) == set(asked) for f in fields)
