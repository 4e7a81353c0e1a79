"""Word-level signals for the verifier: content words, numbers and names.

Tokens are runs of letters/digits (``\\w+`` without ``_``), lower-cased and stemmed by
:func:`kb.rag.stemmer.stem` (``proofs``/``proofing``/``proofed`` meet, ``said`` is
``say``, ``four`` is ``4``; numbers are normalised: ``1,000`` -> ``1000``, ``02`` ->
``2``, ``2nd`` -> ``2``; ``3.50`` stays ``3.50``). The contractions of stop words
(``it's``, ``couldn't``, ``they're``) are stop words.

*Content tokens* are the stems of non-stop words. *Key tokens* are what must never
slip between a claim and its evidence (the strong signal of the TRUE-benchmark
lexical baselines): every number, and every capitalised word that is not the first
word of its sentence (a name). Stop words are never key tokens. :func:`found` decides
that two stems are one word: up to a typo or a derivation (:func:`near`), a plain
synonym (:data:`SYNONYMS`) or a doer (:func:`agentive`).

:func:`recall` is ``|claim ∩ passage| / |claim|`` over token sets, ``1.0`` when the
claim has no such tokens (nothing to miss), so it never divides by zero.

What a sentence says without writing the word is read beside this module: what its
numbers with units and its values say by their shape (:mod:`kb.rag.units`), its dates
and the bounds in time they set (:mod:`kb.rag.dates`), and the author a title line or a
reference names (:mod:`kb.rag.authors`).
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import re
from collections.abc import Iterable, Iterator
from collections.abc import Set as AbstractSet

from kb.edits import within
from kb.lang import KNOWN, all_languages, language
from kb.rag.dates import END_WORDS as END_WORDS  # re-export (kb.rag.antonyms)
from kb.rag.dates import START_WORDS as START_WORDS  # re-export (kb.rag.antonyms)
from kb.rag.dates import bounds as bounds  # re-export (kb.rag.antonyms)
from kb.rag.dates import date_words as date_words  # re-export (kb.rag.verify)
from kb.rag.stemmer import compound_numbers, normal_number, stem_language, stemming_in
from kb.rag.stemmer import stem as stem  # re-export (kb.rag.verify, kb.rag.polarity)
from kb.rag.units import unit_words as unit_words  # re-export (kb.rag.verify)
from kb.sentence_spans import is_abbreviation

#: a number (its ordinal ending glued on: "2nd", "21st", "100th", which
#: :func:`kb.rag.stemmer.normal_number` drops), or a word
_TOKEN = re.compile(
    r"\d+(?:(?<=1)st|(?<=2)nd|(?<=3)rd|th)(?![^\W\d_])"
    r"|\d[\d,]*(?:\.\d+)?|[^\W\d_]+(?:['’][^\W\d_]+)?",
    re.UNICODE,
)

#: English function words, never content words (:mod:`kb.lang.en`)
STOPWORDS = language("en").function_words


#: the other languages' function words in force (:func:`question_in`): none by default,
#: so English text is read as it always was
_FOREIGN: contextvars.ContextVar[frozenset[str]] = contextvars.ContextVar(
    "kb_rag_foreign_function_words", default=frozenset()
)


def foreign_function_words(code: str) -> frozenset[str]:
    """The function words that are no content words besides English's for a question
    in the language ``code`` (:func:`kb.lang.detect.question_language`): German's
    ("wie", "hoch", "ist", "hat", "sich", "den") for ``"de"``, French's ("quel",
    "est-ce") for ``"fr"``, none for ``"en"``, every shipped language's for ``"und"``
    or any other code (an undetected question)."""
    if code == "en":
        return frozenset()
    known = [x for x in all_languages() if x.code != "en"]
    chosen = [x for x in known if x.code == code] or known
    return frozenset().union(*(x.function_words for x in chosen))


@contextlib.contextmanager
def question_in(code: str) -> Iterator[None]:
    """Within the block, :func:`is_stopword` also drops the function words of the
    language ``code`` (:func:`foreign_function_words`): what the answer pipeline wraps
    a German or French question's checks in, so "Wie hoch ist ..." names no "Wie" as
    a missing content word, and :func:`stem` stems words in that language
    (:func:`kb.rag.stemmer.stemming_in`: "gekostet" meets "kostet"). Context-local
    (threads and tasks each keep their own)."""
    token = _FOREIGN.set(foreign_function_words(code))
    try:
        with stemming_in(code if code in KNOWN else None):
            yield
    finally:
        _FOREIGN.reset(token)


def is_stopword(word: str) -> bool:
    """A stop word, or a contraction of stop words (``it's``, ``don't``, ``we'll``);
    within :func:`question_in`, also a function word of the question's language
    (French elisions: ``qu'est``, ``l'on`` when both parts are)."""
    w = word.lower().replace("’", "'")
    if w in STOPWORDS:
        return True
    foreign = _FOREIGN.get()
    if foreign and (w in foreign or ("'" in w and all(p in foreign for p in w.split("'")))):
        return True
    if "'" not in w:
        return False
    head, _, tail = w.partition("'")
    if tail == "t" and head.endswith("n"):  # couldn't, isn't, won't, can't
        return True
    return tail in _CONTRACTED and (head in STOPWORDS or head in _PRONOUNS)


_CONTRACTED = frozenset(["s", "re", "ve", "ll", "d", "m"])
_PRONOUNS = frozenset(["i", "you", "he", "she", "it", "we", "they", "that", "there", "what"])


def tokens(text: str) -> list[str]:
    """Raw word and number tokens of ``text`` in order (case kept)."""
    return _TOKEN.findall(text)


def token_matches(text: str) -> Iterator[re.Match[str]]:
    """The matches of :func:`tokens`, with their positions in ``text``."""
    return _TOKEN.finditer(text)


#: a word written with hyphens: "e-mail", "Wi-Fi", "check-in"
HYPHENATED = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)+")


def content_stems(text: str, *, joined: bool = False) -> set[str]:
    """Stems of the non-stop words and the normalised numbers of ``text``. With
    ``joined`` (a passage's text, never a claim's: a claim's extra stem would be one
    more word to find), a word written with hyphens also gives the stem of its parts run
    together ("e-mail" gives ``email`` beside ``mail``, "Wi-Fi" ``wifi``), so a question
    that writes it as one word finds it."""
    out: set[str] = set()
    for t in tokens(compound_numbers(text)):
        if t[0].isdigit():
            out.add(normal_number(t))
        elif not is_stopword(t):
            out.add(stem(t))
    if joined and "-" in text:
        out.update(stem(m.group().replace("-", "")) for m in HYPHENATED.finditer(text))
    return out


def hyphen_parts(word: str) -> list[str]:
    """The parts of a word written with hyphens (or of its :func:`hyphenated_stem`)
    that are no stop words: ``check``, not ``in``, of "check-in"."""
    return [p for p in word.split("-") if p and not is_stopword(p)]


def hyphenated_stem(word: str) -> str:
    """The stem of a word written with hyphens as one term: its parts' stems joined by
    ``-`` ("un-elected" -> ``un-elect``, "Wi-Fi" -> ``wi-fi``); :func:`found` finds it
    written as one word or as its parts. A question's "un-elected" is one word the
    passage may write "unelected": as two terms, *un* would be missing."""
    compound = compound_numbers(word)
    if compound != word and "-" not in compound:
        return compound  # "twenty-one" -> 21
    return "-".join(stem(p) for p in word.split("-") if p)


def key_tokens(text: str, *, names: bool = True) -> set[str]:
    """Numbers, numbers with their unit, and (with ``names``) names, normalised.

    A number ``24`` followed by a word ``hours`` gives ``24`` and ``24 hour`` (the unit
    is the stem of the next word when it is a non-stop word), so "24 hours" is not
    supported by "24 °C". Names are capitalised non-stop words not starting a
    sentence, as stems. Passages are indexed with ``names=False`` (their names are in
    their content stems already), claims with ``names=True``. In a language that writes
    every noun with a capital (:attr:`kb.lang.base.Lang.capitalised_nouns`: German, read
    within :func:`question_in`), a capital marks no name: only an acronym (two or more
    capitals, "NTL") or a word with a capital or digit inside ("McLaren") is one.
    """
    out: set[str] = set()
    code = stem_language()
    nouns = code is not None and language(code).capitalised_nouns
    first = True
    toks = list(_TOKEN.finditer(text))
    for i, m in enumerate(toks):
        t = m.group(0)
        if t[0].isdigit():
            num = normal_number(t)
            out.add(num)
            if i + 1 < len(toks):
                nxt = toks[i + 1].group(0)
                gap = text[m.end() : toks[i + 1].start()]
                if not nxt[0].isdigit() and not is_stopword(nxt) and len(gap) <= 2:
                    out.add(f"{num} {stem(nxt)}")
        elif (
            names
            and t[0].isupper()
            and not first
            and not is_stopword(t)
            and (not nouns or _name_shaped(t))
        ):
            out.add(stem(t))
        first = ends_sentence(text, m.end())
    return out


def _name_shaped(word: str) -> bool:
    """An acronym ("NTL", "BBC") or a word with a capital or a digit after its first
    letter ("McLaren", "B2B"): a name even where every noun has a capital."""
    return (len(word) >= 2 and word.isupper()) or any(c.isupper() or c.isdigit() for c in word[1:])


#: a code of letters with digits glued to them: a quarter or half (*Q2*, *H1*), a
#: version (*v2*), a fault or part code (*P0101*, *B05S*), a road (*M25*), a paper size
#: (*A4*). Letters first: "70Ah", "5kg" and "4K" are quantities
_GLUED_CODE = re.compile(r"(?<![\w.\-])[^\W\d_]{1,4}\d{1,6}[^\W\d_]{0,2}(?![\w\-])")


def glued_codes(text: str) -> dict[str, str]:
    """The codes of letters and digits written as one word in ``text``
    (:data:`_GLUED_CODE`): lower-cased code -> the code as first written. The word
    tokens split them ("Q2": *q*, *2*), and "two weeks" holds a *2*, so only the whole
    code tells the *Q2* roadmap from the *Q1* one."""
    out: dict[str, str] = {}
    for m in _GLUED_CODE.finditer(text):
        out.setdefault(m.group().lower(), m.group())
    return out


#: subscript and superscript digits as digits ("CO₂": CO2)
_SCRIPT_DIGITS = str.maketrans("₀₁₂₃₄₅₆₇₈₉⁰¹²³⁴⁵⁶⁷⁸⁹", "01234567890123456789")
#: a code's letters and digits written apart by a hyphen or a space ("COVID-19", "Q 2")
_SPLIT_CODE = re.compile(r"(?<![\w.\-])([^\W\d_]{1,4})[- ](\d{1,6})(?![\w\-])")


def written_codes(text: str) -> set[str]:
    """The codes :func:`glued_codes` reads, lower-cased, as ``text`` may write them:
    glued, with subscript digits ("CO₂") or apart by a hyphen or a space ("COVID-19",
    "Q 2"): where a passage is searched for a question's code."""
    plain = text.translate(_SCRIPT_DIGITS)
    return set(glued_codes(plain)) | set(glued_codes(_SPLIT_CODE.sub(r"\1\2", plain)))


def ends_sentence(text: str, pos: int) -> bool:
    """A sentence end (``.``, ``!``, ``?`` or ``:`` and white space) sits at ``pos``:
    the next token starts a sentence, so a capital there names nothing. The dot of an
    abbreviation or an initial ends none (:func:`kb.sentence_spans.is_abbreviation`):
    in "What did Dr. Smith say?" *Smith* is a name."""
    if re.match(r"[.!?:]\s", text[pos : pos + 3]) is None:
        return False
    return not is_abbreviation(text, pos)


def recall(claim: Iterable[str], passage: set[str]) -> float:
    """Share of ``claim``'s tokens found in ``passage``; 1.0 for an empty claim set."""
    c = set(claim)
    if not c:
        return 1.0
    return len(c & passage) / len(c)


def near(a: str, b: str) -> bool:
    """``a`` and ``b`` are the same word up to a typo or a derivation: both alphabetic
    stems of at least 5 letters, and either

    - a shared prefix of at least 5 letters covering >= 3/4 of the shorter word
      (``buddhist``/``buddhism``, ``victorian``/``victoria``); a prefix of 5 that
      leaves one letter of the shorter word over only when that letter is an *e* or a
      *y* (``create``/``creation``; not ``physio``/``physicist``), or
    - an edit distance (Damerau-Levenshtein, optimal string alignment: insert, delete,
      substitute, swap two neighbours) of at most 1 when both have 6+ letters, at most
      2 when both have 9+: ``pacakge``/``package``, ``astronaught``/``astronaut``
      (short words are left alone: ``march``/``match``), or
    - a verb and its noun in *-sion*, whose shared prefix is too short for the first
      rule: the verb's stem is the noun less *sion* plus *d*, *s*, *de* or *se*
      (:func:`_sion_noun`: ``decid``/``decision``, ``divide``/``division``,
      ``revis``/``revision``, ``extend``/``extension``, ``permit``/``permission``), or
    - a *-y* word and its derivation by its *i* form (:func:`_y_derivation`:
      ``apply``/``application``, ``deny``/``denial``), whose shared prefix is too short
      for the first rule, or
    - a doer in *-er*/*-or* and the noun of what it does in *-ance*/*-ence* on the
      same root, of a short allow-list (:func:`_doer_of`: ``insurer``/``insurance``,
      whose shared prefix is too short for the first rule).

    Words that differ in meaning but share little (``american``/``european``,
    ``lowest``/``highest``) never meet; numbers never do (``1999`` != ``1998``).
    """
    if a == b:
        return True
    if _y_derivation(a, b) or _y_derivation(b, a):
        return True
    if len(a) < 5 or len(b) < 5 or not a.isalpha() or not b.isalpha():
        return False
    if _sion_noun(a, b) or _sion_noun(b, a) or _doer_of(a, b) or _doer_of(b, a):
        return True
    p = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        p += 1
    short = min(a, b, key=len)
    if p >= 5 and p >= 0.75 * len(short) and (p >= 6 or p == len(short) or short[p:] in "ey"):
        return True
    shorter = min(len(a), len(b))
    return shorter >= 6 and within(a, b, 1 if shorter < 9 else 2)


#: what follows the *i* of a *-y* word's derivation: *applic-ation*, *deni-al*,
#: *reli-ance*, *vari-ation*, *suppli-er*, *compli-ant*, *vari-ous*, *merri-ment*
_Y_SUFFIXES = frozenset(["cation", "ation", "al", "ance", "ant", "able", "er", "ous", "ment"])


def _y_derivation(word: str, other: str) -> bool:
    """``other`` derives from the *-y* word ``word`` (4+ letters, a consonant before
    the *y*) by its *i* form and a suffix of :data:`_Y_SUFFIXES`: *apply*/*application*,
    *deny*/*denial*, *rely*/*reliance*, *vary*/*variation*. Not *study*/*studio*, nor
    *company*/*companion* by this rule (*-o*, *-on* are no such suffix)."""
    return (
        len(word) >= 4
        and word.endswith("y")
        and word[-2] not in "aeiouy"
        and other.startswith(word[:-1] + "i")
        and other[len(word) :] in _Y_SUFFIXES
    )


def _doer_of(doer: str, noun: str) -> bool:
    """``doer`` (*-er*, *-or*) does what ``noun`` (*-ance*, *-ence*) names, on one root
    of :data:`_DOER_ROOTS`: *insurer*/*insurance*, *conveyor*/*conveyance*,
    *attender*/*attendance* ("Who is the insurer?" over "Insurance renews in July with
    Admiral")."""
    root = doer[:-2]
    return (
        root in _DOER_ROOTS
        and doer.endswith(("er", "or"))
        and noun.endswith(("ance", "ence"))
        and noun[:-4] == root
    )


#: the roots whose doer and *-ance* noun name one trade (an allow-list: *importer* is
#: no doer of *importance*, nor *provider* of *providence*, *clearer* of *clearance*)
_DOER_ROOTS = frozenset(["insur", "assur", "attend", "convey"])


def _sion_noun(verb: str, noun: str) -> bool:
    """``noun`` is ``verb``'s noun in *-sion*: *decide*/*decision* (stems ``decid``,
    ``decision``), *provide*/*provision*, *revise*/*revision*; the root before *sion*
    has at least 4 letters (not *mansion*/*mand*)."""
    root = noun[:-4]
    endings = ("d", "s", "de", "se")  # the stemmer keeps some final e's: "divide"
    if noun.endswith("ssion") and len(noun) >= 9 and verb == noun[:-5] + "t":
        return True  # "permit"/"permission", "submit"/"submission"
    return noun.endswith("sion") and len(root) >= 4 and verb in {root + e for e in endings}


#: plain synonyms a question and a note trade for one act or thing, one group a line
#: ("When does the flight *leave*?" over "departs Lisbon 10:45"; "Who *recommended* the
#: museum?" over "Joana *suggested* it"); a short hand-made list, never of words that
#: differ in degree, direction or time (those are :mod:`kb.rag.polarity`'s antonyms)
_SYNONYMS_TEXT = """
leave depart
end finish expire
start begin commence
suggest recommend advise advice
repair fix
phone telephone
gift present
pick choose select decide
hurt sore ache pain painful
"""


def _synonyms() -> dict[str, frozenset[str]]:
    out: dict[str, set[str]] = {}
    for line in _SYNONYMS_TEXT.strip().splitlines():
        group = {stem(w) for w in line.split()}
        for w in group:
            out.setdefault(w, set()).update(group - {w})
    return {k: frozenset(v) for k, v in out.items()}


#: stem -> the stems of its synonyms (:data:`_SYNONYMS_TEXT`)
SYNONYMS = _synonyms()


def found(word: str, stems: AbstractSet[str], *, synonyms: bool = True) -> bool:
    """``word`` (a stem) is in ``stems`` exactly, one of its plain synonyms is
    (:func:`synonyms_of`, derivations forgiven), it is :func:`near` one of them, or (a
    word too short for :func:`near`) its doer (:func:`agentive`) or its derivation
    (:func:`_y_derivation`: *deny*/*denial*). A word of parts
    (:func:`hyphenated_stem`: ``un-elect``) is found written as one word, exactly
    (``unelect``, which a passage's ``un-elected`` also gives: :func:`content_stems`'
    ``joined``; no typo is forgiven, as ``anglofrench`` would meet ``anglo`` by its
    prefix), or as its parts, each found, stop words aside ("check-in" in "check in
    at 3pm"). Without ``synonyms``, a synonym alone does not find it (quote ranking
    counts a word met only so at half weight)."""
    if word in stems:
        return True
    if synonyms and any(_met(s, stems) for s in synonyms_of(word)):
        return True
    if "-" in word:
        if word.replace("-", "") in stems:  # not near(): "anglofrench" is no "anglo"
            return True
        parts = hyphen_parts(word)
        return bool(parts) and all(found(w, stems, synonyms=synonyms) for w in parts)
    if len(word) >= 5:
        return any(near(word, s) for s in stems)
    return any(agentive(word, s) or _y_derivation(word, s) for s in stems)


@functools.lru_cache(maxsize=4096)
def synonyms_of(word: str) -> frozenset[str]:
    """The stems of :data:`SYNONYMS` of ``word``, or of a word it derives from
    (:func:`near`: *departure* has *depart*'s); empty for most words."""
    if word in SYNONYMS:
        return SYNONYMS[word]
    if len(word) < 5:
        return frozenset()
    return frozenset(s for k, group in SYNONYMS.items() if near(word, k) for s in group)


def _met(word: str, stems: AbstractSet[str]) -> bool:
    """``word`` is in ``stems`` or :func:`near` one of them (a synonym's derivations:
    *depart*/*departure*)."""
    return word in stems or (len(word) >= 5 and any(near(word, s) for s in stems))


#: verbs of 3-4 letters whose doer (``-er``/``-r``) a question and a note trade
#: ("Who *owns* it?" / the *owner* column); an allow-list, since ``-er`` also makes
#: devices and comparatives (*boil*/*boiler*, *time*/*timer*, *late*/*later*) and
#: names end like it (*Tim*/*timer*)
_DOER_VERBS_TEXT = "own use buy pay sell bake lead rent lend send make read ride play sing host"
DOER_VERBS = frozenset(_DOER_VERBS_TEXT.split())


def agentive(a: str, b: str) -> bool:
    """One of ``a`` and ``b`` is the other's doer, ``-er`` or (after ``e``) ``-r``, for a
    verb of :data:`DOER_VERBS` (longer words meet by :func:`near`'s shared prefix:
    ``manage``/``manager``): "Who *owns* the search service?" over a table whose column
    is *owner*; *use*/*user*, *buy*/*buyer*, *pay*/*payer*."""
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    if short not in DOER_VERBS:
        return False
    return long_ == short + ("r" if short.endswith("e") else "er")
