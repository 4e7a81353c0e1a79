"""Destructive commands confirm (:mod:`kb.cli.confirm`): on a real terminal (a pty as
stdin) ``kb sources remove`` and ``kb docs remove`` say what they will delete and ask;
without one they need ``--yes``; ``--dry-run`` lists and deletes nothing."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from kb.store import Store
from kb.store.sources import add_source
from tests.kb.test_store_health import add_doc

pytestmark = pytest.mark.slow


def on_a_terminal(home: Path, answer: str, *args: str) -> subprocess.CompletedProcess[str]:
    """Run ``kb ARGS`` with a pty as stdin, typing ``answer`` and Enter."""
    master, slave = pty.openpty()
    try:
        os.write(master, answer.encode() + b"\n")
        return subprocess.run(
            [sys.executable, "-m", "kb", *args],
            env={**os.environ, "KB_HOME": str(home), "HF_HUB_OFFLINE": "1"},
            stdin=slave,
            capture_output=True,
            text=True,
            timeout=120,
        )
    finally:
        os.close(slave)
        os.close(master)


@pytest.fixture
def kb_two_docs(kb_home: Path, tmp_path: Path) -> Path:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    with Store.open(kb_home) as store:
        src = add_source(store, corpus)
        for name, text in (("a.md", "Kestrels hover."), ("b.md", "Herons wait.")):
            add_doc(store, name, text)
        store.conn.execute("UPDATE documents SET source_id = ?", (src.id,))
    return kb_home


def paths(home: Path) -> list[str]:
    with Store.open(home, create=False) as store:
        return [str(r[0]) for r in store.conn.execute("SELECT path FROM documents ORDER BY 1")]


def test_docs_remove_asks_on_a_terminal(kb_two_docs: Path) -> None:
    no = on_a_terminal(kb_two_docs, "n", "docs", "remove", "a.md")
    assert no.returncode == 1
    assert no.stderr == (
        "kb docs remove will delete the document a.md with 1 chunk. Delete? [y/N] "
        "kb: nothing was deleted\n"
    )
    assert paths(kb_two_docs) == ["a.md", "b.md"]
    yes = on_a_terminal(kb_two_docs, "y", "docs", "remove", "a.md")
    assert yes.returncode == 0, yes.stderr
    assert yes.stdout == "removed a.md\n"
    assert paths(kb_two_docs) == ["b.md"]


def test_sources_remove_asks_lists_and_needs_yes_elsewhere(
    kb_two_docs: Path, tmp_path: Path
) -> None:
    corpus = (tmp_path / "corpus").resolve()
    dry = on_a_terminal(kb_two_docs, "", "sources", "remove", "corpus", "--dry-run")
    assert dry.returncode == 0
    assert dry.stdout.splitlines() == ["a.md  1 chunk", "b.md  1 chunk"]
    assert paths(kb_two_docs) == ["a.md", "b.md"]
    empty = on_a_terminal(kb_two_docs, "", "sources", "remove", "corpus")  # Enter: no
    assert empty.returncode == 1 and empty.stderr.startswith(
        f"kb sources remove will delete the source corpus ({corpus}) with 2 documents and "
        "2 chunks. Delete? [y/N] "
    )
    piped = subprocess.run(
        [sys.executable, "-m", "kb", "sources", "remove", "corpus"],
        env={**os.environ, "KB_HOME": str(kb_two_docs)},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert piped.returncode == 2
    assert piped.stderr.splitlines() == [
        f"kb: error: kb sources remove would delete the source corpus ({corpus}) with "
        "2 documents and 2 chunks; stdin is not a terminal, so nothing was asked and nothing "
        "deleted: add --yes to delete, or --dry-run to list what would go"
    ]
    assert paths(kb_two_docs) == ["a.md", "b.md"]
    yes = on_a_terminal(kb_two_docs, "", "sources", "remove", "corpus", "--yes")
    assert yes.returncode == 0, yes.stderr
    assert paths(kb_two_docs) == []
