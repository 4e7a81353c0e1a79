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
metrics over what finished) and re-raises :class:`KeyboardInterrupt`. A run killed
outright stays ``running`` in the table and reads as ``interrupted`` (:mod:`eval.store`).

Resuming (:func:`resume_eval`): a stopped run is continued with the queries it has not
stored, under its own options (k, selection, search options, answers on/off). The
configuration snapshot of the resumed process must equal the stored one, apart from
what a run notes as it goes (``llm.model_hash``, ``prompt.version_used``); a changed
KB (chunkers, embedding model, corpus fingerprint, coverage), model or setting is
refused with one line naming the keys. Metrics are computed over every stored result
in golden order, exactly as for a run that was never interrupted.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from typing import TYPE_CHECKING, Any, Protocol

from eval import coverage
from eval.golden import GoldenQuery, GoldenSet
from eval.metrics import MetricTable, compute_table
from eval.resolve import Resolver, stored_hits
from eval.result import AnswerResult, QueryResult
from eval.store import EvalStore, RunRow
from eval.token_space import Tokenizer, TokenSpace
from kb.errors import (
    ConfigError,
    EmbeddingMismatchError,
    EmptyStoreError,
    KbError,
    ModelError,
    StoreError,
    UsageError,
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
    replace: bool = False  # delete an older run of the same name instead of refusing

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

    @classmethod
    def from_json(cls, data: dict[str, Any], name: str | None = None) -> RunOptions:
        """The options a run was stored with (:meth:`to_json`), to resume it."""
        search = _search_options(data.get("search") or {})
        answer = data.get("answer_search")
        return cls(
            k=int(data.get("k", search.k)),
            name=name,
            limit=data.get("limit"),
            categories=tuple(data.get("categories") or ()),
            search=search,
            answer_search=None if answer is None else _search_options(answer),
            answers=bool(data.get("answers", True)),
        )


def _search_options(data: dict[str, Any]) -> SearchOptions:
    from dataclasses import fields

    known = {f.name for f in fields(SearchOptions)}
    kw: dict[str, Any] = {
        k: tuple(v) if isinstance(v, list) else v for k, v in data.items() if k in known
    }
    if data and "sentence_weight" not in data:
        kw["sentence_weight"] = 0.0  # stored by a kb without the sentence rerank: resume alike
    if data and "links" not in data:
        kw["links"] = 0  # stored by a kb without title links: resume alike
    return SearchOptions(**kw)


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
    tokenizer: Tokenizer | None = None,
) -> RunOutcome:
    """Run, store and score; see the module docs. ``judge`` (optional) scores each
    answered query and its result lands in ``answer.judge``. ``extra_metrics`` (e.g.
    the metrics named by gates) are computed besides the defaults. ``tokenizer`` (the
    embedder's) records evidence and hits as token spans for the chunk-level metrics
    (:mod:`eval.token_space`); without it they are not reported. Without
    ``options.name`` the run is named after the golden file (``-2``, ``-3``... when
    that name is taken)."""
    es = EvalStore(store)
    chunking = getattr(retriever, "chunking_id", None)
    plan = _plan(store, golden, options, pipeline, extra_config, tokenizer, chunking)
    run_opts = {**options.to_json(), "answers": plan.answers}
    name = options.name or es.free_name(golden.path.stem)
    run_id = es.create_run(
        name, str(golden.path), golden.sha256, plan.config, run_opts, replace=options.replace
    )
    return _execute(
        es, run_id, plan, retriever, pipeline, options, [], progress, judge, extra_metrics
    )


def resume_eval(
    store: Store,
    retriever: RetrieverLike,
    pipeline: PipelineLike | None,
    golden: GoldenSet,
    run: RunRow,
    extra_config: dict[str, Any] | None = None,
    progress: Progress | None = None,
    judge: Callable[[QueryResult], dict[str, Any] | None] | None = None,
    extra_metrics: list[str] | None = None,
    tokenizer: Tokenizer | None = None,
) -> RunOutcome:
    """Continue the stopped ``run`` with the queries it has not stored (module docs)."""
    es = EvalStore(store)
    if run.status == "complete":
        raise UsageError(f"eval run {run.name!r} is complete; nothing to resume")
    if run.status == "running":
        where = f"pid {run.pid} on {run.host}" if run.pid else "another process"
        raise UsageError(
            f"eval run {run.name!r} is still running ({where}); wait for it or stop it first"
        )
    if golden.sha256 != run.golden_hash:
        raise UsageError(
            f"{golden.path}: the golden set changed since run {run.name!r} started; "
            "start a new run instead of resuming"
        )
    options = RunOptions.from_json(run.options, run.name)
    plan = _plan(
        store,
        golden,
        options,
        pipeline,
        extra_config,
        tokenizer,
        getattr(retriever, "chunking_id", None),
    )
    if plan.answers != bool(run.options.get("answers")):
        on = "with" if run.options.get("answers") else "without"
        raise UsageError(f"eval run {run.name!r} ran {on} answers; resume it the same way")
    changed = config_changes(run.config, plan.config)
    if changed:
        raise UsageError(
            f"cannot resume eval run {run.name!r}: the KB or configuration changed since it "
            f"started ({', '.join(changed[:6])}); start a new run"
        )
    done = es.results(run.id)
    es.claim_run(run.id)
    return _execute(
        es, run.id, plan, retriever, pipeline, options, done, progress, judge, extra_metrics
    )


