"""Options and helpers shared by every command group (defined once, reused).

Output conventions: results go to stdout (``--json`` gives machine-readable
output everywhere a command prints results); messages and errors go to stderr.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

if TYPE_CHECKING:
    from kb.config import Settings
    from kb.store import Store

KbOption = Annotated[
    Path | None,
    typer.Option(
        "--kb",
        help="KB folder (default: $KB_HOME, else the platform data directory).",
        show_default=False,
    ),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")]


def settings_for(kb: Path | None, **overrides: Any) -> Settings:
    """Load settings (all layers) then apply flag overrides given as dotted keys."""
    from kb.config import load_settings, override

    return override(load_settings(kb), **overrides)


def open_store(settings: Settings, create: bool = False) -> Store:
    from kb.store import Store

    return Store.open(settings.home, create=create)


def print_json(obj: Any) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False, indent=2, default=str) + "\n")


def print_jsonl(obj: Any) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False, default=str) + "\n")
    sys.stdout.flush()


def err(message: str) -> None:
    """One line on stderr."""
    sys.stderr.write(message.rstrip() + "\n")
    sys.stderr.flush()


def stderr_is_tty() -> bool:
    return sys.stderr.isatty()
