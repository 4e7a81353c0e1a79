"""CLI conventions: usage errors, help text, broken pipes, readable status and doctor.

Usage errors run through the real entry point in-process (:mod:`tests.cli.clirun`);
the broken pipe runs ``python -m kb`` in a subprocess whose stdout is closed.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from kb.cli.progress import LineRate
from kb.types import Locator, Span, mmss, plural
from tests.cli.clirun import kb
from tests.conftest import ROOT

Cap = pytest.CaptureFixture[str]


def all_command_paths() -> list[list[str]]:
    """Every command and group of ``kb``, as argument lists (``[]`` is ``kb`` itself)."""
    from typer.main import get_command

    from kb.cli import app

    out: list[list[str]] = []

    def visit(cmd: object, path: list[str]) -> None:
        out.append(path)
        for name, sub in sorted(getattr(cmd, "commands", {}).items()):
            visit(sub, [*path, name])

    visit(get_command(app), [])
    return out


def test_plain_kb_prints_help_and_exits_0(capsys: Cap) -> None:
    r = kb(capsys)
    assert r.code == 0 and r.err == ""
    assert r.out.startswith("Usage: kb [OPTIONS] COMMAND [ARGS]...")
    for name in ("ingest", "search", "ask", "eval", "sources", "docs", "status", "doctor"):
        assert f"\n  {name} " in r.out


@pytest.mark.parametrize("group", [["eval"], ["config"], ["sources", "-h"], ["docs", "-h"]])
def test_groups_without_a_command_print_help(capsys: Cap, group: list[str]) -> None:
    r = kb(capsys, *group)
    assert r.code == 0 and "Usage: kb " in r.out and r.err == ""


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["serch", "x"], "unknown command 'serch'; did you mean 'search'?"),
        (["eval", "rn"], "kb eval: error: unknown command 'rn'; did you mean 'run'?"),
        (["search"], "missing argument QUERY; usage: kb search [OPTIONS] QUERY"),
        (["ask"], "missing argument QUESTION"),
        (["eval", "show"], "missing argument RUN"),
        (["search", "x", "--bogus"], "unknown option --bogus"),
        (["search", "x", "--jsn"], "did you mean --json?"),
        (["search", "x", "-k", "0"], "invalid value for -k/--k: 0 is below 1"),
        (["ask", "x", "-k", "0"], "invalid value for -k/--k: 0 is below 1"),
        (["eval", "run", "g.yaml", "-k", "0"], "invalid value for -k/--k: 0 is below 1"),
        (["search", "x", "-k", "abc"], "invalid value for -k/--k: not a whole number"),
        (["search", "x", "--min-score", "abc"], "invalid value for --min-score: not a number"),
        (["search", "two", "words"], "quote text with spaces"),
        (
            ["ingest", "--chunker", "nope", "."],
            "unknown chunker 'nope'; valid chunkers: structure, window",
        ),
        (["ingest"], "no sources yet; run `kb ingest PATH`"),
        (["ingest", "/definitely/not/here"], "/definitely/not/here: no such file or folder"),
    ],
)
def test_usage_errors_are_one_line_and_exit_2(capsys: Cap, args: list[str], needle: str) -> None:
    r = kb(capsys, *args)
    assert r.code == 2, r
    assert r.out == ""
    lines = r.err.splitlines()
    assert len(lines) == 1, r.err
    assert needle in lines[0]
    assert "internal error" not in r.err and "Traceback" not in r.err


def test_the_same_k_error_everywhere(capsys: Cap) -> None:
    """`-k 0` is validated once: the same words in search, ask and eval run."""
    msgs = {
        kb(capsys, *a, "-k", "0").err.split("error: ", 1)[1].split(" (see")[0]
        for a in (["search", "q"], ["ask", "q"], ["eval", "run", "g.yaml"])
    }
    assert len(msgs) == 1


def test_every_help_is_clean_and_has_examples(capsys: Cap) -> None:
    paths = all_command_paths()
    assert len(paths) > 15
    for path in paths:
        for flag in ("-h", "--help"):
            r = kb(capsys, *path, flag)
            assert r.code == 0, (path, r.err)
            text = r.out
            for bad in ("{", "<list", "<int", "<str", "<path", "…", "(default:"):
                assert bad not in text, (path, bad, text)
            assert "Examples:" in text or path[-1:] == ["path"] and "kb config path" in text, path
            assert text.count("Examples:") <= 1, (path, "one Examples block per help")
            assert text.startswith(f"Usage: {' '.join(['kb', *path])}")


def test_choices_are_listed_in_help(capsys: Cap) -> None:
    assert "structure, window" in kb(capsys, "ingest", "-h").out
    assert (
        "hybrid" in kb(capsys, "search", "-h").out and "keyword" in kb(capsys, "search", "-h").out
    )
    assert "trec" in kb(capsys, "eval", "export", "-h").out


def test_kb_config_naming_a_missing_file_is_a_one_line_error(
    capsys: Cap, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("KB_CONFIG", str(tmp_path / "missing.toml"))
    r = kb(capsys, "config", "show")
    assert r.code == 2 and r.err.count("\n") == 1
    assert "KB_CONFIG=" in r.err and "does not exist" in r.err


def test_broken_pipe_ends_quietly_with_141(tmp_path: Path, kb_home: Path) -> None:
    """stdout closed before kb writes: exit 141 (128 + SIGPIPE), nothing on stderr."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    p = subprocess.Popen(
        [sys.executable, "-m", "kb", "config", "show"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        cwd=tmp_path,
    )
    assert p.stdout is not None and p.stderr is not None
    p.stdout.close()  # the reader went away (`| head` that already exited)
    err = p.stderr.read().decode()
    p.stderr.close()
    assert p.wait(timeout=60) == 141
    assert "Error" not in err and "Traceback" not in err and "kb:" not in err


