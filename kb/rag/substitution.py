"""Swapped names and numbers: the question's name in the slot where its best sentence has another.

The largest group of SQuAD 2.0's adversarial unanswerable questions (Rajpurkar, Jia and
Liang 2018, "Know What You Don't Know", table 2: entity swap, 21%; number swap, 3%)
takes an answerable question and replaces one name or number: "Who was the first
*American* to travel the Amazon?" where the text says "The first *European* to travel
the length of the Amazon"; "Newton's *Third* Law asserts ..." over "Newton's *Second*
Law asserts ...". Coverage and cosine barely move. The key-term check
(:func:`kb.rag.keys.absent_keys`) catches the swap only when the asked word is
in no passage at all, and a word like "American" usually is in one.

The rule looks at the one sentence that best matches the question (ranked by coverage,
then cosine, as :func:`kb.rag.coverage.ranked_sentences` ranks them). A question
token ``k`` is *swapped* when all of these hold:

- ``k`` is a key: a number, an ordinal word (*first* ... *twelfth*), a number word
  (*two* ... : "four-dimensional" over "three-dimensional"), a Greek letter's name of
  three letters or more (*alpha*, *beta* ...: "alpha decay" over "beta decay"), a
  capitalised non-stop word that does not start its sentence (a name:
  :func:`kb.rag.lexical.key_tokens`' notion), or an identifier written as one word of
  parts (a host or code with a hyphen that ends in one or two
  digits, "web-01"; a domain, "api.example.org");
- the sentence does not hold ``k``: not among its content stems, its chunk's heading
  path and file name, or what its quantities say (:func:`kb.rag.lexical.found`, which
  forgives a typo or a derivation), and ``k`` written in capitals is not the initials
  of the sentence's capitalised words in order ("EU" for "European Union");
- ``k`` is the *only* question term the sentence lacks (the evidence check's terms:
  light verbs and question-framing words aside; an identifier's terms are its
  parts). A swap is a one-word edit of a question the sentence answers. A question
  that joins two documents ("Nikolay Krylov and Anatoly Fomenko both held what
  title?") has a best sentence about one of them,
  which lacks more than the other's name, and often has another name where it stood;
- the sentence holds a token ``t`` of the same kind (a number for a number, an ordinal
  for an ordinal, a number word for a number word, a letter for a letter, a name for a
  name, an identifier for an identifier) that the question does not hold;
- ``t`` sits in ``k``'s slot: the nearest non-stop word on its left equals (as stems)
  the nearest non-stop word on ``k``'s left in the question, or likewise on the right,
  each looked for at most :data:`MAX_GAP` tokens away.

Not for an alternative question ("Which band formed first, X or Y?"): its best
sentence is about one of the two, and the other sits in the same slot by design; nor
for a yes/no question ("Is there yoga on *Tuesday*?" over "Yoga on *Monday* and
Thursday. On Tuesday the studio is closed."), which a swap answers with *no*.

Only the best sentence is read, not its neighbours: in SQuAD the swapped-in name is
often in the next sentence ("Principles of Geology, in 1830. This book, which
influenced Charles *Darwin*"), and reading the neighbours (or asking for both of the
slot's neighbours to match) let 2 of the 5 swaps below through. So "What did *Dana*
present at the offsite?" over "At the offsite *Omar* presented the roadmap. Dana
talked about hiring." is refused, with both names in the reason.

Measured on squad-dev with the default retrieval (top 5) and ``[answer]``
defaults: swaps in 8 of the 160 unanswerable SQuAD questions and in 1 answerable one
(a typo, "Lain" for "Iain", in a question the check refuses anyway); 4 more
unanswerable questions refused, and no answerable one (234 SQuAD, 60 HotpotQA
multi-hop, 6 audio) more. Without the
only-lacking rule, 7 of the 60 multi-hop questions were refused. Edge cases: a
question without keys, or an empty sentence, has no swap; a one-letter name ("A/S")
and a number of fewer than :data:`MIN_DIGITS` digits ("4", "09") are no keys; numbers
compare by value, and one written with other separators is held ("9.05", "09:05");
each key is reported once.

A common word swapped (:func:`word_swaps`) is held to a stricter slot: the same token on
both sides, and the word opening a noun phrase (after an article, a preposition or
*and*) or a predicate after *is*/*are*, since a paraphrase changes verbs and common
words far more often than names. On the fresh set it refuses 4 more unanswerable
questions ("stones and *rocks*" over "stones and *cannonballs*", "as a *free* service"
over "as a *subscription* service", "unification of *similar* ideas" over "of
*disparate* ideas") and no answerable one; on squad-dev one ("Since electrons are
*minions*" over "are *fermions*") and no answerable one. Read as loosely as a name's
slot (either neighbour, any word) it refused 4 answerable questions on the fresh set
("the plague *infiltrate* Alexandria" over "the plague *reached* Alexandria") and 2 on
squad-dev; with one matching non-stop neighbour instead of both, 2 on squad-dev.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from kb.rag.lexical import content_stems, ends_sentence, found, is_stopword, token_matches, tokens
from kb.rag.polarity import Contradiction, alternative, yes_no
from kb.rag.stemmer import NOT_ADVERBS, number_value, stem

#: how many tokens away the slot's neighbouring non-stop word may be
MAX_GAP = 4
#: the fewest digits of a number that counts as a key
MIN_DIGITS = 3

Kind = Literal["number", "name", "code", "ordinal", "nth", "count", "letter"]

#: ordinal words: a key of their own kind ("the *fifth* session" over "the *fourth*
#: Session"), whatever their case
_ORDINALS_TEXT = "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth"
ORDINALS = frozenset(_ORDINALS_TEXT.split())
#: Greek letter names: a key of their own kind, whatever their case ("*Alpha* decay is
#: the most familiar effect of what force?" over "Its most familiar effect is *beta*
#: decay"; alpha/beta/gamma rays, a release's beta, a gamma correction)
_GREEK_TEXT = (
    "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi "
    "rho sigma tau upsilon phi chi psi omega"
)
GREEK_LETTERS = frozenset(_GREEK_TEXT.split())


@dataclass(frozen=True)
class Token:
    """One token of a text: its surface form, stem, kind (``None`` unless a key) and
    whether it is a stop word."""

    text: str
    stem: str
    kind: Kind | None
    stop: bool


#: an identifier written as one word of parts: a host or code with a hyphen that ends
#: in a digit or two ("web-01", "COVID-19"), or a domain ("api.example.org"). One that
#: ends in 3+ digits ("mid-2025", "HX-44821", "server-123") stays a word and a number,
#: which compare as a number key does
_CODE = re.compile(
    r"(?<![\w.-])(?:[A-Za-z][A-Za-z\d]*(?:-[A-Za-z\d]+)+(?<=\d)(?<!\d{3})"
    r"|[A-Za-z][\w-]*(?:\.[A-Za-z][\w-]*){2,})"
    r"(?![\w-]|\.\w)"
)


#: an ordinal written in digits: "19th", "2nd", "21st"
_NTH = re.compile(r"\d{1,2}(?:st|nd|rd|th)", re.IGNORECASE)


def tokenised(text: str) -> list[Token]:
    """``text``'s tokens with their kind: identifiers (:data:`_CODE`, lower-cased, as
    one token), numbers of :data:`MIN_DIGITS` digits or more (a year, an amount: shorter
    ones are too often written another way, "four", "09") as their value
    (:func:`kb.rag.stemmer.number_value`), ordinal words (:data:`ORDINALS`) and ordinals
    in digits ("19th", kind ``nth``: "the 19th century" against "the 20th"), Greek
    letters (:data:`GREEK_LETTERS`, three letters or more, lower-case or starting a
    sentence), number
    words ("four", stemmed to "4"; not "one", a stop word), and names (a capitalised
    non-stop word of two letters or more that does not follow a sentence end or start
    the text)."""
    out: list[Token] = []
    first = True
    codes = [(m.start(), m.end()) for m in _CODE.finditer(text)]
    inside = 0  # the code the next tokens fall in
    for m in token_matches(text):
        while inside < len(codes) and codes[inside][1] <= m.start():
            inside += 1
        if inside < len(codes) and codes[inside][0] <= m.start() < codes[inside][1]:
            a, b = codes[inside]
            if m.start() == a:
                code = text[a:b]
                out.append(Token(code, code.lower(), "code", False))
                first = ends_sentence(text, b)
            continue
        t = m.group(0)
        stop = is_stopword(t)
        if t[0].isdigit():
            kind: Kind | None = "number" if sum(c.isdigit() for c in t) >= MIN_DIGITS else None
            if kind is None and _NTH.fullmatch(t):
                kind = "nth"  # "19th" (century) against "20th"; not against "third"
            out.append(Token(t, number_value(t), kind, stop))
        else:
            st = stem(t)
            if t.lower() in ORDINALS:
                kind = "ordinal"
            elif t.lower() in GREEK_LETTERS and len(t) >= 3 and (first or t[0].islower()):
                # not a two-letter one ("Mu", "Pi"), nor a capitalised one inside a
                # sentence: a name ("flew Delta", "an Omega watch")
                kind = "letter"
            elif st.isdigit() and not stop:
                kind = "count"  # a number word ("four": 4), compared with number words
            elif t[0].isupper() and len(t) >= 2 and not first and not stop:
                kind = "name"
            else:
                kind = None
            out.append(Token(t, st, kind, stop))
        first = ends_sentence(text, m.end())
    return out


def content_key(t: Token) -> str:
    """``t`` as the evidence check's terms name it (:func:`kb.rag.lexical.content_stems`:
    a number with its commas dropped, not its value)."""
    return t.text.replace(",", "") if t.kind == "number" else t.stem


def neighbour(toks: list[Token], i: int, step: int) -> str | None:
    """The stem of the nearest non-stop token from ``i`` in direction ``step`` (-1 or
    1), at most :data:`MAX_GAP` tokens away; ``None`` when there is none."""
    j = i + step
    while 0 <= j < len(toks) and abs(j - i) <= MAX_GAP:
        if not toks[j].stop and not _adverb(toks[j].text):
            return toks[j].stem
        j += step
    return None


def _adverb(word: str) -> bool:
    """``word`` is a lower-case *-ly* adverb of six letters or more ("unilaterally",
    "quickly"), which a slot's neighbour skips: "OPEC pull out" and "the United States
    unilaterally pulled out" fill the same slot."""
    return word.islower() and len(word) >= 6 and word.endswith("ly") and word not in NOT_ADVERBS


