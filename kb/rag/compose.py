"""Builders for the retriever and the answer pipeline, shared by every composition root.

``kb ask``, ``kb eval run``, ``kb serve`` and ``kb mcp`` build their retrieval and
answering objects here, so the terminal, the eval loop and the web app can never run
two pipelines that drift apart. Models load lazily: the embedder on the first
vector/hybrid search, the GGUF generator on the first question the pipeline answers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kb.config import Settings
    from kb.rag.pipeline import AskPipeline
    from kb.search import Retriever
    from kb.store import Store


def make_retriever(
    settings: Settings, store: Store, *, chunking_id: int | None = None
) -> Retriever:
    """The one retrieval path over ``store`` with the configured embedder (lazy),
    ``[search] vector_cache``, ANN and keyword-index settings, searching
    ``chunking_id`` (``None``: the live chunking)."""
    from kb.backends.embedder import make_embedder
    from kb.search import Retriever
    from kb.search.ann_leg import AnnOptions

    s = settings.search
    return Retriever(
        store,
        lambda: make_embedder(settings.embedding, home=settings.home),
        vector_cache=s.vector_cache,
        chunking_id=chunking_id,
        ann=AnnOptions(s.ann_threshold, s.ann_nprobes, s.ann_refine_factor, s.ann_index, s.ann_ef),
        keyword_threshold=s.keyword_index_threshold,
    )


def make_pipeline(settings: Settings, retriever: Any, load: Any = None) -> AskPipeline:
    """An :class:`AskPipeline` over ``retriever`` whose generator is the configured GGUF
    model, loaded on first use (``load`` replaces the factory, e.g. to show a status
    line while it runs)."""
    from kb.backends.bundled import model_cache_dir
    from kb.backends.generator import make_generator
    from kb.rag.pipeline import AskPipeline

    cache = model_cache_dir(settings.home)
    factory = load or (lambda: make_generator(settings.llm, cache_dir=cache))
    return AskPipeline(retriever, factory, settings)
