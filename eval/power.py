"""Minimum detectable difference (MDD) of a paired comparison.

For ``n`` paired queries whose per-query differences ``d_i = b_i - a_i`` have sample
standard deviation ``s_d`` (``ddof = 1``), a two-sided paired test at level ``alpha``
detects a true mean difference with probability ``power`` when it is at least

    MDD = (z_{1 - alpha/2} + z_{power}) · s_d / sqrt(n)

(the normal approximation of the paired t-test's power; ``z_q`` is the standard normal
quantile). At ``alpha = 0.05`` and ``power = 0.8`` the factor is ``1.960 + 0.842 =
2.802``. A smaller difference may be real but the set is too small, or too noisy, to
tell. Edge cases: ``n < 2`` gives ``None`` (no spread can be estimated); identical
runs (``s_d = 0``) give 0.0, which only says the two runs never disagree.

Sets under :data:`SMALL_SET` queries get a warning: the MDD of a rate there is often
several points, and the normal approximation is rough below about 30.
"""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np

ALPHA = 0.05
POWER = 0.8
SMALL_SET = 200


def mdd_factor(alpha: float = ALPHA, power: float = POWER) -> float:
    """``z_{1 - alpha/2} + z_{power}`` (2.8016 for the defaults)."""
    if not 0 < alpha < 1 or not 0 < power < 1:
        raise ValueError(f"alpha and power must lie in (0, 1), got {alpha}, {power}")
    z = NormalDist()
    return z.inv_cdf(1 - alpha / 2) + z.inv_cdf(power)


def min_detectable_difference(
    diffs: np.ndarray, alpha: float = ALPHA, power: float = POWER
) -> float | None:
    """MDD from the paired differences ``diffs`` (see the module docs), 4 decimals.

    Example: n = 100 differences with s_d = 0.5 -> 2.8016 · 0.5 / 10 = 0.1401.
    """
    d = np.asarray(diffs, dtype=np.float64)
    d = d[np.isfinite(d)]
    if d.size < 2:
        return None
    sd = float(np.std(d, ddof=1))
    return round(mdd_factor(alpha, power) * sd / math.sqrt(d.size), 4)


def mdd_from_sd(sd: float, n: int, alpha: float = ALPHA, power: float = POWER) -> float | None:
    """MDD from a known paired SD and ``n`` (for planning: how many queries to add)."""
    if n < 2:
        return None
    return round(mdd_factor(alpha, power) * sd / math.sqrt(n), 4)


def small_set_warning(n: int) -> str | None:
    """A warning for fewer than :data:`SMALL_SET` paired queries, else ``None``."""
    if n >= SMALL_SET:
        return None
    return (
        f"only {n} paired queries (< {SMALL_SET}): differences smaller than the MDD column "
        "cannot be told from noise; add queries to detect smaller ones"
    )
