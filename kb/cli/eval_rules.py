"""``kb eval rules GOLDEN``: what each answer rule changes on a golden set (:mod:`eval.rules`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from kb.cli.common import JsonOption, KbOption, err, print_json, settings_for
from kb.cli.eval_common import open_kb, search_opts


def rules(
    golden: Annotated[
        Path | None,
        typer.Argument(
            help="Golden set (.yaml/.yml or .jsonl) with answerable and unanswerable queries.",
            metavar="GOLDEN",
            show_default=False,
        ),
    ] = None,
    base: Annotated[
        str | None,
        typer.Option(
            "--base",
            metavar="RUN",
            help="A stored run of GOLDEN with answers and every rule on (`kb eval run`); "
            "without it GOLDEN is run first and stored as rules-<name>.",
        ),
    ] = None,
    rule: Annotated[
        list[str] | None,
        typer.Option("--rule", metavar="ID", help="Only this rule id; repeatable."),
    ] = None,
    list_only: Annotated[
        bool, typer.Option("--list", help="List the rule ids, kinds and purposes, and stop.")
    ] = False,
    kb: KbOption = None,
    json_out: JsonOption = False,
) -> None:
    """Measure each answer rule: GOLDEN once with every rule, then without each.

    A rule changes only the queries it fired on, so only those are asked again with
    the rule off ([answer] rules_off). Per rule: the queries it fired on, those whose
    decision changed (right = an answerable query answered correctly or an unanswerable
    one refused), wins and losses, answer_correct / abstention / over-refusal counts
    with and without it, and the exact sign test p. A rule pays when it wins more than
    it loses; one that does not, on questions it was not written for, should go.

    \b
    Examples:
      kb eval rules --list
      kb eval rules golden.yaml
      kb eval rules golden.yaml --base main --rule negation --rule every-term

    Exit codes: 0 done; 2 unknown rule id, no GOLDEN, or a golden set without
    unanswerable queries; 3 model missing; 4 empty KB.
    """
    from kb.errors import UsageError
    from kb.rag.rules import BY_ID, RULES, unknown

    if list_only:
        if json_out:
            print_json(
                [{"id": r.id, "kind": r.kind, "lang": r.lang, "purpose": r.purpose} for r in RULES]
            )
        else:
            for r in RULES:
                typer.echo(f"{r.id:18} {r.kind:8} {r.lang:3} {r.purpose}")
        return
    if bad := unknown(rule or []):
        raise UsageError(f"--rule {bad[0]!r}: unknown rule id; `kb eval rules --list` lists them")
    if golden is None:
        raise UsageError("kb eval rules needs GOLDEN (or --list)")
    from eval.golden import load_golden

    gs = load_golden(golden)
    if not any(not q.answerable for q in gs.queries):
        raise UsageError(
            f"{golden}: no unanswerable query; a rule's refusals cannot be judged without "
            "them: add queries with answerable: false"
        )
    chosen = [r for r in RULES if r.kind != "judge" and (not rule or r.id in rule)]
    settings = settings_for(kb)
    report = _measure(settings, gs, base, [(r.id, r.kind) for r in chosen])
    if json_out:
        print_json({"golden": str(golden), "rules": [r.to_dict() for r in report]})
        return
    _print(report, BY_ID)


def _measure(settings: Any, gs: Any, base: str | None, chosen: list[tuple[str, str]]) -> Any:
    from dataclasses import replace

    from eval.rules import measure
    from eval.run import RunOptions, run_eval, run_queries
    from eval.store import EvalStore
    from kb.cli.eval_runtime import RunProgress, build_runtime
    from kb.rag.pipeline import AskPipeline

    opts = search_opts(settings, None, None, None, None)
    with open_kb(settings) as store:
        retriever, pipeline, extra = build_runtime(settings, store, True)
        es = EvalStore(store)
        ropts = RunOptions(k=settings.eval.k, search=opts, answer_search=opts)
        if base is None:
            store.require_writable("kb eval rules")
            name = es.free_name(f"rules-{gs.path.stem}")
            out = run_eval(
                store, retriever, pipeline, gs, replace(ropts, name=name), extra, RunProgress()
            )
            run_id = out.run_id
            err(f"base run stored as {name}")
        else:
            run_id = es.find_run(base).id
        results = es.results(run_id)
        gen = pipeline.generator()

        def rerun(rule_id: str, hit: list[Any]) -> list[Any]:
            off = replace(settings.answer, rules_off=(*settings.answer.rules_off, rule_id))
            p = AskPipeline(retriever, gen, replace(settings, answer=off))
            return run_queries(store, retriever, p, [r.query for r in hit], ropts)

        return measure(results, chosen, rerun)


def _print(report: Any, by_id: dict[str, Any]) -> None:
    typer.echo(
        f"{'rule':18} {'kind':8} {'fired':>5} {'changed':>7} {'wins':>4} {'losses':>6} "
        f"{'delta':>7} {'p':>6}  correct/abstained/over-refused with -> without"
    )
    for r in report:
        on, off = r.counts_on, r.counts_off
        trio = (
            f"{on['answer_correct']}/{on['abstained']}/{on['over_refused']} -> "
            f"{off['answer_correct']}/{off['abstained']}/{off['over_refused']}"
        )
        verdict = "pays" if r.pays else ("no effect" if not r.changed else "does not pay")
        typer.echo(
            f"{r.rule:18} {r.kind:8} {r.fired:5d} {len(r.changed):7d} {r.wins:4d} "
            f"{r.losses:6d} {r.delta:+7.4f} {r.p:6.3f}  {trio}  {verdict}"
        )
