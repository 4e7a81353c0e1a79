"""``kb search``: ranked chunks with their exact locations, no answer generation."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from kb.cli.common import (
    JsonOption,
    KbOption,
    MinScoreOption,
    ModeOption,
    PathOption,
    TagOption,
    TypeOption,
    k_option,
    search_opts,
)

if TYPE_CHECKING:
    from kb.search import SearchOptions, SearchResult


def search(
    query: Annotated[
        str, typer.Argument(help="Words or a question to search for.", metavar="QUERY")
    ],
    k: Annotated[int | None, k_option("Number of hits.")] = None,
    mode: ModeOption = None,
    path: PathOption = None,
    doc_type: TypeOption = None,
    tag: TagOption = None,
    min_score: MinScoreOption = None,
    json_out: JsonOption = False,
    kb: KbOption = None,
) -> None:
    """Search the KB: ranked passages with file, heading, page / lines / time and score.

    How hybrid search ranks (the default mode): a keyword leg (SQLite FTS5, bm25 over
    chunk text and headings, any query word may match, stop words ignored) and a
    vector leg (exact cosine similarity to every chunk) each pick their best
    [search] candidates chunks; a keyword match also gets its true cosine, however
    far down the vector list it is. The union is ordered by ([search] fusion =
    "score") score = (vector_weight * cosine / best cosine + keyword_weight * bm25 /
    best bm25) / (vector_weight + keyword_weight), the best cosine counted as at
    least 0.25, or by reciprocal rank fusion (fusion = "rrf": vector_weight/
    (rrf_k + vector rank) + keyword_weight/(rrf_k + keyword rank)). A chunk either
    leg ranks highly stays a candidate, so a rare exact word (a name, a code, a
    number) reaches the top even when its meaning is far from anything the
    embedding model knows. Then (hybrid and vector modes) the top [search]
    rerank_depth chunks are re-scored by their best single sentence: (1 -
    sentence_weight) * score / best score + sentence_weight * s / best s, s = the
    best cosine of one of the chunk's sentences (embedded alone at ingest), best s
    counted as at least 0.45. In hybrid mode a lookup (a query of at most 3 words,
    stop words aside, that occur in at most 3 chunks) puts those chunks first. In
    such a short query, a word of 6+ letters that no chunk holds is searched by the
    KB's words one typo away, and kb search says so ("searched 'passport'"). A
    word is also searched as written with or without a hyphen (email: e-mail).
    A question about your tasks (to-do, tasks, what is left, not done) also puts
    the chunks that hold task items (- [ ] ..., - [x] ...) at the head of the
    keyword leg, open ones first; their hits say "task items". A document whose title
    (a note's # Title) the query names, or the best hit names, gets its best chunk
    placed 3rd when it is not among the first two ([search] links documents, 2; 0 =
    off): "named by the query" or "named by hit 1".

    Ranking and refusal are separate: --min-score (cosine, [search] min_score) never
    hides a hybrid or keyword hit. It is the bar kb ask uses to decide whether the KB
    holds anything worth answering from: the best cosine of any chunk must reach it
    (or one sentence's, by 0.2 more; or a hit's section heading must name what the
    question asks, "## Risks" for "What are the risks?", or a hit must hold task items
    for a question about tasks). kb search says when kb ask
    would refuse. In vector mode hits below it are dropped.
    kb eval tune fits these settings to your own golden set.

    \b
    Examples:
      kb search "sourdough starter feeding"
      kb search "ZX-4417" --mode keyword --path notes/ --json
    """
    from kb.backends.embedder import embedding_model_id
    from kb.cli.common import open_store, print_json, settings_for
    from kb.errors import UsageError
    from kb.rag.compose import make_retriever

    if not query.strip():  # before opening anything: the same message Retriever gives
        raise UsageError("empty query; pass the words or question to search for")
    from kb.limits import check_question

    check_question(query, "query")  # over 4,000 characters: one line, exit 5
    settings = settings_for(
        kb, **{"search.k": k, "search.mode": mode, "search.min_score": min_score}
    )
    opts = search_opts(settings, None, path, doc_type, tag)
    store = open_store(settings)
    try:
        if opts.mode != "keyword":  # refuse a mismatched model before spending seconds on it
            store.check_embedding_model(embedding_model_id(settings.embedding))
        retriever = make_retriever(settings, store)
        result = retriever.search(query, opts)
        asks = json_out or _ask_would_answer(result, opts, store)
    finally:
        store.close()
    if json_out:
        print_json(result.to_dict(k=opts.k))
    else:
        render(result, opts, settings.home, ask_answers=asks)


def _ask_would_answer(result: SearchResult, opts: SearchOptions, store: Any) -> bool:
    """Whether ``kb ask`` would pass its retrieval rule on these hits
    (:func:`kb.rag.answerability.ask_would_answer`)."""
    from kb.rag.answerability import ask_would_answer
    from kb.rag.docfreq import doc_freq_of

    return ask_would_answer(result, opts.min_score, doc_freq_of(store))


def render(
    result: SearchResult, opts: SearchOptions, home: Path, *, ask_answers: bool = False
) -> None:
    """Human output: one block per hit (rank, location, score, excerpt, leg details).

    On a terminal the excerpt is wrapped to its width and highlighted; through a pipe
    every line is printed whole (``grep``-able) and without colour."""
    import sys

    from rich.text import Text

    from kb.cli.common import make_console
    from kb.search.evidence import weak_hit, weak_note
    from kb.search.excerpt import excerpt, spans
    from kb.search.typos import corrected_query

    # excerpts show and mark the words searched: a typo's correction, not the typo
    query = corrected_query(result.query, result.corrections)
    tty = sys.stdout.isatty()  # not a terminal: no colour, no wrapping
    console = make_console(highlight=False, soft_wrap=not tty)
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
        shown = excerpt(hit.text, query)
        body = Text(shown)
        for s, e in spans(shown, query):
            body.stylize("bold yellow", s, e)
        if tty:
            for line in body.wrap(console, max(20, console.width - 4)):
                line.rstrip()
                console.print(Text("    ") + line)
        else:
            console.print(Text("    ") + Text(" ".join(body.plain.split())))
        detail = Text(f"score {hit.score:.4f}", style="magenta")
        legs = _legs(hit.ranks, hit.scores)
        if legs:
            detail.append(" · " + legs, style="dim")
        if weak_hit(hit.scores, opts.min_score):
            detail.append(" · " + weak_note(opts.min_score), style="yellow")
        console.print(Text("    ") + detail)
        console.print()
    n = len(result.hits)
    ms = result.timings.get("total", 0.0) * 1000
    for word, fixes in result.corrections.items():
        console.print(
            Text(f"no chunk holds {word!r}: searched {' or '.join(map(repr, fixes))}", "dim")
        )
    below = "" if ask_answers else _below_threshold(result, opts)
    if below:
        console.print(Text(below, style="dim"))
    console.print(Text(f"{n} hit{'s' if n != 1 else ''} · {result.mode} · {ms:.0f} ms", "dim"))


def _legs(ranks: dict[str, int], scores: dict[str, float]) -> str:
    parts = []
    if "vector" in scores:
        where = f" #{ranks['vector']}" if "vector" in ranks else ""
        parts.append(f"cosine {scores['vector']:.3f}{where}")
    if "keyword" in scores:
        parts.append(f"bm25 {scores['keyword']:.2f} #{ranks['keyword']}")
    if "task" in scores:
        parts.append("task items")
    if "link" in ranks:  # placed by title (kb.search.links)
        parts.append("named by " + ("the query" if ranks["link"] == 0 else "hit 1"))
    return " · ".join(parts)


def _below_threshold(result: SearchResult, opts: SearchOptions) -> str:
    """A note when no chunk reaches ``min_score`` (kb ask would refuse), else ``""``."""
    if result.has_evidence(opts.min_score) or result.best_cosine is None:
        return ""
    from kb.search.evidence import SENTENCE_MARGIN

    sentence = ""
    if result.best_sentence is not None:
        sentence = (
            f" and no sentence {opts.min_score + SENTENCE_MARGIN:g} "
            f"(best {result.best_sentence:.3f})"
        )
    return (
        f"no chunk reaches cosine {opts.min_score:g} (best {result.best_cosine:.3f})"
        f"{sentence}: {result.found_by()}, and kb ask would refuse to answer from them"
    )


def _no_hit_reasons(opts: SearchOptions) -> str:
    scope = [f"--path {p}" for p in opts.paths]
    scope += [f"--type {t}" for t in opts.types] + [f"--tag {t}" for t in opts.tags]
    notes = []
    if scope:
        notes.append("filters: " + " ".join(scope))
    if opts.mode == "vector" and opts.min_score > -1:
        notes.append(f"hits need cosine >= {opts.min_score:g} (--min-score)")
    return "; ".join(notes)
