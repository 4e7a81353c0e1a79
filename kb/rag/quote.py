"""Quote mode: every answer sentence is a sentence copied from a cited passage.

For small models that paraphrase badly, the answer is assembled from source text. The
prompt lists numbered *candidate sentences*; the grammar admits only the refusal phrase
or 1 to ``max_quotes`` candidate numbers (the items of a section, list or record the
question names: all of them, in order, :func:`quote_grammar`'s ``every``); kb writes each
chosen sentence verbatim, followed by the citation of the passage it comes from
(``<sentence> [#n]``). The model chooses which sentences; it cannot change a word, so
every quote is real source text with provenance by construction (Verbatim RAG).

Why numbers and not the sentences themselves in the grammar: grammar-constrained
sampling is greedy token by token, so a small model asked to copy one of several
sentences picks the one whose *first word* it likes best ("The ..."), not the one that
answers (measured on squad-dev: 7.5% correct answers when the grammar held the
sentences). Choosing a number puts the whole decision on one token that the model
makes after reading every candidate.

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
the command that follows it, :func:`command_after`): a sentence that two passages
hold (two notes that say the same, or the sentence a chunk repeats from the one
before it, :mod:`ingest.chunkers.structure`) is offered from the passage where it
ranks best.
Measured on squad-dev's 234 answerable SQuAD questions (top-5 passages), the first
candidate holds the golden answer for 80% (the plain window share of stems: 74%), and
one of the 8 offered for 97%. The prompt lists exactly
these sentences, so the model reads what the grammar lets it write (a GBNF grammar
restricts tokens but does not guide the model; llama.cpp issue 5599).

A table's header row (with its ``| --- |`` rule line) is no candidate: it names the
columns, and "What am I reading now?" over a reading list quoted it. A candidate is the
sentence with its white space folded and a leading bullet (``-``, ``*``, ``+``, ``•``)
or quote marker (``>``) dropped: "- Guest network: Lighthouse" is quoted as "Guest
network: Lighthouse" (an item's number stays: it names a clause). A
lead-in followed by a one-line fenced command is quoted with that command after it
(:func:`command_after`), and a question the note asks with the sentence that answers
it (:func:`answer_after`: "Does she need a production login? Security said not before
the probation review."); a question the note leaves open is no candidate, unless every
sentence is one or the question asks for what is open (:func:`asks_questions`: "What
are the open questions?"). A sentence that starts by pointing back ("He had been replaced by
Abercrombie ...") is quoted after the sentence it points to (:func:`lead_before`).
Sentences are written into the grammar as literals; characters a GBNF literal
cannot hold are escaped. A sentence longer than :data:`MAX_QUOTE_CHARS` is not offered.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, replace

import numpy as np

from kb.rag.answer_type import asks_place, expected_type, has_name, holds, says_place
from kb.rag.dates import DAY_DATE
from kb.rag.every_term import does
from kb.rag.grammar import _literal, refusal_forms
from kb.rag.lexical import content_stems, found, is_stopword, tokens
from kb.rag.naming import named_lists, named_records, names_section
from kb.rag.polarity import negates, negation_asked, says_denied
from kb.rag.stemmer import stem
from kb.rag.superlative import DATE, date_value, entry_value, extremes, says_day
from kb.rag.term_match import found_terms
from kb.rag.terms import DocFreq, Terms, asked_terms, question_terms, weighted_share
from kb.rag.units import unit_words
from kb.rag.verify import OPEN_TASK_STEMS, EmbedFn, PassageSentences
from kb.search.links import LINK, TitleIndex
from kb.search.tasks import asks_done, asks_tasks
from kb.sentence_spans import (
    BLANK_LINE,
    ITEM_NUMBER,
    TABLE_RULE,
    TASK_BOX,
    is_question,
    read_row,
    rows_columns,
    starts_item,
    table_cells,
    table_rows,
)

MAX_QUOTE_CHARS = 600
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
#: a Markdown bullet or block-quote marker at the start of a sentence
_MARKER = re.compile(r"^(?:[-*+•>]\s+)+")


@dataclass(frozen=True)
class Candidate:
    """A passage sentence the model may quote."""

    n: int  # context number (1-based)
    j: int  # sentence index in the passage
    text: str
    relevance: float
    #: the one-line command block that follows a lead-in (:func:`command_after`), or the
    #: sentence that answers a question the note asks (:func:`answer_after`), quoted
    #: after it; or ""
    follow: str = ""
    #: the sentence a sentence that starts by referring back ("He", "This") refers to,
    #: quoted before it (:func:`lead_before`), or the dated heading of a journal entry a
    #: *when* question quotes (:func:`dated_heading`); or ""
    lead: str = ""
    #: the sentence is a list item or a table row: items quoted one after another
    #: stand on lines of their own, as in the note
    item: bool = False
    #: the sentence is a list item's later sentence (:func:`item_head`): it stays on
    #: its item's line, and the next item starts a line of its own
    continues: bool = False
    #: the header cells of the table the sentence is a row of
    #: (:func:`kb.sentence_spans.row_columns`), shown to the model with the row's cells
    #: (:func:`candidates_block`); empty when it is no table row
    columns: tuple[str, ...] = ()


#: a question about what is not done yet ("What is *still* on my to-do list?"): *still*
#: and the words an open task box says but *open* (:data:`kb.rag.verify.OPEN_TASK_STEMS`)
_STILL = (OPEN_TASK_STEMS - {stem("open")}) | {stem("still")}


def rank_candidates(
    question: str,
    passages: Sequence[PassageSentences],
    embed: EmbedFn | None,
    limit: int,
    *,
    doc_freq: DocFreq | None = None,
    qvec: np.ndarray | None = None,
) -> list[Candidate]:
    """The ``limit`` most relevant passage sentences (module docstring), best first.
    ``doc_freq`` weights the question's words (all 1 without it); ``qvec`` is the
    question's vector when the caller has it already."""
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
            text = _MARKER.sub("", " ".join(p.sentence(j).split()))
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
                lead = _MARKER.sub("", " ".join(p.sentence(head).split()))
                lead = lead if len(lead) + len(text) + 1 <= MAX_QUOTE_CHARS else ""
            if (
                kind == "time"
                and not lead
                and not holds(kind, _PART_OF_DAY.sub("", text), question)
            ):
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
    if terms.extreme is not None:  # "Which laptop is cheapest?": the lowest price
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
    :data:`EXTREME_BONUS` (:func:`_lifted`); a list's items (or a log's dated lines)
    compared by date only among those that say what the question asks (:func:`_saying`:
    "When was my last run?" over a log whose latest item is a visit to the physio; a
    table's rows are records of like things). Then the sentences of a journal's entries
    (passages under dated headings, :func:`kb.rag.superlative.entry_value`) that say
    what it asks, compared across the entries: "When did I last run?" lifts the run
    under the latest heading above the others (:func:`_lifted` over those compared)."""
    extreme = terms.extreme
    if extreme is None:
        return cands
    by_n = {p.n: p for p in passages}
    chosen: list[int] = []
    for n in {c.n for c in cands}:
        idx = [i for i, c in enumerate(cands) if c.n == n]
        if extreme.kinds == DATE:
            rows = [i for i in idx if by_n[n].sentence(cands[i].j).lstrip().startswith("|")]
            idx = rows + _saying(terms, cands, by_n, [i for i in idx if i not in rows])
        chosen.extend(extremes(question, [(i, by_n[n].sentence(cands[i].j)) for i in idx]))
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


#: the most sentences one answer quotes from a section the question names
#: (:func:`section_candidates`) when they are prose; a list's or a table's items are
#: quoted up to :data:`STEP_QUOTES` ("What are the ingredients?" over seven of them)
SECTION_QUOTES = 5


def _header_only(sentence: str) -> bool:
    """``sentence`` is a table's header row and rule line with no row after them (the
    rows under them are sentences of their own, :func:`kb.sentence_spans.split_sentences`;
    a sentence with a row after its rule line is a store cut by an older kb)."""
    rule = TABLE_RULE.search(sentence)
    return rule is not None and not sentence[rule.end() :].strip()


def _lead_in_only(p: PassageSentences, j: int) -> bool:
    """Sentence ``j`` of ``p`` introduces the list that follows it ("Follow-ups:" /
    "1. Add a check ...": :attr:`kb.rag.verify.PassageSentences.lists`). The items say
    what it announces (and hold its words); quoted alone it says nothing."""
    return any(lead == j for lead, _ in p.lists)


def section_candidates(
    question: str,
    passages: Sequence[PassageSentences],
    cands: Sequence[Candidate],
) -> list[Candidate]:
    """The candidates from the passages whose own section heading names what the
    question asks about (:func:`kb.rag.naming.names_section`), in passage order:
    "What were the decisions?" over a note's "## Decisions" is answered by the
    section's items, not by the one a one-sentence answer would pick. Empty when no
    passage's section is named, or when the question ends with what its doer does and
    one of the section's sentences says the doer did it (:func:`doer_and_verb`: "What
    did the vet say?" under "## Vet" is answered by "The vet said ...", not by the
    section)."""
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
    """For a question that asks how to do something (:func:`asks_steps`) whose best
    candidate is a step of a numbered list ("1. Fry the cumin seeds ..."), every
    sentence of that list (:func:`step_run`) in order, when the question names the
    procedure (:func:`names_procedure`), not one step: a procedure's answer is its
    steps, and the bundled model quoted the first alone. ``cands`` must hold every
    sentence of the passage that may be a step (ranked with a limit past the passage's
    length); a step that is no candidate (too long to quote) is left out. Empty when
    the question asks something else or the best candidate is no step."""
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
    folded = _MARKER.sub("", " ".join(nxt.split()))
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


def listed(c: Candidate) -> bool:
    """``c`` is a list item or table row, or a list item's later sentence
    (:func:`item_head`): part of a list, whose items an answer may quote up to
    :data:`STEP_QUOTES`."""
    return c.item or c.continues


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
_PART_OF_DAY = re.compile(
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
    of the day or a clock time: :data:`_PART_OF_DAY`), both verbatim, each with its citation; the
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


def quote_line(c: Candidate, *, lead: bool = True) -> str:
    """What the model writes for candidate ``c``: the sentence it refers back to
    (:func:`lead_before`; not with ``lead=False``), then the sentence, a space, its
    citation; then what follows it (a lead-in's command, a question's answer), each
    with the same citation."""
    line = f"{c.text} [#{c.n}]"
    if c.lead and lead:
        line = f"{c.lead} [#{c.n}] {line}"
    return f"{line} {c.follow} [#{c.n}]" if c.follow else line


def quote_grammar(
    cands: Sequence[Candidate], refusal_phrase: str, max_quotes: int, *, every: bool = False
) -> str:
    """GBNF: the refusal phrase, or 1..``max_quotes`` candidate numbers separated by a
    space (``"1"``, ``"3 1"``). The model picks sentences by number; kb writes them.
    With ``every`` (the candidates are the items of a section, list or record the
    question names, :func:`section_candidates`, or the task items a question about
    tasks asks for, :func:`task_candidates`), the answer is the first ``max_quotes`` of
    them in order (``"1 2 3"``): the model answers or refuses, and cannot drop an item
    ("What were the decisions?" quoted two of three)."""
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
