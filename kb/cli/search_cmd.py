"""``kb search``: ranked chunks with their exact locations, no answer generation."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from kb.cli.common import (
    JsonOption,
    KbOption,
    MinScoreOption,
    ModeOption,
    PathOption,
    TagOption,
    TypeOption,
    search_opts,
)

if TYPE_CHECKING:
    from kb.search import SearchOptions, SearchResult


def search(
    query: Annotated[str, typer.Argument(help="Words or a question to search for.")],
    k: Annotated[
        int | None,
        typer.Option("-k", "--k", help="Number of hits. [default: [search] k, 5]", min=1),
    ] = None,
    mode: ModeOption = None,
    path: PathOption = None,
    doc_type: TypeOption = None,
    tag: TagOption = None,
    min_score: MinScoreOption = None,
    json_out: JsonOption = False,
    kb: KbOption = None,
) -> None:
    """Search the KB: ranked passages with file, heading, page / lines / time and score.

    Examples:

      kb search "sourdough starter feeding"

      kb search "ZX-4417" --mode keyword --path notes/ --json
    """
    from kb.backends.embedder import embedding_model_id, make_embedder
    from kb.cli.common import open_store, print_json, settings_for
    from kb.errors import UsageError
    from kb.search import Retriever

    if not query.strip():  # before opening anything: the same message Retriever gives
        raise UsageError("empty query; pass the words or question to search for")
    settings = settings_for(
        kb, **{"search.k": k, "search.mode": mode, "search.min_score": min_score}
    )
    opts = search_opts(settings, None, path, doc_type, tag)
    store = open_store(settings)
    try:
        if opts.mode != "keyword":  # refuse a mismatched model before spending seconds on it
            store.check_embedding_model(embedding_model_id(settings.embedding))
        retriever = Retriever(
            store,
            lambda: make_embedder(settings.embedding, home=settings.home),
            vector_cache=settings.search.vector_cache,
        )
        result = retriever.search(query, opts)
    finally:
        store.close()
    if json_out:
        print_json(result.to_dict(k=opts.k))
    else:
        render(result, opts, settings.home)


def render(result: SearchResult, opts: SearchOptions, home: Path) -> None:
    """Human output: one block per hit (rank, location, score, excerpt, leg details)."""
    from rich.console import Console
    from rich.text import Text

    from kb.search.excerpt import excerpt, spans

    console = Console(highlight=False)
    if not result.hits:
        console.print(f"No hits for {result.query!r} in {home}.")
        why = _no_hit_reasons(opts)
        if why:
            console.print(Text(why, style="dim"))
        return
    for rank, hit in enumerate(result.hits, start=1):
        head = Text()
        head.append(f"{rank:>2}. ", style="bold")
        head.append(hit.locator.render(), style="bold cyan")
        console.print(head)
        shown = excerpt(hit.text, result.query)
        body = Text(shown)
        for s, e in spans(shown, result.query):
            body.stylize("bold yellow", s, e)
        for line in body.wrap(console, max(20, console.width - 4)):
            line.rstrip()
            console.print(Text("    ") + line)
        detail = Text(f"score {hit.score:.4f}", style="magenta")
        legs = _legs(hit.ranks, hit.scores)
        if legs:
            detail.append(" · " + legs, style="dim")
        console.print(Text("    ") + detail)
        console.print()
    n = len(result.hits)
    ms = result.timings.get("total", 0.0) * 1000
    console.print(Text(f"{n} hit{'s' if n != 1 else ''} · {result.mode} · {ms:.0f} ms", "dim"))


def _legs(ranks: dict[str, int], scores: dict[str, float]) -> str:
    parts = []
    if "vector" in scores:
        where = f" #{ranks['vector']}" if "vector" in ranks else ""
        parts.append(f"cosine {scores['vector']:.3f}{where}")
    if "keyword" in scores:
        parts.append(f"bm25 {scores['keyword']:.2f} #{ranks['keyword']}")
    return " · ".join(parts)


def _no_hit_reasons(opts: SearchOptions) -> str:
    scope = [f"--path {p}" for p in opts.paths]
    scope += [f"--type {t}" for t in opts.types] + [f"--tag {t}" for t in opts.tags]
    notes = []
    if scope:
        notes.append("filters: " + " ".join(scope))
    if opts.mode != "keyword" and opts.min_score > -1:
        notes.append(f"hits need cosine >= {opts.min_score:g} (--min-score)")
    return "; ".join(notes)
