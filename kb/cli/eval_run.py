"""``kb eval run``: score every golden query's retrieval (and answer), store the run, gate."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer

from kb.cli.common import (
    AnswerModeOption,
    JsonOption,
    KbOption,
    MinAnswerableOption,
    QuietOption,
    at_least_one,
    config_default,
    err,
    k_option,
    settings_for,
)
from kb.cli.eval_common import (
    GoldenArg,
    HtmlOption,
    MdOption,
    MinScoreOption,
    ModeOption,
    PathOption,
    TagOption,
    TypeOption,
    emit_run,
    open_kb,
    search_opts,
)
from kb.errors import UsageError

if TYPE_CHECKING:
    from eval.gates import Gate
    from eval.run import RunOutcome
    from kb.config import Settings
    from kb.store import Store


def run(
    golden: GoldenArg,
    k: Annotated[int | None, k_option("Retrieval depth scored.", key="eval.k")] = None,
    name: Annotated[
        str | None,
        typer.Option(
            "--name",
            metavar="NAME",
            help="Run name, unique in the KB; taken names get -2, -3 added. "
            "[default: the golden file's stem]",
            show_default=False,
        ),
    ] = None,
    replace_run: Annotated[
        bool,
        typer.Option("--replace", help="Delete an existing run of the same --name first."),
    ] = False,
    resume: Annotated[
        str | None,
        typer.Option(
            "--resume",
            metavar="NAME",
            help="Continue the interrupted or incomplete run NAME with the queries it has not "
            "stored, under its own options and configuration (refused if the KB or the "
            "configuration changed).",
        ),
    ] = None,
    limit: Annotated[
        int | None,
        typer.Option(
            "--limit",
            metavar="N",
            help="Run only the first N selected queries.",
            callback=at_least_one,
            show_default=False,
        ),
    ] = None,
    category: Annotated[
        list[str] | None,
        typer.Option(
            "--category",
            metavar="NAME",
            help="Only queries of this category; repeatable.",
            show_default=False,
        ),
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
        typer.Option(
            "--answer-k",
            metavar="N",
            help=f"Passages given to the answer model. {config_default('search.k')}",
            callback=at_least_one,
            show_default=False,
        ),
    ] = None,
    model: Annotated[
        Path | None,
        typer.Option(
            "--model",
            metavar="FILE",
            help=f"A .gguf answer model. {config_default('llm.model')}",
            show_default=False,
        ),
    ] = None,
    answer_mode: AnswerModeOption = None,
    min_answerable: MinAnswerableOption = None,
    gate: Annotated[
        list[str] | None,
        typer.Option(
            "--gate",
            metavar="RULE",
            help='Fail (exit 1) unless METRIC OP NUMBER holds, e.g. "hit@5>=0.8"; repeatable.',
            show_default=False,
        ),
    ] = None,
    judge: Annotated[
        Path | None,
        typer.Option(
            "--judge",
            metavar="FILE",
            help="Also score answers with this GGUF as an LLM judge (reported apart, never gated).",
            show_default=False,
        ),
    ] = None,
    chunker: Annotated[
        str | None,
        typer.Option(
            "--chunker",
            metavar="SPEC",
            help="Evaluate the chunking of SPEC instead of the live one (built, from the "
            "embedding cache where it can be, if it is not stored or is stale). The live "
            "chunking, its vectors and search results are left exactly as they were.",
            show_default=False,
        ),
    ] = None,
    md: MdOption = None,
    html: HtmlOption = None,
    kb: KbOption = None,
    json_out: JsonOption = False,
    quiet: QuietOption = False,
) -> None:
    """Run every query of GOLDEN through retrieval (and kb ask) and score it.

    Stored in the KB (see `kb eval list`). Metrics: hit@k, mrr@10, recall@k,
    recall_all@k, precision@k, map@k, ndcg@k, empty_result_rate, scope_miss_rate;
    chunk level, in the embedder's tokens: token_recall@k, token_precision@k,
    token_iou@k, budget_recall@B (B tokens), precision_omega, evidence_split_rate,
    evidence_resolved_rate; with answers citation_validity, attribution_hit_rate,
    citation_precision, citation_support_rate, answer_correct, answered_precision,
    abstention_accuracy,
    hallucination_rate_unanswerable, over_refusal_rate, conflict_rule_pass_rate;
    error_rate, empty_answer_rate, and latency_retrieval, latency_first_token and
    latency_total (each _p50 and _p95).
    Paths in GOLDEN are relative to its `corpus` folder (matched by absolute path
    against the KB's documents); without `corpus` they are the KB's own paths
    (display-name/relative/path), or relative to the only source of a one-source KB.

    \b
    Examples:
      kb eval run golden.yaml --no-answer --gate "hit@5>=0.8"
      kb eval run golden.yaml --name tuned --md report.md
      kb eval run golden.yaml --no-answer --chunker window:size=64

    Exit codes: 0 done; 1 a gate failed; 2 bad golden set, gate or option; 3 model
    missing; 4 empty KB; 130 interrupted (finished queries are kept, run incomplete;
    continue it with --resume NAME).
    """
    from dataclasses import replace

    from eval.gates import parse_gates
    from eval.golden import load_golden
    from eval.run import RunOptions, run_eval
    from ingest.tokens import counter_for
    from kb.cli.eval_runtime import RunProgress, build_runtime, make_judge

    if resume is not None:
        given = {
            "--k": k,
            "--name": name,
            "--limit": limit,
            "--category": category,
            "--mode": mode,
            "--path": path,
            "--type": doc_type,
            "--tag": tag,
            "--min-score": min_score,
            "--answer-k": answer_k,
            "--replace": replace_run or None,
            "--chunker": chunker,
        }
        clash = [flag for flag, v in given.items() if v]
        if clash:
            raise UsageError(
                f"--resume continues a run with its own options; drop {', '.join(clash)}"
            )
        _resume(golden, resume, no_answer, model, gate, judge, md, html, kb, json_out)
        return
    settings = settings_for(
        kb,
        **{
            "search.min_score": min_score,
            "llm.model": str(model) if model else None,
            "answer.mode": answer_mode,
            "answer.min_answerable": min_answerable,
        },
    )
    if settings.answer.mode not in ("quote", "generate"):
        raise UsageError(f"--answer-mode {settings.answer.mode}: choose quote or generate")
    depth = k if k is not None else settings.eval.k
    if depth < 1:
        raise UsageError(f"-k {depth}: must be at least 1 (config eval.k)")
    answers = not no_answer
    if judge is not None and not answers:
        raise UsageError("--judge scores answers; drop --no-answer to use it")
    gates = parse_gates(gate or [], depth, answers)
    gs = load_golden(golden)
    from kb.backends.generator import check_gguf

    for named in (model if answers else None, judge):
        if named is not None:  # a FIFO or a folder named as a model: before any load
            check_gguf(named)
    opts = search_opts(settings, mode, path, doc_type, tag)
    answer_opts = replace(opts, k=answer_k) if answer_k else opts
    with open_kb(settings) as store:
        store.require_writable("kb eval run")
        chunking_id = None
        if chunker is not None:
            chunking_id, info = _build(store, settings, chunker, quiet)
        retriever, pipeline, extra = build_runtime(settings, store, answers, chunking_id)
        if chunker is not None:
            extra["chunking"] = info
        # load the models now: a missing model fails before the run starts, and the
        # one-off load time stays out of the first query's latency
        if opts.mode != "keyword" and store.count_chunks() > 0:
            retriever.embedder  # noqa: B018 - property loads and checks the embedder
        if pipeline is not None:
            pipeline.generator()
        judge_fn = make_judge(settings, judge) if judge is not None else None
        ropts = RunOptions(
            k=depth,
            name=name,
            limit=limit,
            categories=tuple(category or ()),
            search=opts,
            answer_search=answer_opts,
            answers=answers,
            replace=replace_run,
        )
        try:
            out = run_eval(
                store,
                retriever,
                pipeline,
                gs,
                ropts,
                extra,
                RunProgress(quiet=quiet),
                judge_fn,
                [g.spec.name for g in gates],
                counter_for(settings.embedding.model),
            )
        except KeyboardInterrupt:
            _interrupted(store)
        _finish(store, out, gates, json_out, md, html)


def _build(store: Store, settings: Settings, spec: str, quiet: bool) -> tuple[int, dict[str, Any]]:
    """The chunking of ``spec``, brought up to date (:func:`ingest.chunkings.
    build_chunking`); returns its id and what the run records about it."""
    from ingest.chunkings import build_chunking
    from kb.backends.embedder import make_embedder
    from kb.cli.chunkings_cmd import warn_build_problems
    from kb.store import chunkings
    from kb.store.lock import write_lock

    with write_lock(store.home, "kb eval run --chunker"):
        rep = build_chunking(
            store,
            settings,
            spec,
            lambda: make_embedder(settings.embedding, home=store.home, purpose="ingest"),
        )
    warn_build_problems(rep)
    if not quiet and rep.documents:
        err(
            f"kb: chunking {spec}: {rep.documents} documents chunked, "
            f"{rep.embedded} texts embedded, {rep.cached} from the cache"
        )
    live = chunkings.live_id(store) == rep.chunking_id
    return rep.chunking_id, {"spec": spec, "live": live, **rep.to_dict()}


def _interrupted(store: Store) -> NoReturn:
    from eval.store import EvalStore
    from kb.errors import EXIT_INTERRUPTED

    runs = EvalStore(store).list_runs()
    if runs:
        last = max(runs, key=lambda r: r.created_at)
        err(
            f"kb: interrupted; run {last.id} kept as incomplete ({last.n_results} queries); "
            f"continue it with --resume {last.name}"
        )
    raise typer.Exit(EXIT_INTERRUPTED) from None


def _finish(
    store: Store,
    out: RunOutcome,
    gates: list[Gate],
    json_out: bool,
    md: Path | None,
    html: Path | None,
) -> None:
    from eval.gates import check_gates, enforce
    from eval.report import RunReport
    from eval.store import EvalStore

    for w in out.warnings[:10]:
        err(f"kb: warning: {w}")
    if len(out.warnings) > 10:
        err(f"kb: warning: ... and {len(out.warnings) - 10} more; see `kb eval check`")
    row = EvalStore(store).get_run(out.run_id)
    assert row is not None
    failed = check_gates(gates, out.metrics["overall"]["metrics"])
    rep = RunReport(row, out.metrics, out.warnings, failed if gates else None)
    emit_run(rep.to_json(), json_out, md, html)
    enforce(gates, out.metrics["overall"]["metrics"])


_LLM_PLACEMENT = frozenset(["model", "n_gpu_layers", "threads"])  # where the model runs


def _restored(current: Any, cls: Any, stored: Any, skip: frozenset[str] = frozenset()) -> Any:
    """``current`` with the fields of ``cls`` that ``stored`` (a run's config snapshot)
    holds, except ``skip``; unknown keys (a snapshot from another version) are ignored."""
    from dataclasses import fields, replace

    if not isinstance(stored, dict):
        return current
    known = {f.name for f in fields(cls)} - skip
    return replace(current, **{k: v for k, v in stored.items() if k in known})


def _resume(
    golden: Path,
    name: str,
    no_answer: bool,
    model: Path | None,
    gate: list[str] | None,
    judge: Path | None,
    md: Path | None,
    html: Path | None,
    kb: Path | None,
    json_out: bool,
) -> None:
    """``--resume NAME``: the run's stored search settings and options, the rest as now."""
    from dataclasses import replace

    from eval.gates import parse_gates
    from eval.golden import load_golden
    from eval.run import resume_eval
    from eval.store import EvalStore
    from ingest.tokens import counter_for
    from kb.cli.eval_runtime import RunProgress, build_runtime, make_judge
    from kb.config import AnswerSettings, LlmSettings, SearchSettings

    settings = settings_for(kb, **{"llm.model": str(model) if model else None})
    gs = load_golden(golden)
    with open_kb(settings) as store:
        store.require_writable("kb eval run --resume")
        row = EvalStore(store).find_run(name)
        answers = bool(row.options.get("answers"))
        if no_answer and answers:
            raise UsageError(f"eval run {row.name!r} ran with answers; drop --no-answer")
        if judge is not None and not answers:
            raise UsageError("--judge scores answers; this run has none")
        # what decides the results comes from the run's snapshot, so the resumed queries
        # are answered as the first ones were; where the model runs (path, threads,
        # GPU layers) stays as configured now
        settings = replace(
            settings,
            search=_restored(settings.search, SearchSettings, row.config.get("search_settings")),
            answer=_restored(settings.answer, AnswerSettings, row.config.get("answer")),
            llm=_restored(settings.llm, LlmSettings, row.config.get("llm"), skip=_LLM_PLACEMENT),
        )
        gates = parse_gates(gate or [], row.k, answers)
        # a run made with --chunker continues on that chunking (when it is still stored)
        chunking = row.config.get("chunking") or None
        cid = int(chunking["chunking_id"]) if chunking and "chunking_id" in chunking else None
        retriever, pipeline, extra = build_runtime(settings, store, answers, cid)
        if chunking:
            extra["chunking"] = chunking
        if row.options.get("search", {}).get("mode") != "keyword" and store.count_chunks() > 0:
            retriever.embedder  # noqa: B018 - property loads and checks the embedder
        if pipeline is not None:
            pipeline.generator()
        judge_fn = make_judge(settings, judge) if judge is not None else None
        try:
            out = resume_eval(
                store,
                retriever,
                pipeline,
                gs,
                row,
                extra,
                RunProgress(),
                judge_fn,
                [g.spec.name for g in gates],
                counter_for(settings.embedding.model),
            )
        except KeyboardInterrupt:
            _interrupted(store)
        _finish(store, out, gates, json_out, md, html)
