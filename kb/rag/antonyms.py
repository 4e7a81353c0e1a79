"""Antonyms: a word said where its opposite is asked ("lowest" asked, "highest" written).

SQuAD 2.0's adversarial unanswerable questions swap a word for its antonym in 20% of
cases (Rajpurkar, Jia and Liang 2018, table 2), and an answer sentence that says
*decreased* where its evidence says *increased* is not supported by it. The lexicon
(:data:`_PAIRS`) holds common English antonym pairs (direction, size, order, time,
quantity, success), compared as :func:`kb.rag.lexical.stem` stems of every token, stop
words included (*before*/*after*, *most*/*least*); compass directions' other forms
(*westward*, *easterly*) are read as the direction (:data:`DIRECTION_FORMS`).

:func:`reversals` finds, for a text (a question, or a claim) and one sentence, each word
of the text whose antonym the sentence says in its place. It leaves alone: a sentence
that says the word too; an antonym the sentence says only negated ("does not permit"
for *prohibits*); a sentence's comparison (*than* follows its antonym: "Ben is younger
than Tom") when the text compares nothing; a listed value of the kind a superlative
compares ("- Dell XPS 13: heavier at 1.24 kg"); a name's word ("Old Trafford"); an
interval word ("How long *before* ...?"); and a start or end the sentence says in other
words ("When did the war *start*?" over "it *began* in 1939"). A bound in time is the end
or start it says (:func:`kb.rag.lexical.bounds`): "cover is with the RAC *until June
2026*" says *end*.
"""

from __future__ import annotations

import re

from kb.rag.contradiction import Contradiction
from kb.rag.lexical import END_WORDS, START_WORDS, bounds, found, stem, token_matches, tokens
from kb.rag.negation import negated_in
from kb.rag.superlative import asked_extreme, is_item, measure

_PAIRS = """
first last | largest smallest | large small | biggest smallest | big small | most least
more less | more fewer | highest lowest | high low | higher lower | before after
increase decrease | increased decreased | earliest latest | early late | oldest youngest
old young | older younger | longest shortest | long short | best worst | better worse
major minor | maximum minimum | positive negative | north south | east west
northern southern | eastern western | win lose | won lost | top bottom | upper lower
inside outside | internal external | begin end | start end | started ended | rise fall
rose fell | import export | imports exports | imported exported | strong weak
strongest weakest | stronger weaker | fast slow | faster slower | fastest slowest
hot cold | warm cool | heavy light | rich poor | richest poorest | wealthy poor
success failure | successful unsuccessful | accept reject | accepted rejected
allow forbid | allowed forbidden | legal illegal | public private | modern ancient
open closed | opened closed | gain loss | gained lost | buy sell | bought sold
push pull | attack defend | victory defeat | male female | men women | above below
over under | entrance exit | wide narrow | widest narrowest | deep shallow
deepest shallowest | thick thin | dark light | true false | same different
similar different | common rare | frequent rare | always never | everything nothing
all none | include exclude | included excluded | agree disagree | support oppose
supported opposed | love hate | peace war | friend enemy | ally enemy | allies enemies
birth death | born died | create destroy | created destroyed | build destroy
built destroyed | cheap expensive | cheapest expensive | allow prohibit | permit prohibit
permit forbid | simple complex | inner outer | front rear | arrive depart
arrival departure | easy difficult | increase reduce | increase decline | rise decline
summer winter | absorb release | absorbed released | larger smaller | bigger smaller
longer shorter | wider narrower | deeper shallower | thicker thinner | hotter colder
warmer cooler | heavier lighter | richer poorer | wealthier poorer | cheaper dearer
easier harder | cheaper expensive | grow decline | grew declined | growth decline
advance retreat | advanced retreated | urban rural | domestic foreign | majority minority
wet dry | full empty | alive dead | forward backward | upstream downstream
inbound outbound | horizontal vertical | input output | ascend descend | appear disappear
remember forget | approve reject | approved rejected | offensive defensive
offense defense | superior inferior | temporary permanent | conservative liberal
stop begin | stop start | stopped began | stopped started
"""


#: a compass direction's other forms, read as the direction for the antonym check
#: ("the *westward* flow" asked, "the *easterly* flow" written); by the word, not its
#: stem ("Easter" is no direction)
DIRECTION_FORMS = {
    base + end: base
    for base in ("north", "south", "east", "west")
    for end in ("ward", "wards", "erly", "bound")
}


def _antonyms() -> dict[str, frozenset[str]]:
    out: dict[str, set[str]] = {}
    for pair in re.split(r"[|\n]", _PAIRS):
        if not pair.strip():
            continue
        a, b = (stem(w) for w in pair.split())
        out.setdefault(a, set()).add(b)
        out.setdefault(b, set()).add(a)
    return {k: frozenset(v) for k, v in out.items()}


#: stem -> the stems of its antonyms (``lowest`` -> ``{highest}``)
ANTONYMS = _antonyms()


#: words whose stem is an antonym's but which mean something else: *close* (near) has
#: the stem of *closed*, the opposite of *open*
NOT_ANTONYM_FORMS = frozenset(["close", "closer", "closest", "closely"])


