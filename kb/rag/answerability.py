"""Is there evidence to answer from? Decided before the model runs.

Retrieval finds the passages closest to a question, also when the question asks about
something the KB does not hold (SQuAD 2.0's unanswerable questions share their
article, often their very sentence, with answerable ones, with one word swapped:
"the first *American* to travel the Amazon" where the text says "European"). So
beyond retrieval's threshold, kb checks that one place of the retrieved text says what
the question asks about, with two signals:

- **coverage**: for the question's content stems ``T`` (:func:`kb.rag.lexical.content_stems`,
  less the words that frame a question, :data:`QUESTION_FRAME`) with weights
  ``idf(t) = ln(1 + (N - n_t + 0.5) / (n_t + 0.5))`` (``N`` chunks in the KB, ``n_t`` of
  them containing ``t``; BM25's weight, always positive, so rare words, names and
  numbers count most), and each passage sentence ``s`` (with the words of its chunk's
  heading path: a note's title names what its sentences are about)::

      coverage(s) = Σ_{t ∈ T, t found in s} idf(t) / Σ_{t ∈ T, t found in s or t ∉ L} idf(t)

  with ``L`` the light verbs a question is phrased with (:data:`LIGHT_VERBS`: *get*,
  *go*, *need* …), which count when the sentence holds them and are left out when not,
  and where *found* tolerates typos and derivations (:func:`kb.rag.lexical.found`:
  ``pacakges`` meets ``packages``) and a number with a unit stands for its quantity
  (:func:`kb.rag.units.unit_words`: ``30 °C`` says *temperature*, ``375 g`` says
  *grams*; a sentence that holds some terms only so, and writes none of them out, counts
  for none: "valid from 3 April" is not about "When does the RAC cover *start*?",
  :func:`standing`); ``coverage`` is the maximum over sentences, and the
  missing terms are those of the best sentence, rarest first. One sentence, not a
  window of three: a swapped word is usually missing from the very sentence the
  question paraphrases, while its neighbours often hold it. A question that needs two
  documents ("Which band formed first, X or Y?") has no such sentence, so two
  sentences of two *different documents* also count, together, at their joint share
  less :data:`PAIR_PENALTY` (0.2), when each writes out a term the other lacks::

      coverage = max(max_s coverage(s), max_{s, s' in two documents} coverage(s ∪ s') - 0.2)

  On squad-dev this refuses 18% of HotpotQA's (answerable) multi-hop questions
  instead of 35%, and leaves every SQuAD refusal as it was. Two *adjacent* sentences
  of one passage do not pair (a note's "Brake pads are B05S. Spare set is in the
  drawer." would): at the same penalty they answer 4 more of squad-dev's 160
  unanswerable SQuAD questions (at 0.3: 1 more) and no more answerable ones. A list
  item's later sentences hold its first sentence's words instead
  (:func:`kb.rag.verify.PassageSentences.of`).
  A question that cannot be answered without a number, an amount of money or a point in
  time asked for by name ("In what year …?", :func:`kb.rag.answer_type.strict_type`)
  counts only the sentences that can give one (alone, or one of a pair).
- **cosine**: the largest cosine between the question's vector and a passage
  sentence's vector (the KB's embedder): how closely one sentence paraphrases the
  question;
- **chunk cosine**: the largest cosine of the question and a whole passage, as the
  vector search scored it (``hit.scores["vector"]``; the sentence cosine when the
  search had no vector leg). Notes written as lists ("Attendees: Dana, Omar") have
  sentences that paraphrase nothing, while their chunk still matches.

They are combined by a logistic model fitted by ``bench/verify.py`` on squad-dev::

    p(answerable) = sigmoid(b + w_cov · coverage + w_cos · cosine + w_chunk · chunk_cosine)

When one sentence (with its chunk's headings) holds every content word of a question
of two or more (:func:`holds_every_term`), ``p`` is at least :data:`EVERY_TERM_FLOOR`
(0.5): a short question over a long sentence that says several things has a low cosine
however plainly the sentence answers it; so it is when a passage's own section heading
names what the question asks about (:func:`names_section`: "What are the Q3 risks?"
over the sentences under "Q3 planning > Risks"). The question is *answerable* when
``p >= min_answerable`` (``[answer] min_answerable``; ``kb eval run
--min-answerable`` measures another value on a golden set). Without
vectors (no embedder) the coverage-only model :data:`LEXICAL_MODEL` is used. With
``require_keys``, a question whose number or name appears in no passage at all is not
answerable either, nor one whose negation or antonym the best-matching sentences
contradict ("What did the TEU *not* do?" over sentences that say what it does;
"the *lowest* point" where the text says "highest": :mod:`kb.rag.polarity`), nor one
whose one missing word is a name or number the best sentence has another in place of
("the first *American*" over "the first *European*": :mod:`kb.rag.substitution`), or
a common word between the same two tokens of a noun phrase ("stones and *rocks* were"
over "stones and *cannonballs* were"), nor
one that asks about a move the other way round ("When do we move *to* Stripe?" over
"from Stripe to Adyen": :mod:`kb.rag.direction`), nor one that asks for a rate per
another period than its best sentence states ("a month" over "500 projects a year":
:mod:`kb.rag.periods`), nor one whose word that sentence negates ("change" over "do not
change": :func:`kb.rag.polarity.denied`). Edge
cases: a question without content stems (all stop words) has
coverage 1 (there is nothing to check); no passages -> not answerable.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Collection, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from kb.months import MONTH_NAMES
from kb.rag.acronyms import aliases, is_acronym, question_acronyms, spelled_in, spelled_out
from kb.rag.answer_type import AnswerType, expected_type, gives, holds, strict_type
from kb.rag.authors import AUTHOR_STEMS, cited
from kb.rag.dates import date_words
from kb.rag.direction import reversed_moves
from kb.rag.lexical import (
    HYPHENATED,
    content_stems,
    found,
    glued_codes,
    hyphen_parts,
    hyphenated_stem,
    key_tokens,
    token_matches,
    tokens,
    written_codes,
)
from kb.rag.periods import other_periods
from kb.rag.polarity import (
    ANTONYMS,
    NEGATION_SENTENCES,
    Contradiction,
    affirmed,
    asks_comparison,
    compares,
    contradictions,
    cosines_of,
    denied,
    heading_negates,
    negation_asked,
    rank_sentences,
    yes_no,
)
from kb.rag.stemmer import number_value, stem
from kb.rag.substitution import prefixed, swaps, word_swaps
from kb.rag.superlative import (
    DATE,
    Extreme,
    asked_extreme,
    entry_value,
    heading_date,
    is_item,
    measure,
)
from kb.rag.units import CAUSE_STEMS, effect_clause, quantities
from kb.rag.verify import (
    OPEN_TASK_STEMS,
    TASK_STEMS,
    EmbedFn,
    PassageSentences,
    embed_passages,
    heading_stems_of,
    section_heading,
)
from kb.search.tasks import asks_tasks, holds_task
from kb.sentence_spans import BULLET, FIELD_LINE, TABLE_RULE, TASK_BOX
from kb.types import Hit

DocFreq = Callable[[str], tuple[int, int]]  # word -> (n_t, N)

#: words that frame a question rather than name what it is about ("how *long*", "what
#: *year*", "what is it *called*", "*tell* me about", "who is it *now*"): the answer
#: rarely repeats them
QUESTION_FRAME = frozenset(
    [
        "long",
        "many",
        "much",
        "often",
        "far",
        "old",
        "big",
        "large",
        "year",
        "years",
        "name",
        "named",
        "called",
        "kind",
        "type",
        "happen",
        "happens",
        "happened",
        "happening",
        "mean",
        "means",
        "refer",
        "refers",
        "term",
        "tell",
        "explain",
        "describe",
        "list",
        "give",
        "show",
        # the time of asking ("Who is the car insurer *now*?"): the note says who it is
        "now",
        "currently",
        "presently",
        "nowadays",
        # and against what was expected by then ("Which tasks are not done *yet*?", "Is
        # the roof *still* leaking?", "Have I *already* paid?")
        "yet",
        "still",
        "already",
    ]
)

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


@dataclass(frozen=True)
class AnswerabilityModel:
    """Logistic weights of ``p(answerable)`` (module docstring)."""

    bias: float
    w_cov: float
    w_cos: float
    w_chunk: float = 0.0

    def score(self, coverage: float, cosine: float | None, chunk: float | None = None) -> float:
        """``chunk`` defaults to ``cosine``; a missing cosine counts as 0."""
        cos = cosine or 0.0
        z = self.bias + self.w_cov * coverage + self.w_cos * cos
        z += self.w_chunk * (cos if chunk is None else chunk)
        return 1.0 / (1.0 + math.exp(-z))


# Fitted by bench/verify.py (logistic regression) on the calibration half of squad-dev's
# 394 SQuAD questions (234 answerable vs 160 of SQuAD 2.0's adversarial unanswerable
# ones, top-5 hits each). ROC AUC 0.72 on the calibration half, 0.80 on the held-back
# half (the old window-coverage rule: 0.63). Held-back half at min_answerable 0.4 with
# require_key_terms: 14% of answerable and 51% of unanswerable questions refused.
DEFAULT_MODEL = AnswerabilityModel(bias=-5.115, w_cov=2.707, w_cos=3.671, w_chunk=1.724)
#: the same fit without the cosines (AUC 0.67 / 0.72), for a pipeline without an embedder
LEXICAL_MODEL = AnswerabilityModel(bias=-2.171, w_cov=3.302, w_cos=0.0)


@dataclass
class Answerability:
    """The evidence check's outcome; ``missing`` are the question words the best
    sentence lacks."""

    score: float
    answerable: bool
    threshold: float
    coverage: float
    cosine: float | None = None
    chunk_cosine: float | None = None
    missing: list[str] = field(default_factory=list)
    #: the question's numbers and names that no passage contains at all
    absent_keys: list[str] = field(default_factory=list)
    #: a negation or antonym of the question its best sentences contradict
    #: (:mod:`kb.rag.polarity`)
    contradictions: list[Contradiction] = field(default_factory=list)
    #: one sentence holds every content word of the question (:func:`holds_every_term`),
    #: so ``score`` is at least :data:`EVERY_TERM_FLOOR`
    every_term: bool = False
    #: a passage's own section heading names what the question asks about
    #: (:func:`names_section`), so ``score`` is at least :data:`EVERY_TERM_FLOOR`
    section: bool = False
    #: what the question cannot be answered without and the passages' best match does
    #: not give (:func:`kb.rag.answer_type.strict_type`: "date or year", "number",
    #: "amount"), when the sentences that give one match it less; else ``None``
    lacks: str | None = None
    #: the fitted model's ``p(answerable)`` before a floor rule lifted it
    fitted: float | None = None
    #: the question's words the best sentence holds (as the question writes them)
    held: list[str] = field(default_factory=list)
    #: the question's terms the check weighed (reused by :mod:`kb.rag.responsive`)
    terms: Terms | None = field(default=None, repr=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        return {
            "score": round(self.score, 4),
            "answerable": self.answerable,
            "threshold": self.threshold,
            "coverage": round(self.coverage, 4),
            "cosine": None if self.cosine is None else round(self.cosine, 4),
            "chunk_cosine": None if self.chunk_cosine is None else round(self.chunk_cosine, 4),
            "missing": list(self.missing),
            "absent_keys": list(self.absent_keys),
            "contradictions": [c.to_dict() for c in self.contradictions],
            "every_term": self.every_term,
            "section": self.section,
            "lacks": self.lacks,
            "fitted": None if self.fitted is None else round(self.fitted, 4),
            "held": list(self.held),
        }


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
        elif word.lower() in QUESTION_FRAME or _glued_letter(question, m):
            continue
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
    is on Tuesdays": no, :data:`_SIBLINGS`)."""
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
        and not (yes and not _siblings(stem(k)).isdisjoint(seen))
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


