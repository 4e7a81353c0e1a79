"""Quote mode's candidates: the passage sentences the model may quote, ranked.

Candidates: the sentences of the context passages (:func:`split_sentences`), ranked by
relevance to the question,

    rel(s) = (cos(q, s) + (coverage(q, s) + coverage(q, window(s))) / 2) / 2

with ``cos`` the embedder's cosine (0 without an embedder) and ``coverage`` the
idf-weighted share of the question's words found in the sentence, or in the sentence
and its neighbours, as the evidence check counts them
(:func:`kb.rag.term_match.found_terms`: headings and file name included, typos and
units forgiven), plus :data:`TYPE_BONUS` when the question asks *when*, *how much …
cost*, *how many* or *where* and the sentence can say it (:mod:`kb.rag.answer_type`: it
has a date or time, an amount of money, a number or quantity word, a place after a
locative preposition), or asks how to do something and the sentence is a numbered step
(:func:`asks_steps`), and as much again when
the question is negated and the sentence negates too ("When should I *not* promote the
replica?" over "*Never* promote during a backup window": :mod:`kb.rag.polarity`), or
asks what is *still* to do or *left* and the sentence is an open task ("- [ ] renew
the passport", which negates). When the question ends with what its doer does, the
sentence that writes that verb just after the doer, not as a passive
(:func:`doer_and_verb`, :func:`kb.rag.every_term.does`), gets :data:`TYPE_BONUS` and
at least half of it above the best sentence of its passage: "What did Dr Lindqvist
suggest?" is answered by "Dr Lindqvist suggested reading Gelman and Hill", not by the
attendee line "With Prof. Okafor and Dr Lindqvist.", whose cosine is higher; "What did
the vet say?" by "The vet said her teeth are fine", not by "Greenway Vets, Dr Hannah
Cole.". The list item or table row with the extreme value a superlative question asks
for ("Which laptop is cheapest?": the lowest price, :mod:`kb.rag.superlative`) gets
:data:`EXTREME_BONUS`, and at least half of it above the best sentence of its passage. A
sentence that says the very word a negated question denies, with no negation cue
(:func:`kb.rag.polarity.says_denied`: "The team agreed that ..." for "What did the team
*not agree* on?", "[x] finished the report" for "Which tasks did I *not finish*?"; not
"The snake plant *only* needs water every three weeks" for "Which plant does *not
need* water every week?") is no candidate, unless every sentence is one. The best
``candidates`` sentences (ties: passage order) are offered, each text once (with
the command that follows it, :func:`kb.rag.quote_context.command_after`): a sentence
that two passages hold (two notes that say the same, or the sentence a chunk repeats
from the one before it, :mod:`ingest.chunkers.structure`) is offered from the passage
where it ranks best.
Measured on squad-dev's 234 answerable SQuAD questions (top-5 passages), the first
candidate holds the golden answer for 80% (the plain window share of stems: 74%), and
one of the 8 offered for 97%. The prompt lists exactly
these sentences, so the model reads what the grammar lets it write (a GBNF grammar
restricts tokens but does not guide the model; llama.cpp issue 5599).

A table's header row (with its ``| --- |`` rule line) is no candidate: it names the
columns, and "What am I reading now?" over a reading list quoted it. A candidate is the
sentence with its white space folded and a leading bullet (``-``, ``*``, ``+``, ``•``)
or quote marker (``>``) dropped: "- Guest network: Lighthouse" is quoted as "Guest
network: Lighthouse" (an item's number stays: it names a clause). What is quoted with
a candidate (a lead-in's command, the answer to a question the note asks, the sentence
a pronoun points back to) is :mod:`kb.rag.quote_context`'s; a question the note leaves
open is no candidate, unless every sentence is one or the question asks for what is
open (:func:`asks_questions`: "What are the open questions?"). A sentence longer than
:data:`kb.rag.quote_context.MAX_QUOTE_CHARS` is not offered.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from kb.rag.answer_type import asks_place, expected_type, holds, says_place
from kb.rag.every_term import does
from kb.rag.lexical import content_stems, found, is_stopword, tokens
from kb.rag.naming import named_records
from kb.rag.passage import OPEN_TASK_STEMS, EmbedFn, PassageSentences
from kb.rag.polarity import negates, negation_asked, says_denied
from kb.rag.quote_context import (
    MARKER,
    MAX_QUOTE_CHARS,
    PART_OF_DAY,
    answer_after,
    command_after,
    dated_heading,
    item_head,
    lead_before,
)
from kb.rag.stemmer import stem
from kb.rag.superlative import (
    DATE,
    Extreme,
    date_value,
    entry_value,
    extremes,
    measure,
    says_day,
)
from kb.rag.term_match import found_terms
from kb.rag.terms import DocFreq, Terms, question_terms, weighted_share
from kb.search.links import LINK, TitleIndex
from kb.sentence_spans import ITEM_NUMBER, TABLE_RULE, is_question, rows_columns, starts_item

#: added to the relevance of a sentence that can hold the answer type the question asks
#: for (module docstring). Among squad-dev's 300 answerable questions with an answer
#: check (``bench/quote.py``), 76 ask *when* or *how many*; with 0.1 the first candidate
#: holds the answer for as many on one half of the questions (153) and for 2 more on the
#: other (147); the first two, for 4 more there (0.05: 1 more; 0.2: 3 more on the
#: second half, 1 fewer on the first)
TYPE_BONUS = 0.1
#: added to the relevance of the list item or table row that holds the extreme value a
#: superlative question asks for ("Which laptop is cheapest?": the lowest price,
#: :mod:`kb.rag.superlative`), and it is put at least half as far above the passage's
#: best sentence: the comparison of values decides where words cannot (the item that
#: says *cheaper* matches the question's words best)
EXTREME_BONUS = 0.2


@dataclass(frozen=True)
class Candidate:
    """A passage sentence the model may quote."""

    n: int  # context number (1-based)
    j: int  # sentence index in the passage
    text: str
    relevance: float
    #: the one-line command block that follows a lead-in
    #: (:func:`kb.rag.quote_context.command_after`), or the sentence that answers a question
    #: the note asks (:func:`kb.rag.quote_context.answer_after`), quoted after it; or ""
    follow: str = ""
    #: the sentence a sentence that starts by referring back ("He", "This") refers to,
    #: quoted before it (:func:`kb.rag.quote_context.lead_before`), or the dated heading of
    #: a journal entry a *when* question quotes
    #: (:func:`kb.rag.quote_context.dated_heading`); or ""
    lead: str = ""
    #: the sentence is a list item or a table row: items quoted one after another
    #: stand on lines of their own, as in the note
    item: bool = False
    #: the sentence is a list item's later sentence
    #: (:func:`kb.rag.quote_context.item_head`): it stays on its item's line, and the next
    #: item starts a line of its own
    continues: bool = False
    #: the header cells of the table the sentence is a row of
    #: (:func:`kb.sentence_spans.row_columns`), shown to the model with the row's cells
    #: (:func:`kb.rag.quote.candidates_block`); empty when it is no table row
    columns: tuple[str, ...] = ()


#: a question about what is not done yet ("What is *still* on my to-do list?"): *still*
#: and the words an open task box says but *open* (:data:`kb.rag.passage.OPEN_TASK_STEMS`)
_STILL = (OPEN_TASK_STEMS - {stem("open")}) | {stem("still")}


def rank_candidates(
    question: str,
    passages: Sequence[PassageSentences],
    embed: EmbedFn | None,
    limit: int,
    *,
    doc_freq: DocFreq | None = None,
    qvec: np.ndarray | None = None,
    off: Iterable[str] = (),
) -> list[Candidate]:
    """The ``limit`` most relevant passage sentences (module docstring), best first.
    ``doc_freq`` weights the question's words (all 1 without it); ``qvec`` is the
    question's vector when the caller has it already; ``off``: rule ids turned off
    (``[answer] rules_off``: the ``extreme-value`` lift)."""
    terms = question_terms(question, doc_freq)
    kind = expected_type(question)
    place = kind is None and asks_place(question)
    how = kind is None and asks_steps(question)
    negated = negation_asked(question) is not None
    still = not _STILL.isdisjoint(map(stem, tokens(question)))
    asked = doer_and_verb(question)
    dated = date_value(question) is not None  # "What happens on 4 December?"
    if qvec is None and embed is not None:
        qvec = np.asarray(embed([question]), dtype=np.float32)[0]
    cands: list[Candidate] = []
    doing: set[tuple[int, int]] = set()
    bridges = bridge_sentences(passages)
    completes: dict[tuple[int, int], tuple[int, int]] = {}
    for p in passages:
        bridge = bridges.get(p.n)  # the best hit's sentence naming this passage's document
        naming = _share(terms, bridge[0], bridge[1], window=False) if bridge else 0.0
        named = set(named_records(terms, p))  # "Teacher: Mr Okafor" for "Who is the teacher?"
        # a table row's header cells, shown with its cells (read once per passage)
        rows = "\n|" in p.hit.text or p.hit.text.startswith("|")
        headers = rows_columns(p.hit.text, p.spans) if rows else None
        cos = (
            p.vectors @ qvec
            if (qvec is not None and p.vectors is not None)
            else np.zeros(len(p.spans))
        )
        for j in range(len(p.spans)):
            text = MARKER.sub("", " ".join(p.sentence(j).split()))
            if not text or len(text) > MAX_QUOTE_CHARS or text.startswith("#"):
                continue
            if _header_only(p.sentence(j)):
                continue  # a table's header row names columns; it answers nothing
            if _lead_in_only(p, j):
                continue  # "Follow-ups:" before its list: the items answer
            one = _share(terms, p, j, window=False)
            if bridge is not None:  # read with the sentence that names this document
                pair = _pair_share(terms, p, j, *bridge)
                if pair > naming + _SAME:  # more than float noise: a term that one lacks
                    completes[(p.n, j)] = (bridge[0].n, bridge[1])  # it adds what that lacks
                one = max(one, pair)
            head = item_head(p, j)
            if head is not None:  # "- Piranesi: 5/5. Lent to Sam.": the item says both
                one = max(one, _share(terms, p, head, window=False))
            around = _share(terms, p, j, window=True)
            rel = (float(cos[j]) + (one + around) / 2) / 2
            lead = lead_before(p, j, text)
            if not lead and head is not None:
                lead = MARKER.sub("", " ".join(p.sentence(head).split()))
                lead = lead if len(lead) + len(text) + 1 <= MAX_QUOTE_CHARS else ""
            if kind == "time" and not lead and not holds(kind, PART_OF_DAY.sub("", text), question):
                lead = dated_heading(p)  # "Thursday 20 November" over a journal's entry
            typed = kind is not None and holds(kind, f"{lead} {text}".strip(), question)
            typed = typed or (place and says_place(text))  # "Where is …?": "in Alfama"
            typed = typed or (how and ITEM_NUMBER.match(p.sentence(j)) is not None)  # a step
            if typed:
                rel += TYPE_BONUS
            if j in named:  # the line's label is what is asked, as a heading would be
                rel += TYPE_BONUS
            if dated and says_day(question, text):  # "4 December", not "Year 4" + "December"
                rel += TYPE_BONUS
            if (negated or still) and negates(text):
                rel += TYPE_BONUS
            if asked is not None and does(*asked, p, j):  # "The vet said" for "... vet say?"
                doing.add((p.n, j))
            follow = command_after(p, j, text) or answer_after(p, j, text)
            item = starts_item(p.sentence(j)) or p.sentence(j).startswith("|")
            columns = tuple(headers[j] or ()) if headers is not None else ()
            cands.append(
                Candidate(p.n, j, text, rel, follow, lead, item, head is not None, columns)
            )
    if completes:  # a two-step question: the linked sentence that completes the naming one
        cands = _completed(cands, completes)
    if doing:
        cands = _lifted(cands, [i for i, c in enumerate(cands) if (c.n, c.j) in doing], TYPE_BONUS)
    if terms.extreme is not None and "extreme-value" not in set(off):
        # "Which laptop is cheapest?": the lowest price; "When did I last run?": the latest
        cands = _lift_extremes(question, terms, cands, passages)
    # a question the note leaves open ("- Who pays for Lisbon?") answers nothing, but
    # what the note asks is the answer to "What are the open questions?"
    asking = {(c.n, c.j) for c in cands if is_question(c.text) and not c.follow}
    if asking and len(asking) < len(cands) and not asks_questions(question):
        cands = [c for c in cands if (c.n, c.j) not in asking]
    if negated:  # "What did the team not agree on?" is not answered by "The team agreed ..."
        kept = [c for c in cands if negates(c.text) or says_denied(question, c.text) is None]
        cands = kept or cands
    cands.sort(key=lambda c: (-c.relevance, c.n, c.j))
    seen: set[tuple[str, str, str]] = set()
    unique = []
    for c in cands:  # a sentence two passages hold (a chunk repeats the one before the cut)
        if (c.lead, c.text, c.follow) not in seen:  # a lead-in before another command is another
            seen.add((c.lead, c.text, c.follow))
            unique.append(c)
    return unique[:limit]


#: stems of the words that ask for what a note asks or leaves open: "What are the open
#: *questions*?", "What is still *unclear*?"
QUESTION_STEMS = frozenset({"question", "unclear", "unresolve", "undecid", "unanswer"})


def asks_questions(question: str) -> bool:
    """``question`` asks for the questions a note asks or leaves open ("What are the
    open questions for Priya's onboarding?", "What is still unclear?"): their sentences
    are its answer, not sentences to leave out. The verb *ask* is no such word ("Who
    asked for a refund?" asks for a person)."""
    return not QUESTION_STEMS.isdisjoint(stem(t) for t in tokens(question))


def _share(terms: Terms, p: PassageSentences, j: int, *, window: bool) -> float:
    """The idf-weighted share of the question's terms sentence ``j`` of ``p`` (or its
    window) holds (:func:`weighted_share`), a term met only by a plain synonym counted
    half: a synonym is weaker evidence than the word ("In what century did the history
    of the steam engine *begin*?" is not answered by "… steam turbines *starting* in the
    late part of the 19th century" rather than "The history of the steam engine
    stretches back as far as the first century AD")."""
    return _both_ways(terms, lambda syn: found_terms(terms, p, j, window=window, synonyms=syn))


def _both_ways(terms: Terms, held: Callable[[bool], Iterable[str]]) -> float:
    """The mean of :func:`weighted_share` of the stems ``held(True)`` (plain synonyms
    count) and ``held(False)`` (they do not): a synonym counts half."""
    return sum(weighted_share(terms, frozenset(held(syn))) for syn in (True, False)) / 2


def bridge_sentences(
    passages: Sequence[PassageSentences],
) -> dict[int, tuple[PassageSentences, int]]:
    """For each passage that search placed because the best hit names its document by
    title (:mod:`kb.search.links`, ``ranks["link"] == 1``), the best hit's passage and
    its first sentence that names that title: "'All Join Hands' is a song by the
    British rock band Slade ..." for the page titled *Slade*. The two together say
    what a two-step question asks ("When did the rock band that sang 'All Join Hands'
    rise to prominence?": the band is in the first, *prominence* in the other)."""
    if not passages:
        return {}
    first = passages[0]
    out: dict[int, tuple[PassageSentences, int]] = {}
    for p in passages[1:]:
        path = p.hit.locator.heading_path
        if p.hit.ranks.get(LINK) != 1 or not path:
            continue
        index = TitleIndex.of([(p.n, path[0])])
        k = next((k for k in range(len(first.spans)) if index.named(first.sentence(k))), None)
        if k is not None:
            out[p.n] = (first, k)
    return out


#: shares closer than this are equal (a sum of the same idf weights in another order)
_SAME = 1e-9


def _completed(
    cands: list[Candidate], completes: dict[tuple[int, int], tuple[int, int]]
) -> list[Candidate]:
    """``cands`` with each sentence of a linked passage that, read with the best hit's
    sentence naming its document, holds more of the question than that sentence alone
    (:func:`bridge_sentences`) ranked just above that sentence, when it was below: the
    naming sentence finds the thing the question describes ("the rock band that sang
    'All Join Hands'": Slade), the linked one says what is asked of it ("They rose to
    prominence during the early 1970s")."""
    rel = {(c.n, c.j): c.relevance for c in cands}
    out = []
    for c in cands:
        naming = rel.get(completes.get((c.n, c.j), (0, -1)))
        if naming is not None and c.relevance <= naming:
            c = replace(c, relevance=naming + 1e-6)
        out.append(c)
    return out


def _pair_share(
    terms: Terms, p: PassageSentences, j: int, other: PassageSentences, k: int
) -> float:
    """:func:`_share` of sentence ``j`` of ``p`` and sentence ``k`` of ``other`` read
    together (the terms either holds)."""
    return _both_ways(
        terms,
        lambda syn: [
            *found_terms(terms, p, j, synonyms=syn),
            *found_terms(terms, other, k, synonyms=syn),
        ],
    )


#: "What did the vet say?", "What book did Dr Lindqvist suggest?": an auxiliary, the
#: doer in at most three words, and the verb that ends the question
_DOER_VERB = re.compile(
    r"^\W*(?:what|which|who|whom|where|when|why|how)\b[^?]*?"
    r"\b(?:did|does|do|will|would|should|could|can|has|have|had)\s+"
    r"(?P<doer>(?:[\w'’.-]+\s+){0,2}[\w'’.-]+)\s+(?P<verb>[a-z]+)\W*$",
    re.IGNORECASE,
)


def doer_and_verb(question: str) -> tuple[frozenset[str], frozenset[str]] | None:
    """The stems of the doer and of the verb of a question that ends with what someone
    does (:data:`_DOER_VERB`: "What did Dr Lindqvist suggest?" gives ``{doctor,
    lindqvist}`` and ``{suggest}``), or ``None`` for another question or a doer of
    stop words alone ("What did I say?")."""
    m = _DOER_VERB.match(question.strip())
    if m is None:
        return None
    doer = frozenset(content_stems(m.group("doer")))
    return (doer, frozenset({stem(m.group("verb"))})) if doer else None


def _lift_extremes(
    question: str, terms: Terms, cands: list[Candidate], passages: Sequence[PassageSentences]
) -> list[Candidate]:
    """``cands`` with the list item or table row of each passage that holds the extreme
    value the question asks for (:func:`kb.rag.superlative.extremes`) lifted by
    :data:`EXTREME_BONUS` (:func:`_lifted`); a list's items (or a log's dated lines, across
    the passages of one file: a log cut into chunks is one log) compared by date only
    among those that say what the question asks (:func:`_saying`:
    "When was my last run?" over a log whose latest item is a visit to the physio; a
    table's rows are records of like things); when only one dated line of the log says
    it, that line is the latest of those ("When did I last buy running shoes?" over
    "bought new shoes" and an older "new shoes", which says less). Then the sentences
    of a journal's entries (passages under dated headings,
    :func:`kb.rag.superlative.entry_value`) that say what it asks, compared across the
    entries: "When did I last run?" lifts the run under the latest heading above the
    others (:func:`_lifted` over those compared)."""
    extreme = terms.extreme
    if extreme is None:
        return cands
    by_n = {p.n: p for p in passages}
    chosen: list[int] = []

    def group(c: Candidate) -> int | str:
        # dates compare across the passages of one file: a log cut into chunks ("## 2025",
        # "## 2026") is one log, and its latest line may be in another chunk
        return by_n[c.n].hit.path if extreme.kinds == DATE else c.n

    for g in {group(c) for c in cands}:
        idx = [i for i, c in enumerate(cands) if group(c) == g]
        if extreme.kinds == DATE:
            rows = [i for i in idx if _sentence(cands[i], by_n).lstrip().startswith("|")]
            lines = [i for i in idx if i not in rows]
            said = _saying(terms, cands, by_n, lines)
            if not rows and len(said) == 1 and len(_dated(lines, cands, by_n, extreme)) > 1:
                # one dated line of a log says what is asked: the latest of those
                chosen.extend(_dated(said, cands, by_n, extreme))
                continue
            idx = rows + said
        chosen.extend(extremes(question, [(i, _sentence(cands[i], by_n)) for i in idx]))
    valued: dict[int, tuple[float, str]] = {}
    for i, c in enumerate(cands):
        p = by_n[c.n]
        if (v := entry_value(p.sentence(c.j), p.hit.locator.heading_path, extreme)) is not None:
            valued[i] = v
    out = _lifted(cands, chosen, EXTREME_BONUS)
    entries = _saying(terms, cands, by_n, list(valued))
    if entries and len({valued[i][1] for i in entries}) == 1:
        best = max(extreme.direction * valued[i][0] for i in entries)
        top = [i for i in entries if extreme.direction * valued[i][0] == best]
        out = _lifted(out, top, EXTREME_BONUS, among=entries)
    return out


def _sentence(c: Candidate, by_n: dict[int, PassageSentences]) -> str:
    return by_n[c.n].sentence(c.j)


def _dated(
    idx: list[int], cands: Sequence[Candidate], by_n: dict[int, PassageSentences], extreme: Extreme
) -> list[int]:
    """Those of ``idx`` whose sentences hold a date (:func:`kb.rag.superlative.measure`)."""
    return [i for i in idx if measure(_sentence(cands[i], by_n), extreme) is not None]


def _saying(
    terms: Terms, cands: Sequence[Candidate], by_n: dict[int, PassageSentences], idx: list[int]
) -> list[int]:
    """Those of ``idx`` (indices of ``cands``) whose sentences say at least half the
    largest idf-weighted share (> 0) of the question's terms that any of them says in
    its own words (not only by the headings, which all share), its superlative word
    aside (*last* is what the values decide): the items or entries about what is
    asked. Half, not all: "What did the engineer find at the last service?" over a
    service log is answered by the latest service, which does not name the engineer."""
    word = terms.extreme.word if terms.extreme is not None else ""
    shares: dict[int, float] = {}
    for i in idx:
        p, j = by_n[cands[i].n], cands[i].j
        text = p.sentence(j)
        held = set(found_terms(terms, p, j))
        # light verbs count here: "my longest *run*" is what the entries must say
        shares[i] = sum(
            weight
            for s, (w, weight) in terms.items()
            if s in held
            and w.lower() != word
            and not _modifier_only(s, text)
            and (found(s, p.stems[j]) or not found(s, p.heading_stems))
        )
    best = max(shares.values(), default=0.0)
    return [i for i in idx if best > 0 and shares[i] >= best / 2]


def _modifier_only(term: str, sentence: str) -> bool:
    """Every word of ``sentence`` with the stem ``term`` is an *-ing* form right before
    a content word, which it names a kind of ("Bought new *running* shoes", "the
    *parking* ticket"): the sentence is about the thing, not the doing ("When did I last
    run?"). False when ``term`` is not in the sentence's own words (a heading's)."""
    words = tokens(sentence)
    at = [k for k, w in enumerate(words) if stem(w) == term]
    return bool(at) and all(
        words[k].lower().endswith("ing")
        and k + 1 < len(words)
        and words[k + 1].isalpha()
        and words[k + 1].islower()
        and not is_stopword(words[k + 1])
        for k in at
    )


def _lifted(
    cands: list[Candidate],
    chosen: Collection[int],
    bonus: float,
    *,
    among: Collection[int] | None = None,
) -> list[Candidate]:
    """``cands`` with each of ``chosen`` (indices) lifted by ``bonus``, and to at least
    half of it above the best candidate of its passage (or of ``among``, indices of
    the candidates it was compared with): what the sentence's shape says (the extreme
    value, the doer doing it) decides where words and cosine cannot."""
    out = list(cands)
    for i in chosen:
        if among is None:
            rivals = [c for c in cands if c.n == cands[i].n]
        else:
            rivals = [cands[k] for k in among]
        top = max(c.relevance for c in rivals)
        out[i] = replace(cands[i], relevance=max(cands[i].relevance + bonus, top + bonus / 2))
    return out


def _header_only(sentence: str) -> bool:
    """``sentence`` is a table's header row and rule line with no row after them (the
    rows under them are sentences of their own, :func:`kb.sentence_spans.split_sentences`;
    a sentence with a row after its rule line is a store cut by an older kb)."""
    rule = TABLE_RULE.search(sentence)
    return rule is not None and not sentence[rule.end() :].strip()


def _lead_in_only(p: PassageSentences, j: int) -> bool:
    """Sentence ``j`` of ``p`` introduces the list that follows it ("Follow-ups:" /
    "1. Add a check ...": :attr:`kb.rag.passage.PassageSentences.lists`). The items say
    what it announces (and hold its words); quoted alone it says nothing."""
    return any(lead == j for lead, _ in p.lists)


#: a question that asks how to do something: "How do I make the dal?", "How can we
#: restore the database?", "How to reset the router?"; not "How do I know …" (no deed)
_HOW_TO = re.compile(
    r"^\W*how\s+(?:(?:do|can|should|would|could|did)\s+(?:i|we|you|one)\s+(?!know\b)|to\s+)",
    re.IGNORECASE,
)


def asks_steps(question: str) -> bool:
    """``question`` asks how to do something (:data:`_HOW_TO`): a procedure's steps
    answer it."""
    return _HOW_TO.search(question) is not None
