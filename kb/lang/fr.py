"""French (français)."""

from __future__ import annotations

from kb.lang.base import Lang, words

MONTHS = (
    "janvier",
    "février",
    "mars",
    "avril",
    "mai",
    "juin",
    "juillet",
    "août",
    "septembre",
    "octobre",
    "novembre",
    "décembre",
)
WEEKDAYS = ("lundi", "mardi", "mercredi", "jeudi", "vendredi", "samedi", "dimanche")

_STOP = """
    au aux avec ce ces dans de des du elle en et eux il ils je la le les leur lui ma mais me
    même mes moi mon ne nos notre nous on ou par pas pour qu que qui sa se ses son sur ta te
    tes toi ton tu un une vos votre vous c d j l à m n s t y été étée étées étés étant suis
    es est sommes êtes sont serai sera serons seront serait seraient étais était étions
    étiez étaient fus fut furent sois soit soient ai as avons avez ont aurai aura aurons
    auront aurait auraient avais avait avions aviez avaient eut eurent ceci cela celà cet
    cette ici ils les leurs quel quels quelle quelles sans soi
"""
_QUESTION = """
    qui que quoi quand où pourquoi comment combien quel quelle quels quelles lequel
    laquelle lesquels lesquelles est-ce"""

_THE = r"(?:le|la|les|l['’]|mon|ma|mes|notre|nos|votre|vos|son|sa|ses|leur|leurs)"
#: the answer types a question asks for, first match wins (:mod:`kb.rag.answer_type`)
TYPE_QUESTIONS = (
    (
        "money",
        r"\bcombien\b.*\b(?:co[uû]t\w*|pay\w*|dépens\w*|factur\w*|gagn\w*|prix|tarifs?|frais)\b"
        r"|\bque\s+co[uû]t\w*|\bà\s+combien\b"
        rf"|\bquel(?:le)?s?\s+(?:est|était|sont|étaient|sera)\s+{_THE}\s*(?:[\w-]+\s+){{0,2}}?"
        r"(?:prix|co[uû]ts?|tarifs?|montant|loyer|salaire|frais)\b",
    ),
    (
        "time",
        r"^\W*(?:\w+\s+)?quand\b|\bquand\W*$|\bdepuis\s+quand\b|\bjusqu['’]\s*à\s+quand\b"
        r"|\bquel(?:le)?s?\s+(?:ann[ée]es?|si[èe]cles?|mois|dates?|jours?|heure)\b",
    ),
    (
        "quantity",
        r"\bcombien\b"
        r"|\bquel(?:le)?s?\s+(?:pourcentage|nombre|proportion|taille|quantité|distance|durée)\b",
    ),
    (
        "name",
        rf"^\W*(?:\w+\s+)?qui\s+(?:est|était|sont|étaient)\s+(?:{_THE}\s|l['’])",
    ),
)

LANG = Lang(
    code="fr",
    name="français",
    stemmer="french",
    conjunctions=words("et"),
    auxiliaries=words("est sont était étaient a ont avait avaient sera seront peut faut"),
    frame_words=words(
        "longtemps souvent loin vieux grand année années an ans nom noms appelle appelé"
        " appelée appelés nommé terme type genre sorte signifie exemple exemples passé"
        " maintenant actuellement aujourd'hui encore déjà"
    ),
    elisions=words("l d j m n s t c qu jusqu lorsqu puisqu quoiqu"),
    stop_words=words(_STOP),
    function_words=words(_STOP) | words(_QUESTION) | words("est-ce qu'est-ce beaucoup"),
    question_words=words(_QUESTION),
    question_frames=(r"est-ce qu(?:e|')", r"qu'est-ce qu(?:e|i|')", r"combien de", r"y a-t-il"),
    months=MONTHS,
    month_abbreviations={
        "janv": 1,
        "févr": 2,
        "fév": 2,
        "avr": 4,
        "juil": 7,
        "sept": 9,
        "oct": 10,
        "nov": 11,
        "déc": 12,
        "fevrier": 2,
        "aout": 8,
        "decembre": 12,
    },
    weekdays=WEEKDAYS,
    weekday_abbreviations={"lun": 1, "mar": 2, "mer": 3, "jeu": 4, "ven": 5, "sam": 6, "dim": 7},
    units=words("km m cm mm kg g mg l ml mètre mètres heure heures minute minutes"),
    negations=words("ne pas non jamais rien personne aucun aucune ni sans"),
    antonyms=(("avant", "après"), ("ouvert", "fermé"), ("oui", "non")),
    abbreviations=words("p.ex mme mlle dr pr etc cf env av apr n° no st ste bd"),
    ordinal_pattern=r"\b\d+(?:er|re|e|ème|è)\b",
    date_patterns=(
        r"\b\d{1,2}(?:er)?\s+(?:" + "|".join(MONTHS) + r")\b",
        r"\b\d{1,2}/\d{1,2}/\d{2,4}\b",
    ),
    latest_words=words(
        "actuel actuelle actuels actuelles actuellement récent récente récents"
        " récentes récemment dernier dernière derniers dernières"
    ),
    type_questions=TYPE_QUESTIONS,
    named_time=r"\bquel(?:le)?s?\s+(?:ann[ée]es?|si[èe]cles?|dates?|mois)\b",
    # not "été" (summer), which is also the participle of "être"; "aujourd" is how a
    # sentence's words are read out of "aujourd'hui" (at its apostrophe)
    time_words=words(
        "aujourd'hui aujourd demain hier soir matin nuit midi minuit semaine week-end printemps"
        " automne hiver siècle siècles décennie quotidien quotidienne hebdomadaire mensuel"
        " mensuelle annuel annuelle"
    ),
    quantity_words=words(
        "deux trois quatre cinq six sept huit neuf dix onze douze treize quatorze quinze"
        " seize vingt trente quarante cinquante soixante cent cents mille million millions"
        " milliard milliards douzaine demi demie moitié quart fois plusieurs seconde secondes"
        " minute minutes heure heures jour jours semaine semaines mois an ans année années"
        " quotidien hebdomadaire mensuel annuel"
    ),
    kind_words=words(
        "heure date jour jours coût coûte prix montant frais tarif total nombre dernier"
        " dernière derniers dernières premier première récent récente actuel actuelle"
        " prochain prochaine précédent précédente"
    ),
)
