"""The citation verifier: does a cited passage support an answer sentence?

Deterministic, built from what kb already has (no extra model). For a claim ``c`` (the
answer sentence without its ``[#n]`` markers) and each sentence ``s_j`` of a passage
(:func:`kb.rag.sentences.split_sentences`; the window ``w_j`` is ``s_{j-1} s_j s_{j+1}``):

- ``lex``  = share of ``c``'s content stems found in ``s_j``;
- ``lexw`` = share of ``c``'s content stems found in ``w_j``;
- ``key``  = share of ``c``'s key tokens found in ``w_j`` (1.0 when it has none): numbers
  with the word after them (``24 hour``: a number must keep its unit) and names
  (:func:`kb.rag.lexical.key_tokens`);
- ``cos``  = cosine of the embedder's vectors of ``c`` and ``s_j``;

``p_j = sigmoid(b + w_lex·lex + w_lexw·lexw + w_key·key + w_cos·cos)`` and the passage's
support is ``max_j p_j`` (SummaC-ZS: one source sentence pinpoints support, a whole
passage dilutes it); the argmax sentence is the *evidence*. A question the passage
asks ("Does she need a production login?", :func:`kb.sentence_spans.is_question`)
supports no statement: its ``p_j`` is 0 unless the claim is a question too (a quote
of it). The weights are a logistic
regression fitted by ``bench/verify.py`` on squad-dev pairs (golden sentences against
the chunk holding them, and hard negatives: the same sentence against top-ranked
chunks of the same article that do not hold it, plus number/name swaps); the fitted
values and the AUC they reached are in :data:`DEFAULT_MODEL`'s comment.

A sentence is ``supported`` when one of its valid citations scores at least
``threshold``; ``uncited`` when it has no valid citation; else ``unsupported``. When
another context passage scores at least ``threshold`` and beats the best cited one by
``margin``, it is recorded as the suggested citation.

Without an embedder (``embed=None``) the cosine term is replaced by ``lex`` (a weaker,
purely lexical verifier); the record says which was used.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from kb.rag.claim_polarity import reversal
from kb.rag.lexical import (
    content_stems,
    key_tokens,
    recall,
)
from kb.rag.passage import OPEN_TASK_STEMS as OPEN_TASK_STEMS
from kb.rag.passage import TASK_STEMS as TASK_STEMS
from kb.rag.passage import EmbedFn as EmbedFn
from kb.rag.passage import PassageSentences as PassageSentences
from kb.rag.passage import embed_passages as embed_passages
from kb.rag.passage import heading_stems_of as heading_stems_of
from kb.rag.passage import lead_words as lead_words
from kb.rag.passage import list_leads as list_leads
from kb.rag.passage import names_in as names_in
from kb.rag.passage import section_heading as section_heading
from kb.rag.sentences import cited_numbers, strip_citations
from kb.sentence_spans import (
    is_question,
    row_columns,
)
from kb.types import Hit, Locator, Span


@dataclass(frozen=True)
class SupportModel:
    """Logistic weights of the support score (see the module docstring)."""

    bias: float
    w_lex: float
    w_lexw: float
    w_key: float
    w_cos: float

    def score(self, lex: float, lexw: float, key: float, cos: float) -> float:
        z = self.bias + self.w_lex * lex + self.w_lexw * lexw + self.w_key * key
        z += self.w_cos * cos
        return 1.0 / (1.0 + math.exp(-z))


# Fitted by bench/verify.py: logistic regression with non-negative weights on the
# calibration half of squad-dev's articles (1,256 pairs in all); ROC AUC 0.974 there and
# 0.963 on the held-back half, precision 0.82 / recall 0.97 at 0.5. The cosine came out
# with weight 0 (with these lexical signals it adds nothing on these pairs), so the
# verifier embeds nothing unless asked to (quote mode ranks with the vectors). The
# positive pairs are source sentences, not paraphrases: a correct paraphrase that drops
# a content word scores low. Strict by design; recalibrate with labelled real answers.
DEFAULT_MODEL = SupportModel(bias=-82.119, w_lex=14.207, w_lexw=23.998, w_key=45.914, w_cos=0.0)


DEFAULT_THRESHOLD = 0.5


DEFAULT_MARGIN = 0.15


@dataclass
class Evidence:
    """The passage sentence that supports a claim, with its exact place."""

    n: int
    chunk_id: int
    path: str
    quote: str
    locator: Locator
    score: float
    #: the header cells when the quote is a Markdown table row (which alone does not say
    #: what its cells are: :func:`kb.sentence_spans.row_columns`), else ``None``
    columns: list[str] | None = None
    #: the quote is the passage's section heading (:meth:`Verifier.best`), not a
    #: sentence of its text: Sources shows a sentence's evidence before it
    heading: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "chunk_id": self.chunk_id,
            "path": self.path,
            "score": round(self.score, 4),
            "quote": self.quote,
            "columns": self.columns,
            "heading": self.heading,
            "locator": self.locator.to_dict(),
        }


@dataclass
class SentenceVerdict:
    """The verifier's judgement of one answer sentence."""

    index: int
    text: str
    claim: str
    citations: list[int]
    support: dict[int, float] = field(default_factory=dict)
    verdict: str = "uncited"  # supported | unsupported | uncited
    evidence: Evidence | None = None
    suggested: Evidence | None = None
    #: quote mode: the sentence is copied from its cited passage, so *supported* says it
    #: exists there, not that it answers (shown as "quoted from [#n]")
    quoted: bool = False
    #: the polarity rule that found the claim saying the opposite of its best cited
    #: evidence (:meth:`kb.rag.claim_polarity.Reversal.to_dict`: rule, claim, evidence,
    #: line), else ``None``
    contradiction: dict[str, Any] | None = None

    @property
    def score(self) -> float | None:
        return max(self.support.values()) if self.support else None

    def to_dict(self) -> dict[str, Any]:
        score = self.score
        return {
            "i": self.index,
            "text": self.text,
            "claim": self.claim,
            "citations": list(self.citations),
            "support": {str(n): round(s, 4) for n, s in self.support.items()},
            "verdict": self.verdict,
            "score": None if score is None else round(score, 4),
            "evidence": None if self.evidence is None else self.evidence.to_dict(),
            "suggested": None if self.suggested is None else self.suggested.to_dict(),
            "quoted": self.quoted,
            "contradiction": self.contradiction,
        }


