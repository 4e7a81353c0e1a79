"""eval.run + eval.store on a real SQLite store with fake retriever/pipeline.

Documents and chunks are written with the real :class:`kb.store.Store`; the retriever
and answer pipeline are scripted fakes (question -> chunk ids / answer text), so the
run loop, storage, error handling, interruption and recomputation are tested without
models.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest

from eval.golden import load_golden
from eval.metrics import compute_table
from eval.resolve import Resolver
from eval.run import RunOptions, run_eval
from eval.store import EvalStore
from kb.errors import ModelError, UsageError
from kb.rag import AnswerRecord, AnswerStream, SourceRef
from kb.search.options import SearchOptions
from kb.store import Store
from kb.types import ChunkDraft, ChunkerInfo, Hit, Span

DOC_A = "Alpha section. The capital is Paris. Beta section follows here."
GOLDEN = """\
schema_version: 1
corpus: corpus/
queries:
  - id: q1
    question: capital?
    category: factual
    supports:
      - path: notes/a.md
        heading: A > One
        snippet: The capital is Paris.
    answer:
      any_of: [Paris]
  - id: q2
    question: beta?
    category: factual
    supports:
      - path: notes/a.md
        snippet: Beta section
  - id: q3
    question: boom?
    category: factual
    supports:
      - path: notes/a.md
  - id: q4
    question: nothing?
    answerable: false
    category: unanswerable
  - id: q5
    question: gone?
    category: factual
    supports:
      - path: notes/deleted.md
