"""``kb chunkers list`` and ``kb chunkers check SPEC FILE...``; ``use`` and ``rm`` live in
:mod:`kb.cli.chunkings_cmd`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from kb.cli import chunkings_cmd
from kb.cli.chunkings_cmd import SpecArg
from kb.cli.common import (
    JsonOption,
    KbOption,
    check_named_sources,
    err,
    print_json,
    settings_for,
)
from kb.cli.help import command_kwargs, show_help_without_command

chunkers_app = typer.Typer(invoke_without_command=True, no_args_is_help=False)


@chunkers_app.callback()
def _chunkers(ctx: typer.Context) -> None:
    """Chunkers and this KB's chunkings: list, check one on files, make one live, drop one.

    \b
    Examples:
      kb chunkers list
      kb chunkers check window:size=64 notes/
      kb chunkers use window
      kb chunkers rm window
    """
    show_help_without_command(ctx)


@chunkers_app.command(
    "list", **command_kwargs("Chunkers available, and the chunkings this KB stores.")
)
def list_chunkers(kb: KbOption = None, json_out: JsonOption = False) -> None:
    """Built-in chunkers and the plug-ins installed under the kb.chunkers entry point
    (read from package metadata; nothing is imported); then, for this KB, the
    chunkings stored side by side, which one is live (what kb search and kb ask use)
    and which are stale (documents changed since they were built).

    \b
    Examples:
      kb chunkers list
      kb chunkers list --json
    """
    from ingest.chunkers import CHUNKERS, installed_version
    from ingest.chunkers.plugin import installed

    rows: list[dict[str, str]] = [
        {"name": n, "source": "built-in", "version": installed_version(n) or "?", "target": ""}
        for n in sorted(CHUNKERS)
    ]
    rows += [
        {
            "name": p.name,
            "source": f"installed ({p.distribution})",
            "version": p.version,
            "target": p.target,
        }
        for p in installed()
    ]
    stored = chunkings_cmd.stored(kb)
    if json_out:
        print_json({"available": rows, "chunkings": [c.to_dict() for c in stored]})
        return
    width = max(len(r["name"]) for r in rows)
    for r in rows:
        tail = f"  {r['target']}" if r["target"] else ""
        typer.echo(f"{r['name']:<{width}}  {r['version']:<8}  {r['source']}{tail}")
    typer.echo("also: path/to/file.py#function (a local file, run as you)")
    if not stored:
        return
    typer.echo("chunkings in this KB:")
    state_width = max(15, *(len(c.state) for c in stored))
    for c in stored:
        docs = f"{c.current}/{c.total} documents" + (f", {c.failed} failed" if c.failed else "")
        typer.echo(f"  {c.state:<{state_width}} {c.spec}  ({c.chunks} chunks, {docs})")


@chunkers_app.command(
    "check", **command_kwargs("Chunk files with a spec and report coverage and lint.")
)
def check(
    spec: SpecArg,
    paths: Annotated[
        list[Path],
        typer.Argument(
            metavar="PATH...",
            help="Files or folders to chunk (nothing is stored).",
            show_default=False,
        ),
    ],
    timeout: Annotated[
        float | None,
        typer.Option(
            "--timeout",
            metavar="SECONDS",
            help="Seconds a plug-in may take per file. [default: 30]",
            show_default=False,
        ),
    ] = None,
    kb: KbOption = None,
    json_out: JsonOption = False,
) -> None:
    """Chunk PATHS (files; folders are walked) with SPEC and report, per file: chunk
    count, coverage, overlap, mean/p95 tokens and lint (chunks longer than the embedder
    reads, crossing a heading, under 32 tokens, with a broken code fence; text no chunk
    covers).
    Nothing is stored. Exit 1 when a file fails (the chunker raised, hung or returned
    bad spans; one line each), else 0.

    \b
    Examples:
      kb chunkers check structure notes/
      kb chunkers check my_chunker.py#chunk:size=300 notes/todo.md --json
    """
    from ingest.chunkers import make_chunker
    from ingest.chunkers.check import SHORT_TOKENS
    from ingest.chunkers.lint import LintReport, read_limit
    from ingest.loaders import SUPPORTED_EXTENSIONS, LoadContext, loader_for
    from ingest.walk import walk
    from kb.errors import IngestError, UsageError
    from kb.safe_open import show

    settings = settings_for(kb)
    check_named_sources(list(paths), settings.ingest.max_file_mb)
    if timeout is not None and timeout <= 0:
        raise UsageError(f"--timeout must be positive, got {timeout:g}")
    limit = read_limit(settings.embedding.model)
    chunker = make_chunker(spec, settings)
    if timeout is not None and hasattr(chunker, "process"):
        chunker.process.timeout = timeout

    def transcriber():  # type: ignore[no-untyped-def]
        from kb.backends.transcriber import make_transcriber

        return make_transcriber(settings.whisper, settings.home)

    ctx = LoadContext(settings, transcriber, settings.home / "cache")
    files: list[Path] = []
    for p in paths:
        if p.is_dir():
            files += [c.abs_path for c in walk(p, SUPPORTED_EXTENSIONS) if not c.problem]
        else:
            files.append(p)
    results: list[dict[str, Any]] = []
    lint = LintReport(limit)
    failed = 0
    try:
        for f in files:
            loader = loader_for(f)
            if loader is None or not f.is_file():
                why = "not a file" if not f.is_file() else "unsupported file type"
                err(f"kb: {show(f)}: {why}")
                failed += 1
                results.append({"path": str(f), "error": why})
                continue
            try:
                doc = loader.load(f, str(f), ctx)
                drafts = chunker.chunk(doc)
            except IngestError as e:
                err(f"kb: {e}")
                failed += 1
                results.append({"path": str(f), "error": e.reason})
                continue
            result = lint.add(doc, drafts, SHORT_TOKENS)
            results.append(result.to_dict())
            if not json_out:
                _print_check(result.to_dict(), drafts, limit)
    finally:
        close = getattr(chunker, "close", None)
        if close is not None:
            close()
    info = chunker.info
    if json_out:
        print_json(
            {
                "chunker": {"name": info.name, "version": info.version, "params": info.params},
                "read_limit": limit,
                "lint": lint.to_dict(),
                "files": results,
            }
        )
    else:
        found = ", ".join(f"{n} {k.replace('_', ' ')}" for k, n in lint.counts.items() if n)
        if lint.uncovered:
            found += (", " if found else "") + f"{lint.uncovered} uncovered characters"
        typer.echo(
            f"{info.name} {info.version} {json.dumps(info.params, sort_keys=True)}: "
            f"{lint.documents} of {len(files)} file(s) chunked into "
            f"{lint.chunks} chunks, coverage {lint.coverage:.1%}; lint: {found or 'clean'}"
        )
    raise typer.Exit(1 if failed else 0)


chunkers_app.command(
    "use", **command_kwargs("Make a chunking live, building it from the cache where it can.")
)(chunkings_cmd.use)
chunkers_app.command("rm", **command_kwargs("Drop a stored chunking (not the live one)."))(
    chunkings_cmd.rm
)

_LINT_TEXT = {
    "too_long": "over {limit} tokens (the embedder drops the rest)",
    "crosses_heading": "crossing a heading",
    "short": "under 32 tokens",
    "broken_fence": "with a broken code fence",
}


def _print_check(r: dict[str, Any], drafts: list[Any], limit: int) -> None:
    typer.echo(
        f"{r['path']}: {r['chunks']} chunks, coverage {r['coverage']:.1%}, "
        f"overlap {r['overlap']:.1%}, tokens mean {r['mean_tokens']:.0f} p95 {r['p95_tokens']}"
    )
    for key, idx in r["lint"].items():
        if not idx:
            continue
        where = ", ".join(_where(k, drafts[k]) for k in idx[:3])
        more = f" (+{len(idx) - 3} more)" if len(idx) > 3 else ""
        typer.echo(
            f"  lint: {len(idx)} chunk(s) {_LINT_TEXT[key].format(limit=limit)}: {where}{more}"
        )
    if r["uncovered_chars"]:
        line = r["first_uncovered_line"]
        at = f", first at line {line}" if line is not None else ""
        typer.echo(f"  lint: {r['uncovered_chars']} character(s) of text no chunk covers{at}")


def _where(k: int, d: Any) -> str:
    s = d.span
    if s.line_start is not None:
        return f"#{k} lines {s.line_start}–{s.line_end}"
    if s.page_start is not None:
        return f"#{k} p. {s.page_start}"
    return f"#{k} chars {d.char_start}–{d.char_end}"
