"""The transient status line of `kb ask`: drawn and erased on a terminal, absent otherwise."""

from __future__ import annotations

import io
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from kb.cli.status_line import ClearOnFirstEvent, StatusLine, StatusRetriever, status_factory
from tests.conftest import FIXTURES

ERASE = "\r\x1b[2K"


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_during_draws_then_erases_even_on_error() -> None:
    out = Tty()
    status = StatusLine(out)
    with status.during("searching…"):
        assert out.getvalue() == ERASE + "searching…"
    assert out.getvalue() == ERASE + "searching…" + ERASE
    with pytest.raises(RuntimeError), status.during("loading model…"):
        raise RuntimeError("boom")
    assert out.getvalue().endswith("loading model…" + ERASE)


def test_silent_when_not_a_terminal_or_disabled() -> None:
    pipe = io.StringIO()  # isatty() is False
    with StatusLine(pipe).during("searching…"):
        pass
    tty = Tty()
    with StatusLine(tty, enabled=False).during("searching…"):
        pass
    assert pipe.getvalue() == "" and tty.getvalue() == ""


def test_wrappers_show_text_while_the_slow_step_runs() -> None:
    out = Tty()
    status = StatusLine(out)
    seen: list[str] = []

    class Inner:
        def search(self, query: str, opts: object) -> str:
            seen.append(out.getvalue())
            return f"hits for {query}"

    assert StatusRetriever(Inner(), status).search("q", None) == "hits for q"
    load = status_factory(lambda: seen.append(out.getvalue()) or "model", status, "loading model…")
    assert load() == "model"
    assert seen[0].endswith("searching…") and seen[1].endswith("loading model…")
    assert out.getvalue().endswith(ERASE)


def test_clear_on_first_event_delegates_to_the_stream() -> None:
    out = Tty()

    class Stream:
        def __init__(self) -> None:
            self.events = iter(["a", "b"])

        def __next__(self) -> str:
            return next(self.events)

        def result(self) -> str:
            return "record"

    wrapped = ClearOnFirstEvent(Stream(), StatusLine(out), "writing the answer…")
    assert out.getvalue() == ERASE + "writing the answer…"
    assert list(wrapped) == ["a", "b"]
    assert out.getvalue() == ERASE + "writing the answer…" + ERASE  # erased once, at "a"
    assert wrapped.result() == "record"


@pytest.mark.slow
def test_kb_ask_on_a_terminal_shows_and_erases_searching(tmp_path: Path) -> None:
    """A real `kb ask` with stderr on a pseudo-terminal: "searching…" appears and is
    erased; the refusal (min-score nothing passes, no answer model) is printed after it."""
    from ingest.pipeline import ingest_paths
    from kb.config import load_settings
    from kb.store import Store

    home = tmp_path / "kb"
    with Store.open(home) as store:
        ingest_paths(store, load_settings(home), [FIXTURES / "demo" / "notes"])
    main, child = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "kb", "ask", "starter feeding", "--kb", str(home)]
        + ["--min-score", "0.99"],
        stdout=subprocess.PIPE,
        stderr=child,
        env=os.environ,
    )
    os.close(child)
    chunks: list[bytes] = []
    while True:
        try:
            data = os.read(main, 4096)
        except OSError:  # the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    stdout = proc.communicate()[0].decode()
    os.close(main)
    err = b"".join(chunks).decode()
    assert proc.returncode == 0
    assert (ERASE + "searching…" + ERASE).replace("\n", "") in err.replace("\r\n", "\n")
    assert "loading model" not in err  # refused before the model is loaded
    assert stdout.startswith("refused")


def test_status_retriever_passes_embedder_and_store_through() -> None:
    """kb ask wraps its retriever for the status line; the verifier and the evidence check
    reach the embedder and the store through it (a wrapper that hid them made kb ask rank
    quote candidates and judge answers without the embedder, unlike kb eval)."""
    from kb.cli.status_line import StatusLine, StatusRetriever
    from kb.rag.pipeline import _doc_freq_from, _embed_from

    class Inner:
        embedder = object()
        store = object()

    wrapped = StatusRetriever(Inner(), StatusLine(enabled=False))
    assert wrapped.embedder is Inner.embedder and wrapped.store is Inner.store
    assert _embed_from(wrapped) is not None and _doc_freq_from(wrapped) is not None


def test_a_step_under_way_moves_the_line() -> None:
    """While the model is requantized once for the machine (one opaque call), the
    line shows that step and its elapsed time, redrawn every TICK_S seconds; a
    step that ended is no longer shown, and nothing is drawn after the line is erased."""
    import time

    from kb import progress
    from kb.cli.status_line import TICK_S

    out = Tty()
    status = StatusLine(out)
    label = "requantizing the answer model to q4_0"
    with progress.reporting(status), status.during("loading model…"):
        with progress.step("loading the embedding model"):
            time.sleep(0.6)  # shorter than SHOW_AFTER_S: not shown
        with progress.step(label):
            time.sleep(2.8)
        time.sleep(2 * TICK_S)  # the step ended: plain "loading model…" again
    frames = out.getvalue().split(ERASE)
    assert not any("embedding" in f for f in frames)
    shown = [f for f in frames if label in f]
    assert len(shown) >= 2  # from 1 s to 2.8 s, one redraw every 0.5 s
    assert shown[0] == f"loading model… ({label}: 00:01 elapsed)"
    assert f"loading model… ({label}: 00:02 elapsed)" in shown
    assert frames[-1] == "" and label not in frames[-2]  # erased last, step gone before
    with progress.reporting(status), progress.step(label):  # outside during(): no line
        time.sleep(2 * TICK_S)
    assert out.getvalue().split(ERASE)[-1] == ""
