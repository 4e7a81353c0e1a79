"""Derived model files, made once per machine and shared by every KB.

A *derived* model file is one kb makes from a model it was given: the ONNX export of
the embedder (:mod:`kb.backends.onnx_export`), its int8 copy
(:mod:`kb.backends.onnx_quantize`), the requantized answer model
(:mod:`kb.backends.gguf_requantize`) and the joined whisper model
(:mod:`kb.backends.bundled`). They cost a minute and 100+ MB each, so they live in
one folder per machine, never inside a KB.

**Root.** ``$KB_MODEL_CACHE`` if set, else ``platformdirs.user_cache_dir("kb")/models``
(``~/.cache/kb/models`` on Linux).

**Entry.** ``<root>/<kind>/<key>/`` holds the files and ``manifest.json``:
``kind``, ``source`` (a path or id, for people), ``source_sha256``, ``options``, and
per file its ``size``, ``mtime_ns`` and ``sha256``. The key is
``sha256(kind, source_sha256, options as sorted JSON)[:16]``: the same model bytes
with the same options give the same entry whichever KB, venv or path they come from.

**Source hashes.** ``source_sha256`` is the SHA-256 over every file of the source
(relative path, NUL, the file's own SHA-256, newline; in path order). Reading 100 MB
on every query would cost more than the query, so the result is memoised in
``<root>/source-hashes.json`` keyed by the resolved path and a stamp of every file's
size and mtime: a changed or reinstalled model is hashed again, once.

**Checks.** :func:`ready` (every use) checks that each file of the manifest is there
with its recorded size and mtime; a file whose stamp differs is hashed, and an entry
whose bytes do not match its manifest is removed and made again, never used.
:func:`verify` (``kb doctor``, ``kb cache list --verify``) hashes every file.

**Making one** (:func:`prepare`): under an exclusive lock on ``locks/<kind>-<key>.lock``
(``fcntl.flock``, where the OS has it), the builder writes into
``<kind>/.<key>.tmp<pid>/`` beside the entry, the manifest is written, and the folder
is renamed into place (``os.replace``). A second process waiting on the lock finds the
winner's entry and uses it; a crash leaves only a temporary folder, removed by the
next :func:`prepare` once its process is gone.

**Who uses what.** ``<root>/registry.json`` maps each KB folder to the entries it
used (written when a KB records its models, or a process that works for a KB uses an
entry); ``kb cache list`` shows it and ``kb cache remove --unused`` removes entries no
existing KB uses. ``last used`` is the mtime of the entry's ``used`` file, touched at
most once an hour.

**A KB made before this cache** kept its copies in ``<KB>/cache/models``
(:func:`legacy_dir`). Callers pass the old copy to :func:`adopt`, which moves it into
the cache (rename; copy then delete across file systems) or, when the cache already has
the entry, deletes it. Where the cache cannot be written (a read-only or full disk) an
old copy is used where it is, and :func:`unwritable_message` says so in one line.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import shutil
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kb.hashing import sha256_file
from kb.progress import step

MANIFEST = "manifest.json"
USED = "used"
REGISTRY = "registry.json"
SOURCE_HASHES = "source-hashes.json"
#: how often (seconds) a use refreshes an entry's ``used`` stamp
TOUCH_EVERY_S = 3600.0
#: the KB folder this process works for (set by :func:`note_kb`), for the registry
_current_kb: Path | None = None
_memo: dict[str, str] = {}


def root() -> Path:
    """The model cache folder (module docs)."""
    env = os.environ.get("KB_MODEL_CACHE")
    if env:
        return Path(env).expanduser()
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("kb")) / "models"


def legacy_dir(kb_home: Path | None) -> Path | None:
    """Where a KB made before the shared cache kept its model copies."""
    return None if kb_home is None else Path(kb_home) / "cache" / "models"


def note_kb(kb_home: Path | None) -> None:
    """Remember the KB this process works for: entries it uses are registered to it."""
    global _current_kb
    if kb_home is not None:
        _current_kb = Path(kb_home).expanduser().resolve()


def unwritable_message(folder: Path, e: BaseException) -> str:
    """One line: the cache folder cannot be written, why, and what to do."""
    full = isinstance(e, OSError) and e.errno in (errno.ENOSPC, errno.EDQUOT)
    what = "free some space there" if full else "make it writable"
    reason = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
    return (
        f"model cache {folder} cannot be written ({reason}): {what}, or set KB_MODEL_CACHE "
        "to a writable folder"
    )


def check_writable(folder: Path) -> None:
    """Raise ``OSError`` unless a file can be made in ``folder`` (made if missing): asked
    before a minute of work is announced and started."""
    folder.mkdir(parents=True, exist_ok=True)
    probe = folder / f".probe{os.getpid()}"
    probe.write_bytes(b"")
    probe.unlink()


# -- entries ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Entry:
    """One cache entry: ``<root>/<kind>/<key>``."""

    kind: str
    source: str
    source_sha256: str
    options: dict[str, Any] = field(default_factory=dict)
    base: Path = field(default_factory=root)

    @property
    def key(self) -> str:
        opts = json.dumps(self.options, sort_keys=True, separators=(",", ":"))
        h = hashlib.sha256(f"{self.kind}\0{self.source_sha256}\0{opts}".encode())
        return h.hexdigest()[:16]

    @property
    def name(self) -> str:
        """``<kind>/<key>``: how a KB records the entry."""
        return f"{self.kind}/{self.key}"

    @property
    def path(self) -> Path:
        return self.base / self.kind / self.key


def entry(
    kind: str,
    sources: Sequence[Path],
    options: dict[str, Any],
    label: str = "",
    base: Path | None = None,
) -> Entry:
    """The entry for ``sources`` (files or folders) made with ``options``, in the cache
    ``base`` (default :func:`root`)."""
    folder = base or root()
    return Entry(kind, label or str(sources[0]), source_sha256(sources, folder), options, folder)


def _files_of(source: Path) -> list[tuple[str, Path]]:
    if source.is_dir():
        return [(str(p.relative_to(source)), p) for p in sorted(source.rglob("*")) if p.is_file()]
    return [(source.name, source)]


def source_sha256(sources: Sequence[Path], base: Path | None = None) -> str:
    """SHA-256 over every file of ``sources`` (module docs), memoised by stat stamps."""
    files = [(f"{i}/{rel}", p) for i, s in enumerate(sources) for rel, p in _files_of(Path(s))]
    stamp_h = hashlib.sha256()
    for rel, p in files:
        st = p.stat()
        stamp_h.update(f"{rel}\0{p.resolve()}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    stamp = stamp_h.hexdigest()
    if stamp in _memo:
        return _memo[stamp]
    memo_file = (base or root()) / SOURCE_HASHES
    known = _read_json(memo_file)
    digest = known.get(stamp)
    if not isinstance(digest, str):
        h = hashlib.sha256()
        for rel, p in files:
            h.update(f"{rel}\0{sha256_file(p)}\n".encode())
        digest = h.hexdigest()
        known[stamp] = digest
        with contextlib.suppress(OSError):
            _write_json(memo_file, known)
    _memo[stamp] = digest
    return digest


def manifest(path: Path) -> dict[str, Any] | None:
    """The entry's manifest, or ``None`` when there is none (or it is unreadable)."""
    data = _read_json(path / MANIFEST)
    return data if isinstance(data.get("files"), dict) else None


