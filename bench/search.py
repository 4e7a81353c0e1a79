"""Search latency and vector recall on synthetic KBs, against a bare LanceDB query.

For each size (default 10k and 100k chunks of 60 words, 384-d random unit vectors):

- warm latency p50/p95 of ``Retriever.search`` in hybrid mode (k=10, 50 candidates per
  leg; a fixed-vector embedder, so only retrieval is timed), with the per-stage split;
  every chunk has 4 stored random sentence vectors (squad-dev's chunks average 4.3), so
  the sentence rerank of the top 20 runs (``--sentence-weight 0`` turns it off);
- warm latency p50/p95 of a bare LanceDB vector query, ``tbl.search(vec).limit(k)``
  (a flat scan: no ANN index), and the ratio hybrid / bare;
- recall@10 of kb's vector leg and of the bare LanceDB query against exact brute
  force (float64 numpy over every vector);
- CPU time per query (``time.process_time``, all threads of the process): on a busy
  machine wall time includes waiting for a core, CPU time does not;
- a one-word keyword search of a misspelt word (one inner letter of a 7+ letter word
  dropped), which kb answers by the nearest spellings the KB holds
  (:mod:`kb.search.typos`), against the same search of the word as written: p50/p95
  and the share corrected to the word meant.

With ``--ann SIZES`` it also benchmarks the ANN vector leg (:mod:`bench._ann`) on
KBs of clustered vectors: hybrid p50/p95, vector recall@10 against exact search, and
the peak RSS of a search process against the raw vectors' size.

Usage::

    python bench/search.py [--sizes 10000,100000] [--queries 200] [--workdir DIR]
    python bench/search.py --sizes '' --ann 1000000 [--nprobes 20] [--refine 10]
        [--ann-index faiss_ivf_sq8|ivf_pq|ivf_hnsw_sq] [--ef 128] [--keyword index|fts5]
        [--legs parallel|sequential]

``--workdir`` keeps the built stores (``DIR/kb-<size>``) and reuses them next time.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._ann import run as bench_ann  # noqa: E402
from bench._synthetic import FixedEmbedder, Vocabulary, build_store, unit_vectors  # noqa: E402
from kb.search import Retriever, SearchOptions  # noqa: E402
from kb.search.vector_cache import cache_path, clear_cache  # noqa: E402
from kb.store import Store  # noqa: E402

K = 10


def pct(xs: list[float], q: float) -> float:
    return float(np.percentile(np.array(xs) * 1000.0, q))


SENTENCES_PER_CHUNK = 4


def open_or_build(workdir: Path, size: int, dim: int, vocab: Vocabulary) -> Store:
    home = workdir / f"kb-{size}"
    if (home / "kb.sqlite").exists():
        store = Store.open(home)
        if store.count_chunks("embedded") == size:
            print(f"  reusing {home}")
            return store
        raise SystemExit(f"{home} exists with another size; remove it or pick another --workdir")
    return build_store(
        home, size, dim=dim, vocab=vocab, log=True, sentences_per_chunk=SENTENCES_PER_CHUNK
    )


def exact_top(ids: np.ndarray, mat64: np.ndarray, q: np.ndarray, k: int) -> set[int]:
    sims = mat64 @ q.astype(np.float64)
    return {int(i) for i in ids[np.argsort(-sims, kind="stable")[:k]]}


def keyword_engines(
    store: Store, embedder: FixedEmbedder, questions: list[str]
) -> tuple[list[float], list[float], float]:
    """Keyword-mode latency through FTS5 and through the LanceDB full-text index (built
    here when missing); returns both lists of seconds and the build time."""
    from kb.store import keyword_index

    build_s = 0.0
    if not keyword_index.is_current(store):
        t = time.perf_counter()
        keyword_index.build(store)
        build_s = time.perf_counter() - t
    kw = SearchOptions(k=50, mode="keyword")
    out: list[list[float]] = []
    for threshold in (0, 1):
        r = Retriever(store, embedder, keyword_threshold=threshold)
        for q in questions[:10]:
            r.search(q, kw)
        out.append([r.search(q, kw).timings["keyword"] for q in questions])
    return out[0], out[1], build_s


def typo_words(
    store: Store, embedder: FixedEmbedder, vocab: Vocabulary, n: int
) -> dict[str, float]:
    """A one-word keyword search of a misspelt word (one inner letter dropped from a
    content word of 7+ letters, drawn by the texts' Zipf weights), which kb answers by
    its nearest spellings (:mod:`kb.search.typos`), against the same search of the word
    as written: p50/p95 of both and the share corrected to the word meant."""
    rng = np.random.default_rng(7)
    long_ = [i for i, w in enumerate(vocab.content) if len(w) >= 7]
    p = vocab.weights[long_] / vocab.weights[long_].sum()
    words = [vocab.content[long_[i]] for i in rng.choice(len(long_), n, p=p, replace=False)]
    typos = []
    for w in words:
        i = int(rng.integers(1, len(w) - 1))
        typos.append(w[:i] + w[i + 1 :])
    retriever = Retriever(store, embedder)
    kw = SearchOptions(k=K, mode="keyword")
    for w in words[:5]:
        retriever.search(w, kw)
    plain = [retriever.search(w, kw).timings["total"] for w in words]
    fixed: list[float] = []
    right = 0
    for w, t in zip(words, typos, strict=True):
        if t in vocab.content:  # dropping a letter made another real word: not a typo
            continue
        res = retriever.search(t, kw)
        fixed.append(res.timings["total"])
        right += w in [x.lower() for x in res.corrections.get(t, [])]
    return {
        "plain_p50": pct(plain, 50),
        "plain_p95": pct(plain, 95),
        "typo_p50": pct(fixed, 50),
        "typo_p95": pct(fixed, 95),
        "typo_n": float(len(fixed)),
        "typo_right": right / max(1, len(fixed)),
    }


def bench_size(
    workdir: Path,
    size: int,
    n_queries: int,
    dim: int,
    sentence_weight: float = 0.3,
    links: int = 2,
) -> dict[str, float]:
    print(f"\n== {size:,} chunks ==")
    vocab = Vocabulary.make()
    t0 = time.perf_counter()
    store = open_or_build(workdir, size, dim, vocab)
    print(f"  store ready in {time.perf_counter() - t0:.1f} s")

    rng = np.random.default_rng(42)
    questions = [vocab.question(rng) for _ in range(n_queries)]
    qvecs = unit_vectors(rng, n_queries, dim)
    embedder = FixedEmbedder(dim, dict(zip(questions, qvecs, strict=True)))
    retriever = Retriever(store, embedder)
    opts = SearchOptions(
        k=K,
        mode="hybrid",
        candidates=50,
        min_score=-1.0,
        sentence_weight=sentence_weight,
        links=links,
    )

    clear_cache()
    cache_path(store.home).unlink(missing_ok=True)
    t = time.perf_counter()
    retriever.search(questions[0], opts)  # cold: reads LanceDB, writes the cache file
    cold = time.perf_counter() - t
    clear_cache()
    t = time.perf_counter()
    Retriever(store, embedder).search(questions[1], opts)  # a new process: maps the file
    cold_file = time.perf_counter() - t
    for q in questions[:10]:  # warm-up
        retriever.search(q, opts)
    totals: list[float] = []
    cpu: list[float] = []
    stages: dict[str, list[float]] = {"vector": [], "keyword": [], "fuse": [], "rerank": []}
    for q in questions:
        c = time.process_time()
        res = retriever.search(q, opts)
        cpu.append(time.process_time() - c)
        totals.append(res.timings["total"])
        for name in stages:
            stages[name].append(res.timings[name])

    tbl = store.vectors.table()
    # the cache is keyed by text hash; synthetic chunk texts are unique, so a hash is a chunk
    id_of = {str(h): int(i) for i, h in store.conn.execute("SELECT id, embed_sha256 FROM chunks")}
    for v in qvecs[:10]:
        tbl.search(v).limit(K).to_arrow()
    bare: list[float] = []
    bare_cpu: list[float] = []
    lance_hits: list[set[int]] = []
    for v in qvecs:
        c = time.process_time()
        t = time.perf_counter()
        out = tbl.search(v).limit(K).to_arrow()
        bare.append(time.perf_counter() - t)
        bare_cpu.append(time.process_time() - c)
        lance_hits.append({id_of[x] for x in out.column("text_sha256").to_pylist()})

    kw_fts5, kw_index, kw_build = keyword_engines(store, embedder, questions)
    typo = typo_words(store, embedder, vocab, min(n_queries, 100))

    arrow = store.vectors.table().to_arrow()
    ids_np = np.array([id_of[x] for x in arrow.column("text_sha256").to_pylist()])
    col = arrow.column("vector").combine_chunks()
    mat = col.flatten().to_numpy(zero_copy_only=False).reshape(-1, dim).astype(np.float64)
    # the vector leg alone (no sentence rerank: these sentence vectors are random)
    vec_opts = SearchOptions(k=K, mode="vector", min_score=-1.0, sentence_weight=0.0)
    recall_kb: list[float] = []
    recall_lance: list[float] = []
    for q, v, lh in zip(questions, qvecs, lance_hits, strict=True):
        truth = exact_top(ids_np, mat, v, K)
        got = {h.chunk_id for h in retriever.search(q, vec_opts).hits}
        recall_kb.append(len(got & truth) / K)
        recall_lance.append(len(lh & truth) / K)
    store.close()

    row = {
        "size": size,
        "cold_ms": cold * 1000,
        "cold_file_ms": cold_file * 1000,
        "hybrid_p50": pct(totals, 50),
        "hybrid_p95": pct(totals, 95),
        "lance_p50": pct(bare, 50),
        "lance_p95": pct(bare, 95),
        "hybrid_cpu_p50": pct(cpu, 50),
        "lance_cpu_p50": pct(bare_cpu, 50),
        "recall_kb": float(np.mean(recall_kb)),
        "recall_lance": float(np.mean(recall_lance)),
        "kw_fts5_p50": pct(kw_fts5, 50),
        "kw_index_p50": pct(kw_index, 50),
    }
    print(
        f"  first query of a process: {row['cold_ms']:.0f} ms reading LanceDB (and writing "
        f"the cache file), {row['cold_file_ms']:.0f} ms from the cache file"
    )
    print(
        "  hybrid stages p50: " + ", ".join(f"{n} {pct(xs, 50):.1f} ms" for n, xs in stages.items())
    )
    print(f"  hybrid search     p50 {row['hybrid_p50']:7.1f} ms   p95 {row['hybrid_p95']:7.1f} ms")
    print(f"  bare LanceDB      p50 {row['lance_p50']:7.1f} ms   p95 {row['lance_p95']:7.1f} ms")
    print(f"  ratio hybrid/bare p50 {row['hybrid_p50'] / row['lance_p50']:.2f}x")
    print(
        f"  CPU time per query p50 (all threads): hybrid {row['hybrid_cpu_p50']:.1f} ms, "
        f"bare LanceDB {row['lance_cpu_p50']:.1f} ms"
    )
    print(
        f"  keyword leg p50/p95: FTS5 {pct(kw_fts5, 50):.1f}/{pct(kw_fts5, 95):.1f} ms, "
        f"LanceDB full-text index {pct(kw_index, 50):.1f}/{pct(kw_index, 95):.1f} ms "
        f"(built in {kw_build:.1f} s; used from [search] keyword_index_threshold)"
    )
    print(
        f"  a misspelt word, keyword search with its corrections: p50/p95 "
        f"{typo['typo_p50']:.1f}/{typo['typo_p95']:.1f} ms vs the word as written "
        f"{typo['plain_p50']:.1f}/{typo['plain_p95']:.1f} ms "
        f"({typo['typo_p50'] / typo['plain_p50']:.2f}x p50); corrected to the word meant: "
        f"{typo['typo_right']:.0%} of {typo['typo_n']:.0f}"
    )
    row |= {f"typo_{k}" if not k.startswith("typo") else k: v for k, v in typo.items()}
    print(
        f"  recall@{K} vs exact: kb vector leg {row['recall_kb']:.3f}, "
        f"bare LanceDB {row['recall_lance']:.3f}"
    )
    return row


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="10000,100000", help="comma-separated chunk counts")
    ap.add_argument("--queries", type=int, default=200, help="timed queries per size")
    ap.add_argument("--dim", type=int, default=384)
    ap.add_argument(
        "--sentence-weight", type=float, default=0.3, help="[search] sentence_weight (0 = off)"
    )
    ap.add_argument("--links", type=int, default=2, help="[search] links, title links (0 = off)")
    ap.add_argument("--workdir", type=Path, help="keep and reuse built stores here")
    ap.add_argument("--ann", default="", help="comma-separated sizes for the ANN bench")
    ap.add_argument("--nprobes", type=int, default=20, help="ANN: IVF partitions probed")
    ap.add_argument("--refine", type=int, default=10, help="ANN: refine factor")
    ap.add_argument(
        "--ann-index",
        default="faiss_ivf_sq8",
        choices=("faiss_ivf_sq8", "ivf_pq", "ivf_hnsw_sq"),
        help="ANN index type",
    )
    ap.add_argument("--ef", type=int, default=128, help="ANN: HNSW candidates (ivf_hnsw_sq)")
    ap.add_argument(
        "--legs",
        default="parallel",
        choices=("parallel", "sequential"),
        help="ANN bench: keyword leg beside the vector leg (kb's way) or after it",
    )
    ap.add_argument(
        "--keyword",
        default="index",
        choices=("index", "fts5"),
        help="ANN bench: keyword leg through the LanceDB full-text index or SQLite FTS5",
    )
    args = ap.parse_args(argv)
    sizes = [int(s.replace("_", "")) for s in args.sizes.split(",") if s.strip()]
    tmp = None
    if args.workdir is None:
        tmp = tempfile.TemporaryDirectory(prefix="kb-bench-search-")
        workdir = Path(tmp.name)
    else:
        workdir = args.workdir
        workdir.mkdir(parents=True, exist_ok=True)
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"{os.cpu_count()} CPUs, load average {load} (other processes slow every number)")
    rows = [
        bench_size(workdir, n, args.queries, args.dim, args.sentence_weight, args.links)
        for n in sizes
    ]
    print("\nsize      hybrid p50/p95 ms   LanceDB p50/p95 ms   ratio   recall@10 kb/lance")
    for r in rows:
        print(
            f"{int(r['size']):>8,}  {r['hybrid_p50']:7.1f} /{r['hybrid_p95']:6.1f}    "
            f"{r['lance_p50']:7.1f} /{r['lance_p95']:6.1f}     "
            f"{r['hybrid_p50'] / r['lance_p50']:5.2f}x  "
            f"{r['recall_kb']:.3f} / {r['recall_lance']:.3f}"
        )
    ann_sizes = [int(s.replace("_", "")) for s in args.ann.split(",") if s.strip()]
    ann_rows = [
        bench_ann(
            workdir,
            n,
            args.queries,
            args.dim,
            args.nprobes,
            args.refine,
            args.ann_index,
            args.ef,
            args.keyword,
            args.legs,
        )
        for n in ann_sizes
    ]
    if ann_rows:
        print("\nANN size  hybrid p50/p95 ms   recall@10   peak RSS / raw vectors MiB")
        for r in ann_rows:
            print(
                f"{int(r['size']):>8,}  {r['hybrid_p50']:7.1f} /{r['hybrid_p95']:6.1f}    "
                f"{r['recall']:.3f}       {r['peak_rss_mb']:.0f} / {r['raw_mb']:.0f}"
            )
    if tmp is not None:
        tmp.cleanup()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
