"""Walk an ingest root and list candidate files.

- Hidden files and folders (name starting with ``.``) are skipped.
- Folder symlinks are never descended (no cycles). Every file goes through
  :func:`ingest.fileio.check_path`: a symlink whose target resolves outside the
  root, a FIFO, socket or device (or a link to one) is reported as a failure
  with one line and never opened: kb only reads regular files the user pointed
  it at. A file named on the command line (:func:`single_file`) gets the same
  checks, with its folder as the root.
- Only files with a supported extension that pass the include/exclude globs
  are yielded; paths are '/'-separated and relative to the root.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ingest.fileio import check_path
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
            yield candidate(root, abs_path, is_root=True)


def candidate(root: Path, abs_path: Path, *, is_root: bool) -> Candidate:
    """The candidate for a file already known to lie under the source ``root`` (a
    folder, ``is_root``; checked against it as :func:`walk` checks it), or for a
    source that is the file itself (checked against its folder, as :func:`single_file`)."""
    if not is_root:
        return single_file(abs_path)
    rel = abs_path.relative_to(root).as_posix()
    return Candidate(root, rel, abs_path, check_path(abs_path, root))


def single_file(path: Path) -> Candidate:
    """A file given directly on the command line: its root is its folder; same checks as
    a walked file (a symlink must point inside that folder, the target must be regular)."""
    abs_path = path.absolute()
    root = abs_path.parent.resolve()
    abs_path = root / abs_path.name
    return Candidate(root, abs_path.name, abs_path, check_path(abs_path, root))
