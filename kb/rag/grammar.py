"""GBNF grammar for cited answers (llama.cpp grammar-constrained sampling).

The grammar admits exactly two shapes of output:

- the refusal phrase (letters case-insensitive), optionally followed by ``.``;
- 1 to ``max_sentences`` sentences separated by one space, each made of
  1 to ``max_sentence_chars`` prose characters and an ending: one to four
  citations ``[#n]`` (``n`` from the alternation ``"1" | ... | "k"``, so an
  out-of-range number cannot be sampled) then ``.``, ``!`` or ``?``
  (``... France [#1].``), or the punctuation first (``... France. [#1]``).

Prose characters exclude ``[``, ``]``, ``#``, backticks and newlines, and
``.``, ``!``, ``?`` are allowed inside a sentence only when glued to the next
character (``3.5``, ``U.S``): so a sentence cannot hide a citation in code or
fake one, and the only way to end a sentence is to cite. Termination is bounded twice: after
``max_sentences`` sentences the grammar accepts nothing but the end of the
output, and every sentence has a character cap, so a model that would ramble
is forced to cite and stop; ``max_tokens`` bounds the rest.
"""

from __future__ import annotations

MAX_SENTENCES = 6
MAX_SENTENCE_CHARS = 400


def _literal(text: str) -> str:
    """A GBNF string literal for ``text``."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


def refusal_forms(phrase: str) -> str:
    """The GBNF alternatives for the refusal ``phrase``: as written, or with its first
    letter capitalised (``"not in context" | "Not in context"``), as a sentence may
    start. Not every casing of every letter: the bundled model, free to choose, wrote
    "Not iN cOntexT." and the terminal showed it."""
    text = phrase.strip()
    forms = dict.fromkeys([text, text[:1].upper() + text[1:]])
    return " | ".join(_literal(f) for f in forms) if text else '""'


def citation_grammar(
    k: int,
    refusal_phrase: str,
    *,
    max_sentences: int = MAX_SENTENCES,
    max_sentence_chars: int = MAX_SENTENCE_CHARS,
) -> str:
    """The GBNF text for ``k`` context passages (``k >= 1``)."""
    if k < 1:
        raise ValueError("a citation grammar needs at least one context passage")
    numbers = " | ".join(_literal(str(n)) for n in range(1, k + 1))
    more = max(0, max_sentences - 1)
    body_more = max(0, max_sentence_chars - 1)
    return "\n".join(
        [
            "root ::= refusal | answer",
            f'refusal ::= ({refusal_forms(refusal_phrase)}) "."?',
            f'answer ::= sentence (" " sentence){{0,{more}}}',
            f"sentence ::= first prose{{0,{body_more}}} end",
            # "... France [#1]." or "... France. [#1]"
            'end ::= " "? cites [.!?] | [.!?] " "? cites',
            # a sentence starts with a visible character, never white space or punctuation
            "first ::= [^\\[\\]#`\\n\\r\\t .!?]",
            # ., ! and ? inside a sentence only when glued to the next character (3.5, U.S)
            "prose ::= [^\\[\\]#`\\n\\r.!?] | [.!?] [^\\[\\]#`\\n\\r\\t .!?]",
            'cites ::= cite (" "? cite){0,3}',
            'cite ::= "[#" num "]"',
            f"num ::= {numbers}",
        ]
    )
