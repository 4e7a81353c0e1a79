"""``kb eval``: run golden sets against the KB, look at runs, compare them, gate CI.

The command layer only composes: it builds the store, retriever and pipeline (models
load lazily, on the first query that needs them) and hands them to :mod:`eval`.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from kb.cli.common import JsonOption, KbOption, err, print_json, settings_for

if TYPE_CHECKING:
    from eval.golden import GoldenSet
    from kb.config import Settings
    from kb.store import Store

eval_app = typer.Typer(
    help="Evaluate retrieval and answers against golden sets; compare runs; gate CI.",
    no_args_is_help=True,
)

GoldenArg = Annotated[Path, typer.Argument(help="Golden set: .yaml/.yml or .jsonl (format v1).")]
RunArg = Annotated[str, typer.Argument(help="Run id, or name (the latest run with that name).")]
MdOption = Annotated[Path | None, typer.Option("--md", help="Also write a Markdown report here.")]
HtmlOption = Annotated[
    Path | None, typer.Option("--html", help="Also write a single-file offline HTML report.")
]
ModeOption = Annotated[
    str | None, typer.Option("--mode", help="Retrieval: hybrid | vector | keyword.")
]
PathOption = Annotated[
    list[str] | None,
    typer.Option("--path", help="Only documents under this path prefix or glob (repeatable)."),
]
TypeOption = Annotated[
    list[str] | None, typer.Option("--type", help="Only this document type (repeatable).")
]
TagOption = Annotated[
    list[str] | None, typer.Option("--tag", help="Only documents with this tag (repeatable).")
]
MinScoreOption = Annotated[
    float | None, typer.Option("--min-score", help="Drop hits with cosine below this.")
]


def _open(settings: Settings) -> Store:
    from kb.errors import EmptyStoreError
    from kb.store import Store
    from kb.store.sqlite import DB_NAME

    if not (settings.home / DB_NAME).is_file():
        raise EmptyStoreError(f"the KB at {settings.home} is empty; run `kb ingest PATH` first")
    return Store.open(settings.home, create=False)


def _console(stderr: bool = False) -> Any:
    from rich.console import Console

    return Console(stderr=stderr, soft_wrap=False, width=None if sys.stdout.isatty() else 120)


def _write(path: Path, text: str) -> None:
    from kb.errors import UsageError

    try:
        path.write_text(text, encoding="utf-8")
    except OSError as e:
        raise UsageError(f"{path}: cannot write the report: {e.strerror}") from None
    err(f"wrote {path}")


class _Progress:
    """rich bar on a terminal (stderr), else a plain line every ~10% of the queries."""

    def __init__(self) -> None:
        self.tty = sys.stderr.isatty()
        self.bar: Any = None
        self.task: Any = None
        self.total = 0
        self.done = 0

    def start(self, total: int) -> None:
        self.total = total
        if self.tty:
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
            )

            self.bar = Progress(
                TextColumn("[bold]eval"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[q]}", style="dim"),
                TimeElapsedColumn(),
                console=_console(stderr=True),
            )
            self.task = self.bar.add_task("eval", total=total, q="")
            self.bar.start()

    def advance(self, query_id: str) -> None:
        self.done += 1
        if self.bar is not None:
            self.bar.update(self.task, advance=1, q=query_id[-30:])
        elif self.done == self.total or self.done % max(1, self.total // 10) == 0:
            err(f"eval: {self.done}/{self.total} queries")

    def finish(self) -> None:
        if self.bar is not None:
            self.bar.stop()


def _search_opts(
    settings: Settings,
    mode: str | None,
    path: list[str] | None,
    doc_type: list[str] | None,
    tag: list[str] | None,
) -> Any:
    from kb.search.options import SearchOptions

    return SearchOptions.from_settings(
        settings.search,
        mode=mode,
        paths=tuple(path or ()),
        types=tuple(doc_type or ()),
        tags=tuple(tag or ()),
    )


@eval_app.command("run")
def run(
    golden: GoldenArg,
    k: Annotated[
        int | None,
        typer.Option("-k", "--k", help="Retrieval depth scored (default: eval.k = 10)."),
    ] = None,
    name: Annotated[
        str | None, typer.Option("--name", help="Run name (default: the golden file's stem).")
    ] = None,
    limit: Annotated[
        int | None, typer.Option("--limit", help="Run only the first N selected queries.")
    ] = None,
    category: Annotated[
        list[str] | None,
        typer.Option("--category", help="Only queries of this category (repeatable)."),
    ] = None,
    mode: ModeOption = None,
    path: PathOption = None,
    doc_type: TypeOption = None,
    tag: TagOption = None,
    min_score: MinScoreOption = None,
    no_answer: Annotated[
        bool, typer.Option("--no-answer", help="Retrieval only: do not run the answer model.")
    ] = False,
    answer_k: Annotated[
        int | None,
        typer.Option("--answer-k", help="Passages given to the answer model (default: search.k)."),
    ] = None,
    model: Annotated[
        Path | None, typer.Option("--model", help="A .gguf answer model instead of llm.model.")
    ] = None,
    gate: Annotated[
        list[str] | None,
        typer.Option(
            "--gate",
            help='Fail (exit 1) unless METRIC OP NUMBER holds, e.g. "hit@5>=0.8" (repeatable).',
        ),
    ] = None,
    judge: Annotated[
        Path | None,
        typer.Option(
            "--judge",
            help="Also score answers with this GGUF as an LLM judge (reported apart, never gated).",
        ),
    ] = None,
    md: MdOption = None,
    html: HtmlOption = None,
    kb: KbOption = None,
    json_out: JsonOption = False,
) -> None:
    """Run every query of GOLDEN through retrieval (and kb ask) and score it.

    Stored in the KB (see `kb eval list`). Metrics: hit@k, mrr@10, recall@k,
    recall_all@k, precision@k, map@k, ndcg@k, empty_result_rate, scope_miss_rate;
    with answers citation_validity, attribution_hit_rate, citation_precision,
    answer_correct, answered_precision, abstention_accuracy,
    hallucination_rate_unanswerable, over_refusal_rate, conflict_rule_pass_rate;
    error_rate, empty_answer_rate and latency_{retrieval,first_token,total}_{p50,p95}.
    Paths in GOLDEN are relative to its `corpus` folder; the KB is expected to have
    been ingested from that folder (or a folder above it).

    Exit codes: 0 done; 1 a gate failed; 2 bad golden set, gate or option; 3 model
    missing; 4 empty KB; 130 interrupted (finished queries are kept, run incomplete).
    """
    from eval.gates import enforce, parse_gates
    from eval.golden import load_golden
    from eval.report import RunReport
    from eval.run import RunOptions, run_eval
    from eval.store import EvalStore
    from kb.errors import EXIT_INTERRUPTED, UsageError

    settings = settings_for(
        kb, **{"search.min_score": min_score, "llm.model": str(model) if model else None}
    )
    depth = k if k is not None else settings.eval.k
    if depth < 1:
        raise UsageError(f"--k {depth}: must be at least 1")
    answers = not no_answer
    if judge is not None and not answers:
        raise UsageError("--judge scores answers; drop --no-answer to use it")
    gates = parse_gates(gate or [], depth, answers)
    gs = load_golden(golden)
    opts = _search_opts(settings, mode, path, doc_type, tag)
    from dataclasses import replace

    answer_opts = replace(opts, k=answer_k) if answer_k else opts
    with _open(settings) as store:
        retriever, pipeline, extra = _build(settings, store, answers)
        # load the models now: a missing model fails before the run starts, and the
        # one-off load time stays out of the first query's latency
        if opts.mode != "keyword" and store.count_chunks() > 0:
            retriever.embedder  # noqa: B018 - property loads and checks the embedder
        if pipeline is not None:
            pipeline.generator()
        judge_fn = _judge(settings, judge) if judge is not None else None
        ropts = RunOptions(
            k=depth,
            name=name,
            limit=limit,
            categories=tuple(category or ()),
            search=opts,
            answer_search=answer_opts,
            answers=answers,
        )
        try:
            out = run_eval(
                store,
                retriever,
                pipeline,
                gs,
                ropts,
                extra,
                _Progress(),
                judge_fn,
                [g.spec.name for g in gates],
            )
        except KeyboardInterrupt:
            runs = EvalStore(store).list_runs()
            if runs:
                err(
                    f"kb: interrupted; run {runs[-1].id} kept as incomplete "
                    f"({runs[-1].n_results} queries)"
                )
            raise typer.Exit(EXIT_INTERRUPTED) from None
        for w in out.warnings[:10]:
            err(f"kb: warning: {w}")
        if len(out.warnings) > 10:
            err(f"kb: warning: ... and {len(out.warnings) - 10} more; see `kb eval check`")
        row = EvalStore(store).get_run(out.run_id)
        assert row is not None
    from eval.gates import check_gates

    failed = check_gates(gates, out.metrics["overall"]["metrics"])
    rep = RunReport(row, out.metrics, out.warnings, failed if gates else None)
    _emit_run(rep.to_json(), json_out, md, html)
    enforce(gates, out.metrics["overall"]["metrics"])


def _build(settings: Settings, store: Store, answers: bool) -> tuple[Any, Any, dict[str, Any]]:
    """Retriever, pipeline (or None) and the config snapshot of what will run."""
    from dataclasses import asdict

    from kb import __version__
    from kb.backends.embedder import embedding_model_id, make_embedder
    from kb.search import Retriever

    retriever = Retriever(store, lambda: make_embedder(settings.embedding))
    extra: dict[str, Any] = {
        "kb_version": __version__,
        "embedding_configured": embedding_model_id(settings.embedding),
        "search_settings": asdict(settings.search),
    }
    pipeline = None
    if answers:
        from kb.backends.bundled import model_cache_dir
        from kb.backends.generator import check_gguf, make_generator, resolve_model_path
        from kb.rag import AskPipeline

        gguf = check_gguf(resolve_model_path(settings.llm))
        cache = model_cache_dir(settings.home)
        pipeline = AskPipeline(
            retriever, lambda: make_generator(settings.llm, cache_dir=cache), settings
        )
        extra["llm"] = {**asdict(settings.llm), "model_path": str(gguf)}
        extra["prompt"] = {
            "version": settings.prompt.version,
            "refusal_phrase": settings.prompt.refusal_phrase,
        }
    return retriever, pipeline, extra


def _judge(settings: Settings, model: Path) -> Any:
    """An :class:`eval.judge.Judge` over the generator backend at temperature 0."""
    from dataclasses import replace

    from eval.judge import GRAMMAR, Judge
    from kb.backends.bundled import model_cache_dir
    from kb.backends.generator import check_gguf, make_generator

    check_gguf(model)
    llm = replace(settings.llm, model=str(model), temperature=0.0)
    holder: dict[str, Any] = {}

    def gen() -> Any:
        if "g" not in holder:
            holder["g"] = make_generator(llm, cache_dir=model_cache_dir(settings.home))
        return holder["g"]

    def complete(messages: list[dict[str, str]]) -> str:
        return "".join(gen().stream(messages, max_tokens=4, grammar=GRAMMAR))

    class _LazyHash(Judge):
        def __call__(self, r: Any) -> Any:
            if self.model_hash is None:
                self.model_hash = gen().model_hash
            return super().__call__(r)

    return _LazyHash(complete, None)


def _emit_run(rep: dict[str, Any], json_out: bool, md: Path | None, html: Path | None) -> None:
    from eval.render_html import run_html
    from eval.render_markdown import run_markdown
    from eval.render_terminal import render_run

    if json_out:
        print_json(rep)
    else:
        render_run(rep, _console())
        if rep.get("gates_failed"):
            for g in rep["gates_failed"]:
                err(f"gate failed: {g}")
    if md is not None:
        _write(md, run_markdown(rep))
    if html is not None:
        _write(html, run_html(rep))


@eval_app.command("check")
def check(golden: GoldenArg, kb: KbOption = None, json_out: JsonOption = False) -> None:
    """Report supports of GOLDEN that the KB no longer backs (the corpus drifted).

    Per support: the document is missing or failed, no chunk has the heading, the
    snippet is in no chunk nor in the document text, or no chunk overlaps the
    page/lines/seconds. A snippet found only across a chunk boundary is a note.

    Exit codes: 0 no drift; 1 drift found; 2 invalid golden set.
    """
    from eval.drift import check_golden
    from eval.golden import load_golden
    from eval.resolve import Resolver

    gs = load_golden(golden)
    settings = settings_for(kb)
    with _open(settings) as store:
        res = Resolver(store.conn, gs.corpus_dir)
        issues = check_golden(res, gs)
    drift = [i for i in issues if i.drift]
    supports = sum(len(q.supports) for q in gs.queries)
    if json_out:
        print_json(
            {
                "golden": str(golden),
                "queries": len(gs.queries),
                "supports": supports,
                "path_mapping": res.mapping,
                "drift": len(drift),
                "issues": [i.__dict__ for i in issues],
            }
        )
    else:
        for i in issues:
            typer.echo(i.line())
        typer.echo(
            f"{len(gs.queries)} queries, {supports} supports: {len(drift)} drifted, "
            f"{len(issues) - len(drift)} notes (path mapping: {res.mapping})"
        )
    raise typer.Exit(1 if drift else 0)


@eval_app.command("list")
def list_runs(kb: KbOption = None, json_out: JsonOption = False) -> None:
    """List the eval runs stored in the KB."""
    from eval.render_terminal import render_list
    from eval.store import EvalStore

    with _open(settings_for(kb)) as store:
        runs = EvalStore(store).list_runs()
    if json_out:
        print_json(
            [
                {**r.to_dict(), "overall": (r.metrics or {}).get("overall", {}).get("metrics")}
                for r in runs
            ]
        )
    elif not runs:
        typer.echo("no eval runs yet; run `kb eval run GOLDEN`")
    else:
        render_list(runs, _console())


def _load_report(store: Store, ref: str, recompute: bool) -> dict[str, Any]:
    from eval.metrics import compute_table
    from eval.report import RunReport
    from eval.store import EvalStore

    es = EvalStore(store)
    row = es.find_run(ref)
    metrics = row.metrics
    if recompute or metrics is None:
        table = compute_table(
            es.results(row.id), row.k, "strict", scoped=bool(row.options.get("scoped"))
        )
        metrics = table.to_json()
        es.set_metrics(row.id, metrics)
    return RunReport(row, metrics).to_json()


@eval_app.command("show")
def show(
    run_ref: RunArg,
    recompute: Annotated[
        bool,
        typer.Option(
            "--recompute",
            help="Recompute the metrics from the stored rows (and refresh the cache).",
        ),
    ] = False,
    md: MdOption = None,
    html: HtmlOption = None,
    kb: KbOption = None,
    json_out: JsonOption = False,
) -> None:
    """Show a stored run's metrics, overall and by category, difficulty, tag, answerable."""
    with _open(settings_for(kb)) as store:
        rep = _load_report(store, run_ref, recompute)
    _emit_run(rep, json_out, md, html)


