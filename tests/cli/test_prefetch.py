"""kb.cli.prefetch: the model load that overlaps retrieval in ``kb ask``."""

from __future__ import annotations

import threading
import time

import pytest

from kb.cli.prefetch import Prefetch


def test_the_factory_starts_at_once_and_runs_once() -> None:
    started = threading.Event()
    release = threading.Event()
    calls: list[int] = []

    def factory() -> object:
        calls.append(1)
        started.set()
        release.wait(5)
        return object()

    p = Prefetch(factory)
    # running before anyone asks for it
    assert started.wait(5) and not p.done
    release.set()
    first = p()
    assert p.done and p() is first and calls == [1]


def test_the_factorys_error_is_raised_to_the_caller() -> None:
    def factory() -> object:
        raise RuntimeError("llama.cpp could not load the model")

    p = Prefetch(factory)
    with pytest.raises(RuntimeError, match="could not load"):
        p()
    with pytest.raises(RuntimeError):
        p()


def test_a_slow_load_overlaps_the_callers_work() -> None:
    def load() -> str:
        time.sleep(0.5)
        return "model"

    p = Prefetch(load)
    t0 = time.perf_counter()
    time.sleep(0.5)  # the search and the evidence check
    assert p() == "model"
    # one after the other would take at least 1.0 s
    assert time.perf_counter() - t0 < 0.9