@dataclass
class Assessed:
    """:func:`assess`'s outcome: the check, and the passages (with their sentence
    vectors when an embedder was given) and question vector it used, for reuse."""

    answerability: Answerability
    passages: list[PassageSentences]
    qvec: np.ndarray | None


def assess(
    question: str,
    hits: Sequence[Hit],
    embed: EmbedFn | None,
    doc_freq: DocFreq | None,
    min_answerable: float,
    *,
    require_keys: bool = False,
    off: frozenset[str] = frozenset(),
) -> Assessed:
    """The evidence check of ``question`` over ``hits`` as ``kb ask`` runs it: the hits
    cut into sentences, their sentences and the question embedded (when ``embed`` is
    given; without it the lexical model decides), then :func:`check`."""
    passages = [PassageSentences.of(n, h) for n, h in enumerate(hits, 1)]
    qvec = None
    if embed is not None:
        embed_passages(passages, embed)
        qvec = np.asarray(embed([question]), dtype=np.float32)[0]
    checked = check(
        question,
        passages,
        doc_freq,
        min_answerable,
        qvec=qvec,
        require_keys=require_keys,
        off=off,
    )
    return Assessed(checked, passages, qvec)


def check(
    question: str,
    passages: Sequence[PassageSentences],
    doc_freq: DocFreq | None,
    min_answerable: float,
    *,
    qvec: np.ndarray | None = None,
    require_keys: bool = False,
    model: AnswerabilityModel | None = None,
    off: frozenset[str] = frozenset(),
) -> Answerability:
    """``p(answerable)`` from the best sentence's coverage and the best cosine
    (module docstring). ``qvec`` is the question's normalised vector; the cosine needs
    it and the passages' sentence vectors (``PassageSentences.vectors``), else the
    lexical model decides. ``min_answerable`` 0 never refuses on the score. ``off``:
    ids of :mod:`kb.rag.rules` vetoes and floors not to run; each contradiction found
    carries the id of the rule that found it."""
    terms = question_terms(question, doc_freq)
    if not passages:
        missing = [w for w, _ in terms.values()]
        return Answerability(0.0, False, min_answerable, 0.0, missing=missing)
    matches = sentence_matches(terms, passages)
    kind = strict_type(question)
    eligible = _typed(kind, question, passages)
    cov, missing = coverage(terms, passages, matches, eligible)
    lacks = None
    if kind is not None:
        # when the sentences that give no answer of the kind match better, the reason is
        # what they do not give (and the words the best of them lacks, as without a kind)
        anywhere, missing_anywhere = coverage(terms, passages, matches)
        if anywhere > cov:
            lacks, missing = _LACKS[kind], missing_anywhere
    cos = best_cosine(qvec, passages)
    chunk = chunk_cosine(passages) if cos is not None else None
    if model is None:
        model = DEFAULT_MODEL if cos is not None else LEXICAL_MODEL
    p = model.score(cov, cos, chunk)
    fitted = p
    every = "every-term" not in off and holds_every_term(terms, passages, matches, eligible)
    named = [
        section_heading(ps.hit) for ps in passages if names_section(terms, ps.hit, ps.heading_stems)
    ]
    section = "section-named" not in off and bool(named)
    if every or section:
        p = max(p, EVERY_TERM_FLOOR)
    result = Answerability(
        p,
        p >= min_answerable,
        min_answerable,
        cov,
        cos,
        chunk,
        missing,
        every_term=every,
        section=section,
        lacks=lacks,
        fitted=fitted,
        held=[w for s, (w, _) in terms.items() if w not in missing and s in asked_terms(terms)],
        terms=terms,
    )
    if "absent-keys" not in off:
        result.absent_keys = absent_keys(question, passages)
    ranked = ranked_sentences(terms, passages, matches, qvec)
    best_sentences = [p.sentence(j) for p, j in ranked]
    headings = [section_heading(p.hit) for p, _ in ranked[:NEGATION_SENTENCES]]
    # a named section whose heading negates holds the cue: "What was not decided?" over
    # "## Not decided" (its sentences need not say *not*)
    headings = [h for h in named if heading_negates(h)][:1] + headings
    found = result.contradictions

    def run(rule: str, detect: Callable[[], list[Contradiction]]) -> None:
        if rule not in off:
            found.extend(replace(c, rule=rule) for c in detect())

    run("negation", lambda: contradictions(question, best_sentences, headings))
    if ranked:
        best, j = ranked[0]
        sentence = best.sentence(j)
        got = set(found_terms(terms, best, j))
        known = best.stems[j] | best.heading_stems | best.units(j)
        lacking = word_parts(asked_terms(terms) - got, known)
        run("swapped-key", lambda: swaps(question, sentence, known, lacking))
        if not found:
            run("swapped-word", lambda: word_swaps(question, sentence, known, lacking))
        run("reversed-move", lambda: reversed_moves(question, sentence))
        run("other-period", lambda: other_periods(question, sentence))
        run("denied", lambda: denied(question, sentence))
        lacking_words = [terms[s][0] for s in lacking if s in terms]
        run("prefixed", lambda: prefixed(lacking_words, sentence))
        if not found:
            run("affirmed", lambda: affirmed(question, best_sentences))
    if require_keys and (result.absent_keys or result.contradictions):
        result.answerable = False
    return result