@eval_app.command("export")
def export(
    run_ref: RunArg,
    fmt: Annotated[
        str,
        typer.Option("--format", help="trec (run + qrels files) or jsonl (one trace per query)."),
    ] = "jsonl",
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            help="trec: file prefix (writes "
            "PREFIX.run and PREFIX.qrels; default kb-eval-<id>); jsonl: file "
            "(default stdout).",
        ),
    ] = None,
    kb: KbOption = None,
) -> None:
    """Export a run: TREC run + qrels files, or JSONL traces.

    TREC: the qrels list each support as a unit (QID::s<i>) with its grade; the run
    names, per rank, the unit the chunk was credited with, else chunk-<id>, so
    trec_eval (use -c) and ranx reproduce this run's retrieval metrics. JSONL: one
    trace per query (question, retrieved chunk ids, answer, citations).
    """
    import json

    from eval.export import trace, trec_lines
    from eval.store import EvalStore
    from kb.errors import UsageError

    if fmt not in ("trec", "jsonl"):
        raise UsageError(f"--format {fmt!r}: expected trec or jsonl")
    with _open(settings_for(kb)) as store:
        es = EvalStore(store)
        row = es.find_run(run_ref)
        results = es.results(row.id)
    if fmt == "trec":
        run_lines, qrels = trec_lines(results, row.k, f"kb-{row.id}")
        prefix = out if out is not None else Path(f"kb-eval-{row.id}")
        _write(Path(f"{prefix}.run"), "\n".join(run_lines) + "\n")
        _write(Path(f"{prefix}.qrels"), "\n".join(qrels) + "\n")
        return
    lines = [json.dumps(trace(r, row.k), ensure_ascii=False) for r in results]
    if out is None:
        for line in lines:
            sys.stdout.write(line + "\n")
    else:
        _write(out, "\n".join(lines) + "\n")