def problems(path: Path, *, full: bool) -> list[str]:
    """What is wrong with the entry at ``path`` (empty: fine). Quick: every manifest file
    there with its size and mtime, and any whose stamp differs hashed; ``full``: every
    file hashed."""
    m = manifest(path)
    if m is None:
        return [f"{path}: no manifest"]
    out: list[str] = []
    for name, rec in sorted(m["files"].items()):
        p = path / name
        try:
            st = p.stat()
        except OSError:
            out.append(f"{p}: missing")
            continue
        if st.st_size != rec.get("size"):
            out.append(f"{p}: {st.st_size} bytes, the manifest says {rec.get('size')}")
            continue
        if full or st.st_mtime_ns != rec.get("mtime_ns"):
            try:
                if sha256_file(p) != rec.get("sha256"):
                    out.append(f"{p}: content differs from the manifest's sha256")
            except OSError as e:
                out.append(f"{p}: unreadable ({e})")
    return out


def ready(e: Entry) -> bool:
    """Whether the entry exists and passes the quick check; a damaged entry is removed
    (so it is made again) and ``False`` returned."""
    if not (e.path / MANIFEST).is_file():
        return False
    if problems(e.path, full=False):
        discard(e.path)
        return False
    used(e)
    return True


def verify(path: Path) -> list[str]:
    """Every file of the entry hashed against its manifest (``kb doctor``)."""
    return problems(path, full=True)


