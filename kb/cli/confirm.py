"""Confirmation for commands that delete what kb stored (``kb sources remove``,
``kb docs remove``, ``kb chunkers rm``, ``kb cache remove``).

Each such command first says in one line what it will delete (how many documents,
chunks, files) and then:

- ``--dry-run``: lists what would go and stops; nothing is written (exit 0);
- ``--yes``: goes ahead without asking;
- on a terminal: asks ``Delete? [y/N]`` on stderr; anything but ``y``/``yes`` stops
  with "nothing was deleted" (exit 1);
- without a terminal (a script, a pipe, cron) and without ``--yes``: refuses with one
  line saying to add ``--yes`` (exit 2), so a script never deletes by accident and
  never hangs on a question nobody sees.
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from kb.errors import UsageError

YesOption = Annotated[
    bool,
    typer.Option("--yes", "-y", help="Delete without asking (needed when stdin is no terminal)."),
]
DryRunOption = Annotated[
    bool,
    typer.Option("--dry-run", help="List what would be deleted; delete nothing."),
]


def confirm(what: str, yes: bool, command: str) -> None:
    """Ask before deleting ``what`` (``"the source notes (~/notes): 7 documents, 34
    chunks"``). Returns when the user agreed (or ``yes``); otherwise stops the
    command: exit 1 when the user said no, exit 2 without a terminal."""
    if yes:
        return
    if not sys.stdin.isatty():
        raise UsageError(
            f"{command} would delete {what}; stdin is not a terminal, so nothing was asked "
            "and nothing deleted: add --yes to delete, or --dry-run to list what would go"
        )
    sys.stderr.write(f"{command} will delete {what}. Delete? [y/N] ")
    sys.stderr.flush()
    try:
        answer = sys.stdin.readline().strip().lower()
    except KeyboardInterrupt:
        answer = ""
        sys.stderr.write("\n")
    if answer not in ("y", "yes"):
        sys.stderr.write("kb: nothing was deleted\n")
        sys.stderr.flush()
        raise typer.Exit(1)
