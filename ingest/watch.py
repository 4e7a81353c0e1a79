"""``kb ingest --watch``: keep the KB in step with its sources as files change.

After the first pass (a normal ingest), every known source is watched with
`watchfiles <https://watchfiles.helpmanual.io/>`_ (Rust ``notify``: inotify, FSEvents,
ReadDirectoryChangesW). Changes are grouped with a debounce (``debounce_ms``: a batch
is handed over once no new change arrived for ``step_ms``, at the latest after
``debounce_ms``). Each batch is applied by an ordinary incremental ingest of one
scope per source: the deepest existing folder holding every changed path of that
source. That makes edits, new files, deletes and moves (same content hash: the
document keeps its chunks and vectors) behave exactly as a re-run of ``kb ingest``
would, and files in that folder that did not change cost one hash each.

Stopping (``stop`` set, or Ctrl-C in the CLI) happens between batches or inside one;
an interrupted batch leaves at most chunks ``pending``, which the next ``kb ingest``
embeds (the store's usual crash safety), so nothing is lost.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, Protocol

from ingest.report import FileOutcome, IngestReport
from kb.config import Settings
from kb.store import Store
from kb.store.sources import Source, list_sources, owner


class StopFlag(Protocol):
    def is_set(self) -> bool: ...


def scopes_for(changed: Iterable[str], sources: list[Source]) -> list[Path]:
    """One folder (or file) per source to re-ingest for a batch of changed paths.

    Paths outside every source are ignored. For a folder source the scope is the
    deepest existing folder that holds every changed path of that source (a deleted
    folder's parent, at most the source itself); for a file source, the file.
    """
    by_source: dict[int, tuple[Source, list[str]]] = {}
    for raw in changed:
        path = Path(os.path.abspath(raw)).as_posix()
        src = owner(sources, path)
        if src is not None:
            by_source.setdefault(src.id, (src, []))[1].append(path)
    scopes: list[Path] = []
    for src, paths in by_source.values():
        if src.kind == "file":
            if Path(src.path).exists():
                scopes.append(Path(src.path))
            continue
        parents = [p if Path(p).is_dir() else os.path.dirname(p) for p in paths]
        common = Path(os.path.commonpath(parents))
        while not common.is_dir() and src.contains(common.parent.as_posix()):
            common = common.parent
        if common.is_dir() and src.contains(common.as_posix()):
            scopes.append(common)
    return scopes


def change_lines(report: IngestReport) -> list[str]:
    """One line per document that changed (unchanged files are not mentioned)."""
    lines = []
    for f in report.files:
        if f.outcome == "unchanged":
            continue
        lines.append(_line(f))
    return lines


def _line(f: FileOutcome) -> str:
    if f.outcome == "moved":
        return f"moved {f.moved_from} -> {f.path}"
    if f.outcome == "failed":
        return f"failed {f.path}: {f.error}"
    return f"{f.outcome} {f.path}"


def watch_sources(
    store: Store,
    settings: Settings,
    on_lines: Callable[[list[str]], None],
    stop: StopFlag | None = None,
    debounce_ms: int = 1600,
    step_ms: int = 300,
    ingest_kwargs: dict[str, Any] | None = None,
) -> None:
    """Watch every source of ``store`` and apply changes until ``stop`` is set.

    ``on_lines`` receives the lines of each applied batch (see :func:`change_lines`).
    ``ingest_kwargs`` go to :func:`ingest.pipeline.ingest_paths` (an embedder, a
    progress reporter). Returns when ``stop`` is set; KeyboardInterrupt propagates.
    """
    import watchfiles

    from ingest.pipeline import ingest_paths
    from kb.store.lock import write_lock

    sources = list_sources(store)
    paths = [s.path for s in sources if Path(s.path).exists()]
    if not paths:
        return
    for changes in watchfiles.watch(
        *paths,
        debounce=debounce_ms,
        step=step_ms,
        stop_event=stop,
        rust_timeout=500,
        yield_on_timeout=True,
        raise_interrupt=True,
    ):
        if stop is not None and stop.is_set():
            return
        if not changes:
            continue
        scopes = scopes_for((p for _, p in changes), list_sources(store))
        if not scopes:
            continue
        with write_lock(store.home, "kb ingest --watch"):  # other writers get turns
            report = ingest_paths(store, settings, scopes, **(ingest_kwargs or {}))
        lines = change_lines(report)
        if lines:
            on_lines(lines)
