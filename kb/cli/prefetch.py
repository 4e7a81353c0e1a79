"""Start a slow, independent load (the answer model) at once, on a background thread.

``kb ask`` needs the model only after retrieval and the evidence check, but loading it
does not depend on either. :class:`Prefetch` starts ``factory()`` when it is created
and hands over its result when called, so the load overlaps the embedder load, the
search and the evidence check instead of following them. The time to the first token
drops by the part of the load that overlapped: ``min(load, search + evidence check)``.

Edge cases:

- the factory's exception (a model llama.cpp cannot load) is re-raised by the call that
  asks for the result, in the caller's thread, exactly as a direct call would raise it;
  a question refused before the model is needed never sees it (as before);
- the thread is a daemon: a refused question does not wait for the load to finish
  before the process exits;
- calling it again returns the same object (the factory runs once).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class Prefetch(Generic[T]):
    """``factory()`` started now on a daemon thread; calling the instance waits for it."""

    def __init__(self, factory: Callable[[], T], name: str = "kb-prefetch") -> None:
        self._factory = factory
        self._result: T | None = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            self._result = self._factory()
        except BaseException as e:  # noqa: BLE001 - handed to the caller in __call__
            self._error = e

    @property
    def done(self) -> bool:
        """Whether the load has finished (successfully or not)."""
        return not self._thread.is_alive()

    def __call__(self) -> T:
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._result  # type: ignore[return-value]  # set when no error
