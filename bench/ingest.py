"""Benchmark: `kb ingest` throughput against a bare SentenceTransformer.encode, and peak memory.

1. Ingest a Markdown corpus (default: squad-dev's Markdown) into a fresh KB with the
   embedder ingest uses (``--runtime``, default ``auto``: ONNX Runtime on a CPU machine)
   already loaded and exported (that one-off time is printed, not counted), timing the
   whole pipeline: walk, hash, parse, chunk, SQLite, embedding, LanceDB.
2. Encode exactly the same chunk texts (what kb embedded: heading line + text) with that
   embedder alone, and with a bare ``SentenceTransformer.encode`` at the same batch size.
3. Print chunks/s for each and the throughput ratio bare_time / kb_time (target >= 1.5
   with ONNX Runtime; about 0.9 with ``--runtime sentence-transformers``), and the
   time the same embedder takes for the chunks' sentence vectors alone, with the
   ratio kb ingest would have without that encode, and the ratio against a bare
   encode of the same work (the chunks and their sentences). ``--quantize
   int8`` ingests with the int8 model (:mod:`kb.backends.onnx_quantize`); the bare
   encode stays the float sentence-transformers model.
4. ``--memory``: ingest corpora of 1x, 2x and 4x the size in fresh subprocesses and print
   each one's peak RSS; flat means batching/streaming works (no whole-corpus lists).

Usage: python bench/ingest.py [--corpus DIR] [--runtime auto|onnx|sentence-transformers]
       [--quantize none|int8] [--memory]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DEFAULT = ROOT.parent / "shared" / "datasets" / "squad-dev" / "corpus"


def markdown_copy(src: Path, dst: Path, times: int = 1) -> Path:
    """Copy the Markdown files of ``src`` (``times`` copies, each under its own folder)."""
    for i in range(times):
        for f in src.rglob("*.md"):
            target = dst / f"copy{i}" / f.relative_to(src)
            target.parent.mkdir(parents=True, exist_ok=True)
            text = f.read_text(encoding="utf-8")
            # distinct content per copy, so copies are not recognised as moved files
            target.write_text(text + f"\n\n<!-- copy {i} -->\n", encoding="utf-8")
    return dst


def throughput(corpus: Path, runtime: str, quantize: str = "none") -> None:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from ingest.pipeline import ingest_paths
    from ingest.sentence_vectors import job
    from kb.backends.embedder import SentenceTransformerEmbedder, make_embedder
    from kb.config import load_settings, override
    from kb.store import Store
    from kb.store.sqlite import EMBED_TEXT_SQL

    with tempfile.TemporaryDirectory() as tmp:
        src = markdown_copy(corpus, Path(tmp) / "md")
        settings = override(
            load_settings(Path(tmp) / "kb"),
            **{"embedding.runtime": runtime, "embedding.quantize": quantize},
        )
        t0 = time.perf_counter()
        embedder = make_embedder(
            settings.embedding, batch_size=64, home=settings.home, purpose="ingest"
        )
        embedder.embed_batch(["warm up"])
        load_s = time.perf_counter() - t0
        with Store.open(settings.home) as store:
            t0 = time.perf_counter()
            report = ingest_paths(store, settings, [src], embedder=embedder)
            kb_s = time.perf_counter() - t0
            texts = [
                r[0] for r in store.conn.execute(f"SELECT {EMBED_TEXT_SQL} FROM chunks ORDER BY id")
            ]
            chunk_texts = store.conn.execute("SELECT DISTINCT embed_sha256, text FROM chunks")
            sentences = [t for sha, text in chunk_texts for t in job(str(sha), str(text)).texts]
        t0 = time.perf_counter()
        embedder.embed_batch(texts)
        runtime_s = time.perf_counter() - t0
        sentence_s = 0.0
        if settings.embedding.sentence_vectors:
            t0 = time.perf_counter()
            embedder.embed_batch(sentences)
            sentence_s = time.perf_counter() - t0
        bare = SentenceTransformerEmbedder(settings.embedding)._model  # float, the reference
        bare.encode(["warm up"])
        t0 = time.perf_counter()
        bare.encode(texts, batch_size=64, normalize_embeddings=True, show_progress_bar=False)
        bare_s = time.perf_counter() - t0
        bare_sentences_s = 0.0
        if sentence_s > 0:
            t0 = time.perf_counter()
            bare.encode(
                sentences, batch_size=64, normalize_embeddings=True, show_progress_bar=False
            )
            bare_sentences_s = time.perf_counter() - t0
    n = len(texts)
    print(f"corpus: {corpus} ({report.count('added')} Markdown files, {n} chunks)")
    print(
        f"embedder: {type(embedder).__name__} (runtime {runtime}, quantize {quantize}); "
        f"load/export {load_s:.1f} s"
    )
    print(f"kb ingest:                 {kb_s:7.2f} s  {n / kb_s:7.1f} chunks/s")
    print(f"its embedder alone:        {runtime_s:7.2f} s  {n / runtime_s:7.1f} chunks/s")
    print(
        f"  and the sentence vectors: {sentence_s:7.2f} s  ({len(sentences)} sentences; "
        f"[embedding] sentence_vectors)"
    )
    print(f"bare SentenceTransformer:  {bare_s:7.2f} s  {n / bare_s:7.1f} chunks/s")
    print(f"throughput kb ingest / bare encode: {bare_s / kb_s:.2f}x  (target >= 1.5 with onnx)")
    if sentence_s > 0:
        rest = max(kb_s - sentence_s, 1e-9)
        print(
            f"  without the sentence vectors' encode: {bare_s / rest:.2f}x "
            f"(kb ingest less {sentence_s:.1f} s: what they cost the ratio)"
        )
        same = bare_s + bare_sentences_s
        print(f"  the same work bare (chunks and sentences, {same:.1f} s): {same / kb_s:.2f}x")
    print(f"load average: {' '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs")


CHILD = """
import json, sys, time
from pathlib import Path
from ingest.pipeline import ingest_paths
from kb.config import load_settings
from kb.store import Store
from bench._rss import peak_rss_mb
settings = load_settings(Path(sys.argv[2]))
with Store.open(settings.home) as store:
    t0 = time.perf_counter()
    r = ingest_paths(store, settings, [Path(sys.argv[1])])
    print(json.dumps({"chunks": store.count_chunks(), "seconds": time.perf_counter() - t0,
                      "peak_rss_mb": peak_rss_mb()}))
