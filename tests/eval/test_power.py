"""Minimum detectable difference (eval.power), hand-worked."""

from __future__ import annotations

import numpy as np
import pytest

from eval import power


def test_factor_is_z975_plus_z80() -> None:
    # 1.959964 + 0.841621
    assert power.mdd_factor() == pytest.approx(2.801585, abs=1e-6)
    with pytest.raises(ValueError):
        power.mdd_factor(alpha=0)


def test_mdd_from_paired_differences() -> None:
    # differences alternate +0.5 / -0.5 over 100 pairs: SD (ddof 1) = 0.5025;
    # MDD = 2.8016 · 0.5025 / sqrt(100) = 0.1408
    d = np.array([0.5, -0.5] * 50)
    assert power.min_detectable_difference(d) == pytest.approx(0.1408, abs=1e-4)
    # 4 times the queries about halve it: SD 0.5006, sqrt(400) = 20 -> 0.0701
    assert power.min_detectable_difference(np.tile(d, 4)) == pytest.approx(0.0701, abs=1e-4)
    assert power.mdd_from_sd(0.5, 100) == pytest.approx(0.1401, abs=1e-4)


def test_edge_cases() -> None:
    assert power.min_detectable_difference(np.array([0.3])) is None  # no spread from 1 pair
    assert power.min_detectable_difference(np.zeros(10)) == 0.0  # runs never disagree
    assert power.min_detectable_difference(np.array([np.nan, 1.0, 0.0])) is not None
    assert power.mdd_from_sd(0.5, 1) is None


def test_small_set_warning() -> None:
    assert "199 paired queries" in (power.small_set_warning(199) or "")
    assert power.small_set_warning(200) is None
