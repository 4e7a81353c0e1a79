"""Every CLI command and option that takes a path, given every hostile path (issue 54).

The slots are found by walking the typer app: a parameter takes a path when its type is
a :class:`~pathlib.Path` or its metavar is ``FILE`` or ``SPEC`` (a chunker spec may be
``file.py#function``). :data:`SLOTS` says how to call each one; a new path option that
is not in it fails :func:`test_every_path_option_is_fuzzed` until it is added.

Each slot gets each case of :mod:`tests.hostile` through the real entry point
(:func:`kb.cli.usage.run`), under an alarm (a blocking open fails the test instead of
hanging it). It must end with one line on stderr and a non-zero exit code (2: the user
named the wrong thing; 3 for a model file; 4 for a ``--kb`` that holds no KB), and
leave the KB exactly as it was (its files and every table's rows). Cases a slot accepts
(a folder for ``--kb``, an empty file to overwrite for ``--md``) are skipped with that
reason. The KB is real: the notes are ingested with the bundled embedder once per module,
and one keyword-mode eval run is stored.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.cli.clirun import kb
from tests.hostile import CASES, Hostile, make, shown
from tests.test_fuzz import alarm

pytestmark = pytest.mark.slow

Cap = pytest.CaptureFixture[str]
P = "{p}"

#: a valid call of each command that has a path slot; {notes}, {a}, {golden} are the
#: module's notes folder, its one note and a golden set
BASE: dict[str, list[str]] = {
    "ask": ["ask", "Which birds hover over fields?"],
    "chunkers check": ["chunkers", "check", "structure", "{a}"],
    "chunkers list": ["chunkers", "list"],
    "chunkers rm": ["chunkers", "rm", "window"],
    "chunkers use": ["chunkers", "use", "structure"],
    "chunks show": ["chunks", "show", "notes/a.md"],
    "config show": ["config", "show"],
    "docs remove": ["docs", "remove", "notes/a.md", "--yes"],
    "doctor": ["doctor", "--no-devices"],
    "eval check": ["eval", "check", "{golden}"],
    "eval compare": ["eval", "compare", "r1", "r1"],
    "eval export": ["eval", "export", "r1"],
    "eval list": ["eval", "list"],
    "eval record": ["eval", "record", "{golden}"],
    "eval rules": ["eval", "rules", "{golden}"],
    "eval run": ["eval", "run", "{golden}", "--no-answer", "--mode", "keyword"],
    "eval show": ["eval", "show", "r1"],
    "eval sweep": [
        "eval",
        "sweep",
        "{golden}",
        "--chunker",
        "structure",
        "--chunker",
        "window",
        "--mode",
        "keyword",
    ],
    "eval tune": ["eval", "tune", "{golden}"],
    "ingest": ["ingest", "{notes}"],
    "mcp": ["mcp"],
    "reindex": ["reindex"],
    "search": ["search", "kestrels", "--mode", "keyword"],
    "serve": ["serve"],
    "sources add": ["sources", "add", "{notes}"],
    "sources move": ["sources", "move", "notes", "{notes}"],
    "sources remove": ["sources", "remove", "notes", "--yes"],
    "status": ["status"],
}

#: what kind of path a slot takes: the file name's suffix in the cases, and the cases
#: it accepts (skipped, with the reason)
KINDS: dict[str, tuple[str, dict[str, str]]] = {
    "golden": (".yaml", {}),
    "model": (".gguf", {}),
    "plugin": (".py", {}),
    "document": (".md", {}),
    "source": (
        ".md",
        {"directory": "a folder is a source", "empty": "an empty note is a source (skipped)"},
    ),
    "kb": ("", {"directory": "a folder is what --kb names"}),
    "folder": ("", {"directory": "a folder is where a folder source may move"}),
    "output": (
        ".md",
        {
            "empty": "an existing regular file is overwritten, as asked",
            "over the limit": "an existing regular file is overwritten, as asked",
        },
    ),
}


def _pos(command: str, index: int, template: str = P) -> list[str]:
    argv = list(BASE[command])
    argv[index] = template
    return argv


#: (command, parameter name) -> (kind, argv with {p} where the hostile path goes);
#: every --kb and --kb-b, --md, --html and --out is added by :func:`_slots`
EXPLICIT: dict[tuple[str, str], tuple[str, list[str]]] = {
    ("ask", "model"): ("model", [*BASE["ask"], "--model", P]),
    ("eval run", "model"): ("model", [*BASE["eval run"][:3], "--model", P]),
    ("eval run", "judge"): ("model", [*BASE["eval run"][:3], "--mode", "keyword", "--judge", P]),
    ("eval run", "chunker"): ("plugin", [*BASE["eval run"], "--chunker", f"{P}#chunk"]),
    ("eval sweep", "chunker"): (
        "plugin",
        [*BASE["eval sweep"][:3], "--chunker", "structure", "--chunker", f"{P}#chunk"],
    ),
    ("ingest", "chunker"): ("plugin", [*BASE["ingest"], "--chunker", f"{P}#chunk"]),
    ("chunks show", "chunker"): ("plugin", [*BASE["chunks show"], "--chunker", f"{P}#chunk"]),
    ("chunks show", "vs"): ("plugin", [*BASE["chunks show"], "--vs", f"{P}#chunk"]),
    ("chunks show", "golden"): ("golden", [*BASE["chunks show"], "--golden", P]),
    ("chunks show", "file"): ("document", _pos("chunks show", 2)),
    ("chunkers check", "spec"): ("plugin", _pos("chunkers check", 2, f"{P}#chunk")),
    ("chunkers check", "paths"): ("source", _pos("chunkers check", 3)),
    ("chunkers use", "spec"): ("plugin", _pos("chunkers use", 2, f"{P}#chunk")),
    ("chunkers rm", "spec"): ("plugin", _pos("chunkers rm", 2, f"{P}#chunk")),
    ("eval check", "golden"): ("golden", _pos("eval check", 2)),
    ("eval record", "golden"): ("golden", _pos("eval record", 2)),
    ("eval rules", "golden"): ("golden", _pos("eval rules", 2)),
    ("eval run", "golden"): ("golden", _pos("eval run", 2)),
    ("eval sweep", "golden"): ("golden", _pos("eval sweep", 2)),
    ("eval tune", "golden"): ("golden", _pos("eval tune", 2)),
    ("ingest", "paths"): ("source", _pos("ingest", 1)),
    ("sources add", "path"): ("source", _pos("sources add", 2)),
    ("sources move", "new_path"): ("folder", _pos("sources move", 3)),
}

OUTPUT_OPTS = {"md": "--md", "html": "--html", "out": "--out"}


def _command_params() -> dict[str, list[Any]]:
    """``'eval run' -> [params]`` for every command of the real app."""
    from typer.main import get_command

    from kb.cli import app

    found: dict[str, list[Any]] = {}

    def walk(cmd: Any, prefix: list[str]) -> None:
        if hasattr(cmd, "commands"):
            for name, sub in cmd.commands.items():
                walk(sub, [*prefix, name])
        else:
            found[" ".join(prefix)] = list(cmd.params)

    walk(get_command(app), [])
    return found


def takes_a_path(param: Any) -> bool:
    """A Path-typed parameter, or one whose metavar is FILE or SPEC."""
    annotation = str(param.type_descriptor.annotation)
    metavar = (param.metavar or "").strip("[].")
    return "Path" in annotation or metavar in ("FILE", "SPEC")


def path_params() -> set[tuple[str, str]]:
    return {
        (command, p.name)
        for command, params in _command_params().items()
        for p in params
        if takes_a_path(p)
    }


def _slots() -> dict[tuple[str, str], tuple[str, list[str]]]:
    slots = dict(EXPLICIT)
    for command, name in path_params():
        if name in ("kb", "kb_b") and command in BASE:
            slots[(command, name)] = ("kb", [*BASE[command], f"--{name.replace('_', '-')}", P])
        elif name in OUTPUT_OPTS and command in BASE and (command, name) not in slots:
            opt = OUTPUT_OPTS[name]
            if command == "chunks show":
                slots[(command, name)] = ("output", [*BASE[command], "--vs", "window", opt, P])
            else:
                slots[(command, name)] = ("output", [*BASE[command], opt, P])
    return slots


SLOTS = _slots()


def test_every_path_option_is_fuzzed() -> None:
    """A new option or argument that takes a path fails here until SLOTS covers it."""
    missing = sorted(path_params() - set(SLOTS))
    assert not missing, f"path parameters with no fuzz slot: {missing}; add them to SLOTS"
    assert len(SLOTS) >= 50  # every --kb, the golden sets, plug-ins, models, outputs


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A real KB (one ingested note, one stored eval run) and its files."""
    import subprocess
    import sys

    root = tmp_path_factory.mktemp("pathfuzz")
    notes = root / "notes"
    notes.mkdir()
    (notes / "a.md").write_text("# Birds\n\nKestrels hover over fields.\n", encoding="utf-8")
    golden = root / "g.yaml"
    golden.write_text(
        "schema_version: 1\nqueries:\n  - id: q1\n    question: Which birds hover over "
        "fields?\n    supports:\n      - path: a.md\n  - id: q2\n    question: Who wrote "
        "the sagas?\n    answerable: false\n",
        encoding="utf-8",
    )
    home = root / "kb"
    empty = root / "empty.toml"
    empty.write_text("", encoding="utf-8")
    env = {**os.environ, "KB_HOME": str(home), "KB_CONFIG": str(empty), "HF_HUB_OFFLINE": "1"}
    for argv in (
        ["ingest", str(notes), "-q"],
        ["eval", "run", str(golden), "--no-answer", "--mode", "keyword", "--name", "r1", "-q"],
    ):
        r = subprocess.run(
            [sys.executable, "-m", "kb", *argv],
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert r.returncode == 0, r.stderr
    return {"root": root, "home": home, "notes": notes, "a": notes / "a.md", "golden": golden}


def snapshot(home: Path) -> dict[str, Any]:
    """The KB as data: every file's size and content hash (the database and its
    journal aside: they change on a read that checkpoints), and every table's rows."""
    files: dict[str, Any] = {}
    for p in sorted(home.rglob("*")):
        rel = str(p.relative_to(home))
        if p.is_file() and not rel.startswith(("kb.sqlite", "kb.lock", "logs")):
            files[rel] = hashlib.sha256(p.read_bytes()).hexdigest()
    conn = sqlite3.connect(f"file:{home / 'kb.sqlite'}?mode=ro", uri=True)
    try:
        tables = [
            r[0]
            for r in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '%fts%'"
            )
        ]
        rows = {
            t: hashlib.sha256(
                repr(sorted(map(repr, conn.execute(f'SELECT * FROM "{t}"')))).encode()
            ).hexdigest()
            for t in sorted(tables)
        }
    finally:
        conn.close()
    return {"files": files, "rows": rows}


