"""The chonkie and semchunk adapters (``kb[chunkers]``) with the real libraries and the
bundled embedder's tokenizer: spans are exact, ordered and within the token limit, also
on repeated paragraphs where a search from 0 would misplace chunks; the entry points in
pyproject run through `kb chunkers check`; a missing library is one line at load time."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import tomllib
from collections.abc import Callable
from pathlib import Path

import pytest

from ingest.chunkers.adapters import AdapterError, exact_spans, require, token_counter
from ingest.chunkers.chonkie_adapter import chonkie_recursive, chonkie_sentence
from ingest.chunkers.semchunk_adapter import semchunk
from ingest.chunkers.spans import validate_spans
from ingest.chunkers.worker import PluginFailure, PluginProcess
from ingest.tokens import default_counter
from tests.conftest import FIXTURES, ROOT

REPEATED = FIXTURES / "chunkers" / "repeated_paragraphs.md"
Adapter = Callable[..., list[tuple[int, int]]]

# (adapter, params, token limit); the fixture's sentences each fit the sentence chunker's
CASES: list[tuple[Adapter, dict[str, int | float], int]] = [
    (chonkie_recursive, {"chunk_size": 40}, 40),
    (chonkie_recursive, {"chunk_size": 200}, 200),
    (chonkie_sentence, {"chunk_size": 48, "chunk_overlap": 0}, 48),
    (chonkie_sentence, {"chunk_size": 48, "chunk_overlap": 16}, 48),
    (semchunk, {"chunk_size": 40}, 40),
    (semchunk, {"chunk_size": 40, "overlap": 0.25}, 40),
]


def _id(case: tuple[Adapter, dict[str, int | float], int]) -> str:
    return f"{case[0].__name__}-" + "-".join(f"{k}={v}" for k, v in case[1].items())


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_spans_are_exact_ordered_and_within_the_limit(
    case: tuple[Adapter, dict[str, int | float], int],
) -> None:
    adapter, params, limit = case
    text = REPEATED.read_text(encoding="utf-8")
    spans = adapter(text, **params)
    validate_spans(text, spans)  # inside, non-empty, ordered, not only whitespace
    counter = default_counter()
    assert max(counter.count(text[s:e]) for s, e in spans) <= limit
    covered = set().union(*(range(s, e) for s, e in spans))
    assert all(text[k].isspace() for k in range(len(text)) if k not in covered)
    if params.get("chunk_overlap") or params.get("overlap"):
        assert any(e > s2 for (_, e), (s2, _) in zip(spans, spans[1:], strict=False))
    else:
        assert all(e <= s2 for (_, e), (s2, _) in zip(spans, spans[1:], strict=False))


def library_texts(adapter: Adapter, params: dict[str, int | float], text: str) -> list[str]:
    """The chunk texts the library itself returns for ``text`` (whitespace-only dropped)."""
    import chonkie
    import semchunk as semchunk_lib

    count = default_counter().count
    if adapter is semchunk:
        size, overlap = int(params["chunk_size"]), params.get("overlap") or None
        pieces: list[str] = semchunk_lib.chunk(text, size, count, overlap=overlap)
    else:
        kind = chonkie.RecursiveChunker if adapter is chonkie_recursive else chonkie.SentenceChunker
        pieces = [c.text for c in kind(tokenizer=count, **params).chunk(text)]
    return [p for p in pieces if p.strip()]


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_spans_slice_exactly_the_library_chunks(
    case: tuple[Adapter, dict[str, int | float], int],
) -> None:
    adapter, params, _ = case
    text = REPEATED.read_text(encoding="utf-8")
    spans = adapter(text, **params)
    assert [text[s:e] for s, e in spans] == library_texts(adapter, params, text)


@pytest.mark.parametrize("case", [c for c in CASES if c[2] < 100], ids=_id)
def test_repeated_paragraphs_keep_their_own_place(
    case: tuple[Adapter, dict[str, int | float], int],
) -> None:
    """The fixture repeats paragraphs, so `text.find(piece)` from 0 puts some chunks at
    an earlier copy; the adapters' spans stay at the chunks' own places (they cover the
    text once, in order, so no chunk can sit at a copy)."""
    adapter, params, _ = case
    text = REPEATED.read_text(encoding="utf-8")
    spans = adapter(text, **params)
    naive = [text.find(text[s:e]) for s, e in spans]
    assert any(n != s for n, (s, _) in zip(naive, spans, strict=True))
    assert all(s1 < s2 for (s1, _), (s2, _) in zip(spans, spans[1:], strict=False))


def test_exact_spans_keeps_good_offsets_and_relocates_bad_ones_forward() -> None:
    text = "A b.\n\nA b.\n\nC d.\n\nA b."
    # strings only: located with a cursor that moves forward
    assert exact_spans(text, [("A b.", None, None)] * 2, overlap=False) == [(0, 4), (6, 10)]
    # a library offset pointing back at the first copy (chonkie issue 201) is relocated
    pieces = [("A b.", 0, 4), ("A b.", 0, 4), ("C d.", 12, 16), ("A b.", 6, 10)]
    assert exact_spans(text, pieces, overlap=False) == [(0, 4), (6, 10), (12, 16), (18, 22)]
    # an offset that does not slice the piece's text is relocated too; whitespace dropped
    pieces = [("A b.\n\nA b.", 0, 9), ("\n\n", 10, 12), ("A b.", 6, 10)]
    assert exact_spans(text, pieces, overlap=True) == [(0, 10), (6, 10)]
    with pytest.raises(AdapterError, match=r"^piece 1 \('Z z\.'\) is not in the text at or "):
        exact_spans(text, [("C d.", None, None), ("Z z.", None, None)], overlap=False)


def test_bad_params_and_missing_tokenizer_are_one_line(tmp_path: Path) -> None:
    with pytest.raises(AdapterError, match=r"^chunk_size must be an integer >= 1, got 0$"):
        chonkie_recursive("Some text.", chunk_size=0)
    with pytest.raises(AdapterError, match=r"^chunk_overlap must be less than chunk_size"):
        chonkie_sentence("Some text.", chunk_size=16, chunk_overlap=16)
    with pytest.raises(AdapterError, match=r"^overlap must be a number >= 0"):
        semchunk("Some text.", overlap="a lot")
    with pytest.raises(AdapterError, match="no tokenizer.json there"):
        token_counter(str(tmp_path))
    bundled = default_counter()
    folder = tmp_path / "model"
    folder.mkdir()
    (folder / "tokenizer.json").write_bytes(_bundled().read_bytes())
    assert token_counter(str(folder)).count("Sourdough proofs") == bundled.count("Sourdough proofs")


def _bundled() -> Path:
    from kb.backends.bundled import embedding_model_dir

    return embedding_model_dir() / "tokenizer.json"


def test_missing_library_is_one_line_at_load_time(tmp_path: Path) -> None:
    with pytest.raises(AdapterError, match=r"^kb_no_such_lib is not installed: pip install "):
        require("kb_no_such_lib")
    plugin = tmp_path / "without_chonkie.py"
    plugin.write_text(
        textwrap.dedent(
            """
            import sys
            sys.modules["chonkie"] = None  # what an environment without chonkie sees
            from ingest.chunkers.chonkie_adapter import chonkie_recursive as chunk
            """
        ),
        encoding="utf-8",
    )
    process = PluginProcess(("file", str(plugin), "chunk"), timeout=20, max_spans=100)
    with pytest.raises(PluginFailure) as e:
        process.start()
    assert str(e.value) == ("cannot load: chonkie is not installed: pip install 'kb-rag[chunkers]'")


def adapter_site(folder: Path) -> Path:
    """A folder whose ``kb_rag`` metadata carries the ``kb.chunkers`` entry points of
    this checkout's pyproject (the installed kb-rag may predate them)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    points = project["entry-points"]["kb.chunkers"]
    info = folder / f"kb_rag-{project['version']}.dist-info"
    info.mkdir(parents=True)
    meta = f"Metadata-Version: 2.1\nName: kb-rag\nVersion: {project['version']}\n"
    (info / "METADATA").write_text(meta, encoding="utf-8")
    lines = "".join(f"{k} = {v}\n" for k, v in points.items())
    (info / "entry_points.txt").write_text(f"[kb.chunkers]\n{lines}", encoding="utf-8")
    return folder


