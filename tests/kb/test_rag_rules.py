"""Each rule of the registry (:mod:`kb.rag.rules`) names the module that holds it."""

from __future__ import annotations

import importlib.util

import pytest

from kb.rag.rules import RULES, Rule

#: rules whose ``module`` names no module: ``latest-entry`` names ``kb.rag.latest``,
#: which does not exist (quote mode lifts the latest entry in kb.rag.candidates, no
#: selector runs it); this list must shrink to empty
DANGLING = frozenset({"latest-entry"})


@pytest.mark.parametrize("rule", RULES, ids=[r.id for r in RULES])
def test_a_rule_names_an_existing_module(rule: Rule) -> None:
    exists = importlib.util.find_spec(rule.module) is not None
    assert exists != (rule.id in DANGLING), f"{rule.id}: module {rule.module}"
