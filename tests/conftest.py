"""Shared fixtures.

- Every test gets its own KB folder through ``KB_HOME`` (autouse), and no user
  configuration file leaks in (``KB_CONFIG`` points at an empty file).
- The whisper model joined from the bundled parts is cached once per session
  (``KB_MODEL_CACHE``).
- Real models are loaded once per session (``real_embedder``); tests that use
  them are integration tests on the real components.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"
DATASETS = Path(os.environ.get("KB_DATASETS", ROOT.parent / "shared" / "datasets"))
SQUAD = DATASETS / "squad-dev"

# A suite started in the background without job control (`nohup make test &`) inherits
# SIGINT ignored: Python then never raises KeyboardInterrupt, and the Ctrl-C tests (and
# the subprocesses they signal) cannot run. Python's own handler is put back.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


@pytest.fixture(scope="session")
def model_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("model-cache")


@pytest.fixture(autouse=True)
def kb_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, model_cache: Path) -> Iterator[Path]:
    home = tmp_path / "kb"
    monkeypatch.setenv("KB_HOME", str(home))
    empty = tmp_path / "empty-user-config.toml"
    empty.write_text("", encoding="utf-8")
    monkeypatch.setenv("KB_CONFIG", str(empty))
    monkeypatch.setenv("KB_MODEL_CACHE", str(model_cache))
    monkeypatch.delenv("KB_DEBUG", raising=False)
    yield home


@pytest.fixture(scope="session")
def real_embedder():  # type: ignore[no-untyped-def]
    """The bundled all-MiniLM-L6-v2, loaded once per session."""
    from kb.backends.embedder import make_embedder
    from kb.config import EmbeddingSettings

    return make_embedder(EmbeddingSettings(model="bundled", device="cpu"))


def require_squad() -> Path:
    if not SQUAD.is_dir():
        pytest.skip(f"dataset folder {SQUAD} is missing (set KB_DATASETS)")
    return SQUAD


def hotpot_kb(
    root: Path, notes: dict[str, str], embedder: Any, extra: tuple[str, ...] = ()
) -> tuple[Any, Any]:
    """A KB under ``root`` of squad-dev's first 300 HotpotQA pages (and the pages named
    in ``extra``) plus ``notes`` (name -> text) in ``notes/``, ingested by the real
    pipeline with ``embedder``: ``(store, settings)``; the caller closes the store."""
    import shutil

    from ingest.pipeline import ingest_paths
    from kb.config import load_settings
    from kb.store import Store

    squad = require_squad()
    corpus = root / "corpus"
    (corpus / "hotpot").mkdir(parents=True)
    pages = sorted((squad / "corpus" / "hotpot").glob("*.md"))
    for f in pages[:300] + [p for p in pages[300:] if p.name in extra]:
        shutil.copy(f, corpus / "hotpot" / f.name)
    (corpus / "notes").mkdir()
    for name, text in notes.items():
        (corpus / "notes" / name).write_text(text, encoding="utf-8")
    settings = load_settings(root / "kb")
    store = Store.open(root / "kb")
    ingest_paths(store, settings, [corpus], embedder=embedder)
    return store, settings


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """llama_cpp._utils opens two /dev/null handles at import and never closes them, which
    prints a ResourceWarning at interpreter exit; close them once the session is over."""
    import sys

    utils = sys.modules.get("llama_cpp._utils")
    for name in ("outnull_file", "errnull_file"):
        handle = getattr(utils, name, None)
        if handle is not None and not handle.closed:
            handle.close()