def initials_of(acronym: str, toks: list[Token]) -> bool:
    """``acronym`` (all capitals, 2+ letters) is the initials of a run of adjacent
    capitalised tokens ("EU": "European Union"; not "Ursula met Sam")."""
    if len(acronym) < 2 or not acronym.isupper() or not acronym.isalpha():
        return False
    run = ""
    for t in toks:
        if t.text[0].isupper():
            run += t.text[0]
            if acronym in run:
                return True
        else:
            run = ""
    return False


def spelled_by(acronym: str, toks: list[Token]) -> bool:
    """``acronym`` (all capitals, 2+ letters) is the initials of a run of adjacent
    ``toks``, in any case ("PVR": "personal video recorder"); the case-blind mirror of
    :func:`initials_of`, for a question that writes out what a passage abbreviates."""
    if len(acronym) < 2 or not acronym.isupper() or not acronym.isalpha():
        return False
    n, want = len(acronym), acronym.lower()
    heads = [t.text[0].lower() for t in toks]
    return any("".join(heads[i : i + n]) == want for i in range(len(heads) - n + 1))


def written_in(number: str, sentence: str) -> bool:
    """The digits of ``number`` appear in ``sentence`` as one number, whatever the
    separators and leading zeros ("9.05" in "at 09:05")."""
    digits = re.sub(r"\D", "", number).lstrip("0")
    if not digits:
        return False
    joined = re.sub(r"(?<=\d)[.:,](?=\d)", "", sentence)
    return re.search(rf"(?<!\d)0*{digits}(?!\d)", joined) is not None


