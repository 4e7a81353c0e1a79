"""Chunk-level metrics in evidence tokens (Chroma, "Evaluating Chunking Strategies for
Retrieval", Smith & Troynikov 2024; ``brandonstarxel/chunking_evaluation``).

Tokens are the embedder's word pieces: each document's text is tokenised once with the
``tokenizers`` tokenizer of the embedding model (the bundled all-MiniLM-L6-v2's
``tokenizer.json``, no torch; see :mod:`eval.token_space`), and every span becomes a
half-open interval of token indexes (:mod:`eval.metrics.intervals`). Per query:

- ``E``: the union of its evidence spans (golden supports whose snippet was located in
  the document, :mod:`eval.resolve`); supports without a located span are left out;
- ``R_1..R_k``: the top ``k`` retrieved chunks, in rank order;
- ``C``: the chunks of the chunking that overlap ``E`` (computed from the chunking
  alone, nothing is retrieved or embedded).

Formulas (``|X|`` = tokens in the union of X, ``Σ|R_i|`` = sum of chunk lengths, so
overlapping windows count twice as in Chroma's ``sum_of_ranges``):

- token_recall@k    = |E ∩ ∪R_i| / |E|
- token_precision@k = |E ∩ ∪R_i| / Σ|R_i|                (0 when nothing was retrieved)
- token_iou@k       = |E ∩ ∪R_i| / (Σ|R_i| + |E \\ ∪R_i|)
- budget_recall@B   = token recall of the first B retrieved tokens, taken down the
  ranking with the last chunk cut (so a chunker cannot win by making chunks larger)
- precision_omega   = |E ∩ ∪C| / |∪C ∪ E|  (Chroma's Precision_Ω: the precision of
  retrieving exactly the chunks that contain evidence; evidence no chunk covers stays
  in the denominator, as Chroma's ``unused_highlights``)
- evidence_split    = evidence spans no single chunk contains / evidence spans
- evidence_resolved = supports located as spans / supports

Edge cases: every function returns ``None`` where the query is outside its denominator:
no located evidence (``|E| = 0``: unanswerable queries, supports without a snippet or
whose snippet was not found), or no token data (runs stored before these metrics).
``k`` beyond the hits returned scores what came back. A hit whose chunk has no token
span (deleted meanwhile) adds no tokens.
"""

from __future__ import annotations

from dataclasses import dataclass

from eval.metrics import intervals as iv
from eval.metrics.intervals import Interval


@dataclass(frozen=True)
class EvidenceSpan:
    """One located support: its token interval and the chunking's chunks overlapping it
    (``None`` when the chunking was not recorded)."""

    span: Interval
    chunks: tuple[Interval, ...] | None = None


@dataclass(frozen=True)
class TokenView:
    """What the chunk-level metrics read for one query (see the module docs)."""

    supports: int
    evidence: tuple[EvidenceSpan, ...]
    hits: tuple[Interval | None, ...] = ()

    @property
    def spans(self) -> list[Interval]:
        return [e.span for e in self.evidence if e.span[2] > e.span[1]]

    def retrieved(self, k: int) -> list[Interval]:
        return [h for h in self.hits[:k] if h is not None]


def _found(v: TokenView, got: list[Interval]) -> tuple[int, int] | None:
    """``(|E ∩ ∪got|, |E|)``, or ``None`` when ``|E| = 0``."""
    e = v.spans
    size = iv.size(e)
    return None if size == 0 else (iv.size(iv.intersect(e, got)), size)


def token_recall(v: TokenView, k: int) -> float | None:
    """|E ∩ ∪R_1..k| / |E|.

    Example: E = tokens 10..19 (10), top 2 hits cover 0..14 and 30..39 -> 5/10 = 0.5.
    """
    f = _found(v, v.retrieved(k))
    return None if f is None else f[0] / f[1]


def token_precision(v: TokenView, k: int) -> float | None:
    """|E ∩ ∪R_1..k| / Σ|R_i| (0 when the hits hold no tokens).

    Example: as above, Σ|R_i| = 15 + 10 = 25 -> 5/25 = 0.2.
    """
    got = v.retrieved(k)
    f = _found(v, got)
    if f is None:
        return None
    spent = iv.total(got)
    return f[0] / spent if spent else 0.0


def token_iou(v: TokenView, k: int) -> float | None:
    """|E ∩ ∪R| / (Σ|R_i| + |E \\ ∪R|), Chroma's IoU (retrieved tokens plus the evidence
    left out).

    Example: as above, 5 / (25 + 5) = 0.1667.
    """
    got = v.retrieved(k)
    f = _found(v, got)
    if f is None:
        return None
    denom = iv.total(got) + (f[1] - f[0])
    return f[0] / denom if denom else 0.0


def budget_recall(v: TokenView, budget: int) -> float | None:
    """Token recall of the first ``budget`` retrieved tokens (the ranking's chunks in
    order, the last one cut at the budget; all stored hits are considered).

    Example: hits 0..99 and 100..119, E = 110..119, budget 110 -> the second hit is cut
    to 100..109 -> 0/10 = 0.0; budget 120 -> 1.0.
    """
    f = _found(v, iv.head(v.retrieved(len(v.hits)), budget))
    return None if f is None else f[0] / f[1]


def precision_omega(v: TokenView) -> float | None:
    """Chroma's Precision_Ω: |E ∩ ∪C| / |∪C ∪ E|, C = chunks overlapping evidence.

    Example: E = 10..19, chunks 0..14 and 15..29 overlap it -> 10 / 30 = 0.3333; with
    E = 10..39 and only chunk 0..29 -> 20 / 40 = 0.5 (the uncovered 30..39 counts).
    """
    if any(e.chunks is None for e in v.evidence):
        return None
    e = v.spans
    if not e:
        return None
    chunks = [c for ev in v.evidence for c in ev.chunks or ()]
    num = iv.size(iv.intersect(e, chunks))
    return num / iv.size([*chunks, *e])


def is_split(ev: EvidenceSpan) -> bool:
    """No single chunk of the chunking contains the evidence span (it is cut in two, or
    partly uncovered). ``False`` when chunks were not recorded."""
    if ev.chunks is None:
        return False
    return not any(iv.contains(c, ev.span) for c in ev.chunks)


def evidence_split(v: TokenView) -> float | None:
    """Evidence spans no single chunk contains / evidence spans.

    Example: spans 10..19 and 40..49, chunks 0..14, 15..29 and 30..59 -> 1/2 = 0.5.
    """
    spans = [e for e in v.evidence if e.span[2] > e.span[1]]
    if not spans or any(e.chunks is None for e in spans):
        return None
    return sum(is_split(e) for e in spans) / len(spans)


def evidence_resolved(v: TokenView) -> float | None:
    """Supports located as spans of at least one token / supports (``None`` without
    supports).

    Example: 3 supports, 2 snippets found -> 0.6667.
    """
    if v.supports == 0:
        return None
    return len(v.spans) / v.supports


AT_K = {"token_recall": token_recall, "token_precision": token_precision, "token_iou": token_iou}
BUDGET = {"budget_recall": budget_recall}
SCALAR = {
    "precision_omega": precision_omega,
    "evidence_split_rate": evidence_split,
    "evidence_resolved_rate": evidence_resolved,
}
