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

The copy lives in the model cache (``<KB home>/cache/models/gguf``, or
``KB_MODEL_CACHE``), named ``<stem>.<place>.<state>.<kind>.gguf``: ``place`` hashes the
source's resolved path, ``state`` its size and modification time, so a changed source
(a reinstalled package) makes a new copy, and the old copy of that same file is then
deleted. Writing it:

- goes to a temporary file, synced, then renamed, so a crash never leaves a truncated
  model under the final name (a copy that does not start with ``GGUF`` is made again);
- runs on a thread that is not a daemon, so a process that ends meanwhile (a question
  refused while the model loaded in the background, Ctrl-C) finishes the copy instead
  of leaving a partial file; temporaries of processes that are gone are removed;
- takes about 0.7 s for the bundled model and, like the whisper model's first join, is
  not announced.

When no copy can be made (no cache folder, a read-only or full disk, llama.cpp refuses
the file), the source is used as it is, with a one-line notice.
"""

from __future__ import annotations

import contextlib
import glob
import hashlib
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

from kb.config import CHOICES
from kb.errors import ConfigError
from kb.errors import notice as stderr_notice

REQUANTIZE = CHOICES["llm.requantize"]
#: what ``auto`` does with the bundled model
BUNDLED_TYPE = "q8_0"
SUBDIR = "gguf"
GGUF_MAGIC = b"GGUF"
#: where a temporary's process cannot be asked whether it lives, its age that marks it stale
STALE_AFTER_S = 3600.0


def target_type(requantize: str, bundled: bool) -> str | None:
    """The weight type to read the model as, or ``None`` for the file as it is."""
    if requantize not in REQUANTIZE:
        raise ConfigError(f"[llm] requantize = {requantize!r}: use one of {', '.join(REQUANTIZE)}")
    if requantize == "auto":
        return BUNDLED_TYPE if bundled else None
    return None if requantize == "off" else requantize


def copy_path(source: Path, cache_dir: Path, kind: str) -> Path:
    """Where the ``kind`` copy of ``source`` lives (module docstring)."""
    st = Path(source).stat()
    state = hashlib.sha256(f"{st.st_size}|{st.st_mtime_ns}".encode()).hexdigest()[:8]
    return Path(cache_dir) / SUBDIR / f"{_prefix(source)}.{state}.{kind}.gguf"


def _prefix(source: Path) -> str:
    """``<stem>.<place>``: what every copy of this very file is named from."""
    p = Path(source).resolve()
    return f"{p.stem}.{hashlib.sha256(str(p).encode()).hexdigest()[:8]}"


def requantized(
    source: Path,
    cache_dir: Path | None,
    kind: str,
    notice: Callable[[str], None] | None = None,
) -> Path:
    """The ``kind`` copy of ``source``, made now if missing; ``source`` itself (with a
    ``notice``, default stderr) when no copy can be made."""
    say = notice or stderr_notice
    if cache_dir is None:
        say(f"note: answer model read as it is ({source.name}): no model cache for a {kind} copy")
        return source
    try:
        target = copy_path(source, cache_dir, kind)
        if not is_usable(target):
            _make(source, target, kind)
    except (OSError, RuntimeError) as e:
        say(f"note: answer model read as it is ({source.name}): cannot make the {kind} copy ({e})")
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
    """Remove a copy llama.cpp could not load (it is made again next time)."""
    with contextlib.suppress(OSError):
        path.unlink()


def _make(source: Path, target: Path, kind: str) -> None:
    """Write ``target`` (module docstring: temporary, sync, rename, non-daemon thread),
    then delete older copies of the same source file."""
    folder = target.parent
    folder.mkdir(parents=True, exist_ok=True)
    _remove_stale(folder)
    errors: list[BaseException] = []

    def work() -> None:
        tmp = folder / f"{target.name}.tmp{os.getpid()}-{threading.get_ident()}"
        try:
            _quantize(source, tmp, kind)
            with tmp.open("rb+") as f:
                os.fsync(f.fileno())
            os.replace(tmp, target)
        except BaseException as e:  # noqa: BLE001 - handed to the caller below
            errors.append(e)
            with contextlib.suppress(OSError):
                tmp.unlink()

    # daemon=False: a thread started by a daemon thread (the background load) would
    # otherwise be a daemon too, and be cut off when the process ends
    worker = threading.Thread(target=work, name="kb-requantize", daemon=False)
    worker.start()
    worker.join()
    if errors:
        raise errors[0]
    for old in folder.glob(f"{glob.escape(_prefix(source))}.*.{kind}.gguf"):
        if old != target:
            discard(old)


def _remove_stale(folder: Path) -> None:
    """Delete the folder's temporaries whose process has ended (or, where that cannot be
    asked, that are older than :data:`STALE_AFTER_S`)."""
    for tmp in folder.glob("*.gguf.tmp*"):
        pid_text = tmp.name.rsplit(".tmp", 1)[-1].split("-", 1)[0]
        try:
            stale = (
                not _alive(int(pid_text))
                if os.name == "posix"
                else time.time() - tmp.stat().st_mtime > STALE_AFTER_S
            )
        except (ValueError, OSError):
            continue
        if stale:
            with contextlib.suppress(OSError):
                tmp.unlink()


def _alive(pid: int) -> bool:
    """Whether process ``pid`` exists (POSIX: signal 0 checks without sending)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


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
