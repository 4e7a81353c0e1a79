"""kb.cli.coercion: an option left out is None without typer's pydantic adapter; every
value given is still coerced and checked by typer."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Annotated

import typer
from typer.testing import CliRunner

from kb.cli.coercion import defer_adapters

runner = CliRunner()


def _app(seen: dict[str, object]) -> typer.Typer:
    app = typer.Typer()

    @app.command()
    def cmd(
        kb: Annotated[Path | None, typer.Option("--kb")] = None,
        k: Annotated[int, typer.Option("-k")] = 5,
        tag: Annotated[list[str] | None, typer.Option("--tag")] = None,
        name: Annotated[str | None, typer.Option("--name")] = None,
    ) -> None:
        seen.update(kb=kb, k=k, tag=tag, name=name)

    return app


def test_values_left_out_and_given() -> None:
    assert defer_adapters()  # installed by kb.cli already; a second call changes nothing
    seen: dict[str, object] = {}
    app = _app(seen)
    r = runner.invoke(app, [])
    assert r.exit_code == 0, r.output
    assert seen == {"kb": None, "k": 5, "tag": None, "name": None}
    r = runner.invoke(app, ["--kb", "x/y", "-k", "3", "--tag", "a", "--tag", "b"])
    assert r.exit_code == 0, r.output
    assert seen["kb"] == Path("x/y") and isinstance(seen["kb"], Path)
    assert seen["k"] == 3 and seen["tag"] == ["a", "b"]
    r = runner.invoke(app, ["-k", "abc"])
    assert r.exit_code == 2 and "-k" in r.output  # typer's own check of a given value


def test_a_command_without_values_imports_no_pydantic() -> None:
    code = (
        "import sys\n"
        "from kb.cli import main\n"
        "sys.argv = ['kb', 'config', 'path']\n"
        "try:\n"
        "    main()\n"
        "except SystemExit:\n"
        "    pass\n"
        "print('pydantic' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip().splitlines()[-1] == "False"
