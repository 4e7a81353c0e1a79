"""Model backends behind small abstract classes and a name registry.

- :class:`kb.backends.embedder.Embedder` — ``embed_batch(texts) -> float32[n, dim]``
- :class:`kb.backends.transcriber.Transcriber` — ``transcribe(path) -> segments``
- :class:`kb.backends.generator.Generator` — ``stream(prompt) -> Iterator[str]``

Heavy libraries are imported inside the concrete classes' constructors.
"""
