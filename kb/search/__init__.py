"""Retrieval: keyword (SQLite FTS5) and vector (exact cosine) search, fused by RRF.

Public API, shared by ``kb search``, ``kb ask`` and ``kb eval``::

    from kb.search import Retriever, SearchOptions, SearchResult

    result = Retriever(store, embedder).search("question", SearchOptions(k=5))
    for hit in result.hits: ...

See :mod:`kb.search.retriever` for the per-query algorithm, :mod:`kb.search.filters`
for ``--path``/``--type``/``--tag`` semantics, :mod:`kb.search.keyword` for how user
text becomes a safe FTS5 query and :mod:`kb.search.matrix` for the vector cache.
"""

from kb.search.options import MODES, SearchOptions
from kb.search.retriever import Retriever, SearchResult

__all__ = ["MODES", "Retriever", "SearchOptions", "SearchResult"]