EXIT = {"model": {2, 3}}

#: what the refusal names where the kind of slot decides it, not the case alone
WHAT: dict[tuple[str, str], str] = {
    ("kb", "empty"): "a regular file, not a folder",
    ("kb", "over the limit"): "a regular file, not a folder",
    ("folder", "empty"): "is a folder; give a folder",
    ("folder", "over the limit"): "is a folder; give a folder",
    ("model", "empty"): "not a gguf model file",
    ("model", "over the limit"): "not a gguf model file",
}


def _fill(argv: list[str], world: dict[str, Path], path: str) -> list[str]:
    names = {k: str(v) for k, v in world.items()}
    out = []
    for a in argv:
        if P in a:
            out.append(a.replace(P, path))
        else:
            out.append(a.format(**names) if "{" in a else a)
    return out


def check_refusal(
    run: Callable[[], Any], h: Hostile, kind: str, world: dict[str, Path], label: str
) -> None:
    before = snapshot(world["home"])
    with alarm(60):
        r = run()
    lines = r.err.splitlines()
    assert r.code != 0, f"{label} accepted {h.case}: {r.err or r.out}"
    assert len(lines) == 1, f"{label}, {h.case}: {len(lines)} lines on stderr: {r.err!r}"
    line = lines[0]
    assert line.startswith("kb"), line
    assert "internal error" not in line and "Traceback" not in line, line
    assert r.code in EXIT.get(kind, {2}), f"{label}, {h.case}: exit {r.code}: {line}"
    what = WHAT.get((kind, h.case), h.what)
    if kind == "document":  # looked up in the KB by name, never opened
        what = "no such indexed document in the kb"
    if kind == "plugin" and h.case == "unreadable" and not h.path.endswith(".py"):
        what = "a file chunker is path/to/file.py#function"  # root's stand-in has no .py
    if what:
        assert what in line.lower(), f"{label}, {h.case}: {line!r} lacks {what!r}"
    if h.case != "NUL in the name":
        assert shown(h.path) in line or shown(os.path.basename(h.path)) in line, line
    assert snapshot(world["home"]) == before, f"{label}, {h.case} changed the KB"


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("slot", sorted(SLOTS), ids=lambda s: f"{s[0]}:{s[1]}")
def test_a_hostile_path_in_any_slot_is_one_line_and_writes_nothing(
    capsys: Cap,
    monkeypatch: pytest.MonkeyPatch,
    world: dict[str, Path],
    tmp_path: Path,
    slot: tuple[str, str],
    case: str,
) -> None:
    kind, argv = SLOTS[slot]
    suffix, accepted = KINDS[kind]
    if case in accepted:
        pytest.skip(accepted[case])
    h = make(case, tmp_path / "hostile", suffix, writing=kind == "output")
    monkeypatch.setenv("KB_HOME", str(world["home"]))
    full = _fill(argv, world, h.path)
    check_refusal(lambda: kb(capsys, *full), h, kind, world, " ".join(slot))


@pytest.mark.parametrize("case", [c for c in CASES if c not in ("empty", "NUL in the name")])
def test_a_hostile_kb_config_is_one_line_and_writes_nothing(
    capsys: Cap,
    monkeypatch: pytest.MonkeyPatch,
    world: dict[str, Path],
    tmp_path: Path,
    case: str,
) -> None:
    """``KB_CONFIG`` (an empty file is a valid, empty configuration; no environment
    variable can hold a NUL)."""
    h = make(case, tmp_path / "hostile", ".toml")
    monkeypatch.setenv("KB_HOME", str(world["home"]))
    monkeypatch.setenv("KB_CONFIG", h.path)
    check_refusal(lambda: kb(capsys, "status"), h, "config", world, "KB_CONFIG")
