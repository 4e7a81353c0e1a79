"""Run the click command behind ``kb`` and turn every way it can end into an exit code.

One line per problem, never a traceback (unless ``KB_DEBUG=1``):

- usage errors (unknown command or option, missing argument, bad value) print
  ``kb COMMAND: error: PROBLEM; FIX`` and exit 2. An unknown command gets a "did you mean"
  from the command list (:func:`difflib.get_close_matches`);
- :class:`kb.errors.KbError` prints ``kb: error: MESSAGE`` and exits with its code;
- Ctrl-C prints ``kb: interrupted`` and exits 130;
- a closed stdout (``kb search ... | head -1``) ends quietly with status 141
  (128 + SIGPIPE, what a shell reports for a command killed by a broken pipe):
  nothing is printed, and stdout is pointed at ``/dev/null`` so the interpreter's
  final flush cannot fail again.
"""

from __future__ import annotations

import difflib
import os
import re
import sys
from collections.abc import Sequence
from typing import Any

EXIT_USAGE = 2
EXIT_BROKEN_PIPE = 141


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _command_path(ctx: Any) -> str:
    return str(ctx.command_path) if ctx is not None else "kb"


def _click() -> Any:
    """The click that typer runs on: typer >= 0.20 vendors its own copy as
    ``typer._click``; older typer uses click itself."""
    try:
        from typer import _click as vendored  # type: ignore[attr-defined]

        return vendored
    except ImportError:  # pragma: no cover - older typer
        import click

        return click


def _path_words(msg: str) -> str:
    """typer's own path checks in kb's words: ``Value error, embedded null byte`` ->
    ``the name holds a NUL character; ...``; ``path 'X' is not readable`` -> ``X is
    unreadable (permission denied); ...``."""
    if "embedded null byte" in msg:
        return "the name holds a NUL character; name a real file"
    m = re.match(r"(?:path|file|directory) '(.*)' is not readable$", msg)
    if m:
        from kb.safe_open import show

        return f"{show(m.group(1))} is unreadable (permission denied); check its permissions"
    return msg


def usage_message(e: Any) -> str:
    """The one-line text for a click ``UsageError`` (problem, then the fix)."""
    click = _click().exceptions

    ctx = e.ctx
    path = _command_path(ctx)
    hint = f"see `{path} -h`"
    if isinstance(e, click.NoSuchOption):
        near = ", ".join(sorted(e.possibilities or ()))
        fix = f"did you mean {near}? ({hint})" if near else hint
        return f"{path}: error: unknown option {e.option_name}; {fix}"
    if isinstance(e, click.MissingParameter) and e.param is not None:
        from kb.cli.help import argument_label

        kind = "argument" if e.param.param_type_name == "argument" else "option"
        name = argument_label(e.param) if kind == "argument" else e.param.opts[-1]
        usage = ""
        if ctx is not None:
            usage = " ".join(ctx.command.collect_usage_pieces(ctx))
            usage = f"; usage: {path} {usage}"
        return f"{path}: error: missing {kind} {name}{usage} ({hint})"
    if isinstance(e, click.BadParameter):
        where = ""
        if e.param is not None:
            if e.param.param_type_name == "argument":
                from kb.cli.help import argument_label

                # typer's own arguments have no click ``human_readable_name``
                where = getattr(e.param, "human_readable_name", None) or argument_label(e.param)
            else:
                where = "/".join(e.param.opts)
        elif e.param_hint:
            where = str(e.param_hint)
        msg = _one_line(e.message).rstrip(".")
        msg = _path_words(msg)
        if "valid integer" in msg:
            msg = "not a whole number"
        elif "valid number" in msg:
            msg = "not a number"
        return f"{path}: error: invalid value for {where}: {msg} ({hint})"
    m = re.match(r"No such command '([^']+)'", _one_line(e.message))
    if m:
        name = m.group(1)
        commands: list[str] = []
        if ctx is not None and hasattr(ctx.command, "list_commands"):
            commands = list(ctx.command.list_commands(ctx))
        close = difflib.get_close_matches(name, commands, n=1, cutoff=0.6)
        fix = f"did you mean '{close[0]}'? " if close else ""
        return f"{path}: error: unknown command '{name}'; {fix}`{path} -h` lists the commands"
    if re.match(r"Got unexpected extra arguments?", e.message):
        msg = _one_line(e.message).rstrip(".").lower()
        return f"{path}: error: {msg}; quote text with spaces ({hint})"
    return f"{path}: error: {_one_line(e.message).rstrip('.')} ({hint})"


