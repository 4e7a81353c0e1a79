"""Benchmark: chunk metrics of several chunkings of one KB's documents, nothing embedded.

Usage::

    .venv/bin/python bench/chunk_metrics.py --kb KB_DIR --golden GOLDEN.yaml
        [--chunkers structure window ...] [--repeat 3]

Every document of the KB is loaded again from its file (audio from the KB's cached
transcripts) and chunked by each spec; then, per chunking, :func:`eval.chunk_metrics.
chunk_metrics` (Precision_Ω, split and resolved evidence) and
:func:`ingest.chunkers.lint.lint_chunking`. Times (best of ``--repeat``):

- ``locate``: resolving the golden supports to spans, once per KB and golden set;
- ``tokenise``: the bare ``tokenizers`` encode of every document's text (the baseline);
- ``omega``: the metrics of one chunking given located evidence and token starts
  (printed with its ratio to the bare encode); ``omega cold`` includes the encode.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from eval.chunk_metrics import chunk_metrics, locate_evidence  # noqa: E402
from eval.golden import load_golden  # noqa: E402
from eval.token_space import TokenSpace  # noqa: E402
from ingest.chunkers import make_chunker  # noqa: E402
from ingest.chunkers.lint import lint_chunking, read_limit  # noqa: E402
from ingest.chunkers.spans import document_text  # noqa: E402
from ingest.loaders import LoadContext, loader_for  # noqa: E402
from ingest.tokens import counter_for  # noqa: E402
from kb.config import load_settings  # noqa: E402


def best(fn, repeat: int):  # type: ignore[no-untyped-def]
    times, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times), out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kb", type=Path, required=True, help="a KB folder (read only)")
    ap.add_argument("--golden", type=Path, required=True, help="the golden set")
    ap.add_argument("--chunkers", nargs="+", default=["structure", "window"])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    settings = load_settings(args.kb, user_file=args.kb / "no-such-config.toml")
    conn = sqlite3.connect(f"file:{args.kb / 'kb.sqlite'}?mode=ro", uri=True)
    conn.row_factory = sqlite3.Row
    golden = load_golden(args.golden)

    def transcriber():  # type: ignore[no-untyped-def]  # cached transcripts: never runs
        from kb.backends.transcriber import make_transcriber

        return make_transcriber(settings.whisper, settings.home)

    ctx = LoadContext(settings, transcriber, args.kb / "cache")
    docs = []
    for path, abs_path in conn.execute("SELECT path, abs_path FROM documents ORDER BY path"):
        loader = loader_for(abs_path)
        if loader is not None:
            docs.append((str(path), loader.load(Path(abs_path), str(path), ctx)))
    texts = {p: document_text(d) for p, d in docs}
    counter = counter_for(settings.embedding.model)
    t_locate, evidence = best(lambda: locate_evidence(conn, golden), args.repeat)
    t_tok, _ = best(lambda: [counter.offsets(t) for t in texts.values()], args.repeat)
    print(f"{len(docs)} documents, {evidence.supports} supports; tokenizer {counter.name}")
    print(f"locate evidence {t_locate:.3f} s; bare tokenizers encode of all texts {t_tok:.3f} s")
    limit = read_limit(settings.embedding.model)
    cols = ["chunker", "chunks", "Precision_Ω", "split spans", "resolved", "too long"]
    cols += ["crosses heading", "short", "coverage", "Ω s (warm)", "Ω s (cold)"]
    print("| " + " | ".join(cols) + " |\n" + "|" + "---|" * len(cols))
    for spec in args.chunkers:
        space = TokenSpace(conn, counter, texts)
        print(measure(spec, settings, docs, space, evidence, limit, t_tok, args.repeat))


def measure(spec, settings, docs, space, evidence, limit, t_tok, repeat):  # type: ignore[no-untyped-def]
    """One table row: the chunking's metrics, lint and timings."""
    chunker = make_chunker(spec, settings)
    drafts = {p: chunker.chunk(d) for p, d in docs}
    spans = {p: [(c.char_start, c.char_end) for c in ds] for p, ds in drafts.items()}

    def cold():  # type: ignore[no-untyped-def]
        fresh = TokenSpace(space.conn, space.tokenizer, space.texts, spans)
        return chunk_metrics(evidence, fresh)

    t_cold, _ = best(cold, repeat)
    chunk_metrics(evidence, space)  # token starts computed once
    t_warm, rep = best(lambda: chunk_metrics(evidence, space.with_chunking(spans)), repeat)
    lint = lint_chunking(((d, drafts[p]) for p, d in docs), limit)
    s = rep.summary()
    return (
        f"| {spec} | {lint.chunks} | {s['precision_omega']:.4f} | {s['split_spans']} of "
        f"{s['evidence_spans']} | {s['resolved']:.4f} | {lint.counts['too_long']} | "
        f"{lint.counts['crosses_heading']} | {lint.counts['short']} | {lint.coverage:.4f} | "
        f"{t_warm:.3f} ({t_warm / t_tok:.2f}x encode) | {t_cold:.3f} ({t_cold / t_tok:.2f}x) |"
    )


if __name__ == "__main__":
    main()