def discard(path: Path) -> None:
    """Remove an entry (renamed aside first, so nobody sees it half removed)."""
    aside = path.with_name(f".{path.name}.gone{os.getpid()}")
    try:
        os.replace(path, aside)
    except OSError:
        return
    shutil.rmtree(aside, ignore_errors=True)


def used(e: Entry) -> None:
    """Touch the entry's ``used`` stamp (at most hourly) and register it to the KB this
    process works for; a read-only cache just skips both."""
    stamp = e.path / USED
    with contextlib.suppress(OSError):
        try:
            age = time.time() - stamp.stat().st_mtime
        except FileNotFoundError:
            age = TOUCH_EVERY_S
        if age >= TOUCH_EVERY_S:
            stamp.touch()
    if _current_kb is not None:
        register(_current_kb, [e.name], e.base)


def write_manifest(folder: Path, e: Entry) -> None:
    """Hash every file of ``folder`` into its ``manifest.json`` (module docs)."""
    files = {}
    for rel, p in _files_of(folder):
        if rel in (MANIFEST, USED):
            continue
        st = p.stat()
        files[rel] = {"size": st.st_size, "mtime_ns": st.st_mtime_ns, "sha256": sha256_file(p)}
    data = {
        "kind": e.kind,
        "source": e.source,
        "source_sha256": e.source_sha256,
        "options": e.options,
        "created": time.time(),
        "files": files,
    }
    (folder / MANIFEST).write_text(json.dumps(data, indent=1), encoding="utf-8")


