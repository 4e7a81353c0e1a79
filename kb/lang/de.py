"""German (Deutsch)."""

from __future__ import annotations

from kb.lang.base import Lang, words

MONTHS = (
    "januar",
    "februar",
    "märz",
    "april",
    "mai",
    "juni",
    "juli",
    "august",
    "september",
    "oktober",
    "november",
    "dezember",
)
WEEKDAYS = ("montag", "dienstag", "mittwoch", "donnerstag", "freitag", "samstag", "sonntag")

_STOP = """
    aber alle allem allen aller alles als also am an ander andere anderem anderen anderer
    anderes auch auf aus bei beim bin bis bist da damit dann das dass daß dem den denen der
    des dessen dich die dies diese diesem diesen dieser dieses dir doch dort du durch ein
    eine einem einen einer eines er es etwas euch euer eure für gegen gewesen hab habe haben
    hat hatte hatten hier hin hinter ich ihm ihn ihnen ihr ihre ihrem ihren ihrer ihres im
    in ins ist ja jede jedem jeden jeder jedes jene jenem jenen jener jenes jetzt kann kein
    keine keinem keinen keiner können könnte man manche mein meine meinem meinen meiner mich
    mir mit muss musste nach nicht nichts noch nun nur ob oder ohne sehr sein seine seinem
    seinen seiner seit sich sie sind so solche soll sollte sondern sonst über um und uns
    unser unsere unter vom von vor war waren warst was weg weil weiter welche welchem
    welchen welcher welches wenn werde werden wie wieder will wir wird wirst wo wollen
    wollte würde würden wurde wurden worden zu zum zur zwar zwischen
"""
_QUESTION = """
    wer wen wem wessen was wann wo wohin woher warum weshalb wieso wie welche welcher
    welches welchen welchem wieviel wieviele wofür wozu wovon wodurch womit woran worauf
    woraus worin worüber worum wonach wogegen wobei"""

#: nouns (and a compound's last part: "Nachzahlung", "Kaufpreis") that name an amount
_MONEY_NOUNS = (
    r"[\wäöüß-]*(?:preis|preise|kosten|miete|gebühr|gebühren|beitrag|betrag|zahlung|gehalt"
    r"|lohn|rechnung|summe|abschlag|rate|prämie|steuer|honorar|geld)"
)
_ARTICLE = r"(?:die|der|das|den|dem|mein\w*|unser\w*|ihr\w*|sein\w*|dein\w*|euer\w*)"
#: the answer types a question asks for, first match wins (:mod:`kb.rag.answer_type`);
#: no "name": German writes every noun with a capital, so no sentence shape tells one
TYPE_QUESTIONS = (
    (
        "money",
        r"\bwie\s*viel\b(?!\s+zeit\b).*\b(?:kost\w*|gekostet|bezahlt|gezahlt|zahl(?:e|en|t|st)"
        r"|verdien\w*|ausgegeben|ausgeben)\b"
        r"|\bwas\s+(?:kostet|kosten|kostete|kosteten)\b|\bwas\s+(?:hat|haben|hatte)\b.*\bgekostet\b"
        r"|\bwie\s+teuer\b"
        rf"|\b(?:wie\s+hoch|was)\s+(?:ist|war|sind|waren|wird|werden)\s+{_ARTICLE}\s+"
        rf"(?:[\wäöüß-]+\s+){{0,2}}?{_MONEY_NOUNS}\b",
    ),
    (
        "time",
        r"^\W*(?:\w+\s+)?wann\b|\bwann\W*$|\b(?:seit|bis|ab)\s+wann\b"
        r"|\bwelche[mnrs]?\s+(?:jahr|jahrzehnt|jahrhundert|monat|datum|tag|uhrzeit)\b"
        r"|\bum\s+wie\s*viel\s+uhr\b",
    ),
    (
        "quantity",
        r"\bwie\s*(?:viele?|lange|weit|alt|groß|hoch|oft|häufig|schwer|tief|breit|schnell)\b"
        r"|\bwelche[mnrs]?\s+(?:anzahl|menge|prozentsatz|anteil|größe|höhe|länge|zahl)\b",
    ),
)

