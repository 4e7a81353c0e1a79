"""Options and helpers shared by the ``kb eval`` subcommands (defined once, reused).

Heavy libraries stay out of this module: rich, the store and the eval renderers are
imported inside the helpers, so ``kb eval --help`` loads none of them.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from kb.cli.common import (  # re-exported: the eval subcommands import them from here
    MinScoreOption,
    ModeOption,
    PathOption,
    TagOption,
    TypeOption,
    err,
    open_kb,
    output_path,
    print_json,
    search_opts,
)

__all__ = [
    "GoldenArg",
    "HtmlOption",
    "MdOption",
    "MinScoreOption",
    "ModeOption",
    "PathOption",
    "RunArg",
    "TagOption",
    "TypeOption",
    "console",
    "emit_run",
    "open_kb",
    "search_opts",
    "write_report",
]

if TYPE_CHECKING:
    pass

GoldenArg = Annotated[
    Path,
    typer.Argument(help="Golden set: .yaml/.yml or .jsonl (format v1).", metavar="GOLDEN"),
]
RunArg = Annotated[
    str,
    typer.Argument(help="Run id, or name (the latest run with that name).", metavar="RUN"),
]
MdOption = Annotated[
    Path | None,
    typer.Option(
        "--md",
        callback=output_path,
        metavar="FILE",
        help="Also write a Markdown report to FILE (written before anything is printed).",
        show_default=False,
    ),
]
HtmlOption = Annotated[
    Path | None,
    typer.Option(
        "--html",
        callback=output_path,
        metavar="FILE",
        help="Also write a single-file offline HTML report to FILE.",
        show_default=False,
    ),
]


def console(stderr: bool = False) -> Any:
    """A rich Console; not on a terminal: no colour and 120 columns for the tables
    (stable output), long lines not wrapped."""
    from kb.cli.common import make_console

    tty = (sys.stderr if stderr else sys.stdout).isatty()
    return make_console(stderr=stderr, soft_wrap=not tty, width=None if tty else 120)


def write_report(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` (UTF-8, :func:`kb.safe_open.write_text`: never a FIFO
    or a device) and say so on stderr; UsageError with one line if it cannot."""
    from kb.safe_open import show
    from kb.safe_open import write_text as safe_write

    safe_write(path, text)
    err(f"wrote {show(path)}")


def write_reports(
    data: Any,
    md: Path | None,
    html: Path | None,
    markdown: Callable[[Any], str],
    html_page: Callable[[Any], str],
) -> None:
    """The ``--md`` and ``--html`` files of ``data``; callers write them before stdout,
    so a closed stdout (``| head``) does not cost the reports."""
    if md is not None:
        write_report(md, markdown(data))
    if html is not None:
        write_report(html, html_page(data))


def emit_run(rep: dict[str, Any], json_out: bool, md: Path | None, html: Path | None) -> None:
    """Print a run report (JSON or terminal tables, failed gates on stderr); write --md/--html."""
    from eval.render_html import run_html
    from eval.render_markdown import run_markdown
    from eval.render_terminal import render_run

    write_reports(rep, md, html, run_markdown, run_html)
    if json_out:
        print_json(rep)
    else:
        render_run(rep, console())
        if rep.get("gates_failed"):
            for g in rep["gates_failed"]:
                err(f"gate failed: {g}")