#: per passage, per sentence: the question's stems it holds (:func:`found_terms`)
Matches = list[list[frozenset[str]]]
#: per passage, per sentence: whether it can give the answer type the question cannot
#: be answered without (:func:`kb.rag.answer_type.strict_type`)
Eligible = list[list[bool]]


def sentence_matches(terms: Terms, passages: Sequence[PassageSentences]) -> Matches:
    """:func:`found_terms` of every sentence of every passage, computed once for
    :func:`coverage` and :func:`ranked_sentences`."""
    return [[frozenset(found_terms(terms, p, j)) for j in range(len(p.stems))] for p in passages]


def ranked_sentences(
    terms: dict[str, tuple[str, float]],
    passages: Sequence[PassageSentences],
    matches: Matches,
    qvec: np.ndarray | None,
) -> list[tuple[PassageSentences, int]]:
    """Every passage sentence as ``(passage, sentence index)``, best match to the
    question first: by coverage (with its chunk's headings, as :func:`coverage` counts
    it), then cosine to ``qvec``."""
    places: list[tuple[PassageSentences, int]] = []
    covs: list[float] = []
    coss: list[float | None] = []
    asked = asked_terms(terms)
    for p, held in zip(passages, matches, strict=True):
        coss += cosines_of(p.vectors, qvec, len(held))
        places += [(p, j) for j in range(len(held))]
        covs += [
            weighted_share(terms, standing(asked, got, written_out(p, j, got)))
            for j, got in enumerate(held)
        ]
    return rank_sentences(places, covs, coss)


