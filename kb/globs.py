"""Path glob matching shared by ingest include/exclude and search ``--path`` filters.

Paths are '/'-separated and relative. Rules (gitignore-like):

- ``*`` matches within one path component, ``?`` one character of it;
- ``**`` matches any number of components (``**/x.md``, ``notes/**``);
- a pattern without ``/`` also matches the base name anywhere (``*.md``);
- a pattern ending in ``/`` or naming a folder matches everything below it
  (``notes/`` and ``notes`` both match ``notes/a.md``).
"""

from __future__ import annotations

import re
from functools import lru_cache


@lru_cache(maxsize=512)
def _compile(pattern: str) -> re.Pattern[str]:
    p = pattern.strip().lstrip("./") if pattern.startswith("./") else pattern.strip()
    p = p.rstrip("/")
    out = []
    i = 0
    while i < len(p):
        c = p[i]
        if p.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif p.startswith("**", i):
            out.append(".*")
            i += 2
        elif c == "*":
            out.append("[^/]*")
            i += 1
        elif c == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(c))
            i += 1
    body = "".join(out)
    if "/" not in p:
        body = f"(?:.*/)?{body}"
    return re.compile(f"^{body}(?:/.*)?$")


def glob_match(path: str, pattern: str) -> bool:
    """True when the relative ``path`` matches ``pattern`` (see module rules)."""
    return bool(_compile(pattern).match(path.replace("\\", "/")))


def is_glob(pattern: str) -> bool:
    return any(ch in pattern for ch in "*?[")


def path_selected(path: str, include: tuple[str, ...], exclude: tuple[str, ...]) -> bool:
    """Included (no include patterns = everything) and not excluded."""
    if include and not any(glob_match(path, p) for p in include):
        return False
    return not any(glob_match(path, p) for p in exclude)
