"""``kb ingest [PATH...]``"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from kb.cli.common import (
    JsonOption,
    KbOption,
    QuietOption,
    err,
    print_json,
    settings_for,
    stderr_is_tty,
)

if TYPE_CHECKING:
    from ingest.chunkings import BuildReport
    from ingest.report import IngestReport
    from kb.backends.embedder import Embedder
    from kb.config import Settings
    from kb.store import Store


def ingest(
    paths: Annotated[
        list[Path] | None,
        typer.Argument(
            help="Files or folders to index. [default: every known source, re-scanned]",
            metavar="PATH",
            show_default=False,
        ),
    ] = None,
    chunker: Annotated[
        str | None,
        typer.Option(
            "--chunker",
            metavar="SPEC",
            help="Change the KB's chunker: structure, window, an installed plug-in or "
            "path.py#function, optionally with :key=value,... (see `kb chunkers list`). It is "
            "remembered: later ingests use it until changed again. It is tried on every "
            "indexed document first and made live only if it fails on none. [default: the "
            "KB's chunker, else config ingest.chunker]",
            show_default=False,
        ),
    ] = None,
    include: Annotated[
        list[str] | None,
        typer.Option(
            "--include",
            metavar="GLOB",
            help="This run looks only at files matching GLOB; repeatable. Documents it "
            "does not look at are kept.",
            show_default=False,
        ),
    ] = None,
    exclude: Annotated[
        list[str] | None,
        typer.Option(
            "--exclude",
            metavar="GLOB",
            help="This run skips files matching GLOB (their documents are kept); repeatable.",
            show_default=False,
        ),
    ] = None,
    watch: Annotated[
        bool,
        typer.Option(
            "--watch",
            help="After ingesting, keep watching every source and apply edits, new files, "
            "deletes and moves as they happen (one line per change on stderr); Ctrl-C stops.",
        ),
    ] = False,
    kb: KbOption = None,
    json_out: JsonOption = False,
    quiet: QuietOption = False,
) -> None:
    """Index Markdown, text, PDF and audio files into the KB.

    A folder or file outside every known source becomes a new source, named after
    it (see `kb sources`); documents are shown as NAME/relative/path. A path inside a
    known source (a subfolder, one file) updates those documents in place. Without
    a path, every source is re-scanned. Hidden files are skipped and symlinks out
    of the folder never followed. Unchanged files cost nothing; changed files are
    replaced; files that disappeared are removed; moved files keep their vectors.

    \b
    Examples:
      kb ingest ~/notes ~/papers
      kb ingest ~/notes/work/project.md
      kb ingest --chunker window
      kb ingest --watch

    Exit codes: 0 every file succeeded (with --watch: also after Ctrl-C); 1 at least
    one file failed (each failure is printed as one line and recorded; the rest is
    indexed); 2 bad usage.
    """
    from ingest.pipeline import ingest_paths, remembered_chunker
    from kb.cli.common import check_named_sources
    from kb.store import Store

    # a FIFO, socket, device or a link to one is never a source: refused before the KB
    # is opened, so nothing is written (the size limit once the settings are known)
    check_named_sources(list(paths or []))
    if chunker is not None:
        from ingest.chunkers.spec import parse_spec
        from kb.safe_open import PLUGIN, check, what_is

        spec = parse_spec(chunker)
        if spec.file is not None and what_is(Path(spec.file).expanduser()) != "missing":
            check(Path(spec.file).expanduser(), PLUGIN)  # a FIFO or device: before any write
    settings = settings_for(
        kb,
        **{
            "ingest.include": tuple(include) if include else None,
            "ingest.exclude": tuple(exclude) if exclude else None,
        },
    )
    check_named_sources(list(paths or []), settings.ingest.max_file_mb)
    from kb.cli.progress import PlainProgress, RichProgress
    from kb.progress import reporting as steps_to
    from kb.store.lock import write_lock

    progress: PlainProgress
    ctx: contextlib.AbstractContextManager[object]
    embedder = _shared_embedder(settings)
    lock = contextlib.ExitStack()  # one writer at a time (kb.store.lock); others wait
    lock.enter_context(write_lock(settings.home, "kb ingest", create=True))
    with lock, Store.open(settings.home) as store:
        tried = None if chunker is None else _try_chunker(store, settings, chunker, embedder, quiet)
        settings, note = remembered_chunker(store, settings, chunker)
        if note:
            err(f"kb: {note}")
        if stderr_is_tty() and not json_out and not quiet:
            rich = RichProgress()
            progress, ctx = rich, rich
        else:
            progress, ctx = PlainProgress(quiet=quiet), contextlib.nullcontext()
        with ctx, steps_to(progress):
            report = ingest_paths(
                store, settings, paths or [], progress=progress, embedder=embedder
            )
            write_search_cache(store, settings)
        if tried is not None:
            _credit_try(store, report, tried)
        lock.close()  # --watch takes the lock again for each batch of changes
        if watch:
            _summary(report, settings.home, json_out)
            _watch(store, settings)
            raise typer.Exit(0)
    _summary(report, settings.home, json_out)
    raise typer.Exit(report.exit_code)


def write_search_cache(store: Store, settings: Settings) -> None:
    """The vector cache file, written by the command that changed the KB
    (:func:`kb.search.vector_cache.write_for_readers`); ``[search] vector_cache = false``
    writes none."""
    if settings.search.vector_cache:
        from kb.search.vector_cache import write_for_readers

        write_for_readers(store)


def _shared_embedder(settings: Settings) -> Callable[[], Embedder]:
    """One lazily loaded embedder for a chunker try and the ingest after it."""
    made: list[Embedder] = []

    def get() -> Embedder:
        if not made:
            from kb.backends.embedder import make_embedder

            made.append(
                make_embedder(
                    settings.embedding, batch_size=64, home=settings.home, purpose="ingest"
                )
            )
        return made[0]

    return get


def _try_chunker(
    store: Store, settings: Settings, spec: str, embedder: Any, quiet: bool
) -> BuildReport | None:
    """``--chunker SPEC`` that is not the live chunking: tried on every indexed document
    first (:func:`ingest.chunkings.try_chunking`); when it fails on any, one line per
    document, one line saying the live chunking stays, and exit 1 (nothing switched)."""
    from ingest.chunkings import needs_try, try_chunking, try_failed_message
    from kb.cli.chunkings_cmd import warn_build_problems

    if not needs_try(store, settings, spec):
        return None
    if not quiet:
        err(f"kb: trying the chunker {spec} on the indexed documents before it goes live")
    from kb.cli.progress_steps import shown_steps

    with shown_steps(quiet=quiet, prefix="ingest"):
        rep = try_chunking(store, settings, spec, embedder)
    if rep.failed:
        warn_build_problems(rep)
        err(f"kb: {try_failed_message(store, rep)}")
        raise typer.Exit(1)
    return rep


def _credit_try(store: Store, report: IngestReport, tried: BuildReport) -> None:
    """The documents the try re-chunked count as ``rechunked`` in the ingest's report
    (the ingest then found them current), and its embedded texts as embedded."""
    from ingest.report import FileOutcome

    built = dict(tried.built)
    for f in report.files:
        if f.outcome == "unchanged" and f.path in built:
            f.outcome, f.chunks = "rechunked", built.pop(f.path)
    for path, n in built.items():  # documents outside the paths this ingest looked at
        row = store.conn.execute("SELECT root FROM documents WHERE path = ?", (path,)).fetchone()
        report.files.append(FileOutcome(path, str(row[0]) if row else "", "rechunked", chunks=n))
    report.chunks_embedded += tried.embedded
    report.seconds += tried.seconds_chunk + tried.seconds_embed


def _watch(store: object, settings: object) -> None:
    """Watch the sources until Ctrl-C; one line per change on stderr."""
    from ingest.watch import watch_sources

    def show(lines: list[str]) -> None:
        for line in lines:
            err(line)

    err("watching the sources for changes; Ctrl-C stops")
    with contextlib.suppress(KeyboardInterrupt):
        watch_sources(store, settings, show)  # type: ignore[arg-type]
    err("stopped watching; a change cut short is finished by the next `kb ingest`")


def _summary(report: object, home: Path, json_out: bool) -> None:
    from ingest.report import IngestReport

    assert isinstance(report, IngestReport)
    if json_out:
        print_json(report.to_dict())
    else:
        from kb.types import plural

        c = report.to_dict()["counts"]
        summary = ", ".join(f"{n} {k}" for k, n in c.items() if n)
        typer.echo(
            f"ingested into {home}: {summary or 'nothing to do'}; "
            f"{plural(report.chunks_embedded, 'chunk')} embedded in {report.seconds:.1f}s"
        )
        if report.ann_index:
            typer.echo(f"vector search: {report.ann_index}")
        if report.keyword_index:
            typer.echo(f"keyword search: {report.keyword_index}")
        for spec, n in report.stale_chunkings.items():
            err(
                f"kb: stored chunking {spec} is stale ({plural(n, 'document')} changed); "
                f"`kb chunkers use {spec}` or `kb eval run GOLDEN --chunker {spec}` updates it"
            )
        for line in report.not_rechunked:
            err(f"kb: {line}")
        if report.outdated_chunkings:
            err(
                f"kb: outdated: {', '.join(report.outdated_chunkings)}: made by another version "
                "of the chunker than the one installed, so it cannot be updated or made live; "
                "`kb chunkers rm --outdated` drops it"
            )
        if report.failed:
            err(
                f"kb: {plural(len(report.failed), 'file')} failed; "
                "see the lines above or `kb status`"
            )
