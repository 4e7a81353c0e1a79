"""The shape every language module fills in (stdlib only)."""

from __future__ import annotations

from dataclasses import dataclass, field


def words(text: str) -> frozenset[str]:
    """The white-space separated words of ``text``, in small letters."""
    return frozenset(text.lower().split())


@dataclass(frozen=True)
class Lang:
    """One language's words and patterns. All words are in small letters.

    - ``stop_words``: function words the keyword leg drops (they match most chunks);
    - ``function_words``: the wider set that is never a *content* word of a question
      (stop words plus question words, auxiliaries, pronouns);
    - ``question_words``: what a wh-question starts with ("who", "wer", "qui");
    - ``question_frames``: regexes (case-insensitive) for a question's opening frame
      ("est-ce que", "what is the");
    - ``months``: the 12 month names in order; ``month_abbreviations`` maps short
      forms to 1..12; ``weekdays`` the 7 day names from Monday, with
      ``weekday_abbreviations`` mapping short forms to 1..7;
    - ``units``, ``negations``, ``antonyms`` (pairs);
    - ``abbreviations``: words (without their final dot, inner dots kept: "z.b")
      whose dot ends no sentence;
    - ``ordinal_pattern``: a regex for an ordinal written with a dot or suffix;
    - ``date_patterns``: regexes for dates written out in the language;
    - ``ordinal_nouns``: words (or their starts) an ordinal written "18." stands before
      ("Jahrhunderts", "Mal"), and ``ordinal_leads`` the words before one ("am 3.",
      "des 18."): with either, or a month name after it, the number's dot ends no
      sentence (empty where the language writes no ordinal dot);
    - ``latest_words``: words that ask for the latest dated entry, row or value
      ("recently", "aktuell", "letzte", "dernière"): not what the question is about,
      but which of several entries answers it (:func:`kb.rag.superlative.asked_extreme`);
    - ``stemmer``: the Snowball algorithm's name (PyStemmer) for the language;
    - ``elisions``: the words a language writes before an apostrophe in place of their
      vowel ("l'île", "qu'il", "s'appellent"): left out when a word is stemmed
      (:func:`kb.lang.inflection.stem_word`);
    - ``participle_prefix``: the prefix a past participle written in small letters takes
      ("ge" in German's "gekostet", "gebacken"): left out when a word is stemmed, so the
      participle meets its verb's other forms ("kostet", "backen");
    - ``onsets``: the consonant clusters a word of the language may start with ("st",
      "pf", "sch"): what is left of a word without ``participle_prefix`` must start
      with a vowel, one consonant and a vowel, or one of these;
    - ``conjunctions``: the words that join two questions into one ("and", "und",
      "et"), and ``auxiliaries`` the verbs a question may open with after one ("did",
      "ist", "a"): "…, and when is …" asks a second fact (:mod:`kb.rag.two_facts`);
    - ``capitalised_nouns``: the language writes every noun with a capital (German), so
      a capital does not mark a name (:func:`kb.rag.lexical.key_tokens`);
    - ``frame_words``: words that frame a question rather than name what it is about
      ("how *long*", "what *kind* of", "wie *heißt*", "welche *Art*", "quel *type*"): the
      answer rarely repeats them, so they are no terms (:func:`kb.rag.terms.frame_words`);
    - ``type_questions``: ``(type, regex)`` pairs (case-insensitive), in order, first
      match wins: the answer type a question asks for ("money", "time", "quantity",
      "name"; :func:`kb.rag.answer_type.expected_type`), and ``named_time`` the regex of
      a point in time asked by its name ("what year", "in welchem Jahr", "en quelle
      année": :func:`kb.rag.answer_type.strict_type`). A language that capitalises its
      nouns has no "name" pattern: a capital there tells no name. ``strict_types``: the
      evidence check counts only the sentences that give a strict type's answer (set
      where that was measured to pay: English);
    - ``time_words``: words that say *when* without a digit besides the months and
      weekdays ("today", "heute", "hier"); ``ambiguous_months``: month names and short
      forms more often other words ("may", "march"), which say no time alone;
    - ``quantity_words``: words that say *how many / how long / how often* without a
      digit ("three", "zwölf", "douzaine", "hours", "täglich");
    - ``kind_words``: words that name what kind of answer is asked, or which of several
      ("cost", "Preis", "date", "last", "dernière"): an answer gives it and need not
      repeat the word (:mod:`kb.rag.responsive`);
    - ``compound_min_part``: the language writes compounds as one word (German
      *Laubwald*, *Wirtschaftswachstum*) and a part of one has at least this many letters
      (0: the language writes its compounds apart, as English and French do);
      ``compound_linkers`` are the letters a compound may put between two parts
      (German's *Fugenelemente*: *Gericht-s-verfahren*, *Sonne-n-schein*): both read by
      :mod:`kb.lang.compounds`.
    """

    code: str
    name: str
    stemmer: str
    stop_words: frozenset[str]
    function_words: frozenset[str]
    question_words: frozenset[str]
    question_frames: tuple[str, ...]
    months: tuple[str, ...]
    month_abbreviations: dict[str, int] = field(hash=False)
    weekdays: tuple[str, ...]
    weekday_abbreviations: dict[str, int] = field(hash=False)
    units: frozenset[str]
    negations: frozenset[str]
    antonyms: tuple[tuple[str, str], ...]
    abbreviations: frozenset[str]
    ordinal_pattern: str
    date_patterns: tuple[str, ...]
    ordinal_nouns: frozenset[str] = frozenset()
    ordinal_leads: frozenset[str] = frozenset()
    latest_words: frozenset[str] = frozenset()
    elisions: frozenset[str] = frozenset()
    participle_prefix: str = ""
    onsets: frozenset[str] = frozenset()
    conjunctions: frozenset[str] = frozenset()
    auxiliaries: frozenset[str] = frozenset()
    capitalised_nouns: bool = False
    frame_words: frozenset[str] = frozenset()
    type_questions: tuple[tuple[str, str], ...] = ()
    named_time: str = ""
    strict_types: bool = False
    time_words: frozenset[str] = frozenset()
    ambiguous_months: frozenset[str] = frozenset()
    quantity_words: frozenset[str] = frozenset()
    kind_words: frozenset[str] = frozenset()
    compound_min_part: int = 0
    compound_linkers: tuple[str, ...] = ()

    @property
    def when_words(self) -> frozenset[str]:
        """Every word that says *when* without a digit: the months and their short
        forms (but :attr:`ambiguous_months`), the weekdays and :attr:`time_words`."""
        months = {*self.months, *self.month_abbreviations} - self.ambiguous_months
        return frozenset(months) | frozenset(self.weekdays) | self.time_words

    def month_number(self, name: str) -> int | None:
        """1..12 for a month's name or short form in this language, any case."""
        w = name.lower().rstrip(".")
        if w in self.months:
            return self.months.index(w) + 1
        return self.month_abbreviations.get(w)

    def weekday_number(self, name: str) -> int | None:
        """1 (Monday) .. 7 for a weekday's name or short form, any case."""
        w = name.lower().rstrip(".")
        if w in self.weekdays:
            return self.weekdays.index(w) + 1
        return self.weekday_abbreviations.get(w)
