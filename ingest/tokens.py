"""Token counting for chunk limits.

Chunk limits are in the embedding model's tokens, so a chunk never exceeds what the
embedder reads. :func:`default_counter` loads the bundled all-MiniLM-L6-v2
``tokenizer.json`` with the ``tokenizers`` library (no torch), with truncation and
padding off, and counts tokens *without* the special tokens (``[CLS]``/``[SEP]``).
:class:`RegexTokenizer` (``\\w+|[^\\w\\s]``) is a dependency-free stand-in for tests.

``offsets(text)`` gives each token's ``(start, end)`` character range in ``text``,
in order, non-overlapping; ``count(text) == len(offsets(text))``.

**Words** (optional, :func:`word_spans`). A counter may also offer ``words(text)``: the
text's *words* (pre-tokens) as :class:`Words` — the character range of each word's
tokens and how many tokens it has, in order — and thereby promises that its counts are
*additive*:

1. ``count(text[a:b])`` is the sum of ``tokens`` over the words inside ``[a, b)``
   whenever neither ``a`` nor ``b`` falls strictly inside a word (so the words hold
   every token: their ``tokens`` add up to ``count(text)``); and
2. ``count(x + w + y) == count(x) + count(y)`` for any strings ``x``, ``y`` and any
   ``w`` made of spaces and line breaks (the chunk joiners ``" "`` and ``"\n\n"``).

This lets a chunker tokenise a section once and count any slice cut between words with
index arithmetic (:mod:`ingest.chunkers.counting`). ``words`` returns ``None`` where
the tokenizer cannot promise it; a counter without ``words`` is counted slice by slice.
"""

from __future__ import annotations

import json
import operator
import re
from collections.abc import Callable
from functools import lru_cache
from itertools import chain, compress, repeat
from pathlib import Path
from typing import Any, NamedTuple, Protocol


class Words(NamedTuple):
    """A text's words as parallel lists, in text order: word ``k`` covers characters
    ``starts[k]:ends[k]`` and has ``tokens[k]`` tokens."""

    starts: list[int]
    ends: list[int]
    tokens: list[int]


_ENCODE_CACHE = 32  # recent texts whose encoding is kept (count/offsets/words share it)

# tokenizer.json components that act per character (normalizers) or split only at
# whitespace and punctuation (pre-tokenizers): with these, counts are additive (above)
_ADDITIVE_NORMALIZERS = frozenset({"BertNormalizer", "Lowercase", "NFD", "NFKD", "StripAccents"})
_ADDITIVE_PRE_TOKENIZERS = frozenset({"BertPreTokenizer", "Whitespace", "WhitespaceSplit"})


class TokenCounter(Protocol):
    """``name`` identifies the tokenisation (it is part of the chunker's params)."""

    name: str

    def count(self, text: str) -> int: ...

    def offsets(self, text: str) -> list[tuple[int, int]]: ...


class RegexTokenizer:
    """Words (``\\w+``) and single punctuation characters are tokens; whitespace is not.

    Every token is its own word, so counts are additive (see the module docstring)."""

    name = "regex"
    _pattern = re.compile(r"\w+|[^\w\s]")

    def count(self, text: str) -> int:
        return sum(1 for _ in self._pattern.finditer(text))

    def offsets(self, text: str) -> list[tuple[int, int]]:
        return [m.span() for m in self._pattern.finditer(text)]

    def words(self, text: str) -> Words | None:
        offsets = self.offsets(text)
        return Words([s for s, _ in offsets], [e for _, e in offsets], [1] * len(offsets))


