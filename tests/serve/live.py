"""A real ``kb serve`` subprocess on a free port, for the browser tests and bench/serve.py."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def kb_serve(home: Path, *args: str, env: dict[str, str] | None = None) -> Iterator[str]:
    """Start ``kb serve`` on ``home``; yield its base URL once it answers; stop it after."""
    with kb_serve_process(home, *args, env=env) as (base, _proc):
        yield base


@contextmanager
def kb_serve_process(
    home: Path, *args: str, env: dict[str, str] | None = None
) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """:func:`kb_serve`, yielding the server's process too (its pid: RSS, signals)."""
    port = free_port()
    full_env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "TOKENIZERS_PARALLELISM": "false",
        **(env or {}),
    }
    cmd = [sys.executable, "-m", "kb", "serve", "--kb", str(home), "--port", str(port), *args]
    with tempfile.TemporaryFile("w+") as log:
        yield from _run(cmd, full_env, log, port)


def _run(
    cmd: list[str], env: dict[str, str], log: Any, port: int
) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    proc = subprocess.Popen(cmd, env=env, stderr=log, text=True)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 180
        while True:
            if proc.poll() is not None:
                log.seek(0)
                raise RuntimeError(f"kb serve exited {proc.returncode}: {log.read()}")
            try:
                with urllib.request.urlopen(base + "/api/sources", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("kb serve did not answer within 180 s")
            time.sleep(0.2)
        yield base, proc
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
