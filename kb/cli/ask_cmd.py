"""``kb ask QUESTION``: a cited answer from the local model, streamed."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, cast

import typer

from kb.cli.common import (
    JsonOption,
    KbOption,
    MinScoreOption,
    ModeOption,
    PathOption,
    TagOption,
    TypeOption,
    err,
    open_kb,
    print_jsonl,
    search_opts,
    settings_for,
)

if TYPE_CHECKING:
    from kb.config import Settings
    from kb.rag import AnswerRecord, AnswerStream


def ask(
    question: Annotated[str, typer.Argument(help="The question, quoted as one argument.")],
    k: Annotated[
        int | None, typer.Option("-k", "--k", help="Passages to retrieve and number [#1]..[#k].")
    ] = None,
    mode: ModeOption = None,
    path: PathOption = None,
    doc_type: TypeOption = None,
    tag: TagOption = None,
    min_score: MinScoreOption = None,
    model: Annotated[
        Path | None, typer.Option("--model", help="A .gguf model file instead of [llm] model.")
    ] = None,
    n_gpu_layers: Annotated[
        int | None,
        typer.Option("--n-gpu-layers", help="Layers to offload to the GPU (-1 = all, 0 = CPU)."),
    ] = None,
    ctx: Annotated[
        int | None, typer.Option("--ctx", help="Context window in tokens (prompt + answer).")
    ] = None,
    threads: Annotated[
        int | None, typer.Option("--threads", help="CPU threads for llama.cpp (0 = default).")
    ] = None,
    max_tokens: Annotated[
        int | None, typer.Option("--max-tokens", help="Most tokens the answer may have.")
    ] = None,
    no_grammar: Annotated[
        bool,
        typer.Option(
            "--no-grammar",
            help="Do not constrain the output to cited sentences or the refusal phrase.",
        ),
    ] = False,
    kb: KbOption = None,
    json_out: JsonOption = False,
) -> None:
    """Answer QUESTION from the KB with citations [#n] to the retrieved passages.

    The answer streams as it is written, then a Sources list maps each cited [#n]
    to its file and place. An answer without a valid citation is marked
    "ungrounded"; when no passage passes --min-score the model is not run and the
    answer is "refused". --json prints JSON Lines events: token, citation, done.

    Exit codes: 0 answered (also refused/ungrounded); 1 generation error; 2 empty
    question or bad option; 3 model file missing or not GGUF; 4 the KB has no
    chunks; 5 the question does not fit the context window; 130 interrupted.
    """
    from kb.errors import UsageError

    if not question.strip():
        raise UsageError("the question is empty; pass it as one quoted argument")
    settings = settings_for(
        kb,
        **{
            "search.k": k,
            "search.mode": mode,
            "search.min_score": min_score,
            "llm.model": str(model) if model is not None else None,
            "llm.n_gpu_layers": n_gpu_layers,
            "llm.n_ctx": ctx,
            "llm.threads": threads,
            "llm.max_tokens": max_tokens,
            "llm.grammar": False if no_grammar else None,
        },
    )
    _validate(settings)
    stream = _start(settings, question, path or [], doc_type or [], tag or [], json_out)
    code = _render_json(stream) if json_out else _render_text(stream, settings)
    raise typer.Exit(code)


def _validate(settings: Settings) -> None:
    """Cheap checks before any model loads: limits and the model file's GGUF header."""
    from kb.backends.generator import check_gguf, resolve_model_path
    from kb.errors import UsageError

    if settings.llm.max_tokens < 1:
        raise UsageError(f"--max-tokens {settings.llm.max_tokens}: must be at least 1")
    if settings.llm.n_ctx < 64:
        raise UsageError(f"--ctx {settings.llm.n_ctx}: must be at least 64")
    check_gguf(resolve_model_path(settings.llm))


def _start(
    settings: Settings,
    question: str,
    paths: list[str],
    types: list[str],
    tags: list[str],
    json_out: bool = False,
) -> AnswerStream:
    """Retrieve and start generating; on a terminal a transient status line says which."""
    from kb.backends.bundled import model_cache_dir
    from kb.backends.embedder import make_embedder
    from kb.backends.generator import make_generator
    from kb.cli.status_line import ClearOnFirstEvent, StatusLine, StatusRetriever, status_factory
    from kb.rag import AskPipeline
    from kb.search import Retriever

    opts = search_opts(settings, None, paths, types, tags)
    cache = model_cache_dir(settings.home)
    status = StatusLine(enabled=not json_out)
    with open_kb(settings) as store:
        retriever = Retriever(store, lambda: make_embedder(settings.embedding, home=settings.home))
        load = status_factory(
            lambda: make_generator(settings.llm, cache_dir=cache), status, "loading model…"
        )
        pipeline = AskPipeline(StatusRetriever(retriever, status), load, settings)
        # retrieval runs inside ask(); the worker thread only generates
        stream = pipeline.ask(question, opts)
    return cast("AnswerStream", ClearOnFirstEvent(stream, status, "writing the answer…"))


def _render_json(stream: AnswerStream) -> int:
    from kb.errors import EXIT_INTERRUPTED

    interrupted = False
    while True:
        try:
            for event in stream:
                print_jsonl(event.to_dict())
            break
        except KeyboardInterrupt:
            interrupted = True
            stream.cancel()
    record = stream.result()
    if interrupted or record.interrupted:
        return EXIT_INTERRUPTED
    return 1 if record.error else 0


def _render_text(stream: AnswerStream, settings: Settings) -> int:
    from kb.errors import EXIT_INTERRUPTED
    from kb.rag import TokenEvent

    out = sys.stdout
    try:
        for event in stream:
            if isinstance(event, TokenEvent):
                out.write(event.text)
                out.flush()
    except KeyboardInterrupt:
        stream.cancel()
        record = stream.result()
        if record.text and not record.text.endswith("\n"):
            out.write("\n")
        out.flush()
        err("interrupted")
        return EXIT_INTERRUPTED
    record = stream.result()
    if record.text and not record.text.endswith("\n"):
        out.write("\n")
    _summary(record, settings)
    if record.error:
        err(f"kb: error: {record.error}")
        return 1
    return 0


def _summary(record: AnswerRecord, settings: Settings) -> None:
    """Refused / ungrounded labels, invalid citations and the Sources list."""
    echo = typer.echo
    if record.refused and record.refusal_reason == "no_hits":
        echo(
            f"refused: no passage passed the retrieval threshold "
            f"(min-score {settings.search.min_score:g}); the model was not run"
        )
    elif record.refused:
        echo("refused: the model found no answer in the retrieved passages")
    elif not record.grounded:
        echo("ungrounded (no valid citation): the answer is not backed by a source")
    if record.invalid_citations:
        bad = ", ".join(f"[#{n}]" for n in record.invalid_citations)
        echo(f"invalid citations (not linked): {bad}; only [#1]..[#{len(record.contexts)}] exist")
    if record.citations:
        echo("\nSources:")
        for c in record.citations:
            echo(f"  [#{c.n}] {c.locator.get('display') or c.path}")
    if record.truncated:
        t = record.truncated
        dropped = len(t.get("dropped_chunk_ids") or [])
        cut = " and shortened one" if t.get("cut") else ""
        err(f"note: {dropped} passage(s) did not fit the context window{cut} (--ctx)")
