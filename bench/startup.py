"""Benchmark: cold start of `kb search` and `kb ask`, each in a new process.

0. Byte-compile kb, ingest and eval, as an installed package is.
1. Copy the KB (default: the squad-dev KB ``../kbs/squad-base``; never written to) to a
   temporary folder and run one hybrid search there, so the ONNX export and the vector
   cache exist (their one-off cost is printed, not counted).
2. ``--runs`` times, alternating: ``kb search Q --mode keyword`` and ``kb search Q``
   (hybrid), each a new process; wall time from spawn to exit. Prints both medians and
   the ratio hybrid / keyword (targets: hybrid <= 1.0 s, ratio <= 1.6).
3. ``kb ask Q --json`` in a new process: time from spawn to the ``sources`` event (the
   retrieved passages, sent as soon as retrieval ends; target: within 1.2x a cold hybrid
   ``kb search``, and <= 0.3 s after retrieval ended by the event's own clock) and to the
   first ``token`` event (target <= 2.0 s), medians of ``--ask-runs``.
4. ``python -X importtime`` of both commands: the heavy modules either imports (torch,
   transformers and sentence_transformers must not appear; lancedb should not) and the
   costliest top-level imports.

Usage: python bench/startup.py [--kb DIR] [--runs 5] [--ask-runs 3] [--query Q]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_KB = ROOT.parent / "kbs" / "squad-base"
FORBIDDEN = ("torch", "transformers", "sentence_transformers")
WATCHED = (*FORBIDDEN, "lancedb", "pyarrow", "llama_cpp", "onnxruntime", "tokenizers")


def kb_cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "kb", *args]


def env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1"}


def wall(cmd: list[str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, env=env(), cwd=ROOT, check=True, capture_output=True)
    return time.perf_counter() - t0


def first_events(cmd: list[str]) -> dict[str, Any]:
    """Seconds from spawn to the ``sources`` and the first ``token`` JSON event on stdout
    (``None`` if none), and the sources event's ``at_s - retrieval_s``: how long after
    retrieval ended it was made."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        cmd, env=env(), cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )
    assert proc.stdout is not None
    found: dict[str, Any] = {"sources": None, "token": None, "after_retrieval": None}
    for line in proc.stdout:
        event = json.loads(line).get("event")
        if event in ("sources", "token") and found[event] is None:
            found[event] = time.perf_counter() - t0
            if event == "sources":
                e = json.loads(line)
                found["after_retrieval"] = e["at_s"] - e["retrieval_s"]
    proc.wait()
    return found


def imports(cmd: list[str]) -> tuple[set[str], list[tuple[int, str]]]:
    """Top-level package names imported by ``cmd`` and the costliest ones (µs, name)."""
    full = [cmd[0], "-X", "importtime", *cmd[1:]]
    out = subprocess.run(full, env=env(), cwd=ROOT, capture_output=True, text=True).stderr
    names: set[str] = set()
    costs: list[tuple[int, str]] = []
    for line in out.splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        parts = line.split("|")
        if len(parts) != 3 or not parts[1].strip().isdigit():
            continue
        name = parts[2].rstrip()
        names.add(name.strip().split(".")[0])
        if not name.startswith("  "):  # imported directly, not as a dependency
            costs.append((int(parts[1]), name.strip()))
    return names, sorted(costs, reverse=True)[:8]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kb", type=Path, default=DEFAULT_KB, help="a built KB (copied first)")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--ask-runs", type=int, default=3)
    ap.add_argument(
        "--query", default="What service did BSkyB charge additional subscription fees for?"
    )
    a = ap.parse_args()
    if not (a.kb / "kb.sqlite").is_file():
        sys.exit(
            f"bench: no KB at {a.kb}; build one with `kb ingest CORPUS --kb DIR` and pass --kb DIR"
        )
    # an installed package runs from bytecode; with PYTHONDONTWRITEBYTECODE set (as on
    # some CI machines) every run would compile kb's sources again (~0.2-0.4 s)
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", "kb", "ingest", "eval"],
        cwd=ROOT,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    with tempfile.TemporaryDirectory(prefix="kb-startup-") as tmp:
        kb = Path(tmp) / "kb"
        shutil.copytree(a.kb, kb, ignore=shutil.ignore_patterns("onnx"))
        home = ["--kb", str(kb)]
        search = kb_cmd("search", a.query, *home)
        keyword = kb_cmd("search", a.query, "--mode", "keyword", *home)
        ask = kb_cmd("ask", a.query, "--json", *home)

        first = wall(search)
        print(f"KB: {a.kb} (copied); first hybrid search, export included: {first:.2f} s")
        kw_s, hy_s = [], []
        for _ in range(a.runs):
            kw_s.append(wall(keyword))
            hy_s.append(wall(search))
        kw, hy = statistics.median(kw_s), statistics.median(hy_s)
        print(f"cold kb search --mode keyword: median {kw:.3f} s  ({_fmt(kw_s)})")
        print(f"cold kb search (hybrid):       median {hy:.3f} s  ({_fmt(hy_s)})")
        print(f"  hybrid <= 1.0 s: {'yes' if hy <= 1.0 else 'NO'}")
        print(f"  ratio hybrid/keyword: {hy / kw:.2f}  (target <= 1.6)")

        runs = [first_events(ask) for _ in range(a.ask_runs)]
        ttft = [r["token"] for r in runs if r["token"] is not None]
        shown = [r["sources"] for r in runs if r["sources"] is not None]
        after = [r["after_retrieval"] for r in runs if r["after_retrieval"] is not None]
        m = src = None
        if shown:
            src = statistics.median(shown)
            print(f"cold kb ask, time to its sources: median {src:.3f} s  ({_fmt(shown)})")
            print(f"  ratio sources/cold kb search (hybrid): {src / hy:.2f}  (target <= 1.2)")
            lag = statistics.median(after)
            print(f"  made {lag * 1000:.1f} ms after retrieval ended (target <= 300 ms)")
        else:
            print("cold kb ask: no sources event (refused before retrieval found passages)")
        if ttft:
            m = statistics.median(ttft)
            print(f"cold kb ask, time to first token: median {m:.3f} s  ({_fmt(ttft)})")
            print(f"  <= 2.0 s: {'yes' if m <= 2.0 else 'NO'}")
        else:
            print("cold kb ask: no token event (refused or failed); try another --query")

        ok = True
        for label, cmd in (("kb search", search), ("kb ask", ask)):
            names, top = imports(cmd)
            heavy = [n for n in WATCHED if n in names]
            bad = [n for n in FORBIDDEN if n in names]
            ok = ok and not bad
            print(f"importtime {label}: watched modules imported: {', '.join(heavy) or 'none'}")
            print(
                "  costliest direct imports: "
                + ", ".join(f"{n} {us / 1e3:.0f} ms" for us, n in top)
            )
        verdict = "yes" if ok else "NO"
        print(f"no torch/transformers/sentence_transformers on the query path: {verdict}")
        summary = {"keyword_s": kw, "hybrid_s": hy, "ratio": hy / kw, "ask_ttft_s": m}
        summary |= {"ask_sources_s": src, "sources_ratio": None if src is None else src / hy}
        print(json.dumps(summary))


def _fmt(xs: list[float]) -> str:
    return ", ".join(f"{x:.2f}" for x in xs)


if __name__ == "__main__":
    main()
