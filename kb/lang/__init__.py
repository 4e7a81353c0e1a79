"""Language as data (stdlib only): one module per language, all in the same shape.

Each module (:mod:`kb.lang.en`, :mod:`kb.lang.de`, :mod:`kb.lang.fr`) defines ``LANG``,
a frozen :class:`~kb.lang.base.Lang`: stop words, question words and frames, month and
weekday names with their short forms, units, negation words, antonym pairs, the
abbreviations whose dot ends no sentence, and the ordinal / date patterns. Code that
needs a language's words asks :func:`language` for them instead of writing lists out.

Adding a language is adding a data module here, its code to :data:`KNOWN`, and tests.
"""

from __future__ import annotations

import importlib
from functools import cache

from kb.lang.base import Lang

__all__ = ["KNOWN", "UNKNOWN", "Lang", "all_languages", "language"]

#: the languages shipped, by ISO 639-1 code; English first (the default)
KNOWN: tuple[str, ...] = ("en", "de", "fr")
#: the code for "not determined" (ISO 639-2 ``und``)
UNKNOWN = "und"


@cache
def language(code: str) -> Lang:
    """The data of the language ``code`` (``"en"``, ``"DE"``, ``"fr-CA"``: case and a
    region tag aside). Raises :class:`KeyError` naming the known codes for any other."""
    base = code.strip().lower().replace("_", "-").split("-")[0]
    if base not in KNOWN:
        raise KeyError(f"unknown language {code!r}: known are {', '.join(KNOWN)}")
    lang: Lang = importlib.import_module(f"kb.lang.{base}").LANG
    return lang


def all_languages() -> tuple[Lang, ...]:
    """Every shipped language's data, in :data:`KNOWN`'s order."""
    return tuple(language(c) for c in KNOWN)
