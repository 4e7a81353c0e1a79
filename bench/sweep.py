"""Benchmark: a `kb eval sweep` of 6 chunkings against a bare SentenceTransformer.encode.

1. Prepare a KB of squad-dev (``--from``: a copy of an ingested squad-dev KB, default
   ``/work/kbs/squad-base``, its transcripts reused; without one the corpus is ingested
   into ``--workdir`` once, untimed) with an **empty** embedding
   cache: stored chunkings other than the live one are dropped, the vector table is
   dropped and every chunk is pending, so the first sweep embeds everything it needs.
2. Sweep 1: ``kb eval sweep GOLDEN --chunker ... (6)`` in a new process, timed
   wall-clock (process start, model load, building and embedding 6 chunkings, 6
   retrieval evals of every golden query).
3. The distinct texts those 6 chunkings embed (the union), encoded by a bare
   ``SentenceTransformer.encode`` (batch 64, model loaded first, not timed).
   Target: sweep 1 <= 1.3x that.
4. Sweep 2, the same command again: every chunking is stored and every text cached.
   Target: 0 texts embedded and <= 15% of sweep 1's time.

Usage: python bench/sweep.py [--workdir DIR] [--from KB] [--golden FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DATA = Path(os.environ.get("KB_DATASETS", ROOT.parent / "shared" / "datasets")) / "squad-dev"
SPECS = [
    "structure",
    "structure:max_tokens=100",
    "window",
    "window:size=64,overlap=16",
    "window:size=192,overlap=48",
    f"{ROOT / 'fixtures' / 'chunkers' / 'para.py'}#chunk",
]


def prepare(src: Path, home: Path) -> None:
    """Copy the KB (once) and reset it to one live chunking with an empty cache."""
    from kb.store import Store, chunkings

    if not (home / "kb.sqlite").exists() and (src / "kb.sqlite").exists():
        home.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src / "kb.sqlite", home / "kb.sqlite")
        shutil.copytree(src / "lancedb", home / "lancedb")
        if (src / "cache" / "transcripts").is_dir():
            shutil.copytree(src / "cache" / "transcripts", home / "cache" / "transcripts")
    elif not (home / "kb.sqlite").exists():  # no KB to copy: ingest the corpus (not timed)
        print(f"ingesting {DATA / 'corpus'} into {home} (once; not part of the benchmark)")
        env = {**os.environ, "KB_HOME": str(home), "PYTHONPATH": str(ROOT)}
        cmd = [sys.executable, "-m", "kb", "ingest", str(DATA / "corpus"), "-q"]
        subprocess.run(cmd, env=env, check=True, cwd=ROOT)
    with Store.open(home) as store:
        live = chunkings.live_id(store)
        for ch in chunkings.list_all(store):
            if ch.id != live:
                chunkings.remove(store, ch.id)
        store.vectors.drop()
        store.mark_all_pending()
        for name in ("eval_query_results", "eval_runs"):
            with store.tx() as c:
                c.execute(f"DELETE FROM {name}")
    (home / "cache" / "search-vectors.bin").unlink(missing_ok=True)
    # the one-off ONNX export of the model is not part of a sweep: done here, kept in
    # $KB_MODEL_CACHE for both sweeps
    from kb.backends.embedder import make_embedder
    from kb.config import load_settings

    make_embedder(load_settings(home).embedding, home=home, purpose="ingest")


def sweep(home: Path, golden: Path) -> tuple[float, dict]:  # type: ignore[type-arg]
    cmd = [sys.executable, "-m", "kb", "eval", "sweep", str(golden), "--json", "-q"]
    for s in SPECS:
        cmd += ["--chunker", s]
    env = {**os.environ, "KB_HOME": str(home), "PYTHONPATH": str(ROOT)}
    t0 = time.perf_counter()
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=ROOT)
    took = time.perf_counter() - t0
    if out.returncode != 0:
        sys.exit(f"bench: sweep failed ({out.returncode}): {out.stderr[-2000:]}")
    return took, json.loads(out.stdout)


def union_texts(home: Path) -> list[str]:
    from kb.store import Store
    from kb.store.sqlite import EMBED_TEXT_SQL

    with Store.open(home) as store:
        rows = store.conn.execute(
            f"SELECT min({EMBED_TEXT_SQL}) FROM chunks GROUP BY embed_sha256"
        ).fetchall()
    return [str(r[0]) for r in rows]


def bare_encode(texts: list[str]) -> float:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from sentence_transformers import SentenceTransformer

    from kb.backends.bundled import embedding_model_dir

    model = SentenceTransformer(str(embedding_model_dir()), device="cpu")
    model.encode(["warm up"])
    t0 = time.perf_counter()
    model.encode(texts, batch_size=64, normalize_embeddings=True, show_progress_bar=False)
    return time.perf_counter() - t0


def show(name: str, took: float, board: dict) -> None:  # type: ignore[type-arg]
    rows = board["rows"]
    emb = sum(r["texts_embedded"] for r in rows)
    cached = sum(r["texts_cached"] for r in rows)
    print(f"{name}: {took:.1f} s, {emb} texts embedded, {cached} from the cache")
    for r in rows:
        m = r["metrics"]
        print(
            f"  {r['spec'][-34:]:<34} {r['verdict']:<8} mrr@10 {m['mrr@10']:.4f} "
            f"hit@5 {m['hit@5']:.4f}  {r['chunks']:5d} chunks  "
            f"emb/cached {r['texts_embedded']}/{r['texts_cached']}  {r['seconds']:.1f} s"
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--workdir", type=Path, default=Path("/tmp/kb-bench-sweep"))
    ap.add_argument("--from", dest="src", type=Path, default=Path("/work/kbs/squad-base"))
    ap.add_argument("--golden", type=Path, default=DATA / "golden.yaml")
    a = ap.parse_args()
    home = a.workdir / "kb"
    os.environ["KB_MODEL_CACHE"] = str(a.workdir / "models")
    prepare(a.src, home)
    t1, b1 = sweep(home, a.golden)
    show("sweep 1 (empty cache)", t1, b1)
    texts = union_texts(home)
    bare = bare_encode(texts)
    print(f"bare SentenceTransformer.encode of the {len(texts)} distinct texts: {bare:.1f} s")
    t2, b2 = sweep(home, a.golden)
    show("sweep 2 (same sweep again)", t2, b2)
    print(f"sweep 1 / bare encode: {t1 / bare:.2f}x (target <= 1.3)")
    emb2 = sum(r["texts_embedded"] for r in b2["rows"])
    print(f"sweep 2: {emb2} texts embedded; {t2 / t1:.1%} of sweep 1 (target 0 and <= 15%)")
    print(f"load average: {' '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()
