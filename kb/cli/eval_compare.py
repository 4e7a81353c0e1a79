"""``kb eval compare``: run B against baseline A with paired significance tests."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Annotated

import typer

from kb.cli.common import JsonOption, KbOption, print_json, settings_for
from kb.cli.eval_common import HtmlOption, MdOption, console, open_kb, write_reports


def compare(
    run_a: Annotated[str, typer.Argument(help="Baseline run A (id or name).", metavar="A")],
    run_b: Annotated[str, typer.Argument(help="Candidate run B (id or name).", metavar="B")],
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
            "--permutations",
            metavar="N",
            help="Randomization test permutations (and bootstrap resamples).",
        ),
    ] = 10000,
    seed: Annotated[
        int, typer.Option("--seed", metavar="N", help="Random seed of the tests.")
    ] = 20240601,
    md: MdOption = None,
    html: HtmlOption = None,
    kb: KbOption = None,
    kb_b: Annotated[
        Path | None,
        typer.Option(
            "--kb-b",
            metavar="DIR",
            help="KB folder holding run B. [default: the KB of run A]",
            show_default=False,
        ),
    ] = None,
    json_out: JsonOption = False,
) -> None:
    """Compare run B against baseline A: metric deltas, significance, wins and losses.

    Per metric: B − A over the queries both runs share, a paired randomization test
    (two-sided p) and a bootstrap 95% CI. Per query, on the rank of the first
    matching chunk: win, loss, draw, regression (A matched, B did not). Runs made
    with different chunkers are matched by document spans (fallback_doc_span;
    every table names its matching, and `kb eval show A --matching doc_span`
    prints the same numbers as column A). Regressions and improvements (first
    matching rank or any answer metric) are listed with each query's drill-down,
    A beside B.

    \b
    Examples:
      kb eval compare base tuned
      kb eval compare base tuned --fail-on-regression --md compare.md

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
    with contextlib.ExitStack() as stack:
        store = stack.enter_context(open_kb(settings_for(kb)))
        other = None if kb_b is None else stack.enter_context(open_kb(settings_for(kb_b)))
        c = compare_runs(
            EvalStore(store),
            run_a,
            run_b,
            strict_chunker_version,
            permutations,
            permutations,
            seed,
            None if other is None else EvalStore(other),
        )
    data = comparison_json(c)
    write_reports(data, md, html, compare_markdown, compare_html)
    if json_out:
        print_json(data)
    else:
        render_compare(data, console())
    regs = c.regressions()
    if fail_on_regression and regs:
        shown = ", ".join(o.query_id for o in regs[:5]) + (" ..." if len(regs) > 5 else "")
        raise GateFailedError(f"{len(regs)} regression(s): {shown}")