def _quiet_stdout() -> None:
    """Point stdout at /dev/null so the final flush of a closed pipe raises nothing."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # pragma: no cover - stdout without a descriptor
        pass


def run(command: Any, args: Sequence[str] | None = None) -> int:
    """Run ``command`` (a click command) and return the process exit status."""
    import typer

    from kb.errors import EXIT_INTERRUPTED, KbError

    click = _click().exceptions
    aborts: tuple[type[BaseException], ...] = (
        KeyboardInterrupt,
        typer.Abort,
        *_extra(click, "Abort"),
    )
    exits: tuple[type[BaseException], ...] = (typer.Exit, *_extra(click, "Exit"))
    debug = os.environ.get("KB_DEBUG") == "1"
    argv = list(sys.argv[1:] if args is None else args)
    try:
        # parse and invoke directly: click's and typer's main() turn a broken pipe into
        # exit 1 and print usage errors as several lines
        with command.make_context("kb", argv) as ctx:
            rc = command.invoke(ctx)
        sys.stdout.flush()
    except BrokenPipeError:
        _quiet_stdout()
        return EXIT_BROKEN_PIPE
    except KbError as e:
        if debug:
            raise
        _err(f"kb: error: {_one_line(str(e))}")
        return e.exit_code
    except aborts:
        _err("kb: interrupted")
        return EXIT_INTERRUPTED
    except exits as e:
        return int(getattr(e, "exit_code", 0))
    except click.UsageError as e:
        if debug:
            raise
        from kb.cli.failures import dash_hint

        _err(dash_hint(e, argv) or usage_message(e))
        return EXIT_USAGE
    except click.ClickException as e:
        _err(f"kb: error: {_one_line(e.format_message())}")
        return e.exit_code
    except OSError as e:
        if debug:
            raise
        known = _translate(e, argv)
        if known is not None:
            _err(f"kb: error: {_one_line(str(known))}")
            return known.exit_code
        if getattr(e, "errno", None) == 32:  # EPIPE surfaced through another layer
            _quiet_stdout()
            return EXIT_BROKEN_PIPE
        where = f"{e.filename}: " if getattr(e, "filename", None) else ""
        _err(f"kb: error: {where}{e.strerror or e}")
        return 1
    except Exception as e:  # noqa: BLE001 - last-resort guard
        if debug:
            raise
        known = _translate(e, argv)
        if known is not None:  # sqlite errors after opening, a full disk (kb.cli.failures)
            _err(f"kb: error: {_one_line(str(known))}")
            return known.exit_code
        # "internal error" stays the words (tests look for them): the cause is unknown,
        # so say so, name the command, and point to the traceback
        _err(
            f"kb: internal error: unexpected {type(e).__name__} during {_operation(argv)}: "
            f"{_one_line(str(e))} (re-run with KB_DEBUG=1 to see the traceback)"
        )
        return 1
    return rc if isinstance(rc, int) else 0


def _translate(e: BaseException, argv: list[str]) -> Any:
    from kb.cli.failures import translate

    return translate(e, _operation(argv))


def _operation(argv: list[str]) -> str:
    """``kb ingest``: the command that ran, never its arguments (a query, a path)."""
    words = [a for a in argv if not a.startswith("-")][:1]
    return " ".join(["kb", *words])


def _extra(module: Any, name: str) -> tuple[type[BaseException], ...]:
    cls = getattr(module, name, None)
    return (cls,) if isinstance(cls, type) else ()


def _err(line: str) -> None:
    try:
        sys.stderr.write(line + "\n")
        sys.stderr.flush()
    except (BrokenPipeError, ValueError):  # pragma: no cover - stderr closed too
        pass
