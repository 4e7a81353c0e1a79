"""Walk an ingest root and list candidate files.

- Hidden files and folders (name starting with ``.``) are skipped.
- Folder symlinks are never descended (no cycles). A file symlink whose target
  resolves outside the root is reported as a failure and never read: kb only
  reads what the user pointed it at.
- Only files with a supported extension that pass the include/exclude globs
  are yielded; paths are '/'-separated and relative to the root.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from kb.globs import path_selected


@dataclass(frozen=True)
class Candidate:
    root: Path
    rel: str
    abs_path: Path
    problem: str | None = None  # set when the file must be recorded as failed unread


def walk(
    root: Path,
    extensions: frozenset[str],
    include: tuple[str, ...] = (),
    exclude: tuple[str, ...] = (),
) -> Iterator[Candidate]:
    """Yield candidates under ``root`` in a stable (sorted) order."""
    root = root.resolve()
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(filenames):
            if name.startswith("."):
                continue
            abs_path = Path(dirpath) / name
            rel = abs_path.relative_to(root).as_posix()
            if abs_path.suffix.lower() not in extensions:
                continue
            if not path_selected(rel, include, exclude):
                continue
            if abs_path.is_symlink():
                try:
                    target = abs_path.resolve(strict=True)
                except (OSError, RuntimeError):
                    yield Candidate(root, rel, abs_path, "broken symlink; fix or remove it")
                    continue
                if not target.is_relative_to(root):
                    yield Candidate(
                        root,
                        rel,
                        abs_path,
                        f"symlink points outside the ingested root ({target}); not followed",
                    )
                    continue
            yield Candidate(root, rel, abs_path)


def single_file(path: Path) -> Candidate:
    """A file given directly on the command line: its root is its folder."""
    abs_path = path.absolute()
    root = abs_path.parent.resolve()
    return Candidate(root, abs_path.name, root / abs_path.name)