"""


def memory(corpus: Path, factors: list[int]) -> None:
    print("peak memory of a whole `kb ingest` process (model included):")
    for f in factors:
        with tempfile.TemporaryDirectory() as tmp:
            src = markdown_copy(corpus, Path(tmp) / "md", times=f)
            out = subprocess.run(
                [sys.executable, "-c", CHILD, str(src), str(Path(tmp) / "kb")],
                capture_output=True,
                text=True,
                check=True,
                cwd=ROOT,
                env={**os.environ, "PYTHONPATH": str(ROOT)},
            ).stdout
            d = json.loads(out.strip().splitlines()[-1])
            print(
                f"  {f}x corpus: {d['chunks']:6d} chunks  peak RSS {d['peak_rss_mb']:7.1f} MB  "
                f"({d['seconds']:.1f} s)"
            )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", type=Path, default=DEFAULT)
    ap.add_argument("--runtime", default="auto", help="[embedding] runtime for kb ingest")
    ap.add_argument("--quantize", default="none", help="[embedding] quantize: none | int8")
    ap.add_argument("--memory", action="store_true", help="also measure peak RSS at 1x/2x/4x")
    ap.add_argument("--factors", default="1,2,4")
    a = ap.parse_args()
    if not a.corpus.is_dir():
        sys.exit(f"bench: corpus folder {a.corpus} not found; pass --corpus DIR")
    throughput(a.corpus, a.runtime, a.quantize)
    if a.memory:
        memory(a.corpus, [int(x) for x in a.factors.split(",")])
    shutil.rmtree(Path(tempfile.gettempdir()) / "kb-bench", ignore_errors=True)


if __name__ == "__main__":
    main()
