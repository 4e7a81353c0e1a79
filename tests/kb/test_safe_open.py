"""kb.safe_open: every hostile kind of path is one line naming what it is, never a hang.

Each case runs under an alarm (:func:`tests.test_fuzz.alarm`): opening a FIFO for reading
would block forever, and reading /dev/zero never ends, so a regression fails instead of
hanging the suite.
"""

from __future__ import annotations

import errno
import os
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from kb import safe_open
from kb.errors import ConfigError, GoldenError
from kb.safe_open import CONFIG, GOLDEN, FileKind, read_bytes, read_text, what_is
from tests.test_fuzz import alarm


@pytest.fixture
def hostile(tmp_path: Path) -> Iterator[dict[str, Path]]:
    """One path of every hostile kind, plus a regular file and a link to it."""
    paths = {
        "fifo": tmp_path / "g.yaml",
        "socket": tmp_path / "s.yaml",
        "link to /dev/zero": tmp_path / "zero.yaml",
        "loop": tmp_path / "loop.yaml",
        "dangling": tmp_path / "dangling.yaml",
        "folder": tmp_path / "folder.yaml",
        "regular": tmp_path / "ok.yaml",
        "link to regular": tmp_path / "ok-link.yaml",
    }
    os.mkfifo(paths["fifo"])
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(paths["socket"]))
    paths["link to /dev/zero"].symlink_to("/dev/zero")
    (tmp_path / "loop2.yaml").symlink_to(paths["loop"])
    paths["loop"].symlink_to(tmp_path / "loop2.yaml")
    paths["dangling"].symlink_to("gone.yaml")
    paths["folder"].mkdir()
    paths["regular"].write_text("queries: []\n", encoding="utf-8")
    paths["link to regular"].symlink_to("ok.yaml")
    try:
        yield paths
    finally:
        sock.close()


@pytest.mark.parametrize(
    ("case", "what"),
    [
        ("fifo", "a FIFO, not a regular file"),
        ("socket", "a socket, not a regular file"),
        ("link to /dev/zero", "a symlink to /dev/zero (a character device), not a regular file"),
        ("loop", "a symlink loop"),
        ("dangling", "a dangling symlink (to gone.yaml)"),
        ("folder", "a folder, not a regular file"),
    ],
)
def test_each_hostile_kind_is_one_line_saying_what_it_is(
    hostile: dict[str, Path], case: str, what: str
) -> None:
    path = hostile[case]
    with alarm(10):
        assert what_is(path) == what
        with pytest.raises(GoldenError) as e:
            read_bytes(path, GOLDEN)
    assert str(e.value) == f"golden set {path} is {what}; name a .yaml, .yml or .jsonl file"
    assert e.value.exit_code == 2


@pytest.mark.parametrize("device", ["/dev/null", "/dev/zero"])
def test_character_devices_named_directly_are_never_read(device: str) -> None:
    with alarm(10), pytest.raises(ConfigError) as e:
        read_text(device, CONFIG)
    assert str(e.value) == (
        f"configuration file {device} is a character device, not a regular file; name a TOML file"
    )


def test_a_regular_file_and_a_link_to_one_are_read(hostile: dict[str, Path]) -> None:
    with alarm(10):
        assert read_text(hostile["regular"], GOLDEN) == "queries: []\n"
        assert read_text(hostile["link to regular"], GOLDEN) == "queries: []\n"
        assert what_is(hostile["link to regular"]) == "a regular file"


def test_missing_and_empty(tmp_path: Path) -> None:
    with pytest.raises(GoldenError, match=r"golden set .*nope.yaml is missing; name a"):
        read_bytes(tmp_path / "nope.yaml", GOLDEN)
    empty = tmp_path / "empty.yaml"
    empty.write_bytes(b"")
    assert read_bytes(empty, GOLDEN) == b""


