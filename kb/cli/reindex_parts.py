"""The parts of ``kb reindex`` that rebuild one thing only: ``--sentences`` (the
sentence vectors chunks lack) and ``--ann`` / ``--keyword`` (the derived indexes).
Their long steps show their progress (:func:`kb.cli.progress_steps.shown_steps`)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from kb.cli.common import err, print_json

if TYPE_CHECKING:
    from kb.store import Store


@contextlib.contextmanager
def reindexing(home: Path, command: str, lock_as: str | None = None) -> Iterator[Store]:
    """One ``kb reindex`` run's set-up: the KB's write lock (held as ``lock_as``, default
    ``command``), its long steps' progress shown, and the KB's store opened and checked
    writable for ``command``; yields the store."""
    from kb.cli.progress_steps import shown_steps
    from kb.store import Store
    from kb.store.lock import write_lock

    with (
        write_lock(home, lock_as or command),
        shown_steps(prefix="reindex"),
        Store.open(home, create=False) as store,
    ):
        store.require_writable(command)
        yield store


def reindex_sentences(settings: Any, json_out: bool, started: float) -> None:
    """``kb reindex --sentences``: embed the sentences of chunk texts that have none, or
    whose stored sentences the splitter now cuts differently."""
    import time

    from ingest.sentence_vectors import drop_stale, fill_missing
    from kb.backends.embedder import make_embedder

    with reindexing(settings.home, "kb reindex --sentences") as store:
        embedder = make_embedder(settings.embedding, home=store.home, purpose="ingest")
        store.check_embedding_model(embedder.model_id)
        stale = drop_stale(store, embedder.model_id)
        n, _ = fill_missing(store, embedder, settings.ingest.embed_batch_size)
    seconds = time.perf_counter() - started
    if json_out:
        print_json(
            {
                "sentence_vectors_added": n,
                "sentence_vectors_refreshed": stale,
                "model": embedder.model_id,
                "seconds": seconds,
            }
        )
    else:
        again = f" ({stale} of them cut into sentences differently now)" if stale else ""
        typer.echo(
            f"added the sentence vectors of {n} chunk texts{again} with {embedder.model_id} "
            f"in {seconds:.1f}s"
        )


def reindex_derived(settings: Any, do_ann: bool, do_keyword: bool, json_out: bool) -> None:
    """``kb reindex --ann`` / ``--keyword``: rebuild the derived search indexes only."""
    import time

    from kb.store import ann, keyword_index

    result: dict[str, Any] = {}
    lines: list[str] = []
    command = "kb reindex --ann" if do_ann else "kb reindex --keyword"
    with reindexing(settings.home, command, lock_as="kb reindex") as store:
        if do_ann:
            t = time.perf_counter()
            built = ann.build_and_record(store, settings.search.ann_index)
            if built is None:
                err(
                    f"kb: the ANN index needs at least {ann.MIN_ROWS} stored vectors; "
                    "smaller KBs are searched exactly"
                )
                raise typer.Exit(1)
            seconds = time.perf_counter() - t
            result.update(ann_index=built.index_type, vectors=built.indexed_rows, seconds=seconds)
            lines.append(
                f"built the ANN index {built.index_type} over {built.indexed_rows} vectors "
                f"in {seconds:.1f}s"
            )
        if do_keyword:
            t = time.perf_counter()
            rec = keyword_index.build(store)
            if rec is None:
                err("kb: the KB has no chunks to index; run `kb ingest PATH` first")
                raise typer.Exit(1)
            seconds = time.perf_counter() - t
            result.update(keyword_index_chunks=rec["rows"], keyword_seconds=seconds)
            lines.append(f"built the keyword index over {rec['rows']} chunks in {seconds:.1f}s")
    if json_out:
        print_json(result)
    else:
        for line in lines:
            typer.echo(line)
