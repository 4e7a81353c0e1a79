"""Path patterns, one meaning everywhere: ingest ``include``/``exclude`` and search ``--path``.

Paths are the ``/``-separated paths relative to an ingested root.

- A pattern without glob characters is a file or folder: ``notes`` and ``notes/`` match
  ``notes/a.md`` and ``notes/sub/b.md`` (not ``notes-old/c.md``); ``notes/a.md`` matches
  that file. A leading ``./`` and backslashes are normalised; an empty pattern matches all.
- A pattern with ``*``, ``?`` or ``[...]`` is a glob: ``*`` and ``?`` stay inside one path
  segment, ``**`` matches any number of segments (including none). A glob that matches a
  folder matches everything under it, so ``wiki/*`` matches ``wiki/a.md`` and
  ``wiki/sub/b.md``; ``**/*.md`` matches every Markdown file at any depth; ``*.md`` only
  top-level ones. A malformed character class is taken literally.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

_GLOB_CHARS = re.compile(r"[*?\[]")


def normalise_pattern(pattern: str) -> str:
    p = pattern.strip().replace("\\", "/")
    while p.startswith("./"):
        p = p[2:]
    return p


@lru_cache(maxsize=256)
def _glob_regex(pattern: str) -> re.Pattern[str]:
    """Translate a path glob into a regex anchored at both ends (see module docs)."""
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:[^/]*/)*")  # zero or more whole segments
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif c == "*":
            out.append("[^/]*")
            i += 1
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "[":
            j = pattern.find("]", i + 2 if pattern.startswith("[!", i) else i + 1)
            if j == -1:
                out.append(re.escape(c))
                i += 1
            else:
                body = pattern[i + 1 : j]
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append("[" + body.replace("\\", "\\\\") + "]")
                i = j + 1
        else:
            out.append(re.escape(c))
            i += 1
    # a glob that matches a folder also matches everything under it
    return re.compile("".join(out) + "(?:/.*)?", re.DOTALL)


def path_matcher(pattern: str) -> Callable[[str], bool]:
    p = normalise_pattern(pattern)
    if p in ("", "/"):
        return lambda path: True
    if not _GLOB_CHARS.search(p):
        folder = p.rstrip("/")
        prefix = folder + "/"
        return lambda path: path == folder or path.startswith(prefix)
    try:
        rx = _glob_regex(p)
    except re.error:  # a malformed character class: treat the pattern literally
        return lambda path: path == p
    return lambda path: rx.fullmatch(path) is not None


def path_matches(path: str, pattern: str) -> bool:
    """Whether document ``path`` is selected by ``pattern`` (see the module docs)."""
    return path_matcher(pattern)(path)


def path_selected(path: str, include: tuple[str, ...], exclude: tuple[str, ...]) -> bool:
    """Included (no include patterns = everything) and not excluded."""
    if include and not any(path_matches(path, p) for p in include):
        return False
    return not any(path_matches(path, p) for p in exclude)