class HFTokenizer:
    """A ``tokenizers`` tokenizer from a ``tokenizer.json`` file.

    The last :data:`_ENCODE_CACHE` encodings are cached by text, so counting a text
    again, or asking for its offsets and words, encodes it once. ``words`` is offered
    (not ``None``) when :func:`_is_additive` accepts the tokenizer's configuration."""

    def __init__(self, path: Path, name: str) -> None:
        from tokenizers import Tokenizer

        tok: Any = Tokenizer.from_file(str(path))
        tok.no_truncation()
        tok.no_padding()
        self._tok = tok
        self.name = name
        self.additive = _is_additive(json.loads(path.read_text(encoding="utf-8")))
        self._encode: Callable[[str], Any] = lru_cache(maxsize=_ENCODE_CACHE)(self._encode_now)

    def _encode_now(self, text: str) -> Any:
        return self._tok.encode(text, add_special_tokens=False)

    def count(self, text: str) -> int:
        if not text:
            return 0
        return len(self._encode(text))

    def offsets(self, text: str) -> list[tuple[int, int]]:
        if not text:
            return []
        raw: list[tuple[int, int]] = self._encode(text).offsets
        if _ordered(list(chain.from_iterable(raw))):  # s0 <= e0 <= s1 <= …: nothing to fix
            return raw
        out: list[tuple[int, int]] = []
        last = 0
        for start, end in raw:
            # continuation pieces of one character may repeat offsets; keep them ordered
            start = max(start, last)
            end = max(end, start)
            out.append((start, end))
            last = end
        return out

    def words(self, text: str) -> Words | None:
        """Consecutive tokens with the same word id form one word; its range is the hull
        of their raw offsets. A token without a word id is a word of its own."""
        if not self.additive:
            return None
        enc = self._encode(text) if text else None
        wids: list[int | None] = enc.word_ids if enc is not None else []
        if enc is None or not wids:  # nothing but characters the tokenizer drops
            return Words([], [], [])
        flat = list(chain.from_iterable(enc.offsets))
        starts, ends = flat[0::2], flat[1::2]
        if None in wids:  # a token without a word id starts a word, and so does its successor
            pairs = enumerate(zip([None, *wids], wids, strict=False))
            firsts = [k for k, (p, q) in pairs if q is None or p != q]
        else:  # where the word id changes (map/compress run at C speed)
            firsts = [0, *compress(range(1, len(wids)), map(operator.ne, wids[1:], wids))]
        nexts = [*firsts[1:], len(wids)]
        tokens = list(map(operator.sub, nexts, firsts))
        if _ordered(starts) and _ordered(ends):  # hull = first start .. last end
            lasts = map(operator.sub, nexts, repeat(1))
            return Words(
                list(map(starts.__getitem__, firsts)), list(map(ends.__getitem__, lasts)), tokens
            )
        bounds = list(zip(firsts, nexts, strict=True))
        return Words(
            [min(starts[a:b]) for a, b in bounds], [max(ends[a:b]) for a, b in bounds], tokens
        )


def _ordered(values: list[int]) -> bool:
    return all(map(operator.le, values, values[1:]))


def _is_additive(config: dict[str, Any]) -> bool:
    """Whether a ``tokenizer.json`` gives additive counts: every normalizer acts per
    character (:data:`_ADDITIVE_NORMALIZERS`), every pre-tokenizer splits at whitespace
    and punctuation only (:data:`_ADDITIVE_PRE_TOKENIZERS`), and no added token contains
    whitespace or strips the whitespace around it. The model (WordPiece, BPE, …) then
    sees one word at a time, so nothing outside a word changes its tokens."""

    def accepted(node: dict[str, Any] | None, allowed: frozenset[str], key: str) -> bool:
        if node is None:
            return True
        if node.get("type") == "Sequence":
            return all(accepted(n, allowed, key) for n in node.get(key, []))
        return node.get("type") in allowed

    added_ok = all(
        not t.get("lstrip") and not t.get("rstrip") and not re.search(r"\s", t["content"])
        for t in config.get("added_tokens") or []
    )
    return (
        added_ok
        and accepted(config.get("normalizer"), _ADDITIVE_NORMALIZERS, "normalizers")
        and accepted(config.get("pre_tokenizer"), _ADDITIVE_PRE_TOKENIZERS, "pretokenizers")
    )


def word_spans(counter: TokenCounter, text: str) -> Words | None:
    """``counter.words(text)`` where the counter offers it (see the module docstring),
    else ``None``: counts of ``text``'s slices must then come from ``counter.count``."""
    words: Callable[[str], Words | None] | None = getattr(counter, "words", None)
    return None if words is None else words(text)


def is_additive(counter: TokenCounter) -> bool:
    """Whether ``counter`` promises additive counts (its ``words`` are not ``None``)."""
    return word_spans(counter, "") is not None


@lru_cache(maxsize=1)
def default_counter() -> TokenCounter:
    """The bundled embedding model's tokenizer (loaded once per process)."""
    from kb.backends.bundled import embedding_model_dir

    return HFTokenizer(embedding_model_dir() / "tokenizer.json", "bundled:all-MiniLM-L6-v2")


def counter_for(embedding_model: str) -> TokenCounter:
    """The tokenizer of the configured embedding model: the bundled one for ``"bundled"``,
    else the folder's ``tokenizer.json`` when it has one, else the bundled one."""
    if embedding_model != "bundled":
        folder = Path(embedding_model).expanduser()
        if (folder / "tokenizer.json").is_file():
            return _local_counter(str(folder.resolve()))
    return default_counter()


@lru_cache(maxsize=4)
def _local_counter(folder: str) -> TokenCounter:
    return HFTokenizer(Path(folder) / "tokenizer.json", f"local:{folder}")
