"""Persistence: SQLite is the source of truth, LanceDB holds derived vectors.

``kb.store`` receives vectors; it never loads a model.
"""

from kb.store.sqlite import Store

__all__ = ["Store"]