@contextlib.contextmanager
def _lock(path: Path) -> Iterator[None]:
    """An exclusive lock on ``path`` (``fcntl.flock``; no lock where there is no fcntl)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows: the rename alone keeps it whole
        yield
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as f:
        fcntl.flock(f.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f.fileno(), fcntl.LOCK_UN)


def prepare(e: Entry, build: Callable[[Path], object], what: str = "") -> Path:
    """The entry's folder, made now with ``build(tmp_folder)`` if it is not ready (module
    docs: lock, temporary folder beside it, manifest, rename), reported as the step
    ``what`` (default ``preparing <kind>``; :mod:`kb.progress`). Raises ``OSError``
    when the cache cannot be written, and whatever ``build`` raises."""
    if ready(e):
        return e.path
    parent = e.path.parent
    parent.mkdir(parents=True, exist_ok=True)
    with _lock(e.base / "locks" / f"{e.kind}-{e.key}.lock"):
        if ready(e):  # another process made it while this one waited
            return e.path
        _remove_stale(parent)
        tmp = parent / f".{e.key}.tmp{os.getpid()}"
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir()
        try:
            with step(what or f"preparing {e.kind}"):
                build(tmp)
            write_manifest(tmp, e)
            _publish(tmp, e.path)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    used(e)
    return e.path


def adopt(
    e: Entry, old: Path, usable: Callable[[Path], bool], as_name: str | None = None
) -> Path | None:
    """Move a KB's old copy ``old`` (a folder, or a single file, named ``as_name`` in the
    entry) into the cache as ``e``;
    ``None`` when there is no usable old copy. When ``e`` is ready already, the old copy
    is deleted. Raises ``OSError`` when the cache cannot be written (the caller then
    uses ``old`` where it is)."""
    if not old.exists() or not usable(old):
        return None
    if ready(e):
        _remove(old)
        return e.path

    def build(tmp: Path) -> None:
        if old.is_dir():
            for p in old.iterdir():
                _move(p, tmp / p.name)
        else:
            _move(old, tmp / (as_name or old.name))

    path = prepare(e, build, f"moving a KB's {e.kind} copy into the machine's model cache")
    if old.is_dir():
        with contextlib.suppress(OSError):
            old.rmdir()
    return path


def _move(src: Path, dst: Path) -> None:
    """Rename ``src`` to ``dst``; across file systems copy (keeping mtimes) then delete."""
    try:
        os.replace(src, dst)
    except OSError as e:
        if e.errno != errno.EXDEV:
            raise
        if src.is_dir():
            shutil.copytree(src, dst)
        else:
            shutil.copy2(src, dst)
        _remove(src)


def _remove(p: Path) -> None:
    with contextlib.suppress(OSError):
        if p.is_dir():
            shutil.rmtree(p)
        else:
            p.unlink()


def _publish(tmp: Path, target: Path) -> None:
    """Rename ``tmp`` to ``target``; a damaged ``target`` is set aside first."""
    if target.exists():
        discard(target)
    os.replace(tmp, target)


def _remove_stale(parent: Path) -> None:
    """Temporary folders of processes that are gone."""
    for tmp in parent.glob(".*.tmp*"):
        try:
            pid = int(tmp.name.rsplit(".tmp", 1)[1])
        except (IndexError, ValueError):
            continue
        if pid != os.getpid() and not _alive(pid):
            shutil.rmtree(tmp, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True
    return True


# -- registry --------------------------------------------------------------------------------
def register(kb_home: Path, names: Sequence[str], base: Path | None = None) -> None:
    """Record that the KB at ``kb_home`` uses the entries ``names`` (``kind/key``);
    silently nothing where the cache cannot be written."""
    folder = base or root()
    home = str(Path(kb_home).resolve())
    reg = _read_json(folder / REGISTRY)
    have = reg.get(home, {}).get("entries", [])
    if all(n in have for n in names):
        return
    with contextlib.suppress(OSError), _lock(folder / "locks" / f"{REGISTRY}.lock"):
        reg = _read_json(folder / REGISTRY)
        rec = reg.setdefault(home, {"entries": []})
        rec["entries"] = sorted(set(rec.get("entries", [])) | set(names))
        rec["updated"] = time.time()
        _write_json(folder / REGISTRY, reg)


def registry(base: Path | None = None) -> dict[str, list[str]]:
    """KB folder -> the entries it uses, for KB folders that still exist."""
    reg = _read_json((base or root()) / REGISTRY)
    return {
        home: list(rec.get("entries", []))
        for home, rec in reg.items()
        if isinstance(rec, dict) and Path(home).is_dir()
    }


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _write_json(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.tmp{os.getpid()}")
    tmp.write_text(json.dumps(data, indent=1), encoding="utf-8")
    os.replace(tmp, path)


# -- listing (``kb cache``) ------------------------------------------------------------------
@dataclass
class Listed:
    """One entry as ``kb cache list`` shows it."""

    name: str
    path: Path
    kind: str
    source: str
    options: dict[str, Any]
    bytes: int
    created: float | None
    last_used: float | None
    used_by: list[str]
    problems: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "entry": self.name,
            "path": str(self.path),
            "kind": self.kind,
            "source": self.source,
            "options": self.options,
            "bytes": self.bytes,
            "created": self.created,
            "last_used": self.last_used,
            "used_by": self.used_by,
            "problems": self.problems,
        }


def list_entries(base: Path | None = None, *, full: bool = False) -> list[Listed]:
    """Every entry of the cache ``base`` (default :func:`root`), by kind and key; with
    ``full`` each is hashed against its manifest (``problems``)."""
    folder = base or root()
    users: dict[str, list[str]] = {}
    for home, names in registry(folder).items():
        for n in names:
            users.setdefault(n, []).append(home)
    out: list[Listed] = []
    for kind_dir in sorted(p for p in _dirs(folder) if p.name != "locks"):
        for path in sorted(_dirs(kind_dir)):
            m = manifest(path) or {}
            size = sum(p.stat().st_size for _, p in _files_of(path))
            stamp = path / USED
            name = f"{kind_dir.name}/{path.name}"
            out.append(
                Listed(
                    name=name,
                    path=path,
                    kind=str(m.get("kind", kind_dir.name)),
                    source=str(m.get("source", "?")),
                    options=dict(m.get("options", {})),
                    bytes=size,
                    created=m.get("created"),
                    last_used=stamp.stat().st_mtime if stamp.is_file() else m.get("created"),
                    used_by=sorted(users.get(name, [])),
                    problems=problems(path, full=full) if m else [f"{path}: no manifest"],
                )
            )
    return out


def _dirs(folder: Path) -> list[Path]:
    try:
        return [p for p in folder.iterdir() if p.is_dir() and not p.name.startswith(".")]
    except OSError:
        return []
