"""Sentence rerank: re-score the top candidates by their best *sentence* vector.

A chunk's vector averages all its sentences, so a query that paraphrases one sentence
of a long chunk can rank it below shorter, vaguer chunks. After fusion (modes
``hybrid`` and ``vector``; never ``keyword``, which loads no model), the top ``depth``
candidates ``d`` are re-scored::

    s(d)     = max over sentences j of d of cos(q, sentence_j)   (each sentence embedded
               alone at ingest, :mod:`kb.store.sentences`)
    final(d) = (1 - a) * max(f(d), 0) / F  +  a * max(s(d), 0) / S

where ``f`` is the fused score (hybrid; the cosine in vector mode), ``F`` the largest
``max(f, 0)`` among those ``depth`` candidates, ``S`` the largest ``max(s, 0)`` but at
least the cosine at which one sentence counts as evidence under the default
``[search] min_score`` (:data:`SENTENCE_FLOOR`, 0.25 + 0.2 = 0.45; a constant, so
ranking does not move with the refusal threshold), and ``a`` is
``[search] sentence_weight``. The floor keeps a query that no sentence paraphrases (a
name or a code: "Garcia-Molina", best sentence cosine 0.15) from letting its noise
decide: divided by 0.15, a sentence of a travel note at 0.15 scored a full ``a`` and
out-ranked the one chunk that holds the name. Measured on squad-dev's 300 answerable questions
(bundled MiniLM, a = 0.3, depth 20): hit@1 .873 -> .900, mrr@10 .917 -> .936, flat for
a in 0.2-0.5 on both halves of the questions.

Edge cases:

- ``a = 0``, ``depth <= 1``, or fewer than two candidates: the ranking is unchanged
  (and no vector is loaded);
- ``F <= 0`` (or ``S <= 0``): that term is 0 for every candidate;
- ties in ``final`` keep the fused order (a stable sort);
- candidates past ``depth`` keep their fused order after the re-scored ones, with score
  ``(1 - a) * max(f, 0) / F``, which is never above a re-scored candidate's;
- a candidate without stored sentence vectors (a KB ingested before they existed, or
  with ``[embedding] sentence_vectors = false``): when at most
  :data:`MAX_EMBED_AT_QUERY` of the top ``depth`` lack them, their sentences are
  embedded now (a few ms each on a CPU); with more, the rerank is skipped for this
  query (the fused order is kept: giving them ``s = 0`` would push them down for no
  fault of theirs). ``kb reindex --sentences`` fills them in.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np

from kb.search.candidates import COSINE_FLOOR, Candidates, lookups_first
from kb.search.evidence import SENTENCE_MARGIN
from kb.search.fusion import Fused
from kb.search.options import SearchOptions
from kb.sentence_spans import sentence_inputs, split_sentences
from kb.store import Store
from kb.store.sentences import for_chunks

#: at most this many of the top candidates may lack stored sentence vectors and be
#: embedded at query time; with more, the rerank is skipped (module docs)
MAX_EMBED_AT_QUERY = 4

EmbedFn = Callable[[Sequence[str]], np.ndarray]

#: the least ``S`` (module docs): the cosine at which one sentence is evidence under the
#: default ``[search] min_score`` (0.25 + :data:`~kb.search.evidence.SENTENCE_MARGIN`),
#: fixed, so that ranking does not move with the refusal threshold
SENTENCE_FLOOR = COSINE_FLOOR + SENTENCE_MARGIN


def rescore(
    fused: Sequence[Fused],
    sentence: Mapping[int, float],
    weight: float,
    depth: int,
    s_floor: float = 0.0,
) -> list[Fused]:
    """``fused`` re-ranked by the formula of the module docs; ``sentence`` maps a chunk
    id to its ``s``. Returns new :class:`Fused` entries (``score`` = ``final``); the
    input is not changed. Every one of the top ``depth`` must be in ``sentence``.
    ``s_floor`` is the least ``S`` (module docs)."""
    top = list(fused[:depth])
    if weight <= 0 or len(top) < 2:
        return list(fused)
    f = np.array([max(e.score, 0.0) for e in top], dtype=np.float64)
    s = np.array([max(sentence[e.id], 0.0) for e in top], dtype=np.float64)
    fmax, smax = float(f.max()), max(float(s.max()), s_floor)
    fn = f / fmax if fmax > 0 else np.zeros_like(f)
    sn = s / smax if smax > 0 else np.zeros_like(s)
    final = (1.0 - weight) * fn + weight * sn
    order = np.argsort(-final, kind="stable")
    out = [Fused(top[i].id, float(final[i]), dict(top[i].ranks), top[i].fused) for i in order]
    for e in fused[depth:]:
        rest = (1.0 - weight) * max(e.score, 0.0) / fmax if fmax > 0 else 0.0
        out.append(Fused(e.id, rest, dict(e.ranks), e.fused))
    return out


def reranked(
    fused: Sequence[Fused], sentence: Mapping[int, float], opts: SearchOptions, c: Candidates
) -> list[Fused]:
    """The search's order after the sentence rerank, as ``kb search`` and ``kb eval
    tune`` both rank: :func:`rescore` with ``S`` at least :data:`SENTENCE_FLOOR`, then
    a lookup's chunks first (:func:`kb.search.candidates.lookups_first`)."""
    out = rescore(fused, sentence, opts.sentence_weight, opts.rerank_depth, SENTENCE_FLOOR)
    return lookups_first(out, c)


def sentence_scores(
    store: Store,
    model_id: str,
    chunk_ids: Sequence[int],
    qvec: np.ndarray,
    embed: EmbedFn | None = None,
) -> dict[int, float] | None:
    """``s`` (best sentence cosine to ``qvec``) of each of ``chunk_ids``: stored vectors
    in one SQLite query; missing ones embedded with ``embed`` when at most
    :data:`MAX_EMBED_AT_QUERY` lack them, else ``None`` (skip the rerank)."""
    stored = for_chunks(store, model_id, chunk_ids)
    q = np.asarray(qvec, dtype=np.float32)
    out = {cid: float((sv.vectors @ q).max()) for cid, sv in stored.items()}
    missing = [cid for cid in chunk_ids if cid not in out]
    if not missing:
        return out
    if embed is None or len(missing) > MAX_EMBED_AT_QUERY:
        return None
    texts = _chunk_texts(store, missing)
    parts: list[tuple[int, int, int]] = []
    inputs: list[str] = []
    for cid in missing:
        text = texts.get(cid)
        if text is None:  # deleted since fusion: it cannot become a hit anyway
            out[cid] = 0.0
            continue
        spans = split_sentences(text) or [(0, len(text))]
        parts.append((cid, len(inputs), len(spans)))
        inputs.extend(sentence_inputs(text, spans))
    if inputs:
        vecs = np.asarray(embed(inputs), dtype=np.float32)
        for cid, at, n in parts:
            out[cid] = float((vecs[at : at + n] @ q).max())
    return out


def _chunk_texts(store: Store, chunk_ids: Sequence[int]) -> dict[int, str]:
    rows = store.conn.execute(
        f"SELECT id, text FROM chunks WHERE id IN ({','.join('?' * len(chunk_ids))})",
        list(chunk_ids),
    )
    return {int(i): str(t) for i, t in rows}
