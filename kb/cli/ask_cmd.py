"""``kb ask QUESTION``: a cited answer from the local model, streamed."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, cast

import typer

from kb.cli.common import (
    AnswerModeOption,
    JsonOption,
    KbOption,
    MinAnswerableOption,
    MinScoreOption,
    ModeOption,
    PathOption,
    TagOption,
    TypeOption,
    config_default,
    err,
    k_option,
    open_kb,
    print_jsonl,
    search_opts,
    settings_for,
)

if TYPE_CHECKING:
    from collections.abc import Callable

    from kb.backends.generator import Generator
    from kb.cli.status_line import StatusLine
    from kb.config import Settings
    from kb.rag import AnswerRecord, AnswerStream, SourcesEvent


def ask(
    question: Annotated[
        str, typer.Argument(help="The question, quoted as one argument.", metavar="QUESTION")
    ],
    k: Annotated[int | None, k_option("Passages to retrieve and number [#1]..[#k].")] = None,
    mode: ModeOption = None,
    path: PathOption = None,
    doc_type: TypeOption = None,
    tag: TagOption = None,
    min_score: MinScoreOption = None,
    model: Annotated[
        Path | None,
        typer.Option(
            "--model",
            metavar="FILE",
            help=f"A .gguf model file. {config_default('llm.model')}",
            show_default=False,
        ),
    ] = None,
    n_gpu_layers: Annotated[
        int | None,
        typer.Option(
            "--n-gpu-layers",
            metavar="N",
            help="Layers to offload to the GPU (-1 = all, 0 = CPU). "
            + config_default("llm.n_gpu_layers"),
            show_default=False,
        ),
    ] = None,
    ctx: Annotated[
        int | None,
        typer.Option(
            "--ctx",
            metavar="TOKENS",
            help=f"Context window (prompt + answer). {config_default('llm.n_ctx')}",
            show_default=False,
        ),
    ] = None,
    threads: Annotated[
        int | None,
        typer.Option(
            "--threads",
            metavar="N",
            help=f"CPU threads for llama.cpp (0 = automatic). {config_default('llm.threads')}",
            show_default=False,
        ),
    ] = None,
    max_tokens: Annotated[
        int | None,
        typer.Option(
            "--max-tokens",
            metavar="TOKENS",
            help=f"Most tokens the answer may have. {config_default('llm.max_tokens')}",
            show_default=False,
        ),
    ] = None,
    no_grammar: Annotated[
        bool,
        typer.Option(
            "--no-grammar",
            help="Do not constrain the output to cited sentences or the refusal phrase "
            "(generate mode only).",
        ),
    ] = False,
    answer_mode: AnswerModeOption = None,
    min_answerable: MinAnswerableOption = None,
    no_verify: Annotated[
        bool,
        typer.Option("--no-verify", help="Do not check each cited sentence against its passages."),
    ] = False,
    explain: Annotated[
        bool,
        typer.Option(
            "--explain",
            help="Say why: the passages, the evidence check's score and threshold, each "
            "rule that fired, the quote's selector and the responsiveness verdict "
            "(always in --json's record as 'trace').",
        ),
    ] = False,
    kb: KbOption = None,
    json_out: JsonOption = False,
) -> None:
    """Answer QUESTION from the KB with citations [#n] to the retrieved passages.

    On a terminal the retrieved passages are listed as soon as the search ends, then
    the answer streams as it is written. Every sentence is then checked against the
    passages it cites: unsupported sentences are listed (with a better passage when
    one supports them), and the Sources list maps each cited [#n] to its file and
    place with the supporting sentence quoted. An answer is "grounded" only when
    every sentence is supported. When nothing relevant is retrieved, or the passages
    lack the question's words, kb refuses without running the model. --json prints
    JSON Lines events: sources (first, as soon as the search ends), token, citation,
    verdict, done.

    \b
    Examples:
      kb ask "When does the Heron pilot start?"
      kb ask "What feeds the starter?" --path notes/ --model ~/models/llama-3b.gguf
      kb ask "What did the committee decide?" --answer-mode generate --model llama-3b.gguf

    Exit codes: 0 answered (also refused/ungrounded); 1 generation error; 2 empty
    question or bad option; 3 model file missing or not GGUF; 4 the KB has no
    chunks; 5 the question does not fit the context window; 130 interrupted.
    """
    from kb.errors import UsageError

    if not question.strip():
        raise UsageError("the question is empty; pass it as one quoted argument")
    from kb.limits import check_question

    check_question(question)  # over 4,000 characters: one line, exit 5, before any work
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
            "answer.mode": answer_mode,
            "answer.verify": False if no_verify else None,
            "answer.min_answerable": min_answerable,
        },
    )
    _validate(settings)
    # the retrieved passages as soon as retrieval ends: an event in --json, a list on a
    # terminal (through a pipe the text stays the answer, then its Sources)
    early = print_sources_event if json_out else print_retrieved if sys.stdout.isatty() else None
    from kb.cli.status_line import StatusLine
    from kb.progress import reporting

    status = StatusLine(enabled=not json_out)
    with reporting(status):  # a model prepared or loaded meanwhile shows on the line
        stream = _start(
            settings, question, path or [], doc_type or [], tag or [], json_out, early, status
        )
        code = _render_json(stream) if json_out else _render_text(stream, settings, explain)
    raise typer.Exit(code)


def _validate(settings: Settings) -> None:
    """Cheap checks before any model loads: limits and the model file's GGUF header."""
    from kb.backends.generator import check_gguf, resolve_model_path
    from kb.errors import UsageError

    if settings.llm.max_tokens < 1:
        raise UsageError(f"--max-tokens {settings.llm.max_tokens}: must be at least 1")
    if settings.llm.n_ctx < 64:
        raise UsageError(f"--ctx {settings.llm.n_ctx}: must be at least 64")
    if settings.answer.mode not in ("quote", "generate"):
        raise UsageError(f"--answer-mode {settings.answer.mode}: choose quote or generate")
    if settings.answer.mode == "quote" and not settings.llm.grammar:
        raise UsageError(
            "--no-grammar needs --answer-mode generate: quote mode is enforced by the grammar"
        )
    check_gguf(resolve_model_path(settings.llm))


def _start(
    settings: Settings,
    question: str,
    paths: list[str],
    types: list[str],
    tags: list[str],
    json_out: bool = False,
    on_sources: Callable[[SourcesEvent], None] | None = None,
    status: StatusLine | None = None,
) -> AnswerStream:
    """Retrieve and start generating; on a terminal a transient status line says which.
    ``on_sources`` shows the retrieved passages while the model is still to come."""
    from kb.backends.bundled import model_cache_dir
    from kb.backends.generator import make_generator
    from kb.cli.prefetch import Prefetch
    from kb.cli.status_line import ClearOnFirstEvent, StatusLine, StatusRetriever, status_factory
    from kb.rag.compose import make_pipeline, make_retriever

    opts = search_opts(settings, None, paths, types, tags)
    cache = model_cache_dir(settings.home)
    status = status or StatusLine(enabled=not json_out)
    with open_kb(settings) as store:
        # the model loads while the search runs and the evidence is checked; "loading
        # model…" shows only for what is left of it when the answer needs the model
        model = Prefetch(lambda: _background_load(settings, cache), "kb-model-load")
        retriever = make_retriever(settings, store)
        load = status_factory(
            lambda: model() or make_generator(settings.llm, cache_dir=cache),
            status,
            "loading model…",
        )
        pipeline = make_pipeline(settings, StatusRetriever(retriever, status), load)
        # retrieval runs inside ask(); the worker thread only generates
        stream = pipeline.ask(question, opts, on_sources=on_sources)
    return cast("AnswerStream", ClearOnFirstEvent(stream, status, "writing the answer…"))


def _background_load(settings: Settings, cache: Path) -> Generator | None:
    """The generator, loaded off the main thread; ``None`` (load it on the main thread)
    when this llama-cpp-python would hide the process's output while it loads
    (:func:`kb.backends.generator.silence_llama_logs`)."""
    from kb.backends.generator import make_generator, silence_llama_logs

    if not silence_llama_logs():
        return None
    return make_generator(settings.llm, cache_dir=cache)


def print_sources_event(event: SourcesEvent) -> None:
    """``kb ask --json``: the ``sources`` event, printed the moment retrieval ends."""
    print_jsonl(event.to_dict())


def print_retrieved(event: SourcesEvent) -> None:
    """``kb ask`` on a terminal: the retrieved passages, numbered as the answer will cite
    them, while the model loads and chooses (the Sources after the answer keep only the
    cited ones, with their quotes)."""
    lines = ["Retrieved:"]
    lines += [f"  [#{n}] {h.locator.render()}" for n, h in enumerate(event.hits, 1)]
    sys.stdout.write("\n".join(lines) + "\n\n")
    sys.stdout.flush()


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


def _render_text(stream: AnswerStream, settings: Settings, explain: bool = False) -> int:
    from kb.errors import EXIT_INTERRUPTED
    from kb.rag import TokenEvent

    out = sys.stdout
    last = ""  # the last text streamed: what the next line must not be glued to
    try:
        for event in stream:
            if isinstance(event, TokenEvent) and event.text:
                out.write(event.text)
                out.flush()
                last = event.text
    except KeyboardInterrupt:
        stream.cancel()
        stream.result()
        if last and not last.endswith("\n"):
            out.write("\n")
        out.flush()
        err("interrupted")
        return EXIT_INTERRUPTED
    record = stream.result()
    # a sentence cut by --max-tokens was streamed, then dropped from the answer
    if last and not last.endswith("\n"):
        out.write("\n")
    _summary(record, settings, explain)
    if record.error:
        err(f"kb: error: {record.error}")
        return 1
    return 0


def _nearest_line(nearest: dict[str, Any]) -> str:
    """Where the best hit of a refused search is, and how close it came: "notes/a.md ›
    Standup · lines 3–8 (passage cosine 0.206, best sentence 0.447)"."""
    scores = [
        f"{label} {nearest[key]:.3f}"
        for key, label in (("cosine", "passage cosine"), ("sentence", "best sentence"))
        if nearest.get(key) is not None
    ]
    where = nearest["locator"]["display"]
    return f"{where} ({', '.join(scores)})" if scores else where


def _summary(record: AnswerRecord, settings: Settings, explain: bool = False) -> None:
    """Refusal / ungrounded / not-responsive labels (:func:`kb.rag.reasons.outcome`),
    verdicts, invalid citations, truncation, Sources, and with ``explain`` the trace
    (:func:`kb.rag.trace.render`)."""
    echo = typer.echo
    if record.truncated == "max_tokens":
        lost = (
            "the quotes after the last one shown were dropped"  # its sentences are whole
            if record.mode == "quote"
            else "the unfinished sentence was dropped"
        )
        echo(f"note: the answer reached --max-tokens {settings.llm.max_tokens}; {lost}")
    d = record.to_dict()
    o = d["outcome"]
    if o["kind"] == "no_hits":
        echo(f"refused: {o['message']}; the model was not run")
        if record.nearest is not None:
            echo(f"  closest: {_nearest_line(record.nearest)}")
    elif record.refused:
        # one message per kind (kb.rag.reasons), the same on the web page and in MCP
        ran = "" if record.refusal_reason == "model" else "; the model was not run"
        echo(f"refused: {o['message']}{ran}")
        if record.refusal_reason == "no_support" and not explain:
            echo("  (--explain shows why; --min-answerable 0 answers anyway)")
    elif o["kind"] in ("ungrounded", "unsupported", "not_responsive") or (
        o["kind"] == "partial" and o.get("rule") == "two-facts"
    ):  # cut short by --max-tokens: the note above
        echo(f"{o['label'].lower()}: {o['message']}")
    if explain:
        from kb.rag.trace import render

        for line in render(d["trace"]):
            echo(line)
        if o.get("detail"):
            echo(f"  internals: {o['detail']}")
    for v in record.unsupported:
        cites = " ".join(f"[#{n}]" for n in v.citations) or "no citation"
        line = f"  ✗ {_clip(v.claim, 90)} ({cites}"
        line += f", support {v.score:.2f})" if v.score is not None else ")"
        if v.contradiction is not None:  # a claim that negates or reverses its evidence
            line += f" — it {v.contradiction['line']}"
        if v.suggested is not None:
            line += f" — [#{v.suggested.n}] supports it ({v.suggested.score:.2f})"
        echo(line)
    if record.invalid_citations:
        bad = ", ".join(f"[#{n}]" for n in record.invalid_citations)
        echo(f"invalid citations (not linked): {bad}; only [#1]..[#{len(record.contexts)}] exist")
    if record.citations:
        evidence = record.evidence_by_n()
        echo("\nSources:")
        for c in record.citations:
            echo(f"  [#{c.n}] {c.locator.get('display') or c.path}")
            ev = evidence.get(c.n)
            if ev is not None:
                where = _narrow(ev.locator)
                if ev.columns:  # a table row alone does not say what its cells are
                    cols = "columns: " + " | ".join(ev.columns)
                    where = f"{where}; {cols}" if where else cols
                echo(f'       "{_clip(ev.quote, 160)}"' + (f" ({where})" if where else ""))
            elif record.sentences:
                echo("       (no sentence of this passage supports the answer)")
    if record.contexts_cut and record.contexts_cut.get("dropped_chunk_ids") is not None:
        t = record.contexts_cut
        dropped = len(t.get("dropped_chunk_ids") or [])
        cut = " and shortened one" if t.get("cut") else ""
        if dropped or cut:
            err(f"note: {dropped} passage(s) did not fit the context window{cut} (--ctx)")


def _narrow(locator: Any) -> str:
    """The part of an evidence locator that is finer than its chunk: line, page, time."""
    from kb.types import mmss

    s = locator.span
    if s.line_start is not None:
        return (
            f"line {s.line_start}"
            if s.line_start == s.line_end
            else (f"lines {s.line_start}–{s.line_end}")
        )
    if s.page_start is not None:
        return f"p. {s.page_start}"
    if s.seconds_start is not None:
        return mmss(s.seconds_start)
    return ""


def _clip(text: str, n: int) -> str:
    t = " ".join(text.split())
    return t if len(t) <= n else t[: n - 1] + "…"
