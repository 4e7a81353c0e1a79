"""What a sentence says without writing the word: its numbers with units, the shapes of
its values and its cues of cause.

:func:`unit_words` gives the stems of the words such a sentence answers: "30 °C" a
question about a *temperature*, "£90" one about a *cost*, "192.168.1.40" one about an
*IP address*, "because …" one about a *cause* (:func:`effect_clause`: of what), and so on
(:data:`_UNIT_WORDS`, :data:`_TEXT_SHAPES`); with what its dates say
(:mod:`kb.rag.dates`) and the author it names (:mod:`kb.rag.authors`).
:func:`quantities` reads each number with the kinds of quantity its unit says.
"""

from __future__ import annotations

import re

from kb.rag.authors import AUTHOR_STEMS, authored, cited
from kb.rag.dates import ANY_CASE_MONTH, DAY_DATE, MONTH_NAME, bounds, date_words
from kb.rag.stemmer import number_value, stem
from kb.sentence_spans import BULLET, FIELD_LINE

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
            rf"|\b(?!(?i:{ANY_CASE_MONTH}))[A-Z][a-zA-Z]+ \d{{1,2}}(?:\.\d+){{0,2}}(?![\w.,:]?\d)"
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
    (:func:`kb.rag.stemmer.number_value`), the kinds of quantity its unit says (:data:`_KINDS`:
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


def unit_words(text: str) -> set[str]:
    """Stems of the quantity words that ``text``'s numbers with units answer
    (:data:`_UNIT_WORDS`: ``30 °C`` -> temperature, degree, ...; ``£90`` -> cost,
    price, ...), and of what its values are by their shape (``192.168.1.40`` -> ip,
    address; ``ana@example.org`` -> email; ``https://…`` -> url, link, website;
    ``0800 051 5260`` -> phone, number, call; ``Dune: 4/5`` -> rating; inline code,
    `` `pgctl promote` `` -> command, code; ``2026-12-01``, ``3 March`` -> date, day;
    ``09:40``, ``7pm`` -> time, clock; ``HX-44821`` -> number, code, id), the month an
    ISO date is in (:func:`kb.rag.dates.date_words`: ``2026-11-02`` -> november), and of what a
    bound in time says of its span (:data:`kb.rag.dates._BOUND_WORDS`: ``until March 2026`` -> end,
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
