"""Fuzzing: random bytes and hostile Unicode into every text entry point.

Each target must return a result or raise a :class:`kb.errors.KbError`; never another
exception, and never hang (every example runs under an alarm). Inputs mix control
characters, NULs, byte-order marks, bidirectional marks, lone surrogates and very long
lines. ``make test`` runs a bounded number of examples; set ``KB_FUZZ_EXAMPLES`` (e.g.
5000) to fuzz longer.

Targets: the Markdown and plain-text loaders (file bytes), both chunkers, the FTS5
query builder (its MATCH expression is run on a real FTS5 table: no syntax error may
reach SQLite) and the golden-set loader (YAML and JSONL text, raw bytes, and random
YAML documents).
"""

from __future__ import annotations

import codecs
import contextlib
import json
import os
import signal
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from eval.golden import load_golden
from ingest.chunkers import make_chunker
from ingest.loaders import LoadContext, MarkdownLoader, TextLoader
from kb.config import Settings, load_settings
from kb.errors import KbError
from kb.search.keyword import fts_query, keyword_search
from kb.types import LoadedDocument

EXAMPLES = int(os.environ.get("KB_FUZZ_EXAMPLES", "60"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    derandomize=EXAMPLES <= 60,  # the bounded run is repeatable; long runs explore
)
ALARM_S = 60

HOSTILE = st.sampled_from(
    [
        "\x00",
        "\ufeff",
        "\u202e",  # right-to-left override
        "\u200f",  # right-to-left mark
        "\u200b",  # zero-width space
        "\r",
        "\r\n",
        "\n\n",
        "\t",
        "\x1b[31m",
        "\ud800",  # lone surrogate
        "---\n",
        "# ",
        "```",
        '"',
        "*",
        "NEAR(",
        " AND OR NOT ",
        "^",
        ":",
        "x" * 5000,  # a very long line
    ]
)
TEXT = st.lists(st.one_of(st.text(max_size=40), HOSTILE), max_size=30).map("".join)
BYTES = st.one_of(
    st.binary(max_size=3000),
    st.tuples(
        st.sampled_from([b"", codecs.BOM_UTF8, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE]),
        st.binary(max_size=2000),
    ).map(lambda t: t[0] + t[1]),
    TEXT.map(lambda s: s.encode("utf-8", "surrogatepass")),
)


@contextmanager
def alarm(seconds: int = ALARM_S) -> Iterator[None]:
    def boom(signum: int, frame: object) -> None:
        raise TimeoutError(f"no result within {seconds} s: a hang")

    old = signal.signal(signal.SIGALRM, boom)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz")


@pytest.fixture(scope="module")
def kb_settings(work: Path) -> Settings:
    return load_settings(work / "kb", user_file=work / "none.toml")


@pytest.fixture(scope="module")
def chunkers(kb_settings: Settings) -> list[object]:
    return [make_chunker(name, kb_settings) for name in ("structure", "window")]


def _load(loader: object, path: Path, ctx: LoadContext) -> LoadedDocument | None:
    try:
        doc = loader.load(path, path.name, ctx)  # type: ignore[attr-defined]
    except KbError:
        return None
    assert isinstance(doc, LoadedDocument) and doc.sections
    return doc


@FUZZ
@given(data=BYTES)
def test_text_loaders_and_chunkers_survive_any_bytes(
    data: bytes, work: Path, kb_settings: Settings, chunkers: list[object]
) -> None:
    ctx = LoadContext(settings=kb_settings, transcriber=lambda: None)  # type: ignore[arg-type,return-value]
    for loader, name in ((MarkdownLoader(), "f.md"), (TextLoader(), "f.txt")):
        path = work / name
        path.write_bytes(data)
        with alarm():
            doc = _load(loader, path, ctx)
            if doc is None:
                continue
            for s in doc.sections:  # loaders' own invariant: no NUL reaches the index
                assert "\x00" not in s.text
            for chunker in chunkers:
                try:
                    drafts = chunker.chunk(doc)  # type: ignore[attr-defined]
                except KbError:
                    continue
                for d in drafts:
                    assert d.text.strip() and 0 <= d.char_start <= d.char_end


@pytest.fixture(scope="module")
def fts(work: Path) -> Iterator[sqlite3.Connection]:
    from kb.store import Store
    from kb.types import ChunkDraft, ChunkerInfo, Span

    store = Store.open(work / "fts-kb")
    for i, text in enumerate(["Kestrels hover over fields.", "NEAR the heron's nest", "x:y ^z"]):
        store.save_document(
            root="/c",
            path=f"d{i}.md",
            doc_type="md",
            content_hash=str(i),
            size=1,
            mtime=1.0,
            chunks=[ChunkDraft(text, (), Span(line_start=1, line_end=1), 0, len(text), 5)],
            chunker=ChunkerInfo("structure", "1", {}),
        )
    yield store.conn
    store.close()


@FUZZ
@given(text=TEXT)
def test_fts_query_builder_never_hands_sqlite_a_syntax_error(
    text: str, fts: sqlite3.Connection
) -> None:
    with alarm():
        q = fts_query(text)
        if q is not None:
            fts.execute("SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ?", (q,)).fetchall()
        hits = keyword_search(fts, text, 5)
    assert all(isinstance(cid, int) for cid, _ in hits)


GOLDEN_VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), TEXT.map(lambda s: s[:50])),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(
            st.sampled_from(
                [
                    "id",
                    "question",
                    "supports",
                    "path",
                    "snippet",
                    "lines",
                    "seconds",
                    "answerable",
                    "answer",
                    "any_of",
                    "queries",
                    "schema_version",
                    "corpus",
                    "category",
                    "page",
                    "heading",
                    "grade",
                    "x",
                ]
            ),
            inner,
            max_size=5,
        ),
    ),
    max_leaves=20,
)


@FUZZ
@given(
    doc=st.one_of(
        BYTES,
        GOLDEN_VALUES.map(lambda v: yaml.safe_dump({"schema_version": 1, "queries": [v]}).encode()),
        GOLDEN_VALUES.map(lambda v: yaml.safe_dump(v).encode()),
    ),
    suffix=st.sampled_from([".yaml", ".jsonl"]),
)
def test_golden_loader_returns_a_set_or_a_golden_error(doc: bytes, suffix: str, work: Path) -> None:
    path = work / f"golden{suffix}"
    if suffix == ".jsonl" and doc[:1] not in (b"{", b"["):
        # the same random value as JSON lines when it is JSON-able, else the raw bytes
        with contextlib.suppress(Exception):
            doc = json.dumps(yaml.safe_load(doc)).encode() + b"\n" + doc
    path.write_bytes(doc)
    with alarm():
        try:
            gs = load_golden(path)
        except KbError:
            return
    assert gs.queries is not None
