"""Benchmark: cold `kb status`, `kb sources` and `kb doctor` against cold `kb --help`.

1. Ingest fixtures/demo into a temporary KB (or use ``--kb DIR``, never written to) with
   the machine's model cache (``KB_MODEL_CACHE`` or the user's cache folder), and print
   the KB folder's size (target: <= 10 MB, no model files) and the ingest's wall time.
2. ``--runs`` times, alternating, each a new process: ``kb --help``, ``kb status``,
   ``kb sources``, ``kb doctor --no-devices``; medians and each as a ratio of ``--help``
   (target: status <= 1.5x).
3. ``python -X importtime`` of ``kb status``, ``kb sources`` and ``kb doctor``: which
   heavy modules each imports (status and sources: none of torch, lancedb, pyarrow,
   onnxruntime, llama_cpp, faiss, numpy; doctor reads the vector table it reports on, so
   lancedb, but no model library), the costliest top-level imports, and the share of the
   import time that is lancedb's own (``lance_namespace``'s REST client among it).

Usage: python bench/cold.py [--kb DIR] [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HEAVY = (
    "torch",
    "sentence_transformers",
    "lancedb",
    "pyarrow",
    "onnxruntime",
    "llama_cpp",
    "faster_whisper",
    "faiss",
    "numpy",
    "pandas",
)


def kb_cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "kb", *args]


def env(home: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1", "KB_HOME": str(home)}


def wall(cmd: list[str], home: Path) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, env=env(home), cwd=ROOT, check=True, capture_output=True)
    return time.perf_counter() - t0


def folder_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def imports(home: Path, *args: str) -> list[tuple[int, str, int]]:
    """``(cumulative microseconds, module, nesting depth)`` of every import of ``kb ARGS``
    (depth 0: imported by no other module's import)."""
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "kb", *args],
        env=env(home),
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    out = []
    for line in proc.stderr.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        _, cum, name = line.split("|")
        depth = (len(name) - len(name.lstrip()) - 1) // 2  # importtime indents 2 a level
        out.append((int(cum), name.strip(), depth))
    return out


def report_imports(home: Path, name: str, cmd: list[str]) -> None:
    """Print what ``kb CMD`` imports that is heavy, its costliest top-level imports and,
    when it imports lancedb, how much of the import time that is."""
    mods = imports(home, *cmd)
    heavy = sorted({n for _, n, _ in mods if n in HEAVY})
    total = sum(c for c, _, d in mods if d == 0)
    print(f"kb {name} imports heavy modules: {', '.join(heavy) or 'none'}")
    top = sorted(((c, n) for c, n, d in mods if d == 0), reverse=True)[:6]
    print(f"  costliest top-level imports (cumulative ms, of {total / 1000:.0f} ms):")
    for cum, mod in top:
        print(f"    {cum / 1000:7.1f}  {mod}")
    lance = sum(c for c, n, _ in mods if n == "lancedb")
    if lance:
        ns = sum(c for c, n, _ in mods if n == "lance_namespace_urllib3_client")
        print(
            f"  lancedb's own import: {lance / 1000:.0f} ms ({100 * lance / total:.0f}%),"
            f" of it lance_namespace_urllib3_client (a REST client): {ns / 1000:.0f} ms"
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--kb", type=Path, help="an existing KB (default: ingest fixtures/demo)")
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="kb-cold-"))
    try:
        home = args.kb or tmp / "kb"
        if args.kb is None:
            t0 = time.perf_counter()
            subprocess.run(
                kb_cmd("ingest", str(ROOT / "fixtures" / "demo")),
                env=env(home),
                cwd=ROOT,
                check=True,
                capture_output=True,
            )
            print(f"ingest fixtures/demo: {time.perf_counter() - t0:.1f} s")
        size = folder_bytes(home)
        models = home / "cache" / "models"
        print(
            f"KB folder {home}: {size / 1e6:.2f} MB "
            f"(model files inside: {folder_bytes(models) / 1e6 if models.exists() else 0:.1f} MB;"
            " target <= 10 MB, none)"
        )
        commands = {
            "--help": ["--help"],
            "status": ["status"],
            "sources": ["sources"],
            "doctor": ["doctor", "--no-devices"],
        }
        times: dict[str, list[float]] = {k: [] for k in commands}
        for _ in range(args.runs):
            for name, cmd in commands.items():
                times[name].append(wall(kb_cmd(*cmd), home))
        base = statistics.median(times["--help"])
        for name, ts in times.items():
            med = statistics.median(ts)
            print(f"kb {name:<8} median {med:.3f} s  ratio {med / base:.2f}x kb --help")
        ratio = statistics.median(times["status"]) / base
        print(f"kb status / kb --help: {ratio:.2f} (target <= 1.5)")
        for name, cmd in commands.items():
            if name != "--help":
                report_imports(home, name, cmd)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