def evidence_locator(hit: Hit, start: int, end: int) -> Locator:
    """The locator of ``hit.text[start:end]``: the chunk's own, narrowed to the lines
    (Markdown, text), page (PDF) or seconds (audio) of that slice.

    Lines count the newlines before the slice from the chunk's first line (the stored
    text is the source text). Pages and seconds are interpolated by character
    position inside the chunk's range, as the chunk does not keep inner page breaks
    or word timings: exact for a one-page chunk, approximate inside longer ones.
    """
    text, span = hit.text, hit.locator.span
    fields: dict[str, Any] = {}
    if span.line_start is not None:
        first = span.line_start + text.count("\n", 0, start)
        fields["line_start"] = first
        fields["line_end"] = first + text.count("\n", start, end)
    n = max(1, len(text))
    if span.page_start is not None:
        last = span.page_end if span.page_end is not None else span.page_start
        width = last - span.page_start + 1
        fields["page_start"] = span.page_start + min(width - 1, int(width * start / n))
        fields["page_end"] = span.page_start + min(width - 1, int(width * max(start, end - 1) / n))
    if span.seconds_start is not None:
        t0 = span.seconds_start
        t1 = span.seconds_end if span.seconds_end is not None else t0
        fields["seconds_start"] = round(t0 + (t1 - t0) * start / n, 1)
        fields["seconds_end"] = round(t0 + (t1 - t0) * end / n, 1)
    return Locator(hit.locator.path, hit.locator.doc_type, hit.locator.heading_path, Span(**fields))


