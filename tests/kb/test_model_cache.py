"""kb.backends.model_cache: derived model files made once per machine, shared by KBs."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kb.backends import model_cache as mc

ROOT = Path(__file__).resolve().parents[2]


def _source(tmp_path: Path, name: str = "src", content: bytes = b"weights") -> Path:
    folder = tmp_path / name
    (folder / "sub").mkdir(parents=True, exist_ok=True)
    (folder / "a.bin").write_bytes(content)
    (folder / "sub" / "b.txt").write_text("config", encoding="utf-8")
    return folder


def _build(calls: list[str]):  # type: ignore[no-untyped-def]
    def build(tmp: Path) -> None:
        calls.append(str(tmp))
        (tmp / "out.bin").write_bytes(b"derived " * 100)

    return build


def test_root_is_the_env_folder_or_the_user_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KB_MODEL_CACHE", "/some/where")
    assert mc.root() == Path("/some/where")
    monkeypatch.delenv("KB_MODEL_CACHE")
    from platformdirs import user_cache_dir

    assert mc.root() == Path(user_cache_dir("kb")) / "models"


def test_made_once_keyed_by_content_and_options(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    calls: list[str] = []
    e = mc.entry("onnx", [_source(tmp_path)], {"v": 1}, base=cache)
    path = mc.prepare(e, _build(calls))
    assert path == cache / "onnx" / e.key and len(calls) == 1
    m = mc.manifest(path)
    assert m is not None and m["source_sha256"] == e.source_sha256 and m["options"] == {"v": 1}
    assert m["files"]["out.bin"]["size"] == 800 and mc.verify(path) == []
    assert mc.prepare(e, _build(calls)) == path and len(calls) == 1  # reused
    # the same bytes somewhere else (another venv): the same entry
    twin = mc.entry("onnx", [_source(tmp_path, "twin")], {"v": 1}, base=cache)
    assert twin.key == e.key
    # other options, other bytes: other entries
    assert mc.entry("onnx", [_source(tmp_path)], {"v": 2}, base=cache).key != e.key
    other = _source(tmp_path, "other", b"other weights")
    assert mc.entry("onnx", [other], {"v": 1}, base=cache).key != e.key
    # no temporary folder is left beside the entry
    assert [p.name for p in (cache / "onnx").iterdir()] == [e.key]


def test_source_hash_is_memoised_and_follows_changes(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    src = _source(tmp_path)
    first = mc.source_sha256([src], cache)
    memo = json.loads((cache / mc.SOURCE_HASHES).read_text())
    assert list(memo.values()) == [first]
    mc._memo.clear()
    assert mc.source_sha256([src], cache) == first  # from the memo file
    (src / "a.bin").write_bytes(b"new weights")
    assert mc.source_sha256([src], cache) != first


def test_an_entry_whose_bytes_differ_is_rebuilt_never_used(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    calls: list[str] = []
    e = mc.entry("gguf", [_source(tmp_path)], {}, base=cache)
    path = mc.prepare(e, _build(calls))
    out = path / "out.bin"
    out.write_bytes(b"DERIVED " * 100)  # same size, other bytes, new mtime
    assert mc.verify(path) and "sha256" in mc.verify(path)[0]
    assert not mc.ready(e) and not path.exists()  # removed, not used
    assert mc.prepare(e, _build(calls)) == path and len(calls) == 2
    assert out.read_bytes() == b"derived " * 100
    # a missing file, or a truncated one, is caught by the quick check too
    out.unlink()
    assert not mc.ready(e)
    mc.prepare(e, _build(calls))
    out.write_bytes(b"short")
    assert not mc.ready(e)


def test_a_failed_build_leaves_nothing(tmp_path: Path) -> None:
    e = mc.entry("onnx", [_source(tmp_path)], {}, base=tmp_path / "cache")

    def broken(tmp: Path) -> None:
        (tmp / "half.bin").write_bytes(b"half")
        raise RuntimeError("exporter crashed")

    with pytest.raises(RuntimeError, match="crashed"):
        mc.prepare(e, broken)
    assert list((tmp_path / "cache" / "onnx").iterdir()) == []


def test_two_processes_preparing_at_once_build_once(tmp_path: Path) -> None:
    src, cache, log = _source(tmp_path), tmp_path / "cache", tmp_path / "builds.log"
    code = f"""
import time
from pathlib import Path
from kb.backends import model_cache as mc
e = mc.entry("onnx", [Path({str(src)!r})], {{}}, base=Path({str(cache)!r}))
def build(tmp):
    with open({str(log)!r}, "a") as f:
        f.write("built\\n")
    (tmp / "out.bin").write_bytes(b"x" * 1000)
    time.sleep(1.0)