@eval_app.command("compare")
def compare(
    run_a: Annotated[str, typer.Argument(help="Baseline run A (id or name).")],
    run_b: Annotated[str, typer.Argument(help="Candidate run B (id or name).")],
    strict_chunker_version: Annotated[
        bool,
        typer.Option(
            "--strict-chunker-version",
            help="Refuse runs made with different chunkers instead "
            "of falling back to document-span matching.",
        ),
    ] = False,
    fail_on_regression: Annotated[
        bool,
        typer.Option("--fail-on-regression", help="Exit 1 when a query A matched is missed by B."),
    ] = False,
    permutations: Annotated[
        int,
        typer.Option(
            "--permutations", help="Randomization test permutations (and bootstrap resamples)."
        ),
    ] = 10000,
    seed: Annotated[int, typer.Option("--seed", help="Random seed of the tests.")] = 20240601,
    md: MdOption = None,
    html: HtmlOption = None,
    kb: KbOption = None,
    kb_b: Annotated[
        Path | None,
        typer.Option("--kb-b", help="KB folder holding run B (default: the same KB as run A)."),
    ] = None,
    json_out: JsonOption = False,
) -> None:
    """Compare run B against baseline A: metric deltas, significance, wins and losses.

    Per metric: B − A over the queries both runs share, a paired randomization test
    (two-sided p) and a bootstrap 95% CI. Per query, on the rank of the first
    matching chunk: win, loss, draw, regression (A matched, B did not). Runs made
    with different chunkers are matched by document spans (fallback_doc_span).

    Exit codes: 0 done; 1 --fail-on-regression and a regression; 2 bad run or
    --strict-chunker-version with different chunkers.
    """
    from eval.compare import compare_runs
    from eval.render_html import compare_html
    from eval.render_markdown import compare_markdown
    from eval.render_terminal import render_compare
    from eval.report import comparison_json
    from eval.store import EvalStore
    from kb.errors import GateFailedError, UsageError

    if permutations < 1:
        raise UsageError(f"--permutations {permutations}: must be at least 1")
    with _open(settings_for(kb)) as store:
        if kb_b is None:
            c = compare_runs(
                EvalStore(store),
                run_a,
                run_b,
                strict_chunker_version,
                permutations,
                permutations,
                seed,
            )
        else:
            with _open(settings_for(kb_b)) as store_b:
                c = compare_runs(
                    EvalStore(store),
                    run_a,
                    run_b,
                    strict_chunker_version,
                    permutations,
                    permutations,
                    seed,
                    EvalStore(store_b),
                )
    data = comparison_json(c)
    if json_out:
        print_json(data)
    else:
        render_compare(data, _console())
    if md is not None:
        _write(md, compare_markdown(data))
    if html is not None:
        _write(html, compare_html(data))
    regs = c.regressions()
    if fail_on_regression and regs:
        shown = ", ".join(o.query_id for o in regs[:5]) + (" ..." if len(regs) > 5 else "")
        raise GateFailedError(f"{len(regs)} regression(s): {shown}")