def asked_terms(terms: dict[str, tuple[str, float]]) -> frozenset[str]:
    """The question's term stems but the light verbs (:data:`LIGHT_VERBS`)."""
    return frozenset(s for s in terms if not is_light(terms, s))


def written_out(p: PassageSentences, j: int, got: frozenset[str]) -> frozenset[str]:
    """The terms of ``got`` (those sentence ``j`` of ``p`` holds, :func:`found_terms`)
    that the sentence or its chunk's headings write out, not only say by a date, a
    value or an acronym's initials."""
    written = p.stems[j] | p.heading_stems
    return frozenset(s for s in got if found(s, written))


def standing(asked: frozenset[str], got: frozenset[str], written: frozenset[str]) -> frozenset[str]:
    """The terms of ``got`` (those a sentence holds; ``written``: those it writes out,
    :func:`written_out`) that count for the sentence on its own: all of them when it
    writes one out or holds every term ``asked`` (:func:`asked_terms`: "How much does it
    cost?" over "It's £40 a month."), none when it holds some only by what its dates and
    values say ("valid from 3 April" for "When does the RAC cover *start*?": about
    something else)."""
    return got if (written or asked <= got) else frozenset()


#: what a pair of sentences from two documents loses against one sentence (module
#: docstring): the smallest value that left squad-dev's SQuAD refusals unchanged on
#: both halves (bench/verify.py), while it halves the refusals of HotpotQA's multi-hop
#: questions, which no single sentence answers
PAIR_PENALTY = 0.2


