"""What a user sees when files, folders or disks misbehave (real ``python -m kb`` processes).

KBs are written with the real store (keyword mode needs no model), so no model loads.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from eval.store import EvalStore
from kb.store import Store
from tests.kb.test_store_health import add_doc, read_only_view

pytestmark = pytest.mark.slow


def kb(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "KB_HOME": str(home), "HF_HUB_OFFLINE": "1"}
    return subprocess.run(
        [sys.executable, "-m", "kb", *args], env=env, capture_output=True, text=True, timeout=300
    )


def test_names_with_control_characters_are_escaped_on_the_terminal(
    kb_home: Path, tmp_path: Path
) -> None:
    corpus = tmp_path / "c"
    corpus.mkdir()
    (corpus / "bad\nname.md").write_bytes(b"# Title\n\nab\x00cd\n")
    r = kb("ingest", str(corpus), home=kb_home)
    assert r.returncode == 1
    assert r.stderr.splitlines()[0] == (
        'kb: failed: "c/bad\\nname.md": binary content (NUL character at text offset 11); '
        "not a text file"
    )
    assert len(r.stderr.splitlines()) == 2  # the failure, then the summary line
    j = kb("ingest", str(corpus), "--json", home=kb_home)
    files = json.loads(j.stdout)["files"]
    assert [f["path"] for f in files] == ["c/bad\nname.md"]  # exact in JSON ("c" is the source)


def test_search_quotes_a_path_with_a_newline(kb_home: Path) -> None:
    with Store.open(kb_home) as store:
        add_doc(store, "two\nlines.md", "Kestrels hover over fields.")
    r = kb("search", "kestrels", "--mode", "keyword", home=kb_home)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[0].startswith(' 1. "two\\nlines.md"')
    j = kb("search", "kestrels", "--mode", "keyword", "--json", home=kb_home)
    assert json.loads(j.stdout)["hits"][0]["path"] == "two\nlines.md"


def test_read_only_kb_answers_read_commands_and_refuses_ingest(
    kb_home: Path, tmp_path: Path
) -> None:
    with Store.open(kb_home) as store:
        add_doc(store, "a.md", "Kestrels hover over fields.")
        es = EvalStore(store)
        es.finish_run(es.create_run("nightly", "g.yaml", "h", {}, {"k": 5}), "complete", None)
    with read_only_view(kb_home, tmp_path / "ro") as ro:
        st = kb("status", "--json", "--kb", str(ro), home=kb_home)
        assert st.returncode == 0, st.stderr
        assert json.loads(st.stdout)["totals"]["chunks"] == 1
        s = kb("search", "kestrels", "--mode", "keyword", "--kb", str(ro), home=kb_home)
        assert s.returncode == 0 and "a.md" in s.stdout, s.stderr
        ev = kb("eval", "list", "--json", "--kb", str(ro), home=kb_home)
        assert ev.returncode == 0 and "nightly" in ev.stdout, ev.stderr
        show = kb("eval", "show", "nightly", "--json", "--kb", str(ro), home=kb_home)
        assert show.returncode == 0, show.stderr  # metrics computed, not cached
        doc = kb("doctor", "--no-devices", "--json", "--kb", str(ro), home=kb_home)
        report = json.loads(doc.stdout)  # the chunk was never embedded: pending, exit 1
        assert doc.returncode == 1 and report["pending_chunks"] == 1 and report["fts_in_sync"]
        rep = kb("doctor", "--repair", "--no-devices", "--kb", str(ro), home=kb_home)
        assert rep.returncode == 1 and "kb doctor --repair needs write access" in rep.stderr
        ing = kb("ingest", str(tmp_path), "--kb", str(ro), home=kb_home)
        assert ing.returncode == 1
        assert ing.stderr.splitlines() == [
            f"kb: error: KB folder {ro} is read-only; kb ingest needs write access"
        ]


def test_damaged_database_is_one_line_naming_it(kb_home: Path) -> None:
    with Store.open(kb_home) as store:
        add_doc(store, "a.md", "Kestrels hover over fields.")
    db = kb_home / "kb.sqlite"
    with db.open("r+b") as f:
        f.write(b"\0" * 64)
    r = kb("status", home=kb_home)
    assert r.returncode == 1
    (line,) = r.stderr.splitlines()
    assert line.startswith(f"kb: error: {db}: the KB database is damaged")
    assert "internal error" not in line and "move it away" not in line


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "NaN"])
def test_float_options_refuse_nan_and_inf(kb_home: Path, value: str) -> None:
    r = kb("search", "x", "--mode", "keyword", f"--min-score={value}", home=kb_home)
    assert r.returncode == 2
    assert r.stderr.splitlines() == [
        f"kb search: error: invalid value for --min-score: {float(value)}: must be a finite "
        "number (see `kb search -h`)"
    ]


@pytest.mark.parametrize(("command", "word"), [("search", "-boiler"), ("ask", "-x")])
def test_a_query_that_looks_like_an_option_shows_the_dash_dash_form(
    kb_home: Path, command: str, word: str
) -> None:
    r = kb(command, word, home=kb_home)
    assert r.returncode == 2
    (line,) = r.stderr.splitlines()
    assert line.endswith(f"put -- before it: kb {command} -- {word}")
    assert "internal error" not in line


def test_config_refuses_nan(tmp_path: Path, kb_home: Path) -> None:
    from kb.config import load_settings
    from kb.errors import ConfigError

    cfg = tmp_path / "user.toml"
    cfg.write_text("[search]\nmin_score = nan\n")
    with pytest.raises(ConfigError, match=r"search.min_score: expected a finite number, got nan"):
        load_settings(user_file=cfg)


def test_doctor_salvage_cli_replaces_a_damaged_database(kb_home: Path) -> None:
    with Store.open(kb_home) as store:
        add_doc(store, "a.md", "Kestrels hover over fields.")
        es = EvalStore(store)
        es.finish_run(es.create_run("nightly", "g.yaml", "h", {}, {"k": 5}), "complete", None)
    with (kb_home / "kb.sqlite").open("r+b") as f:
        f.seek(16)  # page size field: the file no longer parses as SQLite
        f.write(b"\x00\x07")
    assert kb("status", home=kb_home).returncode == 1
    r = kb("doctor", "--salvage", "--json", home=kb_home)
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    assert Path(report["damaged_copy"]).is_file()
    st = kb("status", "--json", home=kb_home)
    assert st.returncode == 0, st.stderr


def test_full_disk_during_ingest_is_one_line_and_loses_nothing(tmp_path: Path) -> None:
    """A real full disk (a 256 kB tmpfs), then the KB moved to a larger disk and re-run."""
    import random
    import shutil
    import sqlite3

    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    corpus = tmp_path / "c"
    corpus.mkdir()
    rng = random.Random(1)
    for i in range(60):
        words = " ".join(f"w{rng.randrange(10**6)}" for _ in range(120))
        (corpus / f"n{i:03d}.md").write_text(f"# Note {i}\n\n{words}\n")
    small = tmp_path / "small"
    small.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(small)]).returncode:
        pytest.skip("mounting a tmpfs is not permitted here")
    try:
        r = kb("ingest", str(corpus), "--kb", str(small / "kb"), home=small / "kb")
        assert r.returncode == 1
        (line,) = r.stderr.splitlines()
        assert line == (
            f"kb: error: the disk holding {small / 'kb'} is full (writing kb.sqlite); "
            "nothing stored is lost: free space and re-run kb ingest"
        )
        big = tmp_path / "big"
        shutil.copytree(small / "kb", big)
    finally:
        subprocess.run(["umount", str(small)], check=False)
    again = kb("ingest", str(corpus), "--kb", str(big), "--json", home=big)
    assert again.returncode == 0, again.stderr
    with sqlite3.connect(big / "kb.sqlite") as c:
        assert c.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        n = c.execute("SELECT count(*) FROM documents WHERE status = 'indexed'").fetchone()[0]
    assert n == 60
