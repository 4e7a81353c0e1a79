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

KbOption = Annotated[
    Path | None,
    typer.Option(
        "--kb",
        help="KB folder (default: $KB_HOME, else the platform data directory).",
        show_default=False,
    ),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")]

# Retrieval options shared by `kb search`, `kb ask`, `kb eval run` and `kb eval record`.
ModeOption = Annotated[
    str | None,
    typer.Option(
        "--mode",
        help="hybrid (keywords + vectors, fused), vector or keyword (no model is "
        "loaded). [default: [search] mode, hybrid]",
    ),
]
PathOption = Annotated[
    list[str] | None,
    typer.Option(
        "--path",
        help="Only documents in this folder or file (notes/, notes/a.md) or matching "
        "this glob (**/*.md, wiki/*); repeat for several.",
    ),
]
TypeOption = Annotated[
    list[str] | None,
    typer.Option("--type", help="Only this document type: md, txt, pdf, audio; repeatable."),
]
TagOption = Annotated[
    list[str] | None,
    typer.Option("--tag", help="Only documents with this front-matter tag; repeatable."),
]
MinScoreOption = Annotated[
    float | None,
    typer.Option(
        "--min-score",
        help="Refusal threshold: kb ask answers only when some chunk's cosine similarity "
        "to the query reaches it. It never hides hybrid or keyword hits; vector mode drops "
        "hits below it. -1 = off. [default: [search] min_score]",
    ),
]


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


def err(message: str) -> None:
    """One line on stderr."""
    sys.stderr.write(message.rstrip() + "\n")
    sys.stderr.flush()


def stderr_is_tty() -> bool:
    return sys.stderr.isatty()
