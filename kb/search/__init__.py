"""Retrieval: keyword (SQLite FTS5) and vector (exact cosine) search, fused by RRF.

Public API, shared by ``kb search``, ``kb ask`` and ``kb eval``::

    from kb.search import Retriever, SearchOptions, SearchResult

    result = Retriever(store, embedder).search("question", SearchOptions(k=5))
    for hit in result.hits: ...

See :mod:`kb.search.retriever` for the per-query algorithm, :mod:`kb.search.filters`
for ``--path``/``--type``/``--tag`` semantics, :mod:`kb.search.keyword` for how user
text becomes a safe FTS5 query and :mod:`kb.search.matrix` for the vector cache.

The names are loaded on first use (a module ``__getattr__``): importing a submodule
such as :mod:`kb.search.ann_leg` for ``kb status`` does not import the retriever and
numpy with it.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kb.search.options import MODES, SearchOptions
    from kb.search.retriever import Retriever, SearchResult

__all__ = ["MODES", "Retriever", "SearchOptions", "SearchResult"]

_HOME = {
    "MODES": "kb.search.options",
    "SearchOptions": "kb.search.options",
    "Retriever": "kb.search.retriever",
    "SearchResult": "kb.search.retriever",
}


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module 'kb.search' has no attribute {name!r}")
    value = getattr(import_module(home), name)
    globals()[name] = value
    return value