def coverage(
    terms: Terms,
    passages: Sequence[PassageSentences],
    matches: Matches | None = None,
    eligible: Eligible | None = None,
) -> tuple[float, list[str]]:
    """The best idf-weighted share of ``terms`` that one sentence holds (as
    :func:`standing` counts it: a sentence that holds a rare *start* only by its date,
    "valid from 3 April", is about something else), or two
    sentences of two documents together less :data:`PAIR_PENALTY` (each must write out,
    in its words or its chunk's headings, a term the other lacks: what a value says is
    no such term, so "When does the RAC cover *start*?" does not pair "cover is with the
    RAC until June" with another note's "valid from 3 April"), and the surface words
    the best lacks, rarest first; 1.0 and none when there are no terms. ``matches``:
    :func:`sentence_matches`, if computed. With ``eligible`` (:data:`Eligible`), only
    the sentences it marks count alone, and a pair needs one of them: "In what year was
    the Haensch study released?" is not covered by "The results of the Haensch study
    have since been confirmed", which names no year; a pair still joins a sentence that
    names what is asked with another document's that gives the year; 0 when no sentence
    is marked."""
    if sum(w for _, w in terms.values()) <= 0:
        return 1.0, []
    if matches is None:
        matches = sentence_matches(terms, passages)
    best, best_got = -1.0, frozenset[str]()
    asked = asked_terms(terms)
    # per distinct (document, terms held): the terms a sentence or its headings write out
    seen: dict[tuple[str, frozenset[str]], frozenset[str]] = {}
    typed: set[tuple[str, frozenset[str]]] = set()  # keys a sentence holding the type has
    for i, (p, sentences) in enumerate(zip(passages, matches, strict=True)):
        for j, got in enumerate(sentences):
            written = written_out(p, j, got)
            key = (p.hit.locator.path, got)
            seen[key] = seen.get(key, frozenset()) | written
            if eligible is not None and not eligible[i][j]:
                continue
            typed.add(key)
            held = standing(asked, got, written)
            cov = weighted_share(terms, held)
            if cov > best:
                best, best_got = cov, held
    distinct = list(seen.items())
    for i, ((path_a, a), own_a) in enumerate(distinct):
        for (path_b, b), own_b in distinct[i + 1 :]:
            if path_a == path_b or not (own_a - b) or not (own_b - a):
                continue
            if eligible is not None and (path_a, a) not in typed and (path_b, b) not in typed:
                continue
            both = a | b
            cov = weighted_share(terms, both) - PAIR_PENALTY
            if cov > best:
                best, best_got = cov, both
    lacking = asked - best_got
    missing = sorted((s for s in terms if s in lacking), key=lambda s: -terms[s][1])
    return max(best, 0.0), [terms[s][0] for s in missing]