def test_over_the_limit_is_refused_from_fstat_before_reading(tmp_path: Path) -> None:
    """A sparse 3 GB file: refused on its size, in well under a second, with no read."""
    big = tmp_path / "sparse.yaml"
    with big.open("wb") as f:  # kb-owned test file
        f.truncate(3_000_000_000)
    reads: list[int] = []
    real_read = os.read

    def counting(fd: int, n: int) -> bytes:
        reads.append(n)
        return real_read(fd, n)

    with alarm(5), pytest.MonkeyPatch.context() as mp:
        mp.setattr(safe_open.os, "read", counting)
        with pytest.raises(GoldenError) as e:
            read_bytes(big, GOLDEN)
    assert str(e.value) == (
        f"golden set {big} is 3000.0 MB, over the 5.0 MB limit for a golden set; "
        "name a .yaml, .yml or .jsonl file of a sensible size"
    )
    assert reads == []


def test_a_file_that_grows_past_the_limit_while_read_is_refused(tmp_path: Path) -> None:
    """The fstat size is under the limit, the bytes read are not (a growing file)."""
    path = tmp_path / "grows.toml"
    path.write_bytes(b"a = 1\n")
    real_read = os.read
    kind = FileKind("configuration file", 10, ConfigError, "name a TOML file")

    def growing(fd: int, n: int) -> bytes:
        return real_read(fd, n) + b"x" * 20

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(safe_open.os, "read", growing)
        with pytest.raises(ConfigError, match=r"over the 0.0 kB limit"):
            read_bytes(path, kind)


def test_nul_and_newline_in_the_name(tmp_path: Path) -> None:
    with pytest.raises(GoldenError) as e:
        read_bytes(str(tmp_path / "a\x00b.yaml"), GOLDEN)
    assert "\x00" not in str(e.value) and "a name holding a NUL character" in str(e.value)
    odd = tmp_path / "two\nlines.yaml"
    odd.write_text("q: 1\n", encoding="utf-8")
    assert read_text(odd, GOLDEN) == "q: 1\n"  # a newline is a legal name
    os.remove(odd)
    os.mkfifo(odd)
    with alarm(10), pytest.raises(GoldenError) as e:
        read_bytes(odd, GOLDEN)
    (line,) = str(e.value).splitlines()  # the name is quoted: one line
    assert '"' in line and "two\\nlines.yaml" in line and "a FIFO" in line


def test_unreadable_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """kb runs as root in CI, where chmod 000 does not stop a read: the refusal of open()
    is faked at the one call that makes it."""
    path = tmp_path / "secret.toml"
    path.write_text("a = 1\n", encoding="utf-8")
    real_open = os.open

    def denied(p: str, flags: int, *a: int) -> int:
        if os.fspath(p) == str(path):
            raise PermissionError(errno.EACCES, "Permission denied", str(p))
        return real_open(p, flags, *a)

    monkeypatch.setattr(safe_open.os, "open", denied)
    with pytest.raises(ConfigError) as e:
        read_text(path, CONFIG)
    assert str(e.value) == (
        f"configuration file {path} is unreadable (permission denied); name a TOML file"
    )


def test_a_fifo_swapped_in_after_the_check_does_not_block(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The race: lstat saw a regular file, a FIFO is there when it is opened."""
    path = tmp_path / "g.yaml"
    path.write_text("x\n", encoding="utf-8")
    real_inspect = safe_open._inspect

    def then_swap(p: str) -> safe_open._Checked:
        checked = real_inspect(p)
        os.remove(path)
        os.mkfifo(path)
        return checked

    monkeypatch.setattr(safe_open, "_inspect", then_swap)
    with alarm(10), pytest.raises(GoldenError, match=r"is a FIFO, not a regular file"):
        read_bytes(path, GOLDEN)


def test_non_utf8_is_one_line_naming_the_file_and_offset(tmp_path: Path) -> None:
    path = tmp_path / "latin1.toml"
    path.write_bytes(b"name = 'caf\xe9'\n")
    with pytest.raises(ConfigError) as e:
        read_text(path, CONFIG)
    assert str(e.value) == (
        f"configuration file {path} is not UTF-8 text (byte 0xe9 at offset 11); save it as UTF-8"
    )
    bom = tmp_path / "bom.toml"
    bom.write_bytes(b"\xef\xbb\xbfa = 1\n")
    assert read_text(bom, CONFIG) == "a = 1\n"
