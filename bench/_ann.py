"""The ANN half of ``bench/search.py --ann``: latency, recall and memory of a big KB's
search through its derived LanceDB indexes: the vector leg through the ANN index
(LanceDB's IVF_PQ or IVF_HNSW_SQ, :mod:`kb.search.ann_leg`, or kb's faiss file,
:mod:`kb.search.faiss_leg`) and the keyword leg through the
LanceDB full-text index (:mod:`kb.search.keyword_lance`; ``--keyword fts5`` keeps
SQLite FTS5 for comparison).

Random unit vectors have no neighbourhoods (in 384 dimensions every pair is nearly
orthogonal), which no ANN index can search and no embedding model produces. So the
ANN KBs (``<workdir>/kb-ann-<size>``) get **clustered** vectors: 1,000 topic
directions, 20 sub-topics per topic at ``normalise(topic + 0.7 u)``, and each chunk
(and each query) at ``normalise(sub-topic + 0.5 u)`` with ``u`` a fresh random unit
vector; a query's nearest chunks share its sub-topic (cosine about 0.6-0.8).

Searching runs in a **child process** (``python -m bench._ann child ...``) that opens
the KB, searches only through the index, and reports its peak RSS
(``VmHWM``: :mod:`bench._rss`), compared with the raw vectors' size (``rows * dim * 4`` bytes). The
parent computes exact top-10 by brute force over every stored vector for recall@10.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._rss import peak_rss_mb  # noqa: E402
from bench._synthetic import MODEL_ID, FixedEmbedder, Vocabulary, build_store  # noqa: E402

K = 10


class Clustered:
    """Draws clustered unit vectors (see the module docs); deterministic per ``seed``."""

    def __init__(self, dim: int, topics: int = 1000, subs: int = 20, seed: int = 3) -> None:
        rng = np.random.default_rng(seed)
        top = _unit(rng.standard_normal((topics, dim), dtype=np.float32))
        noise = _unit(rng.standard_normal((topics * subs, dim), dtype=np.float32))
        self.subs = _unit(np.repeat(top, subs, axis=0) + 0.7 * noise)

    def __call__(self, rng: np.random.Generator, n: int, dim: int) -> np.ndarray:
        pick = rng.integers(0, len(self.subs), size=n)
        u = _unit(rng.standard_normal((n, dim), dtype=np.float32))
        return _unit(self.subs[pick] + 0.5 * u)


def _unit(v: np.ndarray) -> np.ndarray:
    out: np.ndarray = (v / np.linalg.norm(v, axis=1, keepdims=True)).astype(np.float32)
    return out


def workload(n: int, dim: int) -> tuple[list[str], np.ndarray]:
    """The benchmark's questions and their query vectors (same in parent and child)."""
    rng = np.random.default_rng(42)
    vocab = Vocabulary.make()
    questions = [vocab.question(rng) for _ in range(n)]
    return questions, Clustered(dim)(rng, n, dim)


def pct(xs: list[float], q: float) -> float:
    return float(np.percentile(np.array(xs) * 1000.0, q))


def child(
    home: Path,
    n_queries: int,
    dim: int,
    nprobes: int,
    refine: int,
    kind: str,
    ef: int,
    kw: str,
    legs: str = "parallel",
) -> dict[str, object]:
    """Search ``home`` through the index only; timings, hits and peak RSS as a dict.
    ``legs = "sequential"`` runs the keyword leg after the vector leg, on the calling
    thread (kb's order before the legs overlapped), to measure what overlapping buys."""
    from kb.search import Retriever, SearchOptions
    from kb.search.ann_leg import AnnOptions
    from kb.store import Store

    if legs == "sequential":
        Retriever._index_leg_threadable = lambda self: False  # type: ignore[method-assign]
    questions, qvecs = workload(n_queries, dim)
    store = Store.open(home)
    emb = FixedEmbedder(dim, dict(zip(questions, qvecs, strict=True)))
    r = Retriever(
        store,
        emb,
        ann=AnnOptions(1, nprobes, refine, kind, ef),
        keyword_threshold=1 if kw == "index" else 0,
    )
    assert r.uses_ann(), "no ANN index in use"
    assert r.uses_keyword_index() == (kw == "index"), "keyword index not in use"
    hybrid = SearchOptions(k=K, mode="hybrid", candidates=50, min_score=-1.0)
    t = time.perf_counter()
    r.search(questions[0], hybrid)
    first = time.perf_counter() - t
    for q in questions[1:11]:
        r.search(q, hybrid)
    totals: list[float] = []
    cpu: list[float] = []
    vec_stage: list[float] = []
    kw_stage: list[float] = []
    for q in questions:
        c = time.process_time()
        res = r.search(q, hybrid)
        cpu.append(time.process_time() - c)
        totals.append(res.timings["total"])
        vec_stage.append(res.timings["vector"])
        kw_stage.append(res.timings["keyword"])
    vec = SearchOptions(k=K, mode="vector", min_score=-1.0)
    hits = [[h.chunk_id for h in r.search(q, vec).hits] for q in questions]
    scoped = SearchOptions(k=K, mode="hybrid", candidates=50, min_score=-1.0, tags=("alpha",))
    scoped_t: list[float] = []
    scoped_v: list[float] = []
    scoped_k: list[float] = []
    scoped_n: list[int] = []
    for q in questions[:50]:
        res = r.search(q, scoped)
        scoped_t.append(res.timings["total"])
        scoped_v.append(res.timings["vector"])
        scoped_k.append(res.timings["keyword"])
        scoped_n.append(len(res.hits))
    store.close()
    return {
        "first_ms": first * 1000,
        "hybrid_p50": pct(totals, 50),
        "hybrid_p95": pct(totals, 95),
        "hybrid_cpu_p50": pct(cpu, 50),
        "vector_p50": pct(vec_stage, 50),
        "vector_p95": pct(vec_stage, 95),
        "keyword_p50": pct(kw_stage, 50),
        "keyword_p95": pct(kw_stage, 95),
        "scoped_p50": pct(scoped_t, 50),
        "scoped_p95": pct(scoped_t, 95),
        "scoped_vector_p50": pct(scoped_v, 50),
        "scoped_keyword_p50": pct(scoped_k, 50),
        "scoped_min_hits": min(scoped_n),
        "hits": hits,
        "peak_rss_mb": peak_rss_mb(),
    }


