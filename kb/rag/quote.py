"""Quote mode: every answer sentence is a sentence copied from a cited passage.

For small models that paraphrase badly, the answer is assembled from source text: the
grammar admits only the refusal phrase or 1 to ``max_quotes`` *candidate sentences*,
each copied verbatim and followed by the citation of the passage it comes from
(``<sentence> [#n]``). The model chooses which sentences; it cannot change a word, so
every quote is real source text with provenance by construction (Verbatim RAG).

Candidates: the sentences of the context passages (:func:`split_sentences`), ranked by
relevance to the question,

    rel(s) = (cos(q, s) + coverage(q, window(s))) / 2

with ``cos`` the embedder's cosine (0 without an embedder) and ``coverage`` the share
of the question's content stems in the sentence and its neighbours; the best
``candidates`` sentences (ties: passage order) are offered. The prompt lists exactly
these sentences, so the model reads what the grammar lets it write (a GBNF grammar
restricts tokens but does not guide the model; llama.cpp issue 5599).

Sentences are written into the grammar as literals; characters a GBNF literal
cannot hold are escaped. A sentence longer than :data:`MAX_QUOTE_CHARS` is not offered.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from kb.rag.grammar import _case_insensitive, _literal
from kb.rag.lexical import content_stems, recall
from kb.rag.verify import EmbedFn, PassageSentences

MAX_QUOTE_CHARS = 600


@dataclass(frozen=True)
class Candidate:
    """A passage sentence the model may quote."""

    n: int  # context number (1-based)
    j: int  # sentence index in the passage
    text: str
    relevance: float


def rank_candidates(
    question: str,
    passages: Sequence[PassageSentences],
    embed: EmbedFn | None,
    limit: int,
) -> list[Candidate]:
    """The ``limit`` most relevant passage sentences (module docstring), best first."""
    q_stems = content_stems(question)
    qvec = None if embed is None else np.asarray(embed([question]), dtype=np.float32)[0]
    cands: list[Candidate] = []
    for p in passages:
        cos = (
            p.vectors @ qvec
            if (qvec is not None and p.vectors is not None)
            else np.zeros(len(p.spans))
        )
        for j in range(len(p.spans)):
            text = " ".join(p.sentence(j).split())
            if len(text) > MAX_QUOTE_CHARS or text.startswith("#"):
                continue
            rel = (float(cos[j]) + recall(q_stems, p.window_stems[j])) / 2
            cands.append(Candidate(p.n, j, text, rel))
    cands.sort(key=lambda c: (-c.relevance, c.n, c.j))
    return cands[:limit]


def quote_line(c: Candidate) -> str:
    """What the model writes for candidate ``c``: the sentence, a space, its citation."""
    return f"{c.text} [#{c.n}]"


def quote_grammar(cands: Sequence[Candidate], refusal_phrase: str, max_quotes: int) -> str:
    """GBNF: the refusal phrase, or 1..``max_quotes`` distinct-or-not candidate quotes."""
    if not cands:
        raise ValueError("quote mode needs at least one candidate sentence")
    alts = " | ".join(f"q{i}" for i in range(len(cands)))
    lines = [
        "root ::= refusal | answer",
        f'refusal ::= {_case_insensitive(refusal_phrase.strip())} "."?',
        f'answer ::= quote (" " quote){{0,{max(0, max_quotes - 1)}}}',
        f"quote ::= {alts}",
    ]
    lines += [f"q{i} ::= {_literal(quote_line(c))}" for i, c in enumerate(cands)]
    return "\n".join(lines)


def candidates_block(cands: Sequence[Candidate]) -> str:
    """The numbered candidate list shown in the prompt, one per line."""
    return "\n".join(quote_line(c) for c in cands)
