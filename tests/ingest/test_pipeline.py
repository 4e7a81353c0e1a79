"""The ingest pipeline end to end on the real components: real SQLite, real LanceDB,
the bundled embedding model, real Markdown/PDF files (audio in test_pipeline_audio)."""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from ingest.pipeline import ingest_paths
from ingest.report import FileOutcome, IngestProgress
from kb.backends.embedder import Embedder
from kb.config import Settings, load_settings, override
from kb.errors import EmbeddingMismatchError, UsageError
from kb.store import Store, chunkings
from kb.store.doctor import check
from kb.store.embeddings import unused_keys
from tests.conftest import FIXTURES


class CountingEmbedder(Embedder):
    """Wraps the real embedder and counts the texts it embeds."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.model_id = inner.model_id
        self.dim = inner.dim
        self.texts = 0

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        self.texts += len(texts)
        return self.inner.embed_batch(texts)


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    """The demo notes and paper (no audio: see test_pipeline_audio)."""
    root = tmp_path / "corpus"
    shutil.copytree(FIXTURES / "demo" / "notes", root / "notes")
    shutil.copytree(FIXTURES / "demo" / "papers", root / "papers")
    return root


@pytest.fixture
def settings(kb_home: Path) -> Settings:
    # these tests count chunk texts sent to the model; sentence vectors (which add their
    # sentences to the same batches) have their own tests in test_sentence_vectors.py
    return override(load_settings(), **{"embedding.sentence_vectors": False})


def run(
    store: Store,
    settings: Settings,
    paths: list[Path],
    emb: Embedder,
    progress: IngestProgress | None = None,
) -> dict[str, int]:
    report = ingest_paths(store, settings, paths, embedder=emb, progress=progress)
    return report.to_dict()["counts"] | {
        "embedded": report.chunks_embedded,
        "exit": report.exit_code,
    }


def assert_consistent(store: Store) -> None:
    """SQLite and LanceDB agree: no pending chunk, every embedded text's vector is in
    the cache exactly once."""
    model = store.embedding_model()
    assert model is not None
    used = {str(r[0]) for r in store.conn.execute("SELECT embed_sha256 FROM chunks")}
    assert store.count_chunks("pending", chunking="all") == 0
    assert used <= store.vectors.hashes(model.model_id)
    keys = store.vectors.keys()
    assert len(keys) == len(set(keys))  # no duplicated vector
    assert check(store).clean


def test_first_ingest_indexes_everything_with_locators(
    corpus: Path, settings: Settings, real_embedder: Embedder
) -> None:
    emb = CountingEmbedder(real_embedder)
    with Store.open(settings.home) as store:
        counts = run(store, settings, [corpus], emb)
        assert counts["added"] == len(list(corpus.rglob("*.*")))
        assert counts["failed"] == 0 and counts["exit"] == 0
        assert counts["embedded"] == store.count_chunks() == emb.texts > 0
        assert_consistent(store)
        hits = store.hits_for(sorted(store.chunk_ids()))
        md = [h for h in hits.values() if h.locator.doc_type == "md"]
        pdf = [h for h in hits.values() if h.locator.doc_type == "pdf"]
        assert md and all(h.locator.span.line_start and h.locator.heading_path for h in md)
        assert pdf and {h.locator.span.page_start for h in pdf} >= {1, 2}
        paths = {h.path for h in hits.values()}
        assert "corpus/notes/sourdough.md" in paths  # source name / path in it
        assert store.embedding_model() is not None


def test_second_run_does_no_parsing_and_loads_no_model(
    corpus: Path, settings: Settings, real_embedder: Embedder
) -> None:
    with Store.open(settings.home) as store:
        run(store, settings, [corpus], real_embedder)

        def no_model() -> Embedder:
            raise AssertionError("the embedding model must not be loaded for an unchanged corpus")

        report = ingest_paths(store, settings, [corpus], embedder=no_model)
        assert report.count("unchanged") == report.to_dict()["counts"]["unchanged"] > 0
        assert report.chunks_embedded == 0 and report.exit_code == 0


def test_changed_deleted_and_moved_files(
    corpus: Path, settings: Settings, real_embedder: Embedder
) -> None:
    emb = CountingEmbedder(real_embedder)
    with Store.open(settings.home) as store:
        run(store, settings, [corpus], emb)
        before = store.count_chunks()
        home_ids = _ids_of(store, "corpus/notes/homelab.md")

        # change one file: its chunks are replaced; only the text that is new (the added
        # section) is embedded, the unchanged sections' vectors come from the cache
        f = corpus / "notes" / "sourdough.md"
        f.write_text(f.read_text() + "\n\n## Storage\n\nKeep the loaf in a linen bag.\n")
        emb.texts = 0
        c = run(store, settings, [corpus], emb)
        assert c["updated"] == 1 and c["unchanged"] >= 3
        assert emb.texts == 1 < len(_ids_of(store, "corpus/notes/sourdough.md"))
        assert_consistent(store)

        # move a file: recognised by its hash, nothing re-embedded, same chunk ids
        (corpus / "archive").mkdir()
        (corpus / "notes" / "homelab.md").rename(corpus / "archive" / "homelab.md")
        emb.texts = 0
        c = run(store, settings, [corpus], emb)
        assert c["moved"] == 1 and c["removed"] == 0 and emb.texts == 0
        assert _ids_of(store, "corpus/archive/homelab.md") == home_ids
        assert_consistent(store)

        # delete a file: removed from both stores
        gone = _ids_of(store, "corpus/archive/homelab.md")
        (corpus / "archive" / "homelab.md").unlink()
        c = run(store, settings, [corpus], emb)
        assert c["removed"] == 1
        assert not gone & store.chunk_ids()
        assert unused_keys(store)  # its vectors stay cached until `kb doctor --repair`
        assert store.count_chunks() < before + 5
        assert_consistent(store)


def test_changing_the_chunker_rechunks(
    corpus: Path, settings: Settings, real_embedder: Embedder
) -> None:
    with Store.open(settings.home) as store:
        run(store, settings, [corpus], real_embedder)
        window = override(settings, **{"ingest.chunker": "window"})
        c = run(store, window, [corpus], real_embedder)
        assert c["rechunked"] == len(list(corpus.rglob("*.*"))) and c["unchanged"] == 0
        names = {r[0] for r in store.conn.execute("SELECT DISTINCT chunker FROM live_chunks")}
        assert names == {"window"}
        assert_consistent(store)
        # the structure chunking is kept beside it: switching back costs nothing
        assert [ch.name for ch in chunkings.list_all(store)] == ["window", "structure"]
        c = run(store, settings, [corpus], real_embedder)
        assert c["unchanged"] == len(list(corpus.rglob("*.*"))) and c["embedded"] == 0
        names = {r[0] for r in store.conn.execute("SELECT DISTINCT chunker FROM live_chunks")}
        assert names == {"structure"}
        assert_consistent(store)


def test_a_chunker_change_reaches_the_sources_a_run_did_not_name(
    corpus: Path, settings: Settings, real_embedder: Embedder
) -> None:
    """`kb ingest notes/` after a chunker change (`--chunker`, or a kb version whose
    chunker cuts differently) re-chunks the other sources too: before, their documents
    had no chunks in the new live chunking and dropped out of every search."""
    notes, papers = corpus / "notes", corpus / "papers"
    with Store.open(settings.home) as store:
        run(store, settings, [notes], real_embedder)
        run(store, settings, [papers], real_embedder)  # a second source
        n_papers = len(list(papers.rglob("*.*")))
        window = override(settings, **{"ingest.chunker": "window"})
        c = run(store, window, [notes], real_embedder)
        assert c["rechunked"] == len(list(notes.rglob("*.*"))) + n_papers
        assert c["failed"] == 0 and c["exit"] == 0
        live = {
            str(r[0])
            for r in store.conn.execute(
                "SELECT DISTINCT d.path FROM live_chunks c JOIN documents d ON d.id = c.document_id"
            )
        }
        assert {f"papers/{f.name}" for f in papers.rglob("*.*")} <= live
        names = {r[0] for r in store.conn.execute("SELECT DISTINCT chunker FROM live_chunks")}
        assert names == {"window"}
        assert_consistent(store)

        # back to structure, with one paper changed and one gone, and a third source
        # whose folder is gone: the changed one is reloaded; the gone ones are kept (the
        # run did not look at their folders), named in one note per source with what
        # to do, and are no failure
        pdfs = sorted(papers.glob("*.pdf"))
        gone = papers / "gone.md"
        gone.write_text("# Gone\n\nA note about kestrels that will be deleted.\n")
        changed = papers / "changed.md"
        changed.write_text("# Changed\n\nHeron notes.\n")
        run(store, window, [papers], real_embedder)
        usb = corpus.parent / "usb"
        usb.mkdir()
        (usb / "a.md").write_text("# A\n\nAn otter note.\n")
        run(store, window, [usb], real_embedder)
        shutil.rmtree(usb)
        gone.unlink()
        changed.write_text("# Changed\n\nHeron notes, now with egrets.\n")
        report = ingest_paths(store, settings, [notes], embedder=real_embedder)
        by_path = {f.path: f for f in report.files}
        assert by_path["papers/changed.md"].outcome == "updated"
        # the structure chunking still holds the unchanged PDF: nothing to do for it
        assert f"papers/{pdfs[0].name}" not in by_path
        assert "papers/gone.md" not in by_path and "usb/a.md" not in by_path
        assert report.exit_code == 0
        notes_by_source = sorted(report.not_rechunked)
        assert len(notes_by_source) == 2
        assert "`kb ingest " in notes_by_source[0] and "papers" in notes_by_source[0]
        assert "kb sources remove usb" in notes_by_source[1]
        assert (
            store.conn.execute(
                "SELECT count(*) FROM documents WHERE path IN ('papers/gone.md', 'usb/a.md')"
            ).fetchone()[0]
            == 2
        )
        text = " ".join(
            str(r[0])
            for r in store.conn.execute(
                "SELECT c.text FROM live_chunks c JOIN documents d ON d.id = c.document_id "
                "WHERE d.path = 'papers/changed.md'"
            )
        )
        assert "egrets" in text


def test_exclude_globs_and_hidden_files(
    corpus: Path, settings: Settings, real_embedder: Embedder
) -> None:
    (corpus / ".hidden.md").write_text("# Secret\n\nnot to be indexed\n")
    (corpus / "notes" / ".obsidian").mkdir()
    (corpus / "notes" / ".obsidian" / "x.md").write_text("# cache\n\nnope\n")
    s = override(settings, **{"ingest.exclude": ("papers/**",)})
    with Store.open(s.home) as store:
        run(store, s, [corpus], real_embedder)
        paths = {r[0] for r in store.conn.execute("SELECT path FROM documents")}
        assert paths and all(p.startswith("corpus/notes/") for p in paths)
        assert not any("hidden" in p or "obsidian" in p for p in paths)


class DeleteOnStart(IngestProgress):
    """Deletes a file right when the pipeline reaches it: it vanished during the walk."""

    def __init__(self, victim: Path) -> None:
        self.victim = victim
        self.done: list[FileOutcome] = []

    def file_started(self, path: str) -> None:
        if self.victim.name in path and self.victim.exists():
            self.victim.unlink()

    def file_done(self, outcome: FileOutcome) -> None:
        self.done.append(outcome)


def test_bad_inputs_fail_one_by_one_and_lose_nothing(
    corpus: Path, settings: Settings, real_embedder: Embedder, tmp_path: Path
) -> None:
    with Store.open(settings.home) as store:
        run(store, settings, [corpus], real_embedder)
        good = store.count_chunks()
        bad = corpus / "bad"
        bad.mkdir()
        (bad / "latin1.md").write_bytes("# Caf\xe9\n\nna\xefve\n".encode("latin-1"))
        (bad / "empty.md").write_text("")
        (bad / "blank.txt").write_text("  \n\n ")
        (bad / "corrupt.pdf").write_bytes(b"%PDF-1.7\n1 0 obj <<\ngarbage")
        (bad / "notaudio.mp3").write_text("this is text, not audio")
        outside = tmp_path / "outside.md"
        outside.write_text("# Outside\n\nprivate\n")
        (bad / "link.md").symlink_to(outside)
        (bad / "vanishing.md").write_text("# Soon gone\n\ntext\n")
        progress = DeleteOnStart(bad / "vanishing.md")
        c = run(store, settings, [corpus], real_embedder, progress)
        failed = {o.path: o.error or "" for o in progress.done if o.outcome == "failed"}
        assert set(failed) == {
            "corpus/bad/latin1.md",
            "corpus/bad/empty.md",
            "corpus/bad/blank.txt",
            "corpus/bad/corrupt.pdf",
            "corpus/bad/notaudio.mp3",
            "corpus/bad/link.md",
            "corpus/bad/vanishing.md",
        }
        assert "UTF-8" in failed["corpus/bad/latin1.md"]
        assert "empty" in failed["corpus/bad/empty.md"]
        assert "outside" in failed["corpus/bad/link.md"]
        assert "vanished" in failed["corpus/bad/vanishing.md"]
        assert all("\n" not in e and e for e in failed.values())
        assert c["exit"] == 1 and c["unchanged"] >= 5
        assert store.count_chunks() == good  # nothing already stored was lost
        rows = store.conn.execute(
            "SELECT path, error FROM documents WHERE status = 'failed'"
        ).fetchall()
        assert len(rows) == 7
        assert_consistent(store)


def test_missing_path_is_a_usage_error(settings: Settings, real_embedder: Embedder) -> None:
    with Store.open(settings.home) as store, pytest.raises(UsageError, match="no such file"):
        ingest_paths(store, settings, [Path("/nonexistent/folder")], embedder=real_embedder)


def test_other_embedding_model_is_refused_before_any_work(
    corpus: Path, settings: Settings, real_embedder: Embedder
) -> None:
    with Store.open(settings.home) as store:
        run(store, settings, [corpus], real_embedder)
    other = override(settings, **{"embedding.model": str(corpus)})
    with Store.open(other.home) as store, pytest.raises(EmbeddingMismatchError, match="reindex"):
        ingest_paths(store, other, [corpus], embedder=real_embedder)


def test_ingest_never_writes_into_the_source_folder(
    corpus: Path, settings: Settings, real_embedder: Embedder
) -> None:
    before = {p: p.stat().st_mtime_ns for p in corpus.rglob("*")}
    with Store.open(settings.home) as store:
        run(store, settings, [corpus], real_embedder)
    assert {p: p.stat().st_mtime_ns for p in corpus.rglob("*")} == before


def _ids_of(store: Store, path: str) -> set[int]:
    rows = store.conn.execute(
        "SELECT c.id FROM chunks c JOIN documents d ON d.id = c.document_id WHERE d.path = ?",
        (path,),
    )
    return {int(r[0]) for r in rows}
