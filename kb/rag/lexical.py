"""Word-level signals for the verifier: content words, numbers and names.

Tokens are runs of letters/digits (``\\w+`` without ``_``), lower-cased, with a light
suffix stemmer (:func:`stem`: ``-ies -> y``, ``-ied -> y`` after a consonant, ``-es``,
``-s``, ``-ing(s)``, ``-ed``, ``-ily -> y``, ``-ly`` stripped when at least three letters
remain, but not from the *-ly* words that are no adverbs, :data:`NOT_ADVERBS`: ``apply``,
``family``, ``early``; ``-ing``/``-ed`` only after a vowel and
with a short word made whole again as Porter's step 1b does: ``saving``/``savings``/
``saved`` -> ``save``, ``running`` -> ``run``), so ``proofs``/``proofing``/``proofed``
meet; the past forms of common irregular verbs stand for the verb (:data:`IRREGULAR`:
``said`` -> ``say``, ``bought`` -> ``buy``) and common abbreviations for their word
(:data:`ABBREVIATED`: ``Dr`` -> ``doctor``, ``Oct`` -> ``october``), and cardinal number
words their value (:data:`NUMBER_WORDS`: ``four`` -> ``4``). A possessive
``'s`` is dropped first (``Warsaw's`` -> ``warsaw``), and the
contractions of stop words (``it's``, ``couldn't``, ``they're``) are stop words.
Numbers are normalised (``1,000`` -> ``1000``, ``02`` -> ``2``, ``2nd`` -> ``2``;
``3.50`` stays ``3.50``).

*Content tokens* are the stems of non-stop words. *Key tokens* are what must never
slip between a claim and its evidence (the strong signal of the TRUE-benchmark
lexical baselines): every number, and every capitalised word that is not the first
word of its sentence (a name). Stop words are never key tokens.

:func:`recall` is ``|claim ∩ passage| / |claim|`` over token sets, ``1.0`` when the
claim has no such tokens (nothing to miss), so it never divides by zero.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import re
from collections.abc import Iterable, Iterator
from collections.abc import Set as AbstractSet

from kb.edits import within
from kb.lang import all_languages, language
from kb.months import MONTH_NAMES
from kb.sentence_spans import BULLET, FIELD_LINE, is_abbreviation

#: a number (its ordinal ending glued on: "2nd", "21st", "100th", which
#: :func:`_number` drops), or a word
_TOKEN = re.compile(
    r"\d+(?:(?<=1)st|(?<=2)nd|(?<=3)rd|th)(?![^\W\d_])"
    r"|\d[\d,]*(?:\.\d+)?|[^\W\d_]+(?:['’][^\W\d_]+)?",
    re.UNICODE,
)
_ORDINAL_END = re.compile(r"(?:st|nd|rd|th)$")

#: English function words, never content words (:mod:`kb.lang.en`)
STOPWORDS = language("en").function_words


#: cardinal number words -> their value, which :func:`stem` gives them, so that a note and
#: a question that trade a word for digits meet ("Where are the 2 spare keys?" over "The
#: two spare keys are in the drawer"; "the remaining four" for "the 4 packages"). Not
#: *one* (a pronoun, "the one in the drawer", and a stop word) nor the scales *hundred*,
#: *thousand*, *million* ("five thousand" is neither 5 nor 1000; "hundreds of people"
#: names no number).
_ONES = (
    "zero two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen"
)
_TENS = "twenty thirty forty fifty sixty seventy eighty ninety"
_ONE_TO_NINE = "one two three four five six seven eight nine"
#: a tens word and a ones word, written with a hyphen or a space: "twenty-one" is 21
#: (not 20 and a stop word), "seventy five" 75
_COMPOUND_NUMBER = re.compile(
    rf"\b({'|'.join(_TENS.split())})[- ]({'|'.join(_ONE_TO_NINE.split())})\b", re.IGNORECASE
)
NUMBER_WORDS: dict[str, str] = {
    word: str(value) for word, value in zip(_ONES.split(), [0, *range(2, 20)], strict=True)
} | {word: str(value) for word, value in zip(_TENS.split(), range(20, 100, 10), strict=True)}


def compound_numbers(text: str) -> str:
    """``text`` with each tens-and-ones number written in words as its digits
    ("twenty-one members" -> "21 members"), so that it is one number, not two."""
    if "ty" not in text.lower():
        return text
    return _COMPOUND_NUMBER.sub(lambda m: _compound_value(m.group(1), m.group(2)), text)


def _compound_value(tens: str, ones: str) -> str:
    return str(int(NUMBER_WORDS[tens.lower()]) + _ONE_TO_NINE.split().index(ones.lower()) + 1)


def _base(word: str) -> str:
    """``word`` lower-cased, with a possessive ``'s`` (or a trailing ``'``) removed."""
    w = word.lower().replace("’", "'")
    if w.endswith("'s"):
        return w[:-2]
    return w.rstrip("'")


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
    a missing content word. Context-local (threads and tasks each keep their own)."""
    token = _FOREIGN.set(foreign_function_words(code))
    try:
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


