"""Sentence vectors at ingest: cut each chunk's text into sentences and embed them.

The sentence rerank (:mod:`kb.search.rerank`) needs, per chunk, the vector of each of
its sentences embedded *on its own* (pooling a chunk's token vectors per sentence,
"late chunking", gained about half as much on squad-dev). They are computed here, in
the same ``embed_batch`` call as the chunk vectors of the batch
(:func:`ingest.embedding.embed_pending`), so the ONNX runtime's length sorting packs
short sentences together and no second pass over the model is made, and stored by
:mod:`kb.store.sentences` keyed by the chunk's ``embed_sha256``.

Edge cases:

- a chunk whose text has no sentence (blank) gets one span over the whole text, so
  every stored chunk has at least one sentence vector;
- a one-sentence chunk whose sentence is exactly the text its chunk vector is computed
  from (no heading path, no surrounding white space) reuses that vector when it is
  embedded in the same batch (same input, same vector); otherwise it is embedded;
- a text already stored under the model is skipped (chunkings and re-ingests share it).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from kb.backends.embedder import Embedder
from kb.sentence_spans import sentence_inputs, split_sentences
from kb.store import Store
from kb.store import sentences as stored


@dataclass(frozen=True)
class SentenceJob:
    """One chunk text to store: its key, spans and what to embed for each sentence (in
    span order; :func:`kb.sentence_spans.sentence_inputs`: a table row with its header)."""

    sha: str
    spans: list[tuple[int, int]]
    texts: list[str]


def job(sha: str, text: str) -> SentenceJob:
    """Cut ``text`` (a chunk's text, without its heading path) into sentences, and say
    what to embed for each."""
    spans = split_sentences(text) or [(0, len(text))]
    return SentenceJob(sha, spans, sentence_inputs(text, spans))


def chunk_texts(store: Store, shas: Sequence[str]) -> dict[str, str]:
    """A chunk text (without heading path) for each of ``shas`` that a chunk has."""
    out: dict[str, str] = {}
    keys = list(dict.fromkeys(shas))
    for start in range(0, len(keys), 500):
        part = keys[start : start + 500]
        for sha, text in store.conn.execute(
            f"SELECT embed_sha256, text FROM chunks WHERE embed_sha256 IN "
            f"({','.join('?' * len(part))})",
            part,
        ):
            out.setdefault(str(sha), str(text))
    return out


def jobs_for(store: Store, model: str, shas: Sequence[str]) -> list[SentenceJob]:
    """Jobs for those of ``shas`` whose sentence vectors are not stored under ``model``."""
    if not shas:
        return []
    done = stored.have(store, model, shas)
    texts = chunk_texts(store, [s for s in shas if s not in done])
    return [job(sha, text) for sha, text in texts.items()]


def embed_with_chunks(
    embedder: Embedder, chunk_texts: dict[str, str], jobs: Sequence[SentenceJob]
) -> tuple[np.ndarray, list[tuple[str, list[tuple[int, int]], np.ndarray]]]:
    """One ``embed_batch`` call for the chunk texts (``sha -> embed text``) and the
    jobs' sentences. Returns the chunk vectors (in ``chunk_texts`` order) and the rows
    to store. A one-sentence job whose sentence equals its chunk's embed text reuses
    the chunk's vector (module docs), and a text given twice is embedded once."""
    inputs = list(chunk_texts.values())
    pos = {sha: i for i, sha in enumerate(chunk_texts)}
    n_chunks = len(inputs)
    where: list[list[int]] = []
    for j in jobs:
        if len(j.texts) == 1 and j.sha in pos and j.texts[0] == chunk_texts[j.sha]:
            where.append([pos[j.sha]])
            continue
        where.append(list(range(len(inputs), len(inputs) + len(j.texts))))
        inputs.extend(j.texts)
    # each distinct text once: a chunk repeats the sentence before its cut, and notes
    # repeat lines ("Status: done"); about 4% of squad-dev's sentence inputs
    distinct: dict[str, int] = {}
    order = [distinct.setdefault(t, len(distinct)) for t in inputs]
    if distinct:
        vecs = np.asarray(embedder.embed_batch(list(distinct)), dtype=np.float32)[order]
    else:
        vecs = np.zeros((0, embedder.dim), np.float32)
    rows = [(j.sha, j.spans, vecs[idx]) for j, idx in zip(jobs, where, strict=True)]
    return vecs[:n_chunks], rows


def drop_stale(store: Store, model: str, batch: int = 2000) -> int:
    """Drop the stored sentence rows under ``model`` whose spans are not the ones
    :func:`job` cuts from their chunk text today (:func:`kb.store.sentences.outdated`:
    a KB ingested before a change of :func:`kb.sentence_spans.split_sentences`), so
    that :func:`fill_missing` stores them afresh. Returns how many were dropped."""
    stale = stored.outdated(store, model, batch)
    stored.delete(store, [(model, sha) for sha in stale])
    return len(stale)


def fill_missing(
    store: Store,
    embedder: Embedder,
    batch_size: int = 256,
    on_batch: Callable[[int], None] | None = None,
) -> tuple[int, float]:
    """Embed the sentences of every embedded chunk text that has none stored under the
    embedder's model (``kb reindex --sentences``: an existing KB, or one ingested with
    ``[embedding] sentence_vectors = false``); chunk vectors are not touched.
    Returns ``(chunk texts done, seconds)``. Crash-safe: each batch is committed."""
    started = time.perf_counter()
    model = embedder.model_id
    done = 0
    while True:
        rows = store.conn.execute(
            "SELECT DISTINCT c.embed_sha256 FROM chunks c WHERE c.embedding_status = 'embedded' "
            "AND NOT EXISTS (SELECT 1 FROM sentence_vectors s WHERE s.model = ? "
            "AND s.sha = c.embed_sha256) LIMIT ?",
            (model, batch_size),
        ).fetchall()
        if not rows:
            break
        jobs = jobs_for(store, model, [str(r[0]) for r in rows])
        if not jobs:
            break
        _, out = embed_with_chunks(embedder, {}, jobs)
        stored.add(store, model, out)
        done += len(jobs)
        if on_batch is not None:
            on_batch(len(jobs))
    return done, time.perf_counter() - started
