"""kb reads only regular files, never blocks on one, and decodes text by its byte-order mark.

Real FIFOs, Unix sockets and symlinks to devices on disk; every ingest runs under an
alarm so a regression that blocks fails the test instead of hanging the suite.
"""

from __future__ import annotations

import codecs
import os
import signal
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

import pytest

from ingest.fileio import check_path, open_checked, read_bytes, stat_and_hash
from ingest.loaders.textio import decode_text, read_text
from ingest.pipeline import ingest_paths
from ingest.report import FileOutcome, IngestProgress
from ingest.walk import single_file, walk
from kb.backends.embedder import Embedder
from kb.config import Settings
from kb.errors import IngestError
from kb.store import Store

OK = "# Kestrels\n\nKestrels hover over fields while hunting voles.\n"


@contextmanager
def deadline(seconds: int) -> Iterator[None]:
    """Fail (instead of hanging forever) when the block runs longer than ``seconds``."""

    def boom(signum: int, frame: object) -> None:
        raise TimeoutError(f"blocked for {seconds} s")

    old = signal.signal(signal.SIGALRM, boom)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


@pytest.fixture
def unsafe(tmp_path: Path) -> Iterator[Path]:
    """A folder with one good note and one of each special file kb must never open."""
    d = tmp_path / "f"
    d.mkdir()
    (d / "ok.md").write_text(OK)
    os.mkfifo(d / "fifo.md")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind(str(d / "sock.md"))
    (d / "zero.md").symlink_to("/dev/zero")
    (d / "fifolink.md").symlink_to(d / "fifo.md")
    try:
        yield d
    finally:
        sock.close()


class Recorder(IngestProgress):
    def __init__(self) -> None:
        self.done: list[FileOutcome] = []

    def file_done(self, outcome: FileOutcome) -> None:
        self.done.append(outcome)


def _ingest(store: Store, settings: Settings, paths: list[Path], embedder: Embedder) -> Recorder:
    rec = Recorder()
    with deadline(120):
        ingest_paths(store, settings, paths, embedder=embedder, progress=rec)
    return rec


# -- checks without opening -----------------------------------------------------------------


def test_check_path_names_each_special_file(unsafe: Path) -> None:
    root = unsafe.resolve()
    assert check_path(root / "ok.md", root) is None
    assert check_path(root / "fifo.md", root) == "not a regular file (FIFO); skipped"
    assert check_path(root / "sock.md", root) == "not a regular file (socket); skipped"
    assert check_path(root / "zero.md", root) == (
        "not a regular file (character device, via symlink); skipped"
    )
    assert check_path(root / "fifolink.md", root) == (
        "not a regular file (FIFO, via symlink); skipped"
    )
    msg = check_path(root / "ok.md", root, max_bytes=10)
    assert msg is not None and msg.startswith("file is 0.1 kB, over the [ingest] max_file_mb")


def test_walk_and_single_file_make_the_same_checks(unsafe: Path) -> None:
    walked = {c.rel: c.problem for c in walk(unsafe, frozenset({".md"}))}
    assert walked["ok.md"] is None
    for name in ("fifo.md", "sock.md", "zero.md", "fifolink.md"):
        assert walked[name] and "not a regular file" in walked[name]
        assert single_file(unsafe / name).problem == walked[name]


def test_open_checked_refuses_a_fifo_swapped_in_after_the_check(tmp_path: Path) -> None:
    p = tmp_path / "swap.md"
    p.write_text(OK)
    assert check_path(p, tmp_path.resolve()) is None
    p.unlink()
    os.mkfifo(p)  # the race: a FIFO appears between check and open
    with deadline(10), pytest.raises(IngestError, match=r"not a regular file \(FIFO\)"):
        read_bytes(p, "swap.md")


