"""Sentence vectors end to end: real SQLite, LanceDB and the bundled embedder.

Ingest stores every chunk's sentence vectors (spans as the splitter cuts them), a
re-ingest of the same texts embeds nothing again, ``kb doctor`` drops the rows no
chunk uses, ``kb reindex --sentences`` fills a KB ingested without them, ``kb ask``'s
evidence check reuses them, and a query that paraphrases one sentence of a long chunk
ranks that chunk first.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from ingest.pipeline import ingest_paths
from kb.backends.embedder import Embedder
from kb.cli import app
from kb.config import Settings, load_settings, override
from kb.rag.stored_vectors import known_vectors, reusing_embed
from kb.search import Retriever, SearchOptions
from kb.sentence_spans import split_sentences
from kb.store import Store
from kb.store import sentences as stored
from kb.store.doctor import check, repair
from kb.store.sqlite import EmbeddingModelInfo
from tests.ingest.test_pipeline import CountingEmbedder

runner = CliRunner()

TOWN = """# Millbrook

Millbrook is a market town on the river Ash, known for its Saturday cheese market.
The parish church of St Anne has a Norman tower and a peal of eight bells.
Most houses in the old centre are built from the local yellow limestone.
The old stone bridge was rebuilt in 1872 after a flood had swept the wooden one away.
A narrow-gauge railway reached the town in 1901 and closed in 1958.
Today the former goods yard is a car park beside the library.
The town's football club plays in green and white and was founded by mill workers.
Every August a regatta on the river draws rowing crews from across the county.
"""

BRIDGES = """# Bridges

A bridge takes a road or railway over a river, a valley or another road.
"""

FLOODS = """# Floods

Rivers that burst their banks can damage roads, houses and farmland.
"""

ENGINEERING = """# Engineering

Civil engineers design structures that span rivers and rebuild them when they fail.
"""


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    root = tmp_path / "corpus"
    root.mkdir()
    for name, text in (
        ("millbrook.md", TOWN),
        ("bridges.md", BRIDGES),
        ("floods.md", FLOODS),
        ("engineering.md", ENGINEERING),
    ):
        (root / name).write_text(text, encoding="utf-8")
    return root


@pytest.fixture
def settings(kb_home: Path) -> Settings:
    return load_settings()


def _rows(store: Store) -> int:
    return int(store.conn.execute("SELECT count(*) FROM sentence_vectors").fetchone()[0])


def test_ingest_stores_sentence_vectors_and_a_reingest_reuses_them(
    corpus: Path, settings: Settings, real_embedder: Embedder
) -> None:
    emb = CountingEmbedder(real_embedder)
    with Store.open(settings.home) as store:
        ingest_paths(store, settings, [corpus], embedder=emb)
        model = store.embedding_model()
        assert model is not None
        chunks = store.conn.execute("SELECT id, text FROM chunks").fetchall()
        got = stored.for_chunks(store, model.model_id, [int(r[0]) for r in chunks])
        assert (
            len(got)
            == len(chunks)
            == stored.coverage(store, model.model_id)["with_sentence_vectors"]
        )
        for cid, text in chunks:
            sv = got[int(cid)]
            assert sv.spans == split_sentences(text)
            assert sv.vectors.shape == (len(sv.spans), real_embedder.dim)
            first = text[sv.spans[0][0] : sv.spans[0][1]]
            fresh = real_embedder.embed_batch([first])[0]
            assert float(sv.vectors[0] @ fresh) > 0.999  # the sentence embedded alone
        sent = sum(len(s.spans) for s in got.values())
        assert emb.texts == len(chunks) + sent  # one pass: chunk texts and sentences

        # the same texts under another file name: chunk and sentence vectors are reused
        shutil.copy(corpus / "millbrook.md", corpus / "millbrook-copy.md")
        emb.texts = 0
        ingest_paths(store, settings, [corpus], embedder=emb)
        assert emb.texts == 0
        rows = _rows(store)

        # a deleted document leaves rows no chunk uses: the doctor reports and drops them
        (corpus / "millbrook.md").unlink()
        (corpus / "millbrook-copy.md").unlink()
        ingest_paths(store, settings, [corpus], embedder=emb)
        report = check(store)
        assert report.clean and report.unused_sentence_vectors
        repair(store, report)
        assert _rows(store) < rows and not check(store).unused_sentence_vectors


def test_reindex_sentences_fills_a_kb_ingested_without_them(
    corpus: Path, settings: Settings, real_embedder: Embedder
) -> None:
    off = override(settings, **{"embedding.sentence_vectors": False})
    with Store.open(settings.home) as store:
        ingest_paths(store, off, [corpus], embedder=real_embedder)
        assert _rows(store) == 0
    status = runner.invoke(app, ["status", "--json"])
    assert status.exit_code == 0, status.output
    sv = json.loads(status.output)["sentence_vectors"]
    assert sv["with_sentence_vectors"] == 0 < sv["chunks"]
    res = runner.invoke(app, ["reindex", "--sentences"])
    assert res.exit_code == 0, res.output
    assert "sentence vectors" in res.output
    status = runner.invoke(app, ["status"])
    assert f"sentence vectors: {sv['chunks']} of {sv['chunks']} chunks" in status.output


def _ingest_with_an_old_row(
    store: Store, corpus: Path, settings: Settings, embedder: Embedder
) -> tuple[EmbeddingModelInfo, str, str]:
    """Ingest ``corpus``, then store for the Millbrook chunk what an older splitter cut:
    its whole text as one sentence. Returns the model, that chunk's sha and text."""
    ingest_paths(store, settings, [corpus], embedder=embedder)
    model = store.embedding_model()
    assert model is not None
    sha, text = store.conn.execute(
        "SELECT embed_sha256, text FROM chunks WHERE text LIKE '%Millbrook is%'"
    ).fetchone()
    stored.delete(store, [(model.model_id, sha)])
    stored.add(store, model.model_id, [(sha, [(0, len(text))], np.ones((1, 384)))])
    return model, str(sha), str(text)


