"""``kb sources`` (list, add, remove, move) and ``kb docs`` (list, remove)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from kb.cli.common import (
    JsonOption,
    KbOption,
    PathOption,
    TagOption,
    TypeOption,
    check_named_sources,
    err,
    open_kb,
    print_json,
    settings_for,
)
from kb.cli.confirm import DryRunOption, YesOption, confirm
from kb.cli.help import command_kwargs
from kb.cli.ingest_cmd import write_search_cache
from kb.quoting import quote_name

sources_app = typer.Typer(invoke_without_command=True, no_args_is_help=False)
docs_app = typer.Typer(invoke_without_command=True, no_args_is_help=False)

NameArg = Annotated[
    str, typer.Argument(help="The source's name (see `kb sources`).", metavar="NAME")
]


@sources_app.callback()
def sources(ctx: typer.Context, kb: KbOption = None, json_out: JsonOption = False) -> None:
    """List the KB's sources: name, path, documents, chunks, failures, last ingest.

    A source is a folder or file you ingested; its documents are shown as
    NAME/relative/path.

    \b
    Examples:
      kb sources
      kb sources remove old-notes
      kb sources move notes ~/Documents/notes
    """
    if ctx.invoked_subcommand is not None:
        return
    from kb.store.sources import list_sources
    from kb.types import plural

    with open_kb(settings_for(kb)) as store:
        rows = list_sources(store, with_stats=True)
    if json_out:
        print_json([s.to_dict() for s in rows])
        return
    if not rows:
        typer.echo("no sources yet; run `kb ingest PATH`")
        return
    for s in rows:
        failed = f", {s.stats['failed']} failed" if s.stats["failed"] else ""
        typer.echo(
            f"{quote_name(s.name)}  {quote_name(s.path)}  "
            f"{plural(s.stats['documents'], 'document')}, "
            f"{plural(s.stats['chunks'], 'chunk')}{failed}; last ingest {_when(s.last_ingest_at)}"
        )


def _when(ts: float | None) -> str:
    import time

    if ts is None:
        return "never"
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(ts))


@sources_app.command("add", **command_kwargs("Record a folder or file as a source, then ingest."))
def add(
    path: Annotated[Path, typer.Argument(help="Folder or file to add.", metavar="PATH")],
    name: Annotated[
        str | None,
        typer.Option(
            "--name",
            metavar="NAME",
            help="Display name. [default: the folder's or file's own name]",
            show_default=False,
        ),
    ] = None,
    include: Annotated[
        list[str] | None,
        typer.Option(
            "--include", metavar="GLOB", help="Keep only files matching GLOB; repeatable."
        ),
    ] = None,
    exclude: Annotated[
        list[str] | None,
        typer.Option(
            "--exclude", metavar="GLOB", help="Always skip files matching GLOB; repeatable."
        ),
    ] = None,
    kb: KbOption = None,
) -> None:
    """Record PATH as a source with its own name and patterns, then ingest it.

    The patterns belong to the source: every later ingest applies them.

    \b
    Examples:
      kb sources add ~/notes --exclude "drafts/**"
      kb sources add ~/work/notes --name work-notes
    """
    from ingest.pipeline import ingest_paths, remembered_chunker
    from kb.errors import UsageError
    from kb.safe_open import source_refusal
    from kb.store import Store
    from kb.store.lock import write_lock
    from kb.store.sources import abs_key, add_source, list_sources, owner

    refusal = source_refusal(path)  # before the KB is opened: nothing is written
    if refusal is not None:
        raise UsageError(refusal)
    settings = settings_for(kb)
    check_named_sources([path], settings.ingest.max_file_mb)
    with (
        write_lock(settings.home, "kb sources add", create=True),
        Store.open(settings.home) as store,
    ):
        inside = owner(list_sources(store), abs_key(path))
        if inside is not None:
            raise UsageError(f"{path}: already in the source {inside.name!r}; see `kb sources`")
        src = add_source(store, path, name, tuple(include or ()), tuple(exclude or ()))
        settings, _ = remembered_chunker(store, settings, None)
        report = ingest_paths(store, settings, [Path(src.path)])
        write_search_cache(store, settings)
    typer.echo(
        f"added source {quote_name(src.name)} ({quote_name(src.path)}): "
        f"{len(report.files)} files looked at"
    )
    raise typer.Exit(report.exit_code)


@sources_app.command("remove", **command_kwargs("Remove a source with its documents."))
def remove(
    name: NameArg, yes: YesOption = False, dry_run: DryRunOption = False, kb: KbOption = None
) -> None:
    """Remove the source NAME: its documents, chunks and vectors leave the KB.

    The files themselves are not touched. It says how many documents and chunks go
    and asks first on a terminal; elsewhere it needs --yes. --dry-run lists the
    documents that would go.

    \b
    Examples:
      kb sources remove old-notes
      kb sources remove old-notes --dry-run
      kb sources remove old-notes --yes
    """
    from ingest.embedding import apply_tombstones
    from kb.store.lock import write_lock
    from kb.store.sources import find_source, remove_source
    from kb.types import plural

    settings = settings_for(kb)
    with write_lock(settings.home, "kb sources remove"), open_kb(settings) as store:
        src = find_source(store, name)
        docs = _documents_of(store, "source_id = ?", (src.id,))
        what = f"the source {quote_name(src.name)} ({quote_name(src.path)}) with {_counts(docs)}"
        if dry_run:
            _list_dry_run(docs, f"would remove {what}")
            return
        store.require_writable("kb sources remove")
        confirm(what, yes, "kb sources remove")
        n = remove_source(store, src)
        apply_tombstones(store)
    typer.echo(
        f"removed source {quote_name(src.name)} ({quote_name(src.path)}) and "
        f"{plural(n, 'document')}"
    )


def _documents_of(store: Any, where: str, args: tuple[Any, ...]) -> list[tuple[str, int]]:
    """``(path, chunks)`` of the documents matching ``where``, by path."""
    rows = store.conn.execute(
        "SELECT d.path, (SELECT count(*) FROM chunks c WHERE c.document_id = d.id) "
        f"FROM documents d WHERE {where} ORDER BY d.path",
        args,
    ).fetchall()
    return [(str(r[0]), int(r[1])) for r in rows]


def _counts(docs: list[tuple[str, int]]) -> str:
    from kb.types import plural

    return f"{plural(len(docs), 'document')} and {plural(sum(n for _, n in docs), 'chunk')}"


def _list_dry_run(docs: list[tuple[str, int]], summary: str) -> None:
    """``--dry-run``: each document that would go on stdout, the summary on stderr."""
    from kb.types import plural

    for path, n in docs:
        typer.echo(f"{quote_name(path)}  {plural(n, 'chunk')}")
    err(f"kb: {summary}; nothing was deleted (--dry-run)")


@sources_app.command("move", **command_kwargs("Point a source at its folder's new place."))
def move(
    name: NameArg,
    new_path: Annotated[
        Path, typer.Argument(help="Where the folder or file is now.", metavar="NEW_PATH")
    ],
    kb: KbOption = None,
) -> None:
    """Point the source NAME at NEW_PATH (its folder was renamed or moved), then re-scan.

    Documents keep their chunks and vectors where the content is unchanged; only
    changed files are re-indexed. The display name stays.

    \b
    Examples:
      kb sources move notes ~/Documents/notes
    """
    from ingest.pipeline import ingest_paths, remembered_chunker
    from kb.store.lock import write_lock
    from kb.store.sources import find_source, move_source

    settings = settings_for(kb)
    with write_lock(settings.home, "kb sources move"), open_kb(settings) as store:
        src = move_source(store, find_source(store, name), new_path)
        settings, _ = remembered_chunker(store, settings, None)
        report = ingest_paths(store, settings, [Path(src.path)])
        write_search_cache(store, settings)
    counts = report.to_dict()["counts"]
    summary = ", ".join(f"{n} {k}" for k, n in counts.items() if n)
    typer.echo(
        f"source {quote_name(src.name)} now at {quote_name(src.path)}: {summary or 'nothing to do'}"
    )
    raise typer.Exit(report.exit_code)


@docs_app.callback()
def docs(
    ctx: typer.Context,
    path: PathOption = None,
    doc_type: TypeOption = None,
    tag: TagOption = None,
    kb: KbOption = None,
    json_out: JsonOption = False,
) -> None:
    """List the KB's documents (path, type, language, status, chunks); filters as in `kb search`.

    \b
    Examples:
      kb docs --path notes/
      kb docs --type pdf --json
      kb docs remove notes/old.md
    """
    if ctx.invoked_subcommand is not None:
        return
    from kb.search.filters import document_matches
    from kb.search.options import SearchOptions

    opts = SearchOptions(
        paths=tuple(path or ()), types=tuple(doc_type or ()), tags=tuple(tag or ())
    )
    out: list[dict[str, Any]] = []
    with open_kb(settings_for(kb)) as store:
        rows = store.conn.execute(
            "SELECT d.path, d.abs_path, d.doc_type, d.status, d.error, d.tags, d.lang, "
            "(SELECT count(*) FROM live_chunks c WHERE c.document_id = d.id) AS n "
            "FROM documents d ORDER BY d.path"
        ).fetchall()
    import json

    for r in rows:
        tags = list(json.loads(r["tags"] or "[]"))
        if opts.scoped and not document_matches(opts, r["path"], r["doc_type"], tags):
            continue
        out.append(
            {
                "path": r["path"],
                "abs_path": r["abs_path"],
                "type": r["doc_type"],
                "status": r["status"],
                "error": r["error"],
                "chunks": int(r["n"]),
                "tags": tags,
                "lang": r["lang"],
            }
        )
    if json_out:
        print_json(out)
        return
    from kb.types import plural

    for d in out:
        # names and errors are untrusted: an ESC sequence in a file name must not reach
        # the terminal raw (kb ingest, status and search escape them the same way)
        extra = f"  failed: {quote_name(d['error'] or '')}" if d["status"] == "failed" else ""
        lang = d["lang"] or "?"  # ? : ingested before kb read languages
        typer.echo(
            f"{quote_name(d['path'])}  {d['type']}  {lang}  {plural(d['chunks'], 'chunk')}{extra}"
        )
    err(f"{plural(len(out), 'document')}")


@docs_app.command("remove", **command_kwargs("Remove one document from the KB."))
def remove_doc(
    path: Annotated[
        str,
        typer.Argument(
            help="The document's path as `kb docs` shows it, or its file path.", metavar="PATH"
        ),
    ],
    yes: YesOption = False,
    dry_run: DryRunOption = False,
    kb: KbOption = None,
) -> None:
    """Remove one document (its chunks and vectors) from the KB; the file is not touched.

    A file that still exists comes back at the next `kb ingest` of its source; to
    keep it out, give the source an exclude pattern (`kb sources add PATH --exclude`).
    It says how many chunks go and asks first on a terminal; elsewhere it needs --yes.

    \b
    Examples:
      kb docs remove notes/old.md
      kb docs remove notes/old.md --yes
    """
    from ingest.embedding import apply_tombstones
    from kb.errors import UsageError
    from kb.store.lock import write_lock
    from kb.store.sources import abs_key

    settings = settings_for(kb)
    with write_lock(settings.home, "kb docs remove"), open_kb(settings) as store:
        row = store.conn.execute(
            "SELECT id, path FROM documents WHERE path = ? OR abs_path = ?",
            (path, abs_key(path)),
        ).fetchone()
        if row is None:
            raise UsageError(f"{path}: no such document in the KB; see `kb docs`")
        docs = _documents_of(store, "d.id = ?", (int(row[0]),))
        what = f"the document {quote_name(str(row[1]))} with {_counts(docs).split(' and ')[1]}"
        if dry_run:
            _list_dry_run(docs, f"would remove {what}")
            return
        store.require_writable("kb docs remove")
        confirm(what, yes, "kb docs remove")
        store.delete_documents([int(row[0])])
        apply_tombstones(store)
    typer.echo(f"removed {quote_name(str(row[1]))}")