def all_stems(text: str) -> set[str]:
    """:func:`kb.rag.lexical.stem` of every token of ``text``, stop words included."""
    return {stem(t) for t in tokens(text)}


def reversals(text: str, sentence: str, *, compared: bool | None = None) -> list[Contradiction]:
    """The antonym cue (module docstring) of ``text`` (a question, or a claim the
    verifier checks) against one ``sentence``: each word of ``text`` whose antonym the
    sentence says in its place, as a :class:`Contradiction` of the word and the
    sentence's antonym (or the bound in time that says it: "until June 2026" for
    *start*). Empty when the sentence says the word too, or says its antonym only
    negated ("does not permit" for *prohibits*), compares where ``text`` does not ("A
    is heavier than B"), lists a measured value for an extreme (:mod:`kb.rag.superlative`),
    or when the word is part of a name ("Old Trafford"). ``compared``: does ``text``
    compare (default: it says *than*, :func:`asks_comparison`); a claim passes ``False``,
    as "Ben is younger than Tom" says what "Tom is older than Ben" does, and which way
    round two things are compared is not read here."""
    out: list[Contradiction] = []
    best = all_stems(sentence)
    best |= {DIRECTION_FORMS[w] for w in map(str.lower, tokens(sentence)) if w in DIRECTION_FORMS}
    bounded = bounds(sentence)  # "until June 2026" says *end*, "since 2019" *start*
    best |= set(bounded)
    seen: set[str] = set()
    framed = {m.start(1) for m in _INTERVAL.finditer(text)}
    if compared is None:
        compared = asks_comparison(text)
    extreme = asked_extreme(text)
    measured = extreme is not None and is_item(sentence) and measure(sentence, extreme) is not None
    for m in token_matches(text):
        t = m.group()
        s = DIRECTION_FORMS.get(t.lower()) or stem(t)
        if t.lower() in NOT_ANTONYM_FORMS or m.start() in framed:
            continue
        if s in seen or s not in ANTONYMS or s in best or _said_otherwise(s, best):
            continue
        seen.add(s)
        said = sorted(ANTONYMS[s] & best)
        if said and negated_in(sentence, said[0]):
            continue  # "does not permit atoms to pass" says what *prohibits* them
        if (
            said
            and t[0].isupper()
            and m.start() > 0
            and not _written(sentence, said[0])[:1].isupper()
        ):
            continue  # a name's word ("Old Trafford") against a plain "young": no antonym
        if said and not compared and compares(sentence, said[0]):
            continue  # "A is heavier than B" says which is lighter
        if said and measured and extreme is not None and t.lower() == extreme.word:
            continue  # "- XPS: heavier at 1.24 kg": a list's values say which is lighter
        if said:
            out.append(Contradiction(t, bounded.get(said[0]) or _written(sentence, said[0])))
    return out


def asks_comparison(question: str) -> bool:
    """The question compares two things itself ("What is older than Tom?"): a sentence's
    comparison turned round (:func:`compares`) does not answer it."""
    return any(t.lower() == "than" for t in tokens(question))


def compares(sentence: str, word_stem: str) -> bool:
    """Every word of ``sentence`` with stem ``word_stem`` compares two things: *than*
    follows it within :data:`COMPARISON_GAP` tokens ("heavier at 1.5 kg than",
    "slower than"). Such a sentence answers the opposite question by turning it
    round ("Which laptop is lighter?" over "The XPS is heavier than the X1"), unless
    the question compares too ("What is lighter than the X1?")."""
    toks = [t.lower() for t in tokens(sentence)]
    at = [i for i, t in enumerate(toks) if stem(t) == word_stem]
    return bool(at) and all("than" in toks[i + 1 : i + 1 + COMPARISON_GAP] for i in at)


#: how many tokens after a comparative its *than* may come (:func:`compares`)
COMPARISON_GAP = 4


def _written(sentence: str, word_stem: str) -> str:
    """The word of ``sentence`` whose stem (or compass direction,
    :data:`DIRECTION_FORMS`) is ``word_stem``, as written ("released" for *releas*),
    one in small letters first (not the name in "The South Africa office ... on the
    south side"); ``word_stem`` itself when none is."""
    words = [t for t in tokens(sentence) if word_stem in (stem(t), DIRECTION_FORMS.get(t.lower()))]
    return next((t for t in words if t.islower()), words[0] if words else word_stem)


#: "how long *before*", "how soon *after*", "how many minutes *before*": the word asks
#: for an interval, and a note says "paged *after* fifteen minutes" for "How long
#: *before* the secondary is paged?" (not "How many goals *after* half-time?")
_INTERVAL = re.compile(
    r"\bhow\s+(?:long|soon|much\s+time|far|many\s+(?:seconds|minutes|mins|hours|days|weeks"
    r"|months|years|miles|km|kilometres|kilometers|stops))\s+(before|after)\b",
    re.IGNORECASE,
)


def _said_otherwise(s: str, best: set[str]) -> bool:
    """The sentence says a start or an end as ``s`` asks, in other words ("When did the
    war *start*?" over "it *began* in 1939 and lasted till 1945"), so the antonym it also
    says contradicts nothing."""
    for group in (START_WORDS, END_WORDS):
        if s in group and any(found(w, best) for w in group):
            return True
    return False