#: past tense and participle of common irregular verbs -> the verb, and a few nouns
#: whose verb no suffix rule reaches (*flight* -> *fly*, *author* -> *write*, *choice*,
#: *speech*; not *sale*, whose *sell* is the antonym of *buy*). Forms that are also
#: other words are left out (``found``, ``left``, ``saw``, ``lay``, ``felt``, ``rose``,
#: ``spoke``, ``ground``, ``wound``, ``born``, ``lit``, ``shot``, ``fell``, ``bore``).
#: Both sides of a comparison are stemmed alike, so "paid" meets "pays" and "pay".
IRREGULAR: dict[str, str] = {
    form: verb
    for verb, forms in (
        ("say", "said"),
        ("tell", "told"),
        ("make", "made"),
        ("pay", "paid"),
        ("buy", "bought"),
        ("bring", "brought"),
        ("think", "thought"),
        ("teach", "taught"),
        ("catch", "caught"),
        ("sell", "sold"),
        ("send", "sent"),
        ("spend", "spent"),
        ("build", "built"),
        ("lose", "lost"),
        ("meet", "met"),
        ("keep", "kept"),
        ("hold", "held"),
        ("give", "gave given"),
        ("take", "took taken"),
        ("go", "went gone"),
        ("run", "ran"),
        ("win", "won"),
        ("begin", "began begun"),
        ("write", "wrote written"),
        ("choose", "chose chosen"),
        ("break", "broke broken"),
        ("drive", "drove driven"),
        ("eat", "ate eaten"),
        ("fly", "flew flown"),
        ("grow", "grew grown"),
        ("know", "knew known"),
        ("see", "seen"),
        ("speak", "spoken"),
        ("steal", "stole stolen"),
        ("become", "became"),
        ("come", "came"),
        ("lead", "led"),
        ("feed", "fed"),
        ("fight", "fought"),
        ("hide", "hid hidden"),
        ("rise", "risen"),
        ("stand", "stood"),
        ("strike", "struck"),
        ("throw", "threw thrown"),
        ("understand", "understood"),
        ("wear", "wore worn"),
        ("forget", "forgot forgotten"),
        ("freeze", "froze frozen"),
        ("sing", "sang sung"),
        ("sleep", "slept"),
        ("hear", "heard"),
        ("mean", "meant"),
        ("seek", "sought"),
        ("sit", "sat"),
        ("swim", "swam swum"),
        ("withdraw", "withdrew withdrawn"),
        ("draw", "drew drawn"),
        ("get", "got gotten"),
        # nouns of a verb that no suffix rule reaches: "When do I fly back?" is
        # answered by a note's "Flights: ..."
        ("fly", "flight flights"),
        ("write", "author authors"),  # "Who wrote Piranesi?" over an Author column
        ("choose", "choice choices"),
        ("speak", "speech speeches"),
        # a place's people are its population ("How many people live in Victoria?"
        # over "Victoria has a population of 5.4 million")
        ("people", "population populations"),
    )
    for form in forms.split()
}

#: abbreviations written for a word in notes and papers -> the word (after lower-casing
#: and dropping the dot). ``St`` (street, saint) and ``may`` are ambiguous and left out.
ABBREVIATED: dict[str, str] = {
    "dr": "doctor",
    "prof": "professor",
    "mt": "mount",
    "govt": "government",
    "dept": "department",
    "univ": "university",
    "approx": "approximately",
    "jan": "january",
    "feb": "february",
    "mar": "march",
    "apr": "april",
    "jun": "june",
    "jul": "july",
    "aug": "august",
    "sep": "september",
    "sept": "september",
    "oct": "october",
    "nov": "november",
    "dec": "december",
    # short forms in personal notes ("cert expiry", "thermostat temp", "dentist appt"),
    # and their plurals by the rule in :func:`stem` ("certs"); not "mins", "hrs": "40 min"
    # and "40 mins" must stay one unit
    "temp": "temperature",
    "cert": "certificate",
    "appt": "appointment",
    "info": "information",
    "config": "configuration",
    "mgr": "manager",
    "qty": "quantity",
    "pkg": "package",
    "addr": "address",
    "msg": "message",
    "pwd": "password",
    "acct": "account",
    "amt": "amount",
    "avg": "average",
    "ref": "reference",
    "reg": "registration",
    "tel": "telephone",
    "num": "number",
}


_VOWEL = re.compile(r"[aeiouy]")
#: a consonant-vowel-consonant stem (``qu`` is one consonant: ``quot``, ``equip``)
_CVC = re.compile(r"^(?:qu|[^aeiou])*[aeiouy][^aeiouwxy]$")
_CVC_END = re.compile(r"(?:qu|[^aeiou])[aeiouy][^aeiouwxy]$")
#: stem ends that English spells only with a silent ``e`` after them, so a stripped
#: ``-ed``/``-ing``/``-es`` takes it back: ``-ue`` (*argue*, *issue*, *value*), a
#: vowel pair before ``s`` or ``z`` (*cause*, *raise*, *house*, *release*, *seize*; not
#: ``-ias``: *bias*, *alias*), ``-ize``, ``-nce`` after a vowel (*dance*, *announce*;
#: not *sync*), ``-rce``/``-lce``/``-uce`` (*force*, *reduce*), ``-dge``/``-rge``/``-lge``
#: (*judge*, *urge*, *bulge*; not ``-ng``: *bang*, *long*) and ``-ve`` (*serve*, *solve*)
_SILENT_E = re.compile(r"(?:u|(?!ia)[aeiou][aeiou][sz]|iz|[aeiou]nc|[rlu]c|[dlr]g|v)$")
#: the short words ending in ``s`` whose plural adds ``-es`` (*buses*, *gases*); any
#: other plural in ``-ses`` whose stem would be 4 letters or fewer keeps its ``e``
#: (*cases*, *closes*, *nurses*, *phases*: stripped to ``cas``, ``clos`` they met
#: neither *case* nor *close*, too short for :func:`near`; longer ones meet their
#: singular by its prefix: ``purpos``/``purpose``)
_S_SINGULARS = frozenset({"bus", "gas", "lens", "plus", "yes", "iris"})


def _restored(base: str) -> str:
    """The word a stripped ``-ing``/``-ed`` leaves, made whole for short stems as
    Porter's step 1b does (a stem of 5+ letters meets its word through :func:`near`
    anyway: ``creat``/``create``): a doubled final consonant is single when that leaves
    a consonant-vowel-consonant end (``runn`` -> ``run``, ``stopp`` -> ``stop``; not
    ``add``, ``staff``, ``fill``, ``miss``), and a short consonant-vowel-consonant
    stem takes its ``e`` back (``sav`` -> ``save``, ``hop`` -> ``hope``, ``bak`` ->
    ``bake``, ``quot`` -> ``quote``, *qu* being one consonant; not after ``w``, ``x``,
    ``y``: ``fix``, ``play``), as does any stem whose
    end English spells only with a silent ``e`` (:data:`_SILENT_E`: ``caus`` ->
    ``cause``, so "What *caused* it?" meets "Root *cause*:"; a 4-letter stem is too short
    for :func:`near` to forgive)."""
    if len(base) >= 3 and base[-1] == base[-2] and base[-1] not in "aeiouylszf":
        if _CVC_END.search(base[:-1]):
            return base[:-1]
        return base
    if _CVC.match(base) or _SILENT_E.search(base):
        return base + "e"
    return base