def run(
    workdir: Path,
    size: int,
    n_queries: int,
    dim: int,
    nprobes: int,
    refine: int,
    kind: str = "ivf_pq",
    ef: int = 128,
    kw: str = "index",
    legs: str = "parallel",
) -> dict:
    """Build (or reuse) the clustered KB and its indexes, search in a child, score recall."""
    from kb.store import Store, ann, keyword_index

    home = workdir / f"kb-ann-{size}"
    print(f"\n== ANN index, {size:,} chunks (clustered vectors) ==")
    t0 = time.perf_counter()
    if (home / "kb.sqlite").exists():
        store = Store.open(home)
        print(f"  reusing {home}")
    else:
        store = build_store(home, size, dim=dim, log=True, make_vectors=Clustered(dim))
    build_s = kw_build_s = 0.0
    rec = ann.recorded(store)
    if rec is None or rec.get("type") != ann.INDEX_TYPES[kind]:
        t = time.perf_counter()
        ann.build_and_record(store, kind)
        build_s = time.perf_counter() - t
        print(f"  built the {ann.INDEX_TYPES[kind]} index in {build_s:.1f} s")
    if kind == "faiss_ivf_sq8":
        # as `kb ingest` does at its end: the exact vectors the faiss leg re-scores with
        from kb.search.vector_cache import cache_path, fingerprint, read_file, write_for_readers

        if read_file(cache_path(store.home), fingerprint(store.conn)) is None:
            t = time.perf_counter()
            write_for_readers(store)
            print(f"  wrote the vector cache file in {time.perf_counter() - t:.1f} s")
    if kw == "index" and not keyword_index.is_current(store):
        t = time.perf_counter()
        keyword_index.build(store)
        kw_build_s = time.perf_counter() - t
        print(f"  built the keyword index (LanceDB full-text) in {kw_build_s:.1f} s")
    print(f"  store ready in {time.perf_counter() - t0:.1f} s")
    store.close()
    cmd = [sys.executable, "-m", "bench._ann", "child", str(home), str(n_queries), str(dim)]
    out = subprocess.run(
        [*cmd, str(nprobes), str(refine), kind, str(ef), kw, legs],
        check=True,
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[1],
    )
    res = json.loads(out.stdout.strip().splitlines()[-1])
    store = Store.open(home)
    keys, mat = store.vectors.load(MODEL_ID)
    id_of = {str(h): int(i) for i, h in store.conn.execute("SELECT id, embed_sha256 FROM chunks")}
    store.close()
    ids = np.array([id_of[k] for k in keys], dtype=np.int64)
    _, qvecs = workload(n_queries, dim)
    recall: list[float] = []
    for s in range(0, n_queries, 16):
        sims = np.einsum("ij,qj->qi", mat, qvecs[s : s + 16])
        for row, got in zip(sims, res["hits"][s : s + 16], strict=True):
            truth = set(ids[np.argpartition(-row, K)[:K]].tolist())
            recall.append(len(truth & set(got)) / K)
    raw_mb = mat.nbytes / 2**20
    row = {
        "size": size,
        "build_s": build_s,
        "keyword_build_s": kw_build_s,
        **{k: v for k, v in res.items() if k != "hits"},
        "recall": float(np.mean(recall)),
        "raw_mb": raw_mb,
    }
    print(f"  first query of the process {row['first_ms']:.0f} ms (opens LanceDB and the index)")
    print(
        f"  hybrid p50 {row['hybrid_p50']:.1f} ms, p95 {row['hybrid_p95']:.1f} ms; vector "
        f"stage p50/p95 {row['vector_p50']:.1f}/{row['vector_p95']:.1f} ms, keyword "
        f"({kw}) p50/p95 {row['keyword_p50']:.1f}/{row['keyword_p95']:.1f} ms; legs {legs}"
    )
    print(
        f"  CPU time per hybrid query p50 (all threads; a busy machine's waits left out) "
        f"{row['hybrid_cpu_p50']:.1f} ms"
    )
    print(
        f"  with --tag alpha: p50 {row['scoped_p50']:.1f} ms, p95 {row['scoped_p95']:.1f} ms "
        f"(vector p50 {row.get('scoped_vector_p50', 0):.1f} ms, keyword p50 "
        f"{row.get('scoped_keyword_p50', 0):.1f} ms), fewest hits {row['scoped_min_hits']}"
    )
    print(
        f"  vector recall@{K} vs exact {row['recall']:.3f} ({ann.INDEX_TYPES[kind]}, nprobes "
        f"{nprobes}, refine {refine}, ef {ef})"
    )
    print(
        f"  peak RSS of the search process {row['peak_rss_mb']:.0f} MiB; raw vectors "
        f"{raw_mb:.0f} MiB ({row['peak_rss_mb'] / raw_mb:.2f}x)"
    )
    return row


if __name__ == "__main__" and len(sys.argv) == 11 and sys.argv[1] == "child":
    _, _, h, nq, d, npb, rf, kd, e, k, lg = sys.argv
    print(json.dumps(child(Path(h), int(nq), int(d), int(npb), int(rf), kd, int(e), k, lg)))