#: ``p(answerable)`` is at least this when one sentence holds every content word of a
#: question of two or more (:func:`holds_every_term`). On squad-dev, 97 of the 122 SQuAD
#: questions whose retrieved passages have such a sentence are answerable (0.80), and the
#: model gives every one of them 0.4 or more anyway; a short question over a long
#: sentence is what it lifts: "What does make dev start?" over "Local setup: run `make
#: dev`, which starts Postgres 16 and Redis 7 in Docker." has cosine 0.38 and p 0.37
EVERY_TERM_FLOOR = 0.5


def holds_every_term(
    terms: Terms,
    passages: Sequence[PassageSentences],
    matches: Matches,
    eligible: Eligible | None = None,
) -> bool:
    """True when one passage sentence (its words, what its quantities and values say,
    and its chunk's headings and file name: :func:`found_terms`, as ``matches`` holds
    them, :func:`sentence_matches`) holds every question
    term but the light verbs, and the sentence itself holds one of them at least,
    written out: "What is the car's registration?" over "The Skoda Octavia (reg. LK19
    XZP) ..." under the heading "Car". A question of one term needs it written out in
    a record's cell or key (:func:`written_alone`: "Who is the GP?" over the table row
    "| Dr Hannah Reid | GP | 0161 496 0321 |"); a heading that holds it
    ("Who is our accountant?" over a table under "Suppliers and accountant") says too
    little, as do headings alone (they hold the same words for every sentence of the
    chunk), words held only by an acronym's initials (:mod:`kb.rag.acronyms`: "Bob paid" is no *BP*
    for sure) and what a sentence's values say alone ("When did the dispute end?" over
    "The school bus runs until June" holds *end* only by its date). With ``eligible``,
    only the sentences it marks (:data:`Eligible`)."""
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
    (:data:`LIGHT_VERBS`): with the question's one other term it says what was done
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
    or a task item whose box says it (:data:`kb.rag.verify.TASK_STEMS`: "What is on
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


#: closed sets of values, any other of which answers a yes/no question about one (no)
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_SIBLINGS = (frozenset(map(stem, _WEEKDAYS)), frozenset(map(stem, MONTH_NAMES)))


def _siblings(s: str) -> frozenset[str]:
    """The other days of the week, or months, when the stem ``s`` is one (empty
    otherwise): any of them answers a yes/no question about ``s`` (:data:`_SIBLINGS`)."""
    return next((kind - {s} for kind in _SIBLINGS if s in kind), frozenset())


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
    :data:`_SIBLINGS`)."""
    out: list[str] = []
    for s in lacking:
        opposite = ANTONYMS.get(s)
        if terms.yes_no and not opposite:
            opposite = _siblings(s)
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


def best_cosine(qvec: np.ndarray | None, passages: Sequence[PassageSentences]) -> float | None:
    """Largest cosine of ``qvec`` and a passage sentence; ``None`` without vectors."""
    if qvec is None:
        return None
    best: float | None = None
    for p in passages:
        if p.vectors is None or len(p.vectors) == 0:
            continue
        m = float(np.max(p.vectors @ qvec))
        best = m if best is None else max(best, m)
    return best


#: what a strict answer type is called in a refusal's reason
_LACKS = {"time": "date or year", "quantity": "number", "money": "amount"}


def _typed(
    kind: AnswerType | None, question: str, passages: Sequence[PassageSentences]
) -> Eligible | None:
    """Which passage sentences can give the answer type ``kind`` that ``question``
    cannot be answered without (:func:`kb.rag.answer_type.strict_type`,
    :func:`~kb.rag.answer_type.gives`), or ``None`` when it asks for none. For a point
    in time, every sentence of a passage under a day's heading
    (:func:`kb.rag.superlative.heading_date`) can."""
    if kind is None:
        return None
    return [
        # a journal's entry gives its heading's day ("## 2026-11-14" / "Bought new
        # running shoes"), which quote mode quotes before it
        [True] * len(p.stems)
        if kind == "time" and heading_date(p.hit.locator.heading_path) is not None
        else [gives(kind, p.sentence(j), question) for j in range(len(p.stems))]
        for p in passages
    ]


def chunk_cosine(passages: Sequence[PassageSentences]) -> float | None:
    """Largest vector-search cosine of a passage (``hit.scores["vector"]``), if any."""
    got = [p.hit.scores["vector"] for p in passages if "vector" in p.hit.scores]
    return max(got) if got else None


def names_section(terms: Terms, hit: Hit, heading: AbstractSet[str] | None = None) -> bool:
    """``hit``'s own section heading names what the question asks about: the question
    has content terms (light verbs aside), the last heading of the hit's path holds one
    of them at least, a word (not a number: squad-dev's "Part 3" names nothing for
    "What is 3?"), and the path with the file's name (``heading``:
    :func:`kb.rag.verify.heading_stems_of`, computed when not given) holds them all.
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
    about (:func:`kb.rag.verify.list_leads`), as :func:`names_section` reads a section's
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