LANG = Lang(
    code="de",
    name="Deutsch",
    stemmer="german",
    conjunctions=words("und"),
    auxiliaries=words(
        "ist sind war waren hat haben hatte hatten wird werden wurde wurden kann können muss"
        " gibt gab"
    ),
    frame_words=words(
        "lange oft weit alt groß jahr jahre jahren name namen heißt hieß heißen lautet"
        " lautete nennt nennen nannte genannt bezeichnet bezeichnung begriff begriffe art"
        " arten typ sorte bedeutet bedeutung beispiel beispiele passiert passierte"
        " geschah jetzt derzeit heute heutzutage noch schon bereits"
    ),
    participle_prefix="ge",
    compound_min_part=4,
    compound_linkers=("s", "es", "n", "en", "e", "er", "ens", "nen"),
    capitalised_nouns=True,
    onsets=words("bl br ch dr fl fr gl gr kl kn kr pf pl pr ps sch sk sp st tr wr zw"),
    stop_words=words(_STOP),
    function_words=words(_STOP) | words(_QUESTION) | words("viele viel hoch lange wurde wurden"),
    question_words=words(_QUESTION),
    question_frames=(r"wie (?:viele?|hoch|lange|alt|weit|groß)", r"was ist", r"gibt es"),
    months=MONTHS,
    month_abbreviations={
        "jan": 1,
        "jän": 1,
        "feb": 2,
        "mär": 3,
        "mrz": 3,
        "apr": 4,
        "jun": 6,
        "jul": 7,
        "aug": 8,
        "sep": 9,
        "sept": 9,
        "okt": 10,
        "nov": 11,
        "dez": 12,
        "maerz": 3,
    },
    weekdays=WEEKDAYS,
    weekday_abbreviations={"mo": 1, "di": 2, "mi": 3, "do": 4, "fr": 5, "sa": 6, "so": 7},
    units=words("km m cm mm kg g mg l ml meter kilometer stunde stunden minute minuten"),
    negations=words("nicht kein keine keinem keinen keiner nie niemals nichts niemand weder"),
    antonyms=(("vor", "nach"), ("offen", "geschlossen"), ("ja", "nein"), ("an", "aus")),
    abbreviations=words(
        "z.b bzw nr ca usw u.a d.h s.o s.u vgl ggf evtl inkl exkl str hr fr dr prof jh"
        " bzgl etc mio mrd tel"
    ),
    ordinal_pattern=r"\b\d{1,4}\.(?=\s+(?:[a-zäöü]|[A-ZÄÖÜ][a-zäöü]+))",
    ordinal_nouns=words(
        "jahrhundert jahrhunderts jh jahrtausend jahrtausends mal platz stock stockwerk"
        " klasse kapitel auflage geburtstag jahrestag runde liga etage lebensjahr woche"
        " tag tages weltkrieg weltkriegs sinfonie symphonie spieltag"
        # a floor: "3. OG links", "1. Obergeschoss", "2. UG"
        " og obergeschoss ug untergeschoss dg dachgeschoss"
    ),
    ordinal_leads=words("am im zum zur vom beim des der dem den die das ab seit bis"),
    date_patterns=(
        r"\b\d{1,2}\.\d{1,2}\.\d{2,4}\b",
        r"\b\d{1,2}\.\s*(?:" + "|".join(MONTHS) + r")\b",
    ),
    latest_words=words(
        "aktuell aktuelle aktuellen aktueller aktuelles derzeit zurzeit"
        " momentan neueste neuesten neuester letzte letzten letzter letztes"
        " kürzlich"
    ),
    type_questions=TYPE_QUESTIONS,
    named_time=r"\bwelche[mnrs]?\s+(?:jahr|jahrzehnt|jahrhundert|datum|monat)\b",
    time_words=words(
        "heute morgen gestern übermorgen vorgestern morgens vormittags mittags nachmittags"
        " abends nachts vormittag nachmittag abend nacht mitternacht wochenende werktag"
        " werktags frühling sommer herbst winter jahrhundert jahrhunderts jahrzehnt täglich"
        " wöchentlich monatlich jährlich"
    ),
    quantity_words=words(
        "eins zwei drei vier fünf sechs sieben acht neun zehn elf zwölf dreizehn vierzehn"
        " fünfzehn sechzehn siebzehn achtzehn neunzehn zwanzig dreißig vierzig fünfzig"
        " sechzig siebzig achtzig neunzig hundert tausend million millionen milliarde"
        " milliarden dutzend hälfte halb viertel einmal zweimal dreimal mehrere sekunde"
        " sekunden minute minuten stunde stunden tag tage tagen woche wochen monat monate"
        " monaten jahr jahre jahren täglich wöchentlich monatlich jährlich stündlich"
    ),
    kind_words=words(
        "zeit uhrzeit datum tag tage termin kosten kostet kostete gekostet preis preise"
        " betrag gebühr gebühren summe anzahl zahl letzte letzten letzter letztes erste"
        " ersten erster erstes neueste neuesten neuester aktuell aktuelle aktuellen"
        " aktueller nächste nächsten vorige vorigen"
    ),
)
