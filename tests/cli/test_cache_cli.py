"""``kb cache list`` / ``kb cache remove`` and ``kb doctor``'s model files check, on a
model cache of this test's own (never the session's shared one)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kb.backends import model_cache as mc
from kb.cli.cache_cmd import ago, human_bytes
from tests.cli.clirun import kb

Cap = pytest.CaptureFixture[str]


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "machine-cache"
    monkeypatch.setenv("KB_MODEL_CACHE", str(folder))
    monkeypatch.setattr(mc, "_current_kb", None)
    return folder


def _entry(tmp_path: Path, cache: Path, kind: str, content: bytes) -> mc.Entry:
    src = tmp_path / f"src-{kind}-{len(content)}"
    src.mkdir()
    (src / "weights.bin").write_bytes(content)
    e = mc.entry(kind, [src], {"type": "q8_0"}, label=f"model-{kind}", base=cache)

    def build(tmp: Path) -> None:
        (tmp / "out.bin").write_bytes(content * 10)

    mc.prepare(e, build)
    return e


def test_list_shows_kind_source_size_and_users(
    capsys: Cap, tmp_path: Path, cache: Path, kb_home: Path
) -> None:
    empty = kb(capsys, "cache", "list")
    assert empty.code == 0 and f"model cache {cache}: 0 entries" in empty.out
    used = _entry(tmp_path, cache, "onnx", b"a" * 100_000)
    free = _entry(tmp_path, cache, "gguf", b"b" * 300_000)
    kb_home.mkdir()
    mc.register(kb_home, [used.name], cache)
    r = kb(capsys, "cache", "list")
    assert r.code == 0 and "2 entries, 4.0 MB" in r.out
    line = next(ln for ln in r.out.splitlines() if used.name in ln)
    assert "model-onnx" in line and "type=q8_0" in line and "1.0 MB" in line
    assert str(kb_home.resolve()) in line and "used just now" in line
    assert "no KB known" in next(ln for ln in r.out.splitlines() if free.name in ln)
    data = json.loads(kb(capsys, "cache", "list", "--json").out)
    assert data["root"] == str(cache) and 4_000_000 < data["bytes"] < 4_010_000
    assert [e["entry"] for e in data["entries"]] == sorted([used.name, free.name])
    # --verify hashes the files: a damaged one is named
    (free.path / "out.bin").write_bytes(b"c" * 3_000_000)
    v = kb(capsys, "cache", "list", "--verify")
    assert "damaged:" in v.out and "out.bin" in v.out


def test_remove_unused_dry_run_then_yes(
    capsys: Cap, tmp_path: Path, cache: Path, kb_home: Path
) -> None:
    used = _entry(tmp_path, cache, "onnx", b"a" * 100_000)
    free = _entry(tmp_path, cache, "gguf", b"b" * 300_000)
    gone = tmp_path / "deleted-kb"
    gone.mkdir()
    mc.register(gone, [free.name], cache)
    gone.rmdir()  # a KB folder that no longer exists uses nothing
    kb_home.mkdir()
    mc.register(kb_home, [used.name], cache)
    dry = kb(capsys, "cache", "remove", "--unused", "--dry-run")
    assert dry.code == 0 and f"would remove {free.name}" in dry.out
    assert "would remove 1 entries, 3.0 MB" in dry.out and free.path.is_dir()
    # not on a terminal, without --yes: refused, nothing removed
    no = kb(capsys, "cache", "remove", "--unused")
    assert no.code == 2 and "--yes" in no.err and free.path.is_dir()
    done = json.loads(kb(capsys, "cache", "remove", "--unused", "--yes", "--json").out)
    assert [e["entry"] for e in done["removed"]] == [free.name] and 3_000_000 < done[
        "bytes"
    ] < 3_010_000
    assert not free.path.exists() and used.path.is_dir()
    # by name, even one in use (it is made again on next use)
    named = kb(capsys, "cache", "remove", used.name, "--yes")
    assert named.code == 0 and "still used by" in named.out and not used.path.exists()


def test_remove_needs_names_or_unused(capsys: Cap, cache: Path) -> None:
    r = kb(capsys, "cache", "remove")
    assert r.code == 2 and "--unused" in r.err and len(r.err.splitlines()) == 1
    r = kb(capsys, "cache", "remove", "onnx/nope", "--yes")
    assert r.code == 2 and "no entry 'onnx/nope'" in r.err and len(r.err.splitlines()) == 1


def test_doctor_checks_the_kbs_model_files(
    capsys: Cap, tmp_path: Path, cache: Path, kb_home: Path
) -> None:
    from kb.store import Store

    e = _entry(tmp_path, cache, "onnx", b"a" * 100_000)
    with Store.open(kb_home) as store:
        store.meta_set("model_files", json.dumps({"embedding": e.name, "cache": str(cache)}))
    ok = kb(capsys, "doctor", "--no-devices")
    assert ok.code == 0 and f"ok    model files {e.name} (1.0 MB, sha256 checked)" in ok.out
    (e.path / "out.bin").write_bytes(b"x" * 1_000_000)  # same size, other bytes
    bad = kb(capsys, "doctor", "--no-devices")
    assert bad.code == 1 and f"FAIL  model files {e.name}" in bad.out and "sha256" in bad.out
    data = json.loads(kb(capsys, "doctor", "--no-devices", "--json").out)
    assert data["model_files"]["ok"] is False
    fixed = kb(capsys, "doctor", "--no-devices", "--repair")
    assert fixed.code == 0 and not e.path.exists()
    assert "repaired: removed the damaged model file entry" in fixed.out


def test_sizes_and_ages_read_naturally() -> None:
    assert human_bytes(12) == "12 B" and human_bytes(412_000) == "412 KB"
    assert human_bytes(90_769_350) == "91 MB" and human_bytes(1_234_000_000) == "1.2 GB"
    assert ago(None) == "never" and ago(100.0, now=130.0) == "just now"
    assert ago(0.0, now=7200.0) == "2 h ago" and ago(0.0, now=3 * 86400.0) == "3 days ago"