def swaps(
    question: str,
    sentence: str,
    known: set[str] | frozenset[str],
    lacking: set[str] | frozenset[str],
) -> list[Contradiction]:
    """The swapped keys of ``question`` in ``sentence`` (module docstring): one
    :class:`~kb.rag.polarity.Contradiction` per swapped key, ``passage`` the word the
    sentence has in its slot. ``known`` are stems the sentence counts as holding
    besides its own (its chunk's heading path and file name, its quantities' words);
    ``lacking`` the question's term stems the sentence does not hold."""
    if alternative(question) or yes_no(question):
        return []
    q = tokenised(question)
    s = tokenised(sentence)
    if not q or not s:
        return []
    held = {t.stem for t in s if not t.stop} | set(known)
    asked = {t.stem for t in q}
    out: list[Contradiction] = []
    seen: set[str] = set()
    for i, k in enumerate(q):
        if k.kind is None or k.stem in seen or found(k.stem, held):
            continue
        # an identifier's terms are its parts ("web-01": web, 01)
        parts = content_stems(k.text) if k.kind == "code" else {k.stem, content_key(k)}
        if not lacking or not lacking <= parts:
            continue  # not the one question term (or identifier) the sentence lacks
        if initials_of(k.text, s) or (k.kind == "number" and written_in(k.text, sentence)):
            continue
        seen.add(k.stem)
        left, right = neighbour(q, i, -1), neighbour(q, i, 1)
        for j, t in enumerate(s):
            if t.kind != k.kind or t.stem in asked or found(t.stem, asked):
                continue
            if spelled_by(t.text, q):
                continue  # "PVR" for the question's "personal video recorder": the same thing
            if (left is not None and neighbour(s, j, -1) == left) or (
                right is not None and neighbour(s, j, 1) == right
            ):
                out.append(Contradiction(k.text, t.text))
                break
    return out


