"""Options and helpers shared by every command group (defined once, reused).

Output conventions: results go to stdout (``--json`` gives machine-readable
output everywhere a command prints results); messages and errors go to stderr.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

if TYPE_CHECKING:
    from kb.config import Settings
    from kb.search.options import SearchOptions
    from kb.store import Store


def config_default(key: str) -> str:
    """The help suffix for an option whose default comes from the configuration:
    ``[default: VALUE (config KEY)]``, VALUE being the built-in default. Every option
    writes its default this one way (typer adds ``[default: VALUE]`` for the others)."""
    from kb.config import Settings

    node: Any = Settings()
    for part in key.split("."):
        node = getattr(node, part)
    return f"[default: {node} (config {key})]"


def at_least_one(value: int | None) -> int | None:
    """Option callback: whole numbers below 1 are a usage error (exit 2)."""
    if value is not None and value < 1:
        raise typer.BadParameter(f"{value} is below 1; give a whole number of at least 1")
    return value


def k_option(help: str, key: str = "search.k") -> Any:
    """``-k N`` with one validation everywhere (search, ask, eval run, eval record)."""
    return typer.Option(
        "-k",
        "--k",
        help=f"{help} {config_default(key)}",
        metavar="N",
        callback=at_least_one,
        show_default=False,
    )


KbOption = Annotated[
    Path | None,
    typer.Option(
        "--kb",
        help="KB folder. [default: $KB_HOME, else the platform data directory]",
        metavar="DIR",
        show_default=False,
    ),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")]
QuietOption = Annotated[
    bool,
    typer.Option("-q", "--quiet", help="No progress lines on stderr (errors still show)."),
]

# Retrieval options shared by `kb search`, `kb ask`, `kb eval run` and `kb eval record`.
ModeOption = Annotated[
    str | None,
    typer.Option(
        "--mode",
        metavar="MODE",
        help="One of: hybrid (keywords + vectors, fused), vector, keyword (no model is "
        f"loaded). {config_default('search.mode')}",
        show_default=False,
    ),
]


def answer_mode_choice(value: str | None) -> str | None:
    """Option callback: ``quote`` or ``generate``."""
    if value is not None and value not in ("quote", "generate"):
        raise typer.BadParameter(f"{value!r}: choose quote or generate")
    return value


AnswerModeOption = Annotated[
    str | None,
    typer.Option(
        "--answer-mode",
        metavar="MODE",
        callback=answer_mode_choice,
        help="One of: quote (each sentence is copied from a cited passage), generate (the "
        f"model writes its own cited sentences). {config_default('answer.mode')}",
        show_default=False,
    ),
]


def unit_fraction(value: float | None) -> float | None:
    """Option callback: a finite value in [0, 1]."""
    value = finite(value)
    if value is not None and not 0.0 <= value <= 1.0:
        raise typer.BadParameter(f"{value}: must be between 0 and 1")
    return value


MinAnswerableOption = Annotated[
    float | None,
    typer.Option(
        "--min-answerable",
        metavar="P",
        callback=unit_fraction,
        help="Refuse without running the model when the evidence check's p(answerable) "
        "(the best passage sentence's share of the question's words and its similarity "
        "to the question) is below P; 0 = off. "
        f"{config_default('answer.min_answerable')}",
        show_default=False,
    ),
]
PathOption = Annotated[
    list[str] | None,
    typer.Option(
        "--path",
        metavar="PATH",
        help="Only documents in this folder or file (notes/, notes/a.md) or matching "
        "this glob (**/*.md, wiki/*); repeat for several.",
        show_default=False,
    ),
]
TypeOption = Annotated[
    list[str] | None,
    typer.Option(
        "--type",
        metavar="TYPE",
        help="Only this document type, one of: md, txt, pdf, audio; repeatable.",
        show_default=False,
    ),
]
TagOption = Annotated[
    list[str] | None,
    typer.Option(
        "--tag",
        metavar="TAG",
        help="Only documents with this front-matter tag; repeatable.",
        show_default=False,
    ),
]


def finite(value: float | None) -> float | None:
    """Option callback: refuse ``nan`` and ``inf`` (a NaN threshold silently disables a
    comparison: every ``x < nan`` is false)."""
    import math

    if value is not None and not math.isfinite(value):
        raise typer.BadParameter(f"{value}: must be a finite number")
    return value


MinScoreOption = Annotated[
    float | None,
    typer.Option(
        "--min-score",
        callback=finite,
        metavar="SCORE",
        help="Refusal threshold: kb ask answers only when some chunk's cosine similarity "
        "to the query reaches SCORE, or one sentence's reaches SCORE + 0.2. It never "
        "hides hybrid or keyword hits; vector mode "
        f"drops hits below it. -1 = off. {config_default('search.min_score')}",
        show_default=False,
    ),
]


def output_path(value: Path | None) -> Path | None:
    """Option callback for a file kb writes (``--md``, ``--html``, ``--out``): refuse a
    FIFO, a device, a folder, a dangling symlink or a name with a NUL before any work
    (a run is not stored when its report could not be written), in one line
    (:func:`kb.safe_open.output_problem`)."""
    if value is None:
        return None
    from kb.safe_open import output_problem, show

    problem = output_problem(value)
    if problem is not None:
        raise typer.BadParameter(f"{show(value)} is {problem}; name a new or a regular file")
    return value


def check_named_sources(paths: list[Path], max_file_mb: float | None = None) -> None:
    """Refuse, before the KB is opened (nothing is written), a path named on the command
    line that cannot be a source: a FIFO, socket, device or a link to one, a loop
    (:func:`kb.safe_open.source_refusal`, exit 2), or, with ``max_file_mb``, a regular
    file over the ``[ingest] max_file_mb`` limit. A missing path is left to the caller
    (the pipeline knows whether it was a source)."""
    import os

    from kb.errors import UsageError
    from kb.safe_open import show, size_words, source_problem, source_refusal

    for p in paths:
        if source_problem(p) not in (None, "missing"):
            raise UsageError(str(source_refusal(p)))
        if max_file_mb is None:
            continue
        try:
            st = os.stat(p)
        except (OSError, ValueError):
            continue
        if os.path.isfile(p) and st.st_size > max_file_mb * 1_000_000:
            raise UsageError(
                f"{show(p)} is {size_words(st.st_size)}, over the [ingest] max_file_mb "
                f"limit of {max_file_mb:g}; raise the setting to ingest it"
            )


def settings_for(kb: Path | None, **overrides: Any) -> Settings:
    """Load settings (all layers) then apply flag overrides given as dotted keys."""
    from kb.config import load_settings, override

    return override(load_settings(kb), **overrides)


def open_store(settings: Settings, create: bool = False) -> Store:
    from kb.store import Store

    return Store.open(settings.home, create=create)


def open_kb(settings: Settings) -> Store:
    """Open the existing KB at ``settings.home``; never creates one.

    Raises EmptyStoreError (exit 4) when the KB has no database file yet.
    """
    from kb.errors import EmptyStoreError
    from kb.store import Store
    from kb.store.sqlite import DB_NAME

    if not (settings.home / DB_NAME).is_file():
        raise EmptyStoreError(f"the KB at {settings.home} is empty; run `kb ingest PATH` first")
    return Store.open(settings.home, create=False)


def search_opts(
    settings: Settings,
    mode: str | None,
    path: list[str] | None,
    doc_type: list[str] | None,
    tag: list[str] | None,
) -> SearchOptions:
    """SearchOptions from the settings with the --mode/--path/--type/--tag flags applied."""
    from kb.search.options import SearchOptions

    return SearchOptions.from_settings(
        settings.search,
        mode=mode,
        paths=tuple(path or ()),
        types=tuple(doc_type or ()),
        tags=tuple(tag or ()),
    )


def print_json(obj: Any) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False, indent=2, default=str) + "\n")


def print_jsonl(obj: Any) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False, default=str) + "\n")
    sys.stdout.flush()


def make_console(**kwargs: Any) -> Any:
    """A rich Console whose broken pipe ends the command like any other write would:
    :class:`BrokenPipeError`, turned into exit 141 by :mod:`kb.cli.usage` (rich's own
    handling exits 1)."""
    from rich.console import Console

    class _Console(Console):
        def on_broken_pipe(self) -> None:
            self.quiet = True
            raise BrokenPipeError

    return _Console(**kwargs)


def err(message: str) -> None:
    """One line on stderr."""
    sys.stderr.write(message.rstrip() + "\n")
    sys.stderr.flush()


def stderr_is_tty() -> bool:
    return sys.stderr.isatty()
