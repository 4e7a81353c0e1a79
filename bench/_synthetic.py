"""Synthetic KBs for benchmarks: random texts and random unit vectors, written through
the real :class:`kb.store.Store` and the embedding cache
(:func:`kb.store.embeddings.add_for_chunks`).

Texts imitate English token statistics: about 40% of tokens are stop words, the rest
are made-up content words drawn from a Zipf-Mandelbrot distribution,
``p(r) ~ 1 / (r + 50)^1.07`` over 20,000 words, so the most common content word is
about 0.2% of all tokens (as "time" or "said" in English prose) and appears in ~11%
of 60-word chunks, while most words are rare: FTS5 sees realistic posting lists.
Benchmark questions draw their content words from the same distribution (no bias
towards rare words, which real questions tend to have). Vectors are random
unit vectors (the bench times retrieval, not relevance).

Writes are batched: documents go through ``Store.save_document`` (one transaction
per document of ``chunks_per_doc`` chunks), vectors through ``add_for_chunks``
in large batches, then one ``mark_embedded`` call.
"""

from __future__ import annotations

import string
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from kb.backends.embedder import Embedder
from kb.search.keyword import STOPWORDS
from kb.store import Store
from kb.store.embeddings import add_for_chunks
from kb.store.sqlite import EmbeddingModelInfo
from kb.types import ChunkDraft, ChunkerInfo, Span

MODEL_ID = "bench:random-unit-vectors"
DOC_TYPES = ("md", "md", "md", "txt", "pdf")
TAGS = ("alpha", "beta", "gamma", "delta")


@dataclass(frozen=True)
class Vocabulary:
    """Stop words plus ``size`` made-up content words with Zipf weights."""

    stop: tuple[str, ...]
    content: tuple[str, ...]
    weights: np.ndarray

    @classmethod
    def make(cls, size: int = 20000, seed: int = 0, offset: float = 50.0) -> Vocabulary:
        rng = np.random.default_rng(seed)
        letters = np.array(list(string.ascii_lowercase))
        words: set[str] = set()
        while len(words) < size:
            n = int(rng.integers(4, 11))
            w = "".join(rng.choice(letters, n))
            if w not in STOPWORDS:
                words.add(w)
        content = tuple(sorted(words))
        order = rng.permutation(size)
        ranks = np.empty(size)
        ranks[order] = np.arange(1, size + 1)
        weights = 1.0 / (ranks + offset) ** 1.07
        return cls(tuple(sorted(STOPWORDS)), content, weights / weights.sum())

    def text(self, rng: np.random.Generator, n_words: int) -> str:
        stop_mask = rng.random(n_words) < 0.4
        content = rng.choice(len(self.content), size=n_words, p=self.weights)
        stops = rng.integers(0, len(self.stop), size=n_words)
        return " ".join(
            self.stop[s] if m else self.content[c]
            for m, c, s in zip(stop_mask, content, stops, strict=True)
        )

    def question(self, rng: np.random.Generator, n_content: int = 3) -> str:
        """A question-shaped query: a few stop words around Zipf-drawn content words."""
        words = [self.content[i] for i in rng.choice(len(self.content), n_content, p=self.weights)]
        return "what is the " + " of ".join(words) + "?"


def unit_vectors(rng: np.random.Generator, n: int, dim: int) -> np.ndarray:
    v = rng.standard_normal((n, dim), dtype=np.float32)
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    return v