def section_named(question: str, hits: Sequence[Hit]) -> bool:
    """:func:`names_section` or :func:`named_records` for one of ``hits``, or one of
    their sentences says what the question's term is (:func:`says_what_it_is`: "Who is
    the GP?" over "The GP, Dr Farah, said …", sentence cosine 0.20, as "GP: Dr Farah"
    would), or the question asks about tasks and a hit holds a task item
    (:mod:`kb.search.tasks`: "What is still on my to-do list?" over "- [ ] order
    compost"): the lexical pass of ``kb ask``'s retrieval rule that needs no cosine
    (:func:`kb.search.evidence.ask_passes`)."""
    if asks_tasks(question) and any(holds_task(h.text) for h in hits):
        return True
    terms = question_terms(question, None)  # the weights play no part
    if not terms:
        return False
    if any(names_section(terms, h) for h in hits):
        return True
    passages = [PassageSentences.of(n, h) for n, h in enumerate(hits, 1)]
    if any(named_records(terms, p) for p in passages):
        return True
    asked = asked_terms(terms)
    return any(
        says_what_it_is(terms, asked, p.sentence(j)) for p in passages for j in range(len(p.spans))
    )


def ask_would_answer(result: Any, min_score: float, doc_freq: DocFreq | None) -> bool:
    """Whether ``kb ask`` would pass its retrieval rule on ``result`` (a
    :class:`~kb.search.SearchResult`): the cosine rules, or a sentence at ``min_score``
    when one sentence of the hits holds every content word of the question
    (:func:`says_every_term`), or :func:`section_named` (a section heading, a record's
    key, a task item for a question about tasks). ``kb search`` and the web search page
    say that ``kb ask`` would refuse only when this is false."""
    from kb.search.evidence import ask_passes

    return ask_passes(
        result.best_cosine,
        min_score,
        result.best_sentence,
        lambda: says_every_term(result.query, result.hits, doc_freq),
        lambda: section_named(result.query, result.hits),
    )


def says_every_term(question: str, hits: Sequence[Hit], doc_freq: DocFreq | None) -> bool:
    """The lexical pass of ``kb ask``'s retrieval refusal rule: one sentence of one
    hit (with its chunk's headings and file name, as :func:`coverage` reads it) holds
    every content term of the question (light verbs it lacks aside). "How many
    transport bolts are there?" over a manual's "remove the three transport bolts"
    has a chunk cosine of 0.22 and a sentence cosine of 0.44, below the cosine rule
    (:mod:`kb.search.evidence`), yet the KB plainly holds what it asks about. Such a
    question goes on to the evidence check (:func:`check`), which still decides.
    ``False`` for a question without content terms (nothing to hold) and without hits."""
    terms = question_terms(question, doc_freq)
    if not terms or not hits:
        return False
    passages = [PassageSentences.of(n, h) for n, h in enumerate(hits, 1)]
    asked = asked_terms(terms)
    for p in passages:
        for j in range(len(p.stems)):
            got = set(found_terms(terms, p, j))
            if asked and asked <= got:
                return True
    return False
