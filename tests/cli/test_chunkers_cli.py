"""`kb chunkers list/check` and `kb ingest --chunker PLUGIN` as a user runs them: a
20-line paragraph plug-in built with hatchling, installed with pip into a folder on
PYTHONPATH (entry point `kb.chunkers`), then used on real squad-dev files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.conftest import FIXTURES, ROOT, require_squad

pytestmark = pytest.mark.slow

PARA = '''
"""Paragraph spans for kb: each run of text between blank lines is a chunk."""

import re

__version__ = "0.3.1"
_BLANK = re.compile(r"\\n[ \\t]*\\n")


def chunk(text, min_chars=1):
    """Yield (start, end) for every paragraph of at least min_chars characters."""
    pos = 0
    for m in _BLANK.finditer(text):
        if text[pos : m.start()].strip() and m.start() - pos >= min_chars:
            yield (pos, m.start())
        pos = m.end()
    if text[pos:].strip() and len(text) - pos >= min_chars:
        yield (pos, len(text))
'''

PYPROJECT = """
[build-system]
requires = ["hatchling"]
build-backend = "hatchling.build"

[project]
name = "kb-para-chunker"
version = "0.3.1"

[project.entry-points."kb.chunkers"]
para = "kb_para:chunk"

[tool.hatch.build.targets.wheel]
packages = ["kb_para"]
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The plug-in, installed with pip into a folder (no venv touched)."""
    src = tmp_path_factory.mktemp("kb-para-src")
    (src / "kb_para").mkdir()
    (src / "kb_para" / "__init__.py").write_text(textwrap.dedent(PARA), encoding="utf-8")
    (src / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    target = tmp_path_factory.mktemp("kb-para-site")
    cmd = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps"]
    cmd += ["--no-build-isolation", "--no-index", "--target", str(target), str(src)]
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    return target


def kb(*args: str, home: Path, site: Path | None = None) -> subprocess.CompletedProcess[str]:
    paths = [str(site)] if site else []
    paths += [str(ROOT), *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    env = {**os.environ, "KB_HOME": str(home), "PYTHONPATH": os.pathsep.join(paths)}
    return subprocess.run(
        [sys.executable, "-m", "kb", *args], env=env, capture_output=True, text=True
    )


def test_list_shows_builtins_and_only_installed_plugins(kb_home: Path, site: Path) -> None:
    bare = json.loads(kb("chunkers", "list", "--json", home=kb_home).stdout)["available"]
    # built-ins first; kb-rag's own adapters (kb[chunkers]) are listed when its
    # installed metadata has them; the para plug-in only with its site on the path
    assert [r["name"] for r in bare][:2] == ["structure", "window"]
    assert {r["name"] for r in bare[2:]} <= {"chonkie-recursive", "chonkie-sentence", "semchunk"}
    listed = json.loads(kb("chunkers", "list", "--json", home=kb_home, site=site).stdout)
    assert listed["chunkings"] == []  # no KB yet: nothing stored
    rows = listed["available"]
    assert next(r for r in rows if r["name"] == "para") == {
        "name": "para",
        "source": "installed (kb-para-chunker)",
        "version": "0.3.1",
        "target": "kb_para:chunk",
    }
    text = kb("chunkers", "list", home=kb_home, site=site).stdout
    assert "para" in text and "0.3.1" in text and "built-in" in text


def test_check_reports_and_lints(kb_home: Path, site: Path) -> None:
    fixture = FIXTURES / "chunkers" / "repeated.md"
    r = kb("chunkers", "check", "para", str(fixture), "--json", home=kb_home, site=site)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["chunker"] == {"name": "para", "version": "kb-para-chunker 0.3.1", "params": {}}
    assert out["read_limit"] == 254  # all-MiniLM-L6-v2: 256 word pieces with [CLS]/[SEP]
    (f,) = out["files"]
    # 7 blank-line separated blocks: front matter + "# Alpha", 3 paragraphs, "## Beta",
    # the fence; every one of them is short, none crosses a heading or breaks a fence
    assert (f["chunks"], f["coverage"], f["uncovered_chars"]) == (6, 1.0, 0)
    assert f["lint"]["short"] == list(range(6)) and f["lint"]["broken_fence"] == []
    assert not f["lint"]["crosses_heading"] and f["overlap"] == 0.0
    human = kb(
        "chunkers", "check", "window:size=300", str(FIXTURES / "demo" / "notes"), home=kb_home
    )
    assert human.returncode == 0, human.stderr
    assert "over 254 tokens (the embedder drops the rest)" in human.stdout
    assert "crossing a heading" in human.stdout


def test_check_bad_spec_and_bad_plugin(kb_home: Path, tmp_path: Path) -> None:
    r = kb("chunkers", "check", "nope", str(FIXTURES / "chunkers" / "repeated.md"), home=kb_home)
    assert r.returncode == 2 and "unknown chunker 'nope'" in r.stderr
    bad = tmp_path / "late.py"
    bad.write_text("def chunk(text):\n    return [(0, len(text) + 1)]\n", encoding="utf-8")
    fixture = FIXTURES / "chunkers" / "repeated.md"
    r = kb("chunkers", "check", f"{bad}#chunk", str(fixture), home=kb_home)
    assert r.returncode == 1
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert lines == [
        f"kb: {fixture}: chunker {bad.resolve()}#chunk: span 0 (0, 212) lies outside "
        "the text of 211 characters"
    ]
    slow = tmp_path / "slow.py"
    slow.write_text("import time\n\ndef chunk(text):\n    time.sleep(60)\n", encoding="utf-8")
    r = kb("chunkers", "check", f"{slow}#chunk", str(fixture), "--timeout", "1", home=kb_home)
    assert r.returncode == 1
    assert r.stderr.strip().endswith("timed out after 1 s while chunking; it was stopped")
    assert not kb_home.exists()  # a check stores nothing, not even a KB folder


def test_ingest_with_installed_plugin_then_search(
    kb_home: Path, site: Path, tmp_path: Path
) -> None:
    squad = require_squad()
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    files = sorted((squad / "corpus").rglob("*.md"))[:4]
    for f in files:
        (corpus / f.name).write_bytes(f.read_bytes())
    r = kb(
        "ingest", str(corpus), "--chunker", "para:min_chars=2", "--json", home=kb_home, site=site
    )
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    assert report["counts"]["added"] == 4 and report["chunks_embedded"] > 4
    # the second file's first body paragraph, searched by its own words
    body = files[1].read_text(encoding="utf-8").split("\n\n")[1]
    query = " ".join(body.split()[:12])
    s = kb("search", query, "--json", home=kb_home, site=site)
    assert s.returncode == 0, s.stderr
    hits = json.loads(s.stdout)["hits"]
    assert hits[0]["path"].endswith("/" + files[1].name) and hits[0]["text"] == body
    assert hits[0]["locator"]["lines"] == [3, 3]
    again = json.loads(
        kb(
            "ingest",
            str(corpus),
            "--chunker",
            "para:min_chars=2",
            "--json",
            home=kb_home,
            site=site,
        ).stdout
    )
    assert again["counts"]["unchanged"] == 4 and again["chunks_embedded"] == 0


def test_installed_plugin_is_listed_and_runs_in_a_sweep(
    kb_home: Path, site: Path, tmp_path: Path
) -> None:
    """The pip-installed paragraph plug-in in `kb chunkers list` and `kb eval sweep`."""
    ing = kb("ingest", str(FIXTURES / "demo" / "notes"), "-q", home=kb_home, site=site)
    assert ing.returncode == 0, ing.stderr
    listed = json.loads(kb("chunkers", "list", "--json", home=kb_home, site=site).stdout)
    assert "para" in {r["name"] for r in listed["available"]}
    golden = FIXTURES / "golden" / "demo.yaml"
    args = ["eval", "sweep", str(golden), "--chunker", "structure", "--chunker", "para"]
    html = tmp_path / "sweep.html"
    r = kb(*args, "--json", "--html", str(html), home=kb_home, site=site)
    assert r.returncode == 0, r.stderr
    board = json.loads(r.stdout)
    base, para = board["rows"]
    assert base["verdict"] == "baseline" and para["spec"] == "para"
    assert para["verdict"] in ("win", "tie", "loss") and para["chunks"] > 0
    assert para["metrics"]["hit@5"] is not None and para["texts_embedded"] > 0
    # the stored chunks' lint and the chunk-level metrics sit beside the retrieval metrics
    assert {"lint too_long", "lint short", "lint broken_fence"} <= set(para["extra"])
    assert para["metrics"]["precision_omega"] is not None
    assert "<svg" in html.read_text(encoding="utf-8")
    # the plug-in's chunking stays stored beside the live one; a second sweep embeds nothing
    listed = json.loads(kb("chunkers", "list", "--json", home=kb_home, site=site).stdout)
    assert [(c["name"], c["live"]) for c in listed["chunkings"]] == [
        ("structure", True),
        ("para", False),
    ]
    again = json.loads(kb(*args, "--json", home=kb_home, site=site).stdout)
    assert [row["texts_embedded"] for row in again["rows"]] == [0, 0]
    assert again["rows"][1]["metrics"] == para["metrics"]