def test_reindex_sentences_refreshes_rows_cut_by_an_older_splitter(
    corpus: Path, settings: Settings, real_embedder: Embedder
) -> None:
    """A KB ingested before a change of the sentence splitter holds rows whose spans
    the splitter no longer cuts: never reused (embedded at every query). `kb reindex
    --sentences` replaces them, and leaves the current ones alone."""
    with Store.open(settings.home) as store:
        model, sha, text = _ingest_with_an_old_row(store, corpus, settings, real_embedder)
        before = _rows(store)
    res = runner.invoke(app, ["reindex", "--sentences", "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert out["sentence_vectors_refreshed"] == 1 == out["sentence_vectors_added"]
    with Store.open(settings.home) as store:
        assert _rows(store) == before
        cid = store.conn.execute("SELECT id FROM chunks WHERE embed_sha256 = ?", (sha,)).fetchone()[
            0
        ]
        sv = stored.for_chunks(store, model.model_id, [int(cid)])[int(cid)]
        assert sv.spans == split_sentences(text) and len(sv.spans) > 1
    again = runner.invoke(app, ["reindex", "--sentences", "--json"])
    assert json.loads(again.output)["sentence_vectors_refreshed"] == 0


def test_doctor_names_rows_cut_by_an_older_splitter_and_repair_refreshes_them(
    corpus: Path, settings: Settings, real_embedder: Embedder
) -> None:
    """After an upgrade of kb that cuts sentences differently, `kb doctor` says how many
    chunk texts' rows are outdated (a note, not a fault) and `--repair` stores them
    afresh."""
    with Store.open(settings.home) as store:
        model, sha, _ = _ingest_with_an_old_row(store, corpus, settings, real_embedder)
        assert stored.outdated(store, model.model_id) == [sha]
    res = runner.invoke(app, ["doctor", "--no-devices"])
    assert res.exit_code == 0, res.output  # a note, not a fault
    assert "1 chunk text cut into sentences by an older kb" in " ".join(res.output.split())
    res = runner.invoke(app, ["doctor", "--repair", "--no-devices", "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert out["outdated_sentence_vectors"] == 0
    assert any("into sentences afresh" in line for line in out["repaired"])
    with Store.open(settings.home) as store:
        assert stored.outdated(store, model.model_id) == []


def test_paraphrase_of_one_sentence_lifts_its_long_chunk(
    corpus: Path, settings: Settings, real_embedder: Embedder
) -> None:
    # the question paraphrases one sentence of Millbrook's eight-topic chunk: that
    # chunk's vector is diluted by the seven others (lowest cosine of all), its best
    # sentence is the closest of all, and the rerank moves it up past a short chunk
    # that only shares the topic
    with Store.open(settings.home) as store:
        ingest_paths(store, settings, [corpus], embedder=real_embedder)
        r = Retriever(store, real_embedder, vector_cache=False)
        query = "In which year did they replace the stone span destroyed by rising water?"

        def ranked(weight: float) -> list[tuple[str, dict[str, float]]]:
            opts = SearchOptions(k=4, min_score=-1, sentence_weight=weight)
            return [(h.path.rsplit("/", 1)[-1], h.scores) for h in r.search(query, opts).hits]

        off, on = ranked(0.0), ranked(0.3)
        names_off, names_on = [n for n, _ in off], [n for n, _ in on]
        town = dict(on)["millbrook.md"]
        assert town["vector"] == min(sc["vector"] for _, sc in on)
        assert town["sentence"] == max(sc["sentence"] for _, sc in on)
        assert names_on.index("millbrook.md") < names_off.index("millbrook.md")
        # a question close to the chunk's words and one sentence: first either way
        direct = "In which year did they replace the stone crossing destroyed by rising water?"
        assert r.search(direct, SearchOptions(k=4)).hits[0].path.endswith("millbrook.md")


def test_the_evidence_check_reuses_stored_sentence_vectors(
    corpus: Path, settings: Settings, real_embedder: Embedder
) -> None:
    from kb.rag.answerability import assess

    with Store.open(settings.home) as store:
        ingest_paths(store, settings, [corpus], embedder=real_embedder)
        r = Retriever(store, real_embedder, vector_cache=False)
        question = "When was the old stone bridge rebuilt?"
        res = r.search(question, SearchOptions(k=4, min_score=-1))
        emb = CountingEmbedder(real_embedder)
        known = known_vectors(store, res.hits, question, res.query_vector)
        reused = assess(question, res.hits, reusing_embed(emb.embed_batch, known), None, 0.4)
        assert emb.texts == 0  # every passage sentence and the question came from memory
        fresh = assess(question, res.hits, real_embedder.embed_batch, None, 0.4)
        assert reused.answerability.score == pytest.approx(fresh.answerability.score, abs=1e-2)
        for a, b in zip(reused.passages, fresh.passages, strict=True):
            assert a.spans == b.spans
            assert a.vectors is not None and b.vectors is not None
            assert np.allclose(a.vectors, b.vectors, atol=5e-3)


SUBSCRIPTIONS = """# Subscriptions

Reviewed on 2 November. Cancel anything unused for three months.

| service | monthly | renews | card |
| --- | --- | --- | --- |
| Spotify Family | €17.99 | 5th | Visa |
| Netflix Standard | €13.99 | 19th | Visa |
| Strava | €7.99 | 23rd | Amex |

Netflix is shared with my sister; she pays me back €7 each month.
"""


def test_a_table_row_is_stored_as_read_with_its_header_and_quoted_first(
    tmp_path: Path, settings: Settings, real_embedder: Embedder
) -> None:
    from kb.rag.answerability import assess
    from kb.rag.candidates import rank_candidates

    root = tmp_path / "money"
    root.mkdir()
    (root / "subscriptions.md").write_text(SUBSCRIPTIONS, encoding="utf-8")
    row = "| Netflix Standard | €13.99 | 19th | Visa |"
    read = "service: Netflix Standard; monthly: €13.99; renews: 19th; card: Visa"
    with Store.open(settings.home) as store:
        ingest_paths(store, settings, [root], embedder=real_embedder)
        model = store.embedding_model()
        assert model is not None
        cid, text = store.conn.execute("SELECT id, text FROM chunks").fetchone()
        sv = stored.for_chunks(store, model.model_id, [int(cid)])[int(cid)]
        j = [text[a:b] for a, b in sv.spans].index(row)  # the span is the row's own text
        fresh_read, fresh_row = real_embedder.embed_batch([read, row])
        assert float(sv.vectors[j] @ fresh_read) > 0.999
        assert float(sv.vectors[j] @ fresh_row) < 0.95

        question = "How much is the Netflix subscription per month?"
        res = Retriever(store, real_embedder, vector_cache=False).search(
            question, SearchOptions(k=3, min_score=-1)
        )
        known = known_vectors(store, res.hits, question, res.query_vector)
        assert read in known and row not in known  # keyed by what was embedded
        emb = CountingEmbedder(real_embedder)
        assessed = assess(question, res.hits, reusing_embed(emb.embed_batch, known), None, 0.4)
        assert emb.texts == 0  # the stored reading was reused, not the raw row embedded
        first = rank_candidates(
            question, assessed.passages, real_embedder.embed_batch, 3, qvec=assessed.qvec
        )[0]
        # read with its header the row says "monthly"; alone, the prose sentence that
        # names Netflix and "each month" was ranked first
        assert first.text == row


class _RecordingEmbedder(Embedder):
    """Hashes each text to a vector, and records what it was given."""

    model_id = "fake:recording"
    dim = 8

    def __init__(self) -> None:
        self.seen: list[str] = []

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        self.seen.extend(texts)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, t in enumerate(texts):
            out[i, sum(map(ord, t)) % self.dim] = 1.0
        return out


def test_a_text_given_twice_is_embedded_once() -> None:
    """A chunk repeats the sentence before its cut, and notes repeat lines: each
    distinct text goes to the model once, and every place gets its vector."""
    from ingest.sentence_vectors import embed_with_chunks, job

    emb = _RecordingEmbedder()
    a = job("a", "The status of this item is done. The bridge was rebuilt in 1872.")
    b = job("b", "The status of this item is done. The railway closed in 1958.")
    chunks = {"a": "Bridges\nThe status of this item is done. The bridge was rebuilt in 1872."}
    vecs, rows = embed_with_chunks(emb, chunks, [a, b])
    assert sorted(emb.seen) == sorted(set(emb.seen))  # no text twice
    assert emb.seen.count("The status of this item is done.") == 1
    assert vecs.shape == (1, 8) and [len(v) for _, _, v in rows] == [2, 2]
    assert np.array_equal(rows[0][2][0], rows[1][2][0])  # the shared sentence's vector
    assert not np.array_equal(rows[0][2][1], rows[1][2][1])
