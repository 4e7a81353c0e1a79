"""Language detection from stop words, the front matter's lang:, documents.lang
(migration m007 on an old KB, ingest on real SQLite/LanceDB/bundled embedder)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ingest.pipeline import document_language, ingest_paths
from kb.backends.embedder import Embedder
from kb.config import load_settings, override
from kb.lang.detect import detect, parse_lang, question_language
from kb.store import Store, migrations
from kb.types import LoadedDocument, Section, Span
from tests.conftest import FIXTURES

DE = "Der Zug fährt jeden Morgen um sieben Uhr ab, und wir sind meistens pünktlich im Büro."
FR = "Le train part chaque matin à sept heures, et nous sommes souvent à l'heure au bureau."
EN = "The train leaves every morning at seven, and we are usually on time at the office."


@pytest.mark.parametrize(("text", "code"), [(DE, "de"), (FR, "fr"), (EN, "en")])
def test_documents(text: str, code: str) -> None:
    assert detect(text) == code
    assert detect(f"# Notiz\n\n{text}\n\n{text}") == code


@pytest.mark.parametrize(
    ("question", "code"),
    [
        ("Wie hoch ist der Berg?", "de"),
        ("Wann wurde das Rathaus gebaut?", "de"),
        ("Quel est le nom de la rivière ?", "fr"),
        ("Est-ce que la tour est haute ?", "fr"),
        ("How tall is the mountain?", "en"),
        ("When was the town hall built?", "en"),
    ],
)
def test_questions(question: str, code: str) -> None:
    assert question_language(question) == code


@pytest.mark.parametrize("text", ["", "Zugspitze", "def f(x): return x", "1234 5678", "OK"])
def test_thin_evidence_is_unknown(text: str) -> None:
    assert detect(text) == "und"


def test_parse_lang() -> None:
    assert [parse_lang(v) for v in ("de", "DE", "fr-CA", "German", "Deutsch", "français")] == [
        "de",
        "de",
        "fr",
        "de",
        "de",
        "fr",
    ]
    assert parse_lang("klingon") is None and parse_lang(3) is None


def _doc(text: str, front: dict[str, object] | None = None) -> LoadedDocument:
    sec = Section(text, (), Span(1, 1), 0, len(text))
    meta = {"front_matter": front} if front is not None else {}
    return LoadedDocument(path="n.md", doc_type="md", sections=[sec], meta=meta, text=text)


def test_front_matter_lang_wins_and_bad_value_is_one_line() -> None:
    assert document_language(_doc(EN, {"lang": "de"})) == ("de", None)
    code, note = document_language(_doc(DE, {"lang": "xx"}))
    assert code == "de" and note is not None and "\n" not in note
    assert "'xx'" in note and "en, de, fr" in note


def test_old_kb_migrates_to_document_lang(kb_home: Path) -> None:
    kb_home.mkdir(parents=True)
    shutil.copy(FIXTURES / "db" / "kb-schema-v1.sqlite", kb_home / "kb.sqlite")
    with Store.open(kb_home) as store:
        assert migrations.LATEST >= 7
        cols = {r[1] for r in store.conn.execute("PRAGMA table_info(documents)")}
        assert "lang" in cols
        rows = store.conn.execute("SELECT lang FROM documents").fetchall()
        assert rows and all(r[0] is None for r in rows)


def test_ingest_stores_each_documents_language(
    kb_home: Path, tmp_path: Path, real_embedder: Embedder
) -> None:
    root = tmp_path / "notes"
    root.mkdir()
    (root / "de.md").write_text(f"# Zug\n\n{DE}\n", encoding="utf-8")
    (root / "fr.md").write_text(f"# Train\n\n{FR}\n", encoding="utf-8")
    (root / "en.md").write_text(f"---\nlang: fr\n---\n# Train\n\n{EN}\n", encoding="utf-8")
    (root / "bad.md").write_text(f"---\nlang: xx\n---\n# Zug\n\n{DE}\n", encoding="utf-8")
    settings = override(load_settings(), **{"embedding.sentence_vectors": False})
    with Store.open(settings.home) as store:
        report = ingest_paths(store, settings, [root], embedder=real_embedder)
        got = {
            Path(r[0]).name: r[1]
            for r in store.conn.execute("SELECT path, lang FROM documents").fetchall()
        }
    assert got == {"de.md": "de", "fr.md": "fr", "en.md": "fr", "bad.md": "de"}
    warned = [w for f in report.files for w in f.warnings]
    assert any("lang: 'xx'" in w for w in warned)
