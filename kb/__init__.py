"""kb: a local, offline knowledge base with cited answers and a built-in eval loop.

This package must stay light at import time: nothing here imports torch,
sentence-transformers, lancedb, llama_cpp or faster_whisper at module level.
"""

__version__ = "0.1.0"
