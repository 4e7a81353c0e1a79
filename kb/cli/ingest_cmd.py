"""``kb ingest PATH...``"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Annotated

import typer

from kb.cli.common import JsonOption, KbOption, err, print_json, settings_for, stderr_is_tty


def ingest(
    paths: Annotated[list[Path], typer.Argument(help="Files or folders to index.")],
    chunker: Annotated[
        str | None,
        typer.Option(
            "--chunker",
            help="Chunker spec: structure | window | an installed plug-in | path.py#function, "
            "optionally with :key=value,... (see `kb chunkers list`).",
        ),
    ] = None,
    include: Annotated[
        list[str] | None,
        typer.Option("--include", help="Only files matching this glob (repeatable)."),
    ] = None,
    exclude: Annotated[
        list[str] | None,
        typer.Option("--exclude", help="Skip files matching this glob (repeatable)."),
    ] = None,
    kb: KbOption = None,
    json_out: JsonOption = False,
) -> None:
    """Index Markdown, text, PDF and audio files into the KB.

    Folders are walked (hidden files skipped, symlinks out of the folder never
    followed). Unchanged files cost nothing; changed files are replaced; files
    that disappeared are removed; moved files keep their vectors.

    Exit codes: 0 every file succeeded; 1 at least one file failed (each failure
    is printed as one line and recorded; the rest is indexed); 2 bad usage.
    """
    from ingest.pipeline import ingest_paths
    from kb.store import Store

    settings = settings_for(
        kb,
        **{
            "ingest.chunker": chunker,
            "ingest.include": tuple(include) if include else None,
            "ingest.exclude": tuple(exclude) if exclude else None,
        },
    )
    from kb.cli.progress import PlainProgress, RichProgress

    progress: PlainProgress
    ctx: contextlib.AbstractContextManager[object]
    if stderr_is_tty() and not json_out:
        rich = RichProgress()
        progress, ctx = rich, rich
    else:
        progress, ctx = PlainProgress(), contextlib.nullcontext()
    with Store.open(settings.home) as store, ctx:
        report = ingest_paths(store, settings, paths, progress=progress)
    if json_out:
        print_json(report.to_dict())
    else:
        c = report.to_dict()["counts"]
        summary = ", ".join(f"{n} {k}" for k, n in c.items() if n)
        typer.echo(
            f"ingested into {settings.home}: {summary or 'nothing to do'}; "
            f"{report.chunks_embedded} chunks embedded in {report.seconds:.1f}s"
        )
        if report.failed:
            err(f"kb: {len(report.failed)} file(s) failed; see the lines above or `kb status`")
    raise typer.Exit(report.exit_code)
