"""What ``kb eval run`` composes: retriever, answer pipeline, LLM judge and progress.

Models load lazily: the embedder and generators are built by factories on first use.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kb.cli.common import err
from kb.cli.eval_common import console

if TYPE_CHECKING:
    from kb.config import Settings
    from kb.store import Store


class RunProgress:
    """rich bar on a terminal (stderr), else a plain line at a bounded rate: a new 10%
    step and at least a few seconds since the last line (:class:`kb.cli.progress.LineRate`);
    nothing with ``quiet``."""

    def __init__(self, quiet: bool = False, rate: Any = None) -> None:
        from kb.cli.progress import LineRate

        self.quiet = quiet
        self.rate = rate or LineRate()
        self.tty = sys.stderr.isatty() and not quiet
        self.bar: Any = None
        self.task: Any = None
        self.total = 0
        self.done = 0

    def start(self, total: int) -> None:
        self.total = total
        if self.tty:
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
            )

            self.bar = Progress(
                TextColumn("[bold]eval"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[q]}", style="dim"),
                TimeElapsedColumn(),
                console=console(stderr=True),
            )
            self.task = self.bar.add_task("eval", total=total, q="")
            self.bar.start()

    def advance(self, query_id: str) -> None:
        self.done += 1
        if self.bar is not None:
            self.bar.update(self.task, advance=1, q=query_id[-30:])
        elif not self.quiet and self.rate.due(self.done, self.total):
            err(f"eval: {self.done}/{self.total} queries, {self.rate.elapsed()} elapsed")

    def finish(self) -> None:
        if self.bar is not None:
            self.bar.stop()


def build_runtime(
    settings: Settings, store: Store, answers: bool, chunking_id: int | None = None
) -> tuple[Any, Any, dict[str, Any]]:
    """Retriever (of ``chunking_id``; ``None``: the live chunking), pipeline (or None)
    and the config snapshot of what will run."""
    from dataclasses import asdict

    from kb import __version__
    from kb.backends.embedder import embedding_model_id
    from kb.rag.compose import make_pipeline, make_retriever

    retriever = make_retriever(settings, store, chunking_id=chunking_id)
    extra: dict[str, Any] = {
        "kb_version": __version__,
        "embedding_configured": embedding_model_id(settings.embedding),
        "search_settings": asdict(settings.search),
    }
    pipeline = None
    if answers:
        from kb.backends.generator import check_gguf, resolve_model_path

        gguf = check_gguf(resolve_model_path(settings.llm))
        pipeline = make_pipeline(settings, retriever)
        extra["llm"] = {**asdict(settings.llm), "model_path": str(gguf)}
        extra["prompt"] = {
            "version": settings.prompt.version,
            "refusal_phrase": settings.prompt.refusal_phrase,
        }
        extra["answer"] = asdict(settings.answer)
    return retriever, pipeline, extra


def make_judge(settings: Settings, model: Path) -> Any:
    """An :class:`eval.judge.Judge` over the generator backend at temperature 0."""
    from dataclasses import replace

    from eval.judge import GRAMMAR, Judge
    from kb.backends.bundled import model_cache_dir
    from kb.backends.generator import check_gguf, make_generator

    check_gguf(model)
    llm = replace(settings.llm, model=str(model), temperature=0.0)
    holder: dict[str, Any] = {}

    def gen() -> Any:
        if "g" not in holder:
            holder["g"] = make_generator(llm, cache_dir=model_cache_dir(settings.home))
        return holder["g"]

    def complete(messages: list[dict[str, str]]) -> str:
        return "".join(gen().stream(messages, max_tokens=4, grammar=GRAMMAR))

    class _LazyHash(Judge):
        def __call__(self, r: Any) -> Any:
            if self.model_hash is None:
                self.model_hash = gen().model_hash
            return super().__call__(r)

    return _LazyHash(complete, None)
