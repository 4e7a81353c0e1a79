"""Hostile paths given to kb commands: one line, the right exit code, no hang, nothing
written (issue 54). The real entry point (:func:`kb.cli.usage.run`), each case under an
alarm so a blocking open fails the test instead of hanging it; one case goes through a
real ``python -m kb`` process with a timeout.

KBs are written with the real store (keyword mode, no model loads).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from kb.store import Store
from kb.store.sources import add_source
from tests.cli.clirun import kb
from tests.kb.test_store_health import add_doc
from tests.test_fuzz import alarm

Cap = pytest.CaptureFixture[str]
SOURCE_HINT = "a source is a folder or a regular file"


@pytest.fixture
def hostile(tmp_path: Path) -> Iterator[dict[str, Path]]:
    d = tmp_path / "hostile"
    d.mkdir()
    paths = {
        "fifo": d / "g.yaml",
        "socket": d / "s.md",
        "link to /dev/zero": d / "zero.md",
        "dev null": Path("/dev/null"),
        "loop": d / "loop.md",
    }
    os.mkfifo(paths["fifo"])
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(paths["socket"]))
    paths["link to /dev/zero"].symlink_to("/dev/zero")
    (d / "loop2.md").symlink_to(paths["loop"])
    paths["loop"].symlink_to(d / "loop2.md")
    try:
        yield paths
    finally:
        sock.close()


def written(home: Path) -> list[str]:
    return sorted(p.name for p in home.iterdir()) if home.exists() else []


@pytest.mark.parametrize("command", [["eval", "check"], ["eval", "run", "--no-answer"]])
def test_a_golden_set_that_is_a_fifo_is_one_line_not_a_hang(
    capsys: Cap, kb_home: Path, hostile: dict[str, Path], command: list[str]
) -> None:
    fifo = hostile["fifo"]
    with alarm(30):
        r = kb(capsys, *command[:2], str(fifo), *command[2:])
    assert r.code == 2
    assert r.err.splitlines() == [
        f"kb: error: golden set {fifo} is a FIFO, not a regular file; "
        "name a .yaml, .yml or .jsonl file"
    ]
    assert written(kb_home) == []


def test_kb_config_on_a_fifo_says_it_is_a_fifo(
    capsys: Cap, kb_home: Path, hostile: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    fifo = hostile["fifo"]
    monkeypatch.setenv("KB_CONFIG", str(fifo))
    with alarm(30):
        r = kb(capsys, "status")
    assert r.code == 2
    assert r.err.splitlines() == [
        f"kb: error: KB_CONFIG={fifo}: the file is a FIFO, not a regular file; name a TOML "
        "file or unset KB_CONFIG"
    ]
    assert written(kb_home) == []


def test_kb_config_on_a_link_to_dev_zero_and_non_utf8(
    capsys: Cap, kb_home: Path, hostile: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    zero = hostile["link to /dev/zero"]
    monkeypatch.setenv("KB_CONFIG", str(zero))
    with alarm(30):
        r = kb(capsys, "status")
    assert r.code == 2 and len(r.err.splitlines()) == 1
    assert "is a symlink to /dev/zero (a character device), not a regular file" in r.err
    latin1 = zero.parent / "latin1.toml"
    latin1.write_bytes(b"[search]\nmode = 'caf\xe9'\n")
    monkeypatch.setenv("KB_CONFIG", str(latin1))
    r = kb(capsys, "status")
    assert r.code == 2
    assert r.err.splitlines() == [
        f"kb: error: configuration file {latin1} is not UTF-8 text (byte 0xe9 at offset 20); "
        "save it as UTF-8"
    ]
    assert "internal error" not in r.err
    assert written(kb_home) == []


@pytest.mark.parametrize(
    ("case", "what"),
    [
        ("link to /dev/zero", "a symlink to /dev/zero (a character device), not a regular file"),
        ("fifo", "a FIFO, not a regular file"),
        ("socket", "a socket, not a regular file"),
        ("dev null", "a character device, not a regular file"),
        ("loop", "a symlink loop"),
    ],
)
@pytest.mark.parametrize("command", [["ingest"], ["sources", "add"]])
def test_a_source_is_never_a_device_fifo_or_socket(
    capsys: Cap,
    kb_home: Path,
    hostile: dict[str, Path],
    case: str,
    what: str,
    command: list[str],
) -> None:
    path = hostile[case]
    with alarm(30):
        r = kb(capsys, *command, str(path))
    assert r.code == 2
    assert r.err.splitlines() == [f"kb: error: {path} is {what}; {SOURCE_HINT}"]
    assert written(kb_home) == []  # not even the KB folder


def test_ingest_of_a_link_to_dev_zero_registers_nothing_in_an_existing_kb(
    kb_home: Path, hostile: dict[str, Path]
) -> None:
    """The issue's case, twice, through a real process: exit 2 both times (the second
    was "cannot open the KB database (UNIQUE constraint failed)"), no source added."""
    zero = hostile["link to /dev/zero"]
    notes = zero.parent.parent / "notes"
    notes.mkdir()
    with Store.open(kb_home) as store:
        add_source(store, notes)
        add_doc(store, "a.md", "Kestrels hover over fields.")
    before = (kb_home / "kb.sqlite").stat().st_mtime_ns
    env = {**os.environ, "KB_HOME": str(kb_home), "HF_HUB_OFFLINE": "1"}
    for _ in range(2):
        r = subprocess.run(
            [sys.executable, "-m", "kb", "ingest", str(zero)],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            cwd=zero.parent,
        )
        assert r.returncode == 2, r.stderr
        assert r.stderr.splitlines() == [
            f"kb: error: {zero} is a symlink to /dev/zero (a character device), not a "
            f"regular file; {SOURCE_HINT}"
        ]
    assert (kb_home / "kb.sqlite").stat().st_mtime_ns == before
    with Store.open(kb_home, create=False) as store:
        assert [r[0] for r in store.conn.execute("SELECT path FROM sources")] == [str(notes)]


def test_doctor_reports_a_device_source_and_repair_removes_it(
    capsys: Cap, kb_home: Path, tmp_path: Path
) -> None:
    """A KB an older kb let register /dev/zero: doctor names it, --repair removes it, and
    status and sources agree on the count before and after."""
    (tmp_path / "notes").mkdir()
    with Store.open(kb_home) as store:
        add_source(store, tmp_path / "notes")
        add_doc(store, "a.md", "Kestrels hover over fields.")
        with store.tx() as c:
            c.execute(
                "INSERT INTO sources (name, path, kind, created_at) "
                "VALUES ('zero', '/dev/zero', 'file', 0)"
            )

    def counts() -> tuple[int, int]:
        st = json.loads(kb(capsys, "status", "--json").out)
        src = json.loads(kb(capsys, "sources", "--json").out)
        return len(st["sources"]), len(src if isinstance(src, list) else src["sources"])

    assert counts() == (2, 2)
    r = kb(capsys, "doctor", "--no-devices")
    assert r.code == 1
    assert (
        "  FAIL  source zero: /dev/zero is a character device, not a regular file; "
        "`kb doctor --repair` removes the source"
    ) in r.out.splitlines()
    report = json.loads(kb(capsys, "doctor", "--no-devices", "--json").out)
    assert report["bad_sources"] == [
        {"name": "zero", "path": "/dev/zero", "what": "a character device, not a regular file"}
    ]
    fixed = kb(capsys, "doctor", "--repair", "--no-devices")
    assert fixed.code == 0, fixed.err
    assert (
        "repaired: removed the source zero (/dev/zero: a character device, not a regular "
        "file) with 0 documents"
    ) in fixed.out.splitlines()
    assert counts() == (1, 1)
    assert kb(capsys, "doctor", "--no-devices").code == 0


def test_kb_docs_and_sources_escape_names(capsys: Cap, kb_home: Path, tmp_path: Path) -> None:
    """A file name with an ESC sequence must not recolour the terminal (as in ingest,
    status and search); --json keeps the exact name."""
    odd = tmp_path / "n\x1b[31mred"
    odd.mkdir()
    with Store.open(kb_home) as store:
        add_source(store, odd)
        add_doc(store, "bad\x1b[31mred.md", "Kestrels hover over fields.")
    r = kb(capsys, "docs")
    assert r.code == 0, r.err
    # path, type, language ("?": too little text to tell), chunks
    assert r.out.splitlines() == ['"bad\\x1b[31mred.md"  md  ?  1 chunk']
    assert "\x1b" not in r.out
    assert json.loads(kb(capsys, "docs", "--json").out)[0]["path"] == "bad\x1b[31mred.md"
    listed = kb(capsys, "sources").out
    assert "\x1b" not in listed and '"n\\x1b[31mred"' in listed


@pytest.mark.parametrize(
    ("toml", "line"),
    [
        ("[search]\nk = -4\n", "search.k = -4: must be at least 1 (the number of hits to show)"),
        (
            "[ingest]\nmax_file_mb = -1\n",
            "ingest.max_file_mb = -1: must be more than 0 (the largest file to ingest, in MB)",
        ),
    ],
)
def test_bad_numbers_in_a_config_file_are_blamed_on_the_file(
    capsys: Cap, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, toml: str, line: str
) -> None:
    cfg = tmp_path / "user.toml"
    cfg.write_text(toml, encoding="utf-8")
    monkeypatch.setenv("KB_CONFIG", str(cfg))
    r = kb(capsys, "search", "kestrels", "--mode", "keyword")
    assert r.code == 2
    assert r.err.splitlines() == [f"kb: error: {cfg}: {line}"]  # not "-k -4"


def test_a_chunker_plug_in_that_is_a_fifo_is_refused_before_anything_is_written(
    capsys: Cap, kb_home: Path, tmp_path: Path
) -> None:
    plug = tmp_path / "plug.py"
    os.mkfifo(plug)
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "a.md").write_text("# A\n\nKestrels hover.\n", encoding="utf-8")
    with alarm(30):
        r = kb(capsys, "ingest", "--chunker", f"{plug}#chunk", str(notes))
    assert r.code == 2
    assert r.err.splitlines() == [
        f"kb: error: chunker plug-in {plug} is a FIFO, not a regular file; name a Python file"
    ]
    assert written(kb_home) == []
