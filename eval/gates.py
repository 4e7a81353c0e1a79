"""Quality gates for CI: ``--gate "hit@5>=0.8"``.

Syntax: ``METRIC OP NUMBER`` with OP one of ``>=``, ``<=``, ``>``, ``<``, ``==``
(spaces allowed). A bad gate or an unknown metric is a :class:`UsageError` (exit 2);
LLM-judged metrics (``judge_*``) are refused: they never gate. A gate on a metric
whose value is ``None`` (empty denominator) fails: nothing was measured.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from dataclasses import dataclass

from eval.names import ANSWER, MetricSpec, parse_metric
from kb.errors import GateFailedError, UsageError

ANSWER_OPS = (
    "empty_answer_rate",
    "latency_first_token_p50",
    "latency_first_token_p95",
    "latency_total_p50",
    "latency_total_p95",
)
_OPS: dict[str, Callable[[float, float], bool]] = {
    ">=": operator.ge,
    "<=": operator.le,
    ">": operator.gt,
    "<": operator.lt,
    "==": operator.eq,
}
_GATE = re.compile(
    r"^\s*([A-Za-z_][A-Za-z0-9_]*(?:@\d+)?)\s*(>=|<=|==|>|<)\s*([-+]?\d+(?:\.\d*)?|\.\d+)\s*$"
)


@dataclass(frozen=True)
class Gate:
    spec: MetricSpec
    op: str
    threshold: float
    text: str

    def passes(self, value: float | None) -> bool:
        return value is not None and _OPS[self.op](value, self.threshold)

    def describe(self, value: float | None) -> str:
        shown = "n/a (no queries in its denominator)" if value is None else f"{value:g}"
        return f"{self.spec.name} {self.op} {self.threshold:g} (got {shown})"


def parse_gate(text: str) -> Gate:
    m = _GATE.match(text)
    if m is None:
        raise UsageError(f'--gate {text!r}: expected METRIC OP NUMBER, e.g. "hit@5>=0.8"')
    spec = parse_metric(m.group(1))
    if not spec.gateable:
        raise UsageError(f"--gate {text!r}: {spec.name} is judged by an LLM and cannot gate")
    return Gate(spec, m.group(2), float(m.group(3)), text.strip())


def parse_gates(texts: list[str] | tuple[str, ...], k: int, answers: bool = True) -> list[Gate]:
    """Parse all gates up front (before a long run), checking cutoffs against ``k`` and
    answer metrics against ``answers``."""
    gates = [parse_gate(t) for t in texts]
    for g in gates:
        if not answers and (g.spec.group == ANSWER or g.spec.name in ANSWER_OPS):
            raise UsageError(f"--gate {g.text!r}: {g.spec.name} needs answers; drop --no-answer")
        if g.spec.k is not None and g.spec.k > k:
            raise UsageError(
                f"--gate {g.text!r}: {g.spec.name} needs --k {g.spec.k} or more "
                f"(this run uses --k {k})"
            )
    return gates


def check_gates(gates: list[Gate], overall: dict[str, float | None]) -> list[str]:
    """Descriptions of the failing gates (empty when all pass)."""
    return [
        g.describe(overall.get(g.spec.name))
        for g in gates
        if not g.passes(overall.get(g.spec.name))
    ]


def enforce(gates: list[Gate], overall: dict[str, float | None]) -> None:
    failed = check_gates(gates, overall)
    if failed:
        raise GateFailedError("gate failed: " + "; ".join(failed))
