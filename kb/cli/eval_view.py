"""``kb eval check|list|show|export``: read golden sets and stored runs, never run models."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from kb.cli.common import JsonOption, KbOption, print_json, settings_for
from kb.cli.eval_common import (
    GoldenArg,
    HtmlOption,
    MdOption,
    RunArg,
    console,
    open_kb,
    write_report,
    write_reports,
)


def check(golden: GoldenArg, kb: KbOption = None, json_out: JsonOption = False) -> None:
    """Report supports of GOLDEN the KB no longer backs (the corpus drifted).

    Per support: the document is missing or failed, no chunk has the heading, the
    snippet is in no chunk nor in the document text, or no chunk overlaps the
    page/lines/seconds. A snippet found only across a chunk boundary is a note.

    \b
    Examples:
      kb eval check golden.yaml
      kb eval check golden.yaml --json

    Exit codes: 0 no drift; 1 drift found; 2 invalid golden set.
    """
    from eval.drift import check_golden
    from eval.golden import load_golden
    from eval.resolve import Resolver

    gs = load_golden(golden)
    settings = settings_for(kb)
    with open_kb(settings) as store:
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


def list_runs(kb: KbOption = None, json_out: JsonOption = False) -> None:
    """List the eval runs stored in the KB.

    \b
    Examples:
      kb eval list
      kb eval list --json
    """
    from eval.render_terminal import render_list
    from eval.store import EvalStore

    with open_kb(settings_for(kb)) as store:
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
        render_list(runs, console())


MatchingOption = Annotated[
    str | None,
    typer.Option(
        "--matching",
        metavar="MATCHING",
        show_default=False,
        help="Score the run under this support matching: exact (the run's own) or "
        "doc_span (the one `kb eval compare` uses for runs made by different chunkers).",
    ),
]
QueryOption = Annotated[
    list[str] | None,
    typer.Option(
        "--query",
        "-q",
        metavar="ID",
        show_default=False,
        help="Show this query's drill-down (repeat for more): answer sentences with "
        "verdicts and evidence, answer checks, supports, retrieved hits.",
    ),
]


def show(
    run_ref: RunArg,
    recompute: Annotated[
        bool,
        typer.Option(
            "--recompute",
            help="Recompute the metrics from the stored rows (and refresh the cache).",
        ),
    ] = False,
    matching: MatchingOption = None,
    query: QueryOption = None,
    md: MdOption = None,
    html: HtmlOption = None,
    kb: KbOption = None,
    json_out: JsonOption = False,
) -> None:
    """Show a stored run's metrics, overall and by category, difficulty, tag, answerable.

    Every table names its matching (exact or doc_span). With --query ID, show that
    query's drill-down instead; --md/--html reports add every query's drill-down (or
    only those named by --query).

    \b
    Examples:
      kb eval show base
      kb eval show base --query squad-0042
      kb eval show 3 --md run3.md --html run3.html
    """
    from eval.render_html import run_html
    from eval.render_markdown import run_markdown
    from eval.render_terminal import render_queries, render_run
    from eval.report_load import load_report

    with open_kb(settings_for(kb)) as store:
        rep = load_report(store, run_ref, recompute, matching, query, bool(md or html))
    write_reports(rep, md, html, run_markdown, run_html)
    if json_out:
        print_json(rep if query else {k: v for k, v in rep.items() if k != "queries"})
    elif query:
        render_queries(rep["queries"], rep["matching"], console())
    else:
        render_run(rep, console())


def export(
    run_ref: RunArg,
    fmt: Annotated[
        str,
        typer.Option(
            "--format",
            metavar="FORMAT",
            help="One of: trec (run + qrels files), jsonl (one trace per query).",
        ),
    ] = "jsonl",
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            metavar="FILE",
            help="trec: a file prefix, writes FILE.run and FILE.qrels (kb-eval-ID when not "
            "given); jsonl: the file to write (stdout when not given).",
            show_default=False,
        ),
    ] = None,
    kb: KbOption = None,
) -> None:
    """Export a run: TREC run + qrels files, or JSONL traces.

    TREC: the qrels list each support as a unit (QID::s<i>) with its grade; the run
    names, per rank, the unit the chunk was credited with, else chunk-<id>, so
    trec_eval (use -c) and ranx reproduce this run's retrieval metrics. JSONL: one
    trace per query (question, retrieved chunk ids, answer, citations).

    \b
    Examples:
      kb eval export base --format trec --out base
      kb eval export base > base.jsonl
    """
    import json

    from eval.export import trace, trec_lines
    from eval.store import EvalStore
    from kb.errors import UsageError

    if fmt not in ("trec", "jsonl"):
        raise UsageError(f"--format {fmt!r}: expected trec or jsonl")
    with open_kb(settings_for(kb)) as store:
        es = EvalStore(store)
        row = es.find_run(run_ref)
        results = es.results(row.id)
    if fmt == "trec":
        run_lines, qrels = trec_lines(results, row.k, f"kb-{row.id}")
        prefix = out if out is not None else Path(f"kb-eval-{row.id}")
        pair = (Path(f"{prefix}.run"), Path(f"{prefix}.qrels"))
        from kb.safe_open import output_problem, show

        for target in pair:  # both or neither: a run file without its qrels misleads
            if (problem := output_problem(target)) is not None:
                raise UsageError(
                    f"--out {show(prefix)}: {show(target)} is {problem}; name another prefix"
                )
        write_report(pair[0], "\n".join(run_lines) + "\n")
        write_report(pair[1], "\n".join(qrels) + "\n")
        return
    lines = [json.dumps(trace(r, row.k), ensure_ascii=False) for r in results]
    if out is None:
        for line in lines:
            sys.stdout.write(line + "\n")
    else:
        write_report(out, "\n".join(lines) + "\n")
