"""A question's terms: the words the evidence check weighs, each with its idf.

:func:`question_terms` reads a question into :class:`Terms`: stem -> (a surface word,
idf weight) for its content stems (:func:`kb.rag.lexical.content_stems`), less the words
that frame a question rather than name what it is about (:data:`QUESTION_FRAME`: "how
*long*", "what *year*") and those an answer would not repeat ("how many *times*", "what
did I *think of*", "*what date*", "what is QED *short for*"). A word written with
hyphens is one term ("un-elected": :func:`kb.rag.lexical.hyphenated_stem`). The weight
is BM25's, always positive, so rare words, names and numbers count most::

    idf(t) = ln(1 + (N - n_t + 0.5) / (n_t + 0.5))

with ``N`` chunks in the KB and ``n_t`` of them containing ``t`` (:func:`idf`; weight 1
for every term without document frequencies). The light verbs a question is phrased
with (:data:`LIGHT_VERBS`: *get*, *go*, *need* …) count when a sentence holds them and
are left out when not (:func:`weighted_share`); :func:`asked_terms` are the terms but
those.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from collections.abc import Set as AbstractSet

from kb.lang import language
from kb.rag.answer_type import expected_type
from kb.rag.lexical import (
    HYPHENATED,
    content_stems,
    found,
    glued_codes,
    hyphen_parts,
    hyphenated_stem,
    token_matches,
    tokens,
)
from kb.rag.polarity import asks_comparison, negation_asked, yes_no
from kb.rag.stemmer import stem, stem_language
from kb.rag.superlative import LATEST_WORDS, asked_extreme

DocFreq = Callable[[str], tuple[int, int]]  # word -> (n_t, N)

#: words that frame a question rather than name what it is about ("how *long*", "what
#: *year*", "what is it *called*", "*tell* me about", "who is it *now*"): the answer
#: rarely repeats them
QUESTION_FRAME = language("en").frame_words


def frame_words() -> frozenset[str]:
    """:data:`QUESTION_FRAME` and, for a question read in another language
    (:func:`kb.rag.stemmer.stemming_in`), that language's frame words
    (:attr:`kb.lang.base.Lang.frame_words`: German's "Art", "Begriff", "heißt")."""
    code = stem_language()
    return QUESTION_FRAME if code is None else QUESTION_FRAME | language(code).frame_words


#: light verbs a question is often phrased with ("why did X *get* blocked", "do we
#: *need* to", "why didn't we *go*", "what did the doctor *say*", "how often should I
#: *see* the physio", "which port does Grafana *use*", "when do backups *run*", "how do
#: I *fix* the ticking radiator", "where do wolves *exist*") where the passage says "is
#: blocked", "visit", a table row, "every night", "bleed it with the square key", "live
#: in" (not "used", which
#: asks for a purpose: "What is Grafana used for?", nor "runs", often a noun): they count
#: when a sentence holds them ("the one error that *needs* a person") and are left out
#: when it does not (:func:`weighted_share`). In a KB of a few notes such a word is in no chunk,
#: so as a plain term it would weigh the most.
LIGHT_VERBS = frozenset(
    [
        "get",
        "gets",
        "got",
        "gotten",
        "getting",
        "go",
        "goes",
        "going",
        "went",
        "need",
        "needs",
        "needed",
        "needing",
        "want",
        "wants",
        "wanted",
        "wanting",
        "take",
        "takes",
        "took",
        "taken",
        "taking",
        "say",
        "says",
        "said",
        "saying",
        "see",
        "sees",
        "saw",
        "seen",
        "seeing",
        "use",
        "uses",
        "run",
        "fix",
        "fixes",
        "fixed",
        "fixing",
        # *do* as the verb of a deed the note names by its thing ("What was *done* at
        # Kwik Fit?" over "at Kwik Fit: oil and filter"; "How many miles has the car
        # *done*?" over "93,950 miles")
        "done",
        "doing",
        # *make* as a recipe's or a build's verb ("How do I make the dal?" over its
        # method: "Fry the cumin seeds ...")
        "make",
        "makes",
        "made",
        "making",
        # existence says nothing the passage must repeat ("Mandatory Committees
        # *exist* in the fifth session of what?" over "the Mandatory Committees in the
        # fourth Session are ...": the text says "are", "there is", "in")
        "exist",
        "exists",
        "existed",
        # a change of state names its result, which the passage says ("Which country's
        # cars *became* sought after?" over "Japanese imports ... were sought after")
        "become",
        "becomes",
        "became",
        # what was found or bought, which a note says by the thing and its price or
        # place ("What fault code did the garage *find*?" over "The garage read fault
        # code P0101"; "What tyres did I *buy*?" over "Replaced both front tyres with
        # ..., £236 fitted"; "Where are the dunes *found*?"; selling is *buy*'s
        # antonym, which :mod:`kb.rag.polarity` still reads)
        "find",
        "finds",
        "found",
        "buy",
        "buys",
        "bought",
        # where a thing is kept or how long it keeps, which a note says by a place or a
        # time ("Where do I keep the spare key?" over "Spare key: kitchen drawer", "How
        # long does the chili keep?" over "It freezes well for up to three months")
        "keep",
        "keeps",
        "kept",
    ]
)


def idf(n_t: int, n: int) -> float:
    """BM25's idf, shifted to stay positive: ``ln(1 + (N - n_t + 0.5) / (n_t + 0.5))``."""
    return math.log(1.0 + (max(n, n_t) - n_t + 0.5) / (n_t + 0.5))


#: "to-do" written with its hyphen: two stop words, one term (*todo*, as a task box says)
_TODO_WORDS = frozenset(["to-do", "to-dos"])


#: a form of *be* in a question: it asks what or who something is
_ASKS_IS = re.compile(r"\b(?:is|was|are|were)\b", re.IGNORECASE)


class Terms(dict[str, tuple[str, float]]):
    """A question's terms (stem -> (a surface word, idf weight)) and its tokens as
    written (``words``), whose runs the acronym check reads
    (:func:`kb.rag.acronyms.aliases`)."""

    def __init__(self, question: str) -> None:
        super().__init__()
        self.words = tokens(question)
        #: what the question asks for: a time, an amount, a number, a name, or None
        self.kind = expected_type(question)
        #: the question asks what something is ("Who is the host?", "What was it called?")
        self.asks_is = _ASKS_IS.search(question) is not None
        #: a yes/no question: a sentence that says a term's opposite answers it (no)
        self.yes_no = yes_no(question)
        #: the question compares ("What is older than Tom?"): a sentence's comparison
        #: turned round does not answer it
        self.compares = asks_comparison(question)
        #: the extreme a superlative question asks for ("Which laptop is *cheapest*?")
        self.extreme = asked_extreme(question)
        #: the question asks what is not so ("What was *not* decided?"; not a yes/no one)
        self.negated = negation_asked(question) is not None
        #: light verbs a person does here, as an activity, not a thing: "How far did *I
        #: run*?" asks about a run ("When does the backup *run*?" does not)
        self.done = {stem(m.group(2)) for m in _PERSON_DOES.finditer(question)}
        #: codes of letters and digits the question writes as one word ("v3.1": *v3*)
        self.codes = frozenset(glued_codes(question))


def question_terms(question: str, doc_freq: DocFreq | None) -> Terms:
    """stem -> (a surface word, idf weight); weight 1 for every term without ``doc_freq``."""
    out = Terms(question)
    joined = [(h.start(), h.end()) for h in HYPHENATED.finditer(question)]
    frames = frame_words()
    for m in token_matches(question):
        word = m.group()
        whole = next(((a, b) for a, b in joined if a <= m.start() < b), None)
        if whole is not None:  # "un-elected": one term (lexical.hyphenated_stem)
            word = question[whole[0] : whole[1]]
            if m.start() != whole[0]:
                continue
            if word.lower() in _TODO_WORDS:
                s = "todo"  # of stop words only, yet what a task list is ("- [ ] ...")
            elif not hyphen_parts(word):
                continue
            else:
                s = hyphenated_stem(word)
        elif word.lower() in frames or _glued_letter(question, m):
            continue
        elif word.lower() in LATEST_WORDS:
            continue  # "Which race did I run most recently?": the dates decide, no word
        elif word.lower() == "times" and _HOW_MANY.search(question, 0, m.start()):
            continue  # "how many times" asks for a count a note writes "twice"
        elif word.lower() in _LAST_WORDS and _HOW_LONG.search(question, 0, m.start()):
            continue  # "how long did the outage last" asks for a time: "for 47 minutes"
        elif word.lower() in _THINK and _OF_ABOUT.match(question, m.end()):
            continue  # "What did I think of Piranesi?": the note says the judgement
        elif word.lower() == "supposed" and _TO_AFTER.match(question, m.end()):
            continue  # "What is the pressure supposed to be?": the note says what it is
        elif word.lower() in _KIND_NOUNS and (
            _WHAT_BEFORE.search(question, 0, m.start())
            or (word.lower().startswith("role") and _HOLDER_BEFORE.search(question, 0, m.start()))
        ):
            continue  # "What entity owns V/Line?": the note names the owner
        elif word.lower() in _TIME_NAMES and _WHAT_BEFORE.search(question, 0, m.start()):
            continue  # "What date does it renew?" asks when: the note gives the day
        elif word.lower() == "time" and _THE_LAST.search(question, 0, m.start()):
            continue  # "When was the last time I ran?" asks when, as "When did I last run?"
        elif _EXPANSION.match(question, m.start()):
            continue  # "What is QED short for?" asks what the letters spell out
        else:
            stems = content_stems(word)
            if not stems:
                continue
            s = next(iter(stems))
        if s in out:
            continue
        w = 1.0
        if doc_freq is not None:
            n_t, n = doc_freq(word)
            w = idf(n_t, n)
        out[s] = (word, w)
    return out


def word_parts(stems: frozenset[str], known: AbstractSet[str]) -> frozenset[str]:
    """``stems`` with each word of parts (:func:`kb.rag.lexical.hyphenated_stem`) in
    place of those of its parts that ``known`` lacks, stop words aside: the swap check
    reads a question token by token, so "Who won the Sino-Japanese war?" over "the
    Sino-Russian war" lacks *japanese*, which it finds swapped for *Russian*."""
    out: set[str] = set()
    for s in stems:
        if "-" not in s:
            out.add(s)
            continue
        out.update(w for w in hyphen_parts(s) if not found(w, known))
    return frozenset(out)


#: a person doing a light verb that is an activity of its own when a person does it
#: (*run*: a thing runs on a schedule, a person runs a distance)
_PERSON_DOES = re.compile(r"\b(I|we|you|he|she|they)\s+(?:last\s+)?(run|runs|ran)\b", re.IGNORECASE)
#: "how many" right before a word (searched in the text before it)
_HOW_MANY = re.compile(r"\bhow\s+many\s+$", re.IGNORECASE)
#: "how long" somewhere before a word, and the verb it asks the span of ("How long did
#: the outage *last*?": the note says "for 47 minutes"; "the *last* remnant" is no
#: duration)
_HOW_LONG = re.compile(r"\bhow\s+long\b", re.IGNORECASE)
_LAST_WORDS = frozenset(["last", "lasts", "lasted"])
#: an opinion asked of something ("What did I *think of* The Ministry for the Future?"
#: over "3/5. Important but a slog in the middle."): the note says the judgement, not
#: the word; not "think" before a clause ("Why did they think the Earth was older?")
_THINK = frozenset(["think", "thinks", "thought"])
_OF_ABOUT = re.compile(r"\s+(?:of|about)\b", re.IGNORECASE)
#: "supposed to" asks what should be, which a note says plainly ("What is the boiler
#: pressure *supposed to* be?" over "refill … if the pressure drops below 1 bar")
_TO_AFTER = re.compile(r"\s+to\b", re.IGNORECASE)
#: "the last" right before a word (searched in the text before it)
_THE_LAST = re.compile(r"\bthe\s+last\s+$", re.IGNORECASE)
#: a point in time asked for by its name right after *what*/*which* ("*What date* does
#: Spotify renew?" over the row "| Spotify Duo | £16.99 | 3rd | Amex |"; "In *which
#: month* …"): the answer gives it, not the word, as with *what year*
#: (:data:`QUESTION_FRAME`); :func:`kb.rag.answer_type.strict_type` then counts only the
#: sentences that give one
_TIME_NAMES = frozenset(
    ["date", "dates", "day", "days", "month", "months", "decade", "decades", "century", "centuries"]
)
_WHAT_BEFORE = re.compile(r"\b(?:what|which)\s+$", re.IGNORECASE)
#: the kind of answer asked for right after *what*/*which*, or a role after its
#: holder's possessive ("*What entity* owns V/Line?" over "V/Line, which is now owned by
#: the Victorian Government"; "What was Robert Watson's *role* in the IPCC?" over "Robert
#: Watson, the chair of the IPCC"): the answer names it, not the word
_KIND_NOUNS = frozenset(["entity", "entities", "organization", "organisation", "role", "roles"])
_HOLDER_BEFORE = re.compile(r"(?:['’]s|\b(?:his|her|their|its|my|our|your))\s+$", re.IGNORECASE)
#: a question's words that ask for an abbreviation's full form ("What is QED *short
#: for*?", "What does PTO *stand for*?"): the text writes the form, not these words
_EXPANSION = re.compile(r"(?:short|stands?)\s+for\b|abbreviation\s+(?:for|of)\b", re.IGNORECASE)


def _glued_letter(text: str, m: re.Match[str]) -> bool:
    """The token ``m`` is one letter written against a number: the *p* of "p99", the
    *K* of "4K", the *v* of "v2". Such a letter is no word a note would repeat ("the
    p99 latency" over "the 99th percentile"); the number stays a term."""
    a, b = m.span()
    if b - a != 1 or not m.group().isalpha():
        return False
    return (a > 0 and text[a - 1].isdigit()) or (b < len(text) and text[b].isdigit())


def asked_terms(terms: dict[str, tuple[str, float]]) -> frozenset[str]:
    """The question's term stems but the light verbs (:data:`LIGHT_VERBS`)."""
    return frozenset(s for s in terms if not is_light(terms, s))


def is_light(terms: dict[str, tuple[str, float]], stem: str) -> bool:
    """True when ``stem``'s question word is one of :data:`LIGHT_VERBS`, and not one a
    person does as an activity (:attr:`Terms.done`)."""
    if isinstance(terms, Terms) and stem in terms.done:
        return False
    return terms[stem][0].lower() in LIGHT_VERBS


def weighted_share(
    terms: dict[str, tuple[str, float]], stems: Sequence[str] | frozenset[str]
) -> float:
    """``Σ idf`` of ``stems`` over ``Σ idf`` of ``terms`` less the light verbs that
    ``stems`` lacks (:data:`LIGHT_VERBS`); 1.0 without terms (or only missing light
    verbs)."""
    got = set(stems)
    total = sum(w for s, (_, w) in terms.items() if s in got or not is_light(terms, s))
    return 1.0 if total <= 0 else sum(terms[s][1] for s in got) / total
