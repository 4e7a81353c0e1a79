"""Nothing in kb opens a user's path except :mod:`kb.safe_open` (and ingest's fenced twin).

The test walks kb/, ingest/ and eval/ with ``ast`` and fails on any ``open(...)``,
``os.open``, ``X.open(...)``, ``X.read_text(...)`` or ``X.read_bytes(...)`` call that is
not on the allow-list below. Each allowed call reads a file kb itself writes or owns
(inside the KB folder, its model cache, the installed package, /proc), or is a read that
another guard already checked; the comment says which. A new read of a path the user
names must go through :func:`kb.safe_open.read_bytes` / ``read_text`` instead.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import ROOT

READS = {"open", "read_text", "read_bytes"}

#: (file, call as written) -> why it is not a user's path
ALLOWED: dict[tuple[str, str], str] = {
    # the guarded primitives themselves
    ("kb/safe_open.py", "os.open"): "the one opener",
    ("ingest/fileio.py", "os.open"): "the notes walker's opener: same steps, fenced to the root",
    ("kb/cli/usage.py", "os.open"): "opens os.devnull for writing",
    # kb's own database and server objects, not files
    ("kb/cli/admin_cmd.py", "Store.open"): "the KB's database",
    ("kb/cli/reindex_parts.py", "Store.open"): "the KB's database",
    ("kb/cli/chunkings_cmd.py", "Store.open"): "the KB's database",
    ("kb/cli/common.py", "Store.open"): "the KB's database",
    ("kb/cli/ingest_cmd.py", "Store.open"): "the KB's database",
    ("kb/cli/sources_cmd.py", "Store.open"): "the KB's database",
    ("kb/serve/runtime.py", "Store.open"): "the KB's database",
    ("kb/cli/serve_cmd.py", "Runtime.open"): "the server's runtime",
    ("kb/serve/mcp_server.py", "Runtime.open"): "the server's runtime",
    # files inside the installed package or its source tree
    ("kb/config.py", "res.read_text"): "the shipped default.toml",
    ("kb/config.py", "src.read_text"): "the shipped default.toml (source checkout)",
    # files kb writes inside the KB folder or its model cache
    ("kb/search/vector_cache.py", "tmp.open"): "KB cache: search-vectors.bin (written)",
    ("kb/search/vector_cache.py", "path.open"): "KB cache: search-vectors.bin",
    ("kb/search/vector_cache.py", "os.open"): "KB cache: search-vectors.bin, rows read by pread",
    ("kb/store/ann_faiss.py", "p.open"): "KB cache: ann-faiss.bin (the derived ANN index)",
    ("kb/store/ann_faiss.py", "tmp.open"): "KB cache: ann-faiss.bin (written, then renamed)",
    ("kb/cli/eval_tune.py", "path.read_text"): "the KB's config.toml, rewritten by --apply",
    ("kb/store/lock.py", "os.open"): "the KB's writer lock, kb.lock (written)",
    ("kb/store/lock.py", "(Path(home) / LOCK_NAME).read_bytes"): "kb.lock: its holder's pid",
    # model folders and files (kb/backends/ is in FILES below)
    ("ingest/chunkers/lint.py", "(folder / 'sentence_bert_config.json').read_text"): "model",
    ("ingest/tokens.py", "path.read_text"): "the embedding model's tokenizer.json",
    ("kb/hashing.py", "Path(path).open"): "hashing model files and stored chunkings' files",
    # the kernel's files
    ("kb/backends/cpu_features.py", "cpuinfo.read_text"): "/proc/cpuinfo",
    (
        "kb/backends/cpu_features.py",
        "(sysfs / f'cpu{cpu}' / 'topology' / 'thread_siblings_list').read_text",
    ): "/sys",
    ("eval/process.py", "Path(f'/proc/{pid}/stat').read_text"): "/proc",
    ("eval/process.py", "Path('/proc/stat').read_text"): "/proc",
    # reads of a user's file that another guard checked first
    ("kb/serve/reader.py", "open"): "confined_file: a regular file inside its source",
    ("ingest/loaders/audio.py", "path.read_text"): "model cache: a transcript kb wrote",
    ("eval/record.py", "path.read_text"): "the golden set load_golden just read safely",
}


#: modules allowed any read, and why: they read model files and kb's model cache only. A
#: model path a user configures is checked by the loaders in kb.backends (moving those
#: checks to kb.safe_open is left for issue 54's model-path part)
FILES: dict[str, str] = {
    "kb/backends/bundled.py": "installed model packages, the model cache",
    "kb/backends/generator.py": "the GGUF model's header, the model cache",
    "kb/backends/gguf_requantize.py": "the GGUF model, its requantized copy in the cache",
    "kb/backends/model_cache.py": "model files being hashed, the cache manifest",
    "kb/backends/onnx_export.py": "the embedding model folder, the ONNX cache",
}


def reads(root: Path = ROOT) -> list[tuple[str, str, int]]:
    """Every read-like call in kb/, ingest/, eval/: (file, call as written, line)."""
    out = []
    for pkg in ("kb", "ingest", "eval"):
        for path in sorted((root / pkg).rglob("*.py")):
            rel = path.relative_to(root).as_posix()
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if not isinstance(node, ast.Call):
                    continue
                fn = node.func
                if isinstance(fn, ast.Name) and fn.id == "open":
                    out.append((rel, "open", node.lineno))
                elif isinstance(fn, ast.Attribute) and fn.attr in READS:
                    out.append((rel, ast.unparse(fn), node.lineno))
    return out


def test_no_file_is_opened_outside_the_guarded_opener() -> None:
    unlisted = [
        f"{f}:{line}: {call}(...)"
        for f, call, line in reads()
        if (f, call) not in ALLOWED and f not in FILES
    ]
    assert not unlisted, (
        "read a user's path with kb.safe_open.read_bytes/read_text, or add the call to "
        "ALLOWED with the reason it is kb's own file:\n" + "\n".join(unlisted)
    )


def test_the_allow_list_has_no_stale_entries() -> None:
    found = {(f, call) for f, call, _ in reads()}
    stale = sorted(set(ALLOWED) - found)
    assert not stale, f"no longer in the code, remove from ALLOWED: {stale}"
    gone = sorted(f for f in FILES if not (ROOT / f).is_file())
    assert not gone, f"no such module, remove from FILES: {gone}"


def test_the_walker_finds_every_kind_of_raw_read(tmp_path: Path) -> None:
    """The check can fail: each kind of call in a new module is reported."""
    (tmp_path / "eval").mkdir()
    (tmp_path / "eval" / "new.py").write_text(
        "import os\nfrom pathlib import Path\n"
        "def f(p):\n    open(p)\n    Path(p).read_text()\n    p.read_bytes()\n"
        "    p.open()\n    os.open(p, 0)\n",
        encoding="utf-8",
    )
    assert [(c, n) for _, c, n in reads(tmp_path)] == [
        ("open", 4),
        ("Path(p).read_text", 5),
        ("p.read_bytes", 6),
        ("p.open", 7),
        ("os.open", 8),
    ]
