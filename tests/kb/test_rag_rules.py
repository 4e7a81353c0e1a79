"""Each rule of the registry (:mod:`kb.rag.rules`) names the module that holds it."""

from __future__ import annotations

import importlib.util

import pytest

from kb.rag.rules import RULES, Rule

#: rules whose ``module`` names no module (none: keep it so)
DANGLING: frozenset[str] = frozenset()


@pytest.mark.parametrize("rule", RULES, ids=[r.id for r in RULES])
def test_a_rule_names_an_existing_module(rule: Rule) -> None:
    exists = importlib.util.find_spec(rule.module) is not None
    assert exists != (rule.id in DANGLING), f"{rule.id}: module {rule.module}"