def test_check_runs_the_entry_point_through_the_cli(tmp_path: Path) -> None:
    site = adapter_site(tmp_path / "site")
    paths = [str(site), str(ROOT), *filter(None, os.environ.get("PYTHONPATH", "").split(":"))]
    env = {**os.environ, "KB_HOME": str(tmp_path / "kb"), "PYTHONPATH": os.pathsep.join(paths)}

    def kb(*args: str) -> subprocess.CompletedProcess[str]:
        cmd = [sys.executable, "-m", "kb", *args]
        return subprocess.run(cmd, env=env, capture_output=True, text=True)

    r = kb("chunkers", "check", "chonkie-recursive:chunk_size=64", str(REPEATED), "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["chunker"]["name"] == "chonkie-recursive"
    assert out["chunker"]["params"] == {"chunk_size": 64}
    (f,) = out["files"]
    assert f["chunks"] >= 5 and f["coverage"] == 1.0 and f["overlap"] == 0.0
    listed = kb("chunkers", "list").stdout
    for name in ("chonkie-recursive", "chonkie-sentence", "semchunk"):
        assert name in listed
    bad = kb("chunkers", "check", "semchunk:chunk_size=0", str(REPEATED))
    assert bad.returncode == 1
    assert "chunker semchunk: chunk_size must be an integer >= 1, got 0" in bad.stderr
