"""Paired significance: randomization test and bootstrap CI of a metric's delta.

Both work on paired per-query values ``a[i]``, ``b[i]`` (the same query in run A and
run B) and a statistic ``stat`` (``mean`` for averaged metrics, a percentile for
latencies); the delta is ``stat(b) - stat(a)``.

- Paired randomization (permutation) test: under H0 the labels A/B of each pair are
  exchangeable, so each pair is swapped with probability 1/2, ``n_perm`` times (fixed
  seed). Two-sided ``p = (1 + #{|delta_perm| >= |delta_obs|}) / (1 + n_perm)``
  (a tolerance of 1e-12 absorbs float noise). With no pairs ``p`` is ``None``; when
  every pair is equal ``p = 1``.
- Bootstrap CI: resample the pairs with replacement ``n_boot`` times (fixed seed) and
  take the 2.5th and 97.5th percentiles of the resampled deltas (percentile method).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

SEED = 20240601
N_PERM = 10_000
N_BOOT = 10_000
_CHUNK = 1_000

Stat = Callable[[np.ndarray], np.ndarray]  # [m, n] -> [m], row-wise


def mean_stat(x: np.ndarray) -> np.ndarray:
    return np.asarray(x.mean(axis=-1))


def percentile_stat(q: float) -> Stat:
    def f(x: np.ndarray) -> np.ndarray:
        return np.asarray(np.percentile(x, q, axis=-1))

    return f


def stat_for(aggregate: str) -> Stat:
    """``mean`` -> mean; ``p50``/``p95`` -> that percentile."""
    return mean_stat if aggregate == "mean" else percentile_stat(float(aggregate[1:]))


@dataclass(frozen=True)
class PairedResult:
    n: int
    a: float | None
    b: float | None
    delta: float | None
    p_value: float | None
    ci_low: float | None
    ci_high: float | None


def paired_randomization(
    a: np.ndarray, b: np.ndarray, stat: Stat = mean_stat, n_perm: int = N_PERM, seed: int = SEED
) -> float | None:
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    n = a.size
    if n == 0:
        return None
    if np.array_equal(a, b):
        return 1.0
    observed = abs(float(stat(b[None, :])[0] - stat(a[None, :])[0]))
    rng = np.random.default_rng(seed)
    extreme = 0
    done = 0
    while done < n_perm:
        m = min(_CHUNK, n_perm - done)
        swap = rng.random((m, n)) < 0.5
        pa = np.where(swap, b, a)
        pb = np.where(swap, a, b)
        d = np.abs(stat(pb) - stat(pa))
        extreme += int((d >= observed - 1e-12).sum())
        done += m
    return (1 + extreme) / (1 + n_perm)


def bootstrap_ci(
    a: np.ndarray,
    b: np.ndarray,
    stat: Stat = mean_stat,
    n_boot: int = N_BOOT,
    seed: int = SEED,
    level: float = 0.95,
) -> tuple[float, float] | None:
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    n = a.size
    if n == 0:
        return None
    rng = np.random.default_rng(seed)
    deltas = []
    done = 0
    while done < n_boot:
        m = min(_CHUNK, n_boot - done)
        idx = rng.integers(0, n, size=(m, n))
        deltas.append(stat(b[idx]) - stat(a[idx]))
        done += m
    d = np.concatenate(deltas)
    tail = (1 - level) / 2 * 100
    return float(np.percentile(d, tail)), float(np.percentile(d, 100 - tail))


def paired(
    a: np.ndarray,
    b: np.ndarray,
    aggregate: str = "mean",
    n_perm: int = N_PERM,
    n_boot: int = N_BOOT,
    seed: int = SEED,
) -> PairedResult:
    """Everything about one metric's paired comparison, rounded to 4 decimals."""
    stat = stat_for(aggregate)
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.size == 0:
        return PairedResult(0, None, None, None, None, None, None)
    va = float(stat(a[None, :])[0])
    vb = float(stat(b[None, :])[0])
    p = paired_randomization(a, b, stat, n_perm, seed)
    ci = bootstrap_ci(a, b, stat, n_boot, seed)
    r4 = lambda x: None if x is None else round(x, 4)  # noqa: E731
    return PairedResult(
        int(a.size),
        r4(va),
        r4(vb),
        r4(vb - va),
        r4(p),
        r4(ci[0]) if ci else None,
        r4(ci[1]) if ci else None,
    )