@eval_app.command("record")
def record(
    golden: Annotated[Path, typer.Argument(help="Golden file to append to (created if missing).")],
    k: Annotated[int, typer.Option("-k", "--k", help="Hits to show per question.")] = 5,
    mode: ModeOption = None,
    path: PathOption = None,
    doc_type: TypeOption = None,
    tag: TagOption = None,
    kb: KbOption = None,
) -> None:
    """Grow GOLDEN interactively from questions and the hits you pick.

    Type a question, pick the correct hits by number (or u = unanswerable, s = skip);
    each entry is appended with path, heading and a distinctive sentence of the chunk
    as anchors, under a new unique id. An empty question ends.
    """
    import os
    from dataclasses import replace

    from eval.golden import load_golden
    from eval.record import record_loop
    from eval.resolve import Resolver, stored_hits

    settings = settings_for(kb)
    opts = replace(_search_opts(settings, mode, path, doc_type, tag), k=k)
    gs: GoldenSet | None = load_golden(golden) if golden.exists() else None
    with _open(settings) as store:
        from kb.backends.embedder import make_embedder
        from kb.search import Retriever

        retriever = Retriever(store, lambda: make_embedder(settings.embedding))
        roots = [str(r[0]) for r in store.conn.execute("SELECT DISTINCT root FROM documents")]
        corpus_dir = (
            gs.corpus_dir if gs is not None else (Path(roots[0]) if len(roots) == 1 else None)
        )
        res = Resolver(store.conn, corpus_dir)
        corpus = None
        if gs is None and corpus_dir is not None:
            corpus = os.path.relpath(corpus_dir, golden.resolve().parent)

        def search(q: str) -> list[Any]:
            hits = retriever.search(q, opts).hits
            rows = stored_hits(store.conn, [h.chunk_id for h in hits])
            return [rows[h.chunk_id] for h in hits if h.chunk_id in rows]

        def read(prompt: str) -> str | None:
            sys.stdout.write(prompt)
            sys.stdout.flush()
            line = sys.stdin.readline()
            return None if line == "" else line.rstrip("\n")

        n = record_loop(golden, search, read, typer.echo, res.golden_path, store.conn, corpus)
    err(f"{n} entries added to {golden}")
