"""Integration fixtures: real KBs built once per session from fixtures/demo.

``demo_kb_master``: the demo corpus ingested with the real pipeline (structure
chunker, the bundled embedder and whisper). Tests get a private copy (``demo_kb``) so
the runs they store never leak into other tests. ``use_session_embedder`` makes
``kb eval`` commands run in-process reuse the session's loaded embedder (the same
model, loaded once) instead of loading it again.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import FIXTURES

DEMO = FIXTURES / "demo"
GOLDEN = FIXTURES / "golden" / "demo.yaml"


def build_kb(home: Path, embedder: object, chunker: str = "structure") -> Path:
    from ingest.pipeline import Ingestor
    from kb.config import load_settings, override
    from kb.store import Store

    settings = override(
        load_settings(home, user_file=home / "no-config.toml"), **{"ingest.chunker": chunker}
    )
    with Store.open(home) as store:
        # three sources, as in the README's tour: paths read notes/..., papers/..., audio/...
        folders = sorted(p for p in DEMO.iterdir() if p.is_dir())
        report = Ingestor(store, settings, embedder=embedder).run(folders)  # type: ignore[arg-type]
    assert report.exit_code == 0, [f.to_dict() for f in report.files]
    return home


@pytest.fixture(scope="session")
def demo_kb_master(
    tmp_path_factory: pytest.TempPathFactory, real_embedder: object, model_cache: Path
) -> Iterator[Path]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("KB_MODEL_CACHE", str(model_cache))
        yield build_kb(tmp_path_factory.mktemp("demo-kb"), real_embedder)


@pytest.fixture
def demo_kb(demo_kb_master: Path, tmp_path: Path) -> Path:
    home = tmp_path / "demo-kb"
    shutil.copytree(demo_kb_master, home)
    return home


@pytest.fixture
def use_session_embedder(real_embedder: object, monkeypatch: pytest.MonkeyPatch) -> None:
    import kb.backends.embedder as emb

    monkeypatch.setattr(emb, "make_embedder", lambda *a, **k: real_embedder)
