"""The light English stemmer, and numbers normalised: how a token becomes a term.

:func:`stem` strips light suffixes: ``-ies -> y``, ``-ied -> y`` after a consonant,
``-es``, ``-s``, ``-ing(s)``, ``-ed``, ``-ily -> y``, ``-ly`` stripped when at least three
letters remain, but not from the *-ly* words that are no adverbs, :data:`NOT_ADVERBS`:
``apply``, ``family``, ``early``; ``-ing``/``-ed`` only after a vowel and with a short
word made whole again as Porter's step 1b does: ``saving``/``savings``/``saved`` ->
``save``, ``running`` -> ``run``), so ``proofs``/``proofing``/``proofed`` meet; the past
forms of common irregular verbs stand for the verb (:data:`IRREGULAR`: ``said`` ->
``say``, ``bought`` -> ``buy``) and common abbreviations for their word
(:data:`ABBREVIATED`: ``Dr`` -> ``doctor``, ``Oct`` -> ``october``; the months' short
forms are :mod:`kb.lang.en`'s), and cardinal number words their value
(:data:`NUMBER_WORDS`: ``four`` -> ``4``). A possessive ``'s`` is dropped first
(``Warsaw's`` -> ``warsaw``).

Numbers are normalised (:func:`normal_number`: ``1,000`` -> ``1000``, ``02`` -> ``2``,
``2nd`` -> ``2``; ``3.50`` stays ``3.50``); :func:`number_value` compares them by value
(``3.50`` -> ``3.5``).
"""

from __future__ import annotations

import contextlib
import contextvars
import re
from collections.abc import Iterator

from kb.lang import language
from kb.lang.inflection import stem_word
from kb.months import MONTH_NAMES

_ORDINAL_END = re.compile(r"(?:st|nd|rd|th)$")


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
    # the months' short forms ("Oct", "Sept"; :mod:`kb.lang.en`), but "may", a word
    **{
        short: MONTH_NAMES[n - 1]
        for short, n in language("en").month_abbreviations.items()
        if short != MONTH_NAMES[n - 1]
    },
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
#: neither *case* nor *close*, too short for :func:`kb.rag.lexical.near`; longer ones meet their
#: singular by its prefix: ``purpos``/``purpose``)
_S_SINGULARS = frozenset({"bus", "gas", "lens", "plus", "yes", "iris"})


def _restored(base: str) -> str:
    """The word a stripped ``-ing``/``-ed`` leaves, made whole for short stems as
    Porter's step 1b does (a stem of 5+ letters meets its word through :func:`kb.rag.lexical.near`
    anyway: ``creat``/``create``): a doubled final consonant is single when that leaves
    a consonant-vowel-consonant end (``runn`` -> ``run``, ``stopp`` -> ``stop``; not
    ``add``, ``staff``, ``fill``, ``miss``), and a short consonant-vowel-consonant
    stem takes its ``e`` back (``sav`` -> ``save``, ``hop`` -> ``hope``, ``bak`` ->
    ``bake``, ``quot`` -> ``quote``, *qu* being one consonant; not after ``w``, ``x``,
    ``y``: ``fix``, ``play``), as does any stem whose
    end English spells only with a silent ``e`` (:data:`_SILENT_E`: ``caus`` ->
    ``cause``, so "What *caused* it?" meets "Root *cause*:"; a 4-letter stem is too short
    for :func:`kb.rag.lexical.near` to forgive)."""
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


#: the language whose own stemmer :func:`stem` uses (:func:`stemming_in`); ``None``:
#: the light English stemmer, as always
_STEM_LANG: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "kb_rag_stem_language", default=None
)


@contextlib.contextmanager
def stemming_in(code: str | None) -> Iterator[None]:
    """Within the block, :func:`stem` stems a word that has a letter with the Snowball
    stemmer of the language ``code`` (:func:`kb.lang.inflection.stem_word`: German's
    *gekostet* and *kostet* -> ``kost``) instead of the light English rules; ``None`` or
    English: the English rules. Both sides of every comparison the answer checks make
    (the question's terms and the passages' sentences) are stemmed within the same block.
    Context-local (threads and tasks each keep their own)."""
    chosen = None if code is None or language(code).stemmer == "english" else code
    token = _STEM_LANG.set(chosen)
    try:
        yield
    finally:
        _STEM_LANG.reset(token)


def stem_language() -> str | None:
    """The language :func:`stemming_in` set for this context, ``None`` for English."""
    return _STEM_LANG.get()


def stem(word: str) -> str:
    """Light English suffix stripping (see the module docstring); numbers unchanged.
    Within :func:`stemming_in`, a word with a letter is stemmed in that language."""
    code = _STEM_LANG.get()
    if code is not None and any(c.isalpha() for c in word):
        return stem_word(code, word)
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


def normal_number(tok: str) -> str:
    """A number token normalised: commas, an ordinal ending and the leading zeros of
    its whole part dropped ("1,000" -> "1000", "2nd" -> "2", "02" -> "2", "0.5" and
    "3.50" stay)."""
    num = _ORDINAL_END.sub("", tok.replace(",", ""))
    whole, dot, frac = num.partition(".")
    return (whole.lstrip("0") or "0") + dot + frac


def number_value(token: str) -> str:
    """A number token's value as text: commas, leading zeros and a decimal part's
    trailing zeros dropped ("09" -> "9", "3.50" -> "3.5", "1,500" -> "1500")."""
    whole, _, frac = normal_number(token).partition(".")
    whole = whole.lstrip("0") or "0"
    frac = frac.rstrip("0")
    return f"{whole}.{frac}" if frac else whole
