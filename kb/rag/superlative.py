"""Superlative questions over a list: which item has the most or least of a quantity.

"Which laptop is cheapest?" over a shortlist

    - ThinkPad X1 Carbon: 1.12 kg, £1,349.
    - Dell XPS 13: heavier at 1.24 kg, but cheaper than the ThinkPad at £1,099.
    - MacBook Air M2: £999 on the education store.

was answered from the item that says *cheaper*, the closest match by words, while the
answer is the item with the smallest price. Words and cosines cannot compare values;
this module does, for the quote candidates that are items of one list or rows of one
table.

The question names the extreme (:data:`SUPERLATIVES`): a superlative word (*cheapest*,
*heaviest*, *longest* ...), or a comparative asked between the items ("Which laptop is
*lighter*?", :data:`COMPARATIVES`), or *most*/*least* (*more*/*less*) before
*expensive* or *costly*, with the
kind of quantity it compares (:func:`kb.rag.lexical.quantities`' kinds: *cheapest*
compares money, *lightest* weight, *coldest* temperature, *longest* a distance or a
time) and whether the largest or the smallest value wins. *highest*, *lowest*,
*largest*, *biggest* and *smallest* compare whatever quantity with a unit, or score
out of a total ("4/5"), the items hold (bare numbers, often years or counts of
something else, are not compared); *most*
and *least* alone are too common ("the most famous") to read as a comparison.

Among the items of one passage (list items or table rows, :func:`is_item`), those that
hold a quantity of that kind are compared by the first such quantity's value, when
there are two at least and all are written in the same unit (the text around the
digits: "£", "kg"; "1.2 kg" and "900 g" are not compared, nor are "£999" and "999
euros"). The item(s) with the extreme value are the answer's candidates. Edge cases: a
question with no superlative, or items without such a quantity, or one item only,
give nothing; ties give every tied item; values compare as numbers ("1,349" is 1349).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from kb.rag.lexical import quantities, tokens
from kb.sentence_spans import starts_item

#: superlative -> (the kind of quantity it compares, or ``None`` for any; +1 when the
#: largest value wins, -1 when the smallest does)
SUPERLATIVES: dict[str, tuple[frozenset[str] | None, int]] = {
    **{w: (frozenset({"money"}), -1) for w in ("cheapest",)},
    **{w: (frozenset({"money"}), 1) for w in ("dearest", "priciest", "costliest")},
    "lightest": (frozenset({"weight"}), -1),
    "heaviest": (frozenset({"weight"}), 1),
    **{w: (frozenset({"temperature"}), 1) for w in ("hottest", "warmest")},
    **{w: (frozenset({"temperature"}), -1) for w in ("coldest", "coolest")},
    "longest": (frozenset({"distance", "time"}), 1),
    "shortest": (frozenset({"distance", "time"}), -1),
    **{w: (frozenset({"distance"}), -1) for w in ("nearest", "closest")},
    **{w: (frozenset({"distance"}), 1) for w in ("farthest", "furthest")},
    **{w: (None, 1) for w in ("highest", "largest", "biggest")},
    **{w: (None, -1) for w in ("lowest", "smallest")},
}
#: comparatives a question asks between a list's items with ("Which laptop is
#: *lighter*?" over two or three of them): read as the superlative
COMPARATIVES: dict[str, tuple[frozenset[str] | None, int]] = {
    "cheaper": (frozenset({"money"}), -1),
    **{w: (frozenset({"money"}), 1) for w in ("dearer", "pricier", "costlier")},
    "lighter": (frozenset({"weight"}), -1),
    "heavier": (frozenset({"weight"}), 1),
    **{w: (frozenset({"temperature"}), 1) for w in ("hotter", "warmer")},
    **{w: (frozenset({"temperature"}), -1) for w in ("colder", "cooler")},
    "longer": (frozenset({"distance", "time"}), 1),
    "shorter": (frozenset({"distance", "time"}), -1),
    **{w: (frozenset({"distance"}), -1) for w in ("nearer", "closer")},
    "farther": (frozenset({"distance"}), 1),
    **{w: (None, 1) for w in ("higher", "larger", "bigger")},
    **{w: (None, -1) for w in ("lower", "smaller")},
}
#: *most* / *least* (*more* / *less*) before these compare money ("the most expensive",
#: "less costly")
_PRICE_WORDS = frozenset(["expensive", "costly", "pricey"])


@dataclass(frozen=True)
class Extreme:
    """What a superlative question compares: the quantity kinds (``None``: any) and
    the direction (+1 largest, -1 smallest)."""

    kinds: frozenset[str] | None
    direction: int


def asked_extreme(question: str) -> Extreme | None:
    """The extreme ``question`` asks for (module docstring), or ``None``."""
    words = [w.lower() for w in tokens(question)]
    for i, w in enumerate(words):
        if w in _MOST_LEAST and i + 1 < len(words) and words[i + 1] in _PRICE_WORDS:
            return Extreme(frozenset({"money"}), _MOST_LEAST[w])
        if w in SUPERLATIVES or w in COMPARATIVES:
            kinds, direction = SUPERLATIVES.get(w) or COMPARATIVES[w]
            return Extreme(kinds, direction)
    return None


_MOST_LEAST = {"most": 1, "more": 1, "least": -1, "less": -1}


def is_item(sentence: str) -> bool:
    """``sentence`` is a list item or a table row (not a table's rule line)."""
    text = sentence.lstrip()
    return starts_item(text) or (text.startswith("|") and "---" not in text)


_DIGITS = re.compile(r"[\d.,]+")


#: a rating or score out of a total: "4/5", "8.5 / 10" (not a date, "12/03/2026")
_SCORE = re.compile(r"(?<![\d/.])(\d+(?:\.\d+)?)\s*/\s*(\d+)(?![\d/])")


def measure(sentence: str, extreme: Extreme) -> tuple[float, str] | None:
    """The first quantity of ``sentence`` of the compared kind, as (value, unit): the
    unit is the quantity as written without its digits ("£", "kg"). ``None`` when it
    holds none; for any kind (``extreme.kinds`` is ``None``), a number with a unit, or
    else a score out of a total ("4/5": 4 in unit "/5"; "Which book did I rate
    highest?")."""
    if extreme.kinds is None and (score := _SCORE.search(sentence)) is not None:
        return float(score.group(1)), "/" + score.group(2)
    for value, kinds, written in quantities(sentence):
        if extreme.kinds is None and not kinds:
            continue
        if extreme.kinds is not None and not (kinds & extreme.kinds):
            continue
        try:
            number = float(value)
        except ValueError:
            continue
        unit = " ".join(_DIGITS.sub(" ", written).split()).lower()
        return number, unit
    return None


def extremes(question: str, items: Sequence[tuple[int, str]]) -> set[int]:
    """The keys of ``items`` (key, sentence: the quote candidates of one passage) that
    hold the extreme value ``question`` asks for (module docstring); empty when it
    asks for none or the items do not compare."""
    extreme = asked_extreme(question)
    if extreme is None:
        return set()
    measured = [(key, m) for key, text in items if is_item(text) and (m := measure(text, extreme))]
    if len(measured) < 2 or len({unit for _, (_, unit) in measured}) != 1:
        return set()
    best = max(extreme.direction * value for _, (value, _) in measured)
    return {key for key, (value, _) in measured if extreme.direction * value == best}
