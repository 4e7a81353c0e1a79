"""Constraint errors name the real cause, and two ingests recording one source both work.

Real SQLite; the concurrent process is a second connection to the same database that
writes at the exact moment between ``add_source``'s check and its insert.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from kb.errors import IntegrityStoreError, StoreError
from kb.store import Store
from kb.store import sources as sources_mod
from kb.store.health import classify
from kb.store.sources import add_source, list_sources
from tests.cli.clirun import kb


def _insert_from_another_process(db: Path, name: str, path: str) -> None:
    other = sqlite3.connect(db, isolation_level=None)
    other.execute(
        "INSERT INTO sources (name, path, kind, created_at) VALUES (?, ?, 'folder', 0)",
        (name, path),
    )
    other.close()


def test_a_source_recorded_concurrently_is_returned_not_an_error(
    kb_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    real = sources_mod.unique_name
    calls: list[str] = []

    def racing(store: Store, wanted: str, is_file: bool) -> str:
        if not calls:  # the other `kb ingest notes` commits first
            _insert_from_another_process(store.home / "kb.sqlite", "notes", str(notes))
        calls.append(wanted)
        return real(store, wanted, is_file)

    monkeypatch.setattr(sources_mod, "unique_name", racing)
    with Store.open(kb_home) as store:
        src = add_source(store, notes)
        assert (src.name, src.path) == ("notes", str(notes))
        assert [s.path for s in list_sources(store)] == [str(notes)]


def test_a_name_taken_concurrently_by_another_folder_gets_the_next_name(
    kb_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mine = tmp_path / "a" / "notes"
    mine.mkdir(parents=True)
    real = sources_mod.unique_name
    calls: list[str] = []

    def racing(store: Store, wanted: str, is_file: bool) -> str:
        name = real(store, wanted, is_file)
        if not calls:  # another folder called notes is recorded under that name first
            _insert_from_another_process(store.home / "kb.sqlite", name, "/elsewhere/notes")
        calls.append(name)
        return name

    monkeypatch.setattr(sources_mod, "unique_name", racing)
    with Store.open(kb_home) as store:
        src = add_source(store, mine)
    assert calls == ["notes", "notes-2"]
    assert (src.name, src.path) == ("notes-2", str(mine))


def test_an_integrity_error_is_never_called_cannot_open(tmp_path: Path) -> None:
    e = sqlite3.IntegrityError("UNIQUE constraint failed: sources.path")
    db = tmp_path / "kb.sqlite"
    db.write_bytes(b"")
    err = classify(e, tmp_path, db, "kb ingest")
    assert isinstance(err, IntegrityStoreError) and err.exit_code == 1
    assert str(err) == (
        f"{db}: a write during kb ingest was refused by the database (UNIQUE constraint "
        "failed: sources.path); that write stored nothing and the database is not damaged: "
        "re-run the command (another kb process may have written the same row at the same "
        "moment); if it repeats, re-run with KB_DEBUG=1 and report the traceback"
    )
    unknown = classify(sqlite3.OperationalError("something odd"), tmp_path, db, "kb ingest")
    assert type(unknown) is StoreError
    assert str(unknown).startswith(
        f"{db}: unexpected database error during kb ingest (something odd); "
    )
    assert "KB_DEBUG=1" in str(unknown) and "cannot open" not in str(unknown)
    # while opening, the old wording stays right
    opening = classify(sqlite3.OperationalError("something odd"), tmp_path, db)
    assert "cannot open the KB database" in str(opening)


def test_the_cli_names_the_command_in_an_integrity_error(
    capsys: pytest.CaptureFixture[str], kb_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Store.open(kb_home):
        pass

    def collide(*a: object, **k: object) -> list[object]:
        raise sqlite3.IntegrityError("UNIQUE constraint failed: sources.name")

    monkeypatch.setattr(sources_mod, "list_sources", collide)
    r = kb(capsys, "sources")
    assert r.code == 1
    (line,) = r.err.splitlines()
    assert line.startswith("kb: error: ") and "a write during kb sources was refused" in line
    assert "cannot open" not in line and "internal error" not in line


def test_an_unknown_failure_says_unexpected_and_names_the_command(
    capsys: pytest.CaptureFixture[str], kb_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Store.open(kb_home):
        pass

    def boom(*a: object, **k: object) -> list[object]:
        raise ValueError("something\nodd")

    monkeypatch.setattr(sources_mod, "list_sources", boom)
    r = kb(capsys, "sources", "--json")
    assert r.code == 1
    assert r.err.splitlines() == [
        "kb: internal error: unexpected ValueError during kb sources: something odd "
        "(re-run with KB_DEBUG=1 to see the traceback)"
    ]
