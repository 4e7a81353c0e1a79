"""The ``kb`` command line: the composition root.

Each command group lives in its own module; heavy libraries are imported
inside command functions so ``kb --help`` stays fast.

Exit codes: 0 success; 1 an error (or, for ``kb ingest``, at least one file
failed; for ``kb eval``, a gate failed); 2 usage or configuration error; 3 model
error; 4 empty KB; 5 question too long for the context window; 130 interrupted.
"""

from __future__ import annotations

import os
import sys

import typer

from kb import __version__
from kb.cli import admin_cmd, chunkers_cmd, ingest_cmd

app = typer.Typer(
    rich_markup_mode=None,
    name="kb",
    help="Local, offline knowledge base: ingest notes, PDFs and audio; ask with citations; "
    "evaluate retrieval and answers against golden sets.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"kb {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Show the version and exit."
    ),
) -> None:
    """kb: your notes, papers and recordings, searchable and answerable offline."""


app.command("ingest")(ingest_cmd.ingest)
app.command("reindex")(admin_cmd.reindex)
app.command("status")(admin_cmd.status)
app.command("doctor")(admin_cmd.doctor)
app.add_typer(admin_cmd.config_app, name="config")
app.add_typer(chunkers_cmd.chunkers_app, name="chunkers")


def _register_optional() -> None:
    """Command groups built in other modules (search, ask, eval)."""
    try:
        from kb.cli import search_cmd

        app.command("search")(search_cmd.search)
    except ImportError:  # pragma: no cover - during development only
        pass
    try:
        from kb.cli import ask_cmd

        app.command("ask")(ask_cmd.ask)
    except ImportError:  # pragma: no cover
        pass
    try:
        from kb.cli import eval_cmd

        app.add_typer(eval_cmd.eval_app, name="eval")
    except ImportError:  # pragma: no cover
        pass


_register_optional()


def main() -> None:
    """Console entry point: one-line errors, tracebacks only with ``KB_DEBUG=1``."""
    from kb.errors import EXIT_INTERRUPTED, KbError

    debug = os.environ.get("KB_DEBUG") == "1"
    try:
        rc = app(standalone_mode=False)
    except KbError as e:
        if debug:
            raise
        sys.stderr.write(f"kb: error: {e}\n")
        sys.exit(e.exit_code)
    except KeyboardInterrupt:
        sys.stderr.write("kb: interrupted\n")
        sys.exit(EXIT_INTERRUPTED)
    except SystemExit:
        raise
    except Exception as e:  # noqa: BLE001 - last-resort guard
        import click

        if isinstance(e, click.exceptions.Exit):
            sys.exit(e.exit_code)
        if isinstance(e, click.ClickException):
            e.show()
            sys.exit(e.exit_code)
        if isinstance(e, click.exceptions.Abort):
            sys.stderr.write("kb: interrupted\n")
            sys.exit(EXIT_INTERRUPTED)
        if debug:
            raise
        sys.stderr.write(
            f"kb: internal error: {type(e).__name__}: {e} (set KB_DEBUG=1 for details)\n"
        )
        sys.exit(1)
    sys.exit(rc if isinstance(rc, int) else 0)
