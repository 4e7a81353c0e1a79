"""A copy of a GGUF model in a weight type llama.cpp reads prompts fast with, made once.

Why: on the CPU, llama.cpp multiplies a whole prompt's tokens at once with its tuned
matrix kernels (llamafile's tinyBLAS and the repacked layouts), which take F16, BF16,
Q8_0 and Q4_0 weights among others, but not Q4_1. The bundled SmolLM2-135M ships as
Q4_1, so its prompt processing (most of ``kb ask``'s time to first token) runs on the
generic path. Measured on these 2-core machines, a 450-token prompt, AVX2 build:

    ============  ==========  =============
    weights       prompt      one more token
    ============  ==========  =============
    Q4_1 (as is)  1.90-2.31 s  18.9 ms
    Q8_0 copy     1.19-1.33 s  16.7 ms
    F16 copy      1.12-1.28 s  29.4 ms
    ============  ==========  =============

Q8_0 from Q4_1 loses almost nothing: a Q4_1 block holds 32 values ``d*q + m``
(q in 0..15); Q8_0 rewrites the block as ``d' * q'`` with ``d' = max|x| / 127`` and
q' in -127..127, so the added rounding error is at most ``d'/2``, about a sixteenth of
a Q4_1 step. F16 keeps the values to about 3 significant digits (nearly exact).

``[llm] requantize``:

- ``auto`` (default): the bundled model is read as its Q8_0 copy; a model of your own
  is read as it is (a copy of a large model costs its size in disk space);
- ``off``: every model as it is;
- ``q8_0`` / ``f16``: a copy of any model in that type.

The copy lives in the machine's model cache (:mod:`kb.backends.model_cache`), shared by
every KB: ``<model cache>/gguf/<key>/<stem>.<kind>.gguf`` beside the entry's
``manifest.json``; the key hashes the source file's bytes and the weight type, so the
same model installed twice shares one copy and a changed source (a new package
version) makes a new one, after which the entries of older contents of that same path
are deleted. Writing it:

- goes to a temporary folder beside the entry, synced, then renamed
  (:func:`kb.backends.model_cache.prepare`, under a lock: a second process waits and
  uses the first one's copy), so a crash never leaves a truncated model under the final
  name; a copy whose size or bytes do not match its manifest is made again;
- runs on a thread that is not a daemon, so a process that ends meanwhile (a question
  refused while the model loaded in the background, Ctrl-C) finishes the copy instead
  of leaving a partial file; temporaries of processes that are gone are removed;
- takes about 0.7 s for the bundled model and, like the whisper model's first join, is
  not announced.

A KB made before the shared cache kept its copy in ``<KB>/cache/models/gguf/`` named
``<stem>.<place>.<state>.<kind>.gguf`` (:func:`legacy_copy_path`); it is moved into the
cache on first use, or read where it is when the cache cannot be written.

When no copy can be made (no cache folder, a read-only or full disk, llama.cpp refuses
the file), the source is used as it is, with a one-line notice.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kb.config import CHOICES
from kb.errors import ConfigError
from kb.errors import notice as stderr_notice

REQUANTIZE = CHOICES["llm.requantize"]
#: what ``auto`` does with the bundled model
BUNDLED_TYPE = "q8_0"
SUBDIR = "gguf"
GGUF_MAGIC = b"GGUF"


def target_type(requantize: str, bundled: bool) -> str | None:
    """The weight type to read the model as, or ``None`` for the file as it is."""
    if requantize not in REQUANTIZE:
        raise ConfigError(f"[llm] requantize = {requantize!r}: use one of {', '.join(REQUANTIZE)}")
    if requantize == "auto":
        return BUNDLED_TYPE if bundled else None
    return None if requantize == "off" else requantize


def _entry(source: Path, cache_dir: Path, kind: str) -> Any:
    from kb.backends import model_cache

    src = Path(source).resolve()
    return model_cache.entry(SUBDIR, [src], {"type": kind}, label=str(src), base=cache_dir)


def copy_path(source: Path, cache_dir: Path, kind: str) -> Path:
    """Where the ``kind`` copy of ``source`` lives in the cache ``cache_dir`` (module
    docstring)."""
    return Path(_entry(source, cache_dir, kind).path) / f"{Path(source).stem}.{kind}.gguf"


def legacy_copy_path(source: Path, cache_dir: Path, kind: str) -> Path:
    """Where a KB made before the shared cache kept the copy (``cache_dir`` is that KB's
    ``cache/models``)."""
    st = Path(source).stat()
    state = hashlib.sha256(f"{st.st_size}|{st.st_mtime_ns}".encode()).hexdigest()[:8]
    return Path(cache_dir) / SUBDIR / f"{_prefix(source)}.{state}.{kind}.gguf"


def _prefix(source: Path) -> str:
    """``<stem>.<place>``: what every old copy of this very file was named from."""
    p = Path(source).resolve()
    return f"{p.stem}.{hashlib.sha256(str(p).encode()).hexdigest()[:8]}"


def requantized(
    source: Path,
    cache_dir: Path | None,
    kind: str,
    notice: Callable[[str], None] | None = None,
) -> Path:
    """The ``kind`` copy of ``source``, made now if missing; a KB's old copy when the
    cache cannot be written; ``source`` itself (with a ``notice``, default stderr) when
    no copy can be had."""
    from kb.backends import model_cache

    say = notice or stderr_notice
    if cache_dir is None:
        say(f"note: answer model read as it is ({source.name}): no model cache for a {kind} copy")
        return source
    legacy_root = model_cache.legacy_dir(model_cache._current_kb)
    legacy = None if legacy_root is None else legacy_copy_path(source, legacy_root, kind)
    try:
        entry = _entry(source, cache_dir, kind)
        target = Path(entry.path) / f"{Path(source).stem}.{kind}.gguf"
        if not model_cache.ready(entry):
            _make(source, entry, target, kind, legacy)
    except (OSError, RuntimeError) as e:
        if legacy is not None and is_usable(legacy):
            return legacy
        why = model_cache.unwritable_message(Path(cache_dir), e) if isinstance(e, OSError) else e
        say(
            f"note: answer model read as it is ({source.name}): cannot make the {kind} copy ({why})"
        )
        return source
    return target


def is_usable(path: Path) -> bool:
    """A finished copy: a file that starts with the GGUF magic bytes."""
    try:
        with path.open("rb") as f:
            return f.read(4) == GGUF_MAGIC
    except OSError:
        return False


def discard(path: Path) -> None:
    """Remove a copy llama.cpp could not load, with its cache entry (made again next
    time)."""
    from kb.backends import model_cache

    if (path.parent / model_cache.MANIFEST).is_file():
        model_cache.discard(path.parent)
    else:
        with contextlib.suppress(OSError):
            path.unlink()


def _make(source: Path, entry: Any, target: Path, kind: str, legacy: Path | None) -> None:
    """Make the entry (module docstring: a KB's old copy moved in, or llama.cpp's
    converter into a temporary folder, renamed, on a non-daemon thread), then delete the
    entries of older contents of the same source path."""
    from kb.backends import model_cache

    errors: list[BaseException] = []

    def build(tmp: Path) -> None:
        out = tmp / target.name
        _quantize(source, out, kind)
        with out.open("rb+") as f:
            os.fsync(f.fileno())

    def work() -> None:
        try:
            if legacy is not None and is_usable(legacy):
                model_cache.adopt(entry, legacy, is_usable, as_name=target.name)
            if not model_cache.ready(entry):
                model_cache.prepare(entry, build, f"requantizing the answer model to {kind}")
        except BaseException as e:  # noqa: BLE001 - handed to the caller below
            errors.append(e)

    # daemon=False: a thread started by a daemon thread (the background load) would
    # otherwise be a daemon too, and be cut off when the process ends
    worker = threading.Thread(target=work, name="kb-requantize", daemon=False)
    worker.start()
    worker.join()
    if errors:
        raise errors[0]
    _drop_older(entry)


def _drop_older(entry: Any) -> None:
    """Delete cache entries of the same source path and weight type with other bytes."""
    from kb.backends import model_cache

    for other in Path(entry.base, SUBDIR).iterdir():
        if other.name == entry.key or other.name.startswith("."):
            continue
        m = model_cache.manifest(other)
        if m and m.get("source") == entry.source and m.get("options") == entry.options:
            model_cache.discard(other)


def _quantize(source: Path, out: Path, kind: str) -> None:
    """llama.cpp's own converter (``llama_model_quantize``), every tensor to ``kind``."""
    import ctypes

    from kb.backends.generator import silence_llama_logs
    from kb.backends.llama_import import import_llama_cpp

    silence_llama_logs()
    llama_cpp = import_llama_cpp()
    ftype = {"q8_0": llama_cpp.LLAMA_FTYPE_MOSTLY_Q8_0, "f16": llama_cpp.LLAMA_FTYPE_MOSTLY_F16}
    params = llama_cpp.llama_model_quantize_default_params()
    params.ftype = ftype[kind]
    params.allow_requantize = True
    rc = llama_cpp.llama_model_quantize(
        str(source).encode("utf-8"), str(out).encode("utf-8"), ctypes.byref(params)
    )
    if rc != 0 or not out.is_file():
        raise RuntimeError(f"llama.cpp could not convert {source.name} (code {rc})")
