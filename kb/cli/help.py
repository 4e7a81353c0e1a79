"""Help text in the usual Unix form: ``kb search [OPTIONS] QUERY``, arguments as words.

Typer renders a required argument as ``{QUERY}`` in the usage line and appends a
Python type (``<str>``, ``<list[Path]>``) to every argument in the help. Every kb
command is built with :class:`KbCommand` instead, which writes an argument as its
metavar (or its upper-cased name), ``NAME...`` when it takes several values, and
``[NAME]`` when it is optional. Options show their metavar (``-k N``), set on each
option where it is declared (:mod:`kb.cli.common`).
"""

from __future__ import annotations

from typing import Any

from typer.core import TyperCommand


def argument_label(param: Any) -> str:
    """``QUERY``, ``PATH...`` or ``[PATH]...`` for a click argument."""
    name = param.metavar or (param.name or "arg").upper()
    if not param.required:
        name = f"[{name}]"
    if param.nargs != 1:
        name += "..."
    return name


class KbCommand(TyperCommand):
    """A Typer command whose usage line and argument list read as plain words."""

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        pieces = [self.options_metavar] if self.options_metavar else []
        for param in self.get_params(ctx):
            if param.param_type_name == "argument":
                pieces.append(argument_label(param))
        return pieces

    def format_options(self, ctx: Any, formatter: Any) -> None:
        args: list[tuple[str, str]] = []
        opts: list[tuple[str, str]] = []
        for param in self.get_params(ctx):
            if param.param_type_name == "argument":
                if not getattr(param, "hidden", False):
                    args.append((argument_label(param), str(getattr(param, "help", "") or "")))
                continue
            record = param.get_help_record(ctx)
            if record is not None:
                opts.append(record)
        if args:
            with formatter.section("Arguments"):
                formatter.write_dl(args)
        if opts:
            with formatter.section("Options"):
                formatter.write_dl(opts)


def command_kwargs(short_help: str) -> dict[str, Any]:
    """Keyword arguments for ``app.command(...)``: the plain-help class and a short help
    line that the command list prints whole (never cut with an ellipsis)."""
    return {"cls": KbCommand, "short_help": short_help}


def show_help_without_command(ctx: Any) -> None:
    """A group called without a command prints its help and exits 0 (as git does)."""
    import typer

    if ctx.invoked_subcommand is None and not ctx.resilient_parsing:
        typer.echo(ctx.get_help())
        raise typer.Exit(0)