NOTED_KEYS = (("llm", "model_hash"), ("prompt", "version_used"))
#: where the answer model runs (GPU layers, CPU threads): a resumed run may run elsewhere,
#: as ``kb eval run --resume`` keeps the current machine's values for them
PLACEMENT_KEYS = (("llm", "n_gpu_layers"), ("llm", "threads"))


def config_changes(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """Dotted keys whose values differ between two config snapshots, ignoring what a
    run notes while it goes (:data:`NOTED_KEYS`) and where the model runs
    (:data:`PLACEMENT_KEYS`)."""

    def strip(cfg: dict[str, Any]) -> dict[str, Any]:
        out = json.loads(json.dumps(cfg, sort_keys=True, default=str))
        for section, key in NOTED_KEYS + PLACEMENT_KEYS:
            if isinstance(out.get(section), dict):
                out[section].pop(key, None)
        return out

    diffs: list[str] = []

    def walk(a: Any, b: Any, prefix: str) -> None:
        if isinstance(a, dict) and isinstance(b, dict):
            for k in sorted(set(a) | set(b)):
                walk(a.get(k), b.get(k), f"{prefix}{k}.")
        elif a != b:
            diffs.append(prefix.rstrip("."))

    walk(strip(old), strip(new), "")
    return diffs


@dataclass
class _Plan:
    queries: list[GoldenQuery]
    opts: SearchOptions
    answer_opts: SearchOptions
    answers: bool
    resolved: dict[str, list[Any]]
    warnings: list[str]
    config: dict[str, Any]
    tokens: TokenSpace | None = None


def _plan(
    store: Store,
    golden: GoldenSet,
    options: RunOptions,
    pipeline: PipelineLike | None,
    extra_config: dict[str, Any] | None,
    tokenizer: Tokenizer | None = None,
    chunking_id: int | None = None,
) -> _Plan:
    """What a run will do; ``chunking_id`` is the chunking the retriever searches
    (``None``: the live one): golden supports are matched to its chunks."""
    queries = select_queries(golden, options.categories, options.limit)
    opts = replace(options.search, k=options.k)
    answer_opts = options.answer_search or options.search
    answers = options.answers and pipeline is not None
    resolver = Resolver(store.conn, golden.corpus_dir, opts, chunking_id)
    resolved = {q.id: resolver.resolve_query(q) for q in queries}
    tokens = (
        None if tokenizer is None else TokenSpace(store.conn, tokenizer, chunking_id=chunking_id)
    )
    if tokens is not None:
        resolved = {k: [tokens.annotate_support(s) for s in v] for k, v in resolved.items()}
    warnings = drift_warnings(queries, resolved)
    if resolver.mapping == "assumed" and golden.corpus_dir is not None:
        warnings.insert(
            0,
            f"the KB holds no documents ingested from {golden.corpus_dir}; "
            "assuming it was ingested from the golden set's corpus root",
        )
    config = {
        "index": coverage.index_snapshot(store, chunking_id),
        "path_mapping": resolver.mapping,
        "path_prefix": resolver.prefix,
        **(extra_config or {}),
    }
    return _Plan(queries, opts, answer_opts, answers, resolved, warnings, config, tokens)


def _execute(
    es: EvalStore,
    run_id: int,
    plan: _Plan,
    retriever: RetrieverLike,
    pipeline: PipelineLike | None,
    options: RunOptions,
    done: list[QueryResult],
    progress: Progress | None,
    judge: Callable[[QueryResult], dict[str, Any] | None] | None,
    extra_metrics: list[str] | None,
) -> RunOutcome:
    """Run the plan's queries not in ``done``, storing each; finish the run with metrics
    over ``done`` and the new results in golden order."""
    store = es.store
    queries, opts, answer_opts, answers = plan.queries, plan.opts, plan.answer_opts, plan.answers
    config = plan.config
    by_id = {q.id: q for q in queries}
    results: list[QueryResult] = []
    for r in done:  # stored results scored with the golden query and support as now
        if r.query_id in by_id:
            r.query, r.resolved = by_id[r.query_id], plan.resolved[r.query_id]
            results.append(r)
    have = {r.query_id for r in results}
    status = "incomplete"
    if progress is not None:
        progress.start(len(queries) - len(have))
    try:
        for pos, q in enumerate(queries):
            if q.id in have:
                continue
            r = _run_one(store, retriever, pipeline if answers else None, q, pos, opts, answer_opts)
            r.resolved = plan.resolved[q.id]
            if plan.tokens is not None:
                r.hits = [plan.tokens.annotate_hit(h) for h in r.hits]
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
        results.sort(key=lambda r: r.position)
        _note_models(config, results)
        table = compute_table(results, options.k, "strict", scoped=opts.scoped, extra=extra_metrics)
        metrics = table.to_json()
        es.finish_run(run_id, status, metrics, config)
    return RunOutcome(run_id, status, table, metrics, plan.warnings)


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


def run_queries(
    store: Store,
    retriever: RetrieverLike,
    pipeline: PipelineLike,
    queries: list[GoldenQuery],
    options: RunOptions,
) -> list[QueryResult]:
    """Ask ``queries`` again as a run would (retrieval, then the answer), without
    storing anything: what ``kb eval rules`` compares against a stored run."""
    answer_opts = options.answer_search or options.search
    search = replace(options.search, k=options.k)
    return [
        _run_one(store, retriever, pipeline, q, i, search, answer_opts)
        for i, q in enumerate(queries)
    ]


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
