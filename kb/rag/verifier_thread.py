"""The verifier's thread: judges answer sentences off the token path."""

from __future__ import annotations

import contextvars
import queue
import threading
import time

from kb.rag.record import (
    VerdictEvent,
)
from kb.rag.sentences import AnswerSentence
from kb.rag.stream import AnswerStream
from kb.rag.verify import SentenceVerdict, Verifier


class VerifierThread:
    """Judges answer sentences off the token path; emits a VerdictEvent per sentence.

    Starts by preparing the passages (splitting and embedding their sentences), which
    overlaps with the model reading its prompt.
    """

    def __init__(self, verifier: Verifier, stream: AnswerStream) -> None:
        self.verifier = verifier
        self.stream = stream
        self.verdicts: list[SentenceVerdict] = []
        self.busy_s = 0.0
        self.error: str | None = None
        self._q: queue.Queue[AnswerSentence | None] = queue.Queue()
        # in a copy of the caller's context: a German question's claims are stemmed as
        # German, like the passages the evidence check prepared (kb.rag.lexical.question_in)
        ctx = contextvars.copy_context()
        self._thread = threading.Thread(
            target=ctx.run, args=(self._run,), name="kb-verify", daemon=True
        )
        self._thread.start()

    def submit(self, sentence: AnswerSentence) -> None:
        self._q.put(sentence)

    def close(self) -> list[SentenceVerdict]:
        self._q.put(None)
        self._thread.join()
        return sorted(self.verdicts, key=lambda v: v.index)

    def _run(self) -> None:
        t = time.perf_counter()
        try:
            _ = self.verifier.passages
        except Exception as e:  # noqa: BLE001 - verification must never break an answer
            self.error = f"{type(e).__name__}: {e}"
        self.busy_s += time.perf_counter() - t
        while True:
            s = self._q.get()
            if s is None:
                return
            if self.error is not None:
                continue
            t = time.perf_counter()
            try:
                v = self.verifier.verify(s.index, s.text)
            except Exception as e:  # noqa: BLE001
                self.error = f"{type(e).__name__}: {e}"
                continue
            finally:
                self.busy_s += time.perf_counter() - t
            self.verdicts.append(v)
            self.stream.put(VerdictEvent(v))