def build_store(
    home: Path,
    n_chunks: int,
    *,
    dim: int = 384,
    chunks_per_doc: int = 20,
    words_per_chunk: int = 60,
    seed: int = 0,
    vocab: Vocabulary | None = None,
    vector_batch: int = 25000,
    log: bool = False,
    make_vectors: Callable[[np.random.Generator, int, int], np.ndarray] | None = None,
    sentences_per_chunk: int = 0,
) -> Store:
    """Create a KB at ``home`` with ``n_chunks`` embedded chunks (``home`` must be new).

    ``make_vectors(rng, n, dim)`` draws the vectors (default :func:`unit_vectors`).
    ``sentences_per_chunk``: also store that many random sentence vectors per chunk
    (spans cut the text in equal parts) for the sentence rerank; 0 = none."""
    make_vectors = make_vectors or unit_vectors
    vocab = vocab or Vocabulary.make(seed=seed)
    rng = np.random.default_rng(seed + 1)
    store = Store.open(home)
    chunker = ChunkerInfo("bench", "1", {"words": words_per_chunk})
    t0 = time.perf_counter()
    n_docs = (n_chunks + chunks_per_doc - 1) // chunks_per_doc
    made = 0
    for d in range(n_docs):
        count = min(chunks_per_doc, n_chunks - made)
        drafts = []
        for i in range(count):
            text = vocab.text(rng, words_per_chunk)
            drafts.append(
                ChunkDraft(
                    text=text,
                    heading_path=(f"Doc {d}", f"Part {i // 5 + 1}"),
                    span=Span(line_start=i * 4 + 1, line_end=i * 4 + 3),
                    char_start=0,
                    char_end=len(text),
                    token_count=words_per_chunk,
                )
            )
        doc_type = DOC_TYPES[d % len(DOC_TYPES)]
        store.save_document(
            root="/bench",
            path=f"folder{d % 50:02d}/doc{d:06d}.{doc_type if doc_type != 'audio' else 'wav'}",
            doc_type=doc_type,
            content_hash=f"h{d}",
            size=count * words_per_chunk * 6,
            mtime=0.0,
            chunks=drafts,
            chunker=chunker,
            tags=[TAGS[d % len(TAGS)]],
        )
        made += count
    t1 = time.perf_counter()
    ids = np.array(sorted(store.chunk_ids()), dtype=np.int64)
    store.set_embedding_model(EmbeddingModelInfo(MODEL_ID, dim))
    for s in range(0, len(ids), vector_batch):
        part = ids[s : s + vector_batch]
        add_for_chunks(store, part.tolist(), make_vectors(rng, len(part), dim))
    store.mark_embedded(ids.tolist())
    t2 = time.perf_counter()
    if sentences_per_chunk > 0:
        add_sentence_vectors(store, sentences_per_chunk, dim, rng)
    t3 = time.perf_counter()
    if log:
        print(
            f"  built {n_chunks} chunks in {n_docs} documents: SQLite+FTS {t1 - t0:.1f} s, "
            f"vectors {t2 - t1:.1f} s, sentence vectors {t3 - t2:.1f} s"
        )
    return store


def add_sentence_vectors(
    store: Store, per_chunk: int, dim: int, rng: np.random.Generator, batch: int = 5000
) -> None:
    """Store ``per_chunk`` random unit sentence vectors for every chunk text."""
    from kb.store import sentences

    rows = store.conn.execute("SELECT DISTINCT embed_sha256, length(text) FROM chunks").fetchall()
    for s in range(0, len(rows), batch):
        part = rows[s : s + batch]
        vecs = unit_vectors(rng, len(part) * per_chunk, dim)
        out = []
        for j, (sha, n) in enumerate(part):
            cuts = [int(n) * i // per_chunk for i in range(per_chunk + 1)]
            spans = list(zip(cuts[:-1], cuts[1:], strict=True))
            out.append((str(sha), spans, vecs[j * per_chunk : (j + 1) * per_chunk]))
        sentences.add(store, MODEL_ID, out)


class FixedEmbedder(Embedder):
    """Returns a precomputed vector per query text (random for unknown texts): retrieval
    is timed without a model."""

    def __init__(self, dim: int, vectors: dict[str, np.ndarray] | None = None, seed: int = 7):
        self.model_id = MODEL_ID
        self.dim = dim
        self._vectors = dict(vectors or {})
        self._rng = np.random.default_rng(seed)

    def embed_query(self, text: str) -> np.ndarray:
        v = self._vectors.get(text)
        if v is None:
            v = self._vectors[text] = unit_vectors(self._rng, 1, self.dim)[0]
        return v

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        return np.stack([self.embed_query(t) for t in texts])
