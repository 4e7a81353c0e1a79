"""English: the lists kb used before languages became data (the keyword leg's stop
words, the evidence check's function words, the month names)."""

from __future__ import annotations

from kb.lang.base import Lang, words

MONTHS = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")

_STOP = """
    a about above after again against all am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for
    from further had has have having he her here hers herself him himself his how i if in
    into is it its itself just me more most my myself no nor not of off on once only or
    other our ours ourselves out over own same she should so some such than that the their
    theirs them themselves then there these they this those through to too under until up
    very was we were what when where which while who whom why will with would you your
    yours yourself yourselves
"""
#: never a content word of a question besides the stop words
_FUNCTION = """
    also whose one ones many much may might must shall upon within without according answer
    passage context"""

_MONEY_WORDS = (
    r"cost|costs|costing|price|priced|pay|paid|spend|spent|charge|charged|earn|earned|"
    r"earns|owe|owed|worth|fee|fees"
)
#: the answer types a question asks for, first match wins (:mod:`kb.rag.answer_type`)
TYPE_QUESTIONS = (
    (
        "money",
        rf"\bhow\s+much\b(?!\s+time\b).*\b(?:{_MONEY_WORDS})\b"
        r"|\bwhat(?:'s|’s|\s+(?:was|is|were|are|will\s+be))\s+the\s+(?:[\w-]+\s+){0,2}"
        r"(?:price|prices|cost|costs|fee|fees|fare|fares|rent|salary)\b"
        r"|\bwhat\s+(?:does|did|do|will)\b.*\bcost\b"
        r"|\bhow\s+much\s+(?:is|are|was|were|will\s+be)\s+(?:the|a|an|my|our|your|this|that|it)\b",
    ),
    (
        "time",
        r"^\W*(?:\w+\s+)?when\b|\bwhen\W*$"
        r"|\b(?:what|which)\s+(?:year|decade|century|month|date|time)s?\b"
        r"(?!\s+(?:zone|pass|slot)s?\b)",
    ),
    (
        "quantity",
        r"\bhow\s+(?:many|much|long|far|old|big|large|tall|high|fast|often|deep|wide|heavy)\b"
        r"|\bwhat\s+(?:percentage|percent|number|amount|proportion|fraction|size)\b",
    ),
    (
        "name",
        r"^\W*(?:\w+\s+)?who(?:\s+(?:is|was|are|were)|'s|’s)\s+"
        r"(?:the|my|our|your|his|her|their|[A-Z][\w-]*(?:'s|’s))(?=\s)",
    ),
)

LANG = Lang(
    code="en",
    name="English",
    stemmer="english",
    conjunctions=words("and"),
    auxiliaries=words("is are was were do does did has have had can could will would should"),
    frame_words=words(
        "long many much often far old big large year years name named called kind type"
        " happen happens happened happening mean means refer refers term tell explain"
        " describe list give show"
        # the time of asking ("Who is the car insurer *now*?"): the note says who it is
        " now currently presently nowadays"
        # and against what was expected by then ("Which tasks are not done *yet*?", "Is
        # the roof *still* leaking?", "Have I *already* paid?")
        " yet still already"
    ),
    stop_words=words(_STOP),
    function_words=words(_STOP) | words(_FUNCTION),
    question_words=words("who whom whose what when where which why how"),
    question_frames=(r"what is (?:the )?", r"how (?:many|much|long|old|far)", r"is there"),
    months=MONTHS,
    month_abbreviations={m[:3]: i for i, m in enumerate(MONTHS, 1)} | {"sept": 9},
    weekdays=WEEKDAYS,
    weekday_abbreviations={d[:3]: i for i, d in enumerate(WEEKDAYS, 1)}
    | {"tues": 2, "weds": 3, "thur": 4, "thurs": 4},
    units=words("km m cm mm kg g mg l ml mile miles inch inches foot feet pound pounds"),
    negations=words("not no never none nothing nobody neither nor without n't"),
    antonyms=(("before", "after"), ("open", "closed"), ("on", "off"), ("yes", "no")),
    abbreviations=words(
        "mr mrs ms dr prof st jr sr vs etc e.g i.e al fig no vol ca approx dept est inc"
        " ltd co corp mt ft gen col lt sgt u.s"
    ),
    ordinal_pattern=r"\b\d+(?:st|nd|rd|th)\b",
    date_patterns=(r"\b\d{4}-\d{2}-\d{2}\b", r"\b\d{1,2}/\d{1,2}/\d{2,4}\b"),
    latest_words=words("recently lately"),
    type_questions=TYPE_QUESTIONS,
    strict_types=True,
    named_time=r"\b(?:what|which)\s+(?:year|decade|century|date|month)s?\b",
    time_words=words(
        "weekday weekend summer autumn winter century centuries decade decades today"
        " tomorrow yesterday tonight morning evening night overnight noon midnight ago daily"
        " weekly monthly yearly annually nightly"
    ),
    # more often a verb or a name than a month ("may", "March" on), and "mar"
    ambiguous_months=words("may mar march"),
    quantity_words=words(
        "one two three four five six seven eight nine ten eleven twelve thirteen fourteen"
        " fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy"
        " eighty ninety hundred hundreds thousand thousands million millions billion billions"
        " trillion dozen dozens half quarter once twice several few overnight second seconds"
        " minute minutes hour hours day days week weeks month months year years daily weekly"
        " monthly yearly annually nightly hourly"
    ),
    kind_words=words(
        "time times date dates day days cost costs price prices amount fee fees total number"
        " count last latest first earliest recent recently current currently newest oldest"
        " previous next"
    ),
)
