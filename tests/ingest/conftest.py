"""Fixtures for loader and chunker tests.

- ``ctx``: a :class:`LoadContext` with the default settings, the test's KB cache folder
  and a transcriber factory that fails the test if a non-audio loader calls it.
- ``whisper``: the real bundled whisper base on the CPU; its model is loaded on first use
  and shared by the whole session (``kb.backends.transcriber`` caches loaded models).
- ``exact_sections``: checks the loader invariants against the file's own text.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from ingest.loaders import LoadContext
from kb.backends.transcriber import Transcriber
from kb.config import Settings, WhisperSettings, load_settings
from kb.types import LoadedDocument

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "fixtures" / "demo"
SQUAD = Path(os.environ.get("KB_DATASETS", ROOT.parent / "shared" / "datasets")) / "squad-dev"


def _no_transcriber() -> Transcriber:
    raise AssertionError("the transcriber factory must only be called for audio files")


@pytest.fixture
def squad() -> Path:
    """The squad-dev dataset folder (real-file tests skip when it is missing)."""
    if not SQUAD.is_dir():
        pytest.skip(f"dataset folder {SQUAD} is missing (set KB_DATASETS)")
    return SQUAD


@pytest.fixture
def settings(kb_home: Path) -> Settings:
    return load_settings()


@pytest.fixture
def ctx(settings: Settings, kb_home: Path) -> LoadContext:
    return LoadContext(settings=settings, transcriber=_no_transcriber, cache_dir=kb_home / "cache")


@pytest.fixture(scope="session")
def whisper() -> Transcriber:
    from kb.backends.transcriber import make_transcriber

    return make_transcriber(WhisperSettings(device="cpu", compute_type="int8"), None)


def _check_exact(doc: LoadedDocument, source: str) -> None:
    """Every section is a verbatim slice of ``source`` at its char offsets, on exactly its
    lines (1-based, inclusive), and sections come in file order without overlapping."""
    lines = source.split("\n")
    prev_end = -1
    for sec in doc.sections:
        assert source[sec.char_start : sec.char_end] == sec.text
        own_lines = sec.text.split("\n")
        assert own_lines[0].strip() and own_lines[-1].strip()  # no blank lines at the edges
        assert sec.char_start > prev_end
        prev_end = sec.char_end
        ls, le = sec.span.line_start, sec.span.line_end
        assert ls is not None and le is not None and 1 <= ls <= le <= len(lines)
        assert "\n".join(lines[ls - 1 : le]) == sec.text


@pytest.fixture
def exact_sections() -> Callable[[LoadedDocument, str], None]:
    return _check_exact
