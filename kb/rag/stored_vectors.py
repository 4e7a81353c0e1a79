"""Reuse vectors computed before ``kb ask``'s evidence check instead of embedding again.

The evidence check (:func:`kb.rag.answerability.assess`) embeds every sentence of the
top passages and the question before the first token. Ingest already stored each
chunk's sentence vectors (:mod:`kb.store.sentences`) and search already embedded the
question, so :func:`reusing_embed` wraps the embed function: a text it already knows
is answered from memory, only the others go to the model (in one batch, in order).

A stored row is used only when its spans are exactly the ones the check cuts
(:class:`kb.rag.verify.PassageSentences`: ``split_sentences(text)`` or the whole text):
a KB ingested with another splitter version falls back to embedding. Stored vectors are
half precision, renormalised here; their cosines differ from freshly computed ones by
less than 1e-3.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from kb.rag.verify import EmbedFn
from kb.sentence_spans import sentence_inputs, split_sentences
from kb.store import Store
from kb.store.sentences import for_chunks
from kb.types import Hit


def known_vectors(
    store: Store | None,
    hits: Sequence[Hit],
    question: str | None = None,
    question_vector: np.ndarray | None = None,
) -> dict[str, np.ndarray]:
    """Text -> vector for the sentences of ``hits`` stored with matching spans, and the
    question when its vector is given. One SQLite query; nothing without a store or
    recorded model."""
    out: dict[str, np.ndarray] = {}
    if question is not None and question_vector is not None:
        out[question] = np.asarray(question_vector, dtype=np.float32)
    model = None if store is None else store.embedding_model()
    if store is None or model is None or not hits:
        return out
    stored = for_chunks(store, model.model_id, [h.chunk_id for h in hits])
    for h in hits:
        sv = stored.get(h.chunk_id)
        if sv is None:
            continue
        spans = split_sentences(h.text) or [(0, len(h.text))]
        if spans != sv.spans:
            continue
        norms = np.linalg.norm(sv.vectors, axis=1, keepdims=True)
        vecs = sv.vectors / np.maximum(norms, 1e-12)
        for text, v in zip(sentence_inputs(h.text, spans), vecs, strict=True):
            out.setdefault(text, v)  # what was embedded: a table row read with its header
    return out


def reusing_embed(embed: EmbedFn, known: Mapping[str, np.ndarray]) -> EmbedFn:
    """``embed`` that answers the texts in ``known`` from it and embeds only the rest
    (one call, none when every text is known); rows come back in input order."""
    if not known:
        return embed

    def wrapped(texts: Sequence[str]) -> np.ndarray:
        todo = [t for t in dict.fromkeys(texts) if t not in known]
        fresh: dict[str, np.ndarray] = {}
        if todo:
            vecs = np.asarray(embed(todo), dtype=np.float32)
            fresh = dict(zip(todo, vecs, strict=True))
        rows = [known[t] if t in known else fresh[t] for t in texts]
        if not rows:
            return np.asarray(embed(list(texts)), dtype=np.float32)
        return np.stack(rows).astype(np.float32, copy=False)

    return wrapped