print(mc.prepare(e, build))
"""
    procs = [
        subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, stdout=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    outs = [p.communicate(timeout=60)[0].strip() for p in procs]
    assert all(p.returncode == 0 for p in procs)
    assert outs[0] == outs[1] and log.read_text() == "built\n"  # the loser used the winner's
    assert mc.verify(Path(outs[0])) == []


def test_an_old_copy_is_moved_in_or_deleted(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    e = mc.entry("whisper", [_source(tmp_path)], {}, base=cache)
    old = tmp_path / "kb" / "cache" / "models" / "whisper-base"
    old.mkdir(parents=True)
    (old / "model.bin").write_bytes(b"joined")
    ino = (old / "model.bin").stat().st_ino
    path = mc.adopt(e, old, lambda p: (p / "model.bin").is_file())
    assert path == e.path and not old.exists()
    assert (path / "model.bin").stat().st_ino == ino  # moved, not copied
    assert mc.verify(path) == []
    # a second KB's old copy of an entry the cache has: deleted, the entry kept
    old.mkdir()
    (old / "model.bin").write_bytes(b"joined")
    assert mc.adopt(e, old, lambda p: True) == e.path and not old.exists()
    # nothing usable: None
    assert mc.adopt(e, tmp_path / "none", lambda p: True) is None


def test_a_cache_that_cannot_be_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocked = tmp_path / "cache"
    blocked.write_text("a file where the cache folder should be")
    e = mc.entry("onnx", [_source(tmp_path)], {}, base=blocked)
    assert not mc.ready(e)
    with pytest.raises(OSError) as info:
        mc.prepare(e, _build([]))
    line = mc.unwritable_message(blocked, info.value)
    assert str(blocked) in line and "KB_MODEL_CACHE" in line and "\n" not in line
    full = mc.unwritable_message(blocked, OSError(errno.ENOSPC, "No space left on device"))
    assert "No space left" in full and "free some space" in full
    # the registry of a read-only cache is simply not written
    mc.register(tmp_path, ["onnx/x"], blocked)


def test_the_registry_names_existing_kbs(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    mc.register(a, ["onnx/1"], cache)
    mc.register(a, ["gguf/2"], cache)
    mc.register(b, ["onnx/1"], cache)
    assert mc.registry(cache) == {str(a): ["gguf/2", "onnx/1"], str(b): ["onnx/1"]}
    os.rmdir(b)  # a KB folder that is gone uses nothing
    assert mc.registry(cache) == {str(a): ["gguf/2", "onnx/1"]}


def test_using_an_entry_registers_the_kb_of_the_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache, home = tmp_path / "cache", tmp_path / "kb"
    home.mkdir()
    monkeypatch.setattr(mc, "_current_kb", None)
    mc.note_kb(home)
    e = mc.entry("gguf", [_source(tmp_path)], {}, base=cache)
    mc.prepare(e, _build([]))
    assert mc.registry(cache) == {str(home.resolve()): [e.name]}
    assert (e.path / mc.USED).is_file()


# -- real models, real KBs ------------------------------------------------------------------
@pytest.mark.slow
def test_two_kbs_share_one_export_and_an_old_kb_moves_its_copy_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    """A fresh model cache: the first KB's ingest exports the embedder once; a second KB
    makes nothing, keeps no model files and records the same entry; a KB made before
    the shared cache (its export in ``<KB>/cache/models``) has it moved out, not made
    again, on its next ingest."""
    import shutil

    from ingest.pipeline import ingest_paths
    from kb.backends import onnx_export
    from kb.backends.bundled import embedding_model_dir
    from kb.config import load_settings
    from kb.store import Store

    cache = tmp_path / "machine-cache"
    monkeypatch.setenv("KB_MODEL_CACHE", str(cache))
    notes = ROOT / "fixtures" / "demo" / "notes"

    def ingest(home: Path, files: list[Path]) -> dict[str, str]:
        settings = load_settings(home)
        with Store.open(home) as store:
            ingest_paths(store, settings, files)
            return json.loads(store.meta_get("model_files") or "{}")

    first = ingest(tmp_path / "kb1", [notes])
    assert "exporting the embedding model" in capfd.readouterr().err
    entry = first["embedding"]
    assert entry.startswith("onnx/") and mc.verify(cache / entry) == []
    second = ingest(tmp_path / "kb2", [notes])
    assert "exporting" not in capfd.readouterr().err and second["embedding"] == entry
    assert not (tmp_path / "kb2" / "cache" / "models").exists()
    assert sorted(p.name for p in (cache / "onnx").iterdir()) == [entry.split("/")[1]]
    used = mc.registry(cache)
    assert all(entry in used[str((tmp_path / k).resolve())] for k in ("kb1", "kb2"))

    # an old KB: its copy where kb kept it before, and no entry in the cache
    old = onnx_export.legacy_dir(
        tmp_path / "kb3", embedding_model_dir(), "bundled:all-MiniLM-L6-v2"
    )
    assert old is not None
    old.parent.mkdir(parents=True)
    shutil.move(str(cache / entry), str(old))
    (old / mc.MANIFEST).unlink()
    third = ingest(tmp_path / "kb3", [notes / "sourdough.md"])
    assert "exporting" not in capfd.readouterr().err and third["embedding"] == entry
    assert not (tmp_path / "kb3" / "cache" / "models").exists()
    assert mc.verify(cache / entry) == []


@pytest.mark.slow
def test_a_cache_that_cannot_be_written_still_answers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The model cache on a read-only or full disk (here: a file where its folder should
    be): a KB's own old export is used where it is, with one line naming the folder;
    without one, sentence-transformers embeds, with one line saying what to do."""
    import shutil

    import numpy as np

    from kb.backends import onnx_export
    from kb.backends.bundled import embedding_model_dir
    from kb.backends.embedder import SentenceTransformerEmbedder, make_embedder
    from kb.backends.onnx_embedder import OnnxEmbedder
    from kb.config import EmbeddingSettings

    settings = EmbeddingSettings(device="cpu")
    good = make_embedder(settings, home=tmp_path / "kb0")  # the session cache's export
    assert isinstance(good, OnnxEmbedder)
    blocked = tmp_path / "cache-on-a-read-only-disk"
    blocked.write_text("not a folder")
    monkeypatch.setenv("KB_MODEL_CACHE", str(blocked))
    home = tmp_path / "old-kb"
    old = onnx_export.legacy_dir(home, embedding_model_dir(), "bundled:all-MiniLM-L6-v2")
    assert old is not None
    shutil.copytree(good.folder, old, ignore=shutil.ignore_patterns(mc.MANIFEST, mc.USED))
    notes: list[str] = []
    emb = make_embedder(settings, home=home, notice=notes.append)
    assert isinstance(emb, OnnxEmbedder) and emb.folder == old and emb.cache_entry is None
    assert len(notes) == 1 and str(blocked) in notes[0] and "KB_MODEL_CACHE" in notes[0]
    text = ["the dough proofs overnight in the refrigerator"]
    assert float(np.dot(emb.embed_batch(text)[0], good.embed_batch(text)[0])) > 0.9999
    notes.clear()
    fresh = make_embedder(settings, home=tmp_path / "new-kb", notice=notes.append)
    assert isinstance(fresh, SentenceTransformerEmbedder)
    assert len(notes) == 1 and str(blocked) in notes[0] and "sentence-transformers" in notes[0]


