"""``kb eval``: run golden sets against the KB, look at runs, compare them, gate CI.

The command layer only composes: it builds the store, retriever and pipeline (models
load lazily, on the first query that needs them) and hands them to :mod:`eval`.
This module holds the Typer group; each subcommand lives in its own module:

- ``run``: :mod:`kb.cli.eval_run` (with :mod:`kb.cli.eval_runtime`)
- ``check``, ``list``, ``show``, ``export``: :mod:`kb.cli.eval_view`
- ``compare``: :mod:`kb.cli.eval_compare`
- ``record``: :mod:`kb.cli.eval_record`
- ``tune``: :mod:`kb.cli.eval_tune`
- ``sweep``: :mod:`kb.cli.eval_sweep`
- ``rules``: :mod:`kb.cli.eval_rules`

Shared options and helpers: :mod:`kb.cli.eval_common`.
"""

from __future__ import annotations

import typer

from kb.cli import (
    eval_compare,
    eval_record,
    eval_rules,
    eval_run,
    eval_sweep,
    eval_tune,
    eval_view,
)
from kb.cli.help import command_kwargs, show_help_without_command

eval_app = typer.Typer(invoke_without_command=True, no_args_is_help=False)


@eval_app.callback()
def _eval(ctx: typer.Context) -> None:
    """Evaluate retrieval and answers against golden sets; compare runs; gate CI.

    \b
    Examples:
      kb eval run golden.yaml --no-answer --name base
      kb eval compare base tuned
    """
    show_help_without_command(ctx)


eval_app.command(
    "run", **command_kwargs("Run a golden set through retrieval (and answers); score it.")
)(eval_run.run)
eval_app.command("check", **command_kwargs("Report golden supports the KB no longer backs."))(
    eval_view.check
)
eval_app.command("list", **command_kwargs("List the stored eval runs."))(eval_view.list_runs)
eval_app.command("show", **command_kwargs("Show a stored run's metrics."))(eval_view.show)
eval_app.command("export", **command_kwargs("Export a run as TREC files or JSONL traces."))(
    eval_view.export
)
eval_app.command(
    "compare", **command_kwargs("Compare run B against baseline A, with significance.")
)(eval_compare.compare)
eval_app.command("record", **command_kwargs("Grow a golden set interactively from search hits."))(
    eval_record.record
)
eval_app.command(
    "tune", **command_kwargs("Tune retrieval settings on a golden set (train/test split).")
)(eval_tune.tune)
eval_app.command(
    "sweep", **command_kwargs("Evaluate several chunkings side by side; print a leaderboard.")
)(eval_sweep.sweep)
eval_app.command(
    "rules", **command_kwargs("Measure what each answer rule changes: with it, and without.")
)(eval_rules.rules)
