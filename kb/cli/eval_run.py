"""``kb eval run``: score every golden query's retrieval (and answer), store the run, gate."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from kb.cli.common import (
    JsonOption,
    KbOption,
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


def run(
    golden: GoldenArg,
    k: Annotated[int | None, k_option("Retrieval depth scored.", key="eval.k")] = None,
    name: Annotated[
        str | None,
        typer.Option(
            "--name",
            metavar="NAME",
            help="Run name. [default: the golden file's stem]",
            show_default=False,
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
    md: MdOption = None,
    html: HtmlOption = None,
    kb: KbOption = None,
    json_out: JsonOption = False,
    quiet: QuietOption = False,
) -> None:
    """Run every query of GOLDEN through retrieval (and kb ask) and score it.

    Stored in the KB (see `kb eval list`). Metrics: hit@k, mrr@10, recall@k,
    recall_all@k, precision@k, map@k, ndcg@k, empty_result_rate, scope_miss_rate;
    with answers citation_validity, attribution_hit_rate, citation_precision,
    answer_correct, answered_precision, abstention_accuracy,
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

    Exit codes: 0 done; 1 a gate failed; 2 bad golden set, gate or option; 3 model
    missing; 4 empty KB; 130 interrupted (finished queries are kept, run incomplete).
    """
    from dataclasses import replace

    from eval.gates import check_gates, enforce, parse_gates
    from eval.golden import load_golden
    from eval.report import RunReport
    from eval.run import RunOptions, run_eval
    from eval.store import EvalStore
    from kb.cli.eval_runtime import RunProgress, build_runtime, make_judge
    from kb.errors import EXIT_INTERRUPTED, UsageError

    settings = settings_for(
        kb, **{"search.min_score": min_score, "llm.model": str(model) if model else None}
    )
    depth = k if k is not None else settings.eval.k
    if depth < 1:
        raise UsageError(f"-k {depth}: must be at least 1 (config eval.k)")
    answers = not no_answer
    if judge is not None and not answers:
        raise UsageError("--judge scores answers; drop --no-answer to use it")
    gates = parse_gates(gate or [], depth, answers)
    gs = load_golden(golden)
    opts = search_opts(settings, mode, path, doc_type, tag)
    answer_opts = replace(opts, k=answer_k) if answer_k else opts
    with open_kb(settings) as store:
        retriever, pipeline, extra = build_runtime(settings, store, answers)
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
    failed = check_gates(gates, out.metrics["overall"]["metrics"])
    rep = RunReport(row, out.metrics, out.warnings, failed if gates else None)
    emit_run(rep.to_json(), json_out, md, html)
    enforce(gates, out.metrics["overall"]["metrics"])