@pytest.mark.slow
def test_a_read_only_cache_that_has_the_model_is_used_silently(tmp_path: Path) -> None:
    """A model cache on a read-only mount (a shared or backed-up cache) that holds the
    export: used as it is, no note; its ``used`` stamp and registry are just not
    written."""
    import shutil

    from kb.backends.embedder import make_embedder
    from kb.backends.onnx_embedder import OnnxEmbedder
    from kb.config import EmbeddingSettings

    if os.geteuid() != 0:
        pytest.skip("bind mounts need root")
    settings = EmbeddingSettings(device="cpu")
    good = make_embedder(settings, home=tmp_path / "kb0")
    assert isinstance(good, OnnxEmbedder)
    src, ro = tmp_path / "cache-src", tmp_path / "cache-ro"
    shutil.copytree(good.folder, src / "onnx" / good.folder.name)
    ro.mkdir()
    if subprocess.run(["mount", "--bind", str(src), str(ro)], capture_output=True).returncode:
        pytest.skip("mount --bind is not allowed here")
    try:
        subprocess.run(["mount", "-o", "remount,bind,ro", str(ro)], check=True)
        env = {**os.environ, "KB_MODEL_CACHE": str(ro)}
        code = (
            "from pathlib import Path\n"
            "from kb.backends.embedder import make_embedder\n"
            "from kb.config import EmbeddingSettings\n"
            "notes = []\n"
            f"e = make_embedder(EmbeddingSettings(device='cpu'), home=Path({str(tmp_path)!r}) "
            "/ 'kb1', notice=notes.append)\n"
            "print(type(e).__name__, e.folder, len(notes))\n"
        )
        out = subprocess.run(
            [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True
        )
        assert out.returncode == 0, out.stderr
        assert out.stdout.split() == ["OnnxEmbedder", str(ro / "onnx" / good.folder.name), "0"]
    finally:
        subprocess.run(["umount", str(ro)], check=False)
