"""Plug-in chunkers in their child process: bad plug-ins each get one line and the
ingest goes on; a good one ingests real files into a real store that search reads."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

from ingest.chunkers import make_chunker
from ingest.chunkers.plugin import PluginChunker
from ingest.pipeline import ingest_paths
from kb.backends.embedder import Embedder
from kb.config import load_settings, override
from kb.errors import IngestError, UsageError
from kb.search import Retriever, SearchOptions
from kb.store import Store
from kb.types import LoadedDocument, Section, Span

pytestmark = pytest.mark.slow

BAD = """
import os, sys, time

def chunk(text, mode="ok"):
    if "HANG" in text or mode == "hang":
        while True:
            time.sleep(0.05)
    if "BOOM" in text or mode == "raise":
        raise ValueError("cannot split this\\nsecond line")
    if mode == "past_end":
        return [(0, len(text) + 5)]
    if mode == "out_of_order":
        return [(2, 4), (0, 2)]
    if mode == "tiny":
        return ((k, k + 1) for k in range(100_000))
    if mode == "exit":
        sys.exit(3)
    if mode == "die":
        os._exit(3)
    if mode == "text":
        return "not spans"
    print("plug-in chatter that must not reach stdout")
    return [(0, len(text))]
"""


@pytest.fixture
def bad(tmp_path: Path) -> Path:
    path = tmp_path / "bad_chunker.py"
    path.write_text(textwrap.dedent(BAD), encoding="utf-8")
    return path


def doc(text: str, path: str = "notes/a.txt") -> LoadedDocument:
    lines = text.count("\n") + 1
    return LoadedDocument(path, "txt", [Section(text, (), Span(1, lines), 0, len(text))], text=text)


def chunker(spec: str, timeout: float = 20.0) -> PluginChunker:
    c = make_chunker(spec, load_settings())
    assert isinstance(c, PluginChunker)
    c.process.timeout = timeout
    return c


@pytest.mark.parametrize(
    ("mode", "problem"),
    [
        ("raise", "raised ValueError: cannot split this"),
        ("past_end", r"span 0 \(0, 105\) lies outside the text of 100 characters"),
        ("out_of_order", r"span 1 \(0, 2\) is out of order after span 0 \(2, 4\)"),
        ("tiny", "returned more than 10,000 spans, the limit per file"),
        ("exit", "raised SystemExit: 3"),
        ("die", r"its process died while chunking \(exit code 3\)"),
        ("text", "returned str, not an iterable of spans"),
        ("hang", r"timed out after 1.5 s while chunking; it was stopped"),
    ],
)
def test_bad_plugin_gets_one_line(bad: Path, mode: str, problem: str) -> None:
    c = chunker(f"{bad}#chunk:mode={mode}", timeout=1.5)
    try:
        with pytest.raises(IngestError) as info:
            c.chunk(doc("x" * 100))
        msg = str(info.value)
        assert "\n" not in msg
        assert msg.startswith(f"notes/a.txt: chunker {bad.resolve()}#chunk: ")
        assert re.search(problem, msg), msg
    finally:
        c.close()


def test_plugin_recovers_after_a_hang_and_output_stays_off_stdout(
    bad: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    c = chunker(f"{bad}#chunk", timeout=1.5)
    try:
        with pytest.raises(IngestError, match="timed out"):
            c.chunk(doc("HANG here"))
        drafts = c.chunk(doc("fine text"))  # a fresh child answers the next document
        assert [(d.char_start, d.char_end, d.text) for d in drafts] == [(0, 9, "fine text")]
        out, err = capfd.readouterr()
        assert "chatter" not in out and "chatter" in err
        assert c.info.version.startswith("sha256:") and c.info.params == {}
    finally:
        c.close()


def test_plugin_that_fails_to_load_is_a_usage_error(tmp_path: Path) -> None:
    broken = tmp_path / "broken.py"
    broken.write_text("def chunk(text:\n", encoding="utf-8")
    with pytest.raises(UsageError, match=r"broken.py#chunk: cannot load: raised SyntaxError"):
        make_chunker(f"{broken}#chunk", load_settings())


def test_ingest_records_the_failing_file_and_goes_on(
    bad: Path, tmp_path: Path, real_embedder: Embedder
) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "a.md").write_text("# Herons\n\nHerons nest in tall trees.\n", encoding="utf-8")
    (corpus / "b.md").write_text("# Boom\n\nThis one says BOOM.\n", encoding="utf-8")
    (corpus / "c.txt").write_text("Kingfishers dive for fish.\n", encoding="utf-8")
    settings = override(load_settings(), **{"ingest.chunker": f"{bad}#chunk"})
    with Store.open(settings.home) as store:
        report = ingest_paths(store, settings, [corpus], embedder=real_embedder)
        failed = {f.path: f.error for f in report.files if f.outcome == "failed"}
        assert failed == {
            "corpus/b.md": f"chunker {bad.resolve()}#chunk: raised ValueError: cannot split this"
        }
        assert report.exit_code == 1 and report.count("added") == 2
        hits = (
            Retriever(store, real_embedder).search("where do herons nest", SearchOptions(k=3)).hits
        )
        top = hits[0]
        assert top.path == "corpus/a.md" and top.text == "# Herons\n\nHerons nest in tall trees.\n"
        assert (top.locator.span.line_start, top.locator.span.line_end) == (1, 3)
        assert top.locator.heading_path == ("Herons",)
        assert "b.md" not in {h.path for h in hits}
