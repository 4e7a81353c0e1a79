"""The ``kb`` command line: the composition root.

Each command group lives in its own module; heavy libraries are imported
inside command functions so ``kb --help`` stays fast.

Exit codes: 0 success; 1 an error (or, for ``kb ingest``, at least one file
failed; for ``kb eval``, a gate failed); 2 usage or configuration error; 3 model
error; 4 empty KB; 5 question too long for the context window; 130 interrupted;
141 stdout was closed early (a broken pipe, e.g. ``kb search ... | head -1``): the
command stops quietly, as a shell reports a command ended by SIGPIPE.
"""

from __future__ import annotations

import sys

import typer

from kb import __version__
from kb.cli import admin_cmd, cache_cmd, chunkers_cmd, ingest_cmd
from kb.cli.coercion import defer_adapters
from kb.cli.help import command_kwargs, show_help_without_command

defer_adapters()  # an option left out costs no pydantic (kb.cli.coercion)

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}

app = typer.Typer(
    rich_markup_mode=None,
    name="kb",
    invoke_without_command=True,
    no_args_is_help=False,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings=CONTEXT,
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"kb {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    ctx: typer.Context,
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Show the version and exit."
    ),
) -> None:
    """Local, offline knowledge base: ingest notes, PDFs and audio; search; ask with
    citations; evaluate retrieval and answers against golden sets.

    \b
    Examples:
      kb ingest ~/notes ~/papers
      kb search "sourdough starter" --path notes/
      kb ask "When does the Heron pilot start?"
      kb eval run golden.yaml --no-answer

    Exit codes: 0 success; 1 an error (a failed file, a failed gate); 2 usage or
    configuration error; 3 model error; 4 empty KB; 5 question too long; 130
    interrupted; 141 output pipe closed (e.g. `| head`).
    """
    show_help_without_command(ctx)


app.command("ingest", **command_kwargs("Index files and folders; re-scan the known sources."))(
    ingest_cmd.ingest
)
app.command("reindex", **command_kwargs("Rebuild every vector with the configured model."))(
    admin_cmd.reindex
)
app.command("status", **command_kwargs("Documents, chunks, sources, chunker and models."))(
    admin_cmd.status
)
app.command("doctor", **command_kwargs("Check (and --repair) the KB's consistency."))(
    admin_cmd.doctor
)
app.add_typer(admin_cmd.config_app, name="config", short_help="Show the effective configuration.")
app.add_typer(
    chunkers_cmd.chunkers_app, name="chunkers", short_help="List and check chunkers (plug-ins too)."
)
app.add_typer(
    cache_cmd.cache_app, name="cache", short_help="Model files every KB shares: list, remove."
)


def _register_optional() -> None:
    """Command groups built in other modules (search, ask, eval)."""
    from kb.cli import ask_cmd, eval_cmd, search_cmd

    app.command("search", **command_kwargs("Ranked passages with file, heading and place."))(
        search_cmd.search
    )
    from kb.cli import sources_cmd

    app.add_typer(
        sources_cmd.sources_app,
        name="sources",
        short_help="List, add, remove or move the KB's sources.",
    )
    app.add_typer(sources_cmd.docs_app, name="docs", short_help="List or remove documents.")
    from kb.cli import chunks_cmd

    app.add_typer(
        chunks_cmd.chunks_app, name="chunks", short_help="See one document's chunks, A beside B."
    )
    app.command("ask", **command_kwargs("A cited answer from the local model, streamed."))(
        ask_cmd.ask
    )
    app.add_typer(
        eval_cmd.eval_app,
        name="eval",
        short_help="Score retrieval and answers against golden sets; compare runs.",
    )
    from kb.cli import serve_cmd

    app.command("serve", **command_kwargs("A local web app and JSON API over the KB."))(
        serve_cmd.serve
    )
    app.command("mcp", **command_kwargs("A Model Context Protocol server over stdio."))(
        serve_cmd.mcp
    )


_register_optional()


def main() -> None:
    """Console entry point: one-line errors, tracebacks only with ``KB_DEBUG=1``
    (see :mod:`kb.cli.usage`)."""
    from typer.main import get_command

    from kb.cli.usage import run

    sys.exit(run(get_command(app)))
