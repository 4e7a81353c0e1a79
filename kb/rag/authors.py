"""Who wrote it: a reading list's title line and a reference's name and year.

:func:`authored` reads a title and its author as a reading list writes them
("Piranesi by Susanna Clarke"), :func:`cited` a reference under a work's title
("Ursula K. Le Guin, 1974."): both say who *wrote* the work (:data:`AUTHOR_STEMS`),
which :func:`kb.rag.units.unit_words` reports for the sentence.
"""

from __future__ import annotations

import re

from kb.rag.dates import MONTH_NAME
from kb.rag.stemmer import stem

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
