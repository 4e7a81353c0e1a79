"""A real ``kb eval run`` killed with SIGKILL, shown as interrupted, then resumed.

The resumed run's metrics equal those of an uninterrupted run of the same golden set
on the same KB (latency percentiles aside: they are measured, not computed).
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.eval.conftest import GOLDEN

pytestmark = [pytest.mark.slow, pytest.mark.filterwarnings("ignore:unsafe cast from")]


def kb(*args: str) -> subprocess.CompletedProcess[str]:
    # a progress line at every 10% step, so the test can stop the run part-way
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "KB_PROGRESS_INTERVAL": "0"}
    return subprocess.run(
        [sys.executable, "-m", "kb", *args], env=env, capture_output=True, text=True, timeout=300
    )


def _metrics(home: Path, name: str) -> dict[str, float]:
    r = kb("eval", "show", name, "--kb", str(home), "--json")
    assert r.returncode == 0, r.stderr
    m = json.loads(r.stdout)["metrics"]["overall"]["metrics"]
    return {k: v for k, v in m.items() if not k.startswith("latency_")}


def test_sigkill_then_resume_equals_an_uninterrupted_run(demo_kb: Path) -> None:
    home = str(demo_kb)
    # a progress line at every 10% step, so the test can stop the run part-way
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "KB_PROGRESS_INTERVAL": "0"}
    p = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "kb",
            "eval",
            "run",
            str(GOLDEN),
            "--kb",
            home,
            "--no-answer",
            "--name",
            "cut",
        ],
        env=env,
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
    )
    assert p.stderr is not None
    deadline = time.time() + 240
    while time.time() < deadline:
        line = p.stderr.readline()
        if line.startswith("eval: ") or not line:
            break
    p.send_signal(signal.SIGKILL)
    p.wait(timeout=60)
    p.stderr.close()
    with sqlite3.connect(demo_kb / "kb.sqlite") as c:
        (stored,) = c.execute(
            "SELECT count(*) FROM eval_query_results q JOIN eval_runs r ON r.id = q.run_id "
            "WHERE r.name = 'cut'"
        ).fetchone()
        (raw_status,) = c.execute("SELECT status FROM eval_runs WHERE name = 'cut'").fetchone()
    total = 20
    assert 1 <= stored < total and raw_status == "running"  # killed mid-run
    listed = json.loads(kb("eval", "list", "--kb", home, "--json").stdout)
    runs = listed if isinstance(listed, list) else listed["runs"]
    assert [r["status"] for r in runs if r["name"] == "cut"] == ["interrupted"]
    again = kb("eval", "run", str(GOLDEN), "--kb", home, "--no-answer", "--name", "cut")
    assert again.returncode == 2 and "--replace" in again.stderr
    resumed = kb("eval", "run", str(GOLDEN), "--kb", home, "--resume", "cut", "--json")
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads(resumed.stdout)["run"]["status"] == "complete"
    full = kb("eval", "run", str(GOLDEN), "--kb", home, "--no-answer", "--name", "full")
    assert full.returncode == 0, full.stderr
    assert _metrics(demo_kb, "cut") == _metrics(demo_kb, "full")
