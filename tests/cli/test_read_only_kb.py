"""Reading never needs writing: a KB mounted read-only straight after an ingest answers
``kb search``, ``kb ask`` and ``kb serve``'s ``/api/search`` (real models, real
read-only bind mounts; they skip where mounting is not permitted; tests run as root,
where ``chmod a-w`` stops nothing).

Before, ``kb ingest`` did not write ``cache/search-vectors.bin``; the first search did,
and on a read-only KB it failed with "search-vectors.bin.tmp…: Read-only file system"
(exit 1, HTTP 500).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import FIXTURES
from tests.kb.test_store_health import read_only_view

pytestmark = pytest.mark.slow

QUESTION = "How long does the sourdough proof in the refrigerator?"


def kb(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "KB_HOME": str(home), "HF_HUB_OFFLINE": "1"}
    return subprocess.run(
        [sys.executable, "-m", "kb", *args], env=env, capture_output=True, text=True, timeout=600
    )


@pytest.fixture(scope="module")
def ingested(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("ro")
    notes = root / "notes"
    shutil.copytree(FIXTURES / "demo" / "notes", notes)
    home = root / "kb"
    r = kb("ingest", str(notes), "-q", home=home)
    assert r.returncode == 0, r.stderr
    return home


def test_ingest_writes_the_vector_cache(ingested: Path) -> None:
    assert (ingested / "cache" / "search-vectors.bin").is_file()


def test_a_read_only_kb_answers_search_ask_and_the_api(ingested: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(ingested, copy)
    with read_only_view(copy, tmp_path / "mnt") as ro:
        s = kb("search", "sourdough cold proof", "-k", "2", "--kb", str(ro), home=ro)
        assert s.returncode == 0, s.stderr
        assert "sourdough.md" in s.stdout
        # (the machine's model cache may say it exports the ONNX model once: not the KB)
        assert str(ro) not in s.stderr and "Read-only" not in s.stderr
        a = kb("ask", QUESTION, "--kb", str(ro), home=ro)
        assert a.returncode == 0, a.stderr
        assert "[#1]" in a.stdout and "Read-only" not in a.stderr

        from starlette.testclient import TestClient

        from kb.config import load_settings
        from kb.serve.app import create_app
        from kb.serve.runtime import Runtime

        rt = Runtime.open(load_settings(ro, user_file=tmp_path / "none.toml"))
        try:
            app = create_app(rt, "127.0.0.1", 8765)
            with TestClient(app, base_url="http://127.0.0.1:8765") as c:
                r = c.get("/api/search", params={"q": "sourdough cold proof"})
                assert r.status_code == 200, r.text
                assert r.json()["hits"]
        finally:
            rt.close()


def test_without_its_vector_cache_a_read_only_kb_says_one_note(
    ingested: Path, tmp_path: Path
) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(ingested, copy)
    (copy / "cache" / "search-vectors.bin").unlink()  # a KB from an older kb, say
    with read_only_view(copy, tmp_path / "mnt") as ro:
        s = kb("search", "sourdough cold proof", "-k", "2", "--kb", str(ro), home=ro)
        assert s.returncode == 0, s.stderr
        assert "sourdough.md" in s.stdout
        assert [line for line in s.stderr.splitlines() if str(ro) in line] == [
            f"kb: note: could not write {ro / 'cache' / 'search-vectors.bin'} (the KB folder "
            "is not writable); searching works, with the vectors read from LanceDB at each "
            "start; `kb ingest` with write access writes the file"
        ]
