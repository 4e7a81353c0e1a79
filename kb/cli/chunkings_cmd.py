"""``kb chunkers use SPEC`` and ``kb chunkers rm SPEC``: the chunkings stored in a KB
(:mod:`kb.store.chunkings`), registered on the ``kb chunkers`` group by
:mod:`kb.cli.chunkers_cmd`."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from kb.cli.common import JsonOption, KbOption, err, print_json, settings_for

SpecArg = Annotated[
    str,
    typer.Argument(
        metavar="SPEC", help="Chunker spec: NAME or NAME:key=value,...", show_default=False
    ),
]


def warn_build_problems(rep: Any) -> None:
    """One stderr line per document a chunking build failed on or skipped."""
    for path, e in rep.failed:
        said = e if e.startswith("chunker ") else f"chunker {rep.spec}: {e}"  # plug-ins name it
        err(f"kb: {path}: {said}")
    for path, why in rep.skipped:
        err(f"kb: {path}: not chunked: {why}")


def stored(kb: Any) -> list[Any]:
    """The KB's chunkings, or none when there is no KB yet."""
    from ingest.chunkings import with_outdated
    from kb.store import Store

    settings = settings_for(kb)
    if not (settings.home / "kb.sqlite").exists():
        return []
    with Store.open(settings.home, create=False) as store:
        return with_outdated(store)


def use(
    spec: SpecArg,
    kb: KbOption = None,
    json_out: JsonOption = False,
) -> None:
    """Make the chunking of SPEC live: kb search, kb ask and later ingests use it. A
    chunking not stored yet is built (documents re-read, transcripts from the cache);
    a stale one re-chunks only the documents that changed; only texts no chunking
    embedded before are embedded. The chunking that was live stays stored. A chunker
    that fails on any document is not made live: the failures are listed, the live
    chunking stays, exit 1.

    \b
    Examples:
      kb chunkers use window:size=64
      kb chunkers use structure
    """
    from ingest.chunkings import build_chunking, needs_try, try_failed_message
    from ingest.pipeline import remembered_chunker
    from kb.backends.embedder import make_embedder
    from kb.cli.progress_steps import shown_steps
    from kb.store import Store, chunkings
    from kb.store.lock import write_lock

    settings = settings_for(kb)
    with (
        write_lock(settings.home, "kb chunkers use"),
        shown_steps(prefix="chunkers"),
        Store.open(settings.home, create=False) as store,
    ):
        store.require_writable("kb chunkers use")
        tried = needs_try(store, settings, spec)  # a failure must not reach search
        rep = build_chunking(
            store,
            settings,
            spec,
            lambda: make_embedder(settings.embedding, home=store.home, purpose="ingest"),
            keep_failed=not tried,
        )
        if tried and rep.failed:
            warn_build_problems(rep)
            if json_out:
                print_json({**rep.to_dict(), "state": "not made live"})
            err(f"kb: {try_failed_message(store, rep)}")
            raise typer.Exit(1)
        remembered_chunker(store, settings, spec)
        switched = chunkings.set_live(store, rep.chunking_id)
        from kb.cli.ingest_cmd import write_search_cache

        write_search_cache(store, settings)
    _report_build(rep, json_out, "now live" if switched else "already live")


def _report_build(rep: Any, json_out: bool, what: str) -> None:
    warn_build_problems(rep)
    if json_out:
        print_json({**rep.to_dict(), "state": what})
        return
    typer.echo(
        f"{rep.spec}: {what}; {rep.chunks} chunks ({rep.documents} documents chunked now), "
        f"{rep.embedded} texts embedded, {rep.cached} from the cache"
    )


def rm(
    spec: Annotated[
        str | None,
        typer.Argument(
            metavar="[SPEC]",
            help="Chunker spec: NAME or NAME:key=value,... (none with --outdated)",
            show_default=False,
        ),
    ] = None,
    outdated: Annotated[
        bool,
        typer.Option(
            "--outdated",
            help="Drop every stored chunking made by another version of its chunker than "
            "the one installed (after an upgrade of kb or of a plug-in): they cannot be "
            "updated or made live.",
        ),
    ] = False,
    kb: KbOption = None,
    json_out: JsonOption = False,
) -> None:
    """Drop the stored chunking of SPEC and its chunks. Their vectors stay in the
    embedding cache (building it again is free) until `kb doctor --repair`.

    \b
    Examples:
      kb chunkers rm window:size=64
      kb chunkers rm --outdated
    """
    from ingest.chunkings import find_chunking, with_outdated
    from kb.errors import UsageError
    from kb.store import Store, chunkings

    if (spec is None) == (not outdated):
        raise UsageError("give a SPEC or --outdated, one of the two; `kb chunkers list` shows them")
    from kb.store.lock import write_lock

    settings = settings_for(kb)
    with (
        write_lock(settings.home, "kb chunkers rm"),
        Store.open(settings.home, create=False) as store,
    ):
        store.require_writable("kb chunkers rm")
        if outdated:
            gone = [c for c in with_outdated(store) if c.outdated]
            dropped = [
                (f"{c.spec} (version {c.version})", chunkings.remove(store, c.id)) for c in gone
            ]
        else:
            assert spec is not None
            cid = find_chunking(store, settings, spec)
            if cid is None:
                raise UsageError(f"{spec}: no such chunking in this KB; see `kb chunkers list`")
            dropped = [(spec, chunkings.remove(store, cid))]
    if json_out and outdated:
        print_json({"dropped": [{"spec": s, "chunks_dropped": n} for s, n in dropped]})
    elif json_out:
        print_json({"spec": spec, "chunks_dropped": dropped[0][1]})
    elif not dropped:
        typer.echo("no outdated chunking in this KB")
    else:
        for s, n in dropped:
            typer.echo(f"dropped chunking {s} ({n} chunks); its vectors stay cached")
