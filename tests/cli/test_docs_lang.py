"""kb docs shows each document's language; kb search --tag finds inline #tags."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.clirun import kb

pytestmark = pytest.mark.slow
Cap = pytest.CaptureFixture[str]


@pytest.fixture(autouse=True)
def shared_embedder(monkeypatch: pytest.MonkeyPatch, real_embedder) -> None:  # type: ignore[no-untyped-def]
    import kb.backends.embedder as emb

    monkeypatch.setattr(emb, "make_embedder", lambda *a, **k: real_embedder)


def test_docs_language_and_inline_tags(capsys: Cap, tmp_path: Path) -> None:
    root = tmp_path / "notes"
    root.mkdir()
    (root / "zug.md").write_text(
        "# Zug\n\nDer Zug fährt jeden Morgen um sieben Uhr ab, und wir sind pünktlich.\n\n"
        "#pendeln\n",
        encoding="utf-8",
    )
    (root / "boiler.md").write_text(
        "# Boiler\n\nThe plumber fixed the boiler and the pressure is fine now.\n",
        encoding="utf-8",
    )
    assert kb(capsys, "ingest", str(root)).code == 0
    r = kb(capsys, "docs", "--json")
    langs = {Path(d["path"]).name: d["lang"] for d in json.loads(r.out)}
    assert langs == {"zug.md": "de", "boiler.md": "en"}
    r = kb(capsys, "docs")
    assert any(line.split()[2] == "de" for line in r.out.splitlines() if "zug.md" in line)
    r = kb(capsys, "docs", "--tag", "pendeln", "--json")
    assert [Path(d["path"]).name for d in json.loads(r.out)] == ["zug.md"]
    r = kb(capsys, "search", "Zug Morgen", "--tag", "pendeln", "--json")
    assert r.code == 0 and "zug.md" in r.out and "boiler.md" not in r.out