def test_report_files_are_written_before_stdout_breaks(tmp_path: Path) -> None:
    """`kb eval show RUN --md --html | head` with the reader gone: both files written."""
    import shutil

    from tests.conftest import FIXTURES

    home = tmp_path / "kb"
    shutil.copytree(FIXTURES / "db" / "kb-schema-v2", home)
    md, html = tmp_path / "r.md", tmp_path / "r.html"
    args = ["eval", "show", "old", "--md", str(md), "--html", str(html), "--kb", str(home)]
    p = subprocess.Popen(
        [sys.executable, "-m", "kb", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert p.stdout is not None and p.stderr is not None
    p.stdout.close()
    err = p.stderr.read().decode()
    p.stderr.close()
    assert p.wait(timeout=60) == 141, err
    assert "hit@5" in md.read_text() and html.read_text().lstrip().startswith("<!")


def test_status_and_doctor_print_text_on_an_empty_kb(capsys: Cap, kb_home: Path) -> None:
    from kb.store import Store

    Store.open(kb_home).close()
    s = kb(capsys, "status")
    assert s.code == 0
    assert "{" not in s.out and "0 documents" in s.out and "sources: none yet" in s.out
    d = kb(capsys, "doctor", "--no-devices")
    assert d.code == 0 and d.out.startswith("the KB is consistent")
    assert "clean: True" not in d.out and "ok    full-text index" in d.out
    assert kb(capsys, "doctor", "--no-devices", "--json").out.lstrip().startswith("{")


def test_line_rate_is_bounded_by_time_and_steps() -> None:
    now = [0.0]
    rate = LineRate(interval=5.0, clock=lambda: now[0])
    printed = []
    for done in range(1, 101):  # 100 items, one per second
        now[0] += 1.0
        if rate.due(done, 100):
            printed.append(done)
    # never two lines within 5 s, never twice in one 10% step, and the last one printed
    assert all(b - a >= 5 for a, b in zip(printed, printed[1:], strict=False))
    assert len({d * 10 // 100 for d in printed}) == len(printed)
    assert printed[-1] == 100 and len(printed) <= 20
    assert not LineRate(clock=lambda: 0.0).due(100, 100)  # too soon after the start


def test_locators_and_counts_read_naturally() -> None:
    one = Locator("notes/a.md", "md", span=Span(line_start=7, line_end=7))
    assert one.render() == "notes/a.md · line 7"
    many = Locator("notes/a.md", "md", span=Span(line_start=7, line_end=9))
    assert many.render() == "notes/a.md · lines 7–9"
    audio = Locator("memo.wav", "audio", span=Span(seconds_start=65.2, seconds_end=3725.0))
    assert audio.render() == "memo.wav · 01:05–1:02:05"
    assert mmss(59.9) == "00:59"
    assert (plural(1, "chunk"), plural(0, "chunk"), plural(2, "chunk")) == (
        "1 chunk",
        "0 chunks",
        "2 chunks",
    )


def test_json_locators_give_an_editor_link() -> None:
    md = Locator("notes/a.md", "md", span=Span(line_start=7, line_end=9), abs_path="/n/a.md")
    assert md.to_dict()["open"] == "/n/a.md:7" and md.to_dict()["abs_path"] == "/n/a.md"
    pdf = Locator("p/x.pdf", "pdf", span=Span(page_start=2, page_end=3), abs_path="/p/x.pdf")
    assert pdf.editor_link() == "/p/x.pdf#page=2"
    wav = Locator("a/m.wav", "audio", span=Span(seconds_start=65.7), abs_path="/a/m.wav")
    assert wav.editor_link() == "/a/m.wav#t=65"
    assert Locator("x.md", "md").to_dict()["open"] is None
