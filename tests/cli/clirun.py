"""Run the real ``kb`` entry point in-process and capture what it prints.

:func:`kb.cli.usage.run` is what the console script runs, so exit codes and error
lines are the ones a user sees (typer's ``CliRunner`` takes another path).
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest


@dataclass
class Result:
    code: int
    out: str
    err: str


def kb(capsys: pytest.CaptureFixture[str], *args: str) -> Result:
    from typer.main import get_command

    from kb.cli import app
    from kb.cli.usage import run

    capsys.readouterr()
    code = run(get_command(app), list(args))
    captured = capsys.readouterr()
    return Result(code, captured.out, captured.err)
