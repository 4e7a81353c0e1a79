"""LLM-judge metrics (reported apart, never gated): per query values or NaN.

A judged answer stores ``answer.judge = {"groundedness": 0-5 | None, "correctness":
0-5 | None, "groundedness_alt": 0-5 | None (spot-check only), ...}`` (see
:mod:`eval.judge`). Unparsable scores are ``None`` and left out.
"""

from __future__ import annotations

import numpy as np

from eval.result import QueryResult


def _score(r: QueryResult, key: str) -> float:
    j = r.answer.judge if r.answer is not None else None
    v = None if not j else j.get(key)
    return float(v) if isinstance(v, int | float) and not isinstance(v, bool) else np.nan


def judge_groundedness(results: list[QueryResult]) -> np.ndarray:
    """Judge score 0-5 for "every statement is supported by the contexts"."""
    return np.array([_score(r, "groundedness") for r in results], dtype=np.float64)


def judge_correctness(results: list[QueryResult]) -> np.ndarray:
    """Judge score 0-5 for "the answer agrees with the reference answers"."""
    return np.array([_score(r, "correctness") for r in results], dtype=np.float64)


def judge_disagreement(results: list[QueryResult]) -> np.ndarray:
    """1 if the spot-check prompt's groundedness differs from the main one by >= 2,
    else 0; over spot-checked answers where both scores parsed."""
    a = judge_groundedness(results)
    b = np.array([_score(r, "groundedness_alt") for r in results], dtype=np.float64)
    out = (np.abs(a - b) >= 2).astype(np.float64)
    out[np.isnan(a) | np.isnan(b)] = np.nan
    return out


FUNCS = {
    "judge_groundedness": judge_groundedness,
    "judge_correctness": judge_correctness,
    "judge_disagreement_rate": judge_disagreement,
}
