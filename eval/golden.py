"""Golden sets, format v1 (``docs/golden-format.md``): load, validate, serialise.

A golden set is a YAML file (``schema_version``, optional ``corpus``, ``queries``)
or a JSON Lines file (one query object per line, no header). Validation errors are
:class:`GoldenError` (exit 2) and read
``FILE:LINE: query 'ID': FIELD: problem; what to do``; the line is given for JSONL
(the line of the query) and for YAML (the line of the offending field).

Accepted beyond the format (never needed): unknown fields are kept in ``extra``;
a missing ``schema_version`` means 1; a missing ``answerable`` means ``true``; a
single string where a list of strings is expected (``tags``, ``answer.any_of``)
is read as a one-item list. Refused: a newer ``schema_version``, duplicate ids,
``answerable: false`` with supports, grades that are not integers >= 1, empty
supports groups or group indexes out of range, a question over 4,000 characters
(:mod:`kb.limits`), a file that is not a regular file or is over 5 MB
(:mod:`kb.safe_open`).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from eval.golden_types import (
    CONFLICT_RULES,
    SCHEMA_VERSION,
    AnswerCheck,
    GoldenQuery,
    GoldenSet,
    Support,
)
from eval.golden_validate import Where, parse_query
from kb.errors import GoldenError
from kb.limits import MAX_QUESTION_CHARS, too_long_message
from kb.safe_open import GOLDEN, read_bytes

__all__ = [
    "CONFLICT_RULES",
    "SCHEMA_VERSION",
    "AnswerCheck",
    "GoldenQuery",
    "GoldenSet",
    "Support",
    "load_golden",
]


# -- loading ---------------------------------------------------------------------------------
def load_golden(path: Path | str) -> GoldenSet:
    """Read and validate a golden set (``.yaml``/``.yml`` or ``.jsonl``), read through
    :func:`kb.safe_open.read_bytes`: anything but a regular file of at most 5 MB is a
    :class:`GoldenError` saying what the path is."""
    p = Path(path)
    raw = read_bytes(p, GOLDEN)  # a FIFO, a device or a 3 GB file: one line, nothing read
    digest = hashlib.sha256(raw).hexdigest()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise GoldenError(f"{p}: not UTF-8 text; save the golden set as UTF-8") from None
    if p.suffix.lower() == ".jsonl":
        queries = _load_jsonl(p, text)
        return GoldenSet(p, queries, digest, SCHEMA_VERSION, None, "jsonl")
    if p.suffix.lower() in (".yaml", ".yml"):
        return _load_yaml(p, text, digest)
    raise GoldenError(f"{p}: unknown golden set format; use a .yaml, .yml or .jsonl file")


def _load_jsonl(p: Path, text: str) -> tuple[GoldenQuery, ...]:
    queries: list[GoldenQuery] = []
    lines: dict[str, int] = {}
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as e:
            raise GoldenError(
                f"{p}:{lineno}: invalid JSON ({e.msg}); one query object per line"
            ) from None
        where = Where(str(p), lineno, {})
        q = _bounded(parse_query(obj, where, len(queries)), p, lineno)
        if q.id in lines:
            raise GoldenError(
                f"{p}:{lineno}: query '{q.id}': id: duplicate id (first used on line "
                f"{lines[q.id]}); ids must be unique"
            )
        lines[q.id] = lineno
        queries.append(q)
    return tuple(queries)


def _load_yaml(p: Path, text: str, digest: str) -> GoldenSet:
    import yaml

    try:
        data = yaml.safe_load(text)
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        loc = f":{mark.line + 1}" if mark is not None else ""
        problem = getattr(e, "problem", None) or str(e).splitlines()[0]
        raise GoldenError(f"{p}{loc}: invalid YAML ({problem})") from None
    if not isinstance(data, dict):
        raise GoldenError(f"{p}: expected a mapping with 'schema_version' and 'queries'")
    version = data.get("schema_version", SCHEMA_VERSION)
    if not isinstance(version, int) or isinstance(version, bool):
        raise GoldenError(f"{p}: schema_version: expected an integer, got {version!r}")
    if version > SCHEMA_VERSION:
        raise GoldenError(
            f"{p}: schema_version {version} is newer than this kb reads "
            f"(up to {SCHEMA_VERSION}); upgrade kb"
        )
    if version < 1:
        raise GoldenError(f"{p}: schema_version: must be 1, got {version}")
    corpus = data.get("corpus")
    if corpus is not None and not isinstance(corpus, str):
        raise GoldenError(f"{p}: corpus: expected a folder path, got {corpus!r}")
    items = data.get("queries")
    if items is None:
        raise GoldenError(f"{p}: queries: missing; add a 'queries:' list")
    if not isinstance(items, list):
        raise GoldenError(f"{p}: queries: expected a list of query mappings")
    line_maps = _yaml_lines(node)
    queries: list[GoldenQuery] = []
    first: dict[str, int] = {}
    for i, obj in enumerate(items):
        lm = line_maps[i] if i < len(line_maps) else {}
        q = _bounded(
            parse_query(obj, Where(str(p), None, lm), i), p, lm.get("question", lm.get(""))
        )
        if q.id in first:
            raise GoldenError(
                f"{p}:{lm.get('id', lm.get('', 0))}: query '{q.id}': id: duplicate id "
                f"(also query #{first[q.id] + 1}); ids must be unique"
            )
        first[q.id] = i
        queries.append(q)
    return GoldenSet(p, tuple(queries), digest, version, corpus, "yaml")


def _bounded(q: GoldenQuery, p: Path, line: int | None) -> GoldenQuery:
    """``q``, or :class:`GoldenError` when its question is over
    :data:`kb.limits.MAX_QUESTION_CHARS` (the limit of ``kb ask``, the API and MCP)."""
    if len(q.question) > MAX_QUESTION_CHARS:
        loc = f":{line}" if line else ""
        raise GoldenError(
            f"{p}{loc}: query '{q.id}': question: {too_long_message(len(q.question))}"
        )
    return q


def _yaml_lines(node: Any) -> list[dict[str, int]]:
    """Per query: 1-based line of the item ('') and of each of its keys."""
    import yaml

    out: list[dict[str, int]] = []
    if not isinstance(node, yaml.MappingNode):
        return out
    for key, value in node.value:
        if getattr(key, "value", None) == "queries" and isinstance(value, yaml.SequenceNode):
            for item in value.value:
                lm = {"": item.start_mark.line + 1}
                if isinstance(item, yaml.MappingNode):
                    for k, _ in item.value:
                        lm[str(k.value)] = k.start_mark.line + 1
                out.append(lm)
    return out