#: words in *-ly* that are no adverb made of a shorter word: they keep their *-ly*, so
#: ``apply`` meets ``applied``/``applies``, ``family`` meets ``families`` and ``early``
#: is no *ear* (a closed list of common English words and names)
_NOT_ADVERBS_TEXT = """
    apply supply reply imply comply multiply family assembly anomaly monopoly homily italy
    sicily early belly bully jelly rally tally folly holly lily ugly holy silly jolly emily
    kelly sally molly billy polly"""
NOT_ADVERBS = frozenset(_NOT_ADVERBS_TEXT.split())


def stem(word: str) -> str:
    """Light English suffix stripping (see the module docstring); numbers unchanged."""
    w = _base(word)
    if w not in ABBREVIATED and w.endswith("s") and w[:-1] in ABBREVIATED:
        w = ABBREVIATED[w[:-1]] + "s"  # "certs" -> "certificates"
    w = ABBREVIATED.get(w, w)
    if w in NUMBER_WORDS:
        return NUMBER_WORDS[w]
    if w in IRREGULAR:
        return stem(IRREGULAR[w])
    if not w.isalpha() or len(w) <= 3:
        return w
    for suffix in ("ings", "ing", "ed"):
        base = w[: -len(suffix)]
        if w.endswith(suffix) and len(base) >= 3 and not w.endswith("eed"):
            if suffix == "ed" and base[-1] == "i" and base[-2] not in "aeiou":
                return base[:-1] + "y"  # "studied" -> "study", as "studies" -> "study"
            return _restored(base) if _VOWEL.search(base) else w
    if w in NOT_ADVERBS:
        return w
    if w.endswith("ily") and len(w) >= 5:
        return w[:-3] + "y"  # "easily" -> "easy", "daily" -> "day"
    if w.endswith("ies") and len(w) >= 5:
        return w[:-3] + "y"  # "studies" -> "study", "tries" -> "try" ("dies" -> "die")
    for suffix, repl in (("sses", "ss"), ("ly", "")):
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            return w[: -len(suffix)] + repl
    if w.endswith("es") and len(w) > 4 and w[-3] in "sxz":
        base = w[:-2]
        if _SILENT_E.search(base) or (w[-3] == "s" and len(base) <= 4 and base not in _S_SINGULARS):
            return w[:-1]
        return base
    if w.endswith("s") and not w.endswith("ss") and len(w) > 3:
        return w[:-1]
    return w


