"""Validation of golden query objects (format v1) into :mod:`eval.golden_types`.

Errors are :class:`GoldenError` and read ``FILE:LINE: query 'ID': FIELD: problem``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from eval.golden_types import (
    CONFLICT_RULES,
    QUERY_KEYS,
    SUPPORT_KEYS,
    AnswerCheck,
    GoldenQuery,
    Support,
)
from kb.errors import GoldenError


@dataclass
class Where:
    file: str
    line: int | None
    lines: dict[str, int]

    def fail(self, qid: str | None, fieldname: str, problem: str) -> GoldenError:
        line = (
            self.line
            if self.line is not None
            else self.lines.get(fieldname.split(".")[0].split("[")[0], self.lines.get(""))
        )
        loc = f"{self.file}:{line}" if line else self.file
        who = f"query '{qid}'" if qid else "query"
        return GoldenError(f"{loc}: {who}: {fieldname}: {problem}")


def parse_query(obj: Any, w: Where, index: int) -> GoldenQuery:
    if not isinstance(obj, dict):
        raise w.fail(f"#{index + 1}", "query", "expected a mapping with id and question")
    raw_id = obj.get("id")
    if isinstance(raw_id, bool) or not isinstance(raw_id, str | int) or str(raw_id).strip() == "":
        raise w.fail(f"#{index + 1}", "id", "missing or empty; give every query a unique id")
    qid = str(raw_id)
    question = obj.get("question")
    if not isinstance(question, str) or not question.strip():
        raise w.fail(qid, "question", "missing or empty; write the question text")
    answerable = obj.get("answerable", True)
    if not isinstance(answerable, bool):
        raise w.fail(qid, "answerable", f"expected true or false, got {answerable!r}")
    category = _opt_str(obj, "category", qid, w)
    difficulty = _opt_str(obj, "difficulty", qid, w)
    tags = _str_list(obj.get("tags"), "tags", qid, w)
    raw_supports = obj.get("supports", [])
    if raw_supports is None:
        raw_supports = []
    if not isinstance(raw_supports, list):
        raise w.fail(qid, "supports", "expected a list of {path, ...} mappings")
    supports = tuple(
        _parse_support(s, f"supports[{i}]", qid, w) for i, s in enumerate(raw_supports)
    )
    if not answerable and supports:
        raise w.fail(
            qid,
            "supports",
            "an unanswerable query must have no supports; remove them or set answerable: true",
        )
    groups = _parse_groups(obj.get("support_groups"), len(supports), qid, w)
    answer = _parse_answer(obj.get("answer"), qid, w)
    rule = obj.get("conflict_rule")
    if rule is not None and rule not in CONFLICT_RULES:
        raise w.fail(qid, "conflict_rule", f"{rule!r} is not one of {', '.join(CONFLICT_RULES)}")
    pending = obj.get("pending", False)
    if not isinstance(pending, bool):
        raise w.fail(qid, "pending", f"expected true or false, got {pending!r}")
    extra = {k: v for k, v in obj.items() if k not in QUERY_KEYS}
    return GoldenQuery(
        qid,
        question.strip(),
        answerable,
        category,
        difficulty,
        tags,
        supports,
        groups,
        answer,
        rule,
        pending,
        extra,
    )


def _opt_str(obj: dict[str, Any], key: str, qid: str, w: Where) -> str | None:
    v = obj.get(key)
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, str | int | float):
        raise w.fail(qid, key, f"expected text, got {v!r}")
    return str(v)


def _str_list(v: Any, name: str, qid: str, w: Where) -> tuple[str, ...]:
    if v is None:
        return ()
    if isinstance(v, str):
        return (v,)
    if not isinstance(v, list) or not all(
        isinstance(x, str | int | float) and not isinstance(x, bool) for x in v
    ):
        raise w.fail(qid, name, f"expected a list of strings, got {v!r}")
    return tuple(str(x) for x in v)


def _parse_support(s: Any, name: str, qid: str, w: Where) -> Support:
    if not isinstance(s, dict):
        raise w.fail(qid, name, "expected a mapping with at least 'path'")
    path = s.get("path")
    if not isinstance(path, str) or not path.strip():
        raise w.fail(
            qid, f"{name}.path", "missing; give the document path relative to the corpus root"
        )
    if "\\" in path:
        raise w.fail(qid, f"{name}.path", f"{path!r}: use '/' as the separator")
    if path.startswith("/"):
        raise w.fail(qid, f"{name}.path", f"{path!r}: must be relative to the corpus root")
    path = path.strip()
    while path.startswith("./"):
        path = path[2:]
    heading = s.get("heading")
    if heading is not None and not isinstance(heading, str):
        raise w.fail(qid, f"{name}.heading", f"expected text, got {heading!r}")
    snippet = s.get("snippet")
    if snippet is not None and (not isinstance(snippet, str) or not snippet.strip()):
        raise w.fail(qid, f"{name}.snippet", "expected non-empty text")
    page = s.get("page")
    if page is not None and (isinstance(page, bool) or not isinstance(page, int) or page < 1):
        raise w.fail(qid, f"{name}.page", f"expected a 1-based page number, got {page!r}")
    lines = _range(s.get("lines"), f"{name}.lines", qid, w, integer=True)
    seconds = _range(s.get("seconds"), f"{name}.seconds", qid, w, integer=False)
    grade = s.get("grade", 1)
    if isinstance(grade, bool) or not isinstance(grade, int) or grade < 1:
        raise w.fail(qid, f"{name}.grade", f"expected an integer >= 1, got {grade!r}")
    extra = {k: v for k, v in s.items() if k not in SUPPORT_KEYS}
    return Support(
        path,
        heading,
        snippet,
        page,
        (int(lines[0]), int(lines[1])) if lines else None,
        (float(seconds[0]), float(seconds[1])) if seconds else None,
        grade,
        extra,
    )


def _range(v: Any, name: str, qid: str, w: Where, integer: bool) -> tuple[float, float] | None:
    if v is None:
        return None
    kind = "int" if integer else "number"
    ok = (
        isinstance(v, list)
        and len(v) == 2
        and all(
            not isinstance(x, bool)
            and (isinstance(x, int) if integer else isinstance(x, int | float))
            and math.isfinite(x)
            for x in v
        )
    )
    if not ok:
        raise w.fail(qid, name, f"expected [start, end] ({kind}s), got {v!r}")
    lo, hi = v
    if lo > hi or lo < (1 if integer else 0):
        raise w.fail(qid, name, f"{v!r}: need {'1 <=' if integer else '0 <='} start <= end")
    return float(lo), float(hi)


def _parse_groups(v: Any, n: int, qid: str, w: Where) -> tuple[tuple[int, ...], ...] | None:
    if v is None:
        return None
    if not isinstance(v, list) or not all(isinstance(g, list) and g for g in v):
        raise w.fail(
            qid,
            "support_groups",
            "expected a list of non-empty lists of support indexes, e.g. [[0], [1]]",
        )
    out = []
    for g in v:
        for i in g:
            if isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < n:
                raise w.fail(
                    qid, "support_groups", f"index {i!r} is not a support index (0..{n - 1})"
                )
        out.append(tuple(g))
    return tuple(out)


def _parse_answer(v: Any, qid: str, w: Where) -> AnswerCheck | None:
    if v is None:
        return None
    if not isinstance(v, dict):
        raise w.fail(qid, "answer", "expected a mapping with any_of / must_contain / forbidden")
    return AnswerCheck(
        _str_list(v.get("any_of"), "answer.any_of", qid, w),
        _str_list(v.get("must_contain"), "answer.must_contain", qid, w),
        _str_list(v.get("forbidden"), "answer.forbidden", qid, w),
    )