#: words after which a noun phrase starts (an article, a determiner, a preposition, a
#: conjunction): the slot of a noun or an adjective, which a paraphrase keeps, not of
#: a verb, which it often changes ("How did the plague *infiltrate* Alexandria?" over
#: "the plague *reached* Alexandria"; "Who did the SNP *obtain* 16 seats from?" over
#: "The SNP *took* 16 seats")
_OPENERS_TEXT = """a an the this that these those its their his her our my your some any every
    each both of for in on at with about from by into over under between among through
    during and or"""
_PHRASE_OPENERS = frozenset(_OPENERS_TEXT.split())
#: a form of *be* before a predicate noun or adjective ("electrons are *fermions*")
_BE = frozenset(["is", "are", "was", "were"])


def word_swaps(
    question: str,
    sentence: str,
    known: set[str] | frozenset[str],
    lacking: set[str] | frozenset[str],
) -> list[Contradiction]:
    """A common word of ``question`` swapped for another in ``sentence``: "Who
    constructed an experiment where stones and *rocks* were rolled down an incline?"
    over "Galileo constructed an experiment in which stones and *cannonballs* were both
    rolled down an incline"; "launch as a *free* service" over "launch in March as a
    *subscription* service". Stricter than a name's swap (:func:`swaps`), since a
    paraphrase puts other common words in a question far more often than other names:
    the word is the one question term the sentence lacks (``lacking``, as for
    :func:`swaps`; ``known``: the stems the sentence counts as holding besides its own),
    the asked word follows a word that opens a noun phrase (:data:`_PHRASE_OPENERS`:
    an article, a preposition, *and* …), or a form of *be* when it ends in neither *-ing*
    nor *-ed* ("Since electrons are *minions*" over "Since electrons are *fermions*";
    not "were *placing*"): a verb's slot is a paraphrase's, "obtain" for "took"; the
    sentence's word is no stop word, no key (a name or a number: :func:`swaps`'s case),
    not a word of the question nor a form, typo or plain synonym of the asked one
    (:func:`kb.rag.lexical.found`), and it stands between the same two tokens as the
    asked word does in the question (as written, case aside), of which one at least is
    no stop word, or else both nearest non-stop words (:func:`neighbour`) match too. Not
    for an alternative or a yes/no question (as :func:`swaps`). One contradiction: the
    question's word, and the sentence's."""
    if alternative(question) or yes_no(question) or len(lacking) != 1:
        return []
    q = tokenised(question)
    s = tokenised(sentence)
    held = {t.stem for t in s if not t.stop} | set(known)
    asked = {t.stem for t in q}
    for i in range(1, len(q) - 1):
        k = q[i]
        if k.kind is not None or k.stop or k.stem not in lacking or found(k.stem, held):
            continue
        before, after = q[i - 1], q[i + 1]
        if before.text.lower() not in _PHRASE_OPENERS and not (
            before.text.lower() in _BE and not k.text.lower().endswith(("ing", "ed"))
        ):
            continue  # a verb's slot: "How did the plague infiltrate Alexandria?"
        for j in range(1, len(s) - 1):
            t = s[j]
            if t.kind is not None or t.stop or _adverb(t.text):
                continue
            if s[j - 1].text.lower() != before.text.lower():
                continue
            if s[j + 1].text.lower() != after.text.lower():
                continue
            if t.stem in asked or found(t.stem, asked) or found(k.stem, {t.stem}):
                continue
            if (
                before.stop
                and after.stop
                and (
                    neighbour(q, i, -1) != neighbour(s, j, -1)
                    or neighbour(q, i, 1) != neighbour(s, j, 1)
                )
            ):
                continue
            return [Contradiction(k.text, t.text)]
    return []


#: prefixes that make another word of a word: "subatomic" is not "atomic", nor
#: "international" "national", nor "non-violent" "violent". Not *super*, *post*, *anti*,
#: *pre*: their compounds often name the thing asked ("the supermarket" for "the
#: market", "the postcode" for "the code", "Sophos antivirus" for "virus software")
_PREFIXES_TEXT = "sub non counter inter intra un in im il ir dis mis"
PREFIXES = frozenset(_PREFIXES_TEXT.split())


def prefixed(words: Iterable[str], sentence: str) -> list[Contradiction]:
    """A question word (of ``words``: those the best ``sentence`` lacks) that the
    sentence writes only with a prefix that makes another word of it (:data:`PREFIXES`):
    "What forces act between *atomic* particles?" over "... the interactions between
    *subatomic* particles". One contradiction: the question's word, and the sentence's."""
    toks = tokens(sentence)
    for w in words:
        lw = w.lower()
        if len(lw) < 4 or not lw.isalpha():
            continue
        for t in toks:
            lt = t.lower()
            if lt != lw and lt.endswith(lw) and lt[: -len(lw)].rstrip("-") in PREFIXES:
                return [Contradiction(w, t)]
    return []