def _number(tok: str) -> str:
    """A number token normalised: commas, an ordinal ending and the leading zeros of
    its whole part dropped ("1,000" -> "1000", "2nd" -> "2", "02" -> "2", "0.5" and
    "3.50" stay)."""
    num = _ORDINAL_END.sub("", tok.replace(",", ""))
    whole, dot, frac = num.partition(".")
    return (whole.lstrip("0") or "0") + dot + frac


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
            out.add(_number(t))
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
    their content stems already), claims with ``names=True``.
    """
    out: set[str] = set()
    first = True
    toks = list(_TOKEN.finditer(text))
    for i, m in enumerate(toks):
        t = m.group(0)
        if t[0].isdigit():
            num = _number(t)
            out.add(num)
            if i + 1 < len(toks):
                nxt = toks[i + 1].group(0)
                gap = text[m.end() : toks[i + 1].start()]
                if not nxt[0].isdigit() and not is_stopword(nxt) and len(gap) <= 2:
                    out.add(f"{num} {stem(nxt)}")
        elif names and t[0].isupper() and not first and not is_stopword(t):
            out.add(stem(t))
        first = ends_sentence(text, m.end())
    return out


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


def number_value(token: str) -> str:
    """A number token's value as text: commas, leading zeros and a decimal part's
    trailing zeros dropped ("09" -> "9", "3.50" -> "3.5", "1,500" -> "1500")."""
    whole, _, frac = _number(token).partition(".")
    whole = whole.lstrip("0") or "0"
    frac = frac.rstrip("0")
    return f"{whole}.{frac}" if frac else whole


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


#: a month's name as a date writes it: capitalised, as a month always is and "may",
#: "march" or "sun" as words are not
MONTH_NAME = (
    r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?"
    r"|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\b\.?"
)
#: a month's name in any case
_MONTH = rf"(?i:{MONTH_NAME})"
#: a date as a pattern: ISO, or a day with its month's name ("3 May", "May 3", "3rd May")
DAY_DATE = (
    rf"\b\d{{4}}-\d{{2}}-\d{{2}}\b|\b\d{{1,2}}(?:st|nd|rd|th)?\s+{_MONTH}|{_MONTH}\s+\d{{1,2}}\b"
)

#: what a number with a unit answers: "30 °C" answers a question about a *temperature*,
#: "375 g" one about *grams* or *weight* (stems of the words a question would use)
_UNIT_WORDS: tuple[tuple[re.Pattern[str], frozenset[str]], ...] = tuple(
    # a number glued to letters before it is part of a name or code ("B05S"), not a
    # quantity; one after "<digit>x" is a dimension's ("20x30 cm")
    (
        re.compile(rf"(?:(?<![^\W_])|(?<=\d[x×]))\d+\s*(?:{units})(?![^\W\d_])", re.IGNORECASE),
        frozenset(words),
    )
    for units, words in (
        (
            r"°\s*[cf]|°|degrees?|celsius|fahrenheit",
            ["temperature", "degree", "hot", "warm", "cold", "cool"],
        ),
        (
            r"mg|g|grams?|kg|kilograms?|lbs?|pounds?|oz|ounces?|tonnes?|tons?",
            ["gram", "weight", "heavy", "light", "mass"],
        ),
        (
            r"mm|cm|m|km|(?:milli|centi|kilo)?met(?:re|er)s?|miles?|ft|feet|foot|inch(?:es)?"
            r"|yards?|yds?",
            # and any unit of length: "How many miles east of Berlin?" over "523 km
            # (325 mi)" asks for the distance in the unit it knows
            ["distance", "length", "far", "tall", "height", "wide", "width"]
            + ["mile", "kilometre", "kilometer", "metre", "meter", "foot", "feet", "yard"],
        ),
        (r"ml|l|litres?|liters?|gallons?", ["volume", "litre", "liter", "capacity"]),
        (
            r"ms|milliseconds?|s|secs?|seconds?|min|mins|minutes?|h|hrs?|hours?|days?|weeks?"
            r"|months?|years?",
            ["time", "duration", "long", "latency", "delay"],
        ),
        # and *rate*: "What is the mortgage rate?" over "4.19% fixed for 5 years"
        (r"%|percent|per\s*cent", ["percentage", "percent", "share", "proportion", "rate"]),
    )
) + (
    (
        re.compile(r"[$£€¥]\s*\d|\d\s*(?:dollars?|euros?|pounds?|usd|eur|gbp)\b", re.IGNORECASE),
        # and *fee*, *charge*: "How much does the accountant charge?" over "Her fee
        # for the tax return is £350"
        frozenset(["cost", "price", "pay", "paid", "spend", "spent", "worth", "fee", "charge"]),
    ),
    # a speed: "300 km/h", "70 mph", "9.81 metres per second" ("How fast ...?"); not
    # among the quantity kinds (:data:`_KINDS`), whose patterns come first
    (
        re.compile(
            r"(?<![^\W_])\d+(?:[.,]\d+)?\s*(?:km/h|kph|mph|m/s|km/s|knots?"
            r"|(?:(?:kilo)?met(?:re|er)s?|miles?|feet|foot|km)\s+(?:per|an?)\s+"
            r"(?:second|hour|minute))(?![^\W\d_])",
            re.IGNORECASE,
        ),
        frozenset(["speed", "fast", "velocity"]),
    ),
    # a road distance says a *mileage* ("oil changed at 48,200 miles")
    (
        re.compile(r"(?<![^\W_])\d+\s*(?:miles?|km|kilomet(?:re|er)s?)(?![^\W\d_])", re.I),
        frozenset(["mileage"]),
    ),
    # a measure of two or three sides says a *size*: "203 by 133 millimetres", "20x30
    # cm", "2 m x 3 m" ("What size is the lintel?"); one length alone is no size ("the
    # team drove 40 miles")
    (
        re.compile(
            r"(?<![^\W_])\d+(?:[.,]\d+)?\s*(?:[a-z]{1,2}\s*)?(?:by|x|×)\s*\d+(?:[.,]\d+)?"
            r"(?:\s*(?:[a-z]{1,2}\s*)?(?:by|x|×)\s*\d+(?:[.,]\d+)?)?\s*"
            r"(?:mm|cm|m|km|(?:milli|centi)?met(?:re|er)s?|ft|feet|foot|inch(?:es)?|yards?)"
            r"(?![^\W\d_])",
            re.IGNORECASE,
        ),
        frozenset(["size", "dimension", "dimensions", "big", "large"]),
    ),
    # a tyre's size as its sidewall writes it, width/profile, construction and rim:
    # "205/55 R16", "225/45ZR17", "195/65 R15 91V" ("What size are the tyres?")
    (
        re.compile(r"(?<![\w/])\d{3}/\d{2}\s*Z?R\s*\d{2}(?!\d)", re.IGNORECASE),
        frozenset(["size", "tyre", "tire"]),
    ),
    # an oven's temperature as recipes write it: "gas mark 4", and "180C", "350F" (two
    # or three digits and a capital: "3 c sugar" is cups) in a sentence about cooking
    # ("Seat 14C", "flat 12F" and "size 34C" are no temperature)
    (
        re.compile(
            r"(?is)\bgas\s+mark\s+\d|^(?=.*\b(?:oven|bak\w*|roast\w*|preheat\w*|fan|heat\w*"
            r"|cook\w*|grill\w*|fry\w*)\b).*?(?<![^\W_])\d{2,3}(?-i:[CF])(?![^\W\d_])"
        ),
        frozenset(["temperature", "degree", "hot", "warm", "oven"]),
    ),
    # a time of day: "09:40", "09:40:00", "at 7:15", "7pm", "9.30 a.m." ("What time do
    # we land?"); a one-digit hour only after at/by/from/until ("Dilute 1:10", "John
    # 3:16" are no time), nothing past 23:59 ("10:79")
    (
        re.compile(
            r"(?<![\d:.])(?:[01]\d|2[0-3]):[0-5]\d(?::[0-5]\d)?(?![\d:])"
            r"|\b(?:at|by|from|until|till|before|after|around)\s+\d:[0-5]\d(?![\d:])"
            r"|(?<![\w.])(?:1[0-2]|0?[1-9])(?:[.:][0-5]\d)?\s?(?:[ap]\.m\.|[ap]m\b)",
            re.IGNORECASE,
        ),
        frozenset(["time", "clock"]),
    ),
    # minutes and seconds past 23:59, no clock: a race's or a lap's time ("Parkrun:
    # 24:31" answers "What was my parkrun time?")
    (re.compile(r"(?<![\d:.])(?:2[4-9]|[3-5]\d):[0-5]\d(?![\d:])"), frozenset(["time"])),
    # values whose shape says what they are: an IP address, a date (ISO, or a day with
    # its month's name); e-mail and web addresses are in _TEXT_SHAPES
    (
        re.compile(r"(?<![\d.])\d{1,3}(?:\.\d{1,3}){3}(?![\d.]\d)"),
        frozenset(["ip", "address"]),
    ),
    (
        re.compile(
            DAY_DATE,
            re.IGNORECASE,
        ),
        frozenset(["date", "day"]),
    ),
    # an identifier: capitals and digits, 4 characters or more with its - or / ("B-52"),
    # two or more digits, and a capital before a digit ("HX-44821", "B05S", "A380",
    # "7/AB-22"): a policy, order or serial *number*, a *code*. None: all-digit values
    # (years, amounts), a number with a unit in capitals ("16GB", "10AM", "240V"), and
    # words with small letters
    (
        re.compile(
            r"(?<![\w/-])(?=[A-Z\d/-]{4})(?=[A-Z\d/-]*[A-Z][A-Z/-]*\d)"
            r"(?=(?:[A-Z/-]*\d){2})[A-Z\d]+(?:[-/][A-Z\d]+)*(?![\w/-])"
        ),
        frozenset(["number", "code", "id", "reference", "serial"]),
    ),
    # a version: "v2", "1.4.2" (not a fourth part: an IP address), or a name with a
    # number of one or two digits right after it ("Postgres 16", "Python 3.11",
    # "Android 9"; not a day after its month, "March 12", nor before it, "Installed
    # 14 March"), which "Which Postgres *version* do we use?" asks for
    (
        re.compile(
            r"(?<![\w.])(?:v\d+(?:\.\d+){0,2}|\d+\.\d+\.\d+)(?![\w.]*\d)"
            rf"|\b(?!(?i:{_MONTH}))[A-Z][a-zA-Z]+ \d{{1,2}}(?:\.\d+){{0,2}}(?![\w.,:]?\d)"
            rf"(?!\s+{MONTH_NAME})"
        ),
        frozenset(["version"]),
    ),
    # a rating: "5 stars", "4.5 out of 5", "8/10" after a colon, a dash, a cell's bar
    # or *rated* (not a date's "4/5/2026", nor an address's "Flat 4/5"), a full stop
    # after it or not ("Piranesi: 5/5."): "What rating did I give it?" over "gave it 5
    # stars", "Which book did I rate highest?"
    (
        re.compile(
            r"(?<![^\W_])\d{1,2}(?:[.,]5)?\s*(?:stars?\b|out\s+of\s+(?:5|10)\b(?!\s+[a-z]))"
            r"|(?:^|[:|(–—-]|\b(?:rated|rating|scored?|gave\s+it))\s*"
            r"\d{1,2}(?:[.,]5)?\s*/\s*(?:5|10)(?![\w/]|\.\d)",
            re.IGNORECASE,
        ),
        frozenset(["rating", "rate", "score", "star"]),
    ),
    # a product's *model*: a brand's capitalised name, then a token of letters and
    # digits ("Worcester Greenstar 30i", "Synology DS220+", "Brother HL-L2350DW":
    # "What is the boiler model?"), or a name written in mixed case then a number, one
    # word between at most ("Vaillant ecoTEC plus 832", "iPhone 15", "PlayStation 5");
    # not a number alone after a plain word ("Level 3", "Room 12", "Bus 73"), nor a
    # day's ordinal ("March 12th"), nor a *Mc* name ("McDonald 3")
    (
        re.compile(
            r"(?<![\w-])[A-Za-z]*[A-Z][A-Za-z!]* (?!\d+(?:st|nd|rd|th)\b)"
            r"(?=[\w+/-]*\d)(?=[\w+/-]*[A-Za-z])[A-Za-z\d][\w+/-]*"
            r"|(?<![\w-])(?!Mc[A-Z])[A-Za-z]*[a-z][A-Z][A-Za-z]*(?: [A-Za-z]+)? \d+"
            r"(?![\d.,:/]\d|\s*(?:st|nd|rd|th)\b)"
        ),
        frozenset(["model"]),
    ),
)
_DIGIT = re.compile(r"\d")
#: the kind of quantity each of the first :data:`_UNIT_WORDS` patterns reads (the
#: currency one last), for :func:`quantities`
_KINDS = ("temperature", "weight", "distance", "volume", "time", "percent", "money")
_QUANTITY_PATTERNS = tuple(zip(_KINDS, (p for p, _ in _UNIT_WORDS[: len(_KINDS)]), strict=True))
_NUMBER_TOKEN = re.compile(r"\d+(?:[.,]\d+)*")
_NOT_UNIT = re.compile(r"[\d\s.,]")


def quantities(text: str) -> list[tuple[str, frozenset[str], str]]:
    """Each number of ``text`` as ``(value, kinds, as written)``: its value
    (:func:`number_value`), the kinds of quantity its unit says (:data:`_KINDS`:
    ``30 °C`` -> temperature, ``30 minutes`` -> time, ``£30`` -> money; empty for a
    bare number, a year, a code's digits, and a number with a one-letter unit, which
    says too little: ``30m`` may be metres, minutes or millions, ``30s`` seconds or an
    age) and the number with its unit as ``text`` writes it. A number may read as two
    kinds (``20 pounds``: weight and money)."""
    numbers = [(m.start(), m.end(), m.group()) for m in _NUMBER_TOKEN.finditer(text)]
    if not numbers:
        return []
    kinds: dict[int, set[str]] = {}
    spans = [(a, b) for a, b, _ in numbers]
    for kind, pattern in _QUANTITY_PATTERNS:
        for m in pattern.finditer(text):
            unit = _NOT_UNIT.sub("", m.group())
            if len(unit) == 1 and unit.isalpha():
                continue  # "30m", "30s", "5g": minutes or metres, seconds or the 1930s
            digit = m.start() + _DIGIT.search(m.group()).start()  # type: ignore[union-attr]
            for i, (a, b, _) in enumerate(numbers):
                if a <= digit < b:
                    kinds.setdefault(i, set()).add(kind)
                    spans[i] = (min(spans[i][0], m.start()), max(spans[i][1], m.end()))
                    break
    return [
        (number_value(t), frozenset(kinds.get(i, ())), text[spans[i][0] : spans[i][1]].strip())
        for i, (_, _, t) in enumerate(numbers)
    ]


#: a phone number: 2 to 5 groups of digits split by spaces or dashes (not dots: an IP
#: address), with a country code or not ("+44 20 7946 0958", "0800 051 5260",
#: "(555) 010-4477"); it counts only with 9 to 15 digits in all, so a date
#: ("2026-12-01") or a year range is none. A comma or dot right after it ends it unless
#: a digit follows ("0871 234 567, sean@…" is a phone number; "1,250,000" is not). A UK
#: mobile writes a group of six after a 0 and four ("07700 900123")
_PHONE = re.compile(
    r"(?<![\w.,])(?:(?:\+\d{1,3}[ -]?)?\(?\d{2,5}\)?(?:[ -]\d{2,5}){1,4}|0\d{4}[ -]\d{6})"
    r"(?!\w|[.,]\d)"
)
_PHONE_STEMS = frozenset(
    stem(w) for w in ("phone", "telephone", "mobile", "cell", "number", "call", "contact")
)
#: the patterns with their words' stems, all of which need a digit in the text
_UNIT_STEMS = tuple((p, frozenset(stem(w) for w in words)) for p, words in _UNIT_WORDS)
#: shapes without a digit, each with the substrings one of which it must contain
_CAUSE_HINTS = ("ecause", "ue to", "wing to", "aused by", "esult of")
#: verbs after "due to" that make it a schedule, not a cause ("The rent is due to
#: increase in April", "due to be repaired")
_DUE_VERBS = (
    "be|start|begin|arrive|increase|rise|fall|drop|end|finish|open|close|expire|leave"
    "|return|launch|run|go|come|renew|complete|pay|land|depart|retire|meet|change|move"
    "|reopen|restart|take|get|have|make|ship|appear|speak|visit|give"
)
#: the words that give a cause: "X because Y", "X due to Y", "Because Y, X" (not
#: "thanks to", mostly gratitude: "Thanks to everyone who came")
_CAUSE = re.compile(
    rf"\bbecause\b|\b(?:due|owing)\s+to\b(?!\s+(?:{_DUE_VERBS})\b)|\bcaused\s+by\b"
    r"|\bas\s+a\s+result\s+of\b",
    re.IGNORECASE,
)
_CAUSE_WORDS = ("cause", "reason")
#: what a sentence that gives a cause says (:data:`_TEXT_SHAPES`)
CAUSE_STEMS = frozenset(stem(w) for w in _CAUSE_WORDS)


def effect_clause(text: str) -> str | None:
    """The part of ``text`` that a cause it gives is the cause *of*: before the first
    cue ("The staging environment was down" of "… was down because the TLS certificate
    expired"), or after the comma that ends a leading cue's clause ("the match was off"
    of "Due to rain, the match was off"; the whole sentence when no comma ends it);
    ``None`` without a cue. "What caused the certificate to expire?" asks about the
    cause clause, which the sentence does not explain."""
    m = _CAUSE.search(text)
    if m is None:
        return None
    before = text[: m.start()].lstrip()
    if bullet := BULLET.match(before):
        before = before[bullet.end() :]
    if ":" in before and FIELD_LINE.match(before + text[m.start() :]):
        before = before[before.index(":") + 1 :]  # a key's label: "Tuesday: because ..."
    if before.strip(" \t-*+•>\"'("):
        return text[: m.start()]
    comma = text.find(",", m.end())
    return text[comma + 1 :] if comma >= 0 else text


_TEXT_SHAPES: tuple[tuple[tuple[str, ...], re.Pattern[str], frozenset[str]], ...] = tuple(
    (hints, re.compile(pattern, re.IGNORECASE), frozenset(stem(w) for w in words))
    for hints, pattern, words in (
        (("@",), r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+", ["email", "mail", "address", "contact"]),
        (
            ("://", "www.", "WWW."),
            r"\bhttps?://|\bwww\.\w",
            ["url", "link", "website", "site", "page", "address", "web"],
        ),
        # inline code in Markdown: what a runbook tells you to type
        (("`",), r"`[^`\n]+`", ["command", "code"]),
        # a cause the sentence gives ("The staging environment was down because the TLS
        # certificate expired": "What *caused* the staging outage?", "What was the
        # *reason* ...?"); of what it is the cause: :func:`effect_clause`
        (_CAUSE_HINTS, _CAUSE.pattern, list(_CAUSE_WORDS)),
        # a street address, a house number (not a year: "In 2019 Park Lane opened")
        # and a street ("14 Elm Road", "221B Baker Street"; not *Court*, *Drive*,
        # *Way*, *Place*: "Article 3 Supreme Court", "Season 2 Test Drive"), or a UK
        # postcode ("BS6 7QA"; not "M2 8GB", "Q3 2PM"), or the street first and the
        # number after it, as most of Europe writes them ("Rua dos Remédios 42", "Calle
        # de Atocha 27", "Via del Corso 12", "Hauptstraße 5", "Keizersgracht 123" is
        # missed): "What is the address of the property?"
        (
            ("Road", "Street", "Lane", "Avenue", "Close", "Crescent", "Terrace", "Gardens")
            + ("Square", "Grove", "Mews", "Rd", "St", "Ave")
            + tuple("0123456789"),
            r"(?-i:\b(?!(?:1[5-9]|20)\d\d\b)\d{1,4}[A-Z]?,?\s+(?:[A-Z][a-z]+\s+){1,3}"
            r"(?:Road|Street|Lane|Avenue|Close|Crescent|Terrace|Gardens|Square|Grove|Mews|Rd"
            r"|St|Ave)\b|\b[A-Z]{1,2}\d[A-Z\d]?\s+\d(?!GB|TB|MB|KB|PM|AM)[A-Z]{2}\b"
            r"|\b(?:Rua|Rue|Via|Viale|Calle|Avenida|Avinguda|Carrer|Praça|Plaza|Piazza|Largo"
            r"|Travessa|Ulica|Boulevard)\s+(?:(?:d[aeiou]s?|del|della|des|de\s+la|du|la|le"
            r"|l')\s*)?(?:[A-Z][^\W\d_]+\s+){1,3}\d{1,4}[a-zA-Z]?\b"
            r"|\b[A-Z][^\W\d_]*(?:straße|strasse|gasse|weg|platz|allee|ring)\s+\d{1,4}[a-z]?\b)",
            ["address", "street", "postcode"],
        ),
    )
)

#: what a title's author line (:func:`authored`) and a reference (:func:`cited`) say
AUTHOR_STEMS = frozenset(stem(w) for w in ("author", "wrote", "write", "written", "writer"))
#: a reading list's line: an item marker, perhaps a short label ("Currently reading:"),
#: then the title (capitalised words, emphasis or quotes around it) and "by" a name
_TITLE_LINE = re.compile(
    r"^[ \t]*(?:[-*+•][ \t]+|\d+[.)][ \t]+)?(?:[^:\n]{1,30}:[ \t]+)?"
    r"(?P<title>[*_\"“‘']*[A-Z0-9][^\n]*?)[ \t]+by[ \t]+"
    r"(?P<name>[A-Z][\w'’.-]*(?:[ \t]+[A-Z][\w'’.-]*){0,2})",
    re.MULTILINE,
)
#: a title closed by a quote, emphasis or a link anywhere: '"The Overstory" by Richard
#: Powers', "*Slow Horses* by Mick Herron", "[Piranesi](https://…) by Susanna Clarke"
_CLOSED_TITLE = re.compile(
    r"(?:[\"”’*_]|\]\([^)\s]*\))[ \t]+by[ \t]+(?P<name>[A-Z][\w'’.-]*(?:[ \t]+[A-Z][\w'’.-]*){0,2})"
)
_TITLE_WORD = re.compile(r"[^\W\d_][\w'’-]*")
#: small words a title holds in lower case ("Tomorrow, and Tomorrow", "Lord of the Flies")
_TITLE_JOINERS_TEXT = "a an the and or of in on to for at with from by nor but as & de la"
_TITLE_JOINERS = frozenset(_TITLE_JOINERS_TEXT.split())
#: a past participle's agent, not a title's author ("Paid by Dad", "Built by Hale
#: Heating"); a one-word "title" ending in -ed is one too ("Designed by ...")
_PARTICIPLES_TEXT = """paid sent made built run taken chosen caught bought done given held led
    told won sold brought found kept left met driven seen shown known grown drawn thrown set
    put cut hit read"""
_PARTICIPLES = frozenset(_PARTICIPLES_TEXT.split())
#: what follows *by* that is no author: a deadline ("Ship by Friday", "Due by EOD", "by
#: Q3"), a way of travel or payment ("by Train", "by Direct Debit")
_NOT_AUTHOR = re.compile(
    rf"(?:{MONTH_NAME}|(?:Mon|Tue|Tues|Wed|Wednes|Thu|Thur|Thurs|Fri|Sat|Satur|Sun)(?:day)?\b"
    r"|(?:EOD|EOW|EOM|EOY|COB|Q[1-4]|Noon|Midnight|End|Close|Christmas|Easter|Boxing"
    r"|Tomorrow|Today|Tonight|Next|Train|Car|Bus|Coach|Plane|Air|Sea|Ferry|Taxi|Bike"
    r"|Foot|Tube|Rail|Eurostar|Phone|Email|E-mail|Post|Courier|Hand|Cheque|Check|Card"
    r"|Cash|Transfer|Direct|BACS|PayPal)\b)"
)


def authored(text: str) -> bool:
    """``text`` names a title and its author, as a reading list writes them
    ("Piranesi by Susanna Clarke", "- Currently reading: Slow Horses by Mick Herron",
    '"The Overstory" by Richard Powers' anywhere), which says who *wrote* it: "Who
    wrote Piranesi?" was refused for *wrote*. The title opens its line (after a list
    marker and a short label) and is in title case (small joining words aside), or it
    is closed by a quote, emphasis or a link; the author is one to three capitalised
    words. Not an author: a participle's agent ("Paid by Dad", "Designed by Frank
    Gehry", "installed in 2019 by Hale Heating": mid-sentence), a deadline or a way
    ("Ship by Friday", "Essay by Fri", "Due by EOD", "Travel by Train"), a word
    repeated ("Side by Side", "Step by Step") and prose ("the translation of the Bible
    by Martin Luther" does not open its line)."""
    for m in _CLOSED_TITLE.finditer(text):
        if _NOT_AUTHOR.match(m.group("name")) is None:
            return True
    for m in _TITLE_LINE.finditer(text):
        name, words = m.group("name"), _TITLE_WORD.findall(m.group("title"))
        if not words or _NOT_AUTHOR.match(name) is not None:
            continue
        if any(w[0].islower() and w.lower() not in _TITLE_JOINERS for w in words):
            continue  # a sentence, not a title: "Sintra by train", "the bins by Friday"
        last = words[-1].lower()
        if last in _PARTICIPLES or (len(words) == 1 and last.endswith("ed")):
            continue
        if last == name.split()[0].lower():
            continue  # "Side by Side"
        return True
    return False


#: a reference as reading notes and bibliographies write it under a work's title: a
#: person's name (two to four capitalised words or initials, *Le*/*van*/*de* allowed)
#: and a year, and nothing else ("Ursula K. Le Guin, 1974.", "- Daniel Kahneman
#: (2011)")
_CITED = re.compile(
    r"^[ \t]*(?:[-*+•][ \t]+)?(?P<name>[A-Z][\w'’-]*\.?"
    r"(?:[ \t]+(?:[A-Z][\w'’-]*\.?|van|von|de|da|del|di|le|la)){1,3})"
    r"(?:,[ \t]*|[ \t]+(?=\())\(?(?:1[5-9]|20)\d\d\)?[ \t]*\.?[ \t]*$"
)


def cited(text: str) -> bool:
    """``text`` (a sentence) is a reference, a name and a year alone (:data:`_CITED`),
    which says who *wrote* the work its heading names: "Who wrote The Dispossessed?"
    over "## The Dispossessed" / "Ursula K. Le Guin, 1974." Not a date ("March 3,
    2026"), a place of one word ("Paris, 2019"), a name that is no one's
    (:data:`_NOT_AUTHOR`: "Christmas Day, 2025") or a publisher's ("Bloomsbury
    Publishing, 2020")."""
    m = _CITED.match(text)
    if m is None or _NOT_AUTHOR.match(m.group("name")) is not None:
        return False
    return _PUBLISHER.search(m.group("name")) is None


#: a name that is a publisher's, not an author's ("Bloomsbury Publishing, 2020.")
_PUBLISHER = re.compile(r"\b(?:Publishing|Publishers?|Press|Books|Classics|Ltd|Inc)\b")


_YEAR = r"(?:1[5-9]|20)\d\d\b(?![.,]\d)"
_DAY = r"\d{1,2}(?:st|nd|rd|th)?\b"
_NUMERIC_DATE = r"\d{4}-\d{2}-\d{2}\b|\d{1,2}[./]\d{1,2}[./]\d{2,4}\b"
#: a date: a day and a month, a month (with its day) and a year, an ISO or numeric date,
#: a weekday, a quarter
_DATE = (
    rf"{_DAY}\s+{MONTH_NAME}(?:,?\s+{_YEAR})?|{MONTH_NAME}(?:\s+{_DAY})?(?:,?\s+{_YEAR})?"
    rf"|{_NUMERIC_DATE}|(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day\b|Q[1-4]\b"
)
_AROUND = r"(?i:in|on)\s+"
#: a point in time after a word that bounds a span: a date (above) or a year, after "in"
#: or "on", "the end of", "mid", "early" or "late" at most
_WHEN = (
    rf"(?:{_AROUND})?(?:(?i:(?:the\s+)?(?:end|start|beginning)\s+of\s+|mid-?\s*|early\s+"
    rf"|late\s+))?(?:{_DATE}|{_YEAR})"
)
#: after "from" or "between", which also name people ("an e-mail from June", "from
#: Jan"), a month alone is no point in time: the date needs its day or year there, or a
#: range's end after it ("from March to April"); a month no one is named after, written
#: out, is one ("Priya hosts from January")
_FROM_WHEN = (
    rf"(?:{_AROUND})?(?:{_DAY}\s+{MONTH_NAME}(?:,?\s+{_YEAR})?"
    rf"|{MONTH_NAME}\s+(?:{_DAY}(?:,?\s+{_YEAR})?|{_YEAR})|{_NUMERIC_DATE}|{_YEAR}"
    r"|(?:January|February|March|July|September|October|November|December)\b(?!\s*\d))"
)
_RANGE = (
    rf"\b(?i:from|between)\s+(?:{_FROM_WHEN}|{MONTH_NAME})\s*(?i:to|and|until|till|-|–)\s*"
    rf"(?:{_WHEN}|{_DAY})"
)
#: two dates with their years, a span without *from*: "Period of cover: 1 February 2026
#: to 31 January 2027", "March 2025 – June 2026", "2026-02-01 to 2027-01-31" ("When does
#: the insurance end?"); a year alone is no date here ("2019 to 2021 prices")
_DATED = (
    rf"(?:{_DAY}\s+{MONTH_NAME},?\s+{_YEAR}|{MONTH_NAME}\s+(?:{_DAY},?\s+)?{_YEAR}"
    rf"|{_NUMERIC_DATE})"
)
_BARE_RANGE = rf"(?<![\w/.-]){_DATED}\s*(?i:to|until|till|-|–|—)\s*{_DATED}"
#: the words a span's end and start say ("When does the course *finish*?")
END_WORDS = frozenset(stem(w) for w in ["end", "expire", "expiry", "finish"])
#: what an end in time says beside :data:`END_WORDS`: "When is the car insurance up for
#: *renewal*?" over "with Direct Line until June 2026" (and, as :func:`found` forgives
#: derivations, *renew*, *renewed*), and "When is Elena *back*?" over "on holiday until
#: Thursday" (an absence that ends: *back*, *return*). Not end words themselves: "its
#: renewal is yearly" says no end that would answer "When did the policy end?"
_END_SAYS = END_WORDS | {stem("renewal"), stem("back"), stem("return")}
START_WORDS = frozenset(stem(w) for w in ["start", "begin", "commence"])
#: a span's bound in time says what the question asks about it: "warranty until March
#: 2026" answers "When does the warranty *end*?", "since 2019" "When did it *start*?",
#: "from 1939 to 1945" both. Each pattern needs its bounding word right before the point
#: in time ("from Stripe to Adyen" bounds nothing); the bounding words are matched in
#: any case, the dates as written
_BOUND_WORDS: tuple[tuple[re.Pattern[str], frozenset[str]], ...] = (
    (
        re.compile(
            r"\b(?i:until|till|til|through|thru|expires?|expired|expiring|ends?|ended|ending"
            rf"|valid\s+(?:to|until|through)|runs?\s+(?:to|until))\s+{_WHEN}|{_RANGE}"
            rf"|{_BARE_RANGE}"
        ),
        _END_SAYS,
    ),
    (
        re.compile(
            r"\b(?i:since|starting|starts?|started|begins?|began|beginning|effective|as\s+of)"
            rf"\s+{_WHEN}|\b(?i:from|between)\s+{_FROM_WHEN}|{_RANGE}|{_BARE_RANGE}"
        ),
        START_WORDS,
    ),
)


def bounds(text: str) -> dict[str, str]:
    """The bounds in time ``text`` sets (:data:`_BOUND_WORDS`), each stem of
    :data:`END_WORDS` and :data:`START_WORDS` it says -> the words that say it, as
    written: ``"valid from 3 April until 16 April"`` -> start: "from 3 April", end:
    "until 16 April"."""
    out: dict[str, str] = {}
    for pattern, stems in _BOUND_WORDS:
        m = pattern.search(text)
        if m is not None:
            out |= dict.fromkeys(stems, m.group().strip().rstrip("."))
    return out


_ISO_DATE = re.compile(r"(?<!\d)\d{4}-(0?[1-9]|1[0-2])-(?:0?[1-9]|[12]\d|3[01])(?!\d)")


def date_words(text: str) -> set[str]:
    """The month names of ``text``'s ISO dates ("2026-11-02" -> *november*; its day
    is the number ``2`` already, :func:`content_stems`), so "What did I do on 2
    November?" finds a journal's "## 2026-11-02" or a daily note's file name."""
    return {stem(MONTH_NAMES[int(m.group(1)) - 1]) for m in _ISO_DATE.finditer(text)}


def unit_words(text: str) -> set[str]:
    """Stems of the quantity words that ``text``'s numbers with units answer
    (:data:`_UNIT_WORDS`: ``30 °C`` -> temperature, degree, ...; ``£90`` -> cost,
    price, ...), and of what its values are by their shape (``192.168.1.40`` -> ip,
    address; ``ana@example.org`` -> email; ``https://…`` -> url, link, website;
    ``0800 051 5260`` -> phone, number, call; ``Dune: 4/5`` -> rating; inline code,
    `` `pgctl promote` `` -> command, code; ``2026-12-01``, ``3 March`` -> date, day;
    ``09:40``, ``7pm`` -> time, clock; ``HX-44821`` -> number, code, id), the month an
    ISO date is in (:func:`date_words`: ``2026-11-02`` -> november), and of what a
    bound in time says of its span (:data:`_BOUND_WORDS`: ``until March 2026`` -> end,
    expire, ...; ``since 2019`` -> start, begin). A question's "What temperature ..."
    is then found in a sentence that says "at about 30 °C" without the word."""
    out: set[str] = set()
    if _DIGIT.search(text):  # every unit and most shapes hold a digit
        for pattern, stems in _UNIT_STEMS:
            if pattern.search(text):
                out |= stems
        if any(9 <= sum(c.isdigit() for c in m.group()) <= 15 for m in _PHONE.finditer(text)):
            out |= _PHONE_STEMS
    for hints, pattern, stems in _TEXT_SHAPES:  # cheap substring test first
        if any(h in text for h in hints) and pattern.search(text):
            out |= stems
    if " by " in text and authored(text):
        out |= AUTHOR_STEMS
    if cited(text):  # who wrote it, not who published it nor when
        out |= AUTHOR_STEMS
    return out | set(bounds(text)) | date_words(text)
