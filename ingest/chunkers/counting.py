"""Token counts of slices of a section, from one tokenisation of the section.

The chunkers ask "how many tokens has ``text[a:b]``?" many times per section (split,
pack, merge, window shrink). :class:`SliceCounter` answers from the section's *words*
(:func:`ingest.tokens.word_spans`) by index arithmetic::

    count(a, b) = cum[j] - cum[i]
    i = first word with start >= a,   j = one past the last word with end <= b,
    cum[k] = tokens of words 0 .. k-1

which equals ``counter.count(text[a:b])`` exactly when neither ``a`` nor ``b`` falls
strictly inside a word (the counter's additivity promise). Any other slice — a cut
inside a word, where word pieces are not additive — and every slice for a counter
without words is counted exactly with ``counter.count``. Malformed words (empty,
overlapping or out of order) make the whole section use ``counter.count``.

The whole text, ``count(0, len(text))``, is always ``counter.count(text)``; the words
are fetched only when some other slice is asked for, so a section that fits its limit
costs one plain count.
"""

from __future__ import annotations

import operator
from bisect import bisect_left, bisect_right
from itertools import accumulate

from ingest.tokens import TokenCounter, Words, is_additive, word_spans


class SliceCounter:
    """Counts tokens of ``text[a:b]`` for one ``text``; see the module docstring.

    ``additive`` is whether the counter promises additive counts (it offers words)."""

    def __init__(self, text: str, counter: TokenCounter) -> None:
        self.text = text
        self.counter = counter
        self.additive = is_additive(counter)
        self._whole: int | None = None
        self._index: tuple[list[int], list[int], list[int]] | None = None
        self._indexed = False

    def count(self, a: int, b: int) -> int:
        """Tokens of ``text[a:b]`` (exactly ``counter.count(text[a:b])``)."""
        if a == 0 and b == len(self.text):
            if self._whole is None:
                self._whole = self.counter.count(self.text)
            return self._whole
        index = self._words() if self.additive else None
        if index is not None:
            starts, ends, cum = index
            if _between_words(starts, ends, a) and _between_words(starts, ends, b):
                return max(0, cum[bisect_right(ends, b)] - cum[bisect_left(starts, a)])
        return self.counter.count(self.text[a:b])

    def warm(self) -> None:
        """Fetch the words now (call it right after the counter tokenised ``text`` for
        another reason, while the counter still has that encoding cached)."""
        if self.additive:
            self._words()

    def _words(self) -> tuple[list[int], list[int], list[int]] | None:
        """``(starts, ends, cum)`` of the text's words, or ``None`` when unusable. The
        words hold every token, so ``cum[-1]`` is also the whole text's count."""
        if not self._indexed:
            self._indexed = True
            words = word_spans(self.counter, self.text)
            if words is not None and _well_formed(words):
                cum = list(accumulate(words.tokens, initial=0))
                self._index = (words.starts, words.ends, cum)
                if self._whole is None:
                    self._whole = cum[-1]
        return self._index


def _between_words(starts: list[int], ends: list[int], p: int) -> bool:
    """``p`` is not strictly inside a word (a cut at ``p`` keeps counts additive)."""
    k = bisect_right(starts, p) - 1
    return k < 0 or starts[k] == p or ends[k] <= p


def _well_formed(words: Words) -> bool:
    """Every word non-empty with at least one token, in order, none overlapping:
    ``0 <= starts[0] < ends[0] <= starts[1] < ends[1] <= …`` and every ``tokens >= 1``."""
    starts, ends, tokens = words
    return (
        len(starts) == len(ends) == len(tokens)
        and (not starts or starts[0] >= 0)
        and all(map(operator.lt, starts, ends))
        and all(map(operator.le, ends, starts[1:]))
        and min(tokens, default=1) >= 1
    )