"""


def make_store(home: Path, root: Path, chunker: str = "structure") -> Store:
    from kb.store.sources import add_source

    store = Store.open(home)
    root.joinpath("notes").mkdir(parents=True, exist_ok=True)
    src = add_source(store, root)
    chunks = [
        ChunkDraft(DOC_A[0:36], ("A", "One"), Span(line_start=1, line_end=2), 0, 36, 8),
        ChunkDraft(DOC_A[37:], ("A", "Two"), Span(line_start=3, line_end=3), 37, len(DOC_A), 6),
    ]
    store.save_document(
        root=src.path,
        path=src.display(f"{src.path}/notes/a.md"),
        abs_path=f"{src.path}/notes/a.md",
        source_id=src.id,
        doc_type="md",
        content_hash="h1",
        size=1,
        mtime=1.0,
        chunks=chunks,
        chunker=ChunkerInfo(chunker, "1", {"max_tokens": 10}),
    )
    return store


@dataclass
class FakeResult:
    hits: list[Hit]
    timings: dict[str, float] = field(default_factory=lambda: {"total": 0.001})


class FakeRetriever:
    """question -> chunk ords of notes/a.md (or an exception)."""

    def __init__(self, store: Store, script: dict[str, object]) -> None:
        self.store, self.script, self.calls = store, script, 0

    def search(self, query: str, opts: SearchOptions) -> FakeResult:
        self.calls += 1
        what = self.script.get(query, [])
        if isinstance(what, BaseException):
            raise what
        ids = [int(r[0]) for r in self.store.conn.execute("SELECT id FROM chunks ORDER BY ord")]
        rows = self.store.hits_for(ids)
        return FakeResult([rows[ids[i]] for i in what][: opts.k])  # type: ignore[union-attr]


class FakePipeline:
    def __init__(self, retriever: FakeRetriever, texts: dict[str, str]) -> None:
        self.retriever, self.texts = retriever, texts

    def ask(self, question: str, opts: SearchOptions) -> AnswerStream:
        hits = self.retriever.search(question, opts).hits
        text = self.texts.get(question, "not in context")
        refused = text == "not in context"
        cites = [SourceRef(1, hits[0].chunk_id, hits[0].path, {})] if "[#1]" in text else []
        return AnswerStream.finished(
            AnswerRecord(
                question=question,
                text=text,
                contexts=hits,
                citations=cites,
                refused=refused,
                grounded=bool(cites),
                timings={"retrieval_s": 0.01, "first_token_s": 0.02, "total_s": 0.05},
                model_hash="abc",
                prompt_version="v1",
            )
        )


@pytest.fixture
def setup(tmp_path: Path):  # type: ignore[no-untyped-def]
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    g = tmp_path / "g.yaml"
    g.write_text(GOLDEN)
    store = make_store(tmp_path / "kb", corpus)
    yield store, load_golden(g)
    store.close()


SCRIPT = {
    "capital?": [0, 1],
    "beta?": [0, 1],
    "boom?": RuntimeError("index broke"),
    "nothing?": [1],
    "gone?": [0],
}


def test_run_stores_every_query_and_recomputes(setup) -> None:  # type: ignore[no-untyped-def]
    store, golden = setup
    ret = FakeRetriever(store, SCRIPT)
    pipe = FakePipeline(ret, {"capital?": "It is Paris [#1]"})
    out = run_eval(store, ret, pipe, golden, RunOptions(k=5, name="first"))
    assert out.status == "complete"
    # q5's document is not in the KB: a drift warning, and the run went on
    assert any("notes/deleted.md is not in the KB" in w for w in out.warnings)
    es = EvalStore(store)
    row = es.find_run("first")
    assert row.status == "complete" and row.n_results == 5 and row.k == 5
    assert row.config["index"]["chunkers"][0]["name"] == "structure"
    assert row.config["llm"]["model_hash"] == "abc"
    assert row.config["path_mapping"] == "absolute"
    results = es.results(row.id)
    q3 = next(r for r in results if r.query_id == "q3")
    # a failing query is recorded with its error and stage; the others ran
    assert q3.error == "RuntimeError: index broke" and q3.error_stage == "retrieval"
    m = out.metrics["overall"]["metrics"]
    # q1: rank 1 matches; q2: "Beta section" is in chunk 2 -> rank 2; q5: doc missing -> 0
    assert m["hit@1"] == pytest.approx(1 / 3, abs=1e-4) and m["mrr@5"] == 0.5
    assert m["error_rate"] == 0.2 and m["answer_correct"] == 1.0
    assert m["abstention_accuracy"] == 1.0
    # metrics are recomputable from the stored rows alone
    again = compute_table(results, row.k).to_json()
    assert again["overall"] == out.metrics["overall"]
    assert row.metrics is not None and row.metrics["overall"] == out.metrics["overall"]


def test_no_answer_run_and_name_lookup(setup) -> None:  # type: ignore[no-untyped-def]
    store, golden = setup
    ret = FakeRetriever(store, SCRIPT)
    a = run_eval(store, ret, None, golden, RunOptions(k=3, answers=False))
    b = run_eval(
        store, ret, None, golden, RunOptions(k=3, answers=False, categories=("unanswerable",))
    )
    es = EvalStore(store)
    assert es.find_run("g").id == a.run_id  # name = golden stem, then a free variant
    assert es.find_run("g-2").id == b.run_id
    assert es.find_run(str(a.run_id)).id == a.run_id
    assert es.find_run(str(b.run_id)).n_results == 1
    assert "answer_correct" not in a.metrics["overall"]["metrics"]
    with pytest.raises(UsageError, match="no eval run 'nope'"):
        es.find_run("nope")


def test_interrupt_keeps_finished_queries(setup) -> None:  # type: ignore[no-untyped-def]
    store, golden = setup
    ret = FakeRetriever(store, {**SCRIPT, "boom?": KeyboardInterrupt()})
    with pytest.raises(KeyboardInterrupt):
        run_eval(store, ret, None, golden, RunOptions(k=3, answers=False, name="stopped"))
    row = EvalStore(store).find_run("stopped")
    assert row.status == "incomplete" and row.n_results == 2  # q1, q2 finished
    assert row.metrics is not None and row.metrics["overall"]["queries"] == 2


def test_fatal_errors_stop_the_run(setup) -> None:  # type: ignore[no-untyped-def]
    store, golden = setup
    ret = FakeRetriever(store, {"capital?": ModelError("model file missing")})
    with pytest.raises(ModelError):
        run_eval(store, ret, None, golden, RunOptions(k=3, answers=False, name="fatal"))
    row = EvalStore(store).find_run("fatal")
    assert row.status == "incomplete" and row.n_results == 0


def test_limit_and_scope(setup) -> None:  # type: ignore[no-untyped-def]
    store, golden = setup
    ret = FakeRetriever(store, SCRIPT)
    opts = RunOptions(k=3, answers=False, limit=2, search=SearchOptions(paths=("other/",)))
    out = run_eval(store, ret, None, golden, opts)
    # the scope excludes notes/a.md: every support is out of scope
    assert out.metrics["overall"]["queries"] == 2
    assert out.metrics["overall"]["metrics"]["scope_miss_rate"] == 1.0


def test_resolver_locates_snippets_across_chunks(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    store = make_store(tmp_path / "kb", corpus)
    from eval.golden import Support

    res = Resolver(store.conn, corpus)
    assert res.mapping == "absolute"
    inside = res.resolve(Support("notes/a.md", snippet="the CAPITAL is  paris"))
    assert inside.snippet_found == "chunk" and inside.doc_span == (15, 35)
    assert DOC_A[15:35] == "The capital is Paris"  # the located span, case as in the text
    # "Paris. Beta" straddles the two chunks: located in the document only
    across = res.resolve(Support("notes/a.md", snippet="Paris. Beta section"))
    assert across.snippet_found == "span"
    assert DOC_A[across.doc_span[0] : across.doc_span[1]] == "Paris. Beta section"  # type: ignore[index]
    assert res.resolve(Support("notes/a.md", snippet="nowhere")).snippet_found == "missing"
    assert not res.resolve(Support("notes/b.md")).exists
    # a golden corpus below the ingested folder: matched by absolute path
    res2 = Resolver(store.conn, corpus / "notes")
    assert res2.mapping == "absolute" and res2.kb_path("a.md") == "corpus/notes/a.md"
    assert res2.golden_path("corpus/notes/a.md") == "a.md"
    # no document under the corpus: one-source KB, paths relative to that source
    res3 = Resolver(store.conn, tmp_path / "elsewhere")
    assert res3.mapping == "assumed" and res3.kb_path("notes/a.md") == "corpus/notes/a.md"
    store.close()


def test_resolver_rebuilds_overlapping_windows(tmp_path: Path) -> None:
    """Sliding windows overlap; one window's text lost two characters (its span is off),
    yet a snippet straddling the windows is located at its true offsets."""
    from eval.golden import Support

    doc = "one two three four five six seven eight nine ten eleven twelve"
    w1 = doc[0:30]  # "one two three four five six se"
    w2 = doc[20:46].replace("six", "sx")  # altered: 1 character shorter than its span
    w3 = doc[40:]
    store = Store.open(tmp_path / "kb")
    drafts = [
        ChunkDraft(w1, (), Span(), 0, 30, 6),
        ChunkDraft(w2, (), Span(), 20, 46, 5),
        ChunkDraft(w3, (), Span(), 40, len(doc), 4),
    ]
    store.save_document(
        root=str(tmp_path),
        path="w.txt",
        doc_type="txt",
        content_hash="h",
        size=1,
        mtime=1.0,
        chunks=drafts,
        chunker=ChunkerInfo("window", "1", {"size": 6, "overlap": 2}),
    )
    res = Resolver(store.conn, tmp_path)
    r = res.resolve(Support("w.txt", snippet="eight nine ten eleven"))
    # in no single window, found across the boundary; the end lies in the intact third
    # window (exact), the start in the altered one (off by at most the lost character)
    assert r.snippet_found == "span" and r.doc_span is not None
    assert abs(r.doc_span[0] - doc.index("eight")) <= 1
    assert r.doc_span[1] == doc.index("eleven") + len("eleven")
    store.close()
