"""``kb eval run``: every selected golden query through the same retrieval (and, with
answers, the same ``kb ask`` pipeline) against one KB, stored as it goes.

Per query: ``Retriever.search(question, opts)`` at depth ``k`` -> hits stored with
their text and spans; then, unless answers are off, ``AskPipeline.ask(question,
answer_opts).result()`` -> the answer record with its contexts and citations.

Failures: an exception for one query (a bad question, generation failure, context
overflow) is stored as that query's error (``error_stage`` retrieval | answer) and the
run goes on. Errors that would fail every query (a missing model, an empty KB, an
embedding mismatch, a broken store) stop the run, which is marked ``incomplete``, and
are raised. Ctrl-C keeps the finished queries, marks the run ``incomplete`` (with
metrics over what finished) and re-raises :class:`KeyboardInterrupt`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from typing import TYPE_CHECKING, Any, Protocol

from eval import coverage
from eval.golden import GoldenQuery, GoldenSet
from eval.metrics import MetricTable, compute_table
from eval.resolve import Resolver, stored_hits
from eval.result import AnswerResult, QueryResult
from eval.store import EvalStore
from kb.errors import (
    ConfigError,
    EmbeddingMismatchError,
    EmptyStoreError,
    KbError,
    ModelError,
    StoreError,
)
from kb.search.options import SearchOptions
from kb.store import Store

if TYPE_CHECKING:
    from kb.types import Hit

FATAL = (ModelError, EmptyStoreError, EmbeddingMismatchError, StoreError, ConfigError)


class RetrieverLike(Protocol):
    def search(self, query: str, opts: SearchOptions) -> Any: ...


class PipelineLike(Protocol):
    def ask(self, question: str, opts: SearchOptions) -> Any: ...


class Progress(Protocol):
    def start(self, total: int) -> None: ...
    def advance(self, query_id: str) -> None: ...
    def finish(self) -> None: ...


@dataclass(frozen=True)
class RunOptions:
    """``search`` is used at depth ``k``; ``answer_search`` (default: ``search`` at its
    own k) is what the ask pipeline gets, as ``kb ask`` would."""

    k: int = 10
    name: str | None = None
    limit: int | None = None
    categories: tuple[str, ...] = ()
    search: SearchOptions = field(default_factory=SearchOptions)
    answer_search: SearchOptions | None = None
    answers: bool = True

    def to_json(self) -> dict[str, Any]:
        return {
            "k": self.k,
            "limit": self.limit,
            "categories": list(self.categories),
            "answers": self.answers,
            "search": asdict(replace(self.search, k=self.k)),
            "answer_search": asdict(self.answer_search) if self.answer_search else None,
            "scoped": self.search.scoped,
        }


@dataclass
class RunOutcome:
    run_id: int
    status: str
    table: MetricTable
    metrics: dict[str, Any]
    warnings: list[str]


def select_queries(
    golden: GoldenSet, categories: tuple[str, ...] = (), limit: int | None = None
) -> list[GoldenQuery]:
    """Queries in file order, only the given categories (if any), at most ``limit``."""
    qs = [q for q in golden.queries if not categories or (q.category or "") in categories]
    return qs if limit is None else qs[: max(0, limit)]


def drift_warnings(queries: list[GoldenQuery], resolved: dict[str, list[Any]]) -> list[str]:
    """One line per support whose document or snippet is not in the KB (pending queries
    are expected to lack their evidence and are left out)."""
    out = []
    for q in queries:
        if q.pending:
            continue
        for i, r in enumerate(resolved[q.id]):
            if not r.exists:
                out.append(f"query '{q.id}': supports[{i}]: {r.kb_path} is not in the KB")
            elif r.snippet_found == "missing":
                out.append(f"query '{q.id}': supports[{i}]: snippet not found in {r.kb_path}")
    return out


def run_eval(
    store: Store,
    retriever: RetrieverLike,
    pipeline: PipelineLike | None,
    golden: GoldenSet,
    options: RunOptions,
    extra_config: dict[str, Any] | None = None,
    progress: Progress | None = None,
    judge: Callable[[QueryResult], dict[str, Any] | None] | None = None,
    extra_metrics: list[str] | None = None,
) -> RunOutcome:
    """Run, store and score; see the module docs. ``judge`` (optional) scores each
    answered query and its result lands in ``answer.judge``. ``extra_metrics`` (e.g.
    the metrics named by gates) are computed besides the defaults."""
    es = EvalStore(store)
    queries = select_queries(golden, options.categories, options.limit)
    opts = replace(options.search, k=options.k)
    answer_opts = options.answer_search or options.search
    answers = options.answers and pipeline is not None
    resolver = Resolver(store.conn, golden.corpus_dir, opts)
    resolved = {q.id: resolver.resolve_query(q) for q in queries}
    warnings = drift_warnings(queries, resolved)
    if resolver.mapping == "assumed" and golden.corpus_dir is not None:
        warnings.insert(
            0,
            f"the KB holds no documents ingested from {golden.corpus_dir}; "
            "assuming it was ingested from the golden set's corpus root",
        )
    config = {
        "index": coverage.index_snapshot(store),
        "path_mapping": resolver.mapping,
        "path_prefix": resolver.prefix,
        **(extra_config or {}),
    }
    run_opts = {**options.to_json(), "answers": answers}
    name = options.name or golden.path.stem
    run_id = es.create_run(name, str(golden.path), golden.sha256, config, run_opts)
    results: list[QueryResult] = []
    status = "incomplete"
    if progress is not None:
        progress.start(len(queries))
    try:
        for pos, q in enumerate(queries):
            r = _run_one(store, retriever, pipeline if answers else None, q, pos, opts, answer_opts)
            r.resolved = resolved[q.id]
            if judge is not None and r.answer_ok:
                assert r.answer is not None
                r.answer.judge = judge(r)
            es.save_result(run_id, r)
            results.append(r)
            if progress is not None:
                progress.advance(q.id)
        status = "complete"
    finally:
        if progress is not None:
            progress.finish()
        _note_models(config, results)
        table = compute_table(results, options.k, "strict", scoped=opts.scoped, extra=extra_metrics)
        metrics = table.to_json()
        es.finish_run(run_id, status, metrics, config)
    return RunOutcome(run_id, status, table, metrics, warnings)


def _note_models(config: dict[str, Any], results: list[QueryResult]) -> None:
    """Record the GGUF hash and prompt version the answers actually used."""
    for r in results:
        if r.answer is not None and r.answer.model_hash:
            config.setdefault("llm", {})["model_hash"] = r.answer.model_hash
            config.setdefault("prompt", {})["version_used"] = r.answer.prompt_version
            break


def _run_one(
    store: Store,
    retriever: RetrieverLike,
    pipeline: PipelineLike | None,
    q: GoldenQuery,
    pos: int,
    opts: SearchOptions,
    answer_opts: SearchOptions,
) -> QueryResult:
    r = QueryResult(query=q, position=pos)
    t0 = time.perf_counter()
    try:
        found = retriever.search(q.question, opts)
        r.timings["retrieval_s"] = time.perf_counter() - t0
        r.timings["search"] = {
            k: round(float(v), 6) for k, v in (getattr(found, "timings", None) or {}).items()
        }
        r.hits = _stored(store, list(found.hits))
    except FATAL:
        raise
    except Exception as e:  # noqa: BLE001 - recorded, the run goes on
        r.error, r.error_stage = _message(e), "retrieval"
        return r
    if pipeline is None:
        return r
    try:
        stream = pipeline.ask(q.question, answer_opts)
        try:
            record = stream.result()
        except KeyboardInterrupt:
            stop = getattr(stream, "cancel", None)
            if stop is not None:
                stop()
            raise
        r.answer = _answer(store, record)
        if record.error:
            r.error, r.error_stage = str(record.error), "answer"
    except FATAL:
        raise
    except Exception as e:  # noqa: BLE001
        r.error, r.error_stage = _message(e), "answer"
    return r


def _message(e: BaseException) -> str:
    return str(e) if isinstance(e, KbError) else f"{type(e).__name__}: {e}"


def _stored(store: Store, hits: list[Hit]) -> list[Any]:
    """Hits with their chunk spans from the store (a chunk deleted meanwhile keeps the
    hit's own fields)."""
    from eval.matching import StoredHit

    rows = stored_hits(store.conn, [h.chunk_id for h in hits])
    out = []
    for h in hits:
        s = rows.get(h.chunk_id)
        if s is None:
            s = StoredHit(
                chunk_id=h.chunk_id,
                path=h.path,
                text=h.text,
                heading=h.locator.heading(),
                doc_type=h.locator.doc_type,
                text_hash=h.text_hash,
            )
        out.append(replace(s, score=float(h.score)))
    return out


def _answer(store: Store, record: Any) -> AnswerResult:
    """The stored form of an ``AnswerRecord``: every field of its ``to_dict()`` (the
    verifier's optional ones included), with the contexts as stored hits."""
    d = {k: v for k, v in record.to_dict().items() if k != "contexts"}
    ans = AnswerResult.from_dict(d)
    ans.contexts = _stored(store, list(record.contexts))
    return ans