def test_open_checked_refuses_a_link_retargeted_outside_the_root(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    (tmp_path / "secret.md").write_text("private")
    (root / "l.md").symlink_to(tmp_path / "secret.md")
    with pytest.raises(IngestError, match="outside the ingested root"):
        stat_and_hash(root / "l.md", "l.md", None, root.resolve())


def test_size_limit_is_checked_while_reading(tmp_path: Path) -> None:
    p = tmp_path / "big.txt"
    p.write_bytes(b"x" * 5000)
    with pytest.raises(IngestError, match=r"over the \[ingest\] max_file_mb limit of 0\.001"):
        read_bytes(p, "big.txt", max_bytes=1000)
    with open_checked(p, "big.txt", max_bytes=5000) as f:
        assert len(f.read()) == 5000


# -- decoding ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("bom", "codec"),
    [
        (codecs.BOM_UTF16_LE, "utf-16-le"),
        (codecs.BOM_UTF16_BE, "utf-16-be"),
        (codecs.BOM_UTF32_LE, "utf-32-le"),
        (codecs.BOM_UTF32_BE, "utf-32-be"),
        (codecs.BOM_UTF8, "utf-8"),
    ],
)
def test_byte_order_mark_selects_the_encoding(tmp_path: Path, bom: bytes, codec: str) -> None:
    text = "# Café\r\n\r\nnaïve ☕ text\r\n"
    p = tmp_path / "n.md"
    p.write_bytes(bom + text.encode(codec))
    assert read_text(p, "n.md") == "# Café\n\nnaïve ☕ text\n"


def test_nul_bytes_are_binary_content_and_bad_utf16_names_its_byte() -> None:
    with pytest.raises(IngestError, match=r"binary content \(NUL character at text offset 4\)"):
        decode_text(b"abc \x00def", "x.md")
    with pytest.raises(IngestError, match="invalid UTF-16 at byte 4"):
        decode_text(codecs.BOM_UTF16_LE + b"a\x00\x00\xdc", "x.md")  # lone low surrogate
    assert decode_text(b"plain", "x.md") == "plain"


# -- the real pipeline ------------------------------------------------------------------------


def test_ingest_skips_special_files_walked_and_named(
    unsafe: Path, settings: Settings, real_embedder: Embedder
) -> None:
    (unsafe / "utf16.txt").write_bytes(
        codecs.BOM_UTF16_LE + "Voles hide in grass.".encode("utf-16-le")
    )
    (unsafe / "nul.md").write_bytes(b"# Bin\n\nab\x00cd\n")
    (unsafe / "big.md").write_text(OK + "x" * 3000)
    small = replace(settings, ingest=replace(settings.ingest, max_file_mb=0.002))
    with Store.open(settings.home) as store:
        rec = _ingest(store, small, [unsafe], real_embedder)
        # paths are "source-name/relative/path" (issue 11); key by the file name
        by = {o.path.rsplit("/", 1)[-1]: o for o in rec.done}
        assert by["ok.md"].outcome == "added" and by["utf16.txt"].outcome == "added"
        for name in ("fifo.md", "sock.md", "zero.md", "fifolink.md"):
            assert by[name].outcome == "failed"
            assert "not a regular file" in (by[name].error or "")
        assert "binary content" in (by["nul.md"].error or "")
        assert (by["big.md"].error or "").startswith(
            "file is 3.1 kB, over the [ingest] max_file_mb limit of 0.002; skipped"
        )
        assert "\x00" not in "".join(
            r[0] for r in store.conn.execute("SELECT text FROM chunks").fetchall()
        )
        named = _ingest(
            store,
            small,
            [unsafe / "fifo.md", unsafe / "sock.md", unsafe / "zero.md", unsafe / "ok.md"],
            real_embedder,
        )
        out = {o.path.rsplit("/", 1)[-1]: o for o in named.done}
        assert out["ok.md"].outcome == "unchanged"
        assert out["fifo.md"].error == "not a regular file (FIFO); skipped"
        assert out["sock.md"].error == "not a regular file (socket); skipped"
        assert out["zero.md"].error == (
            "not a regular file (character device, via symlink); skipped"
        )


def test_enospc_writing_a_transcript_is_one_disk_full_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import errno

    from ingest.loaders import audio
    from kb.errors import DiskFullError

    def no_space(self: Path, *a: object, **k: object) -> int:
        raise OSError(errno.ENOSPC, "No space left on device", str(self))

    monkeypatch.setattr(Path, "write_text", no_space)
    target = tmp_path / "kb" / "cache" / "transcripts" / "abc-model.json"
    with pytest.raises(DiskFullError, match=r"disk holding .*/kb is full \(writing the transcript"):
        audio._write_cache(target, "model", 1.0, [(0.0, 1.0, "hello")])
    assert not list(target.parent.iterdir())  # no half-written temporary file left
