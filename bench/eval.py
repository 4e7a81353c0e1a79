"""Benchmark: retrieval metrics for 10,000 synthetic queries, kb's eval vs ranx.

Usage::

    .venv/bin/python bench/eval.py [--queries 10000] [--repeat 3]

The same synthetic judgements (1-4 graded supports per query, 0-10 hits each matching
0-2 supports) go to both:

- ``kb metrics``: :func:`eval.metrics.compute_table` on prepared judgements (arrays
  built from credited ranks), i.e. the metric arithmetic alone;
- ``kb end-to-end``: the same from stored hits: text matching of every hit against
  every support, credit assignment, arrays, metrics;
- ``ranx``: ``ranx.evaluate(Qrels, Run, metrics)`` on the equivalent qrels/run, once
  with building the Qrels/Run objects from dicts and once on prebuilt objects (numba
  JIT compiled beforehand; the cold first call is printed apart).

Prints seconds (best of ``--repeat``) and the ratios, and checks that the numbers agree.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from eval.export import ranx_dicts  # noqa: E402
from eval.golden import GoldenQuery, Support  # noqa: E402
from eval.judgements import build_arrays, judge  # noqa: E402
from eval.matching import StoredHit  # noqa: E402
from eval.metrics import compute_table  # noqa: E402
from eval.metrics import retrieval as R  # noqa: E402
from eval.names import retrieval_names  # noqa: E402
from eval.result import QueryResult  # noqa: E402

K = 10
# every ranked metric a run reports, except recall_all (multi-hop groups: ranx has no equivalent)
METRICS = [m for m in retrieval_names(K) if "@" in m and not m.startswith("recall_all")]
RANX = {
    "hit": "hit_rate",
    "mrr": "mrr",
    "recall": "recall",
    "precision": "precision",
    "map": "map",
    "ndcg": "ndcg",
}


def synthetic(n: int, seed: int = 0) -> list[QueryResult]:
    rng = np.random.default_rng(seed)
    out = []
    cid = 0
    for qi in range(n):
        m = int(rng.integers(1, 5))
        sups = tuple(
            Support("d.md", snippet=f"tok{qi}x{j} end", grade=int(rng.integers(1, 4)))
            for j in range(m)
        )
        hits = []
        for _ in range(int(rng.integers(0, K + 1))):
            cid += 1
            r = rng.random()
            picked = (
                []
                if r < 0.55
                else (
                    [int(rng.integers(0, m))]
                    if r < 0.9
                    else [int(x) for x in rng.choice(m, min(2, m), False)]
                )
            )
            text = " ".join(["filler"] + [f"tok{qi}x{j} end" for j in picked])
            hits.append(StoredHit(chunk_id=cid, path="d.md", text=text))
        q = GoldenQuery(id=f"q{qi}", question="q?", supports=sups)
        out.append(QueryResult(query=q, position=qi, hits=hits))
    return out


def best(fn, repeat: int) -> tuple[float, object]:  # type: ignore[no-untyped-def]
    times, value = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        value = fn()
        times.append(time.perf_counter() - t)
    return min(times), value


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--queries", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    warnings.filterwarnings("ignore")
    results = synthetic(args.queries)
    judgements = [judge(r, "strict", K) for r in results]
    arrays = build_arrays(results, judgements, K)
    qrels_d, run_d = ranx_dicts(results, K)
    run_d = {q: d for q, d in run_d.items() if d}

    def ours_metrics() -> dict[str, float]:
        out = {}
        for name in METRICS:
            fam, k = name.split("@")
            v = R.AT_K_FUNCS[fam](arrays, int(k))
            out[name] = round(float(np.nanmean(v)), 4)
        return out

    def ours_e2e() -> dict[str, float | None]:
        return compute_table(results, K, names=METRICS).summary()["metrics"]

    from ranx import Qrels, Run, evaluate

    ranx_names = [f"{RANX[n.split('@')[0]]}@{n.split('@')[1]}" for n in METRICS]

    def theirs() -> dict[str, float]:
        res = evaluate(Qrels(qrels_d), Run(run_d), ranx_names, make_comparable=True)
        return {n: round(float(res[r]), 4) for n, r in zip(METRICS, ranx_names, strict=True)}

    qr, rn = Qrels(qrels_d), Run(run_d)

    def theirs_prebuilt() -> dict[str, float]:
        res = evaluate(qr, rn, ranx_names, make_comparable=True, save_results_in_run=False)
        return {n: round(float(res[r]), 4) for n, r in zip(METRICS, ranx_names, strict=True)}

    t0 = time.perf_counter()
    theirs()
    cold = time.perf_counter() - t0
    t_m, v_m = best(ours_metrics, args.repeat)
    t_e, v_e = best(ours_e2e, args.repeat)
    t_r, v_r = best(theirs, args.repeat)
    t_p, v_p = best(theirs_prebuilt, args.repeat)
    assert v_m == v_r == v_e == v_p, (v_m, v_r, v_e, v_p)
    print(
        f"{args.queries} queries, {len(METRICS)} metrics; numbers agree: "
        f"{', '.join(f'{k}={v}' for k, v in list(v_r.items())[:4])} ..."
    )  # type: ignore[union-attr]
    print(
        f"ranx evaluate (warm, incl. Qrels/Run): {t_r:8.3f} s   (first call with JIT: {cold:.1f} s)"
    )
    print(f"ranx evaluate only (prebuilt Qrels/Run): {t_p:7.3f} s")
    print(
        f"kb metrics on judgements:               {t_m:8.3f} s   ratio kb/ranx = "
        f"{t_m / t_r:.3f} (vs evaluate only: {t_m / t_p:.3f})"
    )
    print(f"kb end-to-end from stored hits:         {t_e:8.3f} s   ratio kb/ranx = {t_e / t_r:.2f}")


if __name__ == "__main__":
    main()
