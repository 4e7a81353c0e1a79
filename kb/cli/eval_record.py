"""``kb eval record``: grow a golden set interactively from questions and picked hits."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from kb.cli.common import KbOption, err, k_option, settings_for
from kb.cli.eval_common import ModeOption, PathOption, TagOption, TypeOption, open_kb, search_opts

if TYPE_CHECKING:
    from eval.golden import GoldenSet


def record(
    golden: Annotated[
        Path,
        typer.Argument(help="Golden file to append to (created if missing).", metavar="GOLDEN"),
    ],
    k: Annotated[int | None, k_option("Hits to show per question.")] = None,
    mode: ModeOption = None,
    path: PathOption = None,
    doc_type: TypeOption = None,
    tag: TagOption = None,
    kb: KbOption = None,
) -> None:
    """Grow GOLDEN interactively from questions and the hits you pick.

    Type a question, pick the correct hits by number (or u = unanswerable, s = skip);
    each entry is appended with path, heading and a distinctive sentence of the chunk
    as anchors, under a new unique id. An empty question ends.

    \b
    Examples:
      kb eval record golden.yaml
      kb eval record golden.yaml --path notes/ -k 8
    """
    from dataclasses import replace

    from eval.golden import load_golden
    from eval.record import record_loop
    from eval.resolve import Resolver, stored_hits

    settings = settings_for(kb)
    opts = search_opts(settings, mode, path, doc_type, tag)
    if k is not None:
        opts = replace(opts, k=k)
    # lexists: a dangling link or a FIFO is refused by load_golden, never written through
    gs: GoldenSet | None = load_golden(golden) if os.path.lexists(golden) else None
    with open_kb(settings) as store:
        from kb.backends.embedder import make_embedder
        from kb.search import Retriever

        retriever = Retriever(store, lambda: make_embedder(settings.embedding, home=settings.home))
        roots = [str(r[0]) for r in store.conn.execute("SELECT path FROM sources")]
        # a new golden set names its corpus: the only source, or the folder holding all
        corpus_dir = gs.corpus_dir if gs is not None else _common_folder(roots)
        res = Resolver(store.conn, corpus_dir)
        corpus = None
        if gs is None and corpus_dir is not None:
            corpus = os.path.relpath(corpus_dir, golden.resolve().parent)

        def search(q: str) -> list[Any]:
            hits = retriever.search(q, opts).hits
            rows = stored_hits(store.conn, [h.chunk_id for h in hits])
            return [rows[h.chunk_id] for h in hits if h.chunk_id in rows]

        def read(prompt: str) -> str | None:
            sys.stdout.write(prompt)
            sys.stdout.flush()
            line = sys.stdin.readline()
            return None if line == "" else line.rstrip("\n")

        n = record_loop(golden, search, read, typer.echo, res.golden_path, store.conn, corpus)
    err(f"{n} entries added to {golden}")


def _common_folder(roots: list[str]) -> Path | None:
    """The one source's path, or the deepest folder containing every source."""
    if not roots:
        return None
    if len(roots) == 1:
        return Path(roots[0])
    return Path(os.path.commonpath(roots))
