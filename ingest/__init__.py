"""Ingest: walk source folders, load files, chunk them, and write through ``kb.store``."""
