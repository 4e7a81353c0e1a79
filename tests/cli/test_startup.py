"""`kb --help` stays fast: no heavy library is imported (checked in a fresh subprocess)."""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = ["torch", "sentence_transformers", "lancedb", "llama_cpp", "faster_whisper"]


def test_help_imports_no_heavy_library() -> None:
    code = (
        "import sys, json\n"
        "from kb.cli import app\n"
        "try:\n"
        "    app(['--help'], standalone_mode=False)\n"
        "except SystemExit:\n"
        "    pass\n"
        f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    loaded = json.loads(out.strip().splitlines()[-1])
    assert loaded == []


def test_every_command_help_imports_no_heavy_library() -> None:
    code = (
        "import sys, json\n"
        "from kb.cli import app\n"
        "import typer.main\n"
        "cmd = typer.main.get_command(app)\n"
        "names = list(cmd.commands)\n"
        "for n in names:\n"
        "    try:\n"
        "        app([n, '--help'], standalone_mode=False)\n"
        "    except SystemExit:\n"
        "        pass\n"
        f"heavy = [m for m in {HEAVY!r} if m in sys.modules]\n"
        "print(json.dumps({'names': names, 'heavy': heavy}))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    data = json.loads(out.strip().splitlines()[-1])
    assert {"ingest", "status", "doctor", "reindex", "config"} <= set(data["names"])
    assert data["heavy"] == []