class Verifier:
    """Scores answer sentences against the context passages of one answer.

    ``embed`` maps texts to L2-normalised vectors (the KB's embedder); passage
    sentences are embedded once, on first use, in one batch. Thread-safe.
    """

    def __init__(
        self,
        contexts: Sequence[Hit],
        embed: EmbedFn | None,
        *,
        model: SupportModel = DEFAULT_MODEL,
        threshold: float = DEFAULT_THRESHOLD,
        margin: float = DEFAULT_MARGIN,
        vectors: bool | None = None,
        passages: Sequence[PassageSentences] | None = None,
        quoted: bool = False,
        off: Iterable[str] = (),
    ) -> None:
        """``passages``: the contexts already cut into sentences (by the caller's
        evidence check), reused instead of splitting them again; ``quoted``: the answer
        sentences are copied from the passages (quote mode), so verdicts say so;
        ``off``: rule ids turned off (``[answer] rules_off``: the polarity rules of
        :mod:`kb.rag.claim_polarity`)."""
        self.contexts = list(contexts)
        self.quoted = quoted
        self.off = frozenset(off)
        # embed passage sentences only when the support model uses the cosine, or when
        # the caller needs the vectors (quote mode ranks candidates with them)
        use = (model.w_cos != 0) if vectors is None else vectors
        self.embed = embed if use else None
        self.model = model
        self.threshold = threshold
        self.margin = margin
        self._passages: list[PassageSentences] | None = None
        self._split = list(passages) if passages is not None else None
        self._lock = threading.Lock()

    @property
    def passages(self) -> list[PassageSentences]:
        with self._lock:
            if self._passages is None:
                ps = self._split or [
                    PassageSentences.of(i, h) for i, h in enumerate(self.contexts, 1)
                ]
                if self.embed is not None:
                    embed_passages(ps, self.embed)
                self._passages = ps
            return self._passages

    def _claim_vector(self, claim: str) -> np.ndarray | None:
        if self.embed is None:
            return None
        return np.asarray(self.embed([claim]), dtype=np.float32)[0]

    def features(self, claim: str, p: PassageSentences, qvec: np.ndarray | None) -> np.ndarray:
        """``(lex, lexw, key, cos)`` for every sentence of passage ``p``: shape ``(m, 4)``."""
        stems = content_stems(claim)
        keys = key_tokens(claim)
        cos = (
            p.vectors @ qvec
            if (qvec is not None and p.vectors is not None)
            else np.array([recall(stems, s) for s in p.stems])
        )
        out = np.empty((len(p.spans), 4), dtype=np.float64)
        for j in range(len(p.spans)):
            out[j, 0] = recall(stems, p.stems[j])
            out[j, 1] = recall(stems, p.window_stems[j])
            out[j, 2] = recall(keys, p.window_keys[j])
            out[j, 3] = float(cos[j])
        return out

    def scores(self, claim: str, p: PassageSentences, qvec: np.ndarray | None) -> np.ndarray:
        """``p_j`` for every sentence ``j`` of passage ``p``."""
        f = self.features(claim, p, qvec)
        out = np.array([self.model.score(*row) for row in f])
        if not is_question(claim):  # a question the passage asks states nothing (module docs)
            out[[j for j in range(len(p.spans)) if is_question(p.sentence(j))]] = 0.0
        return out

    def best(self, claim: str, n: int, qvec: np.ndarray | None = None) -> Evidence:
        """The best-supporting sentence of passage ``n`` (1-based) for ``claim``; a
        claim that is the passage's own section heading, whole (quote mode quotes a
        journal entry's date: :func:`kb.rag.quote_context.dated_heading`), is supported by it
        (score 1.0, the heading as evidence, located by the passage's heading path)."""
        p = self.passages[n - 1]
        if (heading := _heading_quoted(claim, p)) is not None:
            return heading
        if qvec is None:
            qvec = self._claim_vector(claim)
        s = self.scores(claim, p, qvec)
        j = int(np.argmax(s))
        return self._evidence(p, j, float(s[j]))

    def _evidence(self, p: PassageSentences, j: int, score: float) -> Evidence:
        a, b = p.spans[j]
        return Evidence(
            p.n,
            p.hit.chunk_id,
            p.hit.path,
            p.hit.text[a:b],
            evidence_locator(p.hit, a, b),
            score,
            row_columns(p.hit.text, p.spans, j),
        )

    def verify(self, index: int, sentence: str) -> SentenceVerdict:
        """Judge one answer sentence (as written, with its ``[#n]`` markers)."""
        claim = strip_citations(sentence)
        k = len(self.contexts)
        cited = [n for n in cited_numbers(sentence) if 1 <= n <= k]
        v = SentenceVerdict(index, sentence, claim, cited, quoted=self.quoted)
        if not claim.strip(" .!?") or not self.contexts:
            return v
        qvec = self._claim_vector(claim)
        every = {n: self.best(claim, n, qvec) for n in range(1, k + 1)}
        # a passage whose evidence sentence the claim negates or reverses supports nothing
        against = {
            n: r for n, e in every.items() if (r := reversal(claim, e.quote, self.off)) is not None
        }
        if cited:
            v.support = {n: every[n].score for n in cited}
            clean = [n for n in cited if n not in against]
            best_n = max(clean or cited, key=lambda n: every[n].score)
            ok = bool(clean) and every[best_n].score >= self.threshold
            if not ok:
                best_n = max(cited, key=lambda n: every[n].score)
                if best_n in against and every[best_n].score >= self.threshold:
                    v.contradiction = against[best_n].to_dict(best_n)
            v.evidence = every[best_n]
            v.verdict = "supported" if ok else "unsupported"
            best_cited = 0.0 if v.contradiction else every[best_n].score
        else:
            best_cited = 0.0
        other = max(
            (e for n, e in every.items() if n not in cited and n not in against),
            key=lambda e: e.score,
            default=None,
        )
        if (
            other is not None
            and other.score >= self.threshold
            and other.score >= best_cited + self.margin
        ):
            v.suggested = other
        return v


def _heading_quoted(claim: str, p: PassageSentences) -> Evidence | None:
    """``claim`` is passage ``p``'s own section heading, whole (white space folded, case and
    a final full stop aside): :class:`Evidence` of score 1.0 that quotes the heading,
    located by the chunk's path and heading path (its line is not stored); else
    ``None``."""
    hit = p.hit
    path = hit.locator.heading_path
    if not path:
        return None

    def fold(text: str) -> str:
        return " ".join(text.split()).rstrip(".").lower()

    if not claim.strip() or fold(claim) != fold(path[-1]):
        return None
    place = Locator(hit.locator.path, hit.locator.doc_type, hit.locator.heading_path, Span())
    return Evidence(p.n, hit.chunk_id, hit.path, path[-1], place, 1.0, heading=True)


def support_rate(verdicts: Sequence[SentenceVerdict]) -> float | None:
    """Supported cited sentences / cited sentences; ``None`` without a cited sentence."""
    cited = [v for v in verdicts if v.citations]
    if not cited:
        return None
    return sum(v.verdict == "supported" for v in cited) / len(cited)
