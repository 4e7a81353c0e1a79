"""Chunker specs: ``NAME`` or ``NAME:key=value,key=value``.

``NAME`` is a built-in (``structure``, ``window``), an installed plug-in (entry-point
group ``kb.chunkers``) or a local file ``path/to/file.py#function``. Values are parsed
as ``true``/``false``, an integer, a float, or else kept as the string (commas cannot
appear in values). The first ``:`` that follows the ``#function`` part (or the name)
starts the params, so a Windows drive letter in a file path is not mistaken for one.

Examples::

    window:size=64,overlap=16   → ChunkerSpec("window", {"size": 64, "overlap": 16})
    ./para.py#chunk:min_chars=3 → ChunkerSpec("./para.py#chunk", {"min_chars": 3}, file)
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from kb.errors import UsageError

_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


@dataclass(frozen=True)
class ChunkerSpec:
    """A parsed spec. ``file``/``function`` are set for ``path.py#function`` specs."""

    name: str
    params: dict[str, Any] = field(default_factory=dict)
    file: str | None = None
    function: str | None = None


def parse_spec(spec: str) -> ChunkerSpec:
    """Parse ``spec`` (see the module docstring); a malformed one raises :class:`UsageError`."""
    text = spec.strip()
    hash_at = text.rfind("#")
    colon = text.find(":", hash_at + 1 if hash_at >= 0 else 0)
    name, raw = (text, "") if colon < 0 else (text[:colon], text[colon + 1 :])
    if not name:
        raise UsageError(f"chunker spec {spec!r}: no name; write NAME or NAME:key=value,...")
    params: dict[str, Any] = {}
    for item in filter(None, (p.strip() for p in raw.split(","))):
        key, eq, value = item.partition("=")
        key = key.strip()
        if not eq or not _KEY.match(key):
            raise UsageError(
                f"chunker spec {spec!r}: {item!r} is not key=value (e.g. window:size=64)"
            )
        params[key] = parse_value(value.strip())
    if hash_at >= 0:
        path, function = name[:hash_at], name[hash_at + 1 :]
        if not path.endswith(".py") and function.isidentifier():
            from kb.safe_open import show, what_is

            what = what_is(path)  # say what a named non-.py path really is (lstat only)
            if what not in ("a regular file", "missing"):
                raise UsageError(
                    f"chunker plug-in {show(path)} is {what}; name a Python file "
                    "(path/to/file.py#function)"
                )
        if not path.endswith(".py") or not function.isidentifier():
            raise UsageError(f"chunker spec {spec!r}: a file chunker is path/to/file.py#function")
        return ChunkerSpec(name, params, path, function)
    return ChunkerSpec(name, params)


def parse_value(value: str) -> Any:
    """``true``/``false`` → bool, then int, then float, else the string itself."""
    if value.lower() in ("true", "false"):
        return value.lower() == "true"
    for kind in (int, float):
        try:
            return kind(value)
        except ValueError:
            pass
    return value
