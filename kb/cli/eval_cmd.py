"""``kb eval``: run golden sets against the KB, look at runs, compare them, gate CI.

The command layer only composes: it builds the store, retriever and pipeline (models
load lazily, on the first query that needs them) and hands them to :mod:`eval`.
This module holds the Typer group; each subcommand lives in its own module:

- ``run``: :mod:`kb.cli.eval_run` (with :mod:`kb.cli.eval_runtime`)
- ``check``, ``list``, ``show``, ``export``: :mod:`kb.cli.eval_view`
- ``compare``: :mod:`kb.cli.eval_compare`
- ``record``: :mod:`kb.cli.eval_record`
- ``tune``: :mod:`kb.cli.eval_tune`

Shared options and helpers: :mod:`kb.cli.eval_common`.
"""

from __future__ import annotations

import typer

from kb.cli import eval_compare, eval_record, eval_run, eval_tune, eval_view

eval_app = typer.Typer(
    help="Evaluate retrieval and answers against golden sets; compare runs; gate CI.",
    no_args_is_help=True,
)

eval_app.command("run")(eval_run.run)
eval_app.command("check")(eval_view.check)
eval_app.command("list")(eval_view.list_runs)
eval_app.command("show")(eval_view.show)
eval_app.command("export")(eval_view.export)
eval_app.command("compare")(eval_compare.compare)
eval_app.command("record")(eval_record.record)
eval_app.command("tune")(eval_tune.tune)
