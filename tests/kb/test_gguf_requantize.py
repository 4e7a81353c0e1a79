"""kb.backends.gguf_requantize: the bundled model read as a Q8_0 copy made once."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from kb.backends import gguf_requantize as rq
from kb.backends.bundled import gguf_path
from kb.backends.generator import make_generator
from kb.config import LlmSettings
from kb.errors import ConfigError


def test_which_models_get_a_copy() -> None:
    assert rq.target_type("auto", bundled=True) == "q8_0"
    assert rq.target_type("auto", bundled=False) is None
    assert rq.target_type("off", bundled=True) is None
    assert rq.target_type("f16", bundled=False) == "f16"
    with pytest.raises(ConfigError, match=r"\[llm\] requantize = 'q4'.*auto, off, q8_0, f16"):
        rq.target_type("q4", bundled=True)


def test_the_copy_is_keyed_by_the_source_files_content(tmp_path: Path) -> None:
    src = tmp_path / "m.gguf"
    src.write_bytes(b"GGUF" + b"\0" * 60)
    first = rq.copy_path(src, tmp_path / "cache", "q8_0")
    assert first.parent.parent == tmp_path / "cache" / "gguf" and first.name == "m.q8_0.gguf"
    assert rq.copy_path(src, tmp_path / "cache", "q8_0") == first
    os.utime(src, ns=(1, 1))  # touched, same bytes: the same copy
    assert rq.copy_path(src, tmp_path / "cache", "q8_0") == first
    twin = tmp_path / "elsewhere" / "m.gguf"  # the same model installed twice: shared
    twin.parent.mkdir()
    twin.write_bytes(src.read_bytes())
    assert rq.copy_path(twin, tmp_path / "cache", "q8_0") == first
    src.write_bytes(b"GGUF" + b"\1" * 60)  # new bytes: a new copy
    assert rq.copy_path(src, tmp_path / "cache", "q8_0") != first
    assert rq.copy_path(src, tmp_path / "cache", "f16") != rq.copy_path(
        src, tmp_path / "cache", "q8_0"
    )


def test_a_cache_that_cannot_be_written_keeps_the_source(tmp_path: Path) -> None:
    src = tmp_path / "m.gguf"
    src.write_bytes(b"GGUF" + b"\0" * 60)
    not_a_folder = tmp_path / "cache"
    not_a_folder.write_text("a file where the cache folder should be")
    said: list[str] = []
    # mkdir fails (as on a read-only disk); no exception escapes, the source is used
    assert rq.requantized(src, not_a_folder, "q8_0", said.append) == src
    assert len(said) == 1 and "cannot make the q8_0 copy" in said[0]


def test_stale_temporaries_and_old_copies_are_removed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    src = tmp_path / "m.gguf"
    src.write_bytes(b"GGUF" + b"\0" * 60)
    cache = tmp_path / "cache"
    monkeypatch.setattr(rq, "_quantize", lambda s, out, k: out.write_bytes(b"GGUF old"))
    old = rq.requantized(src, cache, "q8_0", pytest.fail)
    other_src = tmp_path / "other" / "m.gguf"  # another file named m.gguf
    other_src.parent.mkdir()
    other_src.write_bytes(b"GGUF other")
    other = rq.requantized(other_src, cache, "q8_0", pytest.fail)
    dead = cache / "gguf" / ".0123456789abcdef.tmp999999999"  # a process that is gone
    dead.mkdir()
    src.write_bytes(b"GGUF" + b"\2" * 60)  # the source changed: a new copy is due
    target = rq.copy_path(src, cache, "q8_0")
    assert target != old and not rq.is_usable(target)
    monkeypatch.setattr(rq, "_quantize", lambda s, out, k: out.write_bytes(b"GGUF new"))
    assert rq.requantized(src, cache, "q8_0", pytest.fail) == target
    assert target.read_bytes() == b"GGUF new"
    # the same file's old copy and the dead process's temporary are gone; the copy of
    # another file with the same name stays
    assert not old.exists() and not dead.exists() and other.exists()
    # a copy whose bytes are not its manifest's (a crash, a damaged disk) is made again
    target.write_bytes(b"GGUF bad")
    assert rq.requantized(src, cache, "q8_0", pytest.fail) == target
    assert target.read_bytes() == b"GGUF new"


def test_a_kbs_old_copy_is_moved_into_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kb.backends import model_cache

    src = tmp_path / "m.gguf"
    src.write_bytes(b"GGUF" + b"\0" * 60)
    home = tmp_path / "kb"
    legacy = rq.legacy_copy_path(src, home / "cache" / "models", "q8_0")
    legacy.parent.mkdir(parents=True)
    legacy.write_bytes(b"GGUF made by an older kb")
    monkeypatch.setattr(model_cache, "_current_kb", home)
    monkeypatch.setattr(rq, "_quantize", lambda *a: pytest.fail("moved, not made again"))
    got = rq.requantized(src, tmp_path / "cache", "q8_0", pytest.fail)
    assert got == rq.copy_path(src, tmp_path / "cache", "q8_0")
    assert got.read_bytes() == b"GGUF made by an older kb" and not legacy.exists()
    assert model_cache.verify(got.parent) == []


def test_no_copy_keeps_the_source_and_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    src = tmp_path / "m.gguf"
    src.write_bytes(b"GGUF" + b"\0" * 60)
    said: list[str] = []

    def full_disk(source: Path, out: Path, kind: str) -> None:
        out.write_bytes(b"GGUF partial")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(rq, "_quantize", full_disk)
    assert rq.requantized(src, tmp_path / "cache", "q8_0", said.append) == src
    assert len(said) == 1 and "m.gguf" in said[0] and "No space left" in said[0]
    # the partial temporary folder is gone, and no copy is claimed
    assert list((tmp_path / "cache" / "gguf").iterdir()) == []
    assert rq.requantized(src, None, "q8_0", said.append) == src
    assert "no model cache" in said[-1]


@pytest.mark.slow
def test_the_bundled_model_is_read_as_its_q8_0_copy(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    g = make_generator(LlmSettings(n_ctx=256), cache_dir=cache)
    copy = rq.copy_path(gguf_path(), cache, "q8_0")
    assert g.model_path == copy and copy.is_file()
    # llama.cpp's file type 7 is MOSTLY_Q8_0 (the bundled file is 3, MOSTLY_Q4_1)
    assert g._llm.metadata["general.file_type"] == "7"  # type: ignore[attr-defined]
    answer = "".join(g.stream([{"role": "user", "content": "Say hello."}], max_tokens=8))
    assert answer.strip()
    g.close()
    made = copy.stat().st_mtime_ns
    # made once: the next load reads the same file, and "off" reads the bundled one
    assert make_generator(LlmSettings(n_ctx=256), cache_dir=cache).model_path == copy
    assert copy.stat().st_mtime_ns == made
    off = make_generator(LlmSettings(n_ctx=256, requantize="off"), cache_dir=cache)
    assert off.model_path == gguf_path().resolve()


@pytest.mark.slow
def test_a_copy_llama_cpp_cannot_load_is_deleted_and_the_source_loaded(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    cache = tmp_path / "cache"
    copy = rq.copy_path(gguf_path(), cache, "q8_0")
    copy.parent.mkdir(parents=True)
    copy.write_bytes(b"GGUF" + b"\xff" * 64)  # the magic, then garbage
    from kb.backends import model_cache

    # with a manifest that matches (a copy llama.cpp itself cannot read)
    model_cache.write_manifest(copy.parent, rq._entry(gguf_path(), cache, "q8_0"))
    g = make_generator(LlmSettings(n_ctx=256), cache_dir=cache)
    assert g.model_path == gguf_path().resolve() and not copy.exists()
    assert "answer model read as it is" in capfd.readouterr().err


def test_a_process_that_ends_mid_copy_finishes_it(tmp_path: Path) -> None:
    # the background load is a daemon thread; a question refused meanwhile ends the
    # process: the copy must still be finished, not left as a partial temporary
    import subprocess
    import sys

    src = tmp_path / "m.gguf"
    src.write_bytes(b"GGUF" + b"\0" * 60)
    cache = tmp_path / "cache"
    code = f"""
import threading, time
from pathlib import Path
from kb.backends import gguf_requantize as rq
def slow(source, out, kind):
    out.write_bytes(b"GGUF partial")
    time.sleep(0.8)
    out.write_bytes(b"GGUF whole")
rq._quantize = slow
t = threading.Thread(
    target=rq.requantized, args=(Path({str(src)!r}), Path({str(cache)!r}), "q8_0"), daemon=True
)
t.start()
time.sleep(0.2)
"""
    root = Path(__file__).resolve().parents[2]
    subprocess.run([sys.executable, "-c", code], cwd=root, check=True, timeout=60)
    target = rq.copy_path(src, cache, "q8_0")
    assert target.read_bytes() == b"GGUF whole"
    assert sorted(p.name for p in target.parent.iterdir()) == [target.name, "manifest.json", "used"]
    assert [p.name for p in (cache / "gguf").iterdir()] == [target.parent.name]
